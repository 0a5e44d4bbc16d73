"""A private community partition over the public node set, per-node degrees and community
edge counts (edge-DP, node ids kept; issue 36, part 4).

Under edge-DP the node set is public (:mod:`graphanon.universe`): the operator passes it
(``nodes=``), and every released vector below has one entry per listed node, in the order of
``G.with_nodes(nodes).node_ids``. Five noisy statistics, each with its own share of ε
(sequential composition; the shares are stated in the record's ``params["epsilon_split"]``):

1. **Super-node counts** (:func:`release_supergraph_counts`). The nodes are grouped into
   super-nodes of ``super_size`` consecutive positions of the universe (its order is public;
   ``grouping="random"``: a seeded permutation; both are data-independent); the vector of
   edge counts between (and inside) super-nodes gets discrete Laplace noise. One edge lies
   in exactly one cell: **Δ = 1**. Louvain on the noisy, clipped super-graph is
   post-processing. The size itself (``"auto"``, :func:`resolve_super_size`) is read off
   the universe's size, the partition's ε and the edge total of step 5, which
   :func:`community_release` therefore releases first (adaptive sequential composition:
   the partition is ε_p-DP for every fixed size, and the size is a released value).
2. **Refinement** (:func:`refine_partition`). Every node picks its community with the
   exponential mechanism, its quality for community ``c`` being its number of edges into
   ``c`` under the current (released) partition. One edge ``(u, v)`` raises one quality of
   ``u`` (toward ``comm(v)``) and one of ``v`` by 1 and lowers none: each of the two affected
   selections has a *monotone* quality of sensitivity 1, for which ``P ∝ exp(ε' q)`` is
   ε'-DP (McSherry & Talwar 2007, the monotone case); the other selections are unchanged.
   With ``ε' = ε_r / 2`` per node the round is ε_r-edge-DP.
3. **Degree distribution** (:func:`release_degree_cdf`): the cumulative counts
   ``C(k) = #{u : d(u) ≤ k}`` over the public domain ``k = 0..n − 2``. One edge moves each of
   its two ends out of exactly one count: **Δ = 2**. The sorted degree sequence is read off
   them by isotonic regression, its top nodes from the sequence deconvolved from the noisy
   node degrees of step 4, as many as those degrees place above the rest (the others at the
   least degree the counts allow; :func:`graphanon.dk.postprocess.degree_sequence_from_cdf` and
   :func:`~graphanon.dk.postprocess.deconvolve_degrees`, post-processing). With a share of 0
   the whole sequence is deconvolved from the node degrees; Hay et al.'s constrained
   inference on the sorted degrees (:func:`graphanon.nodedp.degree_sequences.hay_degree_sequence`,
   Δ = 2) is used with a ``"degree_sequence"`` share instead. Each node's degree is the
   sequence's value at the node's rank by its noisy degree (post-processing).
4. **Community degrees**, two parts (:func:`release_community_degrees`). Every node's degree
   (:func:`release_node_degrees`): one edge raises two degrees by 1, **Δ = 2**. Given the
   released partition (public), the edge counts ``E_ij`` (``i <= j``) inside and between
   communities (:func:`release_community_edges`): one edge lies in one cell, **Δ = 1**.
   (Before, one vector ``[d_in(u)] ++ [d_out(u)] ++ [E_ij, i < j]`` with Δ = 3: a node's rank
   by its degree then carried the noise of two values at 3/ε each, and with exact degrees a
   per-node intra share did not change the generated graphs; docs/synthetic.md.)

5. **Edge total** (:func:`release_edge_total`): ``|E|``, **Δ = 1**. The noisy degrees' sum
   also estimates ``2|E|``, but its noise grows with ``n`` (variance ``2n/ε_d²`` for
   ``|E|``): on a graph of 105 nodes at ε = 1 Hay's sequence was off by 13 %. The estimates
   are combined with weights from their public variances and the degrees scaled to the
   result (post-processing).

The clustering statistic (:mod:`.clustering`) is a sixth share. :func:`community_release`
runs them all; :func:`graphanon.synthetic.bter.generate_community_graph` realizes the result.

References
----------
Z. Yuan, Y. Li, Y. Zhang, D. Zhang, J. Wang, "PrivGraph: differentially private graph data
publication by exploiting community information", USENIX Security 2023, §4.
F. McSherry, K. Talwar, "Mechanism design via differential privacy", FOCS 2007, §3.
M. Hay, C. Li, G. Miklau, D. Jensen, "Accurate estimation of the degree distribution of
private networks", ICDM 2009.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from .._progress import ProgressFn, log_progress
from .._validation import check_choice, check_epsilon, check_float, check_int, fail
from ..errors import InvalidParameterError
from ..graph import Graph
from ..privacy.noise import NoiseBackend, dp_scale, get_backend, gumbel_argmax
from ..privacy.release import Release, started_at
from .bter import AUTO_BLOCK_MIXING, DEFAULT_BLOCK_DENSITY, DEFAULT_BLOCK_SLOPE

__all__ = [
    "DEFAULT_SPLIT",
    "MAX_SUPER_NODES",
    "SUPER_SIZE",
    "CommunityDegrees",
    "CommunityPartition",
    "CommunityRelease",
    "combine_totals",
    "community_edge_counts",
    "community_release",
    "degree_cdf",
    "private_partition",
    "refine_partition",
    "refinement_scores",
    "release_community_degrees",
    "release_community_edges",
    "release_degree_cdf",
    "release_edge_total",
    "release_node_degrees",
    "release_supergraph_counts",
    "released_modularity",
    "resolve_super_size",
    "supergraph_counts",
    "supergraph_groups",
]

IntArray = npt.NDArray[np.int64]

SUPER_SIZE = 20
"""Nodes per super-node of ``super_size="auto"`` when no released edge count is at hand,
on universes of up to ``SUPER_SIZE · MAX_SUPER_NODES`` nodes."""
MAX_SUPER_NODES = 1000
"""Most super-nodes ``super_size="auto"`` makes (Louvain on ``n_groups² / 2`` noisy cells
is slow: 5,000 super-nodes took 60 s)."""


def resolve_super_size(super_size: int | str, n: int, owner: str, *,
                       edge_estimate: float | None = None, epsilon: float | None = None
                       ) -> int:
    """``super_size`` checked (an int >= 1 or ``"auto"``) and resolved for a universe of
    ``n`` nodes.

    ``"auto"`` with a released edge count ``edge_estimate`` (``Ẽ``, from an ε-DP release)
    and the partition's ``epsilon``: at most ``g = √(√2 · Ẽ · ε)`` super-nodes, so
    ``max(SUPER_SIZE, ⌈n / g⌉)`` nodes each (and at most :data:`MAX_SUPER_NODES`
    super-nodes). Every cell of the super-graph gets discrete Laplace noise of standard
    deviation about ``√2/ε``; ``g`` super-nodes spread the ``Ẽ`` edges over about ``g²/2``
    cells, ``2Ẽ/g²`` each on average, and this ``g`` makes that average equal to the
    noise's deviation: more super-nodes drown the edges in noise. The floor of 20 keeps the
    earlier default where the rule asks for smaller super-nodes: there (polbooks, Reed98,
    Caltech36 at ε ≤ 2) smaller ones found spurious communities (docs/synthetic.md).
    Without an estimate: :data:`SUPER_SIZE`, or ``⌈n / MAX_SUPER_NODES⌉`` on larger
    universes. A function of public and released values only.
    """
    if isinstance(super_size, str):
        if super_size != "auto":
            raise fail("super_size", owner, "an int >= 1 or 'auto'", super_size)
        fewest = -(-n // MAX_SUPER_NODES)  # nodes per super-node at the cap
        if edge_estimate is None or epsilon is None:
            return max(SUPER_SIZE, fewest)
        edge_estimate = check_float(edge_estimate, "edge_estimate", owner)
        epsilon = check_float(epsilon, "epsilon", owner, low=0.0, closed="neither")
        groups = math.sqrt(math.sqrt(2.0) * max(edge_estimate, 1.0) * epsilon)
        return max(SUPER_SIZE, fewest, math.ceil(n / groups))
    return check_int(super_size, "super_size", owner, low=1)


#: The cumulative degree counts are released only on universes of at least this many nodes
#: per noise scale ``2/ε_c`` of a count (public ``n`` and ε; else their share goes to the node
#: degrees): below it a count's noise is more than 2 % of the nodes and the sequence is worse
#: than the one deconvolved from the node degrees (polbooks, 105 nodes: degree KS 0.10 → 0.16
#: at ε = 1); near it the two are level (Caltech36, 769 nodes, 58 per scale at ε = 1:
#: 0.022 → 0.027; docs/synthetic.md).
CDF_MIN_NODES = 50.0

#: Default shares of ε: super-node counts, refinement, Hay degree sequence (0), cumulative
#: degree counts (at most one of the two > 0; with neither the sequence is deconvolved from
#: the node degrees), node degrees, community edge counts, triangle statistic, edge total
#: (they sum to 1). Measured over six
#: graphs at ε ∈ {1, 2}, 8 seeds (docs/synthetic.md): the edge total's 0.05 came from the
#: super-node counts (0.2 before; 0.1 lost Wiki-Vote's partition), the node degrees took
#: Hay's 0.25, and 0.15 of the triangles' 0.25 when the smooth statistic made them 8–40×
#: cheaper. The edge total then took 0.05 of the node degrees' 0.67. The cumulative degree
#: counts took 0.15 of the node degrees' 0.62 (8 seeds over six datasets, nine families and
#: five held-out graphs, ε ∈ {0.5, 1, 2, 4}): degree KS 2–4× lower, the node-aligned metrics
#: a little worse (a node's rank by a noisier degree), the criterion's counts against four
#: published generators level (477 / 615 of 960 cells against 479 / 615). Taking the share
#: from the super-node counts (0.15 → 0.05) counted more (493 / 638), all on the random
#: families, but the datasets' NMI fell on 19 of 24 cells and a 100,000-node planted graph
#: got 39 communities instead of 48 (docs/synthetic.md, "the degree distribution from
#: cumulative counts").
DEFAULT_SPLIT: dict[str, float] = {"supergraph": 0.15, "refine": 0.0, "degree_sequence": 0.0,
                                   "degree_cdf": 0.15, "node_degrees": 0.47,
                                   "community_edges": 0.03, "triangles": 0.10,
                                   "edge_total": 0.10}


def _check_graph(G: Any, owner: str) -> None:
    if not isinstance(G, Graph):
        raise InvalidParameterError(
            f"The 'G' parameter of {owner} must be a graphanon Graph. Got {type(G).__name__}.")


def _require_nodes(nodes: Any, owner: str) -> None:
    if nodes is None:
        raise InvalidParameterError(
            f"The 'nodes' parameter of {owner} is required: the release has one entry per node "
            "of the public node universe (the CLI's --nodes FILE); the node set of an edge "
            "list is a function of its private edges.")


# ---------------------------------------------------------------------- 1. super-node counts
def supergraph_groups(n: int, super_size: int, rng: np.random.Generator,
                      grouping: str = "order") -> IntArray:
    """A grouping of ``n`` nodes into ``⌈n / super_size⌉`` super-nodes, data-independent:
    ``"order"`` — consecutive positions of the public universe as the operator lists it
    (:func:`listing_rank`; a listing that carries locality, such as crawl or ego-network
    order, puts one community's nodes together; one in random order makes it a random
    grouping); ``"random"`` — a seeded permutation. A random grouping mixes
    every community into every super-node (measured: no signal, docs/synthetic.md)."""
    n_groups = max(1, -(-n // super_size))
    if grouping == "order":
        return np.arange(n, dtype=np.int64) // super_size
    groups = np.empty(n, dtype=np.int64)
    groups[rng.permutation(n)] = np.arange(n) % n_groups
    return groups


def listing_rank(G: Graph, nodes: Any) -> IntArray:
    """Each node's position in the operator's listing ``nodes`` (first occurrence), for the
    nodes of ``G`` (on that universe). The graph keeps its ids sorted; a universe file
    listed in crawl or ego-network order carries the locality the ``"order"`` grouping
    uses, and sorting string ids ("n10" before "n2") would break it. Public: a function of
    the public listing."""
    idx = G.index_of(nodes)
    uniq, first = np.unique(idx, return_index=True)
    rank = np.empty(G.n_nodes, dtype=np.int64)
    rank[uniq[np.argsort(first)]] = np.arange(uniq.size)
    return rank


def _pair_cells(a: IntArray, b: IntArray, k: int) -> IntArray:
    """Index of the unordered pair ``{a, b}`` (diagonal included) in the upper triangle of a
    ``k × k`` matrix, row by row."""
    i, j = np.minimum(a, b), np.maximum(a, b)
    return np.asarray(i * k - i * (i - 1) // 2 + (j - i), dtype=np.int64)


def supergraph_counts(G: Graph, groups: IntArray, n_groups: int) -> IntArray:
    """Edge counts between super-nodes ``i <= j`` (upper triangle with the diagonal, row by
    row; ``n_groups (n_groups + 1) / 2`` cells). One edge adds 1 to exactly one cell."""
    u, v = G.edges()
    cells = n_groups * (n_groups + 1) // 2
    return np.bincount(_pair_cells(groups[u], groups[v], n_groups), minlength=cells
                       ).astype(np.int64)


def release_supergraph_counts(G: Graph, groups: IntArray, n_groups: int, *, epsilon: float,
                              backend: NoiseBackend) -> IntArray:
    """:func:`supergraph_counts` plus discrete Laplace noise: ε-edge-DP.

    Notes
    -----
    Neighbourhood **edge**, same (public) node set and the same public grouping. Adding or
    removing one edge ``(u, v)`` changes only the cell ``{groups[u], groups[v]}``, by 1:
    L1 sensitivity **Δ = 1**.
    """
    counts = supergraph_counts(G, groups, n_groups)
    # Δ = 1: one edge changes one cell by one (derivation above)
    return np.asarray(backend.discrete_laplace(counts, sensitivity=1, epsilon=epsilon),
                      dtype=np.int64)


def _louvain(n: int, u: IntArray, v: IntArray, w: npt.NDArray[np.float64], seed: int
             ) -> IntArray:
    from .._igraph import load

    igraph = load()
    g = igraph.Graph(n=n, edges=np.column_stack([u, v]).tolist(), directed=False)
    igraph.set_random_number_generator(random.Random(seed))
    try:
        part = g.community_multilevel(weights=w.tolist() if w.size else None)
    finally:
        igraph.set_random_number_generator(random)
    return np.asarray(part.membership, dtype=np.int64)


def _supergraph_partition(noisy: IntArray, n_groups: int, seed: int) -> IntArray:
    """Louvain (weighted) on the super-graph whose cell weights are the clipped noisy counts:
    post-processing. Returns the community of each super-node."""
    iu, ju = np.triu_indices(n_groups)
    w = np.clip(noisy, 0, None).astype(np.float64)
    keep = w > 0
    if not keep.any():
        return np.zeros(n_groups, dtype=np.int64)
    return _louvain(n_groups, iu[keep], ju[keep], w[keep], seed)


# ---------------------------------------------------------------------- 2. refinement
def refinement_scores(G: Graph, membership: IntArray, n_communities: int
                      ) -> npt.NDArray[np.int64]:
    """``S[u, c]``: the number of ``u``'s edges into community ``c`` (an ``n × k`` matrix).
    One edge ``(u, v)`` adds 1 to ``S[u, comm(v)]`` and to ``S[v, comm(u)]``."""
    import scipy.sparse as sp

    n = G.n_nodes
    onehot = sp.csr_array((np.ones(n, dtype=np.int64), (np.arange(n), membership)),
                          shape=(n, n_communities))
    A = G.to_scipy().astype(np.int64)
    return np.asarray((A @ onehot).toarray(), dtype=np.int64)


def refine_partition(G: Graph, membership: IntArray, *, epsilon: float,
                     backend: NoiseBackend, stay: float = 0.0) -> IntArray:
    """One round of exponential-mechanism refinement: ε-edge-DP given a public
    ``membership``.

    Every node ``u`` draws its new community ``c`` with probability
    ``∝ μ_c exp(ε/2 · S[u, c])``, ``log μ_c = stay`` for its current community and 0 for the
    others (a public base measure) (:func:`refinement_scores`), by Gumbel-max on the backend's
    uniforms (one draw of ``n × k`` uniforms, :func:`~graphanon.privacy.noise.gumbel_argmax`).

    Notes
    -----
    Neighbourhood **edge**. One edge ``(u, v)`` raises ``S[u, comm(v)]`` and
    ``S[v, comm(u)]`` by 1 and changes no other score: the selections of ``u`` and ``v`` each
    see a monotone quality change of at most 1 (sensitivity 1), for which the exponential
    mechanism ``∝ exp(ε' q / Δ)`` is ε'-DP (McSherry & Talwar 2007: with all qualities moving
    the same way the normalizer cancels one of the two factors ``e^{ε'}``). Every other
    node's selection has the same distribution on both graphs. With ``ε' = ε / 2`` the two
    affected selections together are ε-edge-DP.
    """
    k = int(membership.max()) + 1 if membership.size else 1
    scores = refinement_scores(G, membership, k).astype(np.float64)
    n = G.n_nodes
    if n == 0:
        return membership.copy()
    eps_node = epsilon / 2.0  # two selections change per edge; Δ = 1, monotone quality
    score = eps_node * scores
    score[np.arange(n), membership] += stay  # public base measure: favour the current one
    return gumbel_argmax(score, backend)  # the n × k uniforms of one call, row by row


def _relabel(membership: IntArray) -> tuple[IntArray, int]:
    """Communities renumbered ``0..k−1`` by decreasing size (empty ones dropped)."""
    if membership.size == 0:
        return membership, 0
    labels, inv, sizes = np.unique(membership, return_inverse=True, return_counts=True)
    order = np.argsort(-sizes, kind="stable")
    rank = np.empty(labels.size, dtype=np.int64)
    rank[order] = np.arange(labels.size)
    return rank[inv].astype(np.int64), int(labels.size)


@dataclass(frozen=True)
class CommunityPartition:
    """A released community partition of the public node set.

    Attributes
    ----------
    node_ids
        The universe's ids, in the order of ``membership``.
    membership
        Community of each node, ``0..n_communities − 1`` (largest first).
    release
        Record of the two noisy steps (super-node counts and refinement).
    """

    node_ids: npt.NDArray[Any]
    membership: IntArray
    n_communities: int
    release: Release
    seconds: float = field(default=0.0, compare=False)


def private_partition(G: Graph, *, epsilon: float, nodes: Any, super_size: int | str = "auto",
                      edge_estimate: float | None = None,
                      refine_share: float = 0.0, rounds: int = 1, stay: float = 6.0,
                      grouping: str = "order",
                      backend: NoiseBackend | None = None,
                      rng: np.random.Generator | None = None, seed: int | None = None
                      ) -> CommunityPartition:
    """An ε-edge-DP community partition of the public node set (PrivGraph's idea).

    Parameters
    ----------
    G : Graph
    epsilon : float
        Total ε of the partition: ``(1 − refine_share) ε`` for the super-node counts and
        ``refine_share · ε`` split evenly over the refinement ``rounds``.
    nodes : array-like
        The public node universe (required).
    super_size : int or "auto"
        Nodes per super-node (public). ``"auto"`` (default; :func:`resolve_super_size`):
        from ``edge_estimate`` and the super-graph's ε when given, else 20 (more above 20,000
        nodes); at most :data:`MAX_SUPER_NODES` super-nodes.
    edge_estimate : float, optional
        A **released** estimate of ``|E|`` (e.g. :func:`release_edge_total`'s, charged
        separately), read only by ``super_size="auto"``. Never pass the true count: the
        size of the super-nodes would then depend on the data outside any DP release.
    grouping : {"order", "random"}
        How super-nodes are formed (:func:`supergraph_groups`).
    refine_share : float in [0, 1)
        Share of ε for the refinement (default 0: measured neutral at best).
    rounds : int
        Refinement rounds (each re-scores against the previous round's partition).
    stay : float
        Log weight of a public base measure favouring a node's current community in the
        refinement (``exp(stay)`` times the others; public, so the mechanism stays ε-DP).
        Without it low-degree nodes are reassigned almost at random (docs/synthetic.md).
    backend, rng, seed
        Noise backend (default OpenDP), the generator of the public grouping and of
        Louvain's node order (post-processing), and the seed recorded.

    Notes
    -----
    Neighbourhood **edge**: super-node counts Δ = 1 (:func:`release_supergraph_counts`),
    each refinement round ε-edge-DP by the monotone exponential mechanism
    (:func:`refine_partition`); sequential composition over the steps.
    """
    owner = "private_partition"
    t0 = time.perf_counter()
    started = started_at()
    _check_graph(G, owner)
    _require_nodes(nodes, owner)
    epsilon = check_epsilon(epsilon, "epsilon", owner)
    size_given = not isinstance(super_size, str)
    if edge_estimate is not None:
        edge_estimate = check_float(edge_estimate, "edge_estimate", owner)
    refine_share = check_float(refine_share, "refine_share", owner, low=0.0, high=1.0,
                               closed="left")
    rounds = check_int(rounds, "rounds", owner, low=0, high=20)
    grouping = check_choice(grouping, "grouping", owner, ("order", "random"))
    if refine_share > 0 and rounds == 0:
        raise InvalidParameterError(
            f"The 'rounds' parameter of {owner} must be >= 1 when refine_share > 0. Got 0.")
    G = G.with_nodes(nodes)
    eps_super = epsilon * (1.0 - refine_share)
    super_size = resolve_super_size(super_size, G.n_nodes, owner, edge_estimate=edge_estimate,
                                    epsilon=eps_super)
    backend = backend or get_backend("opendp")
    rng = rng if rng is not None else np.random.default_rng(seed)
    n = G.n_nodes
    groups = supergraph_groups(n, super_size, rng, grouping)
    if grouping == "order" and n:  # consecutive in the operator's listing, not in id order
        groups = groups[listing_rank(G, nodes)]
    n_groups = int(groups.max()) + 1 if n else 1
    noisy = release_supergraph_counts(G, groups, n_groups, epsilon=eps_super, backend=backend)
    comm_of_group = _supergraph_partition(noisy, n_groups, int(rng.integers(2**31)))
    membership, k = _relabel(comm_of_group[groups] if n else groups)
    eps_round = epsilon * refine_share / rounds if rounds else 0.0
    for _ in range(rounds if refine_share > 0 else 0):
        membership, k = _relabel(refine_partition(G, membership, epsilon=eps_round,
                                                  backend=backend, stay=stay))
    release = Release.create(
        mechanism="private-partition", neighbourhood="edge", epsilon=epsilon,
        sensitivity=1.0,
        sensitivity_derivation="super-node counts: one edge changes one cell by 1; "
                               "refinement: one edge raises one score of two nodes by 1 "
                               "(monotone exponential mechanism at ε_round/2 per node)",
        params={"node_universe": "given by the operator (public)", "super_size": super_size,
                "super_size_selection": (
                    "given" if size_given else
                    f"auto: max({SUPER_SIZE}, ⌈n / {MAX_SUPER_NODES}⌉) of the public universe"
                    if edge_estimate is None else
                    f"auto: max({SUPER_SIZE}, ⌈n / g⌉), g = √(√2 · Ẽ · ε_super) super-nodes "
                    f"(at most {MAX_SUPER_NODES}) from the released edge estimate Ẽ = "
                    f"{float(edge_estimate):.0f}"),
                "grouping": grouping,
                "epsilon_split": {"supergraph": eps_super, "refine": epsilon - eps_super},
                "rounds": rounds, "n_communities": k,
                "postprocessing": "Louvain on the clipped noisy super-graph; communities "
                                  "renumbered by size"},
        backend=backend.name, seed=seed, source_fingerprint=G.content_hash, created_at=started)
    return CommunityPartition(G.node_ids, membership, k, release, time.perf_counter() - t0)


# ---------------------------------------------------------------------- 4. community degrees
def community_edge_counts(G: Graph, membership: IntArray, n_communities: int) -> IntArray:
    """``[E_ij for i <= j]`` (upper triangle with the diagonal, row by row): the edges inside
    each community (``E_ii``) and between each pair, the statistic
    :func:`release_community_edges` noises."""
    k = n_communities
    u, v = G.edges()
    a = np.minimum(membership[u], membership[v])
    b = np.maximum(membership[u], membership[v])
    cell = a * k - a * (a - 1) // 2 + (b - a)
    return np.bincount(cell, minlength=k * (k + 1) // 2).astype(np.int64)


def _edges_matrix(vec: npt.NDArray[Any], k: int) -> npt.NDArray[np.int64]:
    E = np.zeros((k, k), dtype=np.int64)
    iu, ju = np.triu_indices(k)
    E[iu, ju] = vec
    E[ju, iu] = vec
    return E


@dataclass(frozen=True)
class CommunityDegrees:
    """Noisy per-node degrees and community edge counts (raw, before post-processing).

    ``degrees`` has one entry per node of the universe; ``edges`` is the symmetric ``k × k``
    matrix of the noisy ``E_ij`` (``E_ii``: edges inside community ``i``)."""

    degrees: IntArray
    edges: npt.NDArray[np.int64]
    releases: tuple[Release, Release]


def release_node_degrees(G: Graph, *, epsilon: float, nodes: Any,
                         backend: NoiseBackend | None = None, seed: int | None = None
                         ) -> tuple[IntArray, Release]:
    """Every node's degree over the public universe, ε-edge-DP (noisy, may be negative).

    Notes
    -----
    Neighbourhood **edge** (same public node set): one edge ``(u, v)`` more or less changes
    the degrees of ``u`` and ``v`` by 1 each and no other: L1 sensitivity **Δ = 2**; one
    discrete Laplace call on the vector.
    """
    # Δ = 2: one edge changes two degrees by one (derivation above)
    return _count_release(
        "release_node_degrees", G, nodes, epsilon, backend, seed,
        query=lambda U: U.degrees.astype(np.int64), sensitivity=2, mechanism="node-degrees",
        derivation="one edge changes the degrees of its two ends by 1 (L1 2)")


def release_community_edges(G: Graph, membership: Any, *, epsilon: float, nodes: Any,
                            backend: NoiseBackend | None = None, seed: int | None = None
                            ) -> tuple[npt.NDArray[np.int64], Release]:
    """The edge counts inside and between the communities of a public partition
    ``membership`` of the universe ``nodes``, ε-edge-DP: the symmetric ``k × k`` matrix.

    Notes
    -----
    Neighbourhood **edge** (same node set, same public partition): one edge lies in exactly
    one cell ``E_ij`` (``i <= j``, its ends' communities) and changes it by 1: **Δ = 1**; one
    discrete Laplace call on the upper triangle with the diagonal.
    """
    owner = "release_community_edges"
    m = np.asarray(membership, dtype=np.int64)
    k = int(m.max()) + 1 if m.size else 1

    def query(U: Graph) -> IntArray:
        if m.shape != (U.n_nodes,) or (m.size and m.min() < 0):
            raise InvalidParameterError(
                f"The 'membership' parameter of {owner} must hold one community index >= 0 "
                f"per node of the universe ({U.n_nodes}). Got shape {m.shape}.")
        return community_edge_counts(U, m, k)

    # Δ = 1: one edge, one cell (derivation above)
    noisy, release = _count_release(
        owner, G, nodes, epsilon, backend, seed, query=query, sensitivity=1,
        mechanism="community-edges",
        derivation="one edge lies in one cell E_ij of its ends' communities",
        params={"n_communities": k, "partition": "public (a released partition)"})
    return _edges_matrix(noisy, k), release


def release_community_degrees(G: Graph, membership: Any, *, epsilon_degrees: float,
                              epsilon_edges: float, nodes: Any,
                              backend: NoiseBackend | None = None, seed: int | None = None
                              ) -> CommunityDegrees:
    """Both community-degree parts: :func:`release_node_degrees` at ``epsilon_degrees`` and
    :func:`release_community_edges` at ``epsilon_edges`` (sequential composition: their
    sum)."""
    d, rd = release_node_degrees(G, epsilon=epsilon_degrees, nodes=nodes, backend=backend,
                                 seed=seed)
    E, re = release_community_edges(G, membership, epsilon=epsilon_edges, nodes=nodes,
                                    backend=backend, seed=seed)
    return CommunityDegrees(d, E, (rd, re))


# ---------------------------------------------------------------------- 5. edge total
def release_edge_total(G: Graph, *, epsilon: float, nodes: Any,
                       backend: NoiseBackend | None = None, seed: int | None = None
                       ) -> tuple[int, Release]:
    """The number of edges ``|E|``, ε-edge-DP: the noisy count (may be negative) and its
    record.

    Notes
    -----
    Neighbourhood **edge** (same public node set): one edge more or less changes ``|E|`` by
    exactly 1, so the L1 sensitivity is **Δ = 1**; one discrete Laplace draw.
    """
    # Δ = 1: one edge changes the count by one (derivation above)
    noisy, release = _count_release(
        "release_edge_total", G, nodes, epsilon, backend, seed,
        query=lambda U: np.array([U.n_edges], dtype=np.int64), sensitivity=1,
        mechanism="edge-total", derivation="one edge changes |E| by 1")
    return int(noisy[0]), release


# ---------------------------------------------------------------------- 6. degree CDF
def degree_cdf(G: Graph) -> IntArray:
    """``C(k) = #{u : d(u) ≤ k}`` for ``k = 0..n − 2`` (``C(n − 1) = n`` always: not a
    statistic)."""
    n = int(G.n_nodes)
    if n < 2:
        return np.zeros(0, dtype=np.int64)
    return np.cumsum(np.bincount(G.degrees, minlength=n))[:n - 1].astype(np.int64)


def release_degree_cdf(G: Graph, *, epsilon: float, nodes: Any,
                       backend: NoiseBackend | None = None, seed: int | None = None
                       ) -> tuple[IntArray, Release]:
    """The cumulative degree histogram over the public universe, ε-edge-DP: the noisy
    ``C(k) = #{u : d(u) ≤ k}`` for ``k = 0..n − 2`` (:func:`degree_cdf`; may be negative or
    decreasing: :func:`graphanon.dk.postprocess.degree_sequence_from_cdf` makes it
    consistent).

    Notes
    -----
    Neighbourhood **edge** (same public node set ``n``, so the domain ``0..n − 2`` is
    public: no degree bound to guess). One edge ``(u, v)`` more raises ``d(u)`` and ``d(v)``
    by 1 and no other degree. ``u`` moving from ``d(u)`` to ``d(u) + 1`` leaves ``C(k)``
    unchanged for every ``k`` except ``k = d(u)``, which loses 1; the same for ``v`` (if
    ``d(u) = d(v)`` that one count loses 2). L1 sensitivity **Δ = 2**; one discrete Laplace
    call on the vector. (The histogram itself has Δ = 4: each end leaves one bin and enters
    the next.)
    """
    # Δ = 2: each end of the edge moves out of exactly one cumulative count (derivation above)
    return _count_release(
        "release_degree_cdf", G, nodes, epsilon, backend, seed, query=degree_cdf,
        sensitivity=2, mechanism="degree-cdf",
        derivation="one edge moves each of its two ends out of exactly one cumulative count "
                   "C(d) (L1 2)",
        params={"domain": "k = 0..n − 2 (n public)"})


def _count_release(owner: str, G: Any, nodes: Any, epsilon: Any,
                   backend: NoiseBackend | None, seed: int | None, *,
                   query: Any, sensitivity: int, mechanism: str, derivation: str,
                   params: dict[str, Any] | None = None) -> tuple[IntArray, Release]:
    """One count vector ``query(G on the universe)`` with discrete Laplace noise calibrated
    to ``sensitivity`` (the caller's derivation) at ``epsilon``, and its edge-DP record."""
    started = started_at()
    _check_graph(G, owner)
    _require_nodes(nodes, owner)
    epsilon = check_epsilon(epsilon, "epsilon", owner)
    U = G.with_nodes(nodes)
    backend = backend or get_backend("opendp")
    noisy = np.asarray(backend.discrete_laplace(query(U), sensitivity=sensitivity,
                                                epsilon=epsilon), dtype=np.int64)
    release = Release.create(
        mechanism=mechanism, neighbourhood="edge", epsilon=epsilon,
        sensitivity=float(sensitivity), sensitivity_derivation=derivation,
        params={"node_universe": "given by the operator (public)", **(params or {})},
        backend=backend.name, seed=seed, source_fingerprint=U.content_hash, created_at=started)
    return noisy, release


def combine_totals(estimates: list[tuple[float, float]]) -> float:
    """Post-processing: the inverse-variance weighted mean of independent unbiased estimates
    ``(value, variance)`` of one quantity, the variances being public (noise scales). An
    estimate of variance 0 is exact (an empty degree sequence sums to 0): it is the answer."""
    exact = [e for e, v in estimates if v <= 0]
    if exact:
        return float(np.mean(exact))
    w = np.array([1.0 / v for _, v in estimates], dtype=np.float64)
    x = np.array([e for e, _ in estimates], dtype=np.float64)
    return float((w * x).sum() / w.sum())


# ---------------------------------------------------------------------- post-processing
def _project_groups(values: npt.NDArray[np.float64], groups: IntArray, totals: IntArray,
                    caps: npt.NDArray[np.int64] | None = None) -> IntArray:
    """Per group, the non-negative integers closest to ``values`` summing to ``totals[g]``
    (:func:`graphanon.dk.postprocess.project_to_total`), optionally capped."""
    from ..dk.postprocess import project_to_total

    out = np.zeros(values.size, dtype=np.int64)
    order = np.argsort(groups, kind="stable")
    bounds = np.searchsorted(groups[order], np.arange(int(totals.size) + 1))
    for g in range(totals.size):
        idx = order[bounds[g]:bounds[g + 1]]
        if idx.size == 0 or totals[g] <= 0:
            continue
        y = project_to_total(values[idx], int(totals[g]))
        if caps is not None:
            y = np.minimum(y, caps[idx])
        out[idx] = y
    return out


def _symmetric_fit(E: npt.NDArray[np.float64], rows: npt.NDArray[np.float64],
                   iters: int = 200) -> npt.NDArray[np.float64]:
    """Scale a non-negative symmetric matrix (zero diagonal) so its row sums approach
    ``rows`` (symmetric iterative proportional fitting)."""
    X = np.array(E, dtype=np.float64)
    for _ in range(iters):
        r = X.sum(axis=1)
        f = np.where(r > 0, rows / np.where(r > 0, r, 1.0), 0.0)
        s = np.sqrt(f)
        X = X * s[:, None] * s[None, :]
    return X


def _round_symmetric(X: npt.NDArray[np.float64], total: int) -> npt.NDArray[np.int64]:
    from ..dk.postprocess import largest_remainder

    k = X.shape[0]
    iu, ju = np.triu_indices(k, 1)
    vals = largest_remainder(X[iu, ju], max(int(total), 0)) if iu.size else np.zeros(0, np.int64)
    out = np.zeros((k, k), dtype=np.int64)
    out[iu, ju] = vals
    out[ju, iu] = vals
    return out


def consistent_degrees(raw: CommunityDegrees, membership: IntArray, k: int, *,
                       degree_sequence: IntArray | None, rng: np.random.Generator,
                       edge_total: int | None = None
                       ) -> tuple[IntArray, IntArray, npt.NDArray[np.int64]]:
    """Post-processing: non-negative integer ``d_in``, ``d_out`` and a symmetric integer
    inter-community ``E`` (zero diagonal) consistent with them.

    Each node's degree is the released sorted ``degree_sequence`` at the node's rank by its
    noisy degree (ties broken at random), else the noisy degree clipped at 0; with
    ``edge_total`` (a released estimate of ``|E|``) the degrees are scaled to sum to twice it
    (largest remainder, capped at ``n − 1``). A node's share inside its community is its
    community's ``F_c = 2E_cc / (2E_cc + Σ_{j≠c} E_cj)`` from the clipped noisy counts (with
    exact degrees a per-node share made no difference to the generated graphs, and it cost a
    second noisy value per node: docs/synthetic.md). The inter-community counts are projected
    onto the total of the ``d_out`` (clipped and shifted down by one constant), then scaled
    to the communities' ``d_out`` sums.
    """
    n = membership.size
    noisy = raw.degrees.astype(np.float64)
    sizes = np.bincount(membership, minlength=k)
    if degree_sequence is not None and n:
        order = np.lexsort((rng.random(n), noisy))
        deg = np.empty(n, dtype=np.int64)
        deg[order] = np.sort(np.asarray(degree_sequence, dtype=np.int64))
    else:
        deg = np.clip(np.rint(noisy), 0, max(n - 1, 0)).astype(np.int64)
    if edge_total is not None and n and deg.sum() > 0:
        from ..dk.postprocess import largest_remainder

        deg = np.minimum(largest_remainder(deg.astype(np.float64), 2 * max(int(edge_total), 0)),
                         max(n - 1, 0))
    Ec = np.clip(raw.edges.astype(np.float64), 0.0, None)
    intra = 2.0 * np.diag(Ec)
    inter = Ec.sum(axis=1) - np.diag(Ec)
    frac_c = np.where(intra + inter > 0, intra / np.maximum(intra + inter, 1e-12), 0.5)
    din = np.minimum(np.rint(deg * frac_c[membership]).astype(np.int64),
                     sizes[membership] - 1)
    din = np.maximum(din, 0)
    # an even stub sum per community: drop one stub from its largest d_in
    odd = np.flatnonzero(np.bincount(membership, weights=din, minlength=k).astype(np.int64) % 2)
    for c in odd.tolist():
        idx = np.flatnonzero(membership == c)
        din[idx[np.argmax(din[idx])]] -= 1
    dout = np.maximum(deg - din, 0)
    rows = np.bincount(membership, weights=dout, minlength=k).astype(np.float64)
    iu, ju = np.triu_indices(k, 1)
    from ..dk.postprocess import project_to_total

    E = np.zeros((k, k))
    if iu.size and rows.sum() > 0:
        proj = project_to_total(raw.edges[iu, ju], round(float(rows.sum()) / 2))
        E[iu, ju] = proj
        E[ju, iu] = proj
        # a community with stubs but no projected cell: spread its stubs by size
        empty = (E.sum(axis=1) == 0) & (rows > 0)
        if empty.any():
            E = E + 1e-6 * np.outer(rows, rows) * (1 - np.eye(k))
        E = _symmetric_fit(E, rows)
    Ei = _round_symmetric(E, round(float(rows.sum()) / 2))
    return din, dout, Ei


def _even(d: IntArray) -> IntArray:
    d = np.asarray(d, dtype=np.int64).copy()
    if d.size and int(d.sum()) % 2:
        d[int(np.argmax(d))] -= 1
    return d


def released_modularity(membership: IntArray, k: int, d_in: IntArray, d_out: IntArray,
                        inter: npt.NDArray[np.int64]) -> float:
    """Modularity of the released partition as the released degrees state it:
    ``Σ_c L_c / m − (D_c / 2m)²`` with ``L_c = Σ_{u∈c} d_in(u) / 2``, ``D_c`` the community's
    degree sum and ``m`` the released edge total (post-processing)."""
    L = np.bincount(membership, weights=d_in, minlength=k) / 2.0
    D = np.bincount(membership, weights=d_in + d_out, minlength=k)
    m = L.sum() + np.triu(inter, 1).sum()
    if m <= 0:
        return 0.0
    return float((L / m - (D / (2.0 * m)) ** 2).sum())


# ---------------------------------------------------------------------- composed release
@dataclass(frozen=True)
class CommunityRelease:
    """Everything the community generator needs, all public (released or post-processed).

    Attributes
    ----------
    node_ids
        The universe (order of every per-node array).
    membership, n_communities
        The released partition.
    d_in, d_out
        Per-node degree inside / outside the community (post-processed integers).
    inter
        ``k × k`` symmetric integer inter-community edge counts (zero diagonal).
    max_degree
        The degree bound of the triangle statistic (public or from the released sequence).
    triangles
        Released degree-bounded triangle statistic (``params["triangle_statistic"]`` of the
        record; may be noisy-negative).
    block_density
        BTER block density fitted to ``triangles`` (post-processing), or ``None``.
    block_slope
        The public block slope ``β`` of the generator (blocks of smallest degree ``d`` get
        density ``ρ (h / d)^β``; :data:`graphanon.synthetic.bter.DEFAULT_BLOCK_SLOPE`).
    block_mixing
        The generator's block mixing ``σ`` (:func:`graphanon.synthetic.bter.affinity_blocks`;
        0: equal-degree blocks), chosen from released values only.
    release
        One record: neighbourhood ``"edge"``, the total ε, ``params["epsilon_split"]`` and
        each part's sensitivity and derivation.
    parts
        The per-part records.
    """

    node_ids: npt.NDArray[Any]
    membership: IntArray
    n_communities: int
    d_in: IntArray
    d_out: IntArray
    inter: npt.NDArray[np.int64]
    max_degree: int
    triangles: float
    block_density: float | None
    release: Release
    parts: dict[str, Release] = field(default_factory=dict)
    seconds: float = field(default=0.0, compare=False)
    block_slope: float = DEFAULT_BLOCK_SLOPE
    block_mixing: float = 0.0

    @property
    def n_edges(self) -> int:
        """Edges the release asks for: intra stubs / 2 plus the inter-community counts."""
        return int(self.d_in.sum() // 2 + np.triu(self.inter, 1).sum())


def _check_split(split: Any, owner: str) -> dict[str, float]:
    if split is None:
        return dict(DEFAULT_SPLIT)
    if not isinstance(split, dict) or set(split) - set(DEFAULT_SPLIT):
        raise InvalidParameterError(
            f"The 'split' parameter of {owner} must be a dict with keys among "
            f"{sorted(DEFAULT_SPLIT)}. Got {split!r} instead.")
    out = {k: check_float(split.get(k, 0.0), f"split[{k!r}]", owner, low=0.0)
           for k in DEFAULT_SPLIT}
    if out["degree_sequence"] > 0 and out["degree_cdf"] > 0:
        raise InvalidParameterError(
            f"The 'split' parameter of {owner} must give a share to at most one of "
            f"'degree_sequence' and 'degree_cdf' (both estimate the degree distribution). "
            f"Got {split!r} instead.")
    for key in ("supergraph", "node_degrees", "community_edges"):
        if out[key] <= 0:
            raise InvalidParameterError(
                f"The 'split' parameter of {owner} must give {key!r} a share > 0. "
                f"Got {split!r} instead.")
    total = sum(out.values())
    return {k: v / total for k, v in out.items()}


def community_release(G: Graph, *, epsilon: float, nodes: Any, split: dict[str, float] | None
                      = None, max_degree: int | str = "auto", degree_quantile: float = 0.99,
                      super_size: int | str = "auto", rounds: int = 1,
                      min_modularity: float = 0.1,
                      triangle_statistic: str = "smooth", fit_clustering: bool = True,
                      block_slope: float | None = None, block_mixing: float | str = "auto",
                      backend: NoiseBackend | None = None, rng: np.random.Generator | None
                      = None, seed: int | None = None, progress: ProgressFn | None = None
                      ) -> CommunityRelease:
    """The ε-edge-DP release of the community pipeline: partition, degree sequence,
    community degrees and a degree-bounded triangle statistic.

    Parameters
    ----------
    G : Graph
    epsilon : float
        Total ε, split by ``split`` (default :data:`DEFAULT_SPLIT`; shares are normalized to
        sum to 1; ``"degree_cdf"`` (the cumulative degree counts; not released, their share
        going to the node degrees, on universes of fewer than :data:`CDF_MIN_NODES` nodes
        per noise scale ``2/ε_c``) or ``"degree_sequence"`` (Hay's sorted degrees, default 0;
        at most one of the two: with neither the sequence is deconvolved from the node
        degrees), ``"edge_total"`` or ``"triangles"`` may be 0 to skip that part).
    nodes : array-like
        The public node universe (required).
    max_degree : int or "auto"
        Degree bound ``h`` of the triangle statistic; ``"auto"``: the ``degree_quantile`` of
        the non-zero degrees of the released degree sequence (post-processing).
    super_size, rounds
        Of :func:`private_partition`.
    min_modularity : float
        Below this modularity of the released partition (computed from the released
        community degrees: post-processing) the partition is dropped and the whole graph is
        one community: a grouping of node ids in random order finds no communities, and
        realizing its near-uniform inter-community counts would erase clustering.
    triangle_statistic : {"smooth", "count", "weighted"}
        The clustering statistic (:func:`graphanon.synthetic.clustering.release_bounded_triangles`):
        ``S_h`` (default; triangles fading out between largest degree ``h`` and ``2h``,
        Δ ``(2h − 2)(3h − 1)/h``), the count ``T_h`` (Δ ``h(h − 1)``) or ``W_h`` (Δ ``h``).
    fit_clustering : bool
        Fit the generator's block density to the released triangle statistic (post-processing:
        simulations of the generator on the released quantities). A released count below
        1.5 times its noise's standard deviation ``σ = √2 Δ / ε`` (public) is not fitted:
        the generator uses :data:`graphanon.synthetic.bter.DEFAULT_BLOCK_DENSITY`, lowered
        until its graph's statistic is at most the clipped estimate ``max(T̃, 0)``.
    block_slope : float in [0, 2], optional
        The generator's public block slope ``β`` (default
        :data:`graphanon.synthetic.bter.DEFAULT_BLOCK_SLOPE`, 0: one density for all
        blocks). A public parameter: no privacy cost. Applied only where the released triangle
        statistic is above 1.5 noise deviations; otherwise the release's slope is 0.
    block_mixing : float in [0, 4] or "auto"
        The generator's block mixing ``σ`` (:func:`graphanon.synthetic.bter.affinity_blocks`):
        blocks of mixed degrees carry no degree correlation, equal-degree ones (``σ = 0``)
        make the graph assortative. ``"auto"`` (default; post-processing, no privacy cost):
        where the released triangle statistic is above 1.5 noise deviations, the first level
        of :data:`graphanon.synthetic.bter.AUTO_BLOCK_MIXING` whose mixed blocks carry the
        released triangles (the fitted block density stays below 1, or density 1 reaches the
        statistic within one noise deviation ``σ``); else 0 where equal-degree blocks
        carry them (they hold the most triangles per edge: a collaboration graph's cliques
        need them); else, both falling short, that first level at density 1 (a ring
        lattice's narrow degrees: equal-degree blocks added 13 % of the triangles and an
        assortativity of 0.46 against the truth's −0.01).
    backend, rng, seed, progress
        Noise backend (default OpenDP); generator of the public grouping and of all
        post-processing; the recorded seed; a progress callback.

    Notes
    -----
    Neighbourhood **edge**; sequential composition of ε-DP parts: super-node counts (Δ 1),
    refinement (monotone exponential mechanism), Hay's sorted degrees (Δ 2; share 0 by
    default), cumulative degree counts (Δ 2), node degrees (Δ 2), community edge counts
    (Δ 1), the triangle statistic
    (:mod:`.clustering`), the edge total (Δ 1). Everything
    else is post-processing of released values.
    """
    from .clustering import (
        TRIANGLE_STATISTICS,
        fit_block_density,
        release_bounded_triangles,
        triangle_sensitivity,
    )

    owner = "community_release"
    t0 = time.perf_counter()
    started = started_at()
    progress = progress or log_progress
    _check_graph(G, owner)
    _require_nodes(nodes, owner)
    epsilon = check_epsilon(epsilon, "epsilon", owner)
    shares = _check_split(split, owner)
    if isinstance(max_degree, str):
        if max_degree != "auto":
            raise InvalidParameterError(
                f"The 'max_degree' parameter of {owner} must be an int >= 2 or 'auto'. "
                f"Got {max_degree!r} instead.")
    else:
        max_degree = check_int(max_degree, "max_degree", owner, low=2)
    triangle_statistic = check_choice(triangle_statistic, "triangle_statistic", owner,
                                      TRIANGLE_STATISTICS)
    block_slope = check_float(DEFAULT_BLOCK_SLOPE if block_slope is None else block_slope,
                              "block_slope", owner, low=0.0, high=2.0)
    if not (isinstance(block_mixing, str) and block_mixing == "auto"):
        expected = "a finite float in [0, 4] or 'auto'"
        if isinstance(block_mixing, str):
            raise fail("block_mixing", owner, expected, block_mixing)
        try:
            block_mixing = check_float(block_mixing, "block_mixing", owner, low=0.0, high=4.0)
        except InvalidParameterError:
            raise fail("block_mixing", owner, expected, block_mixing) from None
    min_modularity = check_float(min_modularity, "min_modularity", owner, low=-1.0, high=1.0)
    degree_quantile = check_float(degree_quantile, "degree_quantile", owner, low=0.0, high=1.0,
                                  closed="right")
    G = G.with_nodes(nodes)
    backend = backend or get_backend("opendp")
    rng = rng if rng is not None else np.random.default_rng(seed)
    eps = {k: v * epsilon for k, v in shares.items()}
    if 0 < eps["degree_cdf"] and G.n_nodes < CDF_MIN_NODES * dp_scale(2, eps["degree_cdf"]):
        # too few nodes for the counts' noise (public n and ε): the node degrees take the share
        eps["node_degrees"] += eps["degree_cdf"]
        eps["degree_cdf"] = 0.0
    steps = 4
    progress("community release", 0, steps)
    parts: dict[str, Release] = {}
    noisy_total = None
    resolve_super_size(super_size, G.n_nodes, owner)  # refuse a bad size before any noise
    if eps["edge_total"] > 0:  # first: the partition's super-node size reads it
        noisy_total, parts["edge_total"] = release_edge_total(
            G, epsilon=eps["edge_total"], nodes=G.node_ids, backend=backend, seed=seed)
    part = private_partition(
        G, epsilon=eps["supergraph"] + eps["refine"], nodes=nodes, super_size=super_size,
        edge_estimate=noisy_total,
        refine_share=eps["refine"] / (eps["supergraph"] + eps["refine"]),
        rounds=max(rounds, 1), backend=backend, rng=rng, seed=seed)
    progress("community release", 1, steps)
    parts["partition"] = part.release
    seq = None
    if eps["degree_sequence"] > 0:
        from ..nodedp.degree_sequences import hay_degree_sequence

        hay = hay_degree_sequence(G, epsilon=eps["degree_sequence"], nodes=G.node_ids,
                                  backend=backend, seed=seed)
        seq = hay.degrees
        parts["degree_sequence"] = hay.release
    raw = release_community_degrees(G, part.membership, epsilon_degrees=eps["node_degrees"],
                                    epsilon_edges=eps["community_edges"], nodes=G.node_ids,
                                    backend=backend, seed=seed)
    parts["node_degrees"], parts["community_edges"] = raw.releases
    from ..dk.postprocess import deconvolve_degrees

    # post-processing: the noise variances 2b² are public (b = Δ/ε; n is public)
    var_degrees = G.n_nodes * 2.0 * dp_scale(2, eps["node_degrees"]) ** 2 / 4.0
    estimates = [(float(raw.degrees.sum()) / 2.0, var_degrees)]  # Σ d̃ / 2
    if seq is None:  # the degree distribution from the noisy degrees themselves
        seq = deconvolve_degrees(raw.degrees, dp_scale(2, eps["node_degrees"]),
                                 max_degree=max(G.n_nodes - 1, 0))
        if eps["degree_cdf"] > 0:  # the cumulative counts, that sequence's top nodes kept
            from ..dk.postprocess import degree_sequence_from_cdf

            cdf, parts["degree_cdf"] = release_degree_cdf(G, epsilon=eps["degree_cdf"],
                                                          nodes=G.node_ids, backend=backend,
                                                          seed=seed)
            seq = degree_sequence_from_cdf(cdf, G.n_nodes, dp_scale(2, eps["degree_cdf"]),
                                           tail=seq, noisy_degrees=raw.degrees,
                                           degree_scale=dp_scale(2, eps["node_degrees"]))
    else:  # Σ seq / 2: n sorted entries of scale 2/ε_d, halved
        estimates.append((float(seq.sum()) / 2.0,
                          G.n_nodes * 2.0 * dp_scale(2, eps["degree_sequence"]) ** 2 / 4.0))
    if noisy_total is not None:
        estimates.append((float(noisy_total), 2.0 * dp_scale(1, eps["edge_total"]) ** 2))
    m_hat = max(0, round(combine_totals(estimates)))
    din, dout, E = consistent_degrees(raw, part.membership, part.n_communities,
                                      degree_sequence=seq, rng=rng, edge_total=m_hat)
    membership, k = part.membership, part.n_communities
    q_hat = released_modularity(membership, k, din, dout, E)
    if q_hat < min_modularity:
        # the partition carries no community signal (e.g. node ids in random order): one
        # community, every edge intra (post-processing of released values)
        din = _even(din + dout)
        dout = np.zeros_like(dout)
        membership, k = np.zeros_like(membership), 1
        E = np.zeros((1, 1), dtype=np.int64)
    progress("community release", 2, steps)
    if isinstance(max_degree, int):
        h = max_degree
    elif seq is not None:
        nz = seq[seq > 0]
        h = max(2, math.ceil(float(np.quantile(nz, degree_quantile)))) if nz.size else 2
    else:
        h = 2
    tri = math.nan
    # the slope spreads clustering the release shows; without a significant statistic there
    # is none to spread, and one density keeps the triangles the cap below allows off the
    # low-degree blocks (a preferential-attachment graph's average clustering: 7.7× the
    # truth with one density, 16× with the slope)
    rel = CommunityRelease(G.node_ids, membership, k, din, dout, E, h, tri, None,
                           parts["partition"], block_slope=0.0,
                           block_mixing=0.0 if isinstance(block_mixing, str) else block_mixing)
    rho: float | None = None
    if eps["triangles"] > 0:
        t = release_bounded_triangles(G, epsilon=eps["triangles"], max_degree=h,
                                      statistic=triangle_statistic, nodes=G.node_ids,
                                      backend=backend, seed=seed)
        parts["triangles"] = t.release
        tri = float(t.noisy)
        # the noise's standard deviation, public: √2 · Δ / ε (Laplace)
        sigma = math.sqrt(2.0) * float(t.release.sensitivity or 0.0) / eps["triangles"]
        # a closer fit than a quarter of the noise, or than 1 % of the statistic, means
        # nothing: the generator's own seed-to-seed spread of the statistic is 0.4–6 %
        # (measured on the six benchmark graphs), and the graph is drawn with another seed
        fit_tol = max(sigma / 4, 0.01 * abs(tri))
        if tri > 1.5 * sigma:
            rel = replace(rel, block_slope=block_slope)
            if fit_clustering and block_mixing == "auto":
                # mixed blocks first: they realize the triangles without the degree
                # correlation of equal-degree blocks, unless even density 1 falls short of
                # the released statistic by more than its noise deviation (fit_block_density
                # returns its upper end 1 when the target is out of reach); then equal-degree
                # blocks where they do carry it (a collaboration graph's cliques), else the
                # mixed ones at density 1: where both fall short, equal-degree blocks added
                # few triangles and much degree correlation (a ring lattice's narrow degrees:
                # assortativity 0.46 against the truth's −0.01, global clustering 0.31
                # against 0.28 mixed and the truth's 0.50; their statistic was 1.01–1.43
                # times the mixed blocks' on every graph measured)
                fallback = None
                for level in (*AUTO_BLOCK_MIXING, 0.0):
                    rel = replace(rel, block_mixing=level)
                    rho = fit_block_density(rel, tri, rng=rng, statistic=triangle_statistic,
                                            tol=fit_tol)
                    # steps=0: one generator run says whether density 1 reaches
                    # tri − σ (the bisection's value would be discarded)
                    if rho < 1.0 or fit_block_density(
                            rel, tri - sigma, rng=rng, statistic=triangle_statistic,
                            steps=0) < 1.0:
                        break
                    if fallback is None:  # the first mixed level, at density 1
                        fallback = (rel, rho)
                    elif level == 0.0:
                        rel, rho = fallback
            elif fit_clustering:
                rho = fit_block_density(rel, tri, rng=rng, statistic=triangle_statistic,
                                        tol=fit_tol)
        elif fit_clustering:
            # within 1.5 noise deviations of 0 the statistic says little: the generator's
            # default block density, lowered until its graph has no more triangles than the
            # clipped estimate max(T̃, 0). (The upper bound max(T̃, 0) + σ, which holds with
            # about 88 % confidence, was the target before: it gave a preferential-attachment
            # graph 6–20× its global clustering at every ε, the default alone 15–20×.)
            # Post-processing of released values.
            rho = fit_block_density(rel, max(tri, 0.0), rng=rng,
                                    statistic=triangle_statistic, high=DEFAULT_BLOCK_DENSITY)
    progress("community release", 3, steps)
    record = Release.create(
        mechanism="community-release", neighbourhood="edge", epsilon=epsilon,
        sensitivity=None,
        sensitivity_derivation="sequential composition: super-node counts Δ 1 (one edge, one "
                               "cell); refinement: monotone exponential mechanism, ε_r/2 per "
                               "node (an edge changes two nodes' scores by 1); sorted degrees "
                               "Δ 2; cumulative degree counts Δ 2 (an edge moves each end out "
                               "of one count); node degrees Δ 2 (an edge, two degrees); "
                               "community edge "
                               "counts Δ 1 (an edge, one cell); triangle statistic: "
                               "smooth Δ (2h−2)(3h−1)/h (count: h(h−1), weighted: h); edge "
                               "total |E|: Δ 1",
        params={"node_universe": "given by the operator (public)",
                "epsilon_split": {k: v for k, v in eps.items() if v > 0},
                "sensitivities": {"supergraph": 1, "refine": 1, "degree_sequence": 2,
                                  "degree_cdf": 2, "node_degrees": 2, "community_edges": 1,
                                  "triangles": triangle_sensitivity(h, triangle_statistic),
                                  "edge_total": 1},
                "triangle_statistic": triangle_statistic,
                "super_size": part.release.params["super_size"],
                "super_size_selection": part.release.params["super_size_selection"],
                "rounds": max(rounds, 1),
                "n_communities": k, "released_modularity": round(q_hat, 4),
                "min_modularity": min_modularity, "max_degree": h,
                "max_degree_selection": ("given" if isinstance(max_degree, int) else
                                         f"quantile {degree_quantile} of the released degree "
                                         "sequence (post-processing)"),
                "block_density": rho, "block_slope": rel.block_slope,
                "block_mixing": rel.block_mixing,
                "block_mixing_selection": (
                    "given" if block_mixing != "auto" else
                    "auto: 0 (fit_clustering=False)" if not fit_clustering else
                    f"auto: the first of {list(AUTO_BLOCK_MIXING)} whose generated triangle "
                    "statistic reaches the released one within its noise deviation where "
                    "that is significant, else 0 where equal-degree blocks reach it, else "
                    "the first level at density 1 (post-processing)"),
                "edge_total_postprocessing": (
                    "the noisy |E| and the degree sequence's sum / 2 combined by their public "
                    "variances; the degrees scaled to twice the result"
                    if eps["edge_total"] > 0 else None)},
        backend=backend.name, seed=seed, source_fingerprint=G.content_hash, created_at=started)
    progress("community release", steps, steps)
    return CommunityRelease(G.node_ids, membership, k, din, dout, E, h, tri, rho, record,
                            parts, time.perf_counter() - t0, rel.block_slope,
                            rel.block_mixing)
