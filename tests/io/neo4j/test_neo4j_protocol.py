"""Stage then flip, one writer per release, counts the database confirms: the sink's
protocol against the recording fake, with two attempts interleaved transaction by
transaction and an attempt crashed at every transaction boundary.

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
from bound import bound
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
    """What a reader sees: the rows of the record's current attempt of a complete release."""
    rec = db.records.get(rid, {})
    if rec.get("status") != "complete":
        return set(), set()
    cur = rec["current_attempt"]
    nodes = {n["uid"] for n in db.nodes.get("AnonNode", [])
             if n["release_id"] == rid and n["attempt"] == cur}
    rels = {(r["source"], r["target"]) for r in db.rels
            if r["release_id"] == rid and r["attempt"] == cur}
    return nodes, rels


def attempts_stored(db: FakeDB, rid: str) -> set[str]:
    """The attempts whose rows are stored under ``rid`` (visible or not)."""
    return ({n["attempt"] for n in db.nodes.get("AnonNode", []) if n["release_id"] == rid}
            | {r["attempt"] for r in db.rels if r["release_id"] == rid})


def expected_content(G: Graph) -> tuple[set[Any], set[tuple[Any, Any]]]:
    u, v = G.edges()
    ids = G.node_ids.tolist()
    return set(ids), {(ids[a], ids[b]) for a, b in zip(u.tolist(), v.tolist(), strict=True)}


def attempts(drv: FakeDriver, rid: str = "shared") -> dict[str, Any]:
    def write(G: Graph) -> Any:
        return lambda: Neo4jSink(drv, batch_size=2).write_release(
            bound(K_ANON, G), release_id=rid, graph=G, keep_ids=True, replace=True)

    return {"A": write(A_GRAPH), "B": write(B_GRAPH)}


