"""The community generator: BTER affinity blocks inside communities, a configuration model for
the excess degree and stub-matched inter-community edges (issue 36, parts 3 and 4).

Given a :class:`~graphanon.synthetic.communities.CommunityRelease` (public: released values and
their post-processing), :func:`generate_community_graph` builds a simple graph on the
universe's node ids:

0. **Hubs first.** A node whose ``d_in`` is at least half its community's other nodes
   (:data:`DEFAULT_HUB_SHARE`) is joined, highest first, to ``d_in`` distinct nodes of its
   community drawn ∝ their ``d_in`` (:func:`_hub_edges`); each partner has one unit of
   ``d_in`` less for the phases below, and the hub joins no block. An ego network's centre
   keeps its degree and its edges to low-degree members (after the blocks, which had used up
   the members' degrees, it kept about 60 %).
1. **Affinity blocks** (BTER phase 1). In every community the nodes with ``d_in >= 2`` are
   sorted by ``d_in`` (ties at random) and cut into blocks: a block starts at its smallest
   node, of degree ``d``, and holds ``d + 1`` nodes of similar degree (a community's last,
   incomplete block joins the one before it). Each block is an Erdős–Rényi graph of density
   ``ρ_d = min(1, ρ (h / d)^β)``: ``ρ`` is fitted to the released triangle statistic
   (:func:`graphanon.synthetic.clustering.fit_block_density`), ``h`` is the statistic's
   degree bound and ``β`` the public block slope (:data:`DEFAULT_BLOCK_SLOPE`). With a
   block mixing ``σ > 0`` the sort key is ``log d_in + σ·Z`` (``Z`` standard normal), so a
   block mixes degrees and its Chung–Lu edges carry no degree correlation: equal-degree
   blocks are what makes BTER's graphs assortative (:func:`affinity_blocks`).
2. **Excess degree** (BTER phase 2). Each node's remaining intra-community degree
   ``max(d_in − block degree, 0)`` becomes stubs. A share of them (:data:`DEFAULT_CLOSURE`)
   first tries to close a triangle through a block or hub neighbour (Holme–Kim triad
   formation, :func:`_closure_edges`); the rest are matched at random inside the community
   (a configuration model: degrees exact up to the loops and repeated pairs dropped, which two
   more matching rounds on the remaining deficit mostly restore). A node holding more than a
   quarter of its community's stubs (a star's hub) is matched first, to distinct partners.
3. **Inter-community edges.** ``E_ij`` distinct edges between communities ``i`` and ``j``
   by stub matching (a degree-corrected configuration model): each node's ``d_out`` stubs
   fill its community's slots towards the others, and slot ``r`` of ``i`` towards ``j``
   meets slot ``r`` of ``j`` towards ``i``. A node of ``d_out = 1`` gets its edge (ends drawn
   ∝ ``d_out``, Chung–Lu, left about 37 % of them without one). What repeated pairs leave is
   drawn ∝ ``d_out``.
4. **Top-up.** Degree deficits left by dropped loops and repeated pairs are matched at
   random inside each community (three rounds), so the inter-community edges stay the
   stub-matched ``E_ij``; what is still missing of the release's edge count (hubs already
   joined to each other, or to every node of their community that has a deficit) goes from
   a deficit stub to a node of its community drawn ∝ ``d_in``, and what even that leaves
   (hubs joined to every node of their community) from a stub drawn ∝ total degree to a
   node of its community drawn ∝ ``d_in``, eight rounds: the release's edge count
   ``Σ d / 2`` exactly on the benchmark graphs; a community too dense to hold its degrees
   (near-complete) can stay short.

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
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .._validation import check_float
from ..errors import InvalidParameterError
from ..graph import Graph
from ..graph._csr import _csr_from_pairs, _sorted_unique

if TYPE_CHECKING:
    from .communities import CommunityRelease

__all__ = ["AUTO_BLOCK_MIXING", "DEFAULT_BLOCK_DENSITY", "DEFAULT_BLOCK_SLOPE",
           "DEFAULT_CLOSURE", "DEFAULT_HUB_SHARE", "affinity_blocks",
           "generate_community_graph"]

IntArray = npt.NDArray[np.int64]
#: Block density used when the release carries none (no triangle statistic).
DEFAULT_BLOCK_DENSITY = 0.5
#: Block slope ``β``: blocks of smallest degree ``d`` get density ``ρ (h / d)^β``. A public
#: prior, not read from the data; ``β = 0`` (the default): one density for all blocks. A
#: BTER block of density ``ρ_d`` gives its nodes a local clustering of about ``ρ_d³``
#: (Seshadhri, Kolda & Pinar 2012 set ``ρ_d = c_d^{1/3}``), and with one density the
#: generated ``c(d)`` already falls with ``d``: a node's excess degree (outside its block)
#: dilutes it, more so for the hubs. ``β = 1/3`` (``c(d) ∝ 1/d``, Ravasz & Barabási, Phys.
#: Rev. E 67, 026112, 2003) was the default while the blocks' Chung–Lu normalization left a
#: block of degree ``d`` at density ``ρ_d d / (d + 1)``; with the exact density it saturated
#: the low-degree blocks (ca-GrQc's average clustering 0.76 against 0.53; docs/synthetic.md).
DEFAULT_BLOCK_SLOPE = 0.0
#: Block mixing levels ``σ`` that ``block_mixing="auto"`` tries, in order, before ``0``
#: (:func:`graphanon.synthetic.communities.community_release`). A block's members are the
#: nodes next to each other in the order of ``log d_in + σ·Z`` (``Z`` standard normal), so
#: ``σ = 0`` gives BTER's blocks of equal degrees and ``σ = 1`` mixes degrees within about
#: a factor ``e`` of each other.
AUTO_BLOCK_MIXING: tuple[float, ...] = (1.0,)
#: Hub threshold: a node joined to at least this share of the other nodes of its community
#: (``d_in ≥ share · (size − 1)``) gets its intra-community edges first, before the blocks
#: (:func:`_hub_edges`). An ego network's centre is joined to most of its circle; built after
#: the blocks, whose edges had used up its partners' degrees, ego-Facebook's four largest
#: hubs (released degrees 1,042, 799, 744, 547) kept 648, 551, 480 and 366, and the hubs'
#: missing edges to low-degree nodes made the graph assortative (r 0.39 against 0.06).
#: ``0.25`` took ego-Facebook's dense core (degrees about 200, a quarter of its community)
#: out of the blocks too: its eigenvector top-1 % overlap fell from 0.80 to 0.43 at ε = 1.
DEFAULT_HUB_SHARE = 0.5
#: Triad formation: the share of the excess stubs that first try to close a triangle through
#: a block or hub neighbour (:func:`_closure_edges`) before the configuration model matches
#: the rest at random. BTER puts every triangle inside an affinity block, so a low-degree
#: node's edges outside its block close none, and the average clustering of core–periphery
#: graphs fell short (Wiki-Vote 0.07–0.09 against 0.14). The density fit keeps the released
#: triangle statistic either way. Chosen from 0.15 / 0.3 / 0.5 / 0.7: level at 0.3–0.5 on
#: the benchmark's datasets and families, and on its held-out graphs within seed noise
#: (which thereby took part in the choice); average clustering closer on all six datasets at ε = 1
#: (Wiki-Vote 0.40 → 0.35, Reed98 0.23 → 0.17 relative error); docs/synthetic.md.
DEFAULT_CLOSURE = 0.3


@functools.lru_cache(maxsize=512)
def _triu(s: int) -> tuple[IntArray, IntArray]:
    i, j = np.triu_indices(s, 1)
    return i.astype(np.int64), j.astype(np.int64)


def affinity_blocks(d_in: IntArray, membership: IntArray, rng: np.random.Generator,
                    mixing: float = 0.0) -> tuple[IntArray, IntArray]:
    """BTER blocks: ``(block id per node or −1, block starts)``.

    Nodes with ``d_in >= 2`` of each community, sorted by ``d_in`` (ties at random), are cut
    into consecutive blocks of ``d + 1`` nodes, ``d`` the degree of the block's first node; a
    community's last block, when it is short of ``d + 1`` nodes, joins the block before it
    (with ``σ = 0`` the community's highest degrees then sit in its densest block). With
    ``mixing = σ > 0`` (a float ``>= 0``)
    the sort key is ``log d_in + σ·Z`` (``Z`` standard normal per node): a block then holds
    nodes of different degrees, whose Chung–Lu edges are not degree-correlated (equal-degree
    blocks make the graph assortative). Returns the block id of every node (−1: no block)
    and the offsets of the blocks in the order of the nodes sorted by block id (block ``b``
    holds positions ``starts[b]:starts[b+1]``).
    """
    mixing = check_float(mixing, "mixing", "affinity_blocks", low=0.0)
    n = d_in.size
    eligible = np.flatnonzero(d_in >= 2)
    if mixing > 0:
        key = np.log(d_in[eligible]) + mixing * rng.standard_normal(eligible.size)
        order = eligible[np.lexsort((key, membership[eligible]))]
    else:
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
                 rng: np.random.Generator, slope: float, ref: int
                 ) -> tuple[IntArray, IntArray]:
    """Chung–Lu edges inside each block: a block of smallest degree ``d`` has density
    ``ρ_d = min(1, ρ (ref / d)^slope)`` (exactly, for a block of equal degrees; node ``i``'s
    expected block degree is ``ρ_d d_i`` at the block's mean degree)."""
    us: list[IntArray] = []
    vs: list[IntArray] = []
    sizes = np.diff(starts)
    for b in np.flatnonzero(sizes >= 2).tolist():
        members = order[starts[b]:starts[b + 1]]
        s = int(members.size)
        i, j = _triu(s)
        d = d_in[members].astype(np.float64)
        rb = min(rho * (ref / max(float(d.min()), 1.0)) ** slope, 1.0)
        # Chung–Lu inside the block without self-pairs: p_ij = ρ_d d_i d_j / (Σd − d̄), so a
        # block of s equal degrees has density exactly ρ_d (BTER's) and node i's expected
        # block degree is ρ_d d_i (Σd − d_i) / (Σd − d̄), ρ_d d_i at the block's mean degree.
        # Dividing by Σd instead left a block of degree d at density ρ_d d / (d + 1): local
        # clustering ≈ p³ was 0.30 ρ_d³ at d = 2, so c(d) rose with d where real graphs' falls.
        p = np.minimum(rb * d[i] * d[j] / (d.sum() - d.mean()), 1.0)
        keep = rng.random(i.size) < p
        us.append(members[i[keep]])
        vs.append(members[j[keep]])
    if not us:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(us), np.concatenate(vs)


def _hub_edges(d_in: IntArray, membership: IntArray, n: int, rng: np.random.Generator,
               share: float) -> tuple[IntArray, IntArray]:
    """The hubs' intra-community edges, before the blocks: ``(edge keys, d_in left)``.

    A hub is a node with ``d_in ≥ max(share · (s − 1), 2)``, ``s`` its community's size. In
    decreasing ``d_in`` order each hub is joined to ``min(left, candidates)`` distinct nodes
    of its community, drawn without replacement ∝ their remaining ``d_in`` among those with
    some left; each partner's remaining ``d_in`` falls by one and the hub's becomes 0, so it
    joins no block and no later hub draws it again. Work: ``O(s)`` per hub, and a hub's
    ``d_in`` is at least ``share · (s − 1)``, so ``O(m / share)`` in all."""
    left = d_in.copy()
    if share <= 0 or n == 0:
        return np.zeros(0, np.int64), left
    size = np.bincount(membership)
    hubs = np.flatnonzero(d_in >= np.maximum(share * (size[membership] - 1), 2))
    if hubs.size == 0:
        return np.zeros(0, np.int64), left
    by_comm = np.argsort(membership, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(size)])
    out: list[IntArray] = []
    for h in hubs[np.argsort(-d_in[hubs], kind="stable")].tolist():
        c = int(membership[h])
        others = by_comm[bounds[c]:bounds[c + 1]]
        # a hub before h has nothing left, so an edge to it is never drawn twice
        others = others[(left[others] > 0) & (others != h)]
        k = min(int(left[h]), others.size)
        if k > 0:
            partners = others
            if k < others.size:  # ∝ left, without replacement: the k largest log(u) / w
                # (Efraimidis & Spirakis 2006; numpy's choice(p=, replace=False) was 5× slower)
                key = np.log(rng.random(others.size)) / left[others]
                partners = others[np.argpartition(-key, k - 1)[:k]]
            out.append(_keys(np.full(k, h), partners, n))
            left[partners] -= 1
        left[h] = 0
    return (_sorted_unique(np.concatenate(out)) if out else np.zeros(0, np.int64)), left


def _closure_edges(excess: IntArray, existing: IntArray, n: int, rng: np.random.Generator,
                   share: float) -> IntArray:
    """Triad formation for a ``share`` of the excess stubs (Holme & Kim, Phys. Rev. E 65,
    026107, 2002): the stub's node ``u`` picks a random neighbour ``w`` among the ``existing``
    (block and hub) edges and a random neighbour ``x`` of ``w``; ``u − x`` closes the triangle
    ``u, w, x`` when ``x ≠ u`` has excess left and is not yet joined to ``u``. Distinct pairs,
    at most each node's excess (greedy, in random order:
    :func:`._greedy_kernels.greedy_within_capacity`). The existing edges are
    intra-community, so these are too."""
    if share <= 0 or existing.size == 0 or not excess.any():
        return np.zeros(0, np.int64)
    from ._greedy_kernels import greedy_within_capacity

    start, dst = (np.asarray(a, dtype=np.int64)
                  for a in _csr_from_pairs(existing // n, existing % n, n))
    deg = np.diff(start)
    stubs = np.repeat(np.arange(n), excess)
    stubs = stubs[(rng.random(stubs.size) < share) & (deg[stubs] > 0)]
    if stubs.size == 0:
        return np.zeros(0, np.int64)
    w = dst[start[stubs] + (rng.random(stubs.size) * deg[stubs]).astype(np.int64)]
    x = dst[start[w] + (rng.random(w.size) * deg[w]).astype(np.int64)]
    ok = (x != stubs) & (excess[x] > 0)
    keys = _sorted_unique(_keys(stubs[ok], x[ok], n))
    keys = keys[~_member(existing, keys)]
    keys = keys[rng.permutation(keys.size)]  # the greedy's order
    return np.asarray(keys[greedy_within_capacity(keys // n, keys % n, excess)])


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


def _member(have: IntArray, keys: IntArray) -> npt.NDArray[np.bool_]:
    """``keys`` found in the sorted array ``have`` (a binary search: ``np.isin`` sorts both
    every time, and the generator asks once per matching round)."""
    if have.size == 0:
        return np.zeros(keys.size, dtype=bool)
    pos = np.minimum(np.searchsorted(have, keys), have.size - 1)
    return np.asarray(have[pos] == keys)


def _insert(have: IntArray, keys: IntArray) -> IntArray:
    """The sorted ``have`` with the distinct ``keys`` (none of them in it) merged in."""
    keys = np.sort(keys)
    return np.insert(have, np.searchsorted(have, keys), keys)


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
    repeats and ``existing`` keys (``rounds`` matching rounds on what is left).

    A node holding more than a quarter of its community's stubs (a star's hub) is matched
    first, to distinct partners drawn ∝ their stubs: matched at random, about half its stubs
    met each other (loops, dropped) and the other nodes' stubs paired among themselves, so
    it kept about half its degree and the edges went to pairs the release has no use for."""
    have = _sorted_unique(existing)
    new_keys: list[IntArray] = []
    left = deficit.copy()
    total = np.bincount(membership, weights=left, minlength=int(membership.max(initial=0)) + 1)
    for h in np.flatnonzero(left > total[membership] / 4).tolist():
        others = np.flatnonzero((membership == membership[h]) & (left > 0))
        others = others[others != h]
        others = others[~_member(have, _keys(np.full(others.size, h), others, n))]
        k = min(int(left[h]), others.size)
        if k == 0:
            continue
        w = left[others].astype(np.float64)
        partners = rng.choice(others, size=k, replace=False, p=w / w.sum())
        keys = _sorted_unique(_keys(np.full(k, h), partners, n))
        new_keys.append(keys)
        have = _insert(have, keys)
        left[h] -= k
        left[partners] -= 1
    for _ in range(rounds):
        if left.sum() < 2:
            break
        stubs = np.repeat(np.arange(n), left)
        u, v = _match_stubs(stubs, membership[stubs], rng)
        ok = u != v
        keys = _keys(u[ok], v[ok], n)
        keys = _sorted_unique(keys)
        fresh = ~_member(have, keys)
        keys = keys[fresh]
        if keys.size == 0:
            break
        new_keys.append(keys)
        have = _insert(have, keys)
        a, b = keys // n, keys % n
        left = left - np.bincount(a, minlength=n) - np.bincount(b, minlength=n)
        left = np.maximum(left, 0)
    return np.concatenate(new_keys) if new_keys else np.zeros(0, np.int64)


def _inter_edges(inter: npt.NDArray[np.int64], membership: IntArray, d_out: IntArray,
                 existing: IntArray, n: int, rng: np.random.Generator, rounds: int = 4
                 ) -> IntArray:
    """``inter[i, j]`` distinct edges between communities ``i < j`` by stub matching (a
    degree-corrected configuration model): every node has ``d_out`` stubs; a community's
    stubs, shuffled, fill its slots (one slot per edge it needs to each other community,
    slots in random order); the ``r``-th slot of ``i`` towards ``j`` is paired with the
    ``r``-th slot of ``j`` towards ``i``. Realized degrees are the targets up to repeated
    pairs, which ``rounds`` more rounds on what is left mostly restore (drawing the ends
    ∝ ``d_out`` instead leaves a node of ``d_out = 1`` without an inter edge with
    probability ``e⁻¹``)."""
    k = inter.shape[0]
    need = np.triu(np.asarray(inter, dtype=np.int64), 1)
    need = need + need.T
    have = _sorted_unique(existing)
    left = np.asarray(d_out, dtype=np.int64).copy()
    out: list[IntArray] = []
    for _ in range(rounds):
        if need.sum() == 0 or left.sum() == 0:
            break
        # stubs: node ids sorted by community, random order inside
        stubs = np.repeat(np.arange(n), left)
        stubs = stubs[np.lexsort((rng.random(stubs.size), membership[stubs]))]
        n_stubs = np.bincount(membership[stubs], minlength=k)
        stub_start = np.concatenate([[0], np.cumsum(n_stubs)[:-1]])
        # slots: (community c, partner j) repeated need[c, j] times, random order inside c
        c_idx, j_idx = np.nonzero(need)
        slot_c = np.repeat(c_idx, need[c_idx, j_idx])
        slot_j = np.repeat(j_idx, need[c_idx, j_idx])
        srt = np.lexsort((rng.random(slot_c.size), slot_c))
        slot_c, slot_j = slot_c[srt], slot_j[srt]
        slot_start = np.concatenate([[0], np.cumsum(np.bincount(slot_c, minlength=k))[:-1]])
        t = np.arange(slot_c.size) - slot_start[slot_c]
        node = np.where(t < n_stubs[slot_c],
                        stubs[np.minimum(stub_start[slot_c] + t, max(stubs.size - 1, 0))], -1)
        # the r-th slot of c towards j meets the r-th slot of j towards c
        lo, hi = np.minimum(slot_c, slot_j), np.maximum(slot_c, slot_j)
        side = (slot_c > slot_j).astype(np.int64)
        pair = lo * k + hi
        srt = np.lexsort((side, _rank(pair, side), pair))
        pair_s, node_s, side_s = pair[srt], node[srt], side[srt]
        a, b = node_s[side_s == 0], node_s[side_s == 1]
        pid = pair_s[side_s == 0]
        ok = (a >= 0) & (b >= 0)
        keys = _keys(a[ok], b[ok], n)
        pid = pid[ok]
        ukeys, first = np.unique(keys, return_index=True)
        fresh = ~_member(have, ukeys)
        got, gpid = ukeys[fresh], pid[first[fresh]]
        if got.size == 0:
            break
        out.append(got)
        have = _insert(have, got)
        done = np.bincount(gpid, minlength=k * k).reshape(k, k)
        need = need - done - done.T
        left = np.maximum(left - np.bincount(got // n, minlength=n)
                          - np.bincount(got % n, minlength=n), 0)
    if need.sum() > 0:  # what repeated pairs left: ends drawn ∝ d_out
        out.append(_inter_fill(need, membership, np.asarray(d_out), have,
                               n, rng))
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def _inter_fill(inter: npt.NDArray[np.int64], membership: IntArray, weights: IntArray,
                 existing: IntArray, n: int, rng: np.random.Generator) -> IntArray:
    """``inter[i, j]`` distinct edges between communities ``i < j``, ends drawn ∝ ``weights``
    (Chung–Lu: what stub matching leaves, the repeated pairs of hubs)."""
    k = inter.shape[0]
    iu, ju = np.triu_indices(k, 1)
    want = inter[iu, ju].astype(np.int64)
    live = np.flatnonzero(want > 0)
    if live.size == 0:
        return np.zeros(0, np.int64)
    ends = _sampler(membership, weights, k, rng)
    have = _sorted_unique(existing)
    out: list[IntArray] = []
    need = np.zeros(iu.size, dtype=np.int64)
    need[live] = want[live]
    for _ in range(4):
        live = np.flatnonzero(need > 0)
        if live.size == 0:
            break
        draw = np.repeat(live, np.ceil(need[live] * 1.15).astype(np.int64) + 2)

        a, b = ends(iu[draw]), ends(ju[draw])
        keys = _keys(a, b, n)
        perm = rng.permutation(keys.size)
        keys, draw = keys[perm], draw[perm]
        ukeys, first = np.unique(keys, return_index=True)
        fresh = ~_member(have, ukeys)
        ukeys, pid = ukeys[fresh], draw[first[fresh]]
        srt = np.lexsort((rng.random(pid.size), pid))
        ukeys, pid = ukeys[srt], pid[srt]
        start = np.searchsorted(pid, pid, side="left")
        rank = np.arange(pid.size) - start
        keep = rank < need[pid]
        got = ukeys[keep]
        out.append(got)
        have = _insert(have, got)
        need = need - np.bincount(pid[keep], minlength=iu.size)
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def _sampler(membership: IntArray, weights: IntArray, k: int, rng: np.random.Generator
             ) -> Callable[[IntArray], IntArray]:
    """``ends(comm)``: one node of each community in ``comm``, drawn ∝ ``weights`` inside
    it (uniformly where a community's weights are all zero)."""
    w = weights.astype(np.float64)
    wsum = np.bincount(membership, weights=w, minlength=k)
    w = np.where(wsum[membership] > 0, w, 1.0)
    wsum = np.bincount(membership, weights=w, minlength=k)
    order = np.argsort(membership, kind="stable")
    cum = np.cumsum(w[order])
    base = np.concatenate([[0.0], np.cumsum(wsum)])
    last = membership.size - 1

    def ends(comm: IntArray) -> IntArray:
        x = base[comm] + rng.random(comm.size) * wsum[comm]
        pos = np.minimum(np.searchsorted(cum, x, side="right"), last)
        return np.asarray(order[pos], dtype=np.int64)

    return ends


def _draw_stubs(deficit: IntArray, size: int, rng: np.random.Generator) -> IntArray:
    """``min(size, Σ deficit)`` of the stubs ``np.repeat(arange(n), deficit)``, drawn
    without replacement (so node ``u`` at most ``deficit[u]`` times), as their nodes, in
    random order: positions among the stubs mapped to nodes through the cumulative
    deficit, without building the stub array."""
    cum = np.cumsum(deficit)
    total = int(cum[-1]) if cum.size else 0
    pos = rng.choice(total, size=min(total, size), replace=False)
    return np.searchsorted(cum, pos, side="right").astype(np.int64)


def _fill(deficit: IntArray, membership: IntArray, weights: IntArray, existing: IntArray,
          missing: int, n: int, rng: np.random.Generator, rounds: int = 8) -> IntArray:
    """At most ``missing`` new edges, each from a stub of ``deficit`` to a node of its
    community drawn ∝ ``weights`` (no loops, repeats or ``existing`` keys): what the
    configuration model's repeated pairs leave at hubs already joined to each other."""
    have = _sorted_unique(existing)
    out: list[IntArray] = []
    ends = _sampler(membership, weights, int(membership.max(initial=0)) + 1, rng)
    for _ in range(rounds):
        if missing <= 0 or not deficit.any():
            break
        # twice the stubs still missing (and a few more): in a dense community most draws
        # meet an existing pair, and a round of one draw for one missing edge often failed
        a = _draw_stubs(deficit, 2 * missing + 8, rng)
        b = ends(membership[a])
        keys = _keys(a[a != b], b[a != b], n)
        keys = _sorted_unique(keys)
        keys = keys[~_member(have, keys)]
        if keys.size > missing:  # a random subset, not the smallest keys
            keys = rng.choice(keys, size=missing, replace=False)
        if keys.size == 0:
            continue
        out.append(keys)
        have = _insert(have, keys)
        missing -= int(keys.size)
        deficit = np.maximum(deficit - np.bincount(keys // n, minlength=n)
                             - np.bincount(keys % n, minlength=n), 0)
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def _rank(groups: IntArray, side: IntArray) -> IntArray:
    """The rank of every entry among the entries of its ``(groups, side)`` key, in order."""
    key = groups * 2 + side
    srt = np.argsort(key, kind="stable")
    ks = key[srt]
    start = np.searchsorted(ks, ks, side="left")
    rank = np.empty(key.size, dtype=np.int64)
    rank[srt] = np.arange(key.size) - start
    return rank


def generate_community_graph(rel: CommunityRelease, *, rng: np.random.Generator,
                             block_density: float | None = None,
                             block_slope: float | None = None,
                             block_mixing: float | None = None,
                             hub_share: float = DEFAULT_HUB_SHARE,
                             closure: float = DEFAULT_CLOSURE) -> Graph:
    """A simple graph on ``rel.node_ids`` with the release's communities, degrees and
    clustering (post-processing of the release: no privacy cost).

    Parameters
    ----------
    rel : CommunityRelease
    rng : numpy.random.Generator
    block_density : float in (0, 1], optional
        BTER block density ``ρ``; default the release's fitted one, else
        :data:`DEFAULT_BLOCK_DENSITY`.
    block_slope : float in [0, 2], optional
        Block slope ``β`` (blocks of smallest degree ``d`` get density ``ρ (h / d)^β``);
        default the release's (``rel.block_slope``).
    block_mixing : float in [0, 4], optional
        Block mixing ``σ`` (:func:`affinity_blocks`: blocks cut from the order of
        ``log d_in + σ·Z``; 0: BTER's equal-degree blocks); default the release's
        (``rel.block_mixing``).
    hub_share : float in [0, 1]
        A node whose ``d_in`` is at least this share of its community's other nodes is a hub
        and gets its intra-community edges before the blocks (:func:`_hub_edges`; default
        :data:`DEFAULT_HUB_SHARE`; 0: no hub phase). The release's block density was fitted
        with the default.
    closure : float in [0, 1]
        Share of the excess stubs that first try to close a triangle through a block or hub
        neighbour (:func:`_closure_edges`; default :data:`DEFAULT_CLOSURE`; 0: none). The
        release's block density was fitted with the default.

    Returns
    -------
    Graph
        Node ids = the universe (every listed node, isolated ones included), in order.
    """
    rho = (block_density if block_density is not None else
           rel.block_density if rel.block_density is not None else DEFAULT_BLOCK_DENSITY)
    rho = check_float(rho, "block_density", "generate_community_graph", low=0.0, high=1.0)
    beta = check_float(rel.block_slope if block_slope is None else block_slope, "block_slope",
                       "generate_community_graph", low=0.0, high=2.0, closed="both")
    mixing = check_float(rel.block_mixing if block_mixing is None else block_mixing,
                         "block_mixing", "generate_community_graph", low=0.0, high=4.0,
                         closed="both")
    share = check_float(hub_share, "hub_share", "generate_community_graph", low=0.0,
                        high=1.0, closed="both")
    closure = check_float(closure, "closure", "generate_community_graph", low=0.0, high=1.0,
                          closed="both")
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError(
            "The 'rng' parameter of generate_community_graph must be a numpy Generator. "
            f"Got {type(rng).__name__} instead.")
    n = int(rel.membership.size)
    din = np.asarray(rel.d_in, dtype=np.int64)
    m = np.asarray(rel.membership, dtype=np.int64)
    hkeys, dres = _hub_edges(din, m, n, rng, share)
    block, starts = affinity_blocks(dres, m, rng, mixing)
    order = np.flatnonzero(block >= 0)
    order = order[np.argsort(block[order], kind="stable")]
    bu, bv = _block_edges(order, starts, rho, dres, rng, beta, rel.max_degree)
    bkeys = _trim_overshoot(_sorted_unique(_keys(bu, bv, n)), dres, n, rng)
    bkeys = np.concatenate([hkeys, bkeys])
    bdeg = np.bincount(bkeys // n, minlength=n) + np.bincount(bkeys % n, minlength=n)
    excess = np.maximum(din - bdeg, 0)
    tkeys = _closure_edges(excess, _sorted_unique(bkeys), n, rng, closure)
    if tkeys.size:
        bkeys = np.concatenate([bkeys, tkeys])
        excess = excess - np.bincount(tkeys // n, minlength=n) - np.bincount(tkeys % n,
                                                                              minlength=n)
    ckeys = _intra_edges(excess, m, bkeys, n, rng)
    intra = np.concatenate([bkeys, ckeys])
    ikeys = _inter_edges(np.asarray(rel.inter), m, np.asarray(rel.d_out), intra, n, rng)
    keys = np.concatenate([intra, ikeys])
    # what loops and repeated pairs cost: the remaining degree deficits matched at random
    # inside each community (matched across the whole graph, they added edges the released
    # E_ij do not have: 1,400–1,750 on ego-Facebook at ε = 1, against E_ij's 4,900–5,100)
    deg = np.bincount(keys // n, minlength=n) + np.bincount(keys % n, minlength=n)
    want = din + np.asarray(rel.d_out, dtype=np.int64)
    deficit = np.maximum(want - deg, 0)
    # no more than the release's total: inter-community ends drawn ∝ d_out overshoot at some
    # nodes, and matching every other node's deficit would exceed Σ d / 2 by their sum
    room = max(int(want.sum()) // 2 - int(keys.size), 0)
    if deficit.sum() > 2 * room:
        deficit = np.bincount(_draw_stubs(deficit, 2 * room, rng), minlength=n)
    keys = np.concatenate([keys, _intra_edges(deficit, m, keys, n, rng)])
    missing = int(want.sum()) // 2 - int(keys.size)
    if missing > 0:  # deficits at hubs already joined to each other: one end from them
        deficit = np.maximum(want - np.bincount(keys // n, minlength=n)
                             - np.bincount(keys % n, minlength=n), 0)
        keys = np.concatenate([keys, _fill(deficit, m, din, keys, missing, n, rng)])
        missing = int(want.sum()) // 2 - int(keys.size)
    if missing > 0:
        # hubs already joined to every node of their community have no free pair left: the
        # count is kept with edges from a stub drawn ∝ total degree to a node of its
        # community drawn ∝ d_in (a few degrees then exceed the release's by one;
        # ego-Facebook: 17–35 edges of 88,234 were missing before).
        keys = np.concatenate([keys, _fill(want, m, din, keys, missing, n, rng)])
    return Graph.from_edges(keys // n, keys % n, n_nodes=n, node_ids=rel.node_ids)
