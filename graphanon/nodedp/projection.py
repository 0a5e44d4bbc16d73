"""θ-bounded graph projections for node differential privacy.

A projection ``P`` maps a graph ``G`` to a graph ``G^θ`` of maximum degree ``<= θ`` so that a
statistic ``f`` with unbounded node sensitivity becomes ``f ∘ P`` with a sensitivity that
depends on ``θ`` only. Three projections:

``"ead"`` — edge addition (Day, Li & Lyu, SIGMOD 2016)
    Scan the edges in a *stable* order and keep an edge iff both endpoints still have degree
    ``< θ``. The order is a keyed hash of the (unordered) pair of node ids, fixed per release
    by ``key``: it does not depend on the rest of the graph, so adding a node only inserts
    its edges into the sequence. This is the projection behind the default, audited node-DP
    calibrations of :mod:`graphanon.nodedp.theta_dk`.
``"ser"`` — Stable-Edge-Removal (``004_*.txt`` Algorithm 5)
    Visit the arcs ``(v, u)`` in the two-level order ``Γ = (≻_N, ≻_V)`` and remove ``{v, u}``
    while ``deg[v] > θ``. ``order="hash"`` (default) is *stable* (Definition 29): ``≻_V`` is
    a keyed hash of node ids and ``≻_N`` ranks the neighbours of ``v`` by the same hash,
    latest-visited first (removing an edge to a node that is still to be visited can spare
    that node a removal; removing one to an already-visited node only wastes an edge).
    ``order="degree"`` is the thesis's Example 7 (nodes and neighbours by decreasing degree);
    degrees change when a node is added, so that ordering is **not** stable and the function
    warns (:class:`UnstableOrderingWarning`).
``"truncate"`` — node truncation (Kasiviswanathan et al., TCC 2013)
    Drop every node of degree ``> θ`` (with its edges). Its node sensitivity is not bounded
    by any function of ``θ`` (one added node can push ``n − 1`` nodes over ``θ``), so the
    node-DP releases refuse it.

All three are numba-compiled linear scans after one ``argsort`` of hash keys.

References
----------
``004_*.txt`` chapter 7: Definitions 28–29, Algorithm 5, Table 7.1. W.-Y. Day, N. Li, M. Lyu,
"Publishing graph degree distribution with node differential privacy", SIGMOD 2016, §4.
S. P. Kasiviswanathan, K. Nissim, S. Raskhodnikova, A. Smith, "Analyzing graphs with node
differential privacy", TCC 2013.
"""

from __future__ import annotations

import secrets
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from .. import _numba  # noqa: F401  (numba's per-user cache folder)
from .._ids import id_keys
from .._memory import require_memory
from .._progress import ProgressFn, log_progress
from .._validation import check_choice, check_int
from ..errors import InvalidParameterError, UnstableOrderingWarning
from ..graph import Graph
from ..params import Param, Spec

__all__ = [
    "METHODS",
    "ORDERS",
    "Projection",
    "UnstableOrderingWarning",
    "edge_addition",
    "edge_addition_sizes",
    "node_hash",
    "project",
    "projection_memory",
    "stable_edge_removal",
    "truncation",
]

METHODS = ("ser", "ead", "truncate")
ORDERS = ("hash", "degree")

