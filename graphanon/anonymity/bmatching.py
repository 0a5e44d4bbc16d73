"""Adaptive anonymity via b-matching: every user chooses their own anonymity level δ_i.

Implements Choromanski, Jebara & Tang, "Adaptive Anonymity via b-Matching", NIPS 2013
(``003_*.txt``): Algorithm 1 (variational bipartite b-matching), Algorithm 2 (variational
symmetric b-matching), the agglomerative k-anonymity-by-suppression baseline they compare
against (Gionis, Mazza & Tassa, "k-Anonymization revisited", ICDE 2008), the random row
permutation; the verifier :func:`verify_adaptive_anonymity` is in :mod:`.bmatching_verify`
(re-exported here).

This is a *syntactic* anonymity model (a generalisation of k-anonymity), not differential
privacy: the released rows carry no noise and no ε budget is spent. The ``reweighting_epsilon``
of the algorithms is the ε of the paper's variational re-weighting, not a privacy parameter.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from .._progress import ProgressFn, log_progress
from .._validation import check_choice, check_int, fail
from ..errors import InfeasibleError, InvalidParameterError
from ..params import Param, Spec
from . import _bmatch_kernels as K
from ._align import unique_sorted
from ._bmatch_encode import MASKED, _as_codes, _check_delta, _encode, _Encoded
from .bmatching_verify import AnonymityVerification, _verify_impl, verify_adaptive_anonymity

__all__ = [
    "B_ANONYMIZE",
    "DEFAULT_EPSILONS",
    "MASKED",
    "SHORT_EPSILONS",
    "AdaptiveAnonymityResult",
    "AnonymityVerification",
    "adaptive_anonymize",
    "agglomerative_k_anonymity",
    "b_matching_anonymity",
    "delta_from_degree",
    "released_cells",
    "symmetric_b_matching_anonymity",
    "verify_adaptive_anonymity",
]

#: The paper's sweep of the re-weighting ε (section 5): 2^-1, 2^-2, ..., 2^-10.
DEFAULT_EPSILONS: tuple[float, ...] = tuple(2.0**-t for t in range(1, 11))
#: Algorithm 1's default sweep: 2^-1, then 2^-10 (weights of once-mismatched cells round to
#: 0 at the 1/128 cost resolution from ε = 2^-8 on), 2 re-weighting steps each. With the
#: duplicate groups and the nearest-neighbour start it has fewer stars than the full sweep
#: from the W = 1 matching on Adult (docs/bmatching.md) at a tenth of the solves.
SHORT_EPSILONS: tuple[float, ...] = (2.0**-1, 2.0**-10)
_COST_SCALE = 128  # min-cost-flow costs are integers: weights are rounded to 1/128

GUARANTEE_BIPARTITE = (
    "Every released row is compatible with at least δ_i original rows and every original row "
    "with at least δ_i released rows (compatibility-graph degree ≥ δ_i, the true matching is "
    "one perfect matching of it): a single linkage attack on user i succeeds with probability "
    "at most 1/δ_i (003_*.txt section 2). Against an adversary who already knows c matching "
    "edges only the weaker asymptotic bound of Theorems 4.1/4.2 holds for this asymmetric "
    "graph; use the symmetric variant for the (δ_i − c) guarantee."
)
GUARANTEE_SYMMETRIC = (
    "The compatibility graph contains a b-matching symmetric with respect to the true "
    "(canonical) matching in which user i has degree ≥ δ_i. Lemma 4.5 / Corollary 4.3 of "
    "003_*.txt: an adversary who knows c edges of the matching can only narrow any other user "
    "down to δ_i − c candidates; a uniformly chosen attack succeeds with probability at most "
    "1/(δ_i − c). Proof sketch: for every symmetric edge (a_i, b_j) the transposition of i and "
    "j in the true matching is another perfect matching of the compatibility graph, consistent "
    "with every known edge not touching i or j."
)
GUARANTEE_K = (
    "k-anonymity with k = max δ_i: every released row has ≥ k − 1 identical copies (clique-"
    "bipartite compatibility graph, symmetric), so each user is (k − c)-anonymous against an "
    "adversary who knows c matching edges (003_*.txt Lemma 4.3)."
)


def delta_from_degree(
    friends: Any, *, delta: int, log_base: float = math.e
) -> npt.NDArray[np.int64]:
    """Per-user anonymity levels from friend counts, as in section 5 of ``003_*.txt``.

    ``δ_i = δ − (F − ⌊log f_i⌋)`` with ``F = max_i ⌊log f_i⌋``, clipped to ``[1, δ]``; users
    with no friends count as ``f_i = 1``.

    Parameters
    ----------
    friends
        Number of friends ``f_i`` of every user (e.g. ``Graph.degrees``).
    delta
        The level of the best-connected users (``δ`` of the paper's Figure 3(b)).
    log_base
        Base of the logarithm (the paper does not say; natural log by default).

    Notes
    -----
    The formula gives the *highest* level to the users with the most friends, although the
    paper's prose says the level "decreases as the number of friends increases"; the formula
    is implemented as printed.
    """
    delta = check_int(delta, "delta", "delta_from_degree", low=1)
    f = np.asarray(friends, dtype=np.float64)
    if f.ndim != 1 or (f.size and f.min() < 0):
        raise fail("friends", "delta_from_degree", "a 1-D array of non-negative counts", f.shape)
    if not (log_base > 1):
        raise fail("log_base", "delta_from_degree", "a float > 1", log_base)
    lf = np.floor(np.log(np.maximum(f, 1.0)) / math.log(log_base)).astype(np.int64)
    F = int(lf.max()) if lf.size else 0
    return np.clip(delta - (F - lf), 1, delta).astype(np.int64)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class AdaptiveAnonymityResult:
    """An anonymized release: masked rows in a random order.

    ``released[r, k]`` is the code of attribute ``k`` of released row ``r`` or :data:`MASKED`.
    ``owner`` is the SECRET key of the release (released row ``r`` belongs to original row
    ``owner[r]``): keep it, never publish it.
    """

    released: npt.NDArray[np.int32]
    owner: npt.NDArray[np.int64]
    delta: npt.NDArray[np.int64]
    method: str
    stars: int
    utility: float
    seconds: float
    solver: str
    candidates: int
    reweighting_epsilon: float | None
    iterations: int
    history: tuple[tuple[float, int, int], ...]
    exact: bool
    guarantee: str
    row_ids: Any = None
    attribute_ids: Any = None
    mechanism: str = "adaptive-anonymity"
    privacy_model: str = "adaptive k-anonymity (b-matching compatibility graph), syntactic"
    neighbourhood: str = "none: suppression anonymity, not differential privacy"
    epsilon: None = None
    sensitivity: None = None
    verification: AnonymityVerification | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.released.shape[0])

    @property
    def d(self) -> int:
        return int(self.released.shape[1])

    def in_original_order(self) -> npt.NDArray[np.int32]:
        """The masked rows Y in the order of X (uses the secret key)."""
        Y = np.empty_like(self.released)
        Y[self.owner] = self.released
        return Y

    def release(self, *, source_fingerprint: str = "", seed: int | None = None) -> Any:
        """The public :class:`~graphanon.privacy.release.Release` record of this output.

        ``neighbourhood="k-anonymity"`` (a syntactic guarantee, no ε is spent or charged);
        ``params`` holds the method, the δ statistics, the solver options and the guarantee.
        The key (``owner``) is not part of it.
        """
        from ..privacy.release import Release

        s = self.summary()
        # public parameters only: sizes, star counts, utility and iteration counts are read
        # off the data (they stay in summary(), for the operator's report)
        params = {k: s[k] for k in ("method", "solver", "exact_solver", "candidates",
                                    "reweighting_epsilon", "privacy_model", "guarantee")}
        params["verified"] = bool(self.verification is not None and self.verification.ok)
        if self.method == "k-anonymity":
            params["k"] = int(self.delta.max())
        return Release.create(
            mechanism=self.mechanism, neighbourhood="k-anonymity",
            sensitivity_derivation="n/a: suppression anonymity, not differential privacy",
            params=params, seed=seed, source_fingerprint=source_fingerprint,
        )

    def summary(self) -> dict[str, Any]:
        """Public report fields (no key, no data)."""
        return {
            "mechanism": self.mechanism, "method": self.method,
            "privacy_model": self.privacy_model, "neighbourhood": self.neighbourhood,
            "differentially_private": False, "n": self.n, "d": self.d, "stars": self.stars,
            "utility": self.utility, "delta_min": int(self.delta.min()) if self.n else 0,
            "delta_median": float(np.median(self.delta)) if self.n else 0.0,
            "delta_max": int(self.delta.max()) if self.n else 0,
            "seconds": self.seconds, "solver": self.solver, "exact_solver": self.exact,
            "candidates": self.candidates, "reweighting_epsilon": self.reweighting_epsilon,
            "iterations": self.iterations, "guarantee": self.guarantee,
            "verification": self.verification.as_dict() if self.verification else None,
        }


# --------------------------------------------------------------------------- solvers
def _candidates(enc: _Encoded, c: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Directed candidate edges i -> j: kNN pairs in both directions, no self loops."""
    n = enc.codes.shape[0]
    c = min(c, n - 1)
    nb = K.knn_hamming(enc.bits, c, enc.n_bits)
    src = np.repeat(np.arange(n, dtype=np.int64), c)
    dst = nb.ravel()
    key = unique_sorted(np.concatenate([src * n + dst, dst * n + src]))
    return key // n, key % n


def _solve_bipartite(
    cost: npt.NDArray[np.float64], src: Any, dst: Any, need: Any, n: int, solver: str
) -> npt.NDArray[np.bool_] | None:
    """Min Σ cost_e x_e s.t. out-degree(i) ≥ need_i, in-degree(j) ≥ need_j, x ∈ {0, 1}.

    Returns the selected-edge mask or None when infeasible on this candidate set.
    """
    E = src.size
    if solver == "ortools":
        from ortools.graph.python import min_cost_flow

        for with_slack in (False, True):
            f = min_cost_flow.SimpleMinCostFlow()
            icost = np.round(cost * _COST_SCALE).astype(np.int64)
            tails, heads = src, dst + n
            caps = np.ones(E, dtype=np.int64)
            supplies = np.concatenate([need, -need]).astype(np.int64)
            if with_slack:  # node Z lets rows and columns exceed their lower bounds
                z = 2 * n
                tails = np.concatenate([tails, np.full(n, z), np.arange(n) + n])
                heads = np.concatenate([heads, np.arange(n), np.full(n, z)])
                caps = np.concatenate([caps, np.full(2 * n, n, dtype=np.int64)])
                icost = np.concatenate([icost, np.zeros(2 * n, dtype=np.int64)])
                supplies = np.concatenate([supplies, [0]])
            arcs = f.add_arcs_with_capacity_and_unit_cost(tails, heads, caps, icost)
            f.set_nodes_supplies(np.arange(supplies.size), supplies)
            status = f.solve()
            if status == f.OPTIMAL:
                return np.asarray(f.flows(arcs[:E])) > 0
        return None
    from scipy.optimize import linprog

    cols = np.arange(E)
    A = sp.vstack([
        sp.csr_array((np.ones(E), (src, cols)), shape=(n, E)),
        sp.csr_array((np.ones(E), (dst, cols)), shape=(n, E)),
    ]).tocsr()
    res = linprog(cost, A_ub=-A, b_ub=-np.concatenate([need, need]).astype(float),
                  bounds=(0, 1), method="highs-ds")
    if res.status != 0:
        return None
    x = np.asarray(res.x)
    if np.abs(x - np.round(x)).max() > 1e-6:  # pragma: no cover - TU constraint matrix
        raise InfeasibleError("the b-matching LP returned a fractional vertex")
    return x > 0.5


def _solve_symmetric(
    cost: npt.NDArray[np.float64], u: Any, v: Any, need: Any, n: int, time_limit: float | None
) -> tuple[npt.NDArray[np.bool_] | None, bool]:
    """Min-cost unipartite b-edge-cover on candidate edges {u, v} (HiGHS MILP)."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    E = u.size
    cols = np.arange(E)
    A = sp.csr_array((np.ones(2 * E), (np.concatenate([u, v]), np.concatenate([cols, cols]))),
                     shape=(n, E))
    opts: dict[str, Any] = {"mip_rel_gap": 0.0}
    if time_limit is not None:
        opts["time_limit"] = time_limit
    res = milp(cost, constraints=LinearConstraint(A, lb=need.astype(float), ub=np.inf),
               integrality=np.ones(E), bounds=Bounds(0, 1), options=opts)
    if res.x is None:
        return None, True
    return np.asarray(res.x) > 0.5, res.status == 0


def _weights(enc: _Encoded, src: Any, dst: Any, eps: float) -> npt.NDArray[np.float64]:
    """W_ik = exp(Σ_j Ĝ_ij [X_ik ≠ X_jk] · ln(ε / (1 + ε))) (Algorithm 1, line 3)."""
    m = K.mismatch_counts(enc.codes, src, dst)
    w: npt.NDArray[np.float64] = np.exp(m * math.log(eps / (1.0 + eps)))
    return w


def _stars(enc: _Encoded, src: Any, dst: Any) -> int:
    return int(K.row_masks(enc.codes, src, dst).sum())


def _pick_solver(solver: str) -> str:
    if solver != "auto":
        return solver
    try:
        import ortools.graph.python.min_cost_flow  # noqa: F401
    except ImportError:  # pragma: no cover - ortools is a dependency
        return "highs"
    return "ortools"


def _variational(
    enc: _Encoded,
    need: npt.NDArray[np.int64],
    *,
    symmetric: bool,
    candidates: int,
    epsilons: Sequence[float],
    max_iter: int,
    solver: str,
    warm: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None,
    time_limit: float | None,
    progress: ProgressFn,
    nearest_start: bool = False,
) -> dict[str, Any]:
    n = enc.codes.shape[0]
    task = "symmetric b-matching" if symmetric else "b-matching"
    c = max(candidates, int(need.max()) if n else 0)
    exact = True
    while True:
        src, dst = _candidates(enc, c)
        solve: Callable[[npt.NDArray[np.float64]], Any]
        if symmetric:
            und = src < dst  # candidate set is closed under reversal
            u, v = src[und], dst[und]

            def solve_symmetric(W: npt.NDArray[np.float64], u: Any = u, v: Any = v) -> Any:
                nonlocal exact
                cost = K.edge_costs(enc.codes, W, u, v) + K.edge_costs(enc.codes, W, v, u)
                sel, ok = _solve_symmetric(cost, u, v, need, n, time_limit)
                exact = exact and ok
                if sel is None:
                    return None
                return (np.concatenate([u[sel], v[sel]]), np.concatenate([v[sel], u[sel]]))

            solve = solve_symmetric
        else:

            def solve_bipartite(W: npt.NDArray[np.float64], src: Any = src,
                                dst: Any = dst) -> Any:
                cost = K.edge_costs(enc.codes, W, src, dst)
                sel = _solve_bipartite(cost, src, dst, need, n, solver)
                return None if sel is None else (src[sel], dst[sel])

            solve = solve_bipartite

        cache: dict[float, Any] = {}
        if nearest_start:
            # the first weights come from every row's need_i nearest candidates (no solve):
            # W only needs the mismatch counts of a matching, not a feasible one
            warm = _nearest_edges(enc, src, dst, need)
        if warm is None:
            first = solve(np.ones(enc.codes.shape, dtype=np.float64))
        else:  # probe feasibility of this variant with the first ε's warm-started weights
            probe = solve(_weights(enc, warm[0], warm[1], float(epsilons[0])))
            first = None if probe is None else warm
            cache[float(epsilons[0])] = probe
        if first is not None or c >= n - 1:
            break
        c = min(n - 1, 2 * c)  # widen the candidate set
    if first is None:
        raise InfeasibleError(
            f"no {task} satisfies the anonymity levels even on the complete candidate set "
            f"(n={n}, max δ={int(need.max()) + 1})"
        )
    history: list[tuple[float, int, int]] = []
    best = first
    best_stars = _stars(enc, *first) if warm is None else None
    best_eps: float | None = None
    iters = 0
    for t, eps in enumerate(epsilons):
        progress(task, t, len(epsilons))
        # the sweep runs from the largest ε to the smallest, each ε starting from the best
        # matching so far (section 5); the first starts from Ĝ of W = 1 (or the warm start)
        G, s = (best, best_stars) if best_stars is not None else (first, math.inf)
        for it in range(max_iter):
            if it == 0 and eps in cache:
                Gn = cache.pop(eps)
            else:
                Gn = solve(_weights(enc, G[0], G[1], eps))
            iters += 1
            if Gn is None:  # pragma: no cover - feasibility does not depend on weights
                break
            sn = _stars(enc, *Gn)
            history.append((float(eps), it + 1, sn))
            if sn >= s:
                break
            G, s = Gn, sn
        if best_stars is None or s < best_stars:
            best, best_stars, best_eps = G, int(s), float(eps)
    progress(task, len(epsilons), len(epsilons))
    if best_stars is None or best_stars == math.inf:  # pragma: no cover
        raise InfeasibleError(f"{task} found no solution")
    return {"edges": best, "stars": int(best_stars), "eps": best_eps, "iterations": iters,
            "history": tuple(history), "candidates": c, "exact": exact}


def _nearest_edges(enc: _Encoded, src: npt.NDArray[np.int64], dst: npt.NDArray[np.int64],
                   need: npt.NDArray[np.int64]
                   ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Every row's ``need_i`` nearest candidates in Hamming distance (ties by index)."""
    cost = K.edge_costs(enc.codes, np.ones(enc.codes.shape, dtype=np.float64), src, dst)
    order = np.lexsort((dst, cost, src))
    s_sorted = src[order]
    first = np.searchsorted(s_sorted, np.arange(need.size))
    rank = np.arange(order.size, dtype=np.int64) - first[s_sorted]
    keep = order[rank < need[s_sorted]]
    return src[keep], dst[keep]


def _no_edges() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)


