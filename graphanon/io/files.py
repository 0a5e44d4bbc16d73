"""File adapters: the embedded default source and sink of graphanon.

Readers return :class:`~graphanon.graph.Graph` or :class:`~graphanon.graph.BipartiteGraph`;
writers are atomic (temporary file, then rename). Bulk parsing goes through pyarrow's
multi-threaded CSV reader; the slow line-by-line scan runs only to locate the first bad line
of a malformed file, so that the error names the file, the line number and its content.

Formats
-------
``edgelist``  SNAP-style: whitespace separated ``u v [...]``, ``#`` comments, ``.gz`` ok.
``csv`` / ``tsv``  delimited with a header; columns chosen by name (``source``/``target``).
``parquet``  columns ``source``, ``target``; a row with a null target is an isolated node.
``graphml`` / ``gml``  through igraph; node attributes are kept.
``mtx``  Matrix Market (with banner) or the NetworkRepository ``n m`` header variant.
``mat``  MATLAB file with an adjacency ``A`` (Facebook100), attributes from ``local_info``.
``bipartite``  ``user<TAB>feature`` lines (string ids allowed, ``#`` comments).
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._memory import format_bytes, require_memory
from ..errors import InputFormatError, InvalidParameterError
from ..graph import BipartiteGraph, Graph
from ._atomic import atomic_path
from ._input import _check_exists, _read_bytes

__all__ = [
    "GRAPH_FORMATS",
    "detect_format",
    "read_bipartite",
    "read_graph",
    "write_bipartite",
    "write_graph",
]

GRAPH_FORMATS = ("edgelist", "csv", "tsv", "parquet", "graphml", "gml", "mtx", "mat")
_EXTENSIONS = {
    ".txt": "edgelist",
    ".edges": "edgelist",
    ".edgelist": "edgelist",
    ".el": "edgelist",
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".graphml": "graphml",
    ".gml": "gml",
    ".mtx": "mtx",
    ".mat": "mat",
}

# SNAP / Facebook100 local_info columns, in order
FACEBOOK100_ATTRIBUTES = (
    "status",
    "gender",
    "major",
    "second_major",
    "dorm",
    "year",
    "high_school",
)


def detect_format(path: str | os.PathLike[str]) -> str:
    """The format implied by the file extension (``.gz`` is looked through)."""
    p = Path(path)
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    ext = suffixes[-1] if suffixes else ""
    fmt = _EXTENSIONS.get(ext)
    if fmt is None:
        raise InvalidParameterError(
            f"cannot tell the format of {str(path)!r} from its extension {ext or '(none)'!r}; "
            f"pass format= one of {', '.join(GRAPH_FORMATS)}."
        )
    return fmt


_COMMENT = re.compile(rb"(?m)^[ \t]*#[^\n]*(\n|$)")
_RUNS = re.compile(rb"[ \t]+")
_EDGE_SPACES = re.compile(rb"(?m)^[ \t]+|[ \t]+(?=\r?$)")


def _normalize_whitespace(data: bytes) -> bytes:
    """Make a whitespace-separated text single-tab separated (C-speed regex, fast paths)."""
    if b"#" in data:
        data = _COMMENT.sub(b"", data)
    has_space = b" " in data
    if has_space:
        if b"\t" in data:
            data = data.replace(b"\t", b" ")
        if b"  " in data:
            data = _RUNS.sub(b" ", data)
        if data.startswith(b" ") or b"\n " in data or b" \n" in data or b" \r" in data:
            data = _EDGE_SPACES.sub(b"", data)
        data = data.replace(b" ", b"\t")
    elif b"\t\t" in data or data.startswith(b"\t") or b"\n\t" in data or b"\t\n" in data:
        data = _RUNS.sub(b"\t", data)
        data = _EDGE_SPACES.sub(b"", data)
    return data


def _first_bad_line(path: Path, data: bytes, min_fields: int, split_tabs: bool,
                    max_fields: int | None = None) -> InputFormatError:
    """Scan the original text for the first line that breaks the format."""
    expected: int | None = None
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        line = raw.rstrip(b"\r")
        stripped = line.strip()
        if not stripped or stripped.startswith(b"#"):
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            return InputFormatError(
                f"{str(path)!r} line {lineno}: not valid UTF-8 text: {line[:80]!r}",
                path=str(path),
                line=lineno,
            )
        fields = text.strip().split("\t") if split_tabs else text.split()
        if len(fields) < min_fields or any(f == "" for f in fields[:min_fields]):
            return InputFormatError(
                f"{str(path)!r} line {lineno}: expected at least {min_fields} non-empty "
                f"fields, got {sum(bool(f) for f in fields)}: {text[:120]!r}",
                path=str(path),
                line=lineno,
            )
        if max_fields is not None and len(fields) > max_fields:
            return InputFormatError(
                f"{str(path)!r} line {lineno}: expected {max_fields} tab-separated fields, got "
                f"{len(fields)} (nothing is dropped silently; pass --skip-bad-rows to skip "
                f"such rows): {text[:120]!r}",
                path=str(path),
                line=lineno,
            )
        if expected is None:
            expected = len(fields)
        elif len(fields) != expected:
            return InputFormatError(
                f"{str(path)!r} line {lineno}: expected {expected} fields like the first data "
                f"line, got {len(fields)}: {text[:120]!r}",
                path=str(path),
                line=lineno,
            )
    return InputFormatError(f"{str(path)!r}: could not be parsed.", path=str(path))


class _RowSkipper:
    """pyarrow's ``invalid_row_handler`` for ``--skip-bad-rows``: skip the row, count it."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, row: Any) -> str:
        self.count += 1
        return "skip"


