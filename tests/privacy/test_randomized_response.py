"""Randomized response: ε formula, per-cell probabilities, sparse sampling, utility collapse."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fake_random import then_random
from scipy import stats

from graphanon.anonymity.randomized_response import (
    _flip_probability,
    randomized_response,
    randomized_response_epsilon,
    randomized_response_probability,
)
from graphanon.datasets import load_adult_sample
from graphanon.errors import InfeasibleError, InvalidParameterError
from graphanon.graph import BipartiteGraph
from graphanon.metrics import edge_set_metrics
from graphanon.privacy.release import keyed_fingerprint


def _rr(B, **kw):
    """Randomized response with the matrix's own rows and columns as the public universe."""
    return randomized_response(B, users=B.user_ids, features=B.feature_ids, **kw)


@pytest.mark.parametrize("eps", [0.01, 0.1, 1.0, 5.0, 10.0])
def test_epsilon_formula_edge(eps):
    p = randomized_response_probability(eps, neighbourhood="edge")
    realized = math.log((1 + p) / (1 - p))
    assert realized == pytest.approx(eps, rel=1e-6)
    assert randomized_response_epsilon(p) == pytest.approx(realized, rel=1e-12)


@pytest.mark.parametrize("eps", [0.01, 1.0, 10.0, 30.0, 60.0])
def test_flip_probability_never_overspends(eps):
    q = _flip_probability(eps, level="edge", n_features=1)
    realized = math.log1p(-q) - math.log(q)
    assert realized <= eps and realized == pytest.approx(eps, rel=1e-9)


def test_epsilon_formula_node_is_f_times_edge():
    F = 57
    p = randomized_response_probability(2.0, neighbourhood="node", n_features=F)
    per_entry = math.log((1 + p) / (1 - p))
    assert F * per_entry <= 2.0 and F * per_entry == pytest.approx(2.0, rel=1e-6)
    assert randomized_response_epsilon(p, neighbourhood="node", n_features=F) == pytest.approx(
        F * randomized_response_epsilon(p, neighbourhood="edge"))


def test_per_cell_probabilities_match_algorithm_1():
    """Repeat a 3 × 4 matrix many times: every cell's frequency of 1 is (1±p)/2."""
    B = BipartiteGraph.from_indices([0, 0, 1, 2], [0, 3, 1, 2], n_users=3, n_features=4)
    dense = B.to_dense()
    rng = np.random.default_rng(2024)
    runs = 3000
    freq = np.zeros((3, 4))
    for _ in range(runs):
        freq += _rr(B, epsilon=1.0, rng=rng).graph.to_dense()
    p = randomized_response_probability(1.0)
    expect = np.where(dense, (1 + p) / 2, (1 - p) / 2)
    z = (freq - runs * expect) / np.sqrt(runs * expect * (1 - expect))
    assert np.abs(z).max() < 4.0


@pytest.mark.parametrize("secure", [False, True])
def test_large_sample_rates_and_uniform_positions(secure):
    rng = np.random.default_rng(7)
    n, F = 3000, 400
    r, c = rng.integers(0, n, 30_000), rng.integers(0, F, 30_000)
    B = BipartiteGraph.from_indices(r, c, n_users=n, n_features=F)
    res = _rr(B, epsilon=3.0, rng=None if secure else np.random.default_rng(1))
    p = res.p
    ones, zeros = B.n_edges, n * F - B.n_edges
    z_keep = (res.kept - ones * (1 + p) / 2) / math.sqrt(ones * (1 - p * p) / 4)
    q = (1 - p) / 2
    z_new = (res.created - zeros * q) / math.sqrt(zeros * q * (1 - q))
    assert abs(z_keep) < 4.5 and abs(z_new) < 4.5
    # created cells are uniform over the 0-cells: column counts vs. expected per column
    dense = B.to_dense()
    out = res.graph.to_dense()
    new_cols = (out & ~dense).sum(axis=0)
    expected = (~dense).sum(axis=0) * new_cols.sum() / zeros
    assert stats.chisquare(new_cols, expected).pvalue > 1e-6  # unseeded when secure
    assert res.release.backend == ("os-urandom" if secure else "numpy-insecure")


@pytest.mark.parametrize(("eps", "n", "F"), [(0.5, 300, 300), (4.0, 2000, 1000),
                                            (12.0, 10_000, 10_000)])
