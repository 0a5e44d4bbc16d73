"""The community pipeline (graphanon.synthetic): sensitivity audits of every noisy vector,
the refinement's exponential mechanism, records, and generation."""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from graphanon.datasets import load_polbooks
from graphanon.errors import InvalidParameterError
from graphanon.graph import Graph
from graphanon.privacy.noise import get_backend
from graphanon.privacy.sensitivity_audit import (
    audit_sensitivity,
    neighbouring_pairs,
    random_graphs,
    small_graphs,
)
from graphanon.synthetic._greedy_kernels import greedy_within_capacity
from graphanon.synthetic.bter import (
    _closure_edges,
    _hub_edges,
    affinity_blocks,
    generate_community_graph,
)
from graphanon.synthetic.clustering import (
    bounded_triangles,
    release_bounded_triangles,
    smooth_triangles,
    triangle_sensitivity,
    triangle_statistic,
    weighted_triangles,
)
from graphanon.synthetic.communities import (
    DEFAULT_SPLIT,
    MAX_SUPER_NODES,
    SUPER_SIZE,
    CommunityRelease,
    combine_totals,
    community_edge_counts,
    community_release,
    degree_cdf,
    private_partition,
    refine_partition,
    refinement_scores,
    release_community_degrees,
    release_community_edges,
    release_degree_cdf,
    release_edge_total,
    release_node_degrees,
    resolve_super_size,
    supergraph_counts,
)


@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.simplefilter("ignore")  # the seeded backend's InsecureNoiseWarning


def seeded(seed: int = 0):  # type: ignore[no-untyped-def]
    return get_backend("numpy-insecure", rng=np.random.default_rng(seed))


FAMILY = small_graphs() + random_graphs((30, 60), rng=np.random.default_rng(5))


def _two_cliques(h: int, joined: bool) -> Graph:
    iu, ju = np.triu_indices(h + 1, 1)
    u = np.concatenate([iu, iu + h + 1])
    v = np.concatenate([ju, ju + h + 1])
    if joined:
        u, v = np.append(u, 0), np.append(v, h + 1)
    return Graph.from_edges(u, v, n_nodes=2 * h + 2)


# ---------------------------------------------------------------------- sensitivity audits
def test_supergraph_counts_have_sensitivity_one() -> None:
    def f(G: Graph) -> np.ndarray:
        groups = np.arange(G.n_nodes) // 2
        return supergraph_counts(G, groups, int(groups.max()) + 1 if G.n_nodes else 1)

    res = audit_sensitivity(f, FAMILY, neighbourhood="edge", claimed=1,
                            rng=np.random.default_rng(0))
    assert res.passed and res.max_observed == 1, res


def test_node_degrees_have_sensitivity_two_and_community_edges_one() -> None:
    res = audit_sensitivity(lambda G: G.degrees, FAMILY, neighbourhood="edge", claimed=2,
                            rng=np.random.default_rng(0))
    assert res.passed and res.max_observed == 2, res  # every edge: two degrees

    def f(G: Graph) -> np.ndarray:
        m = np.arange(G.n_nodes) % 3
        return community_edge_counts(G, m, 3)

    res = audit_sensitivity(f, FAMILY, neighbourhood="edge", claimed=1,
                            rng=np.random.default_rng(0))
    assert res.passed and res.max_observed == 1, res
    # the cells are the upper triangle with the diagonal, and they hold every edge once
    G = load_polbooks()
    m = np.arange(G.n_nodes) % 3
    vec = community_edge_counts(G, m, 3)
    assert vec.size == 6 and vec.sum() == G.n_edges
    u, v = G.edges()
    assert vec[0] == int(((m[u] == 0) & (m[v] == 0)).sum())  # E_00 first


def test_edge_total_has_sensitivity_one() -> None:
    res = audit_sensitivity(lambda G: [G.n_edges], FAMILY, neighbourhood="edge", claimed=1,
                            rng=np.random.default_rng(0))
    assert res.passed and res.max_observed == 1, res
    from graphanon.evaluate.empirical_audit import ReplayBackend

    G = load_polbooks()
    rb = ReplayBackend(seeded(2))
    noisy, rec = release_edge_total(G, epsilon=0.05, nodes=G.node_ids, backend=rb)
    (kind, counts, kw, _), = rb.calls
    assert kind == "discrete_laplace" and kw == {"sensitivity": 1, "epsilon": 0.05}
    assert counts.tolist() == [G.n_edges] and isinstance(noisy, int)
    assert rec.sensitivity == 1 and rec.neighbourhood == "edge" and rec.epsilon == 0.05
    with pytest.raises(InvalidParameterError, match="'nodes' parameter of release_edge_total"):
        release_edge_total(G, epsilon=1.0, nodes=None)


def test_degree_cdf_has_sensitivity_two() -> None:
    """Δ = 2: one edge moves each end out of exactly one cumulative count (2 from one count
    when both ends have the same degree), audited on every neighbouring pair of the family."""
    res = audit_sensitivity(degree_cdf, FAMILY, neighbourhood="edge", claimed=2,
                            rng=np.random.default_rng(0))
    assert res.passed and res.max_observed == 2, res
    from graphanon.evaluate.empirical_audit import ReplayBackend

    G = load_polbooks()
    C = degree_cdf(G)
    assert C.size == G.n_nodes - 1  # C(n − 1) = n is not a statistic
    assert C.tolist() == [int((G.degrees <= k).sum()) for k in range(G.n_nodes - 1)]
    rb = ReplayBackend(seeded(3))
    noisy, rec = release_degree_cdf(G, epsilon=0.2, nodes=G.node_ids, backend=rb)
    (kind, counts, kw, _), = rb.calls
    assert kind == "discrete_laplace" and kw == {"sensitivity": 2, "epsilon": 0.2}
    assert counts.tolist() == C.tolist() and noisy.shape == C.shape
    assert rec.mechanism == "degree-cdf" and rec.neighbourhood == "edge"
    assert rec.sensitivity == 2 and rec.epsilon == 0.2
    assert degree_cdf(Graph.from_edges([], [], n_nodes=1)).size == 0
    with pytest.raises(InvalidParameterError, match="'nodes' parameter of release_degree_cdf"):
        release_degree_cdf(G, epsilon=1.0, nodes=None)


def test_combined_total_weights_by_public_variance() -> None:
    assert combine_totals([(100.0, 1.0)]) == 100.0
    assert combine_totals([(100.0, 1.0), (200.0, 1.0)]) == 150.0
    assert combine_totals([(100.0, 1.0), (200.0, 3.0)]) == pytest.approx(125.0)
    assert combine_totals([(7.0, 5.0), (0.0, 0.0)]) == 0.0  # exact (an empty sequence)
    G = Graph.from_edges([], [], n_nodes=0)  # an empty universe still releases
    rel = community_release(G, epsilon=1.0, nodes=np.array([]), backend=seeded(1),
                            rng=np.random.default_rng(1))
    assert generate_community_graph(rel, rng=np.random.default_rng(1)).n_nodes == 0


def test_edge_total_brings_a_small_graph_to_its_edge_count() -> None:
    """polbooks (105 nodes) at ε = 1: the degrees' sum alone has noise growing with n (13 %
    off with Hay's sequence at 0.25 ε, 5 % with the node degrees at 0.52 ε); with the edge
    total the released degrees sum to within a few percent of 2|E| (the truth is used here
    to evaluate, never in the release)."""
    G = load_polbooks()
    errs = {}
    for share in (0.0, DEFAULT_SPLIT["edge_total"]):
        out = []
        for s in range(40):  # the gain is about a fifth of the error: 12 seeds could tie
            rel = community_release(G, epsilon=1.0, nodes=G.node_ids, backend=seeded(50 + s),
                                    rng=np.random.default_rng(s),
                                    split={**DEFAULT_SPLIT, "edge_total": share})
            out.append(abs((rel.d_in.sum() + rel.d_out.sum()) / 2 - G.n_edges) / G.n_edges)
        errs[share] = float(np.median(out))
    assert errs[DEFAULT_SPLIT["edge_total"]] < min(0.05, errs[0.0]), errs


def test_refinement_scores_change_monotonically_by_one_in_two_rows() -> None:
    """The exponential mechanism's premise: one edge raises one score of two nodes by 1 and
    lowers none (adding), or lowers one of two by 1 and raises none (removing)."""
    for G in FAMILY:
        m = np.arange(G.n_nodes) % 3
        k = 3
        S = refinement_scores(G, m, k)
        for H, _, _ in neighbouring_pairs(G, neighbourhood="edge", n_samples=60,
                                          rng=np.random.default_rng(1)):
            D = refinement_scores(H, m, k) - S
            rows = np.flatnonzero(np.abs(D).sum(axis=1))
            assert rows.size == 2
            assert np.all(np.abs(D).sum(axis=1) <= 1)
            assert (D >= 0).all() or (D <= 0).all()


