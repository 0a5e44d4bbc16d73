"""Parquet: a graph as ``source`` / ``target`` columns (a null target is an isolated node), a
bipartite graph as ``user`` / ``feature`` columns."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..._ids import trim_id_blanks
from ...errors import InputFormatError
from ...graph import BipartiteGraph, Graph
from .._atomic import atomic_path
from ._table import _graph_from_table, _naming_file


def _read_table(path: Path) -> Any:
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise InputFormatError(f"{str(path)!r} is not a readable Parquet file: {exc}",
                               path=str(path)) from exc


def read_parquet_graph(path: Path, source: str, target: str) -> Graph:
    """The graph of a Parquet file's ``source`` / ``target`` columns."""
    table = _read_table(path)
    with _naming_file(path):
        return _graph_from_table(path, table, source, target)


def parquet_writer(G: Graph, u: Any, v: Any) -> Callable[[Path], None]:
    """The writer of ``G`` as Parquet: its edges, then a row with a null target per isolated
    node."""

    def write(tmp: Path) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        ids = G.node_ids
        isolated = np.flatnonzero(G.degrees == 0)
        src = np.concatenate([ids[u], ids[isolated]])
        dst = pa.array(
            np.concatenate([ids[v], ids[isolated]]).tolist()
            if ids.dtype == object
            else np.concatenate([ids[v], ids[isolated]]),
            mask=np.concatenate([np.zeros(u.size, bool), np.ones(isolated.size, bool)]),
        )
        pq.write_table(pa.table({"source": src, "target": dst}), tmp)

    return write


def read_parquet_bipartite(path: Path) -> BipartiteGraph:
    """The bipartite graph of a Parquet file's ``user`` / ``feature`` columns."""
    table = _read_table(path)
    for col in ("user", "feature"):
        if col not in table.column_names:
            raise InputFormatError(
                f"{str(path)!r} has no column {col!r}; columns are {table.column_names}.",
                path=str(path),
            )
    return BipartiteGraph.from_pairs(trim_id_blanks(table.column("user")),
                                     trim_id_blanks(table.column("feature")))


def write_parquet_bipartite(B: BipartiteGraph, path: str | os.PathLike[str]) -> Path:
    """Write ``B``'s cells as ``user`` / ``feature`` columns atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    r, c = B.edges()
    with atomic_path(path) as tmp:
        pq.write_table(pa.table({"user": B.user_ids[r], "feature": B.feature_ids[c]}), tmp)
    return Path(path)
