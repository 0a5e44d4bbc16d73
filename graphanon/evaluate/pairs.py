"""Neighbouring pairs ``D ~ D'`` for the empirical audits of
:mod:`graphanon.evaluate.empirical_audit`.

Each generator returns :class:`Candidate` pairs that stress one neighbouring relation: the
worst cases its sensitivity derivation names (joined stars for edge-DP dK, hubs and edge-list
removals for node-DP, cliques for bounded triangles, one flipped cell or row for randomized
response) and random pairs that no derivation names (:data:`RANDOM_PAIRS` per audit, fixed
seeds: the pairs are test inputs, not noise). The audit keeps the pair with the largest
privacy loss under the mechanism's own calibration.

Split out of :mod:`graphanon.evaluate.empirical_audit` (issue 37), which still exports every
public name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..graph import BipartiteGraph, Graph

__all__ = [
    "RANDOM_PAIRS",
    "Candidate",
    "clique_pairs",
    "edge_list_pairs",
    "hub_pairs",
    "joined_star_pairs",
    "random_edge_pairs",
    "random_node_pairs",
]


@dataclass(frozen=True)
class Candidate:
    """A neighbouring pair ``D ~ D'`` with a description."""

    D: Any
    D_prime: Any
    description: str


def _star_pair_graph(a: int, b: int, *, joined: bool) -> Graph:
    """Two stars (centres 0 and a+1, with a and b leaves), centres joined or not."""
    u = [0] * a + [a + 1] * b
    v = list(range(1, a + 1)) + list(range(a + 2, a + b + 2))
    if joined:
        u.append(0)
        v.append(a + 1)
    return Graph.from_edges(np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64),
                            n_nodes=a + b + 2)


def joined_star_pairs(h: int) -> list[Candidate]:
    """Edge neighbours: two stars with ``a <= b <= h`` leaves, with / without the edge joining
    their centres. ``a = b = h − 1`` attains the 2K bound ``4h − 3`` (dk/release.py); ``a = b``
    small attains the 1K bound 4 with the change on two bins (``−2``, ``+2``)."""
    return [Candidate(_star_pair_graph(a, b, joined=False), _star_pair_graph(a, b, joined=True),
                      f"joined stars: centres with {a} and {b} leaves, edge between centres")
            for a in range(h + 1) for b in range(a, h + 1)]


def _hub_graph(m: int, leaves: int) -> Graph:
    """Hub 0 with ``m`` neighbours, each with ``leaves`` private leaves."""
    u: list[int] = []
    v: list[int] = []
    nxt = m + 1
    for i in range(1, m + 1):
        u.append(0)
        v.append(i)
        for _ in range(leaves):
            u.append(i)
            v.append(nxt)
            nxt += 1
    return Graph.from_edges(np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64),
                            n_nodes=nxt)


def hub_pairs(theta: int) -> list[Candidate]:
    """Node neighbours: a hub with ``m <= θ + 1`` neighbours that have ``l <= θ`` leaves each,
    with / without the hub. The star (``l = 0``, ``m = θ``) attains the 1K bound ``2θ + 1``;
    ``l = θ − 1`` gives the 2K change ``2θ² − θ`` of the ``θ(2θ + 1)`` bound."""
    out = []
    for m in range(1, theta + 2):
        for leaves in range(theta + 1):
            G = _hub_graph(m, leaves)
            keep = np.ones(G.n_nodes, dtype=bool)
            keep[0] = False
            out.append(Candidate(G, G.subgraph(keep),
                                 f"hub with {m} neighbours of {leaves} leaves each, removed"))
    return out


def edge_list_pairs(theta: int, leaves: int = 100) -> list[Candidate]:
    """Node neighbours as an edge list holds them (docs/node_dp.md, "Node set"): removing a
    node also removes each neighbour whose only edge was theirs. A ``leaves``-leaf star and
    the empty file (the attack that moved a degree-0 bin by ``leaves + 1``), and the hubs of
    :func:`hub_pairs` with the hub removed from the file."""
    from ..privacy.sensitivity_audit import remove_node_from_edge_list

    centre = np.zeros(leaves, dtype=np.int64)
    S = Graph.from_edges(centre, np.arange(1, leaves + 1, dtype=np.int64))
    empty = Graph.from_edges(centre[:0], centre[:0], n_nodes=0)
    out = [Candidate(S, empty, f"star with {leaves} leaves and the empty file")]
    for m in range(1, theta + 2):
        for lv in (0, theta):
            G = _hub_graph(m, lv)
            out.append(Candidate(G, remove_node_from_edge_list(G, 0),
                                 f"hub with {m} neighbours of {lv} leaves each, removed from "
                                 "the edge list"))
    return out


