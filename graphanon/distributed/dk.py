"""Exact 1K / 2K extraction from a partitioned Parquet edge list on a Dask cluster.

Map–reduce, with node ids range-partitioned by splitters sampled from the data (the same
splitters for edges and nodes, so that the first join is local):

1. **read** each part (``source``, ``target``; a null target is an isolated node);
   self-loops are dropped and each edge is written ``(lo, hi)`` with ``lo < hi``, as
   :meth:`graphanon.graph.Graph.from_id_edges` does;
2. **deduplicate** edges in buckets keyed by ``lo``;
3. **degrees**: every edge emits both endpoints, isolated nodes and self-loop ends emit a
   zero; buckets keyed by node sum them (``deg``);
4. **1K**: each degree bucket's histogram, summed on the driver;
5. **degree join**: edge bucket ``j`` looks up ``deg(lo)`` in degree bucket ``j`` (same
   range), then the edges are re-partitioned by ``hi`` and look up ``deg(hi)``;
6. **2K**: counts of ``(min, max)`` degree pairs per bucket, summed on the driver.

The tables equal :func:`graphanon.dk.dk_distribution` of the in-memory graph.

3K is not distributed: the triangles need every edge's two adjacency lists joined (a
wedge-closing join whose intermediate size is the number of wedges, ``Σ C(deg, 2)``); it is
left to the in-memory path (``graphanon dk --d 3`` without a cluster).
"""

from __future__ import annotations

import operator
import time
from typing import Any

import numpy as np

from .._validation import check_int
from ..dk.extract import DKDistribution
from ..errors import InputFormatError, InvalidParameterError
from ._engine import list_parts, n_workers, read_columns

__all__ = ["dk_distributed"]

_OWNER = "dk_distributed"
_SAMPLE = 2000


def _read(path: str) -> dict[str, Any]:
    part = read_columns(path, ("source", "target"), nullable="target")
    s, t = part["source"], part["target"]
    iso = part.get("_isolated", s[:0])
    loop = s == t
    keep = ~loop
    s, t = s[keep], t[keep]
    lo = np.where(s < t, s, t)
    hi = np.where(s < t, t, s)
    return {"lo": lo, "hi": hi, "zero": np.concatenate([iso, part["source"][loop]])}


