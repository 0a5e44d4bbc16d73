"""Utility metrics and summaries of graphs and releases."""

from __future__ import annotations

from typing import Any

import numpy as np

from .graph import BipartiteGraph, Graph

__all__ = [
    "describe_bipartite",
    "describe_graph",
    "edge_set_metrics",
    "emd_distance",
    "euclidean_distance",
    "ks_distance",
    "l1_distance",
]


def _stats(x: np.ndarray[Any, Any], prefix: str) -> dict[str, Any]:
    if x.size == 0:
        return {f"{prefix}_min": 0, f"{prefix}_median": 0.0, f"{prefix}_mean": 0.0,
                f"{prefix}_max": 0}
    return {
        f"{prefix}_min": int(x.min()),
        f"{prefix}_median": float(np.median(x)),
        f"{prefix}_mean": float(x.mean()),
        f"{prefix}_max": int(x.max()),
    }


def describe_graph(G: Graph) -> dict[str, Any]:
    """Counts and degree statistics of an undirected graph."""
    from scipy.sparse.csgraph import connected_components

    n_comp, labels = connected_components(G.to_scipy(), directed=False)
    sizes = np.bincount(labels) if G.n_nodes else np.zeros(0, dtype=np.int64)
    return {
        "nodes": G.n_nodes,
        "edges": G.n_edges,
        "density": G.density,
        **_stats(G.degrees, "degree"),
        "isolated_nodes": int(np.count_nonzero(G.degrees == 0)),
        "connected_components": int(n_comp),
        "largest_component": int(sizes.max()) if sizes.size else 0,
    }


def describe_bipartite(B: BipartiteGraph) -> dict[str, Any]:
    """Counts and row/column degree statistics of a user × feature graph."""
    return {
        "users": B.n_users,
        "features": B.n_features,
        "edges": B.n_edges,
        "density": B.density,
        **_stats(B.user_degrees, "user_degree"),
        **_stats(B.feature_degrees, "feature_degree"),
    }


# ---------------------------------------------------------------------- bipartite edits
def edge_set_metrics(original: BipartiteGraph, anonymized: BipartiteGraph) -> dict[str, float]:
    """Jaccard, suppressed and created fractions of the 1-cells (they sum to 1).

    With ``E`` the original and ``E'`` the released cells (matched by user and feature id):
    ``jaccard = |E ∩ E'| / |E ∪ E'|``, ``suppressed = |E \\ E'| / |E ∪ E'|``,
    ``created = |E' \\ E| / |E ∪ E'|`` (``000_*.txt`` section 6).
    """
    from .graph import encode_ids

    # one index space over both id sets (a release may range over a larger public universe)
    (ou, au), _ = encode_ids(original.user_ids, anonymized.user_ids)
    (of, af), fids = encode_ids(original.feature_ids, anonymized.feature_ids)
    width = max(int(fids.size), 1)
    r, c = original.edges()
    a = np.unique(ou[r] * width + of[c])
    r, c = anonymized.edges()
    b = np.unique(au[r] * width + af[c])
    inter = np.intersect1d(a, b, assume_unique=True).size
    union = a.size + b.size - inter
    if union == 0:
        return {"jaccard": 1.0, "suppressed": 0.0, "created": 0.0}
    return {
        "jaccard": inter / union,
        "suppressed": (a.size - inter) / union,
        "created": (b.size - inter) / union,
    }


# ---------------------------------------------------------------------- distributions
def _align(p: Any, q: Any) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    p = np.asarray(p, dtype=np.float64).ravel()
    q = np.asarray(q, dtype=np.float64).ravel()
    size = max(p.size, q.size)
    return np.pad(p, (0, size - p.size)), np.pad(q, (0, size - q.size))


def l1_distance(p: Any, q: Any) -> float:
    """``Σ |p_i − q_i|`` of two count vectors over the same (zero-padded) domain."""
    a, b = _align(p, q)
    return float(np.abs(a - b).sum())


def euclidean_distance(p: Any, q: Any) -> float:
    """``sqrt(Σ (p_i − q_i)²)`` over the same (zero-padded) domain."""
    a, b = _align(p, q)
    return float(np.sqrt(((a - b) ** 2).sum()))


def ks_distance(p: Any, q: Any) -> float:
    """Kolmogorov–Smirnov distance between two histograms over the ordered domain.

    Each histogram is normalized to a distribution (negative counts clipped to 0); the result
    is ``max_x |CDF_p(x) − CDF_q(x)|``.
    """
    a, b = _align(p, q)
    a, b = np.clip(a, 0, None), np.clip(b, 0, None)
    if a.sum() == 0 or b.sum() == 0:
        return 0.0 if a.sum() == b.sum() else 1.0
    return float(np.abs(np.cumsum(a) / a.sum() - np.cumsum(b) / b.sum()).max())


def emd_distance(p: Any, q: Any) -> float:
    """Earth mover's distance between two normalized histograms on ``0, 1, 2, ...``."""
    a, b = _align(p, q)
    a, b = np.clip(a, 0, None), np.clip(b, 0, None)
    if a.sum() == 0 or b.sum() == 0:
        return 0.0
    return float(np.abs(np.cumsum(a) / a.sum() - np.cumsum(b) / b.sum()).sum())