def _self_matched_groups(codes: npt.NDArray[np.int32], need: npt.NDArray[np.int64]
                         ) -> tuple[npt.NDArray[np.int64],
                                    tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]]:
    """Rows left to match, and the fixed edges of groups of identical rows that can match
    among themselves.

    A group of ``s`` identical rows whose largest need ``m`` (= δ − 1) is below ``s`` gets
    the circulant ``r_a → r_{a+t mod s}``, ``t = 1..m``: out- and in-degree ``m`` for every
    member at cost 0, so its rows carry no star. Removing such groups loses nothing on a
    complete candidate set: an optimal matching that used ``g → j`` and ``i → g'`` (``g, g'``
    in the group, ``i, j`` outside) can take ``g → g'`` and ``i → j`` instead, since
    ``c_ij ≤ c_ig' + c_gj`` when the group's weights are 1 (its cells never mismatch) and
    every weight is at most 1. The other rows are then matched among themselves, each with
    its nearest *other* rows as candidates instead of copies of one large group.
    """
    n = codes.shape[0]
    _, inv, cnt = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
    inv = inv.ravel()
    n_types = cnt.size
    m_type = np.zeros(n_types, dtype=np.int64)
    np.maximum.at(m_type, inv, need)
    ok_type = cnt > m_type
    fixed_rows = ok_type[inv]
    order = np.flatnonzero(fixed_rows)
    order = order[np.argsort(inv[order], kind="stable")]  # members of a group together
    t_of = inv[order]
    starts = np.searchsorted(t_of, np.arange(n_types))
    pos = np.arange(order.size, dtype=np.int64) - starts[t_of]  # a = position in group
    size = cnt[t_of]
    deg = m_type[t_of]
    src = np.repeat(order, deg)
    step = np.arange(src.size, dtype=np.int64) - np.repeat(np.cumsum(deg) - deg, deg) + 1
    a = np.repeat(pos, deg)
    base = np.repeat(starts[t_of], deg)
    dst = order[base + (a + step) % np.repeat(size, deg)]
    rest = np.flatnonzero(~fixed_rows).astype(np.int64)
    if rest.size and rest.size <= int(need[rest].max()):  # the rest cannot match alone
        return np.arange(n, dtype=np.int64), _no_edges()
    return rest, (src.astype(np.int64), dst.astype(np.int64))


