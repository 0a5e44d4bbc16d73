"""graphanon.io.formats.mtx: Matrix Market, with a banner or the n m header."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphanon import Graph, InputFormatError, InvalidParameterError
from graphanon.io import read_graph, write_graph


def test_mtx_comments_and_byte_order_marks(tmp_path: Path) -> None:
    """``%`` lines are Matrix Market comments in the header-only variant too (above and
    below the header), a BOM before the banner is skipped, and a bad row keeps its line."""
    p = tmp_path / "g.mtx"
    p.write_bytes(b"\xef\xbb\xbf%%MatrixMarket matrix coordinate pattern symmetric\n"
                  b"3 3 2\n2 1\n3 2\n")
    assert read_graph(p).n_edges == 2
    p.write_text("% from networkrepository\n3 2\n% comment\n1 2\n  % indented\n2 3\n")
    G = read_graph(p)
    assert G.n_nodes == 3 and G.n_edges == 2
    p.write_text("3 0\n% nothing here\n")
    assert read_graph(p).n_nodes == 3
    p.write_text("% c\n% c\n3 2\n1 2\nx 3\n")
    with pytest.raises(InputFormatError, match="line 5: Matrix Market indices"):
        read_graph(p)
    p.write_text("%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n")
    with pytest.raises(InputFormatError, match=r"g\.mtx' is not a valid Matrix Market file"):
        read_graph(p)


def test_mtx_zero_entries_are_no_edges_in_both_variants(tmp_path: Path) -> None:
    """A stored zero value is no edge, with a banner (scipy) and without one."""
    p = tmp_path / "g.mtx"
    p.write_text("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 1.0\n2 3 0\n"
                 "1 3 2\n")
    banner = read_graph(p)
    p.write_text("3 3\n1 2 1.0\n2 3 0\n1 3 2\r\n")
    header = read_graph(p)
    assert banner == header and header.n_edges == 2
    assert header.input_cleaning["zero_entries_dropped"] == 1
    p.write_text("3 3\n1 2 0.0e3\n2 3 -0\n1 3 .0\n")  # every spelling of zero
    assert read_graph(p).n_edges == 0
    p.write_text("3 2\n1 2 0\n2 3 1\n")  # the header's m counts the zero entries
    assert read_graph(p).n_edges == 1
    p.write_text("3 2\n1 2\n2 3 0\n")  # in a file of two fields, "2 3 0" is a bad row
    with pytest.raises(InputFormatError, match="line 3: expected 2 fields"):
        read_graph(p)
    p.write_bytes(b"3 3\r1 2 1\r2 3 1e-400\r1 3 2\r")  # CR line ends; reads as 0.0
    assert read_graph(p) == header
    p.write_text("3 2\n1 2 1\n9 3 0\n")  # a zero entry outside 1..n is an error too
    with pytest.raises(InputFormatError, match=r"line 3: edge endpoints must lie in 1\.\.3"):
        read_graph(p)


def test_mtx_networkrepository_header(tmp_path: Path) -> None:
    p = tmp_path / "g.mtx"
    p.write_text("4 2\n1 2\n2 3\n")
    G = read_graph(p)
    assert G.n_nodes == 4 and G.n_edges == 2 and G.node_ids.tolist() == [1, 2, 3, 4]
    p.write_text("4 2\n1 2\n\n# a comment\n2 9\n")
    with pytest.raises(InputFormatError, match=r"line 5: .*1\.\.4.*'2 9'") as err:
        read_graph(p)
    assert err.value.line == 5
    p.write_text("4 2\n1 2\n2 x\n")
    with pytest.raises(InputFormatError, match=r"line 3: Matrix Market indices must be integers"):
        read_graph(p)
    p.write_text("4 3\n1 2\n2\n2 3\n")  # a bad row: an error, or skipped and counted
    with pytest.raises(InputFormatError, match="line 3"):
        read_graph(p)
    G = read_graph(p, skip_bad_rows=True)
    assert G.n_edges == 2 and G.input_cleaning["rows_skipped"] == 1
    p.write_text("4 3\n1 2\n2\n2 7\n")  # a later row's line counts the skipped one
    with pytest.raises(InputFormatError, match="line 4"):
        read_graph(p, skip_bad_rows=True)
    p.write_text("%%MatrixMarket matrix coordinate pattern symmetric\n4 4 1\n2 1\n")
    assert read_graph(p).n_edges == 1
    with pytest.raises(InvalidParameterError, match=r"skip-bad-rows.*does not apply"):
        read_graph(p, skip_bad_rows=True)
    p.write_bytes(b"\xef\xbb\xbf4 2\r1 2\r2 3\r")  # a BOM and lone CR line ends
    assert read_graph(p).n_edges == 2
    p.write_text("4 0\n")
    assert read_graph(p).n_nodes == 4
    for header, message in [("4 5", "announces 5 edges, the file holds 2"),
                            ("4_0 2", "non-negative integers"), ("-4 2", "non-negative"),
                            ("4", "non-negative integers")]:
        p.write_text(f"{header}\n1 2\n2 3\n")
        with pytest.raises(InputFormatError, match=message):
            read_graph(p)
    p.write_text("200000000000 1\n1 2\n")
    with pytest.raises(InvalidParameterError, match="node count of its header"):
        read_graph(p)


def test_mtx_refuses_ids_it_would_renumber(tmp_path: Path) -> None:
    """Matrix Market holds positions: ids 1..n are kept, 0..n-1 (a generated graph's) are
    shifted by one with a warning, any other ids would read back renumbered: refused."""
    G0 = Graph.from_edges([0, 1], [1, 2], node_ids=np.array([0, 1, 2]))
    with pytest.warns(UserWarning, match=r"1-based: nodes 0\.\.n-1"):
        write_graph(G0, tmp_path / "z.mtx")
    assert read_graph(tmp_path / "z.mtx").node_ids.tolist() == [1, 2, 3]
    (tmp_path / "z.mtx").unlink()
    for ids in ([1, 2, 7], ["alice", "bob", "carol"], [2, 1, 3], [0, 2, 1]):
        G = Graph.from_edges([0, 1], [1, 2], node_ids=np.array(ids, dtype=object
                                                               if isinstance(ids[0], str)
                                                               else np.int64))
        with pytest.raises(InvalidParameterError, match=r"Matrix Market .* would read back"):
            write_graph(G, tmp_path / "g.mtx")
        assert list(tmp_path.iterdir()) == []
