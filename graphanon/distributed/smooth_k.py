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
from .._validation import check_int
from ..anonymity.lsh import (
    child_seed,
    chunk_bounds,
    chunk_seeds,
    minhash_params,
    minhash_rows,
    signature_order,
)
from ..anonymity.smooth_k import (
    DEFAULT_ALPHA,
    check_chunk_options,
    cluster_chunk,
    release_clusters,
)
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
    select: str = "jaccard"
    refine: bool = True
    fallback: bool = True
    n_chunks_baseline: int = 0
    n_clusters_split: int = 0

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
            "select": self.select,
            "refine": self.refine,
            "fallback": self.fallback,
            "n_chunks_baseline": self.n_chunks_baseline,
            "n_clusters_split": self.n_clusters_split,
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
    """One part, ids in the canonical encoding of :mod:`graphanon._ids` (as the in-memory
    readers): a string column whose every id is a canonical integer becomes ``int64``,
    other text stays text (a numpy ``str`` array: sorted and searched in C)."""
    from .._ids import canonical_ids

    part = read_columns(path, ("user", "feature"))
    for name in ("user", "feature"):
        col = part[name]
        part[f"{name}_text_column"] = col.dtype.kind == "U"
        if col.dtype.kind == "U" and col.size:
            canon = canonical_ids(col, f"{name} ids")
            part[name] = canon if canon.dtype != object else np.asarray(canon, dtype=str)
    return part


