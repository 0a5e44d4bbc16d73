"""Downstream utility: Adult labels and classifiers, synthetic-graph statistics."""

from __future__ import annotations

import math
import random
import sys

import networkx as nx
import numpy as np
import pytest

from graphanon.datasets import data_path, load_adult_sample, load_polbooks
from graphanon.errors import InvalidParameterError
from graphanon.evaluate.utility import (
    adult_utility,
    classifier_scores,
    compare_structure,
    double_sweep_diameter,
    eigenvector_centrality,
    graph_statistics,
    load_adult_labeled,
    louvain_communities,
    require_sklearn,
    social_utility,
    split_users,
    structure_statistics,
)
from graphanon.graph import Graph
from graphanon.metrics import KL_SMOOTHING, kl_divergence, relative_error
from graphanon.privacy.noise import get_backend


def test_adult_labels_are_aligned_and_not_features() -> None:
    B, y = load_adult_labeled()
    assert B == load_adult_sample()  # the same graph as the preset's sample
    lines = data_path("adult_sample.csv").read_text().splitlines()[1:]
    expected = np.array([1 if line.endswith(">50K") else 0 for line in lines])
    assert np.array_equal(y, expected)
    assert not any(str(f).startswith("income") for f in B.feature_ids)


def test_adult_labels_of_the_headerless_uci_file(tmp_path) -> None:
    rows = data_path("adult_sample.csv").read_text().splitlines()[1:6]
    p = tmp_path / "adult.data"
    p.write_text("\n".join(r.replace(",", ", ") for r in rows) + "\n39, ?, 1, Bachelors, 13, "
                 "Never-married, Adm-clerical, Not-in-family, White, Male, 0, 0, 40, "
                 "United-States, >50K.\n")
    B, y = load_adult_labeled(p)
    assert B.n_users == 5 and y.size == 5  # the record with a missing value is dropped
    with pytest.raises(InvalidParameterError, match="does not exist"):
        load_adult_labeled(tmp_path / "missing.data")


def test_split_is_stratified_and_disjoint() -> None:
    y = np.array([0] * 70 + [1] * 30)
    tr, te = split_users(y, test_fraction=0.3, rng=np.random.default_rng(0))
    assert np.intersect1d(tr, te).size == 0 and tr.size + te.size == 100
    assert y[te].sum() == 9 and te.size == 30


def test_missing_sklearn_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sklearn", None)
    with pytest.raises(InvalidParameterError, match=r"pip install 'graphanon\[eval\]'"):
        require_sklearn()


def test_classifier_learns_income() -> None:
    B, y = load_adult_labeled()
    X = B.to_dense()
    for clf in ("logistic", "gradient-boosting"):
        acc, auc = classifier_scores(X[:1400], y[:1400], X[1400:], y[1400:], classifier=clf)
        assert auc > 0.8 and acc > 0.75


def test_adult_utility_rows() -> None:
    B, y = load_adult_labeled()
    scores = adult_utility(B, y, ks=(8,), epsilons=(0.2, 10.0), classifiers=("logistic",),
                           b_anonymize_max_users=100, rng=np.random.default_rng(1),
                           backend=get_backend("numpy-insecure", rng=np.random.default_rng(2)))
    by = {(s.mechanism, s.parameter): s for s in scores}
    assert set(by) == {("original", "-"), ("smooth-k", "k=8"), ("suppress", "k=8"),
                       ("mondrian", "k=8"), ("b-anonymize", "δ=8"),
                       ("randomized-response", "ε=0.2"), ("randomized-response", "ε=10")}
    assert "skipped" in by[("b-anonymize", "δ=8")].notes
    assert by[("original", "-")].auc > 0.8
    # ε = 0.2 per cell is almost pure noise; ε = 10 is almost the original
    assert by[("randomized-response", "ε=0.2")].auc < by[("randomized-response", "ε=10")].auc
    assert abs(by[("randomized-response", "ε=10")].auc - by[("original", "-")].auc) < 0.02


def test_graph_statistics_match_networkx() -> None:
    G = load_polbooks()
    st = graph_statistics(G, rng=np.random.default_rng(0), n_sources=G.n_nodes)
    nxg = G.to_networkx()
    assert st["avg_clustering"] == pytest.approx(nx.average_clustering(nxg))
    assert st["assortativity"] == pytest.approx(nx.degree_assortativity_coefficient(nxg))
    assert st["avg_path_length"] == pytest.approx(nx.average_shortest_path_length(nxg))
    assert st["lcc_fraction"] == 1.0 and st["n_edges"] == 441


