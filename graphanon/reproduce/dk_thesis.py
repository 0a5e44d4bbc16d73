"""The thesis's chapter 6 as written: dK releases over the observed domain, Lemma 5's calibration.

Two variants of :func:`graphanon.dk.release.release_dk`, kept to reproduce the thesis's tables
and to show why the secure release differs:

* ``domain="observed"`` — noise, and the MDAV-dK / MPDC-dK clusters, only over the degree
  tuples present in the graph. Which tuples exist is then a function of the private edges
  (an added edge can create a tuple and with it a noisy answer), so the release is **not
  differentially private**: its record says ``neighbourhood = "none"`` and carries no ε.
* ``sensitivity_rule="thesis"`` — Lemma 3's ``4h + 1`` for 2K, times the number of clusters
  ``z`` with microaggregation (Lemma 5). Valid (it bounds the tight ``4h − 3``), but the noise
  grows with ``z`` for nothing: summing the cells of a data-independent partition cannot raise
  the L1 sensitivity. The release keeps its ε-edge-DP claim.

Both warn (:class:`~graphanon.errors.InsecureReproductionWarning`,
:class:`~graphanon.errors.LooseSensitivityWarning`). They are built from the same pieces as the
secure release (argument checks, the dK query, post-processing, evaluation).

References
----------
``004_*.txt`` chapter 6: Lemmas 3–5, sections 6.4 (MDAV-dK, MPDC-dK), Tables 6.1–6.2.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

from .._compat import renamed_keywords
from .._validation import check_choice
from ..dk.extract import domain_cells
from ..dk.microaggregation import Partition, aggregate, domain_partition, mdav, mpdc
from ..dk.postprocess import split_evenly
from ..dk.release import (
    RELEASE_DK,
    DKRelease,
    check_release_args,
    dk_query,
    evaluate_release,
    postprocess,
    release_params,
    sensitivity,
)
from ..errors import InsecureReproductionWarning, LooseSensitivityWarning
from ..graph import Graph
from ..params import Param
from ..privacy.noise import NoiseBackend, get_backend
from ..privacy.release import Release, started_at

__all__ = ["release_dk_thesis", "thesis_sensitivity"]


def thesis_sensitivity(d: int, h: int, *, privacy: str = "edge", n_clusters: int | None = None,
                       rule: str = "thesis") -> tuple[float, str]:
    """Lemma 3 / Lemma 5: ``(4h + 1)·z`` for 2K (``z`` clusters, 1 without), 4 for 1K.

    ``rule="tight"`` gives :func:`graphanon.dk.release.sensitivity`.
    """
    check_choice(rule, "rule", "thesis_sensitivity", ("tight", "thesis"))
    if rule == "tight" or d == 1:
        return sensitivity(d, h, privacy=privacy)
    z = 1 if n_clusters is None else n_clusters
    return float((4 * h + 1) * z), (
        f"thesis Lemma 3/5: (4h+1)*z = (4*{h}+1)*{z} (loose; tight value is 4h-3)")


#: The parameters of :func:`release_dk_thesis`: :func:`~graphanon.dk.release.release_dk`'s
#: (dense form only; no private bound, total or sequence) and the thesis's two choices. The
#: job step ``release-dk-thesis``; the table in docs/dk.md.
RELEASE_DK_THESIS = RELEASE_DK.derive(
    "release_dk_thesis",
    drop=("edge_total", "graphical", "degree_sequence", "bound_fraction", "bound_quantile"),
    replace=(
        Param("max_degree", "int", "Public degree bound h (degrees above it are top-coded); "
              "without it, the node set makes h = |nodes| - 1.", default=None, low=1,
              high=2**31 - 2),
        Param("form", "choice", "Only the dense form exists here.", default="dense",
              choices=("dense", "auto")),
    ),
    add=(
        Param("domain", "choice", "observed: noise only on the observed tuples (the thesis; "
              "INSECURE, no privacy claim); public: every cell of the public domain.",
              default="observed", choices=("public", "observed")),
        Param("sensitivity_rule", "choice", "thesis: Lemma 5's loose (4h+1)·z; tight: 4h−3.",
              default="tight", choices=("tight", "thesis")),
    ))


@renamed_keywords({"privacy": "neighbourhood"}, removed_in="0.3.0")
def release_dk_thesis(
    G: Graph,
    *,
    d: int,
    epsilon: float,
    max_degree: int | None = None,
    microaggregation: str = "none",
    k: int | None = None,
    tau: int | None = None,
    neighbourhood: str = "edge",
    domain: str = "observed",
    sensitivity_rule: str = "tight",
    threshold: int | None = None,
    form: str = "dense",
    nodes: Any = None,
    backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
    seed: int | None = None,
) -> DKRelease:
    """The thesis's dK release: ``domain`` ``"observed"`` (insecure) or ``"public"``, and
    ``sensitivity_rule`` ``"thesis"`` (loose) or ``"tight"``.

    The other parameters are those of :func:`graphanon.dk.release.release_dk`; only the dense
    form exists here.

    Warns
    -----
    InsecureReproductionWarning
        ``domain="observed"``: the release makes no privacy claim.
    LooseSensitivityWarning
        ``sensitivity_rule="thesis"``.
    """
    owner = "release_dk_thesis"
    t0 = time.perf_counter()
    started = started_at()
    RELEASE_DK_THESIS.validate({
        "d": d, "epsilon": epsilon, "neighbourhood": neighbourhood, "max_degree": max_degree,
        "microaggregation": microaggregation, "k": k, "tau": tau, "threshold": threshold,
        "form": form, "domain": domain, "sensitivity_rule": sensitivity_rule})
    spec = check_release_args(G, owner=owner, d=d, epsilon=epsilon, max_degree=max_degree,
                              microaggregation=microaggregation, k=k, tau=tau,
                              privacy=neighbourhood, threshold=threshold, form="dense",
                              nodes=nodes)
    backend = backend or get_backend("opendp")
    rng = rng if rng is not None else np.random.default_rng()
    observed_domain = domain == "observed"
    if observed_domain:
        warnings.warn(
            "domain='observed' reproduces the thesis: noise and clusters only over the tuples "
            "present in the graph. This leaks which degree tuples exist and is NOT "
            "differentially private.", InsecureReproductionWarning, stacklevel=2)
    x = dk_query(spec.G, d=spec.d, h=spec.h)
    x[:spec.lo] = 0
    observed: npt.NDArray[np.int64] | None = None
    points: npt.NDArray[np.int64] | None = domain_cells(spec.h) if spec.d == 2 else None
    if spec.d == 2 and observed_domain:
        observed = np.flatnonzero(x)
        points = domain_cells(spec.h)[observed]
    part: Partition | None = None
    if spec.microaggregation != "none":
        assert points is not None
        if not observed_domain:
            part = domain_partition(spec.h, method=spec.microaggregation, k=spec.k,
                                    tau=spec.tau)
        elif spec.microaggregation == "mdav":
            assert spec.k is not None
            part = mdav(points, k=min(spec.k, points.shape[0]))
        else:
            assert spec.tau is not None
            part = mpdc(points, tau=spec.tau)
    sens, derivation = thesis_sensitivity(
        spec.d, spec.h, rule=sensitivity_rule,
        n_clusters=None if part is None else part.n_clusters)
    if sensitivity_rule == "thesis":
        warnings.warn(
            f"sensitivity_rule='thesis' calibrates to {sens:g} instead of the tight "
            f"{sensitivity(spec.d, spec.h)[0]:g}: valid, but adds needless noise.",
            LooseSensitivityWarning, stacklevel=2)
    answers = x[spec.lo:] if observed is None else x[observed]
    if part is not None:
        answers = aggregate(answers, part)
    noisy = np.asarray(backend.discrete_laplace(answers, sensitivity=sens,
                                                epsilon=spec.epsilon), dtype=np.int64)
    if spec.threshold is not None:
        noisy = np.where(noisy >= spec.threshold, noisy, 0)
    per_point = split_evenly(noisy, part, rng) if part is not None else noisy
    if observed is not None:
        full = np.zeros(x.size, dtype=np.int64)
        full[observed] = per_point
        per_point = full
    dist = postprocess(spec, per_point)
    mech = f"dk{spec.d}-laplace" if part is None else f"dk2-{spec.microaggregation}"
    if observed_domain:
        mech += "-observed-insecure"
    params = {**release_params(spec, part), "domain": domain,
              "sensitivity_rule": sensitivity_rule}
    if part is not None and observed_domain:
        params["partition"] = "over the observed tuples (thesis; data-dependent)"
    rec = Release.create(
        mechanism=mech,
        neighbourhood="none" if observed_domain else neighbourhood,
        epsilon=None if observed_domain else spec.epsilon,
        sensitivity=sens,
        sensitivity_derivation=("NO PRIVACY CLAIM: observed-domain reproduction; nominal "
                                + derivation) if observed_domain else derivation,
        params=params, backend=getattr(backend, "name", type(backend).__name__), seed=seed,
        source_fingerprint=spec.G.content_hash, created_at=started)
    evaluation = evaluate_release(
        x, dist, spec.h, part, sae_points=points,
        sae_over=("observed 2K tuples (thesis Table 6.1/6.2)" if observed_domain
                  else "public domain cells"))
    return DKRelease(dist, noisy, part, mech, rec.neighbourhood, rec.epsilon, sens, spec.h,
                     rec, evaluation, time.perf_counter() - t0)
