"""Node-DP releases of 1K / 2K distributions through θ-bounded projections (θ-dKε).

``theta_dk_release`` is Algorithm 6 of ``004_*.txt`` (project, extract, perturb) with the
noise calibrated to the node sensitivity of ``f ∘ P`` for the *projection actually used*.

Node set (over which nodes a node-level release ranges)
-------------------------------------------------------
An edge list cannot hold an isolated node, so removing a person with all their edges also
removes from the file every neighbour whose only edge was theirs (a 100-leaf star and the
empty file are node neighbours). The releases of this module therefore range over the
**non-isolated nodes of the projection**: the 1K vector counts projected degrees ``1..θ`` (no
degree-0 bin), the 2K vector cells ``1 <= i <= j <= θ``; neither depends on isolated nodes, so
one release is correct for every input format (edge lists, GraphML with isolated nodes, a Neo4j
label). The relation is: ``G' = G + v⁺`` where ``v⁺`` is one node with all its edges, and the
neighbours of ``v⁺`` may be new to the file (they had no other edge).

Calibrations (neighbouring relation: add/remove one node with all its edges)
--------------------------------------------------------------------------
Let ``P`` be edge addition (EAD) in a stable keyed-hash edge order (``graphanon.nodedp.projection``)
and ``G' = G + v⁺``. Embed both in the node set of ``G'``: ``H`` is ``G`` plus, as isolated
nodes, the neighbours of ``v⁺`` that only ``G'`` holds, and ``H' = G'``; the EAD order depends
on ids only, so ``P(H)`` is ``P(G)`` plus isolated nodes and ``H' = H + v⁺`` in the classical
relation where isolated nodes exist. Every vector below ignores degree-0 nodes, so its change
between ``G`` and ``G'`` equals its change between ``H`` and ``H'``, bounded as follows.
The edge sequence of ``H'`` is that of ``H`` with the edges of ``v⁺``
inserted. At most ``θ`` of them are kept. Each kept edge ``(v⁺, u)`` starts one alternating
*cascade*: if ``u`` was full it now rejects a later edge ``(u, w)``; ``w`` then has a free slot
and may accept a later edge ``(w, x)`` it used to reject; and so on. Interior nodes of a cascade
end with degree ``θ`` in both projections; only the last node ``z`` changes degree, by ±1.

* **1K** (histogram over projected degrees ``1..θ``): ``v⁺`` adds at most one count and each
  of the ``<= θ`` cascade ends moves one node by one bin (at most two cells; one where it
  enters or leaves degree 0): ``Δ₁ = 2θ + 1`` (Day et al., §4, whose bin 0 this release drops).
* **2K** (counts over cells ``1 <= i <= j <= θ``): per cascade, the edge ``(v⁺, u)`` (1), the
  net of the interior flips, which all sit in cell ``(θ, θ)`` and alternate −/+ (<= 1), the
  last flipped edge at ``z`` (1) and the ``<= θ − 1`` other edges of ``z`` that change cell
  (2 each): ``<= 2θ + 1``; over ``<= θ`` cascades ``Δ₂ = θ(2θ + 1)``, Lemma 8's value — but
  it holds for EAD, not for SER (below).
* **Non-isolated count** ``#{u : deg_P(u) >= 1}`` (RPS's private node count): ``v⁺`` (+1) and
  each cascade's end crossing between degree 0 and 1 (±1): ``Δ = θ + 1``.

With a degree-0 bin the 1K vector would move by ``n`` between a star and the empty file.

SER (Algorithm 5) with a stable hash ordering does **not** satisfy these bounds: every
neighbour of ``v⁺`` that is visited before ``v⁺`` and is above ``θ`` removes one extra edge and
later loses the edge to ``v⁺`` too, so up to ``deg(v⁺)`` nodes change degree (the audit in
``tests/test_node_dp.py`` finds 1K changes of ``2·deg(v⁺) + 1`` > ``2θ + 1``). SER releases are
therefore a paper reproduction (:mod:`graphanon.reproduce.node_dp_thesis`) that warns with
:class:`~graphanon.errors.NodeSensitivityWarning` and claims no privacy. Truncation has no bound in
``θ`` at all and is refused.

θ selection
-----------
``theta="auto"`` picks θ from a public grid with the exponential mechanism (Gumbel-max),
spending ``select_fraction · ε``; the release gets the rest (sequential composition). The
score is ``s(θ) = 2·|E^θ(G)| − N(θ)`` with ``N(θ)`` the expected L1 noise of the release at θ
(domain size × Laplace scale). ``|E^θ|`` changes by ``0..θ`` between node neighbours (each
cascade adds the ``v⁺`` edge and then alternately removes/adds), so ``Δs <= 2·max(grid)``.
The projection loss is measured on the *original* graph (``|E| − |E^θ|``; the common ``|E|``
term cancels in the mechanism). A public implementation of Day et al. scores θ by the number
of *projected* degrees above θ, which is always zero, so it always returns the smallest θ;
this score does not have that bug (see the test ``test_theta_selection_prefers_larger``).

References
----------
``004_*.txt`` chapter 7 (Definitions 23–29, Lemmas 7–9, Algorithm 6). W.-Y. Day, N. Li,
M. Lyu, SIGMOD 2016. F. McSherry, K. Talwar, "Mechanism design via differential privacy",
FOCS 2007 (exponential mechanism).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._compat import paper_variants
from .._memory import require_memory
from .._progress import ProgressFn, log_progress
from .._validation import (
    check_choice,
    check_degree_bound,
    check_epsilon,
    check_float,
    check_int,
)
from ..dk.extract import (
    DKDistribution,
    degree_distribution,
    domain_cells,
    joint_degree_distribution,
)
from ..dk.release import RELEASE_DK, dk_query
from ..errors import InvalidParameterError, NodeSensitivityWarning
from ..graph import Graph
from ..metrics import ks_distance, l1_distance
from ..params import Param, Spec, combine
from ..privacy.noise import NoiseBackend, exponential_mechanism, get_backend
from ..privacy.release import Release, started_at
from .projection import Projection, edge_addition_sizes, project

__all__ = [
    "DEFAULT_THETA_GRID",
    "NodeDKRelease",
    "NodeSensitivityWarning",
    "check_node_release",
    "dk_utility",
    "node_dk_query",
    "node_dk_table",
    "node_sensitivity",
    "noise_domain",
    "non_isolated_count",
    "plain_node_dk_release",
    "projection_key",
    "select_theta",
    "theta_dk_release",
]

DEFAULT_THETA_GRID = (2, 4, 8, 16, 32, 64, 128, 256)
#: The node set every node-level release ranges over (module docstring, "Node set").
NODE_SET = ("non-isolated nodes: nodes with an edge (an edge list cannot hold others); "
            "degree-0 nodes are not released")
PROJECTIONS = ("ead", "ser", "truncate")


@dataclass(frozen=True)
class NodeDKRelease:
    """A node-DP 1K or 2K release.

    Attributes
    ----------
    table : DKDistribution
        Post-processed release: noisy counts clipped at 0, zero rows dropped.
    noisy : ndarray of int64
        Raw noisy counts over the whole public domain (1K: projected degrees ``1..θ``, entry
        ``i`` for degree ``i + 1``; 2K: cells ``1 <= i <= j <= θ`` in
        :func:`~graphanon.dk.extract.domain_cells` order). Isolated nodes are not part of any
        node-level release (module docstring, "Node set").
    d, theta, projection
        1 or 2, the bound used, and the projection method.
    preserved_edge_ratio : float
        ``|E^θ| / |E|`` of the projection (a property of the private input: diagnostics only,
        not part of the private output).
    release : Release
        The privacy record (mechanism, neighbourhood ``"node"``, ε, sensitivity, ...).
    """

    table: DKDistribution
    noisy: npt.NDArray[np.int64]
    d: int
    theta: int
    projection: str
    preserved_edge_ratio: float
    release: Release
    seconds: float = field(default=0.0, compare=False)


# ---------------------------------------------------------------------- helpers

def node_sensitivity(d: int, theta: int, projection: str = "ead") -> float:
    """L1 node sensitivity used to calibrate ``f^{dK} ∘ P`` (see the module docstring).

    ``2θ + 1`` for 1K and ``θ(2θ + 1)`` for 2K. For ``"ser"`` the same numbers are returned
    (the paper's Lemma 8 and its 1K analogue) but they are **not** valid bounds for SER.
    """
    check_int(d, "d", "node_sensitivity", low=1, high=2)
    theta = check_int(theta, "theta", "node_sensitivity", low=1)
    check_choice(projection, "projection", "node_sensitivity", PROJECTIONS)
    if projection == "truncate":
        raise InvalidParameterError(
            "Truncation has no node sensitivity bounded by a function of theta (one added node "
            "can push n - 1 nodes above theta); use projection='ead'."
        )
    return float(2 * theta + 1) if d == 1 else float(theta * (2 * theta + 1))


def node_dk_query(G: Graph, d: int, h: int) -> npt.NDArray[np.int64]:
    """The vector a node-level dK release noises: 1K over degrees ``1..h`` (no degree-0 bin:
    the releases range over non-isolated nodes, module docstring), 2K over the cells
    ``1 <= i <= j <= h``. Degrees above ``h`` are top-coded (a θ-projection has none)."""
    x = dk_query(G, d=d, h=h)
    return x[1:] if d == 1 else x


def node_dk_table(d: int, counts: npt.NDArray[np.int64], h: int, *,
                  lowest: int = 1) -> DKDistribution:
    """The table of a noisy dK vector: negative counts clipped, zero rows dropped
    (post-processing). 1K entry ``i`` is degree ``lowest + i`` (1 for node-level releases,
    :func:`node_dk_query`; 0 where degree 0 is part of the domain); 2K entries are the cells
    of :func:`~graphanon.dk.extract.domain_cells`."""
    c = np.clip(counts, 0, None)
    keep = np.flatnonzero(c)
    if d == 1:
        return DKDistribution("degree", (keep + lowest)[:, None], c[keep])
    return DKDistribution("joint_degree", domain_cells(h)[keep], c[keep])


def non_isolated_count(G: Graph, *, theta: int, key: int) -> int:
    """``#{u : deg(u) >= 1}`` in the EAD θ-projection (node sensitivity ``θ + 1``)."""
    return int(np.count_nonzero(project(G, theta=theta, method="ead", key=key).graph.degrees))


# ---------------------------------------------------------------------- θ selection
def select_theta(
    G: Graph,
    *,
    epsilon: float,
    d: int = 1,
    release_epsilon: float,
    grid: tuple[int, ...] = DEFAULT_THETA_GRID,
    key: int,
    backend: NoiseBackend,
    progress: ProgressFn = log_progress,
) -> tuple[int, dict[str, Any]]:
    """Choose θ from ``grid`` with the exponential mechanism (``epsilon``-node-DP, EAD).

    Parameters
    ----------
    G : Graph
    epsilon : float
        Budget spent on the choice.
    d : {1, 2}
        The release the θ is for (sets the noise term of the score).
    release_epsilon : float
        The ε the release at θ will use (public).
    grid : tuple of int
        Public candidate values.
    key : int
        Projection ordering key (the same one the release uses).
    backend : NoiseBackend
        Source of the Gumbel uniforms.
    progress : callable, optional
        ``progress(task, done, total)``, one step per candidate θ.

    Returns
    -------
    (theta, info)
        The chosen θ and ``{"grid", "scores", "score_sensitivity"}``. The scores are computed
        from the private graph and are returned for diagnostics only — do not publish them.

    Notes
    -----
    ``s(θ) = 2|E^θ| − N(θ)``, ``N(θ) = |domain| · Δ_d(θ) / ε_release``; ``Δs = 2·max(grid)``
    because ``0 <= |E^θ(G + v⁺)| − |E^θ(G)| <= θ`` for EAD (module docstring). The choice
    ``argmax_θ s(θ)/(2Δs)·ε + Gumbel`` is the exponential mechanism: ε-node-DP.
    """
    grid = tuple(sorted({check_int(t, "grid", "select_theta", low=1) for t in grid}))
    if not grid:
        raise InvalidParameterError("The 'grid' parameter of select_theta must not be empty.")
    scores = []
    sizes = edge_addition_sizes(G, thetas=grid, key=key, progress=progress)
    for t, kept in zip(grid, sizes, strict=True):
        domain = t if d == 1 else t * (t + 1) // 2
        noise = domain * node_sensitivity(d, t) / release_epsilon
        scores.append(2.0 * kept - noise)
    s = np.asarray(scores)
    delta = 2.0 * max(grid)
    choice = exponential_mechanism(s, epsilon=epsilon, sensitivity=delta, backend=backend)
    return grid[choice], {"grid": list(grid), "scores": s.tolist(), "score_sensitivity": delta}


# ---------------------------------------------------------------------- releases
def check_node_release(G: Any, *, d: Any, epsilon: Any, owner: str) -> tuple[int, float]:
    """``(d, epsilon)`` of a node-DP dK release, validated once."""
    if not isinstance(G, Graph):
        raise InvalidParameterError(
            f"The 'G' parameter of {owner} must be a graphanon Graph. Got {type(G).__name__}."
        )
    return check_int(d, "d", owner, low=1, high=2), check_epsilon(epsilon, "epsilon", owner)


def projection_key(key: int | None, rng: np.random.Generator | None) -> int:
    """The public 64-bit ordering key: ``key``, else drawn from ``rng``, else fresh."""
    if key is not None:
        return int(key)
    if rng is not None:
        return int(rng.integers(0, 2**63 - 1))
    return secrets.randbits(63)


def noise_domain(proj: Projection, *, d: int, theta: int, sensitivity: float, epsilon: float,
                 backend: NoiseBackend, owner: str
                 ) -> tuple[npt.NDArray[np.int64], DKDistribution]:
    """The noisy dK vector of a projected graph over the whole public domain, and its table
    (negative counts clipped, zero rows dropped)."""
    cells = theta if d == 1 else theta * (theta + 1) // 2
    # the true and noisy domain vectors, the clipped copy and (2K) the domain cells
    require_memory(48 * cells, what=owner, parameter=f"theta = {theta} ({cells:,} {d}K cells)")
    true = node_dk_query(proj.graph, d, theta)
    noisy = np.asarray(backend.discrete_laplace(true, sensitivity=sensitivity, epsilon=epsilon),
                       dtype=np.int64)
    return noisy, node_dk_table(d, noisy, theta)


#: The parameters of :func:`theta_dk_release`, declared once: its validation, the node-DP
#: options of ``graphanon release-dk --neighbourhood node``, the job step's keys and the table in
#: docs/node_dp.md.
THETA_DK = Spec("theta_dk_release", (
    Param("d", "int", "1 (degree histogram) or 2 (joint degree distribution).", low=1,
          high=2),
    Param("epsilon", "epsilon", "Privacy budget ε > 0."),
    Param("theta", "int", "Public degree bound θ of the projection, or 'auto' to choose it "
          "privately (spends select_fraction of ε).", default="auto", low=1,
          words=("auto",)),
    Param("select_fraction", "float", "Share of ε spent on choosing θ. Default 0.1.",
          default=None, low=0.0, high=1.0, closed="neither", only=("theta", "auto")),
    Param("grid", "ints", "The public candidates θ = 'auto' chooses from.",
          default=DEFAULT_THETA_GRID, low=1, high=2**31 - 2),
    Param("key", "int", "Key of the projection's keyed-hash order (default: drawn from the "
          "generator).", default=None, low=0, high=2**64 - 1, cli=""),
), doc="docs/node_dp.md")


#: ``release-dk`` (the command and the job step): :data:`~graphanon.dk.release.RELEASE_DK`
#: under ``neighbourhood = "edge"``, :data:`THETA_DK` under ``"node"``; a parameter of one
#: relation is refused with the other. Declared here, beside the node half, because
#: :mod:`graphanon.dk.release` cannot import this module.
RELEASE_DK_EITHER = combine("release-dk", Param(
    "neighbourhood", "choice",
    "Neighbouring relation. edge: one edge added or removed. node: one node added or removed "
    "with all its edges (θ-dKε: project to degree ≤ θ first).", default="edge",
    choices=("edge", "node"), aliases=("privacy",)), {"edge": RELEASE_DK, "node": THETA_DK})


@paper_variants("graphanon.reproduce.node_dp_thesis:theta_dk_release_ser", removed_in="0.3.0",
                projection="ead", order="hash")
def theta_dk_release(
    G: Graph,
    *,
    d: int,
    epsilon: float,
    theta: int | str = "auto",
    select_fraction: float | None = None,
    grid: tuple[int, ...] = DEFAULT_THETA_GRID,
    key: int | None = None,
    backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
    seed: int | None = None,
    progress: ProgressFn = log_progress,
) -> NodeDKRelease:
    """θ-dKε (Algorithm 6): an ε-node-DP 1K or 2K distribution of the EAD θ-projection.

    Parameters
    ----------
    G : Graph
    d : {1, 2}
        1K (degree histogram over ``1..θ``) or 2K (joint degrees over ``1 <= i <= j <= θ``).
    epsilon : float
        Total ε (node-DP), including the θ selection.
    theta : int or "auto"
        Public degree bound, or ``"auto"`` to choose it privately from ``grid`` with
        ``select_fraction · ε``.
    select_fraction : float, optional
        Fraction of ε spent on θ when ``theta="auto"`` (default 0.1); refused with a fixed
        ``theta``, where no ε goes to θ.
    grid : tuple of int
        Public θ candidates.
    key : int, optional
        Projection ordering key (public, data-independent); drawn if None.
    backend : NoiseBackend, optional
        Noise backend (default: OpenDP, secure); pass
        ``get_backend("numpy-insecure", rng=...)`` for reproducible, insecure runs.
    rng : numpy.random.Generator, optional
        Randomness that is not DP noise (the public projection key when ``key`` is None).
    seed : int, optional
        Recorded in the release when the run was seeded.
    progress : callable, optional
        ``progress(task, done, total)`` of the θ selection and the projection.

    Returns
    -------
    NodeDKRelease

    Raises
    ------
    InvalidParameterError
        Bad parameters, or a graph or θ whose working memory does not fit in the available
        memory.

    Notes
    -----
    Guarantee: ε-DP under node neighbourhood (Definition 23): ``P`` is EAD in a
    data-independent order, ``f^{dK} ∘ P`` has L1 sensitivity ``Δ₁ = 2θ + 1`` /
    ``Δ₂ = θ(2θ + 1)`` (derivation in the module docstring; audited), and discrete Laplace
    noise of that sensitivity over the full public domain is ε-DP (OpenDP's privacy map).
    θ selection and release compose sequentially.

    References
    ----------
    ``004_*.txt`` §7.3–7.4 (Lemma 8, Algorithm 6); Day, Li & Lyu, SIGMOD 2016, §4. The
    chapter's Stable-Edge-Removal release is
    :func:`graphanon.reproduce.node_dp_thesis.theta_dk_release_ser`.
    """
    t0 = time.perf_counter()
    started = started_at()
    owner = "theta_dk_release"
    checked = THETA_DK.validate({"d": d, "epsilon": epsilon, "theta": theta,
                                 "select_fraction": select_fraction, "grid": grid, "key": key})
    theta, grid = checked["theta"], checked["grid"]
    d, epsilon = check_node_release(G, d=d, epsilon=epsilon, owner=owner)
    backend = backend or get_backend("opendp")
    key = projection_key(key, rng)
    # θ: public, or chosen by the exponential mechanism with part of ε
    eps_release = epsilon
    selection: dict[str, Any] | None = None
    if theta == "auto":
        frac = check_float(0.1 if select_fraction is None else select_fraction,
                           "select_fraction", owner, low=0.0, high=1.0, closed="neither")
        eps_release = epsilon - frac * epsilon
        theta, selection = select_theta(G, epsilon=frac * epsilon, d=d,
                                        release_epsilon=eps_release, grid=grid, key=key,
                                        backend=backend, progress=progress)
    else:
        theta = check_degree_bound(theta, "theta", owner, d=d)
    # the query: the dK vector of the θ-projection; its node sensitivity; the noise
    proj = project(G, theta=theta, method="ead", key=key, progress=progress)
    sens = node_sensitivity(d, theta)
    noisy, table = noise_domain(proj, d=d, theta=theta, sensitivity=sens, epsilon=eps_release,
                                backend=backend, owner=owner)
    params: dict[str, Any] = {
        "d": d, "theta": theta, "projection": "ead", "order": proj.order, "key": key,
        "theta_selection": "fixed" if selection is None else "exponential-mechanism",
        "epsilon_release": eps_release,
        "epsilon_theta_selection": epsilon - eps_release,
        "domain": "degrees 1..theta" if d == 1 else "cells 1<=i<=j<=theta",
        "node_set": NODE_SET,
        "guarantee": "node-DP",
    }
    if selection is not None:
        params["theta_grid"] = selection["grid"]
        params["theta_score_sensitivity"] = selection["score_sensitivity"]
    release = Release.create(
        mechanism=f"theta-dk{d}-ead", neighbourhood="node", epsilon=epsilon, sensitivity=sens,
        sensitivity_derivation=("EAD cascades: v+ count + θ moved nodes × 2 = 2θ+1 (degrees "
                                "1..θ: neighbours new to an edge list enter at 1)" if d == 1
                                else "EAD cascades: θ cascades × (2θ+1) = θ(2θ+1)"),
        params=params, backend=backend.name, seed=seed,
        source_fingerprint=G.content_hash, created_at=started)
    return NodeDKRelease(table, noisy, d, theta, "ead", proj.preserved_edge_ratio, release,
                         time.perf_counter() - t0)


def plain_node_dk_release(
    G: Graph,
    *,
    d: int,
    epsilon: float,
    degree_bound: int,
    backend: NoiseBackend | None = None,
    rng: np.random.Generator | None = None,
    seed: int | None = None,
) -> NodeDKRelease:
    """The "ε-DP" baseline of §7.5: Laplace on the unprojected 1K/2K with a public bound ``D``.

    Valid only on the family of graphs of maximum degree ``<= degree_bound`` (a public
    promise; raises if ``G`` breaks it). Sensitivity ``2D + 1`` (1K) and ``D(2D + 1)``
    (2K, Lemma 7 with ``|E⁺| <= D``) — the same cascade-free counting as for EAD.

    Raises
    ------
    InvalidParameterError
        If ``G`` has a node of degree ``> degree_bound``.
    """
    t0 = time.perf_counter()
    started = started_at()
    owner = "plain_node_dk_release"
    d = check_int(d, "d", owner, low=1, high=2)
    epsilon = check_epsilon(epsilon, "epsilon", owner)
    D = check_degree_bound(degree_bound, "degree_bound", owner, d=d)
    if G.n_nodes and int(G.degrees.max()) > D:
        raise InvalidParameterError(
            f"The 'degree_bound' parameter of {owner} must bound every degree of the graph. "
            f"Got {D}."
        )
    backend = backend or get_backend("opendp")
    sens = float(2 * D + 1) if d == 1 else float(D * (2 * D + 1))
    noisy = backend.discrete_laplace(node_dk_query(G, d, D), sensitivity=sens, epsilon=epsilon)
    seconds = time.perf_counter() - t0
    release = Release.create(
        mechanism=f"plain-node-laplace-dk{d}", neighbourhood="node", epsilon=epsilon,
        sensitivity=sens,
        sensitivity_derivation="public degree bound D: 2D+1 (1K) / D(2D+1) (2K, Lemma 7)",
        params={"d": d, "degree_bound": D, "node_set": NODE_SET,
                "domain": "degrees 1..D" if d == 1 else "cells 1<=i<=j<=D"},
        backend=backend.name, seed=seed,
        source_fingerprint=G.content_hash, created_at=started)
    return NodeDKRelease(node_dk_table(d, noisy, D), noisy, d, D, "none", 1.0, release,
                         seconds)


def dk_utility(G: Graph, released: NodeDKRelease | DKDistribution) -> dict[str, float]:
    """L1 and KS between a (released or projected) 1K/2K table and ``G``'s true, unprojected one.

    Both tables are laid out over the common domain (``h = max`` degree of either); 2K cells in
    row-major upper-triangle order (the thesis's Eq. 7.2 / 7.3). The 2K distances are computed
    on the union of the non-zero cells of the two tables (the same values as over the dense
    ``h(h+1)/2`` cells, which would not fit in memory for a large ``h``). Uses the private
    graph: evaluation only.
    """
    table = released.table if isinstance(released, NodeDKRelease) else released
    d = table.d
    true = degree_distribution(G) if d == 1 else joint_degree_distribution(G)
    h = max(true.max_degree, table.max_degree, 1)
    if d == 1:
        a, b = true.to_dense(h), table.to_dense(h)
        return {"l1": l1_distance(a, b), "ks": ks_distance(a, b)}
    # cells in row-major order = lexicographic (i, j) = the order of i·(h+1) + j
    keys = np.concatenate([true.degrees[:, 0] * (h + 1) + true.degrees[:, 1],
                           table.degrees[:, 0] * (h + 1) + table.degrees[:, 1]])
    cells, inv = np.unique(keys, return_inverse=True)
    inv = inv.ravel()
    k = true.n_tuples
    a = np.bincount(inv[:k], weights=np.asarray(true.counts, dtype=np.float64),
                    minlength=cells.size)
    b = np.bincount(inv[k:], weights=np.asarray(table.counts, dtype=np.float64),
                    minlength=cells.size)
    return {"l1": l1_distance(a, b), "ks": ks_distance(a, b)}
