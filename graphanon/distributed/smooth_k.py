"""Smooth-k-anonymity on a Dask cluster, identical to the single-machine sharded run.

Pipeline (``000_*.txt`` Appendix D, as tasks on partitioned Parquet):

1. **read** every part (``user``, ``feature``); the sorted feature dictionary is the
   tree-reduced union of the parts' distinct features, so a feature's code is its index in
   the in-memory :class:`~graphanon.graph.BipartiteGraph` (``from_pairs`` sorts ids);
2. **group by user**: rows are range-partitioned by user id (splitters from a sample) and each
   bucket builds the CSR rows of its users (sorted, duplicates merged);
3. **MinHash** per bucket with :func:`graphanon.anonymity.lsh.minhash_rows` and the hash
   parameters drawn on the driver exactly as :func:`~graphanon.anonymity.lsh.minhash_signatures`
   draws them;
4. **distributed sort** by (signature, user id): a sample sort — splitters from a sample,
   records range-partitioned, each range sorted with
   :func:`~graphanon.anonymity.lsh.signature_order` (the user id breaks ties, as the user
   index does in memory);
5. **chunks** of :func:`~graphanon.anonymity.lsh.chunk_bounds` over the global positions,
   each anonymized by :func:`~graphanon.anonymity.smooth_k.cluster_chunk` with its seed from
   :func:`~graphanon.anonymity.lsh.chunk_seeds` (several consecutive chunks per task),
   released with :func:`~graphanon.anonymity.smooth_k.release_clusters`, checked with
   :func:`~graphanon.anonymity.verify_smooth_k` and written as one Parquet part per task into a
   temporary folder that replaces the output only when every task succeeded.

Every chunk is a union of whole clusters, so the per-chunk checks imply the global one (a
class is a union of clusters that each satisfy both conditions of Definition 3.5).
"""

from __future__ import annotations

import math
import operator
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._progress import ProgressFn, log_progress
from .._validation import check_choice, check_float, check_int
from ..anonymity.lsh import (
    child_seed,
    chunk_bounds,
    chunk_seeds,
    minhash_params,
    minhash_rows,
    signature_order,
)
from ..anonymity.smooth_k import cluster_chunk, release_clusters
from ..anonymity.verify import verify_smooth_k
from ..errors import InfeasibleError, InputFormatError, InvalidParameterError
from ..graph import BipartiteGraph
from ._engine import (
    ReleaseVerificationError,
    list_parts,
    n_workers,
    output_folder,
    read_columns,
    write_part,
)

__all__ = ["DistributedSmoothKResult", "check_smooth_k_args", "smooth_k_distributed"]

_OWNER = "smooth_k_distributed"
_SAMPLE = 2000  # keys sampled per partition for the splitters


@dataclass(frozen=True)
class DistributedSmoothKResult:
    """Summary of a distributed smooth-k run; the release itself is the Parquet folder
    ``out`` (columns ``user``, ``feature``; one part per task)."""

    out: str
    parts: tuple[str, ...]
    clusters_out: str | None
    k: int
    alpha: float
    restarts: int
    variant: str
    postprocess: str
    shard_size: int | None
    n_hashes: int
    seed_draws: str
    n_workers: int
    n_users: int
    n_features: int
    n_edges_in: int
    n_edges_out: int
    n_chunks: int
    n_clusters: int
    min_cluster_size: int
    max_cluster_size: int
    cluster_size_counts: dict[int, int]
    jaccard: float
    suppressed: float
    created: float
    facility_cost: float
    seconds: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """The public report fields."""
        return {
            "engine": "dask.distributed",
            "n_workers": self.n_workers,
            "out": self.out,
            "n_parts_out": len(self.parts),
            "k": self.k,
            "variant": self.variant,
            "postprocess": self.postprocess,
            "alpha": self.alpha,
            "restarts": self.restarts,
            "shard_size": self.shard_size,
            "n_hashes": self.n_hashes,
            "n_users": self.n_users,
            "n_features": self.n_features,
            "n_edges_in": self.n_edges_in,
            "n_edges_out": self.n_edges_out,
            "n_chunks": self.n_chunks,
            "jaccard": self.jaccard,
            "suppressed": self.suppressed,
            "created": self.created,
            "n_clusters": self.n_clusters,
            "min_cluster_size": self.min_cluster_size,
            "max_cluster_size": self.max_cluster_size,
            "cluster_size_counts": self.cluster_size_counts,
            "facility_cost": self.facility_cost,
            "seconds": self.seconds.get("total", 0.0),
            "timings": self.seconds,
        }


