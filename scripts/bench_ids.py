"""Integer ids vs string ids: every data-processing CLI command on the same data (issue 16).

Issue 16 asks that string-id and integer-id runs of every command take the same time within
noise. This benchmark writes one synthetic graph and one synthetic user–feature list twice
(or three times): once with integer ids and once with the same ids relabelled as strings
(nodes ``n123``, users ``u123``, features ``f45``; optionally UUID-like ids with ``--uuid``).
Every command then runs on each copy in a fresh ``graphanon -q`` process, ``--repeat`` times,
int / str interleaved (the order alternates between repeats), and the best wall time and the
largest peak RSS (GNU ``/usr/bin/time -f %M``; "nan" without it) of each are kept.

Inputs (in a temporary directory):

* a Chung–Lu power-law graph with Zipf(2.1)-like weights (``--edges``, ``--nodes``; self-loops
  and duplicates are in the file and dropped by the reader), its node universe (one id per
  line) and a public ``node<TAB>epsilon`` preference table;
* a smaller graph of the same kind for ``dk --d 3`` (``--dk3-edges``);
* the clustered user–feature graph of ``scripts/gen_user_feature.py`` (``--pairs``) with its
  user and feature universes;
* the shipped 2,000-record UCI Adult sample for ``b-anonymize`` (O(n²) matching).

``generate`` reads a dK table (degrees only, no ids): its input is the same for both id
types, so it is left out (``--with-generate`` adds it as a noise control). A warm-up pass on
tiny inputs fills the numba cache first. Where it is cheap the script also checks that the
int and string runs give the same result: identical output files where the mechanism does
not depend on ids (dk tables, edge-DP releases, ``generate``), the same ``info --json``
numbers, and otherwise the same input-describing numbers in the JSON report (users, features,
edges read, loops and duplicates dropped, the verification verdict). Node-DP projections
order edges by a keyed hash of the id text and the anonymizers visit users in id order, so
their outputs legitimately differ between id kinds. A failed check is flagged in the table
and makes the exit status 1.

``--control`` adds a second copy of the integer-id inputs (kind ``int2``, same bytes under
other names), run interleaved with the others: its ``int2/int`` column is each command's
run-to-run noise on this machine, against which the ``str/int`` column is read.

Usage::

    python scripts/bench_ids.py [--edges 1000000] [--pairs 1000000] [--repeat 3] [--uuid]
                                [--control] [--only info,dk,mondrian] [--json out.json]

Prints one Markdown table (seconds = best of ``--repeat``; ratio = str / int). Timings on a
shared machine are noisy: treat ratios within about ±15 % as equal.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gen_user_feature as gen  # scripts/ is sys.path[0] when run as a script
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
from bench_io import power_law_edges

# Leaf keys of the JSON reports that describe the input or the validity of the output, not a
# random or id-order-dependent outcome (paths are ignored: input_cleaning is keyed by file).
REPORT_KEYS = {"self_loops_dropped", "duplicate_edges_dropped", "duplicate_pairs_merged",
               "rows_skipped", "n_users", "n_features", "n_edges_in", "input_edges",
               "n_edges_before", "n_nodes", "n", "d", "theta", "ok"}
PREFIX = {"node": "n", "user": "u", "feature": "f"}
CLI = os.path.join(os.path.dirname(sys.executable), "graphanon")
TIME = shutil.which("time", path="/usr/bin:/bin")  # GNU time, for the peak RSS
NOISE = ["--noise", "numpy-insecure", "--seed", "1"]


# ---------------------------------------------------------------- data


def labels(kind: str, role: str, n: int) -> pa.Array:
    """The ids ``0..n-1`` of ``role`` (node / user / feature) written as ``kind`` ids."""
    idx = pa.array(np.arange(n, dtype=np.int64))
    if kind in ("int", "int2"):  # int2: a second copy, the noise control
        return idx
    if kind == "str":
        return pc.binary_join_element_wise(PREFIX[role], idx.cast(pa.string()), "")
    rng = np.random.default_rng({"node": 11, "user": 12, "feature": 13}[role])
    raw = rng.bytes(16 * n)  # deterministic, UUID-shaped, unique with overwhelming probability
    return pa.array([str(uuid.UUID(bytes=raw[16 * i:16 * i + 16])) for i in range(n)])


def write_columns(path: Path, *cols: pa.Array) -> Path:
    table = pa.table({f"c{i}": c for i, c in enumerate(cols)})
    pacsv.write_csv(table, str(path), pacsv.WriteOptions(include_header=False, delimiter="\t",
                                                         quoting_style="none"))
    return path


def write_graph_inputs(tmp: Path, tag: str, kind: str, n_edges: int, n_nodes: int) -> dict:
    """Edge list, node universe and preference table of one id kind."""
    u, v = power_law_edges(n_edges, n_nodes)
    lab = labels(kind, "node", n_nodes)
    eps = np.random.default_rng(2).choice([0.1, 0.5, 1.0], n_nodes)  # same per node index
    return {
        "graph": write_columns(tmp / f"{tag}_{kind}.txt", lab.take(pa.array(u)),
                               lab.take(pa.array(v))),
        "nodes": write_columns(tmp / f"{tag}_{kind}.nodes", lab),
        "prefs": write_columns(tmp / f"{tag}_{kind}.prefs", lab, pa.array(eps)),
    }


def write_bipartite_inputs(tmp: Path, tag: str, kind: str, B: Any) -> dict:
    """``user<TAB>feature`` list and the user / feature universes of one id kind."""
    r, c = B.edges()
    users, feats = labels(kind, "user", B.n_users), labels(kind, "feature", B.n_features)
    return {
        "pairs": write_columns(tmp / f"{tag}_{kind}.pairs.tsv", users.take(pa.array(r)),
                               feats.take(pa.array(c))),
        "users": write_columns(tmp / f"{tag}_{kind}.users", users),
        "features": write_columns(tmp / f"{tag}_{kind}.features", feats),
    }


def make_inputs(tmp: Path, kinds: list[str], args: argparse.Namespace) -> dict[str, dict]:
    """``{kind: {name: path}}`` for the full-size inputs."""
    from graphanon.datasets import load_adult_sample

    B = gen.clustered_graph(args.pairs, seed=0)
    A = load_adult_sample()
    out: dict[str, dict] = {}
    for kind in kinds:
        d = write_graph_inputs(tmp, "g", kind, args.edges, args.nodes or max(args.edges // 5, 2))
        small = write_graph_inputs(tmp, "g3", kind, args.dk3_edges, max(args.dk3_edges // 5, 2))
        d["graph3"] = small["graph"]
        d.update(write_bipartite_inputs(tmp, "uf", kind, B))
        d["adult"] = write_bipartite_inputs(tmp, "adult", kind, A)["pairs"]
        out[kind] = d
    del B, A
    gc.collect()
    return out


def make_tiny_inputs(tmp: Path, kinds: list[str]) -> dict[str, dict]:
    """Small copies of every input for the warm-up pass (numba compilation, OS caches)."""
    B = gen.clustered_graph(2_000, seed=0)
    out: dict[str, dict] = {}
    for kind in kinds:
        d = write_graph_inputs(tmp, "tiny", kind, 2_000, 400)
        d["graph3"] = d["graph"]
        d.update(write_bipartite_inputs(tmp, "tinyuf", kind, B))
        d["adult"] = d["pairs"]
        out[kind] = d
    return out


# ---------------------------------------------------------------- commands


@dataclass(frozen=True)
class Command:
    name: str
    build: Callable[[dict, Path], list[str]]  # (inputs, out dir) -> argv after "graphanon -q"
    # what must agree between the id kinds: "identical" (output file bytes), "report" (the
    # input-describing numbers of the JSON report, REPORT_KEYS), "info" (info --json numbers)
    check: str
    output: str = "out.tsv"


def _out(o: Path, name: str = "out.tsv") -> str:
    return str(o / name)


COMMANDS = [
    Command("info", lambda i, o: ["info", "--json", str(i["graph"])], "info"),
    Command("info --bipartite",
            lambda i, o: ["info", "--json", "--bipartite", str(i["pairs"])], "info"),
    *[Command(f"dk --d {d}", lambda i, o, d=d: [
        "dk", str(i["graph3" if d == 3 else "graph"]), "--d", str(d), "--out", _out(o)],
        "identical") for d in (1, 2, 3)],
    *[Command(f"release-dk --d {d} edge", lambda i, o, d=d: [
        "release-dk", str(i["graph"]), "--d", str(d), "--epsilon", "1", "--nodes",
        str(i["nodes"]), "--max-degree", "1024", *NOISE, "--out", _out(o),
        "--report", _out(o, "r.json")], "identical") for d in (1, 2)],
    *[Command(f"release-dk --d {d} node", lambda i, o, d=d: [
        "release-dk", str(i["graph"]), "--d", str(d), "--epsilon", "1", "--neighbourhood", "node",
        "--theta", "64", *NOISE, "--out", _out(o), "--report", _out(o, "r.json")], "report")
      for d in (1, 2)],
    Command("release-degrees rps", lambda i, o: [
        "release-degrees", str(i["graph"]), "--epsilon", "1", *NOISE, "--out", _out(o)],
        "identical"),
    Command("release-degrees hay", lambda i, o: [
        "release-degrees", str(i["graph"]), "--method", "hay", "--epsilon", "1", "--nodes",
        str(i["nodes"]), *NOISE, "--out", _out(o)], "identical"),
    Command("release-personalized --d 2 edge tp", lambda i, o: [
        "release-personalized", str(i["graph"]), "--d", "2", "--neighbourhood", "edge", "--method",
        "tp", "--prefs", str(i["prefs"]), "--nodes", str(i["nodes"]), "--theta", "1024",
        *NOISE, "--out", _out(o)], "identical"),
    Command("release-personalized --d 1 node min", lambda i, o: [
        "release-personalized", str(i["graph"]), "--d", "1", "--neighbourhood", "node", "--method",
        "min", "--prefs", str(i["prefs"]), "--theta", "64", *NOISE, "--out", _out(o),
        "--report", _out(o, "r.json")], "report"),
    Command("project ead", lambda i, o: [
        "project", str(i["graph"]), "--theta", "64", "--seed", "1", "--out",
        _out(o, "out.txt"), "--report", _out(o, "r.json")], "report"),
    Command("smooth-k", lambda i, o: [
        "smooth-k", str(i["pairs"]), "--k", "8", "--shard-size", "1000", "--seed", "1",
        "--out", _out(o), "--report", _out(o, "r.json")], "report"),
    Command("mondrian", lambda i, o: [
        "mondrian", str(i["pairs"]), "--k", "8", "--out", _out(o), "--report",
        _out(o, "r.json")], "report"),
    Command("randomized-response", lambda i, o: [
        "randomized-response", str(i["pairs"]), "--epsilon", "10", "--users", str(i["users"]),
        "--features", str(i["features"]), *NOISE, "--out", _out(o), "--report",
        _out(o, "r.json")], "report"),
    Command("b-anonymize (Adult 2k)", lambda i, o: [
        "b-anonymize", str(i["adult"]), "--delta", "10", "--seed", "1", "--out", _out(o),
        "--report", _out(o, "r.json")], "report"),
]
GENERATE = Command("generate --d 2 (control)", lambda i, o: [
    "generate", str(i["dk2"]), "--d", "2", "--seed", "1", "--out", _out(o, "out.txt")],
    "identical", "out.txt")


def run_cli(argv: list[str], log_dir: Path) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MiB) and stdout of ``graphanon -q ARGV`` in a fresh process.

    The peak RSS comes from GNU time's ``%M`` (a grandchild forked by the small ``time``
    process): ``os.wait4`` on a direct child would report at least this benchmark's own RSS,
    since Linux carries a process's peak RSS over ``fork`` + ``exec``."""
    out_path, err_path = log_dir / "stdout.txt", log_dir / "stderr.txt"
    rss_path = log_dir / "maxrss.txt"
    timer = [TIME, "-f", "%M", "-o", str(rss_path)] if TIME else []
    with out_path.open("wb") as out, err_path.open("wb") as err:
        t = time.perf_counter()
        proc = subprocess.run([*timer, CLI, "-q", *argv], stdout=out, stderr=err, check=False)
        secs = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"graphanon -q {' '.join(argv)} failed ({proc.returncode}):\n"
                         f"{err_path.read_text()}")
    rss = int(rss_path.read_text().split()[-1]) / 1024 if TIME else float("nan")  # KiB
    return secs, rss, out_path.read_text()


