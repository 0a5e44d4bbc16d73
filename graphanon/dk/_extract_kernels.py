"""numba passes of the exact dK-series extraction (:mod:`graphanon.dk.extract`), loaded on
first use."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from .. import _numba  # noqa: F401  (numba's per-user cache folder)


@numba.njit(cache=True)
def _packed(i: int, j: int, n_ranks: int) -> int:  # pragma: no cover - numba
    """Index of cell ``(i, j)``, ``i <= j``, in a packed upper triangle of side ``n_ranks``."""
    return i * n_ranks - i * (i - 1) // 2 + (j - i)



@numba.njit(cache=True)
def _jdd_block(indptr: Any, indices: Any, rank: Any, start: int, stop: int, n_ranks: int,
               mat: Any) -> None:  # pragma: no cover - numba
    """Count the edges ``u < v`` of the rows ``start..stop`` in the packed upper triangle
    ``mat`` over the degree ranks ``(min, max)``."""
    for u in range(start, stop):
        ru = rank[u]
        for p in range(indptr[u], indptr[u + 1]):
            v = indices[p]
            if v > u:
                rv = rank[v]
                lo, hi = (ru, rv) if ru <= rv else (rv, ru)
                mat[_packed(lo, hi, n_ranks)] += 1



@numba.njit(cache=True)
def _flush(cls: int, centre_first: bool, n_ranks: int, mat: Any, touched: Any, n_touched: int,
           keys: Any, counts: Any, t: int) -> Any:  # pragma: no cover - numba
    """Move the ``n_touched`` non-zero cells of ``mat`` (one class) to ``keys``/``counts``
    (grown when needed) and zero them. A cell ``(i, j)`` of class ``cls`` becomes the key
    ``(cls·D + i)·D + j`` (``centre_first``, triangles) or ``(i·D + cls)·D + j`` (wedges)."""
    if t + n_touched > keys.size:
        cap = max(t + n_touched, 2 * keys.size)
        grown_k = np.empty(cap, dtype=np.int64)
        grown_c = np.empty(cap, dtype=np.int64)
        grown_k[:t] = keys[:t]
        grown_c[:t] = counts[:t]
        keys, counts = grown_k, grown_c
    for q in range(n_touched):
        cell = touched[q]
        i = cell // n_ranks
        j = cell - i * n_ranks
        idx = _packed(i, j, n_ranks)
        if centre_first:
            keys[t] = (cls * n_ranks + i) * n_ranks + j
        else:
            keys[t] = (i * n_ranks + cls) * n_ranks + j
        counts[t] = mat[idx]
        mat[idx] = 0
        t += 1
    return keys, counts, t



@numba.njit(cache=True)
def _path_block(indptr: Any, indices: Any, order: Any, nrank: Any, start: int, stop: int,
                n_ranks: int, mat: Any, touched: Any, state: Any, cnt: Any,
                seen: Any) -> Any:  # pragma: no cover - numba
    """2-paths ``a - c - b`` of the centres ``order[start:stop]`` (sorted by degree), summed
    per centre-degree class in the packed matrix ``mat`` over end-degree ranks ``a <= b``.

    A centre contributes ``n_a n_b`` paths (``C(n_a, 2)`` for ``a == b``) from the histogram
    of its neighbours' degree ranks; a class is flushed to the returned ``(keys, counts)``
    when its last centre is done. ``state[0]`` carries the number of touched cells of the
    class in progress from one block to the next."""
    n = order.size
    keys = np.empty(1024, dtype=np.int64)
    counts = np.empty(1024, dtype=np.int64)
    t = 0
    nt = state[0]
    for p in range(start, stop):
        c = order[p]
        rc = nrank[c]
        k = 0
        for q in range(indptr[c], indptr[c + 1]):
            r = nrank[indices[q]]
            if cnt[r] == 0:
                seen[k] = r
                k += 1
            cnt[r] += 1
        ranks = seen[:k]
        ranks = ranks[np.argsort(ranks, kind="mergesort")]  # numba's sort is quadratic
        # on nearly sorted input
        for x in range(k):
            a = ranks[x]
            na = cnt[a]
            base = a * n_ranks - a * (a - 1) // 2 - a
            for y in range(x, k):
                b = ranks[y]
                w = na * (na - 1) // 2 if x == y else na * cnt[b]
                if w == 0:
                    continue
                idx = base + b
                if mat[idx] == 0:
                    touched[nt] = a * n_ranks + b
                    nt += 1
                mat[idx] += w
        for x in range(k):
            cnt[ranks[x]] = 0
        if p + 1 == n or nrank[order[p + 1]] != rc:
            keys, counts, t = _flush(rc, False, n_ranks, mat, touched, nt, keys, counts, t)
            nt = 0
    state[0] = nt
    return keys[:t].copy(), counts[:t].copy()  # exact size: the buffer grew by doubling



@numba.njit(cache=True)
def _orient(indptr: Any, indices: Any, pos: Any, out_idx: Any) -> Any:  # pragma: no cover
    """Out-lists in position space: ``p -> q`` for every edge with ``pos`` ``p < q`` (the
    (degree, id) order). Fills ``out_idx`` (``m`` slots) and returns the row offsets."""
    n = pos.size
    optr = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        pv = pos[v]
        for q in range(indptr[v], indptr[v + 1]):
            if pos[indices[q]] > pv:
                optr[pv + 1] += 1
    for p in range(n):
        optr[p + 1] += optr[p]
    fill = optr[:n].copy()
    for v in range(n):
        pv = pos[v]
        for q in range(indptr[v], indptr[v + 1]):
            w = pos[indices[q]]
            if w > pv:
                out_idx[fill[pv]] = w
                fill[pv] += 1
    return optr



@numba.njit(cache=True)
def _triangle_work(optr: Any, out_idx: Any) -> Any:  # pragma: no cover - numba
    """Adjacency reads of the triangle pass at each position: ``Σ_{v in out(p)} |out(v)|``."""
    n = optr.size - 1
    work = np.empty(n, dtype=np.int64)
    for p in range(n):
        s = optr[p + 1] - optr[p]
        for q in range(optr[p], optr[p + 1]):
            v = out_idx[q]
            s += optr[v + 1] - optr[v]
        work[p] = s
    return work



@numba.njit(cache=True)
def _triangle_block(optr: Any, out_idx: Any, prank: Any, start: int, stop: int, n_ranks: int,
                    mat: Any, touched: Any, state: Any, mark: Any) -> Any:  # pragma: no cover
    """Triangles ``p < v < w`` (positions in the (degree, id) order, so their degree ranks are
    sorted) whose lowest node ``p`` is in ``start..stop``: ``w`` is a common out-neighbour of
    ``p`` and ``v``, found through ``mark``. Summed per class of ``p`` over ``(rank v, rank w)``
    and flushed like :func:`_path_block`. Out-degrees are at most ``sqrt(2m)``."""
    n = prank.size
    keys = np.empty(1024, dtype=np.int64)
    counts = np.empty(1024, dtype=np.int64)
    t = 0
    nt = state[0]
    for p in range(start, stop):
        rp = prank[p]
        stamp = p + 1
        for q in range(optr[p], optr[p + 1]):
            mark[out_idx[q]] = stamp
        for q in range(optr[p], optr[p + 1]):
            v = out_idx[q]
            rv = prank[v]
            base = rv * n_ranks - rv * (rv - 1) // 2 - rv
            for s in range(optr[v], optr[v + 1]):
                w = out_idx[s]
                if mark[w] == stamp:
                    rw = prank[w]
                    idx = base + rw
                    if mat[idx] == 0:
                        touched[nt] = rv * n_ranks + rw
                        nt += 1
                    mat[idx] += 1
        if p + 1 == n or prank[p + 1] != rp:
            keys, counts, t = _flush(rp, True, n_ranks, mat, touched, nt, keys, counts, t)
            nt = 0
    state[0] = nt
    return keys[:t].copy(), counts[:t].copy()



@numba.njit(cache=True)
def _permute_in_place(keys: Any, counts: Any, order: Any) -> None:  # pragma: no cover
    """``keys[:] = keys[order]`` and ``counts[:] = counts[order]`` without copies: cycles of
    the permutation are followed; ``order`` is consumed (visited entries are negated)."""
    n = order.size
    for i in range(n):
        if order[i] < 0:
            continue
        k0, c0 = keys[i], counts[i]
        j = i
        while True:
            src = order[j]
            order[j] = -1 - src
            if src == i:
                keys[j], counts[j] = k0, c0
                break
            keys[j], counts[j] = keys[src], counts[src]
            j = src



@numba.njit(cache=True)
def _drop_zero_counts(keys: Any, counts: Any) -> int:  # pragma: no cover - numba
    """Move the rows with a non-zero count to the front (order kept); return their number."""
    k = 0
    for i in range(keys.size):
        if counts[i] != 0:
            keys[k] = keys[i]
            counts[k] = counts[i]
            k += 1
    return k



@numba.njit(cache=True)
def _key_degrees(keys: Any, vals: Any, n_ranks: int) -> Any:  # pragma: no cover - numba
    """The ``(rows, 3)`` degree triples of the rank keys ``(a·D + c)·D + b`` (no temporaries
    the size of the table)."""
    out = np.empty((keys.size, 3), dtype=np.int64)
    for i in range(keys.size):
        k = keys[i]
        out[i, 0] = vals[k // (n_ranks * n_ranks)]
        out[i, 1] = vals[(k // n_ranks) % n_ranks]
        out[i, 2] = vals[k % n_ranks]
    return out



@numba.njit(cache=True, inline="always")
def _sorted(a: Any) -> Any:  # pragma: no cover
    """``a`` sorted by merge sort: numba's ``np.sort`` (quicksort) is quadratic on nearly sorted
    input, as a hub's neighbour degrees can be (ids in degree order, one out of place)."""
    return a[np.argsort(a, kind="mergesort")]



@numba.njit(cache=True)
def _paths_by_centre(indptr: Any, indices: Any, deg: Any, base: int) -> Any:  # pragma: no cover
    """Keys ``(a*base + c)*base + b`` (a <= b end degrees, c centre degree) and path counts.

    Used by :mod:`graphanon.distributed.dk` for the centres of one bucket (the in-memory 3K
    streams through :func:`_path_block` instead).

    Per centre: the histogram of its neighbours' degrees, then ``n_a n_b`` paths for a < b and
    ``n_a (n_a - 1) / 2`` for a == b. Emits one entry per (centre, end-degree pair).
    """
    n = indptr.size - 1
    size = 0
    nd = np.zeros(n, dtype=np.int64)
    for c in range(n):
        prev = -1
        k = 0
        nb = _sorted(deg[indices[indptr[c]:indptr[c + 1]]])
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
        nb = _sorted(deg[indices[indptr[c]:indptr[c + 1]]])
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
