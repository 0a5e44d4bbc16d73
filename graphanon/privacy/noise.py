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
from collections.abc import Callable, Iterator
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
    "bernoulli_positions",
    "continuous_scale",
    "discrete_laplace_pmf",
    "discrete_laplace_sf",
    "dp_scale",
    "exact_bernoulli",
    "exponential_mechanism",
    "get_backend",
    "gumbel_argmax",
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


def discrete_laplace_sf(t: Any, scale: float) -> FloatArray:
    """``P(X ≥ t)`` for integer ``t`` of the same distribution: with ``a = exp(−1/scale)``,
    ``a^t / (1 + a)`` for ``t ≥ 1`` and ``1 − a^(1 − t) / (1 + a)`` for ``t ≤ 0`` (sums of
    :func:`discrete_laplace_pmf`'s geometric tails); a scale of 0 is no noise."""
    t = np.asarray(t, dtype=np.float64)
    if scale <= 0:
        return np.asarray(t <= 0, dtype=np.float64)
    a = math.exp(-1.0 / scale)
    return np.asarray(np.where(t >= 1, np.power(a, np.maximum(t, 0.0)) / (1.0 + a),
                               1.0 - np.power(a, np.maximum(1.0 - t, 0.0)) / (1.0 + a)),
                      dtype=np.float64)


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


# ---------------------------------------------------------------------- exact coins
RandomBytes = Callable[[int], bytes]
"""``random_bytes(n)``: ``n`` uniform random bytes (``os.urandom``, or a seeded generator's
``bytes`` for the insecure backend)."""

# 1 + the number of trailing zero bits of a nibble b ≠ 0 (where its first 1 bit is, low bit
# first); 4 for b = 0 (four zero bits: read on into the next nibble)
_FIRST_ONE = np.array([4] + [(b & -b).bit_length() for b in range(1, 16)], dtype=np.int32)
# the largest number of trials (cells) the gap samplers walk: keeps every sum in int64
MAX_TRIALS = 2**62


def exponential_mechanism(quality: Any, *, epsilon: float, sensitivity: float,
                          backend: NoiseBackend, log_base: Any = None) -> int:
    """The index ``i`` drawn with probability ``∝ μ_i exp(ε q_i / (2Δ))`` (McSherry & Talwar,
    FOCS 2007), by Gumbel-max on ``backend``'s uniforms.

    ε-DP when every quality ``q_i`` changes by at most ``Δ = sensitivity`` between
    neighbours and the base measure ``μ`` (``log_base = log μ``, optional) is public (a
    function of public parameters only). The one selection of θ (θ-dKε), of the RPS splits
    and of the 2K degree bound.
    """
    q = np.asarray(quality, dtype=np.float64)
    score = epsilon * q / (2.0 * sensitivity)
    if log_base is not None:
        score = score + np.asarray(log_base, dtype=np.float64)
    return int(gumbel_argmax(np.ravel(score), backend))


def gumbel_argmax(scores: Any, backend: NoiseBackend) -> IntArray:
    """Gumbel-max selection: per row of ``scores`` (along the last axis), the index ``i``
    drawn with probability ``∝ exp(scores_i)``.

    One call ``backend.uniform(scores.size)``, used in row-major order (row ``r`` of a
    ``k``-column array takes uniforms ``r k .. r k + k − 1``); ``−log(−log u)`` is standard
    Gumbel and the argmax of ``scores + Gumbel`` has that law (the Gumbel-max trick). The
    draw of :func:`exponential_mechanism` (one row) and of every node's row in
    :func:`graphanon.synthetic.communities.refine_partition`.
    """
    s = np.asarray(scores, dtype=np.float64)
    u = np.asarray(backend.uniform(s.size), dtype=np.float64).reshape(s.shape)
    gumbel = -np.log(-np.log(np.clip(u, 1e-300, 1.0 - 1e-16)))
    return np.asarray(np.argmax(s + gumbel, axis=-1), dtype=np.int64)


