"""The benchmark's reimplementations of published generators (``scripts/baselines.py``) and
the per-cell comparison (``scripts/compare_published.py``): they must do what their
docstrings say, or the comparison in docs/synthetic.md means nothing."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from graphanon.graph import Graph
from graphanon.privacy.noise import get_backend

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import baselines
import compare_published


def _planted(rng: np.random.Generator, blocks: int = 3, size: int = 30, p_in: float = 0.5,
             p_out: float = 0.02) -> tuple[Graph, np.ndarray]:
    n = blocks * size
    truth = np.repeat(np.arange(blocks), size)
    i, j = np.triu_indices(n, 1)
    p = np.where(truth[i] == truth[j], p_in, p_out)
    keep = rng.random(i.size) < p
    ids = np.array([f"n{k}" for k in rng.permutation(n)])
    G = Graph.from_edges(i[keep], j[keep], n_nodes=n, node_ids=ids)
    return G, truth


def _backend(seed: int):
    return get_backend("numpy-insecure", rng=np.random.default_rng(seed))


def _keys(G: Graph) -> set[tuple[int, int]]:
    u, v = G.edges()
    return {(int(min(a, b)), int(max(a, b))) for a, b in zip(u, v, strict=True)}


def test_tmf_keeps_the_node_ids_and_the_share_of_edges_theta_passes():
    G, _ = _planted(np.random.default_rng(1))
    eps, m = 50.0, G.n_edges
    S = baselines.tmf(G, eps, _backend(2), np.random.default_rng(3))
    assert list(S.node_ids) == list(G.node_ids)
    # m̃ = m + Lap(1/5), rounded: a few edges off at most; at ε_1 = 45 > ε_t the ln branch
    # gives θ just below 1, so a true edge passes with P(1 + L > θ) = 1 − ½ e^{−ε_1 (1 − θ)}
    # (about 3/4: Algorithm 1 keeps about a quarter of the edges out even at large ε)
    assert abs(S.n_edges - m) <= 3
    cells = G.n_nodes * (G.n_nodes - 1) // 2
    theta = baselines.tmf_threshold(cells, m, 45.0)
    p = 1 - 0.5 * np.exp(-45.0 * (1 - theta))
    kept = len(_keys(S) & _keys(G))
    assert abs(kept - p * m) <= 4 * np.sqrt(m * p * (1 - p)) + 3, (kept, p * m)


def test_tmf_at_small_epsilon_keeps_the_edges_theta_passes_and_random_cells():
    G, _ = _planted(np.random.default_rng(1))
    m, cells = G.n_edges, G.n_nodes * (G.n_nodes - 1) // 2
    S = baselines.tmf(G, 0.1, _backend(4), np.random.default_rng(5))
    # ε_1 = 0.09 < ε_t: θ = ε_t / (2 ε_1) ≈ 8.5, a true edge passes with ½ e^{−ε_1 (θ − 1)};
    # the rest of the m̃ cells are uniform pairs, which hit the other true edges by chance
    theta = baselines.tmf_threshold(cells, m, 0.09)
    p = 0.5 * np.exp(-0.09 * (theta - 1))
    fill = S.n_edges - p * m
    expected = p * m + fill * m * (1 - p) / (cells - p * m)
    true_kept = len(_keys(S) & _keys(G))
    assert abs(true_kept - expected) <= 4 * np.sqrt(m * p * (1 - p) + expected) + 3, \
        (true_kept, expected)
    # and far fewer than at large ε
    assert true_kept < 0.6 * m


@pytest.mark.parametrize(("cells", "m_t", "eps_1", "theta"), [
    # ε_1 < ε_t = ln(N/m̃ − 1): θ = ε_t / (2 ε_1)
    (5460, 441, 0.9, np.log(5460 / 441 - 1) / 1.8),
    (8_155_000, 88_234, 0.45, np.log(8_155_000 / 88_234 - 1) / 0.9),
    # ε_1 >= ε_t: θ = ln(N/(2m̃) + (e^ε_1 − 1)/2) / ε_1
    (5460, 441, 3.6, np.log(5460 / 882 + (np.exp(3.6) - 1) / 2) / 3.6),
    (100, 40, 2.0, np.log(100 / 80 + (np.exp(2.0) - 1) / 2) / 2.0)])
def test_tmf_threshold_is_algorithm_1s(cells, m_t, eps_1, theta):
    assert baselines.tmf_threshold(cells, m_t, eps_1) == pytest.approx(theta, rel=1e-12)


def test_random_pairs_are_distinct_new_pairs():
    rng = np.random.default_rng(0)
    n = 40
    taken = np.sort(np.array([0 * n + 1, 2 * n + 3, 5 * n + 9], dtype=np.int64))
    u, v = baselines._random_pairs(300, n, taken, rng)
    keys = np.minimum(u, v) * n + np.maximum(u, v)
    assert keys.size == 300 and np.unique(keys).size == 300
    assert not np.isin(keys, taken).any() and (u != v).all()


def test_shift_nonnegative_keeps_the_noisy_total():
    x = np.array([5.0, -3.0, 2.0, -1.0, 7.0, 0.0])
    y = baselines._shift_nonnegative(x)
    assert (y >= 0).all()
    assert abs(int(y.sum()) - 10) <= 1
    z = np.array([1.0, 4.0, 0.0])
    assert baselines._shift_nonnegative(z).tolist() == [1, 4, 0]


def test_privgraph_finds_planted_blocks_at_large_epsilon():
    from sklearn.metrics import normalized_mutual_info_score

    from graphanon.synthetic.communities import _louvain

    G, truth = _planted(np.random.default_rng(7), blocks=3, size=40)
    # super-nodes of one node: the initial partition is Louvain on the (barely) noisy graph,
    # and the adjustment keeps it (with random super-nodes of 4 it merges blocks, as the
    # one-pass adjustment does from a mixed start)
    S = baselines.privgraph(G, 200.0, _backend(8), np.random.default_rng(9), super_size=1)
    assert list(S.node_ids) == list(G.node_ids)
    assert abs(S.n_edges - G.n_edges) / G.n_edges < 0.25
    u, v = S.edges()
    found = _louvain(S.n_nodes, u, v, np.ones(u.size), 1)
    assert normalized_mutual_info_score(truth, found) > 0.8


class _Recording:
    """A backend that records every ``laplace`` call's sensitivity and ε."""

    def __init__(self, seed: int) -> None:
        self.inner = _backend(seed)
        self.calls: list[tuple[float, float]] = []

    def laplace(self, values, *, sensitivity, epsilon):
        self.calls.append((sensitivity, epsilon))
        return self.inner.laplace(values, sensitivity=sensitivity, epsilon=epsilon)


