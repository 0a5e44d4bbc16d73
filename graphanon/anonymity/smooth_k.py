"""Smooth-k-anonymity of a bipartite user × feature graph by lower-bounded facility location.

The algorithm of ``001_*.txt`` section 4 (``000_*.txt`` section 5.3) with the practical
changes of ``000_*.txt`` Appendix D: users are points under the Hamming distance; every user
is a candidate facility with opening cost ``2α/(1−α) · Σ_{u ∈ N_k(i)} d(u, i)``; Meyerson's
online facility location is run on ``restarts`` random orders and the cheapest solution kept;
small clusters are then closed (or merged) until every cluster has at least ``k`` users; and
each cluster is released as the majority row of its members (smooth) or as their intersection
(k-anonymity by suppression, the "non-smooth" baseline).
"""

from __future__ import annotations

import math
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from .._progress import ProgressFn, log_progress
from .._validation import check_choice, check_int, check_type
from ..errors import InfeasibleError, InvalidParameterError
from ..graph import BipartiteGraph
from ..metrics import edge_set_metrics
from ..params import Param, Spec
from . import _kernels as K
from .lsh import (
    child_seed,
    chunk_bounds,
    chunk_seeds,
    minhash_params,
    minhash_rows,
    signature_order,
)

__all__ = [
    "DEFAULT_ALPHA",
    "ChunkResult",
    "SmoothKResult",
    "baseline_labels",
    "check_chunk_options",
    "cluster_chunk",
    "cluster_users",
    "minhash_baseline",
    "release_clusters",
    "smooth_k_anonymity",
]

_OWNER = "smooth_k_anonymity"
#: Default ``α`` (see :func:`smooth_k_anonymity`).
DEFAULT_ALPHA = 0.1

#: Most restarts a run may ask for: each is a full clustering of every chunk (the default, 10,
#: already keeps the cheapest of ten).
MAX_RESTARTS = 1000

#: The parameters of :func:`smooth_k_anonymity`, declared once: its validation (and the
#: chunk anonymizer's, :func:`check_chunk_options`), the options of ``graphanon smooth-k``,
#: the job step's keys and the table in docs/anonymity.md.
SMOOTH_K = Spec("smooth_k_anonymity", (
    Param("k", "int", "Anonymity level: every released feature set is shared by at least k "
          "users.", low=2),
    Param("variant", "choice",
          "smooth: majority row per cluster (smooth-k-anonymity); suppress: intersection "
          "(k-anonymity by suppression).", default="smooth", choices=("smooth", "suppress")),
    Param("postprocess", "choice", "How clusters below k are removed (see docs).",
          default="simple", choices=("simple", "paper")),
    Param("alpha", "float", "α of the opening cost 2α/(1−α)·Σ k-NN distances (the paper's "
          "experiments: 0.5; see docs/anonymity.md).", default=DEFAULT_ALPHA, low=0.0,
          high=1.0, closed="neither"),
    Param("restarts", "int", "Meyerson runs on random orders; the best is kept.",
          default=10, low=1, high=MAX_RESTARTS),
    Param("shard_size", "int", "LSH sharding: anonymize chunks of about N MinHash-sorted "
          "users (at least k).", default=None, low=2),
    Param("n_jobs", "int", "Processes for the shards (with shard_size; at most one per "
          "shard and per core).", default=1, low=1, cli="--jobs"),
    Param("n_hashes", "int", "MinHash functions used for sharding.", default=4, low=1,
          high=64, cli=""),
    Param("search", "choice", "Nearest-facility search: bit-packed rows, an inverted "
          "index, or bits up to 1,024 used features.", default="auto",
          choices=("auto", "bits", "sparse"), cli=""),
    Param("select", "choice", "Which restart is kept: the best Jaccard, or the cheapest "
          "facility-location cost (the paper's rule).", default="jaccard",
          choices=("jaccard", "cost"), cli=""),
    Param("refine", "bool", "Split clusters of 2k users or more in MinHash order when that "
          "raises the Jaccard.", default=True, cli=""),
    Param("fallback", "bool", "Per chunk, keep the naive MinHash-run baseline when its "
          "Jaccard is higher.", default=True, cli=""),
), doc="docs/anonymity.md")
_BITS_MAX_FEATURES = 1024  # above this many (used) features the inverted index is faster


