"""Exact dK-series extraction: 1K (degrees), 2K (joint degrees), 3K (wedges and triangles).

Every table is a :class:`DKDistribution`: one row per degree tuple with a non-zero count.

* 1K: ``degrees[:, 0] = g``, ``counts`` = number of nodes of degree ``g`` (``g = 0`` included).
* 2K: ``degrees = (g1, g2)`` with ``g1 <= g2``, ``counts`` = number of edges joining a node of
  degree ``g1`` with a node of degree ``g2``.
* 3K: two tables (as in Mahadevan et al. 2006, the connected 3-node subgraphs): ``wedges``
  keyed ``(end, centre, end)`` with the two end degrees ordered, counting *open* paths
  ``u - c - w`` (``u`` and ``w`` not adjacent); ``triangles`` keyed by the sorted degree
  triple.

Degrees are replaced by their ranks among the ``D`` distinct degrees of the graph
(``D(D+1)/2 <= 2m + 1``), so every dense scratch array is ``O(m)`` whatever the degree values.
2K is one numba pass over the CSR into a packed ``D × D`` upper triangle. 3K streams over the
nodes in (degree, id) order (:func:`three_k_distribution`): 2-paths are counted per centre from
the histogram of its neighbours' degrees (``n_a · n_b`` or ``C(n_a, 2)`` per end-degree pair)
and triangles through a degree-ordered orientation, both summed per degree class in one
scratch triangle; no wedge or triangle is ever materialized. The passes run in blocks of
about 1 % of the work, reported to a ``progress(task, done, total)`` callback, and check the
available memory (:mod:`graphanon._memory`) before they start.

References
----------
``004_*.txt`` chapter 6, Definition 17 (dK-distribution) and Example 6; P. Mahadevan,
D. Krioukov, K. Fall, A. Vahdat, "Systematic topology analysis and generation using degree
correlations", SIGCOMM 2006.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._memory import require_memory
from .._progress import ProgressFn, log_progress, progress_step
from .._validation import check_int
from ..errors import InvalidParameterError
from ..graph import Graph

__all__ = [
    "DK3Distribution",
    "DKDistribution",
    "degree_distribution",
    "dk_distribution",
    "iter_three_k",
    "joint_degree_distribution",
    "three_k_distribution",
    "three_k_rows_bound",
]

KINDS = ("degree", "joint_degree", "wedge", "triangle")
_log = logging.getLogger(__name__)


def _kernels() -> Any:
    """The numba passes (:mod:`._extract_kernels`), loaded on first use: reading or writing a
    dK table, or generating a graph from one, never starts numba."""
    from . import _extract_kernels

    return _extract_kernels


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


def degree_distribution(G: Graph) -> DKDistribution:
    """The 1K distribution: number of nodes of each degree (zero counts dropped).

    Equals ``np.bincount(G.degrees)`` restricted to its non-zero entries.
    """
    t0 = time.perf_counter()
    hist = np.bincount(G.degrees)
    deg = np.flatnonzero(hist)
    return DKDistribution("degree", deg[:, None], hist[deg].astype(np.int64),
                          time.perf_counter() - t0)


# ----------------------------------------------------------------------------- helpers
#: Work units (adjacency reads) per progress step of the block passes, at least.
_MIN_CHUNK_WORK = 1 << 22


def _blocks(work: npt.NDArray[np.int64], steps: int = 100) -> npt.NDArray[np.int64]:
    """Block boundaries ``0 = b_0 < ... < b_k = len(work)`` of about equal total work
    (``steps`` blocks, each at least :data:`_MIN_CHUNK_WORK` units unless the whole is
    smaller)."""
    n = work.size
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    cum = np.cumsum(work)
    total = int(cum[-1])
    step = max(total // steps, _MIN_CHUNK_WORK)
    cuts = np.searchsorted(cum, np.arange(step, total, step), side="right")
    return np.unique(np.concatenate([[0], cuts, [n]])).astype(np.int64)


# ----------------------------------------------------------------------------- 2K


def joint_degree_distribution(G: Graph, *, progress: ProgressFn = log_progress
                              ) -> DKDistribution:
    """The 2K distribution: edges by the ordered degree pair ``(g1 <= g2)`` of their ends.

    One pass over the CSR (numba, in blocks of about 1 % of the edges for ``progress``)
    counts the edges in a packed upper triangle over the ranks of the ``D`` distinct degrees
    (``D(D+1)/2 <= 2m + 1`` cells, 8 bytes each); its non-zero cells, in index order, are the
    table in lexicographic order.
    """
    t0 = time.perf_counter()
    deg = G.degrees
    vals = np.unique(deg)
    n_ranks = int(vals.size)
    cells = n_ranks * (n_ranks + 1) // 2
    require_memory(8 * cells + 8 * G.n_nodes, what="the 2K extraction",
                   parameter=f"the graph's {n_ranks:,} distinct degrees")
    rank = np.searchsorted(vals, deg)
    mat = np.zeros(cells, dtype=np.int64)
    bounds = _blocks(deg, steps=100)
    total = int(bounds[-1])
    progress("2K extraction", 0, total)
    kern = _kernels()
    for b in range(bounds.size - 1):
        kern._jdd_block(G.indptr, G.indices, rank, int(bounds[b]), int(bounds[b + 1]), n_ranks,
                        mat)
        progress("2K extraction", int(bounds[b + 1]), total)
    idx = np.flatnonzero(mat)
    row_start = np.arange(n_ranks, dtype=np.int64)
    row_start = row_start * n_ranks - row_start * (row_start - 1) // 2
    i = np.searchsorted(row_start, idx, side="right") - 1
    j = i + (idx - row_start[i])
    tuples = np.stack([vals[i], vals[j]], axis=1).astype(np.int64)
    return DKDistribution("joint_degree", tuples, mat[idx], time.perf_counter() - t0)


# ----------------------------------------------------------------------------- 3K
#: Degree ranks must keep ``(a·D + c)·D + b`` below 2**63.
_MAX_RANKS = 1 << 21
#: Bytes per 3K table row still to be allocated after a pass: the sort order (8) and the
#: degree triples (24); the keys and counts (16) are already held.
_TABLE_BYTES_PER_ROW = 32


def _run_blocks(task: str, bounds: npt.NDArray[np.int64], kernel: Any, head: tuple[Any, ...],
                tail: tuple[Any, ...], progress: ProgressFn) -> tuple[Any, Any]:
    """Run ``kernel(*head, start, stop, *tail)`` over the node blocks, report the nodes done
    after each block, and concatenate the ``(keys, counts)`` it returns.

    After each block the rows found so far must leave room for the final sort of the table
    (:data:`_TABLE_BYTES_PER_ROW` more per row): a table that cannot fit is refused as soon
    as that is certain, not when the machine runs out of memory."""
    total = int(bounds[-1])
    keys: list[Any] = []
    counts: list[Any] = []
    rows = 0
    progress(task, 0, total)
    for b in range(bounds.size - 1):
        k, c = kernel(*head, int(bounds[b]), int(bounds[b + 1]), *tail)
        keys.append(k)
        counts.append(c)
        rows += k.size
        require_memory(_TABLE_BYTES_PER_ROW * rows, what="the 3K extraction",
                       parameter=f"the size of the 3K table ({rows:,} rows so far)")
        progress(task, int(bounds[b + 1]), total)
    if not keys:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    all_keys = np.concatenate(keys)
    del keys  # one list at a time: the peak is 1.5x the output, not 2x
    return all_keys, np.concatenate(counts)


def three_k_memory(G: Graph) -> int:
    """Estimated peak bytes of :func:`three_k_distribution` beyond the graph itself.

    Per node: ranks, the (degree, id) order and its inverse, the oriented row offsets, the
    triangle pass's marks and work (about 56 bytes); per edge: the oriented out-lists (one
    index); per rank pair: the class scratch (a packed triangle of counts and as many cell
    keys, 16 bytes per cell). The output tables come on top (about 48 bytes per table row
    while they are sorted); their size is known only at the end.
    """
    n, m = G.n_nodes, G.n_edges
    n_ranks = int(np.unique(G.degrees).size) if n else 0
    return 56 * n + G.indices.itemsize * m + 16 * (n_ranks * (n_ranks + 1) // 2) + (1 << 20)


def three_k_distribution(G: Graph, *, progress: ProgressFn = log_progress) -> DK3Distribution:
    """The 3K distribution: open wedges ``(end, centre, end)`` and triangles (sorted triple).

    Streams over the nodes; nothing per wedge or per triangle is materialized.

    * Degrees are replaced by their ranks ``0..D-1`` among the ``D`` distinct degrees
      (``D(D+1)/2 <= 2m``). Nodes are sorted by (degree, id), so each degree class is a run.
    * **2-paths** (open and closed): per centre, the histogram of its neighbours' degree ranks
      gives ``n_a n_b`` paths for end ranks ``a < b`` and ``C(n_a, 2)`` for ``a == b``; they
      are summed per centre class into a packed ``D × D`` upper triangle, whose non-zero cells
      are emitted when the class ends.
    * **Triangles**: edges oriented from the lower to the higher (degree, id), so out-degrees
      are at most ``sqrt(2m)`` and each triangle ``u < v < w`` is found once, at ``u``, as a
      marked common out-neighbour ``w`` of ``u`` and ``v``; its degree ranks are already
      sorted. Summed per class of ``u`` over ``(rank v, rank w)`` like the paths.
    * **Open wedges** = 2-paths minus the three closed paths of each triangle ``(x, y, z)``:
      ``(y, x, z)``, ``(x, y, z)``, ``(x, z, y)``; zero rows dropped.

    Memory: ``O(n + m + D²)`` working space (:func:`three_k_memory`, checked before the
    start with :func:`graphanon._memory.require_memory`) plus about 40 bytes per table row
    (keys and counts, then the sorted degree triples; the sort permutes in place). The table
    size is known only as the passes go: after every block the rows found so far must still
    fit, otherwise the extraction stops with an error before the machine runs out of memory.
    :func:`iter_three_k` yields the same tables in partitions by centre degree, so a writer
    (:func:`graphanon.io.dk_tables.write_3k_chunks`, ``graphanon dk --d 3``) holds one
    partition of wedge rows at a time. Time: ``O(Σ_c k_c² + m·sqrt(m))`` with ``k_c``
    the number of distinct neighbour degrees of ``c``. Progress is reported per block of
    about 1 % of the work of each pass.

    Parameters
    ----------
    G
        An undirected simple graph.
    progress
        ``progress(task, done, total)`` callback (tasks ``"3K 2-paths"`` and
        ``"3K triangles"``, counted in nodes).

    Raises
    ------
    InvalidParameterError
        If the working space or the table does not fit in the available memory, or the graph
        has more than 2**21 distinct degrees.
    """
    t0 = time.perf_counter()
    wedges: list[DKDistribution] = []
    triangles = DKDistribution("triangle", np.zeros((0, 3), np.int64), np.zeros(0, np.int64))
    held = 0
    for part in iter_three_k(G, progress=progress):
        if part.kind == "wedge":
            wedges.append(part)
            held += part.n_tuples  # the whole table is kept: it must fit with its sort
            require_memory(_TABLE_BYTES_PER_ROW * held, what="the 3K extraction",
                           parameter=f"the size of the 3K table ({held:,} rows so far)")
        else:
            triangles = part
    with progress_step(progress, "3K tables"):
        if len(wedges) == 1:
            w = wedges[0]
        else:  # partitions by centre degree, rows by (end, centre, end): one sort restores it
            deg = (np.concatenate([p.degrees for p in wedges]) if wedges
                   else np.zeros((0, 3), np.int64))
            cnt = np.concatenate([p.counts for p in wedges]) if wedges else np.zeros(0, np.int64)
            del wedges
            order = np.lexsort((deg[:, 2], deg[:, 1], deg[:, 0]))
            w = DKDistribution("wedge", deg[order], cnt[order])
    seconds = time.perf_counter() - t0
    return DK3Distribution(DKDistribution("wedge", w.degrees, w.counts, seconds),
                           DKDistribution("triangle", triangles.degrees, triangles.counts,
                                          seconds), seconds)


#: Wedge rows a partition of :func:`iter_three_k` collects before it is yielded (about 40
#: bytes each while it is sorted and converted: some 670 MB).
PARTITION_ROWS = 1 << 24


def three_k_rows_bound(G: Graph) -> int:
    """An upper bound on the number of 3K rows, from the degrees alone (O(n)): per centre
    degree class with ``K`` distinct neighbour degrees at most ``K(K+1)/2`` wedge rows
    (``K <= min(Σ degrees of the class, D)``), and at most ``D(D+1)(D+2)/6`` triangle rows
    or three per triangle corner. Shown before a long extraction starts."""
    deg = G.degrees
    vals, inverse = np.unique(deg, return_inverse=True)
    D = int(vals.size)
    per_class = np.minimum(np.bincount(inverse.ravel(), weights=deg).astype(np.int64), D)
    wedge_rows = int((per_class * (per_class + 1) // 2).sum())
    tri_rows = min(D * (D + 1) * (D + 2) // 6, int(G.n_edges) * max(int(np.sqrt(2 * G.n_edges)),
                                                                      1))
    return wedge_rows + tri_rows


def iter_three_k(G: Graph, *, progress: ProgressFn = log_progress,
                 partition_rows: int = PARTITION_ROWS) -> Iterator[DKDistribution]:
    """The 3K tables of :func:`three_k_distribution` in partitions: ``wedge`` tables, each
    for a run of centre degree classes (rows sorted within it), then the one ``triangle``
    table.

    Triangles are counted first (they are needed to turn 2-paths into open wedges); then the
    2-path pass runs over the centres in degree order and, whenever at least
    ``partition_rows`` rows of finished classes have accumulated, sorts them, subtracts the
    closed paths whose centre falls in those classes, drops zero rows and yields them. Peak
    memory: the working space of :func:`three_k_memory`, the triangle table and one partition
    (about 40 bytes per row), not the whole wedge table.
    """
    deg = G.degrees
    n = G.n_nodes
    vals = np.unique(deg)
    n_ranks = max(int(vals.size), 1)
    if n_ranks >= _MAX_RANKS:
        raise InvalidParameterError(
            f"three_k_distribution supports up to {_MAX_RANKS - 1} distinct degrees; the "
            f"graph has {n_ranks}.")
    require_memory(three_k_memory(G), what="the 3K extraction",
                   parameter=f"the graph's {n:,} nodes, {G.n_edges:,} edges and "
                             f"{n_ranks:,} distinct degrees")
    _log.info("3K of %d nodes, %d edges, %d distinct degrees", n, G.n_edges, n_ranks)
    nrank = np.searchsorted(vals, deg).astype(np.int64)
    order = np.argsort(deg, kind="stable").astype(np.int64)  # (degree, id) order
    indptr, indices = G.indptr, G.indices
    cells = n_ranks * (n_ranks + 1) // 2
    mat = np.zeros(cells, dtype=np.int64)
    touched = np.empty(cells, dtype=np.int64)
    state = np.zeros(1, dtype=np.int64)
    kern = _kernels()

    # triangles in position space of the (degree, id) order
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n, dtype=np.int64)
    prank = nrank[order]
    out_idx = np.empty(G.n_edges, dtype=indices.dtype)
    optr = kern._orient(indptr, indices, pos, out_idx)
    del pos
    mark = np.zeros(n, dtype=np.int64)
    bounds = _blocks(kern._triangle_work(optr, out_idx))
    tk, tc = _run_blocks("3K triangles", bounds, kern._triangle_block, (optr, out_idx, prank),
                         (n_ranks, mat, touched, state, mark), progress)
    del optr, out_idx, mark, prank
    tk, tc = _sort_by_key(tk, tc)
    # the closed paths of each triangle (x, y, z), as (end, centre, end) keys, by centre
    x, y, z = _split_key(tk, n_ranks)
    closed = np.concatenate([(y * n_ranks + x) * n_ranks + z, (x * n_ranks + y) * n_ranks + z,
                             (x * n_ranks + z) * n_ranks + y])
    closed_count = np.concatenate([tc, tc, tc])
    del x, y, z
    by_centre = np.argsort((closed // n_ranks) % n_ranks, kind="stable")
    closed, closed_count = closed[by_centre], closed_count[by_centre]
    closed_centre = (closed // n_ranks) % n_ranks
    del by_centre

    # 2-paths, centres in (degree, id) order; work ~ degree + (distinct neighbour ranks)^2
    state[0] = 0
    cnt = np.zeros(n_ranks, dtype=np.int64)
    seen = np.empty(n_ranks, dtype=np.int64)
    dsorted = deg[order]
    k_bound = np.minimum(dsorted, n_ranks)
    bounds = _blocks(dsorted + k_bound * (k_bound + 1) // 2)
    del dsorted, k_bound
    task = "3K 2-paths"
    total = int(bounds[-1])
    progress(task, 0, total)
    keys: list[Any] = []
    counts: list[Any] = []
    rows = 0
    done_centre = -1  # the classes up to this rank have been yielded

    def partition() -> DKDistribution:
        nonlocal keys, counts, rows, done_centre
        pk = np.concatenate(keys)
        pv = np.concatenate(counts)
        keys, counts, rows = [], [], 0
        pk, pv = _sort_by_key(pk, pv)
        top = int(((pk // n_ranks) % n_ranks).max())
        lo, hi = np.searchsorted(closed_centre, [done_centre + 1, top + 1])
        np.subtract.at(pv, np.searchsorted(pk, closed[lo:hi]), closed_count[lo:hi])
        done_centre = top
        kept = kern._drop_zero_counts(pk, pv)
        return DKDistribution("wedge", kern._key_degrees(pk[:kept], vals, n_ranks), pv[:kept])

    for b in range(bounds.size - 1):
        k, c = kern._path_block(indptr, indices, order, nrank, int(bounds[b]),
                                int(bounds[b + 1]), n_ranks, mat, touched, state, cnt, seen)
        if k.size:
            keys.append(k)
            counts.append(c)
            rows += k.size
        require_memory(_TABLE_BYTES_PER_ROW * rows, what="the 3K extraction",
                       parameter=f"the size of the 3K table ({rows:,} rows so far in this "
                                 "partition)")
        progress(task, int(bounds[b + 1]), total)
        if rows >= partition_rows:
            yield partition()
    if rows:
        yield partition()
    del mat, touched, cnt, seen
    tri = DKDistribution("triangle", kern._key_degrees(tk, vals, n_ranks), tc)
    _log.info("3K: %d triangle tuples", tri.n_tuples)
    yield tri


#: Tables up to this many rows are sorted by a gather (a second copy, fast); larger ones by an
#: in-place permutation (no copy; about 2x slower: random writes).
_GATHER_MAX_ROWS = 1 << 24


def _sort_by_key(keys: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]
                 ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``keys`` sorted and ``counts`` in the same order (consumes both arrays)."""
    order = np.argsort(keys)
    if keys.size <= _GATHER_MAX_ROWS:
        return keys[order], counts[order]
    _kernels()._permute_in_place(keys, counts, order)
    return keys, counts


def _split_key(keys: npt.NDArray[np.int64], n_ranks: int) -> tuple[Any, Any, Any]:
    return keys // (n_ranks * n_ranks), (keys // n_ranks) % n_ranks, keys % n_ranks


def dk_distribution(G: Graph, d: int, *, progress: ProgressFn = log_progress
                    ) -> DKDistribution | DK3Distribution:
    """The exact dK distribution of ``G`` for ``d`` in {1, 2, 3}.

    Parameters
    ----------
    G
        An undirected simple graph.
    d
        1 (degree histogram), 2 (joint degree distribution) or 3 (wedges and triangles).
    progress
        ``progress(task, done, total)`` callback of the passes that can take long (2K and 3K;
        the default logs at DEBUG level).

    Returns
    -------
    DKDistribution or DK3Distribution
        ``d = 3`` returns both 3K tables.

    Raises
    ------
    InvalidParameterError
        If ``d`` is not 1, 2 or 3, or (3K) the working space does not fit in the available
        memory.

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
        return joint_degree_distribution(G, progress=progress)
    return three_k_distribution(G, progress=progress)


