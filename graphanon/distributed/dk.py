"""Exact 1K / 2K / 3K extraction from a partitioned Parquet edge list on a Dask cluster.

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

3K continues from the edges with both end degrees (bucketed by ``hi``):

7. **2-paths per centre**: every edge sends each end the degree of the other end
   (re-partitioned by that end); a bucket groups the records by centre and counts, from the
   histogram of the centre's neighbour degrees, ``n_a n_b`` paths ``a - c - b`` for end
   degrees ``a < b`` and ``C(n_a, 2)`` for ``a == b`` (no wedge is enumerated);
8. **triangles by degree ordering**: each edge is oriented from the lower to the higher
   ``(degree, id)``, so every node has at most ``sqrt(2m)`` out-neighbours and every triangle
   ``u < v < w`` is found exactly once, at the edge ``u -> v``, as a common out-neighbour
   ``w`` of ``u`` and ``v``. Out-lists are bucketed by source; each bucket requests the
   out-lists of its distinct out-neighbours from the buckets that own them (a shuffle of
   adjacency lists), then merges sorted lists per edge (numba). The orientation makes
   ``deg(u) <= deg(v) <= deg(w)``, which is already the sorted key;
9. **driver**: triangle counts summed; open wedges = 2-paths minus the three closed paths of
   each triangle (one per corner), zero rows dropped.

Memory model: one task holds one bucket (about ``1/B`` of the edges for ``B`` buckets when
ids spread evenly; a node's records always stay in one bucket). The largest tasks are (a) a
2-path bucket: twice its edges as (centre, degree) records plus one key per (centre, pair of
distinct neighbour degrees); (b) a triangle bucket: its out-lists plus the out-lists of all
its distinct out-neighbours (at most the whole oriented edge list, ``m`` pairs, for one
bucket; ``min(m, e_j * sqrt(2m))`` for a bucket with ``e_j`` out-edges) and the triangle
keys of one block of ``2^20`` edges. The driver holds samples, splitters and the final
tables (distinct degree tuples), never edges.

The tables equal :func:`graphanon.dk.dk_distribution` of the in-memory graph.
"""

from __future__ import annotations

import functools
import operator
import time
from typing import Any

import numba
import numpy as np

from .. import _numba  # noqa: F401  (numba's per-user cache folder)
from .._validation import check_int
from ..dk._extract_kernels import _paths_by_centre
from ..dk.extract import DK3Distribution, DKDistribution
from ..errors import InputFormatError
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


def _join_lo(edges: dict[str, Any], deg: dict[str, Any], splitters: Any, keep_lo: bool) -> Any:
    d_lo = deg["deg"][np.searchsorted(deg["node"], edges["lo"])]
    cols = {"hi": edges["hi"], "d_lo": d_lo}
    if keep_lo:
        cols["lo"] = edges["lo"]
    return _split(cols, "hi", splitters)