@dataclass(frozen=True)
class SmoothKResult:
    """A smooth-k-anonymous (or k-anonymous by suppression) release of a bipartite graph.

    ``clusters`` maps each user index to its cluster: it is private (it links users to their
    class) and is never written to a public output unless asked.
    """

    anonymized: BipartiteGraph
    clusters: np.ndarray[Any, Any] = field(repr=False)
    k: int
    alpha: float
    restarts: int
    variant: str
    postprocess: str
    shard_size: int | None
    n_clusters: int
    min_cluster_size: int
    max_cluster_size: int
    cluster_size_counts: dict[int, int]
    jaccard: float
    suppressed: float
    created: float
    facility_cost: float
    seconds: dict[str, float]
    select: str = "jaccard"
    refine: bool = True
    fallback: bool = True
    n_chunks: int = 1
    n_chunks_baseline: int = 0
    n_clusters_split: int = 0

    def summary(self) -> dict[str, Any]:
        """The public report fields (no cluster assignment)."""
        a = self.anonymized
        return {
            "k": self.k,
            "variant": self.variant,
            "postprocess": self.postprocess,
            "alpha": self.alpha,
            "restarts": self.restarts,
            "shard_size": self.shard_size,
            "n_users": a.n_users,
            "n_features": a.n_features,
            "n_edges_out": a.n_edges,
            "jaccard": self.jaccard,
            "suppressed": self.suppressed,
            "created": self.created,
            "n_clusters": self.n_clusters,
            "min_cluster_size": self.min_cluster_size,
            "max_cluster_size": self.max_cluster_size,
            "cluster_size_counts": self.cluster_size_counts,
            "facility_cost": self.facility_cost,
            "select": self.select,
            "refine": self.refine,
            "fallback": self.fallback,
            "n_chunks": self.n_chunks,
            "n_chunks_baseline": self.n_chunks_baseline,
            "n_clusters_split": self.n_clusters_split,
            "seconds": self.seconds["total"],
            "timings": self.seconds,
        }


