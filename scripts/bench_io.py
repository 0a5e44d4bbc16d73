"""Parse + CSR-build benchmark: graphanon vs networkx read_edgelist vs igraph Read_Edgelist.

For every shared edge-list dataset and a synthetic power-law edge list (10M edges by default),
time reading the file into an undirected simple graph:

* graphanon: ``read_graph`` (pyarrow parse, id encoding, CSR with sorted rows, loops and
  duplicates dropped);
* networkx: ``nx.read_edgelist(path, nodetype=int)`` into ``nx.Graph`` (dedupes, keeps loops);
* igraph: ``Graph.Read_Edgelist(path, directed=False)`` followed by ``simplify()`` so that the
  result is comparable. igraph's reader accepts neither ``#`` comments nor non-contiguous ids
  well, so it gets a comment-free copy prepared outside the timing.

Usage: ``python scripts/bench_io.py [--edges 10000000] [--repeat 3] [--json out.json]
[--skip-networkx-large]``. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
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


def bench_one(name: str, path: Path, repeat: int, with_nx: bool, tmp: Path) -> dict:
    import igraph
    import networkx as nx

    row: dict = {"dataset": name}
    t, g = timed(lambda: read_graph(path), repeat)
    row.update(graphanon_s=t, nodes=g.n_nodes, edges=g.n_edges,
               bytes_per_edge=g.nbytes / max(g.n_edges, 1))
    clean = tmp / f"{name}.clean.txt"
    strip_comments(path, clean)

    def ig():
        h = igraph.Graph.Read_Edgelist(str(clean), directed=False)
        h.simplify()
        return h

    t, h = timed(ig, repeat)
    row.update(igraph_s=t, igraph_edges=h.ecount())
    del h
    if with_nx:
        t, G = timed(lambda: nx.read_edgelist(path, nodetype=int), max(1, repeat if
                                                                         g.n_edges < 10**6 else 1))
        row.update(networkx_s=t, networkx_edges=G.number_of_edges() - nx.number_of_selfloops(G))
        del G
    else:
        row["networkx_s"] = None
    gc.collect()
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edges", type=int, default=10_000_000)
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-networkx-large", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name, rel in DATASETS.items():
            if (SHARED / rel).exists():
                rows.append(bench_one(name, SHARED / rel, args.repeat, True, tmp))
        for name, rel in OTHER.items():
            if (SHARED / rel).exists():
                t, g = timed(lambda rel=rel: read_graph(SHARED / rel), args.repeat)
                rows.append({"dataset": name, "graphanon_s": t, "nodes": g.n_nodes,
                             "edges": g.n_edges, "bytes_per_edge": g.nbytes / g.n_edges,
                             "igraph_s": None, "networkx_s": None})
        if args.edges:
            u, v = power_law_edges(args.edges, args.nodes)
            synth = tmp / "synthetic.txt"
            write_plain(synth, u, v)
            del u, v
            name = f"synthetic {args.edges / 1e6:g}M"
            rows.append(bench_one(name, synth, 1, not args.skip_networkx_large, tmp))
            rows[-1]["file_mb"] = os.path.getsize(synth) / 2**20
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"| dataset | nodes | edges | graphanon s | igraph s | networkx s | bytes/edge |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        f = lambda x: "—" if x is None else f"{x:.3f}"  # noqa: E731
        print(f"| {r['dataset']} | {r['nodes']} | {r['edges']} | {f(r['graphanon_s'])} | "
              f"{f(r.get('igraph_s'))} | {f(r.get('networkx_s'))} | {r['bytes_per_edge']:.1f} |")
    print(f"\npeak RSS of the benchmark process: {peak:.2f} GiB; cores: {os.cpu_count()}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "peak_rss_gib": peak}, indent=2))


if __name__ == "__main__":
    main()
