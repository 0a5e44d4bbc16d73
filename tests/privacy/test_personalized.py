"""Personalized DP (thesis chapter 8): preferences, audits of every mechanism, amplification."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from graphanon.cli import main
from graphanon.datasets import load_polbooks
from graphanon.dk.personalized import (
    PersonalizedCalibrationWarning,
    amplified_epsilon,
    inclusion_probability,
    l1_sensitivity,
    mu_for_sample_fraction,
    personalized_query,
    release_personalized,
)
from graphanon.dk.preferences import (
    Preferences,
    from_attribute,
    from_pairs,
    group_labels,
    thesis_scheme,
)
from graphanon.dk.release import dk_query
from graphanon.errors import InvalidParameterError
from graphanon.graph import Graph
from graphanon.nodedp.projection import edge_addition
from graphanon.privacy.noise import (
    InsecureNoiseWarning,
    discrete_laplace_pmf,
    dp_scale,
    get_backend,
)
from graphanon.privacy.sensitivity_audit import audit_personalized, random_graphs, small_graphs
from graphanon.reproduce.personalized_thesis import (
    personalized_query_thesis,
    release_personalized_thesis,
    thesis_sensitivity,
)

EPS_PATTERN = np.array([0.05, 1.0, 0.3, 0.7, 0.1])
EPS_MIN, MU = 0.05, 0.5


def with_eps(G: Graph) -> Graph:
    ids = np.asarray(G.node_ids, dtype=np.int64)
    return G.with_attribute("epsilon", EPS_PATTERN[ids % EPS_PATTERN.size])


def eps_of(G: Graph) -> np.ndarray:
    return np.asarray(G.attributes["epsilon"], dtype=np.float64)


@pytest.fixture(scope="module")
def family() -> list[Graph]:
    graphs = [g for g in small_graphs() if 2 <= g.n_nodes <= 5 or g.n_nodes >= 6]
    graphs = graphs + random_graphs((30,), rng=np.random.default_rng(5))
    return [with_eps(g) for g in graphs]


def _query(method: str, d: int, privacy: str, h: int, calibration: str = "strict"):
    def q(G: Graph):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InsecureNoiseWarning)
            return personalized_query_thesis(
                G, eps_of(G), d=d, privacy=privacy, method=method, h=h, eps_min=EPS_MIN,
                mu=MU, k=2, calibration=calibration, key=12345, sample=False)
    return q


def _audit(method, d, privacy, h, family, epsilons, calibration="strict"):
    q = _query(method, d, privacy, h, calibration)
    return audit_personalized(lambda G: q(G).values, lambda G: q(G).scales, epsilons, family,
                              neighbourhood=privacy, n_samples=40,
                              rng=np.random.default_rng(0))


# ---------------------------------------------------------------------- preferences
def test_thesis_scheme_fractions_and_ranges():
    ids = np.arange(10_000)
    P = thesis_scheme(ids, rng=np.random.default_rng(0))
    lab = group_labels(P.epsilons)
    assert (lab == "conservative").mean() == pytest.approx(0.54, abs=1e-3)
    assert (lab == "moderate").mean() == pytest.approx(0.37, abs=1e-3)
    cons = P.epsilons[lab == "conservative"]
    assert cons.min() >= 0.01 and cons.max() < 0.2
    # conservative ε uniform on [0.01, 0.2]
    assert stats.kstest(cons, stats.uniform(0.01, 0.19).cdf).pvalue > 1e-3
    assert np.all(P.epsilons[lab == "liberal"] == 1.0)
    assert P.default == 0.01 and P.epsilon_min == 0.01  # the default counts in ε_min


def test_preferences_from_attribute_and_defaults():
    G = Graph.from_edges([0, 1], [1, 2], n_nodes=3, node_ids=np.array([10, 11, 12]))
    G = G.with_attribute("eps", np.array([0.5, None, 2.0], dtype=object))
    P = from_attribute(G, "eps")
    assert P.default == 0.5  # smallest listed
    assert P.for_graph(G).tolist() == [0.5, 0.5, 2.0]
    assert P.n_missing(G) == 1
    P2 = from_pairs(["10", "12"], [0.3, 0.9], default=0.2)
    assert P2.for_graph(G).tolist() == [0.3, 0.2, 0.9]
    assert P2.epsilon_min == 0.2 and P2.resolve_mu("max") == 0.9
    assert P2.resolve_mu("avg") == pytest.approx(0.6)
    with pytest.raises(InvalidParameterError, match=r"float in \[1e-06, 100\]"):
        from_pairs([1], [0.0])
    with pytest.raises(InvalidParameterError, match="no node attribute"):
        from_attribute(G, "missing")
    with pytest.raises(InvalidParameterError, match="'mu'"):
        P2.resolve_mu("median")
    # μ is an ε: out of its range it is refused here, by name (not deep in the noise)
    for mu in (1e9, "1e9", 1e-9):
        with pytest.raises(InvalidParameterError, match=r"'mu' parameter .*\[1e-06, 100\]"):
            P2.resolve_mu(mu)


# ---------------------------------------------------------------------- sampling maths
def test_inclusion_probability_amplifies_to_the_preference():
    eps = np.array([0.01, 0.1, 0.49, 0.5, 2.0])
    p = inclusion_probability(eps, 0.5)
    assert p[-2:].tolist() == [1.0, 1.0]
    np.testing.assert_allclose(amplified_epsilon(p, 0.5), np.minimum(eps, 0.5), rtol=1e-12)


@pytest.mark.parametrize("mu,eps", [(1.0, 0.05), (0.5, 0.2), (2.0, 0.01)])
def test_amplification_bound_is_exact_on_discrete_laplace(mu, eps):
    """Exact log-ratio of the sampled mechanism: max over outputs = ln(1 + p(e^μ − 1))."""
    b = dp_scale(1, mu)  # μ-DP for a unit change
    p = float(inclusion_probability(eps, mu))
    y = np.arange(-60, 61)
    with_r = p * discrete_laplace_pmf(y - 1, b) + (1 - p) * discrete_laplace_pmf(y, b)
    without = discrete_laplace_pmf(y, b)
    loss = np.abs(np.log(with_r / without)).max()
    bound = float(amplified_epsilon(p, 1 / b))
    assert loss <= bound + 1e-12
    assert loss == pytest.approx(bound, rel=1e-9)  # attained for y >= 1
    assert bound <= eps + 1e-9


def test_mu_for_sample_fraction_is_public_and_monotone():
    P = thesis_scheme(np.arange(1000), rng=np.random.default_rng(1))
    mus = [mu_for_sample_fraction(P, m) for m in (0.4, 0.5, 0.7)]
    assert mus[0] > mus[1] > mus[2]
    assert mu_for_sample_fraction(P, 0.1) == P.epsilon_max  # μ = max already keeps more
    for m, mu in zip((0.4, 0.5, 0.7), mus, strict=True):
        assert inclusion_probability(P.universe, mu).mean() == pytest.approx(m, abs=1e-6)


# ---------------------------------------------------------------------- personalized audits
@pytest.mark.parametrize("privacy,h", [("edge", 4), ("node", 3)])
@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("method", ["min", "ll", "ag"])
def test_strict_global_level_mechanisms_pass_at_eps_min(family, method, d, privacy, h):
    res = _audit(method, d, privacy, h, family, lambda G: np.full(G.n_nodes, EPS_MIN))
    assert res.passed, res.worst
    assert res.max_loss_ratio > 0.1  # the audit does reach large losses


@pytest.mark.parametrize("privacy,h", [("edge", 4), ("node", 3)])
@pytest.mark.parametrize("d", [1, 2])
def test_strict_tp_gives_zero_below_mu_and_mu_above(family, d, privacy, h):
    # guaranteed ε: 0 for ε < μ (the loss must be exactly 0), μ otherwise
    res = _audit("tp", d, privacy, h, family,
                 lambda G: np.where(eps_of(G) >= MU, MU, 0.0))
    assert res.passed, res.worst


@pytest.mark.parametrize("privacy,h", [("edge", 4), ("node", 3)])
@pytest.mark.parametrize("d", [1, 2])
def test_strict_st_inner_mechanism_is_mu_dp(family, d, privacy, h):
    # conditional on the other coins the sample changes by the one record: inner loss <= μ,
    # amplified to ln(1 + p(e^μ − 1)) = min(ε, μ) (test above)
    res = _audit("st", d, privacy, h, family, lambda G: np.full(G.n_nodes, MU))
    assert res.passed, res.worst


@pytest.mark.parametrize("method", ["min", "ll", "tp", "st", "ag"])
def test_thesis_calibrations_fail_the_audit(family, method):
    res = _audit(method, 1, "edge", 4, family, eps_of, calibration="thesis")
    assert not res.passed


@pytest.mark.parametrize("privacy,d", [("edge", 1), ("edge", 2), ("node", 1), ("node", 2)])
def test_per_entry_sensitivity_of_lemmas_10_13_is_not_an_l1_bound(family, privacy, d):
    """PDP_min over the full public domain with the thesis's per-entry sensitivity."""
    h = 4 if privacy == "edge" else 3
    scale = thesis_sensitivity(d, h, privacy) / EPS_MIN
    q = _query("min", d, privacy, h)
    res = audit_personalized(lambda G: q(G).values, lambda G: np.full(q(G).values.size, scale),
                             lambda G: np.full(G.n_nodes, EPS_MIN), family,
                             neighbourhood=privacy, n_samples=40, rng=np.random.default_rng(0))
    assert not res.passed and res.max_loss_ratio > 1.1
    assert l1_sensitivity(d, h, privacy) > thesis_sensitivity(d, h, privacy)