# ---------------------------------------------------------------------- public API
def smooth_k_anonymity(
    B: BipartiteGraph,
    *,
    k: int,
    rng: np.random.Generator,
    alpha: float = DEFAULT_ALPHA,
    restarts: int = 10,
    variant: str = "smooth",
    postprocess: str = "simple",
    shard_size: int | None = None,
    n_hashes: int = 4,
    n_jobs: int = 1,
    search: str = "auto",
    select: str = "jaccard",
    refine: bool = True,
    fallback: bool = True,
    progress: ProgressFn = log_progress,
) -> SmoothKResult:
    """Smooth-k-anonymize (or k-anonymize by suppression) a user × feature graph.

    Parameters
    ----------
    B
        The user × feature graph.
    k
        Anonymity level: every released feature set is shared by at least ``k`` users.
    rng
        Randomness of the facility-location orders and of the LSH hashes.
    alpha
        ``α`` of the opening cost ``2α/(1−α) · Σ_{k nearest} d``, in ``(0, 1)``. The paper's
        experiments use 1/2 (factor 2), its analysis 0.004. Default 0.1: with 1/2 too few
        facilities open on sparse rows and the post-processing builds giant clusters whose
        majority set is nearly empty; 0.1 is higher on every data set measured
        (``docs/anonymity.md``).
    restarts
        Runs of Meyerson's algorithm on random orders (paper: 10); see ``select``.
    variant
        ``"smooth"``: a feature is given to every member of a cluster iff a strict majority
        of the members has it (Definition 3.5). ``"suppress"``: each member gets the
        intersection of the members' feature sets (k-anonymity by suppression, the paper's
        "non-smooth" baseline).
    postprocess
        How clusters below ``k`` are removed. ``"simple"`` (``000_*.txt`` Appendix D): close
        the smallest facility with fewer than ``k`` users and move its users to their nearest
        open facility, until none is left. ``"paper"`` (``001_*.txt`` section 4, steps 4–5):
        close clusters below ``αk`` the same way, then merge clusters below ``k`` with their
        nearest small cluster (merged clusters stay below ``2k``) and break a large cluster
        for a last small one. On Adult, Google Play and the SBM the simple one gives a higher
        Jaccard (see ``docs/anonymity.md``), so it is the default.
    shard_size
        LSH sharding (Appendix D): users are sorted by ``n_hashes`` MinHash values of their
        feature sets and cut into consecutive chunks of about ``shard_size`` users (each at
        least ``shard_size``, at most ``2·shard_size − 1``), anonymized independently.
        ``None``: one chunk.
    n_hashes
        MinHash functions used for sharding.
    n_jobs
        Processes used for the shards (results do not depend on it); needs ``shard_size``,
        and no more processes than shards or CPU cores are started.
    search
        ``"bits"`` (bit-packed rows, popcount), ``"sparse"`` (inverted index) or ``"auto"``
        (bits up to 1,024 used features).
    select
        Which restart is kept: ``"jaccard"`` (default) post-processes every run and keeps the
        one whose release has the highest Jaccard on the chunk; ``"cost"`` keeps the
        cheapest facility-location solution (the paper's rule; on sparse data its cost does
        not track the release's quality).
    refine
        Split every cluster of at least ``2k`` users into consecutive runs of its members in
        MinHash order (each of ``k`` users or more) when that raises the chunk's Jaccard
        (linearized at the chunk's current Jaccard). Every piece keeps ``k`` users.
    fallback
        Per chunk (shard, or the whole graph), also build the naive baseline — users in
        MinHash order cut into runs of ``k``, each released by the same rule — and keep it
        when its Jaccard on the chunk is higher. Both are valid clusterings; the result
        counts how often the baseline was kept (``n_chunks_baseline``).
    progress
        ``progress(task, done, total)`` callback.

    Returns
    -------
    SmoothKResult
        The anonymized graph (same users and features as ``B``), the private cluster of each
        user, Jaccard / suppressed / created, cluster size distribution and timings.

    Raises
    ------
    InvalidParameterError
        A parameter is out of range.
    InfeasibleError
        ``B`` has fewer than ``k`` users (or a shard smaller than ``k`` was asked for).

    Notes
    -----
    Guarantee (checked by :func:`graphanon.anonymity.verify_smooth_k`): every cluster has at
    least ``k`` users and all its members receive the same feature set, so every equivalence
    class of the output (a union of clusters) has at least ``k`` users; with
    ``variant="smooth"`` a feature is released for a cluster only if more than half of its
    members had it, so in every class (a union of such clusters) at least half of the released
    edges of each feature are original edges: condition 2 of Definition 3.5 of ``000_*.txt``.
    With ``variant="suppress"`` the output is a subset of the input (Definition 3.4). This is
    a syntactic anonymity notion, not differential privacy: there is no ε.

    The cluster quality is heuristic (Meyerson's algorithm is a constant-factor approximation
    in expectation for random orders; Fotakis 2011). Identical users are one weighted point;
    rows are deduplicated by a 64-bit hash in sparse mode (a collision only puts two users in
    the same point, the release is still computed from the true rows).

    References
    ----------
    Epasto, Esfandiari, Mirrokni, Munoz Medina, "Smooth Anonymity for Sparse Graphs",
    WWW'24 Companion (``001_*.txt`` section 4); full version ``000_*.txt`` sections 3, 5.3
    and Appendix D. A. Meyerson, "Online facility location", FOCS 2001.
    """
    check_type(B, BipartiteGraph, "B", _OWNER, "a BipartiteGraph (users × features)")
    opts = check_chunk_options(_OWNER, k=k, alpha=alpha, restarts=restarts, variant=variant,
                               postprocess=postprocess, search=search, n_hashes=n_hashes,
                               select=select, refine=refine, fallback=fallback)
    k = opts["k"]
    checked = SMOOTH_K.validate({"shard_size": shard_size, "n_jobs": n_jobs})
    shard_size, n_jobs = checked["shard_size"], checked["n_jobs"]
    if shard_size is not None:  # a chunk below k users could not be k-anonymous
        shard_size = check_int(shard_size, "shard_size", _OWNER, low=k)
    if n_jobs > 1 and shard_size is None:
        raise InvalidParameterError(
            f"The 'n_jobs' parameter of {_OWNER} runs shards in parallel; it needs "
            f"'shard_size' (got n_jobs={n_jobs} without it, which would be ignored).")
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError(
            f"The 'rng' parameter of {_OWNER} must be a numpy.random.Generator. "
            f"Got {type(rng).__name__} instead."
        )
    if B.n_users < k:
        raise InfeasibleError(
            f"k-anonymity needs at least k users: the graph has {B.n_users} users and k={k}."
        )
    return _smooth_k_impl(B, opts=opts, rng=rng, shard_size=shard_size, n_jobs=n_jobs,
                          progress=progress)