def _agglomerative(codes: npt.NDArray[np.int32], k: int) -> npt.NDArray[np.bool_]:
    """Row masks of the agglomerative k-anonymity clustering (see the numba kernel)."""
    from ._bmatch_kernels import agglomerative_clusters

    labels = agglomerative_clusters(codes, k)
    n, d = codes.shape
    mask = np.zeros((n, d), dtype=bool)
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    for grp in np.split(order, bounds):
        if grp.size:
            col_varies = (codes[grp] != codes[grp[0]]).any(axis=0)
            mask[grp] = col_varies
    return mask


# --------------------------------------------------------------------------- public API
def _finish(
    codes: npt.NDArray[np.int32], mask: npt.NDArray[np.bool_], delta: npt.NDArray[np.int64],
    *, method: str, rng: np.random.Generator, t0: float, verify: bool, row_ids: Any,
    attribute_ids: Any, **fields: Any,
) -> AdaptiveAnonymityResult:
    n, d = codes.shape
    Y = np.where(mask, MASKED, codes).astype(np.int32)
    # The permutation is the secret that hides which released row is whose: it is drawn from
    # the OS CSPRNG, never from ``rng`` (whose seed a report or a job file may record).
    owner = np.random.default_rng(secrets.randbits(128)).permutation(n).astype(np.int64)
    released = Y[owner]
    stars = int(mask.sum())
    ver = None
    if verify:
        ver = _verify_impl(codes, released, delta, owner, symmetric=method != "b-matching")
        if not ver.ok:  # pragma: no cover - would be a bug in this module
            raise InfeasibleError(f"internal error: {method} output fails verification: "
                                  f"{ver.violations[:3]}")
    return AdaptiveAnonymityResult(
        released=released, owner=owner, delta=delta, method=method, stars=stars,
        utility=1.0 - stars / (n * d) if n * d else 1.0, seconds=time.perf_counter() - t0,
        row_ids=row_ids, attribute_ids=attribute_ids, verification=ver, **fields,
    )


