"""graphanon: publish graphs and graph statistics privately.

The public namespace re-exports the core structures and errors. Mechanisms live in their
family: :mod:`graphanon.anonymity` (user × feature graphs), :mod:`graphanon.dk` (dK-series,
edge-DP and personalized DP), :mod:`graphanon.nodedp` (node-DP); the paper reproductions in
:mod:`graphanon.reproduce`; the DP core in :mod:`graphanon.privacy`; I/O in :mod:`graphanon.io`
(docs/architecture.md).
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
    from .synthetic.pipeline import SyntheticRelease, synthesize


def __getattr__(name: str) -> Any:
    """``Graph`` / ``BipartiteGraph`` on first use: ``import graphanon`` stays cheap (the CLI
    starts without numpy)."""
    if name in ("Graph", "BipartiteGraph"):
        from . import graph

        return getattr(graph, name)
    if name in ("synthesize", "SyntheticRelease"):  # the recommended synthetic-graph pipeline
        from .synthetic import pipeline

        return getattr(pipeline, name)
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
    "SyntheticRelease",
    "__version__",
    "synthesize",
]
