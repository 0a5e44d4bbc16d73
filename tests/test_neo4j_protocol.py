"""One writer per release, counts the database confirms: the sink's protocol against the
recording fake, with two attempts interleaved transaction by transaction.

On a server every transaction of an attempt takes the release record's write lock first
(``lock_release``), so the transactions of two attempts on one release are serialized;
interleaving them at transaction boundaries (``neo4j_fake.Interleaver``) therefore covers
every execution a server allows.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import numpy as np
import pytest
from neo4j_fake import FakeDB, FakeDriver, Interleaver

from graphanon.errors import Neo4jError, PrivacyBudgetExceeded
from graphanon.graph import Graph
from graphanon.io.neo4j import Neo4jSink, ReleaseConflictError
from graphanon.privacy.release import Release

K_ANON = Release.create(mechanism="test-k", neighbourhood="k-anonymity", params={"k": 2})


def ring(n: int, first: int) -> Graph:
    u = np.arange(n)
    return Graph.from_edges(u, (u + 1) % n, node_ids=np.arange(first, first + n))


A_GRAPH, B_GRAPH = ring(5, 1000), ring(4, 2000)  # disjoint ids: mixed data would show


def release_content(db: FakeDB, rid: str) -> tuple[set[Any], set[tuple[Any, Any]]]:
    nodes = {n["uid"] for n in db.nodes.get("AnonNode", []) if n["release_id"] == rid}
    rels = {(r["source"], r["target"]) for r in db.rels if r["release_id"] == rid}
    return nodes, rels


def expected_content(G: Graph) -> tuple[set[Any], set[tuple[Any, Any]]]:
    u, v = G.edges()
    ids = G.node_ids.tolist()
    return set(ids), {(ids[a], ids[b]) for a, b in zip(u.tolist(), v.tolist(), strict=True)}


def attempts(drv: FakeDriver, rid: str = "shared") -> dict[str, Any]:
    def write(G: Graph) -> Any:
        return lambda: Neo4jSink(drv, batch_size=2).write_release(
            K_ANON, release_id=rid, graph=G, keep_ids=True, replace=True)

    return {"A": write(A_GRAPH), "B": write(B_GRAPH)}


def one_write() -> list[list[str]]:
    """The statements of each transaction of a write of A_GRAPH, in order."""
    drv = FakeDriver(FakeDB())
    Neo4jSink(drv, batch_size=2).write_release(K_ANON, release_id="x", graph=A_GRAPH,
                                               keep_ids=True)
    return [[c.name for c in calls] for calls in drv.transactions_of().values()]


def transactions_of_one_write() -> int:
    return len(one_write())


def through(name: str, nth: int = 1) -> int:
    """How many transactions a write of A_GRAPH runs up to the one holding its nth ``name``."""
    seen = 0
    for i, names in enumerate(one_write()):
        seen += names.count(name)
        if seen >= nth:
            return i + 1
    raise AssertionError(name)


def check_outcome(run: Interleaver, drv: FakeDriver) -> None:
    """The invariants of any interleaving of two attempts A and B on one release."""
    begins = [c for c in drv.calls if c.name == "begin_release"]
    assert len(begins) == 2
    first, last = begins[0].thread, begins[1].thread
    # the attempt that began last always completes, with exactly its own data
    assert last in run.results and last not in run.errors
    rec = drv.db.records["shared"]
    assert rec["status"] == "complete"
    assert release_content(drv.db, "shared") == expected_content(
        A_GRAPH if last == "A" else B_GRAPH)
    # the first one either completed before the other began, or stopped with a conflict
    if first in run.errors:
        err = run.errors[first]
        assert isinstance(err, ReleaseConflictError) and err.exit_code == 4
        assert "taken over by another attempt" in str(err)
    else:
        assert run.results[first].status == "complete"
    # after the winner began, the loser ran nothing but the lock that stopped it
    winner_began = begins[-1].tx
    loser_calls = [c for c in drv.calls if c.tx > winner_began and c.thread == first]
    assert all(c.name == "lock_release" for c in loser_calls)
    assert len(loser_calls) <= 1


def interleave(schedule: list[str]) -> tuple[Interleaver, FakeDriver]:
    drv = FakeDriver(FakeDB())
    run = Interleaver(drv, attempts(drv), schedule).run()
    return run, drv


def test_second_writer_between_batches_wins_and_the_first_fails_cleanly() -> None:
    n = transactions_of_one_write()
    began = through("begin_release")
    # B runs its whole write at every transaction boundary of A
    for k in range(n + 1):
        run, drv = interleave(["A"] * k + ["B"] * n + ["A"] * n)
        check_outcome(run, drv)
        if began <= k < n:  # A had begun and had not completed: A loses
            assert isinstance(run.errors.get("A"), ReleaseConflictError), k
        else:
            assert "A" in run.results, k


def test_every_interleaving_of_two_writers_keeps_the_protocol() -> None:
    n = transactions_of_one_write()
    rng = random.Random(15)
    schedules = [list(s) for s in {tuple(rng.sample(["A"] * n + ["B"] * n, 2 * n))
                                   for _ in range(150)}]
    # and every point at which B's begin lands inside A's run, with B then going on
    schedules += [["A"] * k + ["B"] + ["A"] * j for k, j in itertools.product(range(n), range(3))]
    for schedule in schedules:
        run, drv = interleave(schedule)
        check_outcome(run, drv)


def test_takeover_just_before_completion_marks_nothing_complete_for_the_loser() -> None:
    n = transactions_of_one_write()
    run, drv = interleave(["A"] * (n - 1) + ["B"] * n + ["A"])
    assert isinstance(run.errors["A"], ReleaseConflictError)
    assert run.results["B"].status == "complete"
    assert [c.name for c in drv.calls if c.name == "complete_release"] == ["complete_release"]


def test_the_loser_charges_nothing_and_the_winner_charges_once() -> None:
    drv = FakeDriver(FakeDB())
    Neo4jSink(drv).create_budget("ds", 2.0)
    a = Release.create(mechanism="dp", neighbourhood="edge", epsilon=0.5)
    b = Release.create(mechanism="dp", neighbourhood="edge", epsilon=0.75)
    tasks = {"A": lambda: Neo4jSink(drv, batch_size=2).write_release(
                 a, release_id="shared", graph=A_GRAPH, dataset="ds"),
             "B": lambda: Neo4jSink(drv, batch_size=2).write_release(
                 b, release_id="shared", graph=B_GRAPH, dataset="ds")}
    run = Interleaver(drv, tasks, ["A"] * through("write_nodes") + ["B"] * 80).run()
    assert isinstance(run.errors["A"], ReleaseConflictError)
    assert drv.db.budgets["ds"]["epsilon_spent"] == pytest.approx(0.75)
    assert [c["release_id"] for c in drv.db.charges.values()] == ["shared"]
    assert "locked_by" not in drv.db.budgets["ds"]


def test_drop_during_a_write_stops_the_writer_and_leaves_nothing() -> None:
    drv = FakeDriver(FakeDB())
    tasks = {"A": attempts(drv)["A"],
             "D": lambda: Neo4jSink(drv, batch_size=2).drop_release("shared")}
    run = Interleaver(drv, tasks, ["A"] * through("write_nodes", 2) + ["D"] * 40).run()
    assert run.results["D"] is True
    err = run.errors["A"]
    assert isinstance(err, ReleaseConflictError) and "dropped by another attempt" in str(err)
    assert drv.db.records == {} and release_content(drv.db, "shared") == (set(), set())


def test_a_writer_that_begins_during_a_drop_wins() -> None:
    drv = FakeDriver(FakeDB())
    Neo4jSink(drv).write_release(K_ANON, release_id="shared", graph=A_GRAPH, keep_ids=True)
    tasks = {"D": lambda: Neo4jSink(drv, batch_size=2).drop_release("shared"),
             "B": attempts(drv)["B"]}
    run = Interleaver(drv, tasks, ["D"] * 3 + ["B"] * 80).run()
    assert isinstance(run.errors["D"], ReleaseConflictError)
    assert drv.db.records["shared"]["status"] == "complete"
    assert release_content(drv.db, "shared") == expected_content(B_GRAPH)


def test_a_takeover_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    drv = FakeDriver(FakeDB())
    with caplog.at_level("WARNING", logger="graphanon"):
        run = Interleaver(drv, attempts(drv), ["A"] * through("write_nodes") + ["B"] * 80).run()
    assert isinstance(run.errors["A"], ReleaseConflictError)
    assert "takes it over" in caplog.text


# ----------------------------------------------------------------------- confirmed counts
def test_relationships_whose_endpoints_are_missing_refuse_the_batch() -> None:
    drv = FakeDriver(FakeDB())
    sink = Neo4jSink(drv, batch_size=2)

    def lose_a_node() -> None:  # an AnonNode vanishes after the node batches committed
        if drv.named("write_nodes") and not drv.named("write_relationships"):
            nodes = drv.db.nodes["AnonNode"]
            if len(nodes) == A_GRAPH.n_nodes:
                nodes.pop()

    drv.before_tx = lose_a_node
    with pytest.raises(Neo4jError, match=r"relationships_created = 1 for 2 rows") as info:
        sink.write_release(K_ANON, release_id="r", graph=A_GRAPH, keep_ids=True)
    assert info.value.exit_code == 4 and not isinstance(info.value, ReleaseConflictError)
    assert drv.db.records["r"]["status"] == "pending"  # never complete with missing rows
    assert not drv.named("complete_release")


def test_statistics_are_confirmed_and_recorded() -> None:
    from graphanon.dk.extract import DKDistribution

    drv = FakeDriver(FakeDB())
    table = DKDistribution("degree", np.array([[0], [1], [2]]), np.array([3.0, 1.5, 2.0]))
    s = Neo4jSink(drv, batch_size=2).write_release(K_ANON, release_id="s", statistics=table)
    assert s.n_statistics == 3
    assert drv.db.records["s"]["written_statistics"] == 3 and len(drv.db.stats) == 3


def test_summed_counts_must_equal_what_was_sent() -> None:
    from graphanon.io.neo4j.sink import _Rows

    groups = [_Rows("q", [{"uid": 1}, {"uid": 2}], "release nodes", "nodes", ("nodes_created",))]
    assert Neo4jSink._counts(groups, {"release nodes": 2}) == {
        "written_nodes": 2, "written_relationships": 0, "written_statistics": 0}
    with pytest.raises(Neo4jError, match="not marked complete"):
        Neo4jSink._counts(groups, {"release nodes": 1})


# ----------------------------------------------------------------------- the record
def test_the_record_holds_the_release_fields_and_no_wall_time_or_input_count() -> None:
    drv = FakeDriver(FakeDB())
    rel = Release.create(mechanism="m", neighbourhood="node", epsilon=0.5, sensitivity=3.0,
                         params={"k": 2, "theta": 7}, seed=11)
    sink = Neo4jSink(drv)
    sink.create_budget("ds", 1.0)
    sink.write_release(rel, release_id="r", graph=A_GRAPH, dataset="ds")
    rec = dict(drv.db.records["r"])
    for field, value in rel.to_dict().items():
        if isinstance(value, dict):
            assert f"{field}_json" in rec
        elif field != "release_id" and value is not None:
            assert rec[field] == value, field
    assert Release.from_json(rec["release_json"]) == rel
    assert not {"seconds", "started_at", "completed_at", "n_nodes", "n_edges", "n_users",
                "n_relationships"} & set(rec)
    assert {k for k in rec if k.startswith("written_")} == {
        "written_nodes", "written_relationships", "written_statistics"}
    listing = sink.releases()[0][0]
    assert not {"seconds", "started_at", "completed_at"} & set(listing)
    assert listing["created_at"] == rel.created_at


def test_budget_refused_before_anything_is_written() -> None:
    drv = FakeDriver(FakeDB())
    sink = Neo4jSink(drv)
    sink.create_budget("ds", 0.1)
    with pytest.raises(PrivacyBudgetExceeded):
        sink.write_release(Release.create(mechanism="m", neighbourhood="edge", epsilon=1.0),
                           release_id="r", graph=A_GRAPH, dataset="ds")
    assert not drv.named("begin_release") and drv.db.records == {}


def test_the_charge_id_is_keyed() -> None:
    """The charge id covers the payload's content hash (real ids before pseudonymization):
    published plain, it would let anyone test a guessed id mapping; it is an HMAC under the
    operator's key."""
    drv = FakeDriver(FakeDB())
    Neo4jSink(drv).write_release(K_ANON, release_id="r", graph=A_GRAPH)
    charge_id = drv.db.records["r"]["charge_id"]
    assert charge_id.startswith("hmac-sha256:")
    import hashlib

    from graphanon.io.neo4j.records import canonical_json

    plain = hashlib.sha256(f"None\n{canonical_json(K_ANON.to_dict())}\ngraph\n"
                           f"{A_GRAPH.content_hash}".encode()).hexdigest()
    assert plain not in charge_id
