"""graphanon.io.formats.parquet: graphs and bipartite graphs as Parquet columns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphanon import BipartiteGraph, InputFormatError
from graphanon.io import read_bipartite, read_graph, write_bipartite


def test_bipartite_parquet_round_trip(tmp_path: Path) -> None:
    B = BipartiteGraph.from_pairs(np.array(["u1", "u2", "u2"]), np.array(["a", "a", "b"]))
    write_bipartite(B, tmp_path / "b.parquet")
    assert read_bipartite(tmp_path / "b.parquet") == B


def test_parquet_reads_dictionary_encoded_id_columns(tmp_path: Path) -> None:
    """pandas writes a categorical column dictionary-encoded: its ids are the dictionary's
    values, text or integers (a null target is an isolated node, as in a plain column)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = tmp_path / "d.parquet"
    pq.write_table(pa.table({"source": pa.array(["a", "b", "c"]).dictionary_encode(),
                             "target": pa.array(["b", "c", "a"]).dictionary_encode()}), p)
    G = read_graph(p)
    assert G.node_ids.tolist() == ["a", "b", "c"] and G.n_edges == 3
    pq.write_table(pa.table({"source": pa.array([7, 8, 9]).dictionary_encode(),
                             "target": pa.array([8, None, 7]).dictionary_encode()}), p)
    G = read_graph(p)
    assert G.node_ids.tolist() == [7, 8, 9] and G.n_edges == 2
    pq.write_table(pa.table({"source": pa.array([1.5]).dictionary_encode(),
                             "target": pa.array([2.0]).dictionary_encode()}), p)
    with pytest.raises(InputFormatError, match="integers or strings, got double"):
        read_graph(p)
