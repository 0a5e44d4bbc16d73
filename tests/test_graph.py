"""Graph and BipartiteGraph: construction, invariants, validation, conversions."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np
import pytest
from conftest import threads_and
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


# ---------------------------------------------------------------------- CSR by counting
def _reference_csr(u: np.ndarray, v: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray,
                                                                    dict[str, int]]:
    """The sort-based construction as it was before the counting kernels (issue 16),
    frozen here as the reference: canonical a < b keys, sort-unique, two scatter passes."""
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    keep = u != v
    a, b = np.minimum(u[keep], v[keep]), np.maximum(u[keep], v[keep])
    key = np.unique(a * n + b)
    dropped = {"self_loops": int(u.size - a.size), "duplicate_edges": int(a.size - key.size)}
    a, b = key // n, key % n
    m = a.size
    lower = np.bincount(b, minlength=n)
    upper = np.bincount(a, minlength=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lower + upper, out=indptr[1:])
    indices = np.empty(2 * m, dtype=np.int32 if n - 1 <= 2**31 - 1 else np.int64)
    upper_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(upper, out=upper_start[1:])
    ranks = np.arange(m, dtype=np.int64)
    indices[indptr[a] + lower[a] + (ranks - upper_start[a])] = b
    order = np.argsort(b, kind="stable")
    bo = b[order]
    lower_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lower, out=lower_start[1:])
    indices[indptr[bo] + (ranks - lower_start[bo])] = a[order]
    return indptr.astype(np.int32 if 2 * m <= 2**31 - 1 else np.int64), indices, dropped


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Build every graph of the test with the counting kernels, however small, their passes
    cut into parts as on a large input (3 threads: parts of unequal size), in blocks of 1,000
    entries (a hub: a block of its own)."""
    from graphanon import _csr_kernels, graph

    monkeypatch.setattr(graph, "COUNTING_MIN_PAIRS", 0)
    monkeypatch.setattr(_csr_kernels, "PARALLEL_MIN", 0)
    monkeypatch.setattr(_csr_kernels, "BLOCK", 1000)
    monkeypatch.setenv("GRAPHANON_THREADS", "3")


def _building(counting: bool, threads: int = 1, block: int = 1 << 15, digit: int = 11) -> Any:
    """Inside a hypothesis test (no function fixtures): the counting kernels or the numpy
    path, the kernels' passes cut into ``threads`` parts, blocks of ``block`` entries and
    radix digits of ``digit`` bits."""
    from graphanon import _csr_kernels, graph

    return threads_and(threads, (graph, "COUNTING_MIN_PAIRS", 0 if counting else 1 << 60),
                       (_csr_kernels, "PARALLEL_MIN", 0), (_csr_kernels, "BLOCK", block),
                       (_csr_kernels, "DIGIT_BITS", digit))


pair_lists = st.integers(1, 60).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                         max_size=300)))


@given(pair_lists)
@settings(max_examples=300, deadline=None)
def test_counting_csr_equals_the_sorting_reference(case: tuple[int, list[tuple[int, int]]]
                                                   ) -> None:
    from graphanon import graph

    n, pairs = case
    u = np.array([p[0] for p in pairs], dtype=np.int64)
    v = np.array([p[1] for p in pairs], dtype=np.int64)
    ptr, idx, dropped = _reference_csr(u, v, n)
    # the numpy path for small inputs, and the counting kernels on 1, 2 and 3 threads, in
    # one block or in many (rows longer than a block alone), with one radix pass or several
    for how in ((False, 1), (True, 1), (True, 2), (True, 3), (True, 1, 8, 2), (True, 2, 3, 3),
                (True, 3, 1, 1)):
        with _building(*how):
            got: dict[str, int] = {}
            p2, i2 = graph._csr_from_pairs(u, v, n, got)
        assert got == dropped
        assert p2.dtype == ptr.dtype and i2.dtype == idx.dtype
        assert np.array_equal(p2, ptr) and np.array_equal(i2, idx)


@pytest.mark.usefixtures("counting")
def test_counting_csr_on_a_skewed_graph() -> None:
    """A hub, loops and duplicates in both directions, beyond the small-input size."""
    rng = np.random.default_rng(7)
    n = 5000
    u = np.concatenate([np.zeros(20000, dtype=np.int64), rng.integers(0, n, 200000)])
    v = np.concatenate([rng.integers(0, n, 20000), rng.integers(0, n, 200000)])
    u, v = np.concatenate([u, v[:500]]), np.concatenate([v, u[:500]])  # reversed duplicates
    ptr, idx, dropped = _reference_csr(u, v, n)
    G = Graph.from_edges(u, v, n_nodes=n)
    assert dict(G.input_cleaning) == dropped
    assert np.array_equal(G.indptr, ptr) and np.array_equal(G.indices, idx)
    check_invariants(G)


