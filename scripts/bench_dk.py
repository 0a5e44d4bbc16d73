"""Benchmarks for graphanon.dk (issue 5).

1. Extraction: our 1K + 2K vs ``networkx.degree_histogram`` + ``degree_mixing_dict`` on every
   shared dataset (best of ``--repeat``; networkx timed on a prebuilt nx graph).
2. 2K generation: ours vs ``networkx.joint_degree_graph`` on the largest shared graph, with a
   check that both realize the input 2K exactly (networkx is skipped above
   ``NX_MAX_EDGES``), and 1K generation (ours).
3. Tables 6.1 / 6.2: MDAV-dK / MPDC-dK cluster counts and SAE over the observed 2K tuples.
4. Figure 6.4 (shape): Euclidean error of the released 2K (after post-processing) vs the true
   top-coded 2K for plain ε-DP, MDAV-dK (k) and MPDC-dK (τ), ε ∈ {0.01, 0.1, 1, 10}, mean over
   ``--reps`` runs; PNG plots in ``--outdir``.

``--powerlaw-edges M`` adds a synthetic Chung–Lu power-law graph with ``M`` edges (the
generator of ``scripts/bench_memory.py``, ``n = M / 5``) to the extraction and generation
benchmarks: the shared graphs are small, hubs make 3K and generation expensive.

Usage::

    python scripts/bench_dk.py [--datasets PATH] [--json out.json] [--outdir bench-dk]
                               [--powerlaw-edges 1000000] [--skip-figure]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

from graphanon.dk import dk_distribution
from graphanon.dk.extract import degree_distribution, joint_degree_distribution
from graphanon.dk.generate import generate_1k, generate_2k
from graphanon.dk.microaggregation import mdav, mpdc, sae
from graphanon.dk.release import release_dk
from graphanon.graph import Graph
from graphanon.io.files import read_graph
from graphanon.privacy.noise import get_backend

DATASETS = {
    "polbooks": "polbooks/polbooks.gml",
    "ca-GrQc": "ca-GrQc/CA-GrQc.txt",
    "ego-Facebook": "facebook_combined/facebook_combined.txt",
    "Wiki-Vote": "wiki-Vote/Wiki-Vote.txt",
    "Reed98": "facebook100/Reed98.mat",
    "Caltech36": "facebook100/socfb-Caltech36.mtx",
}
#: ``../shared/datasets`` beside the checkout.
SHARED_DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def datasets_root(given: Path | str = SHARED_DATASETS) -> Path:
    """The folder of the shared datasets: ``given`` where it exists, else
    ``/work/shared/datasets`` (a checkout elsewhere on this machine)."""
    root = Path(given)
    return root if root.exists() else Path("/work/shared/datasets")
EPSILONS = (0.01, 0.1, 1.0, 10.0)
NX_MAX_EDGES = 200_000
PARAMS = (1, 3, 5, 7, 9, 11, 13, 15)


def best(f: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def table(rows: list[list[Any]], header: list[str]) -> None:
    w = [max(len(str(x)) for x in [h, *[r[i] for r in rows]]) for i, h in enumerate(header)]
    print("  ".join(str(h).rjust(w[i]) for i, h in enumerate(header)))
    for r in rows:
        print("  ".join(str(x).rjust(w[i]) for i, x in enumerate(r)))
    print()


def bench_extraction(graphs: dict[str, Any], repeat: int) -> list[dict[str, Any]]:
    out = []
    for name, G in graphs.items():
        nxg = G.to_networkx()
        ours = best(lambda G=G: (degree_distribution(G), joint_degree_distribution(G)), repeat)
        ref = best(lambda g=nxg: (nx.degree_histogram(g), nx.degree_mixing_dict(g)), repeat)
        t3 = best(lambda G=G: dk_distribution(G, 3), max(1, repeat // 2))
        out.append({"dataset": name, "nodes": G.n_nodes, "edges": G.n_edges,
                    "ours_1k2k_s": ours, "networkx_s": ref, "speedup": ref / ours,
                    "ours_3k_s": t3})
    table([[r["dataset"], r["nodes"], r["edges"], f"{r['ours_1k2k_s'] * 1e3:.2f}",
            f"{r['networkx_s'] * 1e3:.1f}", f"{r['speedup']:.0f}x",
            f"{r['ours_3k_s'] * 1e3:.1f}"] for r in out],
          ["dataset", "nodes", "edges", "ours 1K+2K ms", "nx ms", "speedup", "ours 3K ms"])
    return out


def bench_generation(graphs: dict[str, Any], repeat: int) -> list[dict[str, Any]]:
    out = []
    for name, G in graphs.items():
        D = joint_degree_distribution(G)
        D1 = degree_distribution(G)
        S = generate_2k(D, rng=np.random.default_rng(0))
        t_ours = best(lambda D=D: generate_2k(D, rng=np.random.default_rng(1)), repeat)
        t_1k = best(lambda D1=D1: generate_1k(D1, rng=np.random.default_rng(1)), repeat)
        same = joint_degree_distribution(S.graph).as_dict() == D.as_dict()
        t_nx = float("nan")
        if G.n_edges <= NX_MAX_EDGES:
            jd = nx.degree_mixing_dict(G.to_networkx())
            t0 = time.perf_counter()
            H = nx.joint_degree_graph(jd, seed=1)
            t_nx = time.perf_counter() - t0
            same = same and nx.degree_mixing_dict(H) == jd
        out.append({"dataset": name, "edges": G.n_edges, "ours_s": t_ours, "networkx_s": t_nx,
                    "speedup": t_nx / t_ours, "identical_2k": same, "ours_1k_s": t_1k})
    table([[r["dataset"], r["edges"], f"{r['ours_s'] * 1e3:.1f}", f"{r['networkx_s'] * 1e3:.0f}",
            f"{r['speedup']:.1f}x", r["identical_2k"], f"{r['ours_1k_s'] * 1e3:.1f}"]
           for r in out],
          ["dataset", "edges", "ours 2K ms", "nx 2K ms", "speedup", "identical 2K",
           "ours 1K ms"])
    return out


def bench_tables(graphs: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("polbooks", "ca-GrQc"):
        if name not in graphs:
            continue
        D = joint_degree_distribution(graphs[name])
        rows = {"mdav_clusters": [], "mdav_sae": [], "mpdc_clusters": [], "mpdc_sae": []}
        for p in PARAMS:
            a = mdav(D.degrees, k=p)
            b = mpdc(D.degrees, tau=p)
            rows["mdav_clusters"].append(a.n_clusters)
            rows["mdav_sae"].append(round(sae(D.degrees, a), 2))
            rows["mpdc_clusters"].append(b.n_clusters)
            rows["mpdc_sae"].append(round(sae(D.degrees, b), 2))
        out[name] = rows
        print(f"{name}: {D.n_tuples} distinct 2K tuples; k or τ = {list(PARAMS)}")
        table([[k, *v] for k, v in rows.items()], ["measure", *[str(p) for p in PARAMS]])
    return out


def bench_figure(graphs: dict[str, Any], reps: int, outdir: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("polbooks", "ca-GrQc"):
        if name not in graphs:
            continue
        G = graphs[name]
        h = int(G.degrees.max())  # taken as the public bound for the experiment
        res: dict[str, Any] = {"h": h}
        for eps in EPSILONS:
            res[str(eps)] = {
                "plain": _err(G, h, eps, reps, "none"),
                "mdav": [_err(G, h, eps, reps, "mdav", k=p) for p in PARAMS],
                "mpdc": [_err(G, h, eps, reps, "mpdc", tau=p) for p in PARAMS],
            }
        out[name] = res
        rows = []
        for eps in EPSILONS:
            r = res[str(eps)]
            # MDAV with k = 1 is the plain mechanism (singleton clusters): excluded
            below = all(x < r["plain"] for x in r["mdav"][1:] + r["mpdc"])
            rows.append([eps, f"{r['plain']:.0f}", f"{min(r['mdav']):.0f}-{max(r['mdav']):.0f}",
                         f"{min(r['mpdc']):.0f}-{max(r['mpdc']):.0f}", below])
        print(f"Figure 6.4 ({name}, h = {h}, mean of {reps} runs): Euclidean error")
        table(rows, ["epsilon", "plain ε-DP", "MDAV-dK k=1..15", "MPDC-dK τ=1..15",
                     "k>=3, all τ below plain"])
        _plot(name, res, outdir)
    return out


def _err(G: Any, h: int, eps: float, reps: int, micro: str, **kw: Any) -> float:
    vals = []
    for r in range(reps):
        rng = np.random.default_rng([r, int(eps * 100), len(micro)])
        R = release_dk(G, d=2, epsilon=eps, max_degree=h, microaggregation=micro,
                       backend=get_backend("numpy-insecure", rng=rng), rng=rng, **kw)
        vals.append(R.evaluation["euclidean"])
    return float(np.mean(vals))


def _plot(name: str, res: dict[str, Any], outdir: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(EPSILONS), figsize=(4 * len(EPSILONS), 3.2))
    for ax, eps in zip(axes, EPSILONS, strict=True):
        r = res[str(eps)]
        ax.plot(PARAMS, r["mdav"], "o-", label="MDAV-dK (k)")
        ax.plot(PARAMS, r["mpdc"], "s-", label="MPDC-dK (τ)")
        ax.axhline(r["plain"], color="k", ls="--", label="ε-DP")
        ax.set_yscale("log")
        ax.set_title(f"{name}, ε = {eps:g}")
        ax.set_xlabel("k or τ")
    axes[0].set_ylabel("Euclidean distance to true 2K")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    outdir.mkdir(parents=True, exist_ok=True)
    fig.savefig(outdir / f"figure_6_4_{name}.png", dpi=110)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=str(SHARED_DATASETS))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--reps", type=int, default=5, help="Runs per point of Figure 6.4.")
    ap.add_argument("--outdir", default="bench-dk")
    ap.add_argument("--json", default=None)
    ap.add_argument("--skip-figure", action="store_true")
    ap.add_argument("--powerlaw-edges", type=int, default=0,
                    help="Add a synthetic power-law graph with this many edges (0: none).")
    args = ap.parse_args()
    root = datasets_root(args.datasets)
    graphs = {n: read_graph(root / p) for n, p in DATASETS.items() if (root / p).exists()}
    if args.powerlaw_edges:
        import sys

        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_memory import powerlaw_edges

        n = max(args.powerlaw_edges // 5, 2)
        u, v = powerlaw_edges(n, args.powerlaw_edges, 0.66, 3)
        graphs[f"powerlaw-{args.powerlaw_edges}"] = Graph.from_edges(u, v, n_nodes=n)
    # warm the numba caches outside the timings
    dk_distribution(graphs["polbooks"], 3)
    generate_2k(joint_degree_distribution(graphs["polbooks"]), rng=np.random.default_rng(0))
    generate_1k(degree_distribution(graphs["polbooks"]), rng=np.random.default_rng(0))
    print("Timings on a shared 2-core machine: noisy, compare ratios, not absolutes.\n")
    results: dict[str, Any] = {"extraction": bench_extraction(graphs, args.repeat)}
    largest = max((n for n in graphs if not n.startswith("powerlaw-")),
                  key=lambda n: graphs[n].n_edges)
    gen_sets = ("polbooks", "ca-GrQc", largest,
                *(n for n in graphs if n.startswith("powerlaw-")))
    results["generation"] = bench_generation({n: graphs[n] for n in gen_sets if n in graphs},
                                             max(1, args.repeat // 2))
    results["tables_6_1_6_2"] = bench_tables(graphs)
    if not args.skip_figure:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results["figure_6_4"] = bench_figure(graphs, args.reps, Path(args.outdir))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
