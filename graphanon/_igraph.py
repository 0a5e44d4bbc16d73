"""Importing igraph without matplotlib in the command's own process.

``import igraph`` imports ``matplotlib.pyplot`` when matplotlib is installed (graphanon's
reports need it), only to offer igraph's own plotting: about 0.7 s of a command's start for
code no command uses. In a process the ``graphanon`` command owns (:func:`cli_process`),
:func:`load` imports igraph while ``matplotlib`` is marked absent, so igraph installs its
"matplotlib is not installed" stand-ins, and then lifts the mark: matplotlib itself imports
normally afterwards (the reports' plots). A program that imports graphanon as a library
keeps igraph's plotting: there :func:`load` is a plain ``import igraph``.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

__all__ = ["cli_process", "load"]

_SKIP_MATPLOTLIB = False


def cli_process() -> None:
    """Mark this process as the ``graphanon`` command's own (never a library user's)."""
    global _SKIP_MATPLOTLIB
    _SKIP_MATPLOTLIB = True


def load() -> ModuleType:
    """The ``igraph`` module (imported on first use)."""
    mod = sys.modules.get("igraph")
    if mod is not None:
        return mod
    block = _SKIP_MATPLOTLIB and "matplotlib" not in sys.modules
    if block:
        sys.modules["matplotlib"] = None  # type: ignore[assignment]  # import fails
    try:
        return importlib.import_module("igraph")
    finally:
        if block and "matplotlib" in sys.modules and sys.modules["matplotlib"] is None:
            del sys.modules["matplotlib"]