def test_refinement_round_is_epsilon_dp_exactly() -> None:
    """The exact output distribution of one refinement round (a product over nodes of
    ``softmax(ε/2 · S[u])``): the largest log-ratio over all outcomes between neighbours is
    the sum over nodes of their largest log-ratio, and it stays <= ε."""
    eps = 1.3

    def logp(G: Graph, m: np.ndarray) -> np.ndarray:
        s = eps / 2 * refinement_scores(G, m, 3).astype(float)
        return s - np.log(np.exp(s).sum(axis=1, keepdims=True))

    worst = 0.0
    for G in FAMILY:
        m = np.arange(G.n_nodes) % 3
        a = logp(G, m)
        for H, _, _ in neighbouring_pairs(G, neighbourhood="edge", n_samples=60,
                                          rng=np.random.default_rng(2)):
            worst = max(worst, float(np.abs(logp(H, m) - a).max(axis=1).sum()))
    assert worst <= eps + 1e-9
    assert worst > 0.5 * eps  # the bound is not vacuous on this family


@pytest.mark.parametrize("h", [2, 3, 4])
def test_bounded_triangles_sensitivity(h: int) -> None:
    res = audit_sensitivity(lambda G: [bounded_triangles(G, h)], FAMILY, neighbourhood="edge",
                            claimed=triangle_sensitivity(h, "count"),
                            rng=np.random.default_rng(0))
    assert res.passed, res
    # the bound h(h − 1) is attained: two (h+1)-cliques joined by one edge
    a, b = _two_cliques(h, False), _two_cliques(h, True)
    assert bounded_triangles(a, h) - bounded_triangles(b, h) == h * (h - 1)


@pytest.mark.parametrize("h", [2, 3, 5])
def test_weighted_triangles_sensitivity(h: int) -> None:
    res = audit_sensitivity(lambda G: [weighted_triangles(G, h)], FAMILY, neighbourhood="edge",
                            claimed=triangle_sensitivity(h, "weighted"),
                            rng=np.random.default_rng(0))
    assert res.passed, res
    a, b = _two_cliques(h, False), _two_cliques(h, True)
    assert weighted_triangles(a, h) - weighted_triangles(b, h) == pytest.approx(h)


@pytest.mark.parametrize("h", [2, 3, 4])
def test_smooth_triangles_sensitivity(h: int) -> None:
    """Δ S_h = (2h − 2)(3h − 1)/h, audited on every neighbouring pair of the family; two
    2h-cliques joined by one edge attain the bound's first part: each end's C(2h − 1, 2)
    triangles drop from weight 1/h to 0."""
    res = audit_sensitivity(lambda G: [smooth_triangles(G, h)], FAMILY, neighbourhood="edge",
                            claimed=triangle_sensitivity(h, "smooth"),
                            rng=np.random.default_rng(0))
    assert res.passed, res
    a, b = _two_cliques(2 * h - 1, False), _two_cliques(2 * h - 1, True)
    assert smooth_triangles(a, h) - smooth_triangles(b, h) == pytest.approx(
        (2 * h - 1) * (2 * h - 2) / h)
    assert (2 * h - 1) * (2 * h - 2) / h >= 0.6 * triangle_sensitivity(h, "smooth")
    # far cheaper than the count's cliff for the bounds the pipeline uses
    assert triangle_sensitivity(40, "smooth") < triangle_sensitivity(40, "count") / 6


def test_smooth_triangles_sensitivity_near_the_ramp() -> None:
    """Dense random graphs whose degrees sit on the ramp (h = 3: weights fall over degrees
    4–5), each with up to 8 of its missing edges added: the largest change is within the
    bound."""
    h = 3
    rng = np.random.default_rng(4)
    worst = 0.0
    for _ in range(300):
        n = int(rng.integers(6, 12))
        p = rng.uniform(0.3, 0.9)
        iu, ju = np.triu_indices(n, 1)
        keep = rng.random(iu.size) < p
        G = Graph.from_edges(iu[keep], ju[keep], n_nodes=n)
        base = smooth_triangles(G, h)
        for e in np.flatnonzero(~keep)[:8].tolist():
            H = Graph.from_edges(np.append(iu[keep], iu[e]), np.append(ju[keep], ju[e]),
                                 n_nodes=n)
            worst = max(worst, abs(smooth_triangles(H, h) - base))
    assert 0 < worst <= triangle_sensitivity(h, "smooth")


def test_triangle_statistics_against_igraph() -> None:
    G = load_polbooks()
    h = int(G.degrees.max())
    assert bounded_triangles(G, h) == sum(G.to_igraph().cliques(3, 3).__len__() for _ in [0])
    # W with every node kept: each triangle weighted by its largest degree
    tri = G.to_igraph().cliques(3, 3)
    d = G.degrees
    want = sum(1 / (max(d[list(t)]) - 1) for t in tri)
    assert weighted_triangles(G, h) == pytest.approx(want)
    low = int(np.median(d))
    keep = np.flatnonzero(d <= low)
    assert bounded_triangles(G, low) == sum(all(x in set(keep) for x in t) for t in tri)
    # S: weight 1 up to largest degree h, (2h − M)/h on the ramp, 0 from 2h
    want = sum(min(max(2 * low - max(d[list(t)]), 0), low) / low for t in tri)
    assert smooth_triangles(G, low) == pytest.approx(want)
    assert 0 < smooth_triangles(G, low) < len(tri)
    assert triangle_statistic(G, low, "count") == bounded_triangles(G, low)
    with pytest.raises(InvalidParameterError, match=r"'statistic'.*'cubic'"):
        triangle_statistic(G, low, "cubic")



def test_top_triangle_counts_match_the_triangles_themselves() -> None:
    """Per node of ``G_h``, the triangles in which it has the largest (degree, index): the
    numba kernel against igraph's list of triangles, on random graphs and bounds."""
    from graphanon.synthetic.clustering import _top_triangles

    rng = np.random.default_rng(11)
    for _ in range(12):
        n = int(rng.integers(3, 80))
        m = int(rng.integers(0, 6 * n))
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
        G = Graph.from_edges(u[u != v], v[u != v], n_nodes=n)
        d = G.degrees
        for h in (2, int(np.median(d)) + 1, int(d.max(initial=0)) + 1):
            keep = np.flatnonzero(d <= h)
            pos = {int(x): i for i, x in enumerate(keep)}
            want = np.zeros(keep.size)
            if keep.size >= 3:
                for t in G.to_igraph().cliques(3, 3):
                    if all(x in pos for x in t):
                        want[pos[max(t, key=lambda x: (d[x], pos[x]))]] += 1
            top, dk = _top_triangles(G, h)
            assert np.array_equal(top, want) and np.array_equal(dk, d[keep])

# ---------------------------------------------------------------------- noise and records
def test_refinement_follows_the_exponential_mechanism() -> None:
    """Statistical check of the new noise (Gumbel-max over the backend's uniforms): the
    frequencies of a node's choice match ``softmax(ε/2 · S[u])``."""
    from scipy.stats import chisquare

    G = Graph.from_edges([0, 0, 0, 1, 2], [1, 2, 3, 4, 5], n_nodes=6)
    m = np.array([0, 0, 1, 1, 2, 2])
    eps = 2.0
    backend = seeded(11)
    draws = np.array([refine_partition(G, m, epsilon=eps, backend=backend)[0]
                      for _ in range(3000)])
    s = eps / 2 * refinement_scores(G, m, 3)[0]
    p = np.exp(s) / np.exp(s).sum()
    obs = np.bincount(draws, minlength=3)
    assert chisquare(obs, p * obs.sum()).pvalue > 1e-3


