"""Tables (CSV / TSV / Parquet) with ``source`` / ``target`` id columns → :class:`Graph`; an id
error of a whole-file reader names its file."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..._ids import trim_id_blanks
from ...errors import InputFormatError, InvalidParameterError
from ...graph import Graph
from .._input import (
    csv_records,
)


@contextlib.contextmanager
def _naming_file(path: Path) -> Iterator[None]:
    """An id error of a whole-file reader (duplicate, empty or non-integral ids) names the
    file it came from."""
    try:
        yield
    except InvalidParameterError as exc:
        if str(path) in str(exc):
            raise
        raise InputFormatError(f"{str(path)!r}: {exc}", path=str(path)) from None


def _graph_from_table(path: Path, table: Any, source: str, target: str, *,
                      text: tuple[bytes | bytearray, str] | None = None,
                      skip_bad_rows: bool = False) -> Graph:
    """A graph from ``source``/``target`` columns. In Parquet a null target marks an isolated
    node; in CSV/TSV (``text``: its bytes and delimiter) an empty id is an error naming its
    line (header = 1)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    names = table.column_names
    for col in (source, target):
        if col not in names:
            raise InputFormatError(
                f"{str(path)!r} has no column {col!r}; columns are {names}.", path=str(path)
            )
    skipped = int((table.schema.metadata or {}).get(b"graphanon_rows_skipped", b"0"))
    # a dictionary-encoded (categorical) id column, as pandas writes one, holds its ids as
    # its dictionary's values; spaces and tabs around a text id are not part of it
    src, dst = (trim_id_blanks(table.column(c)) for c in (source, target))
    if text is not None:  # CSV / TSV: no nulls, but "" for an empty field
        empty = pc.or_(pc.equal(pc.utf8_length(src), 0), pc.equal(pc.utf8_length(dst), 0))
        if pc.any(empty).as_py():
            if not skip_bad_rows:
                row = int(pc.index(empty, True).as_py())
                # the record after the header and ``row`` others (blank lines and quoted
                # line breaks make it another line than row + 2)
                raw, sep = text
                lineno, fields = next(itertools.islice(csv_records(raw, sep), row + 1, None))
                raise InputFormatError(
                    f"{str(path)!r} line {lineno}: an empty {source!r} or {target!r} id "
                    f"(nothing is dropped silently; pass --skip-bad-rows to skip such rows): "
                    f"{sep.join(fields)[:120]!r}", path=str(path), line=lineno)
            keep = pc.invert(empty)
            skipped += int(pc.sum(empty).as_py())
            src, dst = pc.filter(src, keep), pc.filter(dst, keep)
    if src.null_count:
        raise InputFormatError(f"{str(path)!r}: column {source!r} has missing ids.", path=str(path))
    nodes = None
    if dst.null_count:  # Parquet: rows with a null target are isolated nodes
        has = pc.is_valid(dst)
        nodes = src
        src = pc.filter(src, has)
        dst = pc.filter(dst, has)
    for col in (src, dst):
        if not (pa.types.is_integer(col.type) or pa.types.is_string(col.type)
                or pa.types.is_large_string(col.type)):
            raise InputFormatError(
                f"{str(path)!r}: id columns must be integers or strings, got {col.type}.",
                path=str(path),
            )
    G = Graph.from_id_edges(src, dst, nodes=nodes)
    G._note_input(rows_skipped=skipped)
    return G
