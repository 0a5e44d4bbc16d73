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

from .. import _numba  # noqa: F401  (numba's per-user cache folder)

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
def _heap_push(heap, n_heap, key):  # type: ignore[no-untyped-def]
    i = n_heap
    heap[i] = key
    while i > 0:
        p = (i - 1) // 2
        if heap[p] <= heap[i]:
            break
        heap[p], heap[i] = heap[i], heap[p]
        i = p
    return n_heap + 1


@numba.njit(cache=True)
def _heap_pop(heap, n_heap):  # type: ignore[no-untyped-def]
    top = heap[0]
    n_heap -= 1
    heap[0] = heap[n_heap]
    i = 0
    while True:
        a = 2 * i + 1
        if a >= n_heap:
            break
        b = a + 1
        c = b if b < n_heap and heap[b] < heap[a] else a
        if heap[i] <= heap[c]:
            break
        heap[i], heap[c] = heap[c], heap[i]
        i = c
    return top, n_heap


@numba.njit(cache=True)
def close_small(mode, bits, indptr, indices, deg, colptr, weight, assign, threshold):  # type: ignore[no-untyped-def]
    """Close the smallest open facility with fewer than ``threshold`` users and move its
    points to their nearest open facility; repeat until every open facility has at least
    ``threshold`` users (Appendix D of ``000_*.txt``; with ``threshold = αk`` it is step 4 of
    the paper's algorithm: the nearest open facility is the second closest one).

    Ties: the smallest facility index among the smallest sizes is closed first. The
    smallest facility comes from a heap keyed by ``(size, index)`` (sizes only grow, stale
    keys are skipped), the members from per-facility linked lists, and the postings of closed
    facilities are compacted away, so a run costs ``O(moves · nearest-search)`` plus
    ``O(n log n)``, not ``O(n)`` per closed facility.
    """
    n = weight.size
    assign = assign.copy()
    is_open, open_list, n_open, post, plen, size = _state_from_assign(
        mode, indptr, indices, deg, colptr, weight, assign)
    cnt = np.zeros(n, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    # members of every facility as linked lists
    head = np.full(n, -1, dtype=np.int64)
    nxt = np.full(n, -1, dtype=np.int64)
    for x in range(n - 1, -1, -1):
        f = assign[x]
        nxt[x] = head[f]
        head[f] = x
    # open facilities by (degree, index): the cheapest untouched facility of a sparse search
    by_deg = open_list[:n_open][np.argsort(deg[open_list[:n_open]], kind="mergesort")]
    dpos = 0
    mindeg_fac = by_deg[0] if n_open > 0 else -1
    heap = np.empty(n_open + n + 1, dtype=np.int64)
    n_heap = 0
    for t in range(n_open):
        y = open_list[t]
        if size[y] < threshold:
            n_heap = _heap_push(heap, n_heap, size[y] * n + y)
    alive = n_open
    while alive > 1 and n_heap > 0:
        key, n_heap = _heap_pop(heap, n_heap)
        worst = key % n
        if not is_open[worst] or size[worst] != key // n:
            continue  # stale key
        is_open[worst] = False
        alive -= 1
        if worst == mindeg_fac:
            while dpos < n_open and not is_open[by_deg[dpos]]:
                dpos += 1
            mindeg_fac = by_deg[dpos] if dpos < n_open else -1
        x = head[worst]
        head[worst] = -1
        while x >= 0:
            nx = nxt[x]
            y, _d = _nearest(mode, x, bits, indptr, indices, deg, colptr, post, plen, is_open,
                             open_list, n_open, cnt, touched, mindeg_fac)
            assign[x] = y
            nxt[x] = head[y]
            head[y] = x
            size[y] += weight[x]
            if size[y] < threshold:
                if n_heap == heap.size:  # grow (rare: one key per move at most)
                    bigger = np.empty(2 * heap.size, dtype=np.int64)
                    bigger[:n_heap] = heap[:n_heap]
                    heap = bigger
                n_heap = _heap_push(heap, n_heap, size[y] * n + y)
            x = nx
        size[worst] = 0
        # compact the open list (scanned in bits mode) and the postings (sparse mode)
        if alive * 2 < n_open:
            j = 0
            for t in range(n_open):
                if is_open[open_list[t]]:
                    open_list[j] = open_list[t]
                    j += 1
            n_open = j
            if mode == 1:
                plen[:] = 0
                for t in range(n_open):
                    y = open_list[t]
                    for p in range(indptr[y], indptr[y + 1]):
                        f = indices[p]
                        post[colptr[f] + plen[f]] = y
                        plen[f] += 1
            by_deg = open_list[:n_open][np.argsort(deg[open_list[:n_open]], kind="mergesort")]
            dpos = 0
            mindeg_fac = by_deg[0] if n_open > 0 else -1
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


# ---------------------------------------------------------------------- release quality
@numba.njit(cache=True)
def _members_by_label(labels, n_labels, key):  # type: ignore[no-untyped-def]
    """``(ptr, members)``: the points of every label, each list in increasing ``key``."""
    n = labels.size
    ptr = np.zeros(n_labels + 1, dtype=np.int64)
    for x in range(n):
        ptr[labels[x] + 1] += 1
    for c in range(n_labels):
        ptr[c + 1] += ptr[c]
    fill = ptr[:-1].copy()
    members = np.empty(n, dtype=np.int64)
    for x in np.argsort(key, kind="mergesort"):
        c = labels[x]
        members[fill[c]] = x
        fill[c] += 1
    return ptr, members


@numba.njit(cache=True)
def _group_gain(indptr, indices, weight, members, lo, hi, count, touched, smooth):  # type: ignore[no-untyped-def]
    """Release of the points ``members[lo:hi]`` as one cluster: ``(kept, created)`` edges,
    i.e. ``Σ_{released f} c_f`` and ``Σ_{released f} (|C| − c_f)`` with ``c_f`` the weighted
    holders of ``f``; ``f`` is released iff ``2·c_f > |C|`` (``smooth``, majority) or
    ``c_f = |C|`` (suppression, intersection), the rules of ``release_clusters``."""
    size = 0
    nt = 0
    for t in range(lo, hi):
        x = members[t]
        w = weight[x]
        size += w
        for p in range(indptr[x], indptr[x + 1]):
            f = indices[p]
            if count[f] == 0:
                touched[nt] = f
                nt += 1
            count[f] += w
    kept = 0
    created = 0
    for t in range(nt):
        f = touched[t]
        c = count[f]
        if (2 * c > size) if smooth else (c == size):
            kept += c
            created += size - c
        count[f] = 0
    return kept, created


@numba.njit(cache=True)
def release_score(indptr, indices, weight, labels, n_labels, n_cols, smooth):  # type: ignore[no-untyped-def]
    """``(kept, union)`` of the release of a clustering of weighted CSR rows (majority if
    ``smooth``, else intersection): ``|E ∩ E'|`` and ``|E ∪ E'|``; its Jaccard is
    ``kept / union``."""
    ptr, members = _members_by_label(labels, n_labels, labels)
    count = np.zeros(max(n_cols, 1), dtype=np.int64)
    touched = np.empty(max(n_cols, 1), dtype=np.int64)
    edges = 0
    for x in range(labels.size):
        edges += weight[x] * (indptr[x + 1] - indptr[x])
    kept = 0
    created = 0
    for c in range(n_labels):
        if ptr[c + 1] > ptr[c]:
            a, b = _group_gain(indptr, indices, weight, members, ptr[c], ptr[c + 1], count,
                               touched, smooth)
            kept += a
            created += b
    return kept, edges + created


@numba.njit(cache=True)
def split_large(indptr, indices, weight, labels, n_labels, rank, k, lam, n_cols, smooth):  # type: ignore[no-untyped-def]
    """Split every cluster of at least ``2k`` users into consecutive pieces of its members in
    ``rank`` order (each piece ``k`` users or more, the remainder joining the last piece)
    when that raises ``kept − λ·created`` of the cluster's release (rule as in
    :func:`release_score`) — i.e. the
    Jaccard ``kept / (|E| + created)`` of the whole release, linearized at ``λ`` (Dinkelbach).
    Every piece keeps at least ``k`` users, so the result is still a valid clustering.
    Returns ``(labels, n_labels, n_split)``."""
    ptr, members = _members_by_label(labels, n_labels, rank)
    count = np.zeros(max(n_cols, 1), dtype=np.int64)
    touched = np.empty(max(n_cols, 1), dtype=np.int64)
    out = labels.copy()
    cuts = np.empty(labels.size + 1, dtype=np.int64)
    nxt_label = n_labels
    n_split = 0
    for c in range(n_labels):
        lo = ptr[c]
        hi = ptr[c + 1]
        total = 0
        for t in range(lo, hi):
            total += weight[members[t]]
        if total < 2 * k or hi - lo < 2:
            continue
        # pieces of >= k users in rank order; a short remainder joins the last piece
        nc = 0
        cuts[0] = lo
        acc = 0
        for t in range(lo, hi):
            acc += weight[members[t]]
            if acc >= k and total - acc >= k:
                nc += 1
                cuts[nc] = t + 1
                total -= acc
                acc = 0
        nc += 1
        cuts[nc] = hi
        if nc < 2:
            continue
        a, b = _group_gain(indptr, indices, weight, members, lo, hi, count, touched, smooth)
        whole = a - lam * b
        split = 0.0
        for q in range(nc):
            a, b = _group_gain(indptr, indices, weight, members, cuts[q], cuts[q + 1], count,
                               touched, smooth)
            split += a - lam * b
        if split > whole + 1e-9:
            n_split += 1
            for q in range(1, nc):
                for t in range(cuts[q], cuts[q + 1]):
                    out[members[t]] = nxt_label
                nxt_label += 1
    return out, nxt_label, n_split
