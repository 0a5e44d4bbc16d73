"""Integration tests against a real Neo4j (``pytest -m neo4j``).

The server is either the one in ``NEO4J_URI`` / ``NEO4J_USER`` / ``NEO4J_PASSWORD`` or a
``neo4j:5.26-community`` container started with testcontainers (needs Docker). Without
either, every test here is skipped with the reason. The tests only touch labels with a
random per-run prefix and release ids of their own, so they are safe on a shared server;
the one exception, the README's Python example (it loads the Adult sample as
``:Person``/``:Attribute`` and uses the dataset name ``adult``), runs only on a throwaway
testcontainers server, or where ``GRAPHANON_IT_SAMPLE_DATA=1`` allows it.

One command with Docker:  ``.venv/bin/python -m pytest -m neo4j -s tests/test_neo4j_integration.py``
"""

from __future__ import annotations

import os
import re
import secrets
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphanon.dk.extract import DKDistribution
from graphanon.errors import InvalidParameterError, Neo4jError, PrivacyBudgetExceeded
from graphanon.graph import BipartiteGraph, Graph
from graphanon.io.neo4j import (
    Neo4jSink,
    Neo4jSource,
    ReleaseConflictError,
    looks_like_element_id,
)
from graphanon.privacy.release import Release

pytestmark = pytest.mark.neo4j

IMAGE = "neo4j:5.26-community"


def _docker_available() -> str | None:
    """None when a Docker engine answers, else why not."""
    if not os.environ.get("DOCKER_HOST") and not os.path.exists("/var/run/docker.sock"):
        return "no DOCKER_HOST and no /var/run/docker.sock"
    import docker

    client = None
    try:
        client = docker.from_env(timeout=5)
        client.ping()
    except Exception as exc:  # any failure means: no usable Docker engine
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    finally:
        if client is not None:
            client.close()
    return None


CONNECTION: dict[str, Any] = {}


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[Any, str | None]]:
    """(driver, database) for a live server, or skip with the reason."""
    import neo4j

    if os.environ.get("NEO4J_URI"):
        auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", ""))
        driver = neo4j.GraphDatabase.driver(os.environ["NEO4J_URI"], auth=auth)
        try:
            driver.verify_connectivity()
        except Exception as exc:
            driver.close()
            pytest.skip(f"NEO4J_URI={os.environ['NEO4J_URI']} is not reachable: {exc}")
        CONNECTION.update(uri=os.environ["NEO4J_URI"], user=auth[0], password=auth[1],
                          throwaway=os.environ.get("GRAPHANON_IT_SAMPLE_DATA") == "1")
        yield driver, os.environ.get("NEO4J_DATABASE")
        driver.close()
        return
    why = _docker_available()
    if why is not None:
        pytest.skip("no Neo4j server: set NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD, or run a Docker "
                    f"engine for testcontainers ({why})")
    from testcontainers.community.neo4j import Neo4jContainer

    password = secrets.token_hex(12)
    with Neo4jContainer(IMAGE, password=password) as container:
        driver = container.get_driver()
        CONNECTION.update(uri=container.get_connection_url(), user=container.username,
                          password=password, throwaway=True)
        yield driver, None
        driver.close()


@pytest.fixture
def prefix(server: tuple[Any, str | None]) -> Iterator[str]:
    """A fresh label prefix; its source nodes are removed afterwards."""
    p = "T" + uuid.uuid4().hex[:10]
    yield p
    driver, db = server
    with driver.session(database=db) as s:
        for suffix in ("P", "U", "F"):
            s.run(f"MATCH (n:`{p}{suffix}`) CALL (n) {{ DETACH DELETE n }} "
                  "IN TRANSACTIONS OF 10000 ROWS").consume()


def seed_social(server: tuple[Any, str | None], label: str, edges: list[tuple[int, int]],
                n: int) -> None:
    driver, db = server
    with driver.session(database=db) as s:
        s.run(f"UNWIND range(0, $n - 1) AS i CREATE (:`{label}` {{uid: i, eps: i * 0.5}})",
              n=n).consume()
        s.run(f"CREATE INDEX IF NOT EXISTS FOR (n:`{label}`) ON (n.uid)").consume()
        s.run("CALL db.awaitIndexes()").consume()
        s.run(f"UNWIND $rows AS r MATCH (a:`{label}` {{uid: r[0]}}), (b:`{label}` {{uid: r[1]}}) "
              "CALL (a, b) { CREATE (a)-[:KNOWS]->(b) } IN TRANSACTIONS OF 50000 ROWS",
              rows=[list(e) for e in edges]).consume()


