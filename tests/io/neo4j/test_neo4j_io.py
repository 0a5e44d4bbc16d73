"""Neo4j source and sink against a recording fake of the driver (no server needed)."""

from __future__ import annotations

import json
import uuid

import numpy as np
import pytest
from bound import bound
from neo4j import exceptions as nx
from neo4j_fake import Call, FakeDB, FakeDriver

from graphanon.dk.extract import DK3Distribution, DKDistribution
from graphanon.errors import (
    DatabaseUnavailableError,
    InputFormatError,
    InvalidParameterError,
    Neo4jError,
    PrivacyBudgetExceeded,
)
from graphanon.graph import BipartiteGraph, Graph
from graphanon.io.cypher import load
from graphanon.io.dk_tables import read_dk_table, write_dk_table
from graphanon.io.neo4j import (
    Neo4jSink,
    Neo4jSource,
    connection_settings,
    looks_like_element_id,
    release_record,
    statistic_rows,
)
from graphanon.privacy.accountant import charge_epsilon
from graphanon.privacy.pseudonyms import pseudonymize
from graphanon.privacy.release import Release

RELEASE = Release.create(
    mechanism="test_mechanism", neighbourhood="edge", epsilon=0.5, sensitivity=2.0,
    sensitivity_derivation="test", params={"k": 3, "theta": 10}, backend="opendp",
    seed=7, source_fingerprint="fp-source",
).to_dict()


def other(**changes) -> dict:
    """Another draw: a new record (new release_id) with ``changes``."""
    return dict(RELEASE, release_id=str(uuid.uuid4()), **changes)


def social_db() -> FakeDB:
    db = FakeDB()
    db.source_nodes["Person"] = [{"uid": i, "eps": 0.1 * (i + 1)} for i in range(6)]
    db.source_nodes["Other"] = [{"uid": 100}]
    rels = [(0, 1), (1, 0), (1, 2), (2, 3), (3, 3), (4, 2)]  # a duplicate and a loop
    db.source_rels = [("KNOWS", ("Person", a), ("Person", b)) for a, b in rels]
    db.source_rels.append(("KNOWS", ("Person", 0), ("Other", 0)))  # not :Person -> ignored
    return db


def bipartite_db() -> FakeDB:
    db = FakeDB()
    db.source_nodes["User"] = [{"uid": f"u{i}", "delta": i % 3 + 2} for i in range(4)]
    db.source_nodes["Interest"] = [{"name": n} for n in ("golf", "jazz", "chess")]
    pairs = [(0, 0), (0, 1), (1, 1), (2, 2)]
    db.source_rels = [("HAS_INTEREST", ("User", u), ("Interest", f)) for u, f in pairs]
    db.source_rels.append(("HAS_INTEREST", ("Interest", 0), ("User", 2)))  # reversed direction
    return db


