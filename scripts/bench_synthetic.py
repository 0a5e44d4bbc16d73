"""Benchmark: synthetic graphs from graphanon's DP releases against the original (issue 36).

Usage::

    python scripts/bench_synthetic.py [--datasets polbooks,ca-GrQc] [--pipelines 1k,hay-1k]
        [--families ba,ws|all|holdout] [--epsilons 0.5,1,2,4] [--seeds 3] [--quick] [--json PATH]
        [--plots DIR]

Every pipeline releases a table under DP and generates a graph from it (new, anonymous node
ids): ``1k`` (edge-DP 1K at the public bound h = 64, then :func:`generate_1k`), ``hay-1k``
(Hay et al.'s constrained-inference degree sequence, edge-DP, as a 1K table), ``2k`` (edge-DP
2K, h = 64), ``2k-mpdc-h64`` / ``2k-mpdc-h256`` (MPDC-dK, box side τ = 4, h = 64 / 256),
``theta-2k`` (node-DP θ-2K, EAD projection, θ = 16), ``2k-total``, ``2k-mpdc-h64-total``,
``2k-mpdc-h256-total`` (the same 2K releases with a private edge total, 10 % of ε, that the
cells are projected onto: ``release_dk(edge_total=0.1)``), ``2k-auto-total`` and
``2k-mpdc-auto-total`` (the degree bound chosen privately too: ``max_degree="auto"``, another
10 %; these ``-total`` pipelines pin ``graphical=False``, the earlier behaviour), the same
made graphical (``graphical=True``, now ``release_dk``'s default with a total):
``2k-total-consistent``, ``2k-mpdc-h64-total-consistent``, ``2k-mpdc-h256-total-consistent``,
``2k-auto-total-consistent``, ``2k-mpdc-auto-total-consistent``; ``2k-hay`` /
``2k-mpdc-hay`` (2K fitted to Hay's degree sequence, 20 % of ε, which also gives h; edge
total 10 %: ``degree_sequence=0.2``; ``-q99``: h at the 99th percentile),
``tmf``, ``privgraph``, ``dgg`` and ``dp-1k`` (four published edge-DP generators,
reimplemented in ``baselines.py``; all but ``dp-1k`` keep the node ids), ``community``
(:func:`graphanon.synthetic.communities.community_release` realized by
:func:`graphanon.synthetic.bter.generate_community_graph`: the public node ids are kept, so
NMI and the eigenvector-centrality overlap are node-aligned), plus ``2k-exact`` (the true 2K, no
privacy: what dK-2 keeps at ε = ∞). The public bounds are ``graphanon evaluate``'s defaults
(``h = 64, θ = 16, τ = 4``) and 256; edge-DP releases get the input's node set as their
public universe. Each (dataset, ε, pipeline, seed) compares the generated graph with the
original on the metrics of :func:`graphanon.evaluate.utility.compare_structure` and the
script prints their medians over the seeds. A release asking for more than ``--max-edges``
edges is not generated: only its edge-count error is reported. ``--families`` adds random
graphs the pipelines were never tuned to (``families.py``); ``compare_published.py`` counts
the cells where ``synthesize-edge`` is at least as good as the best of them.

Noise is the seeded numpy backend (``numpy-insecure``): reproducible, NOT private; every
number is computed from the private input (evaluation only, never for publication).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from baselines import dgg, dp1k, privgraph, tmf  # published generators, reimplemented
from bench_dk import (  # the graphs of ../shared/datasets (scripts/ is on sys.path)
    DATASETS,
    SHARED_DATASETS,
    datasets_root,
)
from families import FAMILIES, HOLDOUT, KNOWN, family_graph  # random graph families, never tuned to
from partition_shuffled import shuffle_ids

from graphanon.dk.generate import generate_1k, generate_2k
from graphanon.evaluate.utility import (
    _release_for,
    compare_structure,
    structure_statistics,
)
from graphanon.graph import Graph
from graphanon.io.files import read_graph
from graphanon.nodedp.degree_sequences import hay_degree_sequence
from graphanon.privacy.noise import get_backend

QUICK_DATASETS = ("polbooks", "Caltech36")
EPSILONS = (0.5, 1.0, 2.0, 4.0)
QUICK_EPSILONS = (1.0, 4.0)
H, THETA, TAU = 64, 16, 4
Table = Any
Pipeline = Callable[[Graph, float, Any, np.random.Generator], Table]


def _social(name: str, h: int = H) -> Pipeline:
    def run(G: Graph, eps: float, backend: Any, rng: np.random.Generator) -> Table:
        return _release_for(name, G, eps, h=h, theta=THETA, mpdc_tau=TAU, backend=backend,
                            rng=rng)[0]
    return run


def _with_total(h: int | str, micro: str = "none", **extra: Any) -> Pipeline:
    """2K with a private edge total (10 % of ε) the cells are projected onto (issue 36);
    ``h = "auto"``: the degree bound chosen privately too (another 10 %); ``extra``: more
    ``release_dk`` keywords (``graphical=True``, ``degree_sequence=0.2``)."""
    def run(G: Graph, eps: float, backend: Any, rng: np.random.Generator) -> Table:
        from graphanon.dk.release import release_dk

        kw: dict[str, Any] = {"tau": TAU} if micro == "mpdc" else {}
        kw.update({"graphical": False, **extra})  # the earlier runs: class-size repair only
        return release_dk(G, d=2, epsilon=eps, max_degree=h, microaggregation=micro,
                          form="dense", nodes=G.node_ids, edge_total=0.1, backend=backend,
                          rng=rng, **kw).distribution
    return run


def _hay(G: Graph, eps: float, backend: Any, rng: np.random.Generator) -> Table:
    return hay_degree_sequence(G, epsilon=eps, nodes=G.node_ids, backend=backend,
                               rng=rng).histogram()


def _community(G: Graph, eps: float, backend: Any, rng: np.random.Generator) -> Graph:
    """The community pipeline (issue 36, parts 3–4): private partition, Hay degrees,
    community degrees and bounded triangles, realized by BTER on the public node ids."""
    from graphanon.synthetic.bter import generate_community_graph
    from graphanon.synthetic.communities import community_release

    rel = community_release(G, epsilon=eps, nodes=G.node_ids, backend=backend, rng=rng)
    return generate_community_graph(rel, rng=rng)


def _synthesize(privacy: str, **extra: Any) -> Pipeline:
    """``graphanon.synthesize``, the recommended pipeline of one neighbourhood (issue 36,
    part 5): edge-DP is the community pipeline on the public ids, node-DP the θ-2K one;
    ``extra``: its public generator parameters (``block_mixing=0``: equal-degree blocks)."""
    from graphanon.synthetic import synthesize

    def release(G: Graph, eps: float, backend: Any, rng: np.random.Generator) -> Graph:
        nodes = G.node_ids if privacy == "edge" else None
        return synthesize(G, epsilon=eps, neighbourhood=privacy, nodes=nodes, backend=backend,
                          rng=rng, **extra).graph

    return release


def _exact(G: Graph, eps: float, backend: Any, rng: np.random.Generator) -> Table:
    from graphanon.dk import dk_distribution

    return dk_distribution(G, 2)


# name -> (release: (G, ε, noise backend, rng) -> 1K/2K table, keeps the node ids)
PIPELINES: dict[str, tuple[Pipeline, bool]] = {
    "1k": (_social("dk1-edge"), False),
    "hay-1k": (_hay, False),
    "2k": (_social("dk2-edge"), False),
    "2k-mpdc-h64": (_social("dk2-mpdc-edge", 64), False),
    "2k-mpdc-h256": (_social("dk2-mpdc-edge", 256), False),
    "2k-total": (_with_total(H), False),
    "2k-mpdc-h64-total": (_with_total(64, "mpdc"), False),
    "2k-mpdc-h256-total": (_with_total(256, "mpdc"), False),
    "2k-auto-total": (_with_total("auto"), False),
    "2k-mpdc-auto-total": (_with_total("auto", "mpdc"), False),
    "2k-total-consistent": (_with_total(H, graphical=True), False),
    "2k-mpdc-h64-total-consistent": (_with_total(64, "mpdc", graphical=True), False),
    "2k-mpdc-h256-total-consistent": (_with_total(256, "mpdc", graphical=True), False),
    "2k-auto-total-consistent": (_with_total("auto", graphical=True), False),
    "2k-mpdc-auto-total-consistent": (_with_total("auto", "mpdc", graphical=True), False),
    "2k-hay": (_with_total("auto", degree_sequence=0.2), False),
    "2k-mpdc-hay": (_with_total("auto", "mpdc", degree_sequence=0.2), False),
    "2k-mpdc-hay-q99": (_with_total("auto", "mpdc", degree_sequence=0.2, bound_quantile=0.99),
                        False),
    "theta-2k": (_social("theta-dk2-node"), False),
    "2k-exact": (_exact, False),
    "community": (_community, True),
    "synthesize-edge": (_synthesize("edge"), True),
    "synthesize-edge-equal-blocks": (_synthesize("edge", block_mixing=0.0), True),
    "synthesize-node": (_synthesize("node"), False),
    "tmf": (tmf, True),
    "privgraph": (privgraph, True),
    "dgg": (dgg, True),
    "dp-1k": (dp1k, False),
}
NO_EPSILON = ("2k-exact",)  # no noise: run at ε = ∞ (inf in the JSON)
METRICS = {  # key -> (column, node-aligned only)
    "edges_rel": ("edges rel", False),
    "degree_ks": ("deg KS", False),
    "degree_kl": ("deg KL", False),
    "transitivity_rel": ("GCC rel", False),
    "avg_clustering_rel": ("ACC rel", False),
    "modularity_rel": ("mod rel", False),
    "nmi": ("NMI", True),
    "assortativity_abs": ("|Δ assort|", False),
    "path_length_rel": ("APL rel", False),
    "diameter_rel": ("diam rel", False),
    "evc_overlap": ("EVC top-1% overlap", True),
    "evc_mae": ("EVC top-1% MAE", False),
}


def implied_edges(table: Table) -> int:
    """Edges a 1K / 2K table asks for (1K: half the degree sum)."""
    if table.d == 2:
        return int(table.total)
    return int((table.degrees[:, 0] * table.counts).sum() // 2)


def seeded(*parts: object) -> np.random.Generator:
    """A generator determined by the run's coordinates (independent of the filters)."""
    return np.random.default_rng([zlib.crc32(str(p).encode()) for p in parts])


