"""numba kernels of the dK-graph generators (:mod:`graphanon.dk.generate`).

Loaded on first use: a small 2K target is placed by the module's Python reference of
:func:`_jdg_place` (the same steps and the same random stream, so the same graph) without
starting numba at all.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from .. import _numba  # noqa: F401  (numba's per-user cache folder)
from .._csr_kernels import _sort_rows as _sort_csr_rows
from .generate import SPLITMIX64


@numba.njit(cache=True)
def _havel_hakimi(seq: Any, m: int) -> Any:  # pragma: no cover - numba
    """Edges of a simple graph with the graphical degree sequence ``seq`` (Havel–Hakimi:
    the node of largest residual degree ``r`` is joined to the ``r`` other nodes of largest
    residual degree). Residual degrees live in bucket lists, so a step costs ``O(r)`` and the
    whole construction ``O(n + m)``. Returns ``(u, v)`` with ``u != v``; a non-graphical
    sequence leaves the tail of the arrays at ``-1``."""
    n = seq.size
    top = 0
    for x in range(n):
        top = max(top, seq[x])
    head = np.full(top + 1, -1, dtype=np.int64)
    nxt = np.full(n, -1, dtype=np.int64)
    prv = np.full(n, -1, dtype=np.int64)
    res = seq.copy()
    for x in range(n):
        d = res[x]
        if d > 0:
            nxt[x] = head[d]
            if head[d] >= 0:
                prv[head[d]] = x
            head[d] = x
    u = np.full(m, -1, dtype=np.int64)
    v = np.full(m, -1, dtype=np.int64)
    picked = np.empty(top + 1, dtype=np.int64)
    t = 0
    while True:
        while top > 0 and head[top] < 0:
            top -= 1
        if top == 0:
            break
        a = head[top]  # unlink a
        head[top] = nxt[a]
        if nxt[a] >= 0:
            prv[nxt[a]] = -1
        need = res[a]
        res[a] = 0
        k = 0
        level = top
        while k < need and level > 0:
            while k < need and head[level] >= 0:
                w = head[level]
                head[level] = nxt[w]
                if nxt[w] >= 0:
                    prv[nxt[w]] = -1
                picked[k] = w
                k += 1
            level -= 1
        if k < need:
            break  # not graphical
        for i in range(k):
            w = picked[i]
            u[t] = a
            v[t] = w
            t += 1
            res[w] -= 1
            d = res[w]
            if d > 0:
                nxt[w] = head[d]
                prv[w] = -1
                if head[d] >= 0:
                    prv[head[d]] = w
                head[d] = w
    return u, v


@numba.njit(cache=True)
def _slot(key: int, mask: int) -> int:  # pragma: no cover - numba
    """Home slot of ``key``: Fibonacci hashing (wrapping int64 product, middle bits)."""
    return ((key * -7046029254386353131) >> 20) & mask


@numba.njit(cache=True)
def _set_insert(table: Any, key: int) -> None:  # pragma: no cover - numba
    mask = table.size - 1
    i = _slot(key, mask)
    while table[i] >= 0:
        i = (i + 1) & mask
    table[i] = key


@numba.njit(cache=True)
def _set_find(table: Any, key: int) -> int:  # pragma: no cover - numba
    mask = table.size - 1
    i = _slot(key, mask)
    while table[i] >= 0:
        if table[i] == key:
            return i
        i = (i + 1) & mask
    return -1


@numba.njit(cache=True)
def _set_delete(table: Any, i: int) -> None:  # pragma: no cover - numba
    """Linear-probing deletion by backward shift (no tombstones)."""
    mask = table.size - 1
    j = i
    while True:
        j = (j + 1) & mask
        if table[j] < 0:
            break
        k = _slot(table[j], mask)
        # move table[j] into the hole i unless its home slot k lies cyclically in (i, j]
        if (j > i and (k <= i or k > j)) or (j < i and (k <= i and k > j)):
            table[i] = table[j]
            i = j
    table[i] = -1


@numba.njit(cache=True)
def _edge_table(u: Any, v: Any, n: int, size: int) -> Any:  # pragma: no cover - numba
    table = np.full(size, -1, dtype=np.int64)
    for e in range(u.size):
        a, b = u[e], v[e]
        _set_insert(table, min(a, b) * n + max(a, b))
    return table


@numba.njit(cache=True)
def _switch_edges(u: Any, v: Any, n: int, table: Any, trials: int) -> int:  # pragma: no cover
    """``trials`` degree-preserving switches on the simple graph ``(u, v)`` (igraph's
    ``rewire(mode="simple")``): two random edges ``ab``, ``cd`` become ``ad``, ``cb`` or
    ``ac``, ``bd`` (each with probability 1/2) unless that makes a loop or a multi-edge.
    Uses numba's generator (seeded by the caller); returns the number of switches made."""
    m = u.size
    done = 0
    if m < 2:
        return 0
    for _ in range(trials):
        e1 = np.random.randint(0, m)  # noqa: NPY002
        e2 = np.random.randint(0, m - 1)  # noqa: NPY002
        if e2 >= e1:
            e2 += 1
        a, b = u[e1], v[e1]
        if np.random.random() < 0.5:  # noqa: NPY002
            c, d = u[e2], v[e2]
        else:
            c, d = v[e2], u[e2]
        # ab, cd -> ad, cb
        if a == d or c == b:
            continue
        k1 = min(a, d) * n + max(a, d)
        k2 = min(c, b) * n + max(c, b)
        if _set_find(table, k1) >= 0 or _set_find(table, k2) >= 0:
            continue
        _set_delete(table, _set_find(table, min(a, b) * n + max(a, b)))
        _set_delete(table, _set_find(table, min(c, d) * n + max(c, d)))
        _set_insert(table, k1)
        _set_insert(table, k2)
        u[e1], v[e1] = a, d
        u[e2], v[e2] = c, b
        done += 1
    return done


