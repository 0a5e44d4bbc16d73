"""numba kernels of :mod:`graphanon._ids`: canonical-integer parsing and text hashing.

Both hashes consume the same bytes — the UTF-8 text of an id — so an integer id held as
``int64`` and the same id held as the string ``"7"`` get the same key.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from . import _numba  # noqa: F401  (numba's per-user cache folder)

_FNV_BASIS = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_GOLD = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_I64_MAX_U = np.uint64(9223372036854775807)


@numba.njit(cache=True, inline="always")
def _mix(x: Any) -> Any:  # pragma: no cover
    x = x ^ (x >> np.uint64(30))
    x = x * _M1
    x = x ^ (x >> np.uint64(27))
    x = x * _M2
    return x ^ (x >> np.uint64(31))


@numba.njit(cache=True)
def parse_canonical_int64(offsets: Any, data: Any) -> Any:  # pragma: no cover
    """``(values, ok)``: every token parsed if all match ``0|-?[1-9][0-9]*`` in int64."""
    n = offsets.size - 1
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        p = offsets[i]
        end = offsets[i + 1]
        neg = False
        if p < end and data[p] == 45:  # '-'
            neg = True
            p += 1
        if p >= end or end - p > 19:
            return out, False
        if data[p] == 48:  # '0': only "0" itself is canonical
            if end - p != 1 or neg:
                return out, False
            out[i] = 0
            continue
        u = np.uint64(0)
        while p < end:
            c = data[p]
            if c < 48 or c > 57:
                return out, False
            u = u * np.uint64(10) + np.uint64(c - 48)
            p += 1
        if neg:
            if u > _I64_MAX_U + np.uint64(1):
                return out, False
            out[i] = -np.int64(u - np.uint64(1)) - np.int64(1)
        else:
            if u > _I64_MAX_U:
                return out, False
            out[i] = np.int64(u)
    return out, True


@numba.njit(cache=True)
def hash_text(offsets: Any, data: Any, key: Any) -> Any:  # pragma: no cover
    """Keyed hash of each UTF-8 token ``data[offsets[i]:offsets[i+1]]``."""
    n = offsets.size - 1
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        h = key ^ _FNV_BASIS
        for p in range(offsets[i], offsets[i + 1]):
            h = (h ^ np.uint64(data[p])) * _FNV_PRIME
        h = _mix(h ^ (np.uint64(offsets[i + 1] - offsets[i]) * _GOLD))
        out[i] = _mix(h ^ key)
    return out


@numba.njit(cache=True)
def hash_int_text(values: Any, key: Any) -> Any:  # pragma: no cover
    """:func:`hash_text` of the decimal text of each ``int64`` value, without building it."""
    n = values.size
    out = np.empty(n, dtype=np.uint64)
    buf = np.empty(20, dtype=np.uint8)
    for i in range(n):
        v = values[i]
        neg = v < 0
        # magnitude as uint64 (handles the int64 minimum)
        u = np.uint64(-(v + 1)) + np.uint64(1) if neg else np.uint64(v)
        k = 20
        if u == 0:
            k -= 1
            buf[k] = 48
        while u > 0:
            k -= 1
            buf[k] = np.uint8(np.uint64(48) + u % np.uint64(10))
            u = u // np.uint64(10)
        if neg:
            k -= 1
            buf[k] = 45
        h = key ^ _FNV_BASIS
        for p in range(k, 20):
            h = (h ^ np.uint64(buf[p])) * _FNV_PRIME
        h = _mix(h ^ (np.uint64(20 - k) * _GOLD))
        out[i] = _mix(h ^ key)
    return out
