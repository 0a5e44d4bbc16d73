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
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._progress import ProgressFn, log_progress
from .._validation import check_choice, check_float, check_int
from ..errors import InfeasibleError, InvalidParameterError
from ..graph import BipartiteGraph
from ..metrics import edge_set_metrics
from . import _kernels as K
from .lsh import child_seed, chunk_seeds

__all__ = [
    "SmoothKResult",
    "cluster_chunk",
    "cluster_users",
    "release_clusters",
    "smooth_k_anonymity",
]

_OWNER = "smooth_k_anonymity"
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
            "seconds": self.seconds["total"],
            "timings": self.seconds,
        }


# ---------------------------------------------------------------------- public API
def smooth_k_anonymity(
    B: BipartiteGraph,
    *,
    k: int,
    rng: np.random.Generator,
    alpha: float = 0.5,
    restarts: int = 10,
    variant: str = "smooth",
    postprocess: str = "simple",
    shard_size: int | None = None,
    n_hashes: int = 4,
    n_jobs: int = 1,
    search: str = "auto",
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
        ``α`` of the opening cost ``2α/(1−α) · Σ_{k nearest} d``; the paper's experiments use
        1/2 (factor 2). In ``(0, 1)``.
    restarts
        Runs of Meyerson's algorithm on random orders; the cheapest is kept (paper: 10).
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
        Processes used for the shards (results do not depend on it).
    search
        ``"bits"`` (bit-packed rows, popcount), ``"sparse"`` (inverted index) or ``"auto"``
        (bits up to 1,024 used features).
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
    k = check_int(k, "k", _OWNER, low=2)
    alpha = check_float(alpha, "alpha", _OWNER, low=0.0, high=1.0, closed="neither")
    restarts = check_int(restarts, "restarts", _OWNER, low=1)
    variant = check_choice(variant, "variant", _OWNER, ("smooth", "suppress"))
    postprocess = check_choice(postprocess, "postprocess", _OWNER, ("simple", "paper"))
    search = check_choice(search, "search", _OWNER, ("auto", "bits", "sparse"))
    n_hashes = check_int(n_hashes, "n_hashes", _OWNER, low=1, high=64)
    n_jobs = check_int(n_jobs, "n_jobs", _OWNER, low=1)
    if shard_size is not None:
        shard_size = check_int(shard_size, "shard_size", _OWNER, low=max(k, 2))
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError(
            f"The 'rng' parameter of {_OWNER} must be a numpy.random.Generator. "
            f"Got {type(rng).__name__} instead."
        )
    if B.n_users < k:
        raise InfeasibleError(
            f"k-anonymity needs at least k users: the graph has {B.n_users} users and k={k}."
        )
    return _smooth_k_impl(B, k=k, rng=rng, alpha=alpha, restarts=restarts, variant=variant,
                          postprocess=postprocess, shard_size=shard_size, n_hashes=n_hashes,
                          n_jobs=n_jobs, search=search, progress=progress)


def _smooth_k_impl(B: BipartiteGraph, *, k: int, rng: np.random.Generator, alpha: float,
                   restarts: int, variant: str, postprocess: str, shard_size: int | None,
                   n_hashes: int, n_jobs: int, search: str,
                   progress: ProgressFn) -> SmoothKResult:
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    if shard_size is None or shard_size >= B.n_users:
        clusters, cost, tm = _cluster_impl(B.indptr, B.indices, k=k, alpha=alpha,
                                           restarts=restarts, postprocess=postprocess,
                                           search=search, seed=child_seed(rng),
                                           progress=progress)
        timings.update(tm)
    else:
        from .lsh import lsh_shards

        t = time.perf_counter()
        shards = lsh_shards(B, shard_size=shard_size, n_hashes=n_hashes, rng=rng)
        timings["sharding"] = time.perf_counter() - t
        t = time.perf_counter()
        clusters, cost = _cluster_shards(B, shards, k=k, alpha=alpha, restarts=restarts,
                                         postprocess=postprocess, search=search, rng=rng,
                                         n_jobs=n_jobs, progress=progress)
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
        alpha=alpha,
        restarts=restarts,
        variant=variant,
        postprocess=postprocess,
        shard_size=shard_size,
        n_clusters=int(sizes.size),
        min_cluster_size=int(sizes.min()),
        max_cluster_size=int(sizes.max()),
        cluster_size_counts={int(a): int(b) for a, b in zip(vals, counts, strict=True)},
        jaccard=metrics["jaccard"],
        suppressed=metrics["suppressed"],
        created=metrics["created"],
        facility_cost=float(cost),
        seconds=timings,
    )