def _parse_columns(path: Path, *, min_fields: int = 2, tabs_only: bool = False,
                   exact: bool = False, skip_bad_rows: bool = False
                   ) -> tuple[list[Any], dict[str, int]]:
    """Parse a delimited text into pyarrow text columns (ids keep their exact text).

    Returns the first ``min_fields`` columns and what was left out: ``rows_skipped`` (only
    with ``skip_bad_rows``: rows with another number of fields than the first data row, or
    with an empty id) and ``ignored_columns`` (further columns, e.g. an edge weight; with
    ``exact`` such columns are an error).
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    raw = _read_bytes(path)
    split_tabs = tabs_only and b"\t" in raw
    if split_tabs:
        data = _COMMENT.sub(b"", raw) if b"#" in raw else raw
    else:
        data = _normalize_whitespace(raw)
    if not data.strip():
        raise InputFormatError(f"{str(path)!r} holds no data lines.", path=str(path))
    skip = _RowSkipper()
    try:
        table = pacsv.read_csv(
            io.BytesIO(data),
            read_options=pacsv.ReadOptions(autogenerate_column_names=True, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(
                delimiter="\t", quote_char=False, double_quote=False, newlines_in_values=False,
                invalid_row_handler=skip if skip_bad_rows else None,
            ),
            # ids are text (graphanon._ids): "007" and "0x10" must not become 7 and 16
            convert_options=pacsv.ConvertOptions(
                column_types={f"f{i}": pa.large_string() for i in range(min_fields)},
                strings_can_be_null=False, quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:  # also: invalid UTF-8 in an id
        raise _first_bad_line(path, raw, min_fields, split_tabs,
                              min_fields if exact else None) from exc
    if table.num_columns < min_fields:
        raise _first_bad_line(path, raw, min_fields, split_tabs)
    notes = {"rows_skipped": skip.count}
    if table.num_columns > min_fields:
        if exact and not skip_bad_rows:
            raise _first_bad_line(path, raw, min_fields, split_tabs, min_fields)
        if exact:  # every row has the same (too large) number of fields: all are bad
            raise InputFormatError(
                f"{str(path)!r}: the first data row has {table.num_columns} fields; expected "
                f"{min_fields} (rows like it cannot be told from bad ones).", path=str(path))
        notes["ignored_columns"] = table.num_columns - min_fields
    cols = [table.column(i) for i in range(min_fields)]
    empty = None
    for col in cols:
        e = pc.equal(pc.utf8_length(col), 0)
        empty = e if empty is None else pc.or_(empty, e)
    if empty is not None and pc.any(empty).as_py():
        if not skip_bad_rows:
            raise _first_bad_line(path, raw, min_fields, split_tabs)
        keep = pc.invert(empty)
        notes["rows_skipped"] += int(pc.sum(empty).as_py())
        cols = [pc.filter(c, keep) for c in cols]
    return cols, notes


# ---------------------------------------------------------------------- readers
def read_graph(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    source: str = "source",
    target: str = "target",
    delimiter: str | None = None,
    id_attribute: str | None = None,
    skip_bad_rows: bool = False,
) -> Graph:
    """Read an undirected graph; self-loops and duplicate edges are dropped (and counted in
    ``G.input_cleaning``).

    Parameters
    ----------
    path
        Input file.
    format
        One of :data:`GRAPH_FORMATS`; detected from the extension if omitted.
    source, target
        Column names for ``csv`` / ``tsv`` / ``parquet``.
    delimiter
        Override the ``csv`` / ``tsv`` delimiter.
    id_attribute
        GraphML / GML node attribute used as id (default: ``id``, then ``name``).
    skip_bad_rows
        Text formats: skip (and count in ``G.input_cleaning["rows_skipped"]``) rows with a
        wrong number of fields or an empty id, instead of stopping at the first one.

    Raises
    ------
    InputFormatError
        Malformed content, with file name, line number and line content where it applies.
    """
    p = _check_exists(path)
    fmt = format or detect_format(p)
    _check_read_memory(p, fmt)
    if fmt == "edgelist":
        (src, dst), notes = _parse_columns(p, skip_bad_rows=skip_bad_rows)
        G = Graph.from_id_edges(src, dst)
        G._note_input(**notes)
        return G
    if fmt in ("csv", "tsv"):
        raw = _read_bytes(p)
        table = _read_delimited(p, raw, delimiter or ("," if fmt == "csv" else "\t"),
                                (source, target), skip_bad_rows)
        return _graph_from_table(p, table, source, target, raw=raw,
                                 skip_bad_rows=skip_bad_rows)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(p)
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise InputFormatError(f"{str(p)!r} is not a readable Parquet file: {exc}",
                                   path=str(p)) from exc
        return _graph_from_table(p, table, source, target)
    if fmt in ("graphml", "gml"):
        return _read_igraph(p, fmt, id_attribute)
    if fmt == "mtx":
        return _read_mtx(p)
    if fmt == "mat":
        return _read_mat(p)
    raise InvalidParameterError(
        f"The 'format' parameter of read_graph must be one of {', '.join(GRAPH_FORMATS)}. "
        f"Got {fmt!r} instead."
    )


#: Peak memory of a graph read per byte of the file (measured on 1M- and 10M-edge power-law
#: graphs: text 12-25x, gzip about 50x, Parquet about 40x, GraphML 3x, GML 12x); a gzip file
#: counts its usual 4x expansion on top.
_READ_BYTES_PER_FILE_BYTE = {"edgelist": 16, "csv": 16, "tsv": 16, "mtx": 16, "mat": 16,
                             "parquet": 40, "graphml": 4, "gml": 12}


def _check_read_memory(path: Path, fmt: str) -> None:
    """Refuse, before parsing, a graph file whose read would not fit in the available memory
    (pipes have no size here; :func:`._input.max_input_bytes` bounds what they deliver)."""
    size = path.stat().st_size
    factor = _READ_BYTES_PER_FILE_BYTE.get(fmt, 16) * (4 if path.suffix.lower() == ".gz" else 1)
    require_memory(size * factor, what=f"reading {str(path)!r}",
                   parameter=f"the input file size ({format_bytes(size)})")


def _read_delimited(path: Path, raw: bytes, delimiter: str, id_columns: Sequence[str] = (),
                    skip_bad_rows: bool = False) -> Any:
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
        msg = str(exc).split("\n")[0]
        raise InputFormatError(f"{str(path)!r}: {msg}", path=str(path)) from None
    return table.replace_schema_metadata(
        {b"graphanon_rows_skipped": str(skip.count).encode()})


def _text_line(raw: bytes, lineno: int) -> str:
    lines = raw.split(b"\n", lineno)
    line = lines[lineno - 1] if len(lines) >= lineno else b""
    return line.rstrip(b"\r").decode("utf-8", errors="replace")[:120]


def _graph_from_table(path: Path, table: Any, source: str, target: str, *,
                      raw: bytes | None = None, skip_bad_rows: bool = False) -> Graph:
    """A graph from ``source``/``target`` columns. In Parquet a null target marks an isolated
    node; in CSV/TSV (``raw`` given) an empty id is an error naming its line (header = 1)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    names = table.column_names
    for col in (source, target):
        if col not in names:
            raise InputFormatError(
                f"{str(path)!r} has no column {col!r}; columns are {names}.", path=str(path)
            )
    skipped = int((table.schema.metadata or {}).get(b"graphanon_rows_skipped", b"0"))
    src = table.column(source)
    dst = table.column(target)
    if raw is not None:  # CSV / TSV: no nulls, but "" for an empty field
        empty = pc.or_(pc.equal(pc.utf8_length(src), 0), pc.equal(pc.utf8_length(dst), 0))
        if pc.any(empty).as_py():
            if not skip_bad_rows:
                row = int(pc.index(empty, True).as_py())
                lineno = row + 2  # 1-based, after the header line
                raise InputFormatError(
                    f"{str(path)!r} line {lineno}: an empty {source!r} or {target!r} id "
                    f"(nothing is dropped silently; pass --skip-bad-rows to skip such rows): "
                    f"{_text_line(raw, lineno)!r}", path=str(path), line=lineno)
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


