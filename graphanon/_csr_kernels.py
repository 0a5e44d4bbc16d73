"""numba kernels of the CSR construction in :mod:`graphanon.graph`: counting, not a global sort.

A CSR with sorted rows is built from ``(row, col)`` pairs in linear passes
(:func:`pairs_to_rows`, then :func:`sorted_rows`):

1. count the entries of each row, prefix sums give the offsets;
2. scatter every pair into its row, in input order;
3. sort each row on its own (insertion for short rows, least-significant-digit radix with
   cache-sized buckets for long ones: no comparison sort of the whole input) and drop its
   repeats;
4. when there were repeats, move the rows together.

For an undirected graph both directions of each pair are scattered in step 2 (the matrix is
symmetric; step 1 counts degrees); self-loops are skipped.

Steps 1–3 run on several threads (:mod:`graphanon._parallel`): the pairs (steps 1–2) or the
rows (step 3) are cut into contiguous parts; in step 2 each part counted its own entries per
row and part ``t`` writes each row's entries after those of parts ``0..t-1``. The output is
therefore exactly that of one pass in order, whatever the number of threads.
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
def _count_pairs(u: Any, v: Any, lo: int, hi: int, n: int,
                 symmetric: bool) -> Any:  # pragma: no cover
    """``(counts, loops)`` of the pairs ``lo..hi``: the entries of each column (both
    directions of each non-loop pair when ``symmetric``; then ``loops`` counts ``u == v``)."""
    cnt = np.zeros(n, dtype=np.int64)
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
def _scatter_pairs(u: Any, v: Any, lo: int, hi: int, cur: Any, out: Any,
                   symmetric: bool) -> None:  # pragma: no cover
    """Column lists of the pairs ``lo..hi``: ``u[i]`` into column ``v[i]`` (and ``v[i]``
    into ``u[i]`` when ``symmetric``; loops skipped) at the cursors ``cur``, in order."""
    if symmetric:
        for i in range(lo, hi):
            a = u[i]
            b = v[i]
            if a != b:
                out[cur[a]] = b
                cur[a] += 1
                out[cur[b]] = a
                cur[b] += 1
    else:
        for i in range(lo, hi):
            c = v[i]
            out[cur[c]] = u[i]
            cur[c] += 1


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
def _compact(ptr: Any, idx: Any, kept: Any) -> Any:  # pragma: no cover
    """Move the first ``kept[r]`` entries of every row together, in place; the new
    offsets."""
    n = ptr.size - 1
    out = np.zeros(n + 1, dtype=np.int64)
    w = 0
    for r in range(n):
        s = ptr[r]
        for k in range(s, s + kept[r]):
            idx[w] = idx[k]
            w += 1
        out[r + 1] = w
    return out


def _parts(total: int) -> int:
    return 1 if total < PARALLEL_MIN else threads()


def _offsets(counts: list[Any]) -> tuple[Any, list[Any]]:
    """``(ptr, cursors)``: the offsets of the summed ``counts`` and, for each part, where
    its entries of each destination begin (after those of the parts before it)."""
    n = counts[0].size
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sum(counts[1:], counts[0]), out=ptr[1:])
    cursors = [ptr[:-1].copy()]
    for c in counts[:-1]:
        cursors.append(cursors[-1] + c)
    return ptr, cursors


def pairs_to_rows(u: Any, v: Any, n: int, symmetric: bool,
                  dtype: Any) -> tuple[Any, Any, int]:
    """``(ptr, lists, loops)``: for each row ``r < n`` the ``v[i]`` with ``u[i] == r`` in
    input order (``symmetric``: both directions of each pair, loops skipped and counted)."""
    m = int(u.size)
    k = _parts(m)
    cuts = [m * t // k for t in range(k + 1)]
    res = run_parts(_count_pairs, [(v, u, cuts[t], cuts[t + 1], n, symmetric)
                                   for t in range(k)])
    ptr, cursors = _offsets([c for c, _ in res])
    lists = np.empty(int(ptr[-1]), dtype=dtype)
    run_parts(_scatter_pairs, [(v, u, cuts[t], cuts[t + 1], cursors[t], lists, symmetric)
                               for t in range(k)])
    return ptr, lists, int(sum(lp for _, lp in res))


def sorted_rows(ptr: Any, idx: Any, n_cols: int) -> tuple[Any, Any]:
    """``(ptr, idx)`` with every row sorted and its repeats dropped (``idx`` sorted in
    place, and trimmed in place when it had repeats); the entries lie in ``[0, n_cols)``."""
    n = ptr.size - 1
    total = int(ptr[-1])
    k = _parts(total)
    rows = [0] + [int(np.searchsorted(ptr, total * t // k)) for t in range(1, k)] + [n]
    kept = np.empty(n, dtype=np.int64)
    bits = max(int(n_cols - 1).bit_length(), 1)
    run_parts(_sort_rows, [(ptr, idx, rows[t], rows[t + 1], bits, kept) for t in range(k)])
    if int(kept.sum()) == total:
        return ptr, idx
    ptr = _compact(ptr, idx, kept)
    idx.resize(int(ptr[-1]), refcheck=False)
    return ptr, idx
