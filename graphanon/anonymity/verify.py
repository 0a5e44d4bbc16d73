"""Check a release against Definition 3.5 (smooth-k-anonymity) of ``000_*.txt``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import check_int
from ..errors import InvalidParameterError
from ..graph import BipartiteGraph
from ._align import group_rows, index_in, unique_sorted

__all__ = ["SmoothKReport", "verify_smooth_k"]


@dataclass(frozen=True)
class SmoothKReport:
    """Outcome of :func:`verify_smooth_k`.

    ``ok`` is true iff both conditions hold. ``violations`` holds at most ``max_violations``
    precise messages; the counts are complete.
    """

    ok: bool
    k: int
    n_users: int
    n_classes: int
    min_class_size: int
    small_classes: int
    majority_violations: int
    unknown_users: int
    is_suppression: bool
    violations: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok, "k": self.k, "n_users": self.n_users, "n_classes": self.n_classes,
            "min_class_size": self.min_class_size, "small_classes": self.small_classes,
            "majority_violations": self.majority_violations,
            "unknown_users": self.unknown_users, "is_suppression": self.is_suppression,
            "violations": list(self.violations),
        }


def verify_smooth_k(original: BipartiteGraph, anonymized: BipartiteGraph, k: int, *,
                    max_violations: int = 20) -> SmoothKReport:
    """Check both conditions of Definition 3.5 of ``000_*.txt`` on a release.

    With ``E`` the original and ``E'`` the released edges, ``F_u(E')`` the released feature
    set of user ``u`` and ``C_u`` the class of users with the same released set:

    1. ``|C_u| ≥ k`` for every user ``u``;
    2. for every user ``u`` and feature ``f`` with ``(u, f) ∈ E'``:
       ``|{u' ∈ C_u : (u', f) ∈ E}| ≥ |C_u| / 2`` — at least half of the released edges of
       ``f`` in the class are original edges.

    Users are matched by id; an original user absent from ``anonymized`` has the empty set
    (edge-list files cannot list users without features), a released user or feature unknown
    to ``original`` is a violation. ``is_suppression`` reports ``E' ⊆ E`` (Definition 3.4).

    Returns
    -------
    SmoothKReport
        ``ok`` and a precise list of the violations (user ids, class size, feature ids).
    """
    k = check_int(k, "k", "verify_smooth_k", low=1)
    if not isinstance(original, BipartiteGraph) or not isinstance(anonymized, BipartiteGraph):
        raise InvalidParameterError("verify_smooth_k compares two BipartiteGraph objects.")
    msgs: list[str] = []
    n, m = original.n_users, original.n_features
    # released cells in the original index space: ids are aligned once (hash join), then
    # everything below works on integer codes
    ar, ac = anonymized.edges()
    umap = index_in(anonymized.user_ids, original.user_ids)
    fmap = index_in(anonymized.feature_ids, original.feature_ids)
    u_known = umap >= 0
    f_known = fmap >= 0
    unknown_users = int((~u_known).sum())
    if unknown_users:
        bad = anonymized.user_ids[~u_known][:5].tolist()
        msgs.append(f"{unknown_users} released users are not in the original graph, e.g. {bad}")
    if not f_known.all():
        bad = anonymized.feature_ids[~f_known][:5].tolist()
        msgs.append(f"{int((~f_known).sum())} released features are not in the original "
                    f"graph, e.g. {bad}")
    keep = u_known[ar] & f_known[ac]
    r = umap[ar[keep]]
    c = fmap[ac[keep]]
    key = unique_sorted(r * max(m, 1) + c)
    r = key // max(m, 1)
    c = key - r * max(m, 1)
    # classes: users with identical released sets
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n), out=ptr[1:])
    cls, n_cls = group_rows(ptr, c)
    csize = np.bincount(cls, minlength=n_cls)
    small = np.flatnonzero(csize < k)
    for j in small[:max_violations]:
        members = original.user_ids[cls == j][:5].tolist()
        msgs.append(f"condition 1: a class of {int(csize[j])} < k={k} users shares the same "
                    f"released set (users {members}{'...' if csize[j] > 5 else ''})")
    # condition 2: for each class and released feature, original holders >= |C|/2
    orr, occ = original.edges()
    okey, ocnt = np.unique(cls[orr] * max(m, 1) + occ, return_counts=True)
    rel_key = unique_sorted(cls[r] * max(m, 1) + c)
    pos = np.searchsorted(okey, rel_key)
    pos_ok = pos < okey.size
    have = np.zeros(rel_key.size, dtype=np.int64)
    hit = pos_ok.copy()
    hit[pos_ok] = okey[pos[pos_ok]] == rel_key[pos_ok]
    have[hit] = ocnt[pos[hit]]
    rel_cls = rel_key // max(m, 1)
    bad = np.flatnonzero(2 * have < csize[rel_cls])
    for j in bad[:max(0, max_violations - len(msgs))]:
        cl = int(rel_cls[j])
        f = int(rel_key[j] - cl * max(m, 1))
        msgs.append(f"condition 2: feature {original.feature_ids[f]!r} is released to a class "
                    f"of {int(csize[cl])} users of which only {int(have[j])} had it "
                    f"(users {original.user_ids[cls == cl][:5].tolist()})")
    # suppression: every released cell is an original cell
    okeys_cells = orr * max(m, 1) + occ  # CSR cells: sorted and distinct
    is_sup = bool(keep.all()) and bool(np.isin(key, okeys_cells, assume_unique=True).all())
    ok = small.size == 0 and bad.size == 0 and unknown_users == 0 and bool(f_known.all())
    return SmoothKReport(
        ok=ok, k=k, n_users=n, n_classes=n_cls,
        min_class_size=int(csize.min()) if n_cls else 0, small_classes=int(small.size),
        majority_violations=int(bad.size), unknown_users=unknown_users,
        is_suppression=is_sup, violations=msgs[:max_violations],
    )