def _read_igraph(path: Path, fmt: str, id_attribute: str | None) -> Graph:
    import igraph

    reader = igraph.Graph.Read_GraphML if fmt == "graphml" else igraph.Graph.Read_GML
    try:
        g = reader(str(path))
    except Exception as exc:  # igraph raises InternalError / SystemError on bad files
        raise InputFormatError(f"{str(path)!r} is not a valid {fmt.upper()} file: {exc}",
                               path=str(path)) from exc
    if g.is_directed():
        g.to_undirected(mode="collapse")
    attrs = g.vs.attributes()
    key = id_attribute or next((a for a in ("name", "id") if a in attrs), None)
    if id_attribute and id_attribute not in attrs:
        raise InvalidParameterError(
            f"{str(path)!r} has no node attribute {id_attribute!r}; it has {attrs}."
        )
    if key == "name" and "id" in attrs:
        del g.vs["id"]  # the format's structural node id, not data
    return Graph.from_igraph(g, id_attribute=key)


def _read_mtx(path: Path) -> Graph:
    raw = _read_bytes(path)
    if raw.lstrip().startswith(b"%%MatrixMarket"):
        import scipy.io

        try:
            A = scipy.io.mmread(io.BytesIO(raw))
        except Exception as exc:
            raise InputFormatError(f"{str(path)!r} is not a valid Matrix Market file: {exc}",
                                   path=str(path)) from exc
        n = A.shape[0]
        g = Graph.from_scipy(A, node_ids=np.arange(1, n + 1, dtype=np.int64))
        return g
    # NetworkRepository variant: a header line "n m" (or "n n m"), then 1-indexed edges
    lines = raw.split(b"\n", 1)
    header = lines[0].split()
    try:
        n = int(header[0])
    except (IndexError, ValueError) as exc:
        raise InputFormatError(
            f"{str(path)!r} line 1: expected a Matrix Market banner or an 'n m' header, "
            f"got {lines[0][:80]!r}",
            path=str(path),
            line=1,
        ) from exc
    body = lines[1] if len(lines) > 1 else b""
    tmp_cols = _parse_columns_from_bytes(path, body, line_offset=1)
    u = np.asarray(tmp_cols[0]) - 1
    v = np.asarray(tmp_cols[1]) - 1
    if u.size and (min(u.min(), v.min()) < 0 or max(u.max(), v.max()) >= n):
        raise InputFormatError(
            f"{str(path)!r}: edge endpoints must lie in 1..{n} as the header says.", path=str(path)
        )
    return Graph.from_edges(u, v, n_nodes=n, node_ids=np.arange(1, n + 1, dtype=np.int64))


