"""The RPS seed's summarization: smooth-sensitivity Cauchy region counts, lower boundaries.

``002_*.txt`` §5 summarizes each region of the private partition by a noisy count (Cauchy
noise scaled to a smooth bound on the counts' local sensitivity) and places the region's nodes
at its lower boundary. The lower-boundary summary is post-processing; the Cauchy counts are
node-DP only where isolated nodes are part of the input (the derivation below): on an edge
list a node's removal also removes every neighbour whose only edge was theirs, which moves the
lowest region's count by ``1 + deg`` with no smooth bound, so ``counts="cauchy"`` releases claim
**no privacy** (``neighbourhood = "none"``, mechanism ``rps-degree-sequence-cauchy-insecure``).
Both cost utility against the secure path
(:func:`graphanon.nodedp.degree_sequences.rps_degree_sequence`: every leaf's count is its public
target share, so the whole budget buys the partition, and the nodes are interpolated): the
counts take ``1 − partition_fraction`` of ε and have heavy-tailed noise, and the lower boundary
biases every degree down. The CLI reaches this function through ``release-degrees --counts
cauchy`` and ``--summary lower``.

References
----------
W. Qardaji, N. Li, "Recursive partitioning and summarization", ASIACCS 2012 (``002_*.txt``
§5); K. Nissim, S. Raskhodnikova, A. Smith, "Smooth sensitivity and sampling in private data
analysis", STOC 2007.
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
import numpy.typing as npt

from ..errors import ReproductionWarning
from ..graph import Graph
from ..nodedp.degree_sequences import (
    PARTITION_DERIVATION,
    RPS,
    DegreeSequenceRelease,
    interpolate_summary,
    largest_remainder,
    rps_params,
    rps_partition,
    rps_setup,
)
from ..params import Param
from ..privacy.noise import NoiseBackend
from ..privacy.release import Release, started_at

__all__ = ["rps_degree_sequence_seed", "rps_smooth_sensitivity"]


def rps_smooth_sensitivity(hist: npt.NDArray[np.int64], boundaries: npt.NDArray[np.int64],
                           beta: float) -> float:
    """β-smooth upper bound on the L1 local sensitivity of the region-count vector.

    ``hist[g]`` = number of nodes of (clipped) degree ``g`` over ``0..Λ``; ``boundaries`` are
    the lower ends ``b > 0`` of the regions. ``S = max_t e^{−βt} A(t)`` with
    ``A(t) = 1 + 2 Σ_b (2 W_b(t) + 2t)`` and ``W_b(t) = #{v : deg(v) ∈ [b − 1 − t, b + t]}``
    (see :func:`rps_degree_sequence_seed`, Notes).
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


#: The parameters of :func:`rps_degree_sequence_seed`: RPS's (no projection key: the node
#: count estimate draws its own), and the seed's summarization. The job step
#: ``release-degrees-seed``; the table in docs/node_dp.md.
RPS_SEED = RPS.derive("rps_degree_sequence_seed", drop=("key",), add=(
    Param("counts", "choice", "Region counts from the public split targets, or the seed's "
          "smooth-sensitivity Cauchy counts.", default="cauchy",
          choices=("partition", "cauchy")),
    Param("summary", "choice", "Spread a region's nodes along the quantile line, or put them "
          "at its lower boundary (the seed's rule).", default="lower",
          choices=("interpolate", "lower")),
    Param("partition_fraction", "float", "The share of ε spent on the partition.",
          default=0.5, low=0.0, high=1.0, closed="neither"),
), doc="docs/node_dp.md")


