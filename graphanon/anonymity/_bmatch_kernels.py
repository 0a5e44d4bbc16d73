"""Numba kernels of the b-matching anonymizer (bit-packed Hamming kNN, costs, stars, checks).

Rows are encoded twice: as an ``int32`` code matrix ``C`` (n × d, one code per attribute;
binary data has codes 0/1) and as bit-packed one-hot words (n × w ``uint64``) for Hamming
distances and compatibility tests. For binary data attribute ``k`` is bit ``k``; for
categorical data attribute ``k`` is a block of one-hot bits, so the packed Hamming distance is
twice the number of differing attributes (same order).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from .. import _numba  # noqa: F401  (numba's per-user cache folder)

__all__ = [
    "agglomerative_clusters",
    "compatibility_degrees",
    "edge_costs",
    "knn_hamming",
    "mismatch_counts",
    "pair_compatible",
    "row_masks",
    "symmetric_degrees",
]


@numba.njit(cache=True, inline="always")
def _popcount64(x: Any) -> Any:
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@numba.njit(cache=True, parallel=True)
def knn_hamming(bits: Any, c: int, n_bits: int) -> Any:
    """The ``c`` nearest rows of every row in packed Hamming distance (self excluded).

    Ties at the threshold distance are taken in cyclic order starting after the row itself,
    so duplicated rows spread their choices instead of all picking the lowest indices.
    Returns an ``(n, c)`` int64 array. Rows are processed in parallel blocks (numba
    threads); the result does not depend on the number of threads.
    """
    n, w = bits.shape
    out = np.empty((n, c), dtype=np.int64)
    block = 64
    n_blocks = (n + block - 1) // block
    for bi in numba.prange(n_blocks):
        dist = np.empty(n, dtype=np.int32)
        hist = np.empty(n_bits + 2, dtype=np.int64)
        for i in range(bi * block, min(n, (bi + 1) * block)):
            hist[:] = 0
            for j in range(n):
                s = 0
                for t in range(w):
                    s += _popcount64(bits[i, t] ^ bits[j, t])
                dist[j] = s
                if j != i:
                    hist[s] += 1
            # threshold t*: fewest distances with count(dist <= t*) >= c
            acc = 0
            thr = 0
            for t in range(n_bits + 2):
                if acc + hist[t] >= c:
                    thr = t
                    break
                acc += hist[t]
            need_at_thr = c - acc
            pos = 0
            for step in range(1, n):
                j = (i + step) % n
                dj = dist[j]
                if dj < thr:
                    out[i, pos] = j
                    pos += 1
                elif dj == thr and need_at_thr > 0:
                    out[i, pos] = j
                    pos += 1
                    need_at_thr -= 1
    return out


@numba.njit(cache=True, parallel=True)
def edge_costs(codes: Any, weights: Any, src: Any, dst: Any) -> Any:
    """``cost[e] = Σ_k W[src_e, k] · [C[src_e, k] != C[dst_e, k]]`` (edges in parallel)."""
    m = src.shape[0]
    d = codes.shape[1]
    out = np.empty(m, dtype=np.float64)
    for e in numba.prange(m):
        i = src[e]
        j = dst[e]
        s = 0.0
        for k in range(d):
            if codes[i, k] != codes[j, k]:
                s += weights[i, k]
        out[e] = s
    return out


@numba.njit(cache=True)
def mismatch_counts(codes: Any, src: Any, dst: Any) -> Any:
    """``m[i, k] = Σ_{(i, j) selected} [C[i, k] != C[j, k]]`` for the selected edges."""
    n, d = codes.shape
    out = np.zeros((n, d), dtype=np.int32)
    for e in range(src.shape[0]):
        i = src[e]
        j = dst[e]
        for k in range(d):
            if codes[i, k] != codes[j, k]:
                out[i, k] += 1
    return out


@numba.njit(cache=True)
def row_masks(codes: Any, src: Any, dst: Any) -> Any:
    """``mask[i, k]`` true when some selected neighbour ``j`` of ``i`` differs at ``k``."""
    n, d = codes.shape
    out = np.zeros((n, d), dtype=np.bool_)
    for e in range(src.shape[0]):
        i = src[e]
        j = dst[e]
        for k in range(d):
            if codes[i, k] != codes[j, k]:
                out[i, k] = True
    return out


@numba.njit(cache=True, parallel=True)
def compatibility_degrees(xbits: Any, ybits: Any, ymask: Any) -> Any:
    """Degrees of the compatibility graph between original rows X and released rows Y.

    ``x_i`` is compatible with ``y_r`` when ``(xbits[i] ^ ybits[r]) & ymask[r] == 0`` word by
    word (``ymask`` holds the bits of the known, unmasked attributes). Returns
    ``(deg_x, deg_y)``: for every original row the number of compatible released rows and
    vice versa. O(n² w) time (released rows in parallel blocks, one count array per block).
    """
    n, w = xbits.shape
    m = ybits.shape[0]
    deg_y = np.zeros(m, dtype=np.int64)
    n_blocks = max(1, min(m, 64))
    part = np.zeros((n_blocks, n), dtype=np.int64)
    for bi in numba.prange(n_blocks):
        for r in range(bi * m // n_blocks, (bi + 1) * m // n_blocks):
            cnt = 0
            for i in range(n):
                ok = True
                for t in range(w):
                    if (xbits[i, t] ^ ybits[r, t]) & ymask[r, t]:
                        ok = False
                        break
                if ok:
                    cnt += 1
                    part[bi, i] += 1
            deg_y[r] = cnt
    deg_x = part.sum(axis=0)
    return deg_x, deg_y


@numba.njit(cache=True)
def pair_compatible(xbits: Any, ybits: Any, ymask: Any, xi: Any, yr: Any) -> Any:
    """Compatibility of the given (original row, released row) pairs."""
    m = xi.shape[0]
    w = xbits.shape[1]
    out = np.ones(m, dtype=np.bool_)
    for e in range(m):
        i = xi[e]
        r = yr[e]
        for t in range(w):
            if (xbits[i, t] ^ ybits[r, t]) & ymask[r, t]:
                out[e] = False
                break
    return out


@numba.njit(cache=True)
def symmetric_degrees(xbits: Any, ybits: Any, ymask: Any) -> Any:
    """``deg[i] = #{j : x_j ~ y_i and x_i ~ y_j}`` with Y in the order of X (j = i counts)."""
    n, w = xbits.shape
    deg = np.zeros(n, dtype=np.int64)
    for i in range(n):
        for j in range(i, n):
            ok = True
            for t in range(w):
                if (xbits[j, t] ^ ybits[i, t]) & ymask[i, t]:
                    ok = False
                    break
            if not ok:
                continue
            for t in range(w):
                if (xbits[i, t] ^ ybits[j, t]) & ymask[j, t]:
                    ok = False
                    break
            if ok:
                deg[i] += 1
                if j != i:
                    deg[j] += 1
    return deg