def release(**kw: Any) -> Release:
    # used as the dataset name too: a run of 20 hex digits is refused there (a hash as a name)
    base: dict[str, Any] = {"mechanism": "integration-test", "neighbourhood": "edge",
                            "epsilon": 0.5, "source_fingerprint": "it-" + uuid.uuid4().hex[:12]}
    base.update(kw)
    return Release.create(**base)


def read_release_graph(server: tuple[Any, str | None], rid: str) -> Graph:
    driver, db = server
    g = Neo4jSource(driver, database=db).read_query_graph(
        "MATCH (a:AnonNode {release_id: $rid})-[:ANON_EDGE]->(b:AnonNode) RETURN a.uid, b.uid",
        {"rid": rid})
    assert isinstance(g, Graph)
    return g


def edge_set(G: Graph) -> set[tuple[Any, Any]]:
    u, v = G.edges()
    ids = G.node_ids
    return {tuple(sorted((ids[a], ids[b]))) for a, b in zip(u, v, strict=True)}


def test_social_round_trip_and_idempotent_rerun(server, prefix) -> None:
    driver, db = server
    edges = [(0, 1), (1, 0), (1, 2), (2, 3), (3, 3), (4, 2)]
    seed_social(server, prefix + "P", edges, 6)
    G = Neo4jSource(driver, database=db).read_graph(label=prefix + "P", rel_type="KNOWS",
                                                    id_property="uid", node_properties=["eps"])
    assert G.n_nodes == 6 and edge_set(G) == {(0, 1), (1, 2), (2, 3), (2, 4)}
    np.testing.assert_allclose(G.attributes["eps"], np.arange(6) * 0.5)
    sink = Neo4jSink(driver, database=db, batch_size=2)
    rec = release()
    sink.create_budget(rec.source_fingerprint, 1.0)
    rid = "it-" + uuid.uuid4().hex
    try:
        for _ in range(2):  # the second run replaces the first, no double charge
            s = sink.write_release(rec, dataset=rec.source_fingerprint,
                                   release_id=rid, graph=G, keep_ids=True)
            assert s.status == "complete"
            back = read_release_graph(server, rid)
            assert edge_set(back) == edge_set(G)
        rels, budgets = sink.releases()
        mine = [r for r in rels if r["release_id"] == rid]
        assert mine[0]["status"] == "complete" and mine[0]["written_relationships"] == 4
        ledger = next(b for b in budgets if b["dataset"] == rec.source_fingerprint)
        assert ledger["epsilon_spent"] == pytest.approx(0.5) and ledger["charges"] == 1
        # source untouched
        again = Neo4jSource(driver, database=db).read_graph(label=prefix + "P",
                                                            rel_type="KNOWS", id_property="uid")
        assert edge_set(again) == edge_set(G)
        # budget refusal
        with pytest.raises(PrivacyBudgetExceeded):
            sink.write_release(release(source_fingerprint=rec.source_fingerprint,
                                       epsilon=0.75), release_id=rid + "-2", graph=G,
                               dataset=rec.source_fingerprint)
    finally:
        sink.drop_release(rid)
    assert not [r for r in sink.releases()[0] if r["release_id"] == rid]


def test_bipartite_round_trip_and_statistics(server, prefix) -> None:
    driver, db = server
    with driver.session(database=db) as s:
        s.run(f"UNWIND $users AS u CREATE (:`{prefix}U` {{uid: u}})",
              users=["a", "b", "c"]).consume()
        s.run(f"UNWIND $f AS f CREATE (:`{prefix}F` {{uid: f}})", f=["x", "y"]).consume()
        s.run(f"UNWIND $p AS p MATCH (u:`{prefix}U` {{uid: p[0]}}), (f:`{prefix}F` {{uid: p[1]}}) "
              "CREATE (u)-[:HAS]->(f)", p=[["a", "x"], ["a", "y"], ["b", "y"]]).consume()
    B = Neo4jSource(driver, database=db).read_bipartite(
        user_label=prefix + "U", feature_label=prefix + "F", rel_type="HAS",
        user_id_property="uid", feature_id_property="uid")
    assert B.n_users == 3 and B.n_edges == 3
    sink = Neo4jSink(driver, database=db)
    rid = "it-" + uuid.uuid4().hex
    rec = release(neighbourhood="k-anonymity", epsilon=None)
    try:
        sink.write_release(rec, dataset=rec.source_fingerprint,
                           release_id=rid, bipartite=B, keep_ids=True)
        back = Neo4jSource(driver, database=db).read_query_graph(
            "MATCH (u:AnonUser {release_id: $rid})-[:ANON_HAS_FEATURE]->(f:AnonFeature) "
            "RETURN u.uid, f.uid", {"rid": rid}, bipartite=True)
        assert isinstance(back, BipartiteGraph)
        pairs = {(back.user_ids[r], back.feature_ids[c]) for r, c in zip(*back.edges(),
                                                                          strict=True)}
        assert pairs == {("a", "x"), ("a", "y"), ("b", "y")}
        table = DKDistribution("degree", np.array([[0], [1], [2]]), np.array([1.0, 1.5, 1.0]))
        sink.write_release(rec, dataset=rec.source_fingerprint,
                           release_id=rid + "-s", statistics=table)
        with driver.session(database=db) as s:
            rows = s.run("MATCH (:AnonRelease {release_id: $rid})-[:HAS_STATISTIC]->(d) "
                         "RETURN d.degree AS degree, d.count AS count ORDER BY degree",
                         rid=rid + "-s").data()
        assert rows == [{"degree": 0, "count": 1}, {"degree": 1, "count": 1.5},
                        {"degree": 2, "count": 1}]
    finally:
        sink.drop_release(rid)
        sink.drop_release(rid + "-s")


