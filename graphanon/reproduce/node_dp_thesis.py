"""The thesis's chapter 7 as written: θ-dKε over Stable-Edge-Removal.

Algorithm 6 projects with Stable-Edge-Removal (Algorithm 5) and calibrates with Lemma 8
(``θ(2θ + 1)`` for 2K, ``2θ + 1`` for 1K). For SER those values are not bounds: every neighbour
of an added node that is visited before it and is above θ removes one extra edge, and each such
removal can start a cascade, so up to ``deg(v⁺)`` nodes change degree — the audit in
``tests/test_node_dp.py`` measures a 1K change of 23 at θ = 2 against a calibration of 5. This
release therefore claims **no privacy** (``neighbourhood = "none"``, no ε; the ε that was
nominally spent is recorded as ``epsilon_spent``). The degree ordering of Example 7
(``order="degree"``) is, in addition, not stable under node neighbours. The secure release is
:func:`graphanon.nodedp.theta_dk.theta_dk_release` (edge addition).

References
----------
``004_*.txt`` chapter 7: Definitions 28–29, Algorithm 5 (SER), Lemma 8, Algorithm 6, Example 7.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np

from .._progress import ProgressFn, log_progress
from .._validation import check_choice, check_degree_bound
from ..errors import InvalidParameterError, NodeSensitivityWarning
from ..graph import Graph
from ..nodedp.projection import ORDERS, project
from ..nodedp.theta_dk import (
    THETA_DK,
    NodeDKRelease,
    check_node_release,
    node_sensitivity,
    noise_domain,
    projection_key,
)
from ..params import Param
from ..privacy.noise import NoiseBackend, get_backend
from ..privacy.release import Release, started_at

__all__ = ["theta_dk_release_ser"]


#: The parameters of :func:`theta_dk_release_ser`: θ-dKε's with a public θ (no private
#: selection: ``select_fraction`` and ``grid`` are accepted and unused), SER and its order.
#: The job step ``release-dk-node-ser``; the table in docs/node_dp.md.
THETA_DK_SER = THETA_DK.derive(
    "theta_dk_release_ser",
    replace=(
        Param("theta", "int", "Public degree bound θ of the SER projection.", low=1,
              high=2**31 - 2),
        Param("select_fraction", "float", "Accepted and unused (θ is public).", default=0.1,
              low=0.0, high=1.0, closed="neither", cli=""),
        Param("grid", "ints", "Accepted and unused (θ is public).", default=None, low=1,
              high=2**31 - 2),
    ),
    add=(
        Param("projection", "choice", "Stable-Edge-Removal (Algorithm 5; breaks Lemma 8).",
              default="ser", choices=("ser",)),
        Param("order", "choice", "SER ordering: 'hash' is stable; 'degree' (thesis Example "
              "7) is not.", default="hash", choices=ORDERS),
    ))


def theta_dk_release_ser(
    G: Graph,
    *,
    d: int,
    epsilon: float,
    theta: int | str,
    projection: str = "ser",
    order: str = "hash",
    key: int | None = None,
    backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
    seed: int | None = None,
    progress: ProgressFn = log_progress,
    select_fraction: float = 0.1,
    grid: Any = None,
) -> NodeDKRelease:
    """θ-dKε with Stable-Edge-Removal and Lemma 8's calibration (claims no privacy).

    Parameters are those of :func:`graphanon.nodedp.theta_dk.theta_dk_release` with a fixed
    ``theta`` (the private θ selection's score sensitivity is derived for EAD only), plus
    ``order`` (``"hash"``, stable; ``"degree"``, the thesis's Example 7). ``projection`` must be
    ``"ser"``; truncation is refused (its node sensitivity has no bound in θ).
    ``select_fraction`` and ``grid`` are accepted for the secure function's signature and
    unused (θ is fixed).

    Warns
    -----
    NodeSensitivityWarning
        Always: the release carries no node-DP guarantee.
    """
    t0 = time.perf_counter()
    started = started_at()
    owner = "theta_dk_release_ser"
    if projection == "truncate":
        node_sensitivity(d, 1, "truncate")  # raises with the explanation
    if theta != "auto":  # 'auto' is refused below, with the reason
        THETA_DK_SER.validate({"d": d, "epsilon": epsilon, "theta": theta,
                               "select_fraction": select_fraction, "grid": grid, "key": key,
                               "projection": projection, "order": order})
    d, epsilon = check_node_release(G, d=d, epsilon=epsilon, owner=owner)
    check_choice(projection, "projection", owner, ("ser",))
    check_choice(order, "order", owner, ORDERS)
    if theta == "auto":
        raise InvalidParameterError(
            f"The 'theta' parameter of {owner} must be a public int: the private choice of θ "
            "(theta='auto') is derived for edge addition only.")
    theta = check_degree_bound(theta, "theta", owner, d=d)
    backend = backend or get_backend("opendp")
    key = projection_key(key, rng)
    warnings.warn(
        "projection='ser': Stable-Edge-Removal cascades break the (2θ+1)θ / (2θ+1) node "
        "sensitivity (see docs/node_dp.md); this release is calibrated with the paper's "
        "Lemma 8 value and carries NO node-DP guarantee. Use projection='ead'.",
        NodeSensitivityWarning, stacklevel=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the degree ordering's warning: said more strongly above
        proj = project(G, theta=theta, method="ser", order=order, key=key, progress=progress)
    sens = node_sensitivity(d, theta, "ser")
    noisy, table = noise_domain(proj, d=d, theta=theta, sensitivity=sens, epsilon=epsilon,
                                backend=backend, owner=owner)
    params: dict[str, Any] = {
        "d": d, "theta": theta, "projection": "ser", "order": proj.order, "key": key,
        "theta_selection": "fixed", "epsilon_release": epsilon,
        "epsilon_theta_selection": 0.0,
        "domain": "degrees 1..theta" if d == 1 else "cells 1<=i<=j<=theta",
        "guarantee": "none (SER cascades; see docs)", "epsilon_spent": epsilon,
    }
    release = Release.create(
        mechanism=f"theta-dk{d}-ser-insecure", neighbourhood="none", epsilon=None,
        sensitivity=sens,
        sensitivity_derivation="NO PRIVACY CLAIM: paper Lemma 8 / its 1K analogue — NOT "
                               "valid for SER",
        params=params, backend=backend.name, seed=seed, source_fingerprint=G.content_hash,
        created_at=started)
    return NodeDKRelease(table, noisy, d, theta, "ser", proj.preserved_edge_ratio, release,
                         time.perf_counter() - t0)
