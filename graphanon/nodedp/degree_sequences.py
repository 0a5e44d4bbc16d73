"""Private degree sequences: RPS (node-DP) and the Laplace / Hay et al. baselines.

``rps_degree_sequence``
    Recursive Partitioning and Summarization (Qardaji & Li) for the degree sequence under
    node-DP, reconstructed from the ``002_*.txt`` fragment (derivation below).
``laplace_degree_sequence``
    Node-DP baseline: the θ-dKε 1K release (EAD projection, discrete Laplace, ``Δ = 2θ+1``),
    turned into a sequence.
``hay_degree_sequence``
    Edge-DP baseline (Hay, Li, Miklau & Jensen, ICDM 2009): the sorted degree sequence plus
    discrete Laplace noise of sensitivity 2, then constrained inference (isotonic regression).

Every function returns a :class:`DegreeSequenceRelease` with a :class:`Release` record.
Metrics (``002_*.txt`` §5.2): :func:`degree_sequence_metrics` gives the KS distance and the
earth mover's distance between the released and the true degree sequences.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._compat import moved_names, paper_variants
from .._validation import (
    EPSILON_RANGE,
    check_degree_bound,
    check_epsilon,
    check_float,
    check_int,
)
from ..dk.extract import DKDistribution
from ..dk.postprocess import largest_remainder
from ..errors import InvalidParameterError
from ..graph import Graph
from ..metrics import emd_distance, ks_distance
from ..params import Param, Spec, combine
from ..privacy.noise import NoiseBackend, exponential_mechanism, get_backend
from ..privacy.release import Release, started_at
from .theta_dk import NODE_SET, non_isolated_count, projection_key, theta_dk_release

__all__ = [
    "DegreeSequenceRelease",
    "degree_sequence_metrics",
    "hay_degree_sequence",
    "interpolate_summary",
    "laplace_degree_sequence",
    "largest_remainder",
    "rank_envelope",
    "rps_degree_sequence",
    "rps_partition",
    "rps_setup",
]

__getattr__ = moved_names(__name__, {
    "rps_smooth_sensitivity": "graphanon.reproduce.rps_seed:rps_smooth_sensitivity"},
    removed_in="0.3.0")


@dataclass(frozen=True)
class DegreeSequenceRelease:
    """A released degree sequence (sorted ascending, non-negative integers)."""

    degrees: npt.NDArray[np.int64]
    method: str
    release: Release
    regions: npt.NDArray[np.int64] | None = None  # RPS: (k, 2) [lo, hi] per region
    seconds: float = field(default=0.0, compare=False)

    def histogram(self) -> DKDistribution:
        """The released sequence as a 1K table (nodes per degree, zero counts dropped).

        Post-processing of the release: it carries the same guarantee and ε.
        """
        hist = np.bincount(self.degrees) if self.degrees.size else np.zeros(0, np.int64)
        nz = np.flatnonzero(hist)
        return DKDistribution("degree", nz[:, None], hist[nz].astype(np.int64))


def _check_graph(G: Any, owner: str) -> None:
    if not isinstance(G, Graph):
        raise InvalidParameterError(
            f"The 'G' parameter of {owner} must be a graphanon Graph. Got {type(G).__name__}."
        )


def degree_sequence_metrics(G: Graph, released: DegreeSequenceRelease | Any) -> dict[str, float]:
    """KS and EMD between the degree histograms of ``G`` and a released sequence.

    EMD is in degree units (the mean absolute difference of the two sorted sequences after
    normalizing to distributions); uses the private graph: evaluation only.
    """
    seq = released.degrees if isinstance(released, DegreeSequenceRelease) else released
    p = np.bincount(G.degrees)
    q = np.bincount(np.asarray(seq, dtype=np.int64)) if len(seq) else np.zeros(1)
    return {"ks": ks_distance(p, q), "emd": emd_distance(p, q)}


# ---------------------------------------------------------------------- RPS
def rank_envelope(degrees: npt.NDArray[np.int64], *, max_degree: int, rank_scale: float,
                  n_total: int) -> npt.NDArray[np.float64]:
    """Node-Lipschitz rank function ``V(s)`` for ``s = 0..Λ+1`` (quality of the RPS splits).

    Ranks are counted from the top, over the non-isolated nodes, against the public count
    ``N = n_total``: ``R(0) = 0`` and ``R(s) = max(0, N − #{v : min(deg v, Λ) >= s})`` for
    ``s >= 1`` (equal to ``#{v : 0 < deg v < s}`` plus ``N − n₊`` padding below degree 1 when
    ``N >= n₊``, the number of non-isolated nodes). Isolated nodes never count, so an edge
    list and the same graph with isolated nodes give one ``V``.
    ``T(s) = min_{j>=0} R(s−j) + c j`` (the largest function below ``R`` rising at most ``c``
    per degree), ``U(s) = max_{j>=0} R(s+j) − c j`` (the smallest one above ``R`` with that
    property) and ``V = (T + U) / 2``. Adding one node (with all its edges, and with it any
    neighbour new to the edge list) changes every ``V(s)`` by at most ``c + 1``; see
    :func:`rps_degree_sequence`, Notes. Both envelopes are one running min / max (O(Λ)).
    """
    lam = int(max_degree)
    c = float(rank_scale)
    hist = np.bincount(np.minimum(degrees, lam), minlength=lam + 1)
    top = np.cumsum(hist[::-1])[::-1]  # top[s] = #{min(deg, Λ) >= s}, s = 0..Λ
    R = np.concatenate([[0.0], np.maximum(0.0, float(n_total) - top[1:]), [float(n_total)]])
    x = c * np.arange(lam + 2, dtype=np.float64)
    T = x + np.minimum.accumulate(R - x)
    U = x + np.maximum.accumulate((R - x)[::-1])[::-1]
    return np.asarray((T + U) / 2.0, dtype=np.float64)


def _auto_depth(epsilon: float) -> int:
    """Public depth rule: ``1 + ⌊log2(ε_p / 4)⌋`` in ``[1, 8]`` (a function of ε only).

    Measured on Caltech36 / Reed98 (docs/node_dp.md): one split (2 regions) is best up to
    ε_p ≈ 8, two levels around ε_p = 10; deeper trees starve each split of budget.
    """
    return int(min(8, max(1, 1 + math.floor(math.log2(epsilon / 4.0)))))


def interpolate_summary(reg: npt.NDArray[np.int64], counts: npt.NDArray[np.int64],
                        lam: int) -> npt.NDArray[np.int64]:
    """Post-processing: a sorted sequence from regions and their (released) counts.

    The piecewise-linear quantile function through the knots ``(rank below boundary,
    boundary − ½)`` for boundaries strictly inside ``(0, N)`` in rank, extrapolated to
    ranks 0 and ``N`` with the first / last slope (kept within the regions' domain
    ``[reg[0, 0], Λ]``; with one boundary ``s``, the range ``[lo, 2s − lo]``), evaluated at
    the ``N`` mid-ranks.
    """
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    ranks = np.concatenate([[0], np.cumsum(counts)]).astype(np.float64)
    xs = np.concatenate([reg[:, 0], [lam + 1]]).astype(np.float64) - 0.5
    # the end knots (−½ at rank 0, Λ + ½ at rank N) are only the domain ends: extrapolate
    # the neighbouring interior segment instead (or mirror the one boundary), within them
    inner = np.flatnonzero((ranks > 0) & (ranks < total))
    inner = inner[np.r_[True, np.diff(ranks[inner]) > 0]] if inner.size else inner
    if inner.size >= 2:
        i0, i1 = inner[0], inner[1]
        j0, j1 = inner[-2], inner[-1]
        lo_slope = (xs[i1] - xs[i0]) / (ranks[i1] - ranks[i0])
        hi_slope = (xs[j1] - xs[j0]) / (ranks[j1] - ranks[j0])
        xs[0] = max(xs[0], xs[i0] - lo_slope * ranks[i0])
        xs[-1] = min(xs[-1], xs[j1] + hi_slope * (total - ranks[j1]))
    elif inner.size == 1:
        xs[-1] = min(xs[-1], 2.0 * xs[inner[0]] - xs[0])
    ranks, xs = ranks[np.r_[0, inner, ranks.size - 1]], xs[np.r_[0, inner, ranks.size - 1]]
    u = np.arange(total, dtype=np.float64) + 0.5
    vals = np.interp(u, ranks, xs)
    return np.clip(np.rint(vals), reg[0, 0], lam).astype(np.int64)


@dataclass(frozen=True)
class RpsSetup:
    """Validated RPS parameters; every field is public (given, or released: ``N̂``)."""

    epsilon: float
    max_nodes: int  # N: the release has N degrees
    max_nodes_source: str
    epsilon_node_count: float  # ε_N, 0 when N was given
    max_degree: int  # Λ
    max_degree_source: str
    rank_scale: float  # c
    backend: NoiseBackend
    count_theta: int | None = None  # θ_N of the private count (None when N was given)
    key: int | None = None  # its EAD ordering key (public)

    @property
    def epsilon_rest(self) -> float:
        return self.epsilon - self.epsilon_node_count


def rps_setup(G: Any, *, epsilon: float, max_degree: int | None, max_nodes: int | None,
              rank_scale: float | None, count_fraction: float, backend: NoiseBackend | None,
              owner: str, count_theta: int = 8, key: int | None = None,
              rng: np.random.Generator | None = None) -> RpsSetup:
    """Validate RPS's arguments and release ``N̂`` when ``N`` is not public.

    ``N̂`` counts the non-isolated nodes of the EAD ``count_theta``-projection (node sensitivity
    ``count_theta + 1``, :mod:`graphanon.nodedp.theta_dk`): the plain count of nodes with an
    edge moves by ``1 + deg`` when a node whose neighbours have no other edge is removed.
    """
    _check_graph(G, owner)
    epsilon = check_epsilon(epsilon, "epsilon", owner)
    backend = backend or get_backend("opendp")
    eps_n = 0.0
    theta_n: int | None = None
    if max_nodes is not None:
        cap, cap_source = check_degree_bound(max_nodes, "max_nodes", owner), "caller"
    else:
        frac = check_float(count_fraction, "count_fraction", owner, low=0.0, high=1.0,
                           closed="neither")
        theta_n = check_int(count_theta, "count_theta", owner, low=1, high=1 << 20)
        eps_n = frac * epsilon
        if eps_n < EPSILON_RANGE[0]:
            raise InvalidParameterError(
                f"The 'epsilon' parameter of {owner} ({epsilon:g}) is too small for RPS "
                f"without a public node count: its node-count estimate gets {frac:g} of it "
                f"({eps_n:g}), below the smallest ε {EPSILON_RANGE[0]:g}. Use epsilon >= "
                f"{EPSILON_RANGE[0] / frac:g}, or give the node count (max_nodes; CLI: "
                "--max-nodes).")
        key = projection_key(key, rng)
        count = non_isolated_count(G, theta=theta_n, key=key)
        n_hat = int(backend.discrete_laplace(np.array([count]), sensitivity=theta_n + 1,
                                             epsilon=eps_n)[0])
        cap, cap_source = max(n_hat, 1), "private estimate"
    if max_degree is None:
        lam = check_degree_bound(max(cap - 1, 1), "max_nodes", owner)
    else:
        lam = check_degree_bound(max_degree, "max_degree", owner)
    c_rank = (max(1.0, cap / 64.0) if rank_scale is None
              else check_float(rank_scale, "rank_scale", owner, low=1.0))
    return RpsSetup(epsilon, cap, cap_source, eps_n, lam,
                    "caller" if max_degree is not None else "N-1", c_rank, backend,
                    theta_n, key if theta_n is not None else None)


def rps_partition(degrees: npt.NDArray[np.int64], setup: RpsSetup, *, epsilon_partition: float,
                  depth: int | None, owner: str
                  ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], int, float]:
    """The private partition: ``(regions (k, 2), public target counts, depth, ε per split)``.

    Each split is the exponential mechanism with quality ``−|V(s) − m| / (c + 1)`` (node
    sensitivity 1, :func:`rank_envelope`) and ``ε_p / (2^d − 1)``; see
    :func:`rps_degree_sequence`, Notes. The domain is ``[1, Λ]``: the non-isolated nodes.
    """
    if depth is not None:
        depth = check_int(depth, "depth", owner, low=1, high=20)
    d = _auto_depth(epsilon_partition) if depth is None else depth
    eps_split = epsilon_partition / (2 ** d - 1)
    lam, c_rank = setup.max_degree, setup.rank_scale
    V = rank_envelope(degrees, max_degree=lam, rank_scale=c_rank, n_total=setup.max_nodes)
    # (lo, hi, a, b): degree range and public target-rank range
    regions: list[tuple[int, int, float, float]] = [(1, lam, 0.0, float(setup.max_nodes))]
    for _ in range(d):
        nxt: list[tuple[int, int, float, float]] = []
        for lo, hi, a, b in regions:
            if hi == lo:
                nxt.append((lo, hi, a, b))
                continue
            m = (a + b) / 2.0
            s = np.arange(lo + 1, hi + 1)
            q = -np.abs(V[s] - m) / (c_rank + 1.0)  # node sensitivity 1
            # ∝ μ(s) exp(ε_s q / (2·1)) with the public base measure μ(s) ∝ 1/s
            cut = int(s[exponential_mechanism(q, epsilon=eps_split, sensitivity=1.0,
                                              backend=setup.backend, log_base=-np.log(s))])
            nxt.extend([(lo, cut - 1, a, m), (cut, hi, m, b)])
        regions = nxt
    reg = np.asarray([(lo, hi) for lo, hi, _, _ in regions], dtype=np.int64).reshape(-1, 2)
    target = np.asarray([b - a for _, _, a, b in regions], dtype=np.float64)
    return reg, target, d, eps_split


PARTITION_DERIVATION = ("partition: EM, quality -|V(s) - m|/(c+1) with node sensitivity 1 "
                        "(rank envelope from the top against N, Lipschitz c+1 when a node "
                        "and neighbours new to the edge list appear), eps_p/(2^d - 1) per "
                        "split; N: public, or the EAD count_theta-projection's non-isolated "
                        "count with sensitivity count_theta+1")


def rps_params(setup: RpsSetup, *, depth: int, depth_given: bool, n_regions: int,
               epsilon_partition: float, epsilon_split: float) -> dict[str, Any]:
    """The Release parameters every RPS variant records (all public)."""
    return {"max_degree": setup.max_degree, "max_degree_source": setup.max_degree_source,
            "max_nodes": setup.max_nodes, "max_nodes_source": setup.max_nodes_source,
            "epsilon_node_count": setup.epsilon_node_count,
            "node_count_theta": setup.count_theta, "node_count_key": setup.key,
            "node_set": NODE_SET, "domain": "degrees 1..max_degree", "depth": depth,
            "depth_source": "caller" if depth_given else "auto",
            "rank_scale": setup.rank_scale, "n_regions": n_regions,
            "epsilon_partition": epsilon_partition, "epsilon_split": epsilon_split}


_EPSILON = Param("epsilon", "epsilon", "Privacy budget ε > 0.")
_KEY = Param("key", "int", "Key of the EAD projection's keyed-hash order (default: drawn from "
             "the generator).", default=None, low=0, high=2**64 - 1, cli="")

#: The parameters of :func:`rps_degree_sequence` (node-DP RPS), declared once.
RPS = Spec("rps_degree_sequence", (
    _EPSILON,
    Param("max_degree", "int", "Public degree bound Λ (default N − 1). Only pass the true "
          "maximum if it is public.", default=None, low=1, high=2**31 - 2),
    Param("max_nodes", "int", "Public count N of nodes with an edge (the release has N "
          "degrees). Default: a private estimate that spends count_fraction of ε: the nodes "
          "with an edge in the EAD count_theta-projection, noise of sensitivity θ+1.",
          default=None, low=1, high=2**31 - 2),
    Param("count_theta", "int", "Without max_nodes: the public EAD bound of the node-count "
          "estimate (larger: less bias, more noise).", default=8, low=1, high=1 << 20),
    Param("depth", "int", "Recursion depth (default: a public rule of ε).", default=None,
          low=1, high=20),
    Param("count_fraction", "float", "Without max_nodes: the share of ε spent on the node "
          "count.", default=0.1, low=0.0, high=1.0, closed="neither", cli=""),
    Param("rank_scale", "float", "The rank envelope's scale c (default max(1, N/64)).",
          default=None, low=1.0, cli=""),
    _KEY,
))

#: The parameters of :func:`laplace_degree_sequence` (node-DP baseline), declared once.
LAPLACE_DEGREES = Spec("laplace_degree_sequence", (
    _EPSILON,
    Param("theta", "int", "Projection bound θ.", default=64, low=1, high=2**31 - 2),
    _KEY,
))

#: The parameters of :func:`hay_degree_sequence` (edge-DP, one degree per public node).
HAY_DEGREES = Spec("hay_degree_sequence", (_EPSILON,))

#: ``release-degrees`` (command and job step): one of the three by ``method``; an option of
#: one method is refused with another. The table in docs/node_dp.md.
RELEASE_DEGREES = combine("release-degrees", Param(
    "method", "choice", "rps: node-DP RPS; laplace: node-DP EAD-projected histogram; hay: "
    "edge-DP constrained inference.", default="rps", choices=("rps", "laplace", "hay")),
    {"rps": RPS, "laplace": LAPLACE_DEGREES, "hay": HAY_DEGREES}, doc="docs/node_dp.md")


@paper_variants("graphanon.reproduce.rps_seed:rps_degree_sequence_seed",
                removed_in="0.3.0", counts="partition", summary="interpolate",
                partition_fraction=0.5)
def rps_degree_sequence(
    G: Graph,
    *,
    epsilon: float,
    max_degree: int | None = None,
    max_nodes: int | None = None,
    depth: int | None = None,
    rank_scale: float | None = None,
    count_fraction: float = 0.1,
    count_theta: int = 8,
    key: int | None = None,
    backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
    seed: int | None = None,
) -> DegreeSequenceRelease:
    """ε-node-DP degree sequence of the non-isolated nodes by Recursive Partitioning and
    Summarization.

    Parameters
    ----------
    G : Graph
    epsilon : float
        Total ε under node neighbourhood (add/remove one node with all its edges).
    max_degree : int, optional
        Public bound Λ on the degree domain ``[1, Λ]``. Pass the true maximum degree only if
        it is public. Default ``N − 1`` with ``N`` the node count below. Degrees above Λ are
        clipped to Λ.
    max_nodes : int, optional
        Public count ``N`` of non-isolated nodes (pass the true count only if it is public).
        Under add/remove-node DP it is private (the paper treats ``n`` as public, which
        leaks: a count clipped at ``n`` can take the value ``n + 1`` for ``G + v`` but never
        for ``G``), and on an edge list its plain count has no bounded sensitivity at all
        (removing a node also removes each neighbour whose only edge was theirs). If omitted,
        ``count_fraction · ε`` buys a private estimate ``N̂``: the number of non-isolated
        nodes of the EAD ``count_theta``-projection plus discrete Laplace noise of
        sensitivity ``count_theta + 1``, and ``N = max(N̂, 1)``. The release has exactly
        ``N`` degrees, all ``>= 1``.
    depth : int, optional
        Recursion depth ``d`` (at most ``2^d`` regions). Default: a public rule of the split
        budget ε_p, ``1 + ⌊log2(ε_p / 4)⌋`` clipped to ``[1, 8]`` (1 level up to ε_p < 8,
        2 up to 16, …). The paper's fixed 15 spends ε_p / (2^15 − 1) per split.
    rank_scale : float, optional
        ``c >= 1`` of :func:`rank_envelope`; public. Default ``max(1, N / 64)`` (measured
        on Facebook100; ``N / 16`` was worse there). ``V`` equals the rank ``R`` where at
        most ``c`` nodes share a degree; a smaller ``c`` biases the splits where degrees are
        denser, a larger one coarsens them (the exponential mechanism resolves ``V`` to
        about ``c · 2 ln(Λ) / ε_s`` ranks).
    count_fraction : float
        Share of ε spent on the node-count estimate when ``max_nodes`` is not given.
    count_theta : int
        Public EAD bound of that estimate (default 8): larger keeps more low-degree
        neighbours of hubs in the count (less bias) at more noise (scale
        ``(count_theta + 1) / ε_N``).
    key : int, optional
        Public ordering key of that projection (drawn from ``rng`` or fresh when omitted).
    backend, rng, seed
        Noise backend (default OpenDP, secure; ``get_backend("numpy-insecure", rng=...)`` for
        reproducible runs), non-noise randomness, and the seed to record.

    Returns
    -------
    DegreeSequenceRelease
        ``N`` sorted degrees and the regions.

    Raises
    ------
    InvalidParameterError

    Notes
    -----
    *Budget* (sequential composition; node-DP has no parallel composition over regions,
    because one node changes degrees in many regions): ``ε = ε_N + ε_p`` with
    ``ε_N = count_fraction · ε`` (0 if ``N`` is public). The depth is public (an argument or
    a function of ε only), so the number of split decisions ``2^d − 1`` is public and each
    gets ``ε_s = ε_p / (2^d − 1)``; a region of one degree is not split (its share is simply
    unspent).

    *Node set.* The release ranges over non-isolated nodes (degrees ``>= 1``), the only nodes an
    edge list can hold; the neighbouring relation is ``G' = G + v⁺`` where the neighbours of
    ``v⁺`` may be new to the file.

    *Partition.* A region ``[lo, hi]`` holds the public target ranks ``[a, b]`` (the root
    ``[1, Λ]`` with ``[0, N]``); it is split at ``s ∈ (lo, hi]`` into ``[lo, s−1]`` (ranks
    ``[a, m]``) and ``[s, hi]`` (ranks ``[m, b]``), ``m = (a + b)/2``, by the exponential
    mechanism with quality ``q(s) = −|V(s) − m| / (c + 1)`` (:func:`rank_envelope`). The plain
    rank ``R(s) = #{v : deg v < s}`` has unbounded node sensitivity (the new node's neighbours
    at degree ``s − 1`` all cross ``s``; on an edge list its new neighbours appear at degree
    1), and the seed's fix (dividing by ``2(n+1)``, so Δq <= 1/2) makes every split
    near-uniform at any useful ε. Instead, count from the top against the public ``N``:
    ``R(s) = max(0, N − top(s))`` with ``top(s) = #{v : min(deg v, Λ) >= s}`` for ``s >= 1``,
    ``R(0) = 0``. Adding ``v⁺`` raises each old (clipped) degree by at most 1, adds ``v⁺``
    and adds new neighbours at degree 1, so ``top(s) <= top'(s) <= top(s−1) + 1`` for
    ``s >= 2`` and ``top'(1) >= top(1)``; with the 1-Lipschitz clip this gives
    ``R(x−1) − 1 <= R'(x) <= R(x)`` for every ``x`` (at ``x = 1``: ``R'(1) >= 0 = R(0)``).
    Hence ``T(s) − c − 1 <= T'(s) <= T(s)`` (``T'(s) >= min_j R(s−j−1) − 1 + cj >= T(s) −
    c − 1``), likewise for ``U``; so ``|V' − V| <= c + 1`` pointwise, in both directions
    (removal is the reverse addition), and ``q`` has node sensitivity 1. Each split is ε_s-node-DP
    (selection ``∝ μ(s) exp(ε_s q / 2)`` with the public, data-independent base measure
    ``μ(s) ∝ 1/s`` — log-uniform, so the empty tail of a domain ``[0, N − 1]`` does not
    outweigh the data by its sheer size; Gumbel-max with the backend's uniforms). ``m`` is a
    function of the released ``N`` only.

    *Summary* (post-processing). Every leaf's count is its public target share of ``N``
    (largest remainder), so no count is queried; its nodes are spread along the
    piecewise-linear quantile function through the released boundaries
    (:func:`interpolate_summary`). Nothing else about ``n`` is published.

    The seed's summarization (smooth-sensitivity Cauchy counts per region, nodes at the lower
    boundary) is :func:`graphanon.reproduce.rps_seed.rps_degree_sequence_seed`; the keywords
    ``counts``, ``summary`` and ``partition_fraction`` still reach it with a
    ``DeprecationWarning``.

    References
    ----------
    W. Qardaji, N. Li, "Recursive partitioning and summarization: a practical framework for
    differentially private data publishing", ASIACCS 2012 (``002_*.txt`` §5);
    F. McSherry, K. Talwar, "Mechanism design via differential privacy", FOCS 2007
    (exponential mechanism).
    """
    RPS.validate({"epsilon": epsilon, "max_degree": max_degree, "max_nodes": max_nodes,
                  "count_theta": count_theta, "depth": depth, "count_fraction": count_fraction,
                  "rank_scale": rank_scale, "key": key})
    t0 = time.perf_counter()
    started = started_at()
    owner = "rps_degree_sequence"
    setup = rps_setup(G, epsilon=epsilon, max_degree=max_degree, max_nodes=max_nodes,
                      rank_scale=rank_scale, count_fraction=count_fraction, backend=backend,
                      owner=owner, count_theta=count_theta, key=key, rng=rng)
    eps_p = setup.epsilon_rest
    deg = np.minimum(G.degrees, setup.max_degree)
    reg, target, d, eps_split = rps_partition(deg, setup, epsilon_partition=eps_p, depth=depth,
                                              owner=owner)
    seq = interpolate_summary(reg, largest_remainder(target, setup.max_nodes),
                              setup.max_degree)
    release = Release.create(
        mechanism="rps-degree-sequence", neighbourhood="node", epsilon=setup.epsilon,
        sensitivity=1.0, sensitivity_derivation=PARTITION_DERIVATION,
        params={**rps_params(setup, depth=d, depth_given=depth is not None,
                             n_regions=reg.shape[0], epsilon_partition=eps_p,
                             epsilon_split=eps_split),
                "counts": "partition", "summary": "interpolate"},
        backend=setup.backend.name, seed=seed, source_fingerprint=G.content_hash,
        created_at=started)
    return DegreeSequenceRelease(np.sort(seq), "rps", release, reg, time.perf_counter() - t0)


# ---------------------------------------------------------------------- baselines
def laplace_degree_sequence(
    G: Graph,
    *,
    epsilon: float,
    theta: int = 64,
    key: int | None = None,
    backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
    seed: int | None = None,
) -> DegreeSequenceRelease:
    """Node-DP baseline: Laplace on the EAD-projected degree histogram (``Δ = 2θ + 1``).

    The θ-dKε 1K release (:func:`graphanon.nodedp.theta_dk.theta_dk_release`, fixed θ) over
    projected degrees ``1..θ`` (non-isolated nodes; no degree-0 bin), expanded into a sorted
    sequence (noisy counts clipped at 0).
    """
    t0 = time.perf_counter()
    _check_graph(G, "laplace_degree_sequence")
    LAPLACE_DEGREES.validate({"epsilon": epsilon, "theta": theta, "key": key})
    rel = theta_dk_release(G, d=1, epsilon=epsilon, theta=theta, key=key,
                           backend=backend, rng=rng, seed=seed)
    counts = np.clip(rel.noisy, 0, None)
    seq = np.repeat(np.arange(1, counts.size + 1), counts)  # entry i is degree i + 1
    return DegreeSequenceRelease(seq, "laplace", rel.release, None, time.perf_counter() - t0)


def hay_degree_sequence(
    G: Graph,
    *,
    epsilon: float,
    nodes: Any = None,
    backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
    seed: int | None = None,
) -> DegreeSequenceRelease:
    """Edge-DP baseline: Hay et al.'s constrained inference on the sorted degree sequence.

    Parameters
    ----------
    G : Graph
    epsilon : float
    nodes : array-like
        The public node universe (required): the release holds one degree per node, so its
        length is the node count, which must not be read off the edges
        (:mod:`graphanon.universe`). Listed nodes without edges have degree 0.
    backend, rng, seed
        As for :func:`rps_degree_sequence`.

    Notes
    -----
    Neighbourhood: **edge** (one edge added/removed; the node set — the given universe —
    and hence ``n`` is public).
    The sorted degree sequence ``S(G)`` changes in at most two positions by 1 when an edge is
    added (two degrees rise by one; in sorted order that is two unit increments), so its
    L1 sensitivity is 2; discrete Laplace noise of that sensitivity is ε-edge-DP. Constrained
    inference (the L2 projection onto non-decreasing sequences, isotonic regression) and
    rounding / clipping to ``[0, n − 1]`` are post-processing.

    References
    ----------
    M. Hay, C. Li, G. Miklau, D. Jensen, "Accurate estimation of the degree distribution of
    private networks", ICDM 2009, §3.
    """
    t0 = time.perf_counter()
    started = started_at()
    owner = "hay_degree_sequence"
    _check_graph(G, owner)
    epsilon = HAY_DEGREES.validate({"epsilon": epsilon})["epsilon"]
    if nodes is None:
        raise InvalidParameterError(
            f"The 'nodes' parameter of {owner} is required: the released sequence has one "
            "degree per node of the public node universe (the CLI's --nodes FILE); the node "
            "count of an edge list is a function of its private edges.")
    G = G.with_nodes(nodes)
    backend = backend or get_backend("opendp")
    s = np.sort(G.degrees)
    noisy = backend.discrete_laplace(s, sensitivity=2, epsilon=epsilon)
    from scipy.optimize import isotonic_regression  # 0.3 s of imports: only where used

    fitted = isotonic_regression(noisy.astype(np.float64), increasing=True).x if s.size else s
    seq = np.clip(np.rint(fitted), 0, max(G.n_nodes - 1, 0)).astype(np.int64)
    seconds = time.perf_counter() - t0
    release = Release.create(
        mechanism="hay-constrained-inference", neighbourhood="edge", epsilon=epsilon,
        sensitivity=2.0,
        sensitivity_derivation="sorted degree sequence: one edge raises two entries by 1",
        params={"node_universe": "given by the operator (public: one degree per node)",
                "postprocessing": "isotonic regression, round, clip"},
        backend=backend.name, seed=seed, source_fingerprint=G.content_hash, created_at=started)
    return DegreeSequenceRelease(np.sort(seq), "hay", release, None, seconds)