def test_thesis_tp_order_leaks_dropped_nodes_under_node_pdp(family):
    """Project-then-truncate: a dropped (ε < μ) node still changes the output."""
    h = 2

    def f(G):
        return dk_query(edge_addition(G, theta=h, key=7).graph.subgraph(eps_of(G) >= MU),
                        d=1, h=h)

    res = audit_personalized(f, lambda G: np.full(h + 1, dp_scale(2 * h + 1, MU)),
                             lambda G: np.where(eps_of(G) >= MU, MU, 0.0), family,
                             neighbourhood="node", n_samples=40, rng=np.random.default_rng(0))
    assert not res.passed and "remove node" in res.worst


def _exact_loss(x_g, x_h_options, probs, scale):
    """max |log P_G(y)/P_H(y)| over a grid; H's output is a mixture over the coin outcomes."""
    grid = np.arange(-40, 41)
    ys = np.stack(np.meshgrid(*([grid] * x_g.size), indexing="ij"), -1).reshape(-1, x_g.size)
    pg = np.prod(discrete_laplace_pmf(ys - x_g, scale), axis=1)
    ph = sum(p * np.prod(discrete_laplace_pmf(ys - xh, scale), axis=1)
             for p, xh in zip(probs, x_h_options, strict=True))
    return float(np.abs(np.log(pg / ph)).max())