def run_one(G: Graph, orig: Any, name: str, eps: float, seed: int, dataset: str,
            args: argparse.Namespace) -> dict[str, Any]:
    release, aligned = PIPELINES[name]
    rng = seeded(dataset, name, eps, seed)
    backend = get_backend("numpy-insecure", rng=seeded("noise", dataset, name, eps, seed))
    t0 = time.perf_counter()
    table = release(G, eps, backend, rng)
    want = table.n_edges if isinstance(table, Graph) else implied_edges(table)
    row: dict[str, Any] = {"dataset": dataset, "pipeline": name, "epsilon": eps,
                           "seed": seed, "release_edges": want, "generated": False}
    if want > args.max_edges:
        row["edges_rel"] = abs(want - G.n_edges) / G.n_edges
        row["note"] = f"not generated: asks for {want} edges (> --max-edges {args.max_edges})"
    else:
        if isinstance(table, Graph):  # the pipeline generated the graph itself
            S = table
        else:
            gen = generate_1k if table.d == 1 else generate_2k
            S = gen(table, rng=rng).graph
        syn = structure_statistics(S, rng=rng, n_sources=args.sources)
        row.update(compare_structure(orig, syn, aligned=aligned), generated=True,
                   nodes=syn.n_nodes, edges=syn.n_edges)
    row["seconds"] = time.perf_counter() - t0
    return row


