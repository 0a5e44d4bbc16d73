"""One canonical encoding of external ids (node, user and feature ids).

**An id is text.** An id read from a file is exactly its token, less the spaces and tabs
around it (:func:`trim_id_blanks`: the one rule of every reader — edge lists, CSV / TSV,
``user<TAB>feature`` lists, Parquet, GraphML / GML, universes, ``id<TAB>value`` tables); an
integer id (a Parquet integer column, a Python ``int``, a Neo4j integer property) is the text
of its canonical decimal form. Nothing else is ever parsed out of a token: ``"007"``,
``"+7"``, ``"0x10"`` and ``"7.0"`` are ids distinct from ``7`` (and ``" 7"``, which no file
can hold, is one given through the library).

Representation. A column whose every id is a canonical decimal integer in the ``int64``
range (``0``, ``7``, ``-12``; the pattern ``0|-?[1-9][0-9]*``) is held as an ``int64``
array — a lossless, faster representation of the same text. Any other column is an
``object`` array of ``str`` (and its integer-looking ids are plain strings such as
``"7"``). Columns that meet in one graph are brought to one representation
(:func:`unify_ids`): if any of them is text, the integer ones are written as their decimal
text.

Why it matters for privacy. The node-DP projections order edges by a keyed hash of node ids
(:func:`id_keys`). The key of a node must depend on that node's id alone: if adding one node
``x`` turned a whole integer column into strings and so changed every other node's key, the
projection of the neighbouring graph would be reshuffled and its sensitivity bound would no
longer hold. :func:`id_keys` therefore hashes the canonical *text* of an id, whatever the
representation of the column around it.
"""

from __future__ import annotations

import secrets
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ._arrow import from_numpy, large_text, text_objects
from .errors import InvalidParameterError

__all__ = ["ID_BLANKS", "canonical_column", "canonical_ids", "id_keys", "id_text_buffers",
           "ids_as_text", "mark_canonical", "match_text_ids", "text_column_codes",
           "text_token_ids", "trim_id_blanks", "unify_ids"]

_I64_MIN = np.iinfo(np.int64).min
_I64_MAX = np.iinfo(np.int64).max


#: The characters around an id that are layout, not part of it: space and tab. Other
#: whitespace (a no-break space, a form feed, U+2028) is part of an id.
ID_BLANKS = " \t"


def trim_id_blanks(ids: Any) -> Any:
    """``ids`` without the spaces and tabs at either end of each: a ``str``, or an Arrow
    string column (other columns, integers say, are returned as they are).

    The one rule for blanks in ids, applied by every reader of ids from a file (the text
    scanner drops them as field separators or, in tab-separated lists, as
    :data:`ID_BLANKS` around a field), so an id reads the same from every format and any id
    an input holds can be listed in a universe file.
    """
    if isinstance(ids, str):
        return ids.strip(ID_BLANKS)
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = ids.type.value_type if pa.types.is_dictionary(ids.type) else ids.type
    if pa.types.is_dictionary(ids.type):
        ids = ids.cast(kind)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        try:
            return pc.utf8_trim(ids, ID_BLANKS)
        except pa.ArrowInvalid:  # not UTF-8 (Parquet does not check): refused, by name,
            return ids  # when the ids are made canonical
    return ids


def _kernels() -> Any:
    from . import _ids_kernels

    return _ids_kernels


def _text_buffers(arr: Any) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """``(offsets, data)`` of a pyarrow ``large_string`` array without nulls."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    if arr.type != pa.large_string():
        arr = arr.cast(pa.large_string())
    bufs = arr.buffers()
    n = len(arr)
    offsets = np.frombuffer(bufs[1], dtype=np.int64, count=n + 1, offset=arr.offset * 8)
    data = (np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None
            else np.zeros(0, dtype=np.uint8))
    return offsets, data


_KNOWN: weakref.WeakValueDictionary[int, np.ndarray[Any, Any]] = weakref.WeakValueDictionary()


def mark_canonical(ids: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Remember that the read-only array ``ids`` is canonical (the graphs' id arrays), so
    that building another graph on the same ids does not check them again."""
    if not ids.flags.writeable:
        _KNOWN[id(ids)] = ids
    return ids


def _is_known(values: Any) -> bool:
    return (isinstance(values, np.ndarray) and not values.flags.writeable
            and _KNOWN.get(id(values)) is values)


