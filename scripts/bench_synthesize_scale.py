"""Benchmark: the edge-DP ``synthesize`` pipeline on graphs of 100,000 nodes (issue 36).

The shared datasets have at most 7,115 nodes; this script times the community pipeline
(:func:`graphanon.synthetic.communities.community_release` realized by
:func:`graphanon.synthetic.bter.generate_community_graph`, what ``synthesize`` runs under
edge-DP) stage by stage on two generated graphs it was not tuned to, and compares super-node
sizes (``--super-sizes``, default ``20,auto``: the fixed size of earlier rounds and
:func:`~graphanon.synthetic.communities.resolve_super_size`):

- ``planted``: ``--blocks`` planted communities of equal size listed in block order (the
  listing carries locality), average degree 20, 70 % of the edges inside a block;
- ``forestfire``: igraph's forest-fire model (forward 0.37, backward 0.32/0.37),
  simplified: 2.36 million edges at 100,000 nodes.

Reported per run: seconds of the partition, of the degrees and edge counts, of the triangle
statistic and the density fit, and of the generation; the number of communities; the
private partition's NMI to the planted blocks and its modularity on the true graph; the
synthetic graph's edge-count and global-clustering relative errors.

Usage::

    python scripts/bench_synthesize_scale.py [--nodes 100000] [--graphs planted,forestfire]
        [--super-sizes 20,auto] [--epsilon 1] [--seeds 1] [--json PATH]

Noise is the seeded numpy backend (``numpy-insecure``): reproducible, NOT private.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from graphanon._igraph import load
from graphanon.graph import Graph
from graphanon.privacy.noise import get_backend
from graphanon.synthetic.bter import generate_community_graph
from graphanon.synthetic.communities import community_release

STAGES = ("partition", "degrees", "triangles+fit")


def planted(n: int, blocks: int, seed: int) -> tuple[Graph, np.ndarray]:
    """Equal blocks of consecutive ids; average degree 20, 70 % of the edges inside."""
    rng = np.random.default_rng(seed)
    size = n // blocks
    m = n * 10
    m_in = int(0.7 * m)
    b = rng.integers(0, blocks, m_in)
    u = np.r_[b * size + rng.integers(0, size, m_in), rng.integers(0, n, m - m_in)]
    v = np.r_[b * size + rng.integers(0, size, m_in), rng.integers(0, n, m - m_in)]
    keep = u != v
    return Graph.from_edges(u[keep], v[keep], n_nodes=n), np.arange(n) // size


def forest_fire(n: int, seed: int) -> tuple[Graph, None]:
    ig = load()
    ig.set_random_number_generator(random.Random(seed))
    try:
        g = ig.Graph.Forest_Fire(n, 0.37, 0.32 / 0.37, directed=False)
    finally:
        ig.set_random_number_generator(random)
    g.simplify()
    u, v = np.asarray(g.get_edgelist(), dtype=np.int64).T
    return Graph.from_edges(u, v, n_nodes=n), None


def run(G: Graph, truth: np.ndarray | None, super_size: int | str, eps: float,
        seed: int) -> dict[str, Any]:
    ig = load()
    marks: list[float] = []
    t0 = time.perf_counter()

    def progress(task: str, done: int, total: int) -> None:
        marks.append(time.perf_counter())

    backend = get_backend("numpy-insecure", rng=np.random.default_rng([seed, 1]))
    rel = community_release(G, epsilon=eps, nodes=G.node_ids, super_size=super_size,
                            backend=backend, rng=np.random.default_rng([seed, 2]),
                            progress=progress)
    t_rel = time.perf_counter()
    S = generate_community_graph(rel, rng=np.random.default_rng([seed, 3]))
    t_gen = time.perf_counter()
    # progress marks: start, partition done, degrees done, triangles + fit done, end
    stage = {name: marks[i + 1] - marks[i] for i, name in enumerate(STAGES)}
    g, s = G.to_igraph(), S.to_igraph()
    member = np.asarray(rel.membership).tolist()
    row: dict[str, Any] = {
        "super_size": rel.release.params["super_size"], "seed": seed,
        **{f"s_{k}": round(v, 2) for k, v in stage.items()},
        "s_generate": round(t_gen - t_rel, 2), "s_total": round(t_gen - t0, 2),
        "communities": int(rel.n_communities),
        "partition_modularity": round(g.modularity(member), 4),
        "edges_rel": round(abs(S.n_edges - G.n_edges) / G.n_edges, 4),
        "gcc_rel": round(abs(s.transitivity_undirected() - g.transitivity_undirected())
                         / g.transitivity_undirected(), 4),
        "block_mixing": rel.block_mixing,
    }
    if truth is not None:
        row["nmi_planted"] = round(ig.compare_communities(truth.tolist(), member,
                                                          method="nmi"), 4)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--blocks", type=int, default=500)
    ap.add_argument("--graphs", default="planted,forestfire")
    ap.add_argument("--super-sizes", default="20,auto")
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    warnings.simplefilter("ignore")  # the insecure backend's warning
    print("Noise: seeded numpy-insecure backend (reproducible, NOT private).", file=sys.stderr)
    sizes: list[int | str] = [s if s == "auto" else int(s) for s in args.super_sizes.split(",")]
    rows = []
    for name in args.graphs.split(","):
        t = time.perf_counter()
        G, truth = (planted(args.nodes, args.blocks, 5) if name == "planted"
                    else forest_fire(args.nodes, 1))
        print(f"{name}: {G.n_nodes} nodes, {G.n_edges} edges "
              f"({time.perf_counter() - t:.1f} s)", file=sys.stderr, flush=True)
        for size in sizes:
            for seed in range(args.seeds):
                row = {"graph": name, "requested": size, **run(G, truth, size, args.epsilon,
                                                               seed)}
                print(json.dumps(row), flush=True)
                rows.append(row)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
