"""Graph and BipartiteGraph: construction, invariants, validation, conversions."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon import BipartiteGraph, Graph, InvalidParameterError


def check_invariants(G: Graph) -> None:
    n = G.n_nodes
    assert G.indptr[0] == 0 and G.indptr[-1] == G.indices.size
    rows = np.repeat(np.arange(n), G.degrees)
    cols = G.indices.astype(np.int64)
    assert not np.any(rows == cols), "self-loop"
    for i in range(n):
        nb = G.neighbors(i)
        assert np.all(np.diff(nb) > 0), "row not strictly sorted"
    fwd = set(zip(rows.tolist(), cols.tolist(), strict=True))
    assert fwd == {(b, a) for a, b in fwd}, "not symmetric"
    assert G.degrees.sum() == 2 * G.n_edges


edge_lists = st.lists(
    st.tuples(st.integers(0, 30), st.integers(0, 30)), min_size=0, max_size=120
)


@given(edge_lists)
@settings(max_examples=150, deadline=None)
def test_from_edges_invariants_match_networkx(edges: list[tuple[int, int]]) -> None:
    u = np.array([e[0] for e in edges], dtype=np.int64)
    v = np.array([e[1] for e in edges], dtype=np.int64)
    G = Graph.from_edges(u, v, n_nodes=31)
    check_invariants(G)
    ref = nx.Graph()
    ref.add_nodes_from(range(31))
    ref.add_edges_from((a, b) for a, b in edges if a != b)
    assert G.n_edges == ref.number_of_edges()
    assert G.degrees.tolist() == [ref.degree(i) for i in range(31)]
    eu, ev = G.edges()
    assert {(int(a), int(b)) for a, b in zip(eu, ev, strict=True)} == {
        (min(a, b), max(a, b)) for a, b in ref.edges()
    }


def test_dtypes_are_compact() -> None:
    G = Graph.from_edges([0, 1, 2], [1, 2, 0])
    assert G.indices.dtype == np.int32
    assert G.indptr.dtype == np.int32
    assert G.nbytes <= 12 * G.n_edges + 16 * G.n_nodes


def test_isolated_nodes_kept_and_ids() -> None:
    G = Graph.from_id_edges(np.array(["b", "a"]), np.array(["c", "b"]), nodes=np.array(["z"]))
    assert G.node_ids.tolist() == ["a", "b", "c", "z"]
    assert G.degrees.tolist() == [1, 2, 1, 0]
    assert G.index_of(["z", "a"]).tolist() == [3, 0]
    with pytest.raises(InvalidParameterError, match="unknown node id 'q'"):
        G.index_of("q")


def test_arrays_are_read_only() -> None:
    G = Graph.from_edges([0], [1])
    with pytest.raises(ValueError):
        G.indices[0] = 5


@pytest.mark.parametrize(
    ("indptr", "indices", "message"),
    [
        ([0, 1, 1], [1], "symmetric"),
        ([0, 1, 2], [0, 0], "self-loop"),
        ([0, 2, 3, 4], [2, 1, 0, 0], "strictly increasing"),
        ([0, 1, 2], [1, 5], r"\[0, 2\)"),
        ([1, 2], [0], "start at 0"),
    ],
)
def test_invalid_csr_rejected(indptr: list[int], indices: list[int], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        Graph(np.array(indptr), np.array(indices))


def test_bad_edge_input() -> None:
    with pytest.raises(InvalidParameterError, match="negative"):
        Graph.from_edges([-1], [0])
    with pytest.raises(InvalidParameterError, match="same length"):
        Graph.from_edges([0, 1], [1])
    with pytest.raises(InvalidParameterError, match="integer node indices"):
        Graph.from_edges(["a"], ["b"])
    with pytest.raises(InvalidParameterError, match="< n_nodes=2"):
        Graph.from_edges([0], [2], n_nodes=2)
    with pytest.raises(InvalidParameterError, match="hashable scalars"):
        Graph.from_edges([0], [1], node_ids=np.array([(1, 2), 3], dtype=object))


def test_conversions_round_trip() -> None:
    ref = nx.karate_club_graph()
    G = Graph.from_networkx(ref)
    check_invariants(G)
    assert G.n_edges == ref.number_of_edges()
    assert nx.utils.graphs_equal(nx.Graph(G.to_networkx().edges()), nx.Graph(ref.edges()))
    assert Graph.from_igraph(G.to_igraph()) == G
    assert Graph.from_scipy(G.to_scipy()) == Graph(G.indptr, G.indices)


def test_subgraph_and_attributes() -> None:
    G = Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0], attributes={"eps": [0.1, 0.2, 0.3, 0.4]})
    H = G.subgraph(np.array([True, True, False, True]))
    assert H.node_ids.tolist() == [0, 1, 3]
    assert H.n_edges == 2
    assert H.attributes["eps"].tolist() == [0.1, 0.2, 0.4]
    with pytest.raises(InvalidParameterError, match="length 4"):
        G.with_attribute("bad", [1, 2])
    with pytest.raises(InvalidParameterError, match="boolean array"):
        G.subgraph(np.array([1, 0, 1, 1]))


def test_fingerprint_changes_with_edges() -> None:
    a = Graph.from_edges([0, 1], [1, 2])
    b = Graph.from_edges([0, 0], [1, 2])
    assert a.content_hash != b.content_hash
    assert a.content_hash == Graph.from_edges([1, 2], [0, 1]).content_hash


# ---------------------------------------------------------------------- bipartite
def test_bipartite_from_pairs_and_conversions() -> None:
    B = BipartiteGraph.from_pairs(
        np.array(["u2", "u1", "u1", "u1"]), np.array(["x", "y", "x", "y"])
    )
    assert B.user_ids.tolist() == ["u1", "u2"]
    assert B.feature_ids.tolist() == ["x", "y"]
    assert B.n_edges == 3
    assert B.to_dense().tolist() == [[True, True], [True, False]]
    assert B.feature_degrees.tolist() == [2, 1]
    indptr, users = B.csc
    assert indptr.tolist() == [0, 2, 3] and users.tolist() == [0, 1, 0]
    g = B.to_igraph()
    assert g.is_bipartite() and g.ecount() == 3
    assert nx.is_bipartite(B.to_networkx())
    assert BipartiteGraph.from_scipy(B.to_scipy(), user_ids=B.user_ids,
                                     feature_ids=B.feature_ids) == B


def test_bipartite_rejects_non_binary() -> None:
    with pytest.raises(InvalidParameterError, match="binary"):
        BipartiteGraph.from_scipy(np.array([[0, 2], [1, 0]]))


@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 6)), max_size=60))
@settings(max_examples=100, deadline=None)
def test_bipartite_matches_dense(cells: list[tuple[int, int]]) -> None:
    dense = np.zeros((10, 7), dtype=bool)
    for r, c in cells:
        dense[r, c] = True
    B = BipartiteGraph.from_indices([c[0] for c in cells], [c[1] for c in cells],
                                    n_users=10, n_features=7)
    assert np.array_equal(B.to_dense(), dense)
    assert B.user_degrees.tolist() == dense.sum(1).tolist()
