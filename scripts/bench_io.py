"""Parse + CSR-build benchmark: graphanon against the parse floor and other readers.

For every shared edge-list dataset and a synthetic power-law edge list (10M edges by default,
with integer ids and the same graph with string ids ``n123``), time reading the file into an
undirected simple graph, in one run:

* graphanon: ``read_graph`` (one scanning pass to id codes, CSR built by counting, sorted
  rows, loops and duplicates dropped), best of ``--repeat`` in a process whose kernels are
  loaded (a cold process pays about 0.6 s once to load them; see the ``info`` column);
* the floor: pyarrow's multi-threaded ``read_csv`` of the same file into two columns (no
  graph at all) and ``np.loadtxt`` (integer ids only; on a 1M-edge sample of large files,
  scaled up linearly, since it takes minutes on 10M);
* igraph: ``Graph.Read_Edgelist(path, directed=False)`` followed by ``simplify()``, on a
  comment-free copy prepared outside the timing (its reader takes neither comments nor
  sparse ids well);
* networkx: ``nx.read_edgelist(path)`` into ``nx.Graph``;
* ``graphanon info`` in a fresh process: wall time (imports and JIT cache load included) and
  peak RSS (the issue's target: under 1 GB on the 10M-edge file).

Usage: ``python scripts/bench_io.py [--edges 10000000] [--repeat 3] [--json out.json]
[--skip-networkx-large]``. Prints a Markdown table; ``× pyarrow`` is graphanon's time over
pyarrow's parse of the same file.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from graphanon.io import read_graph

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
DATASETS = {
    "ca-GrQc": "ca-GrQc/CA-GrQc.txt",
    "ego-Facebook": "facebook_combined/facebook_combined.txt",
    "Wiki-Vote": "wiki-Vote/Wiki-Vote.txt",
}
OTHER = {  # formats only graphanon reads directly here
    "polbooks (GML)": "polbooks/polbooks.gml",
    "Reed98 (.mat)": "facebook100/Reed98.mat",
    "Caltech36 (.mtx)": "facebook100/socfb-Caltech36.mtx",
}


def power_law_edges(n_edges: int, n_nodes: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Chung–Lu style endpoints with Zipf(2.1)-like weights (heavy-tailed degrees)."""
    rng = np.random.default_rng(seed)
    w = (np.arange(1, n_nodes + 1, dtype=np.float64)) ** (-1 / 1.1)
    cdf = np.cumsum(w / w.sum())
    u = np.searchsorted(cdf, rng.random(n_edges))
    v = np.searchsorted(cdf, rng.random(n_edges))
    perm = rng.permutation(n_nodes)  # hubs spread over the id space
    return perm[u], perm[v]


def write_plain(path: Path, u: np.ndarray, v: np.ndarray) -> None:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    pacsv.write_csv(pa.table({"u": u, "v": v}), path,
                    pacsv.WriteOptions(include_header=False, delimiter="\t"))


def strip_comments(src: Path, dst: Path) -> None:
    with src.open("rb") as fi, dst.open("wb") as fo:
        for line in fi:
            if not line.lstrip().startswith(b"#"):
                fo.write(line.replace(b" ", b"\t"))