def check_chunk_options(owner: str, *, k: Any, alpha: Any, restarts: Any, variant: Any,
                        postprocess: Any, search: Any, n_hashes: Any, select: Any,
                        refine: Any, fallback: Any) -> dict[str, Any]:
    """Validate the options of the chunk anonymizer (shared with the distributed engine) and
    return them as the keyword arguments of :func:`cluster_chunk`."""
    return SMOOTH_K.validate(
        {"k": k, "alpha": alpha, "restarts": restarts, "variant": variant,
         "postprocess": postprocess, "search": search, "n_hashes": n_hashes, "select": select,
         "refine": refine, "fallback": fallback}, owner=owner)


def _smooth_k_impl(B: BipartiteGraph, *, opts: dict[str, Any], rng: np.random.Generator,
                   shard_size: int | None, n_jobs: int,
                   progress: ProgressFn) -> SmoothKResult:
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    k, variant = opts["k"], opts["variant"]
    if shard_size is None or shard_size >= B.n_users:
        res = _cluster_impl(B.indptr, B.indices, seed=child_seed(rng), presorted=False,
                            progress=progress, **opts)
        clusters = res.labels
        totals = _Totals()
        totals.add(res)
        timings.update(res.timings)
    else:
        from .lsh import lsh_shards

        t = time.perf_counter()
        shards = lsh_shards(B, shard_size=shard_size, n_hashes=opts["n_hashes"], rng=rng)
        timings["sharding"] = time.perf_counter() - t
        t = time.perf_counter()
        clusters, totals = _cluster_shards(B, shards, opts=opts, rng=rng, n_jobs=n_jobs,
                                           progress=progress)
        timings["clustering"] = time.perf_counter() - t
    t = time.perf_counter()
    anonymized = release_clusters(B, clusters, variant=variant)
    timings["release"] = time.perf_counter() - t
    t = time.perf_counter()
    metrics = edge_set_metrics(B, anonymized)
    timings["metrics"] = time.perf_counter() - t
    sizes = np.bincount(clusters)
    sizes = sizes[sizes > 0]
    vals, counts = np.unique(sizes, return_counts=True)
    timings["total"] = time.perf_counter() - t0
    return SmoothKResult(
        anonymized=anonymized,
        clusters=clusters,
        k=k,
        alpha=opts["alpha"],
        restarts=opts["restarts"],
        variant=variant,
        postprocess=opts["postprocess"],
        shard_size=shard_size,
        n_clusters=int(sizes.size),
        min_cluster_size=int(sizes.min()),
        max_cluster_size=int(sizes.max()),
        cluster_size_counts={int(a): int(b) for a, b in zip(vals, counts, strict=True)},
        jaccard=metrics["jaccard"],
        suppressed=metrics["suppressed"],
        created=metrics["created"],
        facility_cost=float(totals.cost),
        seconds=timings,
        select=opts["select"],
        refine=opts["refine"],
        fallback=opts["fallback"],
        n_chunks=totals.n_chunks,
        n_chunks_baseline=totals.n_baseline,
        n_clusters_split=totals.n_split,
    )


