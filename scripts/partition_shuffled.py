"""Experiment: the private partition with node ids in random order (issue 36, part 4).

Usage::

    python scripts/partition_shuffled.py [--datasets Caltech36,ego-Facebook] [--seeds 2]

Relabels each graph's nodes with a seeded random permutation (:func:`shuffle_ids`: the ids
then carry no locality) and compares, with the original ids and with the shuffled ones, the
NMI of partitions against Louvain (igraph multilevel) on the graph:

* ``order``: :func:`private_partition` (super-nodes of consecutive ids), ε_p;
* ``em-k``: the same followed by k exponential-mechanism rounds (PrivGraph-style
  adjustment, public prior ``stay``), ε_p split half / half;
* ``nlp-k``: noisy label propagation from random super-nodes: each of k rounds releases
  every node's edge counts into every current community with discrete Laplace noise
  (Δ = 2: one edge changes two entries by 1), nodes take the argmax (post-processing);
* ``lp-clean``: the same propagation without noise (ε = ∞), the ceiling of the idea;
* ``emb``: a private embedding: every node's edge counts into d = 16 public random groups
  (the n × d matrix ``A·P``, P a public one-hot grouping: Δ = 2 in L1 for the whole matrix,
  one edge changes two entries by 1) with discrete Laplace noise at ε_p, then 8 principal
  components, rows normalized, k-means (10) — post-processing; ``emb-clean``: no noise;
* ``rand``: a uniformly random partition into 30 labels (NMI's floor for many labels).

Noise is the seeded numpy backend: reproducible, NOT private (evaluation only).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from bench_dk import DATASETS

from graphanon.graph import Graph
from graphanon.io.files import read_graph
from graphanon.privacy.noise import get_backend
from graphanon.synthetic.communities import _relabel, private_partition


def shuffle_ids(G: Graph, rng: np.random.Generator) -> Graph:
    """``G`` with node ``i`` renamed ``perm[i]`` for a random permutation (ids 0..n−1)."""
    n = G.n_nodes
    perm = rng.permutation(n)
    u, v = G.edges()
    return Graph.from_edges(perm[u], perm[v], n_nodes=n)


def louvain(G: Graph) -> np.ndarray:
    import igraph

    u, v = G.edges()
    g = igraph.Graph(n=G.n_nodes, edges=np.column_stack([u, v]).tolist())
    return np.asarray(g.community_multilevel().membership)


def nmi(a: np.ndarray, b: np.ndarray) -> float:
    from sklearn.metrics import normalized_mutual_info_score

    return float(normalized_mutual_info_score(a, b))


def label_propagation(G: Graph, k: int, rounds: int, eps_round: float | None, stay: float,
                      rng: np.random.Generator, backend) -> np.ndarray:
    n = G.n_nodes
    u, v = G.edges()
    m = rng.integers(0, k, n)
    for _ in range(rounds):
        S = np.zeros((n, k))
        np.add.at(S, (u, m[v]), 1)
        np.add.at(S, (v, m[u]), 1)
        if eps_round is not None:
            S = np.asarray(backend.discrete_laplace(S.astype(np.int64).ravel(), sensitivity=2,
                                                    epsilon=eps_round), float).reshape(n, k)
        S[np.arange(n), m] += stay
        S += 1e-3 * rng.random((n, k))
        m = np.argmax(S, axis=1)
        m, _ = _relabel(m)
        m = np.minimum(m, k - 1)
    return m


def group_embedding(G: Graph, d: int, eps: float | None, rng: np.random.Generator,
                    backend) -> np.ndarray:
    from sklearn.cluster import KMeans

    n = G.n_nodes
    u, v = G.edges()
    grp = rng.integers(0, d, n)
    Y = np.zeros((n, d))
    np.add.at(Y, (u, grp[v]), 1)
    np.add.at(Y, (v, grp[u]), 1)
    if eps is not None:
        Y = np.asarray(backend.discrete_laplace(Y.astype(np.int64).ravel(), sensitivity=2,
                                                epsilon=eps), float).reshape(n, d)
    U, s, _ = np.linalg.svd(Y - Y.mean(axis=0), full_matrices=False)
    X = U[:, :8] * s[:8]
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-9)
    return np.asarray(KMeans(10, n_init=3, random_state=0).fit_predict(X))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--eps", type=float, default=0.3)
    args = ap.parse_args()
    root = Path(__file__).resolve().parents[2] / "shared" / "datasets"
    for name in args.datasets.split(","):
        G0 = read_graph(root / DATASETS[name])
        G0 = Graph.from_edges(*G0.edges(), n_nodes=G0.n_nodes)
        for ids in ("orig", "shuffled"):
            rows: dict[str, list[float]] = {}
            for seed in range(args.seeds):
                rng = np.random.default_rng(seed)
                G = shuffle_ids(G0, rng) if ids == "shuffled" else G0
                ref = louvain(G)
                be = get_backend("numpy-insecure", rng=np.random.default_rng(seed + 100))
                p = private_partition(G, epsilon=args.eps, nodes=np.arange(G.n_nodes),
                                      backend=be, rng=np.random.default_rng(seed))
                rows.setdefault("order", []).append(nmi(ref, p.membership))
                for r in (1,):
                    p = private_partition(G, epsilon=args.eps, nodes=np.arange(G.n_nodes),
                                          refine_share=0.5, rounds=r, backend=be,
                                          rng=np.random.default_rng(seed))
                    rows.setdefault(f"em-{r}", []).append(nmi(ref, p.membership))
                for k in (30,):
                    for r in (3,):
                        m = label_propagation(G, k, r, args.eps / r, 0.0,
                                              np.random.default_rng(seed), be)
                        rows.setdefault(f"nlp-k{k}-r{r}", []).append(nmi(ref, m))
                    m = label_propagation(G, k, 5, None, 0.0, np.random.default_rng(seed), be)
                    rows.setdefault(f"lp-clean-k{k}", []).append(nmi(ref, m))
                m = group_embedding(G, 16, args.eps, np.random.default_rng(seed), be)
                rows.setdefault("emb", []).append(nmi(ref, m))
                m = group_embedding(G, 16, None, np.random.default_rng(seed), be)
                rows.setdefault("emb-clean", []).append(nmi(ref, m))
                rows.setdefault("rand", []).append(
                    nmi(ref, np.random.default_rng(seed).integers(0, 30, G.n_nodes)))
            cells = " ".join(f"{k}={np.median(v):.3f}" for k, v in rows.items())
            print(name, ids, f"eps={args.eps}", cells,
                  flush=True)


if __name__ == "__main__":
    main()
