"""numba kernels of the CSR construction in :mod:`graphanon.graph`: counting, not a global sort.

A CSR with sorted rows is built from ``(row, col)`` pairs in linear passes
(:func:`sorted_csr`):

1. count the entries of each row (``int32`` counts below ``2**31`` entries: half the cache);
   prefix sums give the offsets, and the rows are cut into blocks of about :data:`BLOCK`
   entries (a row longer than that is a block of its own);
2. scatter every pair into its row's block, in input order (a few hundred write streams, not
   one random write per pair: the pass runs at memory speed);
3. in each block, whose entries now fit in cache: sort them by column (least-significant-digit
   radix, digits of at most :data:`DIGIT_BITS` bits), move them to their rows (stably, so
   every row comes out sorted) and drop each row's repeats. A block of one long row is sorted
   in place (radix, or insertion for a short one);
4. the rows written one after the other: each part of step 3 moves its rows up as it goes (a
   row is never written past where it was); when there were repeats, each part's rows are
   then moved after those of the parts before it, in place and in order, and the array is
   shortened (no second array: its fresh pages would cost more than the move).

For an undirected graph both directions of each pair are scattered in step 2 (the matrix is
symmetric; step 1 counts degrees); self-loops are skipped.

Steps 1–4 run on several threads (:mod:`graphanon._parallel`): the pairs (steps 1–2) or the
blocks (steps 3–4) are cut into contiguous parts; in step 2 each part counted its own entries per
row and part ``t`` writes each block's entries after those of parts ``0..t-1``. The output is
therefore exactly that of one pass in order, whatever the number of threads.

On the 10M-line benchmark file (19.9M entries scattered, 16.4M kept; 2 threads) step 1 takes
about 0.02 s, step 2 0.11 s, step 3 0.10 s and step 4 a few milliseconds.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from . import _numba  # noqa: F401  (numba's per-user cache folder)
from ._parallel import run_parts, threads

#: Below this many entries a pass runs as one part (threads cost more than they save).
PARALLEL_MIN = 1 << 20


@numba.njit(cache=True, nogil=True)
def _count_pairs(u: Any, v: Any, lo: int, hi: int, cnt: Any,
                 symmetric: bool) -> Any:  # pragma: no cover
    """``(cnt, loops)`` of the pairs ``lo..hi``: the entries of each column added to ``cnt``
    (zeros) (both directions of each non-loop pair when ``symmetric``; then ``loops`` counts
    ``u == v``)."""
    loops = 0
    if symmetric:
        for i in range(lo, hi):
            a = u[i]
            b = v[i]
            if a == b:
                loops += 1
            else:
                cnt[a] += 1
                cnt[b] += 1
    else:
        for i in range(lo, hi):
            cnt[v[i]] += 1
    return cnt, loops


@numba.njit(cache=True, nogil=True)
def _scatter_blocks(u: Any, v: Any, lo: int, hi: int, block_of: Any, cur: Any, rows: Any,
                    cols: Any, symmetric: bool) -> None:  # pragma: no cover
    """The pairs ``lo..hi`` into the blocks of their rows, in order: entry ``(v[i], u[i])``
    (and ``(u[i], v[i])`` when ``symmetric``; loops skipped) at the cursor of block
    ``block_of[row]``, its row into ``rows`` and its column into ``cols``."""
    if symmetric:
        for i in range(lo, hi):
            a = u[i]
            b = v[i]
            if a != b:
                k = block_of[a]
                q = cur[k]
                rows[q] = a
                cols[q] = b
                cur[k] = q + 1
                k = block_of[b]
                q = cur[k]
                rows[q] = b
                cols[q] = a
                cur[k] = q + 1
    else:
        for i in range(lo, hi):
            r = v[i]
            k = block_of[r]
            q = cur[k]
            rows[q] = r
            cols[q] = u[i]
            cur[k] = q + 1


_INSERTION_MAX = 32  # rows up to this long are sorted by insertion, longer ones by radix


@numba.njit(cache=True, nogil=True, inline="always")
def _radix_sort(a: Any, s: int, e: int, tmp: Any, bits: int) -> None:  # pragma: no cover
    """Sort ``a[s:e]`` (values in ``[0, 2**bits)``) by least-significant-digit radix, digits
    of at most 11 bits (buckets that stay in cache) and about ``log2(e - s)`` bits (a short
    row does not pay for many empty buckets), ``tmp`` as the other buffer."""
    lg = 1
    while (1 << lg) < e - s:
        lg += 1
    most = min(11, max(lg, 4))
    passes = max((bits + most - 1) // most, 1)
    width = (bits + passes - 1) // passes
    mask = (1 << width) - 1
    cnt = np.empty((1 << width) + 1, dtype=np.int64)
    src = a[s:e]
    dst = tmp[:e - s]
    shift = 0
    for _ in range(passes):
        cnt[:] = 0
        for i in range(src.size):
            cnt[((src[i] >> shift) & mask) + 1] += 1
        for b in range(mask + 1):
            cnt[b + 1] += cnt[b]
        for i in range(src.size):
            d = (src[i] >> shift) & mask
            dst[cnt[d]] = src[i]
            cnt[d] += 1
        src, dst = dst, src
        shift += width
    if passes % 2 == 1:
        a[s:e] = src


@numba.njit(cache=True, nogil=True)
def _sort_rows(ptr: Any, idx: Any, r0: int, r1: int, bits: int,
               kept: Any) -> None:  # pragma: no cover
    """Sort the rows ``r0..r1`` of ``(ptr, idx)`` in place and drop repeats inside each
    (its distinct entries first); ``kept[r]``: how many distinct entries row ``r`` holds."""
    longest = 0
    for r in range(r0, r1):
        longest = max(longest, ptr[r + 1] - ptr[r])
    tmp = np.empty(longest, dtype=idx.dtype)
    for r in range(r0, r1):
        s = ptr[r]
        e = ptr[r + 1]
        if e - s <= _INSERTION_MAX:
            for i in range(s + 1, e):
                x = idx[i]
                j = i - 1
                while j >= s and idx[j] > x:
                    idx[j + 1] = idx[j]
                    j -= 1
                idx[j + 1] = x
        else:
            _radix_sort(idx, s, e, tmp, bits)
        w = s
        for k in range(s, e):
            if k == s or idx[k] != idx[w - 1]:
                idx[w] = idx[k]
                w += 1
        kept[r] = w - s


@numba.njit(cache=True, nogil=True)
def _finish_blocks(ptr: Any, starts: Any, k0: int, k1: int, rows: Any, cols: Any, bits: int,
                   digit: int, kept: Any) -> Any:  # pragma: no cover
    """Blocks ``k0..k1`` (rows ``starts[k]..starts[k + 1]``, whose entries ``rows``/``cols``
    fill ``ptr[starts[k]]..ptr[starts[k + 1]]`` in input order): each row's entries sorted,
    its repeats dropped (``kept[r]``: how many distinct it holds), and the rows written one
    after the other into ``cols`` from the first block's start; returns where they end."""
    big = 0
    for k in range(k0, k1):
        if starts[k + 1] - starts[k] > 1:
            big = max(big, ptr[starts[k + 1]] - ptr[starts[k]])
    ra = np.empty(big, dtype=rows.dtype)
    ca = np.empty(big, dtype=cols.dtype)
    rb = np.empty(big, dtype=rows.dtype)
    cb = np.empty(big, dtype=cols.dtype)
    passes = max((bits + digit - 1) // digit, 1)
    width = (bits + passes - 1) // passes
    mask = (1 << width) - 1
    cnt = np.empty((1 << width) + 1, dtype=np.int64)
    w = ptr[starts[k0]]  # where the next row goes (never after where it is)
    for k in range(k0, k1):
        r0 = starts[k]
        r1 = starts[k + 1]
        if r1 - r0 == 1:  # one row: sort it in place, then move it
            _sort_rows(ptr, cols, r0, r1, bits, kept)
            s = ptr[r0]
            if w < s:
                for q in range(kept[r0]):
                    cols[w + q] = cols[s + q]
            w += kept[r0]
            continue
        s = ptr[r0]
        e = ptr[r1]
        size = e - s
        # by column, stably (least significant digit first), between two buffers
        src_r = rows[s:e]
        src_c = cols[s:e]
        shift = 0
        for ps in range(passes):
            dst_r = ra[:size] if ps % 2 == 0 else rb[:size]
            dst_c = ca[:size] if ps % 2 == 0 else cb[:size]
            cnt[:] = 0
            for i in range(size):
                cnt[((src_c[i] >> shift) & mask) + 1] += 1
            for b in range(mask + 1):
                cnt[b + 1] += cnt[b]
            for i in range(size):
                d = (src_c[i] >> shift) & mask
                q = cnt[d]
                dst_r[q] = src_r[i]
                dst_c[q] = src_c[i]
                cnt[d] = q + 1
            src_r = dst_r
            src_c = dst_c
            shift += width
        # then to their rows, stably: each row sorted
        cur = ptr[r0:r1].copy()
        for i in range(size):
            r = src_r[i] - r0
            cols[cur[r]] = src_c[i]
            cur[r] += 1
        # each row's repeats dropped, the rows moved after those before
        for r in range(r0, r1):
            a = ptr[r]
            first = w
            for q in range(a, ptr[r + 1]):
                if q == a or cols[q] != cols[w - 1]:
                    cols[w] = cols[q]
                    w += 1
            kept[r] = w - first
    return w


def _parts(total: int) -> int:
    return 1 if total < PARALLEL_MIN else threads()


#: Entries per block of step 3 (its pairs and its two buffers stay in cache).
BLOCK = 1 << 15

#: Bits per radix digit of step 3 (buckets that stay in cache).
DIGIT_BITS = 11


def _blocks(ptr: Any, counts: Any) -> Any:
    """The first row of each block and ``n``: a cut at the row holding every
    :data:`BLOCK`-th entry, and around every row longer than a block."""
    n = ptr.size - 1
    marks = np.searchsorted(ptr, np.arange(0, int(ptr[-1]), BLOCK), side="right") - 1
    long_rows = np.flatnonzero(counts > BLOCK)
    return np.unique(np.concatenate([[0, n], marks, long_rows, long_rows + 1])).astype(np.int64)


def sorted_csr(r: Any, c: Any, n: int, n_cols: int, symmetric: bool,
               dtype: Any) -> tuple[Any, Any, int]:
    """``(ptr, idx, loops)``: the CSR of rows ``0..n-1``, row ``r[i]`` holding ``c[i]``,
    sorted and without repeats (``symmetric``: both directions of each pair, loops skipped and
    counted); ``idx`` of ``dtype``, entries in ``[0, n_cols)``."""
    m = int(r.size)
    k = _parts(m)
    cuts = [m * t // k for t in range(k + 1)]
    wide = np.int64 if 2 * m >= 2**31 else np.int32  # (int32: half the cache for the counts)
    res = run_parts(_count_pairs, [(c, r, cuts[t], cuts[t + 1], np.zeros(n, dtype=wide),
                                    symmetric) for t in range(k)])
    counts = [cnt for cnt, _ in res]
    loops = int(sum(lp for _, lp in res))
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sum(counts[1:], counts[0]), out=ptr[1:])
    total = int(ptr[-1])
    starts = _blocks(ptr, np.diff(ptr))
    nb = starts.size - 1
    block_of = np.repeat(np.arange(nb, dtype=np.int32), np.diff(starts))
    cursors = [ptr[starts[:-1]]]  # where each part writes into each block
    for cnt in counts[:-1]:
        cursors.append(cursors[-1] + np.add.reduceat(cnt, starts[:-1]))
    from .graph._csr import _index_dtype  # (graph imports this module only when it builds)

    rows = np.empty(total, dtype=_index_dtype(max(n - 1, 0)))
    idx = np.empty(total, dtype=dtype)
    run_parts(_scatter_blocks, [(c, r, cuts[t], cuts[t + 1], block_of, cursors[t].copy(),
                                 rows, idx, symmetric) for t in range(k)])
    del block_of, cursors
    kept = np.empty(n, dtype=np.int64)
    bits = max(int(n_cols - 1).bit_length(), 1)
    kb = _parts(total)
    first = ptr[starts]
    parts = [0] + [int(np.searchsorted(first, total * t // kb)) for t in range(1, kb)] + [nb]
    ends = run_parts(_finish_blocks, [(ptr, starts, parts[t], parts[t + 1], rows, idx, bits,
                                       DIGIT_BITS, kept) for t in range(kb)])
    del rows
    if int(kept.sum()) != total:  # repeats: each part's rows moved after those of the parts
        new = np.zeros(n + 1, dtype=np.int64)  # before it (in place, in order: a part never
        np.cumsum(kept, out=new[1:])  # moves past its own start), the array shortened
        for t in range(1, kb):
            src = int(ptr[starts[parts[t]]])
            dst = int(new[starts[parts[t]]])
            idx[dst:dst + int(ends[t]) - src] = idx[src:int(ends[t])]  # (numpy: memmove)
        idx.resize(int(new[-1]), refcheck=False)  # (no view of it is left)
        ptr = new
    return ptr, idx, loops