@numba.njit(cache=True)
def _simple_csr(u: Any, v: Any, n: int, indptr: Any, indices: Any) -> None:  # pragma: no cover
    """CSR with sorted rows of a simple graph given by its edge list (no loops, no
    duplicates: nothing is dropped)."""
    indptr[:] = 0
    for e in range(u.size):
        indptr[u[e] + 1] += 1
        indptr[v[e] + 1] += 1
    for x in range(n):
        indptr[x + 1] += indptr[x]
    fill = indptr[:n].copy()
    for e in range(u.size):
        a, b = u[e], v[e]
        indices[fill[a]] = b
        fill[a] += 1
        indices[fill[b]] = a
        fill[b] += 1
    _sort_rows(indptr, indices)


@numba.njit(cache=True)
def _seed_numba(seed: int) -> None:  # pragma: no cover - numba
    np.random.seed(seed)  # noqa: NPY002 - numba supports only the legacy API



# ----------------------------------------------------------------------------- 2K
@numba.njit(cache=True)
def _has_edge(adj: Any, start: Any, ln: Any, a: int, b: int) -> bool:  # pragma: no cover
    if ln[a] > ln[b]:
        a, b = b, a
    for p in range(start[a], start[a] + ln[a]):
        if adj[p] == b:
            return True
    return False


_GAMMA, _MIX1, _MIX2 = (np.uint64(c) for c in SPLITMIX64)


@numba.njit(cache=True, inline="always")
def _below(state: Any, n: int) -> Any:  # pragma: no cover - numba
    """Advance the splitmix64 ``state[0]``; its output modulo ``n`` (``n < 2**32`` in
    practice: the bias ``n / 2**64`` is nil)."""
    z = state[0] + _GAMMA
    state[0] = z
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(n))


@numba.njit(cache=True, inline="always")
def _drop_unsat(v: int, node_cls: Any, cls_first: Any, unsat: Any, pos: Any,
                n_unsat: Any) -> None:  # pragma: no cover
    c = node_cls[v]
    last = cls_first[c] + n_unsat[c] - 1
    p = pos[v]
    if p > last:
        return  # already out (a neighbour switch lent it a stub it has now used)
    u = unsat[last]
    unsat[p] = u
    pos[u] = p
    unsat[last] = v
    pos[v] = last
    n_unsat[c] -= 1


@numba.njit(cache=True, inline="always")
def _switch(w: int, avoid: int, node_cls: Any, cls_first: Any, resid: Any, start: Any,
            adj: Any, ln: Any, unsat: Any, pos: Any, n_unsat: Any) -> None:  # pragma: no cover
    """Neighbour switch: move one edge ``(w, s)`` of the saturated ``w`` to an unsaturated
    ``wp`` of the same class (not adjacent to ``s``), freeing a stub of ``w``."""
    c = node_cls[w]
    wp = -1
    for t in range(cls_first[c], cls_first[c] + n_unsat[c]):
        cand = unsat[t]
        if cand != w and (avoid < 0 or cand != avoid or resid[avoid] > 1):
            wp = cand
            break
    if wp < 0:
        return
    for p in range(start[w], start[w] + ln[w]):
        s = adj[p]
        if s != wp and not _has_edge(adj, start, ln, wp, s):
            # rewire (w, s) -> (wp, s)
            adj[p] = adj[start[w] + ln[w] - 1]
            ln[w] -= 1
            for q in range(start[s], start[s] + ln[s]):
                if adj[q] == w:
                    adj[q] = wp
                    break
            adj[start[wp] + ln[wp]] = s
            ln[wp] += 1
            resid[w] += 1
            resid[wp] -= 1
            if resid[wp] == 0:
                _drop_unsat(wp, node_cls, cls_first, unsat, pos, n_unsat)
            return