def b_matching_anonymity(
    X: Any,
    *,
    delta: Any,
    rng: np.random.Generator,
    candidates: int = 32,
    epsilons: Sequence[float] = SHORT_EPSILONS,
    max_iter: int = 2,
    solver: str = "auto",
    verify: bool = True,
    duplicates: str = "group",
    start: str = "nearest",
    progress: ProgressFn = log_progress,
) -> AdaptiveAnonymityResult:
    """Algorithm 1 of ``003_*.txt``: variational bipartite b-matching, then a random shuffle.

    Parameters
    ----------
    X
        A :class:`~graphanon.graph.BipartiteGraph` (binary users × attributes) or an ``n × d``
        array of non-negative integer codes (categorical).
    delta
        Anonymity level per user: an int (uniform) or an integer array of length ``n``, each in
        ``[1, n]``.
    rng
        Generator of the algorithm's own random choices. The release permutation (the
        secret key ``owner``) always comes from the OS CSPRNG, so a recorded seed never
        reproduces it.
    candidates
        ``c``: every row may be matched to its ``c`` nearest rows in Hamming distance (and to
        the rows that have it among theirs). Widened (doubled) while infeasible.
    epsilons
        The sweep of the re-weighting ε (largest first); the best solution is kept. Default
        :data:`SHORT_EPSILONS` (2^-1, 2^-10); the paper's 2^-1 … 2^-10 is
        :data:`DEFAULT_EPSILONS` (about 50 exact solves instead of 4 on Adult).
    max_iter
        Re-weighting iterations per ε (each stops early when the star count stops falling).
    solver
        ``"ortools"`` (exact min-cost flow, integer costs: weights rounded to 1/128),
        ``"highs"`` (exact LP, HiGHS dual simplex; slower) or ``"auto"``.
    verify
        Run :func:`verify_adaptive_anonymity` on the output (O(n²) time).
    duplicates
        ``"group"`` (default): a group of identical rows with more members than its largest
        ``δ_i − 1`` is matched inside itself (a circulant, no star) and left out of the
        flow problems, whose other rows then get candidates other than copies of one group
        (see :func:`_self_matched_groups` for why nothing is lost on a complete candidate
        set). ``"keep"``: every row goes through the flow problems (the former behaviour).
    start
        ``"nearest"`` (default): the first weights come from every row's ``δ_i − 1``
        nearest candidates (no solve); ``"matching"``: from the exact matching with
        ``W = 1`` (one more solve, the paper's start).

    Returns
    -------
    AdaptiveAnonymityResult

    Raises
    ------
    InvalidParameterError
        Bad ``X``, ``delta`` or options.
    InfeasibleError
        No b-matching exists (cannot happen for δ_i ≤ n).

    References
    ----------
    Choromanski, Jebara & Tang, Adaptive Anonymity via b-Matching, NIPS 2013, section 3,
    Algorithm 1; Theorems 1 and 2.

    Notes
    -----
    Each step solves ``min Σ_ij G_ij Σ_k W_ik [X_ik ≠ X_jk]`` subject to out-degree ≥ δ_i − 1
    and in-degree ≥ δ_j − 1 over G without the diagonal (the true matching G_ii = 1 supplies
    the remaining edge), an exact min-cost flow / transportation problem on the candidate
    edges (its constraint matrix is totally unimodular, so the LP optimum is a 0/1
    b-matching). Then ``Y_ik = *`` whenever some matched ``j`` differs from ``i`` at ``k``; so
    y_i is compatible with every matched x_j, giving compatibility degrees ≥ δ_i on both
    sides. The weights are re-set to ``W_ik = (ε/(1+ε))^{m_ik}`` (m_ik = mismatches of cell
    ``ik`` under the current matching): the variational upper bound on the star count.

    Guarantee: see :data:`GUARANTEE_BIPARTITE`. Not differential privacy.
    """
    return _run(X, delta=delta, rng=rng, method="b-matching", candidates=candidates,
                epsilons=epsilons, max_iter=max_iter, solver=solver, verify=verify,
                progress=progress, owner="b_matching_anonymity", duplicates=duplicates,
                start=start)