def rps_degree_sequence_seed(
    G: Graph,
    *,
    epsilon: float,
    max_degree: int | None = None,
    max_nodes: int | None = None,
    depth: int | None = None,
    counts: str = "cauchy",
    summary: str = "lower",
    rank_scale: float | None = None,
    partition_fraction: float = 0.5,
    count_fraction: float = 0.1,
    count_theta: int = 8,
    backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
    seed: int | None = None,
) -> DegreeSequenceRelease:
    """RPS with the seed's summarization (warns :class:`ReproductionWarning`); ε-node-DP with
    ``counts="partition"``, no privacy claim with ``counts="cauchy"`` (module docstring).

    Parameters are those of :func:`graphanon.nodedp.degree_sequences.rps_degree_sequence`, plus:

    counts : {"cauchy", "partition"}
        ``cauchy``: ``1 − partition_fraction`` of the budget left after ``N̂`` buys
        smooth-sensitivity Cauchy counts per region, post-processed (clipped at 0, rescaled
        and rounded to sum to ``N``). ``partition``: the secure path's public target shares.
    summary : {"lower", "interpolate"}
        ``lower``: a region's nodes at its lower boundary (the seed's rule); ``interpolate``:
        the secure path's quantile line.
    partition_fraction : float
        ``counts="cauchy"`` only: share of the remaining ε spent on the partition.

    Notes
    -----
    *Budget*: ``ε = ε_N + ε_p + ε_c`` with ``ε_c = (1 − partition_fraction)(ε − ε_N)`` for
    ``counts="cauchy"`` (0 otherwise); the partition is the secure path's.

    *Counts* (ε_c). The vector ``c`` of region counts has unbounded global node sensitivity;
    its local sensitivity at ``G*`` is ``<= 1 + 2 Σ_b (n*_{b−1} + n*_b)`` (the added/removed
    node itself, and each neighbour whose degree crosses a boundary ``b`` moves between two
    regions). A graph at node distance ``t`` has ``n*_g <= #{v : |deg(v) − g| <= t} + t``,
    giving ``A(t)`` of :func:`rps_smooth_sensitivity`; ``A(t)(G) <= A(t+1)(G')`` for node
    neighbours, so ``S = max_t e^{−βt} A(t)`` is β-smooth (Nissim, Raskhodnikova & Smith
    2007, Def. 2.1). Noise: i.i.d. Cauchy per region with scale ``2S/ε_c``. Product Cauchy
    noise is (α, β)-admissible with ``α = ε_c/2`` (``|d/dz ln(1+z²)| <= 1``: a shift of L1
    size ``α`` changes the log-density by ``<= α``) and ``β = ε_c/(6k)`` (a dilation ``e^λ``
    changes it by ``<= 3k|λ|``), so ``c + (S/α)·Z`` is ε_c-node-DP (NRS Lemma 2.6). Clipping
    at 0, rescaling to ``N``, rounding (largest remainder) and summarization use only
    released values (``N``, the partition, the noisy counts): post-processing. ``S`` itself
    is not published. Floating-point Cauchy sampling caveat: see
    :meth:`graphanon.privacy.noise.OpenDPBackend.cauchy`.
    """
    t0 = time.perf_counter()
    started = started_at()
    owner = "rps_degree_sequence_seed"
    checked = RPS_SEED.validate({
        "epsilon": epsilon, "max_degree": max_degree, "max_nodes": max_nodes, "depth": depth,
        "counts": counts, "summary": summary, "rank_scale": rank_scale,
        "partition_fraction": partition_fraction, "count_fraction": count_fraction,
        "count_theta": count_theta})
    counts, summary, frac = checked["counts"], checked["summary"], checked["partition_fraction"]
    setup = rps_setup(G, epsilon=epsilon, max_degree=max_degree, max_nodes=max_nodes,
                      rank_scale=rank_scale, count_fraction=count_fraction, backend=backend,
                      owner=owner, count_theta=count_theta, rng=rng)
    warnings.warn(
        f"{owner}(counts={counts!r}, summary={summary!r}) reproduces the RPS seed's "
        "summarization: node-DP as claimed, but the Cauchy counts spend part of ε on "
        "heavy-tailed noise and the lower-boundary summary biases degrees down; "
        "graphanon.nodedp.degree_sequences.rps_degree_sequence is the default.",
        ReproductionWarning, stacklevel=2)
    eps_rest = setup.epsilon_rest
    eps_p, eps_c = (eps_rest, 0.0) if counts == "partition" else (frac * eps_rest,
                                                                  (1.0 - frac) * eps_rest)
    lam = setup.max_degree
    deg = np.minimum(G.degrees, lam)
    reg, target, d, eps_split = rps_partition(deg, setup, epsilon_partition=eps_p, depth=depth,
                                              owner=owner)
    k = reg.shape[0]
    weights = target
    derivation = PARTITION_DERIVATION
    if counts == "cauchy":
        hist = np.bincount(deg, minlength=lam + 1)
        cum = np.concatenate([[0], np.cumsum(hist)])
        true_counts = cum[reg[:, 1] + 1] - cum[reg[:, 0]]
        beta = eps_c / (6.0 * k)
        S = rps_smooth_sensitivity(hist, reg[1:, 0], beta)
        noisy = setup.backend.cauchy(true_counts.astype(np.float64), scale=2.0 * S / eps_c)
        clipped = np.clip(noisy, 0.0, None)  # post-processing of released values only
        if clipped.sum() > 0:
            weights = clipped
        derivation += ("; counts: beta-smooth sensitivity (value not published), Cauchy "
                       "scale 2S/eps_c, beta = eps_c/(6k)")
    released = largest_remainder(weights, setup.max_nodes)
    seq = (np.repeat(reg[:, 0], released) if summary == "lower"
           else interpolate_summary(reg, released, lam))
    cauchy = counts == "cauchy"
    if cauchy:
        derivation = ("NO PRIVACY CLAIM: the seed's smooth sensitivity assumes isolated nodes "
                      "are part of the input; on an edge list a node's removal also removes "
                      "its degree-1 neighbours, so the lowest region's count moves by 1 + deg. "
                      + derivation)
    release = Release.create(
        mechanism="rps-degree-sequence" + ("-cauchy-insecure" if cauchy else ""),
        neighbourhood="none" if cauchy else "node", epsilon=None if cauchy else setup.epsilon,
        sensitivity=None if cauchy else 1.0, sensitivity_derivation=derivation,
        params={**rps_params(setup, depth=d, depth_given=depth is not None, n_regions=k,
                             epsilon_partition=eps_p, epsilon_split=eps_split),
                "counts": counts, "summary": summary,
                "partition_fraction": frac if counts == "cauchy" else 1.0,
                "epsilon_counts": eps_c, "variant": "rps seed (002, section 5)"},
        backend=setup.backend.name, seed=seed, source_fingerprint=G.content_hash,
        created_at=started)
    return DegreeSequenceRelease(np.sort(seq), "rps", release, reg, time.perf_counter() - t0)