def _parse_columns_from_bytes(path: Path, body: bytes, *, line_offset: int) -> list[Any]:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    data = _normalize_whitespace(body)
    try:
        table = pacsv.read_csv(
            io.BytesIO(data),
            read_options=pacsv.ReadOptions(autogenerate_column_names=True),
            parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False),
        )
    except pa.ArrowInvalid as exc:
        err = _first_bad_line(path, body, 2, False)
        if err.line is not None:
            err = InputFormatError(
                str(err).replace(f"line {err.line}:", f"line {err.line + line_offset}:"),
                path=str(path),
                line=err.line + line_offset,
            )
        raise err from exc
    cols = [table.column(i) for i in range(2)]
    for c in cols:
        if not pa.types.is_integer(c.type):
            raise InputFormatError(f"{str(path)!r}: Matrix Market indices must be integers.",
                                   path=str(path))
    return [c.to_numpy() for c in cols]


def _read_mat(path: Path) -> Graph:
    import scipy.io

    try:
        mat = scipy.io.loadmat(str(path))
    except Exception as exc:
        raise InputFormatError(f"{str(path)!r} is not a readable MATLAB file: {exc}",
                               path=str(path)) from exc
    if "A" not in mat:
        keys = sorted(k for k in mat if not k.startswith("__"))
        raise InputFormatError(f"{str(path)!r} has no adjacency matrix 'A'; keys: {keys}.",
                               path=str(path))
    A = mat["A"]
    import scipy.sparse as sp

    if not (sp.issparse(A) or (isinstance(A, np.ndarray) and A.dtype.kind in "biuf")):
        kind = getattr(A, "dtype", type(A).__name__)
        raise InputFormatError(
            f"{str(path)!r}: the matrix 'A' must be a numeric adjacency matrix; it holds "
            f"{kind} values.", path=str(path))
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise InputFormatError(
            f"{str(path)!r}: the adjacency matrix 'A' must be square; it has shape "
            f"{A.shape}.", path=str(path))
    n = A.shape[0]
    g = Graph.from_scipy(A)
    info = mat.get("local_info")
    if info is not None and info.shape[0] == n:
        names = FACEBOOK100_ATTRIBUTES if info.shape[1] == len(FACEBOOK100_ATTRIBUTES) else [
            f"attr{i}" for i in range(info.shape[1])
        ]
        attrs = {name: np.asarray(info[:, i]).astype(np.int64) for i, name in enumerate(names)}
        g = Graph(g.indptr, g.indices, g.node_ids, attrs, validate=False)
    return g


