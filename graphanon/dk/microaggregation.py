"""Microaggregation of dK tuples: MDAV-dK and MPDC-dK (Algorithm 4).

Both partition a set of *points* — degree tuples ``(g1, g2)`` in the degree-pair plane — into
clusters. They never look at the counts; the counts of a cluster are summed afterwards
(:func:`aggregate`).

Which points are clustered is the caller's privacy decision: clustering the tuples observed in
the data (as the thesis does) makes the partition itself a function of the private graph, so
:mod:`graphanon.dk.release` clusters the cells of the *public* domain by default.

References
----------
``004_*.txt`` chapter 6, sections 6.4.1 (MDAV-dK) and 6.4.2 (MPDC-dK, Algorithm 4), 6.5.2
(complexity); J. Domingo-Ferrer, J. M. Mateo-Sanz, "Practical data-oriented microaggregation
for statistical disclosure control", IEEE TKDE 2002 (MDAV).
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from .. import _numba  # noqa: F401  (numba's per-user cache folder)
from .._validation import check_int
from ..errors import InvalidParameterError
from .extract import domain_cells

__all__ = [
    "Partition",
    "aggregate",
    "domain_partition",
    "grid_partition",
    "mdav",
    "mpdc",
    "sae",
    "tile_partition",
]


@dataclass(frozen=True)
class Partition:
    """A partition of points into clusters.

    Attributes
    ----------
    labels
        Cluster label of each point, ``0 .. n_clusters - 1``.
    n_clusters
        Number of clusters ``z``.
    method
        ``"mdav"``, ``"mpdc"`` or ``"grid"``.
    params
        ``{"k": ...}`` or ``{"tau": ...}``.
    seconds
        Clustering time.
    """

    labels: npt.NDArray[np.int64]
    n_clusters: int
    method: str
    params: dict[str, Any]
    seconds: float = field(default=0.0, compare=False)

    def sizes(self) -> npt.NDArray[np.int64]:
        return np.bincount(self.labels, minlength=self.n_clusters)


def _points(points: Any, owner: str) -> npt.NDArray[np.float64]:
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[0] == 0 or not np.isfinite(pts).all():
        raise InvalidParameterError(
            f"The 'points' parameter of {owner} must be a non-empty finite (n, d) array. "
            f"Got shape {pts.shape} instead."
        )
    return np.ascontiguousarray(pts)


# ----------------------------------------------------------------------------- MDAV
@numba.njit(cache=True)
def _mdav(x: Any, k: int) -> Any:  # pragma: no cover - numba
    n, dim = x.shape
    labels = -np.ones(n, dtype=np.int64)
    remaining = np.arange(n)
    n_rem = n
    lab = 0
    dist = np.empty(n, dtype=np.float64)

    def far_from(p: Any, rem: Any, m: int) -> int:
        best, bi = -1.0, 0
        for t in range(m):
            i = rem[t]
            s = 0.0
            for c in range(dim):
                s += (x[i, c] - p[c]) ** 2
            if s > best:
                best, bi = s, t
        return bi

    while n_rem > 0:
        if n_rem < 2 * k:
            for t in range(n_rem):
                labels[remaining[t]] = lab
            lab += 1
            break
        centroid = np.zeros(dim)
        for t in range(n_rem):
            for c in range(dim):
                centroid[c] += x[remaining[t], c]
        centroid /= n_rem
        r = remaining[far_from(centroid, remaining, n_rem)]
        rounds = 2 if n_rem >= 3 * k else 1
        anchor = x[r].copy()
        for rnd in range(rounds):
            # k nearest (including the anchor itself) to anchor
            for t in range(n_rem):
                i = remaining[t]
                s = 0.0
                for c in range(dim):
                    s += (x[i, c] - anchor[c]) ** 2
                dist[t] = s
            order = np.argsort(dist[:n_rem], kind="mergesort")
            for t in range(k):
                labels[remaining[order[t]]] = lab
            lab += 1
            keep = np.empty(n_rem - k, dtype=np.int64)
            for t in range(k, n_rem):
                keep[t - k] = remaining[order[t]]
            remaining = keep[np.argsort(keep, kind="mergesort")]  # not numba's quadratic quicksort
            n_rem -= k
            if rnd == 0 and rounds == 2:
                # s: the point farthest from r
                anchor = x[remaining[far_from(anchor, remaining, n_rem)]].copy()
        if rounds == 1:
            for t in range(n_rem):
                labels[remaining[t]] = lab
            lab += 1
            break
    return labels, lab


def mdav(points: Any, *, k: int) -> Partition:
    """MDAV: clusters of exactly ``k`` points, except one of ``k .. 2k - 1``.

    Parameters
    ----------
    points
        ``(n, d)`` coordinates (degree tuples).
    k
        Minimum cluster size, ``1 <= k <= n``.

    Returns
    -------
    Partition
        ``floor(n / k)`` clusters.

    Raises
    ------
    InvalidParameterError
        For an empty point set or ``k`` outside ``[1, n]``.

    References
    ----------
    ``004_*.txt`` section 6.4.1; Domingo-Ferrer and Mateo-Sanz (2002).

    Notes
    -----
    Ties (equidistant points) go to the lower index. Quadratic in ``n / k`` passes over the
    remaining points, as the thesis states (section 6.5.2).
    """
    pts = _points(points, "mdav")
    k = check_int(k, "k", "mdav", low=1, high=pts.shape[0])
    t0 = time.perf_counter()
    if k == 1:
        labels, z = np.arange(pts.shape[0], dtype=np.int64), pts.shape[0]
    else:
        labels, z = _mdav(pts, k)
    return Partition(np.asarray(labels, dtype=np.int64), int(z), "mdav", {"k": k},
                     time.perf_counter() - t0)


# ----------------------------------------------------------------------------- MPDC
def mpdc(points: Any, *, tau: int) -> Partition:
    """MPDC-dK (Algorithm 4): greedy cover by boxes of side ``tau``.

    A box with lower corner ``(x, y)`` holds the points with ``x <= g1 <= x + tau`` and
    ``y <= g2 <= y + tau``, so any two of its points are within ``tau`` in each coordinate;
    each point lies in ``(tau + 1)²`` candidate boxes. Repeatedly the box covering the most
    unassigned points becomes a cluster and its points are removed from every other box.

    Parameters
    ----------
    points
        ``(n, 2)`` integer coordinates (degree pairs), distinct.
    tau
        Distance interval, ``tau >= 0``.

    Returns
    -------
    Partition

    Raises
    ------
    InvalidParameterError
        Non-integer or repeated points, or ``tau < 0``.

    References
    ----------
    ``004_*.txt`` section 6.4.2, Algorithm 4; complexity in section 6.5.2.

    Notes
    -----
    ``O(tau² n log n)``: box counts live in a max-heap with lazy deletion (an entry is
    skipped when its count is stale), so each removal of a point updates its
    ``(tau + 1)²`` boxes in ``O(log)`` each — no rescan per step. Ties between boxes of equal
    count go to the smallest ``(x, y)`` corner.
    """
    pts = _points(points, "mpdc")
    if pts.shape[1] != 2 or not np.array_equal(pts, np.round(pts)):
        raise InvalidParameterError("mpdc needs integer degree pairs, shape (n, 2).")
    tau = check_int(tau, "tau", "mpdc", low=0)
    t0 = time.perf_counter()
    ip = pts.astype(np.int64)
    if np.unique(ip, axis=0).shape[0] != ip.shape[0]:
        raise InvalidParameterError("mpdc needs distinct points.")
    labels, z = _mpdc(ip, tau)
    return Partition(labels, z, "mpdc", {"tau": tau}, time.perf_counter() - t0)


def _mpdc(ip: npt.NDArray[np.int64], tau: int) -> tuple[npt.NDArray[np.int64], int]:
    n = ip.shape[0]
    shift = ip.min(axis=0) - tau  # corners are >= shift
    span = int((ip.max(axis=0) - shift).max()) + 1
    q = ip - shift  # coordinates in [tau, span)
    point_at = {int(a) * span + int(b): i for i, (a, b) in enumerate(q)}
    off = np.arange(tau + 1)
    grid_x, grid_y = np.meshgrid(off, off, indexing="ij")
    dx, dy = grid_x.ravel(), grid_y.ravel()
    # every (point, covering box) incidence; box key = x * span + y of the lower corner
    bx = q[:, 0:1] - dx[None, :]
    by = q[:, 1:2] - dy[None, :]
    bkeys = (bx * span + by).ravel()
    uniq, counts = np.unique(bkeys, return_counts=True)
    count = dict(zip(uniq.tolist(), counts.tolist(), strict=True))
    heap = list(zip((-counts).tolist(), uniq.tolist(), strict=True))
    heapq.heapify(heap)
    labels = np.full(n, -1, dtype=np.int64)
    z = 0
    box_dx: list[int] = dx.tolist()
    box_dy: list[int] = dy.tolist()
    while heap:
        negc, key = heapq.heappop(heap)
        c = count.get(key, 0)
        if c == 0 or -negc != c:
            continue  # stale
        x0, y0 = divmod(key, span)
        members = []
        for a in range(x0, x0 + tau + 1):
            base = a * span
            for b in range(y0, y0 + tau + 1):
                i = point_at.get(base + b)
                if i is not None and labels[i] < 0:
                    members.append(i)
        for i in members:
            labels[i] = z
            a, b = int(q[i, 0]), int(q[i, 1])
            for ddx, ddy in zip(box_dx, box_dy, strict=True):
                bk = (a - ddx) * span + (b - ddy)
                nc = count[bk] - 1
                if nc:
                    count[bk] = nc
                    if bk != key:
                        heapq.heappush(heap, (-nc, bk))
                else:
                    del count[bk]
        z += 1
    return labels, z


# ----------------------------------------------------------------------------- public tilings
def grid_partition(h: int, *, side: int) -> Partition:
    """The 2K domain cells ``1 <= i <= j <= h`` tiled by ``side × side`` boxes anchored at
    ``(1, 1)``: cell ``(i, j)`` goes to box ``((i − 1) // side, (j − 1) // side)``.

    Any two cells of a box are within ``side − 1`` in both coordinates. Depends on ``h`` and
    ``side`` only (public), so summing the cells of each box keeps the L1 sensitivity.
    Labels follow the cell order of :func:`~graphanon.dk.extract.domain_cells`.
    """
    h = check_int(h, "h", "grid_partition", low=1)
    side = check_int(side, "side", "grid_partition", low=1)
    t0 = time.perf_counter()
    cells = domain_cells(h)
    bi, bj = (cells[:, 0] - 1) // side, (cells[:, 1] - 1) // side
    nb = (h + side - 1) // side
    _, labels = np.unique(bi * nb + bj, return_inverse=True)
    labels = labels.astype(np.int64).ravel()
    return Partition(labels, int(labels.max()) + 1, "grid", {"side": side},
                     time.perf_counter() - t0)


def tile_partition(h: int, *, k: int, d: int = 2) -> Partition:
    """A public partition of the dK domain into tiles of about ``k`` cells — the scalable
    stand-in for MDAV over the public domain, whose cost is quadratic in the number of cells.

    2K: square tiles of side ``s = ceil(sqrt(k))`` (:func:`grid_partition`): ``s²`` cells off
    the diagonal, ``s(s + 1)/2`` on it, each within ``s − 1`` in both coordinates (MDAV's
    clusters on the full lattice are compact blobs of ``k`` cells of about that diameter).
    1K: blocks of ``k`` consecutive degrees ``0..h``.

    Parameters
    ----------
    h
        Public degree bound.
    k
        Target cells per tile, ``>= 1``.
    d
        1 or 2.

    Returns
    -------
    Partition
        ``method = "grid"``, ``params = {"k": k, "side": s}`` (2K) or ``{"k": k}`` (1K).

    Notes
    -----
    The tiling depends only on ``(h, k)``: the vector of tile sums is ``A x`` with one 1 per
    column of ``A``, so ``‖A x − A x'‖₁ <= ‖x − x'‖₁`` — the L1 sensitivity of the dK query is
    kept (``4h − 3`` for 2K, 4 for 1K under edge-DP).
    """
    h = check_int(h, "h", "tile_partition", low=1)
    k = check_int(k, "k", "tile_partition", low=1)
    d = check_int(d, "d", "tile_partition", low=1, high=2)
    t0 = time.perf_counter()
    if d == 1:
        labels = np.arange(h + 1, dtype=np.int64) // k
        return Partition(labels, int(labels.max()) + 1, "grid", {"k": k},
                         time.perf_counter() - t0)
    side = max(1, math.ceil(math.sqrt(k)))
    part = grid_partition(h, side=side)
    return Partition(part.labels, part.n_clusters, "grid", {"k": k, "side": side},
                     time.perf_counter() - t0)


#: Largest public domain clustered by MDAV in :func:`domain_partition` (``h <= 199``); above,
#: the tiling.
MAX_MDAV_CELLS = 20_000


def domain_partition(h: int, *, method: str, k: int | None = None, tau: int | None = None
                     ) -> Partition:
    """A data-independent partition of the 2K domain cells.

    ``"mdav"``: MDAV over the ``h(h+1)/2`` cells (clusters of ``k`` cells) up to
    ``MAX_MDAV_CELLS`` (20,000, i.e. ``h <= 199``: MDAV is quadratic in the number of cells);
    above, the square tiling with about ``k`` cells per tile
    (:func:`~graphanon.dk.microaggregation.tile_partition`, ``method = "grid"``).
    ``"mpdc"``: the tiling by boxes of side ``tau + 1`` anchored at ``(1, 1)`` (each box's
    cells are within ``tau`` in both coordinates, the MPDC constraint; on a full lattice this
    is the minimum cover). Every variant depends on ``(h, k, tau)`` only.
    """
    n_cells = h * (h + 1) // 2
    if method == "mdav":
        assert k is not None
        if n_cells > MAX_MDAV_CELLS:
            return tile_partition(h, k=k, d=2)
        return mdav(domain_cells(h), k=min(k, n_cells))
    assert tau is not None
    grid = grid_partition(h, side=tau + 1)
    return Partition(grid.labels, grid.n_clusters, "mpdc", {"tau": tau, "domain": "grid"},
                     grid.seconds)


# ----------------------------------------------------------------------------- helpers
def aggregate(counts: Any, partition: Partition) -> npt.NDArray[Any]:
    """Sum of the counts of each cluster (the microaggregated degree queries, Definition 22)."""
    c = np.asarray(counts)
    if c.shape != partition.labels.shape:
        raise InvalidParameterError(
            f"aggregate needs one count per point: {partition.labels.size} points, "
            f"counts of shape {c.shape}."
        )
    out = np.bincount(partition.labels, weights=c, minlength=partition.n_clusters)
    return np.rint(out).astype(np.int64) if c.dtype.kind in "iub" else out


def sae(points: Any, partition: Partition) -> float:
    """Sum of absolute errors of the points to their cluster means (thesis eq. 6.2).

    ``SAE = Σ_i Σ_{x_j ∈ c_i} ‖x_j − μ_i‖₂`` over the clustered *points* (the degree
    tuples, unweighted by their counts), ``μ_i`` the mean of cluster ``i``. With this reading
    our MDAV-dK reproduces the SAE column of Table 6.1 (see ``docs/dk.md``).
    """
    pts = np.asarray(points, dtype=np.float64)
    lab = partition.labels
    z = partition.n_clusters
    sizes = np.bincount(lab, minlength=z).astype(np.float64)
    mu = np.stack([np.bincount(lab, weights=pts[:, c], minlength=z) for c in
                   range(pts.shape[1])], axis=1) / np.maximum(sizes, 1)[:, None]
    return float(np.sqrt(((pts - mu[lab]) ** 2).sum(axis=1)).sum())
