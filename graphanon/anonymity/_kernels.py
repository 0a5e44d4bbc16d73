"""numba kernels of the smooth-k clustering: Hamming distances, k-NN costs, Meyerson's online
facility location, closing small facilities and merging small clusters.

Points are the *distinct* user rows (identical users are one point with a weight, the number
of users sharing the row). Two representations of the rows, chosen by the caller:

- ``mode == 0`` ("bits"): rows bit-packed into ``uint64`` words, distance = popcount of XOR.
  For dense-ish low-dimensional data (Adult: 98 features = 2 words, Google Play: 740 = 12).
- ``mode == 1`` ("sparse"): CSR rows plus an inverted index (CSC); distances to every point
  sharing a feature come from counting common features, every other point is at distance
  ``deg(x) + deg(y)``. Exact, and cheap when features are sparse.

Every search here is exact; the heuristics are only in the order of the online algorithm.
"""

from __future__ import annotations

import numba
import numpy as np

__all__: list[str] = []

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@numba.njit(cache=True, inline="always")
def _popcount(x):  # type: ignore[no-untyped-def]
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return (x * _H01) >> np.uint64(56)


@numba.njit(cache=True)
def _dist(mode, x, y, bits, indptr, indices, deg):  # type: ignore[no-untyped-def]
    if mode == 0:
        d = 0
        for w in range(bits.shape[1]):
            d += _popcount(bits[x, w] ^ bits[y, w])
        return np.int64(d)
    i = indptr[x]
    ie = indptr[x + 1]
    j = indptr[y]
    je = indptr[y + 1]
    c = 0
    while i < ie and j < je:
        a = indices[i]
        b = indices[j]
        if a == b:
            c += 1
            i += 1
            j += 1
        elif a < b:
            i += 1
        else:
            j += 1
    return np.int64(deg[x] + deg[y] - 2 * c)


@numba.njit(cache=True)
def _k_smallest_sum(hist, k):  # type: ignore[no-untyped-def]
    """Sum of the k smallest distances, given the (weighted) histogram of distances."""
    need = k
    s = 0.0
    for d in range(hist.size):
        if need <= 0:
            break
        take = min(need, hist[d])
        s += take * d
        need -= take
    return s


