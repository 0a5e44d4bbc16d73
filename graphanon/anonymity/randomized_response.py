"""Randomized response on a user × feature graph (Algorithm 1 of the smooth-k paper).

Every cell of the binary user × feature matrix keeps its true value with probability ``p``
and is otherwise replaced by a fair coin. The mechanism is the differential-privacy baseline
of ``000_*.txt``: it shows that any useful ε is huge on sparse data (Theorem 4.1).
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._compat import renamed_keywords
from .._progress import ProgressFn, log_progress
from .._validation import EPSILON_RANGE, check_choice, check_epsilon, check_float, check_int
from ..errors import InfeasibleError, InvalidParameterError
from ..graph import BipartiteGraph
from ..params import Param, Spec
from ..privacy.noise import RandomBytes, bernoulli_positions, exact_bernoulli
from ..privacy.release import Release, started_at

__all__ = [
    "RandomizedResponseResult",
    "randomized_response",
    "randomized_response_epsilon",
    "randomized_response_probability",
]

LEVELS = ("edge", "node")

#: The parameters of :func:`randomized_response`, declared once: its validation, the options
#: of ``graphanon randomized-response``, the job step's keys and the table in
#: docs/anonymity.md. ε's upper end is |F| · 100 at node level, so the spec admits up
#: to 10⁹ and the per-cell ε is checked against the usual range by the function.
RANDOMIZED_RESPONSE = Spec("randomized_response", (
    Param("epsilon", "float", "Total ε at the chosen level.",
          low=EPSILON_RANGE[0], high=1e9),
    Param("neighbourhood", "choice",
          "Neighbouring relation. edge: one user–feature cell is protected; node: a user's "
          "whole row (ε/|F| per cell).", default="edge", choices=LEVELS, aliases=("level",)),
    Param("max_output_cells", "int",
          "Refuse when the expected number of released cells exceeds this (at small ε the "
          "output is a dense random matrix).", default=50_000_000, low=0, cli=""),
), doc="docs/anonymity.md")
# q is enlarged by this relative margin so that float rounding never makes the realized
# ln((1−q)/q) exceed the requested per-entry ε.
_Q_MARGIN = 1e-12


@dataclass(frozen=True)
class RandomizedResponseResult:
    """Output of :func:`randomized_response`.

    Attributes
    ----------
    graph : BipartiteGraph
        The released graph (same users, features and ids as the input).
    release : Release
        The privacy record (mechanism, neighbourhood = level, ε, parameters, backend).
    mechanism, neighbourhood, epsilon, sensitivity
        Copied from the release for convenience.
    p, epsilon_per_entry : float
        Keep-probability and the per-cell ε ``ln((1+p)/(1−p))``.
    kept, created : int
        1-cells of the input that stayed 1, and 0-cells that became 1.
    seconds : float
        Wall-clock time of the sampling.
    """

    graph: BipartiteGraph
    release: Release
    mechanism: str
    neighbourhood: str
    epsilon: float
    sensitivity: float
    p: float
    epsilon_per_entry: float
    kept: int
    created: int
    seconds: float


@renamed_keywords({"level": "neighbourhood"}, removed_in="0.3.0")
def randomized_response_epsilon(p: float, *, neighbourhood: str = "edge",
                                n_features: int = 1) -> float:
    """ε of Algorithm 1 with keep-probability ``p``: ``ln((1+p)/(1−p))`` per cell.

    ``neighbourhood="node"`` multiplies by ``n_features`` (a user's whole row may change).
    """
    level = neighbourhood
    p = check_float(p, "p", "randomized_response_epsilon", low=0.0, high=1.0, closed="left")
    check_choice(level, "neighbourhood", "randomized_response_epsilon", LEVELS)
    f = check_int(n_features, "n_features", "randomized_response_epsilon", low=1)
    per_entry = math.log1p(p) - math.log1p(-p)
    return per_entry * (f if level == "node" else 1)


@renamed_keywords({"level": "neighbourhood"}, removed_in="0.3.0")
def randomized_response_probability(
    epsilon: float, *, neighbourhood: str = "edge", n_features: int = 1
) -> float:
    """Keep-probability ``p`` giving ε at ``neighbourhood``: ``p = tanh(ε_entry / 2)``.

    ``ε_entry = ε`` for edge level and ``ε / n_features`` for node level (the inverse of
    :func:`randomized_response_epsilon`). Computed as ``1 − 2q`` from the flip probability
    of :func:`_flip_probability`, which is what the sampler uses.
    """
    return 1.0 - 2.0 * _flip_probability(epsilon, level=neighbourhood, n_features=n_features)


def _check_total_epsilon(epsilon: Any, level: str) -> float:
    """ε of the release: per cell (edge level), or per user row = |F| · per-cell ε (node level,
    which can be large; the per-cell ε is checked against the usual range)."""
    if level == "node":
        return check_float(epsilon, "epsilon", "randomized_response", low=EPSILON_RANGE[0],
                           high=1e9)
    return check_epsilon(epsilon, "epsilon", "randomized_response")


def _flip_probability(epsilon: float, *, level: str, n_features: int) -> float:
    """``q = (1 − p)/2 = 1 / (1 + e^{ε_entry})``: P(0-cell → 1) = P(1-cell → 0).

    Computed directly (not from ``p``) so it stays accurate for large ε, and enlarged by a
    relative ``1e-12`` so float rounding never makes ``ln((1−q)/q)`` exceed ``ε_entry``.
    """
    eps = _check_total_epsilon(epsilon, level)
    check_choice(level, "level", "randomized_response", LEVELS)
    f = check_int(n_features, "n_features", "randomized_response", low=1)
    per_entry = eps / f if level == "node" else eps
    if not EPSILON_RANGE[0] <= per_entry <= EPSILON_RANGE[1]:
        raise InvalidParameterError(
            f"The 'epsilon' parameter of randomized_response ({eps:g}) gives each of the "
            f"{f} cells of a user's row {per_entry:g} at level={level!r}, outside "
            f"[{EPSILON_RANGE[0]:g}, {EPSILON_RANGE[1]:g}]; use "
            + (f"epsilon >= {EPSILON_RANGE[0] * (f if level == 'node' else 1):.12g}."
               if per_entry < EPSILON_RANGE[0] else
               f"epsilon <= {EPSILON_RANGE[1] * (f if level == 'node' else 1):.12g}."))
    q = math.exp(-per_entry) / (1.0 + math.exp(-per_entry))
    return min(q * (1 + _Q_MARGIN), 0.5)


def _random_bytes(rng: np.random.Generator | None) -> RandomBytes:
    if rng is None:
        return os.urandom
    return rng.bytes


@renamed_keywords(RANDOMIZED_RESPONSE.aliases(), removed_in="0.3.0")
def randomized_response(
    B: BipartiteGraph,
    *,
    epsilon: float,
    neighbourhood: str = "edge",
    users: Any = None,
    features: Any = None,
    rng: np.random.Generator | None = None,
    max_output_cells: int = 50_000_000,
    progress: ProgressFn = log_progress,
) -> RandomizedResponseResult:
    """Randomized response on every cell of ``B`` (sampled sparsely).

    Each cell keeps its value with probability ``p`` and is otherwise a fair coin, so a
    1-cell stays 1 with probability ``(1+p)/2`` and a 0-cell becomes 1 with probability
    ``q = (1−p)/2``.

    Parameters
    ----------
    B : BipartiteGraph
        Users × features. The user and feature sets (and ids) are public: the output has the
        same rows and columns.
    epsilon : float
        Total ε at ``neighbourhood`` (> 0).
    neighbourhood : {"edge", "node"}
        ``"edge"``: neighbouring inputs differ in one cell, ``ε_entry = ε``. ``"node"``:
        they differ in one user's row (any of its ``|F|`` cells), ``ε_entry = ε / |F|``.
    users, features : array-like
        The public universe (both required): every user and every feature that may appear.
        The mechanism randomizes every cell of ``users × features`` and node level divides
        ε by ``|features|``, so both sets must be public; read off the pairs they would leak
        (a feature held by one user would appear only when that user has it). They must
        list every user / feature of ``B``; the others become empty rows / columns.
        ``users=B.user_ids, features=B.feature_ids`` states that the data's own sets are
        public (a full table, for example).
    rng : numpy.random.Generator, optional
        ``None`` (default): the coin flips are drawn from the operating system's CSPRNG
        (``os.urandom``). A generator (its ``bytes``) makes the run reproducible and is
        recorded as the insecure backend ``"numpy-insecure"`` in the release.
    max_output_cells : int
        Refuse (``InfeasibleError``) when the expected number of created 1-cells,
        ``q · (#0-cells)``, exceeds this: at small ε the output is essentially a dense random
        matrix.
    progress : ProgressFn
        Progress sink.

    Returns
    -------
    RandomizedResponseResult

    Raises
    ------
    InvalidParameterError
        Bad ε or level.
    InfeasibleError
        The expected output exceeds ``max_output_cells``.

    References
    ----------
    Smooth-k-anonymity paper (``/work/shared/seeds/000_*.txt``), section 4.1 (Algorithm 1,
    node and edge DP), Appendix B.1 (Theorem B.1, RR is ε-edge-DP) and Theorem 4.1 / B.2
    (Jaccard upper bound).

    Notes
    -----
    **Guarantee.** For one cell, ``P[out=1 | in=1] / P[out=1 | in=0] = (1+p)/(1−p)`` and
    ``P[out=0 | in=0] / P[out=0 | in=1]`` is the same, so each cell is released with
    ``ε_entry = ln((1+p)/(1−p))`` (Theorem B.1). Cells are randomized independently, so two
    inputs differing in one cell (edge level) give output distributions within
    ``e^{ε_entry}``; inputs differing in one user's row differ in at most ``|F|`` cells, and
    the ratio is the product over those cells: ``|F| · ε_entry`` (node level; section 4.1).
    "Sensitivity" here is the number of cells a neighbouring change can flip: 1 or ``|F|``.

    **Sampling without the dense matrix.** 1-cells: one Bernoulli(q) coin each (1 → 0).
    0-cells: the cells that become 1 form a Bernoulli(q) process over all ``n·|F|`` cells; it
    is sampled by geometric gaps between successes, and hits on input 1-cells are discarded
    (those cells were decided by their own coin). This is distributionally identical to one
    coin per cell, and costs ``O(|E| + q·n·|F|·log₂(1/q))`` random nibbles.

    **Randomness and exactness.** The coin flips *are* the mechanism: if they were
    predictable the output would reveal the input. The default therefore draws random bytes
    from ``os.urandom`` (cryptographically secure); OpenDP's per-element randomized response
    would be secure too but costs a Python call per cell. The coins are exact:
    ``q = 1/(1+e^{ε_entry})`` is computed in floats and enlarged by a relative ``1e-12``, so
    the float ``q`` is at least the exact value, and every coin — the 1-cells' coins
    (:func:`~graphanon.privacy.noise.exact_bernoulli`) and the geometric gaps of the 0-cells
    (:func:`~graphanon.privacy.noise.bernoulli_positions`) — compares random bits with the
    binary digits of that float's exact value, with no 2⁻⁵³ grid and no ``log``. Each cell is
    therefore 1-flipped with probability exactly ``q``, and ``ln((1−q)/q) ≤ ε_entry`` holds
    for every ε in the allowed range (up to 100 per cell).
    """
    checked = RANDOMIZED_RESPONSE.validate(
        {"epsilon": epsilon, "neighbourhood": neighbourhood,
         "max_output_cells": max_output_cells})
    level, max_cells = checked["neighbourhood"], checked["max_output_cells"]
    eps = _check_total_epsilon(checked["epsilon"], level)
    if not isinstance(B, BipartiteGraph):
        raise InvalidParameterError(
            f"randomized_response needs a BipartiteGraph. Got {type(B).__name__} instead."
        )
    if users is None or features is None:
        missing = [n for n, v in (("users", users), ("features", features)) if v is None]
        raise InvalidParameterError(
            f"The {' and '.join(repr(m) for m in missing)} parameter(s) of randomized_response "
            "are required: the public universe of users and features (the CLI's --users FILE "
            "--features FILE). Read off the pairs, a user or feature would appear only when "
            "it holds a 1-cell, which leaks exactly what the mechanism protects.")
    B = B.with_universe(users=users, features=features)
    n, F = B.n_users, B.n_features
    if n == 0 or F == 0:
        raise InvalidParameterError("randomized_response needs at least one user and feature.")
    q = _flip_probability(eps, level=level, n_features=F)
    per_entry = math.log1p(-q) - math.log(q)
    return _impl(B, eps=eps, level=level, q=q, per_entry=per_entry, rng=rng,
                 max_cells=max_cells, progress=progress)


def _impl(
    B: BipartiteGraph, *, eps: float, level: str, q: float, per_entry: float,
    rng: np.random.Generator | None, max_cells: int, progress: ProgressFn,
) -> RandomizedResponseResult:
    t0 = time.perf_counter()
    started = started_at()
    random_bytes = _random_bytes(rng)
    n, F = B.n_users, B.n_features
    total = n * F
    p = 1.0 - 2.0 * q
    expected = q * total  # a public bound (the true count q·(total − |E|) would use |E|)
    if expected > max_cells:
        raise InfeasibleError(
            f"randomized response at ε={eps:g} ({level} level) would create about "
            f"{expected:.3g} 1-cells in a {n} × {F} matrix (each 0-cell becomes 1 with "
            f"probability {q:.3g}); the limit is max_output_cells={max_cells}. Use a larger ε "
            "or raise the limit."
        )
    progress("randomized response", 0, 2)
    rows, cols = B.edges()
    existing = rows * F + cols  # sorted (row-major CSR)
    kept = existing[~exact_bernoulli(q, existing.size, random_bytes)]  # 1 → 0 w.p. q
    progress("randomized response", 1, 2)
    created = bernoulli_positions(total, q, random_bytes)
    if existing.size and created.size:
        idx = np.minimum(np.searchsorted(existing, created), existing.size - 1)
        created = created[existing[idx] != created]
    keys = np.sort(np.concatenate([kept, created]))
    out_rows, out_cols = np.divmod(keys, F)
    graph = B.with_cells(out_rows, out_cols)
    progress("randomized response", 2, 2)
    seconds = time.perf_counter() - t0
    sensitivity = 1.0 if level == "edge" else float(F)
    release = Release.create(
        mechanism="randomized-response",
        neighbourhood=level,
        epsilon=eps,
        sensitivity=sensitivity,
        sensitivity_derivation=(
            "cells changed by a neighbouring input: 1 (one cell, edge level)"
            if level == "edge" else
            f"cells changed by a neighbouring input: |F| = {F} (one user's row, node level)"
        ) + f"; each cell costs ln((1+p)/(1-p)) = {per_entry:.6g}",
        params={"p": p, "q": q, "epsilon_per_entry": per_entry, "level": level,
                "universe": f"given by the operator: {n} users x {F} features (public)"},
        backend="os-urandom" if rng is None else "numpy-insecure",
        source_fingerprint=B.content_hash, created_at=started)
    return RandomizedResponseResult(
        graph=graph, release=release, mechanism=release.mechanism, neighbourhood=level,
        epsilon=eps, sensitivity=sensitivity, p=p, epsilon_per_entry=per_entry,
        kept=int(kept.size), created=int(created.size), seconds=seconds)