def test_masked_release_round_trip(server) -> None:
    """A b-anonymized release: known-1 cells as ANON_HAS_FEATURE, masked as ANON_MASKED."""
    from graphanon.anonymity.bmatching import MASKED, b_matching_anonymity
    from graphanon.io.masked import MaskedRelease

    driver, db = server
    X = np.random.default_rng(0).integers(0, 2, size=(40, 6))
    res = b_matching_anonymity(X, delta=4, rng=np.random.default_rng(1))
    cells = MaskedRelease.from_result(res)
    sink = Neo4jSink(driver, database=db, batch_size=7)
    rid = "it-" + uuid.uuid4().hex
    try:
        for _ in range(2):  # idempotent re-run
            s = sink.write_release(res.release(source_fingerprint="it-masked"),
                                   release_id=rid, masked=cells)
            assert s.status == "complete" and s.n_masked == res.stars
            with driver.session(database=db) as sess:
                rows = sess.run(
                    "MATCH (u:AnonUser {release_id: $rid})-[e]->(f:AnonFeature) "
                    "RETURN u.uid AS row, f.uid AS col, type(e) AS t", rid=rid).data()
                n_users = sess.run("MATCH (u:AnonUser {release_id: $rid}) RETURN count(u) AS n",
                                   rid=rid).single()["n"]
            Y = np.zeros_like(res.released)
            for r in rows:
                Y[r["row"], r["col"]] = MASKED if r["t"] == "ANON_MASKED" else 1
            np.testing.assert_array_equal(Y, res.released)
            assert n_users == res.n
            assert {r["t"] for r in rows} <= {"ANON_HAS_FEATURE", "ANON_MASKED"}
    finally:
        sink.drop_release(rid)
    assert not [r for r in sink.releases()[0] if r["release_id"] == rid]


def test_hostile_identifiers_never_reach_the_server(server) -> None:
    driver, db = server
    for label in ["P`) DETACH DELETE (n) //", "P {x:1}", "Pé", "P\u200b"]:
        with pytest.raises(InvalidParameterError):
            Neo4jSource(driver, database=db).read_graph(label=label, rel_type="KNOWS")


def test_one_million_relationships_read_and_write(server, prefix) -> None:
    driver, db = server
    n, m = 200_000, 1_000_000
    rng = np.random.default_rng(1)
    u = rng.integers(0, n, m)
    v = (u + rng.integers(1, n, m)) % n  # no self-loops
    t0 = time.perf_counter()
    seed_social(server, prefix + "P", list(zip(u.tolist(), v.tolist(), strict=True)), n)
    t_seed = time.perf_counter() - t0
    t0 = time.perf_counter()
    G = Neo4jSource(driver, database=db).read_graph(label=prefix + "P", rel_type="KNOWS",
                                                    id_property="uid")
    t_read = time.perf_counter() - t0
    assert G.n_nodes == n and G.n_edges == np.unique(
        np.minimum(u, v) * n + np.maximum(u, v)).size
    sink = Neo4jSink(driver, database=db)
    rid = "it-" + uuid.uuid4().hex
    rec = release(neighbourhood="k-anonymity", epsilon=None)
    try:
        t0 = time.perf_counter()
        s = sink.write_release(rec, dataset=rec.source_fingerprint, release_id=rid, graph=G)
        t_write = time.perf_counter() - t0
        assert s.n_relationships == G.n_edges
    finally:
        t0 = time.perf_counter()
        sink.drop_release(rid)
        t_drop = time.perf_counter() - t0
    print(f"\n1M-relationship round trip ({G.n_nodes} nodes, {G.n_edges} edges):")
    print(f"  seed  {t_seed:7.1f} s")
    print(f"  read  {t_read:7.1f} s  {G.n_edges / t_read:10,.0f} rel/s")
    print(f"  write {t_write:7.1f} s  {G.n_edges / t_write:10,.0f} rel/s")
    print(f"  drop  {t_drop:7.1f} s")


