"""dK tables as TSV: one row per degree tuple, degree columns then the count.

::

    # graphanon dK table: kind=joint_degree
    degree1	degree2	count
    1	4	3
    ...

3K files hold both tables, with a leading ``kind`` column (``wedge`` / ``triangle``).
Writes are atomic (temp file, then rename).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

import numpy as np

from .._arrow import from_numpy, text_scalar
from ..dk.extract import DK3Distribution, DKDistribution
from ..errors import InputFormatError, InvalidParameterError
from ._atomic import atomic_path
from ._input import read_input_text

__all__ = ["read_dk_table", "write_3k_chunks", "write_dk_table"]

_HEADER = "# graphanon dK table: kind="
_WIDTH = {"degree": 1, "joint_degree": 2, "3k": 3}


def _column_header(kind: str) -> str:
    if kind == "3k":
        return "kind\tdegree1\tdegree2\tdegree3\tcount"
    return "\t".join(f"degree{i + 1}" for i in range(_WIDTH[kind])) + "\tcount"


#: Rows formatted per block: the text of one block is the only copy held in memory.
_BLOCK_ROWS = 1 << 20


def _format_rows(degrees: np.ndarray[Any, Any], counts: np.ndarray[Any, Any], prefix: str
                 ) -> bytes:
    """The TSV lines of a block of rows (``prefix`` + degrees + count, each line ending in a
    newline). Integers are formatted by pyarrow; fractional counts keep Python's ``repr``
    (an integral float is written as an integer)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if counts.dtype.kind in "iu":
        cnt = from_numpy(np.asarray(counts, dtype=np.int64)).cast(pa.string())
    else:
        cnt = pa.array([str(int(c)) if float(c).is_integer() else repr(float(c))
                        for c in counts.tolist()], type=pa.string())
    cols = [from_numpy(np.ascontiguousarray(degrees[:, i], dtype=np.int64)).cast(pa.string())
            for i in range(degrees.shape[1])]
    last = pc.binary_join_element_wise(cnt, text_scalar("", large=False),
                                       text_scalar("\n", large=False))
    lines = pc.binary_join_element_wise(*([text_scalar(prefix, large=False)] if prefix else []),
                                        *cols, last, text_scalar("\t", large=False))
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)
    start, stop = offsets[lines.offset], offsets[lines.offset + len(lines)]
    return memoryview(lines.buffers()[2])[start:stop].tobytes()


def _write_rows(fh: IO[bytes], t: DKDistribution, prefix: str = "") -> None:
    for s in range(0, t.n_tuples, _BLOCK_ROWS):
        fh.write(_format_rows(t.degrees[s:s + _BLOCK_ROWS], t.counts[s:s + _BLOCK_ROWS],
                              prefix))


def write_dk_table(dist: DKDistribution | DK3Distribution, path: str | os.PathLike[str]) -> Path:
    """Write a 1K / 2K / 3K table as TSV atomically.

    Rows are formatted and written in blocks of :data:`_BLOCK_ROWS`, so a table of tens of
    millions of rows (a 3K table) needs memory for one block of text, not for the file.
    """
    if not isinstance(dist, DK3Distribution) and dist.kind not in ("degree", "joint_degree"):
        raise InvalidParameterError(
            f"write_dk_table writes a 1K, 2K or whole 3K table; a lone {dist.kind!r} "
            "table is half of a 3K distribution (pass the DK3Distribution).")
    kind = "3k" if isinstance(dist, DK3Distribution) else dist.kind
    with atomic_path(path) as tmp, tmp.open("wb") as fh:
        fh.write(f"{_HEADER}{kind}\n{_column_header(kind)}\n".encode())
        if isinstance(dist, DK3Distribution):
            _write_rows(fh, dist.wedges, "wedge")
            _write_rows(fh, dist.triangles, "triangle")
        else:
            _write_rows(fh, dist)
    return Path(path)


def write_3k_chunks(chunks: Iterable[DKDistribution], path: str | os.PathLike[str]
                    ) -> tuple[int, int]:
    """Write a 3K table from partitions (:func:`graphanon.dk.extract.iter_three_k`: wedge
    tables, then the triangle table) atomically, holding one partition at a time.

    Returns the numbers of wedge and triangle rows written. The file reads back as the
    :class:`~graphanon.dk.extract.DK3Distribution` of :func:`write_dk_table` (wedge rows are
    grouped by centre degree instead of sorted by the first degree).
    """
    rows = {"wedge": 0, "triangle": 0}
    with atomic_path(path) as tmp, tmp.open("wb") as fh:
        fh.write(f"{_HEADER}3k\n{_column_header('3k')}\n".encode())
        for part in chunks:
            if part.kind not in rows:
                raise InvalidParameterError(
                    f"write_3k_chunks writes wedge and triangle tables; got {part.kind!r}.")
            _write_rows(fh, part, part.kind)
            rows[part.kind] += part.n_tuples
    return rows["wedge"], rows["triangle"]