def _ring_lattice(n: int, k: int) -> Graph:
    u = np.repeat(np.arange(n), k // 2)
    v = (u + np.tile(np.arange(1, k // 2 + 1), n)) % n
    return Graph.from_edges(u, v, n_nodes=n)


def test_dgg_noises_degrees_at_sensitivity_2_and_builds_blocks_of_d_plus_1():
    G = _ring_lattice(50, 4)  # every degree 4
    backend = _Recording(11)
    S = baselines.dgg(G, 100.0, backend, np.random.default_rng(12))
    assert backend.calls == [(2, 100.0)]
    assert S.n_nodes == G.n_nodes
    # degrees 4 exactly: blocks of 5 consecutive nodes (stable order), density
    # ln 6 / ln 5 > 1 capped at 1: ten K5; no excess, so only the 0.1-weight Chung–Lu
    # edges (Σw = 5, each pair 0.002: 2.5 expected) come on top
    blocks = {(a, b) for s in range(0, 50, 5) for a in range(s, s + 5)
              for b in range(a + 1, s + 5)}
    assert blocks <= _keys(S)
    assert len(_keys(S) - blocks) <= 12


def test_dgg_blocks_follow_the_noisy_degree_order_at_the_stated_density():
    """A star's hub (id 0, degree 64) with 64 leaves, then a 4-regular ring lattice of 200
    nodes (ids 65..264). At ε = 100 the noisy degrees are exact: the stable sort puts the
    leaves first, the lattice in id order (blocks of 5 consecutive ids, density
    ln 6 / ln 65), the hub last, alone in its block: all its degree is excess, so the
    Chung–Lu phase gives it about 56 edges (PGB's slip, reading the excess target from the
    sorted sequence at the node's id, would give it the smallest degree's)."""
    lat = _ring_lattice(200, 4)
    lu, lv = lat.edges()
    leaves = np.arange(1, 65)
    u = np.concatenate([np.zeros(64, dtype=np.int64), lu + 65])
    v = np.concatenate([leaves, lv + 65])
    G = Graph.from_edges(u, v, n_nodes=265)
    assert G.degrees[0] == 64 and (G.degrees[65:] == 4).all()
    present, pairs, hub = 0, 0, []
    for seed in range(30):
        S = baselines.dgg(G, 100.0, _backend(100 + seed), np.random.default_rng(seed))
        keys = _keys(S)
        for start in range(65, 265, 5):
            for a in range(start, start + 5):
                for b in range(a + 1, start + 5):
                    present += (a, b) in keys
                    pairs += 1
        hub.append(int(S.degrees[0]))
    rho = np.log(6) / np.log(65)  # 0.429; ln 5 / ln 65 would be 0.386
    # block pairs: ρ, plus Chung–Lu's ≈ 0.009 chance for a pair of lattice nodes
    assert abs(present / pairs - (rho + 0.009 * (1 - rho))) < 0.02, present / pairs
    assert np.median(hub) > 40, hub


def test_dgg_keeps_node_ids_and_the_edge_count_at_large_epsilon():
    G, _ = _planted(np.random.default_rng(13), blocks=3, size=40)
    S = baselines.dgg(G, 100.0, _backend(14), np.random.default_rng(15))
    assert list(S.node_ids) == list(G.node_ids)
    # blocks give each node part of its degree, the Chung–Lu excess the rest (blocks
    # overshoot where ρ(d+1) > d, so the count is near, not equal)
    assert abs(S.n_edges - G.n_edges) / G.n_edges < 0.3


def test_dp1k_noises_the_histogram_at_sensitivity_4_and_realizes_it():
    G, _ = _planted(np.random.default_rng(16), blocks=3, size=30)
    backend = _Recording(17)
    S = baselines.dp1k(G, 100.0, backend, np.random.default_rng(18))
    assert backend.calls == [(4, 100.0)]
    # noise far below ½: the true (graphical) sequence, realized exactly by Havel–Hakimi
    assert S.n_nodes == G.n_nodes
    assert sorted(S.degrees.tolist()) == sorted(G.degrees.tolist())
    # realized by networkx's Havel–Hakimi, as PGB does (its tie order shapes the graph)
    import networkx as nx

    seq = sorted(G.degrees.tolist(), reverse=True)
    H = nx.havel_hakimi_graph(baselines.dp1k_sequence(np.bincount(G.degrees)).tolist())
    assert _keys(S) == {(min(a, b), max(a, b)) for a, b in H.edges()}
    assert sorted(S.degrees.tolist(), reverse=True) == seq


@pytest.mark.parametrize(("counts", "expected"), [
    ([0, 2, 1], [1, 1, 2]),                # even sum: as it is
    ([0, 3, 1], [1, 1, 1, 1, 2]),          # odd: one more node of degree 1 fixes it
    ([0, 0, 1, 1], [3, 2, 3]),             # odd: one more node of degree 2, still odd: +1
    ([0, 0, 0], []),
])
def test_dp1k_sequence_applies_pgbs_two_parity_fixes(counts, expected):
    assert baselines.dp1k_sequence(np.array(counts)).tolist() == expected


@pytest.mark.parametrize("seed", range(5))
def test_havel_hakimi_realizes_graphical_sequences_exactly(seed):
    import networkx as nx

    rng = np.random.default_rng(seed)
    g = nx.gnm_random_graph(60, 200, seed=seed)
    seq = np.array([d for _, d in g.degree()], dtype=np.int64)
    u, v = baselines.havel_hakimi(rng.permutation(seq))
    H = Graph.from_edges(u, v, n_nodes=seq.size)
    assert H.n_edges == u.size == seq.sum() // 2  # no repeated pair
    assert sorted(H.degrees.tolist()) == sorted(seq.tolist())


def test_havel_hakimi_drops_the_stubs_a_non_graphical_sequence_cannot_place():
    import networkx as nx

    seq = np.array([5, 5, 1, 1])  # not graphical: 4 nodes, degree 5
    assert not nx.is_graphical(seq.tolist())
    u, v = baselines.havel_hakimi(seq)
    H = Graph.from_edges(u, v, n_nodes=4)
    assert H.n_edges == u.size  # simple: no repeated pair, no loop
    assert (H.degrees <= seq).all()
    assert H.n_edges == 3  # node 0 takes all three others; node 1 has no partner left


def test_chung_lu_keeps_pairs_with_probability_w_u_w_v_over_total():
    rng = np.random.default_rng(19)
    w = np.full(200, 2.0)  # every pair with probability 4 / 400 = 0.01
    u, v = baselines._chung_lu(w, rng, chunk=37)
    pairs = 200 * 199 // 2
    assert (u < v).all()
    assert len(set(zip(u.tolist(), v.tolist(), strict=True))) == u.size
    assert abs(u.size - 0.01 * pairs) <= 4 * np.sqrt(pairs * 0.01 * 0.99)
    # weights above √Σw: capped at 1
    w2 = np.array([10.0, 10.0, 0.0, 0.0])
    u2, v2 = baselines._chung_lu(w2, rng)
    assert list(zip(u2.tolist(), v2.tolist(), strict=True)) == [(0, 1)]


@pytest.mark.parametrize(("ours", "best", "higher", "expected"), [
    (0.10, 0.10, False, (True, True)),
    (0.14, 0.10, False, (False, True)),
    (0.16, 0.10, False, (False, False)),
    (0.50, 0.60, True, (False, True)),
    (0.30, 0.60, True, (False, False)),
    (0.70, 0.60, True, (True, True)),
])
def test_judge(ours, best, higher, expected):
    assert compare_published.judge(ours, best, higher) == expected


def test_cells_pick_the_best_published_pipeline():
    med = [{"dataset": "g", "epsilon": 1.0, "pipeline": p, **vals} for p, vals in (
        ("synthesize-edge", {"edges_rel": 0.02, "nmi": 0.5}),
        ("tmf", {"edges_rel": 0.01, "nmi": 0.1, "evc_mae": 0.3}),
        ("privgraph", {"edges_rel": 0.2, "nmi": 0.4}))]
    for m in med:
        for key in compare_published.METRICS:
            m.setdefault(key, float("nan"))
    rows = {r["metric"]: r for r in compare_published.cells(med, "synthesize-edge",
                                                              ["tmf", "privgraph"])}
    assert set(rows) == {"edges_rel", "nmi", "evc_mae"}
    # a metric only a published pipeline has counts against ours
    assert not rows["evc_mae"]["at_least_as_good"] and not rows["evc_mae"]["within_1_5"]
    assert rows["edges_rel"]["best_pipeline"] == "tmf"
    assert not rows["edges_rel"]["at_least_as_good"] and not rows["edges_rel"]["within_1_5"]
    assert rows["nmi"]["best_pipeline"] == "privgraph" and rows["nmi"]["at_least_as_good"]


def test_each_pipeline_against_the_best_of_the_others():
    """``--each``: one cell per metric; ours wins edges, tmf NMI, privgraph nothing."""
    med = [{"dataset": "g", "epsilon": 1.0, "pipeline": p, **vals} for p, vals in (
        ("synthesize-edge", {"edges_rel": 0.01, "nmi": 0.3}),
        ("tmf", {"edges_rel": 0.014, "nmi": 0.6}),
        ("privgraph", {"edges_rel": 0.2, "nmi": 0.1}))]
    for m in med:
        for key in compare_published.METRICS:
            m.setdefault(key, float("nan"))
    out = compare_published.each(med, "synthesize-edge", ["tmf", "privgraph", "dgg"])
    lines = out.splitlines()
    # against the best of the others: ours 1 of 2 (edges 0.01 ≤ 0.014; NMI 0.3 < 0.6 / 1.5)
    assert "| synthesize-edge | 50 % / 50 % | 2 |" in lines
    assert "| tmf | 50 % / 100 % | 2 |" in lines  # NMI best; edges 0.014 ≤ 1.5 · 0.01
    assert "| privgraph | 0 % / 0 % | 2 |" in lines
    assert not any(line.startswith("| dgg") for line in lines)  # not in the run
    # head to head: ours beats privgraph on both, tmf on edges only
    assert "| tmf alone | 50 % / 50 % | 2 |" in lines
    assert "| privgraph alone | 100 % / 100 % | 2 |" in lines
    # ours listed among the published too: not compared with itself
    again = compare_published.each(med, "synthesize-edge", ["synthesize-edge", "tmf"])
    assert "| synthesize-edge alone" not in again and "| tmf alone | 50 % / 50 % | 2 |" in again
    # ours missing from the run: every published row is still there
    gone = compare_published.each(med[1:], "synthesize-edge", ["tmf", "privgraph"])
    assert "| tmf |" in gone and "| tmf alone | 0 % / 0 % | 0 |" in gone


def _medians(rows):
    med = [{"dataset": "g", "epsilon": 1.0, "pipeline": p, **vals} for p, vals in rows]
    for m in med:
        for key in compare_published.METRICS:
            m.setdefault(key, float("nan"))
    return med


def test_rerun_judges_fresh_seeds_against_the_first_runs_best(tmp_path):
    """``--rerun``: the first run's winner per metric (tmf on edges, privgraph on NMI) is
    rerun as ``winner@rerun``; ``best@rerun`` takes the best rerun value per metric."""
    first = _medians((("synthesize-edge", {"edges_rel": 0.012, "nmi": 0.5}),
                      ("tmf", {"edges_rel": 0.01, "nmi": 0.1}),
                      ("privgraph", {"edges_rel": 0.2, "nmi": 0.4})))
    second = _medians((("synthesize-edge", {"edges_rel": 0.02, "nmi": 0.45}),
                       ("tmf", {"edges_rel": 0.016, "nmi": 0.35}),
                       ("privgraph", {"edges_rel": 0.011, "nmi": 0.2})))
    rows = {m["pipeline"]: m for m in compare_published.rerun_rows(
        first, second, ["tmf", "privgraph"])}
    # winner: tmf's rerun edges (0.016), privgraph's rerun NMI (0.2)
    assert rows["winner@rerun"]["edges_rel"] == 0.016 and rows["winner@rerun"]["nmi"] == 0.2
    # best of the reruns: privgraph's edges 0.011, tmf's NMI 0.35
    assert rows["best@rerun"]["edges_rel"] == 0.011 and rows["best@rerun"]["nmi"] == 0.35
    rates = compare_published.rerun_rates(first, second, "synthesize-edge",
                                          ["tmf", "privgraph"])
    # against the first run's best (edges 0.01, NMI 0.4):
    assert rates["winner@rerun"] == (0.0, 0.0, 2)  # 0.016 > 0.015; 0.2 < 0.4 / 1.5
    assert rates["best@rerun"] == (0.0, 100.0, 2)  # 0.011 ≤ 0.015; 0.35 ≥ 0.267
    assert rates["synthesize-edge"] == (50.0, 100.0, 2)
    assert rates["synthesize-edge@rerun"] == (50.0, 50.0, 2)  # 0.02 > 0.015; NMI 0.45
    assert rates["tmf@rerun"] == (0.0, 50.0, 2)  # edges 0.016 > 0.015; NMI 0.35 ≥ 0.267
    table = compare_published.rerun_table(rates)
    assert "| winner@rerun | 0 % / 0 % | 2 |" in table.splitlines()
    # a pipeline or a (dataset, ε) the rerun lacks is a miss, not a dropped cell
    lacking = compare_published.rerun_rates(first, second[1:2], "synthesize-edge",
                                            ["tmf", "privgraph"])
    assert lacking["synthesize-edge@rerun"] == (0.0, 0.0, 2)
    assert lacking["privgraph@rerun"] == (0.0, 0.0, 2)
    # the winner is the first run's best even where its rerun is missing (tmf on edges)
    gone = compare_published.rerun_rows(first, second[2:], ["tmf", "privgraph"])
    win = next(m for m in gone if m["pipeline"] == "winner@rerun")
    assert math.isnan(win["edges_rel"]) and win["nmi"] == 0.2
    png = tmp_path / "bars.png"
    compare_published.rerun_plot(rates, png, "test")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_holdout_families_are_fixed_graphs_of_the_stated_kind():
    import families

    assert set(families.HOLDOUT).isdisjoint(families.FAMILIES)
    for name, n in (("rgg3d", 3000), ("triangular", 3000), ("ws_k3", 2000)):
        G = families.family_graph(name)
        H = families.family_graph(name)
        assert G.n_nodes == n
        assert _keys(G) == _keys(H)  # the same graph every time
    tri = families.family_graph("triangular")
    # a triangular lattice (interior degree 6), 5 % of its edges rewired: clustered
    assert np.median(tri.degrees) == 6
    assert tri.to_igraph().transitivity_undirected() > 0.2
    with pytest.raises(KeyError, match="unknown family 'nope'"):
        families.family_graph("nope")
