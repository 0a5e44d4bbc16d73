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
from scipy.optimize import isotonic_regression

from .._validation import check_degree_bound, check_epsilon, check_float, check_int
from ..dk.extract import DKDistribution
from ..errors import InvalidParameterError
from ..graph import Graph
from ..metrics import emd_distance, ks_distance
from .node_dp import theta_dk_release
from .noise import NoiseBackend, get_backend
from .release import Release

__all__ = [
    "DegreeSequenceRelease",
    "degree_sequence_metrics",
    "hay_degree_sequence",
    "laplace_degree_sequence",
    "rps_degree_sequence",
    "rps_smooth_sensitivity",
]


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
def rps_smooth_sensitivity(hist: npt.NDArray[np.int64], boundaries: npt.NDArray[np.int64],
                           beta: float) -> float:
    """β-smooth upper bound on the L1 local sensitivity of the region-count vector.

    ``hist[g]`` = number of nodes of (clipped) degree ``g`` over ``0..Λ``; ``boundaries`` are
    the lower ends ``b > 0`` of the regions. ``S = max_t e^{−βt} A(t)`` with
    ``A(t) = 1 + 2 Σ_b (2 W_b(t) + 2t)`` and ``W_b(t) = #{v : deg(v) ∈ [b − 1 − t, b + t]}``
    (see :func:`rps_degree_sequence`, Notes).
    """
    lam = hist.size - 1
    cum = np.concatenate([[0], np.cumsum(hist)]).astype(np.float64)
    n = cum[-1]
    b = np.asarray(boundaries, dtype=np.int64)
    k = b.size

    def A(t: int) -> float:
        hi = np.minimum(b + t + 1, lam + 1)
        lo = np.maximum(b - 1 - t, 0)
        w = cum[hi] - cum[lo]
        return float(1.0 + 2.0 * np.sum(2.0 * w + 2.0 * t))

    best = 0.0
    t_star = lam + 2
    for t in range(t_star + 1):
        best = max(best, math.exp(-beta * t) * A(t))
    # t > t*: every window holds all n nodes, A(t) = a + c t with c = 4k
    a, c = 1.0 + 4.0 * k * n, 4.0 * k
    if c > 0:
        t_opt = max(1.0 / beta - a / c, float(t_star))
        best = max(best, math.exp(-beta * t_opt) * (a + c * t_opt))
    return best


