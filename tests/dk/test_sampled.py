"""The thresholded release and its sampled form: same distribution as the dense release."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import graphanon.dk.release as rel_mod
from graphanon.cli import main
from graphanon.datasets import data_path, load_polbooks
from graphanon.dk.extract import DKDistribution, cell_index, domain_cells
from graphanon.dk.generate import generate_2k, jdd_feasible
from graphanon.dk.release import (
    cell_coordinates,
    crossing_probability,
    default_threshold,
    dk_query,
    dk_query_sparse,
    postprocess_2k,
    postprocess_2k_sparse,
    release_dk,
    sampled_threshold_noise,
)
from graphanon.errors import InvalidParameterError
from graphanon.io.dk_tables import read_dk_table
from graphanon.privacy.noise import dp_scale, get_backend

pytestmark = pytest.mark.filterwarnings("ignore::graphanon.privacy.noise.InsecureNoiseWarning")


def _dense_postprocess_2k(values: np.ndarray, h: int) -> DKDistribution:
    """The original dense O(h²) consistency repair: reference for the sparse one."""
    x = np.clip(np.rint(np.asarray(values, dtype=np.float64)), 0, None).astype(np.int64)
    cells = domain_cells(h)
    M = np.zeros((h + 1, h + 1), dtype=np.int64)
    M[cells[:, 0], cells[:, 1]] = x
    M = M + np.triu(M, 1).T
    for k in range(h, 1, -1):
        r = int(M[k].sum() + M[k, k]) % k
        if r == 0:
            continue
        row = M[k, 1:k]
        removable = int(row.sum())
        if (r <= k - r and removable >= r) or (removable >= r and k - r > removable):
            for _ in range(r):
                row[int(np.argmax(row))] -= 1
        else:
            weights = row.astype(np.float64)
            if weights.sum() == 0:
                weights = np.zeros(k - 1)
                weights[0] = 1.0
            for _ in range(k - r):
                j = int(np.argmax(weights))
                row[j] += 1
                weights[j] -= 1.0
        M[1:k, k] = row
    out = M[cells[:, 0], cells[:, 1]]
    keep = np.flatnonzero(out)
    return DKDistribution("joint_degree", cells[keep], out[keep])


# ----------------------------------------------------------------------------- building blocks
@pytest.mark.parametrize("h", [1, 2, 7, 120, 5241])
def test_cell_coordinates_inverts_cell_index(h: int) -> None:
    if h <= 120:
        cells = domain_cells(h)
        assert np.array_equal(cell_coordinates(np.arange(cells.shape[0]), h), cells)
    rng = np.random.default_rng(h)
    i = rng.integers(1, h + 1, 2000)
    j = rng.integers(1, h + 1, 2000)
    i, j = np.minimum(i, j), np.maximum(i, j)
    back = cell_coordinates(cell_index(i, j, h), h)
    assert np.array_equal(back, np.stack([i, j], axis=1))


def test_cell_coordinates_huge_domain() -> None:
    h = 3_000_000  # 4.5e12 cells: positions near the float precision limits
    i = np.array([1, 1, 2, h // 2, h - 1, h], dtype=np.int64)
    j = np.array([1, h, 2, h // 2 + 7, h, h], dtype=np.int64)
    assert np.array_equal(cell_coordinates(cell_index(i, j, h), h), np.stack([i, j], 1))


def test_sparse_postprocess_equals_dense_repair() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        h = int(rng.integers(1, 30))
        n = h * (h + 1) // 2
        v = rng.integers(-20, 40, n) * (rng.random(n) < rng.random())
        want = _dense_postprocess_2k(v, h)
        got = postprocess_2k(v, h)
        assert np.array_equal(got.degrees, want.degrees)
        assert np.array_equal(got.counts, want.counts)
        idx = np.flatnonzero(v)
        via_sparse = postprocess_2k_sparse(idx, v[idx], h)
        assert np.array_equal(via_sparse.counts, want.counts)


def test_dk_query_sparse_matches_dense() -> None:
    G = load_polbooks()
    for d, h in ((1, 10), (2, 10), (2, 104)):
        dense = dk_query(G, d=d, h=h)
        cells, counts, n = dk_query_sparse(G, d=d, h=h)
        assert n == dense.size
        assert np.array_equal(cells, np.flatnonzero(dense))
        assert np.array_equal(counts, dense[cells])


def test_default_threshold_is_public_and_bounds_false_cells() -> None:
    for scale, n in ((2.0, 10**6), (20961.0, 13_741_903), (0.5, 100)):
        tau = default_threshold(scale, n)
        assert tau >= 1
        assert n * crossing_probability(scale, tau) < 1.0  # < 1 expected all-noise cell
    # the crossing probability is the discrete Laplace tail
    scale, tau = 3.0, 4
    a = np.exp(-1 / scale)
    z = np.arange(tau, 400)
    tail = ((1 - a) / (1 + a) * a ** z).sum()
    assert crossing_probability(scale, tau) == pytest.approx(tail, rel=1e-12)


# ----------------------------------------------------------------------------- equivalence
def _dense_thresholded(x: np.ndarray, sens: float, eps: float, tau: int, nb) -> tuple:
    y = nb.discrete_laplace(x, sensitivity=sens, epsilon=eps)
    keep = np.flatnonzero(y >= tau)
    return keep, y[keep]


def _pooled_chi2(a: np.ndarray, b: np.ndarray) -> float:
    """p-value of a two-sample chi-square on integer samples (sparse bins pooled)."""
    lo, hi = min(a.min(), b.min()), max(a.max(), b.max())
    ca = np.bincount(a - lo, minlength=hi - lo + 1)
    cb = np.bincount(b - lo, minlength=hi - lo + 1)
    table, acc = [], np.zeros(2)
    for u, v in zip(ca, cb, strict=True):
        acc += (u, v)
        if acc.sum() >= 20:
            table.append(acc.copy())
            acc[:] = 0
    if table:
        table[-1] += acc
    t = np.array(table).T
    if t.shape[1] < 2:
        return 1.0
    return float(stats.chi2_contingency(t)[1])


@pytest.mark.parametrize("tau", [1, 3])
def test_sampled_form_has_the_law_of_the_dense_thresholded_release(tau: int) -> None:
    h = 6
    n = h * (h + 1) // 2
    x = np.zeros(n, dtype=np.int64)
    x[[0, 4, 9, 17]] = [3, 1, 12, 6]
    sens, eps = 21.0, 10.0  # scale ≈ 2.1
    cells, counts = np.flatnonzero(x), x[np.flatnonzero(x)]
    reps = 3000
    nb_d = get_backend("numpy-insecure", rng=np.random.default_rng(1))
    nb_s = get_backend("numpy-insecure", rng=np.random.default_rng(2))
    d_n, s_n, d_zero_vals, s_zero_vals = [], [], [], []
    d_incl, s_incl = np.zeros(n), np.zeros(n)
    d_v9, s_v9 = [], []
    for _ in range(reps):
        kd, vd = _dense_thresholded(x, sens, eps, tau, nb_d)
        ks_, vs = sampled_threshold_noise(cells, counts, n, sensitivity=sens, epsilon=eps,
                                          threshold=tau, backend=nb_s)
        assert np.all(np.diff(ks_) > 0) and np.all(vs >= tau)
        d_n.append(kd.size)
        s_n.append(ks_.size)
        d_incl[kd] += 1
        s_incl[ks_] += 1
        d_zero_vals.extend(vd[x[kd] == 0].tolist())
        s_zero_vals.extend(vs[x[ks_] == 0].tolist())
        d_v9.extend(vd[kd == 9].tolist())
        s_v9.extend(vs[ks_ == 9].tolist())
    # number of released cells, values of released zero cells, values of a non-zero cell
    assert _pooled_chi2(np.array(d_n), np.array(s_n)) > 1e-3
    assert _pooled_chi2(np.array(d_zero_vals), np.array(s_zero_vals)) > 1e-3
    assert _pooled_chi2(np.array(d_v9), np.array(s_v9)) > 1e-3
    # which cells are released: one 2 x n contingency table
    assert stats.chi2_contingency(np.stack([d_incl, s_incl]))[1] > 1e-3
    # and against the closed form: each zero cell crosses with π
    pi = crossing_probability(dp_scale(sens, eps), tau)
    zero = x == 0
    expected = reps * pi * zero.sum()
    assert abs(s_incl[zero].sum() - expected) < 5 * np.sqrt(expected)


def test_equivalence_test_has_power_against_observed_only_noise() -> None:
    # the insecure shortcut (noise only the observed cells) is detected by the same statistic
    h, tau, sens, eps = 6, 1, 21.0, 10.0
    n = h * (h + 1) // 2
    x = np.zeros(n, dtype=np.int64)
    x[[0, 4, 9, 17]] = [3, 1, 12, 6]
    nb = get_backend("numpy-insecure", rng=np.random.default_rng(3))
    dense = [_dense_thresholded(x, sens, eps, tau, nb)[0].size for _ in range(500)]
    obs = np.flatnonzero(x)
    leaky = [int((nb.discrete_laplace(x[obs], sensitivity=sens, epsilon=eps) >= tau).sum())
             for _ in range(500)]
    assert _pooled_chi2(np.array(dense), np.array(leaky)) < 1e-6


def test_release_dk_sampled_matches_dense_after_postprocessing() -> None:
    G = load_polbooks()
    kw = {"d": 2, "epsilon": 2.0, "max_degree": 8, "threshold": 4}
    nb_d = get_backend("numpy-insecure", rng=np.random.default_rng(10))
    nb_s = get_backend("numpy-insecure", rng=np.random.default_rng(11))
    rng = np.random.default_rng(0)
    dense = [release_dk(G, form="dense", backend=nb_d, rng=rng, **kw) for _ in range(300)]
    samp = [release_dk(G, form="sampled", backend=nb_s, rng=rng, **kw) for _ in range(300)]
    assert dense[0].release.params["form"] == "dense"
    assert samp[0].release.params["form"] == "sampled"
    assert samp[0].mechanism == "dk2-laplace-thresholded"
    for stat in (lambda r: r.distribution.total, lambda r: r.distribution.n_tuples):
        a = np.array([stat(r) for r in dense])
        b = np.array([stat(r) for r in samp])
        assert stats.ks_2samp(a, b).pvalue > 1e-3
    # every released (pre-repair) value is >= threshold in both forms
    assert all((r.noisy[r.noisy != 0] >= 4).all() for r in dense)
    assert all((r.noisy >= 4).all() for r in samp)


# ----------------------------------------------------------------------------- the release
def test_auto_form_switches_on_public_domain_size(monkeypatch: pytest.MonkeyPatch) -> None:
    G = load_polbooks()
    rng = np.random.default_rng(0)
    nb = get_backend("numpy-insecure", rng=rng)
    R = release_dk(G, d=2, epsilon=1.0, max_degree=25, backend=nb, rng=rng)
    assert R.release.params["form"] == "dense" and R.release.params["threshold"] is None
    monkeypatch.setattr(rel_mod, "SAMPLED_ABOVE", 300)
    R = release_dk(G, d=2, epsilon=1.0, max_degree=25, backend=nb, rng=rng)
    p = R.release.params
    assert p["form"] == "sampled" and p["n_domain_cells"] == 325
    assert p["threshold"] == default_threshold(p["noise_scale"], 325)
    assert R.n_clusters == 325 and R.noisy_cells is not None
    # microaggregated releases stay dense (one answer per cluster)
    R = release_dk(G, d=2, epsilon=1.0, max_degree=25, microaggregation="mpdc", tau=3,
                   backend=nb, rng=rng)
    assert R.release.params["form"] == "dense"


def test_large_domain_is_not_materialized() -> None:
    G = load_polbooks()
    rng = np.random.default_rng(0)
    R = release_dk(G, d=2, epsilon=1.0, max_degree=20_000,
                   backend=get_backend("numpy-insecure", rng=rng), rng=rng)
    assert R.release.params["form"] == "sampled"
    assert R.release.params["n_domain_cells"] == 200_010_000  # 10x the dense limit
    assert R.noisy.size < 100  # the dense form would hold 2·10⁸ cells (1.6 GB)
    # a low public threshold: many released cells, still a consistent, generable table
    R = release_dk(G, d=2, epsilon=1.0, max_degree=300, threshold=300,
                   backend=get_backend("numpy-insecure", rng=rng), rng=rng)
    assert R.release.params["form"] == "dense"  # 45,150 cells: below the switch
    # scale ≈ 1200, τ = 8·scale: ≈ 1.1e6 · e^-8 / 2 ≈ 190 all-noise cells expected
    R = release_dk(G, d=2, epsilon=5.0, max_degree=1500, threshold=9600,
                   backend=get_backend("numpy-insecure", rng=rng), rng=rng)
    assert R.release.params["form"] == "sampled" and 100 < R.noisy.size < 400
    assert jdd_feasible(R.distribution.degrees, R.distribution.counts)["divisible"]


def test_thresholded_dense_release_and_1k() -> None:
    G = load_polbooks()
    rng = np.random.default_rng(0)
    nb = get_backend("numpy-insecure", rng=rng)
    R = release_dk(G, d=2, epsilon=1.0, max_degree=25, threshold=50, backend=nb, rng=rng)
    assert R.release.params["threshold"] == 50
    assert ((R.noisy == 0) | (R.noisy >= 50)).all()
    S = generate_2k(R.distribution, rng=rng) if R.distribution.n_tuples else None
    assert S is None or S.graph.n_edges > 0
    R1 = release_dk(G, d=1, epsilon=1.0, max_degree=30, form="sampled", threshold=2,
                    backend=nb, rng=rng)
    assert R1.mechanism == "dk1-laplace-thresholded" and R1.sensitivity == 4
    assert (R1.distribution.degrees[:, 0] * R1.distribution.counts).sum() % 2 == 0


def test_form_and_threshold_errors() -> None:
    G = load_polbooks()
    with pytest.raises(InvalidParameterError, match="'threshold' parameter of release_dk"):
        release_dk(G, d=2, epsilon=1, max_degree=25, threshold=0)
    with pytest.raises(InvalidParameterError, match="'form' parameter of release_dk"):
        release_dk(G, d=2, epsilon=1, max_degree=25, form="sparse")
    with pytest.raises(InvalidParameterError, match="'sampled' only without"):
        release_dk(G, d=2, epsilon=1, max_degree=25, form="sampled",
                   microaggregation="mdav", k=3)
    with pytest.raises(InvalidParameterError, match="dense release"):
        release_dk(G, d=2, epsilon=1, max_degree=7000, form="dense")


def test_cli_sampled_release_then_generate(tmp_path: Path) -> None:
    polbooks = str(data_path("polbooks.gml"))
    table, rep, out = tmp_path / "r.tsv", tmp_path / "r.json", tmp_path / "g.txt"
    rc = main(["-q", "release-dk", polbooks, "--d", "2", "--epsilon", "5", "--max-degree",
               "25", "--form", "sampled", "--threshold", "20", "--noise", "numpy-insecure",
               "--seed", "3", "--out", str(table), "--report", str(rep)])
    assert rc == 0
    report = json.loads(rep.read_text())
    assert report["form"] == "sampled" and report["threshold"] == 20
    assert report["release"]["mechanism"] == "dk2-laplace-thresholded"
    assert report["release"]["params"]["n_domain_cells"] == 325
    t = read_dk_table(table)
    assert t.n_tuples > 0
    assert main(["-q", "generate", str(table), "--d", "2", "--seed", "1", "--out",
                 str(out)]) == 0
    assert out.exists()
    rc = main(["-q", "release-dk", polbooks, "--d", "2", "--epsilon", "1", "--neighbourhood",
               "node", "--threshold", "3", "--out", str(tmp_path / "x.tsv")])
    assert rc == 2 and not (tmp_path / "x.tsv").exists()