def _joint_counts(deg: dict[str, Any], *pieces: dict[str, Any]) -> tuple[Any, Any]:
    hi = np.concatenate([p["hi"] for p in pieces])
    d_lo = np.concatenate([p["d_lo"] for p in pieces])
    d_hi = deg["deg"][np.searchsorted(deg["node"], hi)]
    a, b = np.minimum(d_lo, d_hi), np.maximum(d_lo, d_hi)
    base = int(b.max()) + 1 if b.size else 1
    keys, counts = np.unique(a * base + b, return_counts=True)
    return np.stack([keys // base, keys % base], axis=1), counts.astype(np.int64)


# ------------------------------------------------------------------------------------ 3K
def _max_degree(deg: dict[str, Any]) -> int:
    return int(deg["deg"].max()) if deg["deg"].size else 0


def _edge_degrees(deg: dict[str, Any], *pieces: dict[str, Any]) -> dict[str, Any]:
    """Edges of one ``hi`` bucket with both end degrees."""
    hi = np.concatenate([p["hi"] for p in pieces])
    return {"lo": np.concatenate([p["lo"] for p in pieces]), "hi": hi,
            "d_lo": np.concatenate([p["d_lo"] for p in pieces]),
            "d_hi": deg["deg"][np.searchsorted(deg["node"], hi)]}


def _centre_records(e: dict[str, Any], splitters: Any) -> Any:
    """Every edge gives each end (a wedge centre) the degree of the other end."""
    return _split({"c": np.concatenate([e["lo"], e["hi"]]),
                   "nd": np.concatenate([e["d_hi"], e["d_lo"]])}, "c", splitters)


def _oriented(e: dict[str, Any], splitters: Any) -> Any:
    """Each edge oriented from the lower to the higher (degree, id); ``lo < hi`` by id, so
    ``lo -> hi`` exactly when ``deg(lo) <= deg(hi)``. Keyed by the source."""
    fwd = e["d_lo"] <= e["d_hi"]
    return _split({"src": np.where(fwd, e["lo"], e["hi"]), "dst": np.where(fwd, e["hi"], e["lo"]),
                   "ds": np.where(fwd, e["d_lo"], e["d_hi"]),
                   "dd": np.where(fwd, e["d_hi"], e["d_lo"])}, "src", splitters)


def _sum_keys(keys: Any, weights: Any) -> tuple[Any, Any]:
    uniq, inv = np.unique(keys, return_inverse=True)
    total = np.bincount(inv.ravel(), weights=weights, minlength=uniq.size)
    return uniq.astype(np.int64), np.rint(total).astype(np.int64)


def _wedge_paths(*pieces: dict[str, Any], base: int) -> tuple[Any, Any]:
    """All 2-paths (open and closed) by key ``(a*base + c)*base + b``, centres of one bucket.

    The records of a centre are its neighbours' degrees; their histogram gives ``n_a n_b``
    paths for end degrees ``a < b`` and ``C(n_a, 2)`` for ``a == b`` (the in-memory kernel
    :func:`graphanon.dk._extract_kernels._paths_by_centre`, run on a CSR whose neighbour slots are
    stand-in nodes carrying the neighbour degrees)."""
    c = np.concatenate([p["c"] for p in pieces])
    nd = np.concatenate([p["nd"] for p in pieces]).astype(np.int64)
    if c.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    order = np.argsort(c, kind="stable")
    c, nd = c[order], nd[order]
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    indptr = np.r_[starts, c.size].astype(np.int64)
    n_c = starts.size
    deg = np.concatenate([np.diff(indptr), nd])  # a centre's degree = its number of records
    keys, vals = _paths_by_centre(indptr, np.arange(n_c, n_c + c.size, dtype=np.int64), deg,
                                  base)
    return _sum_keys(keys, vals)


def _out_lists(*pieces: dict[str, Any]) -> dict[str, Any]:
    """The out-neighbour lists of one bucket's nodes, sorted by (source, target)."""
    cols = {k: np.concatenate([p[k] for p in pieces]) for k in ("src", "dst", "ds", "dd")}
    order = np.lexsort([cols["dst"], cols["src"]])
    return {k: v[order] for k, v in cols.items()}


def _requests(out: dict[str, Any], splitters: Any) -> Any:
    """The distinct out-neighbours of a bucket, sent to the buckets that own their lists."""
    return _split({"id": np.unique(out["dst"])}, "id", splitters)


def _answer(out: dict[str, Any], *requests: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """The out-lists of the requested nodes, one answer per requesting bucket."""
    res = []
    for r in requests:
        m = np.isin(out["src"], r["id"])
        res.append({"src": out["src"][m], "dst": out["dst"][m]})
    return tuple(res)


@numba.njit(cache=True)
def _triangle_keys(src: Any, dst: Any, ds: Any, dd: Any, optr: Any, rptr: Any, rdst: Any,
                   start: int, stop: int, base: int, out: Any) -> int:  # pragma: no cover
    """Triangles closed by the oriented edges ``start..stop``: for ``u -> v``, the common
    out-neighbours ``w`` of ``u`` (own lists) and ``v`` (received lists), merged by code.
    Writes the keys ``(d_u*base + d_v)*base + d_w`` into ``out`` when it is large enough
    (the orientation makes ``d_u <= d_v <= d_w``) and returns the count."""
    t = 0
    fill = out.size > 0
    for p in range(start, stop):
        u, v = src[p], dst[p]
        a, ea = optr[u], optr[u + 1]
        b, eb = rptr[v], rptr[v + 1]
        while a < ea and b < eb:
            x, y = dst[a], rdst[b]
            if x < y:
                a += 1
            elif y < x:
                b += 1
            else:
                if fill:
                    out[t] = (ds[p] * base + dd[p]) * base + dd[a]
                t += 1
                a += 1
                b += 1
    return t


_BLOCK = 1 << 20


def _triangle_counts(out: dict[str, Any], *answers: dict[str, Any], base: int
                     ) -> tuple[Any, Any]:
    """Triangles whose lowest-ranked node is in this bucket, by sorted degree triple key."""
    r_src = np.concatenate([a["src"] for a in answers]) if answers else out["src"][:0]
    r_dst = np.concatenate([a["dst"] for a in answers]) if answers else out["dst"][:0]
    if out["src"].size == 0 or r_src.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    ids, inv = np.unique(np.concatenate([out["src"], out["dst"], r_src, r_dst]),
                         return_inverse=True)
    inv = inv.ravel().astype(np.int64)
    m, r = out["src"].size, r_src.size
    src, dst = inv[:m], inv[m:2 * m]
    rs, rd = inv[2 * m:2 * m + r], inv[2 * m + r:]
    order = np.lexsort([rd, rs])
    rs, rd = rs[order], rd[order]
    n = ids.size
    optr = np.r_[0, np.cumsum(np.bincount(src, minlength=n))].astype(np.int64)
    rptr = np.r_[0, np.cumsum(np.bincount(rs, minlength=n))].astype(np.int64)
    ds = out["ds"].astype(np.int64)
    dd = out["dd"].astype(np.int64)
    keys, counts = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    empty = np.zeros(0, np.int64)
    for lo in range(0, m, _BLOCK):
        hi = min(m, lo + _BLOCK)
        k = _triangle_keys(src, dst, ds, dd, optr, rptr, rd, lo, hi, base, empty)
        if k == 0:
            continue
        buf = np.empty(k, np.int64)
        _triangle_keys(src, dst, ds, dd, optr, rptr, rd, lo, hi, base, buf)
        u, c = np.unique(buf, return_counts=True)
        keys.append(u)
        counts.append(c.astype(np.int64))
    return _sum_keys(np.concatenate(keys), np.concatenate(counts))


def _triples(keys: Any, base: int) -> Any:
    return np.stack([keys // (base * base), (keys // base) % base, keys % base], axis=1)


def _three_k(wedge_parts: list[Any], tri_parts: list[Any], base: int, t0: float
             ) -> DK3Distribution:
    """Driver merge: triangles summed; open wedges = all 2-paths minus, for every triangle
    with sorted degrees ``(x, y, z)``, its closed paths ``(y, x, z)``, ``(x, y, z)`` and
    ``(x, z, y)`` (one per corner, ends ordered), as in
    :func:`graphanon.dk.extract.three_k_distribution`."""
    def cat(parts: list[Any], i: int) -> Any:
        return np.concatenate([np.zeros(0, np.int64)] + [p[i] for p in parts])

    tk, tc = _sum_keys(cat(tri_parts, 0), cat(tri_parts, 1))
    x, y, z = _triples(tk, base).T
    closed = [(y * base + x) * base + z, (x * base + y) * base + z, (x * base + z) * base + y]
    wk, wc = _sum_keys(np.concatenate([cat(wedge_parts, 0), *closed]),
                       np.concatenate([cat(wedge_parts, 1), -tc, -tc, -tc]))
    keep = wc != 0
    seconds = time.perf_counter() - t0
    return DK3Distribution(DKDistribution("wedge", _triples(wk[keep], base), wc[keep], seconds),
                           DKDistribution("triangle", _triples(tk, base), tc, seconds), seconds)


def _splitters(samples: list[Any], n_buckets: int) -> Any:
    keys = np.unique(np.concatenate(samples)) if samples else np.zeros(0, np.int64)
    if n_buckets <= 1 or keys.size == 0:
        return keys[:0]
    return np.unique(keys[(np.arange(1, n_buckets) * keys.size) // n_buckets])


def dk_distributed(input_path: str, d: int, *, client: Any,
                   n_partitions: int | None = None) -> DKDistribution | DK3Distribution:
    """The exact 1K or 2K distribution of a partitioned Parquet edge list.

    Parameters
    ----------
    input_path
        A folder of Parquet part files (or one Parquet file) with columns ``source`` and
        ``target`` (integers or strings; a null ``target`` is an isolated node), read as an
        undirected simple graph (self-loops and duplicates dropped), as
        :func:`graphanon.io.read_graph` reads a Parquet file.
    d
        1, 2 or 3 (3K: open wedges and triangles; see the module notes for the memory
        model).
    client
        A ``distributed.Client``.
    n_partitions
        Buckets of the shuffles (default: the larger of the number of parts and 4 per worker).

    Returns
    -------
    DKDistribution or DK3Distribution
        Equal to ``dk_distribution(read_graph(...), d)``.
    """
    d = check_int(d, "d", _OWNER, low=1, high=3)
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
    keep_lo = d == 3
    joined = [client.submit(_join_lo, e, g, splitters, keep_lo)
              for e, g in zip(edges, degs, strict=True)]
    if d == 3:
        base = max(client.gather(client.map(_max_degree, degs)), default=0) + 1
        full = shuffle(joined, _edge_degrees, degs)
        wedges = shuffle(client.map(_centre_records, full, splitters=splitters),
                         functools.partial(_wedge_paths, base=base))
        outs = shuffle(client.map(_oriented, full, splitters=splitters), _out_lists)
        answers = shuffle(client.map(_requests, outs, splitters=splitters), _answer, outs)
        tris = shuffle(answers, functools.partial(_triangle_counts, base=base), outs)
        return _three_k(client.gather(wedges), client.gather(tris), base, t0)
    parts_2k = client.gather(shuffle(joined, _joint_counts, degs))
    tuples = np.concatenate([p[0] for p in parts_2k]) if parts_2k else np.zeros((0, 2), np.int64)
    counts = np.concatenate([p[1] for p in parts_2k]) if parts_2k else np.zeros(0, np.int64)
    base = int(tuples.max()) + 1 if tuples.size else 1
    keys, inv = np.unique(tuples[:, 0] * base + tuples[:, 1], return_inverse=True)
    total = np.bincount(inv.ravel(), weights=counts, minlength=keys.size)
    return DKDistribution("joint_degree", np.stack([keys // base, keys % base], axis=1),
                          np.rint(total).astype(np.int64), time.perf_counter() - t0)
