"""Masked releases of adaptive anonymity (``graphanon b-anonymize``): reading and writing.

File format (issue 8, "Graph output"): one line per released cell that is a known 1 or
masked, ``row<TAB>attribute<TAB>1`` or ``row<TAB>attribute<TAB>*``, where ``row`` is the
released (randomly permuted, pseudonymous) row number; every cell not listed is a known 0.
Blank lines and lines starting with ``#`` are ignored by the reader.

A :class:`MaskedRelease` holds only what is published: the released row numbers, the
attribute ids and the listed cells. The secret key of the release (which released row is
whose, ``AdaptiveAnonymityResult.owner``) is never part of it.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InputFormatError, InvalidParameterError
from ._atomic import atomic_path
from ._input import read_input_text

__all__ = ["MaskedRelease", "read_masked", "write_masked"]


@dataclass(frozen=True)
class MaskedRelease:
    """The public part of a b-anonymized binary release.

    ``rows[e]``, ``cols[e]`` (index into ``attribute_ids``) and ``masked[e]`` describe the
    listed cells: a known 1 (``masked[e]`` False) or a ``*``. Released rows are
    ``0 .. n_rows-1``.
    """

    n_rows: int
    attribute_ids: npt.NDArray[Any]
    rows: npt.NDArray[np.int64]
    cols: npt.NDArray[np.int64]
    masked: npt.NDArray[np.bool_]

    @property
    def n_cells(self) -> int:
        return int(self.rows.size)

    @property
    def n_masked(self) -> int:
        return int(self.masked.sum())

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the listed cells (order-independent)."""
        h = hashlib.sha256(f"masked\0{self.n_rows}\0".encode())
        for a in self.attribute_ids.tolist():
            h.update(str(a).encode() + b"\0")
        order = np.lexsort((self.cols, self.rows))
        for arr in (self.rows[order], self.cols[order], self.masked[order].astype(np.int64)):
            h.update(np.ascontiguousarray(arr, dtype=np.int64).tobytes())
        return h.hexdigest()

    @classmethod
    def from_result(cls, result: Any, *, require_verified: bool = True) -> MaskedRelease:
        """The public cells of an :class:`~graphanon.anonymity.bmatching.AdaptiveAnonymityResult`.

        Only a binary release can be written in this format. With ``require_verified`` (the
        default) the result must carry a passing :func:`verify_adaptive_anonymity` outcome,
        so nothing unverified is ever written.
        """
        from ..anonymity.bmatching import MASKED, released_cells

        R = np.asarray(result.released)
        if R.size and not np.isin(R, (0, 1, MASKED)).all():
            raise InvalidParameterError(
                "a masked release file holds binary data (cells 0, 1, *); this release has "
                "categorical codes."
            )
        if require_verified:
            ver = result.verification
            if ver is None or not ver.ok:
                why = "was not verified" if ver is None else "; ".join(ver.violations[:3])
                raise InvalidParameterError(
                    f"refusing to write a release that fails verify_adaptive_anonymity: {why}."
                )
        rows, cols, masked = released_cells(result)
        attrs = result.attribute_ids
        attrs = np.arange(R.shape[1]) if attrs is None else np.asarray(attrs)
        return cls(int(R.shape[0]), attrs, rows, cols, masked)

    def to_dense(self) -> npt.NDArray[np.int32]:
        """``n_rows × n_attributes`` codes: 1, 0, or -1 for ``*``."""
        Y = np.zeros((self.n_rows, self.attribute_ids.size), dtype=np.int32)
        Y[self.rows, self.cols] = np.where(self.masked, -1, 1)
        return Y


def write_masked(release: Any, path: str | os.PathLike[str]) -> None:
    """Write a :class:`MaskedRelease` (or a verified ``AdaptiveAnonymityResult``) atomically.

    Lines are ``row<TAB>attribute<TAB>1|*`` in row order; nothing else (no key, no header).
    """
    m = release if isinstance(release, MaskedRelease) else MaskedRelease.from_result(release)
    attrs = np.asarray(m.attribute_ids).astype(str)
    for a in attrs.tolist():
        if not a or any(ch in a for ch in "\t\r\n"):
            raise InvalidParameterError(
                f"attribute id {a!r} cannot be written in the masked format (empty, or holds "
                "a tab or newline)."
            )
    order = np.lexsort((m.cols, m.rows))
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        for r, c, s in zip(m.rows[order].tolist(), m.cols[order].tolist(),
                           m.masked[order].tolist(), strict=True):
            fh.write(f"{r}\t{attrs[c]}\t{'*' if s else '1'}\n")


def read_masked(path: str | os.PathLike[str], *, n_rows: int | None = None) -> MaskedRelease:
    """Read a masked release written by :func:`write_masked` / ``graphanon b-anonymize``.

    Parameters
    ----------
    path
        The ``row<TAB>attribute<TAB>1|*`` file.
    n_rows
        The number of released rows, if known (rows whose cells are all known 0 have no
        line); default: the largest row number + 1.

    Raises
    ------
    InputFormatError
        A malformed line (wrong field count, a row that is not a non-negative integer, an
        empty attribute, a value other than ``1`` / ``*``), a cell listed twice, or a row
        number ``>= n_rows``; the message names the file and line.
    """
    p = Path(path)
    if not p.exists():
        raise InvalidParameterError(f"the masked release file {str(p)!r} does not exist.")
    text_all = read_input_text(p, what="masked release")
    rows: list[int] = []
    attrs: list[str] = []
    flags: list[bool] = []
    seen: dict[tuple[int, str], int] = {}
    for lineno, line in enumerate(text_all.splitlines(), 1):
        text = line.rstrip("\r\n")
        if not text.strip() or text.startswith("#"):
            continue
        parts = text.split("\t")

        def bad(why: str, lineno: int = lineno, text: str = text) -> InputFormatError:
            return InputFormatError(
                f"{p}:{lineno}: {why}; expected 'row<TAB>attribute<TAB>1' or "
                f"'row<TAB>attribute<TAB>*', got {text[:80]!r}.", path=str(p), line=lineno)

        if len(parts) != 3:
            raise bad(f"{len(parts)} tab-separated fields")
        r, a, v = parts
        if not r.isascii() or not r.isdigit():
            raise bad("the row is not a non-negative integer")
        if not a:
            raise bad("the attribute is empty")
        if v not in ("1", "*"):
            raise bad(f"the value {v!r} is neither 1 nor *")
        key = (int(r), a)
        if key in seen:
            raise bad(f"cell (row {r}, attribute {a!r}) already listed on line {seen[key]}")
        seen[key] = lineno
        rows.append(int(r))
        attrs.append(a)
        flags.append(v == "*")
    if not rows:
        raise InputFormatError(f"{str(p)!r}: the masked release lists no cell.", path=str(p))
    top = max(rows, default=-1) + 1
    if n_rows is None:
        n_rows = top
    elif top > n_rows:
        raise InputFormatError(f"{p}: row {top - 1} is out of range for n_rows={n_rows}.",
                               path=str(p))
    ids, cols = np.unique(np.array(attrs, dtype=str), return_inverse=True)
    return MaskedRelease(int(n_rows), ids.astype(object), np.array(rows, dtype=np.int64),
                         cols.astype(np.int64).reshape(-1), np.array(flags, dtype=bool))