def test_noisy_parts_use_the_calibrated_backend_call() -> None:
    from graphanon.evaluate.empirical_audit import ReplayBackend

    G = load_polbooks()
    rb = ReplayBackend(seeded(1))
    raw = release_community_degrees(G, np.arange(G.n_nodes) % 4, epsilon_degrees=0.7,
                                    epsilon_edges=0.2, nodes=G.node_ids, backend=rb)
    (k1, c1, kw1, _), (k2, c2, kw2, _) = rb.calls
    assert k1 == k2 == "discrete_laplace"
    assert kw1 == {"sensitivity": 2, "epsilon": 0.7} and c1.tolist() == G.degrees.tolist()
    assert kw2 == {"sensitivity": 1, "epsilon": 0.2} and c2.size == 10  # 4 · 5 / 2 cells
    assert raw.edges.shape == (4, 4) and (raw.edges == raw.edges.T).all()
    assert [r.sensitivity for r in raw.releases] == [2.0, 1.0]
    rb = ReplayBackend(seeded(1))
    t = release_bounded_triangles(G, epsilon=0.5, max_degree=10, statistic="count", backend=rb)
    assert rb.calls[0][2] == {"sensitivity": 90, "epsilon": 0.5}
    assert t.release.sensitivity == 90 and t.release.neighbourhood == "edge"
    # the default, smooth: noise on the integer 10 · S_10 with Δ (2h − 2)(3h − 1) = 18 · 29
    rb = ReplayBackend(seeded(1))
    t = release_bounded_triangles(G, epsilon=0.5, max_degree=10, backend=rb)
    kind, counts, kw, out = rb.calls[0]
    assert kind == "discrete_laplace" and kw == {"sensitivity": 18 * 29, "epsilon": 0.5}
    assert counts.tolist() == [round(10 * smooth_triangles(G, 10))]
    assert t.noisy == pytest.approx(float(np.asarray(out)[0]) / 10)
    assert t.release.sensitivity == pytest.approx(18 * 29 / 10)
    assert t.statistic == "smooth" and t.release.mechanism == "smooth-triangles"


def test_partition_finds_communities_when_ids_are_local() -> None:
    """Two dense blocks on consecutive ids: the super-node counts find them."""
    rng = np.random.default_rng(0)
    n = 200
    iu, ju = np.triu_indices(n, 1)
    same = (iu < 100) == (ju < 100)
    keep = rng.random(iu.size) < np.where(same, 0.2, 0.01)
    G = Graph.from_edges(iu[keep], ju[keep], n_nodes=n)
    p = private_partition(G, epsilon=1.0, nodes=G.node_ids, backend=seeded(2),
                          rng=np.random.default_rng(3))
    truth = (np.arange(n) >= 100).astype(int)
    agree = max((p.membership == truth).mean(), (p.membership == 1 - truth).mean())
    assert p.n_communities == 2 and agree > 0.95
    assert p.release.neighbourhood == "edge" and p.release.epsilon == 1.0


def test_shuffled_ids_fall_back_to_one_community() -> None:
    """The same two blocks with ids in random order: super-nodes of consecutive ids mix both
    blocks, the released modularity is ≈ 0 and the release keeps one community (the known
    limitation measured in docs/synthetic.md); with local ids it keeps the two."""
    rng = np.random.default_rng(0)
    n = 400
    iu, ju = np.triu_indices(n, 1)
    same = (iu < 200) == (ju < 200)
    keep = rng.random(iu.size) < np.where(same, 0.1, 0.005)
    local = Graph.from_edges(iu[keep], ju[keep], n_nodes=n)
    perm = np.random.default_rng(1).permutation(n)
    shuffled = Graph.from_edges(perm[iu[keep]], perm[ju[keep]], n_nodes=n)
    ks = {}
    for name, G in (("local", local), ("shuffled", shuffled)):
        rel = community_release(G, epsilon=1.0, nodes=G.node_ids, backend=seeded(6),
                                rng=np.random.default_rng(6))
        ks[name] = (rel.n_communities, rel.release.params["released_modularity"])
    assert ks["local"][0] == 2 and ks["local"][1] > 0.3
    assert ks["shuffled"][0] == 1 and ks["shuffled"][1] < 0.1
    # the operator's listing carries the locality: the shuffled ids listed block by block
    listed = community_release(shuffled, epsilon=1.0, nodes=perm, backend=seeded(6),
                               rng=np.random.default_rng(6))
    assert listed.n_communities == 2 and listed.release.params["released_modularity"] > 0.3
    truth = (np.argsort(perm) >= 200).astype(int)  # node perm[i] is block i >= 200
    agree = (listed.membership == truth).mean()
    assert max(agree, 1 - agree) > 0.95


def test_listing_rank_follows_the_operators_order() -> None:
    """String ids sort "n10" before "n2"; the super-nodes follow the listing, not the sort."""
    from graphanon.synthetic.communities import listing_rank

    ids = np.array([f"n{i}" for i in range(12)], dtype=object)
    G = Graph.from_id_edges(ids[:-1], ids[1:])
    rank = listing_rank(G, ids)
    assert [G.node_ids[i] for i in np.argsort(rank)] == ids.tolist()
    # a repeated id keeps its first position
    again = np.concatenate([ids[:3], ids[:1], ids[3:]])
    assert (listing_rank(G, again) == rank).all()


def test_community_release_record_and_split() -> None:
    G = load_polbooks()
    rel = community_release(G, epsilon=2.0, nodes=G.node_ids, backend=seeded(4),
                            rng=np.random.default_rng(4), seed=4)
    r = rel.release
    assert r.neighbourhood == "edge" and r.epsilon == 2.0
    split = r.params["epsilon_split"]
    assert math.isclose(sum(split.values()), 2.0)
    # 105 nodes < 50 noise scales of the cumulative counts (2 / 0.3): their share goes to
    # the node degrees (public n and ε)
    want = {k: 2.0 * v for k, v in DEFAULT_SPLIT.items() if v > 0 and k != "degree_cdf"}
    want["node_degrees"] += 2.0 * DEFAULT_SPLIT["degree_cdf"]
    assert split == pytest.approx(want) and "degree_cdf" not in rel.parts
    h = rel.max_degree
    assert r.params["sensitivities"]["triangles"] == (2 * h - 2) * (3 * h - 1) / h
    assert r.params["triangle_statistic"] == "smooth"
    assert set(rel.parts) == {"partition", "node_degrees", "community_edges", "triangles",
                              "edge_total"}
    assert all(p.neighbourhood == "edge" for p in rel.parts.values())
    assert math.isclose(sum(p.epsilon for p in rel.parts.values()), 2.0)
    # public parameters only: nothing read off the input but released values
    assert set(r.params) <= {"node_universe", "epsilon_split", "sensitivities", "super_size",
                             "super_size_selection",
                             "rounds", "n_communities", "released_modularity",
                             "min_modularity", "max_degree", "max_degree_selection",
                             "block_density", "block_slope", "block_mixing",
                             "block_mixing_selection", "triangle_statistic",
                             "edge_total_postprocessing"}


def test_cumulative_degree_counts_are_released_where_the_nodes_outweigh_their_noise() -> None:
    """3,000 nodes at ε = 1: 50 noise scales of the counts (2 / 0.15 ε) are 667 nodes, so
    the counts are released with the default share and state Δ = 2; the degree sequence
    they give is closer to the truth than the one deconvolved from the node degrees."""
    from graphanon.metrics import ks_distance

    rng = np.random.default_rng(8)
    n = 3000
    ring = np.arange(n)
    u = np.concatenate([ring, ring, ring, ring, rng.integers(0, n, 600)])
    v = np.concatenate([(ring + 1) % n, (ring + 2) % n, (ring + 3) % n, (ring + 4) % n,
                        rng.integers(0, n, 600)])
    G = Graph.from_edges(u[u != v], v[u != v], n_nodes=n)
    ks = {}
    for share in (DEFAULT_SPLIT["degree_cdf"], 0.0):
        split = {**DEFAULT_SPLIT, "degree_cdf": share,
                 "node_degrees": DEFAULT_SPLIT["node_degrees"] + DEFAULT_SPLIT["degree_cdf"]
                 - share}
        rel = community_release(G, epsilon=1.0, nodes=G.node_ids, split=split,
                                backend=seeded(5), rng=np.random.default_rng(5),
                                fit_clustering=False)
        eps = rel.release.params["epsilon_split"]
        if share:
            assert eps["degree_cdf"] == pytest.approx(share)
            assert rel.parts["degree_cdf"].sensitivity == 2
            assert rel.release.params["sensitivities"]["degree_cdf"] == 2
        else:
            assert "degree_cdf" not in eps and "degree_cdf" not in rel.parts
        ks[share] = ks_distance(np.bincount(G.degrees), np.bincount(rel.d_in + rel.d_out))
    assert ks[DEFAULT_SPLIT["degree_cdf"]] < 0.5 * ks[0.0], ks