# ----------------------------------------------------------------------- reading
def test_read_graph_streams_with_exact_cypher_in_read_sessions() -> None:
    drv = FakeDriver(social_db())
    src = Neo4jSource(drv, database="graphs", fetch_size=2)
    G = src.read_graph(label="Person", rel_type="KNOWS", id_property="uid",
                       node_properties=["eps"])
    assert G.n_nodes == 6 and G.n_edges == 4  # duplicate, loop and foreign edge dropped
    assert sorted(map(tuple, np.column_stack(G.edges()).tolist())) == [
        (0, 1), (1, 2), (2, 3), (2, 4)]
    assert G.node_ids.tolist() == list(range(6))
    np.testing.assert_allclose(G.attributes["eps"], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    assert [c.name for c in drv.calls] == [
        "count_nodes", "count_graph_relationships", "read_nodes", "read_graph_edges"]
    assert drv.calls[3].query == load("read_graph_edges", label="Person", rel_type="KNOWS")
    assert drv.calls[2].params == {"id_property": "uid", "properties": ["eps"]}
    assert all(c.mode == "read" for c in drv.calls)
    assert drv.sessions == [{"database": "graphs", "default_access_mode": "READ",
                             "fetch_size": 2}]
    assert not drv.db.records and not drv.db.nodes  # the source is not modified


def test_read_graph_with_element_ids() -> None:
    drv = FakeDriver(social_db())
    G = Neo4jSource(drv).read_graph(label="Person", rel_type="KNOWS")
    assert G.n_edges == 4 and all(looks_like_element_id(x) for x in G.node_ids.tolist())
    assert drv.calls[2].params["id_property"] is None


def test_read_bipartite_ignores_direction_and_keeps_isolated_users() -> None:
    drv = FakeDriver(bipartite_db())
    B = Neo4jSource(drv).read_bipartite(
        user_label="User", feature_label="Interest", rel_type="HAS_INTEREST",
        user_id_property="uid", feature_id_property="name", user_properties=["delta"])
    assert B.n_users == 4 and B.n_edges == 5
    assert B.user_ids.tolist() == ["u0", "u1", "u2", "u3"]
    assert sorted(B.feature_ids.tolist()) == ["chess", "golf", "jazz"]
    rows = {B.user_ids[r]: sorted(B.feature_ids[B.row(r)].tolist()) for r in range(4)}
    assert rows == {"u0": ["golf", "jazz"], "u1": ["jazz"], "u2": ["chess", "golf"], "u3": []}
    assert B.user_attributes["delta"].tolist() == [2, 3, 4, 2]
    edges = drv.named("read_bipartite_edges")[0]
    assert edges.query == load("read_bipartite_edges", user_label="User",
                               rel_type="HAS_INTEREST", feature_label="Interest")
    assert edges.params == {"user_id_property": "uid", "feature_id_property": "name"}


def test_read_refuses_above_memory_limit_unless_forced() -> None:
    drv = FakeDriver(social_db())
    src = Neo4jSource(drv, memory_limit=100)
    with pytest.raises(InvalidParameterError, match="memory limit"):
        src.read_graph(label="Person", rel_type="KNOWS")
    assert not drv.named("read_nodes")  # refused before streaming anything
    assert src.read_graph(label="Person", rel_type="KNOWS", force=True).n_edges == 4


def test_read_rejects_duplicate_and_null_business_keys() -> None:
    db = social_db()
    db.source_nodes["Person"][5]["uid"] = 0
    with pytest.raises(InvalidParameterError, match="not a unique business key"):
        Neo4jSource(FakeDriver(db)).read_graph(label="Person", rel_type="KNOWS",
                                                id_property="uid")
    db.source_nodes["Person"][5]["uid"] = None
    with pytest.raises(InvalidParameterError, match="null id"):
        Neo4jSource(FakeDriver(db)).read_graph(label="Person", rel_type="KNOWS",
                                                id_property="uid")


@pytest.mark.parametrize("kwargs", [
    {"label": "Person`) DETACH DELETE (n", "rel_type": "KNOWS"},
    {"label": "Person", "rel_type": "KNOWS }"},
    {"label": "Person", "rel_type": "KNOWS", "id_property": "uid`"},
    {"label": "Person", "rel_type": "KNOWS", "node_properties": ["ok", "b a d"]},
])
def test_hostile_identifiers_refused_before_any_statement(kwargs: dict) -> None:
    drv = FakeDriver(social_db())
    with pytest.raises(InvalidParameterError, match="must be a Neo4j identifier"):
        Neo4jSource(drv).read_graph(**kwargs)
    assert drv.calls == [] and drv.sessions == []


def test_custom_read_query_runs_in_a_read_transaction() -> None:
    db = FakeDB()
    q = "MATCH (a:P)-[:R]->(b:P) RETURN a.k, b.k"
    db.custom[q] = [{"a.k": 1, "b.k": 2}, {"a.k": 2, "b.k": 3}, {"a.k": 3, "b.k": 3}]
    drv = FakeDriver(db)
    G = Neo4jSource(drv).read_query_graph(q)
    assert isinstance(G, Graph) and G.n_nodes == 3 and G.n_edges == 2
    assert drv.calls[0].mode == "read" and drv.calls[0].query == q
    B = Neo4jSource(drv).read_query_graph(q, bipartite=True)
    assert isinstance(B, BipartiteGraph) and B.n_users == 3 and B.n_features == 2


def test_driver_errors_become_exit_code_4() -> None:
    def fail(call: Call) -> BaseException:
        return nx.ServiceUnavailable("Couldn't connect to localhost:7687")

    with pytest.raises(DatabaseUnavailableError, match="unavailable") as info:
        Neo4jSource(FakeDriver(social_db(), fail)).read_graph(label="Person", rel_type="KNOWS")
    assert info.value.exit_code == 4
    with pytest.raises(DatabaseUnavailableError, match="refused"):
        Neo4jSource(FakeDriver(social_db(), lambda c: nx.AuthError("bad credentials"))
                    ).read_graph(label="Person", rel_type="KNOWS")
    with pytest.raises(Neo4jError, match="Neo4j error"):
        Neo4jSource(FakeDriver(social_db(), lambda c: nx.CypherSyntaxError("syntax"))
                    ).read_graph(label="Person", rel_type="KNOWS")


# ----------------------------------------------------------------------- writing
def ring(n: int) -> Graph:
    u = np.arange(n)
    return Graph.from_edges(u, (u + 1) % n, node_ids=np.arange(1000, 1000 + n))


def sink_with_budget(db: FakeDB | None = None, total: float = 1.0, **kw) -> Neo4jSink:
    drv = FakeDriver(db or FakeDB())
    sink = Neo4jSink(drv, **kw)
    sink.create_budget("fp-source", total)
    drv.calls.clear()
    return sink


def data_calls(drv: FakeDriver) -> list[str]:
    """The statements of a write, without schema setup and the per-transaction locks."""
    return [c.name for c in drv.calls if not c.name.startswith("schema_")
            and c.name not in ("await_index", "lock_release")]


DELETES = (["delete_release_relationships"] * 2 + ["delete_release_nodes"] * 3
           + ["delete_release_statistics"] * 3)


def test_write_graph_release_exact_statements_and_batches() -> None:
    sink = sink_with_budget(batch_size=4)
    drv = sink.driver
    summary = sink.write_release(bound(RELEASE, ring(10)), dataset="fp-source",
                                 release_id="r1", graph=ring(10), keep_ids=True)
    assert summary.status == "complete" and summary.n_nodes == 10
    assert summary.n_relationships == 10 and summary.epsilon_charged == 0.5
    # stage, then flip: the attempt's rows, then the flip (a new release: nothing to clean)
    assert data_calls(drv) == (
        ["ledger_peek", "begin_release", "claim_release_write"]
        + ["write_nodes"] * 3 + ["write_relationships"] * 3
        + ["ledger_lock", "ledger_charge", "complete_release"]
    )
    nodes = drv.named("write_nodes")
    assert {c.query for c in nodes} == {load("write_nodes", label="AnonNode")}
    assert [len(c.params["rows"]) for c in nodes] == [4, 4, 2]
    assert nodes[0].params["rows"][0] == {"uid": 1000, "properties": {}}
    token = drv.named("claim_release_write")[0].params["write_token"]
    assert all(c.params["attempt"] == token for c in nodes)
    rels = drv.named("write_relationships")
    assert rels[0].query == load("write_relationships", source_label="AnonNode",
                                 target_label="AnonNode", rel_type="ANON_EDGE")
    assert rels[0].params["rows"][0] == {"source": 1000, "target": 1001}
    assert all(c.mode == "write" for c in nodes + rels)
    deletes = [c for c in drv.calls if c.name.startswith("delete_release_")]
    assert not deletes
    rec = drv.db.records["r1"]
    assert rec["status"] == "complete" and rec["mechanism"] == "test_mechanism"
    assert rec["k"] == 3 and rec["epsilon"] == 0.5 and rec["written_relationships"] == 10
    assert rec["written_nodes"] == 10 and rec["written_statistics"] == 0
    assert "write_token" not in rec  # the attempt's token leaves with completion
    assert rec["current_attempt"] == token
    assert drv.db.budgets["fp-source"]["epsilon_spent"] == 0.5
    assert "locked_by" not in drv.db.budgets["fp-source"]
    assert len(drv.db.rels) == 10
    assert {n["attempt"] for n in drv.db.nodes["AnonNode"]} == {token}
    # constraints and indexes come first, and the write waits for its indexes to be online
    first_write = next(i for i, c in enumerate(drv.calls) if c.name == "begin_release")
    before = drv.calls[:first_write]
    assert {c.name for c in before} >= {
        "schema_release_id", "schema_budget_dataset", "schema_charge_id",
        "schema_release_index", "schema_uid_index", "schema_drop_index", "await_index"}
    awaited = [c.params["index_name"] for c in before if c.name == "await_index"]
    assert sorted(awaited) == sorted(Neo4jSink.index_names())
    assert all(c.mode == "auto" for c in before if c.name != "ledger_peek")
    last_index = max(i for i, c in enumerate(before) if c.name.startswith("schema_"))
    assert all(c.name != "await_index" for c in before[:last_index])  # await after creating
    # written again (another draw, replaced): the clean-up after the flip removes the first
    # attempt's rows in batches, and keeps the attempt it just made current
    drv.calls.clear()
    sink.set_budget("fp-source", 2.0)
    sink.write_release(bound(other(), ring(10)), dataset="fp-source", release_id="r1",
                       graph=ring(10),
                       keep_ids=True, replace=True)
    token2 = drv.named("claim_release_write")[0].params["write_token"]
    calls = data_calls(drv)
    after = calls[calls.index("complete_release") + 1:]
    assert sorted(set(after)) == sorted(set(DELETES)) and len(after) > len(DELETES)
    deletes = [c for c in drv.calls if c.name.startswith("delete_release_")]
    assert all(c.mode == "write" and c.params == {"release_id": "r1", "batch_size": 4,
                                                  "keep": [token2]}
               for c in deletes)
    assert {(c.name, c.identifiers["label"]) for c in deletes} == {
        ("delete_release_relationships", "AnonNode"), ("delete_release_relationships", "AnonUser"),
        *(("delete_release_nodes", lab) for lab in ("AnonNode", "AnonUser", "AnonFeature")),
        *(("delete_release_statistics", lab) for lab in
          ("DegreeCount", "JointDegreeCount", "DegreeTupleCount"))}
    assert {n["attempt"] for n in drv.db.nodes["AnonNode"]} == {token2}

def test_every_transaction_of_a_write_takes_the_record_lock_first() -> None:
    """The protocol: each delete and write batch runs lock_release as its first statement,
    and the completing transaction locks the budget node, then the record."""
    sink = sink_with_budget(batch_size=3)
    drv = sink.driver
    sink.write_release(bound(RELEASE, ring(7)), dataset="fp-source", release_id="r1", graph=ring(7))
    data = {"write_nodes", "write_relationships", "write_statistics", "complete_release",
            *(n for n in cypher_names() if n.startswith("delete_release_"))}
    txs = drv.transactions_of()
    touching = [calls for calls in txs.values() if any(c.name in data for c in calls)]
    assert len(touching) == 3 + 3 + 1
    # a replacement: its clean-up batches after the flip take the lock first too
    sink.set_budget("fp-source", 2.0)  # room for the second charge (a logged change)
    sink.write_release(bound(other(), ring(7)), dataset="fp-source", release_id="r1",
                       graph=ring(7),
                       replace=True)
    txs = drv.transactions_of()
    touching = [calls for calls in txs.values() if any(c.name in data for c in calls)]
    assert len(touching) == 2 * (3 + 3 + 1) + 8 + 4  # (7 nodes, 7 edges: 3 batches each)
    for calls in touching:
        assert all(c.mode == "write" for c in calls)
        names = [c.name for c in calls]
        if "complete_release" in names:
            assert names == ["ledger_lock", "lock_release", "ledger_charge", "complete_release"]
        else:
            assert names[0] == "lock_release" and len(names) == 2
            assert calls[0].params == {"release_id": "r1"}


def cypher_names() -> list[str]:
    from graphanon.io.cypher import statement_names

    return statement_names()


def test_pseudonymized_ids_by_default() -> None:
    sink = sink_with_budget()
    G = ring(10)
    sink.write_release(bound(RELEASE, G), dataset="fp-source", release_id="r1", graph=G)
    written = [row["uid"] for c in sink.driver.named("write_nodes") for row in c.params["rows"]]
    # keyed per-release pseudonyms, in pseudonym order, scoped by the record's random id
    expected = pseudonymize(G.node_ids, scope=RELEASE["release_id"], prefix="n").tolist()
    assert written == sorted(expected)
    assert not set(written) & {str(x) for x in G.node_ids.tolist()}
    assert sink.driver.db.records["r1"]["ids"] == "pseudonymized"
    # each edge of the ring appears once, pointing from the endpoint written first
    name = dict(zip(G.node_ids.tolist(), expected, strict=True))
    edges = [(r["source"], r["target"]) for c in sink.driver.named("write_relationships")
             for r in c.params["rows"]]
    assert all(a < b for a, b in edges) and edges == sorted(edges)
    assert {frozenset(e) for e in edges} == {
        frozenset((name[1000 + i], name[1000 + (i + 1) % 10])) for i in range(10)}
    # another release: unrelated pseudonyms (releases cannot be joined on them)
    sink.write_release(bound(other(), G), dataset="fp-source", release_id="r2", graph=G)
    other_ids = {n["uid"] for n in sink.driver.db.nodes["AnonNode"] if n["release_id"] == "r2"}
    assert not other_ids & set(written)


def test_pseudonyms_follow_the_record_not_the_release_id_written_under() -> None:
    """Two releases written under one id (a job's ``{date}`` template run twice a day, a
    repeated ``--release-id``) must not share pseudonyms: they would be joinable per user."""
    sink = sink_with_budget()
    G = ring(10)
    uids = []
    for _ in range(2):
        rel = Release.create(mechanism="m", neighbourhood="edge", epsilon=0.1,
                             source_fingerprint="fp")
        sink.write_release(bound(rel, G),
                           dataset="fp-source", release_id="daily", graph=G, replace=True)
        uids.append({n["uid"] for n in sink.driver.db.nodes["AnonNode"]
                     if n["release_id"] == "daily"})
    assert len(uids[0]) == len(uids[1]) == 10 and not uids[0] & uids[1]


def test_failure_in_batch_3_of_5_leaves_nothing_complete_and_rerun_succeeds() -> None:
    sink = sink_with_budget(batch_size=2)
    drv = sink.driver
    seen = {"n": 0}

    def fail(call: Call) -> BaseException | None:
        if call.name == "write_nodes":
            seen["n"] += 1
            if seen["n"] == 3:
                return nx.ServiceUnavailable("connection lost")
        return None

    drv.fail = fail
    with pytest.raises(DatabaseUnavailableError):
        sink.write_release(bound(RELEASE, ring(10)), dataset="fp-source",
                           release_id="r1", graph=ring(10), keep_ids=True)
    assert drv.db.complete_looking() == []
    assert drv.db.records["r1"]["status"] == "pending"
    assert len(drv.db.nodes["AnonNode"]) == 4  # batches 1 and 2 committed, 3 rolled back
    assert drv.db.budgets["fp-source"]["epsilon_spent"] == 0.0  # nothing charged
    drv.fail = None
    summary = sink.write_release(bound(RELEASE, ring(10)), dataset="fp-source",
                                 release_id="r1", graph=ring(10), keep_ids=True)
    assert summary.status == "complete"
    assert drv.db.complete_looking() == ["r1"]
    assert len(drv.db.nodes["AnonNode"]) == 10 and len(drv.db.rels) == 10
    assert drv.db.budgets["fp-source"]["epsilon_spent"] == 0.5


def test_failure_in_the_completing_transaction_rolls_back_the_charge() -> None:
    sink = sink_with_budget()
    drv = sink.driver
    drv.fail = lambda c: RuntimeError("crash") if c.name == "complete_release" else None
    with pytest.raises(RuntimeError):
        sink.write_release(bound(RELEASE, ring(5)),
                           dataset="fp-source", release_id="r1", graph=ring(5))
    assert drv.db.complete_looking() == [] and drv.db.charges == {}
    assert drv.db.budgets["fp-source"]["epsilon_spent"] == 0.0


def visible(db: FakeDB, rid: str) -> tuple[set[object], int]:
    """What a reader of release ``rid`` sees: the uids of its current attempt and its
    relationship count (none unless the record is complete)."""
    rec = db.records.get(rid, {})
    if rec.get("status") != "complete":
        return set(), 0
    cur = rec["current_attempt"]
    return ({n["uid"] for n in db.nodes.get("AnonNode", [])
             if n["release_id"] == rid and n["attempt"] == cur},
            sum(1 for r in db.rels if r["release_id"] == rid and r["attempt"] == cur))


def test_replacing_a_complete_release_stages_then_flips() -> None:
    sink = sink_with_budget(total=2.0)
    drv = sink.driver
    sink.write_release(bound(RELEASE, ring(10)), dataset="fp-source", release_id="r1",
                       graph=ring(10))
    before, record = visible(drv.db, "r1"), dict(drv.db.records["r1"])
    drv.fail = lambda c: RuntimeError("crash") if c.name == "write_relationships" else None
    second = other(seed=8)
    # a complete release of other content is not replaced without replace=True
    with pytest.raises(InvalidParameterError, match="exists and is complete"):
        sink.write_release(bound(second, ring(6)), dataset="fp-source", release_id="r1",
                           graph=ring(6))
    assert drv.db.records["r1"] == record and visible(drv.db, "r1") == before
    with pytest.raises(RuntimeError):
        sink.write_release(bound(second, ring(6)),
                           dataset="fp-source", release_id="r1", graph=ring(6),
                           replace=True)
    # the failed attempt left the complete release as it was (only its token on the record)
    assert drv.db.complete_looking() == ["r1"] and visible(drv.db, "r1") == before
    assert {k: v for k, v in drv.db.records["r1"].items() if k != "write_token"} == record
    assert drv.db.budgets["fp-source"]["epsilon_spent"] == 0.5
    listed = sink.releases()[0][0]  # the listing shows the complete release, unchanged
    assert (listed["status"], listed["written_nodes"], listed["created_at"]) == (
        "complete", 10, record["created_at"])
    drv.fail = None
    # still complete: a retry must ask to replace it again
    with pytest.raises(InvalidParameterError, match="exists and is complete"):
        sink.write_release(bound(second, ring(6)), dataset="fp-source", release_id="r1",
                           graph=ring(6))
    sink.write_release(bound(second, ring(6)), dataset="fp-source", release_id="r1",
                       graph=ring(6), replace=True)
    assert len(visible(drv.db, "r1")[0]) == 6 and visible(drv.db, "r1")[1] == 6
    assert drv.db.records["r1"]["seed"] == 8
    # the clean-up removed every earlier attempt's rows, the failed one's too
    assert len(drv.db.nodes["AnonNode"]) == 6 and len(drv.db.rels) == 6
    assert drv.db.budgets["fp-source"]["epsilon_spent"] == 1.0  # a new draw is a new charge


def test_identical_rewrite_of_a_complete_release_is_a_no_op() -> None:
    sink = sink_with_budget(total=1.0)
    drv = sink.driver
    first = sink.write_release(bound(RELEASE, ring(10)), dataset="fp-source",
                               release_id="r1", graph=ring(10))
    record, nodes = dict(drv.db.records["r1"]), list(drv.db.nodes["AnonNode"])
    drv.calls.clear()
    again = sink.write_release(bound(RELEASE, ring(10)), dataset="fp-source",
                               release_id="r1", graph=ring(10))
    # nothing written, nothing charged, nothing changed: one transaction that read the record
    assert not {c.name for c in drv.calls} & {"claim_release_write", "write_nodes",
                                               "ledger_lock", "complete_release"}
    assert drv.db.records["r1"] == record and drv.db.nodes["AnonNode"] == nodes
    assert again.unchanged and not first.unchanged
    assert (again.n_nodes, again.n_relationships) == (10, 10)
    assert drv.db.budgets["fp-source"]["epsilon_spent"] == 0.5
    assert len(drv.db.charges) == 1
    # the rewrite charged nothing now; the record still says what the release was charged
    assert again.epsilon_charged == 0.0
    assert drv.db.records["r1"]["epsilon_charged"] == 0.5
    # the same content under another release id is written, and not charged twice
    copy = sink.write_release(bound(RELEASE, ring(10)), dataset="fp-source",
                              release_id="r1-copy", graph=ring(10))
    assert copy.epsilon_charged == 0.0 and not copy.unchanged
    assert drv.db.budgets["fp-source"]["epsilon_spent"] == 0.5
    # the same record and graph with real ids is other content: not replaced silently
    with pytest.raises(InvalidParameterError, match="exists and is complete"):
        sink.write_release(bound(RELEASE, ring(10)),
                           dataset="fp-source", release_id="r1", graph=ring(10),
                           keep_ids=True)
    assert sink.driver.db.records["r1"]["ids"] == "pseudonymized"


def test_budget_refusal_writes_nothing() -> None:
    sink = sink_with_budget(total=0.8)
    drv = sink.driver
    sink.write_release(bound(RELEASE, ring(5)), dataset="fp-source", release_id="r1", graph=ring(5))
    drv.calls.clear()
    with pytest.raises(PrivacyBudgetExceeded, match=r"0\.3 of 0\.8 left") as info:
        sink.write_release(bound(other(seed=9), ring(5)),
                           dataset="fp-source", release_id="r2", graph=ring(5))
    assert info.value.exit_code == 3
    assert "r2" not in drv.db.records
    assert not drv.named("begin_release")
    # a write never moves the budget (the old sink re-set it to budget_total on every write)
    with pytest.raises(InvalidParameterError, match=r"set once.*graphanon neo4j set-budget"):
        sink.write_release(bound(other(seed=9), ring(5)), dataset="fp-source", release_id="r2",
                           graph=ring(5), budget_total=1.0)
    assert drv.db.budgets["fp-source"]["epsilon_total"] == 0.8
    assert "r2" not in drv.db.records and not drv.named("begin_release")
    # changing it is the operator's separate action, logged in the ledger
    change = sink.set_budget("FP-Source", 1.0)
    assert (change.dataset, change.epsilon_total_before, change.epsilon_total,
            change.epsilon_spent) == ("fp-source", 0.8, 1.0, 0.5)
    assert [(c["dataset"], c["epsilon_total_before"], c["epsilon_total"])
            for c in drv.db.budget_changes] == [("fp-source", 0.8, 1.0)]
    sink.write_release(bound(other(seed=9), ring(5)), dataset="fp-source",
                       release_id="r2", graph=ring(5), budget_total=1.0)  # the same: fine
    assert drv.db.budgets["fp-source"]["epsilon_spent"] == 1.0


def test_one_budget_rule_for_both_ledgers(tmp_path) -> None:
    """Both ledgers offer one interface: a budget is set once (the same again is a no-op,
    another is refused), changed only by set_budget, which the ledger logs; a budget of
    another dataset spelling (GRQC, fullwidth) is the same budget."""
    from graphanon.privacy.accountant import BudgetLedger, JsonLedger

    for book, changes in ((JsonLedger(tmp_path / "l.json"), None),
                          (Neo4jSink(FakeDriver()), "fake")):
        assert isinstance(book, BudgetLedger)
        made = book.create_budget("ＧＲＱＣ", 2.0, neighbourhood="node")
        assert (made.dataset, made.epsilon_total, made.created) == ("grqc", 2.0, made.created)
        assert made.created in ("ledger", "dataset")
        again = book.create_budget("GrQc", 2.0)
        assert again.created is None and again.neighbourhood == "node"
        with pytest.raises(InvalidParameterError, match="set once"):
            book.create_budget("grqc", 3.0)
        with pytest.raises(InvalidParameterError, match="neighbourhood never changes"):
            book.create_budget("grqc", 2.0, neighbourhood="edge")
        change = book.set_budget("grqc", 3.0)
        assert (change.epsilon_total_before, change.epsilon_total) == (2.0, 3.0)
        assert book.create_budget("grqc", 3.0).epsilon_total == 3.0
        with pytest.raises(InvalidParameterError, match="no budget for dataset 'other'"):
            book.set_budget("other", 1.0)
        if changes:
            assert len(book.driver.db.budget_changes) == 1  # type: ignore[attr-defined]
        else:
            logged = json.loads((tmp_path / "l.json").read_text())["datasets"]["grqc"]
            assert [(c["epsilon_total_before"], c["epsilon_total"])
                    for c in logged["budget_changes"]] == [(2.0, 3.0)]


def test_neo4j_budgets_stored_under_an_unnormalized_name_are_not_shadowed() -> None:
    """A Neo4j budget written as 'GRQC' before names were normalized: creating 'grqc' would
    start a second budget of the same data; it is refused until the old one is renamed."""
    sink = Neo4jSink(FakeDriver())
    sink.driver.db.budgets["GRQC"] = {"epsilon_spent": 2.0, "neighbourhood": "edge",
                                      "epsilon_total": 2.0}
    for act in (lambda: sink.create_budget("grqc", 5.0), lambda: sink.set_budget("grqc", 5.0),
                lambda: sink.write_release(bound(RELEASE, ring(4)), graph=ring(4), dataset="grqc",
                                           budget_total=5.0)):
        with pytest.raises(InvalidParameterError, match="under the name 'GRQC'"):
            act()
    assert set(sink.driver.db.budgets) == {"GRQC"} and sink.driver.db.records == {}


def test_budget_checked_again_under_lock_at_completion() -> None:
    sink = sink_with_budget(total=0.5)
    drv = sink.driver

    def spend_meanwhile() -> None:
        if drv.named("write_nodes"):  # a concurrent release spends the budget meanwhile
            drv.db.budgets["fp-source"]["epsilon_spent"] = 0.5

    drv.before_tx = spend_meanwhile
    with pytest.raises(PrivacyBudgetExceeded):
        sink.write_release(bound(RELEASE, ring(5)),
                           dataset="fp-source", release_id="r1", graph=ring(5))
    assert drv.db.complete_looking() == [] and drv.db.charges == {}
    # the refused release's rows are gone with its record: nothing uncharged stays readable
    assert "r1" not in drv.db.records
    assert not drv.db.nodes["AnonNode"] and not [r for r in drv.db.rels
                                                  if r["release_id"] == "r1"]


def test_dp_release_without_a_budget_is_refused() -> None:
    sink = Neo4jSink(FakeDriver())
    with pytest.raises(PrivacyBudgetExceeded, match="no privacy budget"):
        sink.write_release(bound(RELEASE, ring(5)),
                           dataset="fp-source", release_id="r1", graph=ring(5))


def test_non_dp_release_needs_no_budget() -> None:
    sink = Neo4jSink(FakeDriver())
    rec = other(mechanism="smooth_k_anonymity", neighbourhood="k-anonymity", epsilon=None)
    B = BipartiteGraph.from_pairs(["a", "a", "b"], ["x", "y", "x"])
    s = sink.write_release(bound(rec, B),
                           dataset="fp-source", release_id="k1", bipartite=B, keep_ids=True)
    db = sink.driver.db
    assert s.epsilon_charged == 0 and db.records["k1"]["status"] == "complete"
    assert sorted(n["uid"] for n in db.nodes["AnonUser"]) == ["a", "b"]
    assert sorted(n["uid"] for n in db.nodes["AnonFeature"]) == ["x", "y"]
    assert {(r["source"], r["target"]) for r in db.rels} == {("a", "x"), ("a", "y"), ("b", "x")}
    assert not sink.driver.named("ledger_lock")


def test_statistics_release(tmp_path) -> None:
    path = tmp_path / "jdd.tsv"
    path.write_text("# graphanon dK table: kind=joint_degree\ndegree1\tdegree2\tcount\n"
                    "# a comment\n1\t2\t3.5\n2\t2\t1\n")
    table = read_dk_table(path)
    assert isinstance(table, DKDistribution) and table.kind == "joint_degree"
    sink = sink_with_budget()
    sink.write_release(bound(RELEASE, table),
                       dataset="fp-source", release_id="s1", statistics=table)
    call = sink.driver.named("write_statistics")[0]
    assert call.query == load("write_statistics", label="JointDegreeCount")
    assert call.params["rows"] == [{"degree_a": 1, "degree_b": 2, "count": 3.5},
                                   {"degree_a": 2, "degree_b": 2, "count": 1}]
    assert len(sink.driver.db.stats) == 2
    one = tmp_path / "dd.tsv"
    write_dk_table(DKDistribution("degree", np.array([[0], [1]]), np.array([4, 2])), one)
    assert statistic_rows(read_dk_table(one)) == (
        "DegreeCount", [{"degree": 0, "count": 4}, {"degree": 1, "count": 2}])


def test_3k_statistics_are_degree_tuple_counts() -> None:
    wedges = DKDistribution("wedge", np.array([[1, 2, 1], [1, 2, 3]]), np.array([2, 1]))
    triangles = DKDistribution("triangle", np.array([[2, 2, 3]]), np.array([1]))
    sink = sink_with_budget()
    rec = other(neighbourhood="none", epsilon=None)
    with pytest.raises(InvalidParameterError, match=r"may not be published.*no privacy claim"):
        sink.write_release(bound(rec, DK3Distribution(wedges, triangles)),
                           release_id="t3", statistics=DK3Distribution(wedges, triangles))
    assert sink.driver.calls == [] or "t3" not in sink.driver.db.records
    sink.write_release(bound(rec, DK3Distribution(wedges, triangles)),
                       dataset="fp-source", operator_only=True,
                       release_id="t3", statistics=DK3Distribution(wedges, triangles))
    assert sink.driver.db.records["t3"]["publishable"] is False
    call = sink.driver.named("write_statistics")[0]
    assert call.query == load("write_statistics", label="DegreeTupleCount")
    assert call.params["rows"] == [
        {"kind": "wedge", "degrees": [1, 2, 1], "count": 2},
        {"kind": "wedge", "degrees": [1, 2, 3], "count": 1},
        {"kind": "triangle", "degrees": [2, 2, 3], "count": 1}]
    # half a 3K distribution is refused before anything is written
    calls = len(sink.driver.calls)
    with pytest.raises(InvalidParameterError, match="half of a 3K"):
        sink.write_release(bound(rec, wedges),
                           dataset="fp-source", release_id="w", statistics=wedges,
                           operator_only=True)
    assert len(sink.driver.calls) == calls


@pytest.mark.parametrize(("body", "line", "content"), [
    ("1\t2\n1\tx\n", 4, "1\tx"),
    ("-1\t2\n", 3, "-1\t2"),
    ("0\t1\n\n2.5\t1\n", 5, "2.5\t1"),
    ("0\t1\t7\n", 3, "0\t1\t7"),
    ("0\tnan\n", 3, "0\tnan"),
])
def test_bad_statistics_table(tmp_path, body: str, line: int, content: str) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("# graphanon dK table: kind=degree\ndegree1\tcount\n" + body)
    with pytest.raises(InputFormatError, match=f"line {line}: ") as err:
        read_dk_table(bad)
    assert repr(content) in str(err.value) and err.value.line == line
    assert isinstance(err.value, InvalidParameterError)


def test_statistics_table_needs_a_dk_header(tmp_path) -> None:
    bad = tmp_path / "plain.tsv"
    bad.write_text("degree\tcount\n0\t4\n")
    with pytest.raises(InputFormatError, match="line 1: not a dK table") as err:
        read_dk_table(bad)
    assert repr("degree\tcount") in str(err.value)
    bad.write_text("# graphanon dK table: kind=wedge\n")
    with pytest.raises(InputFormatError, match="line 1: unknown dK table kind 'wedge'"):
        read_dk_table(bad)
    negative = tmp_path / "neg.tsv"
    negative.write_text("# graphanon dK table: kind=degree\n0\t-2.5\n")  # raw noisy counts
    assert read_dk_table(negative).counts.tolist() == [-2.5]


def test_drop_and_list_releases() -> None:
    sink = sink_with_budget()
    sink.write_release(bound(RELEASE, ring(5)), dataset="fp-source", release_id="r1", graph=ring(5))
    releases, budgets = sink.releases()
    assert [r["release_id"] for r in releases] == ["r1"] and releases[0]["status"] == "complete"
    assert budgets == [{"dataset": "fp-source", "neighbourhood": "edge", "epsilon_total": 1.0,
                        "epsilon_spent": 0.5, "charges": 1}]
    assert releases[0]["written_nodes"] == 5 and releases[0]["written_relationships"] == 5
    assert all(c.mode == "read" for c in sink.driver.named("list_releases"))
    assert sink.drop_release("r1") is True
    db = sink.driver.db
    assert db.records == {} and db.nodes["AnonNode"] == [] and db.rels == []
    assert db.budgets["fp-source"]["epsilon_spent"] == 0.5  # spent ε is never refunded
    assert sink.drop_release("r1") is False


def test_hostile_attribute_names_are_refused() -> None:
    G = ring(4).with_attribute("bad name`", np.zeros(4))
    rec = bound(other(released_attributes=["bad name`"]), G, ("bad name`",))
    sink = sink_with_budget()
    with pytest.raises(InvalidParameterError, match="node attribute"):
        sink.write_release(rec, dataset="fp-source", release_id="r1", graph=G,
                           publish=["bad name`"])
    assert sink.driver.calls == []


@pytest.mark.parametrize("name", ["uid", "release_id"])
def test_attributes_named_like_the_writers_keys_are_refused(name: str) -> None:
    """Issue 34, point 2: a published column named uid / release_id would have replaced the
    pseudonym (or moved the node into another release) through SET n += row.properties."""
    B = BipartiteGraph.from_pairs(["a", "b"], ["x", "y"], all_users=["a", "b"],
                                  user_attributes={name: np.array(["alice", "bob"], dtype=object)})
    rec = bound(other(neighbourhood="k-anonymity", epsilon=None, released_attributes=[name]),
                B, (name,))
    sink = sink_with_budget()
    with pytest.raises(InvalidParameterError, match=f"'{name}' cannot be written"):
        sink.write_release(rec, release_id="r1", bipartite=B, publish=[name])
    assert sink.driver.calls == []


def test_no_source_attribute_is_written_unless_released_and_published() -> None:
    """Issue 34, point 1: a column read from the source (a salary) is dropped by the
    published view; naming it to publish is refused unless the mechanism released it."""
    B = BipartiteGraph.from_pairs(["a", "a", "b"], ["x", "y", "x"], all_users=["a", "b"],
                                  user_attributes={"salary": np.array([52000, 61000])})
    rec = bound(other(neighbourhood="k-anonymity", epsilon=None), B)
    sink = sink_with_budget()
    sink.write_release(rec, release_id="r1", bipartite=B)
    sent = [c.params for c in sink.driver.calls if c.name == "write_nodes"]
    assert sent and all(r["properties"] == {} for p in sent for r in p["rows"])
    assert all("salary" not in n for n in sink.driver.db.nodes["AnonUser"])
    with pytest.raises(InvalidParameterError, match=r"'salary'.*did not release"):
        sink.write_release(rec, release_id="r2", bipartite=B, publish=["salary"])


def test_release_record_validation() -> None:
    assert release_record({"release": RELEASE})["epsilon"] == 0.5
    with pytest.raises(InvalidParameterError, match="no release record"):
        release_record({"epsilon": 1.0})
    with pytest.raises(InvalidParameterError, match="epsilon"):
        release_record(dict(RELEASE, epsilon=-1))
    with pytest.raises(InvalidParameterError, match="missing keys"):
        release_record({"mechanism": "x", "neighbourhood": "edge", "epsilon": 1.0})


def test_ledger_mirrors_the_accountant_rules() -> None:
    personalized = other(neighbourhood="personalized-edge", epsilon=None,
                         epsilon_summary={"min": 0.1, "median": 0.2, "max": 0.4})
    assert charge_epsilon(personalized, "edge") == 0.4
    # a node-level ε costs twice on an edge budget (one edge = two node steps), once on a node
    # budget
    assert charge_epsilon(other(neighbourhood="node"), "edge") == 1.0
    assert charge_epsilon(other(neighbourhood="node"), "node") == 0.5
    assert charge_epsilon(personalized | {"neighbourhood": "personalized-node"}, "edge") == 0.8
    assert charge_epsilon(other(neighbourhood="k-anonymity", epsilon=None), "edge") is None
    with pytest.raises(InvalidParameterError, match="node-DP budget"):
        charge_epsilon(RELEASE, "node")
    sink = Neo4jSink(FakeDriver())
    sink.create_budget("fp-source", 1.0, neighbourhood="node")
    with pytest.raises(InvalidParameterError, match="node-DP budget"):
        sink.write_release(bound(RELEASE, ring(4)), graph=ring(4), dataset="fp-source")
    assert sink.driver.db.complete_looking() == []
    sink.write_release(bound(personalized | {"neighbourhood": "personalized-node"}, ring(4)),
                       graph=ring(4),
                       dataset="fp-source")
    assert sink.driver.db.budgets["fp-source"]["epsilon_spent"] == 0.4
    assert sink.driver.db.complete_looking() == [personalized["release_id"]]
    edge = Neo4jSink(FakeDriver())
    edge.create_budget("fp-source", 1.0, neighbourhood="edge")
    node_rel = other(neighbourhood="node", epsilon=0.3)
    assert edge.write_release(bound(node_rel, ring(4)),
                              graph=ring(4), dataset="fp-source").epsilon_charged == 0.6
    assert edge.driver.db.budgets["fp-source"]["epsilon_spent"] == 0.6
    assert edge.driver.db.records[node_rel["release_id"]]["epsilon_charged"] == 0.6
    with pytest.raises(InvalidParameterError, match="exactly one"):
        Neo4jSink(FakeDriver()).write_release(RELEASE)
    with pytest.raises(InvalidParameterError, match="release_id"):
        Neo4jSink(FakeDriver()).write_release(bound(RELEASE, ring(3)), release_id="", graph=ring(3))


def test_connection_settings_from_env_and_file(tmp_path) -> None:
    env = {"NEO4J_URI": "bolt://h:7687", "NEO4J_USER": "u", "NEO4J_PASSWORD": "s3cret"}
    s = connection_settings(environ=env)
    assert (s.uri, s.user, s.password, s.database) == ("bolt://h:7687", "u", "s3cret", None)
    assert "s3cret" not in repr(s)
    pw = tmp_path / "pw"
    pw.write_text("fromfile\n")
    assert connection_settings(environ=env, password_file=pw).password == "fromfile"
    with pytest.raises(InvalidParameterError, match="No Neo4j URI"):
        connection_settings(environ={})
    with pytest.raises(InvalidParameterError, match="No Neo4j password"):
        connection_settings(environ={"NEO4J_URI": "bolt://h"})
    with pytest.raises(InvalidParameterError, match="database"):
        connection_settings(environ=env, database="x` y")


def test_a_budget_keeps_the_neighbourhood_it_was_created_with() -> None:
    """Changing a node budget's total (set_budget) must not turn it into an edge budget,
    where edge-DP releases would then be charged."""
    sink = Neo4jSink(FakeDriver())
    sink.create_budget("ds", 1.0, neighbourhood="node")
    sink.set_budget("ds", 2.0)  # keeps "node"
    assert sink.driver.db.budgets["ds"] == {"epsilon_spent": 0.0, "neighbourhood": "node",
                                            "epsilon_total": 2.0}
    with pytest.raises(InvalidParameterError, match="neighbourhood never changes"):
        sink.create_budget("ds", 2.0, neighbourhood="edge")
    with pytest.raises(InvalidParameterError, match="node-DP budget"):
        sink.write_release(bound(RELEASE, ring(4)), graph=ring(4), dataset="ds",
                           budget_total=2.0)
    assert sink.driver.db.budgets["ds"]["neighbourhood"] == "node"
    assert sink.driver.db.complete_looking() == []


def test_release_ids_must_be_printable() -> None:
    for bad in ("a\u202eb", "a\u2028b", "a\x7fb", "a\u200bb", " ", " a", "a "):
        with pytest.raises(InvalidParameterError, match="release_id"):
            Neo4jSink(FakeDriver()).write_release(bound(RELEASE, ring(3)),
                                                  release_id=bad, graph=ring(3))


def test_a_sinks_sessions_are_causally_chained() -> None:
    """On a cluster the budget check must see the budget just set (another session)."""
    sink = sink_with_budget()
    sink.write_release(bound(RELEASE, ring(4)), dataset="fp-source", release_id="r1", graph=ring(4))
    managers = {id(s.get("bookmark_manager")) for s in sink.driver.sessions}
    assert len(sink.driver.sessions) > 2 and len(managers) == 1
    assert sink.driver.sessions[0]["bookmark_manager"] is not None


# ----------------------------------------------------------------------- consistent reads
def grow_during_reads(db: FakeDB, times: int):
    """A fail hook: a writer creates a :Person and a KNOWS relationship to it between the
    node read and the relationship read of a transaction (read committed lets the second
    query see what the first did not), ``times`` times."""
    state = {"n": 0}

    def hook(call: Call) -> None:
        if call.name == "read_graph_edges" and state["n"] < times:
            state["n"] += 1
            people = db.source_nodes["Person"]
            people.append({"uid": 100 + state["n"]})
            db.source_rels.append(("KNOWS", ("Person", 0), ("Person", len(people) - 1)))
        return None

    return hook


def test_a_read_that_meets_a_concurrent_change_is_retried_as_a_whole(caplog) -> None:
    db = social_db()
    drv = FakeDriver(db, fail=grow_during_reads(db, 1))
    with caplog.at_level("WARNING", logger="graphanon"):
        G = Neo4jSource(drv).read_graph(label="Person", rel_type="KNOWS", id_property="uid")
    assert G.n_nodes == 7 and 101 in G.node_ids.tolist()  # the second read saw it all
    assert G.has_edge(0, int(G.index_of([101])[0]))
    assert len(drv.named("read_nodes")) == 2 and "reading it again" in caplog.text


def test_a_source_that_keeps_changing_fails_with_one_line() -> None:
    db = social_db()
    drv = FakeDriver(db, fail=grow_during_reads(db, 10))
    with pytest.raises(Neo4jError) as info:
        Neo4jSource(drv).read_graph(label="Person", rel_type="KNOWS", id_property="uid")
    msg = str(info.value)
    assert info.value.exit_code == 4 and "\n" not in msg
    assert msg.startswith("the source changed while the :Person graph was read, 3 times")
    assert "a :Person node with id 103 appeared" in msg
    assert len(drv.named("read_nodes")) == 3


def test_writes_with_a_budget_total_run_no_schema_statement_once_the_schema_is_there() -> None:
    """Issue 34: schema statements once per database. A job's writes name budget_total on
    every run; the budget's uniqueness constraint is checked with the rest of the schema
    (one SHOW INDEXES per sink), not created again by each write."""
    drv = FakeDriver(FakeDB())
    Neo4jSink(drv).ensure_schema()  # graphanon neo4j init
    drv.calls.clear()
    sink = Neo4jSink(drv)
    for rec in (other(), other()):
        sink.write_release(bound(rec, ring(5)), dataset="fp-source", release_id=rec["release_id"],
                           graph=ring(5), budget_total=1.0)
    assert not [c.name for c in drv.calls if c.name.startswith("schema_") and
                c.name != "schema_state"]
    assert drv.db.budgets["fp-source"]["epsilon_spent"] == 1.0
    # a fresh database: the first write creates the schema, once
    drv = FakeDriver(FakeDB())
    sink = Neo4jSink(drv)
    for rec in (other(), other()):
        sink.write_release(bound(rec, ring(5)), dataset="fp-source", release_id=rec["release_id"],
                           graph=ring(5), budget_total=1.0)
    assert len(drv.named("schema_budget_dataset")) == 1


def test_open_driver_resolves_the_settings_once_for_the_cli_and_the_jobs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One way to a driver: the CLI's and the jobs' Neo4j connections resolve their
    settings from the arguments, then the environment, and connect through the package's
    ``connect`` (which tests replace by a fake)."""
    from graphanon.io import neo4j as io_neo4j
    from graphanon.jobs.sources import default_driver

    seen: list[object] = []
    monkeypatch.setattr(io_neo4j, "connect", lambda settings, verify=True: seen.append(
        settings) or f"driver{len(seen)}")
    monkeypatch.setenv("NEO4J_URI", "neo4j://env:7687")
    monkeypatch.setenv("NEO4J_PASSWORD", "pw")
    monkeypatch.setenv("NEO4J_DATABASE", "envdb")
    drv, settings = io_neo4j.open_driver(database="given")
    assert drv == "driver1"
    assert (settings.uri, settings.user, settings.database) == ("neo4j://env:7687", "neo4j",
                                                                "given")
    assert default_driver({"uri": "neo4j://job:7687", "user": "u"}) == "driver2"
    assert (seen[1].uri, seen[1].user, seen[1].database) == ("neo4j://job:7687", "u", "envdb")
    monkeypatch.delenv("NEO4J_PASSWORD")
    with pytest.raises(InvalidParameterError, match="No Neo4j password"):
        io_neo4j.open_driver(uri="neo4j://h:7687")
    assert len(seen) == 2
