"""Edge-DP dK release: sensitivity audits, post-processing invariants, noise behaviour."""

from __future__ import annotations

import numpy as np
import pytest

from graphanon.datasets import load_polbooks
from graphanon.dk import dk_distribution
from graphanon.dk.generate import generate_2k, jdd_feasible
from graphanon.dk.release import (
    DegreeBoundWarning,
    InsecureReproductionWarning,
    LooseSensitivityWarning,
    dk_query,
    domain_partition,
    postprocess_1k,
    postprocess_2k,
    release_dk,
    sensitivity,
)
from graphanon.errors import InvalidParameterError
from graphanon.graph import Graph
from graphanon.privacy.noise import get_backend
from graphanon.privacy.sensitivity_audit import audit_sensitivity, random_graphs, small_graphs
from graphanon.reproduce.dk_thesis import release_dk_thesis, thesis_sensitivity

pytestmark = pytest.mark.filterwarnings("ignore::graphanon.privacy.noise.InsecureNoiseWarning")


def _family() -> list[Graph]:
    return small_graphs() + random_graphs((30, 60), rng=np.random.default_rng(7))


def _two_stars(h: int) -> tuple[Graph, Graph]:
    """Centres 0 and 1, each with h-1 leaves; G' joins the centres (extremal for 2K)."""
    leaves0 = np.arange(2, h + 1)
    leaves1 = np.arange(h + 1, 2 * h)
    u = np.concatenate([np.zeros(h - 1, dtype=np.int64), np.ones(h - 1, dtype=np.int64)])
    v = np.concatenate([leaves0, leaves1])
    G = Graph.from_edges(u, v, n_nodes=2 * h)
    return G, G.with_edges(np.append(u, 0), np.append(v, 1))


@pytest.mark.parametrize("h", [1, 2, 3, 5])
def test_audit_1k(h: int) -> None:
    claimed = sensitivity(1, h)[0]
    res = audit_sensitivity(lambda G: dk_query(G, d=1, h=h), _family(), neighbourhood="edge",
                            claimed=claimed, rng=np.random.default_rng(0), n_samples=50)
    assert res.passed, str(res)
    assert res.max_observed == claimed  # 4 is attained: the bound is tight


@pytest.mark.parametrize("h", [1, 2, 3, 4, 6])
def test_audit_2k_plain(h: int) -> None:
    claimed = sensitivity(2, h)[0]
    assert claimed == 4 * h - 3
    res = audit_sensitivity(lambda G: dk_query(G, d=2, h=h), _family(), neighbourhood="edge",
                            claimed=claimed, rng=np.random.default_rng(0), n_samples=50)
    assert res.passed, str(res)
    G, H = _two_stars(h)
    assert np.abs(dk_query(G, d=2, h=h) - dk_query(H, d=2, h=h)).sum() == 4 * h - 3


def test_observed_maximum_would_be_wrong() -> None:
    # calibrating with the observed max degree (instead of the public h) fails the audit
    def observed(G: Graph) -> np.ndarray:
        return dk_query(G, d=2, h=8)

    res = audit_sensitivity(observed, [_two_stars(3)[0]], neighbourhood="edge",
                            claimed=4 * 2 - 3)  # deg(G) = 2 here
    assert not res.passed


@pytest.mark.parametrize(("method", "param"), [("mdav", 3), ("mdav", 7), ("mpdc", 1),
                                               ("mpdc", 3)])
def test_audit_2k_microaggregated(method: str, param: int) -> None:
    h = 6
    part = domain_partition(h, method=method, k=param, tau=param)

    def f(G: Graph) -> np.ndarray:
        return np.bincount(part.labels, weights=dk_query(G, d=2, h=h),
                           minlength=part.n_clusters)

    claimed = sensitivity(2, h)[0]
    res = audit_sensitivity(f, _family(), neighbourhood="edge", claimed=claimed,
                            rng=np.random.default_rng(1), n_samples=50)
    assert res.passed, str(res)
    # far below Lemma 5's (4h+1)·z
    assert res.max_observed <= claimed < thesis_sensitivity(2, h, n_clusters=part.n_clusters,
                                                            rule="thesis")[0]


def test_domain_partitions_cover_domain() -> None:
    h = 12
    for part in (domain_partition(h, method="mpdc", tau=3), domain_partition(h, method="mdav",
                                                                            k=5)):
        assert part.labels.size == h * (h + 1) // 2
        assert (part.sizes() > 0).all()
    g = domain_partition(h, method="mpdc", tau=3)
    from graphanon.dk.extract import domain_cells

    cells = domain_cells(h)
    for c in range(g.n_clusters):
        q = cells[g.labels == c]
        assert (q.max(axis=0) - q.min(axis=0) <= 3).all()