def test_bad_parameters_are_refused() -> None:
    G = load_polbooks()
    with pytest.raises(InvalidParameterError, match="'nodes' parameter of community_release"):
        community_release(G, epsilon=1.0, nodes=None)
    with pytest.raises(InvalidParameterError, match="'split' parameter of community_release"):
        community_release(G, epsilon=1.0, nodes=G.node_ids, split={"bogus": 1.0})
    with pytest.raises(InvalidParameterError, match="at most one of 'degree_sequence' and "
                                                    "'degree_cdf'"):
        community_release(G, epsilon=1.0, nodes=G.node_ids,
                          split={**DEFAULT_SPLIT, "degree_sequence": 0.1})
    with pytest.raises(InvalidParameterError, match="'max_degree' parameter"):
        community_release(G, epsilon=1.0, nodes=G.node_ids, max_degree="high")
    with pytest.raises(InvalidParameterError, match="'epsilon' parameter"):
        community_release(G, epsilon=0.0, nodes=G.node_ids)
    with pytest.raises(InvalidParameterError, match="'membership' parameter"):
        release_community_edges(G, [0, 1], epsilon=1.0, nodes=G.node_ids)
    with pytest.raises(InvalidParameterError, match="'nodes' parameter of release_node_degrees"):
        release_node_degrees(G, epsilon=1.0, nodes=None)


# ---------------------------------------------------------------------- generation
def test_generation_keeps_the_universe_and_is_simple() -> None:
    G0 = load_polbooks()
    ids = np.array([f"n{i:03d}" for i in range(G0.n_nodes + 5)])
    u, v = G0.edges()
    G = Graph.from_id_edges(ids[u], ids[v])  # 5 listed nodes have no edge
    rel = community_release(G, epsilon=4.0, nodes=ids, backend=seeded(5),
                            rng=np.random.default_rng(5))
    S = generate_community_graph(rel, rng=np.random.default_rng(6))
    assert S.n_nodes == ids.size and list(S.node_ids) == sorted(ids.tolist())
    su, sv = S.edges()
    assert (su != sv).all()
    assert np.unique(su * S.n_nodes + sv).size == su.size
    # the same seed, the same graph
    S2 = generate_community_graph(rel, rng=np.random.default_rng(6))
    assert S == S2
    # degrees near the released targets, edge count near the release's
    target = rel.d_in + rel.d_out
    assert abs(S.n_edges - rel.n_edges) <= 0.03 * rel.n_edges
    assert np.abs(S.degrees - target).sum() <= 0.1 * target.sum()


def _given(membership: Any, d_in: Any, d_out: Any, inter: Any, rho: float) -> Any:
    """A hand-made release of the given targets (h = 10, no triangle count, density ρ),
    carrying a real record (the generator reads none of it)."""
    k = int(np.asarray(inter).shape[0])
    return CommunityRelease(np.arange(np.asarray(membership).size), membership, k, d_in,
                            d_out, inter, 10, math.nan, rho, _given_record())


@functools.lru_cache(maxsize=1)
def _given_record() -> Any:
    return community_release(load_polbooks(), epsilon=1.0, nodes=load_polbooks().node_ids,
                             backend=seeded(0), rng=np.random.default_rng(0)).release


def test_generation_realizes_given_targets() -> None:
    """A hand-made release: two communities, exact degrees, no inter edges lost."""
    n = 60
    m = (np.arange(n) >= 30).astype(np.int64)
    din = np.full(n, 6, dtype=np.int64)
    dout = np.zeros(n, dtype=np.int64)
    dout[:5] = 2
    dout[30:35] = 2
    E = np.array([[0, 10], [10, 0]])
    rel = _given(m, din, dout, E, 0.6)
    S = generate_community_graph(rel, rng=np.random.default_rng(1))
    u, v = S.edges()
    inter = m[u] != m[v]
    # exactly E_ij between the communities, by stub matching: only the nodes with d_out
    ends = np.concatenate([u[inter], v[inter]])
    assert inter.sum() == 10
    assert np.isin(ends, np.r_[0:5, 30:35]).all()
    assert abs(S.n_edges - 190) <= 2  # 60·6/2 intra + 10 inter
    # denser blocks, more triangles
    lo = generate_community_graph(rel, rng=np.random.default_rng(1), block_density=0.2)
    hi = generate_community_graph(rel, rng=np.random.default_rng(1), block_density=1.0)
    assert bounded_triangles(hi, 10) > 2 * bounded_triangles(lo, 10)


def test_equal_degree_blocks_have_density_rho_exactly() -> None:
    """BTER's block of s nodes of degree s − 1 is an Erdős–Rényi graph of density ρ: at ρ = 1
    every block of degree-2 or degree-3 nodes is a clique (local clustering 1 for all), and
    at ρ = 0.5 a degree-2 block is a triangle with probability 1/8. Chung–Lu normalized by
    the block's whole degree sum gave density ρ d / (d + 1): 2/3 and 3/4 at ρ = 1."""
    def one_community(n: int, d: int, rho: float) -> Any:
        zeros = np.zeros(n, dtype=np.int64)
        return _given(zeros, np.full(n, d, dtype=np.int64), zeros,
                      np.zeros((1, 1), dtype=np.int64), rho)

    for d in (2, 3):  # 100 blocks of d + 1 nodes, no excess degree, no inter edges
        S = generate_community_graph(one_community(100 * (d + 1), d, 1.0),
                                     rng=np.random.default_rng(d), block_slope=0.0)
        assert S.n_edges == 100 * (d + 1) * d // 2
        assert np.asarray(S.to_igraph().transitivity_local_undirected()) == pytest.approx(1.0)
    # 1000 blocks of three at ρ = 0.5: 125 ± 10.5 (sd) triangles from the blocks (the excess
    # is matched at random over 3000 nodes and closes almost none; without the triad
    # formation, which would complete the blocks' open paths); 37 at density ρ · 2/3
    S = generate_community_graph(one_community(3000, 2, 0.5), rng=np.random.default_rng(5),
                                 block_slope=0.0, closure=0.0)
    assert abs(len(S.to_igraph().cliques(3, 3)) - 125) < 40


def test_block_slope_makes_low_degree_blocks_denser() -> None:
    """ρ_d = min(1, ρ (h / d)^β): with β > 0 the degree-3 blocks get denser than with one
    density, the degree-10 blocks (d = h) keep ρ; β = 0 is one density for all blocks."""
    n = 440  # one community: 40 blocks of 4 nodes at degree 3, 25 of 11 at degree 10
    din = np.where(np.arange(n) < 160, 3, 10).astype(np.int64)
    rel = _given(np.zeros(n, dtype=np.int64), din, np.zeros(n, dtype=np.int64),
                 np.zeros((1, 1), dtype=np.int64), 0.5)
    assert rel.block_slope == 0.0  # the default prior: one density

    def local(beta: float) -> tuple[float, float]:
        cc = []
        for seed in range(4):
            S = generate_community_graph(rel, rng=np.random.default_rng(seed), block_slope=beta)
            c = np.nan_to_num(np.asarray(S.to_igraph().transitivity_local_undirected()))
            cc.append((c[:160].mean(), c[160:].mean()))
        return tuple(np.mean(cc, axis=0))

    flat_low, flat_high = local(0.0)
    steep_low, steep_high = local(1.0)
    assert steep_low > 1.5 * flat_low  # (10/3)^1 · 0.5 > 1: degree-3 blocks become cliques
    assert steep_high == pytest.approx(flat_high, abs=0.05)
    with pytest.raises(InvalidParameterError, match=r"'block_slope'.*-0\.5"):
        generate_community_graph(rel, rng=np.random.default_rng(0), block_slope=-0.5)
    with pytest.raises(InvalidParameterError, match="'block_slope' parameter of community_"):
        community_release(load_polbooks(), epsilon=1.0, nodes=load_polbooks().node_ids,
                          block_slope=3.0, backend=seeded(0))


def test_block_mixing_mixes_degrees_and_removes_the_degree_correlation() -> None:
    """σ = 0: BTER's blocks of equal degrees (assortative); σ > 0: each block holds nodes of
    different degrees and the generated graph's assortativity falls."""
    n = 1200  # one community, degrees 2..40 (a heavy tail of equal-degree blocks)
    din = np.minimum(2 + np.random.default_rng(5).zipf(1.8, n), 40).astype(np.int64)
    m = np.zeros(n, dtype=np.int64)
    rel = _given(m, din, np.zeros(n, dtype=np.int64), np.zeros((1, 1), dtype=np.int64), 0.6)
    assert rel.block_mixing == 0.0

    def spread(mixing: float) -> float:
        block, _ = affinity_blocks(din, m, np.random.default_rng(1), mixing)
        spans = [np.ptp(np.log(din[block == b])) for b in np.unique(block[block >= 0])]
        return float(np.mean(spans))

    assert spread(0.0) < 0.2 < 0.5 < spread(1.0)

    def assortativity(mixing: float) -> float:
        return float(np.mean([
            generate_community_graph(rel, rng=np.random.default_rng(seed), block_mixing=mixing)
            .to_igraph().assortativity_degree(directed=False) for seed in range(3)]))

    assert assortativity(1.0) < assortativity(0.0) - 0.1
    with pytest.raises(InvalidParameterError, match=r"'block_mixing'.*4\.5"):
        generate_community_graph(rel, rng=np.random.default_rng(0), block_mixing=4.5)
    for bad in ("some", "AUTO", -0.5, 4.5, math.nan, True):
        with pytest.raises(InvalidParameterError,
                           match=r"'block_mixing' parameter of community_release must be a "
                                 r"finite float in \[0, 4\] or 'auto'"):
            community_release(load_polbooks(), epsilon=1.0, nodes=load_polbooks().node_ids,
                              block_mixing=bad, backend=seeded(0))
    with pytest.raises(InvalidParameterError, match="'mixing' parameter of affinity_blocks"):
        affinity_blocks(din, m, np.random.default_rng(0), -1.0)


