"""``synthesize``: the recommended private synthetic-graph pipeline (issue 36, part 5).

One call, one record. :func:`synthesize` validates once, runs the pipeline of the chosen
neighbourhood — each part a separate ε-DP query on the private graph — and returns the
synthetic graph with **one** :class:`~graphanon.privacy.release.Release` whose ``epsilon`` is
the total and whose ``params["epsilon_split"]`` / ``params["sensitivities"]`` state each
part's share and L1 sensitivity. The parts compose sequentially (pure ε-DP): the total is the
sum of the shares, so a ledger is charged once with it.

The pipelines
-------------
``neighbourhood="node"`` (ε-node-DP; the node set itself is private, no ``nodes``):

0. ``theta_selection`` (``0.1·ε``, only with ``theta="auto"``): θ from the public grid
   by :func:`~graphanon.nodedp.theta_dk.select_theta` (exponential mechanism; the score
   trades the projection's kept edges against the 2K noise at θ);
1. ``edge_total`` (``0.1·ε``): ``|E^θ|``, the edge count of the EAD θ-projection (a public,
   data-independent ordering key), plus discrete Laplace noise of sensitivity ``θ``;
2. ``theta_dk2`` (``0.9·ε``; ``0.8·ε`` after a selection):
   :func:`~graphanon.nodedp.theta_dk.theta_dk_release` ``d=2`` on
   the same projection (sensitivity ``θ(2θ+1)``);
3. post-processing: the noisy 2K cells projected onto the released total
   (:func:`~graphanon.dk.release.project_to_total`), made integral per degree class
   (:func:`~graphanon.dk.release.postprocess_2k`), realized by
   :func:`~graphanon.dk.generate.generate_2k`; nodes get new ids ``s0, s1, …`` in random order.

``neighbourhood="edge"`` (ε-edge-DP; the node set is public, ``nodes`` required): the graph keeps
the public node ids (every listed node, isolated ones included). The parts are those of
:func:`~graphanon.synthetic.communities.community_release` (a private community partition,
per-node degrees with the degree distribution deconvolved from them, community edge counts,
the edge total and a degree-bounded triangle statistic),
realized by :func:`~graphanon.synthetic.bter.generate_community_graph` (:func:`_edge_pipeline`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._compat import renamed_keywords
from .._progress import ProgressFn, log_progress, progress_step
from .._validation import EPSILON_RANGE, check_int, check_type
from ..errors import InvalidParameterError
from ..graph import Graph
from ..params import Param, Spec
from ..privacy.noise import NoiseBackend, get_backend
from ..privacy.release import Release, started_at
from .bter import DEFAULT_BLOCK_SLOPE

__all__ = ["NODE_SPLIT", "NODE_SPLIT_AUTO", "SYNTHESIZE", "SyntheticRelease", "synthesize"]

#: The node-DP pipeline's ε split with a fixed θ (shares of the total; they sum to 1).
NODE_SPLIT: Mapping[str, float] = {"edge_total": 0.1, "theta_dk2": 0.9}
#: ... and with ``theta="auto"``: θ chosen privately first.
NODE_SPLIT_AUTO: Mapping[str, float] = {"theta_selection": 0.1, "edge_total": 0.1,
                                        "theta_dk2": 0.8}

#: The parameters of :func:`synthesize`, declared once: its validation, the options of
#: ``graphanon synthesize``, the keys of the job step and the table in docs/synthetic.md.
SYNTHESIZE = Spec("synthesize", (
    Param("epsilon", "epsilon",
          "Total privacy budget ε > 0, split across the pipeline's parts as the record states "
          "(params.epsilon_split); the ledger is charged once with it."),
    Param("neighbourhood", "choice",
          "Neighbouring relation. edge: one edge added or removed, over the public node set "
          "(the graph keeps its node ids). node: one node added or removed with all its "
          "edges (θ-projection first; new ids s0, s1, ...).",
          default="edge", choices=("edge", "node"), aliases=("privacy",)),
    Param("theta", "int", "Public degree bound θ of the EAD projection, or 'auto' to choose "
          "it privately from the public grid 2, 4, ..., 256 (exponential mechanism, 0.1 of ε; "
          "measured worse than 16 at ε <= 4: docs/synthetic.md).",
          default=16, low=1, high=4096, words=("auto",), only=("neighbourhood", "node")),
    Param("block_slope", "float", "Public prior of the generator: blocks of smallest degree d "
          "get density ρ (h/d)^β, so low-degree nodes get more local clustering (0: one "
          "density, the default: the generated c(d) falls with d already). Applied only "
          "where the released triangle statistic is significant (docs/synthetic.md).",
          default=DEFAULT_BLOCK_SLOPE, low=0.0, high=2.0, only=("neighbourhood", "edge")),
    Param("block_mixing", "float", "Block mixing σ of the generator: a block holds nodes "
          "next to each other in the order of log degree + σ·Z, so σ > 0 mixes degrees in a "
          "block and removes the degree correlation of BTER's equal-degree blocks (0: equal "
          "degrees). auto: 1 where the released triangle statistic is significant and mixed "
          "blocks can carry it, else 0 where equal-degree blocks carry it, else 1 "
          "(post-processing; docs/synthetic.md).",
          default="auto", low=0.0, high=4.0, words=("auto",),
          only=("neighbourhood", "edge")),
), doc="docs/synthetic.md")


@dataclass(frozen=True)
class SyntheticRelease:
    """A synthetic graph and the one record of the run that made it.

    Attributes
    ----------
    graph
        The synthetic simple graph. Under edge-DP its nodes are the public node universe's
        ids (every listed node, isolated ones included); under node-DP new ids ``s0, s1, …``.
    release
        The record: mechanism ``synthesize-edge`` / ``synthesize-node``, the neighbourhood,
        the total ε, and in ``params["epsilon_split"]`` each part's share.
    parts
        Public per-part summaries (numbers of communities, released edge total, …): each is a
        post-processing of a noisy answer, covered by the release's guarantee.
    seconds
        Wall time (a property of the private input: for the operator, never published).
    """

    graph: Graph
    release: Release
    parts: dict[str, Any] = field(default_factory=dict)
    seconds: float = field(default=0.0, compare=False)


@dataclass(frozen=True)
class _Part:
    """One ε-DP query of a pipeline, as the record states it."""

    name: str
    epsilon: float
    sensitivity: float
    derivation: str


@dataclass(frozen=True)
class _Outcome:
    """What a pipeline returns to :func:`synthesize`: the graph, its parts (their ε sum to
    the total), public parameters for the record and public summaries for ``parts``."""

    graph: Graph
    parts: tuple[_Part, ...]
    params: dict[str, Any]
    summary: dict[str, Any]


@renamed_keywords(SYNTHESIZE.aliases(), removed_in="0.3.0")
def synthesize(G: Graph, *, epsilon: float, neighbourhood: str = "edge", nodes: Any = None,
               theta: int | str = 16, block_slope: float = DEFAULT_BLOCK_SLOPE,
               block_mixing: float | str = "auto", backend: NoiseBackend | None = None,
               rng: np.random.Generator | None = None, seed: int | None = None,
               progress: ProgressFn | None = None) -> SyntheticRelease:
    """Release a synthetic graph of ``G`` under ε-edge-DP or ε-node-DP.

    Parameters
    ----------
    G : Graph
        The private graph.
    epsilon : float
        Total privacy budget; split across the pipeline's parts as the record states.
    neighbourhood : {"edge", "node"}
        The neighbouring relation. ``"edge"``: graphs differing in one edge, over a public
        node set (``nodes``); ``"node"``: graphs differing in one node and all its edges.
    nodes : array-like, optional
        Edge-DP only, and required there: the public node universe (every node of ``G`` must
        be in it). The synthetic graph has exactly these nodes. Refused under node-DP (the
        node set is what node-DP protects).
    theta : int or "auto"
        Node-DP only: the public degree bound of the EAD projection (default 16), or
        ``"auto"`` to choose it privately (0.1 of ε) from
        :data:`~graphanon.nodedp.theta_dk.DEFAULT_THETA_GRID`. A fixed bound below the
        graph's typical degree keeps the same share of the edges at every ε; the choice
        grows with ε, but its score (:func:`~graphanon.nodedp.theta_dk.select_theta`)
        charges the 2K noise over the whole domain and picks θ = 4–8 at ε <= 4, which
        lost more edges than θ = 16 on all six benchmark graphs (docs/synthetic.md).
    block_slope : float in [0, 2]
        Edge-DP only: the generator's public block slope ``β`` (default 0: one block
        density): blocks of smallest degree ``d`` get density ``ρ (h / d)^β``
        (:data:`~graphanon.synthetic.bter.DEFAULT_BLOCK_SLOPE`). A public prior, no privacy
        cost; applied only where the released triangle statistic is above 1.5 noise
        deviations.
    block_mixing : float in [0, 4] or "auto"
        Edge-DP only: the generator's block mixing ``σ``
        (:func:`~graphanon.synthetic.bter.affinity_blocks`; 0: BTER's equal-degree blocks,
        which make the graph assortative). ``"auto"`` (default) mixes at ``σ = 1`` where the
        released triangle statistic is significant and mixed blocks can carry it (fitted
        block density below 1, or density 1 within the statistic's noise deviation), else
        0 where equal-degree blocks carry it, else 1 at density 1: post-processing, no
        privacy cost
        (:func:`~graphanon.synthetic.communities.community_release`).
    backend : NoiseBackend, optional
        DP noise (default: OpenDP, secure); ``get_backend("numpy-insecure", rng=...)`` for
        reproducible, insecure runs.
    rng : numpy.random.Generator, optional
        Randomness that is not DP noise (projection key, generation); default: seeded with
        ``seed`` when given, else fresh.
    seed : int, optional
        Recorded in the release.
    progress : callable, optional
        ``progress(task, done, total)``.

    Returns
    -------
    SyntheticRelease

    Raises
    ------
    InvalidParameterError
        ε outside its range, an unknown ``neighbourhood``, a missing (edge) or given (node)
        ``nodes``, a ``G`` node missing from ``nodes``, a bad ``theta``.

    Notes
    -----
    **Guarantee.** The release is ε-DP under the chosen neighbourhood by sequential
    composition of its parts (pure ε-DP): each part is one noisy query on ``G`` with
    discrete Laplace noise calibrated to its L1 sensitivity from public parameters only,
    and the graph is post-processing of the noisy answers (with the public ``rng``).

    - node-DP (module docstring): with ``theta="auto"`` first ``theta_selection`` ``0.1·ε``
      (exponential mechanism, score sensitivity ``2·max(grid)``:
      :func:`~graphanon.nodedp.theta_dk.select_theta`); ``edge_total`` ``0.1·ε``,
      sensitivity ``θ`` (one node starts at most ``θ`` EAD cascades of net change 0 or +1);
      ``theta_dk2`` the rest (``0.8·ε``, or ``0.9·ε`` with a fixed θ), sensitivity
      ``θ(2θ+1)`` (:func:`~graphanon.nodedp.theta_dk.node_sensitivity`).
    - edge-DP (:func:`_edge_pipeline`): super-node counts ``0.15·ε`` (Δ 1), cumulative
      degree counts ``0.15·ε`` (Δ 2), node degrees ``0.47·ε`` (Δ 2), community edge counts
      ``0.03·ε`` (Δ 1), smooth triangles ``0.10·ε``
      (Δ ``(2h − 2)(3h − 1)/h``, ``h`` read off the released degrees), edge total
      ``0.10·ε`` (Δ 1).

    Every statistic is audited by brute force (``tests/synthetic/test_pipeline.py``,
    ``tests/synthetic/test_communities.py``).
    """
    t0 = time.perf_counter()
    started = started_at()
    owner = "synthesize"
    check_type(G, Graph, "G", owner, "a graphanon Graph")
    checked = SYNTHESIZE.validate({"epsilon": epsilon, "neighbourhood": neighbourhood,
                                   "theta": theta, "block_slope": block_slope,
                                   "block_mixing": block_mixing})
    epsilon, privacy, theta = checked["epsilon"], checked["neighbourhood"], checked["theta"]
    if rng is not None:
        check_type(rng, np.random.Generator, "rng", owner, "a numpy.random.Generator")
    if seed is not None:
        seed = check_int(seed, "seed", owner, low=0)
    progress = progress or log_progress
    backend = backend or get_backend("opendp")
    rng = rng if rng is not None else np.random.default_rng(seed)
    if privacy == "edge":
        if nodes is None:
            raise InvalidParameterError(
                "The 'nodes' parameter of synthesize is required with neighbourhood='edge': the "
                "synthetic graph keeps the public node ids, so it needs the public node "
                "universe (the CLI's --nodes FILE); reading the nodes off the private edges "
                "would leak them.")
        outcome = _edge_pipeline(G.with_nodes(nodes), nodes=nodes, epsilon=epsilon,
                                 block_slope=checked["block_slope"],
                                 block_mixing=checked["block_mixing"], backend=backend, rng=rng,
                                 seed=seed, progress=progress)
    else:
        if nodes is not None:
            raise InvalidParameterError(
                "The 'nodes' parameter of synthesize applies to neighbourhood='edge' only: under "
                "node-DP the node set itself is private (the synthetic nodes get new ids).")
        outcome = _node_pipeline(G, epsilon=epsilon, theta=theta, backend=backend, rng=rng,
                                 seed=seed, progress=progress)
    release = _record(privacy, epsilon, outcome, backend=backend, seed=seed,
                      fingerprint=G.content_hash, created_at=started)
    return SyntheticRelease(outcome.graph, release, outcome.summary, time.perf_counter() - t0)


# ---------------------------------------------------------------------- the record
def _shares(epsilon: float, split: Mapping[str, float]) -> dict[str, float]:
    """``epsilon`` split by ``split``; each share must itself be a valid ε."""
    shares = {name: epsilon * frac for name, frac in split.items()}
    low = min(shares.values())
    if low < EPSILON_RANGE[0]:
        raise InvalidParameterError(
            f"The 'epsilon' parameter of synthesize is too small to split: its smallest part "
            f"would be ε={low:.3g}, below {EPSILON_RANGE[0]:g}. Got {epsilon!r} instead.")
    # the last share takes the rounding, so that the shares sum to ε exactly
    last = list(shares)[-1]
    shares[last] = epsilon - math.fsum(v for k, v in shares.items() if k != last)
    return shares


def _record(privacy: str, epsilon: float, outcome: _Outcome, *, backend: NoiseBackend,
            seed: int | None, fingerprint: str, created_at: str) -> Release:
    """The one record of a run: total ε, its split, each part's sensitivity, public params."""
    parts = outcome.parts
    total = math.fsum(p.epsilon for p in parts)
    if not math.isclose(total, epsilon, rel_tol=1e-12, abs_tol=0.0):  # pragma: no cover
        raise AssertionError(f"the parts' ε sum to {total}, not the total {epsilon}")
    derivation = "sequential composition of: " + "; ".join(
        f"{p.name} (ε={p.epsilon:.6g}, Δ={p.sensitivity:g}: {p.derivation})" for p in parts)
    params: dict[str, Any] = {
        "privacy": privacy,
        "epsilon_split": {p.name: p.epsilon for p in parts},
        "sensitivities": {p.name: p.sensitivity for p in parts},
        "composition": "sequential (pure ε-DP): the total is the sum of the parts",
        **outcome.params,
    }
    return Release.create(
        mechanism=f"synthesize-{privacy}", neighbourhood=privacy, epsilon=epsilon,
        sensitivity=None, sensitivity_derivation=derivation, params=params,
        backend=backend.name, seed=seed, source_fingerprint=fingerprint,
        created_at=created_at)


# ---------------------------------------------------------------------- node-DP
def _node_pipeline(G: Graph, *, epsilon: float, theta: int | str, backend: NoiseBackend,
                   rng: np.random.Generator, seed: int | None,
                   progress: ProgressFn) -> _Outcome:
    """[θ selection +] θ-projection edge total + θ-dKε 2K, made consistent and realized
    (module docstring)."""
    from ..dk.generate import generate_2k
    from ..dk.release import postprocess_2k, project_to_total
    from ..nodedp.projection import project
    from ..nodedp.theta_dk import (
        DEFAULT_THETA_GRID,
        NODE_SET,
        node_sensitivity,
        projection_key,
        select_theta,
        theta_dk_release,
    )

    eps = _shares(epsilon, NODE_SPLIT_AUTO if theta == "auto" else NODE_SPLIT)
    key = projection_key(None, rng)  # public, data-independent ordering of the projection
    selection: list[_Part] = []
    if theta == "auto":
        # the exponential mechanism over the public grid, score 2|E^θ| − |domain| Δ₂(θ)/ε₂
        # of sensitivity 2·max(grid) (EAD: one node adds 0..θ projected edges): ε-node-DP
        theta, info = select_theta(G, epsilon=eps["theta_selection"], d=2,
                                   release_epsilon=eps["theta_dk2"], grid=DEFAULT_THETA_GRID,
                                   key=key, backend=backend, progress=progress)
        selection.append(_Part(
            "theta_selection", eps["theta_selection"], float(info["score_sensitivity"]),
            "exponential mechanism over the public θ grid; score 2|E^θ| − |domain|·Δ₂(θ)/ε "
            "changes by at most 2·max(grid) (one node adds 0..θ projected edges)"))
    theta = int(theta)
    with progress_step(progress, "node-DP edge total of the θ-projection"):
        kept = project(G, theta=theta, method="ead", key=key).graph.n_edges
        # Sensitivity θ (node neighbourhood): EAD visits the edges in a fixed public order
        # and keeps one when both ends still have degree < θ. Adding a node v⁺ keeps at most
        # θ of its edges; each kept edge (v⁺, a) starts one alternating chain (it can block
        # a later edge at a, which frees room for a later edge at its other end, ...):
        # +1, −1, +1, ..., net 0 or +1. So 0 <= |E^θ(G + v⁺)| − |E^θ(G)| <= θ (the bound
        # select_theta uses; audited). Discrete Laplace of sensitivity θ is
        # eps["edge_total"]-node-DP.
        m_hat = int(backend.discrete_laplace(np.asarray([kept], dtype=np.int64),
                                             sensitivity=float(theta),
                                             epsilon=eps["edge_total"])[0])
    m_hat = max(m_hat, 0)  # post-processing
    rel = theta_dk_release(G, d=2, epsilon=eps["theta_dk2"], theta=theta, key=key,
                           backend=backend, rng=rng, seed=seed, progress=progress)
    with progress_step(progress, "2K consistent with the edge total"):
        cells = project_to_total(rel.noisy, m_hat)
        table = postprocess_2k(cells, theta, target=m_hat)
    S = generate_2k(table, rng=rng, progress=progress)
    n = S.graph.n_nodes
    order = rng.permutation(n)  # new ids in random order: s0, s1, …
    ids = np.asarray([f"s{i}" for i in range(n)], dtype=object)
    u, v = S.graph.edges()
    graph = Graph.from_edges(order[u], order[v], n_nodes=n, node_ids=ids)
    parts = (
        *selection,
        _Part("edge_total", eps["edge_total"], float(theta),
              "EAD θ-projection: one node keeps at most θ of its edges, each starting one "
              "alternating cascade of net change 0 or +1"),
        _Part("theta_dk2", eps["theta_dk2"], node_sensitivity(2, theta),
              rel.release.sensitivity_derivation),
    )
    params = {"theta": theta, "projection": "ead", "order": "hash", "key": key,
              "theta_selection": "exponential-mechanism" if selection else "fixed",
              **({"theta_grid": list(DEFAULT_THETA_GRID)} if selection else {}),
              "node_set": NODE_SET,
              "postprocessing": "2K cells projected onto the released edge total, class "
                                "sizes made integral, realized by the 2K generator (Gjoka et "
                                "al.)",
              "node_ids": "new: s0, s1, ... in random order"}
    summary = {"edge_total": m_hat, "table_edges": int(table.total),
               "nodes": int(n), "edges": int(graph.n_edges)}
    return _Outcome(graph, parts, params, summary)


# ---------------------------------------------------------------------- edge-DP
def _edge_pipeline(G: Graph, *, nodes: Any, epsilon: float, block_slope: float,
                   block_mixing: float | str = "auto", backend: NoiseBackend,
                   rng: np.random.Generator, seed: int | None,
                   progress: ProgressFn) -> _Outcome:
    """The edge-DP pipeline on the public node ids: the community release
    (:func:`~graphanon.synthetic.communities.community_release`, default split) realized by
    :func:`~graphanon.synthetic.bter.generate_community_graph`. ``G`` is already on the
    public universe (``with_nodes``); ``nodes`` is the operator's listing of it, whose order
    forms the super-nodes (:func:`~graphanon.synthetic.communities.listing_rank`).

    Parts (sequential composition; shares of
    :data:`~graphanon.synthetic.communities.DEFAULT_SPLIT`, each with its own L1 sensitivity
    under edge neighbours):

    - ``supergraph`` (``0.15·ε``): edge counts between super-nodes of a public grouping of the
      universe; one edge lies in exactly one cell, Δ = 1.
    - ``degree_cdf`` (``0.15·ε``): the cumulative degree counts ``C(k) = #{u : d(u) ≤ k}``,
      ``k = 0..n − 2`` (``n`` public); one edge moves each of its two ends out of exactly one
      count, Δ = 2. The degree distribution is read off them (isotonic regression,
      post-processing), its top nodes from the one deconvolved from the node degrees
      where those degrees place them above the rest. Not
      released on universes of fewer than ``50 · 2/ε_c`` nodes (public ``n`` and ε): the
      node degrees then take its share.
    - ``node_degrees`` (``0.47·ε``): every node's degree; one edge changes two, Δ = 2. A
      node's rank by its noisy degree places the distribution's values.
    - ``community_edges`` (``0.03·ε``): the edge counts inside and between the released
      communities; one edge, one cell, Δ = 1.
    - ``triangles`` (``0.10·ε``): the smooth triangle statistic ``S_h``, each triangle
      weighted 1 up to largest degree ``h``, fading linearly to 0 at ``2h``; ``h`` read off
      the released degree sequence (post-processing). One edge moves each end's at most
      ``C(2h − 1, 2)`` weighted triangles one ramp step (``1/h``) and adds at most
      ``2h − 2`` triangles: Δ = ``(2h − 2)(3h − 1)/h``
      (:mod:`graphanon.synthetic.clustering`).
    - ``edge_total`` (``0.10·ε``): ``|E|``; one edge changes it by 1, Δ = 1. Combined with the
      noisy degrees' sum by their public variances (post-processing), it sets the degrees'
      total: that sum alone has noise growing with ``n``.

    Everything else (Louvain on the noisy super-graph, the consistent degrees, the BTER
    block density fitted to the released triangle statistic, the generated graph with its
    public block slope ``β``, 0 by default: blocks of smallest degree ``d`` get density
    ``ρ (h / d)^β``, and its block mixing: degrees mixed in a block, ``σ = 1``, where such
    blocks can carry the released triangles, else equal-degree blocks) is post-processing
    of released values with the public ``rng``.
    """
    from .bter import generate_community_graph
    from .communities import DEFAULT_SPLIT, community_release

    _shares(epsilon, {k: v for k, v in DEFAULT_SPLIT.items() if v > 0})  # each part a valid ε
    rel = community_release(G, epsilon=epsilon, nodes=nodes, block_slope=block_slope,
                            block_mixing=block_mixing,
                            backend=backend, rng=rng, seed=seed, progress=progress)
    with progress_step(progress, "community graph on the public node ids"):
        graph = generate_community_graph(rel, rng=rng)
    split = rel.release.params["epsilon_split"]
    sens = rel.release.params["sensitivities"]
    parts = []
    for name, eps in split.items():
        sub = rel.parts.get("partition" if name in ("supergraph", "refine") else name)
        derivation = (sub.sensitivity_derivation if sub is not None
                      else rel.release.sensitivity_derivation)
        parts.append(_Part(name, float(eps), float(sens[name]), derivation))
    params = {"node_universe": "given by the operator (public: the graph keeps its ids)",
              "generator": "community affinity blocks (BTER-style) on the node ids",
              "max_degree": rel.max_degree,
              "max_degree_selection": rel.release.params["max_degree_selection"],
              "super_size": rel.release.params["super_size"],
              "super_size_selection": rel.release.params["super_size_selection"],
              "triangle_statistic": rel.release.params["triangle_statistic"],
              "block_slope": rel.block_slope,
              "block_mixing": rel.block_mixing,
              "block_mixing_selection": rel.release.params["block_mixing_selection"],
              "postprocessing": "Louvain on the noisy super-graph; the degree distribution "
                                "from the cumulative counts by isotonic regression (its top "
                                "nodes deconvolved from the noisy degrees), its values "
                                "placed by the nodes' noisy degrees and scaled to the "
                                "combined edge total; block density fitted to the released "
                                "triangle statistic; BTER-style generation on the node ids",
              "node_ids": "the public node universe"}
    summary = {"n_communities": rel.n_communities,
               "released_modularity": rel.release.params["released_modularity"],
               "block_density": rel.block_density, "released_edges": rel.n_edges,
               "nodes": int(G.n_nodes), "edges": int(graph.n_edges)}
    return _Outcome(graph, tuple(parts), params, summary)


#: Every pipeline, by neighbourhood (for tests and the benchmark).
PIPELINES: Mapping[str, Callable[..., _Outcome]] = {"edge": _edge_pipeline,
                                                    "node": _node_pipeline}
