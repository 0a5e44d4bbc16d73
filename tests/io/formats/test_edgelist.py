"""graphanon.io.formats.edgelist: SNAP edge lists read and written."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon import Graph, InputFormatError
from graphanon.io import read_graph, write_graph


def test_snap_edgelist_with_comments_mixed_whitespace_and_loops(tmp_path: Path) -> None:
    p = tmp_path / "g.txt"
    p.write_text("# Directed graph\n# FromNodeId\tToNodeId\n3 4\n4\t3\n  5\t\t6  \n\n7 7\n6 5\n")
    G = read_graph(p)
    assert G.node_ids.tolist() == [3, 4, 5, 6, 7]
    assert G.n_edges == 2  # 3-4 and 5-6; duplicate and reversed edges merged
    assert G.degrees.tolist() == [1, 1, 1, 1, 0]  # node 7 only had a self-loop


def test_gzip_and_string_ids(tmp_path: Path) -> None:
    p = tmp_path / "g.edges.gz"
    with gzip.open(p, "wt") as fh:
        fh.write("alice bob\nbob carol\n")
    G = read_graph(p)
    assert G.node_ids.tolist() == ["alice", "bob", "carol"]
    assert G.n_edges == 2


@pytest.mark.parametrize(
    ("content", "line", "snippet"),
    [
        ("1 2\n3\n4 5\n", 2, "'3'"),
        ("# c\n1 2\n1 2 3\n", 3, "1 2 3"),
        ("1 2\n\xff\xfe 3\n", 2, "UTF-8"),
    ],
)
def test_malformed_edgelist_names_file_line_and_content(
    tmp_path: Path, content: str, line: int, snippet: str
) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(content.encode("latin-1"))
    with pytest.raises(InputFormatError) as err:
        read_graph(p)
    assert err.value.line == line
    assert f"line {line}" in str(err.value) and "bad.txt" in str(err.value)
    assert snippet in str(err.value)


ids = st.one_of(st.integers(0, 10**12), st.text("abcxyz_-", min_size=1, max_size=6))


@given(st.lists(st.tuples(st.integers(0, 25), st.integers(0, 25)), min_size=1, max_size=80),
       st.booleans())
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_edgelist_round_trip_property(tmp_path: Path, edges: list[tuple[int, int]],
                                      strings: bool) -> None:
    u = np.array([a for a, _ in edges])
    v = np.array([b for _, b in edges])
    if strings:
        u = np.array([f"n{a}" for a in u], dtype=object)
        v = np.array([f"n{b}" for b in v], dtype=object)
    G = Graph.from_id_edges(u, v)
    G = G.subgraph(G.degrees > 0) if G.n_edges else G
    if G.n_edges == 0:
        return
    p = tmp_path / "prop.txt"
    write_graph(G, p)
    assert read_graph(p) == G


def test_small_integer_edgelist_is_written_as_arrow_writes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Integer-id edge lists up to ``_SMALL_INT_EDGELIST`` edges are formatted in Python:
    byte for byte what the Arrow writer makes of them."""
    import graphanon.io.formats.edgelist as edgelist

    ids = np.array([-(2**63), -7, 0, 5, 10**12, 2**63 - 1])
    G = Graph.from_id_edges(ids[[0, 0, 1, 2, 3, 4]], ids[[1, 5, 2, 3, 4, 5]])
    write_graph(G, tmp_path / "python.txt")
    monkeypatch.setattr(edgelist, "_SMALL_INT_EDGELIST", -1)
    write_graph(G, tmp_path / "arrow.txt")
    assert (tmp_path / "python.txt").read_bytes() == (tmp_path / "arrow.txt").read_bytes()
    assert read_graph(tmp_path / "python.txt") == G