def cluster_users(
    B: BipartiteGraph,
    *,
    k: int,
    rng: np.random.Generator,
    alpha: float = 0.5,
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


def _cluster_impl(indptr: np.ndarray[Any, Any], indices: np.ndarray[Any, Any], *, k: int,
                  alpha: float, restarts: int, postprocess: str, search: str, seed: int,
                  progress: ProgressFn | None = None
                  ) -> tuple[np.ndarray[Any, Any], float, dict[str, float]]:
    """Cluster the rows of one CSR matrix; returns (cluster per row, cost, timings)."""
    rng = np.random.default_rng(seed)
    tm: dict[str, float] = {}
    t = time.perf_counter()
    mode, bits, pptr, pind, deg, colptr, rowidx, weight, inverse = _points(indptr, indices,
                                                                           search)
    u = weight.size
    tm["points"] = time.perf_counter() - t
    t = time.perf_counter()
    knn = K.knn_costs(mode, bits, pptr, pind, deg, colptr, rowidx, weight, k)
    open_cost = (2.0 * alpha / (1.0 - alpha)) * knn
    tm["knn"] = time.perf_counter() - t
    t = time.perf_counter()
    best_assign = None
    best_cost = math.inf
    for r in range(restarts):
        order = rng.permutation(u)
        coins = rng.random(u)
        assign, cost = K.meyerson(mode, bits, pptr, pind, deg, colptr, weight, open_cost,
                                  order, coins)
        if cost < best_cost:
            best_cost, best_assign = cost, assign
        if progress is not None:
            progress("facility location", r + 1, restarts)
    tm["facility_location"] = time.perf_counter() - t
    t = time.perf_counter()
    assert best_assign is not None
    if postprocess == "simple":
        assign = K.close_small(mode, bits, pptr, pind, deg, colptr, weight, best_assign, k)
    else:
        low = max(1, math.ceil(alpha * k))
        assign = K.close_small(mode, bits, pptr, pind, deg, colptr, weight, best_assign, low)
        assign = K.merge_small(mode, bits, pptr, pind, deg, weight, assign, k)
    tm["postprocess"] = time.perf_counter() - t
    _, labels = np.unique(assign, return_inverse=True)
    return labels.ravel()[inverse].astype(np.int64), float(best_cost), tm


def cluster_chunk(indptr: Any, indices: Any, *, k: int, alpha: float, restarts: int,
                  postprocess: str, search: str, seed: int
                  ) -> tuple[np.ndarray[Any, Any], float]:
    """The chunk anonymizer of the sharded run: cluster the rows of one CSR chunk (feature
    indices global, rows in shard order) with the chunk's seed; returns (cluster per row
    ``0..C−1``, facility cost). Parameters are those of :func:`smooth_k_anonymity`, already
    validated. The distributed engine calls it on the same chunks."""
    labels, cost, _ = _cluster_impl(indptr, indices, k=k, alpha=alpha, restarts=restarts,
                                    postprocess=postprocess, search=search, seed=seed)
    return labels, cost


def _cluster_shard_task(args: tuple[Any, ...]) -> tuple[np.ndarray[Any, Any], float]:
    indptr, indices, k, alpha, restarts, postprocess, search, seed = args
    return cluster_chunk(indptr, indices, k=k, alpha=alpha, restarts=restarts,
                         postprocess=postprocess, search=search, seed=seed)


def _cluster_shards(B: BipartiteGraph, shards: list[np.ndarray[Any, Any]], *, k: int,
                    alpha: float, restarts: int, postprocess: str, search: str,
                    rng: np.random.Generator, n_jobs: int, progress: ProgressFn
                    ) -> tuple[np.ndarray[Any, Any], float]:
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
            yield (sptr, indices[starts + offs], k, alpha, restarts, postprocess, search,
                   int(seed))

    clusters = np.empty(B.n_users, dtype=np.int64)
    offset = 0
    total_cost = 0.0
    if n_jobs == 1:
        results: Any = map(_cluster_shard_task, tasks())
        pool = None
    else:
        pool = ProcessPoolExecutor(max_workers=n_jobs)
        results = pool.map(_cluster_shard_task, tasks(), chunksize=4)
    try:
        for i, (users, (labels, cost)) in enumerate(zip(shards, results, strict=True)):
            clusters[users] = labels + offset
            offset += int(labels.max()) + 1
            total_cost += cost
            progress("shards", i + 1, len(shards))
    finally:
        if pool is not None:
            pool.shutdown()
    return clusters, total_cost