def test_thesis_unit_sampling_leaks_through_the_liberal_endpoint():
    """u (ε=0.01) gains edge uv; v is liberal (p_v = 1), so v's unit moves bins for sure."""
    mu, eps_u = 1.0, 0.01
    p_u = float(inclusion_probability(eps_u, mu))
    scale = thesis_sensitivity(1, 2, "edge") / mu
    # nodes u, v, w; G: v–w. 1K units over bins 0..2: u (deg 0, kept w.p. p_u), v, w (deg 1)
    # G: with u kept (p_u) [1,2,0], without [0,2,0]; G+uv: kept [0,2,1], without [0,1,1]
    grid_loss_g = _exact_loss(np.array([1, 2, 0]), [np.array([0, 2, 1])], [1.0], scale)
    assert grid_loss_g > 0  # sanity
    # marginalize u's coin on both sides: compare the two mixtures
    grid = np.arange(-30, 31)
    ys = np.stack(np.meshgrid(grid, grid, grid, indexing="ij"), -1).reshape(-1, 3)

    def mix(opts):
        return sum(p * np.prod(discrete_laplace_pmf(ys - np.array(x), scale), axis=1)
                   for p, x in opts)

    pg = mix([(p_u, [1, 2, 0]), (1 - p_u, [0, 2, 0])])
    ph = mix([(p_u, [0, 2, 1]), (1 - p_u, [0, 1, 1])])
    loss = float(np.abs(np.log(pg / ph)).max())
    assert loss > 50 * eps_u  # leaks at ~μ, not at ε_u

    # strict ST on the same pair: the edge record uv is kept w.p. π(min(ε_u, ε_v)) = p_u
    s = dp_scale(l1_sensitivity(1, 2, "edge"), mu)
    pg2 = mix_strict = np.prod(discrete_laplace_pmf(ys - np.array([1, 2, 0]), s), axis=1)
    ph2 = (p_u * np.prod(discrete_laplace_pmf(ys - np.array([0, 1, 2]), s), axis=1)
           + (1 - p_u) * mix_strict)
    assert float(np.abs(np.log(pg2 / ph2)).max()) <= eps_u + 1e-12