def symmetric_b_matching_anonymity(
    X: Any,
    *,
    delta: Any,
    rng: np.random.Generator,
    candidates: int = 32,
    epsilons: Sequence[float] = DEFAULT_EPSILONS,
    max_iter: int = 5,
    warm_start: bool = True,
    time_limit: float | None = None,
    verify: bool = True,
    progress: ProgressFn = log_progress,
) -> AdaptiveAnonymityResult:
    """Algorithm 2 of ``003_*.txt``: variational symmetric b-matching (G = Gᵀ).

    Each step is a minimum-cost unipartite b-edge-cover (every user i on ≥ δ_i − 1 chosen
    edges, edge cost ``Σ_k W_ik[X_ik≠X_jk] + Σ_k W_jk[X_ik≠X_jk]``) solved exactly by HiGHS
    MILP (``mip_rel_gap = 0``; with ``time_limit`` the best incumbent is used and the result
    says ``exact=False``). With ``warm_start`` the weights of the first step come from the
    star pattern of Algorithm 1's solution (section 5: "we warm-started the symmetric
    algorithm with the star-pattern solution of the asymmetric algorithm").

    Parameters are those of :func:`b_matching_anonymity`.

    References
    ----------
    Choromanski, Jebara & Tang, NIPS 2013, Algorithm 2; section 4.4, Lemma 4.5, Corollary 4.3.

    Notes
    -----
    Guarantee (:data:`GUARANTEE_SYMMETRIC`): Lemma 4.5 — an adversary who knows c matching
    edges leaves every other user (δ_i − c)-anonymous; success probability ≤ 1/(δ_i − c)
    (Corollary 4.3). Not differential privacy.
    """
    return _run(X, delta=delta, rng=rng, method="symmetric-b-matching", candidates=candidates,
                epsilons=epsilons, max_iter=max_iter, solver="highs-milp", verify=verify,
                progress=progress, owner="symmetric_b_matching_anonymity",
                warm_start=warm_start, time_limit=time_limit)


