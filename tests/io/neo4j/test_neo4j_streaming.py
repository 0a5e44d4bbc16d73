"""Streaming writes: rows are built from CSR slices as each batch is sent."""

from __future__ import annotations

import tracemalloc
from typing import Any

import numpy as np
import pytest
from bound import bound

from graphanon.graph import BipartiteGraph, Graph
from graphanon.io.neo4j import Neo4jSink
from graphanon.io.neo4j.sink import _batches, _take
from graphanon.privacy.release import Release

K_ANON = Release.create(mechanism="test-k", neighbourhood="k-anonymity", params={"k": 2})


def reference_edges(u: np.ndarray, v: np.ndarray, left: list[Any], left_rank: np.ndarray,
                    right: list[Any], right_rank: np.ndarray) -> list[dict[str, Any]]:
    """The rows as the sink built them up front before streaming: in the written order of
    their source, then of their target."""
    order = np.lexsort((right_rank[v], left_rank[u]))
    return [{"source": left[a], "target": right[b]}
            for a, b in zip(u[order].tolist(), v[order].tolist(), strict=True)]


def random_graph(seed: int, n: int, m: int) -> Graph:
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    hub = np.zeros(m // 4, dtype=np.int64)  # a hub whose row spans several batches
    return Graph.from_edges(np.concatenate([u, hub]), np.concatenate([v, rng.integers(
        0, n, hub.size)]), n_nodes=n + 3, node_ids=np.arange(n + 3) * 7)  # 3+ isolated


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("keep_ids", [False, True])
def test_graph_rows_streamed_from_the_csr_equal_the_rows_built_up_front(seed: int,
                                                                       keep_ids: bool) -> None:
    G = random_graph(seed, 60, 400)
    sink = Neo4jSink(object(), batch_size=7)
    groups, _ = sink._payload_rows("scope", G, None, None, None, keep_ids)
    nodes, edges = groups[0].rows, groups[1].rows
    names = _take(nodes.uids, slice(None))  # the uid of each node index
    written = [row["uid"] for row in nodes[0:len(nodes)]]
    assert written == (sorted(names) if not keep_ids else names)  # pseudonym order
    rank = np.empty(G.n_nodes, dtype=np.int64)
    rank[[names.index(x) for x in written]] = np.arange(G.n_nodes)
    u, v = G.edges()
    swap = rank[u] > rank[v]
    u, v = np.where(swap, v, u), np.where(swap, u, v)
    expected = reference_edges(u, v, names, rank, names, rank)
    assert len(edges) == G.n_edges == len(expected)
    for size in (1, 7, 64, 10_000):
        assert [row for batch in _batches(edges, size) for row in batch] == expected
    assert edges[5:5] == [] and edges[len(edges) - 1] == expected[-1]


def test_bipartite_rows_streamed_from_the_csr_equal_the_rows_built_up_front() -> None:
    rng = np.random.default_rng(3)
    r, c = rng.integers(0, 40, 300), rng.integers(0, 12, 300)
    B = BipartiteGraph.from_indices(r, c, n_users=45, n_features=14,
                                    user_ids=np.arange(45), feature_ids=np.arange(14) + 500,
                                    user_attributes={"age": rng.integers(18, 90, 45)})
    sink = Neo4jSink(object(), batch_size=5)
    groups, _ = sink._payload_rows("scope", None, B, None, None, False)
    users, feats, edges = (g.rows for g in groups)
    names, fids = _take(users.uids, slice(None)), _take(feats.uids, slice(None))
    urank = np.argsort(np.argsort(np.array(names, dtype=object), kind="stable"))
    frank = np.argsort(np.argsort(B.feature_ids.astype(str), kind="stable"))
    expected = reference_edges(*B.edges(), names, urank, fids, frank)
    assert [row for batch in _batches(edges, 5) for row in batch] == expected
    first = users[0:1][0]
    i = names.index(first["uid"])
    assert first["properties"] == {"age": int(B.user_attributes["age"][i])}


class CountingDriver:
    """A driver whose sessions only count the rows they are sent (and keep none), and
    answer the protocol's statements as a database holding no release would."""

    def __init__(self) -> None:
        self.rows = 0

    def session(self, **config: Any) -> Any:
        return _Session(self)


class _Counters:
    def __init__(self, n: int) -> None:
        self.nodes_created = self.relationships_created = n
        self.nodes_deleted = self.relationships_deleted = 0


class _Result:
    def __init__(self, rows: list[dict[str, Any]], n: int) -> None:
        self._rows, self.counters = rows, _Counters(n)

    def __iter__(self) -> Any:
        return iter(self._rows)

    def consume(self) -> Any:
        return self


class _Session:
    def __init__(self, driver: CountingDriver) -> None:
        self.driver = driver
        self.token = None

    def __enter__(self) -> _Session:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def run(self, query: str, params: dict[str, Any]) -> _Result:
        """Auto-commit and transaction statements alike (a transaction is the session)."""
        if "SHOW INDEXES" in query:
            return _Result([{"name": n, "state": "ONLINE"} for n in params["names"]], 0)
        if "MERGE (r:AnonRelease" in query:
            return _Result([{"previous_status": None, "previous_token": None,
                             "previous_charge_id": None, "previous_counts": {}}], 0)
        if "graphanon_lock" in query:
            return _Result([{"write_token": self.token, "status": "pending",
                             "current_attempt": None}], 0)
        if "SET r.write_token" in query:
            self.token = params["write_token"]
        rows = params.get("rows")
        if rows is not None:
            self.driver.rows += len(rows)
            return _Result([], len(rows))
        if "current_attempt = $write_token" in query:
            return _Result([{"release_id": params["release_id"]}], 0)
        return _Result([], 0)

    def execute_write(self, fn: Any) -> Any:
        return fn(self)

    execute_read = execute_write


def test_peak_memory_of_a_write_stays_within_twice_the_csr() -> None:
    """Before streaming, every row dict was built before the first batch: about 259 bytes
    per edge held at once, where the CSR holds 8. Now a write holds the payload, a few
    arrays per node (compact pseudonyms, order, rank, row offsets) and one batch."""
    import neo4j  # noqa: F401  (imported by the first session: not the write's memory)

    rng = np.random.default_rng(0)
    n, m = 50_000, 1_000_000  # 20 neighbours per node
    u = rng.integers(0, n, m)
    G = Graph.from_edges(u, (u + rng.integers(1, n, m)) % n)
    drv = CountingDriver()
    sink = Neo4jSink(drv, batch_size=10_000)
    sink._bookmarks = object()  # (no bookmark manager: the counting driver ignores it)
    record = bound(K_ANON, G)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        s = sink.write_release(record, release_id="big", graph=G)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert drv.rows == G.n_nodes + G.n_edges == s.n_nodes + s.n_relationships
    assert peak <= 2 * G.nbytes, (peak, G.nbytes)