#: The parameters of :func:`project`, declared once: its validation, the options of
#: ``graphanon project``, the job step's keys and the table in docs/node-dp.md.
PROJECT = Spec("project", (
    Param("theta", "int", "Degree bound θ.", low=1, high=2**31 - 2),
    Param("method", "choice", "Projection algorithm.", default="ead", choices=METHODS),
    Param("order", "choice",
          "SER ordering: 'hash' (the default) is stable; 'degree' (thesis Example 7) is not.",
          default=None, choices=ORDERS, only=("method", "ser")),
    Param("key", "int",
          "Key of the keyed-hash order (default: drawn from the generator; the CLI's --seed "
          "seeds it).", default=None, low=0, high=2**64 - 1, cli=""),
), doc="docs/node_dp.md")

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLD = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class Projection:
    """A θ-bounded graph and how it was obtained.

    Attributes
    ----------
    graph : Graph
        ``G^θ`` (same node set and ids as the input, except for ``"truncate"``, which drops
        the nodes of degree ``> θ``).
    method, order, theta, key
        The projection, its ordering (``"hash"``, ``"degree"``, or ``"n/a"``), the bound and
        the 64-bit ordering key (data-independent; public).
    n_edges_before, n_edges_after, preserved_edge_ratio
        ``|E|``, ``|E^θ|`` and ``|E^θ| / |E|`` (1.0 for an edgeless graph).
    seconds
        Projection time (hashing, sorting and the scan).
    """

    graph: Graph
    method: str
    order: str
    theta: int
    key: int
    n_edges_before: int
    n_edges_after: int
    preserved_edge_ratio: float
    seconds: float = field(default=0.0, compare=False)