def cluster_users(
    B: BipartiteGraph,
    *,
    k: int,
    rng: np.random.Generator,
    alpha: float = DEFAULT_ALPHA,
    restarts: int = 10,
    postprocess: str = "simple",
    search: str = "auto",
    progress: ProgressFn = log_progress,
) -> np.ndarray[Any, Any]:
    """Only the clustering step of :func:`smooth_k_anonymity`: a cluster id per user, every
    cluster with at least ``k`` users (for callers with their own release rule)."""
    res = smooth_k_anonymity(B, k=k, rng=rng, alpha=alpha, restarts=restarts,
                             postprocess=postprocess, search=search, progress=progress)
    return res.clusters


def release_clusters(
    B: BipartiteGraph, clusters: Any, *, variant: str = "smooth"
) -> BipartiteGraph:
    """Release every cluster as one feature set shared by all its members.

    ``"smooth"``: the features held by a strict majority of the members; ``"suppress"``: the
    features held by all members. ``clusters`` is a cluster id (``0..C−1``) per user.
    """
    variant = check_choice(variant, "variant", "release_clusters", ("smooth", "suppress"))
    labels = np.asarray(clusters, dtype=np.int64)
    if labels.shape != (B.n_users,) or (labels.size and labels.min() < 0):
        raise InvalidParameterError(
            "The 'clusters' parameter of release_clusters must hold one non-negative cluster "
            f"id per user ({B.n_users}). Got shape {labels.shape}."
        )
    n_c = int(labels.max()) + 1 if labels.size else 0
    m = max(B.n_features, 1)
    size = np.bincount(labels, minlength=n_c)
    r, c = B.edges()
    keys, counts = np.unique(labels[r] * m + c, return_counts=True)
    kc = keys // m
    keep = 2 * counts > size[kc] if variant == "smooth" else counts == size[kc]
    keys = keys[keep]
    kc = kc[keep]
    feats = keys - kc * m
    # cluster -> kept features (CSR), then expand to the members
    cptr = np.zeros(n_c + 1, dtype=np.int64)
    np.cumsum(np.bincount(kc, minlength=n_c), out=cptr[1:])
    per_user = cptr[labels + 1] - cptr[labels]
    rows = np.repeat(np.arange(B.n_users, dtype=np.int64), per_user)
    starts = np.repeat(cptr[labels], per_user)
    offs = np.arange(rows.size, dtype=np.int64) - np.repeat(np.cumsum(per_user) - per_user,
                                                            per_user)
    cols = feats[starts + offs]
    return B.with_cells(rows, cols)


