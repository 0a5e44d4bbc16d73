"""External ids of both graph types: dense codes over their sorted union, lookups, checks.

Every id column is brought to the canonical encoding of :mod:`graphanon._ids` first (an id
is its text; ``7`` and ``"7"`` are one id), so a code never depends on how a column was typed.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import numpy.typing as npt

from .._arrow import from_numpy, index_values, text_objects
from .._ids import (
    _arrow_text,
    canonical_column,
    canonical_ids,
    id_text_buffers,
    ids_as_text,
    mark_canonical,
    match_text_ids,
)
from ..errors import InvalidParameterError
from ._csr import _readonly, _sorted_unique

__all__ = ["TEXT_KERNEL_MIN_IDS", "encode_ids"]

def _as_id_array(values: Any, what: str) -> np.ndarray[Any, Any]:
    """Validate a 1-D array of ids and return its canonical form (:mod:`graphanon._ids`)."""
    return canonical_ids(values, what)


def _distinct_ids(values: Any, what: str) -> np.ndarray[Any, Any]:
    """:func:`_as_id_array`, refused unless its ids are distinct once canonical (``7`` and
    ``"7"`` are one id)."""
    return _check_distinct(_as_id_array(values, what), what)


def _check_distinct(ids: np.ndarray[Any, Any], what: str) -> np.ndarray[Any, Any]:
    if _n_distinct(ids) != ids.size:
        # name one repeated id (a sort of the ids: only on this error path)
        srt = np.sort(ids_as_text(ids)) if ids.dtype == object else np.sort(ids)
        twice = srt[1:][srt[1:] == srt[:-1]]
        example = f" ({twice[0]!r} occurs more than once)" if twice.size else ""
        raise InvalidParameterError(f"{what} must be unique{example}.")
    return ids


def encode_ids(
    *columns: Any, extra: Any = None
) -> tuple[list[npt.NDArray[np.int64]], np.ndarray[Any, Any]]:
    """Map columns of external ids to dense codes ``0..n-1`` over their sorted union.

    Every column is first brought to the canonical id encoding of :mod:`graphanon._ids`
    (an id is its text; ``7`` and ``"7"`` are one id, ``"007"`` another), so the result
    does not depend on how a column was typed.

    Parameters
    ----------
    *columns
        Array-likes (numpy or pyarrow) of ids: ints, strings, or a mix.
    extra
        Optional further ids that must get a code (e.g. isolated nodes).

    Returns
    -------
    codes, ids
        ``codes[i][j]`` is the position of ``columns[i][j]`` in the sorted array ``ids``
        (``int64`` when every id is a canonical integer, else ``str`` objects in code-point
        order).
    """
    import pyarrow as pa

    cols = [canonical_column(c) for c in columns]
    if extra is not None:
        cols.append(canonical_column(extra))
    if all(isinstance(c, np.ndarray) for c in cols):
        nps: list[npt.NDArray[np.int64]] = cols
        total = sum(len(x) for x in nps)
        lo = min((int(x.min()) for x in nps if len(x)), default=0)
        hi = max((int(x.max()) for x in nps if len(x)), default=-1)
        if lo >= 0 and hi < 4 * total + (1 << 20):
            # dense table: O(m + max id), no sort, no hash
            present = np.zeros(hi + 1, dtype=bool)
            for x in nps:
                present[x] = True
            ids = np.flatnonzero(present).astype(np.int64)
            remap = np.cumsum(present, dtype=np.int64) - 1
            codes = [remap[x] for x in nps]
        else:
            ids = _sorted_unique(np.concatenate(nps)) if nps else np.zeros(0, dtype=np.int64)
            codes = [np.searchsorted(ids, x).astype(np.int64) for x in nps]
        if extra is not None:
            codes = codes[:-1]
        return codes, mark_canonical(_readonly(ids))
    import pyarrow.compute as pc

    # some column is text: every id as its canonical text (integer columns become their
    # decimal text), coded by hashing its bytes: no Python object per id
    arrays = [c if not isinstance(c, np.ndarray) else from_numpy(c).cast(pa.large_string())
              for c in cols]
    if _text_kernel(sum(len(a) for a in arrays)):
        from .._ids import _text_buffers, text_column_codes

        codes_k, ids_k = text_column_codes([_text_buffers(a) for a in arrays])
        if extra is not None:
            codes_k = codes_k[:-1]
        return codes_k, mark_canonical(_readonly(ids_k))
    # few ids and no kernel loaded yet (loading it costs about 0.5 s): Arrow's hash table
    uniq = pc.unique(pa.chunked_array(arrays, type=pa.large_string()))
    uniq = uniq.take(pc.sort_indices(uniq))
    code_list = [
        index_values(pc.index_in(a, value_set=uniq))
        for a in arrays
    ]
    if extra is not None:
        code_list = code_list[:-1]
    ids_obj = text_objects(uniq)
    return code_list, mark_canonical(_readonly(ids_obj))


#: From this many ids on, text ids are coded by the readers' kernels
#: (:func:`graphanon._ids.text_column_codes`) even before they are loaded: about where they
#: win back the 0.5 s that loading numba costs (Arrow's coding takes about 0.6 s per million
#: ids, the kernels 0.25 s).
TEXT_KERNEL_MIN_IDS = 1 << 20


def _text_kernel(n_ids: int) -> bool:
    """Code ``n_ids`` text ids with the reader's kernels (else with Arrow's hash table)."""
    return n_ids >= TEXT_KERNEL_MIN_IDS or "graphanon._text_kernels" in sys.modules


def _n_distinct(ids: np.ndarray[Any, Any]) -> int:
    """Number of distinct ids (hash-based in Arrow for text, a sort for integers)."""
    if ids.dtype == object:
        import pyarrow.compute as pc

        return int(pc.count_distinct(_arrow_text(ids)).as_py())
    return int(_sorted_unique(np.asarray(ids, dtype=np.int64)).size)


def _extend_ids(ids: np.ndarray[Any, Any], universe: Any, what: str, where: str
                ) -> tuple[np.ndarray[Any, Any], npt.NDArray[np.int64]]:
    """``(universe ids sorted, position of each of ids in them)``; every id must be listed."""
    uni = canonical_ids(universe, f"{what} ids")
    if ids.dtype == object and uni.dtype == object and _text_kernel(ids.size + uni.size):
        # text in both (the common case of string ids): a merge of the two sorted lists
        new_ids, codes = match_text_ids(ids, uni)
        new_ids = mark_canonical(_readonly(new_ids))
        absent = codes < 0
    else:
        (codes, ucodes), new_ids = encode_ids(ids, uni)
        listed = np.zeros(new_ids.size, dtype=bool)
        listed[ucodes] = True
        absent = ~listed[codes]
    if absent.any():
        missing = ids[absent]
        raise InvalidParameterError(
            f"{what} {missing[:1].tolist()[0]!r} of the input is not in {where} "
            f"({missing.size} {what}s missing); the universe must list every {what}.")
    return new_ids, codes


def _lookup(ids: np.ndarray[Any, Any], query: Any, what: str) -> npt.NDArray[np.int64]:
    q = canonical_ids(np.atleast_1d(np.asarray(query, dtype=object if not isinstance(
        query, np.ndarray) or query.dtype == object else query.dtype)), f"{what} ids")
    if ids.dtype == object:
        import pyarrow.compute as pc

        # hash join in Arrow: no object comparisons
        text = ids_as_text(q)
        found = pc.index_in(_arrow_text(text), value_set=_arrow_text(ids))
        if found.null_count:
            missing = text[int(pc.index(pc.is_null(found), True).as_py())]
            raise InvalidParameterError(f"unknown {what} id {missing!r}.")
        return index_values(found)
    if q.dtype == object:  # a text id that is no canonical integer cannot be in an int column
        raise InvalidParameterError(f"unknown {what} id {q[0]!r}.")
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    pos = np.searchsorted(sorted_ids, q)
    pos_c = np.minimum(pos, max(sorted_ids.size - 1, 0))
    found = (pos < sorted_ids.size) & (sorted_ids[pos_c] == q) if sorted_ids.size else np.zeros(
        q.size, dtype=bool
    )
    if not np.all(found):
        missing = q[~found][:1].tolist()[0]
        raise InvalidParameterError(f"unknown {what} id {missing!r}.")
    return order[pos_c].astype(np.int64)


def _hash_ids(h: Any, ids: np.ndarray[Any, Any]) -> None:
    """Feed the canonical text of ``ids`` to ``h`` (the same bytes for ints and strings)."""
    offsets, data = id_text_buffers(ids)
    h.update(np.ascontiguousarray(offsets - offsets[0]).tobytes())
    h.update(data[offsets[0]:offsets[-1]].tobytes())
