"""File adapters: the embedded default source and sink of graphanon.

Readers return :class:`~graphanon.graph.Graph` or :class:`~graphanon.graph.BipartiteGraph`;
writers are atomic (temporary file, then rename). Edge lists and ``user<TAB>feature`` lists
are read by one pass over their bytes (:mod:`._scan`: a numba kernel that splits the lines,
checks every row, and turns the ids into codes directly, as ``int64`` when they are canonical
integers), which finds a bad row together with its line number and content. Delimited files
with a header go through pyarrow's CSV reader (quoting), Parquet through pyarrow.

Formats
-------
``edgelist``  SNAP-style: whitespace separated ``u v [...]``, ``#`` comments, ``.gz`` ok.
``csv`` / ``tsv``  delimited with a header; columns chosen by name (``source``/``target``).
``parquet``  columns ``source``, ``target`` (integers or text, dictionary-encoded too); a row
              with a null target is an isolated node.
``graphml`` / ``gml``  through igraph; node attributes are kept. Integer ids of 16 digits or
              more (igraph prints 15) and text ids GraphML (control characters) or GML (NUL)
              cannot hold are refused before writing.
``mtx``  Matrix Market (with banner) or the NetworkRepository ``n m`` header variant.
``mat``  MATLAB file with an adjacency ``A`` (Facebook100), attributes from ``local_info``.
``bipartite``  ``user<TAB>feature`` lines (string ids allowed, ``#`` comments).
"""

from __future__ import annotations

import contextlib
import errno
import io
import itertools
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._arrow import from_numpy, text_scalar
from .._ids import ID_BLANKS, _arrow_text, mark_canonical, trim_id_blanks
from .._memory import require_memory
from .._validation import check_path_arg, check_type
from ..errors import InputFormatError, InvalidParameterError
from ..graph import BipartiteGraph, Graph
from ._atomic import atomic_path
from ._input import (
    _check_exists,
    _read_array,
    _read_bytes,
    check_csv_columns,
    check_input_size,
    csv_error,
    csv_records,
)
from ._scan import Pairs, Text, _canonical_int, find_byte, row_line, scan_pairs

__all__ = [
    "GRAPH_FORMATS",
    "detect_format",
    "graph_output_format",
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
            f"cannot tell the format of {str(path)!r} from its extension {ext or '(none)'!r}: "
            f"name the file with one of the extensions {', '.join(sorted(_EXTENSIONS))} or "
            f"give the format (one of {', '.join(GRAPH_FORMATS)}; --format / --out-format on "
            "the command line)."
        )
    return fmt