@numba.njit(cache=True)
def knn_costs(mode, bits, indptr, indices, deg, colptr, rowidx, weight, k):  # type: ignore[no-untyped-def]
    """Sum of the distances from each point to its ``k`` nearest users (itself included,
    identical users at distance 0, weights counted)."""
    n = weight.size
    maxd = 2 * (deg.max() if n else 0) + 2
    out = np.zeros(n, dtype=np.float64)
    hist = np.zeros(maxd + 1, dtype=np.int64)
    if mode == 0:
        for x in range(n):
            hist[:] = 0
            for y in range(n):
                hist[_dist(0, x, y, bits, indptr, indices, deg)] += weight[y]
            out[x] = _k_smallest_sum(hist, k)
        return out
    # sparse: common counts through the inverted index
    degw = np.zeros(maxd + 1, dtype=np.int64)  # total weight per degree
    for y in range(n):
        degw[deg[y]] += weight[y]
    cnt = np.zeros(n, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    tdeg = np.zeros(maxd + 1, dtype=np.int64)
    for x in range(n):
        nt = 0
        for p in range(indptr[x], indptr[x + 1]):
            f = indices[p]
            for q in range(colptr[f], colptr[f + 1]):
                y = rowidx[q]
                if cnt[y] == 0:
                    touched[nt] = y
                    nt += 1
                cnt[y] += 1
        hist[:] = 0
        for t in range(nt):
            y = touched[t]
            hist[deg[x] + deg[y] - 2 * cnt[y]] += weight[y]
            tdeg[deg[y]] += weight[y]
        for dy in range(maxd + 1):
            rest = degw[dy] - tdeg[dy]
            if rest > 0 and deg[x] + dy <= maxd:
                hist[deg[x] + dy] += rest
        out[x] = _k_smallest_sum(hist, k)
        for t in range(nt):
            y = touched[t]
            tdeg[deg[y]] -= weight[y]
            cnt[y] = 0
    return out


@numba.njit(cache=True)
def _nearest(mode, x, bits, indptr, indices, deg, colptr, post, plen, is_open, open_list,
             n_open, cnt, touched, mindeg_fac):  # type: ignore[no-untyped-def]
    """Nearest open facility to point ``x``: (facility, distance); (-1, -1) if none open."""
    best = -1
    bestd = np.int64(1) << 62
    if mode == 0:
        for t in range(n_open):
            y = open_list[t]
            if not is_open[y]:
                continue
            d = _dist(0, x, y, bits, indptr, indices, deg)
            if d < bestd:
                bestd = d
                best = y
        return best, bestd
    nt = 0
    for p in range(indptr[x], indptr[x + 1]):
        f = indices[p]
        for q in range(colptr[f], colptr[f] + plen[f]):
            y = post[q]
            if not is_open[y]:
                continue
            if cnt[y] == 0:
                touched[nt] = y
                nt += 1
            cnt[y] += 1
    for t in range(nt):
        y = touched[t]
        d = deg[x] + deg[y] - 2 * cnt[y]
        if d < bestd or (d == bestd and y < best):
            bestd = d
            best = y
        cnt[y] = 0
    if mindeg_fac >= 0:
        d = deg[x] + deg[mindeg_fac]
        # a touched facility's true distance is below deg(x) + deg(y); the bound is exact
        # for untouched ones.
        if d < bestd:
            bestd = d
            best = mindeg_fac
    return best, bestd


@numba.njit(cache=True)
def _open(mode, y, indptr, indices, colptr, post, plen, is_open, open_list, n_open):  # type: ignore[no-untyped-def]
    is_open[y] = True
    open_list[n_open] = y
    if mode == 1:
        for p in range(indptr[y], indptr[y + 1]):
            f = indices[p]
            post[colptr[f] + plen[f]] = y
            plen[f] += 1
    return n_open + 1


@numba.njit(cache=True)
def _min_degree_open(deg, is_open, open_list, n_open):  # type: ignore[no-untyped-def]
    best = -1
    for t in range(n_open):
        y = open_list[t]
        if is_open[y] and (best < 0 or deg[y] < deg[best]):
            best = y
    return best


@numba.njit(cache=True)
def meyerson(mode, bits, indptr, indices, deg, colptr, weight, open_cost, order, coins):  # type: ignore[no-untyped-def]
    """One run of Meyerson's online facility location on the points in ``order``.

    A point at distance ``δ`` from the nearest open facility opens its own facility with
    probability ``min(1, w·δ / f)`` (``f`` its opening cost, ``w`` its weight), else joins the
    nearest one. Afterwards every point is re-assigned to its nearest open facility (this only
    lowers the cost). Returns ``(assign, cost)`` with cost = opening costs + Σ w·distance.
    """
    n = weight.size
    m = colptr.size - 1
    is_open = np.zeros(n, dtype=np.bool_)
    open_list = np.empty(n, dtype=np.int64)
    post = np.empty(max(colptr[m], 1), dtype=np.int64)
    plen = np.zeros(max(m, 1), dtype=np.int64)
    cnt = np.zeros(n, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    n_open = 0
    mindeg_fac = -1
    for t in range(n):
        x = order[t]
        y, d = _nearest(mode, x, bits, indptr, indices, deg, colptr, post, plen, is_open,
                        open_list, n_open, cnt, touched, mindeg_fac)
        if y < 0:
            n_open = _open(mode, x, indptr, indices, colptr, post, plen, is_open, open_list,
                           n_open)
            mindeg_fac = x
            continue
        f = open_cost[x]
        if d > 0 and (f <= 0.0 or coins[t] * f < weight[x] * d):
            n_open = _open(mode, x, indptr, indices, colptr, post, plen, is_open, open_list,
                           n_open)
            if deg[x] < deg[mindeg_fac]:
                mindeg_fac = x
    assign = np.empty(n, dtype=np.int64)
    cost = 0.0
    for t in range(n_open):
        cost += open_cost[open_list[t]]
    for x in range(n):
        if is_open[x]:
            assign[x] = x
            continue
        y, d = _nearest(mode, x, bits, indptr, indices, deg, colptr, post, plen, is_open,
                        open_list, n_open, cnt, touched, mindeg_fac)
        assign[x] = y
        cost += weight[x] * d
    return assign, cost


@numba.njit(cache=True)
def _state_from_assign(mode, indptr, indices, deg, colptr, weight, assign):  # type: ignore[no-untyped-def]
    n = weight.size
    m = colptr.size - 1
    is_open = np.zeros(n, dtype=np.bool_)
    open_list = np.empty(n, dtype=np.int64)
    post = np.empty(max(colptr[m], 1), dtype=np.int64)
    plen = np.zeros(max(m, 1), dtype=np.int64)
    size = np.zeros(n, dtype=np.int64)
    n_open = 0
    for x in range(n):
        if assign[x] == x:
            n_open = _open(mode, x, indptr, indices, colptr, post, plen, is_open, open_list,
                           n_open)
    for x in range(n):
        size[assign[x]] += weight[x]
    return is_open, open_list, n_open, post, plen, size


@numba.njit(cache=True)
def close_small(mode, bits, indptr, indices, deg, colptr, weight, assign, threshold):  # type: ignore[no-untyped-def]
    """Close the smallest open facility with fewer than ``threshold`` users and move its
    points to their nearest open facility; repeat until every open facility has at least
    ``threshold`` users (Appendix D of ``000_*.txt``; with ``threshold = αk`` it is step 4 of
    the paper's algorithm: the nearest open facility is the second closest one)."""
    n = weight.size
    assign = assign.copy()
    is_open, open_list, n_open, post, plen, size = _state_from_assign(
        mode, indptr, indices, deg, colptr, weight, assign)
    cnt = np.zeros(n, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    mindeg_fac = _min_degree_open(deg, is_open, open_list, n_open)
    members = np.empty(n, dtype=np.int64)
    alive = n_open
    while alive > 1:
        worst = -1
        for t in range(n_open):
            y = open_list[t]
            if is_open[y] and size[y] < threshold and (worst < 0 or size[y] < size[worst]):
                worst = y
        if worst < 0:
            break
        is_open[worst] = False
        alive -= 1
        if worst == mindeg_fac:
            mindeg_fac = _min_degree_open(deg, is_open, open_list, n_open)
        nm = 0
        for x in range(n):
            if assign[x] == worst:
                members[nm] = x
                nm += 1
        for t in range(nm):
            x = members[t]
            y, _d = _nearest(mode, x, bits, indptr, indices, deg, colptr, post, plen, is_open,
                            open_list, n_open, cnt, touched, mindeg_fac)
            assign[x] = y
            size[y] += weight[x]
        size[worst] = 0
        # compact the open list now and then (bits mode scans it)
        if mode == 0 and alive * 2 < n_open:
            j = 0
            for t in range(n_open):
                if is_open[open_list[t]]:
                    open_list[j] = open_list[t]
                    j += 1
            n_open = j
    return assign


@numba.njit(cache=True)
def merge_small(mode, bits, indptr, indices, deg, weight, assign, k):  # type: ignore[no-untyped-def]
    """Step 5 of the paper's algorithm (``001_*.txt`` section 4): merge clusters smaller than
    ``k`` with their nearest small cluster (distance between facilities) until they reach
    ``k``; no merged cluster exceeds ``2k`` because both parts were below ``k``. A last small
    cluster takes the points of its nearest large cluster closest to it while that cluster
    keeps ``k`` (footnote 1: break a large cluster), else absorbs it whole."""
    n = weight.size
    assign = assign.copy()
    size = np.zeros(n, dtype=np.int64)
    for x in range(n):
        size[assign[x]] += weight[x]
    small = np.empty(n, dtype=np.int64)
    ns = 0
    for y in range(n):
        if assign[y] == y and 0 < size[y] < k:
            small[ns] = y
            ns += 1
    active = np.zeros(n, dtype=np.bool_)
    for t in range(ns):
        active[small[t]] = True
    for t in range(ns):
        s = small[t]
        while active[s] and size[s] < k:
            best = -1
            bestd = np.int64(1) << 62
            for u in range(ns):
                c = small[u]
                if c != s and active[c]:
                    d = _dist(mode, s, c, bits, indptr, indices, deg)
                    if d < bestd:
                        bestd = d
                        best = c
            if best < 0:
                break
            for x in range(n):
                if assign[x] == best:
                    assign[x] = s
            size[s] += size[best]
            size[best] = 0
            active[best] = False
        if size[s] >= k:
            active[s] = False
    # at most one small cluster is left
    for t in range(ns):
        s = small[t]
        if not active[s] or size[s] >= k:
            continue
        best = -1
        bestd = np.int64(1) << 62
        for y in range(n):
            if assign[y] == y and y != s and size[y] >= k:
                d = _dist(mode, s, y, bits, indptr, indices, deg)
                if d < bestd:
                    bestd = d
                    best = y
        if best < 0:
            break
        # members of the large cluster, nearest to s first
        nm = 0
        mem = np.empty(n, dtype=np.int64)
        for x in range(n):
            if assign[x] == best and x != best:
                mem[nm] = x
                nm += 1
        dd = np.empty(nm, dtype=np.int64)
        for i in range(nm):
            dd[i] = _dist(mode, s, mem[i], bits, indptr, indices, deg)
        idx = np.argsort(dd, kind="mergesort")
        for i in range(nm):
            if size[s] >= k:
                break
            x = mem[idx[i]]
            if size[best] - weight[x] < k:
                continue
            assign[x] = s
            size[s] += weight[x]
            size[best] -= weight[x]
        if size[s] < k:  # could not break it: absorb it whole
            for x in range(n):
                if assign[x] == best:
                    assign[x] = s
            size[s] += size[best]
            size[best] = 0
    return assign