@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 6)), max_size=80),
       st.integers(1, 3))
@settings(max_examples=150, deadline=None)
def test_counting_cells_equal_the_sorted_unique(cells: list[tuple[int, int]],
                                                threads: int) -> None:
    r = np.array([c[0] for c in cells], dtype=np.int64)
    c = np.array([c[1] for c in cells], dtype=np.int64)
    with _building(True, threads, block=4 * threads - 3, digit=threads):
        B = BipartiteGraph.from_indices(r, c, n_users=10, n_features=7)
    keys = np.unique(r * 7 + c)
    assert B.indptr.tolist() == np.searchsorted(keys, np.arange(11) * 7).tolist()
    assert B.indices.tolist() == (keys % 7).tolist()
    assert B.indices.dtype == np.int32
    assert B.input_cleaning["duplicate_pairs"] == len(cells) - keys.size


def test_threads_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphanon import _parallel

    monkeypatch.setenv("GRAPHANON_THREADS", "5")
    assert _parallel.threads() == 5
    monkeypatch.delenv("GRAPHANON_THREADS")
    assert 1 <= _parallel.threads() <= _parallel.MAX_THREADS
    for bad in ("0", "-2", "two"):
        monkeypatch.setenv("GRAPHANON_THREADS", bad)
        with pytest.raises(InvalidParameterError, match="GRAPHANON_THREADS must be a positive"):
            _parallel.threads()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=30),
       st.permutations(list(range(10))), st.sets(st.integers(10, 20), max_size=5),
       st.booleans())
def test_with_nodes_adds_isolated_nodes(edges: list[tuple[int, int]], perm: list[int],
                                        extra: set[int], text: bool) -> None:
    """The graph on a universe: same id edges, the universe's ids in order, added nodes
    isolated, attributes moved with their nodes; node ids in any order (the CSR is reused
    when the order is kept, rebuilt otherwise)."""
    from graphanon.graph import _validate_csr

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


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 6)), max_size=25),
       st.permutations(list(range(6))), st.permutations(list(range(7))),
       st.sets(st.integers(10, 14), max_size=3), st.sets(st.integers(10, 14), max_size=3),
       st.booleans())
def test_with_universe_adds_empty_users_and_features(cells: list[tuple[int, int]],
                                                     uperm: list[int], fperm: list[int],
                                                     more_users: set[int],
                                                     more_features: set[int],
                                                     text: bool) -> None:
    """A bipartite graph over public universes: the same id cells, sorted universe ids,
    added users and features empty, user attributes moved with their users."""
    def name(kind: str, i: int) -> Any:
        return f"{kind}{i:02d}" if text else i

    r = np.array([a for a, _ in cells], dtype=np.int64)
    c = np.array([b for _, b in cells], dtype=np.int64)
    dt = object if text else np.int64
    B = BipartiteGraph.from_indices(
        r, c, n_users=6, n_features=7,
        user_ids=np.array([name("u", p) for p in uperm], dtype=dt),
        feature_ids=np.array([name("f", p) for p in fperm], dtype=dt),
        user_attributes={"w": np.arange(6, dtype=np.float64)})
    users = np.array([name("u", i) for i in [*more_users, *range(6)]], dtype=dt)
    feats = np.array([name("f", i) for i in [*range(7), *more_features]], dtype=dt)
    C = B.with_universe(users=users, features=feats)
    BipartiteGraph(C.indptr, C.indices, C.n_features)  # a valid CSR: rows sorted, no repeats
    assert C.user_ids.tolist() == sorted(users.tolist())
    assert C.feature_ids.tolist() == sorted(feats.tolist())
    id_cells = lambda X: {(X.user_ids[a], X.feature_ids[b])  # noqa: E731
                          for a, b in zip(*X.edges(), strict=True)}
    assert id_cells(C) == id_cells(B)
    w = dict(zip(C.user_ids.tolist(), C.user_attributes["w"].tolist(), strict=True))
    assert [w[name("u", p)] for p in uperm] == list(range(6))
    assert all(np.isnan(w[name("u", x)]) for x in more_users)


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