def read_bipartite(path: str | os.PathLike[str], *,
                   skip_bad_rows: bool = False) -> BipartiteGraph:
    """Read ``user<TAB>feature`` lines (or a Parquet file) into a :class:`BipartiteGraph`.

    Text: tab separated when the file contains tabs (ids may then contain spaces), else
    whitespace separated; ``#`` lines are comments. A row with more or fewer than two fields
    or an empty id is an error naming its line — or, with ``skip_bad_rows``, skipped and
    counted (``B.input_cleaning["rows_skipped"]``). Repeated pairs are merged and counted
    (``duplicate_pairs``). ``.parquet``: columns ``user`` and ``feature``.
    """
    p = _check_exists(path)
    if p.suffix.lower() in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(p)
        except Exception as exc:
            raise InputFormatError(f"{str(p)!r} is not a readable Parquet file: {exc}",
                                   path=str(p)) from exc
        for col in ("user", "feature"):
            if col not in table.column_names:
                raise InputFormatError(
                    f"{str(p)!r} has no column {col!r}; columns are {table.column_names}.",
                    path=str(p),
                )
        return BipartiteGraph.from_pairs(table.column("user"), table.column("feature"))
    (users, features), notes = _parse_columns(p, tabs_only=True, exact=True,
                                              skip_bad_rows=skip_bad_rows)
    B = BipartiteGraph.from_pairs(users, features)
    B._note_input(**notes)
    return B


# ---------------------------------------------------------------------- writers
#: Characters an id may not contain in each text format, and why.
_TEXT_RULES = {
    "edgelist": (r"[ \t\r\n]", "whitespace separates the two ids of an edge list line"),
    "tsv-raw": (r"[\t\r\n]", "tabs and newlines separate fields and lines"),
}


def _text_ids(ids: np.ndarray[Any, Any]) -> Any:
    """The canonical text of ``ids`` as a pyarrow ``large_string`` array."""
    import pyarrow as pa

    if ids.dtype == object:
        return pa.array(ids.tolist(), pa.large_string())
    return pa.array(ids).cast(pa.large_string())


def _check_writable_ids(ids: np.ndarray[Any, Any], what: str, rule: str, fmt: str) -> Any:
    """The ids as text, if ``fmt`` can hold every one of them so that it reads back equal."""
    import pyarrow.compute as pc

    text = _text_ids(ids)
    if ids.dtype != object:  # canonical integers: always writable
        return text
    pattern, why = _TEXT_RULES[rule]
    bad = pc.or_(pc.match_substring_regex(text, pattern),
                 pc.match_substring_regex(text, r"^[ \t]*#"))
    if pc.any(bad).as_py():
        x = text[int(pc.index(bad, True).as_py())].as_py()
        reason = why if not x.lstrip(" \t").startswith("#") else "'#' starts a comment line"
        raise InvalidParameterError(
            f"the {what} id {x!r} cannot be written to a {fmt} file ({reason}); write "
            ".parquet or .graphml instead, which hold any id.")
    return text


