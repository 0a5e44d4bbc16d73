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

import io
import os
from pathlib import Path

import numpy as np

from ..dk.extract import DK3Distribution, DKDistribution
from ..errors import InputFormatError
from ._atomic import atomic_write_text

__all__ = ["read_dk_table", "write_dk_table"]

_HEADER = "# graphanon dK table: kind="


def _rows(t: DKDistribution, prefix: str = "") -> list[str]:
    counts = t.counts
    fmt = [str(int(c)) if float(c).is_integer() else repr(float(c)) for c in counts.tolist()]
    return [prefix + "\t".join(str(int(x)) for x in row) + "\t" + c
            for row, c in zip(t.degrees.tolist(), fmt, strict=True)]


def write_dk_table(dist: DKDistribution | DK3Distribution, path: str | os.PathLike[str]) -> Path:
    """Write a 1K / 2K / 3K table as TSV atomically."""
    if isinstance(dist, DK3Distribution):
        lines = [_HEADER + "3k", "kind\tdegree1\tdegree2\tdegree3\tcount"]
        lines += _rows(dist.wedges, "wedge\t") + _rows(dist.triangles, "triangle\t")
    else:
        cols = "\t".join(f"degree{i + 1}" for i in range(dist.d))
        lines = [_HEADER + dist.kind, f"{cols}\tcount", *_rows(dist)]
    atomic_write_text(path, "\n".join(lines) + "\n")
    return Path(path)


def read_dk_table(path: str | os.PathLike[str]) -> DKDistribution | DK3Distribution:
    """Read a table written by :func:`write_dk_table` (or any TSV with that layout)."""
    p = Path(path)
    if not p.is_file():
        raise InputFormatError(f"{p}: no such file.")
    text = p.read_text(encoding="utf-8")
    lines = text.splitlines()
    if not lines or not lines[0].startswith(_HEADER):
        raise InputFormatError(
            f"{p}: not a dK table (the first line must be '{_HEADER}<kind>').")
    kind = lines[0][len(_HEADER):].strip()
    body = "\n".join(lines[2:])
    try:
        if kind == "3k":
            arr = np.loadtxt(io.StringIO(body), dtype=str, delimiter="\t", ndmin=2)
            out = {}
            for name in ("wedge", "triangle"):
                sel = arr[arr[:, 0] == name] if arr.size else arr
                deg = sel[:, 1:4].astype(np.int64) if sel.size else np.zeros((0, 3), np.int64)
                cnt = sel[:, 4].astype(np.int64) if sel.size else np.zeros(0, np.int64)
                out[name] = DKDistribution(name, deg, cnt)
            return DK3Distribution(out["wedge"], out["triangle"])
        width = {"degree": 1, "joint_degree": 2}.get(kind)
        if width is None:
            raise InputFormatError(f"{p}: unknown dK table kind {kind!r}.")
        arr = np.loadtxt(io.StringIO(body), dtype=np.float64, delimiter="\t",
                         ndmin=2).reshape(-1, width + 1)
    except ValueError as exc:
        raise InputFormatError(f"{p}: malformed dK table row ({exc}).") from exc
    cnt = arr[:, width]
    counts = cnt.astype(np.int64) if np.array_equal(cnt, np.round(cnt)) else cnt
    return DKDistribution(kind, arr[:, :width].astype(np.int64), counts)