# ---------------------------------------------------------------------- worker tasks
def _read(path: str) -> dict[str, Any]:
    return read_columns(path, ("user", "feature"))


def _part_summary(part: dict[str, Any], sample: int) -> dict[str, Any]:
    u, f = part["user"], part["feature"]
    step = max(1, u.size // sample)
    return {"n": int(u.size), "user_kind": u.dtype.kind, "feature_kind": f.dtype.kind,
            "user_sample": np.unique(u[::step])}


def _distinct(*arrays: Any) -> Any:
    return np.unique(np.concatenate([np.unique(a) for a in arrays]))


def _features(part: dict[str, Any]) -> Any:
    return np.unique(part["feature"])


def _split_by_user(part: dict[str, Any], fdict: Any, splitters: Any) -> tuple[Any, ...]:
    u = part["user"]
    f = np.searchsorted(fdict, part["feature"]).astype(np.int64)
    bucket = np.searchsorted(splitters, u, side="right")
    order = np.argsort(bucket, kind="stable")
    cuts = np.searchsorted(bucket[order], np.arange(splitters.size + 2))
    return tuple((u[order[cuts[j]:cuts[j + 1]]], f[order[cuts[j]:cuts[j + 1]]])
                 for j in range(splitters.size + 1))


def _user_bucket(*pieces: Any) -> dict[str, Any]:
    """CSR rows of the users of one id range: users sorted, features sorted, no duplicates."""
    u = np.concatenate([p[0] for p in pieces])
    f = np.concatenate([p[1] for p in pieces])
    uid, code = np.unique(u, return_inverse=True)
    code = code.ravel().astype(np.int64)
    m = int(f.max()) + 1 if f.size else 1
    key = np.unique(code * m + f)
    row = key // m
    indptr = np.zeros(uid.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=uid.size), out=indptr[1:])
    return {"uid": uid, "indptr": indptr, "indices": key - row * m}


def _count(bucket: dict[str, Any]) -> tuple[int, int]:
    return int(bucket["uid"].size), int(bucket["indices"].size)


def _with_signatures(bucket: dict[str, Any], a: Any, b: Any) -> dict[str, Any]:
    return {**bucket, "sig": minhash_rows(bucket["indptr"], bucket["indices"], a, b)}


