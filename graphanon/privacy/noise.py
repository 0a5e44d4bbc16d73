"""Noise backends: where every bit of differential-privacy noise in graphanon comes from.

Two backends implement :class:`NoiseBackend`:

``"opendp"`` (the default, ``secure = True``)
    Integer counts get discrete Laplace (two-sided geometric) noise from OpenDP's vector
    Laplace measurement over ``l1_distance`` — exact sampling from a CSPRNG inside the OpenDP
    library. Real values get OpenDP's floating-point-safe Laplace. Cauchy noise (which OpenDP
    does not offer) is drawn here by inverse-CDF sampling of uniforms from ``os.urandom``
    (see the floating-point caveat in :meth:`OpenDPBackend.cauchy`).
``"numpy-insecure"`` (``secure = False``)
    The same distributions drawn from a caller's seeded :class:`numpy.random.Generator`, for
    reproducible experiments and tests. A PRNG and floating-point sampling are *not* a secure
    implementation of DP; the backend emits :class:`InsecureNoiseWarning` once per process the
    first time it noises anything, and it is never a default.

Calibration
-----------
Both backends calibrate the scale the same way, with OpenDP's privacy map: for a requested
``(sensitivity, ε)`` the scale is the smallest one (found by ``binary_search_param`` on the
measurement constructor) whose map sends ``d_in = sensitivity`` to at most ``ε``. This is
the "no naive division" rule: the map accounts for OpenDP's rounding, so the returned release
is (ε)-DP as *OpenDP* proves it, not as a float division suggests. Integer (L1) sensitivity of
an integer vector is integer-valued; a fractional ``sensitivity`` is rounded up for the
discrete mechanism (conservative, exact for integer data).

``enable_features("contrib")`` is called in exactly one place, :func:`opendp_prelude`; any
graphanon module that needs OpenDP must import it through that function.
"""

from __future__ import annotations

import functools
import math
import os
import threading
import warnings
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from .._validation import check_choice, check_epsilon, check_float
from ..errors import InsecureNoiseWarning, InvalidParameterError

__all__ = [
    "BACKENDS",
    "InsecureNoiseWarning",
    "NoiseBackend",
    "NumpyInsecureBackend",
    "OpenDPBackend",
    "continuous_scale",
    "discrete_laplace_pmf",
    "dp_scale",
    "get_backend",
    "opendp_prelude",
    "secure_binomial",
    "secure_integers",
    "secure_uniform",
]

BACKENDS = ("opendp", "numpy-insecure")

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


# ---------------------------------------------------------------------- OpenDP access
@functools.cache
def opendp_prelude() -> Any:
    """The parts of ``opendp.prelude`` graphanon uses, with the ``contrib`` feature enabled
    (the only place it is enabled).

    ``contrib`` is needed for the Laplace measurements used here; graphanon does not enable
    ``floating-point`` or ``honest-but-curious``. The namespace holds what ``opendp.prelude``
    re-exports from ``opendp.mod``, ``typing``, ``domains``, ``metrics`` and ``measures``, with
    ``m``, ``t`` and ``c`` for measurements, transformations and combinators; unlike
    ``opendp.prelude`` it does not import OpenDP's extras (scikit-learn, Polars, pandas:
    about 1.6 s of every command's start-up).
    """
    import types

    import opendp.combinators as c
    import opendp.domains
    import opendp.measurements as m
    import opendp.measures
    import opendp.metrics
    import opendp.mod
    import opendp.transformations as t
    import opendp.typing

    names: dict[str, Any] = {}
    for mod in (opendp.mod, opendp.typing, opendp.domains, opendp.metrics, opendp.measures):
        public = getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")]
        names.update((n, getattr(mod, n)) for n in public if hasattr(mod, n))
    dp = types.SimpleNamespace(**names, m=m, t=t, c=c)
    dp.enable_features("contrib")
    return dp


def _check_eps(epsilon: Any, owner: str) -> float:
    return check_epsilon(epsilon, "epsilon", owner)


def _check_sens(sensitivity: Any, owner: str) -> float:
    return check_float(sensitivity, "sensitivity", owner, low=0.0, closed="neither")


