"""Node-DP projections and releases: correctness, stability, and node-sensitivity audits."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from graphanon.cli import main
from graphanon.datasets import load_polbooks
from graphanon.errors import InvalidParameterError, ReproductionWarning
from graphanon.graph import Graph
from graphanon.nodedp.degree_sequences import (
    degree_sequence_metrics,
    hay_degree_sequence,
    laplace_degree_sequence,
    rank_envelope,
    rps_degree_sequence,
)
from graphanon.nodedp.projection import UnstableOrderingWarning, project
from graphanon.nodedp.theta_dk import (
    NodeSensitivityWarning,
    dk_utility,
    node_dk_query,
    node_sensitivity,
    select_theta,
    theta_dk_release,
)
from graphanon.privacy.noise import InsecureNoiseWarning, get_backend
from graphanon.privacy.sensitivity_audit import audit_sensitivity, random_graphs, small_graphs
from graphanon.reproduce.rps_seed import rps_degree_sequence_seed, rps_smooth_sensitivity


def insecure(rng):
    from graphanon.privacy.noise import get_backend

    return get_backend("numpy-insecure", rng=rng)

pytestmark = pytest.mark.filterwarnings("ignore::graphanon.privacy.noise.InsecureNoiseWarning")


def _er(n: int, p: float, seed: int) -> Graph:
    rng = np.random.default_rng(seed)
    iu = np.triu_indices(n, 1)
    keep = rng.random(iu[0].size) < p
    return Graph.from_edges(iu[0][keep], iu[1][keep], n_nodes=n)


@pytest.fixture(scope="module")
def audit_graphs() -> list[Graph]:
    return small_graphs() + random_graphs((30, 60), rng=np.random.default_rng(7))


# ---------------------------------------------------------------- projections
@pytest.mark.parametrize("method", ["ead", "ser", "truncate"])
@pytest.mark.parametrize("theta", [1, 3, 8])
def test_projection_is_bounded_subgraph(method: str, theta: int) -> None:
    G = _er(80, 0.15, 1)
    P = project(G, theta=theta, method=method, key=5)
    H = P.graph
    assert H.degrees.max(initial=0) <= theta
    if method != "truncate":
        eh = set(zip(*H.edges(), strict=True))
        assert eh <= set(zip(*G.edges(), strict=True))
    if method == "ead":  # maximal: every dropped edge has an endpoint at θ (SER is not)
        u, v = G.edges()
        for a, b in zip(u.tolist(), v.tolist(), strict=True):
            if (a, b) not in eh:
                assert H.degrees[a] == theta or H.degrees[b] == theta
    assert P.preserved_edge_ratio == pytest.approx(H.n_edges / G.n_edges)


def test_ead_matches_reference_loop() -> None:
    G = _er(60, 0.2, 2)
    P = project(G, theta=4, method="ead", key=11)
    from graphanon.nodedp.projection import _pair_hash, node_hash

    u, v = G.edges()
    h = node_hash(G.node_ids, 11)
    deg = np.zeros(G.n_nodes, int)
    kept = set()
    for e in np.argsort(_pair_hash(h[u], h[v]), kind="stable"):
        a, b = int(u[e]), int(v[e])
        if deg[a] < 4 and deg[b] < 4:
            kept.add((a, b))
            deg[a] += 1
            deg[b] += 1
    assert set(zip(*P.graph.edges(), strict=True)) == kept


def test_hash_order_is_stable_under_node_removal() -> None:
    """Edges among the remaining nodes keep their relative order (Definition 29)."""
    G = _er(40, 0.2, 3)
    from graphanon.nodedp.projection import node_hash

    h = node_hash(G.node_ids, 9)
    mask = np.ones(40, bool)
    mask[7] = False
    H = G.subgraph(mask)
    assert np.array_equal(node_hash(H.node_ids, 9), h[mask])


def test_degree_order_warns() -> None:
    with pytest.warns(UnstableOrderingWarning):
        project(_er(30, 0.3, 4), theta=3, method="ser", order="degree", key=1)


def test_string_ids_and_bad_input() -> None:
    G = load_polbooks()
    P = project(G, theta=5, method="ser", key=3)
    assert P.graph.degrees.max() <= 5
    with pytest.raises(InvalidParameterError, match="theta"):
        project(G, theta=0)
    with pytest.raises(InvalidParameterError, match="method"):
        project(G, theta=3, method="bogus")


# ---------------------------------------------------------------- audits
@pytest.mark.parametrize("theta", [1, 2, 4])
@pytest.mark.parametrize("d", [1, 2])
def test_ead_calibration_passes_node_audit(audit_graphs: list[Graph], theta: int,
                                            d: int) -> None:
    def f(G: Graph) -> np.ndarray:
        return node_dk_query(project(G, theta=theta, method="ead", key=12345).graph, d, theta)

    res = audit_sensitivity(f, audit_graphs, neighbourhood="node",
                            claimed=node_sensitivity(d, theta), n_samples=40,
                            rng=np.random.default_rng(0))
    assert res.passed, str(res)
    if d == 1:  # the 1K bound is attained (at θ = 1 the only bin is degree 1: a matching
        # grows by one edge, two counts)
        assert res.max_observed == (node_sensitivity(1, theta) if theta > 1 else 2)


def test_ser_cascade_breaks_the_bound(audit_graphs: list[Graph]) -> None:
    """SER with a stable hash order: neighbours of v+ visited before it cascade, so the
    1K change exceeds 2θ+1 (the finding documented in docs/node_dp.md)."""
    theta = 2

    def f(G: Graph) -> np.ndarray:
        return node_dk_query(project(G, theta=theta, method="ser", key=12345).graph, 1, theta)

    res = audit_sensitivity(f, audit_graphs, neighbourhood="node", claimed=2 * theta + 1,
                            n_samples=40, rng=np.random.default_rng(0))
    assert not res.passed and res.max_observed > 2 * theta + 1


def test_hay_sensitivity_edge_audit(audit_graphs: list[Graph]) -> None:
    res = audit_sensitivity(lambda G: np.sort(G.degrees), audit_graphs[:60],
                            neighbourhood="edge", claimed=2)
    assert res.passed


def test_rps_smooth_bound_dominates_local_change(audit_graphs: list[Graph]) -> None:
    """A(0) bounds the observed change of the region-count vector (fixed partition)."""
    bounds = np.array([2, 4, 7])

    def counts(G: Graph) -> np.ndarray:
        d = np.minimum(G.degrees, 20)
        return np.add.reduceat(np.bincount(d, minlength=21), np.r_[0, bounds])

    for G in audit_graphs[-4:]:
        hist = np.bincount(np.minimum(G.degrees, 20), minlength=21)
        S = rps_smooth_sensitivity(hist, bounds, beta=1e9)  # β huge: S = A(0) = LS bound
        res = audit_sensitivity(counts, [G], neighbourhood="node", claimed=S, n_samples=60,
                                rng=np.random.default_rng(1))
        assert res.passed, str(res)


@pytest.mark.parametrize("c", [1.0, 3.0])
def test_rps_rank_envelope_node_sensitivity(audit_graphs: list[Graph], c: float) -> None:
    """Each V(s) moves by at most c + 1 between node neighbours, edge-list removals included
    (split quality -|V - m|/(c+1): Δq = 1), against a public N below or above the counts."""
    from graphanon.privacy.sensitivity_audit import neighbouring_pairs

    lam = 12
    rng = np.random.default_rng(3)
    worst = 0.0
    for G in audit_graphs[:40] + audit_graphs[-4:]:
        for N in (3, 60, 400):
            V = rank_envelope(G.degrees, max_degree=lam, rank_scale=c, n_total=N)
            for H, _, _ in neighbouring_pairs(G, neighbourhood="node", n_samples=30, rng=rng):
                W = rank_envelope(H.degrees, max_degree=lam, rank_scale=c, n_total=N)
                worst = max(worst, float(np.abs(W - V).max()))
    assert worst <= c + 1.0 + 1e-9
    assert worst >= 1.0  # the audit is not vacuous
    # the raw rank R(s) is not Lipschitz: a node joined to many degree-(s-1) nodes moves it
    res = audit_sensitivity(lambda G: np.cumsum(np.bincount(np.minimum(G.degrees, lam),
                                                            minlength=lam + 1))[2:3],
                            audit_graphs[-4:], neighbourhood="node", claimed=c,
                            n_samples=60, rng=np.random.default_rng(1))
    assert not res.passed


def test_rank_envelope_equals_rank_when_lipschitz() -> None:
    d = np.array([0, 1, 1, 2, 3, 3, 5])
    R = np.r_[0, np.cumsum(np.bincount(d, minlength=7))].astype(float)
    assert np.allclose(rank_envelope(d, max_degree=6, rank_scale=2.0, n_total=7), R)
    # isolated nodes are not counted: only N - (non-isolated nodes) pads below degree 1
    assert np.allclose(rank_envelope(d[1:], max_degree=6, rank_scale=2.0, n_total=7), R)
    V = rank_envelope(d, max_degree=6, rank_scale=1.0, n_total=7)
    assert (np.diff(V) <= 1.0 + 1e-12).all()


# ---------------------------------------------------------------- releases
def test_select_fraction_needs_a_private_theta() -> None:
    """With a public θ no ε goes to choosing it: a select_fraction is refused, not ignored."""
    with pytest.raises(InvalidParameterError, match="'select_fraction'"):
        theta_dk_release(load_polbooks(), d=1, epsilon=1.0, theta=5, select_fraction=0.5)


def test_theta_dk_release_record_and_noise() -> None:
    G = load_polbooks()
    rel = theta_dk_release(G, d=2, epsilon=2.0, theta=5, backend=insecure(np.random.default_rng(0)),
                           rng=np.random.default_rng(0), seed=0)
    r = rel.release
    assert (r.neighbourhood, r.epsilon, r.sensitivity) == ("node", 2.0, 5 * 11)
    assert rel.noisy.size == 15 and r.backend == "numpy-insecure"
    assert (rel.table.counts > 0).all()
    # the noise is centred: mean of many releases near the projected truth
    true = node_dk_query(project(G, theta=5, method="ead", key=r.params["key"]).graph, 2, 5)
    rng = np.random.default_rng(1)
    reps = [theta_dk_release(G, d=2, epsilon=2.0, theta=5, key=r.params["key"],
                             backend=insecure(rng), rng=rng).noisy for _ in range(200)]
    assert np.abs(np.mean(reps, axis=0) - true).max() < 6 * 27.5 / np.sqrt(200) * 1.5
    m = dk_utility(G, rel)
    assert m["l1"] > 0 and 0 <= m["ks"] <= 1


def test_ser_release_warns_and_truncate_refused() -> None:
    from graphanon.reproduce.node_dp_thesis import theta_dk_release_ser

    G = load_polbooks()
    with pytest.warns(NodeSensitivityWarning):
        rel = theta_dk_release_ser(G, d=1, epsilon=1.0, theta=4,
                                   backend=insecure(np.random.default_rng(0)),
                                   rng=np.random.default_rng(0))
    assert rel.release.params["guarantee"].startswith("none")
    assert rel.release.neighbourhood == "none" and rel.release.epsilon is None
    assert rel.release.mechanism.endswith("-insecure")
    with pytest.raises(InvalidParameterError, match="Truncation"):
        theta_dk_release_ser(G, d=1, epsilon=1.0, theta=4, projection="truncate")
    with pytest.raises(InvalidParameterError, match="theta"):
        theta_dk_release_ser(G, d=1, epsilon=1.0, theta="auto")
    with pytest.raises(InvalidParameterError, match="epsilon"):
        theta_dk_release(G, d=1, epsilon=0.0, theta=4)
    # the old keywords forward to the reproduction with a deprecation warning
    with pytest.warns(DeprecationWarning, match="node_dp_thesis"), \
            pytest.warns(NodeSensitivityWarning):
        old = theta_dk_release(G, d=1, epsilon=1.0, theta=4, projection="ser",
                               backend=insecure(np.random.default_rng(0)))
    assert old.release.neighbourhood == "none"
    with pytest.warns(DeprecationWarning), pytest.raises(InvalidParameterError, match="Trunc"):
        theta_dk_release(G, d=1, epsilon=1.0, theta=4, projection="truncate")


def test_theta_selection_prefers_larger() -> None:
    """Dense graph, large ε: the score must not always pick the smallest θ (the public bug)."""
    G = _er(300, 0.2, 5)
    backend = get_backend("numpy-insecure", rng=np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        picks = [select_theta(G, epsilon=50.0, d=1, release_epsilon=10.0, key=3,
                              backend=backend)[0] for _ in range(10)]
    assert min(picks) >= 32
    rel = theta_dk_release(G, d=1, epsilon=5.0, theta="auto",
                           backend=insecure(np.random.default_rng(2)), rng=np.random.default_rng(2))
    assert rel.release.params["epsilon_theta_selection"] == pytest.approx(0.5)


def test_degree_sequence_releases() -> None:
    G = load_polbooks()
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidParameterError, match="'nodes' parameter of hay"):
        hay_degree_sequence(G, epsilon=10.0, backend=insecure(rng), rng=rng)
    hay = hay_degree_sequence(G, epsilon=10.0, nodes=G.node_ids, backend=insecure(rng),
                              rng=rng)
    assert hay.release.neighbourhood == "edge" and hay.degrees.size == G.n_nodes
    isolated = hay_degree_sequence(G, epsilon=10.0, nodes=[*G.node_ids.tolist(), 10**6],
                                   backend=insecure(rng), rng=rng)
    assert isolated.degrees.size == G.n_nodes + 1  # the universe's isolated node counts
    assert degree_sequence_metrics(G, hay)["emd"] < 0.5
    lap = laplace_degree_sequence(G, epsilon=1.0, theta=16, backend=insecure(rng), rng=rng)
    assert lap.release.neighbourhood == "node" and lap.degrees.max(initial=0) <= 16
    rps = rps_degree_sequence(G, epsilon=1.0, backend=insecure(rng), rng=rng)
    assert rps.release.neighbourhood == "node"
    params = rps.release.params
    assert params["max_nodes_source"] == "private estimate" and params["epsilon_node_count"] > 0
    assert rps.regions[0, 0] == 1 and rps.regions[-1, 1] == params["max_nodes"] - 1
    assert rps.degrees.min() >= 1 and params["node_count_theta"] == 8
    # the released sequence has exactly N degrees (counts made consistent with N̂)
    assert rps.degrees.size == params["max_nodes"]
    assert params["epsilon_partition"] + params["epsilon_node_count"] == pytest.approx(1.0)
    with pytest.warns(ReproductionWarning, match="seed"):
        low = rps_degree_sequence_seed(G, epsilon=1.0, summary="lower", counts="partition",
                                       backend=insecure(rng), rng=rng)
    assert np.isin(low.degrees, low.regions[:, 0]).all()
    # with a public node count nothing about n is estimated, and N degrees are released
    pub = rps_degree_sequence(G, epsilon=1.0, max_nodes=200, backend=insecure(rng), rng=rng)
    assert pub.regions[-1, 1] == 199 and pub.release.params["epsilon_node_count"] == 0
    assert pub.degrees.size == 200
    assert G.n_nodes not in pub.release.params.values()
    # seed-style Cauchy counts: post-processed to sum to N, ε split recorded
    with pytest.warns(ReproductionWarning):
        cau = rps_degree_sequence_seed(G, epsilon=4.0, max_nodes=G.n_nodes, depth=2,
                                       backend=insecure(rng), rng=rng)
    cp = cau.release.params
    assert cau.degrees.size == G.n_nodes and cp["n_regions"] <= 4
    assert cp["counts"] == "cauchy" and cau.release.sensitivity is None
    assert cp["epsilon_partition"] + cp["epsilon_counts"] == pytest.approx(4.0)
    assert "counts" not in rps.release.params or rps.release.params["counts"] == "partition"
    with pytest.raises(InvalidParameterError, match="depth"):
        rps_degree_sequence(G, epsilon=1.0, depth=0)
    with pytest.raises(InvalidParameterError, match="counts"), \
            pytest.warns(DeprecationWarning, match="rps_seed"):
        rps_degree_sequence(G, epsilon=1.0, counts="laplace")


def test_rps_old_keywords_reach_the_seed_variant() -> None:
    """counts= / summary= on the secure function forward (DeprecationWarning) to the seed's
    summarization, with the same noise draws as calling it directly."""
    G = _er(120, 0.08, 5)
    with pytest.warns(DeprecationWarning, match="rps_degree_sequence_seed"), \
            pytest.warns(ReproductionWarning):
        old = rps_degree_sequence(G, epsilon=2.0, max_nodes=120, counts="cauchy",
                                  summary="lower", backend=insecure(np.random.default_rng(3)))
    with pytest.warns(ReproductionWarning):
        new = rps_degree_sequence_seed(G, epsilon=2.0, max_nodes=120,
                                       backend=insecure(np.random.default_rng(3)))
    assert np.array_equal(old.degrees, new.degrees)
    assert old.release.params == new.release.params
    # the defaults pass through silently to the secure path
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rps_degree_sequence(G, epsilon=2.0, max_nodes=120, counts="partition",
                            summary="interpolate", backend=insecure(np.random.default_rng(3)))


def test_rps_is_accurate_at_large_epsilon() -> None:
    """Statistical: the private splits track the true quantiles (fixed seeds, 5 runs)."""
    G = _er(400, 0.05, 2)  # degrees ≈ 20 ± 4, up to 40 nodes per degree
    rng = np.random.default_rng(4)
    # the default c = N/64 suits spread-out (Facebook100) degrees; this narrow ER graph
    # needs c near its peak density
    emd = [degree_sequence_metrics(G, rps_degree_sequence(
        G, epsilon=10.0, max_nodes=G.n_nodes, rank_scale=25.0, backend=insecure(rng),
        rng=rng))["emd"]
        for _ in range(5)]
    spread = float(np.abs(G.degrees - G.degrees.mean()).mean())
    assert np.median(emd) < spread  # better than the mean-only sequence
    # depth rule is public: a function of ε only
    r = rps_degree_sequence(G, epsilon=0.5, max_nodes=G.n_nodes, backend=insecure(rng),
                            rng=rng)
    assert r.release.params["depth"] == 1 and r.release.params["depth_source"] == "auto"


# ---------------------------------------------------------------- CLI
def test_cli_project_and_release(tmp_path) -> None:
    src = tmp_path / "g.txt"
    G = load_polbooks()
    u, v = G.edges()
    src.write_text("".join(f"{a}\t{b}\n" for a, b in zip(u, v, strict=True)))
    out, rep = tmp_path / "p.txt", tmp_path / "p.json"
    assert main(["-q", "project", str(src), "--theta", "4", "--method", "ser", "--out",
                 str(out), "--report", str(rep)]) == 0
    assert json.loads(rep.read_text())["theta"] == 4
    # --order orders SER only: with EAD it would be ignored (and the report would say "hash")
    assert main(["-q", "project", str(src), "--theta", "4", "--method", "ead", "--order",
                 "degree", "--out", str(tmp_path / "e.txt")]) == 2
    assert not (tmp_path / "e.txt").exists()
    tsv = tmp_path / "d.tsv"
    assert main(["-q", "release-degrees", str(src), "--method", "hay", "--epsilon", "1",
                 "--seed", "1", "--out", str(tsv)]) == 2
    assert not tsv.exists()
    nodes = tmp_path / "nodes.txt"
    nodes.write_text("".join(f"{x}\n" for x in G.node_ids))
    assert main(["-q", "release-degrees", str(src), "--method", "hay", "--epsilon", "1",
                 "--seed", "1", "--nodes", str(nodes), "--out", str(tsv)]) == 0
    from graphanon.io.dk_tables import read_dk_table

    hist = read_dk_table(tsv)  # a 1K dK table, writable to Neo4j like any other statistic
    assert hist.kind == "degree" and hist.total == G.n_nodes  # Hay releases n degrees
    bad = tmp_path / "bad.tsv"
    assert main(["-q", "release-degrees", str(src), "--epsilon", "0", "--out", str(bad)]) == 2
    assert not bad.exists()
    k_tsv, k_json = tmp_path / "k.tsv", tmp_path / "k.json"
    assert main(["-q", "release-dk", str(src), "--d", "1", "--neighbourhood", "node", "--epsilon",
                 "1", "--theta", "8", "--noise", "numpy-insecure", "--seed", "3", "--out",
                 str(k_tsv), "--report", str(k_json)]) == 0
    payload = json.loads(k_json.read_text())
    assert payload["release"]["mechanism"] == "theta-dk1-ead"
    assert payload["release"]["neighbourhood"] == "node" and payload["theta"] == 8
    assert payload["release"]["sensitivity"] == 2 * 8 + 1
    assert 0 < payload["not_private"]["preserved_edge_ratio"] <= 1
    assert payload["not_private"]["seconds"] >= 0 and "seconds" not in payload
    r_tsv, r_json = tmp_path / "r.tsv", tmp_path / "r.json"
    assert main(["-q", "release-degrees", str(src), "--method", "rps", "--epsilon", "2",
                 "--max-nodes", str(G.n_nodes), "--noise", "numpy-insecure", "--seed", "2",
                 "--out", str(r_tsv), "--report", str(r_json)]) == 0
    assert read_dk_table(r_tsv).total == G.n_nodes
    assert json.loads(r_json.read_text())["release"]["params"]["counts"] == "partition"
    assert read_dk_table(k_tsv).kind == "degree"
    for bad_theta in ("zero", "0"):
        assert main(["-q", "release-dk", str(src), "--d", "1", "--neighbourhood", "node",
                     "--epsilon", "1", "--theta", bad_theta, "--out",
                     str(tmp_path / "never.tsv")]) == 2
    assert not (tmp_path / "never.tsv").exists()


def test_release_degrees_refuses_options_of_another_method(tmp_path) -> None:
    src = tmp_path / "g.txt"
    src.write_text("0 1\n1 2\n2 3\n")
    out = tmp_path / "d.tsv"
    for args in (["--method", "hay", "--max-degree", "5"], ["--method", "rps", "--theta", "8"],
                 ["--method", "laplace", "--counts", "cauchy"]):
        assert main(["-q", "release-degrees", str(src), "--epsilon", "1", *args,
                     "--out", str(out)]) == 2
    assert not out.exists()


def test_rps_names_a_too_small_epsilon_by_the_users_parameter() -> None:
    """10 % of ε goes to the private node count: below the smallest ε that is a message
    about epsilon and max_nodes, not about an internal dp_scale call."""
    G = Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(InvalidParameterError, match=r"'epsilon' parameter of "
                                                     r"rps_degree_sequence \(1e-06\) is too "
                                                     r"small.*epsilon >= 1e-05.*max_nodes"):
        rps_degree_sequence(G, epsilon=1e-6)
    rps_degree_sequence(G, epsilon=1e-6, max_nodes=10)  # no count to estimate: fine
