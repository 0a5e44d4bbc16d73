"""``id<TAB>value`` files: the shared reader behind preference and anonymity-level tables."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from .._ids import trim_id_blanks
from ..errors import InputFormatError, InvalidParameterError
from ._input import read_input_text

__all__ = ["iter_id_value_lines"]

_LINES = re.compile("\r\n|\r|\n")  # the line ends of the edge-list scanner


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def iter_id_value_lines(
    path: str | os.PathLike[str], *, what: str
) -> Iterator[tuple[int, str, str]]:
    """Yield ``(line number, id, value text)`` of a two-column file.

    The lines and blanks of the edge lists: lines end at ``\\n``, ``\\r\\n`` or ``\\r``;
    tab separated when the line has a tab, else separated by runs of spaces; spaces and tabs
    around a field are not part of it (:func:`graphanon._ids.trim_id_blanks`); blank lines
    and ``#`` comments are skipped; a first data line whose two fields are not numbers, the second
    without a digit, is a header (``1<TAB>abc`` and ``alice<TAB>0,5`` are mistyped rows,
    refused). ``what`` names the layout in messages
    (``"node<TAB>epsilon"``). Raises
    :class:`~graphanon.errors.InputFormatError` naming the file, line and content.
    """
    p = Path(path)
    if not p.exists():
        raise InputFormatError(f"cannot read {str(p)!r} ({what}): no such file.", path=str(p))
    try:
        lines = _LINES.split(read_input_text(p, what=what).removeprefix("\ufeff"))
    except InputFormatError:
        raise
    except InvalidParameterError as exc:
        raise InputFormatError(f"cannot read {str(p)!r} ({what}): {exc}", path=str(p)) from None
    first = True
    for no, line in enumerate(lines, 1):
        s = trim_id_blanks(line)
        if not s or s.startswith("#"):
            continue
        parts = [trim_id_blanks(x) for x in (s.split("\t") if "\t" in s else s.split(" "))]
        parts = parts if "\t" in s else [x for x in parts if x]
        if len(parts) != 2 or not all(parts):
            raise InputFormatError(f"{p}:{no}: expected '{what}', got {s[:80]!r}.",
                                   path=str(p), line=no)
        if (first and not _is_number(parts[0]) and not _is_number(parts[1])
                and not any(c.isdigit() for c in parts[1])):
            # a header names both columns; "1<TAB>abc" or "alice<TAB>0,5" is a mistyped
            # row, refused by the caller with its line (not silently dropped as a header)
            first = False
            continue  # header
        first = False
        yield no, parts[0], parts[1]