def fingerprint(cmd: Command, odir: Path, stdout: str) -> Any:
    """What must agree between the id kinds (None: nothing checked)."""
    if cmd.check == "info":
        info = json.loads(stdout)
        return {k: v for k, v in info.items() if isinstance(v, int | float)}
    if cmd.check == "identical":
        return (odir / cmd.output).read_bytes()
    if cmd.check == "report":
        found: list[tuple[str, Any]] = []

        def walk(x: Any, key: str = "") -> None:
            if isinstance(x, dict):
                for k, v in x.items():
                    walk(v, k)
            elif key in REPORT_KEYS:
                found.append((key, x))

        walk(json.loads((odir / "r.json").read_text()))
        return sorted(found, key=repr)
    return None


def bench(commands: list[Command], inputs: dict[str, dict], tmp: Path, repeat: int,
          log: bool = True) -> list[dict]:
    kinds = list(inputs)
    rows = []
    for cmd in commands:
        row: dict[str, Any] = {"command": cmd.name}
        prints: dict[str, Any] = {}
        for rep in range(repeat):
            order = kinds if rep % 2 == 0 else kinds[::-1]
            for kind in order:
                odir = tmp / f"out_{kind}"
                odir.mkdir(exist_ok=True)
                argv = cmd.build(inputs[kind], odir)
                secs, rss, stdout = run_cli(argv, odir)
                row[f"{kind}_s"] = min(row.get(f"{kind}_s", float("inf")), secs)
                row[f"{kind}_peak_mib"] = max(row.get(f"{kind}_peak_mib", 0.0), rss)
                if rep == 0:
                    prints[kind] = fingerprint(cmd, odir, stdout)
                if log:
                    print(f"  {cmd.name:36s} {kind:4s} {secs:8.2f} s  {rss:7.0f} MiB",
                          file=sys.stderr, flush=True)
        for kind in kinds[1:]:
            row[f"{kind}_ratio"] = row[f"{kind}_s"] / row[f"{kinds[0]}_s"]
        row["check"] = cmd.check
        row["same"] = (None if cmd.check == "none"
                       else all(prints[k] == prints[kinds[0]] for k in kinds))
        rows.append(row)
    return rows