def _nibbles(size: int, random_bytes: RandomBytes) -> npt.NDArray[np.uint8]:
    raw = np.frombuffer(random_bytes((size + 1) // 2), dtype=np.uint8)
    out = np.empty(2 * raw.size, dtype=np.uint8)
    out[0::2], out[1::2] = raw & 15, raw >> 4
    return out[:size]


def _first_one(size: int, random_bytes: RandomBytes) -> npt.NDArray[np.int32]:
    """``size`` draws of ``K ~ Geometric(1/2)`` on ``{1, 2, …}``: the place of the first 1 in
    a stream of fair bits (half a byte per draw, more only for the 1/16 that read 4 zeros)."""
    b = _nibbles(size, random_bytes)
    k = _FIRST_ONE[b]
    todo = np.flatnonzero(b == 0)
    while todo.size:
        b = _nibbles(todo.size, random_bytes)
        k[todo] += _FIRST_ONE[b]
        todo = todo[b == 0]
    return k


class _Digits:
    """The binary digits ``c₁c₂c₃…`` of a probability ``c = 0.c₁c₂c₃… ∈ [0, 1)``, as many as
    asked for, all certain.

    ``bounds(P)`` returns integers ``lo ≤ c·2^P ≤ hi`` that are equal only when ``c·2^P`` is an
    integer; the digits kept are the leading ones that ``lo`` and ``hi`` share (for ``lo ==
    hi`` all ``P`` of them, the rest being 0), and ``P`` grows until there are enough.
    """

    def __init__(self, bounds: Callable[[int], tuple[int, int]], guard: int = 0) -> None:
        self._bounds = bounds
        self._guard = guard  # digits a bound may lose to rounding (a hint for the first P)
        self._digits = np.zeros(0, dtype=np.uint8)

    def upto(self, n: int) -> npt.NDArray[np.uint8]:
        """At least ``n`` certain digits (index ``i`` holds ``c_{i+1}``)."""
        P = max(n, 64) + self._guard + 64
        while self._digits.size < n:
            lo, hi = self._bounds(P)
            d = P if lo == hi else P - (lo ^ hi).bit_length()
            if d > self._digits.size:
                top = lo >> (P - d)
                self._digits = np.unpackbits(
                    np.frombuffer(top.to_bytes((d + 7) // 8, "big"), dtype=np.uint8))[-d:]
            P *= 2
        return self._digits


def _bernoulli(c: _Digits, size: int, random_bytes: RandomBytes) -> npt.NDArray[np.uint8]:
    """``size`` independent Bernoulli(``c``) coins (0 or 1), exactly.

    With ``U = 0.u₁u₂…`` uniform, ``U < c`` holds iff ``c`` has a 1 at the first place ``K``
    where the digits of ``U`` and ``c`` differ; the places of difference are fair coins, so
    ``K ~ Geometric(1/2)`` whatever ``c`` is, and the coin is ``c_K``:
    ``P(1) = Σ_k 2^−k c_k = c`` with no rounding anywhere. ``K`` is read from a random nibble
    through a table from nibble to digit; the 1/16 of nibbles that are 0 read on.
    """
    if size <= 0:
        return np.zeros(0, dtype=np.uint8)
    nib = _nibbles(size, random_bytes)
    bits = np.append(np.uint8(2), c.upto(4)[_FIRST_ONE[1:] - 1])[nib]  # 2: four 0s, read on
    more = np.flatnonzero(nib == 0)
    if more.size:
        k = 4 + _first_one(more.size, random_bytes)
        bits[more] = c.upto(int(k.max()))[k - 1]
    return bits


@functools.lru_cache(maxsize=1024)
def _float_digits(p: float) -> _Digits:
    """The digits of a float ``p ∈ [0, 1)`` (a dyadic rational: finitely many)."""
    num, den = p.as_integer_ratio()  # den is a power of 2

    def bounds(P: int) -> tuple[int, int]:
        return (num << P) // den, -((-num << P) // den)

    return _Digits(bounds)


def _exact_bernoulli(p: float, size: int, random_bytes: RandomBytes) -> npt.NDArray[np.bool_]:
    if p >= 1.0:
        return np.ones(max(size, 0), dtype=np.bool_)
    return _bernoulli(_float_digits(p), size, random_bytes).astype(np.bool_)


@functools.lru_cache(maxsize=1024)
def _power_digits(p: float, j: int, as_bit: bool) -> _Digits:
    """Digits of ``A = (1 − p)^(2^j)`` (``as_bit=False``) or of ``A / (1 + A)`` (``True``),
    for a float ``p ∈ (0, 1)``: ``1 − p`` exactly, then ``j`` squarings rounded down (lower
    bound) and up (upper bound) at ``P`` bits."""
    num, den = p.as_integer_ratio()

    def bounds(P: int) -> tuple[int, int]:
        one = 1 << P
        lo, hi = one - -((-num << P) // den), one - (num << P) // den
        for _ in range(j):
            lo, hi = (lo * lo) >> P, -((-hi * hi) >> P)
        if as_bit:  # x ↦ x / (1 + x) is increasing
            lo, hi = (lo << P) // (one + lo), -((-hi << P) // (one + hi))
        return lo, hi

    return _Digits(bounds, guard=j + 2)


def _geometric(p: float, size: int, random_bytes: RandomBytes, cap: int) -> IntArray:
    """``size`` draws of ``G`` = failures before the first success of Bernoulli(``p``)
    trials, ``0 < p < 1``, exactly; values ``≥ cap`` are returned as ``cap``.

    ``P(G = g) ∝ a^g`` with ``a = 1 − p`` factorizes over the binary digits of ``g``, so the
    digits ``b_j`` of ``G`` are independent with ``P(b_j = 1) = A_j / (1 + A_j)``,
    ``A_j = a^(2^j)``, and ``G >> J`` is geometric again: a run of Bernoulli(``A_J``)
    successes. ``J`` is where ``A_J ≤ ½`` (so the run is short) or ``2^J ≥ cap``.
    """
    if size <= 0:
        return np.zeros(0, dtype=np.int64)
    decay = -math.log1p(-p)  # A_j = e^(−2^j · decay)
    half = max(0, math.ceil(math.log2(math.log(2.0)) - math.log2(decay)))
    J = min(half, (cap - 1).bit_length())
    g = np.zeros(size, dtype=np.int64)
    for j in range(J):
        g += _bernoulli(_power_digits(p, j, True), size, random_bytes).astype(np.int64) << j
    step = min(1 << J, cap)
    todo = np.flatnonzero(g < cap)
    while todo.size:
        todo = todo[_bernoulli(_power_digits(p, J, False), todo.size, random_bytes) == 1]
        g[todo] = np.minimum(g[todo] + step, cap)
        todo = todo[g[todo] < cap]
    return np.minimum(g, cap)


def _check_trials(total: int) -> None:
    if total > MAX_TRIALS:
        raise InvalidParameterError(
            f"The number of trials ({total}) exceeds {MAX_TRIALS} (2**62), the most the exact "
            "Bernoulli sampler walks.")


def _success_chunks(total: int, p: float, random_bytes: RandomBytes,
                    chunk_limit: int = 1 << 20) -> Iterator[IntArray]:
    """Sorted positions in ``[0, total)`` of the successes of ``total`` independent
    Bernoulli(``p``) trials, ``0 < p < 1``, in chunks (exact geometric gaps)."""
    _check_trials(total)
    expected = total * p
    chunk = min(int(expected + 6.0 * math.sqrt(expected) + 64), chunk_limit)
    last = -1
    while True:
        # last < total and every gap ≤ total < 2**62: the sums up to the first position
        # ≥ total stay below 2**63 (later ones may wrap; they are cut off)
        pos = last + np.cumsum(_geometric(p, chunk, random_bytes, cap=total) + 1)
        out = np.flatnonzero(pos >= total)
        if out.size:
            yield pos[:out[0]]
            return
        yield pos
        last = int(pos[-1])
        left = (total - last) * p
        chunk = min(int(left + 6.0 * math.sqrt(left) + 64), chunk_limit)


def bernoulli_positions(total: int, p: float,
                        random_bytes: RandomBytes = os.urandom) -> IntArray:
    """Sorted positions in ``[0, total)`` of the successes of ``total`` independent
    Bernoulli(``p``) trials, drawn exactly in ``O(total·p)`` expected time.

    The gaps between successes are exact geometric draws (:func:`_geometric`) made of exact
    coins (:func:`_bernoulli`) on random bytes: no float enters the sampling, so the process is
    the Bernoulli(``p``) process of the float ``p`` itself.
    """
    p = check_float(p, "p", "bernoulli_positions", low=0.0, high=1.0)
    if p == 0.0 or total <= 0:
        return np.zeros(0, dtype=np.int64)
    if p == 1.0:
        return np.arange(total, dtype=np.int64)
    parts = list(_success_chunks(total, p, random_bytes))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def exact_bernoulli(p: float, size: int,
                    random_bytes: RandomBytes = os.urandom) -> npt.NDArray[np.bool_]:
    """``size`` independent Bernoulli(``p``) coins for a float ``p ∈ [0, 1]``, exactly: each is
    1 with probability ``p`` (the float's exact value), about half a random byte per coin."""
    p = check_float(p, "p", "exact_bernoulli", low=0.0, high=1.0)
    return _exact_bernoulli(p, size, random_bytes)


def _binomial_by_gaps(n: int, p: float, random_bytes: RandomBytes) -> int:
    """Number of successes of ``n`` Bernoulli(``p``) trials, exactly, by walking the geometric
    gaps between successes; ``O(n·min(p, 1 − p))`` work."""
    if n <= 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    if p > 0.5:  # 1 − p is exact for p ∈ [½, 1]
        return n - _binomial_by_gaps(n, 1.0 - p, random_bytes)
    return sum(int(c.size) for c in _success_chunks(n, p, random_bytes))


def secure_binomial(n: int, p: float) -> int:
    """A Binomial(``n``, ``p``) draw from ``os.urandom``, exact for the float ``p``.

    Notes
    -----
    Counts the successes by walking exact geometric gaps (:func:`bernoulli_positions`): every
    coin compares random bits with the binary digits of its probability, so the draw is
    Binomial(``n``, ``p``) with no floating-point rounding (``n ≤ 2**62``). Whether ``p`` is the
    probability a mechanism needs is the caller's computation.
    """
    return _binomial_by_gaps(int(n), float(p), os.urandom)


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
        OpenDP's Python API has no binomial sampler. The draw is exact for the float ``p``:
        exact geometric gaps built from coins that compare random bits with the binary digits
        of their probabilities (no ``log``, no 53-bit grid).
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
