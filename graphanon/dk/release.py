"""Edge-DP release of 1K / 2K distributions, plain or through dK-microaggregation.

Mechanisms (``mechanism`` in the :class:`~graphanon.privacy.release.Release` record):

``dk1-laplace``
    The degree histogram over the public domain ``0..h`` (degrees ``>= h`` top-coded into the
    last bin) plus discrete Laplace noise on every bin.
``dk2-laplace`` (the thesis' "ε-DP" baseline)
    The joint degree distribution over every cell ``(i, j)``, ``1 <= i <= j <= h`` of the
    public domain (degrees top-coded at ``h``) plus discrete Laplace noise on every cell.
``dk2-mdav`` / ``dk2-mpdc`` (MDAV-dK, MPDC-dK)
    The public domain cells are partitioned (MDAV with clusters of ``k`` cells; for MPDC the
    tiling of the degree-pair plane by boxes of side ``tau`` — the cover Algorithm 4 seeks on a
    full domain); the sum of each cluster is released with discrete Laplace noise and split
    evenly back over the cluster's cells.
``dk1-laplace-thresholded`` / ``dk2-laplace-thresholded``
    The plain release with a public threshold ``τ`` drawn in its sampled form
    (:func:`sampled_threshold_noise`): distributed exactly as noising every domain cell and
    keeping the cells ``>= τ``, in time ``O(#non-zero cells + #released cells)``. Default
    above ``SAMPLED_ABOVE`` domain cells.

Every output is post-processed into a consistent, non-negative, integer distribution
(:func:`postprocess_1k`, :func:`postprocess_2k`), which costs no privacy. The post-processing
lives in :mod:`graphanon.dk.postprocess`, the sampled form in :mod:`graphanon.dk.sampled` and
the public domain partitions in :mod:`graphanon.dk.microaggregation`; this module re-exports
their public names.

Sensitivity (neighbouring relation: add or remove one edge, Definition 16)
-------------------------------------------------------------------------
Let ``h`` be a **public** degree bound. Degrees are top-coded: ``c(g) = min(g, h)``.

*1K: Δ₁ = 4.* Adding edge ``uv`` raises ``deg u = a`` and ``deg v = b`` by one. Each endpoint
moves one node from bin ``c(a)`` to bin ``c(a + 1)`` (nothing moves when ``a >= h``): at most
``2 + 2 = 4`` in L1. Attained when ``a, b < h`` and the four bins are distinct. (Lemma 12's
"2" is the change of a single entry, not the L1 norm of the vector.)

*2K: Δ₁ = 4h − 3.* Each of the ``a`` other edges ``uw`` of ``u`` moves from cell
``{c(a), c(deg w)}`` to ``{c(a + 1), c(deg w)}`` — L1 2 per edge, and only if ``a + 1 <= h``,
so at most ``2(h − 1)``; the same for ``v``; and the new edge adds 1 to one cell. Total
``<= 2(h − 1) + 2(h − 1) + 1 = 4h − 3``, attained by joining the centres of two stars with
``h − 1`` leaves each. Lemma 3's ``4h + 1`` is a valid but loose bound and, in the thesis,
uses the observed ``h = max(deg G, deg G')``, which is itself private.

*Microaggregation: Δ₁ = 4h − 3, not (4h + 1)·z.* For a partition fixed in advance, the
vector of cluster sums is ``A x`` with ``A`` a 0/1 matrix with one 1 per column, so
``‖A x − A x'‖₁ <= ‖x − x'‖₁`` (triangle inequality). Lemma 5's ``(4h + 1)·z`` multiplies
noise by the number of clusters for nothing; it is reproduced, with a warning, by
:mod:`graphanon.reproduce.dk_thesis`.

The partition must not depend on the private graph: clustering the *observed* tuples (as the
thesis does) makes the set of released clusters — and which cells exist — a function of the
data. We cluster the public domain. The thesis' behaviour is reproduced by
:func:`graphanon.reproduce.dk_thesis.release_dk_thesis` (``domain="observed"``), whose
Release makes no privacy claim (``neighbourhood = "none"``).

References
----------
``004_*.txt`` chapter 6: Definition 16 (edge neighbours), Lemmas 3–5, sections 6.4–6.6;
chapter 8 Lemma 12 (per-entry 1K sensitivity).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._compat import paper_variants, renamed_keywords
from .._validation import (
    check_choice,
    check_cluster_size,
    check_degree_bound,
    check_epsilon,
    check_float,
    check_int,
    check_type,
)
from ..errors import (
    DegreeBoundWarning,
    InsecureReproductionWarning,
    InvalidParameterError,
    LooseSensitivityWarning,
)
from ..graph import Graph
from ..metrics import euclidean_distance, ks_distance, l1_distance
from ..params import Param, Spec
from ..privacy.noise import NoiseBackend, dp_scale, get_backend
from ..privacy.release import NOT_PRIVATE_NOTE, Release, started_at
from .extract import DKDistribution, cell_index, domain_cells
from .microaggregation import MAX_MDAV_CELLS, Partition, aggregate, domain_partition, sae
from .postprocess import (
    _without_low,
    cell_coordinates,
    largest_remainder,
    postprocess_1k,
    postprocess_2k,
    postprocess_2k_sparse,
    project_to_total,
    split_evenly,
)
from .sampled import crossing_probability, default_threshold, sampled_threshold_noise

__all__ = [
    "FORMS",
    "SAMPLED_ABOVE",
    "DKRelease",
    "DegreeBoundWarning",
    "InsecureReproductionWarning",
    "LooseSensitivityWarning",
    "ReleaseSpec",
    "bound_from_sequence",
    "cell_coordinates",
    "check_release_args",
    "crossing_probability",
    "default_threshold",
    "dk_query",
    "dk_query_sparse",
    "dk_unit_cells",
    "domain_partition",
    "evaluate_release",
    "largest_remainder",
    "postprocess",
    "postprocess_1k",
    "postprocess_2k",
    "postprocess_2k_sparse",
    "project_to_total",
    "release_dk",
    "release_params",
    "sampled_threshold_noise",
    "select_degree_bound",
    "sensitivity",
    "split_evenly",
    "true_distribution",
]

MICROAGGREGATIONS = ("none", "mdav", "mpdc")
PRIVACY = ("edge",)  # "node" is a later issue; sensitivity() dispatches on it
MAX_DOMAIN_CELLS = 20_000_000  # dense form only
#: Largest public degree bound of a 2K release (sampled form; see check_release_args).
MAX_2K_DEGREE = 4_000_000
SAMPLED_ABOVE = 1_000_000  # form="auto": the sampled form above this many public domain cells
FORMS = ("auto", "dense", "sampled")

#: The parameters of :func:`release_dk`, declared once: its validation, the edge-DP options
#: of ``graphanon release-dk`` (with :data:`graphanon.nodedp.theta_dk.THETA_DK` for
#: ``--neighbourhood node``), the job step's keys and the table in docs/dk.md.
RELEASE_DK = Spec("release_dk", (
    Param("d", "int", "1 (degree histogram) or 2 (joint degree distribution).", low=1,
          high=2),
    Param("epsilon", "epsilon", "Privacy budget ε > 0."),
    Param("neighbourhood", "choice",
          "Neighbouring relation: edge (node-DP: theta_dk_release).", default="edge",
          choices=PRIVACY, cli="", aliases=("privacy",)),
    Param("max_degree", "int",
          "PUBLIC degree bound h (degrees above it are top-coded), never the observed "
          "maximum; or 'auto' (with the public node set): the 95th percentile of a private "
          "degree sequence, for 10% of ε (API and jobs: bound_quantile, bound_fraction). "
          "Without it, the node set makes h = |nodes| - 1 (with a warning); with neither the "
          "release is refused.",
          default=None, low=1, high=2**31 - 2, words=("auto",)),
    Param("microaggregation", "choice", "dK-microaggregation (2K only).", default="none",
          choices=MICROAGGREGATIONS),
    Param("k", "int", "MDAV-dK cluster size (below the number of domain cells).",
          default=None, low=2, only=("microaggregation", "mdav")),
    Param("tau", "int", "MPDC-dK box side τ (at most h - 2).", default=None, low=1,
          only=("microaggregation", "mpdc")),
    Param("threshold", "int",
          "PUBLIC threshold τ >= 1; only noisy answers >= τ are released. Default: none for "
          "the dense form, ceil(scale·ln(domain cells)) for the sampled form.",
          default=None, low=1),
    Param("form", "choice",
          "dense noises every domain cell; sampled draws the thresholded dense release in "
          "time O(non-zero cells + released cells), same distribution; auto = sampled "
          "above 10^6 domain cells without microaggregation.", default="auto", choices=FORMS),
    Param("edge_total", "float",
          "2K (dense): share of ε spent on a private edge count (sensitivity 1); the noisy "
          "cells are projected onto it, so the table's total is near the true edge count. "
          "E.g. 0.1.", default=None, low=0.0, high=1.0, closed="neither"),
    Param("graphical", "bool",
          "2K (dense): post-process the noisy table into a graphical one (integer class "
          "sizes, row sums k*n_k, cell capacities; with edge_total its total), which the 2K "
          "generator realizes exactly. Default: on with edge_total or degree_sequence "
          "(h <= 2000).", default=None),
    Param("degree_sequence", "float",
          "2K (dense), needs the public node set: share of ε spent on Hay's degree sequence "
          "(sensitivity 2); the class sizes come from it and the cells are fitted to them "
          "(implies graphical; with max_degree auto the same sequence gives the bound). "
          "E.g. 0.2.", default=None, low=0.0, high=1.0, closed="neither"),
    Param("bound_fraction", "float",
          "Share of ε spent on choosing max_degree = 'auto' (without degree_sequence).",
          default=0.1, cli="", low=0.0, high=1.0, closed="neither"),
    Param("bound_quantile", "float", "The quantile of the private degree sequence that "
          "max_degree = 'auto' takes.", default=0.95, cli="", low=0.0, high=1.0, closed="neither"),
), doc="docs/dk.md")


@dataclass(frozen=True)
class DKRelease:
    """A released dK distribution.

    Attributes
    ----------
    distribution
        The post-processed release: non-negative integer counts; for 2K every class has an
        integer number of nodes. Rows with zero count are dropped.
    noisy
        The raw noisy answers: one per domain cell or per cluster (dense form; after the
        threshold, when one is set, answers below it are 0), or the values of the released
        cells only (sampled form, see ``noisy_cells``).
    partition
        The clustering (``None`` without microaggregation).
    mechanism, neighbourhood, epsilon, sensitivity
        The privacy claim (also in ``release``).
    max_degree
        The public degree bound ``h``.
    release
        The :class:`~graphanon.privacy.release.Release` record.
    evaluation
        Errors against the *true* distribution (``l1``, ``ks``, ``euclidean`` over the
        public domain, ``sae``): computed from the private input for evaluation, **not**
        covered by the privacy guarantee — do not publish them.
    seconds
        Wall time.
    noisy_cells
        Sampled form: the domain positions of ``noisy``; ``None`` for the dense form.
    """

    distribution: DKDistribution
    noisy: npt.NDArray[np.int64]
    partition: Partition | None
    mechanism: str
    neighbourhood: str
    epsilon: float | None
    sensitivity: float
    max_degree: int
    release: Release
    evaluation: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    noisy_cells: npt.NDArray[np.int64] | None = None

    @property
    def n_clusters(self) -> int:
        """Noisy answers of the (equivalent dense) release: clusters, or domain cells."""
        if self.partition is not None:
            return self.partition.n_clusters
        return int(self.release.params.get("n_domain_cells", self.noisy.size))

    def to_dict(self) -> dict[str, Any]:
        """The report: Release record, cluster count and the evaluation block."""
        return {
            "release": self.release.to_dict(),
            "d": self.distribution.d,
            "max_degree": self.max_degree,
            "n_clusters": self.n_clusters,
            "form": self.release.params.get("form", "dense"),
            "threshold": self.release.params.get("threshold"),
            "n_released_tuples": self.distribution.n_tuples,
            "released_total": self.distribution.total,
            # l1 / ks / euclidean / sae compare against the private input; the wall time
            # depends on it too
            "not_private": {"note": NOT_PRIVATE_NOTE, "seconds": self.seconds,
                            **self.evaluation},
        }


# ----------------------------------------------------------------------------- queries
@paper_variants("graphanon.reproduce.dk_thesis:thesis_sensitivity", rule="tight",
                n_clusters=None)
def sensitivity(d: int, h: int, *, privacy: str = "edge") -> tuple[float, str]:
    """L1 sensitivity of the top-coded (and possibly microaggregated) dK query, with its
    derivation.

    Parameters
    ----------
    d
        1 or 2.
    h
        Public degree bound (``>= 1``).
    privacy
        Neighbouring relation; only ``"edge"`` (the node-DP values are
        :func:`graphanon.nodedp.theta_dk.node_sensitivity`).

    Returns
    -------
    (float, str)
        The sensitivity and a one-line derivation for the Release record.
    """
    check_choice(privacy, "privacy", "sensitivity", PRIVACY)
    if d == 1:
        return 4.0, ("1K, edge-DP, degrees top-coded at h: each endpoint moves one node "
                     "between two bins, L1 <= 2 + 2 = 4")
    return float(4 * h - 3), (
        f"2K, edge-DP, degrees top-coded at h={h}: the a<=h-1 other edges of each endpoint "
        "move cell (L1 2 each) plus the new edge: 2(h-1)+2(h-1)+1 = 4h-3; summing cells of a "
        "data-independent partition cannot increase L1")


def dk_unit_cells(G: Graph, *, d: int, h: int) -> npt.NDArray[np.int64]:
    """Where each unit of the dK query counts, degrees top-coded at ``h``: 1K, the degree of
    every node (node order); 2K, the domain cell (:func:`~graphanon.dk.extract.cell_index`)
    of every edge (order of ``G.edges()``). :func:`dk_query` counts them."""
    deg = np.minimum(G.degrees, h).astype(np.int64, copy=False)
    if d == 1:
        return deg
    u, v = G.edges()
    a, b = deg[u], deg[v]
    return cell_index(np.minimum(a, b), np.maximum(a, b), h)


def dk_query(G: Graph, *, d: int, h: int) -> npt.NDArray[np.int64]:
    """The exact vector that the mechanisms noise: top-coded 1K over ``0..h`` or 2K over the
    ``h(h+1)/2`` domain cells (order of :func:`~graphanon.dk.extract.domain_cells`)."""
    n_cells = h + 1 if d == 1 else h * (h + 1) // 2
    return np.bincount(dk_unit_cells(G, d=d, h=h), minlength=n_cells).astype(np.int64)


def dk_query_sparse(G: Graph, *, d: int, h: int
                    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
    """:func:`dk_query` without materializing the domain: ``(cells, counts, n_cells)``.

    ``cells`` are the sorted positions (in :func:`~graphanon.dk.extract.domain_cells` order;
    the degree itself for 1K) of the non-zero entries, ``counts`` their values, ``n_cells`` the
    size of the public domain (``h + 1`` or ``h(h+1)/2``).
    """
    keys, n_cells = dk_unit_cells(G, d=d, h=h), (h + 1 if d == 1 else h * (h + 1) // 2)
    cells, counts = np.unique(keys, return_counts=True)
    return cells.astype(np.int64), counts.astype(np.int64), n_cells


# ----------------------------------------------------------------------------- the degree bound
def select_degree_bound(G: Graph, *, epsilon: float, quantile: float, nodes: Any,
                        backend: NoiseBackend) -> tuple[int, dict[str, Any]]:
    """A public degree bound ``h`` for an edge-DP dK release, chosen with ε-edge-DP: the
    ``quantile`` of the non-zero degrees of Hay et al.'s constrained-inference degree
    sequence (:func:`graphanon.nodedp.degree_sequences.hay_degree_sequence`: the sorted
    degrees plus discrete Laplace noise of L1 sensitivity 2 — one edge raises two degrees
    by one — then isotonic regression), rounded up. The quantile is post-processing of that
    ε-DP release. It needs the public node set ``nodes`` (one degree per node). Degrees above
    ``h`` are top-coded by the release (about ``1 − quantile`` of the nodes with an edge).
    """
    from ..nodedp.degree_sequences import hay_degree_sequence  # (nodedp imports this module)

    if nodes is None:
        raise InvalidParameterError(
            "The 'max_degree' parameter of release_dk can be 'auto' only with the public node "
            "set (nodes=, --nodes FILE): the bound is read off a private degree sequence "
            "with one degree per node.")
    seq = hay_degree_sequence(G, epsilon=epsilon, nodes=nodes, backend=backend).degrees
    h, info = bound_from_sequence(seq, quantile)
    return h, {**info, "epsilon_max_degree": epsilon}


def bound_from_sequence(seq: Any, quantile: float) -> tuple[int, dict[str, Any]]:
    """The ``quantile`` of the non-zero degrees of a released degree sequence, rounded up
    (post-processing), and the record's description of the choice."""
    s = np.asarray(seq)
    nonzero = s[s > 0]
    h = max(1, math.ceil(float(np.quantile(nonzero, quantile)))) if nonzero.size else 1
    return h, {"max_degree_selection": "quantile of Hay et al.'s constrained-inference degree "
                                       "sequence (edge-DP, sensitivity 2; post-processing)",
               "max_degree_quantile": quantile}


