"""Synthetic dK-graphs: simple graphs realizing a 1K or 2K distribution, and their utility.

* 1K: a graphical degree sequence is realized exactly (Havel–Hakimi followed by degree-
  preserving edge switching, the chain of igraph's ``edge_switching_simple``, in numba); a
  non-graphical one (e.g. a noisy release) by the configuration model with erasure of loops
  and multi-edges, and the deviation is reported. The numba kernels are in
  :mod:`._generate_kernels`, loaded on first use.
* 2K: the construction of Stanton & Pinar / Gjoka, Tillman & Markopoulou (the algorithm of
  ``networkx.joint_degree_graph``) compiled with numba: pick random nodes ``v, w`` of degrees
  ``k, l`` that are not adjacent; if one has no free stub, a *neighbour switch* frees one
  without changing the joint degrees. A small target (:data:`SMALL_2K_EDGES`) is placed by
  the kernel's Python reference while numba is not loaded, on the same splitmix64 stream,
  so the graph does not depend on the engine and a small ``generate`` never starts numba.
  A realizable target is reproduced exactly. A target that is not realizable is first made
  feasible (``n_k = ⌈s_k / k⌉`` nodes per class,
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
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

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
    "is_graphical",
    "jdd_feasible",
    "synthetic_utility",
]

_log = logging.getLogger(__name__)
_I32 = int(np.iinfo(np.int32).max)
#: Smallest block of edges placed per kernel call (keeps the call overhead of small tables low).
_MIN_BLOCK_EDGES = 1 << 16
#: 2K targets of at most this many edges are placed by the Python reference
#: (:func:`_jdg_place_python`, about 3 µs per edge) while numba is not started in the
#: process: starting numba and loading the cached kernels costs about 0.5 s. Both take
#: the same steps on the same random stream, so the graph does not depend on the engine.
SMALL_2K_EDGES = 1 << 16


def _kernels() -> Any:
    from . import _generate_kernels

    return _generate_kernels


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


def _graph_from_simple_edges(u: npt.NDArray[np.int64], v: npt.NDArray[np.int64], n: int
                             ) -> Graph:
    m = int(u.size)
    indptr = np.empty(n + 1, dtype=np.int32 if 2 * m <= _I32 else np.int64)
    indices = np.empty(2 * m, dtype=np.int32 if n - 1 <= _I32 else np.int64)
    _kernels()._simple_csr(u, v, n, indptr, indices)
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
    check_type(rng, np.random.Generator, "rng", "generate_1k", "a numpy.random.Generator")
    deg, cnt = _table(target, "degree", "generate_1k")
    t0 = time.perf_counter()
    plan = generate_1k_memory(target)
    require_memory(plan["bytes"], what="generate_1k",
                   parameter=f"the table's {plan['nodes']:,} nodes and about "
                             f"{plan['edges']:,} edges")
    _log.info("1K generation: %d nodes, %d stubs", plan["nodes"], 2 * plan["edges"])
    seq = rng.permutation(np.repeat(deg[:, 0], cnt))
    graphical = bool(seq.size) and is_graphical(seq)
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


def is_graphical(seq: Any) -> bool:
    """Whether a simple graph has the degree sequence ``seq`` (Erdős–Gallai, vectorized).

    With ``d`` sorted decreasingly and ``S_k = d_1 + … + d_k``: the sum is even and, for every
    ``k``, ``S_k <= k(k − 1) + Σ_{i>k} min(d_i, k)``. The right sum is
    ``k · max(0, c_k − k) + (S_n − S_{max(k, c_k)})`` with ``c_k = #{i : d_i >= k}``, so the
    whole test is a sort and a few vector operations (``O(n log n)``).
    """
    d = np.sort(np.asarray(seq, dtype=np.int64).ravel())[::-1]
    n = d.size
    if n == 0:
        return True
    if d[-1] < 0 or int(d.sum()) % 2:
        return False
    k = np.arange(1, n + 1, dtype=np.int64)
    S = np.concatenate([[0], np.cumsum(d)])
    c = n - np.searchsorted(d[::-1], k, side="left")  # entries >= k
    right = k * np.maximum(c - k, 0) + (S[n] - S[np.maximum(k, c)])
    return bool(np.all(S[1:] <= k * (k - 1) + right))


def _switched_realization(seq: npt.NDArray[np.int64], rng: np.random.Generator,
                          progress: ProgressFn) -> Graph:
    """Havel–Hakimi, then ``SWITCHES_PER_EDGE · m`` switching trials in ~1 % blocks."""
    n = int(seq.size)
    m = int(seq.sum()) // 2
    kern = _kernels()
    with progress_step(progress, "1K Havel-Hakimi"):
        u, v = kern._havel_hakimi(np.ascontiguousarray(seq, dtype=np.int64), m)
        size = 1 << max(int(2 * m - 1).bit_length(), 4)  # load factor <= 1/2
        table = kern._edge_table(u, v, n, size)
    trials = SWITCHES_PER_EDGE * m
    step = max(trials // 100, 1 << 16)
    kern._seed_numba(int(rng.integers(2**32)))
    done = 0
    progress("1K edge switching", 0, trials)
    while done < trials:
        block = min(step, trials - done)
        kern._switch_edges(u, v, n, table, block)
        done += block
        progress("1K edge switching", done, trials)
    del table
    with progress_step(progress, "1K graph"):
        return _graph_from_simple_edges(u, v, n)


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
_M64 = (1 << 64) - 1
#: Random draws per pair of a cell's classes before the placement scans for a free pair.
TRIES_PER_PAIR = 50
#: splitmix64 (Steele, Lea & Flood 2014; increment and the two mixing multipliers): the 2K
#: placement's random stream, the same in the kernel and in :func:`_jdg_place_python`.
SPLITMIX64 = (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB)


def _jdg_init(cls_deg: npt.NDArray[np.int64], cls_n: npt.NDArray[np.int64],
              cls_slots: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], ...]:
    """State of the construction: class ``c`` has ``cls_n[c]`` nodes of degree ``cls_deg[c]``,
    each with ``cls_slots[c] <= cls_deg[c]`` adjacency slots (a node can never hold more
    edges than its class's stubs or ``n - 1``). Returns ``cls_first, node_cls, resid, start,
    adj, ln, unsat, pos, n_unsat``; the unsaturated nodes of class ``c`` are
    ``unsat[cls_first[c] : cls_first[c] + n_unsat[c]]``."""
    nc = cls_deg.size
    cls_first = np.zeros(nc + 1, dtype=np.int64)
    np.cumsum(cls_n, out=cls_first[1:])
    n = int(cls_first[nc])
    node_cls = np.repeat(np.arange(nc, dtype=np.int64), cls_n)
    resid = np.repeat(cls_deg.astype(np.int64), cls_n)
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.repeat(cls_slots.astype(np.int64), cls_n), out=start[1:])
    adj = np.empty(int(start[n]), dtype=np.int64)
    ln = np.zeros(n, dtype=np.int64)
    return (cls_first, node_cls, resid, start, adj, ln, np.arange(n, dtype=np.int64),
            np.arange(n, dtype=np.int64), cls_n.astype(np.int64))


def _jdg_place_python(ks: list[int], ls: list[int], ms: list[int], cls_n: list[int],
                      cls_first: list[int], node_cls: list[int], resid: list[int],
                      start: list[int], adj: list[int], ln: list[int], unsat: list[int],
                      pos: list[int], n_unsat: list[int], seed: int,
                      tries: int = TRIES_PER_PAIR) -> int:
    """The reference of the kernel :func:`._generate_kernels._jdg_place` on Python lists
    (changed in place), for small targets: the same steps and the same splitmix64 draws from
    ``seed``, so the same graph. After ``tries · (k_n l_n + 100)`` draws for one cell, free
    pairs are found by a scan. Returns the final state of the random stream."""
    gamma, mix1, mix2 = SPLITMIX64
    state = seed

    def below(n: int) -> int:
        nonlocal state
        state = (state + gamma) & _M64
        z = ((state ^ (state >> 30)) * mix1) & _M64
        z = ((z ^ (z >> 27)) * mix2) & _M64
        return (z ^ (z >> 31)) % n

    def has_edge(a: int, b: int) -> bool:
        if ln[a] > ln[b]:
            a, b = b, a
        return b in adj[start[a]:start[a] + ln[a]]

    def drop_unsat(v: int) -> None:
        c = node_cls[v]
        last = cls_first[c] + n_unsat[c] - 1
        p = pos[v]
        if p > last:
            return
        u = unsat[last]
        unsat[p] = u
        pos[u] = p
        unsat[last] = v
        pos[v] = last
        n_unsat[c] -= 1

    def switch(w: int, avoid: int) -> None:
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
            if s != wp and not has_edge(wp, s):
                adj[p] = adj[start[w] + ln[w] - 1]
                ln[w] -= 1
                q = adj.index(w, start[s], start[s] + ln[s])
                adj[q] = wp
                adj[start[wp] + ln[wp]] = s
                ln[wp] += 1
                resid[w] += 1
                resid[wp] -= 1
                if resid[wp] == 0:
                    drop_unsat(wp)
                return

    for k, kl, m in zip(ks, ls, ms, strict=True):
        if m == 0:
            continue
        k0, kn = cls_first[k], cls_n[k]
        l0, lnn = cls_first[kl], cls_n[kl]
        drawn = 0
        limit = tries * (kn * lnn + 100)
        while m > 0:
            drawn += 1
            if drawn < limit:
                v = k0 + below(kn)
                w = l0 + below(lnn)
            else:  # deterministic fallback scan for a free pair (near-complete blocks)
                pair = next(((a, b) for a in range(k0, k0 + kn) for b in range(l0, l0 + lnn)
                             if a != b and not has_edge(a, b)), None)
                if pair is None:
                    break
                v, w = pair
            if v == w or has_edge(v, w):
                continue
            if resid[v] == 0:
                switch(v, -1)
            if resid[w] == 0:
                switch(w, v if k == kl else -1)
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
                drop_unsat(v)
            if resid[w] == 0:
                drop_unsat(w)
    return state


def _place_2k(plan: dict[str, Any], seed: int, python: bool, progress: ProgressFn,
              tries: int = TRIES_PER_PAIR) -> Graph:
    """Place the edges of a :func:`_plan` from the random stream ``seed`` with the Python
    reference or the numba kernel (the same graph either way) and return the graph."""
    state = _jdg_init(plan["cls_deg"], plan["cls_n"], plan["slots"])
    cls_first, node_cls, resid, start, adj, ln, unsat, pos, n_unsat = state
    ks, ls, ms = plan["ks"], plan["ls"], plan["capped"].astype(np.int64)
    total = int(ms.sum())
    progress("2K placement", 0, total)
    if python:
        py_start, py_adj, py_ln = start.tolist(), adj.tolist(), ln.tolist()
        _jdg_place_python(ks.tolist(), ls.tolist(), ms.tolist(), plan["cls_n"].tolist(),
                          cls_first.tolist(), node_cls.tolist(), resid.tolist(), py_start,
                          py_adj, py_ln, unsat.tolist(), pos.tolist(), n_unsat.tolist(), seed,
                          tries)
        start, adj, ln = (np.array(x, dtype=np.int64) for x in (py_start, py_adj, py_ln))
        progress("2K placement", total, total)
    else:
        kern = _kernels()
        rand = np.array([seed], dtype=np.uint64)
        done = np.cumsum(ms)
        step = max(total // 100, _MIN_BLOCK_EDGES)  # ~1 % per progress step
        bounds = np.unique(np.concatenate([[0], np.searchsorted(
            done, np.arange(step, total, step), side="right"), [ms.size]]))
        for e0, e1 in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
            kern._jdg_place(ks, ls, ms, e0, e1, plan["cls_n"], cls_first, node_cls, resid,
                            start, adj, ln, unsat, pos, n_unsat, rand, tries)
            progress("2K placement", int(done[e1 - 1]), total)
    del state, node_cls, resid, unsat, pos, n_unsat
    with progress_step(progress, "2K graph"):
        if python:
            indptr, indices = _csr_of_slots(start, adj, ln)
        else:
            n = int(ln.size)
            m2 = int(ln.sum())
            indptr = np.empty(n + 1, dtype=np.int32 if m2 <= _I32 else np.int64)
            indices = np.empty(m2, dtype=np.int32 if n - 1 <= _I32 else np.int64)
            kern._jdg_csr(start, adj, ln, indptr, indices)
        return Graph(indptr, indices, validate=False)


def _use_python(m: int) -> bool:
    """The Python placement for a small target while numba is not started in the process
    (once it is, loading one more cached kernel is cheaper than placing in Python)."""
    return m <= SMALL_2K_EDGES and "numba" not in sys.modules


def _csr_of_slots(start: npt.NDArray[np.int64], adj: npt.NDArray[np.int64],
                  ln: npt.NDArray[np.int64]) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """The placed adjacency as a CSR with sorted rows (numpy; the kernel
    :func:`._generate_kernels._jdg_csr` does the same without the temporaries)."""
    n = ln.size
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(ln, out=indptr[1:])
    rows = np.repeat(np.arange(n, dtype=np.int64), ln)
    cols = adj[start[rows] + np.arange(rows.size, dtype=np.int64) - indptr[rows]]
    cols = cols[np.lexsort((cols, rows))]
    m2 = int(indptr[-1])
    return (indptr.astype(np.int32 if m2 <= _I32 else np.int64),
            cols.astype(np.int32 if n - 1 <= _I32 else np.int64))



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
    compiled with numba on flat adjacency arrays (a target of at most
    :data:`SMALL_2K_EDGES` edges: its Python reference, the same graph, while numba is not
    loaded); ``O(m · h)`` adjacency checks. Memory is
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
        return SyntheticGraph(G, 2, "gjoka", True, {"2k_l1": 0.0, "1k_l1": 0.0},
                              time.perf_counter() - t0)
    plan = _plan(deg, cnt)
    require_memory(plan["bytes"], what="generate_2k",
                   parameter=f"the table's implied {plan['n']:,} nodes and "
                             f"{plan['m']:,} edges")
    _log.info("2K generation: %d nodes, %d edges, %d table rows", plan["n"], plan["m"],
              cnt.size)
    seed = int(rng.integers(2**32))
    python = _use_python(plan["m"])
    G = _place_2k(plan, seed, python, progress)
    with progress_step(progress, "2K deviation"):
        dev = _deviation_2k(G, deg, cnt, plan, python)
    return SyntheticGraph(G, 2, "gjoka", dev["2k_l1"] == 0, dev,
                          time.perf_counter() - t0)


def _deviation_2k(G: Graph, deg: npt.NDArray[np.int64], cnt: npt.NDArray[np.int64],
                  plan: dict[str, Any], python: bool = False) -> dict[str, float]:
    """L1 of the realized 2K and 1K against the target, over their non-zero cells only."""
    real_deg = G.degrees
    values = np.unique(np.concatenate([plan["feas"]["degrees"], real_deg]))
    drank = np.searchsorted(values, real_deg)
    base = values.size + 1
    if python:  # numpy, with an int64 temporary per edge end (the kernel has none)
        u = np.repeat(np.arange(G.n_nodes, dtype=np.int64), np.diff(G.indptr))
        up = G.indices > u
        ru, rv = drank[u[up]], drank[G.indices[up]]
        pair_keys = np.minimum(ru, rv) * base + np.maximum(ru, rv)
    else:
        pair_keys = _kernels()._pair_ranks(G.indptr, G.indices, drank, base)
    real_keys, real_counts = np.unique(pair_keys, return_counts=True)
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
