"""Universe files: one id per line (the ``--nodes``, ``--users`` and ``--features`` options)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from .._ids import canonical_ids, mark_canonical, trim_id_blanks
from ..errors import InputFormatError
from ._input import read_input_text

__all__ = ["read_id_list"]

_LINES = re.compile("\r\n|\r|\n")  # the line ends of the edge-list scanner


def read_id_list(path: str | os.PathLike[str], *, what: str = "node") -> np.ndarray[Any, Any]:
    """Read a public universe: one id per line (its exact text, less the spaces and tabs
    around it: :func:`graphanon._ids.trim_id_blanks`, the rule of every reader).

    The rules of the edge-list reader: lines end at ``\\n``, ``\\r\\n`` or ``\\r`` only (an
    id may hold any other character, ``U+2028`` or a form feed included); the blanks removed
    around an id are spaces and tabs only; a leading UTF-8 byte order mark is skipped. Blank
    lines and lines starting with ``#`` are skipped; a repeated id is listed once. Ids follow
    the canonical encoding of :mod:`graphanon._ids` (``7`` in the file is the node ``7`` of
    any input).

    Raises
    ------
    InputFormatError
        Unreadable, not UTF-8, empty, or a line holding a tab (a second column).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from .._arrow import large_text

    p = Path(path)
    text = read_input_text(p, what=f"{what} universe").removeprefix("\ufeff")
    # one Arrow pass per rule, no Python object per line (a universe may list millions)
    lines = pc.split_pattern_regex(large_text([text], f"{what} universe"),
                                   _LINES.pattern).flatten()
    lines = trim_id_blanks(lines)
    # (no Python scalars in the calls: converting one imports pandas)
    keep = pc.and_(pc.cast(pc.utf8_length(lines), pa.bool_()),
                   pc.invert(pc.starts_with(lines, "#")))
    tabbed = pc.and_(keep, pc.match_substring(lines, "\t"))
    if pc.any(tabbed).as_py():
        no = int(np.flatnonzero(tabbed.to_numpy(zero_copy_only=False))[0]) + 1
        s = lines[no - 1].as_py()
        raise InputFormatError(
            f"{str(p)!r} line {no}: a {what} universe file holds one id per line, got "
            f"{s[:80]!r}.", path=str(p), line=no)
    ids = pc.unique(lines.filter(keep))  # in order of first appearance
    if not len(ids):
        raise InputFormatError(f"{str(p)!r} lists no {what} id.", path=str(p))
    out = canonical_ids(ids, f"{what} ids")
    out.flags.writeable = False  # known canonical: matching it to a graph checks it once
    return mark_canonical(out)