@numba.njit(cache=True)
def _merge_cost(rep: Any, msk: Any, size: Any, nst: Any, a: int, b: int) -> Any:
    d = rep.shape[1]
    u = 0
    for k in range(d):
        if msk[a, k] or msk[b, k] or rep[a, k] != rep[b, k]:
            u += 1
    return (size[a] + size[b]) * u - size[a] * nst[a] - size[b] * nst[b]


@numba.njit(cache=True)
def _nearest(rep: Any, msk: Any, size: Any, nst: Any, alive: Any, a: int) -> Any:
    best = np.int64(1) << np.int64(62)
    arg = -1
    for b in range(rep.shape[0]):
        if b != a and alive[b]:
            c = _merge_cost(rep, msk, size, nst, a, b)
            if c < best:
                best = c
                arg = b
    return best, arg


@numba.njit(cache=True)
def agglomerative_clusters(codes: Any, k: int) -> Any:
    """Cluster labels of agglomerative k-anonymization (Gionis, Mazza & Tassa 2008).

    Repeatedly merges the pair (one side of size < k) whose union adds the fewest stars,
    ``|S∪T|·s(S∪T) − |S|·s(S) − |T|·s(T)``, keeping a nearest-neighbour pointer for every
    cluster smaller than ``k``. Requires ``n ≥ k``.
    """
    n, d = codes.shape
    rep = codes.copy()
    msk = np.zeros((n, d), dtype=np.bool_)
    size = np.ones(n, dtype=np.int64)
    nst = np.zeros(n, dtype=np.int64)
    alive = np.ones(n, dtype=np.bool_)
    label = np.arange(n)
    nn = np.full(n, -1, dtype=np.int64)
    best = np.zeros(n, dtype=np.int64)
    if k <= 1 or n < 2:
        return label
    for a in range(n):
        best[a], nn[a] = _nearest(rep, msk, size, nst, alive, a)
    while True:
        x = -1
        bx = np.int64(1) << np.int64(62)
        for a in range(n):
            if alive[a] and size[a] < k and best[a] < bx:
                bx = best[a]
                x = a
        if x < 0:
            break
        t = nn[x]
        # merge t into x
        u = 0
        for q in range(d):
            if msk[x, q] or msk[t, q] or rep[x, q] != rep[t, q]:
                msk[x, q] = True
                u += 1
        size[x] += size[t]
        nst[x] = u
        alive[t] = False
        for a in range(n):
            if label[a] == t:
                label[a] = x
        for a in range(n):
            if not alive[a] or a == x or size[a] >= k:
                continue
            if nn[a] == x or nn[a] == t:
                best[a], nn[a] = _nearest(rep, msk, size, nst, alive, a)
            else:
                c = _merge_cost(rep, msk, size, nst, a, x)
                if c < best[a]:
                    best[a] = c
                    nn[a] = x
        if size[x] < k:
            best[x], nn[x] = _nearest(rep, msk, size, nst, alive, x)
    return label
