"""File adapters: the embedded default source and sink of graphanon.

This module dispatches on the format; each format is read and written by its own module of
:mod:`graphanon.io.formats` (``edgelist``, ``delimited``, ``parquet``, ``graphml`` (GraphML and
GML), ``mtx``, ``mat``, ``bipartite``), as networkx's ``readwrite/`` does.

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

import os
from pathlib import Path

import numpy as np

from .._validation import check_path_arg, check_type
from ..errors import InvalidParameterError
from ..graph import BipartiteGraph, Graph
from ._atomic import atomic_path
from ._input import _check_exists, check_input_size
from .formats._table import _naming_file
from .formats._writable import _refuse_blank_ends
from .formats.bipartite import read_bipartite_list, write_bipartite_list
from .formats.delimited import delimited_writer, read_delimited_graph
from .formats.edgelist import edgelist_writer, read_edgelist
from .formats.graphml import igraph_writer, read_igraph
from .formats.mat import FACEBOOK100_ATTRIBUTES as FACEBOOK100_ATTRIBUTES
from .formats.mat import read_mat
from .formats.mtx import mtx_writer, read_mtx
from .formats.parquet import (
    parquet_writer,
    read_parquet_bipartite,
    read_parquet_graph,
    write_parquet_bipartite,
)

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
        return read_edgelist(p, skip_bad_rows)
    if fmt in ("csv", "tsv"):
        return read_delimited_graph(p, fmt, source, target, delimiter, skip_bad_rows)
    if skip_bad_rows and fmt in ("parquet", "graphml", "gml", "mat"):
        raise InvalidParameterError(
            f"skip_bad_rows (--skip-bad-rows) does not apply to {str(p)!r}: a {fmt} file has "
            "no rows to skip (it is read whole, or refused).")
    if fmt == "parquet":
        return read_parquet_graph(p, source, target)
    if fmt in ("graphml", "gml"):
        with _naming_file(p):
            return read_igraph(p, fmt, id_attribute)
    if fmt == "mtx":
        return read_mtx(p, skip_bad_rows)
    if fmt == "mat":
        return read_mat(p)
    raise InvalidParameterError(
        f"The 'format' parameter of read_graph must be one of {', '.join(GRAPH_FORMATS)}. "
        f"Got {fmt!r} instead."
    )


def _check_read_memory(path: Path, fmt: str) -> None:
    """Refuse, before parsing, a binary graph file too large for the available memory
    (:func:`._input.check_input_size`); text formats are bounded while they are read, pipes
    and gzip included (:func:`._input._read_bytes`), by the same estimate."""
    if fmt in ("parquet", "graphml", "gml", "mat"):
        check_input_size(path, fmt)


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
        return read_parquet_bipartite(p)
    return read_bipartite_list(p, skip_bad_rows)


# ---------------------------------------------------------------------- writers
#: Output formats that list edges only: a node without edges cannot be written to them.
EDGE_ONLY_FORMATS = frozenset({"edgelist", "csv", "tsv"})


def nodes_not_written(G: Graph, path: str | os.PathLike[str], format: str | None = None) -> int:
    """How many nodes of ``G`` a file ``path`` in ``format`` cannot hold: its isolated nodes,
    in an edge-only format (:data:`EDGE_ONLY_FORMATS`), which reads back without them."""
    if graph_output_format(Path(path), format) not in EDGE_ONLY_FORMATS:
        return 0
    return int(np.count_nonzero(G.degrees == 0))


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
    if fmt == "edgelist":
        write = edgelist_writer(G, u, v)
    elif fmt in ("csv", "tsv"):
        write = delimited_writer(G, u, v, fmt)
    elif fmt == "parquet":
        write = parquet_writer(G, u, v)
    elif fmt in ("graphml", "gml"):
        write = igraph_writer(G, fmt)
    else:  # "mtx" (graph_output_format refused every other format)
        write = mtx_writer(G, u, v)
    with atomic_path(target) as tmp:
        write(tmp)
    return target


def write_bipartite(B: BipartiteGraph, path: str | os.PathLike[str]) -> Path:
    """Write ``user<TAB>feature`` lines (or Parquet for a ``.parquet`` path) atomically.

    Users without features are not listed, and the header counts only the users and features
    the lines hold: an anonymized graph keeps its input's id spaces, and counting those would
    publish how many users' rows and which number of features were suppressed entirely.
    """
    for ids, what in ((B.user_ids, "user"), (B.feature_ids, "feature")):
        _refuse_blank_ends(ids, what, "bipartite")
    if Path(path).suffix.lower() in (".parquet", ".pq"):
        return write_parquet_bipartite(B, path)
    return write_bipartite_list(B, path)
