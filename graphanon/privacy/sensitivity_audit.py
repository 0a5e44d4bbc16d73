"""Sensitivity audits: brute-force neighbouring graphs to catch false calibrations.

Every mechanism's tests call :func:`audit_sensitivity` with the statistic it noises (including
any projection step) and the L1 sensitivity it calibrates with. The harness walks neighbouring
pairs ``G ~ G'`` and reports the largest observed ``||f(G) − f(G')||₁``; a claim below an
observed change is false and the audit fails. An audit can only *refute* a claim (the
sensitivity is a maximum over all graphs), so mechanisms also carry a proof in their
docstring; the audit catches the proof that is wrong.

Neighbouring relations (on :class:`~graphanon.graph.Graph`):

``"edge"``
    ``G'`` = ``G`` with one node pair flipped (an edge added or removed); same node set.
``"node"``
    ``G'`` = ``G`` with one node and all its incident edges removed, both with the node set
    kept and as an edge list would hold it (the neighbours left without an edge, and the
    isolated nodes, vanish too: :func:`remove_node_from_edge_list`) (``G`` is then ``G'``
    plus that node): by symmetry of ``||·||₁`` removals of every node from every graph in the
    family cover additions to the smaller graphs. For attribute-free graphs the harness also
    adds a new node connected to neighbour subsets (all subsets up to ``exhaustive_max_nodes``
    nodes, sampled subsets above).

Graphs with at most ``exhaustive_max_nodes`` (default 8) nodes get *every* neighbour; larger
graphs (random graphs of 30–200 nodes, polbooks) get ``n_samples`` random neighbours plus
targeted ones around the highest-degree nodes, where degree-based statistics change most.

:func:`audit_personalized` checks per-node privacy loss of a per-entry-scaled discrete Laplace
release, and :func:`discrete_laplace_gof` is the statistical check of noise samples.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_choice, check_float, check_int
from ..errors import InvalidParameterError
from ..graph import Graph
from .noise import discrete_laplace_pmf

__all__ = [
    "AuditResult",
    "PersonalizedAuditResult",
    "all_graphs",
    "audit_personalized",
    "audit_sensitivity",
    "discrete_laplace_gof",
    "l1_change",
    "neighbouring_pairs",
    "random_graphs",
    "remove_node_from_edge_list",
    "small_graphs",
]

Statistic = Callable[[Graph], Any]


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit_sensitivity`.

    ``worst_pair`` is ``(G, G', description)`` of a pair achieving ``max_observed``.
    """

    max_observed: float
    claimed: float
    passed: bool
    worst_pair: tuple[Graph, Graph, str] | None
    n_pairs: int
    neighbourhood: str

    def __str__(self) -> str:
        verdict = "passed" if self.passed else "FAILED"
        where = f" at {self.worst_pair[2]}" if self.worst_pair else ""
        return (f"sensitivity audit ({self.neighbourhood}) {verdict}: max observed L1 change "
                f"{self.max_observed:g} vs claimed {self.claimed:g} over {self.n_pairs} "
                f"pairs{where}")


@dataclass(frozen=True)
class PersonalizedAuditResult:
    """Outcome of :func:`audit_personalized`: worst ``loss / ε_node`` over all pairs."""

    max_loss_ratio: float
    passed: bool
    worst: str
    n_pairs: int
    neighbourhood: str


# ---------------------------------------------------------------------- graph families
def all_graphs(n: int) -> Iterator[Graph]:
    """Every labelled simple graph on ``n`` nodes (``2**(n(n-1)/2)``; keep ``n <= 5``)."""
    check_int(n, "n", "all_graphs", low=0, high=6)
    pairs = list(itertools.combinations(range(n), 2))
    arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    for mask in range(1 << len(pairs)):
        sel = np.array([(mask >> i) & 1 for i in range(len(pairs))], dtype=bool)
        yield Graph.from_edges(arr[sel, 0], arr[sel, 1], n_nodes=n)


def small_graphs() -> list[Graph]:
    """All graphs on ≤ 4 nodes plus named and random graphs on 5–8 nodes."""
    out = [g for n in range(1, 5) for g in all_graphs(n)]
    for n in (5, 6, 7, 8):
        rng = np.random.default_rng(n)
        nodes = np.arange(n)
        out.append(Graph.from_edges(nodes[:-1], nodes[1:], n_nodes=n))  # path
        out.append(Graph.from_edges(np.zeros(n - 1, dtype=np.int64), nodes[1:], n_nodes=n))
        iu = np.triu_indices(n, 1)
        out.append(Graph.from_edges(iu[0], iu[1], n_nodes=n))  # complete
        out.append(Graph.from_edges(nodes, (nodes + 1) % n, n_nodes=n))  # cycle
        for p in (0.3, 0.6):
            keep = rng.random(iu[0].size) < p
            out.append(Graph.from_edges(iu[0][keep], iu[1][keep], n_nodes=n))
    return out


