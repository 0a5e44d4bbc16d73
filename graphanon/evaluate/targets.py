"""What the empirical audits run on: graphanon's DP commands as :class:`AuditTarget` objects.

:func:`audit_targets` binds each mechanism of :data:`AUDIT_MECHANISMS` (the real release
function with small public parameters) to the neighbouring pairs of
:mod:`graphanon.evaluate.pairs` that stress it;
:func:`graphanon.evaluate.empirical_audit.audit_mechanism` runs one. :func:`miscalibrated_dk1`
is the deliberately broken control the audit must catch.

Split out of :mod:`graphanon.evaluate.empirical_audit` (issue 37), which still exports every
public name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_choice, check_epsilon, check_int
from ..graph import BipartiteGraph, Graph
from ..privacy.noise import NoiseBackend
from ..privacy.release import Release
from .pairs import (
    RANDOM_PAIRS,
    Candidate,
    _rr_pairs,
    clique_pairs,
    edge_list_pairs,
    hub_pairs,
    joined_star_pairs,
    random_edge_pairs,
    random_node_pairs,
)

__all__ = ["AUDIT_MECHANISMS", "AuditTarget", "Mechanism", "audit_targets", "miscalibrated_dk1"]

#: A mechanism under audit: ``(input, backend) -> (raw noisy answers or None, Release)``.
Mechanism = Callable[[Any, NoiseBackend], tuple[Any, Release]]


@dataclass(frozen=True)
class AuditTarget:
    """A DP mechanism under audit and the neighbouring pairs that stress it.

    Attributes
    ----------
    name : str
        Display name: the mechanism name of its Release plus its public setting (not ε,
        which every audit reports as ``claimed_epsilon``).
    command : str
        The CLI command the mechanism belongs to.
    neighbourhood : str
        The relation of the pairs (``"edge"``, ``"node"``, ``"personalized-edge"``).
    mechanism : callable
        ``(input, backend) -> (raw noisy answers or None, Release)``: the real release
        function with its public parameters bound.
    candidates : callable
        ``() -> list of Candidate``: worst-case pairs; in replay mode the pair with the
        largest privacy loss under the mechanism's own calibration is audited.
    worst_case : str
        Where the pairs come from (the sensitivity derivation they attain).
    mode : {"replay", "direct"}
        See the module docstring.
    truth : callable, optional
        Direct mode: ``input -> exact output vector`` (the centre of the test statistic).
    claim : {"epsilon", "epsilon_min"}
        Read the claimed ε from ``Release.epsilon``, or from ``epsilon_summary["min"]`` (the
        owner of the smallest ε under personalized DP).
    control : bool
        A deliberately mis-calibrated mechanism that the audit must catch.
    noise_source : callable, optional
        ``backend -> name`` of the randomness the mechanism really uses (direct mode);
        default the backend's name.
    """

    name: str
    command: str
    neighbourhood: str
    mechanism: Mechanism
    candidates: Callable[[], list[Candidate]]
    worst_case: str
    mode: str = "replay"
    truth: Callable[[Any], Any] | None = None
    claim: str = "epsilon"
    control: bool = False
    noise_source: Callable[[NoiseBackend], str] | None = None


def miscalibrated_dk1(G: Graph, *, epsilon: float, max_degree: int,
                      backend: NoiseBackend) -> tuple[Any, Release]:
    """A deliberately broken control: the 1K histogram noised with **half** its sensitivity
    (2 instead of 4) while its record claims ε. Its true privacy loss is up to 2ε; the audit
    must catch it. Never use it for a release."""
    from ..dk.release import dk_query

    x = dk_query(G, d=1, h=max_degree)
    noisy = backend.discrete_laplace(x, sensitivity=2.0, epsilon=epsilon)
    rel = Release.create(mechanism="dk1-laplace-half-sensitivity", neighbourhood="edge",
                         epsilon=epsilon, sensitivity=4.0,
                         sensitivity_derivation="CONTROL: claims 4, noises with 2",
                         params={"max_degree": max_degree, "control": True},
                         backend=backend.name)
    return noisy, rel


def _rr_mechanism(epsilon: float, level: str) -> Mechanism:
    from ..anonymity.randomized_response import randomized_response
    from ..privacy.noise import NumpyInsecureBackend

    def run(B: BipartiteGraph, backend: NoiseBackend) -> tuple[Any, Release]:
        rng = backend.rng if isinstance(backend, NumpyInsecureBackend) else None
        res = randomized_response(B, epsilon=epsilon, neighbourhood=level, users=B.user_ids,
                                  features=B.feature_ids, rng=rng)
        return res.graph.to_dense().ravel().astype(np.float64), res.release

    return run


def _rr_source(backend: NoiseBackend) -> str:
    from ..privacy.noise import NumpyInsecureBackend

    return "numpy-insecure" if isinstance(backend, NumpyInsecureBackend) else "os-urandom"


def _dense_truth(B: BipartiteGraph) -> Any:
    return B.to_dense().ravel().astype(np.float64)


#: Names accepted by :func:`audit_targets` (``mechanisms=``), in report order.
AUDIT_MECHANISMS = (
    "randomized-response-edge", "randomized-response-node", "dk1-laplace", "dk2-laplace",
    "dk2-mdav", "dk2-mpdc", "theta-dk1-ead", "theta-dk2-ead", "hay-constrained-inference",
    "pdp-min-dk1", "pdp-ll-dk1", "pdp-ag-dk1", "pdp-min-dk1-node",
    "private-partition", "node-degrees", "degree-cdf", "community-edges", "smooth-triangles",
    "bounded-triangles", "edge-total",
    "control-dk1-half-sensitivity",
)


def audit_targets(
    epsilon: float,
    *,
    mechanisms: Sequence[str] = AUDIT_MECHANISMS,
    max_degree: int = 4,
    theta: int = 3,
    rr_features: int = 4,
    mpdc_tau: int = 2,
    mdav_k: int = 2,
) -> list[AuditTarget]:
    """The audit targets of graphanon's DP commands at one ε.

    Parameters
    ----------
    epsilon : float
        The ε every mechanism is run at (for personalized DP: the smallest preference).
    mechanisms : sequence of str
        A subset of :data:`AUDIT_MECHANISMS`.
    max_degree : int
        Public degree bound ``h`` of the edge-DP dK releases and of personalized DP. Small
        bounds make the worst-case pairs small graphs; the calibration code is the same.
    theta : int
        Public projection bound of the node-DP releases.
    rr_features : int
        Columns of the matrix of the node-level randomized-response pair.
    mpdc_tau : int
        MPDC box side of the microaggregated 2K release.
    mdav_k : int
        MDAV cluster size of the microaggregated 2K release.

    Returns
    -------
    list of AuditTarget
    """
    owner = "audit_targets"
    eps = check_epsilon(epsilon, "epsilon", owner)
    h = check_int(max_degree, "max_degree", owner, low=2, high=64)
    th = check_int(theta, "theta", owner, low=1, high=32)
    F = check_int(rr_features, "rr_features", owner, low=1, high=16)
    tau = check_int(mpdc_tau, "mpdc_tau", owner, low=0)
    mk = check_int(mdav_k, "mdav_k", owner, low=2)
    for name in mechanisms:
        check_choice(name, "mechanisms", owner, AUDIT_MECHANISMS)
    from ..dk.personalized import release_personalized
    from ..dk.preferences import from_pairs
    from ..dk.release import release_dk
    from ..nodedp.degree_sequences import hay_degree_sequence
    from ..nodedp.theta_dk import theta_dk_release

    post = np.random.default_rng(0)  # post-processing only (splitting cluster sums)

    def dk(d: int, micro: str = "none") -> Mechanism:
        def run(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
            kw: dict[str, Any] = ({"tau": tau} if micro == "mpdc" else
                                  {"k": mk} if micro == "mdav" else {})
            # the pair's node set is the public universe (edge neighbours share it)
            r = release_dk(G, d=d, epsilon=eps, max_degree=h, microaggregation=micro,
                           form="dense", nodes=G.node_ids, backend=backend, rng=post, **kw)
            return r.noisy, r.release
        return run

    def node(d: int) -> Mechanism:
        def run(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
            r = theta_dk_release(G, d=d, epsilon=eps, theta=th, key=0, backend=backend)
            return r.noisy, r.release
        return run

    def hay(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        r = hay_degree_sequence(G, epsilon=eps, nodes=G.node_ids, backend=backend)
        return None, r.release  # the raw noisy sequence is not exposed: the call's output is

    def pdp(method: str, **kw: Any) -> Mechanism:
        def run(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
            # node 0 (a centre of every pair) owns the smallest ε; everyone else is liberal
            prefs = from_pairs(G.node_ids, np.where(np.arange(G.n_nodes) == 0, eps, 4 * eps),
                               default=4 * eps)
            r = release_personalized(G, prefs, d=1, neighbourhood="edge", method=method, theta=h,
                                     key=0, nodes=G.node_ids, backend=backend, rng=post, **kw)
            return r.noisy, r.release
        return run

    def pdp_node(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        # node-PDP: the preference table is public (here one ε for everyone), θ-projected
        r = release_personalized(G, from_pairs([], [], default=eps), d=1,
                                 neighbourhood="node",
                                 method="min", theta=th, key=0, backend=backend, rng=post)
        return r.noisy, r.release

    def control(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        return miscalibrated_dk1(G, epsilon=eps, max_degree=h, backend=backend)

    def partition(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        from ..synthetic.communities import private_partition

        # super-node counts only (refinement draws uniforms: not replayable); super-nodes
        # of 2 consecutive nodes
        r = private_partition(G, epsilon=eps, nodes=G.node_ids, super_size=2, refine_share=0.0,
                              backend=backend, rng=post)
        return None, r.release

    def node_degrees(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        from ..synthetic.communities import release_node_degrees

        _, record = release_node_degrees(G, epsilon=eps, nodes=G.node_ids, backend=backend)
        return None, record

    def degree_cdf(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        from ..synthetic.communities import release_degree_cdf

        _, record = release_degree_cdf(G, epsilon=eps, nodes=G.node_ids, backend=backend)
        return None, record

    def community_edges(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        from ..synthetic.communities import release_community_edges

        # a public partition: node parity (the joined stars' centres 0 and a+1 differ for
        # even a: the joining edge lies between the communities)
        _, record = release_community_edges(G, np.arange(G.n_nodes) % 2, epsilon=eps,
                                            nodes=G.node_ids, backend=backend)
        return None, record

    def triangles(statistic: str) -> Mechanism:
        def run(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
            from ..synthetic.clustering import release_bounded_triangles

            r = release_bounded_triangles(G, epsilon=eps, max_degree=h, statistic=statistic,
                                          backend=backend)
            return None, r.release
        return run

    def edge_total(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        from ..synthetic.communities import release_edge_total

        _, record = release_edge_total(G, epsilon=eps, nodes=G.node_ids, backend=backend)
        return None, record

    star = ("joined stars (the 1K bound 4 and the 2K bound 4h−3 of docs/dk.md) and "
            f"{RANDOM_PAIRS} random edge pairs")
    hubs = ("hubs, a star and the empty file, hubs removed from an edge list (the node bounds "
            "2θ+1 and θ(2θ+1), docs/node_dp.md) and "
            f"{RANDOM_PAIRS} random node pairs")

    def edge_pairs() -> list[Candidate]:
        return joined_star_pairs(h) + random_edge_pairs(h)

    def node_pairs() -> list[Candidate]:
        return hub_pairs(th) + edge_list_pairs(th) + random_node_pairs(th)

    table: dict[str, AuditTarget] = {
        "randomized-response-edge": AuditTarget(
            "randomized-response (edge)", "randomized-response --neighbourhood edge",
            "edge", _rr_mechanism(eps, "edge"), lambda: _rr_pairs(2, "edge"),
            "one cell flipped", mode="direct", truth=_dense_truth, noise_source=_rr_source),
        "randomized-response-node": AuditTarget(
            f"randomized-response (node, |F|={F})",
            "randomized-response --neighbourhood node", "node", _rr_mechanism(eps, "node"),
            lambda: _rr_pairs(F, "node"), "a whole row flipped", mode="direct",
            truth=_dense_truth, noise_source=_rr_source),
        "dk1-laplace": AuditTarget(
            f"dk1-laplace (h={h})", "release-dk --neighbourhood edge --d 1", "edge", dk(1),
            edge_pairs, star),
        "dk2-laplace": AuditTarget(
            f"dk2-laplace (h={h})", "release-dk --neighbourhood edge --d 2", "edge", dk(2),
            edge_pairs, star),
        "dk2-mdav": AuditTarget(
            f"dk2-mdav (h={h}, k={mk})",
            "release-dk --neighbourhood edge --d 2 --microaggregation mdav", "edge",
            dk(2, "mdav"), edge_pairs, star),
        "dk2-mpdc": AuditTarget(
            f"dk2-mpdc (h={h}, τ={tau})",
            "release-dk --neighbourhood edge --d 2 --microaggregation mpdc", "edge",
            dk(2, "mpdc"), edge_pairs, star),
        "theta-dk1-ead": AuditTarget(
            f"theta-dk1-ead (θ={th})", "release-dk --neighbourhood node --d 1", "node", node(1),
            node_pairs, hubs),
        "theta-dk2-ead": AuditTarget(
            f"theta-dk2-ead (θ={th})", "release-dk --neighbourhood node --d 2", "node", node(2),
            node_pairs, hubs),
        "hay-constrained-inference": AuditTarget(
            "hay-constrained-inference", "release-degrees --method hay", "edge", hay,
            edge_pairs, f"one edge raises two sorted degrees (joined stars and {RANDOM_PAIRS} "
                        "random edge pairs)"),
        "pdp-min-dk1": AuditTarget(
            f"pdp-min-dk1 (edge-PDP, h={h})",
            "release-personalized --neighbourhood edge --method min --d 1", "personalized-edge",
            pdp("min"), lambda: joined_star_pairs(h),
            "an edge of the node with the smallest ε (joined stars)", claim="epsilon_min"),
        "pdp-ll-dk1": AuditTarget(
            f"pdp-ll-dk1 (edge-PDP, h={h})",
            "release-personalized --neighbourhood edge --method ll --d 1", "personalized-edge",
            pdp("ll"), lambda: joined_star_pairs(h),
            "an edge of the node with the smallest ε (joined stars)", claim="epsilon_min"),
        "pdp-ag-dk1": AuditTarget(
            f"pdp-ag-dk1 (edge-PDP, h={h}, k=2)",
            "release-personalized --neighbourhood edge --method ag --k 2 --d 1",
            "personalized-edge",
            pdp("ag", k=2), lambda: joined_star_pairs(h),
            "an edge of the node with the smallest ε (joined stars)", claim="epsilon_min"),
        "pdp-min-dk1-node": AuditTarget(
            f"pdp-min-dk1 (node-PDP, θ={th})",
            "release-personalized --neighbourhood node --method min --d 1", "personalized-node",
            pdp_node, node_pairs, hubs, claim="epsilon_min"),
        "private-partition": AuditTarget(
            "private-partition (super-node counts, 2 nodes each)",
            "synthesize --neighbourhood edge",
            "edge", partition, edge_pairs, f"one edge, one super-node cell ({star})"),
        "node-degrees": AuditTarget(
            "node-degrees", "synthesize --neighbourhood edge", "edge", node_degrees,
            edge_pairs, f"one edge raises the degrees of its two ends ({star})"),
        "degree-cdf": AuditTarget(
            "degree-cdf", "synthesize --neighbourhood edge", "edge", degree_cdf, edge_pairs,
            f"one edge moves each end out of one cumulative count ({star})"),
        "community-edges": AuditTarget(
            "community-edges (parity partition)", "synthesize --neighbourhood edge", "edge",
            community_edges, edge_pairs, f"one edge, one community cell ({star})"),
        "smooth-triangles": AuditTarget(
            f"smooth-triangles (h={h})", "synthesize --neighbourhood edge", "edge",
            triangles("smooth"), lambda: clique_pairs(2 * h - 1) + random_edge_pairs(2 * h),
            f"two {2 * h}-cliques joined: each end's C(2h−1,2) triangles leave the ramp "
            f"(weight 1/h to 0), and {RANDOM_PAIRS} random edge pairs"),
        "bounded-triangles": AuditTarget(
            f"bounded-triangles (h={h})", "community_release(triangle_statistic='count')",
            "edge", triangles("count"),
            lambda: clique_pairs(h) + random_edge_pairs(h),
            f"two (h+1)-cliques joined: both ends leave with C(h,2) triangles each, and "
            f"{RANDOM_PAIRS} random edge pairs"),
        "edge-total": AuditTarget(
            "edge-total", "synthesize --neighbourhood edge", "edge", edge_total, edge_pairs,
            f"one edge more or less ({star})"),
        "control-dk1-half-sensitivity": AuditTarget(
            f"CONTROL dk1 with half sensitivity (h={h})", "(none: a broken control)", "edge",
            control, lambda: joined_star_pairs(h), "joined stars", control=True),
    }
    return [table[name] for name in AUDIT_MECHANISMS if name in set(mechanisms)]