# ----------------------------------------------------------------------------- the release
@dataclass(frozen=True)
class ReleaseSpec:
    """Validated arguments of an edge-DP dK release (shared by :func:`release_dk` and the
    paper reproductions of :mod:`graphanon.reproduce.dk_thesis`).

    ``G`` holds the node universe when one was given; ``n`` is the public node count (or
    ``None``); ``lo`` is 1 for a 1K release without a universe (degree 0 left out);
    ``n_cells`` is the size of the public domain.
    """

    G: Graph
    d: int
    epsilon: float
    h: int
    lo: int
    n: int | None
    n_cells: int
    microaggregation: str
    k: int | None
    tau: int | None
    threshold: int | None
    sampled: bool
    universe_given: bool


def check_release_args(G: Any, *, owner: str, d: Any, epsilon: Any, max_degree: Any,
                       microaggregation: str, k: Any, tau: Any, privacy: str,
                       threshold: Any, form: str, nodes: Any) -> ReleaseSpec:
    """Validate the arguments of an edge-DP dK release once (one message format).

    Raises :class:`InvalidParameterError` for anything out of its domain — including
    parameters that would make a microaggregation another mechanism (``k = 1``, ``tau = 0``,
    a single cluster) — and for a dense 2K domain of more than ``MAX_DOMAIN_CELLS`` cells.
    Warns :class:`DegreeBoundWarning` when ``h`` defaults to ``|nodes| − 1``.
    """
    d = check_int(d, "d", owner, low=1, high=2)
    epsilon = check_epsilon(epsilon, "epsilon", owner)
    check_choice(privacy, "privacy", owner, PRIVACY)
    check_choice(microaggregation, "microaggregation", owner, MICROAGGREGATIONS)
    check_choice(form, "form", owner, FORMS)
    if threshold is not None:
        threshold = check_int(threshold, "threshold", owner, low=1)
    if not isinstance(G, Graph):
        raise InvalidParameterError(f"{owner} needs a graphanon Graph. Got {type(G).__name__}.")
    universe = nodes is not None
    if universe:
        G = G.with_nodes(nodes)
    n = G.n_nodes if universe else None  # public only when the universe is given
    if max_degree is None:
        if n is None:
            raise InvalidParameterError(
                f"The 'max_degree' parameter of {owner} is required without a public node "
                "universe: h = n - 1 would read the node count off the private data. Pass a "
                "public degree bound (--max-degree), or the public node set (nodes=, "
                "--nodes FILE).")
        h = max(n - 1, 1)
        warnings.warn(
            f"No public degree bound given: using h = |nodes| - 1 = {h}. The noise grows "
            "with h; pass a public bound (--max-degree).", DegreeBoundWarning, stacklevel=3)
    else:
        # a public bound the release can afford: the 1K domain (h + 1 cells, dense after the
        # noise) within MAX_1K_CELLS; for 2K, whose sampled form repairs every degree class
        # 2..h, at most MAX_2K_DEGREE (beyond, minutes and tens of GB; and from about 3·10⁹
        # h (h + 1) / 2 overflows the noise library's 64-bit arithmetic)
        h = (check_degree_bound(max_degree, "max_degree", owner, d=1) if d == 1 else
             check_int(max_degree, "max_degree", owner, low=1, high=MAX_2K_DEGREE))
    lo = 0 if (universe or d == 2) else 1  # 1K without a universe: degrees 1..h
    if d == 1 and microaggregation != "none":
        raise InvalidParameterError(
            f"The 'microaggregation' parameter of {owner} must be 'none' for d = 1 "
            "(dK-microaggregation is defined on 2K).")
    n_cells = h + 1 - lo if d == 1 else h * (h + 1) // 2
    # parameters that would make a microaggregation another mechanism are refused: k = 1 or
    # tau = 0 aggregates nothing (the plain release), k >= the domain one cluster (a total)
    if microaggregation == "mdav":
        k = check_cluster_size(k, owner, cells=n_cells, mechanism=f"MDAV-dK (h = {h})",
                               plain="--microaggregation none")
    if microaggregation == "mpdc":
        if tau is None:
            raise InvalidParameterError(
                f"The 'tau' parameter of {owner} is required for mpdc.")
        tau = check_int(tau, "tau", owner, low=0)
        if not 1 <= tau <= max(h - 2, 1):
            raise InvalidParameterError(
                f"The 'tau' parameter of {owner} must be an int in [1, {max(h - 2, 1)}] for "
                f"MPDC-dK with h = {h}. Got {tau}: "
                + ("tau = 0 puts every cell in a box of its own (that is --microaggregation "
                   "none)." if tau < 1 else
                   "one box of side tau + 1 would cover the whole domain (a noisy total)."))
    if form == "sampled" and microaggregation != "none":
        raise InvalidParameterError(
            f"The 'form' parameter of {owner} can be 'sampled' only without "
            "microaggregation (microaggregated releases noise one answer per cluster, "
            "densely).")
    sampled = form == "sampled" or (form == "auto" and microaggregation == "none"
                                    and n_cells > SAMPLED_ABOVE)
    if not sampled and d == 2 and n_cells > MAX_DOMAIN_CELLS:
        raise InvalidParameterError(
            f"The 2K domain for h = {h} has {n_cells} cells (> {MAX_DOMAIN_CELLS}) for a "
            "dense release; pass a tighter public --max-degree, or use the sampled form "
            "(no microaggregation).")
    return ReleaseSpec(G, d, epsilon, h, lo, n, n_cells, microaggregation,
                       k if microaggregation == "mdav" else None,
                       tau if microaggregation == "mpdc" else None, threshold, sampled,
                       universe)