def random_graphs(
    sizes: Iterable[int] = (30, 80, 200), *, rng: np.random.Generator,
    mean_degree: float = 6.0,
) -> list[Graph]:
    """Erdős–Rényi and heavy-tailed (Chung–Lu) graphs of the given sizes."""
    out = []
    for n in sizes:
        iu = np.triu_indices(n, 1)
        keep = rng.random(iu[0].size) < mean_degree / max(n - 1, 1)
        out.append(Graph.from_edges(iu[0][keep], iu[1][keep], n_nodes=n))
        w = (np.arange(1, n + 1) ** -0.7)
        w = w / w.sum() * mean_degree * n
        prob = np.minimum(w[iu[0]] * w[iu[1]] / w.sum(), 1.0)
        keep = rng.random(iu[0].size) < prob
        out.append(Graph.from_edges(iu[0][keep], iu[1][keep], n_nodes=n))
    return out


# ---------------------------------------------------------------------- neighbours
def _flip(G: Graph, a: int, b: int) -> Graph:
    u, v = G.edges()
    a, b = min(a, b), max(a, b)
    hit = (u == a) & (v == b)
    if hit.any():
        return G.with_edges(u[~hit], v[~hit])
    return G.with_edges(np.append(u, a), np.append(v, b))


def _remove_node(G: Graph, x: int) -> Graph:
    mask = np.ones(G.n_nodes, dtype=bool)
    mask[x] = False
    return G.subgraph(mask)


def remove_node_from_edge_list(G: Graph, x: int) -> Graph:
    """``G`` without node ``x`` as an edge list holds it: ``x``, its edges, every neighbour
    whose only edge was to ``x``, and every node that had no edge (an edge list cannot hold
    an isolated node; a 100-leaf star and the empty file are node neighbours)."""
    deg = G.degrees
    mask = deg > 0
    mask[x] = False
    nbrs = G.neighbors(x)
    mask[nbrs[deg[nbrs] == 1]] = False
    return G.subgraph(mask)


def _add_node(G: Graph, nbrs: Any) -> Graph:
    u, v = G.edges()
    nbrs = np.asarray(nbrs, dtype=np.int64)
    new = G.n_nodes
    return Graph.from_edges(np.concatenate([u, nbrs]),
                            np.concatenate([v, np.full(nbrs.size, new)]), n_nodes=new + 1)