def _sample_keys(bucket: dict[str, Any], sample: int) -> tuple[Any, Any]:
    step = max(1, bucket["uid"].size // sample)
    return bucket["sig"][::step], bucket["uid"][::step]


def _take_rows(indptr: Any, indices: Any, rows: Any) -> tuple[Any, Any]:
    deg = indptr[rows + 1] - indptr[rows]
    ptr = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(deg, out=ptr[1:])
    starts = np.repeat(indptr[rows], deg)
    offs = np.arange(ptr[-1], dtype=np.int64) - np.repeat(ptr[:-1], deg)
    return ptr, indices[starts + offs]


def _split_by_signature(bucket: dict[str, Any], sig_split: Any, uid_split: Any
                        ) -> tuple[Any, ...]:
    """Range-partition records by (signature, user id) against the splitters."""
    sig, uid = bucket["sig"], bucket["uid"]
    n, s = uid.size, uid_split.size
    all_sig = np.concatenate([sig, sig_split])
    all_uid = np.concatenate([uid, uid_split])
    flag = np.concatenate([np.ones(n, np.int8), np.zeros(s, np.int8)])  # splitter first on ties
    order = np.lexsort([flag, all_uid, *all_sig.T[::-1]])
    rank = np.cumsum(flag[order] == 0)  # splitters at or before each position
    dest = np.empty(n + s, dtype=np.int64)
    dest[order] = rank
    dest = dest[:n]
    out = []
    for j in range(s + 1):
        rows = np.flatnonzero(dest == j)
        ptr, ind = _take_rows(bucket["indptr"], bucket["indices"], rows)
        out.append({"uid": uid[rows], "sig": sig[rows], "indptr": ptr, "indices": ind})
    return tuple(out)


def _concat_rows(pieces: list[dict[str, Any]]) -> tuple[Any, Any]:
    ptrs = [p["indptr"] for p in pieces]
    sizes = np.array([p[-1] for p in ptrs], dtype=np.int64)
    base = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    indptr = np.concatenate([[0]] + [p[1:] + o for p, o in zip(ptrs, base, strict=True)])
    indices = np.concatenate([p["indices"] for p in pieces]) if pieces else np.zeros(0, np.int64)
    return indptr.astype(np.int64), indices.astype(np.int64)


def _sort_bucket(*pieces: dict[str, Any]) -> dict[str, Any]:
    uid = np.concatenate([p["uid"] for p in pieces])
    sig = np.concatenate([p["sig"] for p in pieces])
    indptr, indices = _concat_rows(list(pieces))
    order = signature_order(sig, tiebreak=uid)
    ptr, ind = _take_rows(indptr, indices, order)
    return {"uid": uid[order], "indptr": ptr, "indices": ind}


def _slice(bucket: dict[str, Any], lo: int, hi: int) -> dict[str, Any]:
    ptr = bucket["indptr"]
    return {"uid": bucket["uid"][lo:hi], "indptr": ptr[lo:hi + 1] - ptr[lo],
            "indices": bucket["indices"][ptr[lo]:ptr[hi]]}


def _anonymize(slices: list[dict[str, Any]], starts: list[int], seeds: list[int],
               fdict: Any, folder: str, name: str, params: dict[str, Any]) -> dict[str, Any]:
    """Anonymize consecutive chunks (``starts`` relative to the slices' first user)."""
    uid = np.concatenate([s["uid"] for s in slices])
    indptr, indices = _concat_rows(slices)
    k = params["k"]
    out_u, out_f, labels_all = [], [], []
    n_clusters, costs, sizes_all = [], 0.0, []
    inter = n_in = n_out = 0
    violations: list[str] = []
    bounds = [*starts, uid.size]
    for c, seed in enumerate(seeds):
        lo, hi = bounds[c], bounds[c + 1]
        rows = np.arange(lo, hi, dtype=np.int64)
        ptr, ind = _take_rows(indptr, indices, rows)
        labels, cost = cluster_chunk(ptr, ind, k=k, alpha=params["alpha"],
                                     restarts=params["restarts"],
                                     postprocess=params["postprocess"],
                                     search=params["search"], seed=int(seed))
        used, local = np.unique(ind, return_inverse=True)
        local = local.ravel()
        r = np.repeat(np.arange(hi - lo, dtype=np.int64), np.diff(ptr))
        B = BipartiteGraph.from_indices(r, local, n_users=hi - lo, n_features=max(used.size, 1))
        rel = release_clusters(B, labels, variant=params["variant"])
        rep = verify_smooth_k(B, rel, k)
        if not rep.ok:
            violations.extend(rep.violations[:3])
        rr, rc = rel.edges()
        a = np.asarray(r * B.n_features + local, dtype=np.int64)
        bkeys = np.asarray(rr * B.n_features + rc, dtype=np.int64)
        inter += int(np.intersect1d(a, bkeys, assume_unique=True).size)
        n_in += int(a.size)
        n_out += int(bkeys.size)
        out_u.append(uid[lo:hi][rr])
        out_f.append(fdict[used[rc]])
        labels_all.append(labels)
        n_clusters.append(int(labels.max()) + 1)
        costs += cost
        sizes_all.append(np.bincount(labels))
    user = np.concatenate(out_u)
    feature = np.concatenate(out_f)
    if params.get("pseudonym_key") is not None:
        from ..privacy.pseudonyms import pseudonymize_with_key

        user = pseudonymize_with_key(user, params["pseudonym_key"])
    path = None
    if not violations:
        path = write_part(folder, name, {"user": user, "feature": feature})
    sizes = np.concatenate(sizes_all)
    vals, counts = np.unique(sizes, return_counts=True)
    return {"uid": uid, "labels": labels_all, "stats": {
        "path": path, "n_clusters": n_clusters, "cost": costs, "inter": inter, "n_in": n_in,
        "n_out": n_out, "violations": violations,
        "size_counts": {int(v): int(c) for v, c in zip(vals, counts, strict=True)}}}


def _stats(res: dict[str, Any]) -> Any:
    return res["stats"]


def _write_clusters(res: dict[str, Any], offsets: list[int], folder: str, name: str) -> str:
    cl = np.concatenate([lab + off for lab, off in zip(res["labels"], offsets, strict=True)])
    return write_part(folder, name, {"user": res["uid"], "cluster": cl.astype(np.int64)})


# ---------------------------------------------------------------------- driver
def _splitters(samples: list[Any], n_buckets: int) -> Any:
    keys = np.unique(np.concatenate(samples)) if samples else np.zeros(0, np.int64)
    if n_buckets <= 1 or keys.size == 0:
        return keys[:0]
    pos = (np.arange(1, n_buckets) * keys.size) // n_buckets
    return np.unique(keys[pos])


def check_smooth_k_args(*, k: Any, rng: Any, alpha: Any = 0.5, restarts: Any = 10,
                        variant: Any = "smooth", postprocess: Any = "simple",
                        shard_size: Any = None, n_hashes: Any = 4, search: Any = "auto",
                        n_partitions: Any = None, chunks_per_task: Any = None
                        ) -> dict[str, Any]:
    """Validate the parameters of :func:`smooth_k_distributed` (without touching the data or
    a cluster) and return them normalized. The CLI calls it before it connects.

    Raises
    ------
    InvalidParameterError
        The first bad parameter, named with its value.
    """
    k = check_int(k, "k", _OWNER, low=1)
    out: dict[str, Any] = {
        "k": k,
        "alpha": check_float(alpha, "alpha", _OWNER, low=0.0, high=1.0, closed="neither"),
        "restarts": check_int(restarts, "restarts", _OWNER, low=1),
        "variant": check_choice(variant, "variant", _OWNER, ("smooth", "suppress")),
        "postprocess": check_choice(postprocess, "postprocess", _OWNER, ("simple", "paper")),
        "search": check_choice(search, "search", _OWNER, ("auto", "bits", "sparse")),
        "n_hashes": check_int(n_hashes, "n_hashes", _OWNER, low=1, high=64),
        "shard_size": None if shard_size is None
        else check_int(shard_size, "shard_size", _OWNER, low=max(k, 2)),
        "n_partitions": None if n_partitions is None
        else check_int(n_partitions, "n_partitions", _OWNER, low=1),
        "chunks_per_task": None if chunks_per_task is None
        else check_int(chunks_per_task, "chunks_per_task", _OWNER, low=1),
    }
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError(
            f"The 'rng' parameter of {_OWNER} must be a numpy.random.Generator. "
            f"Got {type(rng).__name__} instead.")
    return out


def smooth_k_distributed(
    input_path: str,
    out: str,
    *,
    k: int,
    rng: np.random.Generator,
    client: Any,
    alpha: float = 0.5,
    restarts: int = 10,
    variant: str = "smooth",
    postprocess: str = "simple",
    shard_size: int | None = None,
    n_hashes: int = 4,
    search: str = "auto",
    n_partitions: int | None = None,
    chunks_per_task: int | None = None,
    clusters_out: str | None = None,
    pseudonym_key: bytes | None = None,
    progress: ProgressFn = log_progress,
) -> DistributedSmoothKResult:
    """Smooth-k-anonymize a partitioned Parquet user × feature list on a Dask cluster.

    With ``pseudonym_key`` (a scope key of :func:`graphanon.privacy.pseudonyms.scope_key`)
    the workers write keyed pseudonyms instead of the user ids; the pairs are otherwise the
    same.

    The output (the set of ``(user, feature)`` pairs, and the cluster of every user if
    ``clusters_out`` is given) is identical to
    ``smooth_k_anonymity(read_bipartite(...), k=k, rng=rng, shard_size=shard_size, ...)`` on
    the same data and generator state, whatever the number of workers and partitions.

    Parameters
    ----------
    input_path
        A folder of Parquet part files (or one Parquet file) with columns ``user`` and
        ``feature`` (integers or strings, the same type in every part).
    out
        Output folder: Parquet parts ``part-NNNNN.parquet`` with columns ``user``, ``feature``
        (users whose released set is empty are not listed). Written to a temporary sibling
        folder first, renamed when everything succeeded; it must be on a file system the
        workers share with the caller.
    k, rng, alpha, restarts, variant, postprocess, shard_size, n_hashes, search
        As in :func:`graphanon.anonymity.smooth_k_anonymity`.
    client
        A ``distributed.Client``.
    n_partitions
        Buckets of the user grouping and of the sort (default: the larger of the number of
        input parts and 4 per worker).
    chunks_per_task
        Consecutive chunks anonymized by one task (default: about 4 tasks per worker).
    clusters_out
        Also write the PRIVATE ``user``, ``cluster`` assignment as Parquet parts here.
    progress
        ``progress(task, done, total)`` callback.

    Returns
    -------
    DistributedSmoothKResult

    Raises
    ------
    InvalidParameterError, InputFormatError
        Bad parameters or input (nothing is written).
    InfeasibleError
        Fewer than ``k`` users.

    Notes
    -----
    Same guarantee as :func:`~graphanon.anonymity.smooth_k_anonymity` (syntactic anonymity,
    no ε); every chunk's release is checked with :func:`~graphanon.anonymity.verify_smooth_k`
    on the worker before its part is written.

    References
    ----------
    ``000_*.txt`` Appendix D (LSH sharding of a billion-row user list).
    """
    v = check_smooth_k_args(k=k, rng=rng, alpha=alpha, restarts=restarts, variant=variant,
                            postprocess=postprocess, shard_size=shard_size, n_hashes=n_hashes,
                            search=search, n_partitions=n_partitions,
                            chunks_per_task=chunks_per_task)
    k, alpha, restarts = v["k"], v["alpha"], v["restarts"]
    variant, postprocess, shard_size = v["variant"], v["postprocess"], v["shard_size"]
    n_hashes, search = v["n_hashes"], v["search"]
    n_partitions, chunks_per_task = v["n_partitions"], v["chunks_per_task"]
    parts = list_parts(input_path)
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    workers = n_workers(client)
    n_buckets = n_partitions or max(len(parts), 4 * workers)

    # 1. read, feature dictionary, user splitters
    t = time.perf_counter()
    data = client.map(_read, parts)
    summaries = client.gather(client.map(_part_summary, data, sample=_SAMPLE))
    kinds = {(s["user_kind"], s["feature_kind"]) for s in summaries if s["n"]}
    if len({a for a, _ in kinds}) > 1 or len({b for _, b in kinds}) > 1:
        raise InputFormatError(
            f"{input_path!r}: the parts mix integer and string ids; use one type per column.",
            path=str(input_path))
    feats = client.map(_features, data)
    while len(feats) > 1:  # tree reduction of the distinct features
        feats = [client.submit(_distinct, *feats[i:i + 8]) for i in range(0, len(feats), 8)]
    fdict = feats[0]
    n_features = int(client.submit(len, fdict).result())
    usplit = _splitters([s["user_sample"] for s in summaries], n_buckets)
    timings["read"] = time.perf_counter() - t
    progress("read", 1, 5)

    # 2. group by user
    t = time.perf_counter()
    split = client.map(_split_by_user, data, fdict=fdict, splitters=usplit)
    nb = usplit.size + 1
    buckets = [client.submit(_user_bucket, *[client.submit(operator.getitem, s, j)
                                             for s in split]) for j in range(nb)]
    counts = client.gather(client.map(_count, buckets))
    del data, split
    n_users = sum(c[0] for c in counts)
    n_edges = sum(c[1] for c in counts)
    timings["group_by_user"] = time.perf_counter() - t
    progress("group by user", 2, 5)
    if n_users < k:
        raise InfeasibleError(
            f"k-anonymity needs at least k users: the graph has {n_users} users and k={k}.")

    # 3-4. signatures and the distributed sort (or one chunk in user order)
    t = time.perf_counter()
    if shard_size is None or shard_size >= n_users:
        bounds = np.array([0, n_users], dtype=np.int64)
        seeds = np.array([child_seed(rng)])
        sorted_buckets, sizes = buckets, [c[0] for c in counts]
        seed_draws = "child_seed"
    else:
        a, b = minhash_params(n_hashes, rng)
        bounds = chunk_bounds(n_users, shard_size)
        seeds = chunk_seeds(rng, bounds.size - 1)
        seed_draws = "minhash_params, chunk_seeds"
        signed = client.map(_with_signatures, buckets, a=a, b=b)
        samples = client.gather(client.map(_sample_keys, signed, sample=_SAMPLE))
        ssig = np.concatenate([s[0] for s in samples])
        suid = np.concatenate([s[1] for s in samples])
        order = signature_order(ssig, tiebreak=suid)
        n_sort = n_buckets if n_users >= 2 * n_buckets else 1
        pos = np.unique((np.arange(1, n_sort) * order.size) // n_sort)
        sig_split, uid_split = ssig[order[pos]], suid[order[pos]]
        pieces = client.map(_split_by_signature, signed, sig_split=sig_split,
                            uid_split=uid_split)
        sorted_buckets = [
            client.submit(_sort_bucket, *[client.submit(operator.getitem, p, j)
                                          for p in pieces])
            for j in range(uid_split.size + 1)]
        sizes = [c[0] for c in client.gather(client.map(_count, sorted_buckets))]
        del signed, pieces, buckets
    timings["sort"] = time.perf_counter() - t
    progress("sort", 3, 5)

    # 5. chunks as tasks
    t = time.perf_counter()
    n_chunks = bounds.size - 1
    per_task = chunks_per_task or max(1, math.ceil(n_chunks / (4 * workers)))
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    params = {"k": k, "alpha": alpha, "restarts": restarts, "postprocess": postprocess,
              "search": search, "variant": variant, "pseudonym_key": pseudonym_key}
    with output_folder(out) as folder:
        results = []
        for ti, c0 in enumerate(range(0, n_chunks, per_task)):
            c1 = min(n_chunks, c0 + per_task)
            lo, hi = int(bounds[c0]), int(bounds[c1])
            slices = []
            for j in range(len(sorted_buckets)):
                a0, a1 = max(lo, offsets[j]), min(hi, offsets[j + 1])
                if a0 < a1:
                    slices.append(client.submit(_slice, sorted_buckets[j], int(a0 - offsets[j]),
                                                int(a1 - offsets[j])))
            starts = [int(bounds[c] - lo) for c in range(c0, c1)]
            results.append(client.submit(_anonymize, slices, starts,
                                         [int(s) for s in seeds[c0:c1]], fdict, folder,
                                         f"part-{ti:05d}.parquet", params, pure=False))
        stats = []
        for i, st in enumerate(client.gather(client.map(_stats, results))):
            stats.append(st)
            progress("chunks", i + 1, len(results))
        bad = [v for st in stats for v in st["violations"]]
        if bad:
            raise ReleaseVerificationError(
                "the release failed verify_smooth_k, nothing was written: " + "; ".join(bad[:3]))
        timings["anonymize"] = time.perf_counter() - t
        if clusters_out is not None:
            t = time.perf_counter()
            n_cl = [n for st in stats for n in st["n_clusters"]]
            cl_off = np.concatenate([[0], np.cumsum(n_cl)]).astype(np.int64)
            with output_folder(clusters_out) as cfolder:
                futs, ci = [], 0
                for ti, (res, st) in enumerate(zip(results, stats, strict=True)):
                    m = len(st["n_clusters"])
                    futs.append(client.submit(_write_clusters, res,
                                              [int(x) for x in cl_off[ci:ci + m]], cfolder,
                                              f"part-{ti:05d}.parquet", pure=False))
                    ci += m
                client.gather(futs)
            timings["clusters"] = time.perf_counter() - t
    progress("write", 5, 5)
    size_counts: dict[int, int] = {}
    for st in stats:
        for s, c in st["size_counts"].items():
            size_counts[s] = size_counts.get(s, 0) + c
    inter = sum(st["inter"] for st in stats)
    n_out = sum(st["n_out"] for st in stats)
    union = n_edges + n_out - inter
    timings["total"] = time.perf_counter() - t0
    return DistributedSmoothKResult(
        out=str(out),
        parts=tuple(sorted(str(st["path"]).rsplit("/", 1)[-1] for st in stats)),
        clusters_out=clusters_out, k=k, alpha=alpha, restarts=restarts, variant=variant,
        postprocess=postprocess, shard_size=shard_size, n_hashes=n_hashes,
        seed_draws=seed_draws, n_workers=workers, n_users=n_users, n_features=n_features,
        n_edges_in=n_edges, n_edges_out=n_out, n_chunks=n_chunks,
        n_clusters=int(sum(size_counts.values())), min_cluster_size=min(size_counts),
        max_cluster_size=max(size_counts), cluster_size_counts=dict(sorted(size_counts.items())),
        jaccard=inter / union if union else 1.0,
        suppressed=(n_edges - inter) / union if union else 0.0,
        created=(n_out - inter) / union if union else 0.0,
        facility_cost=float(sum(st["cost"] for st in stats)), seconds=timings,
    )