@functools.lru_cache(maxsize=4096)
def _discrete_scale(d_in: int, epsilon: float) -> float:
    dp = opendp_prelude()
    space = dp.vector_domain(dp.atom_domain(T=dp.i64)), dp.l1_distance(T=dp.i64)
    scale = dp.binary_search_param(
        lambda s: dp.m.make_laplace(*space, scale=s), d_in=d_in, d_out=epsilon, T=float
    )
    return float(scale)


@functools.lru_cache(maxsize=4096)
def _continuous_scale(d_in: float, epsilon: float) -> float:
    dp = opendp_prelude()
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
    scale = dp.binary_search_param(
        lambda s: dp.m.make_laplace(*space, scale=s), d_in=d_in, d_out=epsilon, T=float
    )
    return float(scale)


def dp_scale(sensitivity: float, epsilon: float) -> float:
    """Discrete Laplace scale for an integer vector of L1 ``sensitivity`` at pure ``epsilon``.

    Parameters
    ----------
    sensitivity : float
        Public bound on ``||f(G) − f(G')||₁`` over neighbouring inputs; rounded up to an
        integer (the L1 distance of two integer vectors is an integer).
    epsilon : float
        Target ε > 0.

    Returns
    -------
    float
        The smallest scale (to OpenDP's binary-search tolerance) whose privacy map gives
        ``map(sensitivity) <= epsilon``; close to ``sensitivity / epsilon``.

    Raises
    ------
    InvalidParameterError
        If either argument is not a finite positive number.
    """
    s = _check_sens(sensitivity, "dp_scale")
    e = _check_eps(epsilon, "dp_scale")
    return _discrete_scale(math.ceil(s), e)


def continuous_scale(sensitivity: float, epsilon: float) -> float:
    """Continuous Laplace scale for a real vector of L1 ``sensitivity`` at pure ``epsilon``.

    Found with OpenDP's privacy map of the float vector Laplace measurement (which accounts
    for its rounding), so it is slightly above ``sensitivity / epsilon`` when rounding matters.
    """
    s = _check_sens(sensitivity, "continuous_scale")
    e = _check_eps(epsilon, "continuous_scale")
    return _continuous_scale(s, e)


def discrete_laplace_pmf(k: Any, scale: float) -> FloatArray:
    """``P(X = k)`` of the discrete Laplace distribution with ``P ∝ exp(−|k| / scale)``."""
    k = np.abs(np.asarray(k, dtype=np.float64))
    a = math.exp(-1.0 / scale)
    return np.asarray((1.0 - a) / (1.0 + a) * np.power(a, k), dtype=np.float64)


# ---------------------------------------------------------------------- secure uniforms
def secure_uniform(size: int) -> FloatArray:
    """``size`` uniforms on ``(0, 1]`` from the OS CSPRNG (``os.urandom``), 53 bits each.

    Each value is ``(m + 1) / 2**53`` with ``m`` a uniform 53-bit integer, so the result is
    exactly uniform on that grid (never 0, so ``log`` is safe).
    """
    if size <= 0:
        return np.zeros(0, dtype=np.float64)
    raw = np.frombuffer(os.urandom(8 * size), dtype=np.uint64) >> np.uint64(11)
    return (raw.astype(np.float64) + 1.0) * (2.0 ** -53)


