"""``synthesize``: the recommended private synthetic-graph pipeline (contract; see issue 36)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..graph import Graph
from ..privacy.release import Release

__all__ = ["SyntheticRelease", "synthesize"]


@dataclass(frozen=True)
class SyntheticRelease:
    """A synthetic graph and the one record of the run that made it.

    Attributes
    ----------
    graph
        The synthetic simple graph. Under edge-DP its nodes are the public node universe's
        ids (every listed node, isolated ones included); under node-DP new ids ``s0, s1, …``.
    release
        The record: mechanism ``synthesize-edge`` / ``synthesize-node``, the neighbourhood,
        the total ε, and in ``params["epsilon_split"]`` each part's share.
    parts
        Public per-part summaries (numbers of communities, released edge total, …).
    seconds
        Wall time.
    """

    graph: Graph
    release: Release
    parts: dict[str, Any] = field(default_factory=dict)
    seconds: float = field(default=0.0, compare=False)


def synthesize(G: Graph, *, epsilon: float, privacy: str = "edge", nodes: Any = None,
               theta: int = 16, backend: Any = None, rng: np.random.Generator | None = None,
               seed: int | None = None, progress: Any = None) -> SyntheticRelease:
    """Release a synthetic graph of ``G`` under ε-edge-DP or ε-node-DP (contract only)."""
    raise NotImplementedError("synthesize: being built (issue 36)")
