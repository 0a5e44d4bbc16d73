"""dK-series statistics: extraction, edge-DP and personalized-DP releases, synthetic dK-graphs.

- :mod:`.extract` — exact 1K / 2K / 3K distributions (:func:`dk_distribution`).
- :mod:`.microaggregation` — MDAV-dK and MPDC-dK (Algorithm 4) partitions, SAE.
- :mod:`.release` — ε-edge-DP releases over the public degree domain (:func:`release_dk`,
  ``004_*.txt`` chapter 6).
- :mod:`.personalized` — personalized-DP dK releases, every node with its own ε
  (``release_personalized``, chapter 8); :mod:`.preferences` reads and summarizes the
  per-node ε. Import them from their modules (they build on :mod:`graphanon.nodedp`).
- :mod:`.consistent` — a noisy 2K table made graphical (:func:`graphical_2k`, issue 36).
- :mod:`.generate` — simple graphs realizing a 1K / 2K table (:func:`dk_graph`), utility.

Node-DP releases of the same tables are in :mod:`graphanon.nodedp`.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .consistent import graphical_2k
    from .extract import (
        DK3Distribution,
        DKDistribution,
        degree_distribution,
        dk_distribution,
        joint_degree_distribution,
        three_k_distribution,
    )
    from .generate import SyntheticGraph, dk_graph, generate_1k, generate_2k, synthetic_utility
    from .microaggregation import Partition, mdav, mpdc, sae
    from .release import DKRelease, dk_query, release_dk, sensitivity

#: Where each public name lives. The submodules load on first use, so that reading a dK table
#: or generating a graph from one does not load the releases (and their numba kernels).
_HOME = {
    **dict.fromkeys(["DK3Distribution", "DKDistribution", "degree_distribution",
                     "dk_distribution", "joint_degree_distribution", "three_k_distribution"],
                    "extract"),
    **dict.fromkeys(["SyntheticGraph", "dk_graph", "generate_1k", "generate_2k",
                     "synthetic_utility"], "generate"),
    "graphical_2k": "consistent",
    **dict.fromkeys(["Partition", "mdav", "mpdc", "sae"], "microaggregation"),
    **dict.fromkeys(["DKRelease", "dk_query", "release_dk", "sensitivity"], "release"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))


__all__ = [
    "DK3Distribution",
    "DKDistribution",
    "DKRelease",
    "Partition",
    "SyntheticGraph",
    "degree_distribution",
    "dk_distribution",
    "dk_graph",
    "dk_query",
    "generate_1k",
    "generate_2k",
    "graphical_2k",
    "joint_degree_distribution",
    "mdav",
    "mpdc",
    "release_dk",
    "sae",
    "sensitivity",
    "synthetic_utility",
    "three_k_distribution",
]