def read_dk_table(path: str | os.PathLike[str]) -> DKDistribution | DK3Distribution:
    """Read a table written by :func:`write_dk_table` (or any TSV with that layout).

    Blank lines and ``#`` comment lines after the first are ignored; the column header on
    the second line is optional. Degrees must be non-negative integers, each degree (pair,
    tuple) listed once, and counts finite numbers below 2**53 (integers stay int64; a table
    with fractional counts, e.g. raw noisy values, is read as float64).

    Raises
    ------
    InputFormatError
        The file is missing, its first line is not a dK header, or a row is malformed; the
        message names the file, the number of the first bad line and its content.
    """
    p = Path(path)
    if not p.exists():
        raise InputFormatError(f"{str(p)!r}: no such dK table file.", path=str(p))
    lines = read_input_text(p, what="dK table").splitlines()
    first = lines[0] if lines else ""
    kind = first[len(_HEADER):].strip() if first.startswith(_HEADER) else None
    if kind not in _WIDTH:
        why = ("not a dK table (the first line must be "
               f"'{_HEADER}<degree|joint_degree|3k>')") if kind is None else (
            f"unknown dK table kind {kind!r} (known: degree, joint_degree, 3k)")
        raise InputFormatError(f"{str(p)!r} line 1: {why}: {first[:120]!r}", path=str(p),
                               line=1)
    width = _WIDTH[kind]
    three = kind == "3k"
    n_fields = width + 1 + (1 if three else 0)
    header = _column_header(kind)
    tags: list[str] = []
    degrees: list[list[int]] = []
    counts: list[float] = []
    first_line: dict[tuple[Any, ...], int] = {}
    for lineno, line in enumerate(lines[1:], start=2):
        text = line.strip()
        if not text or text.startswith("#") or (lineno == 2 and text == header):
            continue
        fields = text.split("\t")

        def bad(why: str, lineno: int = lineno, line: str = line) -> InputFormatError:
            return InputFormatError(f"{str(p)!r} line {lineno}: {why}: {line[:120]!r}",
                                    path=str(p), line=lineno)

        if len(fields) != n_fields:
            raise bad(f"expected {n_fields} tab-separated fields for a {kind} table, got "
                      f"{len(fields)}")
        if three:
            tag, fields = fields[0].strip(), fields[1:]
            if tag not in ("wedge", "triangle"):
                raise bad(f"the first field must be 'wedge' or 'triangle', got {tag!r}")
            tags.append(tag)
        row = []
        for x in fields[:width]:
            try:
                value = float(x)
            except ValueError:
                raise bad(f"degree {x.strip()!r} is not a number") from None
            if not value.is_integer() or value < 0:
                raise bad(f"degree {x.strip()!r} is not a non-negative integer")
            row.append(int(value))
        try:
            count = float(fields[width])
        except ValueError:
            raise bad(f"count {fields[width].strip()!r} is not a number") from None
        if not math.isfinite(count):
            raise bad(f"count {fields[width].strip()!r} is not finite")
        if abs(count) >= 2.0**53:  # beyond exact integers (and int64 past 2**63)
            raise bad(f"count {fields[width].strip()!r} is too large")
        key = (tags[-1] if three else "", *row)
        if key in first_line:
            raise bad(f"the same {'tuple' if three else 'degree' if width == 1 else 'pair'} "
                      f"as line {first_line[key]} (a table lists each once)")
        first_line[key] = lineno
        degrees.append(row)
        counts.append(count)
    deg = np.asarray(degrees, dtype=np.int64).reshape(-1, width)
    cnt = np.asarray(counts, dtype=np.float64)
    values = cnt.astype(np.int64) if np.array_equal(cnt, np.round(cnt)) else cnt
    if not three:
        return DKDistribution(kind, deg, values)
    tag_arr = np.asarray(tags, dtype=object)
    parts = {name: DKDistribution(name, deg[tag_arr == name], values[tag_arr == name])
             for name in ("wedge", "triangle")}
    return DK3Distribution(parts["wedge"], parts["triangle"])