#: Random pairs added to every edge / node audit, beside its derivation's worst cases.
RANDOM_PAIRS = 40


def _random_graph(rng: np.random.Generator, n: int, max_degree: int | None) -> Graph:
    """A random simple graph on ``n`` nodes: the pairs in random order, each kept with
    probability ``p ~ U(0.2, 0.9)`` while both ends are below ``max_degree``."""
    iu, ju = np.triu_indices(n, 1)
    order = rng.permutation(iu.size)
    p = rng.uniform(0.2, 0.9)
    deg = np.zeros(n, dtype=np.int64)
    u: list[int] = []
    v: list[int] = []
    for e in order.tolist():
        a, b = int(iu[e]), int(ju[e])
        if rng.random() < p and (max_degree is None or max(deg[a], deg[b]) < max_degree):
            u.append(a)
            v.append(b)
            deg[a] += 1
            deg[b] += 1
    return Graph.from_edges(np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64),
                            n_nodes=n)


def clique_pairs(h: int) -> list[Candidate]:
    """Edge neighbours: two disjoint ``(h + 1)``-cliques, with / without one edge between
    them. The edge lifts both ends to degree ``h + 1``: they leave the degree-``<= h``
    subgraph with ``C(h, 2)`` triangles each, the bound ``h(h − 1)`` of
    :func:`graphanon.synthetic.clustering.release_bounded_triangles`."""
    iu, ju = np.triu_indices(h + 1, 1)
    u = np.concatenate([iu, iu + h + 1])
    v = np.concatenate([ju, ju + h + 1])
    n = 2 * h + 2
    apart = Graph.from_edges(u, v, n_nodes=n)
    joined = Graph.from_edges(np.append(u, 0), np.append(v, h + 1), n_nodes=n)
    return [Candidate(joined, apart, f"two {h + 1}-cliques joined by one edge")]


def random_edge_pairs(h: int, n_pairs: int = RANDOM_PAIRS, seed: int = 0) -> list[Candidate]:
    """Edge neighbours no derivation names: random graphs on 3 to ``2h + 2`` nodes with
    degrees at most ``h``, each with one of its edges removed. They guard against a wrong
    derivation (the derivation's own worst cases cannot): the audit keeps whichever pair has
    the largest privacy loss. Fixed ``seed``: the pairs are test inputs, not noise."""
    rng = np.random.default_rng(seed)
    out: list[Candidate] = []
    while len(out) < n_pairs:
        n = int(rng.integers(3, 2 * h + 3))
        G = _random_graph(rng, n, h)
        eu, ev = G.edges()
        if not eu.size:
            continue
        drop = int(rng.integers(eu.size))
        keep = np.arange(eu.size) != drop
        D_prime = Graph.from_edges(eu[keep], ev[keep], n_nodes=n)
        out.append(Candidate(G, D_prime, f"random graph on {n} nodes with {eu.size} edges, "
                                         f"edge {int(eu[drop])}-{int(ev[drop])} removed"))
    return out


def random_node_pairs(theta: int, n_pairs: int = RANDOM_PAIRS, seed: int = 0
                      ) -> list[Candidate]:
    """Node neighbours no derivation names: random graphs on 3 to ``2θ + 4`` nodes (any
    degree: the projection bounds them), each with one node and its edges removed."""
    rng = np.random.default_rng(seed)
    out: list[Candidate] = []
    for _ in range(n_pairs):
        n = int(rng.integers(3, 2 * theta + 5))
        G = _random_graph(rng, n, None)
        x = int(rng.integers(n))
        keep = np.arange(n) != x
        out.append(Candidate(G, G.subgraph(keep), f"random graph on {n} nodes with "
                                                  f"{G.n_edges} edges, node {x} removed"))
    return out


def _rr_pairs(n_features: int, level: str) -> list[Candidate]:
    feats = np.array([f"f{j}" for j in range(n_features)], dtype=object)
    users = np.array(["u"], dtype=object)
    if level == "edge":
        D = BipartiteGraph.from_pairs(np.array(["u", "u"], dtype=object), feats[:2],
                                      all_users=users, all_features=feats)
        Dp = BipartiteGraph.from_pairs(np.array(["u"], dtype=object), feats[:1],
                                       all_users=users, all_features=feats)
        return [Candidate(D, Dp, "one cell of a 1 × 2 matrix flipped")]
    D = BipartiteGraph.from_pairs(np.repeat(users, n_features), feats, all_users=users,
                                  all_features=feats)
    Dp = BipartiteGraph.from_pairs(np.zeros(0, dtype=object), np.zeros(0, dtype=object),
                                   all_users=users, all_features=feats)
    return [Candidate(D, Dp, f"one user's whole row of {n_features} cells flipped")]
