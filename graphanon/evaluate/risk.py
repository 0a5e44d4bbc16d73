"""Re-identification risk of anonymized user–feature releases (part 1 of ``graphanon evaluate``).

The attack: an adversary knows ``q`` features of a target user (drawn from the user's true
features) and looks for the target among the released rows, which carry no usable user id
(file outputs use keyed pseudonyms; here the evaluation runs in memory, where the true
row ↔ user correspondence is known). The *candidate set* ``C`` is the set of released rows the
adversary cannot rule out; the adversary then picks one of them uniformly, so the probability
of a correct link is ``1/|C|`` if the target's row is in ``C`` and 0 otherwise. For randomized
response the adversary computes the exact posterior of every row instead.

What "consistent" means depends on what the mechanism may do to a row (``semantics``):

``"exact"`` (the original data)
    ``C`` = rows containing all ``q`` known features.
``"suppression"`` (k-anonymity by suppression, Mondrian: the released set is a *subset* of the
    true set)
    A known feature may be missing from the target's row (suppressed) but cannot be replaced:
    a row is ruled out only if it shows a *different* value of an exclusive attribute of a
    known feature (``education=HS-grad`` when the adversary knows ``education=Bachelors``).
    Features that are not values of an exclusive attribute rule nothing out.
``"masked"`` (b-anonymize: cells are shown or ``*``)
    A row is ruled out if a known feature's cell is shown as 0, or if the row shows another
    value of the feature's exclusive attribute; ``*`` matches anything.
``"majority"`` (smooth-k: the released row is the majority row of the user's cluster and may
    both add and remove features)
    Nothing is strictly ruled out, so the adversary takes the best matches: the score of a row
    is (known features shown) − (known features contradicted by another shown value), and
    ``C`` = the rows with the highest score. The target may not be among them.
``"randomized"`` (randomized response with flip probability ``q_f``)
    The adversary knows the target's ``q`` features and the values implied by them (the other
    values of their exclusive attributes are 0), knows the population frequency ``p_f`` of
    every feature and computes the likelihood ratio of every row,
    ``Π_f P[r_f | x_f] / P[r_f]`` over the known cells (``P[r_f = 1] = p_f(1 − q) + (1 − p_f)q``);
    the posterior of row ``r`` is its share of the sum. The link probability is the posterior
    of the target's own row; the candidate set size is the posterior's perplexity
    ``exp(entropy)`` (``|C|`` for a uniform posterior over ``C``), and the target is singled
    out when its own row holds more than half of the posterior.

Reported per mechanism, parameter and ``q``: the fraction of targets whose candidate set is
smaller than ``k`` (or the user's δ_i), the fraction singled out (``|C| = 1`` and it is the
target), the mean probability of a correct link and the theoretical bound: ``1/k`` for
k-anonymity (the target's row has ``>= k`` identical copies, all consistent whenever it is),
``1/δ_i`` for b-matching (every row compatible with the target's full record is consistent
with part of it), and for randomized response the model bound ``1/(1 + (n − 1)e^{−2mε})``
(each of the ``m`` known cells changes a row's likelihood ratio by at most ``e^{±ε}``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from .._validation import check_choice, check_int
from ..errors import InvalidParameterError
from ..graph import BipartiteGraph

__all__ = [
    "SEMANTICS",
    "AttackTargets",
    "ReleasedRows",
    "RiskRow",
    "draw_targets",
    "feature_groups",
    "reidentification_risk",
]

SEMANTICS = ("exact", "suppression", "masked", "majority", "randomized")
_CELLS = 4_000_000  # rows × targets per chunk


def feature_groups(B: BipartiteGraph) -> npt.NDArray[np.int64]:
    """Exclusive attribute of every feature (index per feature).

    Features named ``"attr=value"`` share the group of ``attr`` when no user of ``B`` has two
    values of ``attr`` (one-hot categorical attributes); every other feature is a group of its
    own (a multi-valued or binary feature rules nothing out by its absence).
    """
    names = [str(f) for f in B.feature_ids.tolist()]
    attrs = [n.split("=", 1)[0] if "=" in n else None for n in names]
    labels = {a: i for i, a in enumerate(sorted({a for a in attrs if a is not None}))}
    prov = np.array([labels[a] if a is not None else -1 for a in attrs], dtype=np.int64)
    rows, cols = B.edges()
    exclusive = np.ones(len(labels), dtype=bool)
    if rows.size and len(labels):
        g = prov[cols]
        has = g >= 0
        pairs = rows[has] * len(labels) + g[has]
        keys, counts = np.unique(pairs, return_counts=True)
        exclusive[np.unique(keys[counts > 1] % len(labels))] = False
    out = np.empty(len(names), dtype=np.int64)
    nxt = len(labels)
    for j, g0 in enumerate(prov.tolist()):
        if g0 >= 0 and exclusive[g0]:
            out[j] = g0
        else:
            out[j] = nxt
            nxt += 1
    # renumber densely
    return np.unique(out, return_inverse=True)[1].astype(np.int64)


@dataclass(frozen=True)
class ReleasedRows:
    """A release as the adversary sees it, rows aligned with the users of the original.

    Attributes
    ----------
    name, parameter : str
        Mechanism and its setting (``"smooth-k"``, ``"k=8"``).
    semantics : str
        One of :data:`SEMANTICS` (module docstring).
    shown : scipy.sparse.csr_array
        ``n × F`` 0/1: features shown as present.
    masked : scipy.sparse.csr_array, optional
        ``n × F`` 0/1: cells released as ``*`` (``"masked"`` only).
    levels : ndarray of int, optional
        Anonymity level per user (``k`` or ``δ_i``) for the "|C| < k" column and the bound.
    flip : float, optional
        Randomized response: probability that a cell is flipped (``q``).
    epsilon : float, optional
        Randomized response: per-cell ε (for the model bound).
    """

    name: str
    parameter: str
    semantics: str
    shown: Any
    masked: Any = None
    levels: npt.NDArray[np.int64] | None = None
    flip: float | None = None
    epsilon: float | None = None

    @classmethod
    def from_bipartite(cls, name: str, parameter: str, semantics: str, B: BipartiteGraph,
                       **kw: Any) -> ReleasedRows:
        check_choice(semantics, "semantics", "ReleasedRows", SEMANTICS)
        return cls(name, parameter, semantics, _csr(B), **kw)

    @classmethod
    def from_masked(cls, name: str, parameter: str, Y: Any, *, levels: Any) -> ReleasedRows:
        """From a binary masked matrix (1 / 0 / -1 = ``*``) in the users' order."""
        Y = np.asarray(Y)
        return cls(name, parameter, "masked", sp.csr_array((Y == 1).astype(np.float64)),
                   masked=sp.csr_array((Y == -1).astype(np.float64)),
                   levels=np.asarray(levels, dtype=np.int64))