# ----------------------------------------------------------------------- issue 15
def _index_states(server: tuple[Any, str | None]) -> dict[str, str]:
    driver, db = server
    with driver.session(database=db) as s:
        return {r["name"]: r["state"] for r in s.run("SHOW INDEXES YIELD name, state")}


def test_a_second_writer_between_batches_wins_and_the_first_fails_cleanly(server) -> None:
    driver, db = server
    rid = "it-" + uuid.uuid4().hex
    rec = release(neighbourhood="k-anonymity", epsilon=None)
    first = Graph.from_edges(np.arange(9), (np.arange(9) + 1) % 9, node_ids=np.arange(9) + 100)
    second = Graph.from_edges(np.arange(4), (np.arange(4) + 1) % 4)
    state = {"done": False}

    def competing_writer(task: str, done: int, total: int) -> None:
        # called between the first writer's batches, outside its transactions
        if task == "release nodes" and not state["done"]:
            state["done"] = True
            Neo4jSink(driver, database=db).write_release(rec, release_id=rid, graph=second,
                                                         keep_ids=True)

    sink = Neo4jSink(driver, database=db, batch_size=3, progress=competing_writer)
    try:
        with pytest.raises(ReleaseConflictError, match="taken over") as info:
            sink.write_release(rec, release_id=rid, graph=first, keep_ids=True)
        assert info.value.exit_code == 4
        back = read_release_graph(server, rid)
        assert edge_set(back) == edge_set(second)  # the winner's data, untouched
        mine = [r for r in sink.releases()[0] if r["release_id"] == rid]
        assert mine[0]["status"] == "complete" and mine[0]["written_nodes"] == 4
    finally:
        Neo4jSink(driver, database=db).drop_release(rid)


def test_a_short_batch_is_refused_with_the_counts_the_database_reports(server) -> None:
    driver, db = server
    rid = "it-" + uuid.uuid4().hex
    G = Graph.from_edges(np.arange(6), (np.arange(6) + 1) % 6, node_ids=np.arange(6) + 500)

    def lose_a_node(task: str, done: int, total: int) -> None:
        if task == "release nodes" and done == total:  # all node batches committed
            with driver.session(database=db) as s:
                s.run("MATCH (n:AnonNode {release_id: $rid, uid: 500}) DETACH DELETE n",
                      rid=rid).consume()

    sink = Neo4jSink(driver, database=db, batch_size=4, progress=lose_a_node)
    try:
        with pytest.raises(Neo4jError, match="relationships_created"):
            sink.write_release(release(neighbourhood="k-anonymity", epsilon=None),
                               release_id=rid, graph=G, keep_ids=True)
        mine = [r for r in sink.releases()[0] if r["release_id"] == rid]
        assert mine[0]["status"] == "pending"
    finally:
        Neo4jSink(driver, database=db).drop_release(rid)


def test_schema_composite_indexes_online_and_legacy_indexes_dropped(server) -> None:
    driver, db = server
    with driver.session(database=db) as s:  # an index an earlier version made
        s.run("CREATE INDEX graphanon_AnonNode_release IF NOT EXISTS "
              "FOR (n:AnonNode) ON (n.release_id)").consume()
    Neo4jSink(driver, database=db).ensure_schema()
    states = _index_states(server)
    for name in Neo4jSink.index_names():
        assert states[name] == "ONLINE"
    assert "graphanon_AnonNode_release" not in states
    assert "graphanon_release_id" in states  # the constraint's index


