"""The community generator: BTER affinity blocks inside communities, a configuration model for
the excess degree and degree-weighted inter-community edges (issue 36, parts 3 and 4).

Given a :class:`~graphanon.synthetic.communities.CommunityRelease` (public: released values and
their post-processing), :func:`generate_community_graph` builds a simple graph on the
universe's node ids:

1. **Affinity blocks** (BTER phase 1). In every community the nodes with ``d_in >= 2`` are
   sorted by ``d_in`` (ties at random) and cut into blocks: a block starts at its smallest
   node, of degree ``d``, and holds ``d + 1`` nodes of similar degree. Each block is an
   Erdős–Rényi graph of density ``ρ`` (a community's last, incomplete block joins the one
   before it) (the block density, fitted to the released triangle
   statistic by :func:`graphanon.synthetic.clustering.fit_block_density`).
2. **Excess degree** (BTER phase 2). Each node's remaining intra-community degree
   ``max(d_in − block degree, 0)`` becomes stubs, matched at random inside the community
   (a configuration model: degrees exact up to the loops and repeated pairs dropped, which two
   more matching rounds on the remaining deficit mostly restore).
4. **Top-up.** Degree deficits left by dropped loops and repeated pairs are matched at
   random over the whole graph (three rounds).
3. **Inter-community edges.** ``E_ij`` distinct edges between communities ``i`` and ``j``,
   each end drawn with probability proportional to ``d_out`` in its community (Chung–Lu).

Everything is vectorized numpy except one short Python loop over the blocks.

References
----------
C. Seshadhri, T. G. Kolda, A. Pinar, "Community structure and scale-free collections of
Erdős–Rényi graphs", Phys. Rev. E 85, 056109 (2012). T. G. Kolda, A. Pinar, T. Plantenga,
C. Seshadhri, "A scalable generative graph model with community structure", SIAM J. Sci.
Comput. 36(5), C424–C452 (2014).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .._validation import check_float
from ..errors import InvalidParameterError
from ..graph import Graph

if TYPE_CHECKING:
    from .communities import CommunityRelease

__all__ = ["DEFAULT_BLOCK_DENSITY", "affinity_blocks", "generate_community_graph"]

IntArray = npt.NDArray[np.int64]
#: Block density used when the release carries none (no triangle statistic).
DEFAULT_BLOCK_DENSITY = 0.5


@functools.lru_cache(maxsize=512)
def _triu(s: int) -> tuple[IntArray, IntArray]:
    i, j = np.triu_indices(s, 1)
    return i.astype(np.int64), j.astype(np.int64)


def affinity_blocks(d_in: IntArray, membership: IntArray, rng: np.random.Generator
                    ) -> tuple[IntArray, IntArray]:
    """BTER blocks: ``(block id per node or −1, block starts)``.

    Nodes with ``d_in >= 2`` of each community, sorted by ``d_in`` (ties at random), are cut
    into consecutive blocks of ``d + 1`` nodes, ``d`` the degree of the block's first node; a
    community's last block, when it is short of ``d + 1`` nodes, joins the block before it
    (the community's highest degrees then sit in its densest block). Returns the block id
    of every node (−1: no block) and the offsets of the blocks in the order of the nodes
    sorted by block id (block ``b`` holds positions ``starts[b]:starts[b+1]``).
    """
    n = d_in.size
    eligible = np.flatnonzero(d_in >= 2)
    order = eligible[np.lexsort((rng.random(eligible.size), d_in[eligible],
                                 membership[eligible]))]
    block = np.full(n, -1, dtype=np.int64)
    starts = [0]
    comm = membership[order]
    deg = d_in[order]
    pos, b = 0, 0
    while pos < order.size:
        c = comm[pos]
        end = min(pos + int(deg[pos]) + 1, order.size)
        # a block stays inside its community
        stop = int(np.searchsorted(comm[pos:end], c, side="right")) + pos
        short = stop - pos < int(deg[pos]) + 1
        if short and b > 0 and comm[starts[-2]] == c:
            # the community's last, incomplete block (its highest degrees) joins the block
            # before it, so the hubs sit in a dense block instead of a small one
            block[order[pos:stop]] = b - 1
            starts[-1] = stop
        else:
            block[order[pos:stop]] = b
            starts.append(stop)
            b += 1
        pos = stop
    return block, np.asarray(starts, dtype=np.int64) if order.size else np.zeros(1, np.int64)


def _block_edges(order: IntArray, starts: IntArray, rho: float, d_in: IntArray,
                 rng: np.random.Generator) -> tuple[IntArray, IntArray]:
    """Erdős–Rényi edges inside each block, density ``ρ · min(1, d / (s − 1))`` (``d`` the
    block's smallest degree, ``s`` its size: a merged, larger block does not give its first
    nodes more than their degree)."""
    us: list[IntArray] = []
    vs: list[IntArray] = []
    sizes = np.diff(starts)
    for b in np.flatnonzero(sizes >= 2).tolist():
        members = order[starts[b]:starts[b + 1]]
        s = int(members.size)
        i, j = _triu(s)
        d = d_in[members].astype(np.float64)
        # Chung–Lu inside the block: node i's expected block degree is ρ d_i (≈ BTER's
        # ρ(s − 1) for a block of equal degrees; hubs of a merged block link to each other)
        p = np.minimum(rho * d[i] * d[j] / d.sum(), 1.0)
        keep = rng.random(i.size) < p
        us.append(members[i[keep]])
        vs.append(members[j[keep]])
    if not us:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(us), np.concatenate(vs)


def _trim_overshoot(keys: IntArray, target: IntArray, n: int, rng: np.random.Generator
                    ) -> IntArray:
    """Drop block edges, in random order, at a node whose block degree exceeds its target
    ``d_in`` until it does not: Chung–Lu's random degrees overshoot for about half of the
    nodes, and an overshoot is never given back (only deficits are matched later), so the
    generated graph had more edges than the release states."""
    if keys.size == 0:
        return keys
    a, b = keys // n, keys % n
    over = np.bincount(a, minlength=n) + np.bincount(b, minlength=n) - target
    hot = (over[a] > 0) | (over[b] > 0)
    if not hot.any():
        return keys
    keep = np.ones(keys.size, dtype=bool)
    idx = np.flatnonzero(hot)
    for e in idx[rng.permutation(idx.size)].tolist():
        u, v = int(a[e]), int(b[e])
        if over[u] > 0 or over[v] > 0:
            keep[e] = False
            over[u] -= 1
            over[v] -= 1
    return keys[keep]


def _keys(u: IntArray, v: IntArray, n: int) -> IntArray:
    a, b = np.minimum(u, v), np.maximum(u, v)
    return a * n + b


def _match_stubs(stubs: IntArray, groups: IntArray, rng: np.random.Generator
                 ) -> tuple[IntArray, IntArray]:
    """Pair stubs at random inside their group (one stub dropped from an odd group)."""
    if stubs.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    order = np.lexsort((rng.random(stubs.size), groups))
    s, g = stubs[order], groups[order]
    # drop the last stub of every odd-sized group
    bounds = np.flatnonzero(np.diff(np.concatenate([[-1], g, [g[-1] + 1]])))
    counts = np.diff(bounds)
    drop = bounds[1:][counts % 2 == 1] - 1
    keep = np.ones(s.size, dtype=bool)
    keep[drop] = False
    s = s[keep]
    return s[0::2], s[1::2]


def _intra_edges(deficit: IntArray, membership: IntArray, existing: IntArray, n: int,
                 rng: np.random.Generator, rounds: int = 3) -> IntArray:
    """Edge keys matching the stubs of ``deficit`` inside each community, avoiding loops,
    repeats and ``existing`` keys (``rounds`` matching rounds on what is left)."""
    have = np.unique(existing)
    new_keys: list[IntArray] = []
    left = deficit.copy()
    for _ in range(rounds):
        if left.sum() < 2:
            break
        stubs = np.repeat(np.arange(n), left)
        u, v = _match_stubs(stubs, membership[stubs], rng)
        ok = u != v
        keys = _keys(u[ok], v[ok], n)
        keys = np.unique(keys)
        fresh = ~np.isin(keys, have, assume_unique=True)
        keys = keys[fresh]
        if keys.size == 0:
            break
        new_keys.append(keys)
        have = np.union1d(have, keys)
        a, b = keys // n, keys % n
        left = left - np.bincount(a, minlength=n) - np.bincount(b, minlength=n)
        left = np.maximum(left, 0)
    return np.concatenate(new_keys) if new_keys else np.zeros(0, np.int64)


def _inter_edges(inter: npt.NDArray[np.int64], membership: IntArray, weights: IntArray,
                 existing: IntArray, n: int, rng: np.random.Generator) -> IntArray:
    """``inter[i, j]`` distinct edges between communities ``i < j``, ends ∝ ``weights``."""
    k = inter.shape[0]
    iu, ju = np.triu_indices(k, 1)
    want = inter[iu, ju].astype(np.int64)
    live = np.flatnonzero(want > 0)
    if live.size == 0:
        return np.zeros(0, np.int64)
    w = weights.astype(np.float64)
    wsum = np.bincount(membership, weights=w, minlength=k)
    # communities whose weights are all zero: uniform over their nodes
    w = np.where(wsum[membership] > 0, w, 1.0)
    wsum = np.bincount(membership, weights=w, minlength=k)
    order = np.argsort(membership, kind="stable")
    cum = np.cumsum(w[order])
    base = np.concatenate([[0.0], np.cumsum(wsum)])
    have = np.unique(existing)
    out: list[IntArray] = []
    need = np.zeros(iu.size, dtype=np.int64)
    need[live] = want[live]
    for _ in range(4):
        live = np.flatnonzero(need > 0)
        if live.size == 0:
            break
        draw = np.repeat(live, np.ceil(need[live] * 1.15).astype(np.int64) + 2)

        def ends(comm: IntArray) -> IntArray:
            x = base[comm] + rng.random(comm.size) * wsum[comm]
            pos = np.minimum(np.searchsorted(cum, x, side="right"), n - 1)
            return np.asarray(order[pos], dtype=np.int64)

        a, b = ends(iu[draw]), ends(ju[draw])
        keys = _keys(a, b, n)
        perm = rng.permutation(keys.size)
        keys, draw = keys[perm], draw[perm]
        ukeys, first = np.unique(keys, return_index=True)
        fresh = ~np.isin(ukeys, have, assume_unique=True)
        ukeys, pid = ukeys[fresh], draw[first[fresh]]
        srt = np.lexsort((rng.random(pid.size), pid))
        ukeys, pid = ukeys[srt], pid[srt]
        start = np.searchsorted(pid, pid, side="left")
        rank = np.arange(pid.size) - start
        keep = rank < need[pid]
        got = ukeys[keep]
        out.append(got)
        have = np.union1d(have, got)
        need = need - np.bincount(pid[keep], minlength=iu.size)
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def generate_community_graph(rel: CommunityRelease, *, rng: np.random.Generator,
                             block_density: float | None = None) -> Graph:
    """A simple graph on ``rel.node_ids`` with the release's communities, degrees and
    clustering (post-processing of the release: no privacy cost).

    Parameters
    ----------
    rel : CommunityRelease
    rng : numpy.random.Generator
    block_density : float in (0, 1], optional
        BTER block density ``ρ``; default the release's fitted one, else
        :data:`DEFAULT_BLOCK_DENSITY`.

    Returns
    -------
    Graph
        Node ids = the universe (every listed node, isolated ones included), in order.
    """
    rho = (block_density if block_density is not None else
           rel.block_density if rel.block_density is not None else DEFAULT_BLOCK_DENSITY)
    rho = check_float(rho, "block_density", "generate_community_graph", low=0.0, high=1.0)
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError(
            "The 'rng' parameter of generate_community_graph must be a numpy Generator. "
            f"Got {type(rng).__name__} instead.")
    n = int(rel.membership.size)
    din = np.asarray(rel.d_in, dtype=np.int64)
    m = np.asarray(rel.membership, dtype=np.int64)
    block, starts = affinity_blocks(din, m, rng)
    order = np.flatnonzero(block >= 0)
    order = order[np.argsort(block[order], kind="stable")]
    bu, bv = _block_edges(order, starts, rho, din, rng)
    bkeys = _trim_overshoot(np.unique(_keys(bu, bv, n)), din, n, rng)
    bdeg = np.bincount(bkeys // n, minlength=n) + np.bincount(bkeys % n, minlength=n)
    excess = np.maximum(din - bdeg, 0)
    ckeys = _intra_edges(excess, m, bkeys, n, rng)
    intra = np.concatenate([bkeys, ckeys])
    ikeys = _inter_edges(np.asarray(rel.inter), m, np.asarray(rel.d_out), intra, n, rng)
    keys = np.concatenate([intra, ikeys])
    # what loops and repeated pairs cost: the remaining degree deficits matched at random
    # across the whole graph
    deg = np.bincount(keys // n, minlength=n) + np.bincount(keys % n, minlength=n)
    want = din + np.asarray(rel.d_out, dtype=np.int64)
    deficit = np.maximum(want - deg, 0)
    # no more than the release's total: inter-community ends drawn ∝ d_out overshoot at some
    # nodes, and matching every other node's deficit would exceed Σ d / 2 by their sum
    room = max(int(want.sum()) // 2 - int(keys.size), 0)
    if deficit.sum() > 2 * room:
        stubs = np.repeat(np.arange(n), deficit)
        chosen = rng.choice(stubs.size, size=2 * room, replace=False)
        deficit = np.bincount(stubs[chosen], minlength=n)
    top = _intra_edges(deficit, np.zeros(n, dtype=np.int64), keys, n, rng)
    keys = np.concatenate([keys, top])
    return Graph.from_edges(keys // n, keys % n, n_nodes=n, node_ids=rel.node_ids)