def _csr(B: BipartiteGraph) -> Any:
    m = B.to_scipy().astype(np.float64)
    return sp.csr_array(m)


@dataclass(frozen=True)
class AttackTargets:
    """Targets and what the adversary knows: ``users[j]`` knows the features of row ``j`` of
    ``known`` (``q`` ones each) and, implied by them, the zeros of row ``j`` of ``implied``."""

    q: int
    users: npt.NDArray[np.int64]
    known: Any
    implied: Any


def draw_targets(B: BipartiteGraph, *, q: int, n_targets: int, rng: np.random.Generator,
                 groups: npt.NDArray[np.int64] | None = None) -> AttackTargets:
    """``n_targets`` users with at least ``q`` features, and ``q`` of their features each.

    Parameters
    ----------
    B : BipartiteGraph
    q : int
        Known features per target (``>= 1``).
    n_targets : int
        Targets drawn without replacement (all eligible users when fewer).
    rng : numpy.random.Generator
    groups : ndarray, optional
        :func:`feature_groups` of ``B`` (computed when omitted).

    Returns
    -------
    AttackTargets
    """
    q = check_int(q, "q", "draw_targets", low=1)
    n_targets = check_int(n_targets, "n_targets", "draw_targets", low=1)
    groups = feature_groups(B) if groups is None else groups
    eligible = np.flatnonzero(B.user_degrees >= q)
    if eligible.size == 0:
        raise InvalidParameterError(f"draw_targets: no user has {q} features.")
    users = np.sort(rng.choice(eligible, size=min(n_targets, eligible.size), replace=False))
    rows, cols = [], []
    for j, u in enumerate(users.tolist()):
        feats = rng.choice(B.row(u).astype(np.int64), size=q, replace=False)
        rows += [j] * q
        cols += feats.tolist()
    F = B.n_features
    known = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(users.size, F))
    # implied zeros: the other values of the known features' exclusive groups
    G = sp.csr_array((np.ones(F), (np.arange(F), groups)), shape=(F, int(groups.max()) + 1
                                                                  if F else 0))
    implied = (known @ G @ G.T)
    implied = sp.csr_array((implied > 0).astype(np.float64) - known)
    implied.eliminate_zeros()
    return AttackTargets(q, users.astype(np.int64), known, implied)


