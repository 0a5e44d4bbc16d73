"""Degree-bounded triangle statistics under edge-DP, and the generator's block density
fitted to them (issue 36, part 3).

Three statistics of one public degree bound ``h`` (given by the operator, or a quantile of a
released degree sequence: post-processing of an ε-DP release). ``M_t`` is the largest degree
(in ``G``) of triangle ``t``'s three nodes.

- ``S_h`` (``"smooth"``, the default; :func:`smooth_triangles`): every triangle weighted by

      g(M_t) = 1 for M_t <= h,   (2h − M_t) / h for h < M_t < 2h,   0 for M_t >= 2h,

  a degree truncation that fades out over ``(h, 2h)`` instead of cutting at ``h``.
  ``Δ S_h = (2h − 1)(2h − 2)/h + 2h − 2``, about ``6h``.
- ``T_h`` (``"count"``; :func:`bounded_triangles`): the triangles of ``G_h``, the subgraph
  induced by the nodes of degree at most ``h``. ``Δ T_h = h(h − 1)``.
- ``W_h`` (``"weighted"``; :func:`weighted_triangles`): ``Σ over triangles t of G_h of
  1/(M_t − 1)``. ``Δ W_h = h``.

Why the smooth one is the default. ``T_h``'s cliff costs ``h(h − 1)``: one edge can push a
node of degree ``h`` with ``C(h, 2)`` triangles out of ``G_h``. A ramp of slope ``1/h`` lets a
degree step move each of those triangles by at most ``1/h``. On the six benchmark graphs at
the degree quantile 0.99 the noise's standard deviation relative to the statistic fell from
0.2–1.9 (``T_h``, share 0.25 of ε = 1; polbooks 6) to 0.006–0.06 (``S_h``; polbooks 1.4),
and ``S_h`` holds more of the triangles (weight 1 up to ``h``, some up to ``2h``).
``W_h`` is as cheap but weighs the triangles of low-degree nodes, where the global clustering
coefficient weighs the hubs': a generator fitted to it missed that coefficient by more.

Sensitivity of ``S_h`` (edge neighbourhood, one edge ``(u, v)`` added; a removal is the same
pair read backwards). Only ``d_u`` and ``d_v`` change, each by +1. ``g`` is non-increasing,
in ``[0, 1]``, zero from ``2h`` on, and changes by at most ``1/h`` per degree step. Work with
``h · S_h``, an integer (``h · g`` is).

(a) An old triangle changes weight only if it holds ``u`` or ``v`` (not both: ``(u, v)`` is
    new) and its ``M_t`` grows, by 1: at most ``1`` (scaled). Its weight was not zero, so
    ``d_u <= 2h − 1`` and ``u`` has at most ``C(2h − 1, 2)`` triangles. Both ends:
    ``(2h − 1)(2h − 2)``.
(b) New triangles ``{u, v, w}``, ``w`` a common neighbour: weight ``> 0`` needs
    ``d_u + 1 <= 2h − 1``, so at most ``d_u <= 2h − 2`` of them, each at most ``h`` (scaled).

``Δ(h · S_h) = (2h − 1)(2h − 2) + h(2h − 2) = (2h − 2)(3h − 1)``, an integer: discrete
Laplace noise on ``h · S_h``, divided by ``h`` (post-processing). Two ``2h``-cliques joined by
one edge attain (a): every end's ``C(2h − 1, 2)`` triangles drop from ``1/h`` to 0. Audited by
brute force in ``tests/synthetic``.

Sensitivity of ``W_h``. As above, only ``u`` or ``v`` can leave ``G_h``; triangles avoiding
``u`` and ``v`` keep their nodes, degrees and weights.

(a) A triangle at ``u`` that stays changes weight only when ``u`` becomes its largest degree:
    ``1/(d_u − 1) − 1/d_u = 1/(d_u(d_u − 1))``; ``u`` has at most ``C(d_u, 2)`` triangles, so
    at most ``1/2`` in all (the same for ``v``).
(b) New triangles ``{u, v, w}`` (both ends stay): at most ``min(d'_u, d'_v) − 1`` of them,
    each of weight at most ``1/(max(d'_u, d'_v) − 1)``: at most 1.
(c) ``u`` leaves ``G_h`` (``d_u = h``): its at most ``C(h, 2)`` triangles vanish, each of
    weight at most ``1/(h − 1)``: at most ``h/2`` (the same for ``v``).

Both stay: ``≤ 1/2 + 1/2 + 1 = 2``; one leaves: ``≤ h/2 + 1/2``; both leave: ``≤ h``. So
``Δ = h`` for ``h >= 2``. The same case analysis with weight 1 gives ``Δ T_h = h(h − 1)``
(both ends leave with ``C(h, 2)`` triangles each).

References
----------
C. Seshadhri, T. G. Kolda, A. Pinar, "Community structure and scale-free collections of
Erdős–Rényi graphs", Phys. Rev. E 85, 056109 (2012) (BTER's block density sets clustering).
S. P. Kasiviswanathan, K. Nissim, S. Raskhodnikova, A. Smith, "Analyzing graphs with node
differential privacy", TCC 2013 (degree-bounded subgraph statistics).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import check_choice, check_epsilon, check_float, check_int
from ..errors import InvalidParameterError
from ..graph import Graph
from ..privacy.noise import NoiseBackend, get_backend
from ..privacy.release import Release, started_at
from ._triangle_kernels import top_triangle_counts

if TYPE_CHECKING:
    from .communities import CommunityRelease

__all__ = ["TRIANGLE_STATISTICS", "TriangleRelease", "bounded_triangles", "fit_block_density",
           "release_bounded_triangles", "smooth_triangles", "triangle_sensitivity",
           "triangle_statistic", "weighted_triangles"]

#: The triangle statistics, the default first (module docstring).
TRIANGLE_STATISTICS = ("smooth", "count", "weighted")


def _check_statistic(statistic: Any, owner: str) -> str:
    return check_choice(statistic, "statistic", owner, TRIANGLE_STATISTICS)


def triangle_sensitivity(h: int, statistic: str = "smooth") -> float:
    """``Δ S_h = (2h − 2)(3h − 1)/h``; ``Δ T_h = h(h − 1)``; ``Δ W_h = h`` (module
    docstring; ``h >= 2``)."""
    h = max(int(h), 2)
    statistic = _check_statistic(statistic, "triangle_sensitivity")
    if statistic == "smooth":
        return _smooth_scaled_sensitivity(h) / h
    return float(h if statistic == "weighted" else h * (h - 1))


def _top_triangles(G: Graph, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Per node of ``G_h``: the triangles of ``G_h`` in which it has the largest degree (ties
    by index), and its degree in ``G``."""
    import scipy.sparse as sp

    d = G.degrees
    keep = np.flatnonzero(d <= h)
    dk = d[keep]
    if keep.size < 3:
        return np.zeros(keep.size), dk
    A = G.to_scipy()[keep][:, keep].tocoo()
    order = np.lexsort((np.arange(keep.size), dk))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    up = rank[A.row] < rank[A.col]
    U = sp.csr_array((np.ones(int(up.sum()), np.int64), (A.row[up], A.col[up])),
                     shape=A.shape)
    top = top_triangle_counts(U.indptr, U.indices, keep.size)
    return top.astype(np.float64), dk


