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

Every output is post-processed into a consistent, non-negative, integer distribution
(:func:`postprocess_1k`, :func:`postprocess_2k`), which costs no privacy.

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
noise by the number of clusters for nothing; it is kept as ``sensitivity_rule="thesis"``
(warns).

The partition must not depend on the private graph: clustering the *observed* tuples (as the
thesis does) makes the set of released clusters — and which cells exist — a function of the
data. We cluster the public domain. The thesis' behaviour is available as
``domain="observed"``, an explicitly insecure reproduction mode whose Release makes no
privacy claim (``neighbourhood = "none"``).

References
----------
``004_*.txt`` chapter 6: Definition 16 (edge neighbours), Lemmas 3–5, sections 6.4–6.6;
chapter 8 Lemma 12 (per-entry 1K sensitivity).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._validation import check_choice, check_epsilon, check_int
from ..errors import InvalidParameterError
from ..graph import Graph
from ..metrics import euclidean_distance, ks_distance, l1_distance
from ..privacy.noise import NoiseBackend, get_backend
from ..privacy.release import Release
from .extract import DKDistribution, cell_index, domain_cells
from .microaggregation import Partition, mdav, mpdc, sae

__all__ = [
    "DKRelease",
    "DegreeBoundWarning",
    "InsecureReproductionWarning",
    "LooseSensitivityWarning",
    "dk_query",
    "domain_partition",
    "postprocess_1k",
    "postprocess_2k",
    "release_dk",
    "sensitivity",
    "true_distribution",
]

MICROAGGREGATIONS = ("none", "mdav", "mpdc")
PRIVACY = ("edge",)  # "node" is a later issue; sensitivity() dispatches on it
MAX_DOMAIN_CELLS = 20_000_000
MAX_MDAV_CELLS = 20_000


class DegreeBoundWarning(UserWarning):
    """No public degree bound was given; ``n − 1`` (public under edge-DP) is used."""


class LooseSensitivityWarning(UserWarning):
    """The thesis' Lemma 5 calibration was requested: valid but needlessly noisy."""


class InsecureReproductionWarning(UserWarning):
    """``domain="observed"``: the thesis' reproduction mode, which is not differentially private."""