def rps_degree_sequence(
    G: Graph,
    *,
    epsilon: float,
    max_degree: int | None = None,
    max_nodes: int | None = None,
    depth: int = 15,
    partition_fraction: float = 0.5,
    count_fraction: float = 0.05,
    backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
    seed: int | None = None,
) -> DegreeSequenceRelease:
    """ε-node-DP degree sequence by Recursive Partitioning and Summarization.

    Parameters
    ----------
    G : Graph
    epsilon : float
        Total ε under node neighbourhood (add/remove one node with all its edges).
    max_degree : int, optional
        Public bound Λ on the degree domain ``[0, Λ]``. Pass the true maximum degree only if
        it is public. Default ``N − 1`` with ``N`` the node bound below. Degrees above Λ are
        clipped to Λ.
    max_nodes : int, optional
        Public bound ``N`` on the number of nodes; it caps each noisy region count. Under
        add/remove-node DP the node count ``n`` itself is private (the paper treats it as
        public, which leaks: a count clipped at ``n`` can take the value ``n + 1`` for
        ``G + v`` but never for ``G``). If omitted, ``count_fraction · ε`` buys a private
        estimate ``N̂ = n + DLap`` (node sensitivity 1), and ``N = max(N̂, 1)``.
    depth : int
        Maximum recursion depth (15 in the paper).
    partition_fraction : float
        Share of the remaining ε spent on the partition (the rest on the region counts).
    count_fraction : float
        Share of ε spent on the node-count estimate when ``max_nodes`` is not given.
    backend, rng, seed
        Noise backend (default OpenDP, secure; ``get_backend("numpy-insecure", rng=...)`` for
        reproducible runs), non-noise randomness, and the seed to record.

    Returns
    -------
    DegreeSequenceRelease
        Degrees (each region summarized by its lower boundary, repeated by its noisy count)
        and the regions.

    Raises
    ------
    InvalidParameterError

    Notes
    -----
    *Partition* (ε_p = ``partition_fraction · ε``, ε_p / depth per level). At every level each
    region ``[lo, hi]`` with ``hi > lo`` is split at ``s ∈ (lo, hi]`` into ``[lo, s−1]`` and
    ``[s, hi]``, chosen by the exponential mechanism with the median quality
    ``q_R(s) = −|c[lo, s−1] − c[s, hi]| / (2(n + 1))``. The *level* is one mechanism on the
    product of the choices with quality ``Σ_R q_R``: it lies in ``[−1/2, 0]`` (the regions
    are disjoint, so the differences sum to at most ``n``), hence its node sensitivity is
    ``<= 1/2`` whatever the graph — the fragment's ``Δq <= 1/2``. Because the normalizer is
    shared, ``exp(ε_l Σ_R q_R / (2 · 1/2))`` factorizes into independent per-region choices,
    so one ε_l pays for the whole level (node-DP does *not* allow parallel composition over
    regions: one node changes degrees in many regions).

    *Counts* (ε_c = ε − ε_p). The vector ``c`` of region counts has unbounded global node
    sensitivity; its local sensitivity at ``G*`` is ``<= 1 + 2 Σ_b (n*_{b−1} + n*_b)`` (the
    added/removed node itself, and each neighbour whose degree crosses a boundary ``b`` moves
    between two regions). A graph at node distance ``t`` has ``n*_g <= #{v : |deg(v) − g|
    <= t} + t``, giving ``A(t)`` of :func:`rps_smooth_sensitivity`; ``A(t)(G) <= A(t+1)(G')``
    for node neighbours, so ``S = max_t e^{−βt} A(t)`` is β-smooth (Nissim, Raskhodnikova &
    Smith 2007, Def. 2.1). Noise: i.i.d. Cauchy per region with scale ``2S/ε_c``. Product
    Cauchy noise is (α, β)-admissible with ``α = ε_c/2`` (``|d/dz ln(1+z²)| <= 1``: a shift
    of L1 size ``α`` changes the log-density by ``<= α``) and ``β = ε_c/(6k)`` (a dilation
    ``e^λ`` changes it by ``<= 3k|λ|``), so ``c + (S/α)·Z`` is ε_c-node-DP (NRS Lemma 2.6).
    The partition is public after the first stage (k is known), so the stages compose
    sequentially with the node-count estimate (if any): ε-node-DP in total. Rounding,
    clipping (at 0 and at the public or privately estimated ``N``) and summarization are
    post-processing; nothing else about ``n`` is published. Floating-point Cauchy sampling
    caveat: see :meth:`graphanon.privacy.noise.OpenDPBackend.cauchy`.

    References
    ----------
    W. Qardaji, N. Li, "Recursive partitioning and summarization: a practical framework for
    differentially private data publishing", ASIACCS 2012 (``002_*.txt`` §5);
    K. Nissim, S. Raskhodnikova, A. Smith, "Smooth sensitivity and sampling in private data
    analysis", STOC 2007.
    """
    t0 = time.perf_counter()
    owner = "rps_degree_sequence"
    _check_graph(G, owner)
    epsilon = check_epsilon(epsilon, "epsilon", owner)
    depth = check_int(depth, "depth", owner, low=1, high=64)
    frac = check_float(partition_fraction, "partition_fraction", owner, low=0.0, high=1.0,
                       closed="neither")
    backend = backend or get_backend("opendp")
    n = G.n_nodes
    eps_n = 0.0
    if max_nodes is not None:
        cap = check_degree_bound(max_nodes, "max_nodes", owner)
        cap_source = "caller"
    else:
        eps_n = check_float(count_fraction, "count_fraction", owner, low=0.0, high=1.0,
                            closed="neither") * epsilon
        n_hat = int(backend.discrete_laplace(np.array([n]), sensitivity=1, epsilon=eps_n)[0])
        cap = max(n_hat, 1)
        cap_source = "private estimate"
    if max_degree is None:
        lam = check_degree_bound(max(cap - 1, 1), "max_nodes", owner)
    else:
        lam = check_degree_bound(max_degree, "max_degree", owner)
    deg = np.minimum(G.degrees, lam)
    hist = np.bincount(deg, minlength=lam + 1)
    cum = np.concatenate([[0], np.cumsum(hist)])
    eps_rest = epsilon - eps_n
    eps_p, eps_c = frac * eps_rest, (1.0 - frac) * eps_rest
    eps_level = eps_p / depth
    regions: list[tuple[int, int]] = [(0, lam)]
    for _ in range(depth):
        nxt: list[tuple[int, int]] = []
        for lo, hi in regions:
            if hi == lo:
                nxt.append((lo, hi))
                continue
            s = np.arange(lo + 1, hi + 1)
            below = cum[s] - cum[lo]
            above = cum[hi + 1] - cum[s]
            q = -np.abs(below - above) / (2.0 * (n + 1))
            u = backend.uniform(s.size)
            gumbel = -np.log(-np.log(np.clip(u, 1e-300, 1.0 - 1e-16)))
            cut = int(s[np.argmax(eps_level * q + gumbel)])  # exp(ε_l q / (2 · 1/2))
            nxt.extend([(lo, cut - 1), (cut, hi)])
        regions = nxt
        if all(lo == hi for lo, hi in regions):
            break
    reg = np.asarray(regions, dtype=np.int64).reshape(-1, 2)
    counts = cum[reg[:, 1] + 1] - cum[reg[:, 0]]
    k = reg.shape[0]
    beta = eps_c / (6.0 * k)
    S = rps_smooth_sensitivity(hist, reg[1:, 0], beta)
    noisy = backend.cauchy(counts.astype(np.float64), scale=2.0 * S / eps_c)
    # Cauchy tails are unbounded: cap each count at the public / privately estimated N
    c = np.clip(np.rint(np.clip(noisy, -1.0, cap + 1.0)), 0, cap).astype(np.int64)
    seq = np.repeat(reg[:, 0], c)
    seconds = time.perf_counter() - t0
    release = Release.create(
        mechanism="rps-degree-sequence", neighbourhood="node", epsilon=epsilon,
        sensitivity=None,
        sensitivity_derivation=(
            "partition: EM, quality range 1/2 per level; counts: beta-smooth sensitivity "
            "(value not published), Cauchy scale 2S/eps_c, beta = eps_c/(6k)"),
        params={"max_degree": lam, "max_degree_source": "caller" if max_degree is not None
                else "N-1", "max_nodes": cap, "max_nodes_source": cap_source,
                "epsilon_node_count": eps_n, "depth": depth, "partition_fraction": frac,
                "n_regions": k, "epsilon_partition": eps_p, "epsilon_counts": eps_c},
        backend=backend.name, seed=seed, source_fingerprint=G.fingerprint, seconds=seconds,
    )
    return DegreeSequenceRelease(np.sort(seq), "rps", release, reg, seconds)


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

    The θ-dKε 1K release (:func:`graphanon.privacy.node_dp.theta_dk_release`, fixed θ),
    expanded into a sorted sequence (noisy counts clipped at 0 and rounded).
    """
    t0 = time.perf_counter()
    _check_graph(G, "laplace_degree_sequence")
    rel = theta_dk_release(G, d=1, epsilon=epsilon, theta=theta, projection="ead", key=key,
                           backend=backend, rng=rng, seed=seed)
    counts = np.clip(rel.noisy, 0, None)
    seq = np.repeat(np.arange(counts.size), counts)
    return DegreeSequenceRelease(seq, "laplace", rel.release, None, time.perf_counter() - t0)


def hay_degree_sequence(
    G: Graph,
    *,
    epsilon: float,
    backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
    seed: int | None = None,
) -> DegreeSequenceRelease:
    """Edge-DP baseline: Hay et al.'s constrained inference on the sorted degree sequence.

    Notes
    -----
    Neighbourhood: **edge** (one edge added/removed; the node set, hence ``n``, is public).
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
    owner = "hay_degree_sequence"
    _check_graph(G, owner)
    epsilon = check_epsilon(epsilon, "epsilon", owner)
    backend = backend or get_backend("opendp")
    s = np.sort(G.degrees)
    noisy = backend.discrete_laplace(s, sensitivity=2, epsilon=epsilon)
    fitted = isotonic_regression(noisy.astype(np.float64), increasing=True).x if s.size else s
    seq = np.clip(np.rint(fitted), 0, max(G.n_nodes - 1, 0)).astype(np.int64)
    seconds = time.perf_counter() - t0
    release = Release.create(
        mechanism="hay-constrained-inference", neighbourhood="edge", epsilon=epsilon,
        sensitivity=2.0,
        sensitivity_derivation="sorted degree sequence: one edge raises two entries by 1",
        params={"n": G.n_nodes, "postprocessing": "isotonic regression, round, clip"},
        backend=backend.name, seed=seed, source_fingerprint=G.fingerprint, seconds=seconds,
    )
    return DegreeSequenceRelease(np.sort(seq), "hay", release, None, seconds)