def test_element_ids_never_reach_a_release(server, prefix) -> None:
    driver, db = server
    with driver.session(database=db) as s:
        s.run(f"UNWIND range(0, 5) AS i CREATE (:`{prefix}U` {{uid: i}})").consume()
        s.run(f"UNWIND ['x', 'y'] AS f CREATE (:`{prefix}F` {{tag: f}})").consume()
        s.run(f"MATCH (u:`{prefix}U`), (f:`{prefix}F`) WHERE u.uid % 2 = 0 OR f.tag = 'x' "
              "CREATE (u)-[:HAS]->(f)").consume()
    src = Neo4jSource(driver, database=db)
    B = src.read_bipartite(user_label=prefix + "U", feature_label=prefix + "F", rel_type="HAS",
                           user_id_property="uid")  # features by elementId
    assert all(looks_like_element_id(x) for x in B.feature_ids.tolist())
    rid = "it-" + uuid.uuid4().hex
    sink = Neo4jSink(driver, database=db)
    rec = release(neighbourhood="k-anonymity", epsilon=None)
    try:
        sink.write_release(rec, release_id=rid, bipartite=B)
        with driver.session(database=db) as s:
            uids = [r["uid"] for r in s.run(
                "MATCH (f:AnonFeature {release_id: $rid}) RETURN f.uid AS uid", rid=rid)]
            mode = s.run("MATCH (r:AnonRelease {release_id: $rid}) RETURN r.feature_ids AS m",
                         rid=rid).single()["m"]
        assert len(uids) == 2 and not any(looks_like_element_id(u) for u in uids)
        assert mode == "pseudonymized"
        G = src.read_graph(label=prefix + "U", rel_type="HAS")
        with pytest.raises(InvalidParameterError, match="elementId"):
            sink.write_release(rec, release_id=rid + "-k", graph=G, keep_ids=True)
    finally:
        sink.drop_release(rid)


def test_canonical_ids_and_the_label_universe(server, prefix) -> None:
    driver, db = server
    with driver.session(database=db) as s:
        s.run(f"CREATE (:`{prefix}P` {{uid: 7}}), (:`{prefix}P` {{uid: '7'}})").consume()
    with pytest.raises(InvalidParameterError, match="same id"):
        Neo4jSource(driver, database=db).read_graph(label=prefix + "P", rel_type="KNOWS",
                                                    id_property="uid")
    with driver.session(database=db) as s:
        s.run(f"MATCH (n:`{prefix}P` {{uid: '7'}}) SET n.uid = 8").consume()
        s.run(f"CREATE (:`{prefix}P` {{uid: 9}})").consume()  # isolated
        s.run(f"MATCH (a:`{prefix}P` {{uid: 7}}), (b:`{prefix}P` {{uid: 8}}) "
              "CREATE (a)-[:KNOWS]->(b)").consume()
    src = Neo4jSource(driver, database=db)
    G, universe = src.read_graph(label=prefix + "P", rel_type="KNOWS", id_property="uid",
                                 universe="label")
    assert G.n_edges == 1 and universe.nodes is not None
    assert sorted(universe.nodes.tolist()) == [7, 8, 9]
    assert universe.source == f"neo4j label :{prefix}P (all 3 nodes, isolated included)"
    assert src.last_read is not None and src.last_read.records == 4


def test_the_readme_python_example_runs(server, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's Python block, verbatim, against the test server."""
    if not CONNECTION.get("throwaway"):
        pytest.skip("the README example loads the Adult sample as :Person/:Attribute and "
                    "charges the dataset 'adult': only on a throwaway server (testcontainers, "
                    "or GRAPHANON_IT_SAMPLE_DATA=1)")
    import importlib.util

    root = Path(__file__).resolve().parents[1]
    text = (root / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- neo4j-python-example -->\s*```python\n(.*?)```", text, re.S)
    assert block is not None, "README.md lost its marked Neo4j Python example"
    for key in ("NEO4J_PASSWORD_FILE", "NEO4J_DATABASE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("NEO4J_URI", CONNECTION["uri"])
    monkeypatch.setenv("NEO4J_USER", CONNECTION["user"])
    monkeypatch.setenv("NEO4J_PASSWORD", CONNECTION["password"])
    spec = importlib.util.spec_from_file_location("load_sample_it",
                                                  root / "scripts" / "neo4j_load_sample.py")
    assert spec is not None and spec.loader is not None
    loader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loader)
    loader.load_sample("adult")
    namespace: dict[str, Any] = {}
    exec(compile(block.group(1), "README.md", "exec"), namespace)
    summary = namespace["summary"]
    assert summary.status == "complete" and summary.epsilon_charged == pytest.approx(2.0)
    mine = [r for r in namespace["releases"] if r["release_id"] == summary.release_id]
    assert mine and mine[0]["status"] == "complete" and mine[0]["written_nodes"] > 0
    budget = next(b for b in namespace["budgets"] if b["dataset"] == "adult")
    assert budget["epsilon_spent"] >= 2.0