def one_write() -> list[list[str]]:
    """The statements of each transaction of a write of A_GRAPH, in order."""
    drv = FakeDriver(FakeDB())
    Neo4jSink(drv, batch_size=2).write_release(bound(K_ANON, A_GRAPH),
                                               release_id="x", graph=A_GRAPH,
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
    # after the winner began, the loser ran nothing but the lock that stopped it, or (if it
    # had completed before) the clean-up of attempts other than its own and the winner's
    winner_began = begins[-1].tx
    winner = next(c.params["write_token"] for c in drv.named("claim_release_write")
                  if c.thread == last)
    loser_calls = [c for c in drv.calls if c.tx > winner_began and c.thread == first]
    assert all(c.name == "lock_release" or (c.name.startswith("delete_release_")
                                            and winner in c.params["keep"])
               for c in loser_calls)
    if first in run.errors:
        assert len(loser_calls) <= 1
    # nothing is left of the loser: no rows but the winner's are stored
    assert attempts_stored(drv.db, "shared") == {rec["current_attempt"]} == {winner}


def interleave(schedule: list[str]) -> tuple[Interleaver, FakeDriver]:
    drv = FakeDriver(FakeDB())
    run = Interleaver(drv, attempts(drv), schedule).run()
    return run, drv


def test_second_writer_between_batches_wins_and_the_first_fails_cleanly() -> None:
    n = transactions_of_one_write()
    began, completed = through("begin_release"), through("complete_release")
    # B runs its whole write at every transaction boundary of A
    for k in range(n + 1):
        run, drv = interleave(["A"] * k + ["B"] * n + ["A"] * n)
        check_outcome(run, drv)
        if began <= k < completed:  # A had begun and had not completed: A loses
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
    run, drv = interleave(["A"] * (through("complete_release") - 1) + ["B"] * n + ["A"])
    assert isinstance(run.errors["A"], ReleaseConflictError)
    assert run.results["B"].status == "complete"
    assert [c.name for c in drv.calls if c.name == "complete_release"] == ["complete_release"]


def test_the_loser_charges_nothing_and_the_winner_charges_once() -> None:
    drv = FakeDriver(FakeDB())
    Neo4jSink(drv).create_budget("ds", 2.0)
    a = Release.create(mechanism="dp", neighbourhood="edge", epsilon=0.5)
    b = Release.create(mechanism="dp", neighbourhood="edge", epsilon=0.75)
    tasks = {"A": lambda: Neo4jSink(drv, batch_size=2).write_release(
                 bound(a, A_GRAPH), release_id="shared", graph=A_GRAPH, dataset="ds"),
             "B": lambda: Neo4jSink(drv, batch_size=2).write_release(
                 bound(b, B_GRAPH), release_id="shared", graph=B_GRAPH, dataset="ds")}
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
    Neo4jSink(drv).write_release(bound(K_ANON, A_GRAPH),
                                 release_id="shared", graph=A_GRAPH, keep_ids=True)
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
        sink.write_release(bound(K_ANON, A_GRAPH), release_id="r", graph=A_GRAPH, keep_ids=True)
    assert info.value.exit_code == 4 and not isinstance(info.value, ReleaseConflictError)
    assert drv.db.records["r"]["status"] == "pending"  # never complete with missing rows
    assert not drv.named("complete_release")


def test_statistics_are_confirmed_and_recorded() -> None:
    from graphanon.dk.extract import DKDistribution

    drv = FakeDriver(FakeDB())
    table = DKDistribution("degree", np.array([[0], [1], [2]]), np.array([3.0, 1.5, 2.0]))
    s = Neo4jSink(drv, batch_size=2).write_release(bound(K_ANON, table),
                                                   release_id="s", statistics=table)
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
    rel = bound(Release.create(mechanism="m", neighbourhood="node", epsilon=0.5,
                               sensitivity=3.0, params={"k": 2, "theta": 7}, seed=11), A_GRAPH)
    sink = Neo4jSink(drv)
    sink.create_budget("ds", 1.0)
    sink.write_release(rel, release_id="r", graph=A_GRAPH, dataset="ds")
    rec = dict(drv.db.records["r"])
    for field, value in rel.to_dict().items():
        if isinstance(value, (dict, list)):
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
        rel = Release.create(mechanism="m", neighbourhood="edge", epsilon=1.0)
        sink.write_release(bound(rel, A_GRAPH), release_id="r", graph=A_GRAPH, dataset="ds")
    assert not drv.named("begin_release") and drv.db.records == {}


def test_the_charge_id_is_keyed() -> None:
    """The charge id covers the payload's content hash (real ids before pseudonymization):
    published plain, it would let anyone test a guessed id mapping; it is an HMAC under the
    operator's key."""
    drv = FakeDriver(FakeDB())
    Neo4jSink(drv).write_release(bound(K_ANON, A_GRAPH), release_id="r", graph=A_GRAPH)
    charge_id = drv.db.records["r"]["charge_id"]
    assert charge_id.startswith("hmac-sha256:")
    import hashlib

    from graphanon.io.neo4j.records import canonical_json

    plain = hashlib.sha256(f"None\n{canonical_json(K_ANON.to_dict())}\ngraph\n"
                           f"{A_GRAPH.content_hash}".encode()).hexdigest()
    assert plain not in charge_id


# ----------------------------------------------------------------------- stage, then flip
def test_the_guard_of_begin_release_reads_after_it_holds_the_lock() -> None:
    """A guard that reads the status before the SET takes the record's lock may decide on a
    status another transaction changes before the lock is granted (a ``pending`` release
    completed meanwhile would be replaced without ``replace``)."""
    from graphanon.io.cypher import load

    text = load("begin_release")
    lock = text.index("SET r.graphanon_lock")
    assert all(text.index(read) > lock for read in ("r.status", "r.write_token", "r.charge_id"))
    assert "WITH r, r." not in text  # nothing read into a variable before the lock


def write_dp(drv: FakeDriver, G: Graph, epsilon: float, **kw: Any) -> Any:
    rec = Release.create(mechanism="dp", neighbourhood="edge", epsilon=epsilon,
                         source_fingerprint=f"fp-{G.n_nodes}")
    return lambda: Neo4jSink(drv, batch_size=2).write_release(
        bound(rec, G), release_id="shared", graph=G, dataset="ds", keep_ids=True, **kw)


def complete_b_release() -> tuple[FakeDriver, dict[str, Any]]:
    """A database holding B_GRAPH as the complete release ``shared`` (ε = 0.25 charged)."""
    drv = FakeDriver(FakeDB())
    Neo4jSink(drv).create_budget("ds", 2.0)
    write_dp(drv, B_GRAPH, 0.25)()
    return drv, dict(drv.db.records["shared"])


def test_readers_see_the_old_release_until_the_flip_then_only_the_new_one() -> None:
    """At every statement of two writers replacing a complete release, interleaved in every
    order tried, a reader sees one complete release: the old one until a flip, then the
    flipper's (never a mix, never a gap)."""
    old = expected_content(B_GRAPH)
    n = 40
    rng = random.Random(34)
    schedules = [list(s) for s in {tuple(rng.sample(["A"] * n + ["C"] * n, 2 * n))
                                   for _ in range(40)}]
    for schedule in schedules:
        drv, _ = complete_b_release()
        ring_c = ring(6, 3000)
        seen: list[Any] = []

        def observe(call: Any, drv: FakeDriver = drv, seen: list[Any] = seen) -> None:
            seen.append(release_content(drv.db, "shared"))

        drv.fail = observe
        tasks = {"A": write_dp(drv, A_GRAPH, 0.5, replace=True),
                 "C": write_dp(drv, ring_c, 0.5, replace=True)}
        run = Interleaver(drv, tasks, schedule).run()
        drv.fail = None
        allowed = [old, expected_content(A_GRAPH), expected_content(ring_c)]
        assert all(view in allowed for view in seen)
        # each content, once replaced, never comes back
        firsts = [next(i for i, v in enumerate(seen) if v == c) for c in allowed
                  if c in seen]
        assert firsts == sorted(firsts)
        assert seen[0] == old and seen[-1] in allowed[1:]
        winners = [t for t in tasks if t in run.results]
        assert winners and all(isinstance(e, ReleaseConflictError)
                               for e in run.errors.values())
        assert attempts_stored(drv.db, "shared") == {drv.db.records["shared"]["current_attempt"]}
        # each completed attempt charged once; the loser charged nothing
        assert drv.db.budgets["ds"]["epsilon_spent"] == pytest.approx(0.25 + 0.5 * len(winners))


def test_a_crash_at_every_transaction_leaves_the_complete_release_as_it_was() -> None:
    from neo4j import exceptions as nx

    drv, _ = complete_b_release()
    before = drv.transactions
    write_dp(drv, A_GRAPH, 0.5, replace=True)()
    replacement = [t for number, t in drv.transactions_of().items() if number > before]
    flip = next(i for i, t in enumerate(replacement)
                if any(c.name == "complete_release" for c in t))
    assert len(replacement) > flip + 8  # batches before the flip, clean-up batches after
    for k in range(len(replacement)):
        drv, record = complete_b_release()
        first_tx = drv.transactions + 1
        crashed: list[int] = []

        def crash(call: Any, k: int = k, first_tx: int = first_tx,
                  crashed: list[int] = crashed) -> BaseException | None:
            if call.tx - first_tx == k and not crashed:
                crashed.append(call.tx)
                return nx.ServiceUnavailable("connection lost")
            return None

        drv.fail = crash
        try:
            write_dp(drv, A_GRAPH, 0.5, replace=True)()
        except Neo4jError:
            assert k <= flip, k
        else:
            assert k > flip, k  # a clean-up batch failed: logged, the release is complete
        drv.fail = None
        rec = drv.db.records["shared"]
        if k <= flip:  # exactly as it was: record, rows readers see, ledger
            assert {key: v for key, v in rec.items() if key != "write_token"} == record, k
            assert release_content(drv.db, "shared") == expected_content(B_GRAPH), k
            assert drv.db.budgets["ds"]["epsilon_spent"] == pytest.approx(0.25), k
        else:  # flipped: the new release, and only its rows, are visible
            assert rec["status"] == "complete" and rec["epsilon"] == 0.5
            assert release_content(drv.db, "shared") == expected_content(A_GRAPH), k
            assert drv.db.budgets["ds"]["epsilon_spent"] == pytest.approx(0.75), k
        # the next write (or a drop) leaves no rows of any earlier attempt
        write_dp(drv, ring(3, 4000), 0.5, replace=True)()
        assert attempts_stored(drv.db, "shared") == {drv.db.records["shared"]["current_attempt"]}


def test_an_unknown_commit_outcome_is_reported_as_such() -> None:
    from neo4j import exceptions as nx

    from graphanon.io.neo4j import CommitOutcomeUnknown

    drv, _ = complete_b_release()
    drv.fail = lambda c: (nx.IncompleteCommit("connection lost during commit")
                          if c.name == "complete_release" else None)
    with pytest.raises(CommitOutcomeUnknown) as info:
        write_dp(drv, A_GRAPH, 0.5, replace=True)()
    assert info.value.exit_code == 4
    assert "the commit may or may not have happened: check `graphanon neo4j releases`" in str(
        info.value)
    assert "\n" not in str(info.value)


def test_a_refused_budget_at_the_flip_keeps_the_complete_release() -> None:
    drv, record = complete_b_release()

    def spend_meanwhile() -> None:
        if drv.named("write_nodes"):
            drv.db.budgets["ds"]["epsilon_spent"] = 2.0

    drv.before_tx = spend_meanwhile
    with pytest.raises(PrivacyBudgetExceeded):
        write_dp(drv, A_GRAPH, 0.5, replace=True)()
    drv.before_tx = None
    assert drv.db.records["shared"] == record  # even the token is gone
    assert attempts_stored(drv.db, "shared") == {record["current_attempt"]}


def test_schema_statements_run_once_per_database() -> None:
    drv = FakeDriver(FakeDB())
    Neo4jSink(drv).write_release(bound(K_ANON, A_GRAPH), release_id="a", graph=A_GRAPH)
    assert drv.named("schema_uid_index")
    drv.calls.clear()
    # a new sink
    Neo4jSink(drv).write_release(bound(K_ANON, A_GRAPH), release_id="b", graph=A_GRAPH)
    sink = Neo4jSink(drv)
    sink.write_release(bound(K_ANON, A_GRAPH), release_id="c", graph=A_GRAPH)
    sink.write_release(bound(K_ANON, A_GRAPH), release_id="d", graph=A_GRAPH)
    schema = [c.name for c in drv.calls if c.name.startswith("schema_") or c.name == "await_index"]
    assert schema == ["schema_state", "schema_state"]  # one read per sink, nothing created


def test_release_nodes_are_unique_per_release_attempt_and_uid() -> None:
    from graphanon.io.cypher import load

    for label in ("AnonNode", "AnonUser", "AnonFeature"):
        text = load("schema_uid_index", index=f"graphanon_{label}_key", label=label)
        assert text.startswith("CREATE CONSTRAINT")
        assert "REQUIRE (n.release_id, n.attempt, n.uid) IS UNIQUE" in text


def test_a_gds_projection_sees_one_complete_release_and_only_its_current_rows() -> None:
    drv, _ = complete_b_release()
    sink = Neo4jSink(drv)
    # a replacement stopped after staging its rows: the projection holds B_GRAPH only
    drv.fail = lambda c: RuntimeError("crash") if c.name == "ledger_lock" else None
    with pytest.raises(RuntimeError):
        write_dp(drv, A_GRAPH, 0.5, replace=True)()
    drv.fail = None
    assert len(attempts_stored(drv.db, "shared")) == 2  # two attempts' rows are stored
    row = sink.project_gds("shared", "g")
    assert row == {"graph_name": "g", "node_count": 4, "relationship_count": 8}
    g = drv.db.gds_graphs["g"]
    assert {uid for _, uid in g["nodes"]} == expected_content(B_GRAPH)[0]
    assert {(a[1], b[1]) for a, b, _ in g["relationships"]} == expected_content(B_GRAPH)[1]
    assert g["undirected"] == ["*"]
    call = drv.named("gds_project_release")[0]
    assert call.mode == "read" and "undirectedRelationshipTypes: ['*']" in call.query
    assert "status: 'complete'" in call.query and "attempt: r.current_attempt" in call.query
    # a release that is not complete projects nothing
    drv.db.records["other"] = {"release_id": "other", "status": "pending"}
    assert sink.project_gds("other", "h")["graph_name"] is None and "h" not in drv.db.gds_graphs
