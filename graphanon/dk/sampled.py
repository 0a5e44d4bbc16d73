"""The thresholded dK release in its sampled form (``release_dk(form="sampled")``).

:func:`sampled_threshold_noise` draws the cells of a public domain whose discrete-Laplace
noisy count is at least a public threshold ``τ`` — distributed exactly as noising every cell
and keeping those ``>= τ`` — in time ``O(#non-zero cells + #released cells)``;
:func:`default_threshold` is the public default ``τ`` and :func:`crossing_probability` the
chance that a zero cell crosses it. The law is derived in
:func:`sampled_threshold_noise`'s notes.

Split out of :mod:`graphanon.dk.release` (issue 37), which still exports every public name.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ..privacy.noise import NoiseBackend, dp_scale

__all__ = ["crossing_probability", "default_threshold", "sampled_threshold_noise"]


def crossing_probability(scale: float, threshold: int) -> float:
    """``P[Z >= τ]`` for ``Z`` discrete Laplace (``P ∝ a^|z|``, ``a = e^{−1/scale}``),
    ``τ >= 1``: ``a^τ / (1 + a)``."""
    a = math.exp(-1.0 / scale)
    return float(math.exp(-threshold / scale) / (1.0 + a))


def default_threshold(scale: float, n_cells: int) -> int:
    """The default public threshold ``τ = max(1, ceil(scale · ln(n_cells)))``.

    A function of public quantities only (the noise scale, from ``Δ`` and ε, and the domain
    size). With it the expected number of released cells whose true count is 0 is
    ``N0 · a^τ / (1 + a) <= n_cells · e^{−τ/scale} / (1 + a) < 1``: the table holds (about)
    only the cells whose true count is large compared with the noise.
    """
    return max(1, math.ceil(scale * math.log(max(n_cells, 2))))


def _uniform_subset(population: int, k: int, backend: NoiseBackend) -> npt.NDArray[np.int64]:
    """A uniformly random ``k``-subset of ``range(population)`` (sorted), from
    ``backend.integers``: the first ``k`` distinct values of an i.i.d. uniform sequence (by
    symmetry under relabelling, every ``k``-subset is equally likely)."""
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k > population // 2:  # draw the complement instead
        drop = _uniform_subset(population, population - k, backend)
        keep = np.ones(population, dtype=bool)
        keep[drop] = False
        return np.flatnonzero(keep).astype(np.int64)
    draws = np.zeros(0, dtype=np.int64)
    while True:
        draws = np.concatenate([draws, backend.integers(population, k + k // 4 + 8)])
        uniq, first = np.unique(draws, return_index=True)
        if uniq.size >= k:
            return np.sort(draws[np.sort(first)[:k]])


def _tail_values(count: int, threshold: int, sens: float, epsilon: float,
                 backend: NoiseBackend) -> npt.NDArray[np.int64]:
    """``count`` draws of ``Z | Z >= τ`` for the discrete Laplace ``Z`` of the release.

    Memorylessness: ``P[Z = τ + g | Z >= τ] = (1 − a) a^g`` for every ``τ >= 1``, the law of
    ``Z | Z >= 1`` shifted by ``τ − 1``; that law is drawn by rejection from the backend's own
    discrete Laplace (acceptance ``a / (1 + a)``), so it is as exact as the dense noise.
    """
    out: list[npt.NDArray[np.int64]] = []
    need = count
    while need > 0:
        z = np.asarray(backend.discrete_laplace(np.zeros(2 * need + 16, dtype=np.int64),
                                                sensitivity=sens, epsilon=epsilon),
                       dtype=np.int64)
        z = z[z >= 1][:need]
        out.append(z)
        need -= z.size
    vals = np.concatenate(out) if out else np.zeros(0, dtype=np.int64)
    return vals + (threshold - 1)


def sampled_threshold_noise(cells: Any, counts: Any, n_cells: int, *, sensitivity: float,
                            epsilon: float, threshold: int, backend: NoiseBackend
                            ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The thresholded dense release, sampled: the cells whose noisy count is ``>= τ``.

    Distributionally identical to: add discrete Laplace noise (scale ``b`` of
    :func:`~graphanon.privacy.noise.dp_scale` for ``(sensitivity, ε)``) to **every** one of the
    ``n_cells`` cells of the public domain, then keep the cells with noisy value ``>= τ``.

    Parameters
    ----------
    cells, counts
        Sorted distinct positions of the cells with a non-zero true count, and the counts.
    n_cells
        Size of the public domain.
    sensitivity, epsilon
        Calibration of the dense release (L1 sensitivity, ε).
    threshold
        Public ``τ >= 1``.
    backend
        Source of all randomness (noise, binomial count, positions, tail values).

    Returns
    -------
    (cells, values)
        Sorted positions of the released cells and their noisy values (all ``>= τ``).

    Notes
    -----
    Why the law is the same. In the dense release ``Y_c = x_c + Z_c`` with ``Z_c`` i.i.d.
    discrete Laplace, ``P[Z = z] = (1 − a)/(1 + a) · a^|z|``, ``a = e^{−1/b}``; the output is
    ``T(Y) = {(c, Y_c) : Y_c >= τ}``. Split the cells into ``S`` (``x_c != 0``) and the zero
    cells ``Z0`` (``N0 = n_cells − |S|``). The coordinates are independent, so the output is
    the union of two independent parts:

    * ``S``: exactly as dense — noise every cell of ``S``, keep ``Y_c >= τ``.
    * ``Z0``: each cell crosses independently with ``π = P[Z >= τ] = a^τ/(1 + a)``
      (``τ >= 1``). So the number of crossing cells is ``K ~ Binomial(N0, π)``; given ``K``,
      the crossing set is uniform among the ``K``-subsets of ``Z0`` (the cells are
      exchangeable); given the set, the values are i.i.d. ``Z | Z >= τ`` =
      ``τ + Geometric(1 − a)`` on ``{0, 1, ...}``, independent of which cells they are.

    We draw exactly these: ``K`` by ``backend.binomial``, the positions as a uniform
    ``K``-subset of the ranks ``0..N0 − 1`` of the zero cells (``backend.integers``; rank
    ``r`` is the cell ``r + #{s ∈ S : s − rank(s) <= r}``, found by binary search — the zero
    cells are never materialized), the values by rejection from ``backend.discrete_laplace``.
    Hence the output has the law of ``T(M(x))`` for the dense ε-DP release ``M``: it is
    post-processing of an ε-DP release (``τ`` and the domain are public), and ε-DP with the
    same neighbouring relation and sensitivity. The *work* is ``O(|S| + K)``; only the run
    time depends on ``|S|`` (a timing side channel that the dense form does not have).
    With the OpenDP backend the binomial count is exact for the float ``π``
    (:meth:`~graphanon.privacy.noise.OpenDPBackend.binomial`; ``π`` itself is rounded to the
    nearest float); positions and values are exact.
    """
    cells = np.asarray(cells, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    n_zero = int(n_cells) - cells.size
    noisy = np.asarray(backend.discrete_laplace(counts, sensitivity=sensitivity,
                                                epsilon=epsilon), dtype=np.int64)
    keep = noisy >= threshold
    pi = crossing_probability(dp_scale(sensitivity, epsilon), threshold)
    n_cross = backend.binomial(n_zero, pi)
    ranks = _uniform_subset(n_zero, n_cross, backend)
    zero_before = cells - np.arange(cells.size, dtype=np.int64)  # zero cells before cells[t]
    zcells = ranks + np.searchsorted(zero_before, ranks, side="right")
    zvals = _tail_values(n_cross, threshold, sensitivity, epsilon, backend)
    out_cells = np.concatenate([cells[keep], zcells])
    out_vals = np.concatenate([noisy[keep], zvals])
    order = np.argsort(out_cells, kind="stable")
    return out_cells[order], out_vals[order]
