"""CSV / TSV with a header (quoted fields allowed), columns chosen by name, through pyarrow."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..._arrow import from_numpy
from ..._ids import _arrow_text
from ...errors import InputFormatError
from ...graph import Graph
from .._input import (
    _read_bytes,
    check_csv_columns,
    csv_error,
)
from ._table import _graph_from_table


class _RowSkipper:
    """pyarrow's ``invalid_row_handler`` for ``--skip-bad-rows``: skip the row, count it."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, row: Any) -> str:
        self.count += 1
        return "skip"


def _read_delimited(path: Path, raw: bytes | bytearray, delimiter: str,
                    id_columns: Sequence[str] = (), skip_bad_rows: bool = False) -> Any:
    """A CSV/TSV with a header (quoted fields allowed); the id columns as exact text."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:
        raw.split(b"\n", 1)[0].decode("utf-8")  # the header names the columns
    except UnicodeDecodeError:
        raise InputFormatError(f"{str(path)!r} line 1: the header is not valid UTF-8 text.",
                               path=str(path), line=1) from None
    skip = _RowSkipper()
    try:
        table = pacsv.read_csv(
            io.BytesIO(raw),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter, invalid_row_handler=skip if skip_bad_rows else None),
            # id columns keep their exact text (graphanon._ids); an empty field is "", which
            # is refused below with its line number
            convert_options=pacsv.ConvertOptions(
                column_types={c: pa.large_string() for c in id_columns},
                strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise csv_error(path, raw, delimiter, exc) from None
    check_csv_columns(path, raw, delimiter, table)
    return table.replace_schema_metadata(
        {b"graphanon_rows_skipped": str(skip.count).encode()})


def _write_csv(tmp: Path, a: Any, b: Any, delimiter: str, names: Sequence[str]) -> None:
    """A delimited file with a header; fields quoted where needed (the reader unquotes)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    table = pa.table({names[0]: a, names[1]: b})
    pacsv.write_csv(table, tmp, pacsv.WriteOptions(include_header=True, delimiter=delimiter,
                                                   quoting_style="needed"))


def read_delimited_graph(path: Path, fmt: str, source: str, target: str,
                         delimiter: str | None, skip_bad_rows: bool) -> Graph:
    """The graph of a CSV (``fmt="csv"``) or TSV file's ``source`` / ``target`` columns."""
    raw = _read_bytes(path, fmt)
    sep = delimiter or ("," if fmt == "csv" else "\t")
    table = _read_delimited(path, raw, sep, (source, target), skip_bad_rows)
    return _graph_from_table(path, table, source, target, text=(raw, sep),
                             skip_bad_rows=skip_bad_rows)


def delimited_writer(G: Graph, u: Any, v: Any, fmt: str) -> Callable[[Path], None]:
    """The writer of ``G``'s edges ``(u, v)`` as CSV or TSV with a ``source,target`` header."""
    text = _arrow_text(G.node_ids)

    def write(tmp: Path) -> None:
        _write_csv(tmp, text.take(from_numpy(u)), text.take(from_numpy(v)),
                   "," if fmt == "csv" else "\t", ("source", "target"))

    return write
