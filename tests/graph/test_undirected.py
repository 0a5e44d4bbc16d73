"""graphanon.graph.Graph: construction, invariants, conversions, universes."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np
import pytest
from conftest import check_invariants
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon import Graph, InvalidParameterError

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


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=30),
       st.permutations(list(range(10))), st.sets(st.integers(10, 20), max_size=5),
       st.booleans())
def test_with_nodes_adds_isolated_nodes(edges: list[tuple[int, int]], perm: list[int],
                                        extra: set[int], text: bool) -> None:
    """The graph on a universe: same id edges, the universe's ids in order, added nodes
    isolated, attributes moved with their nodes; node ids in any order (the CSR is reused
    when the order is kept, rebuilt otherwise)."""
    from graphanon.graph._csr import _validate_csr

    def name(i: int) -> Any:
        return f"n{i:02d}" if text else i

    u = np.array([a for a, _ in edges], dtype=np.int64)
    v = np.array([b for _, b in edges], dtype=np.int64)
    ids = np.array([name(p) for p in perm], dtype=object if text else np.int64)
    G = Graph.from_edges(u, v, n_nodes=10, node_ids=ids,
                         attributes={"w": np.arange(10, dtype=np.float64)})
    universe = np.array([name(i) for i in [*range(10), *extra]], dtype=G.node_ids.dtype)
    H = G.with_nodes(universe[::-1].copy())
    _validate_csr(H.indptr, H.indices)
    assert H.node_ids.tolist() == sorted(universe.tolist())
    id_edges = lambda X: {frozenset((X.node_ids[a], X.node_ids[b]))  # noqa: E731
                          for a, b in zip(*X.edges(), strict=True)}
    assert id_edges(H) == id_edges(G)
    w = dict(zip(H.node_ids.tolist(), H.attributes["w"].tolist(), strict=True))
    for i, p in enumerate(perm):
        assert w[name(p)] == i
    assert all(np.isnan(w[name(x)]) for x in extra)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 40), edges=st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)),
                                             max_size=80))
def test_component_roots_match_networkx(n: int, edges: list[tuple[int, int]]) -> None:
    """Hooking and pointer jumping give every node the smallest index of its component."""
    import networkx as nx

    from graphanon.metrics import component_roots, describe_graph

    edges = [(a, b) for a, b in edges if a < n and b < n]
    G = Graph.from_edges([a for a, _ in edges], [b for _, b in edges], n_nodes=n)
    H = nx.Graph()
    H.add_nodes_from(range(n))
    H.add_edges_from(edges)
    want = np.empty(n, dtype=np.int64)
    for comp in nx.connected_components(H):
        want[list(comp)] = min(comp)
    assert component_roots(G).tolist() == want.tolist()
    info = describe_graph(G)
    assert info["connected_components"] == nx.number_connected_components(H)
    assert info["largest_component"] == max((len(c) for c in nx.connected_components(H)),
                                            default=0)
