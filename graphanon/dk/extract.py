"""Exact dK-series extraction: 1K (degrees), 2K (joint degrees), 3K (wedges and triangles).

Every table is a :class:`DKDistribution`: one row per degree tuple with a non-zero count.

* 1K: ``degrees[:, 0] = g``, ``counts`` = number of nodes of degree ``g`` (``g = 0`` included).
* 2K: ``degrees = (g1, g2)`` with ``g1 <= g2``, ``counts`` = number of edges joining a node of
  degree ``g1`` with a node of degree ``g2``.
* 3K: two tables (as in Mahadevan et al. 2006, the connected 3-node subgraphs): ``wedges``
  keyed ``(end, centre, end)`` with the two end degrees ordered, counting *open* paths
  ``u - c - w`` (``u`` and ``w`` not adjacent); ``triangles`` keyed by the sorted degree
  triple.

Extraction is vectorized over the CSR; wedges are counted per centre node from the histogram
of its neighbours' degrees (``n_a · n_b`` or ``C(n_a, 2)`` paths per end-degree pair), minus
the closed paths of the triangles, which are enumerated once by a merge over sorted rows.

References
----------
``004_*.txt`` chapter 6, Definition 17 (dK-distribution) and Example 6; P. Mahadevan,
D. Krioukov, K. Fall, A. Vahdat, "Systematic topology analysis and generation using degree
correlations", SIGCOMM 2006.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from .._validation import check_int
from ..errors import InvalidParameterError
from ..graph import Graph

__all__ = [
    "DK3Distribution",
    "DKDistribution",
    "degree_distribution",
    "dk_distribution",
    "joint_degree_distribution",
    "three_k_distribution",
]

KINDS = ("degree", "joint_degree", "wedge", "triangle")


@dataclass(frozen=True)
class DKDistribution:
    """One dK table: degree tuples and their counts.

    Attributes
    ----------
    kind
        ``"degree"`` (1K), ``"joint_degree"`` (2K), ``"wedge"`` or ``"triangle"`` (3K).
    degrees
        ``(rows, width)`` int64 degree tuples, sorted lexicographically, unique.
    counts
        ``(rows,)`` counts (int64 for exact tables, may be float for raw noisy ones).
    seconds
        Extraction time.
    """

    kind: str
    degrees: npt.NDArray[np.int64]
    counts: npt.NDArray[Any]
    seconds: float = field(default=0.0, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InvalidParameterError(f"Unknown dK table kind {self.kind!r}.")
        width = {"degree": 1, "joint_degree": 2}.get(self.kind, 3)
        deg = np.asarray(self.degrees, dtype=np.int64).reshape(-1, width)
        cnt = np.asarray(self.counts)
        if cnt.shape != (deg.shape[0],):
            raise InvalidParameterError(
                f"A {self.kind} table needs one count per tuple: {deg.shape[0]} tuples, "
                f"counts of shape {cnt.shape}."
            )
        object.__setattr__(self, "degrees", deg)
        object.__setattr__(self, "counts", cnt)

    @property
    def d(self) -> int:
        return {"degree": 1, "joint_degree": 2}.get(self.kind, 3)

    @property
    def n_tuples(self) -> int:
        """Number of distinct degree tuples (rows)."""
        return int(self.degrees.shape[0])

    @property
    def total(self) -> float:
        """Sum of the counts (nodes for 1K, edges for 2K)."""
        return float(self.counts.sum())

    @property
    def max_degree(self) -> int:
        return int(self.degrees.max()) if self.degrees.size else 0

    def as_dict(self) -> dict[tuple[int, ...], Any]:
        """``{degree tuple: count}``."""
        return {
            tuple(int(x) for x in row): c.item()
            for row, c in zip(self.degrees, self.counts, strict=True)
        }

    def to_dense(self, h: int) -> npt.NDArray[Any]:
        """Counts over the whole public domain for a degree bound ``h``.

        1K: a vector indexed by degree ``0..h``. 2K: the vector over the cells
        ``(i, j), 1 <= i <= j <= h`` in :func:`~graphanon.dk.release.domain_cells` order
        (row-major upper triangle). Tuples outside the domain raise.
        """
        if self.degrees.size and self.max_degree > h:
            raise InvalidParameterError(
                f"The table has degree {self.max_degree} > the bound h = {h}."
            )
        if self.kind == "degree":
            out = np.zeros(h + 1, dtype=self.counts.dtype)
            out[self.degrees[:, 0]] = self.counts
            return out
        if self.kind == "joint_degree":
            out = np.zeros(h * (h + 1) // 2, dtype=self.counts.dtype)
            out[cell_index(self.degrees[:, 0], self.degrees[:, 1], h)] = self.counts
            return out
        raise InvalidParameterError("to_dense is defined for 1K and 2K tables only.")

    def nonzero(self) -> DKDistribution:
        """The rows with a non-zero count."""
        keep = self.counts != 0
        return DKDistribution(self.kind, self.degrees[keep], self.counts[keep], self.seconds)


@dataclass(frozen=True)
class DK3Distribution:
    """The 3K distribution: open wedges and triangles by degree triple."""

    wedges: DKDistribution
    triangles: DKDistribution
    seconds: float = field(default=0.0, compare=False)

    @property
    def n_tuples(self) -> int:
        return self.wedges.n_tuples + self.triangles.n_tuples


def cell_index(i: Any, j: Any, h: int) -> npt.NDArray[np.int64]:
    """Position of cell ``(i, j)``, ``1 <= i <= j <= h``, in the row-major upper triangle."""
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    r = i - 1
    # cells before row r: sum_{t<r} (h - t) = r*h - r(r-1)/2
    out: npt.NDArray[np.int64] = r * h - r * (r - 1) // 2 + (j - i)
    return out


def domain_cells(h: int) -> npt.NDArray[np.int64]:
    """All 2K cells ``(i, j)``, ``1 <= i <= j <= h``, as an ``(h(h+1)/2, 2)`` array."""
    i, j = np.triu_indices(h)
    return np.stack([i + 1, j + 1], axis=1).astype(np.int64)


def _aggregate(keys: npt.NDArray[np.int64], weights: Any = None) -> tuple[Any, Any]:
    uniq, inv = np.unique(keys, return_inverse=True)
    counts = np.bincount(inv, weights=weights, minlength=uniq.size)
    if weights is None or np.asarray(weights).dtype.kind in "iu":
        counts = np.rint(counts).astype(np.int64)
    return uniq, counts


def degree_distribution(G: Graph) -> DKDistribution:
    """The 1K distribution: number of nodes of each degree (zero counts dropped).

    Equals ``np.bincount(G.degrees)`` restricted to its non-zero entries.
    """
    t0 = time.perf_counter()
    hist = np.bincount(G.degrees)
    deg = np.flatnonzero(hist)
    return DKDistribution("degree", deg[:, None], hist[deg].astype(np.int64),
                          time.perf_counter() - t0)


def joint_degree_distribution(G: Graph) -> DKDistribution:
    """The 2K distribution: edges by the ordered degree pair ``(g1 <= g2)`` of their ends."""
    t0 = time.perf_counter()
    deg = G.degrees
    u, v = G.edges()
    a, b = deg[u], deg[v]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    base = int(deg.max()) + 1 if deg.size else 1
    keys, counts = _aggregate(lo * base + hi)
    tuples = np.stack([keys // base, keys % base], axis=1)
    return DKDistribution("joint_degree", tuples, counts, time.perf_counter() - t0)


@numba.njit(cache=True)
def _triangle_pass(indptr: Any, indices: Any, out: Any) -> int:  # pragma: no cover - numba
    """Triangles ``u < v < w`` by merging the upper parts of sorted rows: returns their
    number, and writes them into ``out`` (shape ``(count, 3)``) when it is not empty."""
    n = indptr.size - 1
    fill = out.shape[0] > 0
    t = 0
    for u in range(n):
        for p in range(indptr[u], indptr[u + 1]):
            v = indices[p]
            if v <= u:
                continue
            a, b = p + 1, indptr[v]
            ea, eb = indptr[u + 1], indptr[v + 1]
            while a < ea and b < eb:
                x, y = indices[a], indices[b]
                if x < y:
                    a += 1
                elif y < x:
                    b += 1
                else:
                    if x > v:
                        if fill:
                            out[t, 0] = u
                            out[t, 1] = v
                            out[t, 2] = x
                        t += 1
                    a += 1
                    b += 1
    return t


def _triangles(indptr: Any, indices: Any) -> Any:
    """All triangles ``u < v < w`` as a ``(count, 3)`` array (a counting pass, then a fill)."""
    total = _triangle_pass(indptr, indices, np.empty((0, 3), dtype=np.int64))
    out = np.empty((total, 3), dtype=np.int64)
    _triangle_pass(indptr, indices, out)
    return out


@numba.njit(cache=True)
def _paths_by_centre(indptr: Any, indices: Any, deg: Any, base: int) -> Any:  # pragma: no cover
    """Keys ``(a*base + c)*base + b`` (a <= b end degrees, c centre degree) and path counts.

    Per centre: the histogram of its neighbours' degrees, then ``n_a n_b`` paths for a < b and
    ``n_a (n_a - 1) / 2`` for a == b. Emits one entry per (centre, end-degree pair).
    """
    n = indptr.size - 1
    size = 0
    nd = np.zeros(n, dtype=np.int64)
    for c in range(n):
        prev = -1
        k = 0
        nb = np.sort(deg[indices[indptr[c]:indptr[c + 1]]])
        for x in nb:
            if x != prev:
                k += 1
                prev = x
        nd[c] = k
        size += k * (k + 1) // 2
    keys = np.empty(size, dtype=np.int64)
    vals = np.empty(size, dtype=np.int64)
    t = 0
    for c in range(n):
        k = nd[c]
        if k == 0:
            continue
        nb = np.sort(deg[indices[indptr[c]:indptr[c + 1]]])
        dv = np.empty(k, dtype=np.int64)
        dc = np.zeros(k, dtype=np.int64)
        j = -1
        prev = -1
        for x in nb:
            if x != prev:
                j += 1
                dv[j] = x
                prev = x
            dc[j] += 1
        gc = deg[c]
        for i in range(k):
            for m in range(i, k):
                if i == m:
                    cnt = dc[i] * (dc[i] - 1) // 2
                else:
                    cnt = dc[i] * dc[m]
                keys[t] = (dv[i] * base + gc) * base + dv[m]
                vals[t] = cnt
                t += 1
    return keys, vals


def three_k_distribution(G: Graph) -> DK3Distribution:
    """The 3K distribution: open wedges ``(end, centre, end)`` and triangles (sorted triple)."""
    t0 = time.perf_counter()
    deg = G.degrees
    base = int(deg.max()) + 1 if deg.size else 1
    indptr = np.ascontiguousarray(G.indptr, dtype=np.int64)
    indices = np.ascontiguousarray(G.indices, dtype=np.int64)
    tri = _triangles(indptr, indices)
    td = np.sort(deg[tri], axis=1) if tri.size else np.zeros((0, 3), dtype=np.int64)
    tkeys, tcounts = _aggregate((td[:, 0] * base + td[:, 1]) * base + td[:, 2])
    # closed paths: each triangle closes one path at each of its three corners
    closed_keys = []
    for centre in range(3):
        ends = np.delete(td, centre, axis=1)
        closed_keys.append((ends[:, 0] * base + td[:, centre]) * base + ends[:, 1])
    pk, pv = _paths_by_centre(indptr, indices, np.ascontiguousarray(deg), base)
    all_keys = np.concatenate([pk, *closed_keys])
    all_vals = np.concatenate([pv, -np.ones(3 * td.shape[0], dtype=np.int64)])
    wkeys, wcounts = _aggregate(all_keys, all_vals)
    keep = wcounts != 0
    wkeys, wcounts = wkeys[keep], wcounts[keep]
    seconds = time.perf_counter() - t0

    def split(keys: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        return np.stack([keys // (base * base), (keys // base) % base, keys % base], axis=1)

    return DK3Distribution(
        DKDistribution("wedge", split(wkeys), wcounts, seconds),
        DKDistribution("triangle", split(tkeys), tcounts, seconds),
        seconds,
    )


def dk_distribution(G: Graph, d: int) -> DKDistribution | DK3Distribution:
    """The exact dK distribution of ``G`` for ``d`` in {1, 2, 3}.

    Parameters
    ----------
    G
        An undirected simple graph.
    d
        1 (degree histogram), 2 (joint degree distribution) or 3 (wedges and triangles).

    Returns
    -------
    DKDistribution or DK3Distribution
        ``d = 3`` returns both 3K tables.

    Raises
    ------
    InvalidParameterError
        If ``d`` is not 1, 2 or 3.

    References
    ----------
    ``004_*.txt`` chapter 6, Definition 17.
    """
    d = check_int(d, "d", "dk_distribution", low=1, high=3)
    if not isinstance(G, Graph):
        raise InvalidParameterError(
            f"dk_distribution needs a graphanon Graph. Got {type(G).__name__} instead."
        )
    if d == 1:
        return degree_distribution(G)
    if d == 2:
        return joint_degree_distribution(G)
    return three_k_distribution(G)