def postprocess(spec: ReleaseSpec, per_point: npt.NDArray[np.int64], *,
                target: int | None = None) -> DKDistribution:
    """The consistent, non-negative integer table of a noisy answer per domain cell (2K: its
    repairs kept near a released edge total ``target``)."""
    if spec.d == 1:
        lead = np.zeros(spec.lo, np.int64)
        return _without_low(postprocess_1k(np.concatenate([lead, per_point]), n_nodes=spec.n),
                            spec.lo)
    return postprocess_2k(per_point, spec.h, target=target)


def release_params(spec: ReleaseSpec, part: Partition | None) -> dict[str, Any]:
    """The public parameters a dense dK release records."""
    params: dict[str, Any] = {"d": spec.d, "max_degree": spec.h,
                              "microaggregation": spec.microaggregation,
                              "top_coding": f"degrees >= {spec.h} counted as {spec.h}",
                              "node_universe": _universe_note(spec.universe_given, spec.d)}
    if spec.k is not None:
        params["k"] = spec.k
    if spec.tau is not None:
        params["tau"] = spec.tau
    if part is not None:
        params["n_clusters"] = part.n_clusters
        if part.method == "grid":
            params["partition"] = (
                f"square tiling of the public domain, side {part.params['side']} (about k "
                f"cells per tile): MDAV over the public domain is O(cells^2) and is used up "
                f"to {MAX_MDAV_CELLS} cells; this domain has {spec.n_cells}")
            params["tile_side"] = part.params["side"]
        elif spec.microaggregation == "mdav":
            params["partition"] = "MDAV over the public domain cells"
    params.update({"form": "dense", "threshold": spec.threshold,
                   "threshold_rule": "none" if spec.threshold is None else "given",
                   "n_domain_cells": spec.n_cells})
    return params