def _smooth_scaled_sensitivity(h: int) -> int:
    """``Δ(h · S_h) = (2h − 2)(3h − 1)``, an integer (module docstring)."""
    return (2 * h - 2) * (3 * h - 1)


def _smooth_scaled(G: Graph, h: int) -> int:
    """``h · S_h(G)``, an integer: each triangle weighs ``clip(2h − M_t, 0, h)``."""
    top, dk = _top_triangles(G, 2 * h - 1)
    return round(float((top * np.clip(2 * h - dk, 0, h)).sum()))


def smooth_triangles(G: Graph, h: int) -> float:
    """``S_h(G)``: each triangle weighted ``1`` up to ``M_t = h``, fading linearly to ``0`` at
    ``M_t = 2h`` (``M_t`` the largest degree of its nodes; module docstring)."""
    return _smooth_scaled(G, h) / h


def triangle_statistic(G: Graph, h: int, statistic: str = "smooth") -> float:
    """The named statistic of ``G`` (``"smooth"``, ``"count"`` or ``"weighted"``)."""
    statistic = _check_statistic(statistic, "triangle_statistic")
    if statistic == "smooth":
        return smooth_triangles(G, h)
    return weighted_triangles(G, h) if statistic == "weighted" else float(
        bounded_triangles(G, h))


def weighted_triangles(G: Graph, h: int) -> float:
    """``W_h(G)``: each triangle of ``G_h`` weighted by ``1/(M_t − 1)`` (module docstring)."""
    top, dk = _top_triangles(G, h)
    return float((top / np.maximum(dk - 1, 1)).sum())


