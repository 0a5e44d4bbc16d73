"""numba kernels of the CSR construction in :mod:`graphanon.graph`: counting, not sorting.

A CSR with sorted rows is built from ``(row, col)`` pairs in four linear passes and no
comparison sort:

1. count the entries of each column (:func:`count_pairs`), prefix sums give the offsets;
2. scatter every pair into its column, rows in input order (:func:`scatter_pairs`);
3. walk the columns in increasing order and append the column to each of its rows
   (:func:`transpose`): every row receives its columns in increasing order;
4. drop repeated neighbours of each sorted row in place (:func:`dedup_rows`).

For an undirected graph both directions of each pair are scattered in step 2 (the matrix is
symmetric, so its columns are its rows and step 1 counts degrees); self-loops are skipped.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from . import _numba  # noqa: F401  (numba's per-user cache folder)


@numba.njit(cache=True)
def count_pairs(u: Any, v: Any, n: int, symmetric: bool) -> Any:  # pragma: no cover
    """``(ptr, loops)``: offsets of the columns of the pairs (both directions of each
    non-loop pair when ``symmetric``; then ``loops`` counts the pairs ``u == v``)."""
    ptr = np.zeros(n + 1, dtype=np.int64)
    loops = 0
    if symmetric:
        for i in range(u.size):
            a = u[i]
            b = v[i]
            if a == b:
                loops += 1
            else:
                ptr[a + 1] += 1
                ptr[b + 1] += 1
    else:
        for i in range(v.size):
            ptr[v[i] + 1] += 1
    for j in range(n):
        ptr[j + 1] += ptr[j]
    return ptr, loops


@numba.njit(cache=True)
def scatter_pairs(u: Any, v: Any, ptr: Any, out: Any, symmetric: bool) -> None:  # pragma: no cover
    """Column lists: ``u[i]`` into column ``v[i]`` (and ``v[i]`` into ``u[i]`` when
    ``symmetric``; loops skipped), in input order."""
    cur = ptr[:-1].copy()
    if symmetric:
        for i in range(u.size):
            a = u[i]
            b = v[i]
            if a != b:
                out[cur[a]] = b
                cur[a] += 1
                out[cur[b]] = a
                cur[b] += 1
    else:
        for i in range(u.size):
            c = v[i]
            out[cur[c]] = u[i]
            cur[c] += 1


@numba.njit(cache=True)
def row_offsets(rows: Any, n: int) -> Any:  # pragma: no cover
    """Offsets of the rows of a list of row indices."""
    ptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(rows.size):
        ptr[rows[i] + 1] += 1
    for j in range(n):
        ptr[j + 1] += ptr[j]
    return ptr


@numba.njit(cache=True)
def transpose(ptr_in: Any, idx_in: Any, ptr_out: Any, out: Any) -> None:  # pragma: no cover
    """``out``: the transpose of the CSR ``(ptr_in, idx_in)`` with the offsets ``ptr_out``;
    its rows come out sorted because the input rows are walked in order."""
    cur = ptr_out[:-1].copy()
    for i in range(ptr_in.size - 1):
        for k in range(ptr_in[i], ptr_in[i + 1]):
            j = idx_in[k]
            out[cur[j]] = i
            cur[j] += 1


@numba.njit(cache=True)
def dedup_rows(ptr: Any, idx: Any) -> Any:  # pragma: no cover
    """Drop repeats inside each sorted row, compacting ``idx`` in place; the new offsets."""
    n = ptr.size - 1
    out = np.zeros(n + 1, dtype=np.int64)
    w = 0
    for r in range(n):
        prev = -1
        for k in range(ptr[r], ptr[r + 1]):
            x = idx[k]
            if x != prev:
                idx[w] = x
                w += 1
                prev = x
        out[r + 1] = w
    return out
