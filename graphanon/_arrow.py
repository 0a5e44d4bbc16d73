"""Arrow arrays from numpy arrays and lists of ``str``, without ``pyarrow.array``.

``pyarrow.array`` imports pandas on its first call in a process (to recognise pandas objects):
about 0.35 s of every command's start-up, although graphanon never uses pandas. These build
the same arrays from buffers instead. Anything else (masks, mixed or untrusted values) still
goes through ``pyarrow.array``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import InvalidParameterError

__all__ = ["from_numpy", "index_values", "large_text", "text_objects", "text_scalar"]


def from_numpy(values: np.ndarray[Any, Any]) -> Any:
    """A one-dimensional numeric array (integers, floats) as an Arrow array of its type."""
    import pyarrow as pa

    arr = np.ascontiguousarray(values)
    if arr.ndim != 1 or arr.dtype.kind not in "iuf":
        raise TypeError(f"from_numpy takes a 1-D numeric array, not {arr.dtype} {arr.shape}")
    return pa.Array.from_buffers(pa.from_numpy_dtype(arr.dtype), arr.size,
                                 [None, pa.py_buffer(arr)])


def large_text(values: Sequence[str] | np.ndarray[Any, Any], what: str = "text") -> Any:
    """A sequence of ``str`` (a list or an object array) as an Arrow ``large_string`` array.

    Raises :class:`~graphanon.errors.InvalidParameterError` (naming ``what``) for text that
    UTF-8 cannot encode: a lone surrogate, which no file, Arrow column or database holds."""
    import pyarrow as pa

    items = values.tolist() if isinstance(values, np.ndarray) else list(values)
    joined = "".join(items)  # TypeError for anything but str, as pyarrow.array would
    try:
        data = joined.encode("utf-8")
    except UnicodeEncodeError:
        bad = next(s for s in items if not _encodable(s))
        raise InvalidParameterError(
            f"{what} must be valid Unicode text; {bad[:80]!r} holds a lone surrogate.") from None
    if len(data) == len(joined):  # ASCII: as many bytes as characters in every item
        lengths = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
    else:
        lengths = np.fromiter((len(s.encode("utf-8")) for s in items), dtype=np.int64,
                              count=len(items))
    offsets = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return pa.Array.from_buffers(pa.large_string(), len(items),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _encodable(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def text_scalar(value: str, *, large: bool = True) -> Any:
    """``value`` as an Arrow ``large_string`` (or ``string``) scalar, for the compute
    functions (which would convert a Python ``str`` through ``pyarrow.scalar``)."""
    import pyarrow as pa

    s = large_text([value])[0]
    return s if large else s.cast(pa.string())


def text_objects(values: Any) -> np.ndarray[Any, Any]:
    """An Arrow text array (no nulls) as an ``object`` array of ``str`` (``to_numpy`` would
    import pandas for it, and is slower)."""
    items = values.to_pylist()
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def index_values(values: Any, missing: int = -1) -> np.ndarray[Any, Any]:
    """An Arrow integer array (``index_in``'s result, say) as ``int64``, nulls as
    ``missing``, read from its buffers (``to_numpy`` imports pandas)."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    dtype = np.dtype(str(values.type))  # int8 ... int64, uint8 ... uint64
    n = len(values)
    if n == 0:  # an empty array may have no data buffer at all
        return np.zeros(0, dtype=np.int64)
    out = np.frombuffer(values.buffers()[1], dtype=dtype, count=n,
                        offset=values.offset * dtype.itemsize).astype(np.int64)
    if values.null_count:
        valid = values.buffers()[0]
        bits = np.unpackbits(np.frombuffer(valid, dtype=np.uint8), bitorder="little")
        out[~bits[values.offset:values.offset + n].astype(bool)] = missing
    return out
