"""Noise backends: calibration through OpenDP's map, distributions, per-scale grouping."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from fake_random import then_random
from scipy import stats

from graphanon.errors import InvalidParameterError
from graphanon.privacy import noise as noise_mod
from graphanon.privacy.noise import (
    InsecureNoiseWarning,
    NoiseBackend,
    continuous_scale,
    dp_scale,
    get_backend,
    opendp_prelude,
)
from graphanon.privacy.sensitivity_audit import discrete_laplace_gof


@pytest.fixture
def insecure():
    """A seeded numpy backend with its one-time warning silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        yield get_backend("numpy-insecure", rng=np.random.default_rng(12345))


def _chi2_discrete_laplace(samples: np.ndarray, scale: float) -> float:
    """p-value of the chi-square test against discrete Laplace(scale) (the audit's check)."""
    return discrete_laplace_gof(samples, scale)


# ---------------------------------------------------------------------- calibration
@pytest.mark.parametrize(("sens", "eps"), [(1, 1.0), (2, 0.5), (4, 0.1), (3, 2.7), (1, 1e-3)])
def test_dp_scale_satisfies_opendp_map_tightly(sens, eps):
    dp = opendp_prelude()
    scale = dp_scale(sens, eps)
    space = dp.vector_domain(dp.atom_domain(T=dp.i64)), dp.l1_distance(T=dp.i64)
    meas = dp.m.make_laplace(*space, scale=scale)
    assert meas.map(sens) <= eps
    assert meas.check(sens, eps)
    # tight: a slightly smaller scale would overspend ε
    smaller = dp.m.make_laplace(*space, scale=scale * (1 - 1e-6))
    assert smaller.map(sens) > eps
    assert scale == pytest.approx(sens / eps, rel=1e-6)


def test_fractional_sensitivity_is_rounded_up():
    assert dp_scale(1.5, 1.0) == dp_scale(2, 1.0)


def test_continuous_scale_satisfies_map():
    dp = opendp_prelude()
    scale = continuous_scale(1.0, 0.5)
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
    assert dp.m.make_laplace(*space, scale=scale).map(1.0) <= 0.5


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), "1", True])
def test_dp_scale_rejects_bad_epsilon(bad):
    with pytest.raises(InvalidParameterError, match="'epsilon' parameter of dp_scale"):
        dp_scale(1, bad)


# ---------------------------------------------------------------------- backends
def test_get_backend_contract():
    b = get_backend()
    assert isinstance(b, NoiseBackend)
    assert (b.name, b.secure) == ("opendp", True)
    nb = get_backend("numpy-insecure", rng=np.random.default_rng(0))
    assert isinstance(nb, NoiseBackend)
    assert (nb.name, nb.secure) == ("numpy-insecure", False)
    with pytest.raises(InvalidParameterError, match="must be None for the 'opendp'"):
        get_backend("opendp", rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError, match=r"numpy\.random\.Generator"):
        get_backend("numpy-insecure")
    with pytest.raises(InvalidParameterError, match="'name' parameter of get_backend"):
        get_backend("laplace")