def medians(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    keys = dict.fromkeys((r["dataset"], r["epsilon"], r["pipeline"]) for r in rows)
    for ds, eps, name in keys:
        rs = [r for r in rows if (r["dataset"], r["epsilon"], r["pipeline"]) == (ds, eps, name)]
        m: dict[str, Any] = {"dataset": ds, "epsilon": eps, "pipeline": name, "runs": len(rs),
                             "generated": sum(r["generated"] for r in rs)}
        for k in METRICS:
            vals = np.array([r.get(k, math.nan) for r in rs], dtype=np.float64)
            vals = vals[np.isfinite(vals)]
            m[k] = float(np.median(vals)) if vals.size else math.nan
        out.append(m)
    return out


def fmt(x: float, aligned_only: bool) -> str:
    if not math.isfinite(x):
        return "—" if aligned_only else "n/g"
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


def markdown(med: list[dict[str, Any]], n_seeds: int) -> str:
    head = ["dataset", "ε", "pipeline", *[c.replace("|", "\\|") for c, _ in METRICS.values()]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for m in med:
        lines.append("| " + " | ".join([m["dataset"], f"{m['epsilon']:g}".replace(
            "inf", "∞"), m["pipeline"], *[
            fmt(m[k], only) for k, (_, only) in METRICS.items()]]) + " |")
    return "\n".join([
        f"Medians over {n_seeds} seed(s). rel = |synthetic − original| / |original|; "
        "GCC = global clustering (transitivity), ACC = average local clustering, APL = "
        "average shortest path (200 sampled BFS sources), EVC = eigenvector centrality. "
        "— = the release has new node ids (no node alignment); n/g = not generated "
        "(--max-edges). Noise: seeded numpy-insecure backend (reproducible, not private).",
        "", *lines])


def plots(outdir: Path, med: list[dict[str, Any]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    outdir.mkdir(parents=True, exist_ok=True)
    datasets = list(dict.fromkeys(m["dataset"] for m in med))
    names = list(dict.fromkeys(m["pipeline"] for m in med))
    for key, (col, _) in METRICS.items():
        if not any(math.isfinite(m[key]) for m in med):
            continue  # node-aligned metrics without a node-aligned pipeline
        cols = min(3, len(datasets))
        rows = -(-len(datasets) // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(3.8 * cols, 3.0 * rows), squeeze=False)
        for ax in axes.flat[len(datasets):]:
            ax.set_visible(False)
        for ax, ds in zip(axes.flat, datasets, strict=False):
            for name in names:
                pts = sorted((m["epsilon"], m[key]) for m in med
                             if m["dataset"] == ds and m["pipeline"] == name)
                if not pts:
                    continue
                if name in NO_EPSILON:
                    ax.axhline(pts[0][1], color="k", ls="--", lw=1, label=name)
                else:
                    ax.plot(*zip(*pts, strict=True), marker="o", label=name)
            ax.set_xscale("log", base=2)
            ticks = sorted({m["epsilon"] for m in med if math.isfinite(m["epsilon"])})
            ax.set_xticks(ticks, [f"{e:g}" for e in ticks])
            ax.minorticks_off()
            if key in ("edges_rel", "degree_kl", "evc_mae"):
                ax.set_yscale("symlog", linthresh=1e-2 if key != "evc_mae" else 1e-4)
                ax.set_ylim(bottom=0)
            ax.set_title(ds)
            ax.set_xlabel("ε")
            ax.set_ylabel(col)
        axes.flat[0].legend(fontsize=6)
        fig.tight_layout()
        fig.savefig(outdir / f"synthetic_{key}.png", dpi=100)
        plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=SHARED_DATASETS)
    ap.add_argument("--datasets", help=f"comma-separated subset of {', '.join(DATASETS)}")
    ap.add_argument("--families", help="comma-separated random graph families run after the "
                    f"datasets ({', '.join(KNOWN)}; families.py); 'all' for the "
                    "first nine, 'holdout' for the last five")
    ap.add_argument("--pipelines", help=f"comma-separated subset of {', '.join(PIPELINES)}")
    ap.add_argument("--epsilons", help="comma-separated ε values (default 0.5,1,2,4)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--first-seed", type=int, default=0,
                    help="seeds first-seed .. first-seed + seeds − 1 (a rerun with fresh seeds "
                         "of a run with the default 0)")
    ap.add_argument("--sources", type=int, default=200, help="BFS sources of the path length")
    ap.add_argument("--max-edges", type=int, default=2_000_000,
                    help="releases asking for more edges are not generated")
    ap.add_argument("--quick", action="store_true",
                    help=f"1 seed, ε ∈ {QUICK_EPSILONS}, {', '.join(QUICK_DATASETS)}")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--plots", type=Path)
    ap.add_argument("--shuffle-ids", action="store_true",
                    help="relabel each graph's nodes with a seeded random permutation first "
                         "(ids then carry no locality; scripts/partition_shuffled.py)")
    args = ap.parse_args()
    root = datasets_root(args.root)

    def pick(given: str | None, quick: tuple[Any, ...], full: Any) -> list[str]:
        if given:
            chosen = given.split(",")
            bad = [c for c in chosen if c not in full]
            if bad:
                ap.error(f"unknown: {', '.join(bad)} (choose from {', '.join(full)})")
            return chosen
        return list(quick if args.quick else full)

    datasets = pick(args.datasets, QUICK_DATASETS, DATASETS)
    if args.families:
        fams = (list(FAMILIES) if args.families == "all" else list(HOLDOUT)
                if args.families == "holdout" else args.families.split(","))
        bad = [f for f in fams if f not in KNOWN]
        if bad:
            ap.error(f"unknown families: {', '.join(bad)} (choose from "
                     f"{', '.join(KNOWN)})")
        datasets = ([] if args.datasets is None and not args.quick else datasets) + fams
    pipelines = pick(args.pipelines, tuple(PIPELINES), PIPELINES)
    epsilons = ([float(e) for e in args.epsilons.split(",")] if args.epsilons else
                list(QUICK_EPSILONS if args.quick else EPSILONS))
    seeds = [args.first_seed + s for s in range(1 if args.quick else args.seeds)]
    warnings.simplefilter("ignore")  # insecure-backend, degree-bound and igraph warnings
    print("Noise: seeded numpy-insecure backend (reproducible, NOT private).", file=sys.stderr)
    t_start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    originals: dict[str, Any] = {}
    steps = [(ds, name, eps, s) for ds in datasets for name in pipelines
             for eps in ([math.inf] if name in NO_EPSILON else epsilons) for s in seeds]
    for i, (ds, name, eps, s) in enumerate(steps, 1):
        if ds not in originals:
            G = (family_graph(ds) if ds in KNOWN else
                 read_graph(root / DATASETS[ds]))
            if args.shuffle_ids:
                G = shuffle_ids(G, seeded("shuffle", ds))
            st = structure_statistics(G, rng=seeded("original", ds), n_sources=args.sources)
            originals[ds] = (G, st)
        G, orig = originals[ds]
        row = run_one(G, orig, name, eps, s, ds, args)
        rows.append(row)
        print(f"[{i}/{len(steps)}] {ds} {name} ε={eps:g} seed={s}: {row['seconds']:.1f} s"
              f"{' (not generated)' if not row['generated'] else ''}", file=sys.stderr)
    med = medians(sorted(rows, key=lambda r: (datasets.index(r["dataset"]), r["epsilon"],
                                              pipelines.index(r["pipeline"]))))
    print(markdown(med, len(seeds)))
    elapsed = time.perf_counter() - t_start
    print(f"\n{len(steps)} runs in {elapsed:.0f} s (shared machine: noisy).", file=sys.stderr)
    if args.json:
        orig_out = {ds: {k: v for k, v in st.__dict__.items()
                         if k not in ("membership", "centrality", "degree_histogram")}
                    for ds, (_, st) in originals.items()}
        args.json.write_text(json.dumps(
            {"noise": "numpy-insecure (seeded; reproducible, not private)",
             "public_bounds": {"h": H, "theta": THETA, "tau": TAU},
             "seeds": seeds, "epsilons": epsilons, "seconds": elapsed,
             "original": orig_out, "medians": med, "runs": rows},
            indent=1, default=str) + "\n")
    if args.plots:
        plots(args.plots, med)


if __name__ == "__main__":
    main()
