"""Building and checking the CSR arrays of both graph types (no id handling, no classes).

Undirected pairs or bipartite cells become sorted CSR rows here, by sorting (small inputs) or
by the counting kernels of :mod:`graphanon._csr_kernels` (from :data:`COUNTING_MIN_PAIRS`
pairs on); CSR arrays handed in by a caller are validated here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InvalidParameterError

__all__ = ["COUNTING_MIN_PAIRS", "iter_rows"]

IntArray = npt.NDArray[np.integer[Any]]
_I32_MAX = np.iinfo(np.int32).max


def _index_dtype(bound: int) -> type[np.signedinteger[Any]]:
    return np.int32 if bound <= _I32_MAX else np.int64


def _readonly(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    a.flags.writeable = False
    return a


def _sorted_unique(keys: Any) -> npt.NDArray[np.int64]:
    """Sorted distinct values of an integer array by sort + mask.

    ``np.unique`` without ``return_*`` flags is hash based in numpy 2.x and measured 100–150×
    slower than a sort on a million ``int64`` keys (1 s vs 8 ms), and it grows faster than
    linearly; every plain ``unique`` of cell keys in a hot path goes through here (also as
    :func:`graphanon.anonymity._align.unique_sorted`).
    """
    out: npt.NDArray[np.int64] = np.sort(np.asarray(keys, dtype=np.int64))
    if out.size < 2:
        return out
    keep = np.empty(out.size, dtype=bool)
    keep[0] = True
    np.not_equal(out[1:], out[:-1], out=keep[1:])
    return out[keep]


#: Below this many pairs a graph or bipartite matrix is built by the sort-based numpy code
#: (no JIT start-up: the first numba kernel of a process costs about 0.5 s to load); from it
#: on by the counting kernels of :mod:`graphanon._csr_kernels` (linear, no comparison sort).
COUNTING_MIN_PAIRS = 1 << 17


def _csr_from_pairs(u: IntArray, v: IntArray, n: int,
                    dropped: dict[str, int] | None = None) -> tuple[np.ndarray[Any, Any], ...]:
    """Symmetric CSR with sorted rows from undirected pairs; drops loops and duplicates
    (counted into ``dropped`` as ``self_loops`` and ``duplicate_edges`` when given).

    Pairs must be valid indices in ``[0, n)``. Large inputs are built by counting
    (:mod:`graphanon._csr_kernels`), small ones by :func:`_csr_from_pairs_sorting`; both give
    the same arrays.
    """
    if np.asarray(u).size < COUNTING_MIN_PAIRS:
        return _csr_from_pairs_sorting(u, v, n, dropped)
    from .. import _csr_kernels as kern

    u = np.asarray(u)
    v = np.asarray(v)
    idx_dtype = _index_dtype(max(n - 1, 0))
    indptr, indices, loops = kern.sorted_csr(u, v, n, n, True, idx_dtype)
    kept = int(indptr[-1])
    if dropped is not None:
        dropped["self_loops"] = loops
        dropped["duplicate_edges"] = (2 * (u.size - loops) - kept) // 2
    return indptr.astype(_index_dtype(kept), copy=False), indices


def _csr_from_pairs_sorting(u: IntArray, v: IntArray, n: int,
                            dropped: dict[str, int] | None = None
                            ) -> tuple[np.ndarray[Any, Any], ...]:
    """:func:`_csr_from_pairs` by sorting: canonical ``a < b`` keys, one sort-unique.

    Each kept edge ``{a, b}`` with ``a < b`` contributes ``b`` to row ``a`` and ``a`` to row
    ``b``. Within row ``r`` every "lower" neighbour (``a < r``) precedes every "upper"
    neighbour (``b > r``), so two independently sorted runs concatenate into a sorted row.
    """
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    keep = u != v
    n_pairs = int(u.size)
    if not keep.all():
        u, v = u[keep], v[keep]
    a = np.minimum(u, v)
    b = np.maximum(u, v)
    del u, v, keep
    key = _sorted_unique(a * n + b)  # sorted by (a, b), duplicates gone
    if dropped is not None:
        dropped["self_loops"] = n_pairs - int(a.size)
        dropped["duplicate_edges"] = int(a.size) - int(key.size)
    a = key // n
    b = key - a * n
    del key
    m = a.size
    lower = np.bincount(b, minlength=n)
    upper = np.bincount(a, minlength=n)
    deg = lower + upper
    ptr_dtype = _index_dtype(2 * m)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=indptr[1:])
    idx_dtype = _index_dtype(max(n - 1, 0))
    indices = np.empty(2 * m, dtype=idx_dtype)
    # upper entries: already grouped by a, sorted by b inside each group
    upper_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(upper, out=upper_start[1:])
    ranks = np.arange(m, dtype=np.int64)
    pos_upper = indptr[a] + lower[a] + (ranks - upper_start[a])
    indices[pos_upper] = b
    # lower entries: group by b (stable, so a stays sorted inside each group)
    order = np.argsort(b, kind="stable")
    bo = b[order]
    lower_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lower, out=lower_start[1:])
    pos_lower = indptr[bo] + (ranks - lower_start[bo])
    indices[pos_lower] = a[order]
    return indptr.astype(ptr_dtype, copy=False), indices


def _cells_csr(r: npt.NDArray[np.int64], c: npt.NDArray[np.int64], n_rows: int, n_cols: int
               ) -> tuple[npt.NDArray[np.int64], np.ndarray[Any, Any]]:
    """``(indptr, indices)`` of the distinct cells ``(r[i], c[i])`` with sorted rows
    (``indptr`` int64, ``indices`` int32 while the columns fit)."""
    idx_dtype = _index_dtype(max(n_cols - 1, 0))
    if r.size < COUNTING_MIN_PAIRS:
        key = _sorted_unique(r * max(n_cols, 1) + c)
        r_sorted = key // max(n_cols, 1)
        indices = (key - r_sorted * max(n_cols, 1)).astype(idx_dtype)
        indptr = np.zeros(n_rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(r_sorted, minlength=n_rows), out=indptr[1:])
        return indptr, indices
    from .. import _csr_kernels as kern

    indptr, indices, _ = kern.sorted_csr(r, c, n_rows, n_cols, False, idx_dtype)
    return indptr, indices


def _as_index_array(x: Any, name: str) -> npt.NDArray[np.int64]:
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise InvalidParameterError(f"{name} must be one-dimensional. Got shape {arr.shape}.")
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise InvalidParameterError(
                f"{name} must hold integer node indices. Got dtype {arr.dtype}."
            )
    if int(arr.min()) < 0:
        raise InvalidParameterError(f"{name} must not hold negative indices. Got {int(arr.min())}.")
    return arr.astype(np.int64, copy=False)


def _validate_rows(indptr: np.ndarray[Any, Any], indices: np.ndarray[Any, Any], n_cols: int,
                   what: str) -> None:
    if indptr.ndim != 1 or indptr.size < 1 or indices.ndim != 1:
        raise InvalidParameterError("indptr and indices must be one-dimensional; indptr non-empty.")
    if indptr.dtype.kind not in "iu" or (indices.size and indices.dtype.kind not in "iu"):
        raise InvalidParameterError("indptr and indices must be integer arrays.")
    if indptr[0] != 0 or indptr[-1] != indices.size or np.any(np.diff(indptr) < 0):
        raise InvalidParameterError(
            "indptr must start at 0, be non-decreasing and end at len(indices)."
        )
    if indices.size:
        if int(indices.min()) < 0 or int(indices.max()) >= n_cols:
            raise InvalidParameterError(
                f"{what} indices must lie in [0, {n_cols}). "
                f"Got range [{int(indices.min())}, {int(indices.max())}]."
            )
        step = np.diff(indices.astype(np.int64))
        row_start = np.zeros(indices.size, dtype=bool)
        row_start[indptr[:-1][np.diff(indptr) > 0]] = True
        if np.any((step <= 0) & ~row_start[1:]):
            raise InvalidParameterError(
                f"{what} indices must be strictly increasing within each row "
                "(sorted, no duplicates)."
            )


def _validate_csr(indptr: np.ndarray[Any, Any], indices: np.ndarray[Any, Any]) -> None:
    n = indptr.size - 1
    _validate_rows(indptr, indices, n, "neighbour")
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    cols = indices.astype(np.int64)
    if np.any(rows == cols):
        raise InvalidParameterError("a simple graph has no self-loops; the CSR has one.")
    fwd = np.sort(rows * max(n, 1) + cols)
    bwd = np.sort(cols * max(n, 1) + rows)
    if not np.array_equal(fwd, bwd):
        raise InvalidParameterError("the CSR adjacency must be symmetric (undirected graph).")


def _spread_csr(indptr: Any, indices: Any, rmap: npt.NDArray[np.int64],
                cmap: npt.NDArray[np.int64], n_rows: int, n_cols: int) -> tuple[Any, Any] | None:
    """The CSR with row ``i`` moved to ``rmap[i]`` and column ``j`` to ``cmap[j]`` (new rows
    empty), when both maps keep the order (each row stays sorted: no rebuild); else None."""
    if np.any(rmap[1:] <= rmap[:-1]) or np.any(cmap[1:] <= cmap[:-1]):
        return None
    counts = np.zeros(n_rows, dtype=np.int64)
    counts[rmap] = np.diff(indptr)
    new_ptr = np.zeros(n_rows + 1, dtype=_index_dtype(int(indptr[-1])))
    np.cumsum(counts, out=new_ptr[1:])
    return new_ptr, cmap.astype(_index_dtype(max(n_cols - 1, 0)))[indices]


def _check_attributes(attributes: Mapping[str, Any] | None, n: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, col in (attributes or {}).items():
        if not isinstance(name, str) or not name:
            raise InvalidParameterError(f"attribute names must be non-empty strings. Got {name!r}.")
        arr = np.asarray(col)
        if arr.ndim != 1 or arr.shape[0] != n:
            raise InvalidParameterError(
                f"attribute {name!r} must be a column of length {n}. Got shape {arr.shape}."
            )
        out[name] = _readonly(arr.copy()) if arr.flags.writeable else arr
    return out


def _empty_column(dtype: np.dtype[Any], n: int) -> np.ndarray[Any, Any]:
    if dtype.kind == "f":
        return np.full(n, np.nan, dtype=dtype)
    if dtype.kind in "iub":
        return np.full(n, np.nan, dtype=np.float64)
    return np.full(n, None, dtype=object)


def _hash_int64(h: Any, values: IntArray) -> None:
    """Feed the bytes of ``values`` as int64 to ``h``, a block at a time (the digest of the
    whole array, without an int64 copy of it)."""
    block = 1 << 16
    for start in range(0, values.size, block):
        h.update(np.ascontiguousarray(values[start:start + block], dtype=np.int64))


def iter_rows(indptr: IntArray, indices: IntArray) -> Iterable[IntArray]:
    """Yield each CSR row as a view (helper for algorithms that need row loops)."""
    for i in range(indptr.size - 1):
        yield indices[indptr[i] : indptr[i + 1]]
