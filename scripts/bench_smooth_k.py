"""Benchmark of the smooth-k-anonymity engine and its baselines (issues 4 and 16).

Quality: Jaccard / suppressed / created of smooth, suppress (non-smooth) and Mondrian for
several k on Adult, Google Play, ego-Facebook and Wiki-Vote (user × user adjacency) and a
synthetic bipartite stochastic block model; mean ± std over seeds (Mondrian is deterministic:
one run). Speed: Adult k=8 with 10 restarts. Reference check: Mondrian NCP on Adult k=10 with
the 8 quasi-identifiers of qiyuangong/Mondrian. Scale: LSH-sharded synthetic graphs at 1×, 2×,
4× (each in a fresh process for its peak memory). Every release is checked with
verify_smooth_k; a failure aborts the benchmark.

Issue 16: ``--only baseline`` compares smooth-k (the paper's settings and the defaults)
with the naive baseline "MinHash-sort the users, cut into runs of k, release each run's
majority set" on the clustered sparse graph of ``scripts/gen_user_feature.py`` (100k / 1M /
4M edges), Adult, Google Play and a MovieLens-like graph. ``--only ids`` runs the CLI
(``graphanon smooth-k``, ``mondrian``, ``info``) on the same graph written with integer
ids and with string ids (``u123`` / ``f45``), 100k to 10M edges, each in a fresh process
(wall time and peak RSS of the command).

    PYTHONPATH=$PWD python scripts/bench_smooth_k.py --json bench.json
    PYTHONPATH=$PWD python scripts/bench_smooth_k.py --only scale --scale-users 1000000
    PYTHONPATH=$PWD python scripts/bench_smooth_k.py --only baseline --only ids
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from graphanon.anonymity import (
    minhash_baseline,
    mondrian,
    mondrian_table,
    release_clusters,
    smooth_k_anonymity,
    verify_smooth_k,
)
from graphanon.graph import BipartiteGraph
from graphanon.metrics import edge_set_metrics

DATA = Path(os.environ.get("GRAPHANON_DATASETS", Path(__file__).resolve().parents[1].parent
                           / "shared" / "datasets"))
if not DATA.exists():
    DATA = Path("/work/shared/datasets")


def _quiet(task: str, done: int, total: int) -> None:
    return None


# ---------------------------------------------------------------------- datasets
def load_dataset(name: str) -> BipartiteGraph:
    from graphanon.io.tables import load_preset

    if name == "adult":
        return load_preset(DATA / "adult" / "adult.data", "adult")
    if name == "playstore":
        return load_preset(DATA / "googleplaystore" / "googleplaystore.csv", "playstore")
    if name in ("facebook", "wikivote"):
        path = (DATA / "facebook_combined" / "facebook_combined.txt" if name == "facebook"
                else DATA / "wiki-Vote" / "Wiki-Vote.txt")
        e = np.loadtxt(path, comments="#", dtype=np.int64)
        u, v = e[:, 0], e[:, 1]
        if name == "facebook":  # undirected: the symmetric adjacency matrix
            u, v = np.concatenate([u, v]), np.concatenate([v, u])
        nodes = np.unique(np.concatenate([u, v]))
        return BipartiteGraph.from_indices(np.searchsorted(nodes, u), np.searchsorted(nodes, v),
                                           n_users=nodes.size, n_features=nodes.size,
                                           user_ids=nodes, feature_ids=nodes)
    if name == "sbm":
        return sbm_graph(n_blocks=20, users_per_block=250, features_per_block=25, p_in=0.6,
                         p_out=0.005, seed=2024)
    for prefix, gen in (("clustered-", "clustered_graph"), ("movielens-", "movielens_like")):
        if name.startswith(prefix):  # e.g. clustered-1000000, movielens-200000 (edges)
            import gen_user_feature

            return getattr(gen_user_feature, gen)(int(float(name[len(prefix):])), seed=0)
    raise SystemExit(f"unknown dataset {name}")


def sbm_graph(*, n_blocks: int, users_per_block: int, features_per_block: int, p_in: float,
              p_out: float, seed: int) -> BipartiteGraph:
    """Bipartite stochastic block model of ``000_*.txt`` section 4.2 (dense sampling)."""
    rng = np.random.default_rng(seed)
    n, m = n_blocks * users_per_block, n_blocks * features_per_block
    rows, cols = [], []
    for b in range(n_blocks):
        ub = np.arange(b * users_per_block, (b + 1) * users_per_block)
        p = np.full(m, p_out)
        p[b * features_per_block:(b + 1) * features_per_block] = p_in
        hit = rng.random((ub.size, m)) < p
        r, c = np.nonzero(hit)
        rows.append(ub[r])
        cols.append(c)
    return BipartiteGraph.from_indices(np.concatenate(rows), np.concatenate(cols), n_users=n,
                                       n_features=m)


def synthetic_sparse(n_users: int, *, n_features: int = 100_000, edges_per_user: int = 10,
                     seed: int = 0) -> BipartiteGraph:
    """Sparse block-structured graph: users in blocks of 1,000, each block with 100 features
    of which 5 are "core": a user holds each core feature with probability 0.8 (else a random
    block feature), 3 random block features and 2 uniform features (``edges_per_user = 10``
    draws, duplicates merged)."""
    rng = np.random.default_rng(seed)
    block_users, block_feats, core = 1000, 100, 5
    n_blocks_f = n_features // block_feats
    users = np.repeat(np.arange(n_users, dtype=np.int64), edges_per_user)
    base = ((np.arange(n_users) // block_users) % n_blocks_f)[:, None] * block_feats
    local = rng.integers(0, block_feats, (n_users, edges_per_user))
    keep_core = rng.random((n_users, core)) < 0.8
    local[:, :core] = np.where(keep_core, np.arange(core)[None, :], local[:, :core])
    cols = base + local
    cols[:, core + 3:] = rng.integers(0, n_features, (n_users, edges_per_user - core - 3))
    return BipartiteGraph.from_indices(users, cols.ravel(), n_users=n_users,
                                       n_features=n_features)


# ---------------------------------------------------------------------- parts
def check(B: BipartiteGraph, A: BipartiteGraph, k: int, what: str) -> None:
    rep = verify_smooth_k(B, A, k)
    if not rep.ok:
        raise SystemExit(f"verify_smooth_k FAILED for {what}: {rep.violations[:3]}")


def quality(datasets: list[str], ks: list[int], seeds: int, restarts: int) -> list[dict[str, Any]]:
    rows = []
    for name in datasets:
        B = load_dataset(name)
        print(f"# {name}: {B.n_users} users, {B.n_features} features, {B.n_edges} edges",
              flush=True)
        for k in ks:
            acc: dict[str, list[tuple[float, float, float, float]]] = {"smooth": [],
                                                                        "suppress": []}
            for s in range(seeds):
                res = smooth_k_anonymity(B, k=k, rng=np.random.default_rng([s, k]),
                                         restarts=restarts, progress=_quiet)
                check(B, res.anonymized, k, f"{name} smooth k={k} seed={s}")
                acc["smooth"].append((res.jaccard, res.suppressed, res.created,
                                      res.seconds["total"]))
                t = time.perf_counter()
                sup = release_clusters(B, res.clusters, variant="suppress")
                check(B, sup, k, f"{name} suppress k={k} seed={s}")
                m = edge_set_metrics(B, sup)
                acc["suppress"].append((m["jaccard"], m["suppressed"], m["created"],
                                        res.seconds["total"] - res.seconds["release"]
                                        + time.perf_counter() - t))
            mo = mondrian(B, k=k)
            check(B, mo.anonymized, k, f"{name} mondrian k={k}")
            acc["mondrian"] = [(mo.jaccard, mo.suppressed, mo.created, mo.seconds)]
            for alg, vals in acc.items():
                a = np.asarray(vals)
                row = {"dataset": name, "k": k, "algorithm": alg, "runs": len(vals),
                       "jaccard": a[:, 0].mean(), "jaccard_std": a[:, 0].std(),
                       "suppressed": a[:, 1].mean(), "created": a[:, 2].mean(),
                       "seconds": a[:, 3].mean()}
                rows.append(row)
                print(f"{name:10s} k={k:<3d} {alg:9s} jaccard {row['jaccard']:.4f} ± "
                      f"{row['jaccard_std']:.4f}  supp {row['suppressed']:.4f}  created "
                      f"{row['created']:.4f}  {row['seconds']:.2f} s  (n={len(vals)})",
                      flush=True)
    return rows


def postprocess_compare(datasets: list[str], seeds: int) -> list[dict[str, Any]]:
    rows = []
    for name in datasets:
        B = load_dataset(name)
        for pp in ("simple", "paper"):
            j = []
            for s in range(seeds):
                res = smooth_k_anonymity(B, k=8, rng=np.random.default_rng([s, 8]),
                                         postprocess=pp, progress=_quiet)
                check(B, res.anonymized, 8, f"{name} {pp}")
                j.append(res.jaccard)
            rows.append({"dataset": name, "postprocess": pp, "jaccard": float(np.mean(j)),
                         "jaccard_std": float(np.std(j)), "runs": seeds})
            print(f"{name:10s} k=8 postprocess={pp:6s} jaccard {np.mean(j):.4f} ± "
                  f"{np.std(j):.4f}", flush=True)
    return rows


def speed_adult(repeats: int) -> dict[str, Any]:
    B = load_dataset("adult")
    smooth_k_anonymity(B, k=8, rng=np.random.default_rng(0), restarts=1,
                       progress=_quiet)  # numba warm-up (compiled code is cached on disk)
    times = []
    for s in range(repeats):
        t = time.perf_counter()
        res = smooth_k_anonymity(B, k=8, rng=np.random.default_rng(s), restarts=10,
                                 progress=_quiet)
        times.append(time.perf_counter() - t)
        check(B, res.anonymized, 8, "adult speed")
    out = {"dataset": "adult", "k": 8, "restarts": 10, "seconds_mean": float(np.mean(times)),
           "seconds_max": float(np.max(times)), "runs": repeats, "timings": res.seconds}
    last = json.dumps({k: round(v, 3) for k, v in res.seconds.items()})
    print(f"adult k=8 restarts=10: {np.mean(times):.2f} s mean, {np.max(times):.2f} s max over "
          f"{repeats} runs; last run {last}", flush=True)
    return out


def ncp_adult(k: int = 10) -> dict[str, Any]:
    """Mondrian NCP on Adult with the reference's 8 quasi-identifiers and encoding."""
    from graphanon.io.tables import ADULT_COLUMNS, read_table

    t = read_table(DATA / "adult" / "adult.data", column_names=ADULT_COLUMNS)
    cols = t.column_names
    keep = np.ones(t.num_rows, dtype=bool)
    for c in cols:  # the reference drops every line with a '?' anywhere
        keep &= ~np.asarray(t.column(c).is_null().to_numpy(zero_copy_only=False), dtype=bool)
    qis = [("age", False), ("workclass", True), ("education-num", False),
           ("marital-status", True), ("occupation", True), ("race", True), ("sex", True),
           ("native-country", True)]
    X = np.empty((int(keep.sum()), len(qis)))
    for j, (c, cat) in enumerate(qis):
        vals = np.asarray(t.column(c).to_pylist(), dtype=object)[keep]
        if cat:  # integer codes in order of first appearance, as the reference
            _, first, inv = np.unique(vals.astype(str), return_index=True, return_inverse=True)
            rank = np.empty(first.size, dtype=np.int64)
            rank[np.argsort(first)] = np.arange(first.size)
            X[:, j] = rank[inv]
        else:
            X[:, j] = vals.astype(np.float64)
    res = mondrian_table(X, k=k)
    print(f"mondrian_table adult k={k}: {X.shape[0]} records, NCP {res.ncp:.2f} % "
          f"(reference qiyuangong/Mondrian: 11.24 %), {res.n_clusters} partitions, "
          f"{res.seconds:.2f} s", flush=True)
    return {"k": k, "records": X.shape[0], "ncp": res.ncp, "reference_ncp": 11.24,
            "n_partitions": res.n_clusters, "seconds": res.seconds}