def test_insecure_backend_warns_once_per_process():
    noise_mod._reset_insecure_warning()
    b = get_backend("numpy-insecure", rng=np.random.default_rng(0))
    with pytest.warns(InsecureNoiseWarning, match="NOT a secure"):
        b.discrete_laplace([1, 2, 3], sensitivity=1, epsilon=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b.discrete_laplace([1, 2, 3], sensitivity=1, epsilon=1.0)  # no second warning
        b.laplace([1.0], sensitivity=1, epsilon=1.0)


def test_insecure_backend_is_reproducible(insecure):
    a = get_backend("numpy-insecure", rng=np.random.default_rng(7))
    b = get_backend("numpy-insecure", rng=np.random.default_rng(7))
    x = np.arange(100)
    np.testing.assert_array_equal(
        a.discrete_laplace(x, sensitivity=2, epsilon=0.5),
        b.discrete_laplace(x, sensitivity=2, epsilon=0.5),
    )


@pytest.mark.parametrize("name", ["opendp", "numpy-insecure"])
def test_shapes_dtypes_and_validation(name, insecure):
    b = insecure if name != "opendp" else get_backend()
    c = np.arange(12, dtype=np.int32).reshape(3, 4)
    out = b.discrete_laplace(c, sensitivity=1, epsilon=1.0)
    assert out.dtype == np.int64 and out.shape == (3, 4)
    assert b.discrete_laplace(np.zeros(0, dtype=np.int64), sensitivity=1, epsilon=1.0).size == 0
    f = b.laplace(np.ones(5), sensitivity=1, epsilon=1.0)
    assert f.dtype == np.float64 and f.shape == (5,)
    s = b.discrete_laplace_scales(c, np.full((3, 4), 2.0))
    assert s.dtype == np.int64 and s.shape == (3, 4)
    assert b.cauchy(np.zeros(3), scale=1.0).shape == (3,)
    ro = np.arange(10)
    ro.setflags(write=False)  # Graph arrays are read-only
    assert b.discrete_laplace(ro, sensitivity=1, epsilon=1.0).shape == (10,)
    assert b.laplace(ro.astype(float), sensitivity=1, epsilon=1.0).shape == (10,)
    assert b.discrete_laplace_scales(ro, np.ones(10)).shape == (10,)
    with pytest.raises(InvalidParameterError, match="array of integers"):
        b.discrete_laplace([0.5, 1.0], sensitivity=1, epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="'scales' parameter"):
        b.discrete_laplace_scales([1, 2], [1.0, 0.0])
    with pytest.raises(InvalidParameterError, match="shape"):
        b.discrete_laplace_scales([1, 2], [1.0, 2.0, 3.0])
    with pytest.raises(InvalidParameterError, match="'scale' parameter of cauchy"):
        b.cauchy([0.0], scale=-1.0)


# ---------------------------------------------------------------------- distributions
def test_numpy_discrete_laplace_chi_square(insecure):
    scale = dp_scale(2, 0.5)  # 4.0
    x = insecure.discrete_laplace(np.zeros(200_000, dtype=np.int64), sensitivity=2, epsilon=0.5)
    assert _chi2_discrete_laplace(x, scale) > 1e-3


def test_numpy_discrete_laplace_detects_wrong_scale(insecure):
    """The chi-square check is not vacuous: noise of scale 4 fails against scale 3.5."""
    x = insecure.discrete_laplace(np.zeros(200_000, dtype=np.int64), sensitivity=2, epsilon=0.5)
    assert _chi2_discrete_laplace(x, 3.5) < 1e-6


def test_opendp_discrete_laplace_large_sample():
    scale = dp_scale(1, 0.5)  # 2.0
    x = get_backend().discrete_laplace(np.full(200_000, 10), sensitivity=1, epsilon=0.5) - 10
    assert _chi2_discrete_laplace(x, scale) > 1e-6  # a false alarm has probability 1e-6
    a = math.exp(-1 / scale)
    assert x.var() == pytest.approx(2 * a / (1 - a) ** 2, rel=0.03)
    assert abs(x.mean()) < 0.05


def test_laplace_ks(insecure):
    scale = continuous_scale(1.0, 0.25)
    x = insecure.laplace(np.zeros(50_000), sensitivity=1.0, epsilon=0.25)
    assert stats.kstest(x, stats.laplace(scale=scale).cdf).pvalue > 1e-3
    y = get_backend().laplace(np.zeros(50_000), sensitivity=1.0, epsilon=0.25)
    assert stats.kstest(y, stats.laplace(scale=scale).cdf).pvalue > 1e-6


def test_cauchy_ks(insecure):
    x = insecure.cauchy(np.zeros(50_000), scale=3.0)
    assert stats.kstest(x, stats.cauchy(scale=3.0).cdf).pvalue > 1e-3
    assert stats.kstest(x, stats.cauchy(scale=2.5).cdf).pvalue < 1e-6
    y = get_backend().cauchy(np.full(50_000, 5.0), scale=3.0) - 5.0
    assert stats.kstest(y, stats.cauchy(scale=3.0).cdf).pvalue > 1e-6


# ---------------------------------------------------------------------- personalized noise
def test_per_entry_scales_grouped_one_call_per_distinct_scale(monkeypatch):
    backend = get_backend()
    calls = []
    original = type(backend)._discrete

    def counting(self, counts, scale):
        calls.append((counts.size, scale))
        return original(self, counts, scale)

    monkeypatch.setattr(type(backend), "_discrete", counting)
    scales = np.tile([1.0, 5.0, 20.0], 20_000)
    counts = np.zeros(scales.size, dtype=np.int64)
    out = backend.discrete_laplace_scales(counts, scales)
    assert sorted(calls) == [(20_000, 1.0), (20_000, 5.0), (20_000, 20.0)]
    for s in (1.0, 5.0, 20.0):
        a = math.exp(-1 / s)
        # OpenDP is unseeded: the sample variance of 20,000 draws (kurtosis about 6) has a
        # relative standard error of about √(5/20,000) ≈ 0.016, so 0.1 is six of them (the
        # scales differ by factors of 16 and more in variance: a wrong grouping still fails)
        assert out[scales == s].var() == pytest.approx(2 * a / (1 - a) ** 2, rel=0.1)


def test_numpy_per_entry_scales_chi_square(insecure):
    scales = np.repeat([1.5, 6.0], 100_000)
    out = insecure.discrete_laplace_scales(np.zeros(scales.size, dtype=np.int64), scales)
    assert _chi2_discrete_laplace(out[:100_000], 1.5) > 1e-3
    assert _chi2_discrete_laplace(out[100_000:], 6.0) > 1e-3


# ---------------------------------------------------------------------- binomial / integers
@pytest.mark.parametrize("name", ["opendp", "numpy-insecure"])
def test_binomial_matches_pmf(name, insecure):
    b = insecure if name != "opendp" else get_backend()
    for n, p in ((40, 0.3), (30, 0.8)):
        draws = np.array([b.binomial(n, p) for _ in range(3000)])
        assert draws.min() >= 0 and draws.max() <= n
        expected = stats.binom.pmf(np.arange(n + 1), n, p) * draws.size
        observed = np.bincount(draws, minlength=n + 1).astype(float)
        keep = expected >= 5
        obs = np.append(observed[keep], observed[~keep].sum())
        exp = np.append(expected[keep], expected[~keep].sum())
        assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-3
    # large n, tiny p (the sampled dK release): mean and variance of Binomial(1e8, 3e-7)
    big = np.array([b.binomial(10**8, 3e-7) for _ in range(400)])
    assert abs(big.mean() - 30) < 5 * math.sqrt(30 / 400)
    assert b.binomial(0, 0.5) == 0 and b.binomial(10, 0.0) == 0 and b.binomial(10, 1.0) == 10


@pytest.mark.parametrize("name", ["opendp", "numpy-insecure"])
def test_integers_uniform_and_validation(name, insecure):
    b = insecure if name != "opendp" else get_backend()
    x = b.integers(7, 7000)
    assert x.dtype == np.int64 and x.min() >= 0 and x.max() <= 6
    assert stats.chisquare(np.bincount(x, minlength=7)).pvalue > 1e-3
    huge = b.integers(2**62 + 3, 1000)
    assert huge.min() >= 0 and huge.max() < 2**62 + 3 and huge.max() > 2**60
    assert b.integers(5, 0).size == 0
    with pytest.raises(InvalidParameterError, match="'high' parameter of integers"):
        b.integers(0, 3)
    with pytest.raises(InvalidParameterError, match="'p' parameter of binomial"):
        b.binomial(3, 1.5)
    with pytest.raises(InvalidParameterError, match="'n' parameter of binomial"):
        b.binomial(-1, 0.5)
    assert isinstance(b, NoiseBackend)


# ---------------------------------------------------------------------- exact coins


@pytest.mark.parametrize("p", [0.3, 0.5, 1e-3, 2.0**-40, 8.5e-17, 3.7e-44, 5e-324])
def test_float_digits_are_the_exact_value(p):
    """The coin reads the binary digits of the float itself: they sum back to it exactly."""
    from fractions import Fraction

    digits = noise_mod._float_digits(p).upto(1200)
    value = sum(Fraction(int(d), 2 ** (i + 1)) for i, d in enumerate(digits[:1200]) if d)
    assert value == Fraction(p)


@pytest.mark.parametrize(("p", "j"), [(0.3, 0), (0.3, 3), (1e-3, 7), (2.0**-30, 5)])
def test_power_digits_match_exact_fractions(p, j):
    """Digits of A = (1 − p)^(2^j) and A/(1+A) agree with exact rational arithmetic."""
    from fractions import Fraction

    A = (1 - Fraction(p)) ** (2**j)
    for as_bit, exact in ((False, A), (True, A / (1 + A))):
        digits = noise_mod._power_digits(p, j, as_bit).upto(300)[:300]
        assert int("".join(map(str, digits)), 2) == math.floor(exact * 2**300)


def test_first_one_is_geometric_half():
    k = noise_mod._first_one(400_000, np.random.default_rng(3).bytes)
    observed = np.bincount(k, minlength=13)[1:13].astype(float)
    observed[-1] += (k > 12).sum()
    expected = 0.5 ** np.arange(1, 13) * k.size
    expected[-1] = 0.5**11 * k.size  # P(K ≥ 12)
    assert stats.chisquare(observed, expected).pvalue > 1e-3


@pytest.mark.parametrize("p", [0.5, 0.3, 1e-3, 1 / 3])
def test_exact_bernoulli_rate(p):
    n = 400_000
    x = noise_mod.exact_bernoulli(p, n, np.random.default_rng(11).bytes)
    assert x.dtype == np.bool_ and x.size == n
    assert stats.binomtest(int(x.sum()), n, p).pvalue > 1e-3
    assert not noise_mod.exact_bernoulli(0.0, 1000).any()
    assert noise_mod.exact_bernoulli(1.0, 1000).all()


def test_exact_bernoulli_far_digits():
    """A tiny p is honoured in the digits a 53-bit uniform cannot see: given 52 leading zero
    bits (13 zero nibbles) the coin is 1 with probability p·2⁵², not 0."""
    p = 8.5e-17  # below 2⁻⁵³: a 53-bit uniform never falls under it
    x = noise_mod.exact_bernoulli(p, 20_000, then_random(13, seed=5))
    assert stats.binomtest(int(x.sum()), x.size, p * 2.0**52).pvalue > 1e-3


@pytest.mark.parametrize(("p", "cap"), [(0.3, 10**9), (0.02, 10**9), (0.7, 10**9), (0.02, 40)])
def test_geometric_pmf(p, cap):
    g = noise_mod._geometric(p, 200_000, np.random.default_rng(17).bytes, cap=cap)
    assert g.min() >= 0 and g.max() <= cap
    top = min(int(4 / p), cap)
    observed = np.bincount(np.minimum(g, top), minlength=top + 1).astype(float)
    expected = stats.geom.pmf(np.arange(1, top + 2), p) * g.size
    expected[-1] = stats.geom.sf(top, p) * g.size  # P(G ≥ top)
    keep = expected >= 5
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    assert stats.chisquare(obs[obs + exp > 0], exp[obs + exp > 0]).pvalue > 1e-3


def test_bernoulli_positions_rate_and_uniformity():
    rng = np.random.default_rng(23)
    pos = noise_mod.bernoulli_positions(10**7, 1e-3, rng.bytes)
    assert np.all(np.diff(pos) > 0) and pos.min() >= 0 and pos.max() < 10**7
    assert stats.binomtest(pos.size, 10**7, 1e-3).pvalue > 1e-3
    assert stats.chisquare(np.bincount(pos // 10**6, minlength=10)).pvalue > 1e-3
    assert noise_mod.bernoulli_positions(5, 1.0).tolist() == [0, 1, 2, 3, 4]
    assert noise_mod.bernoulli_positions(5, 0.0).size == 0


@pytest.mark.parametrize("p", [1e-300, 5e-324, 1e-17])
def test_binomial_boundary_uniform_of_one(monkeypatch, p):
    """The old sampler turned a uniform of exactly 1.0 (2⁻⁵³ of the draws) into a success on
    the first trial whatever p was. A stream that starts with all-ones bytes (the words that
    made 1.0) must not give a success to a tiny p."""
    monkeypatch.setattr(noise_mod.os, "urandom", then_random(1, first=b"\xff", seed=2))
    assert get_backend().binomial(10, p) == 0
    monkeypatch.setattr(noise_mod.os, "urandom", then_random(1, first=b"\xff", seed=3))
    assert noise_mod.secure_binomial(10**6, p) == 0


def test_binomial_large_and_symmetric():
    b = get_backend()
    draws = np.array([b.binomial(10**6, 0.999) for _ in range(200)])
    assert abs(draws.mean() - 999_000) < 5 * math.sqrt(999 / 200)
    with pytest.raises(InvalidParameterError, match="2\\*\\*62"):
        noise_mod.bernoulli_positions(2**62 + 1, 0.5)
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(InvalidParameterError, match="'p' parameter of exact_bernoulli"):
            noise_mod.exact_bernoulli(bad, 3)
        with pytest.raises(InvalidParameterError, match="'p' parameter of bernoulli_positions"):
            noise_mod.bernoulli_positions(3, bad)
