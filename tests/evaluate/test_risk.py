"""Re-identification risk: candidate sets per release semantics, and the k-anonymity bounds."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from graphanon.anonymity import adaptive_anonymize, mondrian, smooth_k_anonymity
from graphanon.anonymity.randomized_response import randomized_response
from graphanon.datasets import load_adult_sample
from graphanon.errors import InvalidParameterError
from graphanon.evaluate.risk import (
    AttackTargets,
    ReleasedRows,
    draw_targets,
    feature_groups,
    reidentification_risk,
)
from graphanon.graph import BipartiteGraph

FEATS = np.array(["a=x", "a=y", "b=x", "b=y"], dtype=object)


def bip(rows: list[list[str]]) -> BipartiteGraph:
    users = np.array([f"u{i}" for i, r in enumerate(rows) for _ in r], dtype=object)
    feats = np.array([f for r in rows for f in r], dtype=object)
    return BipartiteGraph.from_pairs(users, feats,
                                     all_users=np.array([f"u{i}" for i in range(len(rows))],
                                                        dtype=object), all_features=FEATS)


def targets_of(B: BipartiteGraph, user: int, feats: list[str]) -> AttackTargets:
    cols = B.feature_index_of(np.array(feats, dtype=object))
    known = sp.csr_array((np.ones(len(feats)), ([0] * len(feats), cols)),
                         shape=(1, B.n_features))
    return AttackTargets(len(feats), np.array([user]), known,
                         sp.csr_array((1, B.n_features)))


@pytest.fixture
def table() -> BipartiteGraph:
    # four users, two exclusive attributes a and b
    return bip([["a=x", "b=x"], ["a=x", "b=y"], ["a=y", "b=x"], ["a=y", "b=y"]])


def test_feature_groups_are_exclusive_attributes(table: BipartiteGraph) -> None:
    g = feature_groups(table)
    assert g[0] == g[1] and g[2] == g[3] and g[0] != g[2]
    multi = bip([["a=x", "a=y"], ["b=x"]])  # a is multi-valued: no exclusivity
    gm = feature_groups(multi)
    assert gm[0] != gm[1]
    assert feature_groups(load_adult_sample()).max() + 1 == 8


def test_exact_candidates(table: BipartiteGraph) -> None:
    rel = ReleasedRows.from_bipartite("original", "-", "exact", table)
    row = reidentification_risk(table, rel, targets_of(table, 0, ["a=x"]), reference_k=2)
    assert row.median_candidates == 2 and row.mean_link_probability == 0.5
    row = reidentification_risk(table, rel, targets_of(table, 0, ["a=x", "b=x"]),
                                reference_k=2)
    assert row.median_candidates == 1 and row.frac_singled_out == 1.0
    assert row.frac_below_level == 1.0


def test_suppression_keeps_rows_that_lack_but_do_not_contradict(table: BipartiteGraph) -> None:
    # released: user 0 lost a=x (suppressed), user 1 kept a=x, users 2, 3 show a=y
    released = bip([["b=x"], ["a=x", "b=y"], ["a=y", "b=x"], ["a=y"]])
    rel = ReleasedRows.from_bipartite("suppress", "k=2", "suppression", released,
                                      levels=np.full(4, 2))
    row = reidentification_risk(table, rel, targets_of(table, 0, ["a=x"]), reference_k=2)
    assert row.median_candidates == 2  # rows 0 (a suppressed) and 1; rows 2, 3 contradict
    assert row.frac_target_in_candidates == 1.0 and row.mean_link_probability == 0.5


def test_masked_cells_match_anything_and_shown_zeros_rule_out(table: BipartiteGraph) -> None:
    Y = np.array([[-1, 0, 1, 0],   # a masked
                  [1, 0, 0, -1],   # a=x shown
                  [0, -1, 1, 0],   # a=x shown as 0, a=y masked
                  [-1, -1, 0, 1]])  # a masked entirely
    rel = ReleasedRows.from_masked("b-anonymize", "δ=2", Y, levels=np.full(4, 2))
    row = reidentification_risk(table, rel, targets_of(table, 0, ["a=x"]), reference_k=2)
    assert row.median_candidates == 3  # rows 0, 1, 3
    Y2 = Y.copy()
    Y2[3] = [-1, 1, 0, 1]  # row 3 shows a=y: its masked a=x cell is known to be 0
    rel2 = ReleasedRows.from_masked("b-anonymize", "δ=2", Y2, levels=np.full(4, 2))
    row2 = reidentification_risk(table, rel2, targets_of(table, 0, ["a=x"]), reference_k=2)
    assert row2.median_candidates == 2


def test_majority_takes_the_best_matches_even_without_the_target(
        table: BipartiteGraph) -> None:
    # a majority release changed user 0's row to (a=y, b=x). For the known (a=x, b=x) the
    # scores (matches − contradictions) are: row 0: 1 − 1 = 0, row 1: 2, rows 2, 3: −2, so
    # the adversary's single best match is row 1 — the wrong user
    released = bip([["a=y", "b=x"], ["a=x", "b=x"], ["a=y", "b=y"], ["a=y", "b=y"]])
    rel = ReleasedRows.from_bipartite("smooth-k", "k=2", "majority", released,
                                      levels=np.full(4, 2))
    row = reidentification_risk(table, rel, targets_of(table, 0, ["a=x", "b=x"]),
                                reference_k=2)
    assert row.median_candidates == 1 and row.frac_target_in_candidates == 0.0
    assert row.mean_link_probability == 0.0 and row.frac_singled_out == 0.0


def test_release_shape_must_match() -> None:
    B = load_adult_sample()
    other = bip([["a=x"]])
    rel = ReleasedRows.from_bipartite("original", "-", "exact", other)
    with pytest.raises(InvalidParameterError, match="the release is 1 × 4"):
        reidentification_risk(B, rel, draw_targets(B, q=1, n_targets=5,
                                                   rng=np.random.default_rng(0)),
                              reference_k=2)


@pytest.fixture(scope="module")
def adult() -> BipartiteGraph:
    return load_adult_sample()


@pytest.fixture(scope="module")
def adult_targets(adult: BipartiteGraph) -> AttackTargets:
    return draw_targets(adult, q=5, n_targets=300, rng=np.random.default_rng(5))


def test_draw_targets_knows_true_features(adult: BipartiteGraph,
                                         adult_targets: AttackTargets) -> None:
    dense = adult.to_dense()
    known = adult_targets.known.toarray().astype(bool)
    assert (known.sum(axis=1) == 5).all()
    assert dense[adult_targets.users][known].all()
    implied = adult_targets.implied.toarray().astype(bool)
    assert not dense[adult_targets.users][implied].any()  # implied values are true zeros
    assert not (implied & known).any()


@pytest.mark.parametrize("k", [4, 12])
def test_k_anonymous_releases_respect_one_over_k(adult: BipartiteGraph,
                                                 adult_targets: AttackTargets, k: int) -> None:
    rng = np.random.default_rng(k)
    lv = np.full(adult.n_users, k)
    original = reidentification_risk(
        adult, ReleasedRows.from_bipartite("original", "-", "exact", adult), adult_targets,
        reference_k=k)
    assert original.frac_below_level > 0.2 and original.max_link_probability == 1.0
    for name, sem, res in (
            ("smooth-k", "majority", smooth_k_anonymity(adult, k=k, rng=rng)),
            ("suppress", "suppression",
             smooth_k_anonymity(adult, k=k, rng=rng, variant="suppress")),
            ("mondrian", "suppression", mondrian(adult, k=k))):
        row = reidentification_risk(
            adult, ReleasedRows.from_bipartite(name, f"k={k}", sem, res.anonymized, levels=lv),
            adult_targets, reference_k=k)
        assert row.max_link_probability <= 1 / k + 1e-12, name
        assert row.frac_singled_out == 0.0
        assert row.mean_link_probability < original.mean_link_probability
        if sem == "suppression":  # the target's class is always consistent
            assert row.frac_target_in_candidates == 1.0 and row.frac_below_level == 0.0


def test_b_anonymize_respects_one_over_delta(adult: BipartiteGraph) -> None:
    rng = np.random.default_rng(2)
    X = adult.to_dense()[:250].astype(np.int32)
    sub = BipartiteGraph.from_scipy(X, feature_ids=adult.feature_ids)
    delta = np.where(np.arange(250) % 2 == 0, 3, 6)
    res = adaptive_anonymize(X, delta=delta, rng=rng)
    rel = ReleasedRows.from_masked("b-anonymize", "δ∈{3,6}", res.in_original_order(),
                                   levels=res.delta)
    tg = draw_targets(sub, q=5, n_targets=250, rng=rng, groups=feature_groups(adult))
    row = reidentification_risk(sub, rel, tg, reference_k=3, groups=feature_groups(adult))
    assert row.frac_target_in_candidates == 1.0 and row.frac_below_level == 0.0
    assert row.max_link_probability <= 1 / 3 + 1e-12


def test_randomized_response_risk_grows_with_epsilon(adult: BipartiteGraph,
                                                     adult_targets: AttackTargets) -> None:
    rng = np.random.default_rng(9)
    links = []
    for eps in (0.5, 3.0, 12.0):
        res = randomized_response(adult, epsilon=eps, users=adult.user_ids,
                                  features=adult.feature_ids, rng=rng)
        rel = ReleasedRows.from_bipartite(
            "randomized-response", f"ε={eps}", "randomized", res.graph,
            flip=res.release.params["q"], epsilon=res.release.params["epsilon_per_entry"])
        row = reidentification_risk(adult, rel, adult_targets, reference_k=5)
        assert 0.0 <= row.max_link_probability <= 1.0
        assert row.bound >= row.mean_link_probability
        links.append(row.mean_link_probability)
    assert links == sorted(links) and links[0] < 0.01 and links[-1] > 0.15