def _from_text(arr: Any, what: str) -> Any:
    """Canonical ids of a pyarrow string column: ``int64`` when every token is canonical,
    else the column itself as a ``large_string`` array."""
    import pyarrow as pa

    if arr.null_count:
        raise InvalidParameterError(f"{what} must not be missing (null/empty).")
    if len(arr) == 0:
        return np.zeros(0, dtype=np.int64)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    if arr.type != pa.large_string():
        arr = arr.cast(pa.large_string())
    offsets, data = _text_buffers(arr)
    if np.any(offsets[1:] == offsets[:-1]):
        raise InvalidParameterError(f"{what} must not be empty strings.")
    values, ok = _kernels().parse_canonical_int64(offsets, data)
    if ok:
        return values
    return arr


def canonical_column(values: Any, what: str = "ids") -> Any:
    """:func:`canonical_ids`, but a text column stays a pyarrow ``large_string`` array (no
    Python object per id): ``int64`` ndarray or ``pa.LargeStringArray``."""
    if _is_known(values):
        return values if values.dtype != object else _arrow_text(values)
    out = _canonical(values, what)
    return out


def canonical_ids(values: Any, what: str = "ids") -> np.ndarray[Any, Any]:
    """Validate a column of ids and return its canonical representation.

    Parameters
    ----------
    values : array-like, pyarrow Array or ChunkedArray
        Integers (any width; integral floats are accepted as integers), strings, or an
        ``object`` mix of ``int`` and ``str``.
    what : str
        Name used in error messages.

    Returns
    -------
    numpy.ndarray
        ``int64`` if every id is a canonical decimal integer in the ``int64`` range, else an
        ``object`` array of ``str`` (see the module docstring).

    Raises
    ------
    InvalidParameterError
        Missing values, booleans, non-integral floats, or other types.
    """
    if _is_known(values):
        return values  # type: ignore[no-any-return]
    out = _canonical(values, what)
    if isinstance(out, np.ndarray):
        return out
    return _remember_text(text_objects(out), out)


# The text of read-only text id arrays made from text the process holds already (a reader's
# 0xFF-joined tokens, an Arrow column): their Arrow form without a pass over the str objects
# (matching to a universe, keyed hashes, writing). id(array) -> (weak reference, text).
_TEXT: dict[int, tuple[weakref.ref[np.ndarray[Any, Any]], Any]] = {}


def _remember_text(ids: np.ndarray[Any, Any], text: Any) -> np.ndarray[Any, Any]:
    """Make ``ids`` (an ``object`` array of ``str``) read-only and remember ``text``, its
    Arrow ``large_string`` form or its 0xFF-joined UTF-8 bytes (:func:`joined_ids`)."""
    ids.flags.writeable = False  # the text can never go stale
    key = id(ids)

    def forget(_: Any) -> None:
        _TEXT.pop(key, None)

    _TEXT[key] = (weakref.ref(ids, forget), text)
    return ids


def _arrow_text(ids: np.ndarray[Any, Any]) -> Any:
    """The canonical text of the canonical id column ``ids`` as an Arrow ``large_string``."""
    import pyarrow as pa

    if ids.dtype != object:
        return from_numpy(ids).cast(pa.large_string())
    held = _TEXT.get(id(ids))
    if held is None or held[0]() is not ids:
        return large_text(ids)
    text = held[1]
    if isinstance(text, np.ndarray):  # joined bytes: the separators out, offsets from them
        cuts = np.flatnonzero(text == 0xFF)
        offsets = np.empty(ids.size + 1, dtype=np.int64)
        offsets[0] = 0
        offsets[1:-1] = cuts - np.arange(cuts.size)
        offsets[-1] = text.size - cuts.size
        data = text[text != 0xFF] if cuts.size else text
        text = pa.Array.from_buffers(pa.large_string(), ids.size,
                                     [None, pa.py_buffer(offsets), pa.py_buffer(data)])
        _TEXT[id(ids)] = (held[0], text)
    return text


