"""Local clustering by degree, c(d), of the original graphs and of ``synthesize``'s graphs
(issue 36, the average-clustering cells).

Usage::

    python scripts/clustering_by_degree.py [--datasets ca-GrQc,ego-Facebook] [--epsilon 1]
        [--seeds 2] [--slopes 0,0.333] [--plot PATH]

For each graph of ``../shared/datasets`` it prints the mean local clustering of the nodes in
the degree buckets 2, 3–4, 5–8, …, 65+ (``transitivity_local_undirected``, 0 for degree
< 2) and the average clustering, for the original and for ``synthesize(neighbourhood="edge")``
at each block slope ``β`` (seeded numpy-insecure noise: reproducible, NOT private). The
plot draws the curves per graph.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from bench_dk import DATASETS, SHARED_DATASETS, datasets_root
from bench_synthetic import seeded

from graphanon.io.files import read_graph
from graphanon.privacy.noise import get_backend
from graphanon.synthetic import synthesize

BUCKETS = ((2, 2), (3, 4), (5, 8), (9, 16), (17, 32), (33, 64), (65, 1 << 40))
LABELS = ("2", "3–4", "5–8", "9–16", "17–32", "33–64", "65+")


def by_degree(g: Any) -> tuple[list[float], float]:
    """``(c(d) per bucket, average local clustering)`` of an igraph graph."""
    lc = np.asarray(g.transitivity_local_undirected(mode="zero"), dtype=float)
    d = np.asarray(g.degree())
    curve = [float(lc[(d >= a) & (d <= b)].mean()) if ((d >= a) & (d <= b)).any()
             else float("nan") for a, b in BUCKETS]
    return curve, float(lc.mean()) if lc.size else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=SHARED_DATASETS)
    ap.add_argument("--datasets", default="ca-GrQc,ego-Facebook,Wiki-Vote,Reed98")
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--slopes", default="0,0.333")
    ap.add_argument("--plot", type=Path)
    args = ap.parse_args()
    root = datasets_root(args.root)
    slopes = [float(s) for s in args.slopes.split(",")]
    warnings.simplefilter("ignore")
    print("Noise: seeded numpy-insecure backend (reproducible, NOT private).", file=sys.stderr)
    print("| graph | graph made by | ACC | " + " | ".join(f"c({b})" for b in LABELS) + " |")
    print("|---|---|---|" + "---|" * len(LABELS))
    curves: dict[str, list[tuple[str, list[float]]]] = {}
    for ds in args.datasets.split(","):
        G = read_graph(root / DATASETS[ds])
        rows = [("original", *by_degree(G.to_igraph()))]
        for beta in slopes:
            for s in range(args.seeds):
                rel = synthesize(G, epsilon=args.epsilon, neighbourhood="edge",
                                 nodes=G.node_ids, block_slope=beta, rng=seeded(ds, s),
                                 backend=get_backend("numpy-insecure",
                                                     rng=seeded("noise", ds, s)))
                rows.append((f"β = {beta:g}, seed {s}", *by_degree(rel.graph.to_igraph())))
        for name, curve, acc in rows:
            print(f"| {ds} | {name} | {acc:.3f} | "
                  + " | ".join(f"{c:.2f}" for c in curve) + " |")
        curves[ds] = [(name, curve) for name, curve, _ in rows]
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(curves), figsize=(3.8 * len(curves), 3.2),
                                 squeeze=False)
        for ax, (ds, rows_) in zip(axes.flat, curves.items(), strict=True):
            for name, curve in rows_:
                style = {"color": "k", "lw": 2} if name == "original" else {"lw": 1}
                ax.plot(range(len(LABELS)), curve, marker="o", ms=3, label=name, **style)
            ax.set_xticks(range(len(LABELS)), LABELS, fontsize=7)
            ax.set_ylim(0, 1.05)
            ax.set_title(f"{ds}, ε = {args.epsilon:g}")
            ax.set_xlabel("degree")
            ax.set_ylabel("mean local clustering")
        axes.flat[0].legend(fontsize=6)
        fig.tight_layout()
        args.plot.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(args.plot, dpi=100)


if __name__ == "__main__":
    main()