# ---------------------------------------------------------------------- clustering
def _points(indptr: np.ndarray[Any, Any], indices: np.ndarray[Any, Any], search: str
            ) -> tuple[Any, ...]:
    """Distinct rows as weighted points, in the chosen representation."""
    n = indptr.size - 1
    indptr = np.asarray(indptr, dtype=np.int64)
    used, local = np.unique(np.asarray(indices, dtype=np.int64), return_inverse=True)
    m = used.size
    deg_all = np.diff(indptr)
    rows = np.repeat(np.arange(n, dtype=np.int64), deg_all)
    mode = 0 if (search == "bits" or (search == "auto" and m <= _BITS_MAX_FEATURES)) else 1
    if mode == 0:
        words = max((m + 63) // 64, 1)
        bits_all = np.zeros((n, words), dtype=np.uint64)
        np.bitwise_or.at(bits_all, (rows, local // 64),
                         np.left_shift(np.uint64(1), (local % 64).astype(np.uint64)))
        _, first, inverse, weight = np.unique(bits_all, axis=0, return_index=True,
                                              return_inverse=True, return_counts=True)
    else:
        salt = np.random.default_rng(0x5EED).integers(0, 2**63 - 1, size=max(m, 1),
                                                      dtype=np.int64).astype(np.uint64)
        h = np.zeros(n, dtype=np.uint64)
        np.add.at(h, rows, salt[local])
        h ^= deg_all.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        _, first, inverse, weight = np.unique(h, return_index=True, return_inverse=True,
                                              return_counts=True)
    inverse = inverse.ravel()
    # CSR of the representative rows, in local feature indices
    pdeg = deg_all[first]
    pptr = np.zeros(first.size + 1, dtype=np.int64)
    np.cumsum(pdeg, out=pptr[1:])
    starts = np.repeat(indptr[first], pdeg)
    offs = np.arange(pptr[-1], dtype=np.int64) - np.repeat(pptr[:-1], pdeg)
    pind = local[starts + offs].astype(np.int64)
    # per-row local indices are sorted because `used` is sorted and rows were sorted
    if mode == 0:
        bits = bits_all[first]
    else:
        bits = np.zeros((1, 1), dtype=np.uint64)
    # inverted index over points
    prow = np.repeat(np.arange(first.size, dtype=np.int64), pdeg)
    order = np.argsort(pind, kind="stable")
    colptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.bincount(pind, minlength=m), out=colptr[1:])
    rowidx = prow[order]
    return (mode, bits, pptr, pind, pdeg.astype(np.int64), colptr, rowidx,
            weight.astype(np.int64), inverse)


class ChunkResult(NamedTuple):
    """Clustering of one chunk (all users of an unsharded run, or one LSH shard)."""

    labels: np.ndarray[Any, Any]  # cluster per row, 0..C-1 (private)
    cost: float  # facility cost of the chosen Meyerson run
    kept: int  # |E ∩ E'| of the chunk's majority release
    union: int  # |E ∪ E'| of the chunk's majority release
    baseline: bool  # True: the MinHash-chunk baseline was kept (it had the higher Jaccard)
    n_split: int  # clusters split by the refinement
    timings: dict[str, float]


def _minhash_rank(indptr: np.ndarray[Any, Any], indices: np.ndarray[Any, Any], *,
                  presorted: bool, n_hashes: int, seed: int) -> np.ndarray[Any, Any]:
    """Position of every row in the chunk's MinHash order: the row order itself when the
    rows arrive sorted (an LSH shard), else ``n_hashes`` MinHash values drawn from a
    generator of the chunk's seed (ties by row)."""
    n = indptr.size - 1
    if presorted:
        return np.arange(n, dtype=np.int64)
    a, b = minhash_params(n_hashes, np.random.default_rng([seed, 1]))
    rank = np.empty(n, dtype=np.int64)
    rank[signature_order(minhash_rows(indptr, indices, a, b))] = np.arange(n, dtype=np.int64)
    return rank


def minhash_baseline(B: BipartiteGraph, *, k: int, rng: np.random.Generator,
                     n_hashes: int = 4) -> np.ndarray[Any, Any]:
    """The naive baseline of issue 16: users sorted by ``n_hashes`` MinHash values (as
    :func:`~graphanon.anonymity.lsh.lsh_shards` sorts them) and cut into consecutive
    clusters of ``k`` (the remainder joins the last one). Release it with
    :func:`release_clusters`; every cluster has at least ``k`` users."""
    k = check_int(k, "k", "minhash_baseline", low=1)
    if B.n_users < k:
        raise InfeasibleError(
            f"k-anonymity needs at least k users: the graph has {B.n_users} users and k={k}.")
    from .lsh import minhash_signatures

    order = signature_order(minhash_signatures(B, n_hashes=n_hashes, rng=rng))
    rank = np.empty(B.n_users, dtype=np.int64)
    rank[order] = np.arange(B.n_users, dtype=np.int64)
    return baseline_labels(rank, k)


def baseline_labels(rank: Any, k: int) -> np.ndarray[Any, Any]:
    """The naive baseline's clusters: rows in ``rank`` order cut into consecutive chunks of
    ``k`` (the remainder joins the last chunk), as
    :func:`~graphanon.anonymity.lsh.chunk_bounds` cuts shards."""
    rank = np.asarray(rank, dtype=np.int64)
    bounds = chunk_bounds(rank.size, k)
    out: np.ndarray[Any, Any] = np.searchsorted(bounds, rank, side="right") - 1
    return out.astype(np.int64)


def _cluster_impl(indptr: np.ndarray[Any, Any], indices: np.ndarray[Any, Any], *, k: int,
                  alpha: float, restarts: int, postprocess: str, search: str, seed: int,
                  select: str = "jaccard", refine: bool = True, fallback: bool = True,
                  variant: str = "smooth", presorted: bool = False, n_hashes: int = 4,
                  progress: ProgressFn | None = None) -> ChunkResult:
    """Cluster the rows of one CSR matrix with the chunk's seed."""
    rng = np.random.default_rng(seed)
    indptr = np.asarray(indptr, dtype=np.int64)
    tm: dict[str, float] = {}
    t = time.perf_counter()
    mode, bits, pptr, pind, deg, colptr, rowidx, weight, inverse = _points(indptr, indices,
                                                                           search)
    u = weight.size
    m_local = colptr.size - 1
    smooth = variant == "smooth"
    rank = None
    prank = None
    if refine or fallback:
        rank = _minhash_rank(indptr, np.asarray(indices), presorted=presorted,
                             n_hashes=n_hashes, seed=seed)
        prank = np.full(u, rank.size, dtype=np.int64)
        np.minimum.at(prank, inverse, rank)  # a point sits where its first user sits
    tm["points"] = time.perf_counter() - t
    t = time.perf_counter()
    knn = K.knn_costs(mode, bits, pptr, pind, deg, colptr, rowidx, weight, k)
    open_cost = (2.0 * alpha / (1.0 - alpha)) * knn
    tm["knn"] = time.perf_counter() - t

    def finish(assign: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], int, int, int]:
        """Post-process one facility-location solution: (labels per point, kept, union,
        clusters split)."""
        if postprocess == "simple":
            assign = K.close_small(mode, bits, pptr, pind, deg, colptr, weight, assign, k)
        else:
            low = max(1, math.ceil(alpha * k))
            assign = K.close_small(mode, bits, pptr, pind, deg, colptr, weight, assign, low)
            assign = K.merge_small(mode, bits, pptr, pind, deg, weight, assign, k)
        _, lab = np.unique(assign, return_inverse=True)
        lab = lab.ravel().astype(np.int64)
        n_lab = int(lab.max()) + 1 if lab.size else 0
        kept, union = K.release_score(pptr, pind, weight, lab, n_lab, m_local, smooth)
        n_split = 0
        if refine:
            lam = kept / union if union else 0.0
            lab, n_lab, n_split = K.split_large(pptr, pind, weight, lab, n_lab, prank, k, lam,
                                                m_local, smooth)
            if n_split:
                kept, union = K.release_score(pptr, pind, weight, lab, n_lab, m_local, smooth)
        return lab, int(kept), int(union), int(n_split)

    t = time.perf_counter()
    best: tuple[np.ndarray[Any, Any], int, int, int] | None = None
    best_assign = None
    best_cost = math.inf
    for r in range(restarts):
        order = rng.permutation(u)
        coins = rng.random(u)
        assign, cost = K.meyerson(mode, bits, pptr, pind, deg, colptr, weight, open_cost,
                                  order, coins)
        if select == "cost":
            if cost < best_cost:
                best_cost, best_assign = cost, assign
        else:
            cand = finish(assign)
            # the highest Jaccard kept/union wins (exact integer comparison; first on ties)
            if best is None or cand[1] * best[2] > best[1] * cand[2]:
                best, best_cost = cand, cost
        if progress is not None:
            progress("facility location", r + 1, restarts)
    if select == "cost":
        assert best_assign is not None
        best = finish(best_assign)
    assert best is not None
    tm["facility_location"] = time.perf_counter() - t
    lab, kept, union, n_split = best
    labels = lab[inverse]
    use_base = False
    if fallback:
        t = time.perf_counter()
        assert rank is not None
        base = baseline_labels(rank, k)
        _, local = np.unique(np.asarray(indices, dtype=np.int64), return_inverse=True)
        bkept, bunion = K.release_score(indptr, local.ravel().astype(np.int64),
                                        np.ones(rank.size, dtype=np.int64), base,
                                        int(base.max()) + 1, m_local, smooth)
        if bkept * union > kept * bunion:
            use_base = True
            labels, kept, union = base, int(bkept), int(bunion)
        tm["baseline"] = time.perf_counter() - t
    return ChunkResult(labels.astype(np.int64), float(best_cost), kept, union, use_base,
                       n_split, tm)