def _canonical(values: Any, what: str) -> Any:
    """The work of :func:`canonical_ids`: int64 ndarray, or a text column as Arrow."""
    import pyarrow as pa


    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        t = values.type
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            try:  # Arrow does not check UTF-8 everywhere (Parquet, buffers): once, here
                values.validate(full=True)
            except pa.ArrowInvalid:
                raise InvalidParameterError(f"{what} must be valid UTF-8 text.") from None
            return _from_text(values, what)
        if values.null_count:
            raise InvalidParameterError(f"{what} must not be missing (null/empty).")
        if pa.types.is_dictionary(t):
            return _canonical(values.cast(t.value_type), what)
        values = values.to_numpy(zero_copy_only=False) if isinstance(values, pa.Array) else (
            values.combine_chunks().to_numpy(zero_copy_only=False) if len(values)
            else np.zeros(0, dtype=np.int64))
    arr = values if isinstance(values, np.ndarray) else np.asarray(values)
    if arr.ndim != 1:
        raise InvalidParameterError(f"{what} must be one-dimensional. Got shape {arr.shape}.")
    kind = arr.dtype.kind
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if kind == "i":
        return arr.astype(np.int64, copy=False)
    if kind == "u":
        if arr.dtype.itemsize < 8 or int(arr.max()) <= _I64_MAX:
            return arr.astype(np.int64)
        return _from_text(from_numpy(arr).cast(pa.large_string()), what)
    if kind == "b":
        raise InvalidParameterError(f"{what} must be ints or strings, not booleans.")
    if kind == "f":
        if not np.all(np.isfinite(arr) & (arr == np.round(arr))):
            raise InvalidParameterError(f"{what} must be ints or strings; got non-integral floats.")
        if float(arr.min()) >= -2.0**63 and float(arr.max()) < 2.0**63:
            return arr.astype(np.int64)
        return _from_text(large_text([str(int(x)) for x in arr.tolist()], what), what)
    if kind in "US":
        if kind == "S":
            try:
                arr = np.char.decode(arr, "utf-8")
            except UnicodeDecodeError:
                raise InvalidParameterError(f"{what} must be valid UTF-8 text.") from None
        return _from_text(large_text(arr.tolist(), what), what)
    if kind == "O":
        items = arr.tolist()
        texts: list[str] = []
        all_int = True
        for x in items:
            if isinstance(x, str):
                all_int = False
                texts.append(x)
            elif isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
                xi = int(x)
                if not _I64_MIN <= xi <= _I64_MAX:
                    all_int = False
                texts.append(str(xi))
            else:
                missing = x is None or (isinstance(x, float) and x != x)
                raise InvalidParameterError(
                    f"{what} must not be missing (null/empty)." if missing else
                    f"{what} must be hashable scalars (int or str). Got {x!r} of type "
                    f"{type(x).__name__}.")
        if all_int:
            return np.asarray([int(x) for x in items], dtype=np.int64)
        return _from_text(large_text(texts, what), what)
    raise InvalidParameterError(f"{what} must be ints or strings. Got dtype {arr.dtype}.")


