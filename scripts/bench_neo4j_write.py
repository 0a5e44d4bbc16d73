"""Rows a Neo4j write prepares per second on the Python side.

A write builds its rows batch by batch from the payload's CSR slices as they are sent
(``graphanon.io.neo4j.sink``); a server takes ~100k+ relationship rows/s, so the client must
prepare well above that (the target: >= 1M relationship rows/s). This benchmark writes a
random graph as a release through the recording fake of the driver (``tests/neo4j_fake.py``)
and splits the wall time of ``write_release`` into the time spent inside the fake (its
transactions and statements: copying and storing rows, as a server would) and the rest,
which is graphanon's own work (pseudonyms, ordering, building every batch of rows, the
protocol's bookkeeping). Rows prepared per second = rows sent / graphanon's own time.

Usage: ``python scripts/bench_neo4j_write.py [--nodes 20000] [--edges 100000]
[--batch-size 10000] [--repeat 3]``. Prints a Markdown table (best of ``--repeat``); the
recording fake makes each write take seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from neo4j_fake import FakeDB, FakeDriver, FakeSession

from graphanon.graph import Graph
from graphanon.io.neo4j import Neo4jSink
from graphanon.io.neo4j.sink import _batches
from graphanon.privacy.release import Release


class TimedFake(FakeDriver):
    """The recording fake, timing every call into its sessions (inclusive)."""

    def __init__(self) -> None:
        super().__init__(FakeDB())
        self.inside = 0.0
        self.depth = 0

    def session(self, **config: Any) -> FakeSession:
        session = super().session(**config)
        for name in ("run", "execute_read", "execute_write"):
            setattr(session, name, self._timed(getattr(session, name)))
        return session

    def _timed(self, fn: Any) -> Any:
        def call(*args: Any, **kw: Any) -> Any:
            self.depth += 1
            t0 = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                self.depth -= 1
                if self.depth == 0:
                    self.inside += time.perf_counter() - t0

        return call


class NoSink:
    """Passed as ``driver``: ``_payload_rows`` needs none."""


def graph(n: int, m: int) -> Graph:
    rng = np.random.default_rng(7)
    u = rng.integers(0, n, m)
    return Graph.from_edges(u, (u + rng.integers(1, n, m)) % n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=20_000)
    ap.add_argument("--edges", type=int, default=100_000)
    ap.add_argument("--batch-size", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    G = graph(args.nodes, args.edges)
    release = Release.create(mechanism="bench", neighbourhood="k-anonymity", params={"k": 2})
    best: dict[str, float] = {}

    def keep(name: str, seconds: float) -> None:
        best[name] = min(best.get(name, float("inf")), seconds)

    for _ in range(args.repeat):
        # building the rows alone (pseudonyms, order, every batch), no driver at all
        sink = Neo4jSink(NoSink(), batch_size=args.batch_size)
        t0 = time.perf_counter()
        groups, _ = sink._payload_rows("bench", G, None, None, None, False)
        t1 = time.perf_counter()
        n_nodes = sum(len(b) for b in _batches(groups[0].rows, args.batch_size))
        t2 = time.perf_counter()
        n_rels = sum(len(b) for b in _batches(groups[1].rows, args.batch_size))
        t3 = time.perf_counter()
        keep("names and order", t1 - t0)
        keep("node rows", t2 - t1)
        keep("relationship rows", t3 - t2)
        # a whole write through the recording fake
        drv = TimedFake()
        t0 = time.perf_counter()
        s = Neo4jSink(drv, batch_size=args.batch_size).write_release(
            release, release_id="bench", graph=G)
        wall = time.perf_counter() - t0
        keep("write: graphanon", wall - drv.inside)
        keep("write: inside the fake", drv.inside)
        assert s.n_relationships == n_rels == G.n_edges and s.n_nodes == n_nodes
    rows = G.n_nodes + G.n_edges
    print(f"Graph: {G.n_nodes:,} nodes, {G.n_edges:,} edges; batch size {args.batch_size:,}; "
          f"best of {args.repeat}\n")
    print("| part | seconds | rows/s |")
    print("|---|---:|---:|")
    for name, count in (("names and order", G.n_nodes), ("node rows", G.n_nodes),
                        ("relationship rows", G.n_edges), ("write: graphanon", rows),
                        ("write: inside the fake", rows)):
        print(f"| {name} | {best[name]:.3f} | {count / best[name]:,.0f} |")
    print(f"\nrelationship rows prepared: {G.n_edges / best['relationship rows']:,.0f}/s "
          "(target >= 1,000,000/s)")


if __name__ == "__main__":
    main()
