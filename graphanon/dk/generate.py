"""Synthetic dK-graphs: simple graphs realizing a 1K or 2K distribution, and their utility.

* 1K: a graphical degree sequence is realized exactly (Havel–Hakimi followed by degree-
  preserving edge switching, the chain of igraph's ``edge_switching_simple``, in numba); a
  non-graphical one (e.g. a noisy release) by the configuration model with erasure of loops
  and multi-edges, and the deviation is reported.
* 2K: the construction of Stanton & Pinar / Gjoka, Tillman & Markopoulou (the algorithm of
  ``networkx.joint_degree_graph``) compiled with numba: pick random nodes ``v, w`` of degrees
  ``k, l`` that are not adjacent; if one has no free stub, a *neighbour switch* frees one
  without changing the joint degrees. A realizable target is reproduced exactly. A target that
  is not realizable is first made feasible (``n_k = ⌈s_k / k⌉`` nodes per class,
  ``m(k, l) <= n_k n_l``) and the deviation of the realized 1K/2K from the target reported.

Memory is ``O(n + m + table rows)`` — never a function of the degree *values* — and checked
against the available memory before anything is allocated (:func:`generate_1k_memory`,
:func:`generate_2k_memory`, :mod:`graphanon._memory`). The long loops run in blocks of about
1 % of their work and report to a ``progress(task, done, total)`` callback.

References
----------
``004_*.txt`` chapter 6, Definition 19 (dK-graph); I. Stanton, A. Pinar, "Constructing and
sampling graphs with a prescribed joint degree distribution", JEA 2012; M. Gjoka, B. Tillman,
A. Markopoulou, "Construction of simple graphs with a target joint degree matrix and beyond",
INFOCOM 2015.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from .. import _numba  # noqa: F401  (numba's per-user cache folder)
from .._csr_kernels import _sort_rows as _sort_csr_rows
from .._memory import require_memory
from .._progress import ProgressFn, log_progress, progress_step
from .._validation import check_int, check_type
from ..errors import InvalidParameterError
from ..graph import Graph
from ..metrics import euclidean_distance, ks_distance, l1_distance
from .extract import DKDistribution, degree_distribution, joint_degree_distribution

__all__ = [
    "SyntheticGraph",
    "dk_graph",
    "generate_1k",
    "generate_1k_memory",
    "generate_2k",
    "generate_2k_memory",
    "jdd_feasible",
    "synthetic_utility",
]

_log = logging.getLogger(__name__)
_I32 = int(np.iinfo(np.int32).max)
#: Smallest block of edges placed per kernel call (keeps the call overhead of small tables low).
_MIN_BLOCK_EDGES = 1 << 16


@dataclass(frozen=True)
class SyntheticGraph:
    """A generated dK-graph and how well it realizes its target.

    Attributes
    ----------
    graph
        The simple graph.
    d
        1 or 2.
    method
        Generator used.
    exact
        True when the realized dK distribution equals the target.
    target_l1, realized_l1
        ``L1(target dK, realized dK)`` for the 1K (``target_l1["1k"]``) and, for ``d = 2``,
        the 2K (``["2k"]``).
    seconds
        Generation time.
    """

    graph: Graph
    d: int
    method: str
    exact: bool
    deviation: dict[str, float]
    seconds: float = field(default=0.0, compare=False)


def _table(target: Any, kind: str, owner: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any]]:
    if isinstance(target, DKDistribution):
        if target.kind != kind:
            raise InvalidParameterError(
                f"{owner} needs a {kind} table. Got a {target.kind} table instead."
            )
        deg, cnt = target.degrees, target.counts
    elif isinstance(target, dict):
        keys = list(target)
        deg = np.array([k if isinstance(k, tuple) else (k,) for k in keys], dtype=np.int64)
        deg = deg.reshape(len(keys), 1 if kind == "degree" else 2)
        cnt = np.array([target[k] for k in keys])
    else:
        raise InvalidParameterError(
            f"The 'target' parameter of {owner} must be a DKDistribution or a dict. "
            f"Got {type(target).__name__} instead."
        )
    cnt = np.asarray(cnt, dtype=np.float64)
    if cnt.size and (not np.isfinite(cnt).all() or (cnt < 0).any()
                     or not np.array_equal(cnt, np.round(cnt))):
        raise InvalidParameterError(
            f"{owner} needs non-negative integer counts; post-process a noisy release first "
            "(graphanon.dk.release.postprocess)."
        )
    if deg.size and (deg < (0 if kind == "degree" else 1)).any():
        raise InvalidParameterError(f"{owner}: degrees must be positive.")
    return deg.astype(np.int64), cnt.astype(np.int64)


# ----------------------------------------------------------------------------- 1K
#: Edge-switching trials per edge (igraph's ``rewire`` default).
SWITCHES_PER_EDGE = 10


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


def _graph_from_simple_edges(u: npt.NDArray[np.int64], v: npt.NDArray[np.int64], n: int
                             ) -> Graph:
    m = int(u.size)
    indptr = np.empty(n + 1, dtype=np.int32 if 2 * m <= _I32 else np.int64)
    indices = np.empty(2 * m, dtype=np.int32 if n - 1 <= _I32 else np.int64)
    _simple_csr(u, v, n, indptr, indices)
    return Graph(indptr, indices, validate=False)


def generate_1k_memory(target: DKDistribution | dict[Any, int]) -> dict[str, int]:
    """Nodes, edges (stubs / 2) and estimated peak bytes of :func:`generate_1k`.

    About 40 bytes per node (the sequence, bucket lists) and 64 bytes per edge (edge list,
    switching hash set at load <= 1/2, the CSR); degrees above ``n − 1`` count as ``n − 1``
    (no simple graph can hold more, and the configuration model caps them).
    """
    deg, cnt = _table(target, "degree", "generate_1k_memory")
    n = int(cnt.sum())
    stubs = int((np.minimum(deg[:, 0], max(n - 1, 0)).astype(np.float64) * cnt).sum())
    m = stubs // 2
    return {"nodes": n, "edges": m, "bytes": 40 * n + 64 * m}


def generate_1k(target: DKDistribution | dict[Any, int], *, rng: np.random.Generator,
                progress: ProgressFn = log_progress) -> SyntheticGraph:
    """A simple graph with the given degree histogram.

    Parameters
    ----------
    target
        A 1K table (``degree -> number of nodes``).
    rng
        Randomness (node order, edge switching, configuration model).
    progress
        ``progress(task, done, total)`` callback (``"1K edge switching"``, counted in
        switching trials).

    Returns
    -------
    SyntheticGraph
        ``exact`` is True when the histogram is graphical (Erdős–Gallai) and hence realized.

    Raises
    ------
    InvalidParameterError
        Non-integer or negative counts, a wrong table kind, or a table whose implied graph
        (:func:`generate_1k_memory`) does not fit in the available memory.

    Notes
    -----
    A graphical sequence is realized by Havel–Hakimi (bucket lists, ``O(n + m)``) and
    randomized by :data:`SWITCHES_PER_EDGE` ``· m`` degree-preserving edge-switching trials
    (the Markov chain of igraph's ``Degree_Sequence(method="edge_switching_simple")``),
    compiled with numba over a flat edge list and an open-addressing hash set of the edges:
    ``O(n + m)`` memory. Any other sequence goes through the configuration model with erasure
    of loops and multi-edges, degrees above ``n − 1`` first capped at ``n − 1``; the
    deviation is reported.
    """
    import igraph

    check_type(rng, np.random.Generator, "rng", "generate_1k", "a numpy.random.Generator")
    deg, cnt = _table(target, "degree", "generate_1k")
    t0 = time.perf_counter()
    plan = generate_1k_memory(target)
    require_memory(plan["bytes"], what="generate_1k",
                   parameter=f"the table's {plan['nodes']:,} nodes and about "
                             f"{plan['edges']:,} edges")
    _log.info("1K generation: %d nodes, %d stubs", plan["nodes"], 2 * plan["edges"])
    seq = rng.permutation(np.repeat(deg[:, 0], cnt))
    graphical = bool(seq.size) and igraph.is_graphical(seq.tolist(), loops=False,
                                                        multiple=False)
    if graphical:
        G = _switched_realization(seq, rng, progress)
        method = "havel-hakimi+edge-switching"
    else:
        G = _configuration_erased(seq, rng)
        method = "configuration-model-erased"
    want_keys, want_counts = np.unique(seq, return_counts=True)
    real_keys, real_counts = np.unique(G.degrees, return_counts=True)
    dev = {"1k_l1": _sparse_l1(want_keys, want_counts, real_keys, real_counts)}
    return SyntheticGraph(G, 1, method, dev["1k_l1"] == 0, dev, time.perf_counter() - t0)


def _switched_realization(seq: npt.NDArray[np.int64], rng: np.random.Generator,
                          progress: ProgressFn) -> Graph:
    """Havel–Hakimi, then ``SWITCHES_PER_EDGE · m`` switching trials in ~1 % blocks."""
    n = int(seq.size)
    m = int(seq.sum()) // 2
    with progress_step(progress, "1K Havel-Hakimi"):
        u, v = _havel_hakimi(np.ascontiguousarray(seq, dtype=np.int64), m)
        size = 1 << max(int(2 * m - 1).bit_length(), 4)  # load factor <= 1/2
        table = _edge_table(u, v, n, size)
    trials = SWITCHES_PER_EDGE * m
    step = max(trials // 100, 1 << 16)
    _seed_numba(int(rng.integers(2**32)))
    done = 0
    progress("1K edge switching", 0, trials)
    while done < trials:
        block = min(step, trials - done)
        _switch_edges(u, v, n, table, block)
        done += block
        progress("1K edge switching", done, trials)
    del table
    with progress_step(progress, "1K graph"):
        return _graph_from_simple_edges(u, v, n)


@numba.njit(cache=True)
def _seed_numba(seed: int) -> None:  # pragma: no cover - numba
    np.random.seed(seed)  # noqa: NPY002 - numba supports only the legacy API


def _configuration_erased(seq: npt.NDArray[np.int64], rng: np.random.Generator) -> Graph:
    """Configuration model, loops and multi-edges erased; degrees above ``n − 1`` are capped
    at ``n − 1`` first (no simple graph holds more)."""
    seq = np.minimum(seq, max(seq.size - 1, 0))
    stubs = np.repeat(np.arange(seq.size), seq)
    if stubs.size % 2:
        stubs = stubs[:-1]
    stubs = rng.permutation(stubs)
    u, v = stubs[0::2], stubs[1::2]
    return Graph.from_edges(u, v, n_nodes=seq.size)  # loops and duplicates dropped


# ----------------------------------------------------------------------------- 2K
@numba.njit(cache=True)
def _has_edge(adj: Any, start: Any, ln: Any, a: int, b: int) -> bool:  # pragma: no cover
    if ln[a] > ln[b]:
        a, b = b, a
    for p in range(start[a], start[a] + ln[a]):
        if adj[p] == b:
            return True
    return False


@numba.njit(cache=True)
def _jdg_init(cls_deg: Any, cls_n: Any, cls_slots: Any, seed: int) -> Any:  # pragma: no cover
    """State of the construction: class ``c`` has ``cls_n[c]`` nodes of degree ``cls_deg[c]``,
    each with ``cls_slots[c] <= cls_deg[c]`` adjacency slots (a node can never hold more
    edges than its class's stubs or ``n - 1``). Seeds numba's generator for the placement."""
    np.random.seed(seed)  # noqa: NPY002 - numba supports only the legacy API
    nc = cls_deg.size
    cls_first = np.zeros(nc + 1, dtype=np.int64)
    for c in range(nc):
        cls_first[c + 1] = cls_first[c] + cls_n[c]
    n = cls_first[nc]
    node_cls = np.empty(n, dtype=np.int64)
    resid = np.empty(n, dtype=np.int64)
    start = np.zeros(n + 1, dtype=np.int64)
    for c in range(nc):
        for v in range(cls_first[c], cls_first[c + 1]):
            node_cls[v] = c
            resid[v] = cls_deg[c]
            start[v + 1] = start[v] + cls_slots[c]
    adj = np.empty(start[n], dtype=np.int64)
    ln = np.zeros(n, dtype=np.int64)
    # unsaturated nodes of each class: unsat[cls_first[c] : cls_first[c] + n_unsat[c]]
    unsat = np.arange(n)
    pos = np.arange(n)
    n_unsat = cls_n.copy()
    return cls_first, node_cls, resid, start, adj, ln, unsat, pos, n_unsat


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
               pos: Any, n_unsat: Any) -> None:  # pragma: no cover - numba
    """Gjoka et al.: place the ``ms[e]`` edges between classes ``ks[e]`` and ``ls[e]`` for
    the cells ``e0 <= e < e1`` (random non-adjacent pairs, neighbour switches)."""
    for e in range(e0, e1):
        k, kl, m = ks[e], ls[e], ms[e]
        if m == 0:
            continue
        k0, kn = cls_first[k], cls_n[k]
        l0, lnn = cls_first[kl], cls_n[kl]
        tries = 0
        limit = 50 * (kn * lnn + 100)
        while m > 0:
            tries += 1
            if tries < limit:
                v = k0 + np.random.randint(0, kn)  # noqa: NPY002
                w = l0 + np.random.randint(0, lnn)  # noqa: NPY002
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


def _sparse_l1(keys_a: Any, counts_a: Any, keys_b: Any, counts_b: Any) -> float:
    """``Σ |a − b|`` over the union of two sparse vectors given as (unique keys, counts)."""
    keys = np.concatenate([keys_a, keys_b])
    vals = np.concatenate([np.asarray(counts_a, dtype=np.float64),
                           -np.asarray(counts_b, dtype=np.float64)])
    uniq, inv = np.unique(keys, return_inverse=True)
    return float(np.abs(np.bincount(inv.ravel(), weights=vals, minlength=uniq.size)).sum())


def jdd_feasible(deg: npt.NDArray[np.int64], cnt: npt.NDArray[np.int64]) -> dict[str, Any]:
    """Class sizes ``n_k = ⌈s_k / k⌉`` and whether the 2K table is realizable as is.

    ``s_k = Σ_{l != k} m(k, l) + 2 m(k, k)``; realizable iff every ``s_k`` is divisible by
    ``k``, ``m(k, l) <= n_k n_l`` and ``m(k, k) <= n_k (n_k − 1) / 2`` (Stanton & Pinar,
    Theorem 1; ``networkx.is_valid_joint_degree``).

    Returns
    -------
    dict
        ``degrees``: the distinct degrees of the table (sorted); ``n_k`` and ``stubs``: per
        entry of ``degrees``; ``divisible``, ``capacity_ok``; ``capacity``: per table row,
        the most edges its cell can hold. Memory is linear in the number of table rows,
        whatever the degree values.
    """
    deg = np.asarray(deg, dtype=np.int64).reshape(-1, 2)
    cnt = np.asarray(cnt, dtype=np.int64)
    degrees, inv = np.unique(deg, return_inverse=True)
    inv = inv.reshape(deg.shape)
    stubs = (np.bincount(inv[:, 0], weights=cnt, minlength=degrees.size)
             + np.bincount(inv[:, 1], weights=cnt, minlength=degrees.size))
    stubs = np.rint(stubs).astype(np.int64)
    nk = -(-stubs // np.maximum(degrees, 1))
    divisible = bool((stubs % np.maximum(degrees, 1) == 0).all())
    a, b = nk[inv[:, 0]], nk[inv[:, 1]]
    cap = np.where(deg[:, 0] == deg[:, 1], a * (a - 1) // 2, a * b)
    return {"degrees": degrees, "n_k": nk, "stubs": stubs, "divisible": divisible,
            "capacity_ok": bool((cnt <= cap).all()), "capacity": cap}


def generate_2k_memory(target: DKDistribution | dict[Any, int]) -> dict[str, int]:
    """Nodes, edges and estimated peak bytes of :func:`generate_2k` on ``target``.

    ``nodes = Σ n_k``, ``edges = Σ min(m(k, l), capacity)``; the estimate counts the
    construction state (about 64 bytes per node), the adjacency slots (8 bytes each; a node of
    class ``k`` gets ``min(k, s_k, n − 1)``), the exported CSR and the realized-2K check
    (about 40 bytes per edge). It is linear in the table rows and the implied graph, never in
    the degree values.
    """
    deg, cnt = _table(target, "joint_degree", "generate_2k_memory")
    deg, cnt = _fold(deg, cnt, isinstance(target, dict))
    if not cnt.size:
        return {"nodes": 0, "edges": 0, "bytes": 0}
    plan = _plan(deg, cnt)
    return {"nodes": plan["n"], "edges": plan["m"], "bytes": plan["bytes"]}


def _fold(deg: npt.NDArray[np.int64], cnt: npt.NDArray[np.int64], symmetric: bool
          ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Rows as ``k <= l`` with positive counts (a symmetric dict keeps one of each pair)."""
    lo, hi = np.minimum(deg[:, 0], deg[:, 1]), np.maximum(deg[:, 0], deg[:, 1])
    if symmetric and lo.size:
        _, first = np.unique(np.stack([lo, hi], axis=1), axis=0, return_index=True)
        lo, hi, cnt = lo[first], hi[first], cnt[first]
    keep = cnt > 0
    return np.stack([lo[keep], hi[keep]], axis=1), cnt[keep]


def _plan(deg: npt.NDArray[np.int64], cnt: npt.NDArray[np.int64]) -> dict[str, Any]:
    """Classes, capped counts, adjacency slots and the memory estimate of a 2K target."""
    feas = jdd_feasible(deg, cnt)
    capped = np.minimum(cnt, feas["capacity"])
    degrees, nk = feas["degrees"], feas["n_k"]
    present = np.flatnonzero(nk)
    cls_of = np.full(degrees.size, -1, dtype=np.int64)
    cls_of[present] = np.arange(present.size)
    inv = np.searchsorted(degrees, deg)
    ks, ls = cls_of[inv[:, 0]], cls_of[inv[:, 1]]
    # stubs each class can actually use after capping: a node never holds more
    used = (np.bincount(ks, weights=capped, minlength=present.size)
            + np.bincount(ls, weights=capped, minlength=present.size))
    cls_deg = degrees[present]
    cls_n = nk[present]
    n = int(cls_n.sum())
    slots = np.minimum(np.minimum(cls_deg, np.rint(used).astype(np.int64)), max(n - 1, 0))
    m = int(capped.sum())
    n_slots = int((cls_n.astype(np.float64) * slots).sum())
    est = 64 * n + 8 * n_slots + 40 * m
    return {"feas": feas, "capped": capped, "ks": ks, "ls": ls, "cls_deg": cls_deg,
            "cls_n": cls_n, "slots": slots, "n": n, "m": m, "bytes": est}


def generate_2k(target: DKDistribution | dict[Any, int], *, rng: np.random.Generator,
                progress: ProgressFn = log_progress) -> SyntheticGraph:
    """A simple graph with the given joint degree distribution (2K).

    Parameters
    ----------
    target
        A 2K table: ``(k, l) -> number of edges`` with ``k <= l`` (a dict may also give both
        orders; they must agree).
    rng
        Randomness of the construction.
    progress
        ``progress(task, done, total)`` callback (``"2K placement"``, counted in edges).

    Returns
    -------
    SyntheticGraph
        ``exact`` True when the realized 2K equals the target — always the case when the target
        is realizable (:func:`jdd_feasible`). Isolated nodes are not part of a 2K and are not
        generated.

    Raises
    ------
    InvalidParameterError
        Non-integer or negative counts, a wrong table kind, or a table whose implied graph
        (:func:`generate_2k_memory`) does not fit in the available memory.

    Notes
    -----
    Same algorithm and guarantees as ``networkx.joint_degree_graph`` (Gjoka et al. 2015),
    compiled with numba on flat adjacency arrays; ``O(m · h)`` adjacency checks. Memory is
    ``O(n + m + rows)``: classes are indexed by the distinct degrees of the table and the
    deviation from the target is computed on the non-zero cells only, so a table naming a
    degree of 10⁹ costs no more than one naming 10.
    """
    check_type(rng, np.random.Generator, "rng", "generate_2k", "a numpy.random.Generator")
    deg, cnt = _table(target, "joint_degree", "generate_2k")
    t0 = time.perf_counter()
    deg, cnt = _fold(deg, cnt, isinstance(target, dict))
    if not cnt.size:
        G = Graph.from_edges([], [], n_nodes=0)
        return SyntheticGraph(G, 2, "gjoka-numba", True, {"2k_l1": 0.0, "1k_l1": 0.0},
                              time.perf_counter() - t0)
    plan = _plan(deg, cnt)
    require_memory(plan["bytes"], what="generate_2k",
                   parameter=f"the table's implied {plan['n']:,} nodes and "
                             f"{plan['m']:,} edges")
    _log.info("2K generation: %d nodes, %d edges, %d table rows", plan["n"], plan["m"],
              cnt.size)
    seed = int(rng.integers(2**32))
    cls_first, node_cls, resid, start, adj, ln, unsat, pos, n_unsat = _jdg_init(
        plan["cls_deg"], plan["cls_n"], plan["slots"], seed)
    ks, ls, ms = plan["ks"], plan["ls"], plan["capped"].astype(np.int64)
    done = np.cumsum(ms)
    total = int(done[-1])
    step = max(total // 100, _MIN_BLOCK_EDGES)  # ~1 % per progress step, few calls if small
    bounds = np.unique(np.concatenate([[0], np.searchsorted(done, np.arange(step, total, step),
                                                            side="right"), [ms.size]]))
    progress("2K placement", 0, total)
    for e0, e1 in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        _jdg_place(ks, ls, ms, e0, e1, plan["cls_n"], cls_first, node_cls, resid, start, adj,
                   ln, unsat, pos, n_unsat)
        progress("2K placement", int(done[e1 - 1]), total)
    del node_cls, resid, unsat, pos, n_unsat
    with progress_step(progress, "2K graph and deviation"):
        n = int(ln.size)
        m2 = int(ln.sum())
        indptr = np.empty(n + 1, dtype=np.int32 if m2 <= _I32 else np.int64)
        indices = np.empty(m2, dtype=np.int32 if n - 1 <= _I32 else np.int64)
        _jdg_csr(start, adj, ln, indptr, indices)
        del start, adj, ln
        G = Graph(indptr, indices, validate=False)
        dev = _deviation_2k(G, deg, cnt, plan)
    return SyntheticGraph(G, 2, "gjoka-numba", dev["2k_l1"] == 0, dev,
                          time.perf_counter() - t0)


def _deviation_2k(G: Graph, deg: npt.NDArray[np.int64], cnt: npt.NDArray[np.int64],
                  plan: dict[str, Any]) -> dict[str, float]:
    """L1 of the realized 2K and 1K against the target, over their non-zero cells only."""
    real_deg = G.degrees
    values = np.unique(np.concatenate([plan["feas"]["degrees"], real_deg]))
    drank = np.searchsorted(values, real_deg)
    base = values.size + 1
    real_keys, real_counts = np.unique(_pair_ranks(G.indptr, G.indices, drank, base),
                                       return_counts=True)
    tr = np.searchsorted(values, deg)
    want_keys = tr[:, 0] * base + tr[:, 1]
    hist_keys, hist_counts = np.unique(drank, return_counts=True)
    return {
        "2k_l1": _sparse_l1(want_keys, cnt, real_keys, real_counts),
        "1k_l1": _sparse_l1(np.searchsorted(values, plan["feas"]["degrees"]), plan["feas"]["n_k"],
                            hist_keys, hist_counts),
    }


def dk_graph(target: DKDistribution, *, rng: np.random.Generator,
             progress: ProgressFn = log_progress) -> SyntheticGraph:
    """Dispatch on the table kind: :func:`generate_1k` or :func:`generate_2k`."""
    if not isinstance(target, DKDistribution) or target.kind not in ("degree", "joint_degree"):
        raise InvalidParameterError(
            "dk_graph needs a 1K (degree) or 2K (joint_degree) DKDistribution; 3K generation "
            "is not supported."
        )
    if target.kind == "degree":
        return generate_1k(target, rng=rng, progress=progress)
    return generate_2k(target, rng=rng, progress=progress)


# ----------------------------------------------------------------------------- utility
def synthetic_utility(original: Graph, synthetic: Graph, *, rng: np.random.Generator,
                      n_sources: int = 200) -> dict[str, Any]:
    """Utility of a synthetic graph against the original.

    Returns L1 / KS / Euclidean distances of the 1K and 2K distributions (over the union of
    their degree domains), average local clustering, degree assortativity (both graphs), and
    the shortest-path-length distribution of each graph from ``n_sources`` sampled sources
    (``path_length_hist``: count of reachable pairs per length) with their KS distance.
    """
    n_sources = check_int(n_sources, "n_sources", "synthetic_utility", low=1)
    out: dict[str, Any] = {}
    h = max(original.degrees.max(initial=0), synthetic.degrees.max(initial=0), 1)
    a1 = degree_distribution(original).to_dense(int(h))
    b1 = degree_distribution(synthetic).to_dense(int(h))
    a2 = joint_degree_distribution(original).to_dense(int(h))
    b2 = joint_degree_distribution(synthetic).to_dense(int(h))
    for name, a, b in (("1k", a1, b1), ("2k", a2, b2)):
        out[f"{name}_l1"] = l1_distance(a, b)
        out[f"{name}_ks"] = ks_distance(a, b)
        out[f"{name}_euclidean"] = euclidean_distance(a, b)
    for label, G in (("original", original), ("synthetic", synthetic)):
        g = G.to_igraph()
        out[f"avg_clustering_{label}"] = float(g.transitivity_avglocal_undirected(mode="zero"))
        out[f"assortativity_{label}"] = (float(g.assortativity_degree(directed=False))
                                         if g.ecount() else float("nan"))
        out[f"path_length_hist_{label}"] = _path_lengths(g, rng, n_sources)
    out["path_length_ks"] = ks_distance(out["path_length_hist_original"],
                                        out["path_length_hist_synthetic"])
    return out


def _path_lengths(g: Any, rng: np.random.Generator, n_sources: int) -> list[int]:
    n = g.vcount()
    if n == 0:
        return []
    src = rng.choice(n, size=min(n, n_sources), replace=False)
    dist = np.asarray(g.distances(source=src.tolist()), dtype=np.float64)
    finite = dist[np.isfinite(dist) & (dist > 0)].astype(np.int64)
    return np.bincount(finite).tolist() if finite.size else []
