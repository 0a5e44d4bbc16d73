"""The recording fake (tests/neo4j_fake.py) against Cypher 5's documented semantics.

The fake evaluates ``SET`` and ``MERGE`` from a statement's own text; the table below states
what the Cypher manual documents for them (clauses ``SET`` and ``MERGE``, Neo4j 5), so that
the fake cannot drift from the database the tests stand in for (issue 34: the fake once
applied a node's properties after its keys, the opposite of Cypher, and hid an overwrite).
"""

from __future__ import annotations

import pytest
from neo4j_fake import FakeDB, FakeDriver, apply_set, merge

from graphanon.io.cypher import load

# (properties before, SET items on n, parameters, properties after)
SET_SEMANTICS = [
    # items apply left to right: a later item overwrites an earlier one
    ({}, "n += $m, n.uid = $u", {"m": {"uid": "real", "a": 1}, "u": "p"}, {"uid": "p", "a": 1}),
    ({}, "n.uid = $u, n += $m", {"m": {"uid": "real", "a": 1}, "u": "p"}, {"uid": "real", "a": 1}),
    ({}, "n.a = 1, n.a = 2", {}, {"a": 2}),
    # += merges: keys of the map overwrite, other properties stay
    ({"a": 1, "b": 2}, "n += $m", {"m": {"b": 3, "c": 4}}, {"a": 1, "b": 3, "c": 4}),
    # = replaces every property
    ({"a": 1, "b": 2}, "n = $m", {"m": {"c": 4}}, {"c": 4}),
    # null removes: a null value of += and a property set to null
    ({"a": 1, "b": 2}, "n += $m", {"m": {"a": None}}, {"b": 2}),
    ({"a": 1}, "n.a = null", {}, {}),
    ({"a": 1}, "n.s = 'pending', n.k = $k", {"k": 7}, {"a": 1, "s": "pending", "k": 7}),
]


@pytest.mark.parametrize(("before", "items", "params", "after"), SET_SEMANTICS)
def test_set_follows_cypher(before: dict, items: str, params: dict, after: dict) -> None:
    node = dict(before)
    apply_set(node, "n", items, {"$": params})
    assert node == after


def test_merge_follows_cypher() -> None:
    bucket = [{"k": 1, "x": 2}]
    # matches on the full pattern: every property of the pattern must be equal
    node, created = merge(bucket, {"k": 1}, on_create="n.c = 1", on_match="n.m = 1")
    assert (created, node) == (False, {"k": 1, "x": 2, "m": 1})
    node, created = merge(bucket, {"k": 1, "x": 3}, on_create="n.c = 1", on_match="n.m = 1")
    # no match: a node with exactly the pattern's properties, then ON CREATE only
    assert (created, node) == (True, {"k": 1, "x": 3, "c": 1})
    assert len(bucket) == 2


def test_write_nodes_sets_the_writers_keys_after_the_properties() -> None:
    """A properties map that carries ``uid`` / ``release_id`` cannot replace them: the fake
    runs write_nodes.cypher's own SET items in their order (the sink refuses such names
    before this; here they reach the statement directly)."""
    drv = FakeDriver(FakeDB())
    query = load("write_nodes", label="AnonUser")
    rows = [{"uid": "u1", "properties": {"uid": "alice", "release_id": "other",
                                         "attempt": "x", "a": 1}}]
    with drv.session() as s:
        s.execute_write(lambda tx: tx.run(query, {"release_id": "r1", "attempt": "t1",
                                                  "rows": rows}).consume())
    assert drv.db.nodes["AnonUser"] == [{"release_id": "r1", "attempt": "t1", "uid": "u1",
                                         "a": 1}]