def timed(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def pyarrow_parse(clean: Path, threads: bool = True):
    """The floor: two text-or-integer columns, no graph (default types; pyarrow's thread
    pool, or one thread as graphanon's scanner uses)."""
    import pyarrow.csv as pacsv

    return pacsv.read_csv(clean, read_options=pacsv.ReadOptions(
        autogenerate_column_names=True, block_size=1 << 24, use_threads=threads),
        parse_options=pacsv.ParseOptions(delimiter="\t"))


LOADTXT_ROWS = 1_000_000


def loadtxt_time(clean: Path, n_edges: int) -> float | None:
    """``np.loadtxt`` of an integer edge list; files over LOADTXT_ROWS lines on a sample,
    scaled linearly (it is linear and takes minutes on 10M lines)."""
    with clean.open("rb") as fh:
        head = fh.readline()
    if not head.split(b"\t")[0].strip().lstrip(b"-").isdigit():
        return None
    if n_edges <= LOADTXT_ROWS:
        return timed(lambda: np.loadtxt(clean, dtype=np.int64), 1)[0]
    t, _ = timed(lambda: np.loadtxt(clean, dtype=np.int64, max_rows=LOADTXT_ROWS), 1)
    return t * n_edges / LOADTXT_ROWS


_MEASURE = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def info_in_fresh_process(path: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (GiB) of ``graphanon -q info PATH`` in a new process (its
    peak measured by a parent of its own, so runs do not mix)."""
    exe = Path(sys.executable).with_name("graphanon")
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(exe), "-q", "info", str(path)],
                         check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t, int(out.split()[-1]) / 2**20


def bench_one(name: str, path: Path, repeat: int, with_nx: bool, tmp: Path,
              integer_ids: bool = True) -> dict:
    import igraph
    import networkx as nx

    row: dict = {"dataset": name}
    t, g = timed(lambda: read_graph(path), repeat)
    row.update(graphanon_s=t, nodes=g.n_nodes, edges=g.n_edges,
               bytes_per_edge=g.nbytes / max(g.n_edges, 1))
    clean = tmp / f"{name}.clean.txt"
    strip_comments(path, clean)
    t, table = timed(lambda: pyarrow_parse(clean), max(repeat, 2))  # threads warmed
    row.update(pyarrow_s=t, rows=table.num_rows)
    del table
    row["pyarrow_1t_s"] = timed(lambda: pyarrow_parse(clean, threads=False), max(repeat, 2))[0]
    row["loadtxt_s"] = loadtxt_time(clean, g.n_edges) if integer_ids else None
    if integer_ids:
        def ig():
            h = igraph.Graph.Read_Edgelist(str(clean), directed=False)
            h.simplify()
            return h

        t, h = timed(ig, repeat)
        row.update(igraph_s=t, igraph_edges=h.ecount())
        del h
    else:
        row["igraph_s"] = None
    if with_nx:
        kw = {"nodetype": int} if integer_ids else {}
        t, G = timed(lambda: nx.read_edgelist(path, **kw), repeat if g.n_edges < 10**6 else 1)
        row.update(networkx_s=t, networkx_edges=G.number_of_edges() - nx.number_of_selfloops(G))
        del G
    else:
        row["networkx_s"] = None
    del g
    gc.collect()
    row["info_s"], row["info_peak_gib"] = info_in_fresh_process(path)
    return row


def write_string_ids(src: Path, dst: Path) -> None:
    """The same edge list with every id written ``n<id>`` (pyarrow, no Python loop)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    t = pyarrow_parse(src)
    cols = {c: pc.binary_join_element_wise("n", pc.cast(t.column(c), pa.string()), "")
            for c in t.column_names}
    pacsv.write_csv(pa.table(cols), dst, pacsv.WriteOptions(include_header=False,
                                                            delimiter="\t", quoting_style="none"))


def warm_up() -> None:
    """Load the scanner and CSR kernels once (numba's cache), as a long-running process has
    them: the in-process columns show steady-state reads; the cold cost of a fresh process
    is the ``info`` column."""
    from graphanon.io import _scan

    for text in (b"1 2\n2 3\n", b"a b\nb c\n"):
        _scan.scan_pairs(Path("warm-up"), text, tabs=False, exact=False, shared=True,
                         engine="numba")
    u, v = power_law_edges(1 << 18, 1 << 12)
    from graphanon.graph import Graph

    Graph.from_edges(u, v)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edges", type=int, default=10_000_000)
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-networkx-large", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = []
    warm_up()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name, rel in DATASETS.items():
            if (SHARED / rel).exists():
                rows.append(bench_one(name, SHARED / rel, args.repeat, True, tmp))
        for name, rel in OTHER.items():
            if (SHARED / rel).exists():
                t, g = timed(lambda rel=rel: read_graph(SHARED / rel), args.repeat)
                rows.append({"dataset": name, "graphanon_s": t, "nodes": g.n_nodes,
                             "edges": g.n_edges, "bytes_per_edge": g.nbytes / g.n_edges})
        if args.edges:
            u, v = power_law_edges(args.edges, args.nodes)
            synth = tmp / "synthetic.txt"
            write_plain(synth, u, v)
            del u, v
            strings = tmp / "synthetic_str.txt"
            write_string_ids(synth, strings)
            size = f"{args.edges / 1e6:g}M"
            for name, path, ints in ((f"synthetic {size}", synth, True),
                                     (f"synthetic {size}, string ids", strings, False)):
                rows.append(bench_one(name, path, args.repeat, not args.skip_networkx_large,
                                      tmp, ints))
                rows[-1]["file_mb"] = os.path.getsize(path) / 2**20
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    f = lambda x, p=3: "—" if x is None else f"{x:.{p}f}"  # noqa: E731
    print("| dataset | nodes | edges | graphanon s | pyarrow parse s (threads / 1 thread) "
          "| × pyarrow (threads / 1 thread) | np.loadtxt s | igraph s | networkx s | bytes/edge "
          "| `info` fresh process s | `info` peak RSS GiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = (r["graphanon_s"] / r["pyarrow_s"]) if r.get("pyarrow_s") else None
        ratio1 = (r["graphanon_s"] / r["pyarrow_1t_s"]) if r.get("pyarrow_1t_s") else None
        print(f"| {r['dataset']} | {r['nodes']} | {r['edges']} | {f(r['graphanon_s'])} | "
              f"{f(r.get('pyarrow_s'))} / {f(r.get('pyarrow_1t_s'))} | "
              f"{f(ratio, 2)} / {f(ratio1, 2)} | {f(r.get('loadtxt_s'), 2)} | "
              f"{f(r.get('igraph_s'))} | {f(r.get('networkx_s'), 2)} | "
              f"{r['bytes_per_edge']:.1f} | {f(r.get('info_s'), 2)} | "
              f"{f(r.get('info_peak_gib'), 2)} |")
    print(f"\npeak RSS of the benchmark process: {peak:.2f} GiB; cores: {os.cpu_count()}; "
          f"np.loadtxt on files over {LOADTXT_ROWS:,} lines: a {LOADTXT_ROWS:,}-line sample "
          "scaled up")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "peak_rss_gib": peak}, indent=2))


if __name__ == "__main__":
    main()