def test_flip_and_creation_rates(eps, n, F):
    """Binomial tests of both coins at a few ε: 1-cells turn 0 and 0-cells turn 1 with q."""
    rng = np.random.default_rng(int(eps * 10))
    cells = rng.choice(n * F, size=min(n * F // 3, 200_000), replace=False)
    B = BipartiteGraph.from_indices(cells // F, cells % F, n_users=n, n_features=F)
    res = _rr(B, epsilon=eps, rng=np.random.default_rng(int(eps * 10) + 1))
    q = _flip_probability(eps, level="edge", n_features=1)
    ones, zeros = B.n_edges, n * F - B.n_edges
    assert stats.binomtest(ones - res.kept, ones, q).pvalue > 1e-3
    assert stats.binomtest(res.created, zeros, q).pvalue > 1e-3




def test_one_cells_flip_at_epsilon_37(monkeypatch):
    """At ε = 37 per cell, q ≈ 8.5·10⁻¹⁷ < 2⁻⁵³: the old keep coin (uniform > q on the 2⁻⁵³
    grid) never flipped a 1-cell, an infinite loss. The exact coin flips with probability q;
    given 52 leading zero bits in its stream (13 zero nibbles, forced here) with q·2⁵²."""
    import os

    n = 20_000
    B = BipartiteGraph.from_indices(np.arange(n), np.zeros(n, dtype=np.int64), n_users=n,
                                    n_features=1)
    monkeypatch.setattr(os, "urandom", then_random(13, b"\0", seed=9))
    res = _rr(B, epsilon=37.0)
    q = _flip_probability(37.0, level="edge", n_features=1)
    assert q < 2.0**-53 and res.release.backend == "os-urandom"
    assert stats.binomtest(n - res.kept, n, q * 2.0**52).pvalue > 1e-3


def test_zero_cells_need_more_than_one_extreme_draw(monkeypatch):
    """The old gap sampler made cell 0 a 1 whenever its first uniform was exactly 1.0
    (probability 2⁻⁵³ ≫ q at ε = 37): one all-ones draw must not create a cell."""
    import os

    B = BipartiteGraph.from_indices([], [], n_users=1, n_features=50)
    for seed in range(5):
        monkeypatch.setattr(os, "urandom", then_random(1, b"\xff", seed=seed))
        assert _rr(B, epsilon=37.0).created == 0


def test_reproducible_with_rng_and_release_record():
    B = load_adult_sample()
    a = _rr(B, epsilon=5.0, rng=np.random.default_rng(3))
    b = _rr(B, epsilon=5.0, rng=np.random.default_rng(3))
    assert a.graph == b.graph
    rel = a.release
    assert rel.mechanism == "randomized-response" and rel.neighbourhood == "edge"
    assert rel.epsilon == 5.0 and rel.sensitivity == 1.0
    assert rel.source_fingerprint == keyed_fingerprint(B.content_hash, rel.release_id)
    assert B.content_hash not in rel.source_fingerprint
    assert f"x {B.n_features} features" in rel.params["universe"]
    node = _rr(B, epsilon=5.0, neighbourhood="node", rng=np.random.default_rng(3))
    assert node.release.sensitivity == B.n_features and node.neighbourhood == "node"
    assert np.array_equal(a.graph.user_ids, B.user_ids)


def test_jaccard_collapses_on_sparse_data_at_moderate_epsilon():
    """Theorem 4.1, qualitatively: J ≈ |E|(1+p)/2 / (|E| + q(N − |E|)) small unless ε large."""
    B = load_adult_sample()
    N, E = B.n_users * B.n_features, B.n_edges
    js = {}
    for eps in (1.0, 5.0, 10.0):
        res = _rr(B, epsilon=eps, rng=np.random.default_rng(int(eps)))
        m = edge_set_metrics(B, res.graph)
        p, q = res.p, (1 - res.p) / 2
        expected = E * (1 + p) / 2 / (E + q * (N - E))
        assert m["jaccard"] == pytest.approx(expected, rel=0.05)
        js[eps] = m["jaccard"]
    assert js[1.0] < 0.35 < js[5.0] < js[10.0]


def test_sparse_sampling_on_a_huge_matrix():
    """A 200k × 200k matrix (4·10^10 cells, 40 GB dense) is sampled without densifying."""
    rng = np.random.default_rng(0)
    n = 200_000
    B = BipartiteGraph.from_indices(rng.integers(0, n, 20_000), rng.integers(0, n, 20_000),
                                    n_users=n, n_features=n)
    res = _rr(B, epsilon=16.0, rng=rng)
    q = (1 - res.p) / 2
    assert res.created == pytest.approx(q * n * n, rel=0.1)
    with pytest.raises(InfeasibleError, match="max_output_cells"):
        _rr(B, epsilon=1.0, rng=rng)


def test_validation():
    B = load_adult_sample()
    with pytest.raises(InvalidParameterError, match="'epsilon' parameter of randomized_response"):
        randomized_response(B, epsilon=0)
    with pytest.raises(InvalidParameterError,
                       match="'neighbourhood' parameter of randomized_response"):
        randomized_response(B, epsilon=1.0, neighbourhood="user")
    with pytest.raises(InvalidParameterError, match="needs a BipartiteGraph"):
        randomized_response([[1]], epsilon=1.0)
    # node level splits ε over the row's cells: a too small total is named by the user's ε
    f = B.n_features
    with pytest.raises(InvalidParameterError,
                       match=rf"'epsilon' parameter of randomized_response \(1e-06\) gives "
                             rf"each of the {f} cells .* use epsilon >= "):
        randomized_response(B, epsilon=1e-6, neighbourhood="node", users=B.user_ids,
                            features=B.feature_ids)


def test_the_universe_is_required_and_public():
    """Issue 13 point 3: {u1: a, u2: a, b} and {u1: a, u2: a} are edge neighbours; read off
    the pairs, feature b appears in the output with probability 0.81 versus 0. With the
    public universe both outputs range over the same cells."""
    with_b = BipartiteGraph.from_pairs(["u1", "u2", "u2"], ["a", "a", "b"])
    without = BipartiteGraph.from_pairs(["u1", "u2"], ["a", "a"])
    with pytest.raises(InvalidParameterError, match="'users' and 'features'"):
        randomized_response(without, epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="'features'"):
        randomized_response(without, epsilon=1.0, users=["u1", "u2"])
    with pytest.raises(InvalidParameterError, match="not in the feature universe"):
        randomized_response(with_b, epsilon=1.0, users=["u1", "u2"], features=["a"])
    rng = np.random.default_rng(5)
    seen = {"with": 0, "without": 0}
    for _ in range(400):
        for name, B in (("with", with_b), ("without", without)):
            out = randomized_response(B, epsilon=1.0, users=["u1", "u2"], features=["a", "b"],
                                      rng=rng).graph
            assert out.feature_ids.tolist() == ["a", "b"]
            seen[name] += int("b" in out.feature_ids[out.indices].tolist())
    # b shows up in both (it is in the public universe) at rates within e^ε of each other
    assert seen["without"] > 50 and seen["with"] > seen["without"]
    assert seen["with"] / seen["without"] < math.exp(2.0)
