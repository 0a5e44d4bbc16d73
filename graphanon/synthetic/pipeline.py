"""``synthesize``: the recommended private synthetic-graph pipeline (issue 36, part 5).

One call, one record. :func:`synthesize` validates once, runs the pipeline of the chosen
neighbourhood — each part a separate ε-DP query on the private graph — and returns the
synthetic graph with **one** :class:`~graphanon.privacy.release.Release` whose ``epsilon`` is
the total and whose ``params["epsilon_split"]`` / ``params["sensitivities"]`` state each
part's share and L1 sensitivity. The parts compose sequentially (pure ε-DP): the total is the
sum of the shares, so a ledger is charged once with it.

The pipelines
-------------
``privacy="node"`` (ε-node-DP; the node set itself is private, no ``nodes``):

1. ``edge_total`` (``0.1·ε``): ``|E^θ|``, the edge count of the EAD θ-projection (a public,
   data-independent ordering key), plus discrete Laplace noise of sensitivity ``θ``;
2. ``theta_dk2`` (``0.9·ε``): :func:`~graphanon.nodedp.theta_dk.theta_dk_release` ``d=2`` on
   the same projection (sensitivity ``θ(2θ+1)``);
3. post-processing: the noisy 2K cells projected onto the released total
   (:func:`~graphanon.dk.release.project_to_total`), made integral per degree class
   (:func:`~graphanon.dk.release.postprocess_2k`), realized by
   :func:`~graphanon.dk.generate.generate_2k`; nodes get new ids ``s0, s1, …`` in random order.

``privacy="edge"`` (ε-edge-DP; the node set is public, ``nodes`` required): the graph keeps
the public node ids (every listed node, isolated ones included). The parts are those of
:func:`_edge_pipeline` (interim: a per-node degree vector and an edge total realized by
Chung–Lu on the node ids; to be replaced by the community release of issue 36, part 4).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._progress import ProgressFn, log_progress, progress_step
from .._validation import EPSILON_RANGE, check_choice, check_epsilon, check_int, check_type
from ..errors import InvalidParameterError
from ..graph import Graph
from ..privacy.noise import NoiseBackend, get_backend
from ..privacy.release import Release, started_at

__all__ = ["NODE_SPLIT", "SyntheticRelease", "synthesize"]

#: The node-DP pipeline's ε split (shares of the total; they sum to 1).
NODE_SPLIT: Mapping[str, float] = {"edge_total": 0.1, "theta_dk2": 0.9}
#: The interim edge-DP pipeline's ε split (:func:`_edge_pipeline`).
_EDGE_SPLIT: Mapping[str, float] = {"edge_total": 0.1, "degrees": 0.9}


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


def synthesize(G: Graph, *, epsilon: float, privacy: str = "edge", nodes: Any = None,
               theta: int = 16, backend: NoiseBackend | None = None,
               rng: np.random.Generator | None = None, seed: int | None = None,
               progress: ProgressFn | None = None) -> SyntheticRelease:
    """Release a synthetic graph of ``G`` under ε-edge-DP or ε-node-DP.

    Parameters
    ----------
    G : Graph
        The private graph.
    epsilon : float
        Total privacy budget; split across the pipeline's parts as the record states.
    privacy : {"edge", "node"}
        The neighbouring relation. ``"edge"``: graphs differing in one edge, over a public
        node set (``nodes``); ``"node"``: graphs differing in one node and all its edges.
    nodes : array-like, optional
        Edge-DP only, and required there: the public node universe (every node of ``G`` must
        be in it). The synthetic graph has exactly these nodes. Refused under node-DP (the
        node set is what node-DP protects).
    theta : int
        Node-DP only: the public degree bound of the EAD projection (default 16).
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
        ε outside its range, an unknown ``privacy``, a missing (edge) or given (node)
        ``nodes``, a ``G`` node missing from ``nodes``, a bad ``theta``.

    Notes
    -----
    **Guarantee.** The release is ε-DP under the chosen neighbourhood by sequential
    composition of its parts (pure ε-DP): each part is one noisy query on ``G`` with
    discrete Laplace noise calibrated to its L1 sensitivity from public parameters only,
    and the graph is post-processing of the noisy answers (with the public ``rng``).

    - node-DP (module docstring): ``edge_total`` ``0.1·ε``, sensitivity ``θ`` (EAD adds the
      new node's edges only while both ends have room and never removes an edge, so one node
      adds at most ``θ`` projected edges); ``theta_dk2`` ``0.9·ε``, sensitivity
      ``θ(2θ+1)`` (:func:`~graphanon.nodedp.theta_dk.node_sensitivity`).
    - edge-DP (interim, :func:`_edge_pipeline`): ``edge_total`` ``0.1·ε``, sensitivity 1 (one
      edge); ``degrees`` ``0.9·ε``, sensitivity 2 (one edge raises two nodes' degrees by 1).

    Both statistics of each neighbourhood are audited by brute force
    (``tests/synthetic/test_pipeline.py``).
    """
    t0 = time.perf_counter()
    started = started_at()
    owner = "synthesize"
    check_type(G, Graph, "G", owner, "a graphanon Graph")
    epsilon = check_epsilon(epsilon, "epsilon", owner)
    privacy = check_choice(privacy, "privacy", owner, ("edge", "node"))
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
                "The 'nodes' parameter of synthesize is required with privacy='edge': the "
                "synthetic graph keeps the public node ids, so it needs the public node "
                "universe (the CLI's --nodes FILE); reading the nodes off the private edges "
                "would leak them.")
        outcome = _edge_pipeline(G.with_nodes(nodes), epsilon=epsilon, backend=backend,
                                 rng=rng, progress=progress)
    else:
        if nodes is not None:
            raise InvalidParameterError(
                "The 'nodes' parameter of synthesize applies to privacy='edge' only: under "
                "node-DP the node set itself is private (the synthetic nodes get new ids).")
        theta = check_int(theta, "theta", owner, low=1, high=1 << 12)
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
def _node_pipeline(G: Graph, *, epsilon: float, theta: int, backend: NoiseBackend,
                   rng: np.random.Generator, seed: int | None,
                   progress: ProgressFn) -> _Outcome:
    """θ-projection edge total + θ-dKε 2K, made consistent and realized (module docstring)."""
    from ..dk.generate import generate_2k
    from ..dk.release import postprocess_2k, project_to_total
    from ..nodedp.projection import project
    from ..nodedp.theta_dk import NODE_SET, node_sensitivity, projection_key, theta_dk_release

    eps = _shares(epsilon, NODE_SPLIT)
    key = projection_key(None, rng)  # public, data-independent ordering of the projection
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
        _Part("edge_total", eps["edge_total"], float(theta),
              "EAD θ-projection: one node keeps at most θ of its edges, each starting one "
              "alternating cascade of net change 0 or +1"),
        _Part("theta_dk2", eps["theta_dk2"], node_sensitivity(2, theta),
              rel.release.sensitivity_derivation),
    )
    params = {"theta": theta, "projection": "ead", "order": "hash", "key": key,
              "node_set": NODE_SET,
              "postprocessing": "2K cells projected onto the released edge total, class "
                                "sizes made integral, realized by the 2K generator (Gjoka et "
                                "al.)",
              "node_ids": "new: s0, s1, ... in random order"}
    summary = {"edge_total": m_hat, "table_edges": int(table.total),
               "nodes": int(n), "edges": int(graph.n_edges)}
    return _Outcome(graph, parts, params, summary)


# ---------------------------------------------------------------------- edge-DP (interim)
def _edge_pipeline(G: Graph, *, epsilon: float, backend: NoiseBackend,
                   rng: np.random.Generator, progress: ProgressFn) -> _Outcome:
    """Interim edge-DP pipeline on the public node ids: a per-node degree vector and an edge
    total, realized by Chung–Lu. ``G`` is already on the public universe (``with_nodes``).

    Parts (sequential composition):

    - ``edge_total`` (``0.1·ε``): ``|E|`` + discrete Laplace; one edge changes it by 1.
    - ``degrees`` (``0.9·ε``): the degree of every node of the public universe, in its order
      (not sorted: Hay et al.'s release sorts, which loses which node has which degree),
      + discrete Laplace; one edge ``uv`` raises ``deg u`` and ``deg v`` by 1, so the L1
      sensitivity is 2.

    Post-processing: the total clipped to ``[0, n(n−1)/2]``, the degrees clipped to
    ``[0, n − 1]`` and projected onto ``2·total`` (one constant shift, :func:`project_to_total`),
    then a Chung–Lu graph with those expected degrees on the node ids.
    """
    from ..dk.release import project_to_total

    eps = _shares(epsilon, _EDGE_SPLIT)
    n = G.n_nodes
    with progress_step(progress, "edge-DP edge total and degrees"):
        # Δ = 1: adding or removing one edge changes |E| by exactly 1.
        m_noisy = int(backend.discrete_laplace(np.asarray([G.n_edges], dtype=np.int64),
                                               sensitivity=1.0, epsilon=eps["edge_total"])[0])
        # Δ = 2: one edge uv changes deg(u) and deg(v) by 1 each, every other entry stays;
        # the node order is the public universe's, so the vector is aligned across
        # neighbours (same node set under edge-DP).
        deg_noisy = backend.discrete_laplace(G.degrees.astype(np.int64), sensitivity=2.0,
                                             epsilon=eps["degrees"])
    m_hat = int(min(max(m_noisy, 0), n * (n - 1) // 2))
    weights = project_to_total(np.clip(deg_noisy, 0, max(n - 1, 0)), 2 * m_hat)
    with progress_step(progress, "Chung-Lu graph on the public node ids"):
        graph = _chung_lu(weights, m_hat, rng, G.node_ids)
    parts = (
        _Part("edge_total", eps["edge_total"], 1.0, "one edge changes |E| by 1"),
        _Part("degrees", eps["degrees"], 2.0,
              "per-node degree vector over the public node set: one edge raises two "
              "entries by 1"),
    )
    params = {"node_universe": "given by the operator (public: the graph keeps its ids)",
              "generator": "chung-lu (interim)",
              "postprocessing": "degrees clipped to [0, n-1] and projected onto twice the "
                                "released edge total; Chung-Lu on the node ids",
              "node_ids": "the public node universe"}
    summary = {"edge_total": m_hat, "nodes": int(n), "edges": int(graph.n_edges)}
    return _Outcome(graph, parts, params, summary)


def _chung_lu(weights: npt.NDArray[np.int64], m: int, rng: np.random.Generator,
              node_ids: Any, rounds: int = 8) -> Graph:
    """A simple graph on ``node_ids`` with about ``m`` edges, endpoints drawn ∝ ``weights``
    (erased Chung–Lu: loops and repeated pairs dropped, redrawn for a few rounds)."""
    n = int(weights.size)
    w = np.asarray(weights, dtype=np.float64)
    if m <= 0 or n < 2 or np.count_nonzero(w) < 2:
        return Graph.from_edges([], [], n_nodes=n, node_ids=node_ids)
    p = w / w.sum()
    keys = np.zeros(0, dtype=np.int64)
    for _ in range(rounds):
        need = m - keys.size
        if need <= 0:
            break
        u = rng.choice(n, size=need, p=p)
        v = rng.choice(n, size=need, p=p)
        ok = u != v
        lo, hi = np.minimum(u[ok], v[ok]), np.maximum(u[ok], v[ok])
        keys = np.unique(np.concatenate([keys, lo.astype(np.int64) * n + hi]))
    if keys.size > m:  # (unique sorted them: keep a uniform subset, not the first pairs)
        keys = rng.choice(keys, size=m, replace=False)
    return Graph.from_edges(keys // n, keys % n, n_nodes=n, node_ids=node_ids)


#: Every pipeline, by neighbourhood (for tests and the benchmark).
PIPELINES: Mapping[str, Callable[..., _Outcome]] = {"edge": _edge_pipeline,
                                                    "node": _node_pipeline}