def _summary(part: dict[str, Any], sample: int) -> dict[str, Any]:
    ids = np.concatenate([part["lo"], part["hi"], part["zero"]])
    step = max(1, ids.size // sample)
    return {"n": int(ids.size), "kind": ids.dtype.kind, "sample": np.unique(ids[::step])}


def _bucket_of(ids: Any, splitters: Any) -> Any:
    return np.searchsorted(splitters, ids, side="right")


def _split(cols: dict[str, Any], key: str, splitters: Any) -> tuple[dict[str, Any], ...]:
    bucket = _bucket_of(cols[key], splitters)
    order = np.argsort(bucket, kind="stable")
    cuts = np.searchsorted(bucket[order], np.arange(splitters.size + 2))
    return tuple({name: c[order[cuts[j]:cuts[j + 1]]] for name, c in cols.items()}
                 for j in range(splitters.size + 1))


def _split_edges(part: dict[str, Any], splitters: Any) -> Any:
    return _split({"lo": part["lo"], "hi": part["hi"]}, "lo", splitters)


def _dedup(*pieces: dict[str, Any]) -> dict[str, Any]:
    lo = np.concatenate([p["lo"] for p in pieces])
    hi = np.concatenate([p["hi"] for p in pieces])
    order = np.lexsort([hi, lo])
    lo, hi = lo[order], hi[order]
    keep = np.ones(lo.size, dtype=bool)
    keep[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    return {"lo": lo[keep], "hi": hi[keep]}


def _endpoints(edges: dict[str, Any], splitters: Any) -> Any:
    ids = np.concatenate([edges["lo"], edges["hi"]])
    return _split({"id": ids, "w": np.ones(ids.size, np.int64)}, "id", splitters)


def _zeros(part: dict[str, Any], splitters: Any) -> Any:
    """Isolated nodes and self-loop ends: nodes of degree 0 unless an edge says otherwise."""
    z = part["zero"]
    return _split({"id": z, "w": np.zeros(z.size, np.int64)}, "id", splitters)


def _degrees(*pieces: dict[str, Any]) -> dict[str, Any]:
    ids = np.concatenate([p["id"] for p in pieces])
    w = np.concatenate([p["w"] for p in pieces])
    node, inv = np.unique(ids, return_inverse=True)
    return {"node": node, "deg": np.bincount(inv.ravel(), weights=w,
                                             minlength=node.size).astype(np.int64)}


def _hist(deg: dict[str, Any]) -> Any:
    return np.bincount(deg["deg"]) if deg["deg"].size else np.zeros(1, np.int64)


def _join_lo(edges: dict[str, Any], deg: dict[str, Any], splitters: Any) -> Any:
    d_lo = deg["deg"][np.searchsorted(deg["node"], edges["lo"])]
    return _split({"hi": edges["hi"], "d_lo": d_lo}, "hi", splitters)


def _joint_counts(deg: dict[str, Any], *pieces: dict[str, Any]) -> tuple[Any, Any]:
    hi = np.concatenate([p["hi"] for p in pieces])
    d_lo = np.concatenate([p["d_lo"] for p in pieces])
    d_hi = deg["deg"][np.searchsorted(deg["node"], hi)]
    a, b = np.minimum(d_lo, d_hi), np.maximum(d_lo, d_hi)
    base = int(b.max()) + 1 if b.size else 1
    keys, counts = np.unique(a * base + b, return_counts=True)
    return np.stack([keys // base, keys % base], axis=1), counts.astype(np.int64)


def _splitters(samples: list[Any], n_buckets: int) -> Any:
    keys = np.unique(np.concatenate(samples)) if samples else np.zeros(0, np.int64)
    if n_buckets <= 1 or keys.size == 0:
        return keys[:0]
    return np.unique(keys[(np.arange(1, n_buckets) * keys.size) // n_buckets])


def dk_distributed(input_path: str, d: int, *, client: Any,
                   n_partitions: int | None = None) -> DKDistribution:
    """The exact 1K or 2K distribution of a partitioned Parquet edge list.

    Parameters
    ----------
    input_path
        A folder of Parquet part files (or one Parquet file) with columns ``source`` and
        ``target`` (integers or strings; a null ``target`` is an isolated node), read as an
        undirected simple graph (self-loops and duplicates dropped), as
        :func:`graphanon.io.read_graph` reads a Parquet file.
    d
        1 or 2 (3K is not distributed: see the module notes).
    client
        A ``distributed.Client``.
    n_partitions
        Buckets of the shuffles (default: the larger of the number of parts and 4 per worker).

    Returns
    -------
    DKDistribution
        Equal to ``dk_distribution(read_graph(...), d)``.
    """
    d = check_int(d, "d", _OWNER, low=1, high=3)
    if d == 3:
        raise InvalidParameterError(
            "The 'd' parameter of dk_distributed must be 1 or 2: 3K (wedges and triangles) "
            "is only extracted in memory (run without --scheduler / --cluster).")
    if n_partitions is not None:
        n_partitions = check_int(n_partitions, "n_partitions", _OWNER, low=1)
    parts = list_parts(input_path)
    t0 = time.perf_counter()
    nb = n_partitions or max(len(parts), 4 * n_workers(client))
    data = client.map(_read, parts)
    summaries = client.gather(client.map(_summary, data, sample=_SAMPLE))
    if len({s["kind"] for s in summaries if s["n"]}) > 1:
        raise InputFormatError(
            f"{input_path!r}: the parts mix integer and string ids; use one type.",
            path=str(input_path))
    splitters = _splitters([s["sample"] for s in summaries], nb)
    nbk = splitters.size + 1

    def shuffle(maps: list[Any], reduce: Any, *extra: list[Any]) -> list[Any]:
        return [client.submit(reduce, *[e[j] for e in extra],
                              *[client.submit(operator.getitem, m, j) for m in maps])
                for j in range(nbk)]

    edges = shuffle(client.map(_split_edges, data, splitters=splitters), _dedup)
    ends = (client.map(_endpoints, edges, splitters=splitters)
            + client.map(_zeros, data, splitters=splitters))
    degs = shuffle(ends, _degrees)
    if d == 1:
        hists = client.gather(client.map(_hist, degs))
        width = max(h.size for h in hists)
        hist = np.sum([np.pad(h, (0, width - h.size)) for h in hists], axis=0)
        deg = np.flatnonzero(hist)
        return DKDistribution("degree", deg[:, None], hist[deg].astype(np.int64),
                              time.perf_counter() - t0)
    joined = [client.submit(_join_lo, e, g, splitters) for e, g in zip(edges, degs, strict=True)]
    parts_2k = client.gather(shuffle(joined, _joint_counts, degs))
    tuples = np.concatenate([p[0] for p in parts_2k]) if parts_2k else np.zeros((0, 2), np.int64)
    counts = np.concatenate([p[1] for p in parts_2k]) if parts_2k else np.zeros(0, np.int64)
    base = int(tuples.max()) + 1 if tuples.size else 1
    keys, inv = np.unique(tuples[:, 0] * base + tuples[:, 1], return_inverse=True)
    total = np.bincount(inv.ravel(), weights=counts, minlength=keys.size)
    return DKDistribution("joint_degree", np.stack([keys // base, keys % base], axis=1),
                          np.rint(total).astype(np.int64), time.perf_counter() - t0)

