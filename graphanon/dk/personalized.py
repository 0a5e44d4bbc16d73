"""Personalized DP releases of 1K / 2K: PDP_min, LL-dK, TP-dK, ST-dK, AG-dK (thesis chapter 8).

Every node ``v`` has a public preference ``ε_v`` (:mod:`.preferences`). A release is

* **edge-PDP** (Definition 30) if for every pair ``G ~ G'`` differing in the edge ``uv``, the
  output densities differ by at most ``e^{min(ε_u, ε_v)}``;
* **node-PDP** (Definition 31, second inequality — the clause this module guarantees and
  audits) if for every ``G' = G + v⁺`` they differ by at most ``e^{ε_{v⁺}}``. The first clause
  of Definition 31 (``min ε`` over the neighbours of ``v⁺``) holds for PDP_min, LL-dK and
  AG-dK (they run at ``ε_min``) and is **not** claimed for TP-dK and ST-dK.

Public inputs: the preference table (and so ``ε_min``, μ), the degree bound ``h`` (edge-PDP:
degrees top-coded at ``h``, as in :mod:`graphanon.dk.release`), θ and the EAD ordering key
(node-PDP: the graph is projected by EAD, :mod:`graphanon.nodedp.projection`), k. Noise scales are
functions of these only: **no scale depends on degrees, on which entries exist or on which
nodes are in the graph** (under node-PDP the node set is private; ``ε_min`` / μ are computed
over the public table, not over the graph's nodes).

Why the thesis calibrations fail (reproduced in :mod:`graphanon.reproduce.personalized_thesis`)
---------------------------------------------------------------------------------------------
The thesis argues every mechanism by *parallel composition over entries* with the
*per-entry* sensitivity of Lemmas 10–13. One edge (node) change moves several entries at once
— in 1K the bins of **both** endpoints, in 2K every cell of every other edge of both endpoints
— and those entries "involve" other nodes with other preferences. Concretely:

* per-entry instead of L1 sensitivity: edge 1K changes 4 bins by 1 (Lemma 12 says 2), edge 2K
  up to ``4h − 3`` (Lemma 13: ``2h + 1``), node 1K ``2θ + 1`` (Lemma 10: ``θ + 1``), node 2K
  ``θ(2θ + 1)`` (Lemma 11: ``θ(θ + 1)``): the loss is up to 2× the stated ε even for PDP_min;
* LL-dK / AG-dK scale each entry (group) by the smallest ε of the nodes *currently in it*: the
  scales are a function of the private graph, and a conservative node's edge moves the bin of
  its liberal neighbour, which LL noises at the liberal ε;
* ST-dK samples *dK units* (nodes for 1K, edges for 2K) by their own ε: the flip of ``uv``
  (``u`` conservative) also moves ``v``'s unit, which a liberal ``v`` keeps with probability 1,
  so the change leaks at μ, not at ``ε_u``;
* TP-dK projects first and drops ``ε < μ`` nodes afterwards: the dropped node's edges already
  consumed projection slots of its neighbours, so its presence still changes the output.

Node set under node-PDP
-----------------------
Node-PDP releases range over the non-isolated nodes of the EAD projection (1K over degrees
``1..θ``, no degree-0 bin; 2K cells ``1 <= i <= j <= θ``), as every node-level release does
(:mod:`graphanon.nodedp.theta_dk`, "Node set"): an edge list cannot hold an isolated node, so
removing ``v⁺`` also removes the neighbours whose only edge was theirs, and a degree-0 bin
would move by their number. Edge-PDP keeps ``0..h`` over the given public node universe.

The strict calibrations (what this module implements)
------------------------------------------------------
``Δ`` below is the L1 sensitivity of the noised vector: edge-PDP ``Δ₁ = 4``, ``Δ₂ = 4h − 3``
(:func:`graphanon.dk.release.sensitivity`), node-PDP over the EAD θ-projection
``Δ₁ = 2θ + 1``, ``Δ₂ = θ(2θ + 1)`` (:func:`graphanon.nodedp.theta_dk.node_sensitivity`). The
privacy loss of ``x + DiscreteLaplace(b)`` between neighbours is ``Σ_i |x_i − x'_i| / b_i``.

``PDP_min`` — every cell at ``ε_min``: ``b = Δ/ε_min``; loss ``<= ε_min <= ε`` of every node.
    **Each node receives ε_min.**
``LL-dK`` — the smallest ε among the nodes that *can* be involved in an entry. Any node can
    have any degree (and any node, including the most conservative, can be the other endpoint
    of an edge that moves a bin), so for a data-independent calibration the local least *is*
    the global least: strict LL-dK coincides with PDP_min. **Each node receives ε_min.** (This
    is the finding; the thesis's gain comes from data-dependent scales.)
``TP-dK`` (Algorithm 7, order corrected) — first drop every node with ``ε_v < μ`` (a public
    rule), then bound degrees (edge: top-code at θ; node: EAD at θ), then ``b = Δ/μ``. A change
    concerning a dropped node (an edge with a dropped endpoint; a dropped ``v⁺``) does not
    change the input of the rest at all: loss 0. Any other change is between two kept nodes:
    loss ``<= μ <= ε``. **Nodes with ε < μ receive 0 (they are not in the output); the others
    receive μ.**
``ST-dK`` (Algorithm 8, sampling the private records) — edge-PDP: keep each *edge* ``uv``
    independently with ``p = π(min(ε_u, ε_v))``; node-PDP: keep each *node* with
    ``p = π(ε_v)``; ``π(ε) = 1`` if ``ε >= μ`` else ``(e^ε − 1)/(e^μ − 1)``. Then the dK of the
    sample (top-coded / EAD-projected) with ``b = Δ/μ``: a μ-(edge/node)-DP mechanism ``M`` of
    the sample. **Amplification** (Li, Qardaji & Su 2012, Thm 1; Jorgensen et al. 2015): with
    the coins of the other records fixed, ``P[M(S(G+r)) ∈ O] = p·P[M(S+r) ∈ O] +
    (1 − p)·P[M(S) ∈ O] <= (1 + p(e^μ − 1))·P[M(S) ∈ O]`` and, since
    ``(1 − p + pe^{−μ})(1 − p + pe^μ) >= 1``, the reverse ratio obeys the same bound:
    loss ``<= ln(1 + p(e^μ − 1)) = min(ε_r, μ)``. **Each node receives min(ε_v, μ)** (under
    edge-PDP every edge ``uv`` receives ``min(ε_u, ε_v, μ)``). The coins of record ``r`` depend
    on public preferences only, never on degrees.
``AG-dK`` (Algorithm 9, public partition) — MDAV-dK over the *public domain* (1K: degrees
    ``0..h``; 2K: the cells ``1 <= i <= j <= h``; above 20,000 cells a square tiling with
    ``~k`` cells per tile), cluster sums ``A x``: ``‖A(x − x')‖₁ <= ‖x − x'‖₁ <= Δ``; every
    group at ``ε_min`` (any group can be moved by the most conservative node).
    **Each node receives ε_min.** The gain over PDP_min is the aggregation.

All audited by :func:`graphanon.privacy.sensitivity_audit.audit_personalized` (tests/privacy/
test_personalized.py); ST-dK's inner mechanism is audited at μ and the amplification bound is
checked exactly on the discrete Laplace mixture.

References
----------
``004_*.txt`` chapter 8: Definitions 30–32, Lemmas 10–17, Algorithms 7–9, §8.5. Z. Jorgensen,
T. Yu, G. Cormode, ICDE 2015 (Sample mechanism). N. Li, W. Qardaji, D. Su, "On sampling,
anonymization, and differential privacy", ASIACCS 2012.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._compat import moved_names, paper_variants, renamed_keywords
from .._validation import check_choice, check_cluster_size, check_degree_bound, check_int
from ..errors import InvalidParameterError, PersonalizedCalibrationWarning
from ..graph import Graph
from ..nodedp.projection import edge_addition
from ..nodedp.theta_dk import (
    dk_utility,
    node_dk_query,
    node_dk_table,
    node_sensitivity,
    projection_key,
)
from ..params import Param, Spec
from ..privacy.noise import NoiseBackend, dp_scale, get_backend, secure_uniform
from ..privacy.release import NOT_PRIVATE_NOTE, Release, started_at
from .extract import DKDistribution, domain_cells
from .microaggregation import Partition, aggregate, domain_partition, mdav, tile_partition
from .postprocess import split_evenly
from .preferences import GROUPS, Preferences, group_labels
from .release import DegreeBoundWarning, dk_query
from .release import sensitivity as edge_sensitivity

__all__ = [
    "METHODS",
    "PersonalizedCalibrationWarning",
    "PersonalizedQuery",
    "PersonalizedRelease",
    "amplified_epsilon",
    "guaranteed_epsilons",
    "inclusion_probability",
    "l1_sensitivity",
    "mu_for_sample_fraction",
    "personalized_query",
    "release_personalized",
]

METHODS = ("min", "ll", "tp", "st", "ag")
#: Names that moved to the chapter-8 reproduction (importable from here, with a warning).
__getattr__ = moved_names(__name__, {
    "thesis_sensitivity": "graphanon.reproduce.personalized_thesis:thesis_sensitivity",
    "CALIBRATIONS": "graphanon.reproduce.personalized_thesis:CALIBRATIONS",
}, removed_in="0.3.0")
PRIVACY = ("edge", "node")
MAX_MDAV_POINTS = 20_000
MECHANISM_NAMES = {"min": "PDP_min", "ll": "LL-dK", "tp": "TP-dK", "st": "ST-dK", "ag": "AG-dK"}


# ---------------------------------------------------------------------- sensitivities
def l1_sensitivity(d: int, h: int, privacy: str) -> float:
    """L1 sensitivity of the noised vector (edge: top-coded at ``h``; node: EAD at θ = ``h``)."""
    if privacy == "edge":
        return edge_sensitivity(d, h)[0]
    return node_sensitivity(d, h, "ead")


# ---------------------------------------------------------------------- sampling
def inclusion_probability(eps: Any, mu: float) -> npt.NDArray[np.float64]:
    """``π(ε) = 1`` if ``ε >= μ`` else ``(e^ε − 1)/(e^μ − 1)`` (Algorithm 8)."""
    e = np.asarray(eps, dtype=np.float64)
    return np.where(e >= mu, 1.0, np.expm1(np.minimum(e, mu)) / math.expm1(mu))


def amplified_epsilon(p: Any, mu: float) -> npt.NDArray[np.float64]:
    """``ln(1 + p(e^μ − 1))``: the ε of a μ-DP mechanism run on a Poisson sample that holds
    the changed record with probability ``p``."""
    return np.log1p(np.asarray(p, dtype=np.float64) * math.expm1(mu))


def mu_for_sample_fraction(prefs: Preferences, m: float) -> float:
    """The μ at which the mean of ``π(ε_v)`` over the public table is ``m`` (bisection).

    Public (a function of the preference table only); used to run ST-dK at a sample size
    ``m`` as in §8.5.
    """
    if not 0.0 < m <= 1.0:
        raise InvalidParameterError(f"The 'm' parameter must be in (0, 1]. Got {m} instead.")
    eps = prefs.universe
    lo, hi = float(eps.min()) * 1e-6, float(eps.max())
    if float(inclusion_probability(eps, hi).mean()) >= m:
        return hi  # the fraction decreases in μ; even μ = max keeps m
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if float(inclusion_probability(eps, mid).mean()) >= m:
            lo = mid
        else:
            hi = mid
    return lo


@paper_variants("graphanon.reproduce.personalized_thesis:guaranteed_epsilons_thesis",
                removed_in="0.3.0", calibration="strict")
def guaranteed_epsilons(eps: Any, *, method: str, eps_min: float,
                        mu: float | None) -> npt.NDArray[np.float64]:
    """The ε each node actually receives under the audited calibration.

    ``min``/``ll``/``ag``: ``ε_min``; ``tp``: 0 below μ (not in the output), μ above;
    ``st``: ``min(ε_v, μ)``. Always ``<= ε_v``.
    """
    e = np.asarray(eps, dtype=np.float64)
    if method in ("min", "ll", "ag"):
        return np.full(e.shape, eps_min)
    assert mu is not None
    if method == "tp":
        return np.where(e >= mu, mu, 0.0)
    return np.minimum(e, mu)


# ---------------------------------------------------------------------- the query
@dataclass(frozen=True)
class PersonalizedQuery:
    """What a mechanism noises: ``values`` with per-entry discrete Laplace ``scales``.

    ``scales`` is ``inf`` on entries released without noise (the thesis's unobserved entries,
    released as 0). ``partition`` maps domain cells to the noised groups (AG-dK), ``cells``
    the released entries of the domain (``None`` = all).
    """

    values: npt.NDArray[np.int64]
    scales: npt.NDArray[np.float64]
    h: int
    sensitivity: float
    partition: Partition | None = None
    info: dict[str, Any] = field(default_factory=dict)


def _uniforms(backend: NoiseBackend | None, rng: np.random.Generator | None, size: int
              ) -> npt.NDArray[np.float64]:
    if backend is not None:
        return backend.uniform(size)
    if rng is not None:  # the audit's query path: reproducible sampling, no noise drawn
        return 1.0 - rng.random(size)
    return secure_uniform(size)


def _bounded(G: Graph, *, privacy: str, h: int, key: int) -> Graph:
    """Edge-PDP: ``G`` (top-coding happens in :func:`dk_query`); node-PDP: EAD at θ = h."""
    if privacy == "edge":
        return G
    return edge_addition(G, theta=h, key=key).graph


def _lowest_degree(d: int, privacy: str) -> int:
    """First degree of the 1K domain: 0 under edge-PDP (public node set), 1 under node-PDP
    (non-isolated nodes: :mod:`graphanon.nodedp.theta_dk`, "Node set")."""
    return 1 if d == 1 and privacy == "node" else 0


def _domain_points(d: int, h: int, lo: int = 0) -> npt.NDArray[np.int64]:
    return np.arange(lo, h + 1, dtype=np.int64)[:, None] if d == 1 else domain_cells(h)


def _query(G: Graph, *, d: int, h: int, privacy: str, key: int) -> npt.NDArray[np.int64]:
    """The bounded graph's dK vector over the public domain of ``privacy`` (node-PDP: no
    degree-0 bin, :func:`graphanon.nodedp.theta_dk.node_dk_query`)."""
    B = _bounded(G, privacy=privacy, h=h, key=key)
    return dk_query(B, d=d, h=h) if privacy == "edge" else node_dk_query(B, d, h)


def _public_partition(d: int, h: int, k: int, lo: int = 0) -> Partition:
    """MDAV-dK over the public domain (1K: degrees lo..h; 2K: cells), tiling above 20k
    cells."""
    pts = _domain_points(d, h, lo)
    if pts.shape[0] <= MAX_MDAV_POINTS:
        return mdav(pts, k=min(k, pts.shape[0])) if d == 1 else domain_partition(
            h, method="mdav", k=k)
    return tile_partition(h - lo, k=k, d=d)  # 1K: positions 0..h-lo are degrees lo..h


@paper_variants("graphanon.reproduce.personalized_thesis:personalized_query_thesis",
                removed_in="0.3.0", calibration="strict")
def personalized_query(
    G: Graph,
    eps: Any,
    *,
    d: int,
    privacy: str,
    method: str,
    h: int,
    eps_min: float,
    mu: float | None = None,
    k: int | None = None,
    key: int = 0,
    sample: bool = False,
    backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
) -> PersonalizedQuery:
    """The vector a mechanism noises and its per-entry scales (the audited object).

    Parameters
    ----------
    G : Graph
    eps : array of float
        ε of each node of ``G`` (by index), from :meth:`Preferences.for_graph`.
    d, privacy, method
        See :func:`release_personalized`.
    h : int
        Public degree bound (edge: top-coding; node: EAD θ).
    eps_min : float
        ``ε_min`` of the public table.
    mu : float, optional
        TP / ST threshold.
    k : int, optional
        AG group size.
    key : int
        EAD ordering key (node-PDP).
    sample : bool
        ST-dK: draw the sample (True) or keep every record (False: the worst case
        conditional on the other coins, which is what the audit checks at μ).
    backend, rng
        Source of the sampling coins (secure uniforms unless the backend is numpy-insecure).

    Returns
    -------
    PersonalizedQuery
        Every scale is a function of the public table, ``h`` and μ / k only.
    """
    eps = np.asarray(eps, dtype=np.float64)
    sens = l1_sensitivity(d, h, privacy)
    if method in ("min", "ll"):  # strict LL-dK is PDP_min (module docstring)
        x = _query(G, d=d, h=h, privacy=privacy, key=key)
        return PersonalizedQuery(x, np.full(x.size, dp_scale(sens, eps_min)), h, sens)
    if method == "tp":  # drop the nodes below μ first, then bound the degrees
        assert mu is not None
        keep = eps >= mu
        x = _query(G.subgraph(keep), d=d, h=h, privacy=privacy, key=key)
        return PersonalizedQuery(x, np.full(x.size, dp_scale(sens, mu)), h, sens,
                                 info={"n_kept_nodes": int(keep.sum())})
    if method == "st":  # sample the private records (edges / nodes) by their own ε
        assert mu is not None
        info: dict[str, Any] = {}
        if privacy == "edge":
            u, v = G.edges()
            p = inclusion_probability(np.minimum(eps[u], eps[v]), mu)
            kept = _uniforms(backend, rng, u.size) <= p if sample else np.ones(u.size, bool)
            S = G.with_edges(u[kept], v[kept])
            info["sampled_records"] = (int(kept.sum()), int(u.size))
        else:
            p = inclusion_probability(eps, mu)
            kept = (_uniforms(backend, rng, G.n_nodes) <= p if sample
                    else np.ones(G.n_nodes, bool))
            S = G.subgraph(kept)
            info["sampled_records"] = (int(kept.sum()), int(G.n_nodes))
        x = _query(S, d=d, h=h, privacy=privacy, key=key)
        return PersonalizedQuery(x, np.full(x.size, dp_scale(sens, mu)), h, sens, info=info)
    # AG-dK: group sums over a public partition of the domain, at ε_min
    assert k is not None
    x = _query(G, d=d, h=h, privacy=privacy, key=key)
    part = _public_partition(d, h, k, _lowest_degree(d, privacy))
    sums = aggregate(x, part)
    return PersonalizedQuery(sums, np.full(sums.size, dp_scale(sens, eps_min)), h, sens, part)


# ---------------------------------------------------------------------- the release
@dataclass(frozen=True)
class PersonalizedRelease:
    """A personalized 1K / 2K release.

    Attributes
    ----------
    table : DKDistribution
        Post-processed release (noisy counts clipped at 0, zero rows dropped).
    noisy : ndarray
        Raw noisy answers (per domain cell, or per group for AG-dK).
    d, privacy, method, calibration, h, mu, k
        Parameters (``h`` is the public degree bound / θ).
    guaranteed : ndarray of float or None
        ε each node of the input receives (``None`` for the thesis calibration).
    requested : ndarray of float
        Each node's preference.
    groups : dict
        Per group (conservative / moderate / liberal): node count, requested and guaranteed
        ε min / median / max.
    release : Release
    evaluation : dict
        L1 / KS against the true, unprojected dK of the input — private, for evaluation
        only, not covered by the guarantee.
    """

    table: DKDistribution
    noisy: npt.NDArray[np.int64]
    d: int
    privacy: str
    method: str
    calibration: str
    h: int
    mu: float | None
    k: int | None
    guaranteed: npt.NDArray[np.float64] | None
    requested: npt.NDArray[np.float64]
    groups: dict[str, Any]
    release: Release
    evaluation: dict[str, float]
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"release": self.release.to_dict(), "d": self.d, "privacy": self.privacy,
                "method": self.method, "calibration": self.calibration,
                "degree_bound": self.h, "mu": self.mu, "k": self.k,
                "n_rows": self.table.n_tuples, "groups": self.groups,
                "not_private": {"note": NOT_PRIVATE_NOTE, "seconds": self.seconds,
                                **self.evaluation}}


def _summ(a: npt.NDArray[np.float64]) -> dict[str, float]:
    if a.size == 0:
        return {"min": math.nan, "median": math.nan, "max": math.nan}
    return {"min": float(a.min()), "median": float(np.median(a)), "max": float(a.max())}


def _groups(req: npt.NDArray[np.float64], got: npt.NDArray[np.float64] | None
            ) -> dict[str, Any]:
    lab = group_labels(req)
    out: dict[str, Any] = {}
    for g in GROUPS:
        sel = lab == g
        out[g] = {"n_nodes": int(sel.sum()), "requested": _summ(req[sel]),
                  "guaranteed": None if got is None else _summ(got[sel])}
    return out


@dataclass(frozen=True)
class PdpSpec:
    """Validated arguments of a personalized release (shared with the thesis reproduction):
    the graph (with the node universe under edge-PDP), ``h``, μ and ``k``."""

    G: Graph
    d: int
    privacy: str
    method: str
    h: int
    mu: float | None
    k: int | None


def check_personalized(G: Any, prefs: Any, *, owner: str, d: Any, privacy: str, method: str,
                       theta: Any, mu: Any, k: Any, nodes: Any,
                       claims_privacy: bool = True) -> PdpSpec:
    """Validate the arguments of a personalized release once (one message format).
    ``claims_privacy=False`` (the thesis reproduction, which claims nothing) lets a
    preference scheme be drawn over the graph's own nodes, as the thesis's experiments do."""
    from .._ids import canonical_ids, ids_as_text

    if not isinstance(G, Graph):
        raise InvalidParameterError(f"The 'G' parameter of {owner} must be a graphanon Graph. "
                                    f"Got {type(G).__name__} instead.")
    if not isinstance(prefs, Preferences):
        raise InvalidParameterError(f"The 'prefs' parameter of {owner} must be Preferences. "
                                    f"Got {type(prefs).__name__} instead.")
    d = check_int(d, "d", owner, low=1, high=2)
    check_choice(privacy, "privacy", owner, PRIVACY)
    check_choice(method, "method", owner, METHODS)
    if privacy == "edge":
        if nodes is None:
            raise InvalidParameterError(
                f"The 'nodes' parameter of {owner} is required for edge-PDP: the public node "
                "universe (the CLI's --nodes FILE). Edge-PDP treats the node set as public, "
                "but an edge list cannot say which nodes exist.")
        G = G.with_nodes(nodes)
        # both tables are public: a preference for an id outside the universe (or '7' for
        # the node '007') would set ε_min for nobody; checking is data-independent
        known = set(ids_as_text(G.node_ids).tolist())
        stray = [x for x in ids_as_text(canonical_ids(prefs.node_ids)).tolist()
                 if x not in known]
        if stray:
            raise InvalidParameterError(
                f"The 'prefs' parameter of {owner} gives a preference for {stray[0]!r}, which "
                f"is not in the public node universe ('nodes'; {len(stray)} such id(s)). "
                "Every preference must name a node of the universe (ids are text: '7' and "
                "'007' differ).")
    elif nodes is not None:
        raise InvalidParameterError(
            f"The 'nodes' parameter of {owner} applies to edge-PDP only: under node-PDP the "
            "node set itself is private.")
    if theta is None:
        if privacy == "node":
            raise InvalidParameterError(
                f"The 'theta' parameter of {owner} is required for node-PDP (the public EAD "
                "projection bound).")
        theta = max(G.n_nodes - 1, 1)
        warnings.warn(f"No public degree bound given: using theta = |nodes| - 1 = {theta} "
                      "(the node set is public under edge-PDP). Pass --theta.",
                      DegreeBoundWarning, stacklevel=3)
    h = check_degree_bound(theta, "theta", owner, d=d)
    unused = [name for name, value, used in (("mu", mu, method in ("tp", "st")),
                                             ("k", k, method == "ag"))
              if value is not None and not used]
    if unused:
        raise InvalidParameterError(
            f"The parameter(s) {' and '.join(repr(u) for u in unused)} of {owner} do not "
            f"apply to method={method!r} (mu: TP-dK and ST-dK; k: AG-dK).")
    mu_val: float | None = (prefs.resolve_mu("avg" if mu is None else mu)
                            if method in ("tp", "st") else None)
    if method == "ag":
        k = check_cluster_size(k, owner, cells=h + 1 if d == 1 else h * (h + 1) // 2,
                               mechanism=f"AG-dK ({d}K, theta = {h})", plain="LL-dK")
    drawn_over_nodes = (
        claims_privacy and prefs.source == "thesis-scheme" and prefs.node_ids.size == G.n_nodes
        and set(ids_as_text(canonical_ids(prefs.node_ids)).tolist())
        == set(ids_as_text(G.node_ids).tolist()))
    if privacy == "node" and (prefs.source.startswith("attribute:") or drawn_over_nodes):
        what = (f"a table read from the graph's own attribute ({prefs.source})"
                if prefs.source.startswith("attribute:") else
                "a thesis_scheme table drawn over exactly the graph's node ids")
        raise InvalidParameterError(
            f"The 'prefs' parameter of {owner}: under node-PDP the preference table must be "
            f"public and independent of which nodes are present; {what} makes ε_min, μ and "
            "the default depend on the private node set. Pass a table over a public "
            "universe of ids (a file, from_pairs, or thesis_scheme over the universe).")
    return PdpSpec(G, d, privacy, method, h, mu_val, k)


def noise_query(q: PersonalizedQuery, backend: NoiseBackend) -> npt.NDArray[np.int64]:
    """``q.values`` plus discrete Laplace noise at each entry's own scale (``inf``: none)."""
    noised = np.isfinite(q.scales)
    noisy = q.values.copy()
    if noised.any():
        noisy[noised] = backend.discrete_laplace_scales(q.values[noised], q.scales[noised])
    return noisy


