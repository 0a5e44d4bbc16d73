"""graphanon: publish graphs and graph statistics privately.

The public namespace re-exports the core structures and errors; mechanisms live in
:mod:`graphanon.anonymity`, :mod:`graphanon.dk`, :mod:`graphanon.projection` and
:mod:`graphanon.privacy`; I/O in :mod:`graphanon.io`.
"""

from typing import TYPE_CHECKING, Any

from ._version import __version__
from .errors import (
    GraphAnonError,
    InfeasibleError,
    InputFormatError,
    InvalidParameterError,
    Neo4jError,
    PrivacyBudgetExceeded,
)

if TYPE_CHECKING:  # pragma: no cover
    from .graph import BipartiteGraph, Graph


def __getattr__(name: str) -> Any:
    """``Graph`` / ``BipartiteGraph`` on first use: ``import graphanon`` stays cheap (the CLI
    starts without numpy)."""
    if name in ("Graph", "BipartiteGraph"):
        from . import graph

        return getattr(graph, name)
    raise AttributeError(f"module 'graphanon' has no attribute {name!r}")

__all__ = [
    "BipartiteGraph",
    "Graph",
    "GraphAnonError",
    "InfeasibleError",
    "InputFormatError",
    "InvalidParameterError",
    "Neo4jError",
    "PrivacyBudgetExceeded",
    "__version__",
]