def agglomerative_k_anonymity(
    X: Any, *, delta: Any, rng: np.random.Generator, verify: bool = True,
) -> AdaptiveAnonymityResult:
    """Baseline: agglomerative k-anonymity by suppression with ``k = max δ_i``.

    Starts from singleton clusters and repeatedly merges the pair (at least one of size < k)
    whose union adds the fewest stars, ``|S∪T|·s(S∪T) − |S|·s(S) − |T|·s(T)`` with ``s`` the
    number of attributes not constant in the cluster, until every cluster has ≥ k rows; every
    row is then released as its cluster's pattern.

    References
    ----------
    Gionis, Mazza & Tassa, k-Anonymization revisited, ICDE 2008 (agglomerative algorithm);
    the competitor of ``003_*.txt`` section 5.

    Notes
    -----
    Guarantee: :data:`GUARANTEE_K`. O(n²·d) time per the nearest-neighbour bookkeeping: for
    benchmarks up to a few thousand rows.
    """
    return _run(X, delta=delta, rng=rng, method="k-anonymity", verify=verify,
                owner="agglomerative_k_anonymity")


#: The methods of :func:`adaptive_anonymize` (``graphanon b-anonymize --method``).
METHODS = ("b-matching", "symmetric-b-matching", "k-anonymity")
_MATCHING = ("b-matching", "symmetric-b-matching")

