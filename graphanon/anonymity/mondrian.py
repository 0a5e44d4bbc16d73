"""Mondrian multidimensional k-anonymity (LeFevre, DeWitt, Ramakrishnan, ICDE 2006), strict.

Two entry points:

- :func:`mondrian` on a binary user × feature graph, as k-anonymity by suppression: every
  feature is a {0, 1} attribute; a partition is split on a feature into its 0-users and its
  1-users when both sides keep ``k`` users; a final partition is released as the
  intersection of its members' feature sets (a mixed attribute is generalized to "*", i.e.
  suppressed). This is the baseline of ``000_*.txt`` section 6, comparable by Jaccard.
- :func:`mondrian_table` on a numeric table of quasi-identifiers (categorical values coded as
  integers), returning the partition and its normalized certainty penalty (NCP), to check
  against the reference implementation qiyuangong/Mondrian.

Both follow the strict rule of the reference: the split attribute is the one with the largest
normalized width ``(high − low) / range`` (first on ties; a partition's bounds are inherited
from its parent until the attribute is examined), cut at the median value (``lhs = values ≤
median``, where the median is the first value whose cumulative count reaches ``⌊|P|/2⌋``);
an attribute that cannot be cut into two sides of at least ``k`` is skipped, and a partition
where no attribute can be cut is final.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import check_int
from ..errors import InfeasibleError, InvalidParameterError
from ..graph import BipartiteGraph
from ..metrics import edge_set_metrics
from ..params import Param, Spec
from .smooth_k import release_clusters

__all__ = ["MondrianResult", "MondrianTableResult", "mondrian", "mondrian_table"]


@dataclass(frozen=True)
class MondrianResult:
    """A Mondrian k-anonymization by suppression of a user × feature graph."""

    anonymized: BipartiteGraph
    clusters: np.ndarray[Any, Any] = field(repr=False)
    k: int
    split: str
    n_clusters: int
    min_cluster_size: int
    max_cluster_size: int
    jaccard: float
    suppressed: float
    created: float
    ncp: float
    seconds: float

    def summary(self) -> dict[str, Any]:
        a = self.anonymized
        return {
            "k": self.k, "variant": "mondrian", "split": self.split, "n_users": a.n_users,
            "n_features": a.n_features, "n_edges_out": a.n_edges, "jaccard": self.jaccard,
            "suppressed": self.suppressed, "created": self.created,
            "n_clusters": self.n_clusters, "min_cluster_size": self.min_cluster_size,
            "max_cluster_size": self.max_cluster_size, "ncp": self.ncp,
            "seconds": self.seconds,
        }


@dataclass(frozen=True)
class MondrianTableResult:
    """Partition of a quasi-identifier table and its NCP (percent, as the reference)."""

    clusters: np.ndarray[Any, Any] = field(repr=False)
    low: np.ndarray[Any, Any] = field(repr=False)
    high: np.ndarray[Any, Any] = field(repr=False)
    k: int
    n_clusters: int
    min_cluster_size: int
    ncp: float
    seconds: float


#: The parameters of :func:`mondrian`, declared once: its validation, the options of
#: ``graphanon mondrian``, the job step's keys and the table in docs/anonymity.md.
MONDRIAN = Spec("mondrian", (
    Param("k", "int", "Anonymity level: every final partition has at least k users.", low=2),
    Param("split", "choice", "Split attribute rule (first: the reference's; balanced: the "
          "cut closest to half).", default="first", choices=("first", "balanced")),
), doc="docs/anonymity.md")


def mondrian(B: BipartiteGraph, *, k: int, split: str = "first") -> MondrianResult:
    """Strict Mondrian k-anonymity by suppression of a binary user × feature graph.

    Parameters
    ----------
    B
        The user × feature graph; each feature is a binary quasi-identifier.
    k
        Every final partition has at least ``k`` users.
    split
        ``"first"``: the reference rule (every mixed binary attribute has normalized width
        1, so the first splittable feature in column order is cut). ``"balanced"``: the
        splittable feature whose cut is closest to half the partition.

    Returns
    -------
    MondrianResult
        The release (each user gets the intersection of its partition), the partition of
        each user (private), Jaccard / suppressed / created, and NCP (the fraction of the
        ``n × m`` cells generalized to "*", in percent).

    Notes
    -----
    Deterministic. The output is k-anonymous by suppression (Definition 3.4 of
    ``000_*.txt``): each partition of ``≥ k`` users shares one released set, a subset of each
    member's set. It works on the sparse matrix (cost ``O(nnz · depth)``), so it scales to
    Adult and Google Play; the reference scales with ``n × m``.

    References
    ----------
    K. LeFevre, D. DeWitt, R. Ramakrishnan, "Mondrian multidimensional k-anonymity", ICDE
    2006; reference implementation https://github.com/qiyuangong/Mondrian (strict mode).
    """
    checked = MONDRIAN.validate({"k": k, "split": split})
    k, split = checked["k"], checked["split"]
    if B.n_users < k:
        raise InfeasibleError(
            f"k-anonymity needs at least k users: the graph has {B.n_users} users and k={k}."
        )
    t0 = time.perf_counter()
    X = B.to_scipy().tocsr()
    X.data = X.data.astype(np.int32)
    clusters = np.empty(B.n_users, dtype=np.int64)
    n_c = 0
    stack = [np.arange(B.n_users, dtype=np.int64)]
    while stack:
        rows = stack.pop()
        s = rows.size
        j = -1
        if s // 2 >= k:
            c = np.asarray(X[rows].sum(axis=0)).ravel()
            n0 = s - c
            ok = (c >= k) & (n0 >= k) & (n0 >= s // 2)
            cand = np.flatnonzero(ok)
            if cand.size:
                j = int(cand[0]) if split == "first" else int(cand[np.argmin(np.abs(n0[cand] -
                                                                                   s / 2))])
        if j < 0:
            clusters[rows] = n_c
            n_c += 1
            continue
        col = np.asarray(X[rows][:, [j]].toarray()).ravel() > 0
        stack.append(rows[col])
        stack.append(rows[~col])
    anonymized = release_clusters(B, clusters, variant="suppress")
    seconds = time.perf_counter() - t0
    met = edge_set_metrics(B, anonymized)
    sizes = np.bincount(clusters)
    total_cells = B.n_users * max(B.n_features, 1)
    # a cell is generalized to "*" when its attribute is mixed in the partition
    mixed = _mixed_cells(B, clusters, sizes)
    return MondrianResult(
        anonymized=anonymized, clusters=clusters, k=k, split=split, n_clusters=int(n_c),
        min_cluster_size=int(sizes.min()), max_cluster_size=int(sizes.max()),
        jaccard=met["jaccard"], suppressed=met["suppressed"], created=met["created"],
        ncp=100.0 * mixed / total_cells, seconds=seconds,
    )


def _mixed_cells(B: BipartiteGraph, clusters: np.ndarray[Any, Any],
                 sizes: np.ndarray[Any, Any]) -> int:
    r, c = B.edges()
    m = max(B.n_features, 1)
    keys, counts = np.unique(clusters[r] * m + c, return_counts=True)
    mixed = counts < sizes[keys // m]
    return int(sizes[keys[mixed] // m].sum())


def mondrian_table(X: Any, *, k: int) -> MondrianTableResult:
    """Strict Mondrian on a numeric quasi-identifier table; NCP as the reference computes it.

    Parameters
    ----------
    X
        ``(n, d)`` numeric array: one row per record, one column per quasi-identifier
        (categorical values coded as integers, e.g. in order of first appearance as
        qiyuangong/Mondrian does).
    k
        Every partition has at least ``k`` records.

    Returns
    -------
    MondrianTableResult
        Partition id per record, its bounds, and
        ``NCP = 100 · Σ_P |P| Σ_j (high_j − low_j) / range_j / (d · n)``.
    """
    k = check_int(k, "k", "mondrian_table", low=2)
    A = np.asarray(X, dtype=np.float64)
    if A.ndim != 2 or not np.isfinite(A).all():
        raise InvalidParameterError(
            "The 'X' parameter of mondrian_table must be a finite 2-d numeric array."
        )
    n, d = A.shape
    if n < k:
        raise InfeasibleError(f"k-anonymity needs at least k records: {n} records, k={k}.")
    t0 = time.perf_counter()
    rng_ = A.max(axis=0) - A.min(axis=0)
    rng_[rng_ == 0] = 1.0
    clusters = np.empty(n, dtype=np.int64)
    lows: list[np.ndarray[Any, Any]] = []
    highs: list[np.ndarray[Any, Any]] = []
    stack = [(np.arange(n, dtype=np.int64), A.min(axis=0), A.max(axis=0))]
    while stack:
        rows, low, high = stack.pop()
        low = low.copy()
        high = high.copy()
        allow = np.ones(d, dtype=bool)
        done = False
        for _ in range(d):
            width = np.where(allow, (high - low) / rng_, -1.0)
            dim = int(np.argmax(width))
            vals, freq = np.unique(A[rows, dim], return_counts=True)
            low[dim], high[dim] = vals[0], vals[-1]
            middle = rows.size // 2
            if middle < k or vals.size <= 1:
                allow[dim] = False
                continue
            si = int(np.searchsorted(np.cumsum(freq), middle))  # first cum >= middle
            split_val = vals[si]
            if si + 1 >= vals.size:  # split value equals the next value: cannot split
                allow[dim] = False
                continue
            left = A[rows, dim] <= split_val
            nl = int(left.sum())
            if nl < k or rows.size - nl < k:
                allow[dim] = False
                continue
            lh = high.copy()
            lh[dim] = split_val
            rl = low.copy()
            rl[dim] = vals[si + 1]
            stack.append((rows[~left], rl, high))
            stack.append((rows[left], low, lh))
            done = True
            break
        if not done:
            clusters[rows] = len(lows)
            lows.append(low)
            highs.append(high)
    lo = np.asarray(lows)
    hi = np.asarray(highs)
    sizes = np.bincount(clusters)
    ncp = float((sizes * ((hi - lo) / rng_).sum(axis=1)).sum() / (d * n) * 100.0)
    return MondrianTableResult(clusters=clusters, low=lo, high=hi, k=k,
                               n_clusters=int(sizes.size), min_cluster_size=int(sizes.min()),
                               ncp=ncp, seconds=time.perf_counter() - t0)