def test_postprocess_2k_consistent() -> None:
    rng = np.random.default_rng(0)
    h = 15
    for _ in range(20):
        noisy = rng.integers(-5, 9, size=h * (h + 1) // 2)
        D = postprocess_2k(noisy, h)
        assert (D.counts > 0).all() and D.counts.dtype.kind == "i"
        assert jdd_feasible(D.degrees, D.counts)["divisible"]
        # with a released total the repairs stay consistent and near it (never farther
        # than the plain repair, which moves the total by up to k - 1 per class)
        start = int(np.clip(noisy, 0, None).sum())
        T = postprocess_2k(noisy, h, target=start)
        assert (T.counts > 0).all() and jdd_feasible(T.degrees, T.counts)["divisible"]
        assert abs(T.total - start) <= abs(D.total - start)


def test_postprocess_1k() -> None:
    D = postprocess_1k(np.array([-3, 2, 0, 1, 4, -1]), n_nodes=10)
    deg, cnt = D.degrees[:, 0], D.counts
    assert (cnt > 0).all()
    assert (deg * cnt).sum() % 2 == 0


@pytest.mark.parametrize(("micro", "kw"), [("none", {}), ("mdav", {"k": 5}),
                                           ("mpdc", {"tau": 3})])
def test_release_runs_and_generates(micro: str, kw: dict) -> None:
    G = load_polbooks()
    rng = np.random.default_rng(0)
    R = release_dk(G, d=2, epsilon=1.0, max_degree=25, microaggregation=micro,
                   backend=get_backend("numpy-insecure", rng=rng), rng=rng, seed=0, **kw)
    assert R.neighbourhood == "edge" and R.epsilon == 1.0 and R.sensitivity == 97
    assert R.release.params["max_degree"] == 25
    assert R.noisy.size == (325 if micro == "none" else R.partition.n_clusters)
    assert jdd_feasible(R.distribution.degrees, R.distribution.counts)["divisible"]
    S = generate_2k(R.distribution, rng=rng)
    assert S.graph.n_edges > 0
    rep = R.to_dict()
    assert {"n_clusters", "release"} <= set(rep) and "seconds" not in rep
    assert {"l1", "ks", "euclidean", "seconds"} <= set(rep["not_private"]) and "l1" not in rep


def test_release_is_noisy_and_unbiased_at_large_epsilon() -> None:
    G = load_polbooks()
    truth = dk_query(G, d=2, h=25)
    rng = np.random.default_rng(5)
    R = release_dk(G, d=2, epsilon=100.0, max_degree=25,
                   backend=get_backend("numpy-insecure", rng=rng), rng=rng)
    # Δ = 4h − 3 = 97 at ε = 100: scale ≈ 0.97, E|noise| ≈ 0.76 per cell over 325 cells
    assert np.abs(R.noisy - truth).sum() <= 325 * 1.2
    Rs = [release_dk(G, d=2, epsilon=1.0, max_degree=25,
                     backend=get_backend("numpy-insecure", rng=rng), rng=rng)
          for _ in range(40)]
    noise = np.stack([r.noisy - truth for r in Rs])
    # discrete Laplace with scale ≈ 97: mean ≈ 0, mean |noise| ≈ scale
    assert abs(noise.mean()) < 3
    assert 80 < np.abs(noise).mean() < 115
    # every domain cell is noised, including cells the graph does not have
    assert (noise[:, truth == 0] != 0).mean() > 0.9


def test_microaggregation_beats_plain_on_polbooks() -> None:
    G = load_polbooks()
    errs = {}
    for micro, kw in (("none", {}), ("mdav", {"k": 9}), ("mpdc", {"tau": 5})):
        vals = []
        for s in range(5):
            rng = np.random.default_rng(s)
            R = release_dk(G, d=2, epsilon=1.0, max_degree=25, microaggregation=micro,
                           backend=get_backend("numpy-insecure", rng=rng), rng=rng, **kw)
            vals.append(R.evaluation["euclidean"])
        errs[micro] = np.mean(vals)
    assert errs["mdav"] < errs["none"] and errs["mpdc"] < errs["none"]


def test_opendp_backend_default() -> None:
    R = release_dk(load_polbooks(), d=1, epsilon=0.5, max_degree=30)
    assert R.release.backend == "opendp" and R.release.seed is None
    assert R.sensitivity == 4


def test_warnings_and_errors() -> None:
    G = load_polbooks()
    with pytest.raises(InvalidParameterError, match="'max_degree' parameter of release_dk is "
                       "required without a public node universe"):
        release_dk(G, d=1, epsilon=1.0, max_degree=None)
    with pytest.warns(DegreeBoundWarning, match=r"\|nodes\| - 1 = 104"):
        R = release_dk(G, d=1, epsilon=1.0, max_degree=None, nodes=G.node_ids)
    assert R.max_degree == 104
    rng = np.random.default_rng(0)
    nb = get_backend("numpy-insecure", rng=rng)
    with pytest.warns(LooseSensitivityWarning):
        R = release_dk_thesis(G, d=2, epsilon=1.0, max_degree=25, microaggregation="mpdc",
                              tau=5, domain="public", sensitivity_rule="thesis", backend=nb,
                              rng=rng)
    assert R.sensitivity == 101 * R.partition.n_clusters
    assert R.release.neighbourhood == "edge"  # loose, but still a valid claim
    with pytest.warns(InsecureReproductionWarning):
        R = release_dk_thesis(G, d=2, epsilon=1.0, max_degree=25, microaggregation="mpdc",
                              tau=5, domain="observed", backend=nb, rng=rng)
    assert R.release.neighbourhood == "none" and R.release.epsilon is None
    assert R.mechanism.endswith("-observed-insecure")
    assert R.evaluation["sae_over"].startswith("observed")
    # the old keywords still reach the reproduction, with a deprecation warning
    with pytest.warns(DeprecationWarning, match="moved to graphanon.reproduce.dk_thesis"), \
            pytest.warns(InsecureReproductionWarning):
        R = release_dk(G, d=2, epsilon=1.0, max_degree=25, domain="observed", backend=nb,
                       rng=rng)
    assert R.release.neighbourhood == "none"
    with pytest.warns(DeprecationWarning):
        assert sensitivity(2, 10, rule="thesis", n_clusters=3)[0] == 41 * 3
    assert release_dk(G, d=1, epsilon=1.0, max_degree=10, domain="public",
                      sensitivity_rule="tight", backend=nb).release.neighbourhood == "edge"
    with pytest.raises(InvalidParameterError, match="'epsilon' parameter of release_dk"):
        release_dk(G, d=2, epsilon=0, max_degree=25)
    with pytest.raises(InvalidParameterError, match="'max_degree' parameter of release_dk"):
        release_dk(G, d=2, epsilon=1, max_degree=0)
    with pytest.raises(InvalidParameterError, match="'k' parameter"):
        release_dk(G, d=2, epsilon=1, max_degree=25, microaggregation="mdav")
    with pytest.raises(InvalidParameterError, match="'neighbourhood' parameter"):
        release_dk(G, d=2, epsilon=1, max_degree=25, neighbourhood="node")
    with pytest.raises(InvalidParameterError, match="must be 'none' for d = 1"):
        release_dk(G, d=1, epsilon=1, max_degree=25, microaggregation="mpdc", tau=1)


def test_top_coding_keeps_all_edges() -> None:
    G = load_polbooks()
    x = dk_query(G, d=2, h=5)
    assert x.sum() == G.n_edges
    assert dk_distribution(G, 2).total == G.n_edges


# ----------------------------------------------------------------------------- MDAV beyond h = 199
@pytest.mark.parametrize(("h", "k"), [(6, 4), (6, 9), (7, 2)])
def test_audit_2k_tiling(h: int, k: int) -> None:
    # summing the cells of a fixed public tiling keeps the L1 sensitivity 4h - 3
    from graphanon.dk.microaggregation import tile_partition

    part = tile_partition(h, k=k)

    def f(G: Graph) -> np.ndarray:
        return np.bincount(part.labels, weights=dk_query(G, d=2, h=h),
                           minlength=part.n_clusters)

    claimed = sensitivity(2, h)[0]
    res = audit_sensitivity(f, _family(), neighbourhood="edge", claimed=claimed,
                            rng=np.random.default_rng(2), n_samples=50)
    assert res.passed, str(res)
    G, H = _two_stars(h)
    assert np.abs(f(G) - f(H)).sum() <= claimed


def test_audit_1k_tiling() -> None:
    from graphanon.dk.microaggregation import tile_partition

    h = 5
    part = tile_partition(h, k=2, d=1)
    assert np.array_equal(part.labels, [0, 0, 1, 1, 2, 2])
    res = audit_sensitivity(
        lambda G: np.bincount(part.labels, weights=dk_query(G, d=1, h=h), minlength=3),
        _family(), neighbourhood="edge", claimed=4.0, rng=np.random.default_rng(3),
        n_samples=50)
    assert res.passed, str(res)


def test_tile_partition_shape() -> None:
    from graphanon.dk.extract import domain_cells
    from graphanon.dk.microaggregation import tile_partition

    h, k = 23, 10  # side 4
    part = tile_partition(h, k=k)
    assert part.method == "grid" and part.params == {"k": 10, "side": 4}
    cells = domain_cells(h)
    assert part.labels.size == cells.shape[0] and (part.sizes() > 0).all()
    assert part.sizes().max() == 16
    for c in range(part.n_clusters):
        q = cells[part.labels == c]
        assert (q.max(axis=0) - q.min(axis=0) <= 3).all()
    # the personalized AG-dK partition is the same object (no duplicate implementation)
    from graphanon.dk.personalized import _public_partition

    big = _public_partition(2, 250, 9)
    same = tile_partition(250, k=9)
    assert np.array_equal(big.labels, same.labels) and big.params == same.params


def test_mdav_release_above_h_199_uses_the_tiling() -> None:
    G = load_polbooks()
    rng = np.random.default_rng(0)
    nb = get_backend("numpy-insecure", rng=rng)
    part = domain_partition(250, method="mdav", k=9)  # 31,375 cells > 20,000
    assert part.method == "grid" and part.params["side"] == 3
    R = release_dk(G, d=2, epsilon=1.0, max_degree=250, microaggregation="mdav", k=9,
                   backend=nb, rng=rng)
    assert R.mechanism == "dk2-mdav" and R.sensitivity == 4 * 250 - 3
    p = R.release.params
    assert p["tile_side"] == 3 and "square tiling" in p["partition"]
    assert p["n_clusters"] == R.partition.n_clusters == R.noisy.size
    assert jdd_feasible(R.distribution.degrees, R.distribution.counts)["divisible"]
    R = release_dk(G, d=2, epsilon=1.0, max_degree=25, microaggregation="mdav", k=5,
                   backend=nb, rng=rng)
    assert R.partition.method == "mdav" and "tile_side" not in R.release.params
    assert R.release.params["partition"] == "MDAV over the public domain cells"


def test_private_edge_total_keeps_the_table_near_the_edge_count(tmp_path) -> None:
    """Issue 36 part 1: without a total, the noise on every one of the h(h+1)/2 cells
    (clipped at 0) is realized as edges; a private |E| (sensitivity 1, a share of ε) and the
    projection of the cells onto it keep the table near the true count."""
    import json
    import warnings

    from graphanon.cli import main
    from graphanon.datasets import load_polbooks
    from graphanon.dk.release import project_to_total
    from graphanon.privacy.noise import InsecureNoiseWarning, get_backend
    from graphanon.privacy.sensitivity_audit import audit_sensitivity, random_graphs, small_graphs

    G = load_polbooks()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)

        def run(total, seed):
            return release_dk(G, d=2, epsilon=1.0, max_degree=30, edge_total=total,
                              backend=get_backend("numpy-insecure",
                                                  rng=np.random.default_rng(seed)),
                              rng=np.random.default_rng(seed))

        plain = [run(None, s).distribution.total for s in range(4)]
        rels = [run(0.1, s) for s in range(4)]
    assert min(plain) > 20 * G.n_edges  # the noise realized as edges
    for r in rels:
        p = r.release.params
        assert p["edge_total_fraction"] == 0.1 and p["epsilon_edge_total"] == pytest.approx(0.1)
        assert p["epsilon_cells"] == pytest.approx(0.9) and r.release.epsilon == 1.0
        assert abs(p["edge_total"] - G.n_edges) < 120  # DLap(1/0.1): |noise| < 120 w.p. ~1
        assert abs(r.distribution.total - p["edge_total"]) <= 0.25 * p["edge_total"]
    # the count's sensitivity under edge neighbours is 1 (audit)
    res = audit_sensitivity(lambda H: [H.n_edges], small_graphs()[:40] + random_graphs(
        (30,), rng=np.random.default_rng(0)), neighbourhood="edge", claimed=1.0)
    assert res.passed and res.max_observed == 1.0
    # the projection: non-negative integers summing to the total, shifting by one constant
    y = project_to_total(np.array([5.0, -3.0, 10.0, 1.0]), 9)
    assert y.tolist() == [2, 0, 7, 0] and project_to_total(np.array([1.0, 1.0]), 0).sum() == 0
    assert project_to_total(np.array([0.0, 0.0, 0.0]), 3).sum() == 3
    # refused where it does not apply; the CLI takes it
    with pytest.raises(InvalidParameterError, match=r"'edge_total'.*d = 2"):
        release_dk(G, d=1, epsilon=1.0, max_degree=30, edge_total=0.1)
    with pytest.raises(InvalidParameterError, match="'edge_total'"):
        release_dk(G, d=2, epsilon=1.0, max_degree=30, edge_total=1.5)
    src = tmp_path / "g.txt"
    u, v = G.edges()
    src.write_text("".join(f"{a} {b}\n" for a, b in zip(u, v, strict=True)))
    out, rep = tmp_path / "t.tsv", tmp_path / "t.json"
    assert main(["-q", "release-dk", str(src), "--d", "2", "--epsilon", "1", "--max-degree",
                 "30", "--edge-total", "0.1", "--noise", "numpy-insecure", "--seed", "2",
                 "--out", str(out), "--report", str(rep)]) == 0
    assert json.loads(rep.read_text())["release"]["params"]["edge_total"] > 0
    assert main(["-q", "release-dk", str(src), "--d", "2", "--epsilon", "1", "--max-degree",
                 "30", "--edge-total", "0.1", "--domain", "observed", "--out",
                 str(tmp_path / "x.tsv")]) == 2


