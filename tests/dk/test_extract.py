"""dK extraction against networkx and brute force."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.datasets import load_polbooks
from graphanon.dk import dk_distribution
from graphanon.dk.extract import cell_index, domain_cells
from graphanon.errors import InvalidParameterError
from graphanon.graph import Graph


def _graph(n: int, p: float, seed: int) -> Graph:
    rng = np.random.default_rng(seed)
    iu = np.triu_indices(n, 1)
    keep = rng.random(iu[0].size) < p
    return Graph.from_edges(iu[0][keep], iu[1][keep], n_nodes=n)


def _brute_3k(G: Graph) -> tuple[Counter, Counter]:
    g = G.to_networkx()
    deg = dict(g.degree())
    wedges, tris = Counter(), Counter()
    for c in g:
        for a, b in combinations(sorted(g[c]), 2):
            lo, hi = sorted((deg[a], deg[b]))
            if g.has_edge(a, b):
                if c < a:  # count each triangle once, at its smallest node
                    tris[tuple(sorted((deg[a], deg[b], deg[c])))] += 1
            else:
                wedges[(lo, deg[c], hi)] += 1
    return wedges, tris


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 30), p=st.floats(0.0, 1.0), seed=st.integers(0, 10_000))
def test_1k_2k_match_networkx(n: int, p: float, seed: int) -> None:
    G = _graph(n, p, seed)
    one = dk_distribution(G, 1).as_dict()
    hist = nx.degree_histogram(G.to_networkx())
    assert one == {(g,): c for g, c in enumerate(hist) if c}
    assert dk_distribution(G, 1).counts.tolist() == [c for c in np.bincount(G.degrees) if c]
    two = dk_distribution(G, 2).as_dict()
    mix = nx.degree_mixing_dict(G.to_networkx())
    expect = {}
    for a, row in mix.items():
        for b, c in row.items():
            if a <= b:
                expect[(a, b)] = c // 2 if a == b else c
    assert two == expect


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 25), p=st.floats(0.0, 1.0), seed=st.integers(0, 10_000))
def test_3k_matches_brute_force(n: int, p: float, seed: int) -> None:
    G = _graph(n, p, seed)
    three = dk_distribution(G, 3)
    wedges, tris = _brute_3k(G)
    assert three.wedges.as_dict() == dict(wedges)
    assert three.triangles.as_dict() == dict(tris)
    assert three.triangles.total == sum(nx.triangles(G.to_networkx()).values()) // 3


def test_thesis_example_6() -> None:
    # Figure 6.2: A-C, B-C? The example's graph: degrees A2 B1 C4 D2 E2 F1 (p(1,2)=1, p(1,4)=1,
    # p(2,2)=1, p(2,4)=3): edges C-A, C-D, C-E, C-B, A-D, E-F.
    G = Graph.from_edges([2, 2, 2, 2, 0, 4], [0, 3, 4, 1, 3, 5], n_nodes=6)
    assert dk_distribution(G, 1).as_dict() == {(1,): 2, (2,): 3, (4,): 1}
    assert dk_distribution(G, 2).as_dict() == {(1, 2): 1, (1, 4): 1, (2, 2): 1, (2, 4): 3}
    three = dk_distribution(G, 3)
    # one triangle (2, 2, 4) = A, C, D; wedges with centre C, ends of degrees (2, 2) etc.
    assert three.triangles.as_dict() == {(2, 2, 4): 1}
    assert sum(three.wedges.as_dict().values()) + 3 * 1 == sum(
        d * (d - 1) // 2 for d in G.degrees.tolist())


def test_distinct_2k_tuples_polbooks_and_grqc(dataset) -> None:
    from graphanon.io.files import read_graph

    assert dk_distribution(load_polbooks(), 2).n_tuples == 161
    grqc = read_graph(dataset("ca-GrQc/CA-GrQc.txt"))
    assert dk_distribution(grqc, 2).n_tuples == 1233


def test_dense_layout_and_errors() -> None:
    h = 5
    cells = domain_cells(h)
    assert cells.shape == (15, 2)
    np.testing.assert_array_equal(cell_index(cells[:, 0], cells[:, 1], h), np.arange(15))
    D = dk_distribution(load_polbooks(), 2)
    dense = D.to_dense(25)
    assert dense.sum() == 441
    with pytest.raises(InvalidParameterError, match="bound h = 3"):
        D.to_dense(3)
    with pytest.raises(InvalidParameterError, match="'d' parameter of dk_distribution"):
        dk_distribution(load_polbooks(), 4)
