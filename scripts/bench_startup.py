"""How fast the CLI answers before doing any work: ``--help`` and argument errors.

For ``graphanon --help``, every command's ``--help`` and one argument error per command, the
script runs the console entry point in a fresh interpreter several times and reports the
median wall time, plus the import time of ``graphanon.cli`` and of whatever the command
module pulls in (from ``python -X importtime``) and which heavy libraries got imported.

Usage::

    python scripts/bench_startup.py [--repeats 5] [--json out.json]

The target (issue 17): under 0.3 s for ``--help`` and for argument errors.
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics
import subprocess
import sys
import time

HEAVY = ("numpy", "pyarrow", "numba", "opendp", "matplotlib", "neo4j", "igraph", "scipy",
         "dask", "sklearn", "rich")

PROBE = """
import sys, time
t0 = time.perf_counter()
from graphanon.cli import main
code = main({args!r})
took = time.perf_counter() - t0
heavy = [m for m in {heavy!r} if m in sys.modules]
sys.stderr.write("\\nBENCH " + repr((took, code, heavy)) + "\\n")
"""


def _commands() -> list[str]:
    from graphanon.cli import COMMANDS

    return sorted(COMMANDS)


def _cases() -> list[tuple[str, list[str]]]:
    cases: list[tuple[str, list[str]]] = [("graphanon --help", ["--help"]),
                                          ("graphanon (no such command)", ["nosuch"])]
    for name in _commands():
        cases.append((f"{name} --help", [name, "--help"]))
        cases.append((f"{name} (bad option)", [name, "--no-such-option"]))
    # a bad value of a checked option, with an input that does not exist: answered while the
    # arguments are parsed, before any input is read
    missing = "no-such-input.txt"
    cases += [
        ("release-dk (ε = -1)", ["release-dk", missing, "--d", "1", "--max-degree", "5",
                                 "--epsilon", "-1", "--out", "o.tsv"]),
        ("release-degrees (ε = 0)", ["release-degrees", missing, "--epsilon", "0",
                                     "--out", "o.tsv"]),
        ("randomized-response (ε = nan)", ["randomized-response", missing, "--users", "u",
                                           "--features", "f", "--epsilon", "nan",
                                           "--out", "o.tsv"]),
        ("smooth-k (k = 1)", ["smooth-k", missing, "--k", "1", "--out", "o.tsv",
                              "--report", "r.json"]),
    ]
    return cases


def _run(args: list[str]) -> tuple[float, float, list[str]]:
    """(wall seconds of the process, seconds inside main incl. imports, heavy modules)."""
    code = PROBE.format(args=args, heavy=HEAVY)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("BENCH "))
    took, _, heavy = ast.literal_eval(line[6:])
    return wall, took, heavy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", default=None)
    opts = ap.parse_args()
    rows = []
    _run(["--help"])  # warm the file cache once
    for label, args in _cases():
        walls, insides, heavy = [], [], []
        for _ in range(opts.repeats):
            w, t, h = _run(args)
            walls.append(w)
            insides.append(t)
            heavy = h
        rows.append({"case": label, "wall_s": statistics.median(walls),
                     "in_graphanon_s": statistics.median(insides), "heavy": heavy})
    width = max(len(r["case"]) for r in rows)
    print(f"{'case':<{width}}  wall (s)  graphanon (s)  heavy modules imported")
    for r in rows:
        flag = "" if r["wall_s"] < 0.3 else "  <-- over 0.3 s"
        print(f"{r['case']:<{width}}  {r['wall_s']:8.3f}  {r['in_graphanon_s']:13.3f}  "
              f"{','.join(r['heavy']) or '-'}{flag}")
    worst = max(r["wall_s"] for r in rows)
    print(f"\nslowest: {worst:.3f} s (median of {opts.repeats} runs each; python itself "
          "starts in about 0.02–0.05 s)")
    if opts.json:
        with open(opts.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