#: ``b-anonymize`` (command and job step) and :func:`adaptive_anonymize`: the method and its
#: solver options, declared once (issue 37). The users' levels δ_i are their own choice, not a
#: parameter of the mechanism: the command reads them with ``--delta`` / ``--delta-file`` /
#: ``--delta-column`` / ``--delta-from-degree``, a job step with ``delta`` / ``delta_file`` /
#: ``delta_attribute``. The table in docs/bmatching.md.
B_ANONYMIZE = Spec("adaptive_anonymize", (
    Param("method", "choice",
          "b-matching: Algorithm 1 (compatibility degree ≥ δ_i both ways); "
          "symmetric-b-matching: Algorithm 2, (δ_i − c)-anonymity against an adversary who "
          "knows c matching edges (Lemma 4.5); k-anonymity: the agglomerative baseline with "
          "k = max δ_i.", default="b-matching", choices=METHODS),
    Param("candidates", "int",
          "Nearest Hamming neighbours per row offered to the matching (doubled while "
          "infeasible).", default=32, low=1, only=("method", _MATCHING)),
    Param("max_iter", "int",
          "Re-weighting steps per ε of the sweep (none: 2 for b-matching, 5 for "
          "symmetric-b-matching).", default=None, low=0, only=("method", _MATCHING)),
    Param("time_limit", "float",
          "Seconds per exact MILP solve; then the best incumbent is used and the report says "
          "exact_solver: false (none: solve to optimality).", default=None, low=0.0,
          closed="neither", only=("method", "symmetric-b-matching")),
    Param("verify", "bool",
          "Check the output with verify_adaptive_anonymity (O(n²)); the command and the job "
          "step always do.", default=True, cli="", job=False),
), doc="docs/bmatching.md")


def adaptive_anonymize(
    X: Any,
    *,
    delta: Any,
    rng: np.random.Generator,
    method: str = "b-matching",
    candidates: int = 32,
    max_iter: int | None = None,
    time_limit: float | None = None,
    verify: bool = True,
    progress: ProgressFn = log_progress,
) -> AdaptiveAnonymityResult:
    """Adaptive anonymity by ``method`` (:data:`B_ANONYMIZE`): the one entry point of the
    ``b-anonymize`` command and job step.

    ``"b-matching"`` runs :func:`b_matching_anonymity`, ``"symmetric-b-matching"``
    :func:`symmetric_b_matching_anonymity`, ``"k-anonymity"``
    :func:`agglomerative_k_anonymity` (which takes no solver options: ``candidates``,
    ``max_iter`` and ``time_limit`` are refused with it, as ``time_limit`` is with
    ``"b-matching"``). Their further tuning options (``epsilons``, ``solver``,
    ``duplicates``, ``start``, ``warm_start``) are keywords of those functions. A syntactic
    model, not differential privacy: no ε, no noise.
    """
    values = B_ANONYMIZE.validate({"method": method, "candidates": candidates,
                                   "max_iter": max_iter, "time_limit": time_limit,
                                   "verify": verify})
    method, verify = values["method"], values["verify"]
    if method == "k-anonymity":
        return agglomerative_k_anonymity(X, delta=delta, rng=rng, verify=verify)
    options: dict[str, Any] = {"candidates": values["candidates"], "verify": verify,
                               "progress": progress}
    if values["max_iter"] is not None:
        options["max_iter"] = values["max_iter"]
    if method == "b-matching":
        return b_matching_anonymity(X, delta=delta, rng=rng, **options)
    return symmetric_b_matching_anonymity(X, delta=delta, rng=rng,
                                          time_limit=values["time_limit"], **options)