@dataclass(frozen=True)
class RiskRow:
    """Risk of one release against one set of targets."""

    mechanism: str
    parameter: str
    q: int
    n_targets: int
    n_rows: int
    level: str
    median_candidates: float
    frac_below_level: float
    frac_singled_out: float
    frac_target_in_candidates: float
    mean_link_probability: float
    max_link_probability: float
    bound: float
    bound_rule: str

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _group_matrix(groups: npt.NDArray[np.int64]) -> Any:
    F = groups.size
    return sp.csr_array((np.ones(F), (np.arange(F), groups)),
                        shape=(F, int(groups.max()) + 1 if F else 0))


def reidentification_risk(
    B: BipartiteGraph,
    release: ReleasedRows,
    targets: AttackTargets,
    *,
    reference_k: int,
    groups: npt.NDArray[np.int64] | None = None,
) -> RiskRow:
    """Candidate sets, singling out and link probability of ``targets`` in ``release``.

    Parameters
    ----------
    B : BipartiteGraph
        The original data (for the population frequencies of randomized response).
    release : ReleasedRows
        The release, rows aligned with the users of ``B``.
    targets : AttackTargets
        From :func:`draw_targets` on ``B``.
    reference_k : int
        The "|C| < k" threshold for releases without their own level (original, RR).
    groups : ndarray, optional
        :func:`feature_groups` of ``B``.

    Returns
    -------
    RiskRow
    """
    owner = "reidentification_risk"
    reference_k = check_int(reference_k, "reference_k", owner, low=1)
    check_choice(release.semantics, "semantics", owner, SEMANTICS)
    groups = feature_groups(B) if groups is None else groups
    R = release.shown
    n, F = R.shape
    if (n, F) != (B.n_users, B.n_features):
        raise InvalidParameterError(
            f"{owner}: the release is {n} × {F}, the data {B.n_users} × {B.n_features}.")
    Gm = _group_matrix(groups)
    H = sp.csr_array(((R @ Gm) > 0).astype(np.float64))   # row shows a value of the group
    Hf = H @ Gm.T                                           # ... per feature
    q = targets.q
    T = targets.users.size
    link = np.zeros(T)
    size = np.zeros(T)
    inC = np.zeros(T, dtype=bool)
    single = np.zeros(T, dtype=bool)
    chunk = max(1, _CELLS // max(n, 1))
    if release.semantics == "randomized":
        if release.flip is None:
            raise InvalidParameterError(f"{owner}: a randomized release needs 'flip'.")
        qf = float(release.flip)
        p = np.asarray(B.feature_degrees, dtype=np.float64) / max(B.n_users, 1)
        p1 = p * (1 - qf) + (1 - p) * qf
        a1, b1 = np.log((1 - qf) / p1), np.log(qf / (1 - p1))   # known 1: shown / not shown
        a0, b0 = np.log(qf / p1), np.log((1 - qf) / (1 - p1))   # known 0
    elif release.semantics in ("suppression", "masked"):
        if release.semantics == "masked":
            if release.masked is None:
                raise InvalidParameterError(f"{owner}: a masked release needs 'masked'.")
            # masked cells possibly hold the feature unless the row shows another value
            U = R + release.masked.multiply(1.0 - Hf.toarray())
        else:
            U = R + sp.csr_array(1.0 - Hf.toarray())
        U = sp.csr_array(U)
    for s in range(0, T, chunk):
        e = min(T, s + chunk)
        Q = targets.known[s:e]
        users = targets.users[s:e]
        cols = np.arange(e - s)
        if release.semantics == "randomized":
            Z = targets.implied[s:e]
            logl = np.asarray((R @ Q.multiply(a1 - b1).T).toarray()) + (Q @ b1)[None, :]
            logl += np.asarray((R @ Z.multiply(a0 - b0).T).toarray()) + (Z @ b0)[None, :]
            mx = logl.max(axis=0)
            w = np.exp(logl - mx)
            post = w / w.sum(axis=0)
            with np.errstate(divide="ignore", invalid="ignore"):
                ent = -np.where(post > 0, post * np.log(post), 0.0).sum(axis=0)
            size[s:e] = np.exp(ent)  # effective candidates: perplexity of the posterior
            link[s:e] = post[users, cols]
            top = post.max(axis=0)
            inC[s:e] = post[users, cols] >= top - 1e-12
            single[s:e] = inC[s:e] & (link[s:e] > 0.5)
            continue
        else:
            match = np.asarray((R @ Q.T).toarray())
            if release.semantics == "exact":
                cand = match >= q - 0.5
            elif release.semantics == "majority":
                score = 2.0 * match - np.asarray((Hf @ Q.T).toarray())
                cand = score >= score.max(axis=0) - 1e-9
            else:
                cand = np.asarray((U @ Q.T).toarray()) >= q - 0.5
        sz = cand.sum(axis=0).astype(np.float64)
        hit = cand[users, cols]
        size[s:e] = sz
        inC[s:e] = hit
        single[s:e] = hit & (sz == 1)
        link[s:e] = np.where(hit, 1.0 / np.maximum(sz, 1.0), 0.0)
    if release.levels is not None:
        levels = np.asarray(release.levels, dtype=np.float64)[targets.users]
        level_txt = "k" if release.name != "b-anonymize" else "δ_i"
    else:
        levels = np.full(T, float(reference_k))
        level_txt = f"k={reference_k} (reference)"
    if release.semantics == "randomized":
        assert release.epsilon is not None
        m = q + np.asarray(targets.implied.sum(axis=1)).ravel()
        bound = float(np.mean(1.0 / (1.0 + (n - 1) * np.exp(-2.0 * m * release.epsilon))))
        rule = "1/(1+(n−1)e^(−2mε)), m known cells (model bound)"
    elif release.levels is not None:
        bound = float(np.max(1.0 / levels))
        rule = "1/δ_i" if release.semantics == "masked" else "1/k"
    else:
        bound, rule = 1.0, "none"
    return RiskRow(
        mechanism=release.name, parameter=release.parameter, q=q, n_targets=T, n_rows=n,
        level=level_txt, median_candidates=float(np.median(size)) if T else math.nan,
        frac_below_level=float(np.mean(size < levels)) if T else math.nan,
        frac_singled_out=float(np.mean(single)) if T else math.nan,
        frac_target_in_candidates=float(np.mean(inC)) if T else math.nan,
        mean_link_probability=float(np.mean(link)) if T else math.nan,
        max_link_probability=float(np.max(link)) if T else math.nan,
        bound=bound, bound_rule=rule)


def risk_table(rows: Sequence[RiskRow]) -> list[list[Any]]:
    """Rows for a report table (see :data:`RISK_HEADER`)."""
    return [[r.mechanism, r.parameter, r.q, r.n_targets, r.median_candidates, r.level,
             r.frac_below_level, r.frac_singled_out, r.mean_link_probability, r.bound]
            for r in rows]


RISK_HEADER = ["mechanism", "setting", "q", "targets", "median |C|", "level",
               "frac |C| < level", "singled out", "mean P(link)", "bound"]