def test_degree_bound_chosen_privately(tmp_path) -> None:
    """Issue 36 part 2: max_degree='auto' spends bound_fraction·ε on Hay's degree sequence
    (edge-DP, sensitivity 2) and takes its quantile; the rest goes to the release."""
    import json
    import warnings

    from graphanon.cli import main
    from graphanon.datasets import load_polbooks
    from graphanon.privacy.noise import InsecureNoiseWarning, get_backend

    G = load_polbooks()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        hs = []
        for s in range(4):
            r = release_dk(G, d=2, epsilon=2.0, max_degree="auto", nodes=G.node_ids,
                           edge_total=0.1, backend=get_backend(
                               "numpy-insecure", rng=np.random.default_rng(s)),
                           rng=np.random.default_rng(s))
            p = r.release.params
            assert p["epsilon_max_degree"] == pytest.approx(0.2)
            assert p["epsilon_cells"] == pytest.approx(2.0 - 0.2 - 0.2)
            assert r.release.epsilon == 2.0 and p["max_degree"] == r.max_degree
            hs.append(r.max_degree)
    q95 = np.quantile(G.degrees[G.degrees > 0], 0.95)
    assert all(abs(h - q95) <= 15 for h in hs) and len(set(hs)) > 1  # private: it varies
    with pytest.raises(InvalidParameterError, match=r"'max_degree'.*'auto' only with the "
                                                    r"public node set"):
        release_dk(G, d=2, epsilon=1.0, max_degree="auto")
    with pytest.raises(InvalidParameterError, match=r"'max_degree'.*'auto'"):
        release_dk(G, d=2, epsilon=1.0, max_degree="big", nodes=G.node_ids)
    src, nodes = tmp_path / "g.txt", tmp_path / "nodes.txt"
    u, v = G.edges()
    src.write_text("".join(f"{a} {b}\n" for a, b in zip(u, v, strict=True)))
    nodes.write_text("".join(f"{x}\n" for x in G.node_ids))
    rep = tmp_path / "r.json"
    assert main(["-q", "release-dk", str(src), "--d", "2", "--epsilon", "1", "--max-degree",
                 "auto", "--nodes", str(nodes), "--noise", "numpy-insecure", "--seed", "1",
                 "--out", str(tmp_path / "t.tsv"), "--report", str(rep)]) == 0
    assert "quantile" in json.loads(rep.read_text())["release"]["params"][
        "max_degree_selection"]
    for bad in (["--max-degree", "auto"], ["--max-degree", "zero", "--nodes", str(nodes)]):
        out = tmp_path / "x.tsv"
        assert main(["-q", "release-dk", str(src), "--d", "2", "--epsilon", "1", *bad,
                     "--out", str(out)]) == 2
        assert not out.exists()