def _write_lines(tmp: Path, a: Any, b: Any, header: str) -> None:
    """Write ``a<TAB>b`` lines verbatim (no quoting: the readers of these formats take every
    character literally), built in Arrow without a Python object per line."""
    import pyarrow as pa
    import pyarrow.compute as pc

    tab = pa.scalar("\t", pa.large_string())
    nl = pa.scalar("\n", pa.large_string())
    empty = pa.scalar("", pa.large_string())
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


def _write_csv(tmp: Path, a: Any, b: Any, delimiter: str, names: Sequence[str]) -> None:
    """A delimited file with a header; fields quoted where needed (the reader unquotes)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    table = pa.table({names[0]: a, names[1]: b})
    pacsv.write_csv(table, tmp, pacsv.WriteOptions(include_header=True, delimiter=delimiter,
                                                   quoting_style="needed"))


def write_graph(G: Graph, path: str | os.PathLike[str], *, format: str | None = None) -> Path:
    """Write ``G`` atomically in ``format`` (detected from the extension if omitted).

    ``edgelist`` / ``csv`` / ``tsv`` cannot represent isolated nodes or attributes; use
    ``parquet`` (isolated nodes), ``graphml`` or ``gml`` (both) when they matter.
    """
    target = Path(path)
    fmt = format or detect_format(target)
    if fmt not in GRAPH_FORMATS or fmt == "mat":
        raise InvalidParameterError(
            f"The 'format' parameter of write_graph must be one of "
            f"{', '.join(f for f in GRAPH_FORMATS if f != 'mat')}. Got {fmt!r} instead."
        )
    ids = G.node_ids
    u, v = G.edges()
    text: Any = None
    if fmt == "edgelist":
        text = _check_writable_ids(ids, "node", "edgelist", "edge list")
    elif fmt in ("csv", "tsv"):
        text = _text_ids(ids)
    with atomic_path(target) as tmp:
        if fmt == "edgelist":
            header = (
                f"# graphanon edge list (undirected)\n# Nodes: {G.n_nodes} Edges: {G.n_edges}\n"
            )
            _write_lines(tmp, text.take(u), text.take(v), header)
        elif fmt in ("csv", "tsv"):
            _write_csv(tmp, text.take(u), text.take(v), "," if fmt == "csv" else "\t",
                       ("source", "target"))
        elif fmt == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            isolated = np.flatnonzero(G.degrees == 0)
            src = np.concatenate([ids[u], ids[isolated]])
            dst = pa.array(
                np.concatenate([ids[v], ids[isolated]]).tolist()
                if ids.dtype == object
                else np.concatenate([ids[v], ids[isolated]]),
                mask=np.concatenate([np.zeros(u.size, bool), np.ones(isolated.size, bool)]),
            )
            pq.write_table(pa.table({"source": src, "target": dst}), tmp)
        elif fmt in ("graphml", "gml"):
            g = G.to_igraph()
            if fmt == "gml":
                # GML needs numeric ids; keep the external id in 'name'
                g.vs["id"] = list(range(G.n_nodes))
                g.write_gml(str(tmp))
            else:
                g.write_graphml(str(tmp))
        elif fmt == "mtx":
            import scipy.io
            import scipy.sparse as sp

            upper = sp.coo_array(
                (np.ones(u.size, dtype=np.int8), (v, u)), shape=(G.n_nodes, G.n_nodes)
            )
            with tmp.open("wb") as fh:
                scipy.io.mmwrite(fh, upper, field="pattern", symmetry="symmetric")
    return target


def write_bipartite(B: BipartiteGraph, path: str | os.PathLike[str]) -> Path:
    """Write ``user<TAB>feature`` lines (or Parquet for a ``.parquet`` path) atomically.

    Users without features are not listed.
    """
    r, c = B.edges()
    if Path(path).suffix.lower() in (".parquet", ".pq"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        with atomic_path(path) as tmp:
            pq.write_table(pa.table({"user": B.user_ids[r], "feature": B.feature_ids[c]}), tmp)
        return Path(path)
    users = _check_writable_ids(B.user_ids, "user", "tsv-raw", "user<TAB>feature")
    features = _check_writable_ids(B.feature_ids, "feature", "tsv-raw", "user<TAB>feature")
    with atomic_path(path) as tmp:
        header = (
            f"# graphanon bipartite list: user<TAB>feature\n"
            f"# Users: {B.n_users} Features: {B.n_features} Edges: {B.n_edges}\n"
        )
        _write_lines(tmp, users.take(r), features.take(c), header)
    return Path(path)