@renamed_keywords(RELEASE_DK.aliases(), removed_in="0.3.0")
@paper_variants("graphanon.reproduce.dk_thesis:release_dk_thesis", domain="public",
                sensitivity_rule="tight")
def release_dk(
    G: Graph,
    *,
    d: int,
    epsilon: float,
    max_degree: int | str | None = None,
    microaggregation: str = "none",
    k: int | None = None,
    tau: int | None = None,
    neighbourhood: str = "edge",
    threshold: int | None = None,
    form: str = "auto",
    nodes: Any = None,
    edge_total: float | None = None,
    graphical: bool | None = None,
    degree_sequence: float | None = None,
    bound_fraction: float = 0.1,
    bound_quantile: float = 0.95,
    backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
    seed: int | None = None,
) -> DKRelease:
    """Release the 1K or 2K distribution of ``G`` under ε-edge differential privacy.

    Parameters
    ----------
    G
        The private graph.
    d
        1 (degree histogram) or 2 (joint degree distribution).
    epsilon
        Privacy budget ε > 0.
    max_degree
        Public degree bound ``h``. Degrees above ``h`` are top-coded to ``h`` (the guarantee
        holds for every graph; never the observed maximum). ``None`` is allowed only with a
        public node universe ``nodes`` and then uses ``h = |nodes| − 1`` with a
        :class:`DegreeBoundWarning`. ``"auto"`` (with ``nodes``): chosen privately with
        ``bound_fraction · ε`` as the ``bound_quantile`` of a private degree sequence
        (:func:`select_degree_bound`; sequential composition; recorded).
    microaggregation
        ``"none"`` (plain Laplace), ``"mdav"`` (MDAV-dK, needs ``k``) or ``"mpdc"``
        (MPDC-dK, needs ``tau``); 2K only. The partition is of the public domain.
    k, tau
        MDAV cluster size (``2 <= k <`` domain cells) / MPDC box side (``1 <= tau <= h − 2``).
    neighbourhood
        Neighbouring relation; ``"edge"`` (node-DP releases: :mod:`graphanon.nodedp.theta_dk`).
        (Its old name ``privacy`` warns until 0.3.0.)
    threshold
        Public ``τ >= 1``: only noisy answers ``>= τ`` are kept (the others become 0; this is
        post-processing). ``None``: no threshold in the dense form (equivalent to ``τ = 1``,
        since negative answers are clipped anyway) and, in the sampled form,
        :func:`default_threshold` ``= ceil(b · ln N)`` for noise scale ``b`` and ``N`` domain
        cells — public quantities only, never the data.
    form
        ``"dense"``: noise every answer of the public domain. ``"sampled"``: the thresholded
        dense release drawn in ``O(#non-zero cells + #released cells)`` by
        :func:`sampled_threshold_noise` (same output distribution; no microaggregation).
        ``"auto"`` (default): sampled when there is no microaggregation and the public
        domain has more than ``SAMPLED_ABOVE`` (10⁶) cells (a public size), dense otherwise.
    nodes
        The public node universe (array-like of ids, e.g. read by
        :func:`graphanon.io.universe.read_id_list`): it must list every node of ``G``;
        listed nodes without edges count as degree 0. Edge-DP compares graphs on one node
        set, so the node set is public — but an edge list cannot say which nodes exist
        (:mod:`graphanon.universe`). Without ``nodes`` the release uses nothing that depends
        on the node set: the 1K histogram covers degrees ``1..h`` only (degree 0 is left
        out) and ``max_degree`` is required.
    edge_total
        2K, dense form: the share ``f`` of ε spent on a private edge count
        ``m̂ = |E| + DLap(1/(f·ε))`` (L1 sensitivity 1: one edge changes ``|E|`` by one);
        the cells get ``(1 − f)·ε`` (sequential composition) and are then projected onto
        ``m̂`` edges (:func:`project_to_total`, post-processing). Without it a noisy table
        is realized as it is: the noise on ``h(h+1)/2`` cells, clipped at 0, adds edges
        (hundreds of times the true count on small graphs). ``m̂`` is recorded (released).
    graphical
        2K, dense form: post-process the noisy table into a **graphical** JDM
        (:func:`graphanon.dk.consistent.graphical_2k`: integer class sizes ``n_k`` from the
        table — scaled to ``m̂`` with ``edge_total`` — cells fitted to the row sums ``k n_k``
        under the capacities ``n_k n_l``, rounded, repaired), which
        :func:`~graphanon.dk.generate.generate_2k` realizes exactly. Post-processing only.
        Default (``None``): on when the release has a total to honour (``edge_total`` or
        ``degree_sequence``) and ``h <= MAX_FIT_CLASSES`` (2,000, a public bound), off
        otherwise (the class-size repair :func:`postprocess_2k` alone).
    degree_sequence
        2K, dense form, with ``nodes``: the share ``g`` of ε spent on Hay et al.'s
        constrained-inference degree sequence (:func:`graphanon.nodedp.degree_sequences.
        hay_degree_sequence`, L1 sensitivity 2: one edge raises two sorted entries by one);
        the class sizes ``n_k`` are read off it (degrees top-coded at ``h``; the top class
        keeps the stubs of the degrees above ``h``, :func:`graphanon.dk.consistent.
        class_sizes_from_sequence`) and the noisy cells are fitted to the row sums ``k n_k``
        (implies ``graphical``). With ``max_degree="auto"`` the same sequence also gives
        ``h`` (no separate ``bound_fraction``). Sequential composition: the cells get
        ``(1 − g − f)·ε``; the shares are recorded.
    bound_fraction, bound_quantile
        ``max_degree="auto"`` only: the share of ε spent on choosing ``h`` (default 0.1) and
        the degree quantile it aims at (default 0.95).
    backend
        Noise backend; default the secure OpenDP backend.
    rng
        Randomness for post-processing (splitting cluster sums). Default: a fresh generator.
    seed
        Recorded in the Release when the run was seeded.

    Returns
    -------
    DKRelease

    Raises
    ------
    InvalidParameterError
        Bad parameters, or a domain too large for a dense release (more than 2·10⁷ cells).

    References
    ----------
    ``004_*.txt`` chapter 6, Lemmas 3–5, sections 6.4 (MDAV-dK, MPDC-dK), 6.5.1. The thesis's
    own variants (observed domain, Lemma 5's calibration) are
    :func:`graphanon.reproduce.dk_thesis.release_dk_thesis`.

    Notes
    -----
    Guarantee: ε-DP with respect to adding/removing one edge (Definition 16), for every pair
    of graphs — degrees are top-coded at the public ``h``. Proof sketch: the query is a
    fixed linear map of the top-coded dK vector with L1 sensitivity Δ (module docstring);
    discrete Laplace noise of scale calibrated by OpenDP's privacy map for (Δ, ε) makes the
    noisy vector ε-DP; post-processing (clipping, splitting, consistency repair, graph
    generation) preserves it. The threshold and the sampled form are post-processing of the
    same dense release (:func:`sampled_threshold_noise` derives the equality of laws).
    """
    t0 = time.perf_counter()
    started = started_at()
    owner = "release_dk"
    checked = RELEASE_DK.validate({
        "d": d, "epsilon": epsilon, "neighbourhood": neighbourhood, "max_degree": max_degree,
        "microaggregation": microaggregation, "k": k, "tau": tau, "threshold": threshold,
        "form": form, "edge_total": edge_total, "graphical": graphical,
        "degree_sequence": degree_sequence, "bound_fraction": bound_fraction,
        "bound_quantile": bound_quantile})
    d, epsilon, max_degree = checked["d"], checked["epsilon"], checked["max_degree"]
    privacy = checked["neighbourhood"]
    backend = backend or get_backend("opendp")
    eps_bound, bound_info = 0.0, dict[str, Any]()
    eps_seq, hay_seq, seq_info = 0.0, None, dict[str, Any]()
    if degree_sequence is not None:  # Hay's degree sequence with a share of ε (part 2)
        eps_seq, hay_seq, seq_info = _release_sequence(G, d=d, epsilon=epsilon,
                                                       fraction=degree_sequence, nodes=nodes,
                                                       backend=backend)
    if isinstance(max_degree, str):  # chosen privately with part of ε
        if max_degree != "auto":
            raise InvalidParameterError(
                f"The 'max_degree' parameter of {owner} must be an int >= 1 or 'auto'. "
                f"Got {max_degree!r}.")
        eps = check_epsilon(epsilon, "epsilon", owner)
        quantile = check_float(bound_quantile, "bound_quantile", owner, low=0.0, high=1.0,
                               closed="neither")
        if hay_seq is not None:  # the released sequence gives h too: no extra ε
            max_degree, bound_info = bound_from_sequence(hay_seq, quantile)
            bound_info["epsilon_max_degree"] = 0.0
            bound_info["max_degree_source"] = "the released degree sequence (degree_sequence)"
        else:
            frac = check_float(bound_fraction, "bound_fraction", owner, low=0.0, high=1.0,
                               closed="neither")
            eps_bound = check_epsilon(frac * eps, "bound_fraction", owner)
            max_degree, bound_info = select_degree_bound(G, epsilon=eps_bound,
                                                         quantile=quantile, nodes=nodes,
                                                         backend=backend)
            bound_info["bound_fraction"] = frac
    spec = check_release_args(G, owner=owner, d=d, epsilon=epsilon,
                              max_degree=max_degree, microaggregation=microaggregation, k=k,
                              tau=tau, privacy=privacy, threshold=threshold, form=form,
                              nodes=nodes)
    if graphical is None:  # on where there is a total to honour and the fit is cheap
        from .consistent import MAX_FIT_CLASSES

        graphical = (edge_total is not None and spec.d == 2 and not spec.sampled
                     and spec.h <= MAX_FIT_CLASSES)
    graphical = check_type(graphical, bool, "graphical", owner, "a bool or None")
    if (graphical or hay_seq is not None) and (spec.d != 2 or spec.sampled):
        name = "degree_sequence" if hay_seq is not None else "graphical"
        raise InvalidParameterError(
            f"The '{name}' parameter of {owner} applies to a dense 2K release (d = 2, and a "
            "domain within the dense form: pass form='dense' or a smaller max_degree).")
    eps_cells, eps_total = spec.epsilon - eps_bound - eps_seq, 0.0
    if edge_total is not None:
        frac = check_float(edge_total, "edge_total", "release_dk", low=0.0, high=1.0,
                           closed="neither")
        if spec.d != 2 or spec.sampled:
            raise InvalidParameterError(
                f"The 'edge_total' parameter of release_dk ({frac:g}) applies to a dense 2K "
                "release (d = 2, and a domain within the dense form: pass form='dense' or a "
                "smaller max_degree)." if spec.d == 2 else
                f"The 'edge_total' parameter of release_dk ({frac:g}) applies to d = 2.")
        eps_total = check_epsilon(frac * spec.epsilon, "edge_total", "release_dk")
        eps_cells -= eps_total
    if eps_cells <= 1e-12 * spec.epsilon:
        raise InvalidParameterError(
            f"The shares of ε of release_dk (edge_total={edge_total}, degree_sequence="
            f"{degree_sequence}, bound_fraction={bound_fraction if eps_bound else 0}) must sum "
            "to less than 1: nothing would be left for the cells.")
    if bound_info or seq_info:
        bound_info["epsilon_cells"] = eps_cells
    bound_info.update(seq_info)
    rng = rng if rng is not None else np.random.default_rng()
    if spec.sampled:
        return _release_sampled(spec, backend=backend, seed=seed, t0=t0, started=started,
                                epsilon_cells=eps_cells, extra=bound_info)
    # the query: the top-coded dK vector over the public domain (or its cluster sums)
    x = dk_query(spec.G, d=spec.d, h=spec.h)
    x[:spec.lo] = 0  # not released: the degree-0 count depends on the private node set
    part = (None if spec.microaggregation == "none" else
            domain_partition(spec.h, method=spec.microaggregation, k=spec.k, tau=spec.tau))
    answers = x[spec.lo:] if part is None else aggregate(x, part)
    # the noise: sensitivity of the linear query, calibrated by OpenDP's privacy map
    sens, derivation = sensitivity(spec.d, spec.h)
    noisy = np.asarray(backend.discrete_laplace(answers, sensitivity=sens, epsilon=eps_cells),
                       dtype=np.int64)
    params = {**release_params(spec, part), **bound_info}
    # the private edge total: |E| has L1 sensitivity 1 under edge neighbours (one edge more
    # or less); discrete Laplace at eps_total; sequential composition with the cells
    m_hat: int | None = None
    if eps_total:
        m_hat = max(0, int(backend.discrete_laplace(np.array([spec.G.n_edges]), sensitivity=1,
                                                    epsilon=eps_total)[0]))
        derivation += "; edge total |E|: one edge changes it by 1 (sensitivity 1)"
        params.update({"edge_total_fraction": float(edge_total or 0.0),
                       "epsilon_cells": eps_cells, "epsilon_edge_total": eps_total,
                       "edge_total": m_hat,
                       "edge_total_postprocessing": "cells projected onto the total "
                                                    "(shift, clip at 0, largest remainder)"})
    params["graphical"] = bool(graphical or hay_seq is not None)
    # post-processing: public threshold, split of cluster sums, the total, a consistent table
    if spec.threshold is not None:
        noisy = np.where(noisy >= spec.threshold, noisy, 0)
    per_point = split_evenly(noisy, part, rng) if part is not None else noisy
    if hay_seq is not None:  # 2K fitted to the class sizes of the released sequence
        from .consistent import class_sizes_from_sequence, graphical_2k

        sizes = class_sizes_from_sequence(hay_seq, spec.h, total=m_hat)
        goal = int((np.arange(spec.h + 1) * sizes).sum()) // 2
        dist, ginfo = graphical_2k(project_to_total(per_point, goal), spec.h,
                                   class_sizes=sizes, target=goal)
        derivation += "; degree sequence (Hay): one edge raises two sorted degrees by 1 " \
                      "(sensitivity 2)"
        params.update(_graphical_params(ginfo, "class sizes n_k from the released degree "
                                        "sequence (top class keeps the stubs above h); cells "
                                        "projected onto its edge count, fitted to the row "
                                        "sums k*n_k (capped symmetric IPF), rounded, "
                                        "repaired"))
    elif graphical:
        from .consistent import graphical_2k

        if m_hat is not None:
            per_point = project_to_total(per_point, m_hat)
        dist, ginfo = graphical_2k(per_point, spec.h, target=m_hat)
        params.update(_graphical_params(ginfo, "class sizes n_k = s_k/k of the table "
                                        "(rounded to the total), cells fitted to the row "
                                        "sums k*n_k (capped symmetric IPF), rounded, "
                                        "repaired"))
    else:
        if m_hat is not None:
            per_point = project_to_total(per_point, m_hat)
        dist = postprocess(spec, per_point, target=m_hat)
    mech = f"dk{spec.d}-laplace" if part is None else f"dk2-{spec.microaggregation}"
    rec = Release.create(
        mechanism=mech, neighbourhood=privacy, epsilon=spec.epsilon, sensitivity=sens,
        sensitivity_derivation=derivation, params=params,
        backend=getattr(backend, "name", type(backend).__name__), seed=seed,
        source_fingerprint=spec.G.content_hash, created_at=started)
    evaluation = evaluate_release(x, dist, spec.h, part)
    return DKRelease(dist, noisy, part, mech, rec.neighbourhood, rec.epsilon, sens, spec.h,
                     rec, evaluation, time.perf_counter() - t0)