def scale_one(n_users: int, shard_size: int, restarts: int, jobs: int) -> dict[str, Any]:
    t = time.perf_counter()
    B = synthetic_sparse(n_users)
    gen = time.perf_counter() - t
    t = time.perf_counter()
    res = smooth_k_anonymity(B, k=8, rng=np.random.default_rng(0), shard_size=shard_size,
                             restarts=restarts, n_jobs=jobs, progress=_quiet)
    secs = time.perf_counter() - t
    t = time.perf_counter()
    check(B, res.anonymized, 8, f"scale {n_users}")
    ver = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # GiB (Linux: KiB)
    peak_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    return {"n_users": n_users, "n_features": B.n_features, "n_edges": B.n_edges,
            "shard_size": shard_size, "restarts": restarts, "jobs": jobs,
            "generate_s": gen, "anonymize_s": secs, "verify_s": ver,
            "peak_gib": peak, "peak_child_gib": peak_children, "jaccard": res.jaccard,
            "n_clusters": res.n_clusters, "timings": res.seconds}


def scale(base: int, factors: list[int], shard_size: int, restarts: int,
          jobs: int) -> list[dict[str, Any]]:
    rows = []
    for f in factors:
        n = base * f
        cmd = [sys.executable, __file__, "--scale-one", str(n), "--shard-size", str(shard_size),
               "--restarts", str(restarts), "--jobs", str(jobs)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        row = json.loads(out.strip().splitlines()[-1])
        rows.append(row)
        print(f"scale {f}x: {n} users, {row['n_edges']} edges: anonymize "
              f"{row['anonymize_s']:.1f} s (verify {row['verify_s']:.1f} s), peak "
              f"{max(row['peak_gib'], row['peak_child_gib']):.2f} GiB, jaccard "
              f"{row['jaccard']:.3f}", flush=True)
    return rows


def rr_matching_epsilon(n_edges: int, n_cells: int, jaccard: float) -> float:
    """Edge-level ε at which randomized response (Algorithm 1 of ``000_*.txt``) has the
    expected Jaccard ``jaccard``: with flip probability ``q = 1/(1+e^ε)`` a 1-cell stays with
    probability ``1−q`` and a 0-cell becomes 1 with probability ``q``, so
    ``J ≈ |E|(1−q) / (|E| + q(N−|E|))`` (``N`` cells), i.e.
    ``q = |E|(1−J) / (J(N−|E|) + |E|)`` and ``ε = ln((1−q)/q)``."""
    q = n_edges * (1 - jaccard) / (jaccard * (n_cells - n_edges) + n_edges)
    return float(np.log((1 - q) / q))


def randomized_response_part(datasets: list[str], ks: list[int],
                             quality_rows: list[dict[str, Any]] | None) -> dict[str, Any]:
    """Figure 6 of ``000_*.txt``: the edge-DP ε of randomized response whose Jaccard equals
    smooth-k's. The ε is solved analytically; when ``graphanon.anonymity.randomized_response``
    is importable, one release at that ε is drawn (insecure seeded backend) to confirm it."""
    try:
        from graphanon.anonymity.randomized_response import randomized_response
    except ImportError:
        randomized_response = None
        print("randomized response: graphanon.anonymity.randomized_response is not on this "
              "branch; ε solved analytically only", flush=True)
    rows = []
    for name in datasets:
        B = load_dataset(name)
        for k in ks:
            target = None
            for r in quality_rows or []:
                if r["dataset"] == name and r["k"] == k and r["algorithm"] == "smooth":
                    target = r["jaccard"]
            if target is None:
                target = smooth_k_anonymity(B, k=k, rng=np.random.default_rng(k),
                                            progress=_quiet).jaccard
            eps = rr_matching_epsilon(B.n_edges, B.n_users * B.n_features, target)
            row: dict[str, Any] = {"dataset": name, "k": k, "smooth_jaccard": target,
                                   "rr_edge_epsilon": eps}
            if randomized_response is not None:
                try:
                    rr = randomized_response(B, epsilon=eps, neighbourhood="edge",
                                             rng=np.random.default_rng(0))
                    row["rr_jaccard"] = edge_set_metrics(B, rr.graph)["jaccard"]
                except Exception as exc:  # report it, do not abort the benchmark
                    row["rr_error"] = str(exc)
            rows.append(row)
            extra = f", RR draw jaccard {row['rr_jaccard']:.4f}" if "rr_jaccard" in row else ""
            print(f"{name:10s} k={k:<3d} smooth jaccard {target:.4f} = randomized response at "
                  f"edge ε {eps:.2f}{extra}", flush=True)
    return {"available": randomized_response is not None, "rows": rows}


# ---------------------------------------------------------------------- issue 16
#: The paper's settings (α = 1/2, the cheapest restart, no refinement, no fallback).
PAPER = {"alpha": 0.5, "select": "cost", "refine": False, "fallback": False}
#: (dataset, shard size) pairs of ``--only baseline``.
BASELINE_RUNS = [("clustered-100000", None), ("clustered-100000", 1000),
                 ("clustered-1000000", 1000), ("clustered-4000000", 1000),
                 ("adult", None), ("adult", 1000), ("playstore", None), ("playstore", 1000),
                 ("movielens-200000", None), ("movielens-1000000", 1000)]


def baseline_compare(runs: list[tuple[str, int | None]], k: int, seeds: int
                     ) -> list[dict[str, Any]]:
    """Smooth-k (paper settings, defaults without the fallback, defaults) against the naive
    MinHash-chunk baseline; every release verified."""
    rows = []
    for name, shard in runs:
        B = load_dataset(name)
        acc: dict[str, list[tuple[float, float]]] = {}
        extra: dict[str, Any] = {}
        for s in range(seeds):
            t = time.perf_counter()
            base = minhash_baseline(B, k=k, rng=np.random.default_rng([s, k]))
            rel = release_clusters(B, base)
            check(B, rel, k, f"{name} baseline")
            acc.setdefault("baseline", []).append(
                (edge_set_metrics(B, rel)["jaccard"], time.perf_counter() - t))
            for label, kw in (("paper", PAPER), ("no-fallback", {"fallback": False}),
                              ("smooth-k", {})):
                t = time.perf_counter()
                res = smooth_k_anonymity(B, k=k, rng=np.random.default_rng([s, k]),
                                         shard_size=shard, progress=_quiet, **kw)
                secs = time.perf_counter() - t
                check(B, res.anonymized, k, f"{name} {label}")
                acc.setdefault(label, []).append((res.jaccard, secs))
                extra[f"max_cluster_{label}"] = res.max_cluster_size
                if label == "smooth-k":
                    extra.update(n_chunks=res.n_chunks, n_chunks_baseline=res.n_chunks_baseline,
                                 n_clusters_split=res.n_clusters_split)
        if B.n_edges <= 1_500_000 and shard is None:  # strict Mondrian, for reference
            t = time.perf_counter()
            mo = mondrian(B, k=k)
            check(B, mo.anonymized, k, f"{name} mondrian")
            acc["mondrian"] = [(mo.jaccard, time.perf_counter() - t)]
        row: dict[str, Any] = {"dataset": name, "shard_size": shard, "k": k,
                               "n_users": B.n_users, "n_edges": B.n_edges, "seeds": seeds,
                               **extra}
        for label, vals in acc.items():
            a = np.asarray(vals)
            row[label] = {"jaccard": float(a[:, 0].mean()), "jaccard_std": float(a[:, 0].std()),
                          "seconds": float(a[:, 1].mean())}
        row["margin"] = row["smooth-k"]["jaccard"] - row["baseline"]["jaccard"]
        rows.append(row)
        print(f"{name:18s} shard={shard or '-':<5} n={B.n_users:7d} e={B.n_edges:8d} | "
              f"baseline {row['baseline']['jaccard']:.4f} | paper {row['paper']['jaccard']:.4f}"
              f" | no-fallback {row['no-fallback']['jaccard']:.4f} | smooth-k "
              f"{row['smooth-k']['jaccard']:.4f} ({row['smooth-k']['seconds']:.1f} s, "
              f"baseline kept in {row['n_chunks_baseline']}/{row['n_chunks']} chunks) | "
              f"margin {row['margin']:+.4f}"
              + (f" | mondrian {row['mondrian']['jaccard']:.4f}" if "mondrian" in row else ""),
              flush=True)
    return rows


def _run_cli(args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (GiB) of one ``graphanon`` command in a fresh process."""
    t = time.perf_counter()
    cli = os.path.join(os.path.dirname(sys.executable), "graphanon")
    proc = subprocess.Popen([cli, "--quiet", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    secs = time.perf_counter() - t
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"graphanon {' '.join(args)} failed ({proc.returncode}): {err}")
    return secs, usage.ru_maxrss / 2**20


def _uptime_load() -> float:
    return os.getloadavg()[0]


def id_types(sizes: list[int], repeats: int, commands: list[str]) -> list[dict[str, Any]]:
    """The CLI on the same clustered graph with integer and with string ids."""
    import tempfile

    import gen_user_feature as gen

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n_edges in sizes:
            B = gen.clustered_graph(n_edges, seed=0)
            paths = {}
            for kind in ("int", "str"):
                paths[kind] = os.path.join(tmp, f"{kind}_{n_edges}.tsv")
                gen.write_tsv(B, paths[kind], string_ids=kind == "str")
            del B
            for cmd in commands:
                if cmd == "b-anonymize":
                    continue  # below, on the Adult sample
                if cmd == "mondrian" and n_edges > 1_000_000:
                    continue  # strict Mondrian's depth × nnz: minutes at 10M, same for both
                for rep in range(repeats):
                    for kind in ("int", "str"):
                        out = os.path.join(tmp, "out.tsv")
                        rpt = os.path.join(tmp, "report.json")
                        args = {"smooth-k": ["smooth-k", paths[kind], "--k", "8",
                                             "--shard-size", "1000", "--seed", "1", "--out",
                                             out, "--report", rpt],
                                "mondrian": ["mondrian", paths[kind], "--k", "8", "--out", out,
                                             "--report", rpt],
                                "info": ["info", "--bipartite", paths[kind]]}[cmd]
                        load = _uptime_load()
                        secs, rss = _run_cli(args)
                        row = {"command": cmd, "n_edges": n_edges, "ids": kind, "repeat": rep,
                               "seconds": secs, "peak_gib": rss, "load1": load}
                        if cmd != "info":
                            with open(rpt) as fh:
                                rep_json = json.load(fh)
                            private = rep_json.get("not_private", rep_json)
                            row["jaccard"] = private["jaccard"]
                            row["verified"] = private["verify_smooth_k"]["ok"]
                        rows.append(row)
                        print(f"{cmd:9s} {n_edges:>9d} edges  {kind:3s} ids  {secs:7.1f} s  "
                              f"peak {rss:5.2f} GiB  load {load:.1f}"
                              + (f"  jaccard {row['jaccard']:.4f}" if "jaccard" in row else ""),
                              flush=True)
        if "b-anonymize" in commands:  # O(n²): the shipped 2,000-row Adult sample, δ = 10
            from graphanon.datasets import load_adult_sample

            A = load_adult_sample()
            for kind in ("int", "str"):
                paths[kind] = os.path.join(tmp, f"adult_{kind}.tsv")
                gen.write_tsv(A, paths[kind], string_ids=kind == "str")
            for rep in range(repeats):
                for kind in ("int", "str"):
                    load = _uptime_load()
                    secs, rss = _run_cli(["b-anonymize", paths[kind], "--delta", "10", "--seed",
                                          "1", "--out", os.path.join(tmp, "masked.tsv"),
                                          "--report", os.path.join(tmp, "b.json")])
                    with open(os.path.join(tmp, "b.json")) as fh:
                        b_json = json.load(fh)
                    util = b_json.get("not_private", b_json).get("utility", b_json.get("utility"))
                    rows.append({"command": "b-anonymize", "n_edges": A.n_edges, "ids": kind,
                                 "repeat": rep, "seconds": secs, "peak_gib": rss,
                                 "load1": load, "utility": util})
                    print(f"b-anonymize {A.n_edges:>7d} edges  {kind:3s} ids  {secs:7.1f} s  "
                          f"peak {rss:5.2f} GiB  load {load:.1f}  utility {util:.4f}",
                          flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=["quality", "postprocess", "speed", "ncp", "scale", "rr",
                                       "baseline", "ids"],
                    action="append")
    ap.add_argument("--baseline-seeds", type=int, default=1)
    ap.add_argument("--id-sizes", default="100000,1000000,10000000",
                    help="edges of the graphs of --only ids")
    ap.add_argument("--id-repeats", type=int, default=2)
    ap.add_argument("--id-commands", default="smooth-k,mondrian,info,b-anonymize")
    ap.add_argument("--datasets", default="adult,playstore,facebook,wikivote,sbm")
    ap.add_argument("--ks", default="2,4,8,16,32")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--restarts", type=int, default=10)
    ap.add_argument("--scale-users", type=int, default=250_000,
                    help="users at 1× (4× is also run)")
    ap.add_argument("--scale-factors", default="1,2,4")
    ap.add_argument("--shard-size", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--scale-one", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--json", default=None, help="write all results here")
    a = ap.parse_args()
    if a.scale_one is not None:
        print(json.dumps(scale_one(a.scale_one, a.shard_size, a.restarts, a.jobs),
                         default=float))
        return
    parts = a.only or ["speed", "ncp", "postprocess", "quality", "rr", "scale"]
    datasets = a.datasets.split(",")
    ks = [int(x) for x in a.ks.split(",")]
    out: dict[str, Any] = {"note": "2-core machine shared with other jobs: timings are noisy"}
    if "speed" in parts:
        out["speed"] = speed_adult(3)
    if "ncp" in parts:
        out["ncp"] = ncp_adult(10)
    if "postprocess" in parts:
        out["postprocess"] = postprocess_compare([d for d in datasets if d in
                                                  ("adult", "playstore", "sbm")], a.seeds)
    if "quality" in parts:
        out["quality"] = quality(datasets, ks, a.seeds, a.restarts)
    if "rr" in parts:
        out["randomized_response"] = randomized_response_part(datasets, ks,
                                                              out.get("quality"))
    if "baseline" in parts:
        out["baseline"] = baseline_compare(BASELINE_RUNS, 8, a.baseline_seeds)
    if "ids" in parts:
        out["ids"] = id_types([int(x) for x in a.id_sizes.split(",")], a.id_repeats,
                              a.id_commands.split(","))
    if "scale" in parts:
        out["scale"] = scale(a.scale_users, [int(x) for x in a.scale_factors.split(",")],
                             a.shard_size, a.restarts, a.jobs)
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=2, default=float) + "\n")


if __name__ == "__main__":
    main()
