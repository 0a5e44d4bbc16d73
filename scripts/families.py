"""Random graph families the synthetic pipeline was never tuned to (issue 36's "graphs it has
never seen"): ``bench_synthetic.py --families ba,ws,...`` runs them beside the datasets.

Each family is drawn once from a fixed seed (igraph's generators; scipy's for ``rgg3d``,
networkx's for ``holme_kim``), simplified, with node ids
``0..n−1``; ``*_rand`` relabels the same graph by a seeded random permutation, so its ids
carry no locality (``sbm_sorted``'s blocks are consecutive ids, ``rgg``'s ids follow one
coordinate).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from graphanon.graph import Graph


def _simple(g) -> tuple[np.ndarray, np.ndarray, int]:  # type: ignore[no-untyped-def]
    g = g.as_undirected() if g.is_directed() else g
    g.simplify()
    e = np.asarray(g.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    return e[:, 0], e[:, 1], g.vcount()


def _sbm():  # type: ignore[no-untyped-def]
    import igraph as ig

    n, k = 4000, 8
    P = np.full((k, k), 0.001)
    np.fill_diagonal(P, 0.02)
    return _simple(ig.Graph.SBM(P.tolist(), [n // k] * k))


def _union_ba_ws():  # type: ignore[no-untyped-def]
    import igraph as ig

    u1, v1, n1 = _simple(ig.Graph.Barabasi(2000, 3))
    u2, v2, n2 = _simple(ig.Graph.Watts_Strogatz(1, 2000, 4, 0.05))
    return np.concatenate([u1, u2 + n1]), np.concatenate([v1, v2 + n1]), n1 + n2


def _hub():  # type: ignore[no-untyped-def]
    import igraph as ig

    u, v, n = _simple(ig.Graph.Erdos_Renyi(2000, p=0.003))
    return (np.concatenate([u + 1, np.zeros(n, np.int64)]),
            np.concatenate([v + 1, np.arange(1, n + 1)]), n + 1)


def _rgg3d(rnd: random.Random):  # type: ignore[no-untyped-def]
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(rnd.getrandbits(32))
    pts = rng.random((3000, 3))
    pairs = cKDTree(pts).query_pairs(0.085, output_type="ndarray")  # mean degree ≈ 7
    return pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64), 3000


def _triangular():  # type: ignore[no-untyped-def]
    import igraph as ig

    g = ig.Graph.Triangular_Lattice([60, 50])
    g.rewire_edges(0.05)
    return _simple(g)


def _holme_kim(rnd: random.Random):  # type: ignore[no-untyped-def]
    import networkx as nx

    g = nx.powerlaw_cluster_graph(4000, 4, 0.5, seed=rnd.getrandbits(32))
    e = np.asarray(list(g.edges()), dtype=np.int64)
    return e[:, 0], e[:, 1], g.number_of_nodes()


def _sbm_unequal():  # type: ignore[no-untyped-def]
    import igraph as ig

    sizes = [1200, 800, 600, 400, 300, 200, 150, 100]
    k = len(sizes)
    P = np.full((k, k), 0.0015)
    np.fill_diagonal(P, [24.0 / s for s in sizes])  # intra degree ≈ 24 in every block
    return _simple(ig.Graph.SBM(np.minimum(P, 1.0).tolist(), sizes))


def _builders(rnd: random.Random) -> dict[str, Callable[[], tuple[np.ndarray, np.ndarray, int]]]:
    """The generators; igraph's draw from ``rnd`` through its RNG hook, the others directly."""
    import igraph as ig

    return {
        "rgg3d": lambda: _rgg3d(rnd),
        "triangular": _triangular,
        "ws_k3": lambda: _simple(ig.Graph.Watts_Strogatz(1, 2000, 3, 0.1)),
        "holme_kim": lambda: _holme_kim(rnd),
        "sbm_unequal": _sbm_unequal,
        "ba": lambda: _simple(ig.Graph.Barabasi(5000, 3)),
        "ws": lambda: _simple(ig.Graph.Watts_Strogatz(1, 3000, 5, 0.05)),
        "rgg": lambda: _simple(ig.Graph.GRG(3000, 0.03)),
        "forestfire": lambda: _simple(ig.Graph.Forest_Fire(5000, 0.37, 0.32 / 0.37, 1,
                                                           directed=False)),
        "sbm": _sbm,
        "union_ba_ws": _union_ba_ws,
        "hub": _hub,
    }


FAMILIES = ("ba", "ws", "rgg", "rgg_rand", "forestfire", "sbm_sorted", "sbm_rand",
            "union_ba_ws", "hub")
#: Held out (``--families holdout``): drawn after the nine above had shaped the pipeline, to
#: check its rules on graphs no choice was made on: a 3-D random geometric graph, a
#: triangular lattice with 5 % of its edges rewired, a ring lattice of another width and
#: rewiring, a Holme–Kim clustered power-law graph, planted blocks of unequal sizes.
HOLDOUT = ("rgg3d", "triangular", "ws_k3", "holme_kim", "sbm_unequal")
#: Every name :func:`family_graph` knows.
KNOWN = FAMILIES + HOLDOUT


def family_graph(name: str, seed: int = 0) -> Graph:
    """The family's graph, the same for the same ``(name, seed)``."""
    import igraph as ig

    base = ("sbm" if name in ("sbm_sorted", "sbm_rand") else name.removesuffix("_rand"))
    rnd = random.Random(1000 + seed)
    builders = _builders(rnd)
    if name not in KNOWN or base not in builders:
        raise KeyError(f"unknown family {name!r} (choose from {', '.join(KNOWN)})")
    ig.set_random_number_generator(rnd)
    try:
        u, v, n = builders[base]()
    finally:
        ig.set_random_number_generator(random)
    if name.endswith("_rand"):
        perm = np.random.default_rng(1000 + seed).permutation(n)
        u, v = perm[u], perm[v]
    return Graph.from_edges(u, v, n_nodes=n)