def pdp_params(spec: PdpSpec, prefs: Preferences, *, mu: float | str | None, key: int,
               q: PersonalizedQuery) -> dict[str, Any]:
    """The public parameters of a personalized release record."""
    h = spec.h
    params: dict[str, Any] = {
        "d": spec.d, "privacy": spec.privacy, "method": spec.method, "degree_bound": h,
        "degree_bounding": (f"degrees top-coded at {h}" if spec.privacy == "edge"
                            else f"EAD projection at theta={h} (key {key})"),
        "epsilon_min_public": prefs.epsilon_min, "preferences": prefs.summary(),
        "epsilon_summary_over": ("the given public node universe (edge-PDP)"
                                 if spec.privacy == "edge" else
                                 "the public preference table and its default (node-PDP)"),
        "assumption": "privacy preferences are public; scales depend only on them and on "
                      "the public bound / theta / k / mu",
    }
    if spec.mu is not None:
        params["mu"] = spec.mu
        params["mu_rule"] = ("avg" if mu is None else mu if mu in ("avg", "mean", "max")
                             else "explicit")
    if spec.k is not None:
        params["k"] = spec.k
        params["n_groups"] = int(q.values.size)
    if "sampled_records" in q.info:
        params["sample_note"] = "sampled record count is private and not published"
    return params


