"""The input side shared by the b-matching algorithms and their verifier: rows as codes, packed
one-hot bits, the levels δ_i checked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._validation import check_int, fail
from ..errors import InvalidParameterError
from ..graph import BipartiteGraph

__all__ = ["MASKED"]

#: Code of a masked (suppressed, ``*``) cell in released matrices.
MASKED = -1


@dataclass(frozen=True)
class _Encoded:
    codes: npt.NDArray[np.int32]  # n × d codes
    bits: npt.NDArray[np.uint64]  # n × w packed one-hot (binary: the bits themselves)
    starts: npt.NDArray[np.int64]  # first bit of each attribute
    widths: npt.NDArray[np.int64]  # bits per attribute (1 for binary)
    n_bits: int
    binary: bool


def _encode(codes: npt.NDArray[np.int32], binary: bool | None = None) -> _Encoded:
    n, d = codes.shape
    if binary is None:
        binary = bool(codes.size == 0 or (codes.min() >= 0 and codes.max() <= 1))
    if binary:
        widths = np.ones(d, dtype=np.int64)
        onehot = codes.astype(bool)
    else:
        widths = (codes.max(axis=0).astype(np.int64) + 1) if n else np.ones(d, dtype=np.int64)
        starts0 = np.concatenate([[0], np.cumsum(widths)[:-1]])
        onehot = np.zeros((n, int(widths.sum())), dtype=bool)
        onehot[np.arange(n)[:, None], starts0[None, :] + codes] = True
    starts = np.concatenate([[0], np.cumsum(widths)[:-1]]).astype(np.int64)
    n_bits = int(widths.sum())
    return _Encoded(codes, _pack(onehot), starts, widths, n_bits, binary)


def _pack(onehot: npt.NDArray[np.bool_]) -> npt.NDArray[np.uint64]:
    n, nb = onehot.shape
    w = max(1, (nb + 63) // 64)
    packed = np.packbits(onehot.astype(np.uint8), axis=1, bitorder="little")
    buf = np.zeros((n, w * 8), dtype=np.uint8)
    buf[:, : packed.shape[1]] = packed
    return np.ascontiguousarray(buf.view(np.uint64))


def _as_codes(X: Any, owner: str) -> tuple[npt.NDArray[np.int32], Any, Any]:
    """(codes, row ids, attribute ids) of a BipartiteGraph or a 2-D integer array."""
    if isinstance(X, BipartiteGraph):
        return X.to_dense().astype(np.int32), X.user_ids, X.feature_ids
    arr = np.asarray(X)
    if arr.ndim != 2 or not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == bool):
        raise fail("X", owner, "a BipartiteGraph or a 2-D integer array", f"{arr.dtype}{arr.shape}")
    if arr.size and arr.min() < 0:
        raise InvalidParameterError(
            f"The 'X' parameter of {owner} must hold non-negative integer codes (categories "
            f"0, 1, ...). Got minimum {int(arr.min())} instead."
        )
    # re-code every column to 0..v-1 so one-hot blocks stay small
    codes = np.empty(arr.shape, dtype=np.int32)
    for k in range(arr.shape[1]):
        codes[:, k] = np.unique(arr[:, k], return_inverse=True)[1]
    if arr.dtype == bool or (arr.size and arr.max() <= 1):
        codes = arr.astype(np.int32)
    return codes, np.arange(arr.shape[0]), np.arange(arr.shape[1])


def _check_delta(delta: Any, n: int, owner: str) -> npt.NDArray[np.int64]:
    if np.isscalar(delta):
        d0 = check_int(delta, "delta", owner, low=1, high=max(n, 1))
        return np.full(n, d0, dtype=np.int64)
    arr = np.asarray(delta)
    if arr.shape != (n,) or not np.issubdtype(arr.dtype, np.integer):
        raise fail("delta", owner, f"an int or an integer array of shape ({n},)",
                   f"{arr.dtype}{arr.shape}")
    bad = np.flatnonzero((arr < 1) | (arr > n))
    if bad.size:
        raise InvalidParameterError(
            f"The 'delta' parameter of {owner} must lie in [1, n={n}] for every user; user "
            f"{int(bad[0])} has δ={int(arr[bad[0]])} ({bad.size} users out of range)."
        )
    return arr.astype(np.int64)