def test_social_utility_rows() -> None:
    G = load_polbooks()
    orig, rows = social_utility(
        G, epsilons=(10.0,), mechanisms=("dk1-edge", "dk2-mpdc-edge", "theta-dk1-node"),
        max_degree=16, theta=8, n_sources=20, max_synthetic_edges=5000,
        backend=get_backend("numpy-insecure", rng=np.random.default_rng(3)),
        rng=np.random.default_rng(4))
    assert orig["n_edges"] == 441
    exact = rows[0]
    assert exact.epsilon is None and exact.degree_ks == pytest.approx(0.0)  # 2K realized
    assert [r.mechanism for r in rows[1:]] == ["dk1-edge", "dk2-mpdc-edge", "theta-dk1-node"]
    for r in rows[1:]:
        assert r.release["epsilon"] == 10.0 and r.n_edges > 0 and 0 <= r.degree_ks <= 1
    _, tiny = social_utility(G, epsilons=(10.0,), mechanisms=("dk1-edge",), max_degree=16,
                             max_synthetic_edges=10, n_sources=5,
                             backend=get_backend("numpy-insecure",
                                                 rng=np.random.default_rng(3)),
                             rng=np.random.default_rng(4))
    assert all("not generated" in r.notes for r in tiny)


# ---------------------------------------------------------------------- synthetic-graph metrics
def _two_triangles() -> Graph:
    """Triangles {0,1,2} and {3,4,5} joined by the edge 2-3: 7 edges, 2 triangles, 10
    connected triples (transitivity 0.6), diameter 3 (0-2-3-5)."""
    return Graph.from_edges([0, 1, 0, 3, 4, 3, 2], [1, 2, 2, 4, 5, 5, 3], n_nodes=6)


def _cycle(n: int) -> Graph:
    return Graph.from_edges(np.arange(n), (np.arange(n) + 1) % n, n_nodes=n)


def test_kl_divergence_and_relative_error_known_values() -> None:
    assert kl_divergence([3, 1, 2], [3, 1, 2]) == 0.0
    assert kl_divergence([3, 1, 2], [6, 2, 4]) == pytest.approx(0.0, abs=1e-12)  # normalized
    # P = (1/2, 1/2), Q = (1/4, 3/4)
    assert kl_divergence([1, 1], [1, 3]) == pytest.approx(0.5 * math.log(2) + 0.5 * math.log(2 / 3))
    # a bin that Q lacks: P_i ln((P_i + s) / s), s = machine epsilon
    s = KL_SMOOTHING
    want = 0.5 * math.log((0.5 + s) / (1 + s)) + 0.5 * math.log((0.5 + s) / s)
    assert kl_divergence([1, 1], [2]) == pytest.approx(want)
    assert kl_divergence([1, 1], [2]) > 17  # large: the release misses half the mass
    assert kl_divergence([2], [1, 1]) == pytest.approx(math.log(2))  # zero-padded domain
    assert math.isnan(kl_divergence([], [1]))
    assert relative_error(4.0, 5.0) == 0.25 and relative_error(-2.0, -1.0) == 0.5
    assert relative_error(0.0, 0.0) == 0.0
    assert math.isnan(relative_error(0.0, 1.0)) and math.isnan(relative_error(1.0, math.nan))


def test_structure_statistics_match_networkx() -> None:
    G = load_polbooks()
    st = structure_statistics(G, rng=np.random.default_rng(0), n_sources=G.n_nodes)
    nxg = nx.convert_node_labels_to_integers(G.to_networkx(), ordering="default")
    assert st.transitivity == pytest.approx(nx.transitivity(nxg))
    assert st.diameter == nx.diameter(nxg)
    assert st.avg_path_length == pytest.approx(nx.average_shortest_path_length(nxg))
    parts = [set(np.flatnonzero(st.membership == c).tolist())
             for c in np.unique(st.membership)]
    assert st.modularity == pytest.approx(nx.community.modularity(nxg, parts))
    assert st.modularity > 0.4  # polbooks has clear communities
    ref = nx.eigenvector_centrality_numpy(nxg)
    assert st.centrality == pytest.approx(np.array([ref[i] for i in range(G.n_nodes)]),
                                          abs=1e-6)


