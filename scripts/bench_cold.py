"""Cold starts: what a fresh process pays before and around the work (issue 16, part 3).

Every row runs in a fresh interpreter, ``--repeat`` times, and reports the median wall time:

* ``generate --d 2`` through the CLI on the exact 2K table of ca-GrQc (or the shipped
  polbooks graph without ``../shared``) against a whole networkx script doing the same
  (read the table, ``networkx.joint_degree_graph``, write an edge list). A 2K table of at
  most ``SMALL_2K_EDGES`` edges is placed without starting numba (the Python reference of
  the kernel, the same graph); ``generate --d 1`` on the 1K table starts numba;
* ``info`` on the same graph, and a bare ``read_graph`` in a fresh process;
* ``smooth-k`` on the shipped Adult sample with an empty numba cache (every kernel compiled)
  and with the cache filled (loaded);
* where the time of ``generate --d 2`` goes (Python and the CLI, the command, and whether
  numba was started), and what starting numba costs a command that needs it: ``import
  numba`` and numba's first load of a cached kernel (its typing registries; the console
  script skips their BLAS probe, which would import all of ``scipy.linalg``). The process's
  exit is not in the breakdown: the console script skips its garbage collections.

Usage: ``python scripts/bench_cold.py [--repeat 5] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GRQC = ROOT.parent / "shared" / "datasets" / "ca-GrQc" / "CA-GrQc.txt"

NX_SCRIPT = """
import sys, networkx as nx
jdd = {}
for line in open(sys.argv[1]):
    if not line[:1].isdigit():
        continue
    a, b, c = (int(x) for x in line.split("\\t"))
    jdd.setdefault(a, {})[b] = 2 * c if a == b else c
    jdd.setdefault(b, {})[a] = 2 * c if a == b else c
nx.write_edgelist(nx.joint_degree_graph(jdd, seed=1), sys.argv[2], data=False)
"""

PHASES = """
import time, sys
t0 = time.perf_counter()
from graphanon.cli import _own_process, main
_own_process()  # as the console script: numba's BLAS probe skipped
t1 = time.perf_counter()
try:
    main(sys.argv[1:])
except SystemExit:
    pass
t2 = time.perf_counter()
print("PHASES", t1 - t0, t2 - t1, int("numba" in sys.modules))
"""

NUMBA_START = """
import time
t0 = time.perf_counter()
from graphanon.cli import _own_process
_own_process()
import numba
t1 = time.perf_counter()
from graphanon.dk import _generate_kernels as kern
kern._seed_numba(1)  # the first cached kernel: numba's registries load
t2 = time.perf_counter()
print("NUMBA", t1 - t0, t2 - t1)
"""


def cli(*args: str) -> list[str]:
    return [sys.executable, "-c", "from graphanon.cli import main; raise SystemExit(main())",
            *args]


def median_time(cmd: list[str], repeat: int, env: dict[str, str] | None = None,
                before: Any = None) -> float:
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        t = time.perf_counter()
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    import shutil

    from graphanon.datasets import data_path

    graph = GRQC if GRQC.exists() else data_path("polbooks.gml")
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        table = d / "t2.tsv"
        subprocess.run(cli("-q", "dk", "--d", "2", str(graph), "--out", str(table)), check=True,
                       stderr=subprocess.DEVNULL)
        nx_script = d / "nx_generate.py"
        nx_script.write_text(NX_SCRIPT)
        gen_cmd = cli("-q", "generate", "--d", "2", str(table), "--out", str(d / "g.txt"),
                      "--seed", "1")
        median_time(gen_cmd, 1)
        rows.append((f"graphanon generate --d 2 ({graph.name} 2K)", median_time(gen_cmd,
                                                                               args.repeat)))
        table1 = d / "t1.tsv"
        subprocess.run(cli("-q", "dk", "--d", "1", str(graph), "--out", str(table1)),
                       check=True, stderr=subprocess.DEVNULL)
        gen1 = cli("-q", "generate", "--d", "1", str(table1), "--out", str(d / "g1.txt"),
                   "--seed", "1")
        median_time(gen1, 1)  # fills the numba cache
        rows.append((f"graphanon generate --d 1 ({graph.name} 1K; numba)",
                     median_time(gen1, args.repeat)))
        rows.append(("networkx script: read table, joint_degree_graph, write",
                     median_time([sys.executable, str(nx_script), str(table),
                                  str(d / "nx.txt")], args.repeat)))
        rows.append((f"graphanon info {graph.name}",
                     median_time(cli("-q", "info", str(graph)), args.repeat)))
        rows.append((f"python: read_graph({graph.name})", median_time(
            [sys.executable, "-c", f"from graphanon.io import read_graph; "
                                   f"read_graph({str(graph)!r})"], args.repeat)))
        adult = d / "adult.tsv"
        subprocess.run(cli("-q", "bipartite-from-table", "--preset", "adult",
                           str(data_path("adult_sample.csv")), "--out", str(adult)), check=True)
        sk = cli("-q", "smooth-k", str(adult), "--k", "8", "--seed", "1", "--out",
                 str(d / "sk.tsv"), "--report", str(d / "sk.json"))
        cache = d / "numba-cache"
        env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
        rows.append(("smooth-k Adult sample, empty numba cache",
                     median_time(sk, max(args.repeat // 2, 1), env,
                                 before=lambda: shutil.rmtree(cache, ignore_errors=True))))
        median_time(sk, 1, env)
        rows.append(("smooth-k Adult sample, numba cache filled", median_time(sk, args.repeat,
                                                                             env)))
        phases, starts = [], []
        for _ in range(args.repeat):
            out = subprocess.run([sys.executable, "-c", PHASES, *gen_cmd[3:]], check=True,
                                 capture_output=True, text=True).stdout
            line = next(x for x in out.splitlines() if x.startswith("PHASES"))
            phases.append([float(x) for x in line.split()[1:]])
            out = subprocess.run([sys.executable, "-c", NUMBA_START], check=True,
                                 capture_output=True, text=True).stdout
            line = next(x for x in out.splitlines() if x.startswith("NUMBA"))
            starts.append([float(x) for x in line.split()[1:]])
    med = [statistics.median(p[i] for p in phases) for i in range(2)]
    numba_used = any(p[2] for p in phases)
    start = [statistics.median(p[i] for p in starts) for i in range(2)]
    print("| run (fresh process) | median s |\n|---|---|")
    for name, t in rows:
        print(f"| {name} | {t:.2f} |")
    print("\nwhere a warm `generate --d 2` spends its time (in-process, median):\n")
    print("| import graphanon.cli | the command | numba started |\n|---|---|---|")
    print(f"| {med[0]:.2f} | {med[1]:.2f} | {'yes' if numba_used else 'no'} |")
    print("\nwhat starting numba costs a command that needs it (`generate --d 1`, large "
          "inputs; median):\n")
    print("| import graphanon.cli + numba | numba's first cached-kernel load |\n|---|---|")
    print(f"| {start[0]:.2f} | {start[1]:.2f} |")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "phases": med, "numba_used": numba_used,
                                         "numba_start": start}, indent=2))


if __name__ == "__main__":
    main()
