"""Integer-code helpers: align id arrays once, group equal CSR rows — no object compares.

The algorithms of this package work on index arrays only. External ids (``int64`` or
``object`` arrays of ``str`` in the canonical encoding of :mod:`graphanon._ids`) are touched
exactly once, when two graphs are matched by id: :func:`index_in` maps one id array onto
another with a hash join (pyarrow ``index_in``) or an integer sort, never with numpy's
pairwise ``isin`` / ``searchsorted`` / ``unique`` on ``object`` arrays (Python comparisons;
``np.isin`` on ``object`` arrays is quadratic).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .._arrow import index_values
from ..graph._csr import _sorted_unique

__all__ = ["group_rows", "index_in", "unique_sorted"]

_MIX = np.uint64(0x9E3779B97F4A7C15)


def unique_sorted(keys: Any) -> npt.NDArray[np.int64]:
    """Sorted distinct values of an integer array by sort + mask (one implementation with
    the graph builders': :func:`graphanon.graph._csr._sorted_unique`)."""
    return _sorted_unique(keys)


def index_in(query: Any, ref: Any) -> npt.NDArray[np.int64]:
    """Position of every id of ``query`` in the (duplicate-free) id array ``ref``; ``-1``
    where absent.

    Ids follow the canonical encoding (:mod:`graphanon._ids`): an ``int64`` id and its
    decimal text are the same id. Cost: ``O(|query| + |ref|)`` for text ids (a pyarrow hash
    join), ``O((|query| + |ref|) log |ref|)`` integer work for ``int64`` ids, and ``O(n)``
    when ``query`` is ``ref`` or equal to it.
    """
    q = np.asarray(query)
    r = np.asarray(ref)
    if q is r:
        return np.arange(q.size, dtype=np.int64)
    if q.dtype != object and r.dtype != object:
        qi = q.astype(np.int64, copy=False)
        ri = r.astype(np.int64, copy=False)
        if qi.size == ri.size and np.array_equal(qi, ri):
            return np.arange(qi.size, dtype=np.int64)
        order = np.argsort(ri, kind="stable")
        sorted_r = ri[order]
        pos = np.searchsorted(sorted_r, qi)
        pos_c = np.minimum(pos, max(sorted_r.size - 1, 0))
        found = (pos < sorted_r.size) & (sorted_r[pos_c] == qi) if sorted_r.size else \
            np.zeros(qi.size, dtype=bool)
        return np.where(found, order[pos_c], -1).astype(np.int64)
    if q.dtype == object and r.dtype == object and q.size == r.size and np.array_equal(q, r):
        return np.arange(q.size, dtype=np.int64)  # one linear pass, the common case
    import pyarrow.compute as pc

    if q.size == 0:
        return np.zeros(0, dtype=np.int64)
    from .._ids import _arrow_text

    got = pc.index_in(_arrow_text(q), value_set=_arrow_text(r))
    return index_values(got)


def group_rows(indptr: Any, indices: Any) -> tuple[npt.NDArray[np.int64], int]:
    """Label equal rows of a CSR matrix (sorted, duplicate-free rows) with the same id.

    Returns ``(labels, n_groups)`` with groups numbered in order of their first row. Exact:
    rows are bucketed by a 64-bit hash of their content and the buckets are confirmed by
    comparing the rows element by element (vectorized); only if two different rows collide
    (probability about ``n² / 2⁶⁴``) does it fall back to a dictionary of row bytes.
    """
    ptr = np.asarray(indptr, dtype=np.int64)
    idx = np.asarray(indices, dtype=np.int64)
    n = ptr.size - 1
    if n <= 0:
        return np.zeros(0, dtype=np.int64), 0
    deg = np.diff(ptr)
    n_cols = int(idx.max()) + 1 if idx.size else 1
    salt = np.random.default_rng(0x5EED_C0DE).integers(
        0, np.iinfo(np.int64).max, size=n_cols, dtype=np.int64).astype(np.uint64)
    h = np.zeros(n, dtype=np.uint64)
    nonempty = deg > 0
    if idx.size:
        h[nonempty] = np.add.reduceat(salt[idx], ptr[:-1][nonempty])
    h ^= deg.astype(np.uint64) * _MIX
    order = np.lexsort((np.arange(n), deg, h))
    hs, ds = h[order], deg[order]
    same = (hs[1:] == hs[:-1]) & (ds[1:] == ds[:-1])
    # confirm every adjacent pair that claims equality, element by element
    a, b = order[:-1][same], order[1:][same]
    d = deg[a]
    tot = int(d.sum())
    if tot:
        pair = np.repeat(np.arange(a.size, dtype=np.int64), d)
        off = np.arange(tot, dtype=np.int64) - np.repeat(np.cumsum(d) - d, d)
        if np.any(idx[ptr[a][pair] + off] != idx[ptr[b][pair] + off]):
            return _group_rows_dict(ptr, idx)
    start = np.concatenate([[True], ~same])
    grp_sorted = np.cumsum(start) - 1
    grp = np.empty(n, dtype=np.int64)
    grp[order] = grp_sorted
    # renumber groups by their first row (rows of a group are sorted by index)
    n_groups = int(grp_sorted[-1]) + 1
    first = order[start]
    rank = np.empty(n_groups, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(n_groups, dtype=np.int64)
    return rank[grp], n_groups


def _group_rows_dict(ptr: npt.NDArray[np.int64], idx: npt.NDArray[np.int64]
                     ) -> tuple[npt.NDArray[np.int64], int]:
    """Exact fallback of :func:`group_rows` (a hash collision between different rows)."""
    n = ptr.size - 1
    seen: dict[bytes, int] = {}
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = seen.setdefault(idx[ptr[i]:ptr[i + 1]].tobytes(), len(seen))
    return out, len(seen)
