"""GraphML and GML, both read and written through igraph (node attributes kept). Ids either
format cannot give back exactly are refused before writing."""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..._ids import trim_id_blanks
from ...errors import InputFormatError, InvalidParameterError
from ...graph import Graph
from ._writable import _check_writable_ids

#: igraph's GraphML and GML writers print a number with 15 significant digits: larger
#: integer ids would read back as other numbers.
_IGRAPH_EXACT = 10**15


def read_igraph(path: Path, fmt: str, id_attribute: str | None) -> Graph:
    from ..._igraph import load

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


def igraph_writer(G: Graph, fmt: str) -> Callable[[Path], None]:
    """The writer of ``G`` as GraphML or GML (``fmt``), its ids checked when it writes."""

    def write(tmp: Path) -> None:
        _check_igraph_ids(G.node_ids, fmt)
        g = G.to_igraph()
        if fmt == "gml":
            # GML needs numeric ids; keep the external id in 'name'
            g.vs["id"] = list(range(G.n_nodes))
        _igraph_write(g.write_gml if fmt == "gml" else g.write_graphml, tmp)

    return write