def cluster_chunk(indptr: Any, indices: Any, *, k: int, alpha: float, restarts: int,
                  postprocess: str, search: str, seed: int, select: str = "jaccard",
                  refine: bool = True, fallback: bool = True, variant: str = "smooth",
                  presorted: bool = True, n_hashes: int = 4) -> ChunkResult:
    """The chunk anonymizer of the sharded run: cluster the rows of one CSR chunk (feature
    indices global, rows in shard order — ``presorted``: in MinHash order) with the chunk's
    seed. Parameters are those of :func:`smooth_k_anonymity`, already validated. The
    distributed engine calls it on the same chunks."""
    return _cluster_impl(np.asarray(indptr), np.asarray(indices), k=k, alpha=alpha,
                         restarts=restarts, postprocess=postprocess, search=search, seed=seed,
                         select=select, refine=refine, fallback=fallback, variant=variant,
                         presorted=presorted, n_hashes=n_hashes)


def _cluster_shard_task(args: tuple[Any, ...]) -> ChunkResult:
    indptr, indices, seed, opts = args
    return cluster_chunk(indptr, indices, seed=seed, presorted=True, **opts)


class _Totals:
    """Aggregate of the chunks of a run (public counts only)."""

    def __init__(self) -> None:
        self.cost = 0.0
        self.n_chunks = 0
        self.n_baseline = 0
        self.n_split = 0

    def add(self, res: ChunkResult) -> None:
        self.cost += res.cost
        self.n_chunks += 1
        self.n_baseline += int(res.baseline)
        self.n_split += res.n_split