def test_auto_block_mixing_keeps_equal_degree_blocks_only_where_they_pay() -> None:
    """auto mixes where mixed blocks carry the released triangles (a graph whose triangles
    span degrees); falls back to σ = 0 where they fall short by more than the noise and
    equal-degree blocks carry them (a collaboration graph's cliques); where both fall short
    (a ring lattice's narrow degrees; disjoint cliques that the super-nodes of 20 split
    across communities, the cost of the rule: their truth has r = 1), keeps the mixed blocks
    at density 1, whose graph is far less assortative than the equal-degree one; a given σ
    is taken as it is; the record states the choice."""
    from pathlib import Path

    from graphanon.io import read_graph

    data = Path(__file__).resolve().parents[1] / "data" / "CA-GrQc.txt.gz"  # shipped
    Q = read_graph(str(data))
    grqc = community_release(Q, epsilon=1.0, nodes=Q.node_ids, backend=seeded(3),
                             rng=np.random.default_rng(3))
    assert grqc.block_mixing == 0.0 and grqc.block_density is not None
    assert grqc.release.params["block_mixing_selection"].startswith("auto: the first")
    assert "else 0 where equal-degree blocks reach it, else the first level at density 1" \
        in grqc.release.params["block_mixing_selection"]
    sizes = np.repeat([4, 6, 9, 13], [60, 30, 15, 8])  # disjoint cliques of four sizes
    us, vs, base = [], [], 0
    for s_ in sizes.tolist():
        i, j = np.triu_indices(s_, 1)
        us.append(i + base)
        vs.append(j + base)
        base += s_
    C = Graph.from_edges(np.concatenate(us), np.concatenate(vs), n_nodes=base)
    cliques = community_release(C, epsilon=20.0, nodes=C.node_ids, backend=seeded(6),
                                rng=np.random.default_rng(6))
    assert cliques.block_mixing == 1.0 and cliques.block_density == 1.0
    import networkx as nx

    L = nx.watts_strogatz_graph(600, 10, 0.1, seed=1)
    u, v = np.asarray(L.edges()).T
    W = Graph.from_edges(u, v, n_nodes=600)
    lattice = community_release(W, epsilon=5.0, nodes=W.node_ids, backend=seeded(2),
                                rng=np.random.default_rng(2))
    assert lattice.block_mixing == 1.0 and lattice.block_density == 1.0
    equal = replace(lattice, block_mixing=0.0)

    def assortativity(rel: Any) -> float:
        return float(np.median([generate_community_graph(rel, rng=np.random.default_rng(s))
                                .to_igraph().assortativity_degree(directed=False)
                                for s in range(3)]))

    truth = W.to_igraph().assortativity_degree(directed=False)
    assert abs(assortativity(lattice) - truth) < 0.1 < abs(assortativity(equal) - truth)

    # Holme–Kim: preferential attachment with triadic closure, triangles across degrees
    H = nx.powerlaw_cluster_graph(600, 4, 0.5, seed=1)
    u, v = np.asarray(H.edges()).T
    G = Graph.from_edges(u, v, n_nodes=600)
    auto = community_release(G, epsilon=20.0, nodes=G.node_ids, backend=seeded(2),
                             rng=np.random.default_rng(2))
    assert auto.block_mixing == 1.0 and auto.block_density < 1.0
    assert auto.release.params["block_mixing"] == 1.0
    given = community_release(G, epsilon=20.0, nodes=G.node_ids, block_mixing=0.0,
                              backend=seeded(2), rng=np.random.default_rng(2))
    assert given.block_mixing == 0.0
    assert given.release.params["block_mixing_selection"] == "given"
    unfitted = community_release(G, epsilon=20.0, nodes=G.node_ids, fit_clustering=False,
                                 backend=seeded(2), rng=np.random.default_rng(2))
    assert unfitted.block_mixing == 0.0
    assert unfitted.release.params["block_mixing_selection"] == "auto: 0 (fit_clustering=False)"


def test_triangle_statistic_variants_are_stated_in_the_record() -> None:
    G = load_polbooks()
    rel = community_release(G, epsilon=2.0, nodes=G.node_ids, triangle_statistic="count",
                            backend=seeded(4), rng=np.random.default_rng(4))
    h = rel.max_degree
    assert rel.release.params["triangle_statistic"] == "count"
    assert rel.release.params["sensitivities"]["triangles"] == h * (h - 1)
    assert rel.parts["triangles"].mechanism == "bounded-triangles"
    with pytest.raises(InvalidParameterError, match="'triangle_statistic' parameter of comm"):
        community_release(G, epsilon=2.0, nodes=G.node_ids, triangle_statistic="cubic",
                          backend=seeded(4))


def test_block_slope_applies_only_to_measurable_clustering() -> None:
    """The slope spreads clustering the release shows: above 1.5σ the release keeps the
    operator's slope; a graph without triangles (a tree) gets one density for all blocks.
    The default is one density."""
    G = load_polbooks()
    rel = community_release(G, epsilon=50.0, nodes=G.node_ids, block_slope=1 / 3,
                            backend=seeded(2), rng=np.random.default_rng(2))
    assert rel.block_slope == pytest.approx(1 / 3)
    assert rel.release.params["block_slope"] == pytest.approx(1 / 3)
    flat = community_release(G, epsilon=50.0, nodes=G.node_ids,
                             backend=seeded(2), rng=np.random.default_rng(2))
    assert flat.block_slope == 0.0 and flat.release.params["block_slope"] == 0.0
    n = 300  # a random tree: no triangles, the statistic is noise
    rng = np.random.default_rng(3)
    parent = np.array([int(rng.integers(i)) for i in range(1, n)])
    T = Graph.from_edges(np.arange(1, n), parent, n_nodes=n)
    tree = community_release(T, epsilon=1.0, nodes=T.node_ids, block_slope=1 / 3,
                             backend=seeded(3), rng=np.random.default_rng(3))
    assert tree.block_slope == 0.0 and tree.release.params["block_slope"] == 0.0


def test_inter_edges_match_stubs_so_every_node_gets_its_d_out() -> None:
    """Inter-community edges realize d_out exactly where the targets allow it: with d_out = 1
    everywhere they form a perfect matching between the two communities (drawing the ends
    ∝ d_out, Chung–Lu, leaves about e⁻¹ ≈ 37 % of such nodes without one). The top-up of
    the degree deficits stays inside the communities: matched over the whole graph, it
    added one or two more on half the seeds."""
    n = 400
    m = (np.arange(n) >= 200).astype(np.int64)
    din = np.full(n, 4, dtype=np.int64)
    dout = np.ones(n, dtype=np.int64)
    E = np.array([[0, 200], [200, 0]])
    rel = _given(m, din, dout, E, 0.5)
    for seed in range(4):
        S = generate_community_graph(rel, rng=np.random.default_rng(seed))
        u, v = S.edges()
        inter = m[u] != m[v]
        assert inter.sum() == 200
        assert (np.bincount(np.r_[u[inter], v[inter]], minlength=n) == 1).all()
        assert (S.degrees == 5).mean() >= 0.97, seed  # 4 inside, 1 across


def test_generation_restores_what_repeated_pairs_cost_at_hubs() -> None:
    """Hubs joined to each other lose configuration-model edges to repeats; the deficit is
    filled from their community, so the graph keeps the release's edge count."""
    rng = np.random.default_rng(3)
    n = 500
    din = np.minimum(np.round(rng.pareto(1.5, n) * 4 + 2), 200).astype(np.int64)
    din[int(np.argmax(din))] -= int(din.sum()) % 2
    m = np.zeros(n, dtype=np.int64)
    rel = _given(m, din, np.zeros(n, np.int64), np.zeros((1, 1), np.int64), 0.5)
    S = generate_community_graph(rel, rng=np.random.default_rng(4))
    assert S.n_edges >= 0.995 * int(din.sum()) // 2
    assert S.n_edges <= int(din.sum()) // 2


