"""numba kernel of the generator's greedy capacity check (the triad formation of
:func:`graphanon.synthetic.bter._closure_edges`): candidate edges in their given order, each
kept when both its ends still have capacity. Sequential by nature (each decision changes the
capacities the next one reads), so compiled rather than vectorized: a vectorized version by
ranks had to drop candidates that a node's earlier, blocked candidates had crowded out, and
kept 2–14 of 200 where the greedy keeps what the capacities allow.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from .. import _numba  # noqa: F401  (numba's per-user cache folder)


@numba.njit(cache=True, nogil=True)
def _greedy(u: Any, v: Any, left: Any) -> Any:  # pragma: no cover - compiled
    keep = np.zeros(u.size, dtype=np.bool_)
    for i in range(u.size):
        a = u[i]
        b = v[i]
        if left[a] > 0 and left[b] > 0:
            keep[i] = True
            left[a] -= 1
            left[b] -= 1
    return keep


def greedy_within_capacity(u: np.ndarray, v: np.ndarray, left: np.ndarray) -> np.ndarray:
    """``keep[i]``: candidate ``(u[i], v[i])`` kept, in order, while both ends have capacity
    (``left`` is not modified). The compiled loop does no bounds checks, so the ends are
    checked here: ``u`` and ``v`` of one length, every end an index into ``left``."""
    u = np.ascontiguousarray(u, dtype=np.int64)
    v = np.ascontiguousarray(v, dtype=np.int64)
    left = np.array(left, dtype=np.int64)
    if u.shape != v.shape or u.ndim != 1:
        raise ValueError(f"u and v must be 1-d of one length; got {u.shape} and {v.shape}")
    if u.size and (min(u.min(), v.min()) < 0 or max(u.max(), v.max()) >= left.size):
        raise ValueError(f"candidate ends must lie in [0, {left.size})")
    return np.asarray(_greedy(u, v, left))