def mechanism_name(method: str, mu: float | str | None, d: int) -> str:
    """``pdp-<method>[-avg]-dk<d>``: the registered name of a personalized release."""
    avg = method in ("tp", "st") and (mu is None or mu in ("avg", "mean"))
    return f"pdp-{method}{'-avg' if avg else ''}-dk{d}"


#: The parameters of :func:`release_personalized`, declared once: its validation, the
#: options of ``graphanon release-personalized``, the job step's keys (besides the preference
#: table's: ``prefs``, ``prefs_scheme``, ``prefs_attribute``, ``default_epsilon``) and the
#: table in docs/personalized.md.
PERSONALIZED = Spec("release_personalized", (
    Param("d", "int", "1K or 2K.", low=1, high=2),
    Param("neighbourhood", "choice", "Edge-PDP (Definition 30) or node-PDP (Definition 31).",
          choices=PRIVACY, aliases=("privacy",)),
    Param("method", "choice", "PDP_min, LL-dK, TP-dK, ST-dK or AG-dK.", choices=METHODS),
    Param("theta", "int", "Public degree bound: top-coding (edge) / EAD projection bound "
          "(node).", default=None, low=1, high=2**31 - 2),
    Param("mu", "epsilon", "TP/ST threshold μ: a number, 'max' or 'avg' (the default).",
          default=None, words=("max", "avg", "mean"), only=("method", ("tp", "st"))),
    Param("k", "int", "AG-dK group size.", default=None, low=2, only=("method", "ag")),
    Param("key", "int", "Key of the node-PDP projection's keyed-hash order (default: drawn "
          "from the generator).", default=None, low=0, high=2**64 - 1, cli=""),
), doc="docs/personalized.md")


