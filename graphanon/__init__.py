"""graphanon: publish graphs and graph statistics privately.

The public namespace re-exports the core structures and errors; mechanisms live in
:mod:`graphanon.anonymity`, :mod:`graphanon.dk`, :mod:`graphanon.projection` and
:mod:`graphanon.privacy`; I/O in :mod:`graphanon.io`.
"""

from ._version import __version__
from .errors import (
    GraphAnonError,
    InfeasibleError,
    InputFormatError,
    InvalidParameterError,
    Neo4jError,
    PrivacyBudgetExceeded,
)
from .graph import BipartiteGraph, Graph

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
