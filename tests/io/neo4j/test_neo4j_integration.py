"""Integration tests against a real Neo4j (``pytest -m neo4j``).

The server is either the one in ``NEO4J_URI`` / ``NEO4J_USER`` / ``NEO4J_PASSWORD`` or a
``neo4j:5.26-community`` container started with testcontainers (needs Docker). Without
either, every test here is skipped with the reason. The tests only touch labels with a
random per-run prefix and release ids of their own, so they are safe on a shared server;
the one exception, the README's Python example (it loads the Adult sample as
``:Person``/``:Attribute`` and uses the dataset name ``adult``), runs only on a throwaway
testcontainers server, or where ``GRAPHANON_IT_SAMPLE_DATA=1`` allows it.

One command with Docker:
``.venv/bin/python -m pytest -m neo4j -s tests/io/neo4j/test_neo4j_integration.py``
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
from bound import bound

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


#: A reader's view of a release: the rows of its current attempt, of a complete release.
CURRENT = ("MATCH (r:AnonRelease {release_id: $rid, status: 'complete'}) "
           "MATCH (a:AnonNode {release_id: $rid, attempt: r.current_attempt})")


def read_release_graph(server: tuple[Any, str | None], rid: str) -> Graph:
    driver, db = server
    g = Neo4jSource(driver, database=db).read_query_graph(
        CURRENT + "-[:ANON_EDGE]->(b:AnonNode) RETURN a.uid, b.uid", {"rid": rid})
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
            s = sink.write_release(bound(rec, G), dataset=rec.source_fingerprint,
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
            sink.write_release(bound(release(source_fingerprint=rec.source_fingerprint,
                                       epsilon=0.75), G), release_id=rid + "-2", graph=G,
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
        sink.write_release(bound(rec, B), dataset=rec.source_fingerprint,
                           release_id=rid, bipartite=B, keep_ids=True)
        back = Neo4jSource(driver, database=db).read_query_graph(
            "MATCH (r:AnonRelease {release_id: $rid, status: 'complete'}) "
            "MATCH (u:AnonUser {release_id: $rid, attempt: r.current_attempt})"
            "-[:ANON_HAS_FEATURE]->(f:AnonFeature) RETURN u.uid, f.uid", {"rid": rid},
            bipartite=True)
        assert isinstance(back, BipartiteGraph)
        pairs = {(back.user_ids[r], back.feature_ids[c]) for r, c in zip(*back.edges(),
                                                                          strict=True)}
        assert pairs == {("a", "x"), ("a", "y"), ("b", "y")}
        table = DKDistribution("degree", np.array([[0], [1], [2]]), np.array([1.0, 1.5, 1.0]))
        sink.write_release(bound(rec, table), dataset=rec.source_fingerprint,
                           release_id=rid + "-s", statistics=table)
        with driver.session(database=db) as s:
            rows = s.run("MATCH (r:AnonRelease {release_id: $rid, status: 'complete'})"
                         "-[:HAS_STATISTIC]->(d {attempt: r.current_attempt}) "
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
            s = sink.write_release(bound(res.release(source_fingerprint="it-masked"), cells),
                                   release_id=rid, masked=cells)
            assert s.status == "complete" and s.n_masked == res.stars
            with driver.session(database=db) as sess:
                mine = ("MATCH (r:AnonRelease {release_id: $rid, status: 'complete'}) "
                        "MATCH (u:AnonUser {release_id: $rid, attempt: r.current_attempt})")
                rows = sess.run(mine + "-[e]->(f:AnonFeature) "
                                "RETURN u.uid AS row, f.uid AS col, type(e) AS t", rid=rid).data()
                n_users = sess.run(mine + " RETURN count(u) AS n", rid=rid).single()["n"]
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
        s = sink.write_release(bound(rec, G),
                               dataset=rec.source_fingerprint, release_id=rid, graph=G)
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
            Neo4jSink(driver, database=db).write_release(bound(rec, second),
                                                         release_id=rid, graph=second,
                                                         keep_ids=True)

    sink = Neo4jSink(driver, database=db, batch_size=3, progress=competing_writer)
    try:
        with pytest.raises(ReleaseConflictError, match="taken over") as info:
            sink.write_release(bound(rec, first), release_id=rid, graph=first, keep_ids=True)
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
            sink.write_release(bound(release(neighbourhood="k-anonymity", epsilon=None), G),
                               release_id=rid, graph=G, keep_ids=True)
        mine = [r for r in sink.releases()[0] if r["release_id"] == rid]
        assert mine[0]["status"] == "pending"
    finally:
        Neo4jSink(driver, database=db).drop_release(rid)


def test_only_the_released_payload_is_published(server, prefix) -> None:
    """Issue 34 (points 1, 2, 8) against the server: a source's salary is not written, a
    payload the record does not name is refused, and write_nodes sets the writer's keys after
    the properties (Cypher's SET order, which the recording fake models)."""
    from graphanon.io.cypher import load

    driver, db = server
    with driver.session(database=db) as s:
        s.run(f"UNWIND range(0, 5) AS i CREATE (u:`{prefix}U` {{uid: i, salary: 90000 + i}}) "
              f"CREATE (u)-[:LIKES]->(:`{prefix}F` {{uid: 'f' + toString(i % 2)}})").consume()
    B = Neo4jSource(driver, database=db).read_bipartite(
        user_label=f"{prefix}U", feature_label=f"{prefix}F", rel_type="LIKES",
        user_id_property="uid", feature_id_property="uid", user_properties=["salary"])
    assert "salary" in B.user_attributes
    rec = bound(release(neighbourhood="k-anonymity", epsilon=None), B)
    rid = "it-" + uuid.uuid4().hex
    sink = Neo4jSink(driver, database=db)
    try:
        with pytest.raises(InvalidParameterError, match="payload"):
            sink.write_release(rec, release_id=rid, bipartite=B.with_cells([0], [0]))
        sink.write_release(rec, release_id=rid, bipartite=B)
        with driver.session(database=db) as s:
            keys = s.run("MATCH (u:AnonUser {release_id: $rid}) RETURN DISTINCT keys(u) AS k",
                         rid=rid).value()
            assert keys and all(set(k) == {"release_id", "attempt", "uid"} for k in keys)
            rows = [{"uid": "u-own", "properties": {"uid": "real", "release_id": "x", "a": 1}}]
            s.run(load("write_nodes", label="AnonUser"), release_id=rid, attempt="manual",
                  rows=rows).consume()
            node = s.run("MATCH (u:AnonUser {release_id: $rid, uid: 'u-own'}) "
                         "RETURN properties(u) AS p", rid=rid).single()
            assert node is not None and node["p"] == {"release_id": rid, "attempt": "manual",
                                                      "uid": "u-own", "a": 1}
    finally:
        Neo4jSink(driver, database=db).drop_release(rid)


def test_schema_constraints_online_and_legacy_indexes_dropped(server) -> None:
    driver, db = server
    with driver.session(database=db) as s:  # indexes earlier versions made
        s.run("DROP CONSTRAINT graphanon_AnonNode_key IF EXISTS").consume()
        s.run("CREATE INDEX graphanon_AnonNode_release IF NOT EXISTS "
              "FOR (n:AnonNode) ON (n.release_id)").consume()
        s.run("CREATE INDEX graphanon_AnonNode_uid IF NOT EXISTS "
              "FOR (n:AnonNode) ON (n.release_id, n.uid)").consume()
    Neo4jSink(driver, database=db).ensure_schema()
    states = _index_states(server)
    for name in Neo4jSink.index_names():
        assert states[name] == "ONLINE"
    assert not {"graphanon_AnonNode_release", "graphanon_AnonNode_uid"} & set(states)
    assert "graphanon_release_id" in states  # the constraint's index
    with driver.session(database=db) as s:
        constraints = {r["name"]: r for r in s.run(
            "SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties")}
        key = constraints["graphanon_AnonNode_key"]
        assert key["type"] == "UNIQUENESS" and key["labelsOrTypes"] == ["AnonNode"]
        assert key["properties"] == ["release_id", "attempt", "uid"]
        rid = "it-" + uuid.uuid4().hex
        s.run("CREATE (:AnonNode {release_id: $rid, attempt: 'a', uid: 1})", rid=rid).consume()
        try:
            with pytest.raises(Exception, match="already exists"):
                s.run("CREATE (:AnonNode {release_id: $rid, attempt: 'a', uid: 1})",
                      rid=rid).consume()
        finally:
            s.run("MATCH (n:AnonNode {release_id: $rid}) DELETE n", rid=rid).consume()
    # the schema is in place: a sink's first write checks it and creates nothing
    sink = Neo4jSink(driver, database=db)
    sink.ensure_schema = lambda **kw: pytest.fail("schema statements on a ready database")
    sink._ensure_schema_once()
    assert sink._schema_ready


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
        sink.write_release(bound(rec, B), release_id=rid, bipartite=B)
        with driver.session(database=db) as s:
            uids = [r["uid"] for r in s.run(
                "MATCH (f:AnonFeature {release_id: $rid}) RETURN f.uid AS uid", rid=rid)]
            mode = s.run("MATCH (r:AnonRelease {release_id: $rid}) RETURN r.feature_ids AS m",
                         rid=rid).single()["m"]
        assert len(uids) == 2 and not any(looks_like_element_id(u) for u in uids)
        assert mode == "pseudonymized"
        G = src.read_graph(label=prefix + "U", rel_type="HAS")
        with pytest.raises(InvalidParameterError, match="elementId"):
            sink.write_release(bound(rec, G), release_id=rid + "-k", graph=G, keep_ids=True)
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

    root = Path(__file__).resolve().parents[3]
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


# ----------------------------------------------------------------------- issue 34
class CrashingDriver:
    """The server's driver, whose ``crash_at``-th managed write transaction (counted from
    1) fails before it runs, as a lost connection would."""

    def __init__(self, driver: Any, crash_at: int) -> None:
        self.driver, self.crash_at, self.count = driver, crash_at, 0

    def session(self, **config: Any) -> Any:
        outer = self
        session = self.driver.session(**config)

        class Session:
            def __enter__(self) -> Any:
                session.__enter__()
                return self

            def __exit__(self, *exc: Any) -> Any:
                return session.__exit__(*exc)

            def run(self, *args: Any, **kw: Any) -> Any:
                return session.run(*args, **kw)

            def execute_read(self, *args: Any, **kw: Any) -> Any:
                return session.execute_read(*args, **kw)

            def execute_write(self, *args: Any, **kw: Any) -> Any:
                import neo4j

                outer.count += 1
                if outer.count == outer.crash_at:
                    raise neo4j.exceptions.ServiceUnavailable("connection lost (test)")
                return session.execute_write(*args, **kw)

        return Session()


def visible(server: tuple[Any, str | None], rid: str) -> tuple[dict[str, Any], set[Any]]:
    """The record of ``rid`` and the uids a reader sees (its current attempt's nodes)."""
    driver, db = server
    with driver.session(database=db) as s:
        rec = s.run("MATCH (r:AnonRelease {release_id: $rid}) RETURN properties(r) AS p",
                    rid=rid).single()
        uids = {r["uid"] for r in s.run(CURRENT + " RETURN a.uid AS uid", rid=rid)}
    return (dict(rec["p"]) if rec else {}), uids


def stored_attempts(server: tuple[Any, str | None], rid: str) -> set[str]:
    driver, db = server
    with driver.session(database=db) as s:
        return {r["a"] for r in s.run(
            "MATCH (n:AnonNode {release_id: $rid}) WHERE n.attempt IS NOT NULL "
            "AND n.uid IS NOT NULL RETURN DISTINCT n.attempt AS a", rid=rid)}


def test_a_crash_at_every_batch_boundary_leaves_the_complete_release_as_it_was(server) -> None:
    driver, db = server
    old = Graph.from_edges(np.arange(5), (np.arange(5) + 1) % 5, node_ids=np.arange(5) + 10)
    new = Graph.from_edges(np.arange(7), (np.arange(7) + 1) % 7, node_ids=np.arange(7) + 20)
    rec_old = release(epsilon=0.25)
    rec_new = release(epsilon=0.5, source_fingerprint=rec_old.source_fingerprint)
    dataset = rec_old.source_fingerprint
    sink = Neo4jSink(driver, database=db, batch_size=3)
    sink.create_budget(dataset, 100.0)
    rid = "it-" + uuid.uuid4().hex
    try:
        k = 0
        while True:
            k += 1
            Neo4jSink(driver, database=db).drop_release(rid)
            sink.write_release(bound(rec_old, old), release_id=rid, graph=old, dataset=dataset,
                               keep_ids=True)
            record, uids = visible(server, rid)
            assert uids == set(range(10, 15))
            crashing = CrashingDriver(driver, k)
            try:
                Neo4jSink(crashing, database=db, batch_size=3).write_release(
                    bound(rec_new, new), release_id=rid, graph=new, dataset=dataset, keep_ids=True,
                    replace=True)
            except Neo4jError:
                after, seen = visible(server, rid)
                after.pop("write_token", None)
                assert after == record and seen == uids, k  # exactly as it was
            else:
                after, seen = visible(server, rid)
                assert after["current_attempt"] != record["current_attempt"]
                assert seen == set(range(20, 27)), k  # flipped (a clean-up batch crashed)
            if crashing.count < k:  # the write ran out of transactions: every boundary done
                break
            # the next write (other content) leaves no rows of any earlier attempt
            sink.write_release(bound(release(neighbourhood="k-anonymity", epsilon=None), new),
                               release_id=rid, graph=new, keep_ids=True, replace=True)
            assert stored_attempts(server, rid) == {visible(server, rid)[0]["current_attempt"]}
        assert k > 8
    finally:
        Neo4jSink(driver, database=db).drop_release(rid)


def test_readers_see_the_old_release_until_a_second_writer_flips(server) -> None:
    """Two writers replace a complete release; the second begins between the first one's
    batches: the first stops, the reader sees the old release until the second flips."""
    driver, db = server
    rid = "it-" + uuid.uuid4().hex
    k_anon = release(neighbourhood="k-anonymity", epsilon=None)
    old = Graph.from_edges(np.arange(4), (np.arange(4) + 1) % 4, node_ids=np.arange(4) + 1)
    first = Graph.from_edges(np.arange(9), (np.arange(9) + 1) % 9, node_ids=np.arange(9) + 100)
    second = Graph.from_edges(np.arange(6), (np.arange(6) + 1) % 6, node_ids=np.arange(6) + 200)
    Neo4jSink(driver, database=db).write_release(bound(k_anon, old), release_id=rid, graph=old,
                                                 keep_ids=True)
    views: list[set[Any]] = []

    def competing_writer(task: str, done: int, total: int) -> None:
        views.append(visible(server, rid)[1])
        if task == "release nodes" and len(views) == 1:
            Neo4jSink(driver, database=db).write_release(
                bound(release(neighbourhood="k-anonymity", epsilon=None), second), release_id=rid,
                graph=second, keep_ids=True, replace=True)
            views.append(visible(server, rid)[1])

    sink = Neo4jSink(driver, database=db, batch_size=3, progress=competing_writer)
    try:
        with pytest.raises(ReleaseConflictError, match="taken over"):
            sink.write_release(bound(release(neighbourhood="k-anonymity", epsilon=None), first),
                               release_id=rid, graph=first, keep_ids=True, replace=True)
        assert views[0] == {1, 2, 3, 4} and views[1] == set(range(200, 206))
        assert visible(server, rid)[1] == set(range(200, 206))
        assert len(stored_attempts(server, rid)) == 1  # the loser's rows are gone
    finally:
        Neo4jSink(driver, database=db).drop_release(rid)


def test_the_replace_guard_reads_the_record_after_it_holds_the_lock(server) -> None:
    """A release is pending; a transaction holding its record's lock completes it; a writer
    without ``replace`` waits for the lock and then sees ``complete``: it is refused. A
    guard that read before the lock would have seen ``pending`` and replaced it."""
    import threading

    driver, db = server
    rid = "it-" + uuid.uuid4().hex
    G = Graph.from_edges(np.arange(3), (np.arange(3) + 1) % 3)
    k_anon = release(neighbourhood="k-anonymity", epsilon=None)
    crashing = CrashingDriver(driver, 2)  # begin commits, the first batch fails
    with pytest.raises(Neo4jError):
        Neo4jSink(crashing, database=db).write_release(bound(k_anon, G), release_id=rid, graph=G)
    assert visible(server, rid)[0]["status"] == "pending"
    outcome: dict[str, Any] = {}
    try:
        with driver.session(database=db) as s:
            tx = s.begin_transaction()
            tx.run("MATCH (r:AnonRelease {release_id: $rid}) SET r.status = 'complete', "
                   "r.charge_id = 'another', r.current_attempt = 'another'", rid=rid).consume()

            def writer() -> None:
                try:
                    outcome["result"] = Neo4jSink(driver, database=db).write_release(
                        bound(release(neighbourhood="k-anonymity", epsilon=None), G),
                        release_id=rid, graph=G)
                except Exception as exc:
                    outcome["error"] = exc

            thread = threading.Thread(target=writer)
            thread.start()
            time.sleep(2)  # the writer's begin_release now waits for the record's lock
            tx.commit()
        thread.join(60)
        assert isinstance(outcome.get("error"), InvalidParameterError), outcome
        assert "exists and is complete" in str(outcome["error"])
        assert visible(server, rid)[0]["charge_id"] == "another"
    finally:
        Neo4jSink(driver, database=db).drop_release(rid)


def test_an_identical_rewrite_is_a_no_op_on_the_server(server) -> None:
    driver, db = server
    rid = "it-" + uuid.uuid4().hex
    G = Graph.from_edges(np.arange(5), (np.arange(5) + 1) % 5)
    rec = release()
    sink = Neo4jSink(driver, database=db)
    sink.create_budget(rec.source_fingerprint, 1.0)
    try:
        rec = bound(rec, G)  # one record: the second write is identical
        sink.write_release(rec, release_id=rid, graph=G, dataset=rec.source_fingerprint)
        before = visible(server, rid)
        again = sink.write_release(rec, release_id=rid, graph=G, dataset=rec.source_fingerprint)
        assert again.unchanged and again.epsilon_charged == 0.0
        assert visible(server, rid) == before
        budget = next(b for b in sink.releases()[1] if b["dataset"] == rec.source_fingerprint)
        assert budget["epsilon_spent"] == pytest.approx(0.5) and budget["charges"] == 1
    finally:
        sink.drop_release(rid)


def test_a_read_that_meets_a_concurrent_change_is_retried(server, prefix) -> None:
    driver, db = server
    seed_social(server, prefix + "P", [(0, 1), (1, 2)], 3)
    state = {"done": False}

    def create_meanwhile(task: str, done: int, total: int) -> None:
        # after the nodes were read, inside the read transaction: another session commits
        # a node and a relationship to it, which the relationship query then sees
        if task.startswith("nodes") and not state["done"]:
            state["done"] = True
            with driver.session(database=db) as s:
                s.run(f"MATCH (a:`{prefix}P` {{uid: 0}}) "
                      f"CREATE (a)-[:KNOWS]->(:`{prefix}P` {{uid: 99}})").consume()

    G = Neo4jSource(driver, database=db, progress=create_meanwhile).read_graph(
        label=prefix + "P", rel_type="KNOWS", id_property="uid")
    assert state["done"] and G.n_nodes == 4 and edge_set(G) == {(0, 1), (1, 2), (0, 99)}


def test_a_gds_projection_of_one_complete_release(server) -> None:
    driver, db = server
    with driver.session(database=db) as s:
        try:
            s.run("RETURN gds.version() AS v").consume()
        except Exception:
            pytest.skip("the Graph Data Science plugin is not installed on this server")
    rid = "it-" + uuid.uuid4().hex
    G = Graph.from_edges(np.arange(5), (np.arange(5) + 1) % 5, n_nodes=6)  # one isolated
    sink = Neo4jSink(driver, database=db)
    name = "it-" + uuid.uuid4().hex
    try:
        sink.write_release(bound(release(neighbourhood="k-anonymity", epsilon=None), G),
                           release_id=rid, graph=G)
        row = sink.project_gds(rid, name)
        assert row == {"graph_name": name, "node_count": 6, "relationship_count": 10}
    finally:
        with driver.session(database=db) as s:
            s.run("CALL gds.graph.drop($name, false) YIELD graphName RETURN graphName",
                  name=name).consume()
        sink.drop_release(rid)