@renamed_keywords(PERSONALIZED.aliases(), removed_in="0.3.0")
@paper_variants("graphanon.reproduce.personalized_thesis:release_personalized_thesis",
                removed_in="0.3.0", calibration="strict")
def release_personalized(
    G: Graph,
    prefs: Preferences,
    *,
    d: int,
    neighbourhood: str,
    method: str,
    theta: int | None = None,
    mu: float | str | None = None,
    k: int | None = None,
    key: int | None = None,
    nodes: Any = None,
    backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
    seed: int | None = None,
) -> PersonalizedRelease:
    """Release the 1K or 2K distribution of ``G`` under edge- or node-personalized DP.

    Parameters
    ----------
    G : Graph
        The private graph.
    prefs : Preferences
        The public preference table (unlisted nodes get ``prefs.default``). Under node-PDP
        it must not be derived from the graph (a node attribute, or the preference scheme
        drawn over ``G.node_ids``): its ε_min, μ and default would then depend on which
        nodes are present. Attribute-derived tables are refused for ``neighbourhood="node"``.
    d : {1, 2}
    neighbourhood : {"edge", "node"}
        Definition 30 or Definition 31 (the node's own ε; see the module docstring).
    method : {"min", "ll", "tp", "st", "ag"}
        PDP_min, LL-dK, TP-dK (Algorithm 7), ST-dK (Algorithm 8), AG-dK (Algorithm 9), with
        the audited calibrations of the module docstring.
    theta : int, optional
        Public degree bound. Edge-PDP: degrees top-coded at θ (default ``|nodes| − 1``, the
        node set being public under edge-PDP). Node-PDP: EAD projection bound (required).
    mu : float or {"max", "avg"}, optional
        TP / ST threshold (``"avg"``, the default: the table's mean, the ``*_avg``
        variants); refused with the other methods.
    k : int, optional
        AG-dK group size (required for ``"ag"``, refused with the other methods).
    key : int, optional
        EAD ordering key (public); drawn if None.
    nodes : array-like
        Edge-PDP only, and required there: the public node universe (every node of ``G``;
        listed nodes without edges have degree 0). Edge-PDP compares graphs on one node set,
        and the per-node ε summary and the degree-0 count range over it; an edge list cannot
        say which nodes exist (:mod:`graphanon.universe`). Node-PDP refuses it (the node
        set is what it protects).
    backend : NoiseBackend, optional
        Source of the noise and of the ST-dK sampling (default: OpenDP, secure); pass
        ``get_backend("numpy-insecure", rng=...)`` for reproducible, insecure runs.
    rng : numpy.random.Generator, optional
        Randomness that is not part of the mechanism (the public EAD key when ``key`` is
        None).
    seed : int, optional
        Recorded in the Release when the run was seeded.

    Returns
    -------
    PersonalizedRelease

    Raises
    ------
    InvalidParameterError
        Bad parameters.

    Notes
    -----
    Guarantee: every node ``v`` receives ``guaranteed[v] <= ε_v`` (module docstring:
    ``ε_min``; TP: 0 or μ; ST: ``min(ε_v, μ)``). Proof sketch: the noised vector is a function
    of the bounded graph with public L1 sensitivity Δ, its scales are public, and per-entry
    discrete Laplace gives loss ``Σ|Δx_i|/b_i``; TP removes the changes of nodes below μ
    entirely; ST adds Poisson sampling of the private records (amplification). Post-processing
    (clipping, splitting group sums) is free.

    References
    ----------
    ``004_*.txt`` §8.2–8.4 (Definitions 30–32, Lemmas 10–17, Algorithms 7–9). The chapter's
    own calibrations: :mod:`graphanon.reproduce.personalized_thesis`.
    """
    t0 = time.perf_counter()
    started = started_at()
    privacy = neighbourhood
    PERSONALIZED.validate({"d": d, "neighbourhood": privacy, "method": method, "theta": theta,
                           "mu": mu, "k": k, "key": key})
    spec = check_personalized(G, prefs, owner="release_personalized", d=d, privacy=privacy,
                              method=method, theta=theta, mu=mu, k=k, nodes=nodes)
    G, h = spec.G, spec.h
    backend = backend or get_backend("opendp")
    key = projection_key(key, rng)
    # the query, its public per-entry scales, the noise, the post-processing
    eps = prefs.for_graph(G)
    q = personalized_query(G, eps, d=d, privacy=privacy, method=method, h=h,
                           eps_min=prefs.epsilon_min, mu=spec.mu, k=spec.k, key=key,
                           sample=True, backend=backend, rng=rng)
    noisy = noise_query(q, backend)
    post_rng = rng if rng is not None else np.random.default_rng()
    per_cell = split_evenly(noisy, q.partition, post_rng) if q.partition is not None else noisy
    table = node_dk_table(d, per_cell, h, lowest=_lowest_degree(d, privacy))
    got = guaranteed_epsilons(eps, method=method, eps_min=prefs.epsilon_min, mu=spec.mu)
    # Under node-PDP which nodes exist is private: the published per-node summary and the
    # group table describe the public universe (the table plus its default), not G's nodes.
    summary_req = prefs.universe if privacy == "node" else eps
    summary_got = guaranteed_epsilons(summary_req, method=method, eps_min=prefs.epsilon_min,
                                      mu=spec.mu)
    params = {**pdp_params(spec, prefs, mu=mu, key=key, q=q), "calibration": "strict",
              "guarantee": "per-node epsilon as in epsilon_summary / groups"}
    rec = Release.create(
        mechanism=mechanism_name(method, mu, d), neighbourhood=f"personalized-{privacy}",
        epsilon=None, epsilon_summary=Release.summarize_epsilons(summary_got),
        sensitivity=q.sensitivity,
        sensitivity_derivation=(
            f"L1 sensitivity {q.sensitivity:g} of the "
            f"{'top-coded' if privacy == 'edge' else 'EAD'} {d}K vector; per-entry discrete "
            "Laplace at the per-node levels of the module docstring"
            + ("; ST: amplification ln(1+p(e^mu-1))" if method == "st" else "")),
        params=params, backend=backend.name, seed=seed, source_fingerprint=G.content_hash,
        created_at=started)
    return PersonalizedRelease(table, noisy, d, privacy, method, "strict", h, spec.mu, spec.k,
                               got, eps, _groups(summary_req, summary_got), rec,
                               dk_utility(G, table), time.perf_counter() - t0)
