"""Synthetic dK-graphs: simple graphs realizing a 1K or 2K distribution, and their utility.

* 1K: a graphical degree sequence is realized exactly (Havel–Hakimi followed by degree-
  preserving edge switching, igraph's ``edge_switching_simple``); a non-graphical one (e.g. a
  noisy release) by the configuration model with erasure of loops and multi-edges, and the
  deviation is reported.
* 2K: the construction of Stanton & Pinar / Gjoka, Tillman & Markopoulou (the algorithm of
  ``networkx.joint_degree_graph``) compiled with numba: pick random nodes ``v, w`` of degrees
  ``k, l`` that are not adjacent; if one has no free stub, a *neighbour switch* frees one
  without changing the joint degrees. A realizable target is reproduced exactly. A target that
  is not realizable is first made feasible (``n_k = ⌈s_k / k⌉`` nodes per class,
  ``m(k, l) <= n_k n_l``) and the deviation of the realized 1K/2K from the target reported.

References
----------
``004_*.txt`` chapter 6, Definition 19 (dK-graph); I. Stanton, A. Pinar, "Constructing and
sampling graphs with a prescribed joint degree distribution", JEA 2012; M. Gjoka, B. Tillman,
A. Markopoulou, "Construction of simple graphs with a target joint degree matrix and beyond",
INFOCOM 2015.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from .._validation import check_int
from ..errors import InvalidParameterError
from ..graph import Graph
from ..metrics import euclidean_distance, ks_distance, l1_distance
from .extract import DKDistribution, degree_distribution, joint_degree_distribution

__all__ = [
    "SyntheticGraph",
    "dk_graph",
    "generate_1k",
    "generate_2k",
    "synthetic_utility",
]


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
def generate_1k(target: DKDistribution | dict[Any, int], *, rng: np.random.Generator
                ) -> SyntheticGraph:
    """A simple graph with the given degree histogram.

    Parameters
    ----------
    target
        A 1K table (``degree -> number of nodes``).
    rng
        Randomness (edge switching, configuration model).

    Returns
    -------
    SyntheticGraph
        ``exact`` is True when the histogram is graphical (Erdős–Gallai) and hence realized.

    Raises
    ------
    InvalidParameterError
        Non-integer or negative counts, or a wrong table kind.
    """
    import igraph

    deg, cnt = _table(target, "degree", "generate_1k")
    t0 = time.perf_counter()
    seq = np.repeat(deg[:, 0], cnt)
    seq = rng.permutation(seq)
    graphical = bool(seq.size) and igraph.is_graphical(seq.tolist(), loops=False,
                                                        multiple=False)
    if graphical:
        old = random.Random()
        igraph.set_random_number_generator(random.Random(int(rng.integers(2**63))))
        try:
            g = igraph.Graph.Degree_Sequence(seq.tolist(), method="edge_switching_simple")
        finally:
            igraph.set_random_number_generator(random)
            del old
        G = Graph.from_igraph(g, id_attribute=None)
        method = "havel-hakimi+edge-switching"
    else:
        G = _configuration_erased(seq, rng)
        method = "configuration-model-erased"
    realized = np.bincount(G.degrees, minlength=seq.size and int(seq.max()) + 1)
    want = np.bincount(seq, minlength=realized.size) if seq.size else np.zeros(1, np.int64)
    dev = {"1k_l1": l1_distance(want, realized)}
    return SyntheticGraph(G, 1, method, dev["1k_l1"] == 0, dev, time.perf_counter() - t0)


def _configuration_erased(seq: npt.NDArray[np.int64], rng: np.random.Generator) -> Graph:
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
def _remove(adj: Any, start: Any, ln: Any, a: int, b: int) -> None:  # pragma: no cover
    for p in range(start[a], start[a] + ln[a]):
        if adj[p] == b:
            adj[p] = adj[start[a] + ln[a] - 1]
            ln[a] -= 1
            return


@numba.njit(cache=True)
def _jdg(ks: Any, ls: Any, ms: Any, cls_deg: Any, cls_n: Any, seed: int) -> Any:  # pragma: no cover
    """Gjoka et al. construction. Classes c have degree cls_deg[c] and cls_n[c] nodes."""
    np.random.seed(seed)  # noqa: NPY002 - numba supports only the legacy API
    nc = cls_deg.size
    cls_first = np.zeros(nc + 1, dtype=np.int64)
    for c in range(nc):
        cls_first[c + 1] = cls_first[c] + cls_n[c]
    n = cls_first[nc]
    node_cls = np.empty(n, dtype=np.int64)
    cap = np.empty(n, dtype=np.int64)
    for c in range(nc):
        for v in range(cls_first[c], cls_first[c + 1]):
            node_cls[v] = c
            cap[v] = cls_deg[c]
    start = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        start[v + 1] = start[v] + cap[v]
    adj = np.empty(start[n], dtype=np.int64)
    ln = np.zeros(n, dtype=np.int64)
    resid = cap.copy()
    # unsaturated nodes of each class: unsat[cls_first[c] : cls_first[c] + n_unsat[c]]
    unsat = np.arange(n)
    pos = np.arange(n)
    n_unsat = cls_n.copy()

    def drop_unsat(v: int) -> None:
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
                    drop_unsat(wp)
                return

    for e in range(ks.size):
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
    # export edges u < v
    cnt = 0
    for v in range(n):
        for p in range(start[v], start[v] + ln[v]):
            if adj[p] > v:
                cnt += 1
    eu = np.empty(cnt, dtype=np.int64)
    ev = np.empty(cnt, dtype=np.int64)
    t = 0
    for v in range(n):
        for p in range(start[v], start[v] + ln[v]):
            if adj[p] > v:
                eu[t] = v
                ev[t] = adj[p]
                t += 1
    return n, eu, ev


def jdd_feasible(deg: npt.NDArray[np.int64], cnt: npt.NDArray[np.int64]) -> dict[str, Any]:
    """Class sizes ``n_k = ⌈s_k / k⌉`` and whether the 2K table is realizable as is.

    ``s_k = Σ_{l != k} m(k, l) + 2 m(k, k)``; realizable iff every ``s_k`` is divisible by
    ``k``, ``m(k, l) <= n_k n_l`` and ``m(k, k) <= n_k (n_k − 1) / 2`` (Stanton & Pinar,
    Theorem 1; ``networkx.is_valid_joint_degree``).
    """
    k, l_ = deg[:, 0], deg[:, 1]
    hmax = int(deg.max()) if deg.size else 0
    stubs = np.bincount(k, weights=cnt, minlength=hmax + 1) + np.bincount(
        l_, weights=cnt, minlength=hmax + 1)
    stubs = np.rint(stubs).astype(np.int64)
    degs = np.arange(hmax + 1)
    nk = np.zeros(hmax + 1, dtype=np.int64)
    nk[1:] = -(-stubs[1:] // degs[1:])
    divisible = bool((stubs[1:] % degs[1:] == 0).all())
    cap = np.where(k == l_, nk[k] * (nk[k] - 1) // 2, nk[k] * nk[l_])
    return {"n_k": nk, "stubs": stubs, "divisible": divisible,
            "capacity_ok": bool((cnt <= cap).all()), "capacity": cap}


def generate_2k(target: DKDistribution | dict[Any, int], *, rng: np.random.Generator
                ) -> SyntheticGraph:
    """A simple graph with the given joint degree distribution (2K).

    Parameters
    ----------
    target
        A 2K table: ``(k, l) -> number of edges`` with ``k <= l`` (a dict may also give both
        orders; they must agree).
    rng
        Randomness of the construction.

    Returns
    -------
    SyntheticGraph
        ``exact`` True when the realized 2K equals the target — always the case when the target
        is realizable (:func:`jdd_feasible`). Isolated nodes are not part of a 2K and are not
        generated.

    Raises
    ------
    InvalidParameterError
        Non-integer or negative counts, or a wrong table kind.

    Notes
    -----
    Same algorithm and guarantees as ``networkx.joint_degree_graph`` (Gjoka et al. 2015),
    compiled with numba on flat adjacency arrays; ``O(m · h)`` adjacency checks.
    """
    deg, cnt = _table(target, "joint_degree", "generate_2k")
    t0 = time.perf_counter()
    lo, hi = np.minimum(deg[:, 0], deg[:, 1]), np.maximum(deg[:, 0], deg[:, 1])
    if isinstance(target, dict):  # fold a symmetric dict into k <= l
        key = lo * (int(hi.max(initial=0)) + 1) + hi
        _, first = np.unique(key, return_index=True)
        lo, hi, cnt = lo[first], hi[first], cnt[first]
    keep = cnt > 0
    deg = np.stack([lo[keep], hi[keep]], axis=1)
    cnt = cnt[keep]
    feas = jdd_feasible(deg, cnt) if cnt.size else None
    if feas is None:
        G = Graph.from_edges([], [], n_nodes=0)
        return SyntheticGraph(G, 2, "gjoka-numba", True, {"2k_l1": 0.0, "1k_l1": 0.0},
                              time.perf_counter() - t0)
    capped = np.minimum(cnt, feas["capacity"])
    nk = feas["n_k"]
    present = np.flatnonzero(nk)
    cls_of = np.full(nk.size, -1, dtype=np.int64)
    cls_of[present] = np.arange(present.size)
    seed = int(rng.integers(2**32))
    n, eu, ev = _jdg(cls_of[deg[:, 0]], cls_of[deg[:, 1]], capped.astype(np.int64),
                     present.astype(np.int64), nk[present].astype(np.int64), seed)
    G = Graph.from_edges(eu, ev, n_nodes=int(n))
    realized = joint_degree_distribution(G)
    h = max(int(deg.max()), realized.max_degree, 1)
    dev = {
        "2k_l1": l1_distance(_dense2(deg, cnt, h), realized.to_dense(h)),
        "1k_l1": l1_distance(nk, np.bincount(G.degrees, minlength=nk.size)),
    }
    return SyntheticGraph(G, 2, "gjoka-numba", dev["2k_l1"] == 0, dev,
                          time.perf_counter() - t0)


def _dense2(deg: npt.NDArray[np.int64], cnt: Any, h: int) -> npt.NDArray[np.float64]:
    return DKDistribution("joint_degree", deg, np.asarray(cnt, dtype=np.float64)).to_dense(h)


def dk_graph(target: DKDistribution, *, rng: np.random.Generator) -> SyntheticGraph:
    """Dispatch on the table kind: :func:`generate_1k` or :func:`generate_2k`."""
    if not isinstance(target, DKDistribution) or target.kind not in ("degree", "joint_degree"):
        raise InvalidParameterError(
            "dk_graph needs a 1K (degree) or 2K (joint_degree) DKDistribution; 3K generation "
            "is not supported."
        )
    if target.kind == "degree":
        return generate_1k(target, rng=rng)
    return generate_2k(target, rng=rng)


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
