"""Ids at the Neo4j boundary: one canonical encoding on every read path, no element ids in a
release, the public universe of a label, and the read's throughput."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from bound import bound
from neo4j_fake import FakeDB, FakeDriver

import graphanon.universe as graphanon_universe
from graphanon._ids import id_keys
from graphanon.errors import InvalidParameterError
from graphanon.graph import BipartiteGraph, Graph
from graphanon.io.neo4j import (
    IdMap,
    Neo4jSink,
    Neo4jSource,
    Universe,
    contains_element_ids,
    looks_like_element_id,
)
from graphanon.privacy.pseudonyms import pseudonymize
from graphanon.privacy.release import Release

K_ANON = Release.create(mechanism="test-k", neighbourhood="k-anonymity", params={"k": 2})


def social(keys: list[Any]) -> FakeDB:
    db = FakeDB()
    db.source_nodes["Person"] = [{"key": k} for k in keys]
    pairs = [(0, 1), (1, 2), (2, 3), (3, 4)]
    db.source_rels = [("KNOWS", ("Person", a), ("Person", b)) for a, b in pairs]
    return db


def bipartite(user_keys: list[Any], feature_keys: list[Any]) -> FakeDB:
    db = FakeDB()
    db.source_nodes["User"] = [{"key": k} for k in user_keys]
    db.source_nodes["Topic"] = [{"key": k} for k in feature_keys]
    pairs = [(0, 0), (1, 0), (1, 1), (2, 1)]
    db.source_rels = [("LIKES", ("User", u), ("Topic", f)) for u, f in pairs]
    return db


# ----------------------------------------------------------------------- canonical ids
def test_int_7_and_string_7_are_one_id_and_refused_on_every_read_path() -> None:
    with pytest.raises(InvalidParameterError, match=r"ids 7 \(an integer\) and '7' \(a string\) "
                                                   "are the same id"):
        Neo4jSource(FakeDriver(social([7, 1, 2, "7", 4]))).read_graph(
            label="Person", rel_type="KNOWS", id_property="key")
    with pytest.raises(InvalidParameterError, match="not a unique business key"):
        Neo4jSource(FakeDriver(social(["7", 1, 2, 7, 4]))).read_graph(
            label="Person", rel_type="KNOWS", id_property="key")
    # features met through relationships
    with pytest.raises(InvalidParameterError, match="same id"):
        Neo4jSource(FakeDriver(bipartite(["a", "b", "c"], [7, "7"]))).read_bipartite(
            user_label="User", feature_label="Topic", rel_type="LIKES", user_id_property="key",
            feature_id_property="key")
    # a custom query's rows
    db = FakeDB()
    q = "MATCH (a)-[:R]->(b) RETURN a.k, b.k"
    db.custom[q] = [{"a": 7, "b": 8}, {"a": "7", "b": 9}]
    with pytest.raises(InvalidParameterError, match="same id"):
        Neo4jSource(FakeDriver(db)).read_query_graph(q)
    # "007" is another id than 7: no conflict
    G = Neo4jSource(FakeDriver(social([7, 1, 2, "007", 4]))).read_graph(
        label="Person", rel_type="KNOWS", id_property="key")
    assert G.node_ids.tolist() == ["7", "1", "2", "007", "4"]


def test_mixed_key_types_give_the_same_node_keys_as_the_all_int_read() -> None:
    ints = Neo4jSource(FakeDriver(social([10, 11, 12, 13, 14]))).read_graph(
        label="Person", rel_type="KNOWS", id_property="key")
    mixed = Neo4jSource(FakeDriver(social([10, "11", 12, 13, "x"]))).read_graph(
        label="Person", rel_type="KNOWS", id_property="key")
    assert ints.node_ids.dtype == np.int64 and mixed.node_ids.dtype == object
    key = 0x5EED
    np.testing.assert_array_equal(id_keys(ints.node_ids, key)[:4],
                                  id_keys(mixed.node_ids, key)[:4])
    # "11" read as a string is the id 11: an all-canonical column is int64 again
    strings = Neo4jSource(FakeDriver(social(["10", "11", 12, 13, 14]))).read_graph(
        label="Person", rel_type="KNOWS", id_property="key")
    assert strings.node_ids.dtype == np.int64
    np.testing.assert_array_equal(strings.node_ids, ints.node_ids)


def test_idmap_rejects_what_is_not_an_id() -> None:
    ids = IdMap("Person")
    for bad in (None, True, 1.5, [1]):
        with pytest.raises(InvalidParameterError):
            ids.add_new(bad)
    assert ids.get_or_add(3) == 0 and ids.get_or_add(3) == 0 and ids.lookup(3.0) is None
    assert ids.ids().tolist() == [3]


# ----------------------------------------------------------------------- element ids
def test_element_id_shape() -> None:
    assert looks_like_element_id("4:8f0d4a52-3c1e-4b7a-9d2e-5f6a7b8c9d0e:12")
    assert not looks_like_element_id("4:abc:12") and not looks_like_element_id(12)
    assert contains_element_ids(np.array(["a", "4:8f0d4a52-3c1e-4b7a-9d2e-5f6a7b8c9d0e:0"],
                                         dtype=object))
    assert not contains_element_ids(np.arange(3))


def test_features_read_by_element_id_are_pseudonymized_in_a_release() -> None:
    db = bipartite(["a", "b", "c"], ["golf", "jazz"])
    B = Neo4jSource(FakeDriver(db)).read_bipartite(
        user_label="User", feature_label="Topic", rel_type="LIKES", user_id_property="key")
    assert contains_element_ids(B.feature_ids)
    drv = FakeDriver(FakeDB())
    Neo4jSink(drv).write_release(bound(K_ANON, B), release_id="r", bipartite=B)
    sent = json.dumps([c.params for c in drv.calls], default=str)
    assert all(x not in sent for x in B.feature_ids.tolist())  # no element id is sent
    feats = sorted(n["uid"] for n in drv.db.nodes["AnonFeature"])
    assert feats == sorted(pseudonymize(B.feature_ids, scope=K_ANON.release_id,
                                        prefix="f").tolist())
    rec = drv.db.records["r"]
    assert rec["feature_ids"] == "pseudonymized" and rec["ids"] == "pseudonymized"


def test_business_key_features_are_kept_in_sorted_order() -> None:
    B = BipartiteGraph.from_pairs(["u1", "u2", "u2"], ["zeta", "alpha", "mid"])
    drv = FakeDriver(FakeDB())
    Neo4jSink(drv).write_release(bound(K_ANON, B), release_id="r", bipartite=B)
    rows = [r["uid"] for c in drv.named("write_nodes")
            if c.identifiers["label"] == "AnonFeature" for r in c.params["rows"]]
    assert rows == ["alpha", "mid", "zeta"]  # not the input's first-seen order
    assert drv.db.records["r"]["feature_ids"] == "kept"


def test_keep_ids_never_publishes_element_ids() -> None:
    G = Neo4jSource(FakeDriver(social([1, 2, 3, 4, 5]))).read_graph(label="Person",
                                                                     rel_type="KNOWS")
    B = Neo4jSource(FakeDriver(bipartite(["a", "b", "c"], ["x", "y"]))).read_bipartite(
        user_label="User", feature_label="Topic", rel_type="LIKES", feature_id_property="key")
    for payload in ({"graph": G}, {"bipartite": B}):
        drv = FakeDriver(FakeDB())
        rec = bound(K_ANON, next(iter(payload.values())))
        with pytest.raises(InvalidParameterError, match="elementId"):
            Neo4jSink(drv).write_release(rec, release_id="r", keep_ids=True, **payload)
        assert drv.calls == []  # refused before anything is written
        # without keep_ids they become keyed pseudonyms
        Neo4jSink(drv).write_release(rec, release_id="r", **payload)
        sent = json.dumps([c.params for c in drv.calls], default=str)
        ids = (G if "graph" in payload else B)
        source_ids = ids.node_ids if isinstance(ids, Graph) else ids.user_ids
        assert all(x not in sent for x in source_ids.tolist())


# ----------------------------------------------------------------------- universe
def test_universe_of_a_label_includes_isolated_nodes() -> None:
    db = social([1, 2, 3, 4, 5, 6])  # node 6 has no relationship
    drv = FakeDriver(db)
    G, universe = Neo4jSource(drv).read_graph(label="Person", rel_type="KNOWS",
                                              id_property="key", universe="label")
    assert isinstance(universe, Universe)
    assert universe.nodes is not None and universe.nodes.tolist() == [1, 2, 3, 4, 5, 6]
    assert universe.users is None and universe.features is None
    assert universe.source == "neo4j label :Person (all 6 nodes, isolated included)"
    assert G.n_nodes == 6
    plain = Neo4jSource(FakeDriver(db)).read_graph(label="Person", rel_type="KNOWS",
                                                   id_property="key")
    assert isinstance(plain, Graph)  # no universe asked: just the graph


def test_bipartite_universe_has_every_user_and_every_feature() -> None:
    db = bipartite(["a", "b", "c", "lonely"], ["x", "y", "unused"])
    drv = FakeDriver(db)
    B, universe = Neo4jSource(drv).read_bipartite(
        user_label="User", feature_label="Topic", rel_type="LIKES", user_id_property="key",
        feature_id_property="key", universe="label")
    assert sorted(B.feature_ids.tolist()) == ["x", "y"]  # the graph: features in use
    assert universe.users is not None and universe.features is not None
    assert universe.users.tolist() == ["a", "b", "c", "lonely"]
    assert universe.features.tolist() == ["x", "y", "unused"]
    assert universe.source == ("neo4j labels :User (all 4 users, isolated included) and "
                               ":Topic (all 3 features, unused included)")
    reads = [c for c in drv.named("read_nodes")]
    assert [c.identifiers["label"] for c in reads] == ["User", "Topic"]
    assert reads[1].params == {"id_property": "key", "properties": []}
    assert all(c.mode == "read" for c in drv.calls)
    # a duplicated key among unused features is still refused
    with pytest.raises(InvalidParameterError, match="not a unique business key"):
        Neo4jSource(FakeDriver(bipartite(["a", "b", "c"], ["x", "y", "q", "q"]))).read_bipartite(
            user_label="User", feature_label="Topic", rel_type="LIKES",
            user_id_property="key", feature_id_property="key", universe="label")


def test_universe_argument_checks() -> None:
    with pytest.raises(InvalidParameterError, match="'universe' parameter"):
        Neo4jSource(FakeDriver(social([1, 2, 3, 4, 5]))).read_graph(
            label="Person", rel_type="KNOWS", universe="file")  # type: ignore[call-overload]
    db = bipartite(["7", "8", "9"], [1, 2])
    _, u = Neo4jSource(FakeDriver(db)).read_bipartite(
        user_label="User", feature_label="Topic", rel_type="LIKES", user_id_property="key",
        feature_id_property="key", universe="label")
    assert u is not None and u.users is not None and u.users.dtype == np.int64  # canonical
    assert u.describe() == {"source": u.source, "users": 3, "features": 2}
    assert Universe is graphanon_universe.Universe  # the one Universe of graphanon


# ----------------------------------------------------------------------- throughput
def test_reads_report_their_throughput() -> None:
    src = Neo4jSource(FakeDriver(social([1, 2, 3, 4, 5])))
    assert src.last_read is None
    src.read_graph(label="Person", rel_type="KNOWS", id_property="key")
    stats = src.last_read
    assert stats is not None and stats.records == 5 + 4 and stats.seconds > 0
    assert stats.records_per_second == pytest.approx(stats.records / stats.seconds)
    assert "records/s" in stats.describe() and "Rust extension" in stats.describe()


def test_a_feature_key_shared_by_two_nodes_is_refused_without_a_universe_too() -> None:
    """Two feature nodes with one business key would silently become one feature."""
    db = bipartite(["a", "b", "c"], ["golf", "golf"])
    with pytest.raises(InvalidParameterError, match="not a unique business key"):
        Neo4jSource(FakeDriver(db)).read_bipartite(
            user_label="User", feature_label="Topic", rel_type="LIKES", user_id_property="key",
            feature_id_property="key")
    B = Neo4jSource(FakeDriver(bipartite(["a", "b", "c"], ["golf", "jazz"]))).read_bipartite(
        user_label="User", feature_label="Topic", rel_type="LIKES", user_id_property="key",
        feature_id_property="key")
    assert sorted(B.feature_ids.tolist()) == ["golf", "jazz"] and B.n_edges == 4


def test_one_label_for_users_and_features_is_refused() -> None:
    drv = FakeDriver(bipartite(["a"], ["golf"]))
    with pytest.raises(InvalidParameterError, match="both 'User'"):
        Neo4jSource(drv).read_bipartite(user_label="User", feature_label="User",
                                        rel_type="LIKES", user_id_property="key")
    assert drv.calls == []