def neighbouring_pairs(
    G: Graph,
    *,
    neighbourhood: str,
    exhaustive_max_nodes: int = 8,
    n_samples: int = 200,
    rng: np.random.Generator | None = None,
    max_added_degree: int | None = None,
) -> Iterator[tuple[Graph, str, tuple[int, ...]]]:
    """Neighbours ``G'`` of ``G`` as ``(G', description, affected nodes of G)``.

    Added nodes are reported with index ``G.n_nodes`` (they do not exist in ``G``).
    """
    n = G.n_nodes
    rng = rng if rng is not None else np.random.default_rng(0)
    exhaustive = n <= exhaustive_max_nodes
    top = np.argsort(-G.degrees, kind="stable")[: min(n, 6)]
    if neighbourhood == "edge":
        if n < 2:
            return
        if exhaustive:
            flips: Iterable[tuple[int, int]] = itertools.combinations(range(n), 2)
        else:
            u, v = G.edges()
            chosen: set[tuple[int, int]] = set(
                (int(a), int(b)) for a, b in itertools.combinations(top.tolist(), 2)
            )
            if u.size:
                pick = rng.choice(u.size, size=min(n_samples // 2, u.size), replace=False)
                chosen.update(zip(u[pick].tolist(), v[pick].tolist(), strict=True))
            target = min(len(chosen) + n_samples // 2, n * (n - 1) // 2)
            for _ in range(4 * n_samples):
                if len(chosen) >= target:
                    break
                a, b = (int(x) for x in rng.choice(n, size=2, replace=False))
                chosen.add((min(a, b), max(a, b)))
            flips = sorted(chosen)
        for a, b in flips:
            what = "remove" if G.has_edge(a, b) else "add"
            yield _flip(G, a, b), f"{what} edge ({a}, {b})", (a, b)
        return
    # node neighbourhood
    if exhaustive:
        removals: Iterable[int] = range(n)
    else:
        removals = sorted(set(top.tolist()) | set(
            rng.choice(n, size=min(n, n_samples // 2), replace=False).tolist()))
    for x in removals:
        yield _remove_node(G, int(x)), f"remove node {x} (degree {G.degrees[x]})", (int(x),)
        leaves = int((G.degrees[G.neighbors(int(x))] == 1).sum())
        if leaves or (G.degrees == 0).any():
            yield (remove_node_from_edge_list(G, int(x)),
                   f"remove node {x} (degree {G.degrees[x]}) from an edge list, with its "
                   f"{leaves} degree-1 neighbour(s)", (int(x),))
    if G.attributes:
        return  # an added node would need attribute values; removals cover the relation
    cap = n if max_added_degree is None else min(n, max_added_degree)
    if exhaustive:
        subsets: Iterable[tuple[int, ...]] = itertools.chain.from_iterable(
            itertools.combinations(range(n), d) for d in range(cap + 1))
    else:
        subs: list[tuple[int, ...]] = [tuple(sorted(top[:cap].tolist()))]
        for _ in range(max(n_samples // 2, 1)):
            d = int(rng.integers(0, cap + 1))
            subs.append(tuple(sorted(rng.choice(n, size=d, replace=False).tolist())))
        subsets = subs
    for nb in subsets:
        yield _add_node(G, list(nb)), f"add node with {len(nb)} edges", (n,)


# ---------------------------------------------------------------------- L1
def _vector(x: Any) -> Any:
    if isinstance(x, Mapping):
        return x
    return np.asarray(x, dtype=np.float64).ravel()


def l1_change(a: Any, b: Any) -> float:
    """``||a − b||₁`` of two statistics: arrays (zero-padded) or mappings (union of keys)."""
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        a = dict(a) if isinstance(a, Mapping) else dict(enumerate(np.ravel(a).tolist()))
        b = dict(b) if isinstance(b, Mapping) else dict(enumerate(np.ravel(b).tolist()))
        return float(math.fsum(abs(float(a.get(k, 0)) - float(b.get(k, 0)))
                               for k in set(a) | set(b)))
    x, y = np.asarray(a, dtype=np.float64).ravel(), np.asarray(b, dtype=np.float64).ravel()
    size = max(x.size, y.size)
    x, y = np.pad(x, (0, size - x.size)), np.pad(y, (0, size - y.size))
    return float(np.abs(x - y).sum())


# ---------------------------------------------------------------------- audits
def audit_sensitivity(
    f: Statistic,
    graphs: Iterable[Graph],
    *,
    neighbourhood: str,
    claimed: float,
    exhaustive_max_nodes: int = 8,
    n_samples: int = 200,
    rng: np.random.Generator | None = None,
    max_added_degree: int | None = None,
    tolerance: float = 1e-9,
) -> AuditResult:
    """Largest observed ``||f(G) − f(G')||₁`` over neighbouring pairs vs. a claimed bound.

    Parameters
    ----------
    f : callable
        ``Graph -> array-like or mapping`` — the statistic exactly as the mechanism noises it
        (including any projection / truncation step).
    graphs : iterable of Graph
        The family to audit (e.g. :func:`small_graphs` + :func:`random_graphs` + polbooks).
    neighbourhood : {"edge", "node"}
        See the module docstring.
    claimed : float
        The L1 sensitivity the mechanism calibrates its noise with.
    exhaustive_max_nodes, n_samples, rng, max_added_degree
        Enumeration controls (see :func:`neighbouring_pairs`).
    tolerance : float
        Absolute slack for float statistics.

    Returns
    -------
    AuditResult
        ``passed`` is False as soon as one pair exceeds ``claimed + tolerance``.

    Raises
    ------
    InvalidParameterError
        Unknown neighbourhood or a negative claim.
    """
    check_choice(neighbourhood, "neighbourhood", "audit_sensitivity", ("edge", "node"))
    claimed = check_float(claimed, "claimed", "audit_sensitivity", low=0.0)
    best = -1.0
    worst: tuple[Graph, Graph, str] | None = None
    n_pairs = 0
    for G in graphs:
        fG = _vector(f(G))
        for H, desc, _ in neighbouring_pairs(
            G, neighbourhood=neighbourhood, exhaustive_max_nodes=exhaustive_max_nodes,
            n_samples=n_samples, rng=rng, max_added_degree=max_added_degree,
        ):
            n_pairs += 1
            d = l1_change(fG, _vector(f(H)))
            if d > best:
                best, worst = d, (G, H, f"{desc} on a {G.n_nodes}-node graph")
    if n_pairs == 0:
        raise InvalidParameterError("audit_sensitivity found no neighbouring pairs to check.")
    return AuditResult(max_observed=max(best, 0.0), claimed=claimed,
                       passed=best <= claimed + tolerance, worst_pair=worst, n_pairs=n_pairs,
                       neighbourhood=neighbourhood)


def audit_personalized(
    f: Statistic,
    scales: Callable[[Graph], Any],
    epsilons: Callable[[Graph], Any],
    graphs: Iterable[Graph],
    *,
    neighbourhood: str,
    exhaustive_max_nodes: int = 8,
    n_samples: int = 200,
    rng: np.random.Generator | None = None,
    tolerance: float = 1e-9,
) -> PersonalizedAuditResult:
    """Check per-node privacy loss of a release ``f(G) + DiscreteLaplace(scales)``.

    For a pair ``G ~ G'`` the privacy loss of a vector release with independent per-entry
    discrete Laplace noise of scale ``b_i`` is at most ``Σ_i |f_i(G) − f_i(G')| / b_i`` (the
    log-ratio of the two output densities, entry by entry). Personalized DP requires it to
    be at most the ε of every node the change belongs to: for a node change the removed node,
    for an edge change both endpoints (so ``min(ε_u, ε_v)``).

    The scales must be public: ``scales(G)`` and ``scales(G')`` are compared and any
    difference fails the audit (data-dependent scales need their own privacy analysis).

    Parameters
    ----------
    f, scales : callable
        Statistic and per-entry scales (same length, zero-padded to a common domain).
    epsilons : callable
        ``Graph -> array`` of per-node ε (by node index).
    graphs, neighbourhood, exhaustive_max_nodes, n_samples, rng, tolerance
        As in :func:`audit_sensitivity`; added nodes are not generated (removals cover them).

    Returns
    -------
    PersonalizedAuditResult
        ``max_loss_ratio`` = worst ``loss / ε_owner``; passes when ≤ 1.
    """
    check_choice(neighbourhood, "neighbourhood", "audit_personalized", ("edge", "node"))
    worst_ratio, worst, n_pairs = 0.0, "", 0
    for G in graphs:
        fG, sG, eG = _vector(f(G)), np.asarray(scales(G), float), np.asarray(epsilons(G), float)
        for H, desc, owners in neighbouring_pairs(
            G, neighbourhood=neighbourhood, exhaustive_max_nodes=exhaustive_max_nodes,
            n_samples=n_samples, rng=rng, max_added_degree=0,
        ):
            if any(o >= G.n_nodes for o in owners):
                continue  # added node: covered by the removal from the larger graph
            n_pairs += 1
            fH, sH = _vector(f(H)), np.asarray(scales(H), float)
            size = max(fG.size, fH.size, sG.size, sH.size)
            a, b = np.pad(fG, (0, size - fG.size)), np.pad(fH, (0, size - fH.size))
            if not np.array_equal(np.pad(sG, (0, size - sG.size)),
                                  np.pad(sH, (0, size - sH.size))):
                return PersonalizedAuditResult(math.inf, False,
                                               f"scales depend on the data at {desc}",
                                               n_pairs, neighbourhood)
            sc = np.pad(sG, (0, size - sG.size), constant_values=np.inf)
            changed = a != b
            if np.any(changed & ~(sc > 0)):
                return PersonalizedAuditResult(math.inf, False, f"zero scale at {desc}",
                                               n_pairs, neighbourhood)
            loss = float(np.sum(np.abs(a - b)[changed] / sc[changed]))
            eps = float(min(eG[o] for o in owners))
            ratio = loss / eps if eps > 0 else (math.inf if loss > 0 else 0.0)
            if ratio > worst_ratio:
                worst_ratio, worst = ratio, (f"{desc} on a {G.n_nodes}-node graph: loss "
                                             f"{loss:.4g} vs ε {eps:.4g}")
    return PersonalizedAuditResult(worst_ratio, worst_ratio <= 1 + tolerance, worst, n_pairs,
                                   neighbourhood)


# ---------------------------------------------------------------------- noise checks
def discrete_laplace_gof(samples: Any, scale: float) -> float:
    """p-value of a chi-square test that ``samples`` are discrete Laplace(``scale``) noise.

    Cells with expected count < 5 are merged into the two tails.
    """
    from scipy import stats

    x = np.asarray(samples, dtype=np.int64).ravel()
    if x.size < 100:
        raise InvalidParameterError("discrete_laplace_gof needs at least 100 samples.")
    k_max = max(math.ceil(scale * 6), 1)
    ks = np.arange(-k_max, k_max + 1)
    pmf = discrete_laplace_pmf(ks, scale)
    tail = (1.0 - pmf.sum()) / 2
    observed = np.bincount(np.clip(x, -k_max - 1, k_max + 1) + k_max + 1,
                           minlength=2 * k_max + 3).astype(np.float64)
    expected = np.concatenate([[tail], pmf, [tail]]) * x.size
    keep = expected >= 5
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    if exp[-1] < 5:
        obs, exp = obs[:-1], exp[:-1]
        exp = exp * obs.sum() / exp.sum()
    return float(stats.chisquare(obs, exp).pvalue)