def graph_output_format(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The format :func:`write_graph` writes ``path`` in (``format``, else the extension's);
    refused when graphanon cannot write it. Commands call it before their work."""
    fmt = format or detect_format(path)
    if fmt not in GRAPH_FORMATS or fmt == "mat":
        raise InvalidParameterError(
            f"cannot write {str(path)!r} as {fmt!r}: graphs are written as one of "
            f"{', '.join(f for f in GRAPH_FORMATS if f != 'mat')}."
        )
    return fmt


class _RowSkipper:
    """pyarrow's ``invalid_row_handler`` for ``--skip-bad-rows``: skip the row, count it."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, row: Any) -> str:
        self.count += 1
        return "skip"


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

        from ..errors import CommentLikeIdWarning

        many = "ids start" if hi - lo > 1 else "id starts"
        warnings.warn(
            f"{str(path)!r}: {hi - lo} {many} with '%' (first {ids[lo]!r}). Only '#' starts "
            "a comment in an edge or user-feature list, so a '%' line (a KONECT or Matrix "
            "Market header) is read as data; turn such lines into '#' lines.",
            CommentLikeIdWarning, stacklevel=3)


def _notes(pairs: Pairs) -> dict[str, int]:
    notes = {"rows_skipped": pairs.rows_skipped}
    if not pairs.codes[0].size and not pairs.rows_skipped:
        notes["no_data_lines"] = 1  # read as the empty graph (see scan_pairs)
    if pairs.ignored_columns:
        notes["ignored_columns"] = pairs.ignored_columns
    return notes


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
        pairs = _scan(p, _read_array(p, "edgelist"), bipartite=False,
                      skip_bad_rows=skip_bad_rows)
        ids = _frozen_ids(pairs.ids[0])
        _warn_comment_like_ids(p, ids)
        G = Graph._from_codes(*pairs.codes, ids.size, ids)
        G._note_input(**_notes(pairs))
        return G
    if fmt in ("csv", "tsv"):
        raw = _read_bytes(p, fmt)
        sep = delimiter or ("," if fmt == "csv" else "\t")
        table = _read_delimited(p, raw, sep, (source, target), skip_bad_rows)
        return _graph_from_table(p, table, source, target, text=(raw, sep),
                                 skip_bad_rows=skip_bad_rows)
    if skip_bad_rows and fmt in ("parquet", "graphml", "gml", "mat"):
        raise InvalidParameterError(
            f"skip_bad_rows (--skip-bad-rows) does not apply to {str(p)!r}: a {fmt} file has "
            "no rows to skip (it is read whole, or refused).")
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(p)
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise InputFormatError(f"{str(p)!r} is not a readable Parquet file: {exc}",
                                   path=str(p)) from exc
        with _naming_file(p):
            return _graph_from_table(p, table, source, target)
    if fmt in ("graphml", "gml"):
        with _naming_file(p):
            return _read_igraph(p, fmt, id_attribute)
    if fmt == "mtx":
        return _read_mtx(p, skip_bad_rows)
    if fmt == "mat":
        return _read_mat(p)
    raise InvalidParameterError(
        f"The 'format' parameter of read_graph must be one of {', '.join(GRAPH_FORMATS)}. "
        f"Got {fmt!r} instead."
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


def _check_read_memory(path: Path, fmt: str) -> None:
    """Refuse, before parsing, a binary graph file too large for the available memory
    (:func:`._input.check_input_size`); text formats are bounded while they are read, pipes
    and gzip included (:func:`._input._read_bytes`), by the same estimate."""
    if fmt in ("parquet", "graphml", "gml", "mat"):
        check_input_size(path, fmt)


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


def _read_igraph(path: Path, fmt: str, id_attribute: str | None) -> Graph:
    from .._igraph import load

    igraph = load()

    reader = igraph.Graph.Read_GraphML if fmt == "graphml" else igraph.Graph.Read_GML
    if fmt == "graphml":
        _refuse_doctype(path)
    try:
        g = reader(str(path))
    except Exception as exc:  # igraph raises InternalError / SystemError on bad files
        raise InputFormatError(f"{str(path)!r} is not a valid {fmt.upper()} file: {exc}",
                               path=str(path)) from exc
    if fmt == "graphml":
        _check_graphml_shape(path, g.vcount())
    if g.is_directed():  # each arc an edge: a->b and b->a, or a repeated arc, a duplicate
        g.to_undirected(mode="each")
    attrs = g.vs.attributes()
    key = id_attribute or next((a for a in ("name", "id") if a in attrs), None)
    if id_attribute and id_attribute not in attrs:
        raise InvalidParameterError(
            f"{str(path)!r} has no node attribute {id_attribute!r}; it has {attrs}."
        )
    if key == "name" and "id" in attrs:
        del g.vs["id"]  # the format's structural node id, not data
    if key is not None:
        g.vs[key] = [trim_id_blanks(x) if isinstance(x, str) else x for x in g.vs[key]]
    return Graph.from_igraph(g, id_attribute=key)


def _refuse_doctype(path: Path) -> None:
    """Refuse a GraphML file with a ``<!DOCTYPE`` declaration before igraph reads it: its
    entities (``&lol;`` ten times over, or an external file) are no part of GraphML, and
    igraph's XML parser would expand or warn about them line by line. An XML parser reads
    up to the root element only."""
    import xml.parsers.expat as expat

    class _Root(Exception):
        pass

    def doctype(*_: Any) -> None:
        raise InputFormatError(
            f"{str(path)!r} holds a <!DOCTYPE> declaration (DTD entities or external "
            "references), which GraphML does not use: remove it.", path=str(path))

    def root(*_: Any) -> None:
        raise _Root

    parser = expat.ParserCreate()
    parser.StartDoctypeDeclHandler = doctype
    parser.StartElementHandler = root
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(1 << 16):
                parser.Parse(chunk, False)
    except InputFormatError:
        raise
    except (_Root, expat.ExpatError, ValueError, LookupError):
        return  # the root came first; or no XML expat reads: igraph's read says so


def _check_graphml_shape(path: Path, vcount: int) -> None:
    """igraph reads the first ``<graph>`` of a GraphML file, makes a node of every edge end
    it has not seen declared, and drops ``<hyperedge>`` elements: refuse all three instead of
    dropping a graph or edges or inventing nodes silently. An XML parser counts the
    ``<graph>`` and ``<hyperedge>`` elements and the distinct ids of the ``<node>`` elements
    directly inside a graph (comments, CDATA, entities and the encoding are the parser's
    business), streaming, one element at a time."""
    import io as _io
    import xml.etree.ElementTree as ET

    def count(source: Any) -> tuple[int, int, int]:
        graphs = hyperedges = 0
        ids: set[str | None] = set()
        stack: list[str] = []
        for event, elem in ET.iterparse(source, events=("start", "end")):
            tag = elem.tag.rpartition("}")[2] if isinstance(elem.tag, str) else ""
            if event == "start":
                if tag == "graph":
                    graphs += 1
                elif tag == "hyperedge":
                    hyperedges += 1
                elif tag == "node" and stack and stack[-1] == "graph":
                    ids.add(elem.get("id"))
                stack.append(tag)
            else:
                stack.pop()
                elem.clear()
        return graphs, len(ids), hyperedges

    try:
        try:
            graphs, nodes, hyperedges = count(path)
        except (ValueError, LookupError):  # an encoding expat cannot read (Shift_JIS, GBK)
            raw = path.read_bytes()
            head = re.match(rb"<\?xml[^>]*encoding=[\"']([A-Za-z0-9._-]+)[\"']", raw)
            if head is None:
                raise
            text = raw.decode(head.group(1).decode("ascii"))
            text = text.replace(head.group(1).decode("ascii"), "UTF-8", 1)
            graphs, nodes, hyperedges = count(_io.BytesIO(text.encode("utf-8")))
    except (ET.ParseError, ValueError, LookupError, UnicodeDecodeError) as exc:
        raise InputFormatError(f"{str(path)!r} is not a valid GRAPHML file: {exc}",
                               path=str(path)) from None
    if graphs > 1:
        raise InputFormatError(
            f"{str(path)!r} holds {graphs} <graph> elements; graphanon reads one graph per "
            "file (split the file).", path=str(path))
    if hyperedges:
        raise InputFormatError(
            f"{str(path)!r} holds {hyperedges} <hyperedge> element(s), which a graph cannot "
            "hold (igraph would drop them); replace each by the edges it stands for.",
            path=str(path))
    if vcount > nodes:
        raise InputFormatError(
            f"{str(path)!r}: {vcount - nodes} edge end(s) name a node that no <node> "
            "element declares; declare every node.", path=str(path))


def _read_mtx(path: Path, skip_bad_rows: bool = False) -> Graph:
    raw = _read_bytes(path, "mtx")
    raw = raw[3:] if raw[:3] == b"\xef\xbb\xbf" else raw  # a byte order mark
    if raw.lstrip().startswith(b"%%MatrixMarket"):
        if skip_bad_rows:
            raise InvalidParameterError(
                f"skip_bad_rows (--skip-bad-rows) does not apply to {str(path)!r}: a Matrix "
                "Market file with a banner is read whole by scipy, which skips nothing.")
        import scipy.io

        try:
            A = scipy.io.mmread(io.BytesIO(raw))
            n = A.shape[0]
            return Graph.from_scipy(A, node_ids=np.arange(1, n + 1, dtype=np.int64))
        except MemoryError:
            raise
        except Exception as exc:  # scipy's errors, and a matrix that is not square
            raise InputFormatError(f"{str(path)!r} is not a valid Matrix Market file: {exc}",
                                   path=str(path)) from exc
    # NetworkRepository variant: a header line "n m" (or "n n m"), then 1-indexed edges;
    # lines starting with "%" are comments (Matrix Market's), read as the scanner's "#" ones
    if b"%" in raw:
        raw = re.sub(rb"(?m)^([ \t]*)%", rb"\1#", raw)
    head = re.match(rb"(?:[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n))*([^\r\n]*)(?:\r\n|\r|\n|\Z)",
                    raw)
    assert head is not None  # the pattern matches any text
    before = len(re.findall(rb"\r\n|\r|\n", raw[:head.start(1)]))  # lines above the header
    fields = head.group(1).split()
    if len(fields) not in (2, 3) or not all(re.fullmatch(rb"[0-9]{1,18}", f) for f in fields):
        raise InputFormatError(
            f"{str(path)!r} line {before + 1}: expected a Matrix Market banner or an 'n m' "
            f"header (non-negative integers), got {head.group(1)[:80]!r}",
            path=str(path),
            line=before + 1,
        )
    n, m = int(fields[0]), int(fields[-1])
    require_memory(32 * n, what=f"reading {str(path)!r}",
                   parameter=f"the node count of its header ({n:,})")
    if m == 0 and not re.search(rb"(?m)^[ \t]*[^#\s]", raw[head.end():]):  # no data line
        return Graph.from_edges([], [], n_nodes=n, node_ids=np.arange(1, n + 1, dtype=np.int64))
    body, zeros = _drop_zero_entries(raw[head.end():], n)
    if zeros:
        raw = raw[:head.end()] + body
    pairs = _scan(path, raw, bipartite=False, skip_bad_rows=skip_bad_rows, start=head.end(),
                  first_line=before + 2)
    held = pairs.codes[0].size + pairs.rows_skipped + zeros
    if held != m:
        raise InputFormatError(
            f"{str(path)!r}: the header announces {m:,} edges, the file holds {held:,} "
            "(truncated?).", path=str(path))
    ids = pairs.ids[0]

    def bad_row(row: int, what: str) -> InputFormatError:
        line, text = row_line(raw, head.end(), row, skip_bad_rows=skip_bad_rows)
        line += before + 1
        return InputFormatError(f"{str(path)!r} line {line}: {what}: {text[:120]!r}",
                                path=str(path), line=line)

    if ids.dtype == object:
        text_id = int(np.flatnonzero([not _canonical_int(x.encode()) for x in ids])[0])
        row = int(np.flatnonzero((pairs.codes[0] == text_id) | (pairs.codes[1] == text_id))[0])
        raise bad_row(row, "Matrix Market indices must be integers")
    u = ids[pairs.codes[0]] - 1
    v = ids[pairs.codes[1]] - 1
    out = (u < 0) | (u >= n) | (v < 0) | (v >= n)
    if out.any():
        raise bad_row(int(np.argmax(out)), f"edge endpoints must lie in 1..{n} as the header says")
    G = Graph._from_codes(u, v, n, np.arange(1, n + 1, dtype=np.int64))
    G._note_input(**_notes(pairs), **({"zero_entries_dropped": zeros} if zeros else {}))
    return G


#: The first data line of the body (its field count is the file's).
_FIRST_DATA = re.compile(rb"(?:(?<=[\r\n])|\A)[ \t]*([^#\s][^\r\n]*)")

#: An entry line "i j v" of a header-only Matrix Market file.
_ENTRY = re.compile(rb"[ \t]*([0-9]+)[ \t]+([0-9]+)[ \t]+(\S+)[ \t]*")


def _byte_table(chars: bytes) -> Any:
    table = np.zeros(256, dtype=bool)
    table[list(chars)] = True
    return table


_BLANK, _ZEROISH, _EXP = (_byte_table(b" \t\r\n"), _byte_table(b"0.+-"),
                          _byte_table(b"eE"))
_DIGIT = _byte_table(b"0123456789")


def _drop_zero_entries(body: bytes | bytearray, n: int) -> tuple[bytes | bytearray, int]:
    """``body`` with its zero-valued entries commented out, and their count.

    An entry whose value reads as zero is no edge, as with a banner (scipy reads it and
    :meth:`Graph.from_scipy` drops it), and the header's ``m`` counts it. Only in a file
    of three fields, and only an entry whose endpoints lie in ``1..n``: any other line is
    left for the scanner, which reports it.

    Linear and vectorized: the candidates are the tokens whose mantissa is made only of
    ``0 . + -`` (``0``, ``-0.0``, ``0e5``) and the numbers with an exponent of ``-100`` or
    less (``1e-400`` reads as 0.0); only their lines are parsed."""
    first = _FIRST_DATA.search(body)
    if first is None or len(first.group(1).split()) != 3:
        return body, 0
    b = np.frombuffer(body, dtype=np.uint8)
    size = b.size
    z = _ZEROISH[b]
    step = np.diff(z.view(np.int8))
    starts = np.flatnonzero(step == 1) + 1  # the runs of 0 . + - characters
    stops = np.flatnonzero(step == -1) + 1
    if z[0]:
        starts = np.concatenate([[0], starts])
    if z[-1]:
        stops = np.concatenate([stops, [size]])
    before = (starts == 0) | _BLANK[b[np.maximum(starts - 1, 0)]]
    after = b[np.minimum(stops, size - 1)]
    mantissas = starts[before & ((stops == size) | _BLANK[after] | _EXP[after])]
    exps = np.flatnonzero(_EXP[b])  # (rare: checked where they are)
    exps = exps[exps + 4 < size]
    tiny = exps[(b[exps + 1] == ord("-")) & _DIGIT[b[exps + 2]] & _DIGIT[b[exps + 3]]
                & _DIGIT[b[exps + 4]]]
    cands = np.union1d(mantissas, tiny)
    if not cands.size:
        return body, 0
    eol = np.flatnonzero((b == 10) | (b == 13))
    line_of = np.unique(np.searchsorted(eol, cands))  # the line holding each candidate
    out, last, zeros = [], 0, 0
    for k in line_of.tolist():
        lo = int(eol[k - 1]) + 1 if k else 0
        hi = int(eol[k]) if k < eol.size else len(body)
        m = _ENTRY.fullmatch(body, lo, hi)
        if m is None or not 1 <= int(m.group(1)) <= n or not 1 <= int(m.group(2)) <= n:
            continue
        try:
            if float(m.group(3)) != 0.0:
                continue
        except ValueError:
            continue
        out += [body[last:lo], b"#"]
        last = hi
        zeros += 1
    return (b"".join([*out, body[last:]]) if zeros else body), zeros



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

    Text: tab separated when the file contains tabs (ids may then contain spaces, not at
    their ends: :func:`graphanon._ids.trim_id_blanks`), else
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
        return BipartiteGraph.from_pairs(trim_id_blanks(table.column("user")),
                                         trim_id_blanks(table.column("feature")))
    pairs = _scan(p, _read_array(p, "bipartite"), bipartite=True,
                  skip_bad_rows=skip_bad_rows)
    users, features = (_frozen_ids(i) for i in pairs.ids)
    for ids in (users, features):
        _warn_comment_like_ids(p, ids)
    B = BipartiteGraph._from_codes(*pairs.codes, users.size, features.size, users, features)
    B._note_input(**_notes(pairs))
    return B


# ---------------------------------------------------------------------- writers
#: Characters an id may not contain in each text format, and why.
_TEXT_RULES = {
    "edgelist": (r"[ \t\r\n]", "whitespace separates the two ids of an edge list line"),
    "tsv-raw": (r"[\t\r\n]", "tabs and newlines separate fields and lines"),
    # XML 1.0 has no control characters but tab and newline, and reads a carriage return as
    # a newline
    "graphml": (r"[\x00-\x08\x0b\x0c\x0e-\x1f\r\x{fffe}\x{ffff}]",
                "XML holds no control characters and reads a carriage return as a newline"),
    "gml": (r"\x00", "igraph's GML reader ends a string at a NUL character"),
}
#: igraph's GraphML and GML writers print a number with 15 significant digits: larger
#: integer ids would read back as other numbers.
_IGRAPH_EXACT = 10**15
#: Rules under which an id starting with '#' would read back as a comment line.
_COMMENT_RULES = frozenset({"edgelist", "tsv-raw"})


def _check_writable_ids(ids: np.ndarray[Any, Any], what: str, rule: str, fmt: str) -> Any:
    """The ids as text, if ``fmt`` can hold every one of them so that it reads back equal."""
    import pyarrow.compute as pc

    text = _arrow_text(ids)
    if ids.dtype != object:  # canonical integers: always writable
        return text
    pattern, why = _TEXT_RULES[rule]
    bad = pc.match_substring_regex(text, pattern)
    if rule in _COMMENT_RULES:
        bad = pc.or_(bad, pc.match_substring_regex(text, r"^[ \t]*#"))
    if pc.any(bad).as_py():
        x = text[int(pc.index(bad, True).as_py())].as_py()
        comment = rule in _COMMENT_RULES and x.lstrip(" \t").startswith("#")
        reason = "'#' starts a comment line" if comment else why
        instead = ".parquet or .csv" if rule in ("graphml", "gml") else ".parquet or .graphml"
        article = "an" if fmt[:1].lower() in "aeiou" else "a"
        raise InvalidParameterError(
            f"the {what} id {x!r} cannot be written to {article} {fmt} file ({reason}); "
            f"write {instead} instead, which hold any id.")
    return text


_FORMAT_NAMES = {"edgelist": "an edge list", "csv": "a CSV file", "tsv": "a TSV file",
                 "parquet": "a Parquet file", "graphml": "a GraphML file", "gml": "a GML file",
                 "mtx": "a Matrix Market file", "bipartite": "a user-feature file"}


def _refuse_blank_ends(ids: np.ndarray[Any, Any], what: str, fmt: str) -> None:
    """Every reader drops the spaces and tabs around an id (:func:`trim_id_blanks`), so an id
    that starts or ends with one (possible only through the library) would read back as
    another: refused for every format."""
    if ids.dtype != object or not ids.size:
        return
    import pyarrow.compute as pc

    text = _arrow_text(ids)
    bad = pc.match_substring_regex(text, f"^[{ID_BLANKS}]|[{ID_BLANKS}]$")
    if pc.any(bad).as_py():
        x = text[int(pc.index(bad, True).as_py())].as_py()
        raise InvalidParameterError(
            f"the {what} id {x!r} cannot be written to {_FORMAT_NAMES.get(fmt, fmt)}: every "
            "reader drops the "
            f"spaces and tabs around an id, so it would read back as {trim_id_blanks(x)!r}; "
            "strip the ids first.")


def _check_igraph_ids(ids: np.ndarray[Any, Any], fmt: str) -> None:
    """Refuse, before writing, an id that a GraphML or GML file would not give back exactly:
    an integer of 16 digits or more (printed with 15), a text id with a character the
    format cannot hold."""
    name = "GraphML" if fmt == "graphml" else "GML"
    if ids.dtype == object:
        _check_writable_ids(ids, "node", fmt, name)
        return
    big = np.flatnonzero((ids <= -_IGRAPH_EXACT) | (ids >= _IGRAPH_EXACT))
    if big.size:
        raise InvalidParameterError(
            f"the node id {ids[big[0]].item()} cannot be written exactly to a {name} file "
            "(igraph writes numbers with 15 significant digits: it would read back as "
            f"another number); write .parquet or an edge list instead, which hold any id.")


def _check_positional_ids(ids: np.ndarray[Any, Any]) -> None:
    """A Matrix Market file holds positions, not ids: it reads back as nodes ``1..n``.
    Ids ``1..n`` are written as they are; ids ``0..n-1`` (a generated graph's, or a 0-based
    data set's) as positions shifted by one, with a warning; any other ids are refused
    rather than renumbered silently."""
    import warnings

    n = ids.size
    if ids.dtype != object and np.array_equal(ids, np.arange(1, n + 1)):
        return
    if ids.dtype != object and n and np.array_equal(ids, np.arange(n)):
        warnings.warn(
            "a Matrix Market (.mtx) file is 1-based: nodes 0..n-1 are written as positions "
            "1..n and read back as 1..n (write .graphml, .parquet or an edge list to keep "
            "the ids).", stacklevel=3)
        return
    first = next((i for i in range(n) if ids.dtype == object or ids[i] != i + 1), 0)
    raise InvalidParameterError(
        f"a Matrix Market (.mtx) file holds node positions 1..n, not ids: node "
        f"{ids[first].item() if ids.dtype != object else ids[first]!r} would read back "
        f"as {first + 1}. Write .graphml, .gml, .parquet or an edge list, which keep the "
        "ids (only a graph whose ids are 1..n, or 0..n-1 shifted by one, can be written as "
        ".mtx).")


#: Edge lists of integer ids up to this many edges are formatted in Python (at most ~20 ms)
#: rather than in Arrow, whose ``pyarrow.compute`` costs about 50 ms to import.
_SMALL_INT_EDGELIST = 1 << 16


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


def _write_csv(tmp: Path, a: Any, b: Any, delimiter: str, names: Sequence[str]) -> None:
    """A delimited file with a header; fields quoted where needed (the reader unquotes)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    table = pa.table({names[0]: a, names[1]: b})
    pacsv.write_csv(table, tmp, pacsv.WriteOptions(include_header=True, delimiter=delimiter,
                                                   quoting_style="needed"))


#: Output formats that list edges only: a node without edges cannot be written to them.
EDGE_ONLY_FORMATS = frozenset({"edgelist", "csv", "tsv"})


def nodes_not_written(G: Graph, path: str | os.PathLike[str], format: str | None = None) -> int:
    """How many nodes of ``G`` a file ``path`` in ``format`` cannot hold: its isolated nodes,
    in an edge-only format (:data:`EDGE_ONLY_FORMATS`), which reads back without them."""
    if graph_output_format(Path(path), format) not in EDGE_ONLY_FORMATS:
        return 0
    return int(np.count_nonzero(G.degrees == 0))


def _igraph_write(write: Any, tmp: Path) -> None:
    """``write(tmp)`` with igraph's writer, whose C code reports a failed write (a full disk)
    as ``InternalError: ... Write failed``, with no errno: raised as the ``OSError`` every
    other writer raises (``ENOSPC`` when the file system is full), which
    :func:`~graphanon.io._atomic.atomic_path` turns into its one-line error."""
    try:
        write(str(tmp))
    except Exception as exc:
        try:
            full = os.statvfs(tmp.parent).f_bavail == 0
        except OSError:
            full = False
        if full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp)) from None
        message = str(exc).split(" -- ")[0].rpartition(": ")[2] or type(exc).__name__
        raise OSError(errno.EIO, f"igraph could not write it ({message})", str(tmp)) from None


def write_graph(G: Graph, path: str | os.PathLike[str], *, format: str | None = None) -> Path:
    """Write ``G`` atomically in ``format`` (detected from the extension if omitted).

    ``edgelist`` / ``csv`` / ``tsv`` cannot represent isolated nodes or attributes; use
    ``parquet`` (isolated nodes), ``graphml`` or ``gml`` (both) when they matter.
    """
    check_type(G, Graph, "G", "write_graph", "a Graph (write_bipartite writes a BipartiteGraph)")
    check_path_arg(path, "path", "write_graph")
    target = Path(path)
    fmt = graph_output_format(target, format)
    ids = G.node_ids
    _refuse_blank_ends(ids, "node", fmt)
    u, v = G.edges()
    text: Any = None
    small_int = fmt == "edgelist" and ids.dtype != object and u.size <= _SMALL_INT_EDGELIST
    if fmt == "edgelist" and not small_int:
        text = _check_writable_ids(ids, "node", "edgelist", "edge list")
    elif fmt in ("csv", "tsv"):
        text = _arrow_text(ids)
    with atomic_path(target) as tmp:
        if fmt == "edgelist":
            header = (
                f"# graphanon edge list (undirected)\n# Nodes: {G.n_nodes} Edges: {G.n_edges}\n"
            )
            if small_int:  # the same bytes as Arrow's
                with tmp.open("wb") as fh:
                    fh.write(header.encode("utf-8"))
                    fh.write("".join(map("{}\t{}\n".format, ids[u].tolist(),
                                         ids[v].tolist())).encode("ascii"))
            else:
                _write_lines(tmp, text.take(from_numpy(u)), text.take(from_numpy(v)), header)
        elif fmt in ("csv", "tsv"):
            _write_csv(tmp, text.take(from_numpy(u)), text.take(from_numpy(v)),
                       "," if fmt == "csv" else "\t", ("source", "target"))
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
            _check_igraph_ids(ids, fmt)
            g = G.to_igraph()
            if fmt == "gml":
                # GML needs numeric ids; keep the external id in 'name'
                g.vs["id"] = list(range(G.n_nodes))
            _igraph_write(g.write_gml if fmt == "gml" else g.write_graphml, tmp)
        elif fmt == "mtx":
            _check_positional_ids(ids)
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

    Users without features are not listed, and the header counts only the users and features
    the lines hold: an anonymized graph keeps its input's id spaces, and counting those would
    publish how many users' rows and which number of features were suppressed entirely.
    """
    r, c = B.edges()
    for ids, what in ((B.user_ids, "user"), (B.feature_ids, "feature")):
        _refuse_blank_ends(ids, what, "bipartite")
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
            f"# Users: {np.count_nonzero(np.bincount(r, minlength=1))} "
            f"Features: {np.count_nonzero(np.bincount(c, minlength=1))} Edges: {B.n_edges}\n"
        )
        _write_lines(tmp, users.take(from_numpy(r)), features.take(from_numpy(c)), header)
    return Path(path)