def test_a_stars_hub_gets_its_leaves() -> None:
    """A star (hub of degree 2000) beside a 60-clique: the hub is matched first, to distinct
    partners ∝ their stubs. Matched at random with the rest, about half its stubs met each
    other (loops) and the leaves paired among themselves."""
    n = 2061
    din = np.ones(n, dtype=np.int64)
    din[0] = 2000
    din[2001:] = 59
    m = np.zeros(n, dtype=np.int64)
    rel = _given(m, din, np.zeros(n, np.int64), np.zeros((1, 1), np.int64), 0.9)
    S = generate_community_graph(rel, rng=np.random.default_rng(5))
    target = int(din.sum()) // 2
    assert S.degrees[0] >= 0.98 * 2000
    assert 0.99 * target <= S.n_edges <= target


def test_hubs_get_their_degree_before_the_blocks() -> None:
    """An ego network: three hubs (d_in 400, 300, 250) in a community of 401 nodes of d_in 20
    at block density 1. Built after the blocks, which had used up every member's degree, the
    hubs kept about half of theirs (202/147/139) and the graph lost the hubs' edges to
    low-degree members; joined first, they get all of it, the members' blocks take what is
    left, and the edge count stays the release's."""
    n = 401
    din = np.full(n, 20, dtype=np.int64)
    din[:3] = (400, 300, 250)
    m = np.zeros(n, dtype=np.int64)
    rel = _given(m, din, np.zeros(n, np.int64), np.zeros((1, 1), np.int64), 1.0)
    for seed in range(3):
        S = generate_community_graph(rel, rng=np.random.default_rng(seed))
        assert np.abs(S.degrees[:3] - din[:3]).max() <= 1, seed
        assert S.n_edges == int(din.sum()) // 2
        old = generate_community_graph(rel, rng=np.random.default_rng(seed), hub_share=0.0)
        assert old.degrees[0] < 0.6 * 400
        # the hubs' edges go to low-degree members: less assortative than without them
        assert (S.to_igraph().assortativity_degree()
                < old.to_igraph().assortativity_degree() - 0.03)
    with pytest.raises(InvalidParameterError, match="hub_share"):
        generate_community_graph(rel, rng=np.random.default_rng(0), hub_share=1.5)