def _cluster_shards(B: BipartiteGraph, shards: list[np.ndarray[Any, Any]], *,
                    opts: dict[str, Any], rng: np.random.Generator, n_jobs: int,
                    progress: ProgressFn) -> tuple[np.ndarray[Any, Any], _Totals]:
    seeds = chunk_seeds(rng, len(shards))
    indptr = np.asarray(B.indptr, dtype=np.int64)
    indices = B.indices

    def tasks() -> Any:
        for users, seed in zip(shards, seeds, strict=True):
            deg = indptr[users + 1] - indptr[users]
            sptr = np.zeros(users.size + 1, dtype=np.int64)
            np.cumsum(deg, out=sptr[1:])
            starts = np.repeat(indptr[users], deg)
            offs = np.arange(sptr[-1], dtype=np.int64) - np.repeat(sptr[:-1], deg)
            yield (sptr, indices[starts + offs], int(seed), opts)

    clusters = np.empty(B.n_users, dtype=np.int64)
    offset = 0
    totals = _Totals()
    if n_jobs == 1:
        results: Any = map(_cluster_shard_task, tasks())
        pool = None
    else:
        # no more processes than shards or cores (each worker holds a shard in memory)
        pool = ProcessPoolExecutor(max_workers=min(n_jobs, len(shards), os.cpu_count() or 1))
        results = pool.map(_cluster_shard_task, tasks(), chunksize=4)
    try:
        for i, (users, res) in enumerate(zip(shards, results, strict=True)):
            clusters[users] = res.labels + offset
            offset += int(res.labels.max()) + 1
            totals.add(res)
            progress("shards", i + 1, len(shards))
    finally:
        if pool is not None:
            pool.shutdown()
    return clusters, totals
