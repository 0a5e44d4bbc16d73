"""SNAP-style edge lists: whitespace separated ``u v [...]`` lines, ``#`` comments, ``.gz`` ok."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..._arrow import from_numpy
from ...graph import Graph
from .._input import (
    _read_array,
)
from ._lines import _frozen_ids, _notes, _scan, _warn_comment_like_ids, _write_lines
from ._writable import _check_writable_ids

#: Edge lists of integer ids up to this many edges are formatted in Python (at most ~20 ms)
#: rather than in Arrow, whose ``pyarrow.compute`` costs about 50 ms to import.
_SMALL_INT_EDGELIST = 1 << 16


def read_edgelist(path: Path, skip_bad_rows: bool = False) -> Graph:
    """The graph of an edge list (one id space; the first two fields of each line)."""
    pairs = _scan(path, _read_array(path, "edgelist"), bipartite=False,
                  skip_bad_rows=skip_bad_rows)
    ids = _frozen_ids(pairs.ids[0])
    _warn_comment_like_ids(path, ids)
    G = Graph._from_codes(*pairs.codes, ids.size, ids)
    G._note_input(**_notes(pairs))
    return G


def edgelist_writer(G: Graph, u: Any, v: Any) -> Callable[[Path], None]:
    """The writer of ``G``'s edges ``(u, v)`` as an edge list, its ids checked now."""
    ids = G.node_ids
    small_int = ids.dtype != object and u.size <= _SMALL_INT_EDGELIST
    text: Any = None if small_int else _check_writable_ids(ids, "node", "edgelist", "edge list")

    def write(tmp: Path) -> None:
        header = f"# graphanon edge list (undirected)\n# Nodes: {G.n_nodes} Edges: {G.n_edges}\n"
        if small_int:  # the same bytes as Arrow's
            with tmp.open("wb") as fh:
                fh.write(header.encode("utf-8"))
                fh.write("".join(map("{}\t{}\n".format, ids[u].tolist(),
                                     ids[v].tolist())).encode("ascii"))
        else:
            _write_lines(tmp, text.take(from_numpy(u)), text.take(from_numpy(v)), header)

    return write