def ids_as_text(ids: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The ``object`` array of ``str`` holding the canonical text of canonical ``ids``."""
    if ids.dtype == object:
        return ids
    return ids.astype(str).astype(object)  # numpy's decimal text of an int64 is canonical


def id_text_buffers(ids: np.ndarray[Any, Any]) -> tuple[npt.NDArray[np.int64],
                                                         npt.NDArray[np.uint8]]:
    """``(offsets, data)``: the UTF-8 text of canonical ``ids``, as one Arrow string buffer."""
    return _text_buffers(_arrow_text(ids))


def unify_ids(columns: list[np.ndarray[Any, Any]]) -> list[np.ndarray[Any, Any]]:
    """Bring canonical columns to one representation: text if any of them is text."""
    if any(c.dtype == object for c in columns):
        return [ids_as_text(c) for c in columns]
    return columns


def id_keys(ids: Any, key: int) -> npt.NDArray[np.uint64]:
    """Keyed 64-bit hash of the canonical text of each id.

    The result for an id depends on that id and ``key`` only — not on the representation
    of the column around it: ``id_keys([7], k) == id_keys(["7", "x"], k)[:1]``.

    Parameters
    ----------
    ids : array-like
        Ids in any form :func:`canonical_ids` accepts.
    key : int
        64-bit key (data-independent; for example a projection's public ordering key).
    """
    col = canonical_column(ids)
    k = np.uint64(int(key) & 0xFFFFFFFFFFFFFFFF)
    if isinstance(col, np.ndarray):
        return _kernels().hash_int_text(col, k)  # type: ignore[no-any-return]
    offsets, data = _text_buffers(col)
    return _kernels().hash_text(offsets, data, k)  # type: ignore[no-any-return]


# ---------------------------------------------------------------------- coding text ids
#: Ids from this many on are coded in parts on several threads (text here; integers in the
#: scanner).
PARALLEL_IDS = 1 << 20


def _token_codes(buf: np.ndarray[Any, Any], starts: tuple[np.ndarray[Any, Any], ...],
                 lens: tuple[np.ndarray[Any, Any], ...]) -> tuple[Any, Any, Any]:
    """:func:`._text_kernels.text_codes` of the columns, on several threads for many
    tokens: each thread codes the tokens whose hash falls in its part (its own table), the
    parts' codes are then offset to be distinct and their distinct tokens put together."""
    from . import _text_kernels as kern
    from ._parallel import run_parts, threads

    key = np.uint64(secrets.randbits(64))  # the table's slots unpredictable to the input
    total = sum(c.size for c in starts)
    k = 1 if total < PARALLEL_IDS else min(threads(), 255)
    if k == 1:
        return kern.text_codes(buf, starts, lens,  # type: ignore[no-any-return]
                               tuple(np.zeros(0, dtype=np.uint8) for _ in starts), key, 0)
    part_of = tuple(np.empty(c.size, dtype=np.uint8) for c in starts)
    ranges = [(j, c.size * t // k, c.size * (t + 1) // k)
              for j, c in enumerate(starts) for t in range(k)]
    run_parts(kern.token_parts, [(buf, starts[j], lens[j], a, b, k, key, part_of[j])
                                 for j, a, b in ranges])
    res = run_parts(kern.text_codes, [(buf, starts, lens, part_of, key, t) for t in range(k)])
    offsets = np.zeros(k, dtype=np.int64)
    np.cumsum([r[1].size for r in res[:-1]], out=offsets[1:])
    run_parts(kern.offset_codes, [(starts[j], a, b, part_of[j], offsets) for j, a, b in ranges])
    del part_of
    shift = np.cumsum([0] + [r[0].size for r in res[:-1]])
    return (np.concatenate([r[0] for r in res]),
            np.concatenate([r[1] + shift[t] for t, r in enumerate(res)]),
            np.concatenate([r[2] for r in res]))


def text_token_ids(buf: np.ndarray[Any, Any], starts: tuple[np.ndarray[Any, Any], ...],
                   lens: tuple[np.ndarray[Any, Any], ...]) -> np.ndarray[Any, Any]:
    """Token starts -> codes in place, the sorted distinct ids returned: ``int64`` if every
    one of them is a canonical integer (a column with an id space of its own can be, when
    the other column made the file text), else ``str`` objects."""
    from . import _text_kernels as kern

    arena, ustart, ulen = _token_codes(buf, starts, lens)
    ok, values, joined = kern.finish_codes(starts, arena, ustart, ulen)
    if ok:
        return values  # type: ignore[no-any-return]
    return joined_ids(joined, ustart.size)


def joined_ids(joined: np.ndarray[Any, Any], n: int) -> np.ndarray[Any, Any]:
    """The ``n`` ids of a buffer of UTF-8 tokens joined by the byte ``0xFF``
    (:func:`._text_kernels.joined`), as an ``object`` array of ``str``."""
    # one decode for all: the separator byte 0xFF (never in UTF-8) becomes U+DCFF, which no
    # decoded token holds
    items = joined.tobytes().decode("utf-8", "surrogateescape").split("\udcff")
    if len(items) != n:  # pragma: no cover  (only text that is not UTF-8)
        raise InvalidParameterError("ids must be valid UTF-8 text.")
    ids = np.empty(n, dtype=object)
    ids[:] = items
    return _remember_text(ids, joined) if n else ids


def text_column_codes(columns: Sequence[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]]
                      ) -> tuple[list[np.ndarray[Any, Any]], np.ndarray[Any, Any]]:
    """Codes of text id columns over their sorted distinct union, and that union.

    ``columns``: each an Arrow ``large_string`` column's ``(offsets, data)`` buffers (valid
    UTF-8, no nulls; see :func:`graphanon._ids.id_text_buffers`). Returns ``(codes, ids)``:
    ``codes[k][i]`` is the position of token ``i`` of column ``k`` in ``ids``, the distinct
    tokens in code-point order as ``str`` objects (``int64`` if every one is a canonical
    integer). The readers' coding (:func:`text_token_ids`): a hash table over the
    bytes, the distinct tokens sorted, no Python object per token.
    """
    buf = np.concatenate([data for _, data in columns]) if columns else np.zeros(0, np.uint8)
    shifts = np.cumsum([0] + [data.size for _, data in columns[:-1]])
    starts = tuple(off[:-1] + shift for (off, _), shift in zip(columns, shifts, strict=True))
    lens = tuple(np.diff(off).astype(np.int32) for off, _ in columns)
    ids = text_token_ids(buf, starts, lens)
    return list(starts), ids


def match_text_ids(ids: np.ndarray[Any, Any], universe: np.ndarray[Any, Any]
                   ) -> tuple[np.ndarray[Any, Any], npt.NDArray[np.int64]]:
    """``(sorted distinct universe, position of each of ids in it or -1)`` for two canonical
    text (``str`` object) id arrays, ``ids`` distinct: each side sorted by its bytes (``ids``
    only if it is not sorted already, as a graph's ids are), then one merge (no hash table);
    the universe's own ``str`` objects become the sorted ids."""
    from . import _text_kernels as kern

    (ao, ad), (bo, bd) = (id_text_buffers(x) for x in (ids, universe))
    a0, al = ao[:-1].copy(), np.diff(ao)
    b0, bl = bo[:-1].copy(), np.diff(bo)
    pos, firsts = kern.match_text(ad, a0, al, bd, b0, bl)
    return universe[firsts], pos