def add_generate_input(inputs: dict[str, dict], tmp: Path) -> None:
    """The 2K table of each kind's graph (identical by construction), for ``generate``."""
    for kind, d in inputs.items():
        d["dk2"] = tmp / f"dk2_{kind}.tsv"
        run_cli(["dk", str(d["graph"]), "--d", "2", "--out", str(d["dk2"])], tmp)


def table(rows: list[dict], kinds: list[str]) -> str:
    other = kinds[1:]
    head = (["command", *(f"{k} s" for k in kinds), *(f"{k}/int" for k in other),
             *(f"{k} peak MiB" for k in kinds), "same result"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        same = {None: "—", True: "yes", False: "**NO**"}[r["same"]]
        if r["same"] is not None:
            same += f" ({r['check']})"
        cells = [r["command"], *(f"{r[f'{k}_s']:.2f}" for k in kinds),
                 *(f"{r[f'{k}_ratio']:.2f}" for k in other),
                 *(f"{r[f'{k}_peak_mib']:.0f}" for k in kinds), same]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edges", type=int, default=1_000_000, help="edges of the power-law graph")
    ap.add_argument("--nodes", type=int, default=0, help="its nodes (default edges / 5)")
    ap.add_argument("--dk3-edges", type=int, default=200_000,
                    help="edges of the smaller graph for dk --d 3")
    ap.add_argument("--pairs", type=int, default=1_000_000,
                    help="user–feature pairs of the clustered user–feature graph")
    ap.add_argument("--repeat", type=int, default=3, help="runs per command and id kind")
    ap.add_argument("--uuid", action="store_true", help="also run with UUID-like ids")
    ap.add_argument("--with-generate", action="store_true",
                    help="add generate --d 2 (its input holds no ids: a noise control)")
    ap.add_argument("--control", action="store_true",
                    help="also run a second copy of the integer-id inputs (kind int2): the "
                         "int2/int column is each command's run-to-run noise, the yardstick "
                         "for 'the same time within noise'")
    ap.add_argument("--only", help="comma-separated command names (prefixes) to run")
    ap.add_argument("--no-warmup", action="store_true", help="skip the tiny warm-up pass")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = ap.parse_args()

    kinds = ["int", "str", *(["uuid"] if args.uuid else []), *(["int2"] if args.control else [])]
    commands = COMMANDS + ([GENERATE] if args.with_generate else [])
    if args.only:
        wanted = [w.strip() for w in args.only.split(",")]
        commands = [c for c in commands if any(c.name.startswith(w) for w in wanted)]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_ids_") as d:
        tmp = Path(d)
        if not args.no_warmup:
            tiny = make_tiny_inputs(tmp, kinds)
            if args.with_generate:
                add_generate_input(tiny, tmp)
            bench(commands, tiny, tmp, 1, log=False)
        t = time.perf_counter()
        inputs = make_inputs(tmp, kinds, args)
        if args.with_generate:
            add_generate_input(inputs, tmp)
        print(f"inputs written in {time.perf_counter() - t:.1f} s "
              f"({', '.join(f'{p.name} {p.stat().st_size / 2**20:.0f} MiB' for p in inputs['int'].values() if p.stat().st_size > 2**20)})",  # noqa: E501
              file=sys.stderr)
        rows = bench(commands, inputs, tmp, args.repeat)
    total = time.perf_counter() - t0
    print(table(rows, kinds))
    print(f"\nbest of {args.repeat}; {args.edges:,} edges ({args.dk3_edges:,} for dk --d 3), "
          f"{args.pairs:,} user–feature pairs; cores: {os.cpu_count()}; load "
          f"{os.getloadavg()[0]:.1f}; total {total:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                                         "rows": rows, "total_s": total}, indent=2))
    if any(r["same"] is False for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