@numba.njit(cache=True)
def _jdg_place(ks: Any, ls: Any, ms: Any, e0: int, e1: int, cls_n: Any, cls_first: Any,
               node_cls: Any, resid: Any, start: Any, adj: Any, ln: Any, unsat: Any,
               pos: Any, n_unsat: Any, state: Any, tries: int) -> None:  # pragma: no cover
    """Gjoka et al.: place the ``ms[e]`` edges between classes ``ks[e]`` and ``ls[e]`` for
    the cells ``e0 <= e < e1`` (random non-adjacent pairs, neighbour switches). Random
    draws come from the splitmix64 ``state`` (advanced in place); after ``tries · (k_n l_n +
    100)`` draws for one cell, free pairs are found by a scan. The Python reference
    :func:`graphanon.dk.generate._jdg_place_python` takes the same steps."""
    for e in range(e0, e1):
        k, kl, m = ks[e], ls[e], ms[e]
        if m == 0:
            continue
        k0, kn = cls_first[k], cls_n[k]
        l0, lnn = cls_first[kl], cls_n[kl]
        drawn = 0
        limit = tries * (kn * lnn + 100)
        while m > 0:
            drawn += 1
            if drawn < limit:
                v = k0 + _below(state, kn)
                w = l0 + _below(state, lnn)
            else:  # deterministic fallback scan for a free pair (near-complete blocks)
                found = False
                for v in range(k0, k0 + kn):
                    for w in range(l0, l0 + lnn):
                        if v != w and not _has_edge(adj, start, ln, v, w):
                            found = True
                            break
                    if found:
                        break
                if not found:
                    break
            if v == w or _has_edge(adj, start, ln, v, w):
                continue
            if resid[v] == 0:
                _switch(v, -1, node_cls, cls_first, resid, start, adj, ln, unsat, pos, n_unsat)
            if resid[w] == 0:
                _switch(w, v if k == kl else -1, node_cls, cls_first, resid, start, adj, ln,
                        unsat, pos, n_unsat)
            if resid[v] == 0 or resid[w] == 0:
                break  # infeasible class stub budget
            adj[start[v] + ln[v]] = w
            ln[v] += 1
            adj[start[w] + ln[w]] = v
            ln[w] += 1
            resid[v] -= 1
            resid[w] -= 1
            m -= 1
            if resid[v] == 0:
                _drop_unsat(v, node_cls, cls_first, unsat, pos, n_unsat)
            if resid[w] == 0:
                _drop_unsat(w, node_cls, cls_first, unsat, pos, n_unsat)


@numba.njit(cache=True)
def _jdg_csr(start: Any, adj: Any, ln: Any, indptr: Any, indices: Any) -> None:  # pragma: no cover
    """The adjacency as a CSR with sorted rows (the construction never makes loops or
    duplicate edges, so this is the simple graph of the placed edges)."""
    n = ln.size
    indptr[0] = 0
    for v in range(n):
        indptr[v + 1] = indptr[v] + ln[v]
    for v in range(n):
        a, out = start[v], indptr[v]
        for i in range(ln[v]):
            indices[out + i] = adj[a + i]
    _sort_rows(indptr, indices)


@numba.njit(cache=True)
def _sort_rows(indptr: Any, indices: Any) -> None:  # pragma: no cover - numba
    """Sort every CSR row in place (the rows sorter of the CSR construction; the rows hold
    no repeats, so nothing is dropped)."""
    n = indptr.size - 1
    bits = 1
    while (1 << bits) < n:
        bits += 1
    _sort_csr_rows(indptr, indices, 0, n, bits, np.empty(n, dtype=np.int64))


@numba.njit(cache=True)
def _pair_ranks(indptr: Any, indices: Any, drank: Any, base: int) -> Any:  # pragma: no cover
    """Keys ``lo·base + hi`` of the degree ranks ``lo <= hi`` of every edge ``u < v``."""
    n = indptr.size - 1
    keys = np.empty(indices.size // 2, dtype=np.int64)
    t = 0
    for u in range(n):
        ru = drank[u]
        for p in range(indptr[u], indptr[u + 1]):
            v = indices[p]
            if v > u:
                rv = drank[v]
                keys[t] = min(ru, rv) * base + max(ru, rv)
                t += 1
    return keys
