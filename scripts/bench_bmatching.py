"""Benchmark of adaptive anonymity via b-matching (003_*.txt Figure 3 shape, and scale).

Figure 3(a): utility 1 − stars/(n·d) of b-matching (Algorithm 1), symmetric b-matching
(Algorithm 2) and agglomerative k-anonymity for uniform δ on samples of UCI Adult and Google
Play (numeric columns split at the median, categoricals one-hot). Figure 3(b): Facebook100
Reed98, the 7 local_info attributes one-hot, δ_i = δ − (F − ⌊ln f_i⌋) from the friend count,
k = max δ_i for the baseline. Scale: Algorithm 1 on all Adult rows (30,162) with δ = 10,
the defaults (``--repeats`` runs, load average noted) and, with ``--before``, the former
settings (every row in the flow problems, the W = 1 matching as start, the paper's full ε
sweep with 5 re-weighting steps) for the before/after table of issue 16.

    python scripts/bench_bmatching.py [--quick] [--scale] [--n 300 600] [--only 3a|3b|scale]
                                      [--before] [--repeats 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from graphanon.anonymity.bmatching import (
    DEFAULT_EPSILONS,
    adaptive_anonymize,
    b_matching_anonymity,
    delta_from_degree,
)
from graphanon.io import read_graph
from graphanon.io.tables import PRESETS, _first_per_id, read_table, table_to_bipartite

DATA = "/work/shared/datasets"
METHODS = ("b-matching", "symmetric-b-matching", "k-anonymity")


def adult(n: int | None, seed: int = 0) -> np.ndarray:
    spec = PRESETS["adult"]
    t = read_table(f"{DATA}/adult/adult.data", column_names=spec.column_names)
    B = table_to_bipartite(t, columns=[c for c in spec.column_names if c != "income"],
                           binarize="median", dropna=True)
    X = B.to_dense().astype(np.int32)
    if n is not None:
        X = X[np.sort(np.random.default_rng(seed).choice(X.shape[0], n, replace=False))]
    return X[:, X.any(axis=0)]


def playstore(n: int, seed: int = 0) -> np.ndarray:
    spec = PRESETS["playstore"]
    t = read_table(f"{DATA}/googleplaystore/googleplaystore.csv", na_values=spec.na_values)
    t = _first_per_id(t, "App")
    B = table_to_bipartite(t, columns=list(spec.columns), id_column="App", binarize="median",
                           split=spec.split)
    X = B.to_dense().astype(np.int32)
    X = X[np.sort(np.random.default_rng(seed).choice(X.shape[0], n, replace=False))]
    return X[:, X.any(axis=0)]


def reed() -> tuple[np.ndarray, np.ndarray]:
    G = read_graph(f"{DATA}/facebook100/Reed98.mat")
    cols = []
    for name in ("status", "gender", "major", "second_major", "dorm", "year", "high_school"):
        v = np.asarray(G.attributes[name])
        cols.append(np.unique(v, return_inverse=True)[1][:, None] == np.arange(
            np.unique(v).size)[None, :])
    return np.hstack(cols).astype(np.int32), G.degrees


#: The settings before issue 16 (for --before).
BEFORE = {"epsilons": DEFAULT_EPSILONS, "max_iter": 5, "duplicates": "keep",
          "start": "matching"}


def run(X, delta, method, seed=0, **options):
    load = os.getloadavg()[0]
    t = time.perf_counter()
    # the tuning options (BEFORE) are keywords of the algorithm's own function
    fn = b_matching_anonymity if options else adaptive_anonymize
    kwargs = options if options else {"method": method}
    r = fn(X, delta=delta, rng=np.random.default_rng(seed), **kwargs)
    return {"utility": r.utility, "stars": r.stars, "seconds": time.perf_counter() - t,
            "verified": bool(r.verification and r.verification.ok), "solves": r.iterations,
            "load1": load}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer δ values, smaller samples")
    ap.add_argument("--scale", action="store_true", help="also n = 30,162 Adult rows, δ = 10")
    ap.add_argument("--n", type=int, nargs="+", default=[300],
                    help="rows per UCI Adult / Google Play sample (several: one sweep each)")
    ap.add_argument("--only", choices=("3a", "3b", "scale"), action="append",
                    help="run only these parts (repeatable; default: 3a, 3b and --scale)")
    ap.add_argument("--before", action="store_true",
                    help="scale: also the former settings (about 50 solves: minutes)")
    ap.add_argument("--repeats", type=int, default=3, help="scale: runs of the defaults")
    ap.add_argument("--json", help="write all rows as JSON")
    a = ap.parse_args()
    deltas = (2, 5, 10, 20) if a.quick else (2, 4, 6, 8, 10, 12, 14, 16, 18, 20)
    rows = []
    parts = set(a.only or (("3a", "3b", "scale") if a.scale else ("3a", "3b")))
    sets = {}
    if "3a" in parts:
        for n in a.n:
            sets[f"adult-{n}"] = adult(n)
        for n in a.n:
            sets[f"play-{n}"] = playstore(n)
    for name, X in sets.items():
        for d in deltas:
            row = {"figure": "3a", "data": name, "n": X.shape[0], "d": X.shape[1], "delta": d}
            for m in METHODS:
                row[m] = run(X, d, m)
            rows.append(row)
            print(_fmt(row), flush=True)
    X, f = reed() if "3b" in parts else (None, None)
    for d in ((5, 10, 20, 30) if a.quick else (5, 10, 15, 20, 25, 30)) if "3b" in parts else ():
        dl = delta_from_degree(f, delta=d)
        row = {"figure": "3b", "data": "reed98", "n": X.shape[0], "d": X.shape[1], "delta": d,
               "delta_min": int(dl.min())}
        for m in METHODS:
            row[m] = run(X, dl, m)
        rows.append(row)
        print(_fmt(row), flush=True)
    if "scale" in parts:
        X = adult(None)
        runs = [("after", {})] * a.repeats + ([("before", BEFORE)] if a.before else [])
        for label, options in runs:
            r = run(X, 10, "b-matching", **options)
            row = {"figure": "scale", "data": "adult-full", "n": X.shape[0], "d": X.shape[1],
                   "delta": 10, "settings": label, "b-matching": r}
            rows.append(row)
            print(f"{_fmt(row)} | {label}: {r['solves']} solves, {r['stars']} stars, "
                  f"load {r['load1']:.1f}", flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=2)


def _fmt(row: dict) -> str:
    parts = [f"{row['figure']:5s} {row['data']:11s} n={row['n']:5d} d={row['d']:3d} "
             f"δ={row['delta']:2d}"]
    for m in METHODS:
        if m in row:
            r = row[m]
            parts.append(f"{m}: u={r['utility']:.4f} ({r['seconds']:.1f}s"
                         f"{'' if r['verified'] else ' UNVERIFIED'})")
    return " | ".join(parts)


if __name__ == "__main__":
    main()
