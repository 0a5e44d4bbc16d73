"""Downstream utility: Adult labels and classifiers, synthetic-graph statistics."""

from __future__ import annotations

import sys

import networkx as nx
import numpy as np
import pytest

from graphanon.datasets import data_path, load_adult_sample, load_polbooks
from graphanon.errors import InvalidParameterError
from graphanon.evaluate.utility import (
    adult_utility,
    classifier_scores,
    graph_statistics,
    load_adult_labeled,
    require_sklearn,
    social_utility,
    split_users,
)
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