def test_st_sampling_rate_matches_the_inclusion_probability():
    G = load_polbooks()
    P = thesis_scheme(G.node_ids, rng=np.random.default_rng(2))
    eps = P.for_graph(G)
    u, v = G.edges()
    p = inclusion_probability(np.minimum(eps[u], eps[v]), 0.5)
    kept = []
    rng = np.random.default_rng(3)
    for _ in range(40):
        q = personalized_query(G, eps, d=2, privacy="edge", method="st", h=20, eps_min=0.01,
                               mu=0.5, sample=True, rng=rng)
        kept.append(q.info["sampled_records"][0])
    # sum of Bernoulli(p): mean Σp, variance Σp(1−p)
    z = (np.mean(kept) - p.sum()) / math.sqrt((p * (1 - p)).sum() / len(kept))
    assert abs(z) < 4


# ---------------------------------------------------------------------- releases
@pytest.fixture(scope="module")
def polbooks():
    G = load_polbooks()
    return G, thesis_scheme(G.node_ids, rng=np.random.default_rng(4))


@pytest.mark.parametrize("method", ["min", "ll", "tp", "st", "ag"])
def test_strict_release_record_and_guarantee(polbooks, method):
    G, _ = polbooks
    # node-PDP needs a table over a public universe, not one drawn over the graph's nodes
    P = thesis_scheme(np.concatenate([G.node_ids, np.arange(1000, 1020)]),
                      rng=np.random.default_rng(4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        r = release_personalized(G, P, d=1, neighbourhood="node", method=method, theta=8,
                                 k=3 if method == "ag" else None,
                                 mu="avg" if method in ("tp", "st") else None,
                                 rng=np.random.default_rng(1), seed=1,
                                 backend=get_backend("numpy-insecure",
                                                     rng=np.random.default_rng(1)))
    rec = r.release
    assert rec.neighbourhood == "personalized-node" and rec.epsilon is None
    assert r.guaranteed is not None and np.all(r.guaranteed <= r.requested + 1e-12)
    assert rec.epsilon_summary["max"] <= P.epsilon_max
    assert set(r.groups) == {"conservative", "moderate", "liberal"}
    assert r.groups["liberal"]["n_nodes"] > 0
    assert {"l1", "ks"} <= set(r.evaluation)
    assert rec.params["calibration"] == "strict"


def test_opendp_backend_release(polbooks):
    G, P = polbooks
    r = release_personalized(G, P, d=2, neighbourhood="edge", method="ag", theta=10, k=4,
                             nodes=G.node_ids)
    assert r.release.backend == "opendp" and r.release.seed is None
    assert r.table.kind == "joint_degree"


def test_thesis_release_warns_and_claims_nothing(polbooks):
    G, P = polbooks
    with pytest.warns(PersonalizedCalibrationWarning), warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        r = release_personalized_thesis(G, P, d=2, neighbourhood="edge", method="ll", theta=10,
                                        nodes=G.node_ids, rng=np.random.default_rng(0),
                                        backend=get_backend("numpy-insecure",
                                                            rng=np.random.default_rng(0)))
    assert r.release.neighbourhood == "none" and r.guaranteed is None
    assert "NO PRIVACY CLAIM" in r.release.sensitivity_derivation
    assert r.release.mechanism.endswith("-thesis-insecure")
    # the old keyword reaches the reproduction, with a deprecation warning
    with pytest.warns(DeprecationWarning, match="personalized_thesis"), \
            pytest.warns(PersonalizedCalibrationWarning), warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        old = release_personalized(G, P, d=1, neighbourhood="node", method="min", theta=5,
                                   calibration="thesis",
                                   backend=get_backend("numpy-insecure",
                                                       rng=np.random.default_rng(0)))
    assert old.release.neighbourhood == "none"
    with pytest.warns(DeprecationWarning, match="moved to graphanon.reproduce"):
        from graphanon.dk import personalized as module

        assert module.thesis_sensitivity(1, 3, "edge") == 2.0


def test_bad_parameters(polbooks):
    G, P = polbooks
    with pytest.raises(InvalidParameterError, match="'theta'"):
        release_personalized(G, P, d=1, neighbourhood="node", method="min")
    with pytest.raises(InvalidParameterError, match="'k'"):
        release_personalized(G, P, d=1, neighbourhood="edge", method="ag", theta=5,
                             nodes=G.node_ids)
    with pytest.raises(InvalidParameterError, match="'method'"):
        release_personalized(G, P, d=1, neighbourhood="edge", method="xx", theta=5)
    with pytest.raises(InvalidParameterError, match=r"'nodes' parameter .* required for edge"):
        release_personalized(G, P, d=1, neighbourhood="edge", method="min", theta=5)
    with pytest.raises(InvalidParameterError, match=r"'nodes' parameter .* edge-PDP only"):
        release_personalized(G, P, d=1, neighbourhood="node", method="min", theta=5,
                             nodes=G.node_ids)
    with pytest.raises(InvalidParameterError, match="'prefs'"):
        release_personalized(G, {"a": 1}, d=1, neighbourhood="edge", method="min", theta=5)
    # a parameter the method does not use is refused, not ignored
    with pytest.raises(InvalidParameterError,
                       match=r"'k' parameter of release_personalized applies to method='ag' "
                             r"only \(here method='min'\)"):
        release_personalized(G, P, d=1, neighbourhood="node", method="min", theta=5, k=3)
    with pytest.raises(InvalidParameterError,
                       match=r"'mu' parameter of release_personalized applies to "
                             r"method='tp' or method='st' only \(here method='ag'\)"):
        release_personalized(G, P, d=1, neighbourhood="node", method="ag", theta=5, k=3, mu=0.5)
    assert isinstance(P, Preferences)


def test_demo_step(tmp_path):
    from graphanon.datasets import load_adult_sample
    from graphanon.demos.job import DEMO_STEPS, DemoContext
    from graphanon.demos.personalized import step_personalized
    from graphanon.reporting import Report

    assert dict(DEMO_STEPS)["personalized"] == "graphanon.demos.personalized:step_personalized"
    ctx = DemoContext(tmp_path, 1, Report("t", tmp_path), load_polbooks(), load_adult_sample())
    section = step_personalized(ctx)
    rows = section.tables[0].rows
    assert len(rows) == 10
    assert {r[1] for r in rows} == {"strict", "thesis"}
    assert all(r[2] == "none" for r in rows if r[1] == "thesis")


@pytest.mark.parametrize("method", ["min", "tp", "st", "ag"])
def test_node_pdp_metadata_does_not_depend_on_which_nodes_exist(method):
    """The published ε summary and groups describe the public table, not G's node set."""
    G = Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], node_ids=np.arange(5))
    Gv = Graph.from_edges([0, 1, 2, 3, 4], [1, 2, 3, 4, 5], node_ids=np.arange(6))
    P = from_pairs(np.arange(8), [0.1, 0.5, 0.1, 0.5, 0.1, 0.9, 0.1, 0.5], default=0.1)
    out = []
    for H in (G, Gv):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InsecureNoiseWarning)
            r = release_personalized(H, P, d=1, neighbourhood="node", method=method, theta=3,
                                     k=2 if method == "ag" else None,
                                     mu=0.5 if method in ("tp", "st") else None,
                                     rng=np.random.default_rng(0),
                                     backend=get_backend("numpy-insecure",
                                                         rng=np.random.default_rng(0)))
        params = {k: v for k, v in r.release.params.items() if k != "degree_bounding"}
        out.append((r.release.epsilon_summary, params, r.groups))
    assert out[0] == out[1]


def test_node_pdp_refuses_graph_derived_preferences(tmp_path):
    G = Graph.from_edges([0, 1], [1, 2], attributes={"eps": [0.1, 0.5, 1.0]})
    with pytest.raises(InvalidParameterError, match="node-PDP"):
        release_personalized(G, from_attribute(G, "eps"), d=1, neighbourhood="node", method="min",
                             theta=2)
    with pytest.raises(InvalidParameterError, match="drawn over exactly the graph's node"):
        release_personalized(G, thesis_scheme(G.node_ids, rng=np.random.default_rng(0)), d=1,
                             neighbourhood="node", method="tp", mu=0.5, theta=2)
    g = tmp_path / "g.txt"
    g.write_text("0 1\n1 2\n")
    assert main(["-q", "release-personalized", str(g), "--d", "1", "--neighbourhood", "node",
                 "--method", "min", "--prefs-scheme", "thesis", "--theta", "2", "--out",
                 str(tmp_path / "t.tsv")]) == 2
    assert not (tmp_path / "t.tsv").exists()
