"""Benchmark: personalized DP 1K / 2K (thesis Figures 8.3 / 8.4 in shape), strict vs thesis.

Usage: python scripts/bench_personalized.py [--json PATH] [--plots DIR] [--runs R] [--quick]

On ego-Facebook and Wiki-Vote with the thesis's preference scheme (54 % conservative,
37 % moderate, 9 % liberal; ε_C = 0.01, ε_M = 0.2, ε_L = 1), for edge-PDP and node-PDP and
d = 1, 2: L1 and KS against the true (unprojected) dK of PDP_min, LL-dK, TP-dK (μ = max,
varying θ) and TP-dK_avg, ST-dK (sample size m ∈ {30, 50, 70} %, μ chosen publicly from the
preference table) and ST-dK_avg, AG-dK (varying k), each in the strict (default, audited) and
the thesis calibration, averaged over ``--runs`` runs. Edge-PDP uses the public degree bound
``--bound`` (top-coding) for every method except TP, whose θ is the top-coding bound; node-PDP
uses EAD at θ = ``--node-theta`` except TP (θ varied). Noise: seeded numpy backend
(reproducible, insecure). Shared 2-core machine: times are noisy.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from graphanon.dk.personalized import mu_for_sample_fraction, release_personalized
from graphanon.dk.preferences import thesis_scheme
from graphanon.io.files import read_graph
from graphanon.privacy.noise import get_backend
from graphanon.reproduce.personalized_thesis import release_personalized_thesis

DS = Path("/work/shared/datasets")


def table(rows: list[list[object]], header: list[str]) -> None:
    w = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    print("  ".join(str(h).ljust(k) for h, k in zip(header, w, strict=True)))
    for r in rows:
        print("  ".join(str(x).ljust(k) for x, k in zip(r, w, strict=True)))
    print()


def configs(privacy: str, args: argparse.Namespace, prefs: Any) -> list[dict[str, Any]]:
    base = args.bound if privacy == "edge" else args.node_theta
    out: list[dict[str, Any]] = [
        {"label": "PDP_min", "method": "min", "theta": base, "x": None},
        {"label": "LL-dK", "method": "ll", "theta": base, "x": None},
    ]
    for th in args.thetas:
        out.append({"label": "TP-dK", "method": "tp", "theta": th, "mu": "max", "x": th})
        out.append({"label": "TP-dK_avg", "method": "tp", "theta": th, "mu": "avg", "x": th})
    for m in args.ms:
        out.append({"label": "ST-dK", "method": "st", "theta": base,
                    "mu": mu_for_sample_fraction(prefs, m), "x": m})
    out.append({"label": "ST-dK_avg", "method": "st", "theta": base, "mu": "avg", "x": None})
    for k in args.ks:
        out.append({"label": "AG-dK", "method": "ag", "theta": base, "k": k, "x": k})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", type=Path)
    ap.add_argument("--plots", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bound", type=int, default=1024, help="edge-PDP public degree bound")
    ap.add_argument("--node-theta", type=int, default=64)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    args.thetas = (16, 64, 256) if args.quick else (16, 32, 64, 128, 256)
    args.ms = (0.3, 0.5, 0.7)
    # k = 2 is left out: the thesis variant runs MDAV over the observed 2K entries, O(n²/k)
    args.ks = (4, 10, 50) if args.quick else (10, 25, 50, 100)
    graphs = {"facebook": read_graph(DS / "facebook_combined/facebook_combined.txt"),
              "wiki-vote": read_graph(DS / "wiki-Vote/Wiki-Vote.txt")}
    if args.quick:
        graphs.pop("wiki-vote")
    results: list[dict[str, Any]] = []
    t_all = time.perf_counter()
    for name, G in graphs.items():
        prefs = thesis_scheme(G.node_ids, rng=np.random.default_rng(2022))
        for privacy in ("edge", "node"):
            for d in (1, 2):
                for cfg in configs(privacy, args, prefs):
                    for cal in ("strict", "thesis"):
                        l1s, kss, secs = [], [], []
                        for run in range(args.runs):
                            rng = np.random.default_rng(1000 * run + 7)
                            release = (release_personalized if cal == "strict"
                                       else release_personalized_thesis)
                            r = release(
                                G, prefs, d=d, neighbourhood=privacy, method=cfg["method"],
                                theta=cfg["theta"], mu=cfg.get("mu"), k=cfg.get("k"),
                                key=12345, rng=rng, seed=run,
                                nodes=G.node_ids if privacy == "edge" else None,
                                backend=get_backend("numpy-insecure", rng=rng))
                            l1s.append(r.evaluation["l1"])
                            kss.append(r.evaluation["ks"])
                            secs.append(r.seconds)
                        results.append({
                            "dataset": name, "privacy": privacy, "d": d,
                            "label": cfg["label"], "x": cfg["x"], "theta": cfg["theta"],
                            "mu": r.mu, "k": cfg.get("k"), "calibration": cal,
                            "l1": float(np.mean(l1s)), "ks": float(np.mean(kss)),
                            "seconds": float(np.mean(secs)),
                        })
                print(f"# {name} {privacy}-PDP done ({time.perf_counter() - t_all:.0f} s)",
                      flush=True)

    # summary: best parameter per method (lowest strict L1), strict beside thesis
    rows = []
    for name in graphs:
        for privacy in ("edge", "node"):
            for d in (1, 2):
                sel = [r for r in results if r["dataset"] == name and r["privacy"] == privacy
                       and r["d"] == d]
                pmin = {c: next(r for r in sel if r["label"] == "PDP_min"
                                and r["calibration"] == c) for c in ("strict", "thesis")}
                for label in ("PDP_min", "LL-dK", "TP-dK", "TP-dK_avg", "ST-dK", "ST-dK_avg",
                              "AG-dK"):
                    best = {}
                    for c in ("strict", "thesis"):
                        cand = [r for r in sel if r["label"] == label and r["calibration"] == c]
                        best[c] = min(cand, key=lambda r: r["l1"])
                    s, t = best["strict"], best["thesis"]
                    rows.append([name, privacy, f"{d}K", label,
                                 "" if s["x"] is None else s["x"],
                                 f"{s['l1']:.3g}", f"{s['ks']:.3f}",
                                 "y" if s["l1"] <= pmin["strict"]["l1"] else "n",
                                 "" if t["x"] is None else t["x"],
                                 f"{t['l1']:.3g}", f"{t['ks']:.3f}",
                                 "y" if t["l1"] <= pmin["thesis"]["l1"] else "n",
                                 f"{s['l1'] / max(t['l1'], 1e-9):.3g}"])
    print(f"runs = {args.runs}; edge bound = {args.bound}; node θ = {args.node_theta}; "
          f"total {time.perf_counter() - t_all:.0f} s (shared machine, noisy)\n")
    table(rows, ["dataset", "privacy", "dK", "method", "best x", "L1 strict", "KS strict",
                 "<=min", "best x", "L1 thesis", "KS thesis", "<=min", "cost x"])
    if args.plots:
        plot(results, args.plots)
    if args.json:
        args.json.write_text(json.dumps({"results": results, "summary": rows}, indent=1))


def plot(results: list[dict[str, Any]], outdir: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    outdir.mkdir(parents=True, exist_ok=True)
    keys = sorted({(r["dataset"], r["privacy"], r["d"]) for r in results})
    for d in (1, 2):
        sub_keys = [k for k in keys if k[2] == d]
        fig, axes = plt.subplots(2 * len(sub_keys), 3, figsize=(13, 3.2 * 2 * len(sub_keys)),
                                 squeeze=False)
        for i, (name, privacy, _) in enumerate(sub_keys):
            sel = [r for r in results if (r["dataset"], r["privacy"], r["d"]) == (name, privacy,
                                                                                   d)]
            for j, (labels, xlabel) in enumerate(((("TP-dK", "TP-dK_avg"), "θ"),
                                                  (("AG-dK",), "k"), (("ST-dK",), "m"))):
                for row, metric in enumerate(("l1", "ks")):
                    ax = axes[2 * i + row, j]
                    for c, ls in (("strict", "-"), ("thesis", "--")):
                        for lab in labels:
                            pts = sorted((r["x"], r[metric]) for r in sel
                                         if r["label"] == lab and r["calibration"] == c)
                            ax.plot([p[0] for p in pts], [p[1] for p in pts], ls, marker="o",
                                    label=f"{lab} {c}")
                        for lab, col in (("PDP_min", "k"), ("LL-dK", "grey"),
                                         ("ST-dK_avg", "tab:purple")):
                            v = next(r[metric] for r in sel if r["label"] == lab
                                     and r["calibration"] == c)
                            ax.axhline(v, color=col, ls=ls, lw=0.8, label=f"{lab} {c}")
                    if xlabel in ("θ", "k"):
                        ax.set_xscale("log", base=2)
                    if metric == "l1":
                        ax.set_yscale("log")
                    ax.set_xlabel(xlabel)
                    ax.set_ylabel(f"{metric.upper()} ({name}, {privacy}-PDP)")
                    if i == 0 and row == 0:
                        ax.legend(fontsize=5)
        fig.suptitle(f"Figure 8.{2 + d} in shape: {d}K, solid = strict, dashed = thesis")
        fig.tight_layout()
        fig.savefig(outdir / f"figure_8_{2 + d}_{d}k.png", dpi=90)
        plt.close(fig)


if __name__ == "__main__":
    main()
