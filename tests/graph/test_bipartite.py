"""graphanon.graph.BipartiteGraph: construction, conversions, universes."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon import BipartiteGraph, InvalidParameterError


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