def _run(
    X: Any, *, delta: Any, rng: Any, method: str, owner: str, candidates: int = 32,
    epsilons: Sequence[float] = DEFAULT_EPSILONS, max_iter: int = 5, solver: str = "auto",
    verify: bool = True, progress: ProgressFn = log_progress, warm_start: bool = True,
    time_limit: float | None = None, duplicates: str = "group", start: str = "nearest",
) -> AdaptiveAnonymityResult:
    t0 = time.perf_counter()
    if not isinstance(rng, np.random.Generator):
        raise fail("rng", owner, "a numpy.random.Generator", type(rng).__name__)
    codes, row_ids, attr_ids = _as_codes(X, owner)
    n, d = codes.shape
    if n == 0:
        raise InvalidParameterError(f"The 'X' parameter of {owner} has no rows.")
    dl = _check_delta(delta, n, owner)
    candidates = check_int(candidates, "candidates", owner, low=1)
    max_iter = check_int(max_iter, "max_iter", owner, low=0)
    eps = tuple(float(e) for e in epsilons)
    if not eps or any(not (0 < e < math.inf) for e in eps):
        raise fail("epsilons", owner, "a non-empty sequence of positive floats", epsilons)
    solver = check_choice(solver, "solver", owner, ("auto", "ortools", "highs", "highs-milp"))
    duplicates = check_choice(duplicates, "duplicates", owner, ("group", "keep"))
    start = check_choice(start, "start", owner, ("nearest", "matching"))
    common = {"row_ids": row_ids, "attribute_ids": attr_ids}
    if method == "k-anonymity":
        k = int(dl.max())
        mask = _agglomerative(codes, k) if k > 1 else np.zeros((n, d), dtype=bool)
        return _finish(codes, mask, dl, method=method, rng=rng, t0=t0, verify=verify,
                       solver="agglomerative", candidates=0, reweighting_epsilon=None,
                       iterations=0, history=(), exact=False, guarantee=GUARANTEE_K,
                       extra={"k": k}, **common)
    enc = _encode(codes)
    need = dl - 1
    if need.max() == 0:
        mask = np.zeros((n, d), dtype=bool)
        return _finish(codes, mask, dl, method=method, rng=rng, t0=t0, verify=verify,
                       solver="none", candidates=0, reweighting_epsilon=None, iterations=0,
                       history=(), exact=True,
                       guarantee=GUARANTEE_BIPARTITE if method == "b-matching"
                       else GUARANTEE_SYMMETRIC, **common)
    extra: dict[str, Any] = {}
    if method == "b-matching":
        rest, fixed = (_self_matched_groups(codes, need) if duplicates == "group"
                       else (np.arange(n, dtype=np.int64), _no_edges()))
        extra["self_matched_rows"] = int(n - rest.size)
        if rest.size:
            out = _variational(_encode(codes[rest]) if rest.size < n else enc, need[rest],
                               symmetric=False, candidates=candidates, epsilons=eps,
                               max_iter=max_iter, solver=_pick_solver(solver), warm=None,
                               time_limit=None, progress=progress,
                               nearest_start=start == "nearest")
            es, ed = out["edges"]
            out["edges"] = (np.concatenate([fixed[0], rest[es]]),
                            np.concatenate([fixed[1], rest[ed]]))
        else:
            out = {"edges": fixed, "candidates": 0, "eps": None, "iterations": 0,
                   "history": (), "exact": True}
        used, guarantee = _pick_solver(solver), GUARANTEE_BIPARTITE
    else:
        warm = None
        if warm_start:
            a1 = _variational(enc, need, symmetric=False, candidates=candidates, epsilons=eps,
                              max_iter=max_iter, solver=_pick_solver("auto"), warm=None,
                              time_limit=None, progress=progress)
            warm = a1["edges"]
            extra["warm_start_stars"] = a1["stars"]
        out = _variational(enc, need, symmetric=True, candidates=candidates, epsilons=eps,
                           max_iter=max(max_iter, 1), solver="highs-milp", warm=warm,
                           time_limit=time_limit, progress=progress)
        used, guarantee = "highs-milp", GUARANTEE_SYMMETRIC
    mask = K.row_masks(codes, *out["edges"])
    return _finish(codes, mask, dl, method=method, rng=rng, t0=t0, verify=verify,
                   solver=used, candidates=out["candidates"],
                   reweighting_epsilon=out["eps"], iterations=out["iterations"],
                   history=out["history"], exact=out["exact"], guarantee=guarantee,
                   extra=extra, **common)


def released_cells(
    result: AdaptiveAnonymityResult,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Cells to write for a binary release: (released row, attribute, masked?) for every cell
    that is a known 1 or masked; every other cell is a known 0."""
    R = result.released
    rows, cols = np.nonzero((R == 1) | (R == MASKED))
    return rows.astype(np.int64), cols.astype(np.int64), R[rows, cols] == MASKED