def secure_integers(high: int, size: int) -> IntArray:
    """``size`` integers uniform on ``[0, high)`` from the OS CSPRNG, exactly (no modulo bias).

    64-bit words from ``os.urandom`` are accepted when below the largest multiple of ``high``
    that fits in 2**64 (rejection sampling) and reduced modulo ``high``.
    """
    high = int(high)
    if high <= 0 or high > 2**63:
        raise InvalidParameterError(
            f"The 'high' parameter of secure_integers must be an int in [1, 2**63]. Got {high} "
            "instead.")
    if size <= 0:
        return np.zeros(0, dtype=np.int64)
    limit = (2**64 // high) * high  # accept words < limit
    out = np.empty(0, dtype=np.uint64)
    while out.size < size:
        need = size - out.size
        raw = np.frombuffer(os.urandom(8 * (need + need // 8 + 8)), dtype=np.uint64)
        if limit < 2**64:
            raw = raw[raw < np.uint64(limit)]
        out = np.concatenate([out, raw[:need]])
    return (out % np.uint64(high)).astype(np.int64)


def _binomial_by_gaps(n: int, p: float, uniform: Callable[[int], FloatArray]) -> int:
    """Number of successes of ``n`` Bernoulli(``p``) trials, walking the geometric gaps
    between successes (inverse CDF of ``uniform`` draws); ``O(n·min(p, 1 − p))`` work."""
    if n <= 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    if p > 0.5:
        return n - _binomial_by_gaps(n, 1.0 - p, uniform)
    log_q = math.log1p(-p)
    count, pos = 0, 0  # pos: trials used so far
    batch = max(16, int(n * p * 1.1) + 16)
    while True:
        u = uniform(batch)
        gaps = 1 + np.floor(np.log(u) / log_q)  # trials up to and including the next success
        ends = pos + np.cumsum(gaps)
        within = int(np.searchsorted(ends, n, side="right"))
        count += within
        if within < batch:
            return count
        pos = int(ends[-1])
        batch = max(16, int((n - pos) * p * 1.1) + 16)


def secure_binomial(n: int, p: float) -> int:
    """A Binomial(``n``, ``p``) draw from ``os.urandom`` uniforms (geometric gaps).

    Notes
    -----
    The gaps between successes are ``1 + floor(ln U / ln(1 − p))`` with ``U`` on the 53-bit
    grid of ``(0, 1]`` (:func:`secure_uniform`). The randomness is secure; the *exactness* is
    not — the same floating-point caveat as :meth:`OpenDPBackend.cauchy`: ``log`` on a finite
    grid gives gap probabilities that differ from ``(1 − p)^(g−1) p`` by float rounding, and
    gaps beyond ``53 ln 2 / −ln(1 − p)`` cannot occur.
    """
    return _binomial_by_gaps(int(n), float(p), secure_uniform)


def _check_binomial(n: Any, p: Any, owner: str) -> tuple[int, float]:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
        raise InvalidParameterError(
            f"The 'n' parameter of {owner} must be a non-negative int. Got {n!r} instead.")
    pf = check_float(p, "p", owner, low=0.0, high=1.0)
    return int(n), pf


def _check_high(high: Any, size: Any, owner: str) -> tuple[int, int]:
    if isinstance(high, bool) or not isinstance(high, int | np.integer) or not (
            1 <= high <= 2**63):
        raise InvalidParameterError(
            f"The 'high' parameter of {owner} must be an int in [1, 2**63]. Got {high!r} "
            "instead.")
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
        raise InvalidParameterError(
            f"The 'size' parameter of {owner} must be a non-negative int. Got {size!r} "
            "instead.")
    return int(high), int(size)


def _cauchy_from_uniform(u: FloatArray, scale: float) -> FloatArray:
    # inverse CDF: F^{-1}(u) = scale * tan(π (u − 1/2)); u in (0, 1] so the argument is in
    # (−π/2, π/2]; u == 1 gives tan(π/2) ≈ 1.6e16 (finite in float64), acting as the tail cap.
    return np.asarray(scale * np.tan(np.pi * (u - 0.5)), dtype=np.float64)


# ---------------------------------------------------------------------- protocol
@runtime_checkable
class NoiseBackend(Protocol):
    """Source of DP noise. Implementations: :class:`OpenDPBackend`, :class:`NumpyInsecureBackend`.

    Attributes
    ----------
    name : str
        ``"opendp"`` or ``"numpy-insecure"``; recorded in every :class:`~.release.Release`.
    secure : bool
        Whether the noise comes from a CSPRNG with exact sampling.
    """

    name: str
    secure: bool

    def discrete_laplace(self, counts: Any, *, sensitivity: float, epsilon: float) -> IntArray:
        """``counts`` + discrete Laplace noise: pure ε-DP for L1 sensitivity ``sensitivity``."""
        ...

    def laplace(self, values: Any, *, sensitivity: float, epsilon: float) -> FloatArray:
        """``values`` + continuous Laplace noise: pure ε-DP for L1 sensitivity ``sensitivity``."""
        ...

    def discrete_laplace_scales(self, counts: Any, scales: Any) -> IntArray:
        """``counts[i]`` + discrete Laplace noise of scale ``scales[i]`` (personalized DP)."""
        ...

    def cauchy(self, values: Any, *, scale: float) -> FloatArray:
        """``values`` + Cauchy(0, ``scale``) noise (smooth sensitivity)."""
        ...

    def uniform(self, size: int) -> FloatArray:
        """``size`` uniforms on ``(0, 1]``: the randomness of a mechanism's other random
        choices (exponential-mechanism draws, Poisson sampling), from the same source as
        the noise."""
        ...

    def binomial(self, n: int, p: float) -> int:
        """One Binomial(``n``, ``p``) draw (sampled releases: how many of ``n`` cells cross a
        threshold)."""
        ...

    def integers(self, high: int, size: int) -> IntArray:
        """``size`` independent integers uniform on ``[0, high)`` (sampled releases: which
        cells cross a threshold)."""
        ...


def _as_counts(counts: Any, owner: str) -> IntArray:
    a = np.asarray(counts)
    if a.dtype != np.bool_:
        if np.issubdtype(a.dtype, np.integer) or a.size == 0:
            return np.ascontiguousarray(a, dtype=np.int64)
        if (np.issubdtype(a.dtype, np.floating) and np.all(np.isfinite(a))
                and np.all(a == np.round(a))):
            return np.ascontiguousarray(a, dtype=np.int64)
    raise InvalidParameterError(
        f"The 'counts' parameter of {owner} must be an array of integers. "
        f"Got dtype {a.dtype} instead."
    )


def _as_values(values: Any, owner: str) -> FloatArray:
    a = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise InvalidParameterError(
            f"The 'values' parameter of {owner} must contain only finite numbers."
        )
    return np.ascontiguousarray(a)


def _as_scales(scales: Any, shape: tuple[int, ...], owner: str) -> FloatArray:
    s = np.asarray(scales, dtype=np.float64)
    if s.ndim == 0:
        s = np.full(shape, float(s))
    if s.shape != shape:
        raise InvalidParameterError(
            f"The 'scales' parameter of {owner} must have the shape of 'counts' {shape}. "
            f"Got {s.shape} instead."
        )
    if not np.all(np.isfinite(s) & (s > 0)):
        raise InvalidParameterError(
            f"The 'scales' parameter of {owner} must contain finite positive numbers."
        )
    return s


def _check_cauchy_scale(scale: Any, owner: str) -> float:
    return check_float(scale, "scale", owner, low=0.0, closed="neither")


def _per_scale(
    counts: IntArray, scales: FloatArray, draw: Callable[[IntArray, float], IntArray]
) -> IntArray:
    """Apply ``draw(sub_counts, scale)`` once per distinct scale."""
    out = np.empty_like(counts)
    flat_c, flat_s, flat_o = counts.ravel(), scales.ravel(), out.ravel()
    uniq, inverse = np.unique(flat_s, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(uniq.size + 1))
    for j, scale in enumerate(uniq):
        idx = order[bounds[j]:bounds[j + 1]]
        flat_o[idx] = draw(flat_c[idx], float(scale))
    return out


# ---------------------------------------------------------------------- OpenDP backend
class OpenDPBackend:
    """Secure backend: OpenDP measurements (CSPRNG, exact discrete sampling).

    Notes
    -----
    Each call builds an OpenDP ``make_laplace`` measurement over
    ``vector_domain(atom_domain(i64))`` / ``l1_distance(i64)`` (or the float equivalents)
    with the scale from :func:`dp_scale` / :func:`continuous_scale` and applies it once to the
    whole vector, so the vector release is ε-DP by OpenDP's own privacy map.
    """

    name = "opendp"
    secure = True

    def _discrete(self, counts: IntArray, scale: float) -> IntArray:
        if counts.size == 0:
            return counts.copy()
        dp = opendp_prelude()
        space = dp.vector_domain(dp.atom_domain(T=dp.i64)), dp.l1_distance(T=dp.i64)
        meas = dp.m.make_laplace(*space, scale=scale)
        # OpenDP's ctypes bridge rejects read-only buffers (Graph arrays are read-only)
        flat = np.array(counts, dtype=np.int64, copy=True).ravel()
        return np.asarray(meas(flat), dtype=np.int64).reshape(counts.shape)

    def discrete_laplace(self, counts: Any, *, sensitivity: float, epsilon: float) -> IntArray:
        c = _as_counts(counts, "discrete_laplace")
        scale = dp_scale(sensitivity, epsilon)
        return self._discrete(c, scale)

    def laplace(self, values: Any, *, sensitivity: float, epsilon: float) -> FloatArray:
        v = _as_values(values, "laplace")
        scale = continuous_scale(sensitivity, epsilon)
        if v.size == 0:
            return v.copy()
        dp = opendp_prelude()
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
        meas = dp.m.make_laplace(*space, scale=scale)
        flat = np.array(v, dtype=np.float64, copy=True).ravel()
        return np.asarray(meas(flat), dtype=np.float64).reshape(v.shape)

    def discrete_laplace_scales(self, counts: Any, scales: Any) -> IntArray:
        c = _as_counts(counts, "discrete_laplace_scales")
        s = _as_scales(scales, c.shape, "discrete_laplace_scales")
        return _per_scale(c, s, self._discrete)

    def cauchy(self, values: Any, *, scale: float) -> FloatArray:
        """``values`` + Cauchy(0, ``scale``) noise from ``os.urandom`` uniforms.

        Notes
        -----
        OpenDP has no Cauchy sampler. The noise is ``scale · tan(π(U − ½))`` with ``U``
        uniform on the 53-bit grid of ``(0, 1]`` drawn from the OS CSPRNG.

        **Floating-point caveat.** The smooth-sensitivity guarantee (Nissim, Raskhodnikova
        and Smith 2007, Cauchy-type admissible noise) is proved for real-valued noise. This
        sampler draws from a finite grid of 2^53 uniforms pushed through a float ``tan``: the
        output lattice is irregular and the far tails are truncated near ``1.6e16 · scale``,
        and the low-order bits of ``value + noise`` can carry information about ``value`` as
        in Mironov's (CCS 2012) attack on textbook Laplace. The randomness is secure; the
        *exactness* is not: treat the guarantee as holding up to these float effects, and
        round released values to a coarse, public grid when that matters.
        """
        v = _as_values(values, "cauchy")
        s = _check_cauchy_scale(scale, "cauchy")
        noise = _cauchy_from_uniform(secure_uniform(v.size), s).reshape(v.shape)
        return np.asarray(v + noise, dtype=np.float64)

    def uniform(self, size: int) -> FloatArray:
        """Uniforms on ``(0, 1]`` from the OS CSPRNG (:func:`secure_uniform`)."""
        return secure_uniform(size)

    def binomial(self, n: int, p: float) -> int:
        """Binomial(``n``, ``p``) from ``os.urandom`` (:func:`secure_binomial`).

        Notes
        -----
        OpenDP has no binomial sampler. **Floating-point caveat** (as for :meth:`cauchy`):
        the geometric gaps are inverted from 53-bit uniforms with a float ``log``, so the
        draw is secure but only approximately Binomial.
        """
        n, p = _check_binomial(n, p, "binomial")
        return secure_binomial(n, p)

    def integers(self, high: int, size: int) -> IntArray:
        """Exactly uniform integers on ``[0, high)`` from ``os.urandom``
        (:func:`secure_integers`, rejection sampling: no float, no modulo bias)."""
        high, size = _check_high(high, size, "integers")
        return secure_integers(high, size)

    def __repr__(self) -> str:
        return "OpenDPBackend()"


# ---------------------------------------------------------------------- numpy backend
_warned_lock = threading.Lock()
_warned = False


def _warn_insecure() -> None:
    global _warned
    with _warned_lock:
        if _warned:
            return
        _warned = True
    warnings.warn(
        "noise drawn from the 'numpy-insecure' backend: a seeded PRNG with floating-point "
        "sampling is reproducible but NOT a secure implementation of differential privacy; "
        "use noise='opendp' for real releases.",
        InsecureNoiseWarning,
        stacklevel=3,
    )


def _reset_insecure_warning() -> None:
    """Forget that the warning was shown (for tests)."""
    global _warned
    with _warned_lock:
        _warned = False


class NumpyInsecureBackend:
    """Reproducible backend on a seeded :class:`numpy.random.Generator` (insecure).

    Discrete Laplace of scale ``b`` is sampled as the difference of two i.i.d. geometric
    variables with success probability ``1 − exp(−1/b)``; the scale is calibrated by the same
    OpenDP privacy map as the secure backend, so both produce the same distribution.
    """

    name = "numpy-insecure"
    secure = False

    def __init__(self, rng: np.random.Generator) -> None:
        if not isinstance(rng, np.random.Generator):
            raise InvalidParameterError(
                "The 'rng' parameter of get_backend must be a numpy.random.Generator for the "
                f"'numpy-insecure' backend. Got {rng!r} instead."
            )
        self.rng = rng

    def _discrete(self, counts: IntArray, scale: float) -> IntArray:
        _warn_insecure()
        p = -math.expm1(-1.0 / scale)
        g1 = self.rng.geometric(p, size=counts.shape)
        g2 = self.rng.geometric(p, size=counts.shape)
        return np.asarray(counts + (g1 - g2), dtype=np.int64)

    def discrete_laplace(self, counts: Any, *, sensitivity: float, epsilon: float) -> IntArray:
        c = _as_counts(counts, "discrete_laplace")
        return self._discrete(c, dp_scale(sensitivity, epsilon))

    def laplace(self, values: Any, *, sensitivity: float, epsilon: float) -> FloatArray:
        v = _as_values(values, "laplace")
        scale = continuous_scale(sensitivity, epsilon)
        _warn_insecure()
        return np.asarray(v + self.rng.laplace(0.0, scale, size=v.shape), dtype=np.float64)

    def discrete_laplace_scales(self, counts: Any, scales: Any) -> IntArray:
        c = _as_counts(counts, "discrete_laplace_scales")
        s = _as_scales(scales, c.shape, "discrete_laplace_scales")
        return _per_scale(c, s, self._discrete)

    def cauchy(self, values: Any, *, scale: float) -> FloatArray:
        """``values`` + Cauchy(0, ``scale``) by inverse CDF of the generator's uniforms."""
        v = _as_values(values, "cauchy")
        s = _check_cauchy_scale(scale, "cauchy")
        _warn_insecure()
        u = 1.0 - self.rng.random(size=v.size)  # (0, 1]
        return np.asarray(v + _cauchy_from_uniform(u, s).reshape(v.shape), dtype=np.float64)

    def uniform(self, size: int) -> FloatArray:
        """Uniforms on ``(0, 1]`` from the seeded generator (insecure)."""
        _warn_insecure()
        return np.asarray(1.0 - self.rng.random(size), dtype=np.float64)

    def binomial(self, n: int, p: float) -> int:
        """Binomial(``n``, ``p``) from the seeded generator (insecure)."""
        n, p = _check_binomial(n, p, "binomial")
        _warn_insecure()
        return int(self.rng.binomial(n, p))

    def integers(self, high: int, size: int) -> IntArray:
        """Uniform integers on ``[0, high)`` from the seeded generator (insecure)."""
        high, size = _check_high(high, size, "integers")
        _warn_insecure()
        return np.asarray(self.rng.integers(0, high, size=size), dtype=np.int64)

    def __repr__(self) -> str:
        return f"NumpyInsecureBackend(rng={self.rng!r})"


def get_backend(name: str = "opendp", *, rng: np.random.Generator | None = None) -> NoiseBackend:
    """The noise backend called ``name``.

    Parameters
    ----------
    name : {"opendp", "numpy-insecure"}
        ``"opendp"`` (default) is secure; ``"numpy-insecure"`` is reproducible and insecure.
    rng : numpy.random.Generator, optional
        Required for ``"numpy-insecure"``; must be ``None`` for ``"opendp"`` (a seed would
        give a false impression of reproducibility).

    Returns
    -------
    NoiseBackend

    Raises
    ------
    InvalidParameterError
        Unknown name, or a missing / superfluous ``rng``.
    """
    check_choice(name, "name", "get_backend", BACKENDS)
    if name == "opendp":
        if rng is not None:
            raise InvalidParameterError(
                "The 'rng' parameter of get_backend must be None for the 'opendp' backend "
                "(its noise is not reproducible by design); use 'numpy-insecure' for seeded "
                "runs."
            )
        return OpenDPBackend()
    if rng is None:
        raise InvalidParameterError(
            "The 'rng' parameter of get_backend must be a numpy.random.Generator for the "
            "'numpy-insecure' backend. Got None instead."
        )
    return NumpyInsecureBackend(rng)
