"""Benchmark: node-DP projections and releases (Table 7.1, Figures 7.4/7.5, RPS vs baselines).

Usage: python scripts/bench_node_dp.py [--json PATH] [--plots DIR] [--reps R] [--quick]

Prints (1) preserved edge ratios |E^θ|/|E| of EAD, SER-hash, SER-degree and the upper bound
Σ min(deg, θ)/2 on ego-Facebook and Wiki-Vote, (2) projection times (parse excluded),
(3) L1/KS of projected and θ-dKε 2K distributions vs the true one (Fig. 7.4/7.5 shape), and
(4) EMD/KS of RPS, Laplace (node-DP, EAD θ=64) and Hay (edge-DP) degree sequences on
Caltech36 and Reed98. Noise is the seeded numpy backend (reproducible, insecure).
Timings are wall-clock on a shared machine: noisy.
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import numpy as np

from graphanon.io.files import read_graph
from graphanon.nodedp.degree_sequences import (
    degree_sequence_metrics,
    hay_degree_sequence,
    laplace_degree_sequence,
    rps_degree_sequence,
)
from graphanon.nodedp.projection import project
from graphanon.nodedp.theta_dk import dk_utility, plain_node_dk_release, theta_dk_release
from graphanon.reproduce.rps_seed import rps_degree_sequence_seed


def insecure(rng):
    from graphanon.privacy.noise import get_backend

    return get_backend("numpy-insecure", rng=rng)

DS = Path("/work/shared/datasets")
THETAS = (16, 32, 64, 128, 256)
EPS = (0.01, 0.1, 1.0, 10.0)


def table(rows: list[list[object]], header: list[str]) -> None:
    w = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    print("  ".join(str(h).ljust(k) for h, k in zip(header, w, strict=True)))
    for r in rows:
        print("  ".join(str(x).ljust(k) for x, k in zip(r, w, strict=True)))
    print()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", type=Path)
    ap.add_argument("--plots", type=Path)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--degrees-only", action="store_true",
                    help="only (4), the degree-sequence comparison")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    out: dict[str, object] = {}
    fig: dict[str, list[list[object]]] = {}
    if not args.degrees_only:
        fig = projections_and_dk(args, out)
    degree_sequences(args, out)
    if args.plots:
        plots(args.plots, fig, out["degree_sequences"])  # type: ignore[arg-type]
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, default=str))


def projections_and_dk(args: argparse.Namespace,
                       out: dict[str, object]) -> dict[str, list[list[object]]]:
    graphs = {"facebook": read_graph(DS / "facebook_combined/facebook_combined.txt"),
              "wiki-vote": read_graph(DS / "wiki-Vote/Wiki-Vote.txt")}

    # (1) Table 7.1 and (2) speed
    rows, speed = [], []
    for name, G in graphs.items():
        d = G.degrees
        for label, meth, order in (("EAD", "ead", "hash"), ("SER-hash", "ser", "hash"),
                                   ("SER-degree", "ser", "degree")):
            project(G, theta=16, method=meth, order=order, key=0)  # compile
            ratios, times = [], []
            for th in THETAS:
                ps = [project(G, theta=th, method=meth, order=order, key=k) for k in range(3)]
                ratios.append(round(float(np.mean([p.preserved_edge_ratio for p in ps])), 3))
                times.append(min(p.seconds for p in ps))
            rows.append([name, label, *ratios])
            speed.append([name, label, f"{np.median(times):.4f}"])
        rows.append([name, "upper bound", *[round(float(np.minimum(d, t).sum() / 2 / G.n_edges),
                                                   3) for t in THETAS]])
    print("Table 7.1: preserved edge ratio |E^θ|/|E| (mean of 3 keys)")
    table(rows, ["graph", "method", *[f"θ={t}" for t in THETAS]])
    # a ~180k-edge graph: Wiki-Vote + Facebook disjoint union
    F, W = graphs["facebook"], graphs["wiki-vote"]
    fu, fv = F.edges()
    wu, wv = W.edges()
    from graphanon.graph import Graph

    U = Graph.from_edges(np.r_[fu, wu + F.n_nodes], np.r_[fv, wv + F.n_nodes],
                         n_nodes=F.n_nodes + W.n_nodes)
    for label, meth in (("EAD", "ead"), ("SER-hash", "ser")):
        ts = [project(U, theta=64, method=meth, key=k).seconds for k in range(5)]
        speed.append([f"union ({U.n_edges} edges)", label, f"{min(ts):.4f}"])
    print("Projection time, seconds (median over θ of best-of-3; union: best of 5)")
    table(speed, ["graph", "method", "seconds"])
    out["table_7_1"] = rows
    out["speed"] = speed

    # (3) Fig 7.4 / 7.5 shape: 2K L1/KS
    fig: dict[str, list[list[object]]] = {}
    thetas = (16, 64) if args.quick else THETAS
    for name, G in graphs.items():
        rs: list[list[object]] = []
        rng = np.random.default_rng(0)
        for th in thetas:
            for meth in ("ead", "ser"):
                P = project(G, theta=th, method=meth, key=1)
                from graphanon.dk.extract import joint_degree_distribution

                m = dk_utility(G, joint_degree_distribution(P.graph))
                rs.append([f"{meth} projection", th, "-", round(m["l1"]), round(m["ks"], 3)])
            for eps in EPS:
                for meth in ("ead", "ser"):
                    r = theta_dk_release(G, d=2, epsilon=eps, theta=th, projection=meth,
                                         key=1, backend=insecure(rng), rng=rng)
                    m = dk_utility(G, r)
                    rs.append([f"{meth}-θ-dKε", th, eps, round(m["l1"]), round(m["ks"], 3)])
        dmax = int(G.degrees.max())
        for eps in EPS:
            r = plain_node_dk_release(G, d=2, epsilon=eps, degree_bound=dmax,
                                      backend=insecure(rng), rng=rng)
            m = dk_utility(G, r)
            rs.append(["plain ε-DP (D=dmax)", "-", eps, round(m["l1"]), round(m["ks"], 3)])
        print(f"Fig 7.4/7.5 shape on {name}: 2K L1 and KS vs the true 2K (|E|={G.n_edges})")
        table(rs, ["method", "θ", "ε", "L1", "KS"])
        fig[name] = rs
    out["fig_7_4_7_5"] = fig
    return fig


def degree_sequences(args: argparse.Namespace, out: dict[str, object]) -> None:
    """(4) RPS (private N̂ / public N, Λ = N − 1 / public dmax, seed-style Cauchy counts)
    vs Laplace (node-DP, EAD θ = 64) and Hay (edge-DP)."""
    fb = {"caltech36": read_graph(DS / "facebook100/socfb-Caltech36.mtx"),
          "reed98": read_graph(DS / "facebook100/Reed98.mat")}
    deg_rows: list[list[object]] = []
    rng = np.random.default_rng(1)
    for name, G in fb.items():
        dmax = int(G.degrees.max())
        n = G.n_nodes
        methods = {
            "rps N̂ Λ=N-1": lambda G, e: rps_degree_sequence(G, epsilon=e, backend=insecure(rng),
                                                            rng=rng),
            "rps N=n Λ=n-1": lambda G, e, n=n: rps_degree_sequence(
                G, epsilon=e, max_nodes=n, backend=insecure(rng), rng=rng),
            "rps N̂ Λ=dmax": lambda G, e, dm=dmax: rps_degree_sequence(
                G, epsilon=e, max_degree=dm, backend=insecure(rng), rng=rng),
            "rps N=n Λ=dmax": lambda G, e, dm=dmax, n=n: rps_degree_sequence(
                G, epsilon=e, max_degree=dm, max_nodes=n, backend=insecure(rng), rng=rng),
            "rps cauchy-counts N=n Λ=dmax": lambda G, e, dm=dmax, n=n: rps_degree_sequence_seed(
                G, epsilon=e, max_degree=dm, max_nodes=n, counts="cauchy", summary="interpolate",
                backend=insecure(rng), rng=rng),
            "laplace θ=64 (node)": lambda G, e: laplace_degree_sequence(
                G, epsilon=e, theta=64, key=1, backend=insecure(rng), rng=rng),
            # the benchmark treats the graph's node set as the public universe
            "hay (edge-DP)": lambda G, e: hay_degree_sequence(
                G, epsilon=e, nodes=G.node_ids, backend=insecure(rng), rng=rng),
        }
        for eps in EPS:
            for label, f in methods.items():
                ms = [degree_sequence_metrics(G, f(G, eps)) for _ in range(args.reps)]
                emd = np.array([m["emd"] for m in ms])
                ks = np.array([m["ks"] for m in ms])
                se = lambda x: x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else 0.0  # noqa: E731
                deg_rows.append([name, eps, label, f"{emd.mean():.2f}±{se(emd):.2f}",
                                 f"{ks.mean():.3f}±{se(ks):.3f}"])
    print(f"Degree sequences: EMD (degree units) and KS, mean ± s.e. over {args.reps} reps")
    table(deg_rows, ["graph", "ε", "method", "EMD", "KS"])
    out["degree_sequences"] = deg_rows


def plots(outdir: Path, fig: dict[str, list[list[object]]], deg_rows: list[list[object]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    outdir.mkdir(parents=True, exist_ok=True)
    for name, rows in fig.items():
        f, axes = plt.subplots(1, 2, figsize=(10, 4))
        for col, metric in ((3, "L1"), (4, "KS")):
            ax = axes[col - 3]
            for meth in ("ead-θ-dKε", "ser-θ-dKε"):
                for th in sorted({r[1] for r in rows if r[0] == meth}):
                    pts = [(r[2], r[col]) for r in rows if r[0] == meth and r[1] == th]
                    ax.plot(*zip(*pts, strict=True), marker="o", label=f"{meth} θ={th}")
            pts = [(r[2], r[col]) for r in rows if r[0].startswith("plain")]
            ax.plot(*zip(*pts, strict=True), "k--", marker="s", label="plain ε-DP")
            ax.set_xscale("log")
            ax.set_yscale("log" if metric == "L1" else "linear")
            ax.set_xlabel("ε")
            ax.set_ylabel(metric)
        axes[1].legend(fontsize=6)
        f.suptitle(f"{name}: 2K releases (Fig. 7.5 shape)")
        f.savefig(outdir / f"fig7_5_{name}.png", dpi=110)
        plt.close(f)
    if not deg_rows:
        return
    f, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, g in zip(axes, ("caltech36", "reed98"), strict=True):
        for meth in sorted({r[2] for r in deg_rows}):
            pts = [(r[1], float(r[3].split("±")[0])) for r in deg_rows
                   if r[0] == g and r[2] == meth]
            ax.plot(*zip(*pts, strict=True), marker="o", label=meth)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(g)
        ax.set_xlabel("ε")
        ax.set_ylabel("EMD")
    axes[0].legend(fontsize=7)
    f.savefig(outdir / "degree_sequences_emd.png", dpi=110)
    plt.close(f)


if __name__ == "__main__":
    main()