def test_hub_edges_are_distinct_and_inside_the_community() -> None:
    """``_hub_edges``: a hub is a node with ``d_in ≥ share · (s − 1)``; its partners are
    distinct nodes of its community with degree left, drawn ∝ it; two hubs are joined at most
    once; every edge takes one unit from each end's remaining ``d_in``."""
    rng = np.random.default_rng(7)
    m = np.repeat([0, 1], [50, 30]).astype(np.int64)
    din = rng.integers(1, 8, size=80).astype(np.int64)
    din[[0, 1, 50]] = (45, 30, 29)   # hubs at share 0.5: ≥ 24.5 (community 0), ≥ 14.5 (1)
    din[2] = 24                      # just below the threshold: not a hub
    keys, left = _hub_edges(din, m, 80, rng, 0.5)
    u, v = keys // 80, keys % 80
    assert np.unique(keys).size == keys.size and (u != v).all()
    assert (m[u] == m[v]).all()
    used = np.bincount(u, minlength=80) + np.bincount(v, minlength=80)
    assert (used + left == din).all() and (left >= 0).all()
    assert (left[[0, 1, 50]] == 0).all() and left[2] > 0
    hub_edges = np.isin(u, [0, 1, 50]) | np.isin(v, [0, 1, 50])
    assert hub_edges.all()  # only hubs start edges here
    assert used[0] == 45 and used[50] == 29  # room enough: every unit placed
    # partners ∝ their remaining d_in: a hub of 100 among 100 nodes of d_in 9 and 100 of
    # d_in 1 picks mostly heavy ones (∝ weight: about 86 of 100; uniformly: 50)
    m2 = np.zeros(201, dtype=np.int64)
    d2 = np.r_[100, np.full(100, 9), np.full(100, 1)].astype(np.int64)
    heavy = []
    for seed in range(5):
        k2, _ = _hub_edges(d2, m2, 201, np.random.default_rng(seed), 0.5)
        other = np.where(k2 // 201 == 0, k2 % 201, k2 // 201)
        heavy.append(int((other <= 100).sum()))
    assert k2.size == 100 and min(heavy) >= 75, heavy
    # no hub phase at share 0
    keys0, left0 = _hub_edges(din, m, 80, rng, 0.0)
    assert keys0.size == 0 and (left0 == din).all()


def test_closure_edges_close_triangles_within_the_excess() -> None:
    """Triad formation: every closure edge ``u − x`` has a common neighbour among the
    existing edges (it closes a triangle), no pair repeats or meets an existing edge, and no
    node gets more closure edges than its excess."""
    rng = np.random.default_rng(11)
    n = 300
    i, j = np.triu_indices(n, 1)
    pick = rng.random(i.size) < 0.03
    existing = np.sort(i[pick] * n + j[pick])
    excess = rng.integers(0, 4, size=n).astype(np.int64)
    keys = _closure_edges(excess, existing, n, rng, 1.0)
    assert keys.size > 50
    assert np.unique(keys).size == keys.size and not np.isin(keys, existing).any()
    u, v = keys // n, keys % n
    used = np.bincount(u, minlength=n) + np.bincount(v, minlength=n)
    assert (used <= excess).all()
    adj = [set() for _ in range(n)]
    for a, b in zip(existing // n, existing % n, strict=True):
        adj[a].add(b)
        adj[b].add(a)
    assert all(adj[a] & adj[b] for a, b in zip(u.tolist(), v.tolist(), strict=True))
    assert _closure_edges(excess, existing, n, rng, 0.0).size == 0
    # the greedy takes the candidates in random order: around a star's centre every leaf
    # of excess 1 proposes a random other leaf, and low and high ids fill alike (in key
    # order the low ids came first and took most of the capacity)
    star = np.arange(1, n, dtype=np.int64)  # keys 0·n + j
    excess1 = np.r_[0, np.ones(n - 1, dtype=np.int64)]
    low = high = 0
    for seed in range(5):
        keys = _closure_edges(excess1, star, n, np.random.default_rng(seed), 1.0)
        per = np.bincount(keys // n, minlength=n) + np.bincount(keys % n, minlength=n)
        low, high = low + per[1:n // 2].sum(), high + per[n // 2:].sum()
    assert abs(low - high) <= 0.1 * (low + high), (low, high)


def test_within_capacity_never_exceeds_what_is_left() -> None:
    with pytest.raises(ValueError, match="lie in"):
        greedy_within_capacity(np.array([0]), np.array([7]), np.array([1, 1]))
    with pytest.raises(ValueError, match="one length"):
        greedy_within_capacity(np.array([0, 1]), np.array([1]), np.array([1, 1]))
    rng = np.random.default_rng(4)
    for _ in range(20):
        u = rng.integers(0, 30, 200)
        v = (u + rng.integers(1, 30, 200)) % 30
        left = rng.integers(0, 5, 30).astype(np.int64)
        keep = greedy_within_capacity(u, v, left)
        used = np.bincount(u[keep], minlength=30) + np.bincount(v[keep], minlength=30)
        assert (used <= left).all()
        # greedy in order: every dropped candidate has an end with nothing left
        free = left - used
        assert not ((free[u[~keep]] > 0) & (free[v[~keep]] > 0)).any()


def test_triad_formation_raises_the_low_degree_nodes_clustering() -> None:
    """Blocks of degree-6 nodes at density 0.5, each node with excess left: with triad
    formation a share of that excess closes triangles through block neighbours, so the
    average clustering rises, at the same degrees and edge count."""
    n = 1000
    zeros = np.zeros(n, dtype=np.int64)
    rel = _given(zeros, np.full(n, 6, dtype=np.int64), zeros, np.zeros((1, 1), np.int64), 0.5)
    acc = {}
    for q in (0.0, 1.0):
        S = generate_community_graph(rel, rng=np.random.default_rng(2), closure=q)
        assert S.n_edges == 3 * n
        assert (S.degrees == 6).mean() > 0.97
        acc[q] = S.to_igraph().transitivity_avglocal_undirected(mode="zero")
    assert acc[1.0] > acc[0.0] + 0.05
    with pytest.raises(InvalidParameterError, match="closure"):
        generate_community_graph(rel, rng=np.random.default_rng(0), closure=-0.1)


def test_affinity_blocks_group_similar_degrees() -> None:
    d = np.array([1, 2, 2, 2, 3, 3, 3, 3, 9, 0], dtype=np.int64)
    block, starts = affinity_blocks(d, np.zeros(d.size, np.int64), np.random.default_rng(0))
    assert block[0] == -1 and block[9] == -1  # degrees below 2 are in no block
    # d=2: 3 nodes; d=3: 4 nodes; the degree-9 node (short of a block of 10) joins it
    assert list(np.diff(starts)) == [3, 5]
    assert block[8] == block[4]
    assert len(set(block[1:4].tolist())) == 1 and len(set(block[4:8].tolist())) == 1


def test_clustering_fit_tracks_the_released_statistic() -> None:
    """More released triangles, a denser block density (post-processing is monotone)."""
    from graphanon.synthetic.clustering import fit_block_density

    G = load_polbooks()
    rel = community_release(G, epsilon=4.0, nodes=G.node_ids, backend=seeded(3),
                            rng=np.random.default_rng(3), fit_clustering=False)
    t = bounded_triangles(G, rel.max_degree)
    lo = fit_block_density(rel, 0.3 * t, rng=np.random.default_rng(0))
    hi = fit_block_density(rel, 1.5 * t, rng=np.random.default_rng(0))
    assert 0 < lo < hi <= 1



def test_clustering_fit_lands_within_tol_in_fewer_runs_than_bisection(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Brent's method reaches the statistic of a known density within ``tol``, in
    fewer generator runs than the 9 of the bisection it replaced; ``steps=0`` is one run.
    A Holme–Kim graph of 2,000 nodes: its statistic grows smoothly with the density (on
    polbooks' 105 nodes it jumps by ±5 % between neighbouring densities)."""
    import networkx as nx

    import graphanon.synthetic.bter as bter_mod
    from graphanon.synthetic.clustering import fit_block_density

    edges = np.array(nx.powerlaw_cluster_graph(2000, 4, 0.5, seed=1).edges())
    G = Graph.from_edges(edges[:, 0], edges[:, 1], n_nodes=2000)
    rel = community_release(G, epsilon=4.0, nodes=G.node_ids, backend=seeded(3),
                            rng=np.random.default_rng(3), fit_clustering=False)
    seed = int(np.random.default_rng(0).integers(2**31))  # the fit's own draw

    def stat(rho: float) -> float:
        S = generate_community_graph(rel, rng=np.random.default_rng(seed), block_density=rho)
        return triangle_statistic(S, rel.max_degree, "smooth")

    target = stat(0.4)
    calls: list[float] = []
    real = bter_mod.generate_community_graph

    def counted(*args: Any, **kw: Any) -> Graph:
        calls.append(kw["block_density"])
        return real(*args, **kw)

    monkeypatch.setattr(bter_mod, "generate_community_graph", counted)
    tol = 0.02 * target
    rho = fit_block_density(rel, target, rng=np.random.default_rng(0), tol=tol)
    assert abs(stat(rho) - target) <= tol
    assert 3 <= len(calls) < 9 and calls[:2] == [1.0, 0.0]
    calls.clear()
    # steps=0 asks only whether density 1 reaches the target
    assert fit_block_density(rel, 2 * stat(1.0), rng=np.random.default_rng(0), steps=0) == 1.0
    assert fit_block_density(rel, target, rng=np.random.default_rng(0), steps=0) == 0.5
    assert calls == [1.0, 1.0]
    calls.clear()  # at most 1 + steps generator runs
    fit_block_density(rel, target, rng=np.random.default_rng(0), steps=1)
    assert calls == [1.0, 0.0]
    with pytest.raises(InvalidParameterError, match="'target' parameter"):
        fit_block_density(rel, math.nan, rng=np.random.default_rng(0))

def test_random_grouping_and_refinement_are_available() -> None:
    G = load_polbooks()
    p = private_partition(G, epsilon=2.0, nodes=G.node_ids, grouping="random",
                          refine_share=0.5, rounds=2, backend=seeded(8),
                          rng=np.random.default_rng(8))
    assert p.release.params["grouping"] == "random" and p.release.params["rounds"] == 2
    assert p.release.params["epsilon_split"] == {"supergraph": 1.0, "refine": 1.0}
    assert p.membership.shape == (G.n_nodes,) and p.membership.max() < p.n_communities
    with pytest.raises(InvalidParameterError, match="'grouping' parameter of private_partition"):
        private_partition(G, epsilon=1.0, nodes=G.node_ids, grouping="spectral")
    # a large stay weight keeps every node where it is
    m = np.arange(G.n_nodes) % 3
    assert (refine_partition(G, m, epsilon=0.1, backend=seeded(9), stay=50.0) == m).all()



def test_super_size_auto_caps_the_number_of_super_nodes() -> None:
    """``super_size="auto"``: with a released edge estimate Ẽ, ``g = √(√2 Ẽ ε)`` super-nodes
    (the average cell count equals the noise deviation), at most ``MAX_SUPER_NODES``;
    without one, 20 nodes per super-node up to 20,000 nodes. Public and released values
    only."""
    assert MAX_SUPER_NODES == 1000 and SUPER_SIZE == 20
    owner = "private_partition"
    assert [resolve_super_size("auto", n, owner) for n in (0, 105, 20_000, 20_001, 100_000)] \
        == [20, 20, 20, 21, 100]
    # ego-Facebook's size at ε = 1 (ε_super = 0.15): g = √(√2 · 88234 · 0.15) ≈ 136.8
    assert resolve_super_size("auto", 4039, owner, edge_estimate=88234, epsilon=0.15) == 30
    # more ε, more (smaller) super-nodes, down to 20; the cap still holds
    assert resolve_super_size("auto", 4039, owner, edge_estimate=88234, epsilon=0.3) == 21
    assert resolve_super_size("auto", 4039, owner, edge_estimate=88234, epsilon=0.6) == 20
    assert resolve_super_size("auto", 100_000, owner, edge_estimate=1e9, epsilon=1.0) == 100
    # a large sparse universe: fewer, larger super-nodes than the cap alone gives
    assert resolve_super_size("auto", 100_000, owner, edge_estimate=972_740,
                              epsilon=0.15) == 221
    # a noisy estimate below 1 counts as 1: one super-node for a tiny universe
    assert resolve_super_size("auto", 50, owner, edge_estimate=-7, epsilon=0.15) >= 50
    # a given size ignores the estimate
    assert resolve_super_size(7, 4039, owner, edge_estimate=88234, epsilon=0.15) == 7
    assert resolve_super_size(7, 100_000, owner) == 7
    for bad in ("big", 0, 2.5, True):
        with pytest.raises(InvalidParameterError, match="'super_size' parameter of "
                                                        "private_partition"):
            resolve_super_size(bad, 10, owner)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="'auto'"):
        resolve_super_size("big", 10, owner)
    # a universe of 30,000 nodes (few edges): 1,000 super-nodes of 30, stated in the record
    n = 30_000
    G = Graph.from_edges(np.arange(0, 200, 2), np.arange(1, 201, 2), n_nodes=n)
    p = private_partition(G, epsilon=1.0, nodes=G.node_ids, backend=seeded(4),
                          rng=np.random.default_rng(4))
    assert p.release.params["super_size"] == 30
    assert p.release.params["super_size_selection"].startswith("auto")
    given = private_partition(G, epsilon=1.0, nodes=G.node_ids, super_size=3000,
                              backend=seeded(4), rng=np.random.default_rng(4))
    assert given.release.params["super_size"] == 3000
    assert given.release.params["super_size_selection"] == "given"
    with pytest.raises(InvalidParameterError, match="'edge_estimate' parameter"):
        private_partition(G, epsilon=1.0, nodes=G.node_ids, edge_estimate=math.nan)
    # the community release draws its edge total first and sizes the super-nodes from it
    P = load_polbooks()
    rel = community_release(P, epsilon=1.0, nodes=P.node_ids, backend=seeded(5),
                            rng=np.random.default_rng(5))
    sel = rel.release.params["super_size_selection"]
    assert "released edge estimate" in sel
    est = float(sel.rsplit("= ", 1)[1])
    assert abs(est - P.n_edges) < 200  # Δ 1 at 0.05 · ε: a few tens of edges off
    assert rel.release.params["super_size"] == resolve_super_size(
        "auto", P.n_nodes, owner, edge_estimate=est, epsilon=0.15) == 20
    no_total = community_release(P, epsilon=1.0, nodes=P.node_ids, backend=seeded(5),
                                 rng=np.random.default_rng(5),
                                 split={**DEFAULT_SPLIT, "edge_total": 0.0})
    assert no_total.release.params["super_size"] == 20
    with pytest.raises(InvalidParameterError, match="'super_size' parameter"):
        community_release(P, epsilon=1.0, nodes=P.node_ids, super_size="big")


def test_super_size_reads_the_released_edge_total_not_the_true_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The size follows the value ``release_edge_total`` returns, whatever the true count:
    replacing the released value by a made-up one moves the size with it."""
    import graphanon.synthetic.communities as comm

    rng = np.random.default_rng(6)
    n = 3000
    u, v = rng.integers(0, n, 20_000), rng.integers(0, n, 20_000)
    G = Graph.from_edges(u[u != v], v[u != v], n_nodes=n)
    real = comm.release_edge_total
    seen: list[int] = []

    def made_up(*args: Any, **kw: Any) -> tuple[int, Any]:
        value, record = real(*args, **kw)
        seen.append(value)
        return 10_000, record

    monkeypatch.setattr(comm, "release_edge_total", made_up)
    rel = community_release(G, epsilon=1.0, nodes=G.node_ids, backend=seeded(6),
                            rng=np.random.default_rng(6), fit_clustering=False)
    size = rel.release.params["super_size"]
    # the partition's ε: the super-node counts' share (0.15)
    eps_p = DEFAULT_SPLIT["supergraph"]
    # g = √(√2 · 10,000 · 0.15) ≈ 46.1 super-nodes: 66 nodes each; from the true count
    # (about 20,000 edges) it would be 47
    assert size == resolve_super_size("auto", n, "t", edge_estimate=10_000, epsilon=eps_p) == 66
    assert resolve_super_size("auto", n, "t", edge_estimate=G.n_edges, epsilon=eps_p) != size
    assert rel.release.params["super_size_selection"].endswith("Ẽ = 10000")
    assert len(seen) == 1  # one edge total, drawn once, before the partition

def test_a_count_lost_in_noise_keeps_the_default_density_at_most() -> None:
    """A released triangle count below 1.5 noise deviations is not fitted: the default block
    density, lowered only if its graph has more triangles than ``max(T̃, 0)``."""
    from graphanon.synthetic.bter import DEFAULT_BLOCK_DENSITY
    from graphanon.synthetic.clustering import smooth_triangles

    G = load_polbooks()
    split = {**DEFAULT_SPLIT, "triangles": 1e-4}
    sigma = math.sqrt(2) * 38 * 59 / 20 / 1e-4  # smooth Δ at h = 20, ε_T = 1e-4
    # seed 2: a positive estimate above the default's triangles keeps the default
    rel = community_release(G, epsilon=1.0, nodes=G.node_ids, split=split, max_degree=20,
                            backend=seeded(2), rng=np.random.default_rng(2))
    assert 0 < rel.triangles <= 1.5 * sigma
    assert rel.block_density == DEFAULT_BLOCK_DENSITY == 0.5
    assert rel.release.params["block_density"] == 0.5
    S = generate_community_graph(rel, rng=np.random.default_rng(0))
    assert S.n_edges > 0
    # seed 1: a negative estimate lowers the density to the fit's floor, few triangles left
    low = community_release(G, epsilon=1.0, nodes=G.node_ids, split=split, max_degree=20,
                            backend=seeded(1), rng=np.random.default_rng(1))
    assert low.triangles < 0  # (below −1.5 σ too: only a large positive value is fitted)
    assert low.block_density is not None and low.block_density < 0.01
    lowered = [smooth_triangles(generate_community_graph(low, rng=np.random.default_rng(r)),
                                20) for r in range(3)]
    default = [smooth_triangles(generate_community_graph(
        low, rng=np.random.default_rng(r), block_density=DEFAULT_BLOCK_DENSITY), 20)
        for r in range(3)]
    assert np.mean(lowered) < np.mean(default)
    # a well-measured count is fitted
    fitted = community_release(G, epsilon=50.0, nodes=G.node_ids, max_degree=20,
                               backend=seeded(1), rng=np.random.default_rng(1))
    assert fitted.block_density is not None and fitted.block_density != 0.5


def test_a_graph_of_little_clustering_gets_a_lower_density() -> None:
    """An Erdős–Rényi graph (about 85 triangles) at ε = 4: its count is lost in the noise
    (here negative), so the density is lowered until the generator's statistic is at most
    ``max(T̃, 0) = 0``: the fit's floor, and the generated graph keeps about the random
    graph's own clustering (the default alone gave it many times more; the earlier cap
    ``max(T̃, 0) + σ`` let it keep a density far above the floor)."""
    from graphanon.synthetic.bter import DEFAULT_BLOCK_DENSITY

    rng = np.random.default_rng(11)
    n = 2000
    iu, ju = np.triu_indices(n, 1)
    keep = rng.random(iu.size) < 0.004
    G = Graph.from_edges(iu[keep], ju[keep], n_nodes=n)
    negative = []
    for s_ in range(6):  # lost in the noise on every seed; fitted to the floor where T̃ < 0
        rel = community_release(G, epsilon=4.0, nodes=G.node_ids, backend=seeded(s_),
                                rng=np.random.default_rng(s_))
        h = rel.max_degree
        sigma = math.sqrt(2) * h * (h - 1) / rel.release.params["epsilon_split"]["triangles"]
        assert rel.triangles <= 1.5 * sigma
        assert rel.block_density is not None and rel.block_density < DEFAULT_BLOCK_DENSITY
        if rel.triangles < 0:
            assert rel.block_density <= 0.01
            negative.append(rel)
    assert negative
    rel = negative[0]
    h = rel.max_degree
    low = generate_community_graph(rel, rng=np.random.default_rng(3))
    default = generate_community_graph(rel, rng=np.random.default_rng(3),
                                       block_density=DEFAULT_BLOCK_DENSITY)
    assert rel.triangles < 0 and rel.block_density <= 0.01
    assert bounded_triangles(low, h) <= 1.5 * bounded_triangles(G, h)
    assert bounded_triangles(low, h) < bounded_triangles(default, h) / 2


def test_generated_edge_count_stays_at_the_released_total() -> None:
    """The generator neither overshoots (trimmed Chung–Lu block degrees, a capped deficit
    matching) nor loses much to loops and repeats: within 8 % below Σ d / 2 (105 nodes)."""
    G = load_polbooks()
    for s in range(6):
        rel = community_release(G, epsilon=1.0, nodes=G.node_ids, backend=seeded(100 + s),
                                rng=np.random.default_rng(s))
        target = int(rel.d_in.sum() + rel.d_out.sum()) // 2
        S = generate_community_graph(rel, rng=np.random.default_rng(s))
        assert 0.92 * target <= S.n_edges <= target, (s, S.n_edges, target)


def test_generation_keeps_the_edge_count_when_hubs_fill_their_community() -> None:
    """Three hubs joined to every other node of their community of 40 leave the deficit
    fill no free pair at the hubs: the last top-up still reaches Σ d / 2 exactly."""
    n = 40
    din = np.full(n, 6, dtype=np.int64)
    din[:3] = n - 1
    if din.sum() % 2:
        din[3] += 1
    m = np.zeros(n, dtype=np.int64)
    rel = _given(m, din, np.zeros(n, dtype=np.int64), np.zeros((1, 1), dtype=np.int64), 1.0)
    for seed in range(20):
        S = generate_community_graph(rel, rng=np.random.default_rng(seed))
        assert S.n_edges == int(din.sum()) // 2, seed


def test_deficit_fill_respects_deficits_and_existing_pairs() -> None:
    """The top-up's stubs are drawn without replacement: no node gains more edges than its
    deficit, no pair repeats or meets an existing edge, partners come from the stub's
    community, and with room to spare the fill reaches the missing count."""
    from graphanon.synthetic.bter import _fill, _keys

    rng = np.random.default_rng(3)
    n = 300
    membership = np.repeat(np.arange(3), 100).astype(np.int64)
    stubs = rng.random(n) < 0.3  # the nodes with a deficit; partners drawn from the others
    deficit = np.where(stubs, rng.integers(1, 5, size=n), 0).astype(np.int64)
    weights = (~stubs).astype(np.int64)
    existing = _keys(np.arange(0, n - 1, dtype=np.int64), np.arange(1, n, dtype=np.int64), n)
    for seed in range(10):
        missing = int(deficit.sum()) // 2
        keys = _fill(deficit, membership, weights, existing, missing, n,
                     np.random.default_rng(seed))
        u, v = keys // n, keys % n
        assert keys.size == missing
        assert np.unique(keys).size == keys.size
        assert not np.isin(keys, existing).any()
        assert (membership[u] == membership[v]).all() and (u != v).all()
        assert (stubs[u] != stubs[v]).all()  # one end a stub, the other a partner
        gained = np.bincount(np.where(stubs[u], u, v), minlength=n)
        assert (gained <= deficit).all()
