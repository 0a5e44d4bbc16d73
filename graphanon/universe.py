"""Public universes: which nodes, users or features exist, stated independently of the data.

Edge-level differential privacy compares graphs that differ in one edge *on the same node
set*; randomized response compares user × feature matrices with the same rows and columns.
Those guarantees therefore treat the node set (or the user and feature sets) as public. An
edge list cannot say which nodes exist — a node without edges is simply absent, and a node
appears only through its edges — so a universe read off the data is a function of the
private edges: a 4-cycle plus edge 0–4 and the 4-cycle alone are edge neighbours, yet their
node sets have 5 and 4 nodes.

graphanon never reads a universe off the data. The operator passes one (``nodes=`` /
``users=`` / ``features=`` in the library, ``--nodes`` / ``--users`` / ``--features`` files
on the CLI, or a Neo4j label read in full, isolated nodes included). Without one, a release
uses nothing that depends on the universe's size (for example the 1K histogram leaves out
degree 0 and needs a public degree bound) or is refused with a message saying what to pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._ids import canonical_ids

__all__ = ["Universe"]


@dataclass(frozen=True)
class Universe:
    """A public universe of node ids, or of user and feature ids.

    Attributes
    ----------
    nodes, users, features : numpy.ndarray or None
        Canonical id arrays (:func:`graphanon._ids.canonical_ids`); ``None`` where none is
        given.
    source : str
        Where it came from, in words (``"file"``, ``"neo4j label :Person, isolated nodes
        included"``); recorded in the release's parameters.
    """

    nodes: np.ndarray[Any, Any] | None = None
    users: np.ndarray[Any, Any] | None = None
    features: np.ndarray[Any, Any] | None = None
    source: str = "given"

    def __post_init__(self) -> None:
        for name in ("nodes", "users", "features"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, canonical_ids(value, f"{name} of the universe"))

    def describe(self) -> dict[str, Any]:
        """The public description a release records: sizes and the source."""
        out: dict[str, Any] = {"source": self.source}
        for name in ("nodes", "users", "features"):
            value = getattr(self, name)
            if value is not None:
                out[name] = len(set(value.tolist()))
        return out