def bounded_triangles(G: Graph, h: int) -> int:
    """Triangles of the subgraph induced by the nodes of degree ``<= h``."""
    keep = G.degrees <= h
    if keep.sum() < 3:
        return 0
    A = G.to_scipy()[keep][:, keep].astype(np.int64)
    return int((A @ A).multiply(A).sum() // 6)


@dataclass(frozen=True)
class TriangleRelease:
    """A released ``S_h``, ``T_h`` or ``W_h`` (``statistic``; ``noisy`` may be negative:
    raw)."""

    noisy: float
    max_degree: int
    statistic: str
    release: Release
    seconds: float = field(default=0.0, compare=False)


_HOW = {
    "smooth": "triangles weighted 1 up to largest degree h, fading to 0 at 2h; noise on h "
              "times it, an integer: one edge moves each of its ends' <= C(2h−1,2) live "
              "triangles by 1 step and adds <= 2h−2 triangles of weight <= h, "
              "Δ = (2h−2)(3h−1) (scaled)",
    "count": "triangles of the subgraph of nodes of degree <= h: one edge can push both "
             "ends out of it, each with <= C(h,2) triangles",
    "weighted": "triangles of the subgraph of nodes of degree <= h, each weighted 1/(largest "
                "degree − 1): one edge can push both ends out of it, each with <= C(h,2) "
                "triangles of weight <= 1/(h−1)",
}


def release_bounded_triangles(G: Graph, *, epsilon: float, max_degree: int,
                              statistic: str = "smooth", nodes: Any = None,
                              backend: NoiseBackend | None = None, seed: int | None = None
                              ) -> TriangleRelease:
    """A degree-bounded triangle statistic of ``G`` plus noise calibrated to it: ε-edge-DP.

    Parameters
    ----------
    G : Graph
    epsilon : float
    max_degree : int
        The public degree bound ``h >= 2``.
    statistic : {"smooth", "count", "weighted"}
        ``S_h`` (default: triangles fading out between largest degree ``h`` and ``2h``),
        ``T_h`` (the triangles of the nodes of degree ``<= h``) or ``W_h`` (those weighted
        ``1/(M_t − 1)``); module docstring.
    nodes : array-like, optional
        The public universe (isolated nodes change nothing here; accepted for symmetry).
    backend, seed
        Noise backend (default OpenDP) and the recorded seed.

    Notes
    -----
    Neighbourhood **edge**. One edge changes ``h · S_h`` (an integer) by at most
    ``(2h − 2)(3h − 1)``, ``T_h`` by at most ``h(h − 1)`` (both ends at degree ``h`` leave
    ``G_h``, each with at most ``C(h, 2)`` triangles) and ``W_h`` by at most ``h`` (those
    triangles weigh at most ``1/(h − 1)`` each); see the module docstring. Discrete Laplace
    noise on the integers ``h · S_h`` (then divided by ``h``) and ``T_h``, or Laplace noise
    (OpenDP's floating-point-safe Laplace with the default backend) on ``W_h``, of that
    sensitivity is ε-edge-DP. The record's ``sensitivity`` is the statistic's own
    (``(2h − 2)(3h − 1)/h`` for ``S_h``).

    ``S_h`` is the default: at the same ε its noise relative to its value is 8–40 times
    smaller than ``T_h``'s on the six benchmark graphs. Fitted to ``W_h``, the generator's
    global clustering was off by more than fitted to ``T_h`` (``W_h`` weighs the triangles of
    low-degree nodes, the global coefficient those of hubs).
    """
    owner = "release_bounded_triangles"
    t0 = time.perf_counter()
    started = started_at()
    if not isinstance(G, Graph):
        raise InvalidParameterError(
            f"The 'G' parameter of {owner} must be a graphanon Graph. Got {type(G).__name__}.")
    epsilon = check_epsilon(epsilon, "epsilon", owner)
    h = check_int(max_degree, "max_degree", owner, low=2)
    statistic = _check_statistic(statistic, owner)
    if nodes is not None:
        G = G.with_nodes(nodes)
    backend = backend or get_backend("opendp")
    sens = triangle_sensitivity(h, statistic)
    if statistic == "smooth":
        # Δ(h · S_h) = (2h − 2)(3h − 1): each end's ≤ C(2h − 1, 2) live triangles move one
        # ramp step (1, scaled), ≤ 2h − 2 new triangles of weight ≤ h
        t = np.array([_smooth_scaled(G, h)], dtype=np.int64)
        noisy = float(np.asarray(backend.discrete_laplace(
            t, sensitivity=_smooth_scaled_sensitivity(h), epsilon=epsilon))[0]) / h
    elif statistic == "weighted":
        # Δ = h: both ends of degree h leave G_h, each with ≤ C(h, 2) triangles of weight
        # ≤ 1/(h − 1)
        noisy = float(np.asarray(backend.laplace(np.array([weighted_triangles(G, h)]),
                                                 sensitivity=sens, epsilon=epsilon))[0])
    else:
        # Δ = h(h − 1): both ends of degree h leave G_h with ≤ C(h, 2) triangles each
        t = np.array([bounded_triangles(G, h)], dtype=np.int64)
        noisy = float(np.asarray(backend.discrete_laplace(t, sensitivity=int(sens),
                                                          epsilon=epsilon))[0])
    release = Release.create(
        mechanism={"smooth": "smooth-triangles", "count": "bounded-triangles",
                   "weighted": "weighted-triangles"}[statistic],
        neighbourhood="edge", epsilon=epsilon, sensitivity=float(sens),
        sensitivity_derivation=_HOW[statistic],
        params={"max_degree": h, "statistic": statistic},
        backend=backend.name, seed=seed, source_fingerprint=G.content_hash,
        created_at=started)
    return TriangleRelease(noisy, h, statistic, release, time.perf_counter() - t0)


def fit_block_density(rel: CommunityRelease, target: float, *, rng: np.random.Generator,
                      statistic: str = "smooth", steps: int = 8, high: float = 1.0,
                      tol: float = 0.0) -> float:
    """The BTER block density ``ρ`` whose generated graph has the triangle ``statistic``
    about ``target`` (``h = rel.max_degree``; ``high`` when even ``ρ = high`` stays below
    the target).

    Post-processing: it simulates the generator on the released quantities only (one fixed
    seed drawn from ``rng`` for every trial, so the curve is smooth in ``ρ``).

    The root of ``f(ρ) = statistic(ρ) − target`` on ``(0, high]`` is found by Brent's
    method (:func:`scipy.optimize.brentq`: inverse quadratic interpolation, secant and
    bisection steps). At most ``1 + steps`` generator runs: ``ρ = high`` first (``high``
    is returned when it does not reach the target); ``steps = 0`` asks only that (``high/2``
    when it does reach it). It stops once ``|f| <= tol`` or the bracket is narrower than
    ``high/256`` (bisection's precision). ``community_release`` passes as ``tol`` the larger
    of a quarter of the released statistic's noise deviation (public) and 1 % of the
    statistic (the generator's own seed-to-seed spread of it is 0.4–6 %): a closer fit means
    nothing. Measured: 4–7 generator runs on the benchmark's six graphs and 6 on a forest
    fire of 2.4 million edges, where bisection took 9, for fits within 0.2 noise
    deviations.
    Returns the tried ``ρ`` with the smallest ``|f|``, at least ``10⁻³``.
    """
    from scipy.optimize import brentq

    from .bter import generate_community_graph

    target = max(check_float(target, "target", "fit_block_density"), 0.0)
    tol = max(check_float(tol, "tol", "fit_block_density"), 0.0)
    seed = int(rng.integers(2**31))
    h = rel.max_degree

    tried: dict[float, float] = {}  # ρ -> f(ρ): one generator run per density

    def f(rho: float) -> float:
        if rho not in tried:
            S = generate_community_graph(rel, rng=np.random.default_rng(seed),
                                         block_density=rho)
            tried[rho] = triangle_statistic(S, h, statistic) - target
        return tried[rho]

    hi = float(high)
    if f(hi) <= tol:  # below the target, or within tol of it
        return hi
    if steps <= 0:
        return hi / 2
    if f(0.0) >= 0:  # blocks add triangles: even density 0 has enough
        return 1e-3
    if steps > 1:  # two runs so far; within tol counts as a root, so Brent stops there
        brentq(lambda r: 0.0 if abs(f(r)) <= tol else f(r), 0.0, hi,
               xtol=hi / 256, maxiter=steps - 1, full_output=True, disp=False)
    best = min(tried, key=lambda r: abs(tried[r]))
    return float(max(best, 1e-3))