def _as_text(part: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """Bring canonical-integer columns of a part back to text (another part of the same
    string column holds text ids, so the whole column is text, as :func:`unify_ids` does)."""
    out = dict(part)
    for name in names:
        if out[name].dtype.kind != "U":
            out[name] = out[name].astype(str)
    return out


def _part_summary(part: dict[str, Any], sample: int) -> dict[str, Any]:
    u, f = part["user"], part["feature"]
    step = max(1, u.size // sample)
    return {"n": int(u.size), "user_kind": u.dtype.kind, "feature_kind": f.dtype.kind,
            "user_text": part["user_text_column"],
            "feature_text": part["feature_text_column"],
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
    opts = params["chunk"]
    k = opts["k"]
    out_u, out_f, labels_all = [], [], []
    n_clusters, costs, sizes_all = [], 0.0, []
    inter = n_in = n_out = n_base = n_split = 0
    violations: list[str] = []
    bounds = [*starts, uid.size]
    for c, seed in enumerate(seeds):
        lo, hi = bounds[c], bounds[c + 1]
        rows = np.arange(lo, hi, dtype=np.int64)
        ptr, ind = _take_rows(indptr, indices, rows)
        res = cluster_chunk(ptr, ind, seed=int(seed), presorted=params["presorted"], **opts)
        labels, cost = res.labels, res.cost
        n_base += int(res.baseline)
        n_split += res.n_split
        used, local = np.unique(ind, return_inverse=True)
        local = local.ravel()
        r = np.repeat(np.arange(hi - lo, dtype=np.int64), np.diff(ptr))
        B = BipartiteGraph.from_indices(r, local, n_users=hi - lo, n_features=max(used.size, 1))
        rel = release_clusters(B, labels, variant=opts["variant"])
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
        # rows in pseudonym order: the shard's user order (its ids, sorted) would undo them
        by_name = np.argsort(user.astype(str), kind="stable")
        user, feature = user[by_name], feature[by_name]
    path = None
    if not violations:
        path = write_part(folder, name, {"user": user, "feature": feature})
    sizes = np.concatenate(sizes_all)
    vals, counts = np.unique(sizes, return_counts=True)
    return {"uid": uid, "labels": labels_all, "stats": {
        "path": path, "n_clusters": n_clusters, "cost": costs, "inter": inter, "n_in": n_in,
        "n_out": n_out, "violations": violations, "n_baseline": n_base, "n_split": n_split,
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


def check_smooth_k_args(*, k: Any, rng: Any, alpha: Any = DEFAULT_ALPHA, restarts: Any = 10,
                        variant: Any = "smooth", postprocess: Any = "simple",
                        shard_size: Any = None, n_hashes: Any = 4, search: Any = "auto",
                        n_partitions: Any = None, chunks_per_task: Any = None,
                        select: Any = "jaccard", refine: Any = True, fallback: Any = True
                        ) -> dict[str, Any]:
    """Validate the parameters of :func:`smooth_k_distributed` (without touching the data or
    a cluster) and return them normalized. The CLI calls it before it connects.

    Raises
    ------
    InvalidParameterError
        The first bad parameter, named with its value.
    """
    out = check_chunk_options(_OWNER, k=k, alpha=alpha, restarts=restarts, variant=variant,
                              postprocess=postprocess, search=search, n_hashes=n_hashes,
                              select=select, refine=refine, fallback=fallback)
    out.update({
        "shard_size": None if shard_size is None
        else check_int(shard_size, "shard_size", _OWNER, low=max(out["k"], 2)),
        "n_partitions": None if n_partitions is None
        else check_int(n_partitions, "n_partitions", _OWNER, low=1),
        "chunks_per_task": None if chunks_per_task is None
        else check_int(chunks_per_task, "chunks_per_task", _OWNER, low=1),
    })
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
    alpha: float = DEFAULT_ALPHA,
    restarts: int = 10,
    variant: str = "smooth",
    postprocess: str = "simple",
    shard_size: int | None = None,
    n_hashes: int = 4,
    search: str = "auto",
    select: str = "jaccard",
    refine: bool = True,
    fallback: bool = True,
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
    k, rng, alpha, restarts, variant, postprocess, shard_size, n_hashes, search, select, \
    refine, fallback
        As in :func:`graphanon.anonymity.smooth_k_anonymity` (the chunks are clustered by
        the same :func:`~graphanon.anonymity.smooth_k.cluster_chunk`).
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
                            chunks_per_task=chunks_per_task, select=select, refine=refine,
                            fallback=fallback)
    chunk_opts = {key: v[key] for key in ("k", "alpha", "restarts", "variant", "postprocess",
                                          "search", "n_hashes", "select", "refine",
                                          "fallback")}
    parts = list_parts(input_path)
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    workers = n_workers(client)
    n_buckets = v["n_partitions"] or max(len(parts), 4 * workers)

    t = time.perf_counter()
    users = _read_and_group(client, parts, input_path, n_buckets)
    timings["read_and_group"] = time.perf_counter() - t
    progress("read and group by user", 2, 5)
    if users.n_users < v["k"]:
        raise InfeasibleError(
            f"k-anonymity needs at least k users: the graph has {users.n_users} users and "
            f"k={v['k']}.")

    t = time.perf_counter()
    chunks = _order_into_chunks(client, users, shard_size=v["shard_size"],
                                n_hashes=v["n_hashes"], n_buckets=n_buckets, rng=rng)
    timings["sort"] = time.perf_counter() - t
    progress("sort", 3, 5)

    t = time.perf_counter()
    per_task = v["chunks_per_task"] or max(1, math.ceil(chunks.n_chunks / (4 * workers)))
    # the chunk anonymizer of the single-machine run: rows of a shard arrive in MinHash
    # order (presorted), the one chunk of an unsharded run in user order
    params = {"chunk": chunk_opts, "presorted": chunks.seed_draws != "child_seed",
              "pseudonym_key": pseudonym_key}
    with output_folder(out) as folder:
        results, stats = _anonymize_chunks(client, chunks, users.fdict, folder, params,
                                           per_task, progress)
        timings["anonymize"] = time.perf_counter() - t
        if clusters_out is not None:
            t = time.perf_counter()
            _write_cluster_parts(client, results, stats, clusters_out)
            timings["clusters"] = time.perf_counter() - t
    progress("write", 5, 5)
    timings["total"] = time.perf_counter() - t0
    return _summarize(v, out=out, clusters_out=clusters_out, users=users, chunks=chunks,
                      stats=stats, workers=workers, timings=timings)


@dataclass
class _Users:
    """Driver-side handles after stages 1–2: features, user buckets and their sizes."""

    fdict: Any  # future: the sorted feature dictionary
    n_features: int
    buckets: list[Any]  # futures: CSR rows of a user range each
    counts: list[tuple[int, int]]  # (users, edges) per bucket

    @property
    def n_users(self) -> int:
        return sum(c[0] for c in self.counts)

    @property
    def n_edges(self) -> int:
        return sum(c[1] for c in self.counts)


@dataclass
class _Chunks:
    """Driver-side handles after stages 3–4: the global row order cut into chunks."""

    bounds: Any  # chunk boundaries over global positions
    seeds: Any  # one seed per chunk
    buckets: list[Any]  # futures, in global order
    sizes: list[int]  # rows per bucket
    seed_draws: str  # which generator draws were made (recorded in the result)

    @property
    def n_chunks(self) -> int:
        return int(self.bounds.size - 1)


def _read_and_group(client: Any, parts: list[str], input_path: str,
                    n_buckets: int) -> _Users:
    """Stages 1–2: read the parts, build the feature dictionary, group rows by user."""
    data = client.map(_read, parts)
    summaries = client.gather(client.map(_part_summary, data, sample=_SAMPLE))
    kinds = {(s["user_text"], s["feature_text"]) for s in summaries if s["n"]}
    text = tuple(name for name in ("user", "feature")
                 if any(s[f"{name}_kind"] == "U" for s in summaries if s["n"]))
    if text and any(s[f"{name}_kind"] != "U" for name in text for s in summaries if s["n"]):
        # a string column with canonical integers in some parts and text in others
        data = client.map(_as_text, data, names=text)
        summaries = client.gather(client.map(_part_summary, data, sample=_SAMPLE))
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
    split = client.map(_split_by_user, data, fdict=fdict, splitters=usplit)
    buckets = [client.submit(_user_bucket, *[client.submit(operator.getitem, s, j)
                                             for s in split])
               for j in range(usplit.size + 1)]
    counts = client.gather(client.map(_count, buckets))
    return _Users(fdict, n_features, buckets, counts)


def _order_into_chunks(client: Any, users: _Users, *, shard_size: int | None, n_hashes: int,
                       n_buckets: int, rng: np.random.Generator) -> _Chunks:
    """Stages 3–4: one chunk in user order, or MinHash signatures and a sample sort.

    The generator draws are those of the single-machine run (``child_seed``, or
    ``minhash_params`` then ``chunk_seeds``), so both give the same release.
    """
    n_users = users.n_users
    if shard_size is None or shard_size >= n_users:
        return _Chunks(np.array([0, n_users], dtype=np.int64), np.array([child_seed(rng)]),
                       users.buckets, [c[0] for c in users.counts], "child_seed")
    a, b = minhash_params(n_hashes, rng)
    bounds = chunk_bounds(n_users, shard_size)
    seeds = chunk_seeds(rng, bounds.size - 1)
    signed = client.map(_with_signatures, users.buckets, a=a, b=b)
    samples = client.gather(client.map(_sample_keys, signed, sample=_SAMPLE))
    ssig = np.concatenate([s[0] for s in samples])
    suid = np.concatenate([s[1] for s in samples])
    order = signature_order(ssig, tiebreak=suid)
    n_sort = n_buckets if n_users >= 2 * n_buckets else 1
    pos = np.unique((np.arange(1, n_sort) * order.size) // n_sort)
    sig_split, uid_split = ssig[order[pos]], suid[order[pos]]
    pieces = client.map(_split_by_signature, signed, sig_split=sig_split, uid_split=uid_split)
    sorted_buckets = [
        client.submit(_sort_bucket, *[client.submit(operator.getitem, p, j) for p in pieces])
        for j in range(uid_split.size + 1)]
    sizes = [c[0] for c in client.gather(client.map(_count, sorted_buckets))]
    return _Chunks(bounds, seeds, sorted_buckets, sizes, "minhash_params, chunk_seeds")


def _anonymize_chunks(client: Any, chunks: _Chunks, fdict: Any, folder: str,
                      params: dict[str, Any], per_task: int, progress: ProgressFn
                      ) -> tuple[list[Any], list[dict[str, Any]]]:
    """Stage 5: anonymize, verify and write ``per_task`` consecutive chunks per task.

    Raises :class:`ReleaseVerificationError` (nothing is written) if any chunk's release
    fails :func:`~graphanon.anonymity.verify_smooth_k`.
    """
    offsets = np.concatenate([[0], np.cumsum(chunks.sizes)]).astype(np.int64)
    bounds, n_chunks = chunks.bounds, chunks.n_chunks
    results = []
    for ti, c0 in enumerate(range(0, n_chunks, per_task)):
        c1 = min(n_chunks, c0 + per_task)
        lo, hi = int(bounds[c0]), int(bounds[c1])
        slices = []
        for j, bucket in enumerate(chunks.buckets):
            a0, a1 = max(lo, offsets[j]), min(hi, offsets[j + 1])
            if a0 < a1:
                slices.append(client.submit(_slice, bucket, int(a0 - offsets[j]),
                                            int(a1 - offsets[j])))
        starts = [int(bounds[c] - lo) for c in range(c0, c1)]
        results.append(client.submit(_anonymize, slices, starts,
                                     [int(s) for s in chunks.seeds[c0:c1]], fdict, folder,
                                     f"part-{ti:05d}.parquet", params, pure=False))
    stats = []
    for i, st in enumerate(client.gather(client.map(_stats, results))):
        stats.append(st)
        progress("chunks", i + 1, len(results))
    bad = [v for st in stats for v in st["violations"]]
    if bad:
        raise ReleaseVerificationError(
            "the release failed verify_smooth_k, nothing was written: " + "; ".join(bad[:3]))
    return results, stats


def _write_cluster_parts(client: Any, results: list[Any], stats: list[dict[str, Any]],
                         clusters_out: str) -> None:
    """The PRIVATE ``user``, ``cluster`` assignment, one part per task, numbered globally."""
    n_cl = [n for st in stats for n in st["n_clusters"]]
    cl_off = np.concatenate([[0], np.cumsum(n_cl)]).astype(np.int64)
    with output_folder(clusters_out) as cfolder:
        futs, ci = [], 0
        for ti, (res, st) in enumerate(zip(results, stats, strict=True)):
            m = len(st["n_clusters"])
            futs.append(client.submit(_write_clusters, res, [int(x) for x in cl_off[ci:ci + m]],
                                      cfolder, f"part-{ti:05d}.parquet", pure=False))
            ci += m
        client.gather(futs)


def _summarize(v: dict[str, Any], *, out: str, clusters_out: str | None, users: _Users,
               chunks: _Chunks, stats: list[dict[str, Any]], workers: int,
               timings: dict[str, float]) -> DistributedSmoothKResult:
    """The run's summary from the per-task statistics."""
    size_counts: dict[int, int] = {}
    for st in stats:
        for s, c in st["size_counts"].items():
            size_counts[s] = size_counts.get(s, 0) + c
    n_edges = users.n_edges
    inter = sum(st["inter"] for st in stats)
    n_out = sum(st["n_out"] for st in stats)
    union = n_edges + n_out - inter
    return DistributedSmoothKResult(
        out=str(out),
        parts=tuple(sorted(str(st["path"]).rsplit("/", 1)[-1] for st in stats)),
        clusters_out=clusters_out, k=v["k"], alpha=v["alpha"], restarts=v["restarts"],
        variant=v["variant"], postprocess=v["postprocess"], shard_size=v["shard_size"],
        n_hashes=v["n_hashes"], seed_draws=chunks.seed_draws, n_workers=workers,
        n_users=users.n_users, n_features=users.n_features, n_edges_in=n_edges,
        n_edges_out=n_out, n_chunks=chunks.n_chunks,
        n_clusters=int(sum(size_counts.values())), min_cluster_size=min(size_counts),
        max_cluster_size=max(size_counts), cluster_size_counts=dict(sorted(size_counts.items())),
        jaccard=inter / union if union else 1.0,
        suppressed=(n_edges - inter) / union if union else 0.0,
        created=(n_out - inter) / union if union else 0.0,
        facility_cost=float(sum(st["cost"] for st in stats)), seconds=timings,
        select=v["select"], refine=v["refine"], fallback=v["fallback"],
        n_chunks_baseline=int(sum(st["n_baseline"] for st in stats)),
        n_clusters_split=int(sum(st["n_split"] for st in stats)),
    )
