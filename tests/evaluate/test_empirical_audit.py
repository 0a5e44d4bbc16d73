"""Empirical privacy audits: valid bounds, tight where the mechanism is tight, and the
mis-calibrated control is caught."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from graphanon.dk.release import dk_query, release_dk
from graphanon.errors import InvalidParameterError
from graphanon.evaluate.empirical_audit import (
    AUDIT_MECHANISMS,
    AuditTarget,
    Candidate,
    ReplayBackend,
    audit_mechanism,
    audit_targets,
    clopper_pearson_upper,
    edge_list_pairs,
    epsilon_lower_bound,
    hub_pairs,
    joined_star_pairs,
    random_edge_pairs,
    random_node_pairs,
)
from graphanon.graph import Graph
from graphanon.nodedp.theta_dk import theta_dk_release
from graphanon.privacy.noise import dp_scale, get_backend
from graphanon.privacy.release import Release


def seeded(seed: int):
    return get_backend("numpy-insecure", rng=np.random.default_rng(seed))


def target(name: str, eps: float = 1.0) -> AuditTarget:
    (t,) = audit_targets(eps, mechanisms=[name])
    return t


# ---------------------------------------------------------------------- statistics
@pytest.mark.parametrize(("k", "n"), [(0, 50), (3, 50), (25, 100), (999, 1000)])
def test_clopper_pearson_is_the_exact_binomial_bound(k: int, n: int) -> None:
    ub = float(clopper_pearson_upper(k, n, 0.05)[0])
    assert k / n < ub < 1
    assert binom.cdf(k, n, ub) == pytest.approx(0.05, rel=1e-6)
    assert float(clopper_pearson_upper(n, n, 0.05)[0]) == 1.0


def test_epsilon_lower_bound_extremes() -> None:
    same = np.zeros(1000)
    assert epsilon_lower_bound(same, same, threshold=0.0)["epsilon_lower_bound"] == 0.0
    # perfect separation: bounded by the sample size, ln(n / ln(2/α)) roughly
    res = epsilon_lower_bound(np.ones(1000), np.zeros(1000), threshold=0.5)
    assert res["false_positives"] == res["false_negatives"] == 0
    assert 5.0 < res["epsilon_lower_bound"] < math.log(1000)


# ---------------------------------------------------------------------- pair families
def test_pair_families_reach_the_sensitivities() -> None:
    h = 5
    pairs = joined_star_pairs(h)
    l1 = [np.abs(dk_query(c.D, d=2, h=h) - dk_query(c.D_prime, d=2, h=h)).sum() for c in pairs]
    assert max(l1) == 4 * h - 3
    l1_1k = [np.abs(dk_query(c.D, d=1, h=h) - dk_query(c.D_prime, d=1, h=h)).sum()
             for c in pairs]
    assert max(l1_1k) == 4
    theta = 3
    changes = []
    for c in hub_pairs(theta):
        ra, rb = ReplayBackend(seeded(0)), ReplayBackend(seeded(0))
        theta_dk_release(c.D, d=1, epsilon=1.0, theta=theta, key=0, backend=ra)
        theta_dk_release(c.D_prime, d=1, epsilon=1.0, theta=theta, key=0, backend=rb)
        changes.append(np.abs(ra.statistic - rb.statistic).sum())
    assert max(changes) == 2 * theta + 1
    # the edge-list pairs (a 100-leaf star and the empty file: 101 with a degree-0 bin)
    pairs = edge_list_pairs(theta)
    assert pairs[0].D.n_nodes == 101 and pairs[0].D_prime.n_nodes == 0
    for d, bound in ((1, 2 * theta + 1), (2, theta * (2 * theta + 1))):
        for c in pairs:
            ra, rb = ReplayBackend(seeded(0)), ReplayBackend(seeded(0))
            theta_dk_release(c.D, d=d, epsilon=1.0, theta=theta, key=0, backend=ra)
            theta_dk_release(c.D_prime, d=d, epsilon=1.0, theta=theta, key=0, backend=rb)
            assert np.abs(ra.statistic - rb.statistic).sum() <= bound, c.description
    (target,) = audit_targets(1.0, mechanisms=["theta-dk1-ead"], theta=theta)
    names = {c.description for c in target.candidates()}
    assert "star with 100 leaves and the empty file" in names


# ---------------------------------------------------------------------- replay backend
def test_replay_repeats_the_mechanisms_own_call() -> None:
    G = joined_star_pairs(4)[-1].D_prime
    rb = ReplayBackend(seeded(1))
    r = release_dk(G, d=2, epsilon=2.0, max_degree=4, form="dense", backend=rb,
                   rng=np.random.default_rng(0))
    assert np.array_equal(rb.noised, r.noisy)
    assert np.array_equal(rb.statistic, dk_query(G, d=2, h=4))
    assert rb.sensitivity == 13.0
    assert np.allclose(rb.scales(), dp_scale(13, 2.0))
    draws = rb.draw(4000)
    assert draws.shape == (4000, 10)
    # centred on the statistic, spread of the calibrated discrete Laplace
    assert np.allclose(draws.mean(axis=0), rb.statistic, atol=0.6)
    a = math.exp(-1 / dp_scale(13, 2.0))
    assert draws.var(axis=0).mean() == pytest.approx(2 * a / (1 - a) ** 2, rel=0.1)


def test_replay_refuses_mechanisms_with_more_randomness() -> None:
    G = hub_pairs(3)[5].D

    def auto_theta(g, backend):  # θ chosen privately: a uniform draw before the noise
        r = theta_dk_release(g, d=1, epsilon=1.0, theta="auto", key=0, backend=backend)
        return r.noisy, r.release

    t = AuditTarget("auto", "release-dk", "node", auto_theta,
                    lambda: [Candidate(G, G, "same")], "n/a")
    with pytest.raises(InvalidParameterError, match="exactly one Laplace noise call"):
        audit_mechanism(t, backend=seeded(0), n_select=10, n_eval=10)


def test_audit_refuses_a_vector_that_is_not_the_noise_output() -> None:
    base = target("dk1-laplace")

    def lying(g, backend):
        noisy, rel = base.mechanism(g, backend)
        return noisy + 1, rel

    t = AuditTarget("lying", "x", "edge", lying, base.candidates, "n/a")
    with pytest.raises(InvalidParameterError, match="not what its noise call returned"):
        audit_mechanism(t, backend=seeded(0), n_select=10, n_eval=10)


def test_audit_refuses_a_release_without_a_claim() -> None:
    base = target("dk1-laplace")

    def no_claim(g, backend):
        noisy, _ = base.mechanism(g, backend)
        return noisy, Release.create(mechanism="plain", neighbourhood="none")

    t = AuditTarget("none", "x", "edge", no_claim, base.candidates, "n/a")
    with pytest.raises(InvalidParameterError, match="claims no differential privacy"):
        audit_mechanism(t, backend=seeded(0), n_select=10, n_eval=10)


# ---------------------------------------------------------------------- the audits
def test_half_sensitivity_control_is_caught() -> None:
    """The acceptance test of issue 18: half the sensitivity, a fixed sample, caught."""
    res = audit_mechanism(target("control-dk1-half-sensitivity", 1.0), backend=seeded(18),
                          n_select=2000, n_eval=10_000, confidence=0.95)
    assert res.control and res.claimed_epsilon == 1.0
    assert res.sensitivity == 2.0 and res.pair_epsilon == pytest.approx(2.0)
    assert res.exceeds_claim
    assert res.empirical_epsilon_lower_bound > 1.5


def test_a_correct_mechanism_is_not_flagged_and_the_bound_is_close() -> None:
    res = audit_mechanism(target("dk1-laplace", 1.0), backend=seeded(18), n_select=2000,
                          n_eval=10_000, confidence=0.95)
    assert not res.exceeds_claim
    assert res.pair_epsilon == pytest.approx(1.0)  # the pair reaches the sensitivity 4
    assert 0.8 < res.empirical_epsilon_lower_bound <= 1.0


def _edge_set(G: Graph) -> set[tuple[int, int]]:
    u, v = G.edges()
    return set(zip(u.tolist(), v.tolist(), strict=True))


def test_random_pairs_are_neighbours() -> None:
    """Random edge pairs: same nodes, one edge fewer, degrees within h; random node pairs:
    one node and its edges fewer. Fixed seed: the same pairs every time."""
    h = 4
    pairs = random_edge_pairs(h)
    assert len(pairs) == 40 and [c.description for c in pairs] == [
        c.description for c in random_edge_pairs(h)]
    for c in pairs:
        assert c.D.n_nodes == c.D_prime.n_nodes and int(c.D.degrees.max()) <= h
        assert _edge_set(c.D_prime) < _edge_set(c.D) and c.D.n_edges == c.D_prime.n_edges + 1
    for c in random_node_pairs(3):
        assert c.D_prime.n_nodes == c.D.n_nodes - 1
        assert c.D.n_edges - c.D_prime.n_edges <= c.D.n_nodes - 1


def test_random_pairs_expose_a_derivation_the_stars_cannot() -> None:
    """A wrong derivation: the triangle count noised for sensitivity 1 (one edge closes up to
    h − 1 triangles). Joined stars have no triangles and hide it; the random edge pairs
    show a pair whose exact loss exceeds the claim, so the audit says so with certainty."""
    h = 4

    def triangles(G: Graph, backend):  # type: ignore[no-untyped-def]
        t = float(G.to_igraph().cliques(3, 3).__len__())
        noisy = backend.laplace(np.array([t]), sensitivity=1.0, epsilon=1.0)
        return noisy, Release.create(mechanism="triangles-wrong", neighbourhood="edge",
                                     epsilon=1.0, sensitivity=1.0,
                                     sensitivity_derivation="WRONG on purpose", params={},
                                     backend=backend.name)

    stars = AuditTarget("triangles", "-", "edge", triangles, lambda: joined_star_pairs(h), "")
    res = audit_mechanism(stars, backend=seeded(3), n_select=200, n_eval=1000)
    assert res.pair_epsilon == 0.0 and not res.pair_exceeds_claim
    both = AuditTarget("triangles", "-", "edge", triangles,
                       lambda: joined_star_pairs(h) + random_edge_pairs(h), "")
    res = audit_mechanism(both, backend=seeded(3), n_select=200, n_eval=1000)
    assert res.pair_epsilon is not None and res.pair_epsilon >= 2.0
    assert res.pair_exceeds_claim and res.to_dict()["pair_exceeds_claim"]


@pytest.mark.parametrize("name", [m for m in AUDIT_MECHANISMS if "control" not in m])
def test_every_audited_mechanism_stays_below_its_claim(name: str) -> None:
    res = audit_mechanism(target(name, 2.0), backend=seeded(7), n_select=1000, n_eval=3000,
                          confidence=0.99)
    assert res.claimed_epsilon == 2.0
    assert 0.3 < res.empirical_epsilon_lower_bound <= 2.0
    if res.pair_epsilon is not None:
        assert res.pair_epsilon <= 2.0 + 1e-9 and not res.pair_exceeds_claim


def test_personalized_claim_is_the_owner_of_the_smallest_epsilon() -> None:
    res = audit_mechanism(target("pdp-min-dk1", 0.5), backend=seeded(3), n_select=500,
                          n_eval=2000)
    assert res.neighbourhood == "personalized-edge"
    assert res.claimed_epsilon == 0.5  # epsilon_summary["min"]; the others have 2.0
    assert res.empirical_epsilon_lower_bound <= 0.5


def test_opendp_backend_is_what_the_audit_uses() -> None:
    res = audit_mechanism(target("dk2-laplace", 1.0), n_select=1000, n_eval=5000,
                          confidence=0.999)
    assert res.backend == "opendp"
    assert "3 and 3 leaves" in res.pair  # the 4h−3 pair at h = 4
    assert res.pair_epsilon == pytest.approx(1.0)
    assert 0.3 < res.empirical_epsilon_lower_bound <= 1.0
    assert set(res.to_dict()) >= {"claimed_epsilon", "empirical_epsilon_lower_bound"}


def test_parameters_are_validated_once() -> None:
    with pytest.raises(InvalidParameterError, match="'n_eval' parameter of audit_mechanism"):
        audit_mechanism(target("dk1-laplace"), n_eval=1)
    with pytest.raises(InvalidParameterError, match="'mechanisms' parameter of audit_targets"):
        audit_targets(1.0, mechanisms=["nope"])


def test_randomized_response_is_audited_with_its_own_coins() -> None:
    res = audit_mechanism(target("randomized-response-edge"), n_select=100, n_eval=300)
    assert res.backend == "os-urandom" and res.mode == "direct" and res.pair_epsilon is None
    seeded_res = audit_mechanism(target("randomized-response-edge"), backend=seeded(1),
                                 n_select=100, n_eval=300)
    assert seeded_res.backend == "numpy-insecure"