def _release_sequence(G: Any, *, d: Any, epsilon: Any, fraction: Any, nodes: Any,
                      backend: NoiseBackend
                      ) -> tuple[float, npt.NDArray[np.int64], dict[str, Any]]:
    """``release_dk(degree_sequence=g)``: Hay et al.'s degree sequence at ``g·ε``.

    Privacy: the sorted degree sequence of the public node set has L1 sensitivity 2 under
    edge neighbours (one edge raises two degrees by one; in sorted order, two unit
    increments), so discrete Laplace noise calibrated for (2, g·ε) makes it g·ε-edge-DP
    (:func:`graphanon.nodedp.degree_sequences.hay_degree_sequence`, whose isotonic
    regression and clipping are post-processing); it composes sequentially with the cells.
    """
    from ..nodedp.degree_sequences import hay_degree_sequence  # (nodedp imports this module)

    owner = "release_dk"
    eps = check_epsilon(epsilon, "epsilon", owner)
    frac = check_float(fraction, "degree_sequence", owner, low=0.0, high=1.0,
                       closed="neither")
    if check_int(d, "d", owner, low=1, high=2) != 2:
        raise InvalidParameterError(
            f"The 'degree_sequence' parameter of {owner} ({frac:g}) applies to d = 2.")
    if nodes is None:
        raise InvalidParameterError(
            f"The 'degree_sequence' parameter of {owner} needs the public node set (nodes=, "
            "--nodes FILE): the released sequence has one degree per node.")
    if not isinstance(G, Graph):
        raise InvalidParameterError(f"{owner} needs a graphanon Graph. Got {type(G).__name__}.")
    eps_seq = check_epsilon(frac * eps, "degree_sequence", owner)
    seq = hay_degree_sequence(G, epsilon=eps_seq, nodes=nodes, backend=backend).degrees
    return eps_seq, np.asarray(seq, dtype=np.int64), {
        "degree_sequence_fraction": frac, "epsilon_degree_sequence": eps_seq,
        "degree_sequence": "Hay et al.'s constrained inference (sorted degrees + DLap, "
                           "sensitivity 2; isotonic regression); gives the class sizes",
        "degree_sequence_edges": int(seq.sum()) // 2}


def _graphical_params(info: dict[str, Any], how: str) -> dict[str, Any]:
    """The record's note on the graphical post-processing (functions of released values)."""
    return {"graphical": bool(info["graphical"]), "graphical_postprocessing": how,
            "graphical_fit_error": round(float(info["fit_error"]), 4),
            "graphical_total": int(info["total"])}


def evaluate_release(x: npt.NDArray[np.int64], dist: DKDistribution, h: int,
                     part: Partition | None, *, sae_points: Any = None,
                     sae_over: str = "public domain cells") -> dict[str, Any]:
    """Errors of a release against the true dK vector ``x`` (evaluation only, not private).

    With a partition, also its SAE over ``sae_points`` (default: the public domain cells).
    """
    tcells = np.flatnonzero(x)  # (degree 0 is already zeroed when it is not released)
    evaluation = _errors(tcells, x[tcells], dist, h)
    if part is not None:
        points = domain_cells(h) if sae_points is None else sae_points
        evaluation["sae"] = sae(points, part)
        evaluation["sae_over"] = sae_over
    return evaluation


def _errors(tcells: npt.NDArray[np.int64], tvals: npt.NDArray[np.int64],
            dist: DKDistribution, h: int) -> dict[str, Any]:
    """L1 / KS / Euclidean between the truth and the release over the public domain, on the
    union of their supports (cells that are 0 in both change none of the three)."""
    if dist.d == 1:
        rcells = dist.degrees[:, 0]
    else:
        rcells = cell_index(dist.degrees[:, 0], dist.degrees[:, 1], h)
    union = np.union1d(tcells, rcells)
    truth = np.zeros(union.size, dtype=np.float64)
    released = np.zeros(union.size, dtype=np.float64)
    truth[np.searchsorted(union, tcells)] = tvals
    released[np.searchsorted(union, rcells)] = dist.counts
    return {"l1": l1_distance(truth, released), "ks": ks_distance(truth, released),
            "euclidean": euclidean_distance(truth, released)}


def _release_sampled(spec: ReleaseSpec, *, backend: NoiseBackend, seed: int | None,
                     t0: float, started: str, epsilon_cells: float | None = None,
                     extra: dict[str, Any] | None = None) -> DKRelease:
    """The sampled form of the plain release (validated arguments; see :func:`release_dk`).

    ``spec.lo = 1``: a 1K release without a node universe; its domain is degrees ``1..h``
    (``n_cells = h``, cell ``c`` holds degree ``c + 1``).
    """
    d, h, lo, n_cells = spec.d, spec.h, spec.lo, spec.n_cells
    sens, derivation = sensitivity(d, h)
    eps_cells = spec.epsilon if epsilon_cells is None else epsilon_cells
    scale = dp_scale(sens, eps_cells)
    tau = default_threshold(scale, n_cells) if spec.threshold is None else spec.threshold
    tcells, tvals, _ = dk_query_sparse(spec.G, d=d, h=h)
    if lo:
        keep = tcells >= lo
        tcells, tvals = tcells[keep], tvals[keep]
    cells, vals = sampled_threshold_noise(tcells - lo, tvals, n_cells, sensitivity=sens,
                                          epsilon=eps_cells, threshold=tau, backend=backend)
    cells = cells + lo
    if d == 1:
        dense = np.zeros(n_cells + lo, dtype=np.int64)
        dense[cells] = vals
        dist = _without_low(postprocess_1k(dense, n_nodes=spec.n), lo)
    else:
        dist = postprocess_2k_sparse(cells, vals, h)
    params: dict[str, Any] = {
        "d": d, "max_degree": h, "microaggregation": "none",
        "top_coding": f"degrees >= {h} counted as {h}",
        "node_universe": _universe_note(spec.universe_given, d), "form": "sampled",
        "threshold": tau,
        "threshold_rule": ("default: ceil(noise_scale * ln(n_domain_cells))"
                           if spec.threshold is None else "given"),
        "noise_scale": scale, "n_domain_cells": n_cells,
        "equivalence": ("distributed as noising every domain cell and keeping the cells "
                        ">= threshold (post-processing of the dense release)"),
        **(extra or {}),
    }
    rec = Release.create(
        mechanism=f"dk{d}-laplace-thresholded", neighbourhood="edge", epsilon=spec.epsilon,
        sensitivity=sens, sensitivity_derivation=derivation, params=params,
        backend=getattr(backend, "name", type(backend).__name__), seed=seed,
        source_fingerprint=spec.G.content_hash, created_at=started)
    evaluation = _errors(tcells, tvals, dist, h)
    return DKRelease(dist, vals, None, rec.mechanism, rec.neighbourhood, rec.epsilon, sens, h,
                     rec, evaluation, time.perf_counter() - t0, noisy_cells=cells)


def _universe_note(universe_given: bool, d: int) -> str:
    """The ``node_universe`` parameter of a record (public: the universe is given)."""
    if universe_given:
        return "given by the operator (public node set; its size fixes the degree-0 bin)"
    if d == 1:
        return "none: degree 0 is left out (its count depends on which nodes exist)"
    return "none needed (2K counts edges only)"


def true_distribution(G: Graph, d: int, h: int) -> npt.NDArray[np.float64]:
    """The exact top-coded dK vector (for evaluation only)."""
    return dk_query(G, d=d, h=h).astype(np.float64)

