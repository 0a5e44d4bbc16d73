"""numba kernel of the degree-bounded triangle statistics: triangles per top node.

Orient every edge from the lower to the higher rank (rank: degree, ties by index). A
triangle ``a < b < c`` (by rank) then has the edges ``a → b``, ``a → c`` and ``b → c``, and
exactly one node, ``c``, with no edge out of the triangle: its top. For each ``a`` the kernel
marks ``a``'s out-neighbours, walks every two-step path ``a → b → c`` and counts ``c`` when
it is marked: each triangle once, at its top. The work is the number of oriented two-step
paths, which the degree orientation keeps small (a hub has few out-neighbours).

The same count as the sparse product ``((U @ U) * U).sum(axis=0)``, without materializing
``U @ U`` (on a forest fire of 2.4 million edges: 6.6 s with scipy, measured in
docs/synthetic.md).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from .. import _numba  # noqa: F401  (numba's per-user cache folder)


@numba.njit(cache=True, nogil=True)
def _top_counts(indptr: Any, indices: Any, n: int) -> Any:  # pragma: no cover - compiled
    top = np.zeros(n, dtype=np.int64)
    mark = np.full(n, -1, dtype=np.int64)
    for a in range(n):
        for j in range(indptr[a], indptr[a + 1]):
            mark[indices[j]] = a
        for j in range(indptr[a], indptr[a + 1]):
            b = indices[j]
            for k in range(indptr[b], indptr[b + 1]):
                c = indices[k]
                if mark[c] == a:
                    top[c] += 1
    return top


def top_triangle_counts(indptr: np.ndarray, indices: np.ndarray, n: int) -> np.ndarray:
    """Triangles per top node of the oriented graph in CSR form (``indptr``, ``indices``:
    the out-neighbours of each node, every edge once, from lower to higher rank)."""
    return np.asarray(_top_counts(np.ascontiguousarray(indptr, dtype=np.int64),
                                  np.ascontiguousarray(indices, dtype=np.int64), int(n)))
