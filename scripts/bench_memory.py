"""Peak memory of the CLI on a 10M-edge power-law graph (issue 14).

1. Generates (once; cached under ``scripts/out/``, which git ignores) a Chung–Lu style graph:
   ``2m`` endpoints drawn independently with probability proportional to the Zipf weights
   ``w_i = (i + 1)^(-alpha)`` over ``n`` nodes, loops and duplicate pairs removed, written as a
   SNAP edge list. The defaults (n = 2,000,000, m = 10,000,000, alpha = 0.66, seed 1) give a
   maximum degree of about 48,000.
2. Runs each command in its own subprocess (``graphanon.cli.main``) and reads the peak
   resident set size of that child from ``os.wait4`` (``ru_maxrss``), with the wall time.
   Each child runs under an address-space cap (``--cap-gb``, default 12) so that a runaway
   command is killed instead of starving the (shared) machine; a killed command shows its
   exit status.
3. Prints a table and, with ``--json PATH``, writes the rows.

Usage::

    python scripts/bench_memory.py [--json out.json] [--only dk3,generate2] [--cap-gb 12]

Commands run in order, one at a time, because later ones read the outputs of earlier ones
(``generate --d 2`` reads the table ``dk --d 2`` wrote). Children run in ``scripts/out/``, so
``PYTHONPATH=/path/to/other/checkout`` measures another version of the package (before /
after). Their output (progress bars, errors) goes to ``scripts/out/bench_memory.log``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).resolve().parent / "out"
LIMIT_GB = 4.0


def powerlaw_edges(n: int, m: int, alpha: float, seed: int) -> tuple[Any, Any]:
    """About ``m`` distinct edges ``u < v`` of a Chung–Lu graph with Zipf weights."""
    rng = np.random.default_rng(seed)
    w = (np.arange(n, dtype=np.float64) + 1.0) ** -alpha
    cdf = np.cumsum(w)
    cdf /= cdf[-1]
    keys = np.zeros(0, dtype=np.int64)
    while keys.size < m:
        draw = int((m - keys.size) * 1.05) + 1000
        u = np.searchsorted(cdf, rng.random(draw), side="right")
        v = np.searchsorted(cdf, rng.random(draw), side="right")
        keep = u != v
        lo = np.minimum(u[keep], v[keep]).astype(np.int64)
        hi = np.maximum(u[keep], v[keep]).astype(np.int64)
        keys = np.unique(np.concatenate([keys, lo * n + hi]))
    keys = rng.permutation(keys)[:m]
    return keys // n, keys % n


def write_snap(path: Path, u: Any, v: Any, n: int) -> None:
    tmp = path.with_suffix(".tmp")
    with tmp.open("w") as fh:
        fh.write(f"# Chung-Lu power-law graph (Zipf weights), written by {Path(__file__).name}\n")
        fh.write(f"# Nodes: {n} Edges: {u.size}\n# FromNodeId\tToNodeId\n")
        step = 1_000_000
        for s in range(0, u.size, step):
            block = np.stack([u[s:s + step], v[s:s + step]], axis=1)
            np.savetxt(fh, block, fmt="%d", delimiter="\t")
    tmp.replace(path)


def dataset(n: int, m: int, alpha: float, seed: int) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"powerlaw_n{n}_m{m}_a{alpha:g}_s{seed}.txt"
    if not path.exists():
        t0 = time.perf_counter()
        u, v = powerlaw_edges(n, m, alpha, seed)
        deg = np.bincount(np.concatenate([u, v]))
        print(f"generated {u.size:,} edges, max degree {int(deg.max()):,} "
              f"({time.perf_counter() - t0:.1f} s); writing {path}", flush=True)
        write_snap(path, u, v, n)
    return path


def measured(args: list[str], cap_gb: float, timeout: float) -> dict[str, Any]:
    """Run one command in a fresh child and read its own ``ru_maxrss`` through ``wait4``."""
    cap = int(cap_gb * 2**30)
    cmd = [sys.executable, "-c", "from graphanon.cli import main; main()", "--quiet", *args]
    log = OUT / "bench_memory.log"
    t0 = time.perf_counter()
    with log.open("ab") as fh:
        fh.write(f"\n$ graphanon {' '.join(args)}\n".encode())
        fh.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            try:
                resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
                os.chdir(OUT)  # not the checkout: PYTHONPATH picks the code under test
                os.dup2(fh.fileno(), 1)
                os.dup2(fh.fileno(), 2)
                os.execv(sys.executable, cmd)
            finally:
                os._exit(127)
        deadline = t0 + timeout
        while True:
            wpid, status, usage = os.wait4(pid, os.WNOHANG)
            if wpid:
                break
            if time.perf_counter() > deadline:
                os.kill(pid, 9)
                wpid, status, usage = os.wait4(pid, 0)
                break
            time.sleep(0.05)
    wall = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    return {"command": "graphanon " + " ".join(args), "rc": rc, "wall_s": round(wall, 2),
            "peak_rss_gb": round(usage.ru_maxrss * 1024 / 1e9, 3)}


def commands(graph: Path) -> list[tuple[str, list[str]]]:
    o = OUT
    return [
        ("info", ["info", str(graph)]),
        ("dk1", ["dk", str(graph), "--d", "1", "--out", str(o / "pl_1k.tsv")]),
        ("dk2", ["dk", str(graph), "--d", "2", "--out", str(o / "pl_2k.tsv")]),
        ("dk3", ["dk", str(graph), "--d", "3", "--out", str(o / "pl_3k.tsv")]),
        ("project", ["project", str(graph), "--theta", "64", "--seed", "1",
                     "--out", str(o / "pl_ead64.txt"), "--report", str(o / "pl_ead64.json")]),
        ("release-node1", ["release-dk", str(graph), "--d", "1", "--epsilon", "1",
                           "--neighbourhood", "node", "--seed", "1",
                           "--out", str(o / "pl_node1.tsv"),
                           "--report", str(o / "pl_node1.json")]),
        ("release-node2", ["release-dk", str(graph), "--d", "2", "--epsilon", "1",
                           "--neighbourhood", "node", "--seed", "1",
                           "--out", str(o / "pl_node2.tsv"),
                           "--report", str(o / "pl_node2.json")]),
        ("generate1", ["generate", str(o / "pl_1k.tsv"), "--d", "1", "--seed", "1",
                       "--out", str(o / "pl_gen1.txt"), "--report", str(o / "pl_gen1.json")]),
        ("generate2", ["generate", str(o / "pl_2k.tsv"), "--d", "2", "--seed", "1",
                       "--out", str(o / "pl_gen2.txt"), "--report", str(o / "pl_gen2.json")]),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=2_000_000)
    ap.add_argument("--edges", type=int, default=10_000_000)
    ap.add_argument("--alpha", type=float, default=0.66, help="Zipf exponent of the weights.")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default=None, help="Comma-separated names of the commands to run.")
    ap.add_argument("--cap-gb", type=float, default=12.0,
                    help="Address-space cap of every child (GB).")
    ap.add_argument("--timeout", type=float, default=1800.0, help="Seconds per command.")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    graph = dataset(args.nodes, args.edges, args.alpha, args.seed)
    wanted = set(args.only.split(",")) if args.only else None
    rows = []
    for name, cmd in commands(graph):
        if wanted is not None and name not in wanted:
            continue
        r = {"name": name, **measured(cmd, args.cap_gb, args.timeout)}
        rows.append(r)
        print(f"{name:<14} rc={r['rc']:<4} {r['peak_rss_gb']:6.2f} GB  {r['wall_s']:8.1f} s",
              flush=True)
    load = os.getloadavg()
    print(f"\ninput: {graph.name}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"{'command':<14} {'peak RSS GB':>11} {'wall s':>8}  ok")
    for r in rows:
        ok = r["rc"] == 0 and r["peak_rss_gb"] <= LIMIT_GB
        print(f"{r['name']:<14} {r['peak_rss_gb']:>11.2f} {r['wall_s']:>8.1f}  "
              f"{'yes' if ok else 'NO (rc=' + str(r['rc']) + ')'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"input": str(graph), "limit_gb": LIMIT_GB,
                                               "loadavg": load, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