def test_louvain_is_seeded_and_leaves_random_alone() -> None:
    g = load_polbooks().to_igraph()
    a, qa = louvain_communities(g, seed=7)
    random.seed(123)
    x = random.random()
    b, qb = louvain_communities(g, seed=7)
    assert np.array_equal(a, b) and qa == qb
    random.seed(123)
    assert random.random() == x  # Python's generator is not the one igraph was given
    m, q = louvain_communities(Graph.from_edges([], [], n_nodes=3).to_igraph())
    assert m.size == 3 and math.isnan(q)


def test_double_sweep_diameter_takes_the_largest_component() -> None:
    rng = np.random.default_rng(0)
    path = Graph.from_edges(np.arange(9), np.arange(1, 10), n_nodes=10)
    assert double_sweep_diameter(path.to_igraph(), rng=rng) == 9
    # a long path (diameter 6) beside a triangle and an isolated node
    G = Graph.from_edges([0, 1, 2, 3, 4, 5, 7, 8, 9], [1, 2, 3, 4, 5, 6, 8, 9, 7], n_nodes=11)
    assert double_sweep_diameter(G.to_igraph(), rng=rng, sweeps=1) == 6
    assert double_sweep_diameter(Graph.from_edges([], [], n_nodes=4).to_igraph(), rng=rng) == 0


def test_eigenvector_centrality_has_unit_norm() -> None:
    c = eigenvector_centrality(_two_triangles().to_igraph())
    assert np.linalg.norm(c) == pytest.approx(1.0)
    assert c[2] == pytest.approx(c[3]) and c[2] > c[0]  # the bridge ends are central
    assert not eigenvector_centrality(Graph.from_edges([], [], n_nodes=2).to_igraph()).any()


def test_compare_structure_of_a_graph_with_itself() -> None:
    G = load_polbooks()
    a = structure_statistics(G, rng=np.random.default_rng(0))
    b = structure_statistics(G, rng=np.random.default_rng(1))  # other BFS sources
    m = compare_structure(a, b, aligned=True)
    for k in ("edges_rel", "degree_ks", "degree_kl", "transitivity_rel",
              "avg_clustering_rel", "modularity_rel", "assortativity_abs", "diameter_rel"):
        assert m[k] == pytest.approx(0.0, abs=1e-12), k
    assert m["nmi"] == pytest.approx(1.0) and m["evc_overlap"] == 1.0
    assert m["evc_mae"] == pytest.approx(0.0, abs=1e-12)
    assert m["path_length_rel"] < 0.05  # sampled sources differ
    un = compare_structure(a, b, aligned=False)
    assert math.isnan(un["nmi"]) and math.isnan(un["evc_overlap"])
    assert un["evc_mae"] == m["evc_mae"]


def test_compare_structure_known_values() -> None:
    rng = np.random.default_rng(0)
    orig = structure_statistics(_two_triangles(), rng=rng)
    star = Graph.from_edges([0, 0, 0, 0, 0], [1, 2, 3, 4, 5], n_nodes=6)
    syn = structure_statistics(star, rng=rng)
    assert orig.transitivity == pytest.approx(0.6) and orig.diameter == 3
    m = compare_structure(orig, syn, aligned=True)
    assert m["edges_rel"] == pytest.approx(2 / 7)
    assert m["transitivity_rel"] == pytest.approx(1.0)  # a star has no triangle
    assert m["avg_clustering_rel"] == pytest.approx(1.0)
    assert m["diameter_rel"] == pytest.approx(1 / 3)  # 2 against 3
    # degree histograms (0, 0, 4, 2) and (0, 5, 0, 0, 0, 1): CDFs 0 and 5/6 at degree 1
    assert m["degree_ks"] == pytest.approx(5 / 6)
    s = KL_SMOOTHING
    assert m["degree_kl"] == pytest.approx(2 / 3 * math.log((2 / 3 + s) / s)
                                           + 1 / 3 * math.log((1 / 3 + s) / s))
    # the top 1 % of 6 nodes is one node: a bridge end (2 or 3) against the star's centre 0,
    # whose unit-norm centrality is 1/sqrt(2)
    assert m["evc_overlap"] == 0.0
    assert m["evc_mae"] == pytest.approx(abs(orig.centrality.max() - 1 / math.sqrt(2)))
    assert 0.0 <= m["nmi"] < 1.0
    same = compare_structure(syn, structure_statistics(star, rng=rng), aligned=True)
    assert same["evc_overlap"] == 1.0 and same["nmi"] == pytest.approx(1.0)
    with pytest.raises(InvalidParameterError, match="node-aligned"):
        compare_structure(orig, structure_statistics(_cycle(5), rng=rng), aligned=True)
