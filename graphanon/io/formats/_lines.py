"""Line-based text formats (edge lists, user-feature lists, header-only Matrix Market):
the scanner's pairs and notes, and the writer of ``a<TAB>b`` lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..._arrow import text_scalar
from ..._ids import mark_canonical
from .._scan import Pairs, Text, find_byte, scan_pairs


def _scan(path: Path, raw: Text, *, bipartite: bool, skip_bad_rows: bool,
          start: int = 0, first_line: int = 1) -> Pairs:
    """The id pairs of an edge list (whitespace separated, one id space) or a
    ``user<TAB>feature`` list (tab separated when it holds a tab, exactly two fields, users
    and features apart); rules and errors in :mod:`._scan`."""
    tabs = bipartite and find_byte(raw, b"\t") >= 0
    return scan_pairs(path, raw, tabs=tabs, exact=bipartite, shared=not bipartite,
                      skip_bad_rows=skip_bad_rows, start=start, first_line=first_line)


def _frozen_ids(ids: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The scanner's ids (already canonical and distinct): read-only and known as such, so
    that building the graph does not check them again."""
    ids.flags.writeable = False
    return mark_canonical(ids)


def _warn_comment_like_ids(path: Path, ids: np.ndarray[Any, Any]) -> None:
    """Warn when text ids start with ``%``: KONECT and Matrix Market mark comments so, and a
    ``% sym unweighted`` line of two fields would otherwise become an edge unnoticed. The
    ids are sorted by code point, so those starting with ``%`` are one run (two bisections,
    no pass over the ids)."""
    if ids.dtype != object or not ids.size:
        return
    lo, hi = (int(x) for x in np.searchsorted(ids, ["%", "&"]))
    if hi > lo:
        import warnings

        from ...errors import CommentLikeIdWarning

        many = "ids start" if hi - lo > 1 else "id starts"
        warnings.warn(
            f"{str(path)!r}: {hi - lo} {many} with '%' (first {ids[lo]!r}). Only '#' starts "
            "a comment in an edge or user-feature list, so a '%' line (a KONECT or Matrix "
            "Market header) is read as data; turn such lines into '#' lines.",
            CommentLikeIdWarning, stacklevel=4)  # read_graph → the format's reader → here


def _notes(pairs: Pairs) -> dict[str, int]:
    notes = {"rows_skipped": pairs.rows_skipped}
    if not pairs.codes[0].size and not pairs.rows_skipped:
        notes["no_data_lines"] = 1  # read as the empty graph (see scan_pairs)
    if pairs.ignored_columns:
        notes["ignored_columns"] = pairs.ignored_columns
    return notes


def _write_lines(tmp: Path, a: Any, b: Any, header: str) -> None:
    """Write ``a<TAB>b`` lines verbatim (no quoting: the readers of these formats take every
    character literally), built in Arrow without a Python object per line."""
    import pyarrow as pa
    import pyarrow.compute as pc

    tab, nl, empty = text_scalar("\t"), text_scalar("\n"), text_scalar("")
    with tmp.open("wb") as fh:
        fh.write(header.encode("utf-8"))
        step = 1 << 22
        for lo in range(0, len(a), step):
            lines = pc.binary_join_element_wise(
                pc.binary_join_element_wise(a[lo:lo + step], b[lo:lo + step], tab), empty, nl)
            lines = lines.combine_chunks() if isinstance(lines, pa.ChunkedArray) else lines
            offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64,
                                    count=len(lines) + 1, offset=lines.offset * 8)
            data = lines.buffers()[2]
            fh.write(memoryview(data)[int(offsets[0]):int(offsets[-1])])