# ---------------------------------------------------------------------- hashing
def _mix(x: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """splitmix64 finalizer (vectorized, wrapping uint64 arithmetic)."""
    with np.errstate(over="ignore"):
        x = x ^ (x >> np.uint64(30))
        x = x * _M1
        x = x ^ (x >> np.uint64(27))
        x = x * _M2
        return x ^ (x >> np.uint64(31))


def node_hash(node_ids: Any, key: int) -> npt.NDArray[np.uint64]:
    """Keyed 64-bit hash of each node id (depends on the id and ``key`` only).

    The hash is taken over the id's canonical text (:func:`graphanon._ids.id_keys`), so a
    node keeps its key whether the id column around it holds integers, strings or both:
    adding a node with a string id to an integer-id graph does not reorder the others.
    """
    return id_keys(node_ids, key)


def _pair_hash(hu: npt.NDArray[np.uint64], hv: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    lo, hi = np.minimum(hu, hv), np.maximum(hu, hv)
    with np.errstate(over="ignore"):
        return _mix(_mix(lo ^ _GOLD) + hi)


# ---------------------------------------------------------------------- numba kernels
@numba.njit(cache=True)
def _ead_kernel(u: Any, v: Any, order: Any, n: int, theta: int) -> Any:  # pragma: no cover
    deg = np.zeros(n, dtype=np.int64)
    keep = np.zeros(u.size, dtype=np.bool_)
    for t in range(order.size):
        e = order[t]
        a, b = u[e], v[e]
        if deg[a] < theta and deg[b] < theta:
            keep[e] = True
            deg[a] += 1
            deg[b] += 1
    return keep


@numba.njit(cache=True)
def _kept_arcs(indptr: Any, indices: Any, keep: Any) -> Any:  # pragma: no cover - numba
    """Arc mask of the kept edges: ``keep`` is indexed like :meth:`Graph.edges` (the upper
    arcs ``r < c`` in CSR order); each kept edge marks its arc and, by binary search in the
    sorted row of ``c``, its reverse arc."""
    n = indptr.size - 1
    alive = np.zeros(indices.size, dtype=np.bool_)
    e = 0
    for r in range(n):
        for p in range(indptr[r], indptr[r + 1]):
            c = indices[p]
            if c <= r:
                continue
            if keep[e]:
                alive[p] = True
                lo, hi = indptr[c], indptr[c + 1]
                while lo < hi:
                    mid = (lo + hi) // 2
                    if indices[mid] < r:
                        lo = mid + 1
                    else:
                        hi = mid
                alive[lo] = True
            e += 1
    return alive


@numba.njit(cache=True)
def _reverse_arcs(indptr: Any, indices: Any) -> Any:  # pragma: no cover
    """Position of arc ``(c, r)`` for every arc ``(r, c)`` (rows sorted: binary search)."""
    n = indptr.size - 1
    rev = np.empty(indices.size, dtype=np.int64)
    for r in range(n):
        for p in range(indptr[r], indptr[r + 1]):
            c = indices[p]
            lo, hi = indptr[c], indptr[c + 1]
            while lo < hi:
                mid = (lo + hi) // 2
                if indices[mid] < r:
                    lo = mid + 1
                else:
                    hi = mid
            rev[p] = lo
    return rev


@numba.njit(cache=True)
def _ser_kernel(indptr: Any, indices: Any, arc_order: Any, node_order: Any, rev: Any,
                theta: int) -> Any:  # pragma: no cover
    """Algorithm 5: arcs of each node (in ``arc_order`` within its row), nodes in order."""
    n = indptr.size - 1
    deg = np.empty(n, dtype=np.int64)
    for i in range(n):
        deg[i] = indptr[i + 1] - indptr[i]
    alive = np.ones(indices.size, dtype=np.bool_)
    for t in range(node_order.size):
        v = node_order[t]
        p = indptr[v]
        end = indptr[v + 1]
        while deg[v] > theta and p < end:
            arc = arc_order[p]
            p += 1
            if not alive[arc]:
                continue
            alive[arc] = False
            alive[rev[arc]] = False
            deg[v] -= 1
            deg[indices[arc]] -= 1
    return alive


# ---------------------------------------------------------------------- helpers
def _check(G: Any, theta: Any, owner: str) -> int:
    if not isinstance(G, Graph):
        raise InvalidParameterError(
            f"The 'G' parameter of {owner} must be a graphanon Graph. Got {type(G).__name__}."
        )
    return check_int(theta, "theta", owner, low=1, high=2**31 - 2)


def _resolve_key(key: Any, rng: np.random.Generator | None, owner: str) -> int:
    if key is not None:
        return check_int(key, "key", owner, low=0, high=2**64 - 1)
    if rng is not None:
        if not isinstance(rng, np.random.Generator):
            raise InvalidParameterError(
                f"The 'rng' parameter of {owner} must be a numpy.random.Generator. "
                f"Got {rng!r} instead."
            )
        return int(rng.integers(0, 2**63 - 1))
    return secrets.randbits(64)


def _from_arcs(G: Graph, alive: npt.NDArray[np.bool_]) -> Graph:
    """The subgraph of ``G`` with the arcs marked ``alive`` (a symmetric mask); rows stay
    sorted, nodes, ids and attributes are kept."""
    n = G.n_nodes
    rows = np.repeat(np.arange(n), np.diff(G.indptr))
    counts = np.bincount(rows[alive], minlength=n)
    del rows
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    indices = np.ascontiguousarray(G.indices[alive])
    return Graph(indptr.astype(G.indptr.dtype), indices, G.node_ids, G.attributes,
                 validate=False)


def _result(G: Graph, H: Graph, method: str, order: str, theta: int, key: int,
            t0: float) -> Projection:
    m = G.n_edges
    return Projection(H, method, order, theta, key, m, H.n_edges,
                      1.0 if m == 0 else H.n_edges / m, time.perf_counter() - t0)


# ---------------------------------------------------------------------- projections
def _ead_order(G: Graph, key: int) -> tuple[Any, Any, Any]:
    """The edges ``u < v`` of ``G`` and their stable keyed-hash order (see
    :func:`edge_addition`)."""
    u, v = G.edges()
    h = node_hash(G.node_ids, key)
    return u, v, np.argsort(_pair_hash(h[u], h[v]), kind="stable")


def projection_memory(G: Graph) -> int:
    """Estimated peak bytes of a projection of ``G`` beyond ``G`` itself.

    The edge list with its hash keys and their order (about 56 bytes per edge while it is
    sorted), then the projected graph's CSR build (about 64 bytes per kept edge, at most
    ``m``), plus 24 bytes per node (hashes, degrees).
    """
    return 120 * G.n_edges + 24 * G.n_nodes


def _require(G: Graph, owner: str) -> None:
    require_memory(projection_memory(G), what=owner,
                   parameter=f"the input's {G.n_edges:,} edges and {G.n_nodes:,} nodes")


def edge_addition(G: Graph, *, theta: int, key: int | None = None,
                  rng: np.random.Generator | None = None,
                  progress: ProgressFn = log_progress) -> Projection:
    """Edge-addition projection (EAD) in a stable, keyed-hash edge order.

    Parameters
    ----------
    G : Graph
    theta : int
        Degree bound, ``>= 1``.
    key : int, optional
        64-bit ordering key. If ``None`` it is drawn from ``rng`` (reproducible) or from the
        OS CSPRNG. The key is data-independent and may be published.
    rng : numpy.random.Generator, optional
    progress : callable, optional
        ``progress(task, done, total)`` over the three steps (order, scan, build).

    Returns
    -------
    Projection

    Raises
    ------
    InvalidParameterError
        Bad parameters, or a graph whose projection does not fit in the available memory
        (:func:`projection_memory`).

    Notes
    -----
    The order of an edge ``{a, b}`` is ``mix(min(h(a), h(b)), max(h(a), h(b)))`` with ``h``
    the keyed node-id hash, so the relative order of two edges does not depend on any other
    part of the graph: for ``G' = G + v⁺`` the edge sequence of ``G'`` is that of ``G`` with
    the edges of ``v⁺`` inserted (Day et al.'s stability condition). The result is maximal:
    every dropped edge has an endpoint of projected degree ``θ``.
    """
    theta = _check(G, theta, "edge_addition")
    key = _resolve_key(key, rng, "edge_addition")
    _require(G, "edge_addition")
    t0 = time.perf_counter()
    task = f"EAD projection θ={theta}"
    progress(task, 0, 3)
    u, v, order = _ead_order(G, key)
    progress(task, 1, 3)
    keep = _ead_kernel(u, v, order, G.n_nodes, theta)
    del order
    progress(task, 2, 3)
    del u, v
    H = _from_arcs(G, _kept_arcs(G.indptr, G.indices, keep))
    progress(task, 3, 3)
    return _result(G, H, "ead", "hash", theta, key, t0)


def edge_addition_sizes(G: Graph, *, thetas: Sequence[int], key: int,
                        progress: ProgressFn = log_progress) -> list[int]:
    """``|E^θ|`` of the EAD projection for each ``θ`` in ``thetas`` (same ``key``).

    Equal to ``[edge_addition(G, theta=t, key=key).n_edges_after for t in thetas]``, but the
    edge order is computed once and no projected graph is built.
    """
    thetas = [_check(G, t, "edge_addition_sizes") for t in thetas]
    key = check_int(key, "key", "edge_addition_sizes", low=0, high=2**64 - 1)
    _require(G, "edge_addition_sizes")
    task = "EAD sizes for θ selection"
    progress(task, 0, len(thetas) + 1)
    u, v, order = _ead_order(G, key)
    progress(task, 1, len(thetas) + 1)
    sizes = []
    for i, t in enumerate(thetas):
        sizes.append(int(np.count_nonzero(_ead_kernel(u, v, order, G.n_nodes, t))))
        progress(task, i + 2, len(thetas) + 1)
    return sizes


def stable_edge_removal(G: Graph, *, theta: int, order: str = "hash", key: int | None = None,
                        rng: np.random.Generator | None = None,
                        progress: ProgressFn = log_progress) -> Projection:
    """Stable-Edge-Removal (``004_*.txt`` Algorithm 5).

    Parameters
    ----------
    G : Graph
    theta : int
        Degree bound, ``>= 1``.
    order : {"hash", "degree"}
        ``"hash"`` (default, stable in the sense of Definition 29): nodes by keyed id hash;
        each node's neighbours latest-in-that-order first. ``"degree"``: the thesis's
        Example 7, nodes and neighbours by decreasing degree (ties by hash) — not stable,
        warns with :class:`UnstableOrderingWarning`.
    key : int, optional
        64-bit ordering key (see :func:`edge_addition`).
    rng : numpy.random.Generator, optional
    progress : callable, optional
        ``progress(task, done, total)`` over the three steps (order, scan, build).

    Returns
    -------
    Projection

    Warns
    -----
    UnstableOrderingWarning
        For ``order="degree"``.

    Notes
    -----
    A stable ordering makes the *edge sequence* stable, but it does **not** make ``P(G)``
    and ``P(G + v⁺)`` node neighbours: every neighbour of ``v⁺`` visited before ``v⁺`` that
    is above ``θ`` removes one more edge, and each such removal starts an alternating
    cascade. The number of cascades is bounded by ``deg(v⁺)``, not by ``θ`` — see
    ``docs/node_dp.md`` and the audit in ``tests/test_node_dp.py``.
    """
    theta = _check(G, theta, "stable_edge_removal")
    check_choice(order, "order", "stable_edge_removal", ORDERS)
    key = _resolve_key(key, rng, "stable_edge_removal")
    if order == "degree":
        warnings.warn(
            "SER with the degree ordering (thesis Example 7) is not stable under node-"
            "neighbouring graphs: adding a node changes its neighbours' degrees and so the "
            "order; the node-DP sensitivity argument does not cover this projection.",
            UnstableOrderingWarning, stacklevel=2,
        )
    _require(G, "stable_edge_removal")
    t0 = time.perf_counter()
    task = f"SER projection θ={theta}"
    progress(task, 0, 3)
    n = G.n_nodes
    h = node_hash(G.node_ids, key)
    rank = np.empty(n, dtype=np.int64)
    if order == "hash":
        node_order = np.argsort(h, kind="stable")
        rank[node_order] = np.arange(n)
        arc_key = -rank[G.indices]  # latest-visited neighbour first
    else:
        deg = G.degrees
        tie = np.argsort(h, kind="stable")
        rank[tie] = np.arange(n)
        node_order = np.lexsort((rank, -deg))
        arc_key = -(deg[G.indices] * (n + 1)) + rank[G.indices]  # high degree first
    rows = np.repeat(np.arange(n), np.diff(G.indptr))
    arc_order = np.lexsort((arc_key, rows))
    rev = _reverse_arcs(G.indptr, G.indices)
    progress(task, 1, 3)
    alive = _ser_kernel(G.indptr, G.indices, arc_order, node_order, rev, theta)
    del arc_order, rev
    progress(task, 2, 3)
    H = _from_arcs(G, alive)
    progress(task, 3, 3)
    return _result(G, H, "ser", order, theta, key, t0)


def truncation(G: Graph, *, theta: int) -> Projection:
    """Node truncation: the subgraph induced by the nodes of degree ``<= θ``.

    Notes
    -----
    Deterministic (no ordering). Its node sensitivity is unbounded in ``θ``: adding one node
    adjacent to many nodes of degree ``θ`` removes all of them. Use it for analysis only.
    """
    theta = _check(G, theta, "truncation")
    t0 = time.perf_counter()
    H = G.subgraph(G.degrees <= theta)
    return _result(G, H, "truncate", "n/a", theta, 0, t0)


def project(G: Graph, *, theta: int, method: str = "ead", order: str | None = None,
            key: int | None = None, rng: np.random.Generator | None = None,
            progress: ProgressFn = log_progress) -> Projection:
    """Project ``G`` to maximum degree ``θ`` with ``method`` in {"ser", "ead", "truncate"}.

    See :func:`stable_edge_removal`, :func:`edge_addition` and :func:`truncation`.
    ``order`` applies to ``"ser"`` only (default ``"hash"``; given with another method it is
    refused, as it would be ignored); ``progress`` to ``"ser"`` and ``"ead"``.
    """
    checked = PROJECT.validate({"theta": theta, "method": method, "order": order, "key": key})
    method = checked["method"]
    order = "hash" if checked["order"] is None else checked["order"]
    if method == "ead":
        return edge_addition(G, theta=theta, key=key, rng=rng, progress=progress)
    if method == "ser":
        return stable_edge_removal(G, theta=theta, order=order, key=key, rng=rng,
                                   progress=progress)
    return truncation(G, theta=theta)