@dataclass(frozen=True)
class DKRelease:
    """A released dK distribution.

    Attributes
    ----------
    distribution
        The post-processed release: non-negative integer counts; for 2K every class has an
        integer number of nodes. Rows with zero count are dropped.
    noisy
        The raw noisy answers (one per domain cell, or per cluster).
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

    @property
    def n_clusters(self) -> int:
        return self.partition.n_clusters if self.partition is not None else self.noisy.size

    def to_dict(self) -> dict[str, Any]:
        """The report: Release record, cluster count and the evaluation block."""
        return {
            "release": self.release.to_dict(),
            "d": self.distribution.d,
            "max_degree": self.max_degree,
            "n_clusters": self.n_clusters,
            "n_released_tuples": self.distribution.n_tuples,
            "released_total": self.distribution.total,
            **{k: v for k, v in self.evaluation.items()},
            "evaluation_note": (
                "l1 / ks / euclidean / sae compare against the private input; they are for "
                "evaluation and are not covered by the differential-privacy guarantee."
            ),
            "seconds": self.seconds,
        }


# ----------------------------------------------------------------------------- queries
def sensitivity(d: int, h: int, *, privacy: str = "edge", n_clusters: int | None = None,
                rule: str = "tight") -> tuple[float, str]:
    """L1 sensitivity of the (top-coded, possibly microaggregated) dK query and its derivation.

    Parameters
    ----------
    d
        1 or 2.
    h
        Public degree bound (``>= 1``).
    privacy
        Neighbouring relation; only ``"edge"`` is implemented.
    n_clusters
        ``z`` (used only by ``rule="thesis"``).
    rule
        ``"tight"`` (default, the correct value) or ``"thesis"`` (Lemma 3 / Lemma 5:
        ``4h + 1``, times ``z`` with microaggregation).

    Returns
    -------
    (float, str)
        The sensitivity and a one-line derivation for the Release record.
    """
    check_choice(privacy, "privacy", "sensitivity", PRIVACY)
    check_choice(rule, "rule", "sensitivity", ("tight", "thesis"))
    if d == 1:
        return 4.0, ("1K, edge-DP, degrees top-coded at h: each endpoint moves one node "
                     "between two bins, L1 <= 2 + 2 = 4")
    if rule == "thesis":
        z = 1 if n_clusters is None else n_clusters
        return float((4 * h + 1) * z), (
            f"thesis Lemma 3/5: (4h+1)*z = (4*{h}+1)*{z} (loose; tight value is 4h-3)")
    return float(4 * h - 3), (
        f"2K, edge-DP, degrees top-coded at h={h}: the a<=h-1 other edges of each endpoint "
        "move cell (L1 2 each) plus the new edge: 2(h-1)+2(h-1)+1 = 4h-3; summing cells of a "
        "data-independent partition cannot increase L1")


def dk_query(G: Graph, *, d: int, h: int) -> npt.NDArray[np.int64]:
    """The exact vector that the mechanisms noise: top-coded 1K over ``0..h`` or 2K over the
    ``h(h+1)/2`` domain cells (order of :func:`~graphanon.dk.extract.domain_cells`)."""
    deg = np.minimum(G.degrees, h)
    if d == 1:
        return np.bincount(deg, minlength=h + 1).astype(np.int64)
    u, v = G.edges()
    a, b = deg[u], deg[v]
    idx = cell_index(np.minimum(a, b), np.maximum(a, b), h)
    return np.bincount(idx, minlength=h * (h + 1) // 2).astype(np.int64)


def domain_partition(h: int, *, method: str, k: int | None = None, tau: int | None = None
                     ) -> Partition:
    """A data-independent partition of the 2K domain cells.

    ``"mdav"``: MDAV over the ``h(h+1)/2`` cells (clusters of ``k`` cells); ``"mpdc"``: the
    tiling by boxes of side ``tau`` anchored at ``(1, 1)`` (each box's cells are within ``tau``
    in both coordinates, the MPDC constraint; on a full lattice this is the minimum cover).
    """
    t0 = time.perf_counter()
    cells = domain_cells(h)
    if method == "mdav":
        if cells.shape[0] > MAX_MDAV_CELLS:
            raise InvalidParameterError(
                f"MDAV over the public domain needs h(h+1)/2 <= {MAX_MDAV_CELLS} cells; "
                f"h = {h} gives {cells.shape[0]}. Use --microaggregation mpdc or a tighter "
                "--max-degree."
            )
        assert k is not None
        return mdav(cells, k=min(k, cells.shape[0]))
    assert tau is not None
    side = tau + 1
    bi, bj = (cells[:, 0] - 1) // side, (cells[:, 1] - 1) // side
    nb = (h + side - 1) // side
    _, labels = np.unique(bi * nb + bj, return_inverse=True)
    labels = labels.astype(np.int64)
    return Partition(labels, int(labels.max()) + 1, "mpdc", {"tau": tau, "domain": "grid"},
                     time.perf_counter() - t0)


# ----------------------------------------------------------------------------- post-processing
def postprocess_1k(values: Any, *, n_nodes: int | None = None) -> DKDistribution:
    """Noisy 1K over ``0..h`` → non-negative integers with an even degree sum.

    Negative bins are clipped to 0. An odd degree sum is fixed by moving one node from the
    largest odd-degree bin to the bin below. With ``n_nodes`` (public under edge-DP), the
    degree-0 bin absorbs the difference to ``n`` when it can.
    """
    x = np.clip(np.rint(np.asarray(values, dtype=np.float64)), 0, None).astype(np.int64)
    deg = np.arange(x.size)
    if int((deg * x).sum()) % 2:
        odd = np.flatnonzero((deg % 2 == 1) & (x > 0))
        g = int(odd[np.argmax(x[odd])])
        x[g] -= 1
        x[g - 1] += 1
    if n_nodes is not None and x.size:
        x[0] = max(0, x[0] + n_nodes - int(x.sum()))
    keep = np.flatnonzero(x)
    return DKDistribution("degree", keep[:, None], x[keep])


def postprocess_2k(values: Any, h: int) -> DKDistribution:
    """Noisy 2K over the domain cells → a non-negative integer JDD with integer class sizes.

    Clip negatives to 0 and round; then, for ``k = h, h − 1, ..., 2``, make the stub count
    ``s_k = Σ_{l≠k} m(k, l) + 2 m(k, k)`` divisible by ``k`` by removing ``r = s_k mod k``
    edges from the largest cells ``(l, k)``, ``l < k`` (or adding ``k − r`` there when that is
    cheaper or nothing can be removed). Changes only touch classes ``l < k``, which are fixed
    later; class 1 is always consistent.
    """
    x = np.clip(np.rint(np.asarray(values, dtype=np.float64)), 0, None).astype(np.int64)
    cells = domain_cells(h)
    M = np.zeros((h + 1, h + 1), dtype=np.int64)
    M[cells[:, 0], cells[:, 1]] = x
    M = M + np.triu(M, 1).T  # symmetric; diagonal = m(k, k)
    for k in range(h, 1, -1):
        s = int(M[k].sum() + M[k, k])
        r = s % k
        if r == 0:
            continue
        row = M[k, 1:k]  # view: cells (l, k), l < k
        removable = int(row.sum())
        if (r <= k - r and removable >= r) or (removable >= r and k - r > removable):
            for _ in range(r):
                j = int(np.argmax(row))
                row[j] -= 1
        else:
            add = k - r
            weights = row.astype(np.float64)
            if weights.sum() == 0:
                weights = np.zeros(k - 1)
                weights[0] = 1.0
            for _ in range(add):
                j = int(np.argmax(weights))
                row[j] += 1
                weights[j] -= 1.0  # spread over the heaviest cells
        M[1:k, k] = row
    out = M[cells[:, 0], cells[:, 1]]
    keep = np.flatnonzero(out)
    return DKDistribution("joint_degree", cells[keep], out[keep])


def split_evenly(sums: npt.NDArray[np.int64], part: Partition, rng: np.random.Generator
                  ) -> npt.NDArray[np.int64]:
    """Spread each (clipped) cluster sum over its cells: ``floor(S/|C|)`` each, the remainder
    to random distinct cells (post-processing)."""
    s = np.clip(sums, 0, None)
    sizes = part.sizes()
    base = s // sizes
    rem = s - base * sizes
    out = base[part.labels].copy()
    # random rank of each cell inside its cluster; cells with rank < remainder get +1
    order = np.lexsort((rng.random(part.labels.size), part.labels))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size) - np.repeat(starts, sizes)
    out += (rank < rem[part.labels]).astype(np.int64)
    return out


# ----------------------------------------------------------------------------- the release
def release_dk(
    G: Graph,
    *,
    d: int,
    epsilon: float,
    max_degree: int | None,
    microaggregation: str = "none",
    k: int | None = None,
    tau: int | None = None,
    privacy: str = "edge",
    domain: str = "public",
    sensitivity_rule: str = "tight",
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
        Public degree bound ``h``. ``None`` uses ``n − 1`` (the node count is public under
        edge-DP) with a :class:`DegreeBoundWarning`. Degrees above ``h`` are top-coded to
        ``h`` (the guarantee holds for every graph; never the observed maximum).
    microaggregation
        ``"none"`` (plain Laplace baseline), ``"mdav"`` (needs ``k``) or ``"mpdc"`` (needs
        ``tau``); 2K only.
    k, tau
        MDAV cluster size (``>= 1``) / MPDC box side (``>= 0``).
    privacy
        Neighbouring relation; ``"edge"`` (``"node"`` is not implemented yet).
    domain
        ``"public"`` (default): every cell of the public domain is noised and clusters are
        formed over the domain. ``"observed"``: the thesis' reproduction — noise and clusters
        over the tuples present in ``G`` only; **not differentially private** (warns; the
        Release claims no privacy).
    sensitivity_rule
        ``"tight"`` (default, ``4h − 3`` / 4) or ``"thesis"`` (Lemma 5's ``(4h + 1)·z``,
        warns).
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
        Bad parameters, or a domain too large for a dense release.

    References
    ----------
    ``004_*.txt`` chapter 6, Lemmas 3–5, sections 6.4 (MDAV-dK, MPDC-dK), 6.5.1.

    Notes
    -----
    Guarantee: ε-DP with respect to adding/removing one edge (Definition 16), for every pair
    of graphs — degrees are top-coded at the public ``h``. Proof sketch: the query is a
    fixed linear map of the top-coded dK vector with L1 sensitivity Δ (module docstring);
    discrete Laplace noise of scale calibrated by OpenDP's privacy map for (Δ, ε) makes the
    noisy vector ε-DP; post-processing (clipping, splitting, consistency repair, graph
    generation) preserves it.
    """
    owner = "release_dk"
    t0 = time.perf_counter()
    d = check_int(d, "d", owner, low=1, high=2)
    epsilon = check_epsilon(epsilon, "epsilon", owner)
    check_choice(privacy, "privacy", owner, PRIVACY)
    check_choice(microaggregation, "microaggregation", owner, MICROAGGREGATIONS)
    check_choice(domain, "domain", owner, ("public", "observed"))
    check_choice(sensitivity_rule, "sensitivity_rule", owner, ("tight", "thesis"))
    if not isinstance(G, Graph):
        raise InvalidParameterError(f"{owner} needs a graphanon Graph. Got {type(G).__name__}.")
    n = G.n_nodes
    if max_degree is None:
        h = max(n - 1, 1)
        warnings.warn(
            f"No public degree bound given: using h = n - 1 = {h}. The noise grows with h; "
            "pass a public bound (--max-degree).", DegreeBoundWarning, stacklevel=2)
    else:
        h = check_int(max_degree, "max_degree", owner, low=1)
    if d == 1 and microaggregation != "none":
        raise InvalidParameterError(
            "The 'microaggregation' parameter of release_dk must be 'none' for d = 1 "
            "(dK-microaggregation is defined on 2K).")
    if microaggregation == "mdav":
        if k is None:
            raise InvalidParameterError("The 'k' parameter of release_dk is required for mdav.")
        k = check_int(k, "k", owner, low=1)
    if microaggregation == "mpdc":
        if tau is None:
            raise InvalidParameterError(
                "The 'tau' parameter of release_dk is required for mpdc.")
        tau = check_int(tau, "tau", owner, low=0)
    if d == 2 and domain == "public" and h * (h + 1) // 2 > MAX_DOMAIN_CELLS:
        raise InvalidParameterError(
            f"The 2K domain for h = {h} has {h * (h + 1) // 2} cells (> {MAX_DOMAIN_CELLS}); "
            "pass a tighter public --max-degree.")
    if backend is None:
        backend = get_backend("opendp")
    if rng is None:
        rng = np.random.default_rng()
    if domain == "observed":
        warnings.warn(
            "domain='observed' reproduces the thesis: noise and clusters only over the tuples "
            "present in the graph. This leaks which degree tuples exist and is NOT "
            "differentially private.", InsecureReproductionWarning, stacklevel=2)

    x = dk_query(G, d=d, h=h)
    part: Partition | None = None
    observed: npt.NDArray[np.int64] | None = None
    if d == 2 and domain == "observed":
        observed = np.flatnonzero(x)
        points: npt.NDArray[np.int64] | None = domain_cells(h)[observed]
    else:
        points = domain_cells(h) if d == 2 else None
    if microaggregation != "none":
        assert points is not None
        if domain == "observed":
            if microaggregation == "mdav":
                assert k is not None
                part = mdav(points, k=min(k, points.shape[0]))
            else:
                assert tau is not None
                part = mpdc(points, tau=tau)
        else:
            part = domain_partition(h, method=microaggregation, k=k, tau=tau)
    sens, derivation = sensitivity(d, h, privacy=privacy, rule=sensitivity_rule,
                                   n_clusters=None if part is None else part.n_clusters)
    if sensitivity_rule == "thesis":
        warnings.warn(
            f"sensitivity_rule='thesis' calibrates to {sens:g} instead of the tight "
            f"{sensitivity(d, h)[0]:g}: valid, but adds needless noise.",
            LooseSensitivityWarning, stacklevel=2)

    answers = x if observed is None else x[observed]
    if part is not None:
        answers = np.bincount(part.labels, weights=answers,
                              minlength=part.n_clusters).astype(np.int64)
    noisy = np.asarray(backend.discrete_laplace(answers, sensitivity=sens, epsilon=epsilon),
                       dtype=np.int64)
    per_point = split_evenly(noisy, part, rng) if part is not None else noisy
    if d == 1:
        dist = postprocess_1k(per_point, n_nodes=n)
    else:
        full = per_point
        if observed is not None:
            full = np.zeros(x.size, dtype=np.int64)
            full[observed] = per_point
        dist = postprocess_2k(full, h)

    mech = f"dk{d}-laplace" if part is None else f"dk2-{part.method}"
    if domain == "observed":
        mech += "-observed-insecure"
    params: dict[str, Any] = {"d": d, "max_degree": h, "microaggregation": microaggregation,
                              "domain": domain, "sensitivity_rule": sensitivity_rule,
                              "top_coding": f"degrees >= {h} counted as {h}",
                              "n_nodes": n}
    if k is not None and microaggregation == "mdav":
        params["k"] = k
    if tau is not None and microaggregation == "mpdc":
        params["tau"] = tau
    if part is not None:
        params["n_clusters"] = part.n_clusters
    secure_claim = domain == "public"
    seconds = time.perf_counter() - t0
    rec = Release.create(
        mechanism=mech,
        neighbourhood=privacy if secure_claim else "none",
        epsilon=epsilon if secure_claim else None,
        sensitivity=sens,
        sensitivity_derivation=derivation if secure_claim else
        "NO PRIVACY CLAIM: observed-domain reproduction; nominal " + derivation,
        params=params,
        backend=getattr(backend, "name", type(backend).__name__),
        seed=seed,
        source_fingerprint=G.fingerprint,
        seconds=seconds,
    )
    truth = x.astype(np.float64)
    released = (dist.to_dense(h) if d == 2 else _dense1(dist, h)).astype(np.float64)
    evaluation: dict[str, Any] = {
        "l1": l1_distance(truth, released),
        "ks": ks_distance(truth, released),
        "euclidean": euclidean_distance(truth, released),
    }
    if part is not None and points is not None:
        evaluation["sae"] = sae(points, part)
        evaluation["sae_over"] = ("observed 2K tuples (thesis Table 6.1/6.2)"
                                  if domain == "observed" else "public domain cells")
    return DKRelease(dist, noisy, part, mech, rec.neighbourhood, rec.epsilon, sens, h, rec,
                     evaluation, seconds)


def _dense1(dist: DKDistribution, h: int) -> npt.NDArray[np.int64]:
    out = np.zeros(max(h, dist.max_degree) + 1, dtype=np.int64)
    out[dist.degrees[:, 0]] = dist.counts
    return out


def true_distribution(G: Graph, d: int, h: int) -> npt.NDArray[np.float64]:
    """The exact top-coded dK vector (for evaluation only)."""
    return dk_query(G, d=d, h=h).astype(np.float64)

