"""Benchmark / utility table: randomized response on the Adult and Google Play graphs.

For ε ∈ {0.1, 1, 5, 10} (edge-DP) prints Jaccard, suppressed and created (as fractions of
E ∪ E'), the keep-probability p and the time; also a synthetic 100k × 100k matrix with 1M
ones at large ε for speed. Timings on a shared machine are noisy.

Usage: ``python scripts/bench_randomized_response.py [--datasets DIR] [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from graphanon.anonymity.randomized_response import randomized_response
from graphanon.graph import BipartiteGraph
from graphanon.io.tables import load_preset
from graphanon.metrics import edge_set_metrics

EPSILONS = (0.1, 1.0, 5.0, 10.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--datasets", default="/work/shared/datasets")
    ap.add_argument("--json", dest="json_path")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-synthetic", action="store_true")
    args = ap.parse_args()
    root = Path(args.datasets)
    inputs = {
        "adult": load_preset(root / "adult" / "adult.data", "adult"),
        "playstore": load_preset(root / "googleplaystore" / "googleplaystore.csv", "playstore"),
    }
    rng = np.random.default_rng(args.seed)
    rows = []
    for name, B in inputs.items():
        for eps in EPSILONS:
            t0 = time.perf_counter()
            res = randomized_response(B, epsilon=eps, neighbourhood="edge", rng=rng)
            seconds = time.perf_counter() - t0
            m = edge_set_metrics(B, res.graph)
            rows.append({"dataset": name, "users": B.n_users, "features": B.n_features,
                         "edges": B.n_edges, "density": B.density, "epsilon": eps,
                         "p": res.p, **m, "output_edges": res.graph.n_edges,
                         "seconds": seconds})
    if not args.skip_synthetic:
        n = 100_000
        g = np.random.default_rng(1)
        B = BipartiteGraph.from_indices(g.integers(0, n, 1_000_000), g.integers(0, n, 1_000_000),
                                        n_users=n, n_features=n)
        for eps in (10.0, 12.0):
            t0 = time.perf_counter()
            res = randomized_response(B, epsilon=eps, rng=rng)
            seconds = time.perf_counter() - t0
            rows.append({"dataset": "synthetic 100k x 100k", "users": n, "features": n,
                         "edges": B.n_edges, "density": B.density, "epsilon": eps, "p": res.p,
                         "jaccard": float("nan"), "suppressed": float("nan"),
                         "created": float("nan"), "output_edges": res.graph.n_edges,
                         "seconds": seconds})
    print(f"{'dataset':<22} {'users':>7} {'feat':>6} {'density':>8} {'ε':>5} {'p':>8} "
          f"{'jaccard':>8} {'suppr':>7} {'created':>8} {'out edges':>10} {'s':>6}")
    for r in rows:
        print(f"{r['dataset']:<22} {r['users']:>7} {r['features']:>6} {r['density']:>8.4f} "
              f"{r['epsilon']:>5g} {r['p']:>8.5f} {r['jaccard']:>8.4f} {r['suppressed']:>7.4f} "
              f"{r['created']:>8.4f} {r['output_edges']:>10} {r['seconds']:>6.2f}")
    if args.json_path:
        with open(args.json_path, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=2, default=float)


if __name__ == "__main__":
    main()
