"""The thesis's chapter 8 as written: personalized dK releases with per-entry calibrations.

The thesis argues PDP_min, LL-dK, TP-dK, ST-dK and AG-dK by parallel composition over entries
with the *per-entry* sensitivities of Lemmas 10–13, scales entries by the smallest ε of the
nodes currently in them (LL, AG), samples dK units instead of records (ST) and projects before
dropping the nodes below μ (TP). Each of these lets one node's change move entries noised at
other nodes' ε; the personalized audit (``tests/privacy/test_personalized.py``) finds losses
above the nodes' own ε, so these releases claim **no privacy** (``neighbourhood = "none"``).
The module docstring of :mod:`graphanon.dk.personalized` gives each failure and the
audited calibrations that replace them.

References
----------
``004_*.txt`` chapter 8: Definitions 30–32, Lemmas 10–17, Algorithms 7–9, §8.5.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

from .._compat import renamed_keywords
from .._validation import check_choice
from ..dk.microaggregation import Partition, mdav
from ..dk.personalized import (
    MECHANISM_NAMES,
    PERSONALIZED,
    PersonalizedQuery,
    PersonalizedRelease,
    _bounded,
    _domain_points,
    _groups,
    _uniforms,
    check_personalized,
    inclusion_probability,
    mechanism_name,
    noise_query,
    pdp_params,
    personalized_query,
)
from ..dk.postprocess import split_evenly
from ..dk.preferences import Preferences
from ..dk.release import dk_query, dk_unit_cells
from ..errors import PersonalizedCalibrationWarning
from ..graph import Graph
from ..nodedp.projection import edge_addition
from ..nodedp.theta_dk import dk_utility, node_dk_table, projection_key
from ..params import Param
from ..privacy.noise import NoiseBackend, get_backend
from ..privacy.release import Release, started_at

__all__ = ["CALIBRATIONS", "guaranteed_epsilons_thesis", "personalized_query_thesis",
           "release_personalized_thesis", "thesis_sensitivity"]

CALIBRATIONS = ("strict", "thesis")


def thesis_sensitivity(d: int, h: int, privacy: str) -> float:
    """The per-entry sensitivity of Lemmas 10–13 with the public bound ``h`` for ``deg(G)``
    and ``|E⁺| <= θ`` (*not* an L1 bound: one change moves several entries)."""
    if privacy == "edge":
        return 2.0 if d == 1 else float(2 * h + 1)
    return float(h + 1) if d == 1 else float(h * (h + 1))


def guaranteed_epsilons_thesis(eps: Any, *, method: str, eps_min: float, mu: float | None,
                               calibration: str = "thesis") -> npt.NDArray[np.float64] | None:
    """``None``: the thesis calibrations give no per-node guarantee (``"strict"`` gives
    :func:`graphanon.dk.personalized.guaranteed_epsilons`)."""
    check_choice(calibration, "calibration", "guaranteed_epsilons", CALIBRATIONS)
    if calibration == "strict":
        from ..dk.personalized import guaranteed_epsilons

        return guaranteed_epsilons(eps, method=method, eps_min=eps_min, mu=mu)
    return None


def _entry_eps(G: Graph, eps: npt.NDArray[np.float64], d: int, h: int
               ) -> npt.NDArray[np.float64]:
    """The thesis's ε_{x_i}: smallest ε of the nodes in each entry (``inf`` if empty).

    1K: nodes of (top-coded) degree g; 2K: endpoints of the edges in cell (i, j).
    """
    cells = dk_unit_cells(G, d=d, h=h)
    if d == 1:
        out = np.full(h + 1, np.inf)
        np.minimum.at(out, cells, eps)
        return out
    out = np.full(h * (h + 1) // 2, np.inf)
    u, v = G.edges()
    if u.size:
        np.minimum.at(out, cells, np.minimum(eps[u], eps[v]))
    return out


def personalized_query_thesis(
    G: Graph, eps: Any, *, d: int, privacy: str, method: str, h: int, eps_min: float,
    mu: float | None = None, k: int | None = None, calibration: str = "thesis", key: int = 0,
    sample: bool = False, backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
) -> PersonalizedQuery:
    """The thesis's query and per-entry scales (``calibration="strict"`` gives
    :func:`graphanon.dk.personalized.personalized_query`): per-entry sensitivity, the
    graph's own minimum ε, observed entries only (``inf`` scale: released as 0), unit
    sampling (ST), project-then-truncate (TP), observed-tuple groups (AG)."""
    check_choice(calibration, "calibration", "personalized_query", CALIBRATIONS)
    if calibration == "strict":
        return personalized_query(G, eps, d=d, privacy=privacy, method=method, h=h,
                                  eps_min=eps_min, mu=mu, k=k, key=key, sample=sample,
                                  backend=backend, rng=rng)
    eps = np.asarray(eps, dtype=np.float64)
    sens = thesis_sensitivity(d, h, privacy)
    if method in ("min", "ll"):
        B = _bounded(G, privacy=privacy, h=h, key=key)
        x = dk_query(B, d=d, h=h)
        if method == "min":
            e_min = float(eps.min()) if eps.size else eps_min  # the graph's minimum
            return PersonalizedQuery(x, np.where(x > 0, sens / e_min, np.inf), h, sens)
        ent = _entry_eps(B, eps, d, h)
        sc = np.where(np.isfinite(ent), sens / np.where(np.isfinite(ent), ent, 1.0), np.inf)
        return PersonalizedQuery(x, sc, h, sens)
    if method == "tp":  # project (EAD at θ), then truncate the ε < μ nodes
        assert mu is not None
        B = edge_addition(G, theta=h, key=key).graph.subgraph(eps >= mu)
        x = dk_query(B, d=d, h=h)
        return PersonalizedQuery(x, np.where(x > 0, sens / mu, np.inf), h, sens)
    if method == "st":  # split the dK entries into unit records and sample the units
        assert mu is not None
        B = _bounded(G, privacy=privacy, h=h, key=key)
        cells = dk_unit_cells(B, d=d, h=h)  # one unit per node (1K) or edge (2K)
        if d == 1:
            p = inclusion_probability(eps, mu)
        else:
            u, v = B.edges()
            p = inclusion_probability(np.minimum(eps[u], eps[v]), mu)
        kept = _uniforms(backend, rng, cells.size) <= p if sample else np.ones(cells.size, bool)
        x = np.bincount(cells[kept], minlength=h + 1 if d == 1 else h * (h + 1) // 2
                        ).astype(np.int64)
        return PersonalizedQuery(x, np.where(x > 0, sens / mu, np.inf), h, sens)
    # AG-dK: MDAV over the observed entries by (degree tuple, ε of the entry); a group's ε is
    # the smallest entry ε in it
    assert k is not None
    B = _bounded(G, privacy=privacy, h=h, key=key)
    x = dk_query(B, d=d, h=h)
    ent = _entry_eps(B, eps, d, h)
    obs = np.flatnonzero(x)
    labels = np.full(x.size, -1, dtype=np.int64)
    n_groups = 0
    if obs.size:
        pts = np.column_stack([_domain_points(d, h)[obs].astype(np.float64), ent[obs] * h])
        part = mdav(pts, k=min(k, obs.size))
        labels[obs] = part.labels
        n_groups = part.n_clusters
    sums = np.bincount(labels[obs], weights=x[obs], minlength=n_groups).astype(np.int64)
    g_eps = np.full(n_groups, np.inf)
    np.minimum.at(g_eps, labels[obs], ent[obs])
    return PersonalizedQuery(sums, sens / g_eps, h, sens,
                             Partition(labels, n_groups, "mdav-observed", {"k": k}),
                             info={"observed_labels": labels})


#: The parameters of :func:`release_personalized_thesis`: those of
#: :func:`~graphanon.dk.personalized.release_personalized` and the calibration. The job step
#: ``release-personalized-thesis``; the table in docs/personalized.md.
PERSONALIZED_THESIS = PERSONALIZED.derive("release_personalized_thesis", add=(
    Param("calibration", "choice", "Chapter 8 as written (claims no privacy).",
          default="thesis", choices=("thesis",)),
))


@renamed_keywords({"privacy": "neighbourhood"}, removed_in="0.3.0")
def release_personalized_thesis(
    G: Graph, prefs: Preferences, *, d: int, neighbourhood: str, method: str,
    theta: int | None = None, mu: float | str | None = None, k: int | None = None,
    calibration: str = "thesis", key: int | None = None, nodes: Any = None,
    backend: NoiseBackend | None = None, rng: np.random.Generator | None = None,
    seed: int | None = None,
) -> PersonalizedRelease:
    """Chapter 8's release as written (claims no privacy); the parameters are those of
    :func:`graphanon.dk.personalized.release_personalized`.

    Warns
    -----
    PersonalizedCalibrationWarning
        Always.
    """
    privacy = neighbourhood
    PERSONALIZED_THESIS.validate({"d": d, "neighbourhood": neighbourhood, "method": method,
                                  "theta": theta, "mu": mu, "k": k, "calibration": calibration,
                                  "key": key})
    t0 = time.perf_counter()
    started = started_at()
    check_choice(calibration, "calibration", "release_personalized_thesis", ("thesis",))
    spec = check_personalized(G, prefs, owner="release_personalized", d=d, privacy=privacy,
                              method=method, theta=theta, mu=mu, k=k, nodes=nodes,
                              claims_privacy=False)
    G, h = spec.G, spec.h
    backend = backend or get_backend("opendp")
    key = projection_key(key, rng)
    warnings.warn(
        f"calibration='thesis': {MECHANISM_NAMES[method]} as in chapter 8 (per-entry "
        "sensitivity, observed entries, data-dependent per-entry ε / unit sampling / "
        "project-then-truncate) fails the personalized audit; this release carries NO "
        "privacy guarantee. Use calibration='strict'.", PersonalizedCalibrationWarning,
        stacklevel=2)
    eps = prefs.for_graph(G)
    q = personalized_query_thesis(G, eps, d=d, privacy=privacy, method=method, h=h,
                                  eps_min=prefs.epsilon_min, mu=spec.mu, k=spec.k, key=key,
                                  sample=True, backend=backend, rng=rng)
    noisy = noise_query(q, backend)
    post_rng = rng if rng is not None else np.random.default_rng()
    per_cell = noisy
    if q.partition is not None:  # split each group over its observed cells
        labels = q.info["observed_labels"]
        obs = labels >= 0
        per_cell = np.zeros(labels.size, dtype=np.int64)
        if obs.any():
            sub = Partition(labels[obs], q.partition.n_clusters, "mdav", {})
            per_cell[obs] = split_evenly(noisy, sub, post_rng)
    table = node_dk_table(d, per_cell, h, lowest=0)  # edge-PDP: degree 0 is in the domain
    summary_req = prefs.universe if privacy == "node" else eps
    params = {**pdp_params(spec, prefs, mu=mu, key=key, q=q), "calibration": "thesis",
              "guarantee": "NONE: thesis calibration fails the personalized audit"}
    rec = Release.create(
        mechanism=mechanism_name(method, mu, d) + "-thesis-insecure", neighbourhood="none",
        epsilon=None, epsilon_summary=None, sensitivity=q.sensitivity,
        sensitivity_derivation=(
            f"NO PRIVACY CLAIM: thesis Lemmas 10-13 per-entry sensitivity {q.sensitivity:g} "
            "with parallel composition over entries (fails the personalized audit)"),
        params=params, backend=backend.name, seed=seed, source_fingerprint=G.content_hash,
        created_at=started)
    return PersonalizedRelease(table, noisy, d, privacy, method, "thesis", h, spec.mu, spec.k,
                               None, eps, _groups(summary_req, None), rec,
                               dk_utility(G, table), time.perf_counter() - t0)
