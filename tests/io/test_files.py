"""File adapters: parsing, round trips, malformed input, atomic writes, shared dataset counts."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import SHIPPED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon import BipartiteGraph, Graph, InputFormatError, InvalidParameterError
from graphanon.io import read_bipartite, read_graph, write_bipartite, write_graph
from graphanon.io._atomic import atomic_path


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


def test_missing_empty_and_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameterError, match="does not exist"):
        read_graph(tmp_path / "nope.txt")
    (tmp_path / "empty.txt").write_text("# only a comment\n")
    # the empty graph, not an error: its neighbour (one edge) is read, so refusing it would
    # tell the two apart (with a universe it is a graph of isolated nodes)
    G = read_graph(tmp_path / "empty.txt")
    assert G.n_nodes == G.n_edges == 0
    (tmp_path / "nodes.txt").write_text("1\n2\n")
    from graphanon.io.universe import read_id_list

    assert G.with_nodes(read_id_list(tmp_path / "nodes.txt")).n_nodes == 2
    assert read_bipartite(tmp_path / "empty.txt").n_users == 0
    (tmp_path / "x.weird").write_text("1 2\n")
    with pytest.raises(InvalidParameterError, match="extension"):
        read_graph(tmp_path / "x.weird")
    (tmp_path / "bad.graphml").write_text("<graphml><oops")
    with pytest.raises(InputFormatError, match="GRAPHML"):
        read_graph(tmp_path / "bad.graphml")


def test_csv_columns_and_missing_column(tmp_path: Path) -> None:
    p = tmp_path / "e.csv"
    p.write_text("from,to,w\n1,2,0.5\n2,3,1\n")
    G = read_graph(p, source="from", target="to")
    assert G.n_edges == 2
    with pytest.raises(InputFormatError, match="no column 'source'"):
        read_graph(p)


@pytest.mark.parametrize(("text", "line", "content"), [
    ("source,target\n\n1,2\n3,\n", 4, "'3,'"),  # a blank line before it
    ('source,target\n"a\nb",c\nd,\n', 4, "'d,'"),  # a quoted line break before it
    ("source,target\n1,2\n2,3\n3\n", 4, "2 fields expected, got 1: '3'"),
])
def test_csv_errors_name_the_physical_line(tmp_path: Path, text: str, line: int,
                                           content: str) -> None:
    """An empty id or a row of the wrong width is reported at the line it is on, which is not
    its row number + 2 once blank lines or quoted line breaks come before it."""
    p = tmp_path / "e.csv"
    p.write_text(text)
    with pytest.raises(InputFormatError, match=f"line {line}: .*{content}") as err:
        read_graph(p)
    assert err.value.line == line


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


def _graph_with_isolated() -> Graph:
    return Graph.from_edges([0, 1, 2, 0], [1, 2, 3, 3], n_nodes=6,
                            node_ids=np.array([10, 20, 30, 40, 50, 60]))


@pytest.mark.parametrize("fmt", ["edgelist", "csv", "tsv", "parquet", "graphml", "gml", "mtx"])
def test_round_trip_each_format(tmp_path: Path, fmt: str) -> None:
    ext = {"edgelist": "txt"}.get(fmt, fmt)
    G = _graph_with_isolated()
    if fmt in ("edgelist", "csv", "tsv"):  # cannot carry isolated nodes
        G = G.subgraph(G.degrees > 0)
    if fmt == "mtx":  # Matrix Market ids are 1..n
        G = Graph(G.indptr, G.indices, np.arange(1, G.n_nodes + 1))
    p = tmp_path / f"g.{ext}"
    write_graph(G, p)
    H = read_graph(p)
    assert H.node_ids.tolist() == G.node_ids.tolist()
    assert H == Graph(G.indptr, G.indices, H.node_ids)
    write_graph(H, tmp_path / f"h.{ext}")
    assert read_graph(tmp_path / f"h.{ext}") == H


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


def test_graphml_ids_round_trip_or_are_refused(tmp_path: Path) -> None:
    """XML keeps tabs, newlines and markup characters; control characters and carriage
    returns cannot be written (they would fail or read back changed)."""
    G = Graph.from_edges([0, 1], [1, 2], node_ids=np.array(["a\tb", "c\nd", "<&>\"'"],
                                                          dtype=object))
    write_graph(G, tmp_path / "g.graphml")
    assert sorted(read_graph(tmp_path / "g.graphml").node_ids.tolist()) == sorted(
        G.node_ids.tolist())
    for bad in ("\x1b[31m", "a\rb", "\x00"):
        H = Graph.from_edges([0], [1], node_ids=np.array(["ok", bad], dtype=object))
        with pytest.raises(InvalidParameterError, match="cannot be written to a GraphML"):
            write_graph(H, tmp_path / "h.graphml")
    assert not (tmp_path / "h.graphml").exists()


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
    import graphanon.io.files as files

    ids = np.array([-(2**63), -7, 0, 5, 10**12, 2**63 - 1])
    G = Graph.from_id_edges(ids[[0, 0, 1, 2, 3, 4]], ids[[1, 5, 2, 3, 4, 5]])
    write_graph(G, tmp_path / "python.txt")
    monkeypatch.setattr(files, "_SMALL_INT_EDGELIST", -1)
    write_graph(G, tmp_path / "arrow.txt")
    assert (tmp_path / "python.txt").read_bytes() == (tmp_path / "arrow.txt").read_bytes()
    assert read_graph(tmp_path / "python.txt") == G


def test_bipartite_list_round_trip_with_spaces(tmp_path: Path) -> None:
    p = tmp_path / "b.tsv"
    p.write_text("# user\tfeature\nu1\tArt & Design\nu2\tgenre=Action\nu1\tgenre=Action\n")
    B = read_bipartite(p)
    assert B.feature_ids.tolist() == ["Art & Design", "genre=Action"]
    assert B.n_edges == 3
    out = tmp_path / "out.tsv"
    write_bipartite(B, out)
    assert read_bipartite(out) == B


def test_bipartite_parquet_round_trip(tmp_path: Path) -> None:
    B = BipartiteGraph.from_pairs(np.array(["u1", "u2", "u2"]), np.array(["a", "a", "b"]))
    write_bipartite(B, tmp_path / "b.parquet")
    assert read_bipartite(tmp_path / "b.parquet") == B


def test_writer_refuses_tab_in_id_and_leaves_nothing(tmp_path: Path) -> None:
    B = BipartiteGraph.from_pairs(np.array(["a\tb"], dtype=object), np.array(["x"], dtype=object))
    out = tmp_path / "o.tsv"
    with pytest.raises(InvalidParameterError, match="tab"):
        write_bipartite(B, out)
    assert list(tmp_path.iterdir()) == []


def test_atomic_path_leaves_no_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("boom")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


# ---------------------------------------------------------------------- shared datasets
MANIFEST_COUNTS = {
    "ca-GrQc/CA-GrQc.txt": (5242, 14484),
    "facebook_combined/facebook_combined.txt": (4039, 88234),
    "wiki-Vote/Wiki-Vote.txt": (7115, 100762),
    "polbooks/polbooks.gml": (105, 441),
    "facebook100/Reed98.mat": (962, 18812),
    "facebook100/socfb-Caltech36.mtx": (769, 16656),
}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=[] if n in SHIPPED else [pytest.mark.datasets])
    for n in sorted(MANIFEST_COUNTS)])
def test_shared_dataset_counts_match_manifest(dataset, name: str) -> None:
    G = read_graph(dataset(name))
    assert (G.n_nodes, G.n_edges) == MANIFEST_COUNTS[name]


def test_polbooks_attributes(dataset) -> None:
    G = read_graph(dataset("polbooks/polbooks.gml"))
    values, counts = np.unique(G.attributes["value"], return_counts=True)
    assert dict(zip(values.tolist(), counts.tolist(), strict=True)) == {"c": 49, "l": 43, "n": 13}


def test_reed98_attributes(dataset) -> None:
    G = read_graph(dataset("facebook100/Reed98.mat"))
    assert set(G.attributes) >= {"gender", "dorm", "year"}


def test_atomic_writes_get_the_usual_file_mode(tmp_path: Path) -> None:
    import os

    old = os.umask(0o022)
    try:
        out = tmp_path / "g.txt"
        write_graph(Graph.from_edges([0], [1]), out)
        assert out.stat().st_mode & 0o777 == 0o644
        out.chmod(0o600)  # an existing file keeps its mode
        write_graph(Graph.from_edges([0], [1]), out)
        assert out.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)


# ---------------------------------------------------------------------- how much is read
def test_one_read_bound_for_files_pipes_and_gzip(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """An input is refused when its text (decompressed) times the reader's factor exceeds
    the available memory: the same bound for a file, a gzip file and a pipe."""
    import os
    import threading

    from graphanon.io._input import READ_FACTORS

    text = b"".join(b"%d %d\n" % (i, i + 1) for i in range(20000))  # ~230 kB
    plain = tmp_path / "g.txt"
    plain.write_bytes(text)
    packed = tmp_path / "g.txt.gz"
    packed.write_bytes(gzip.compress(text))
    monkeypatch.delenv("GRAPHANON_MAX_INPUT_BYTES", raising=False)
    factor = READ_FACTORS["edgelist"]
    monkeypatch.setenv("GRAPHANON_MEMORY_LIMIT", str(len(text) * factor - factor))
    for p in (plain, packed):
        with pytest.raises(InvalidParameterError, match="larger than"):
            read_graph(p)
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    spare = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # lets the writer open at once
    wfd = os.open(fifo, os.O_WRONLY)  # so the reader surely sees a writer

    def feed() -> None:
        try:
            with os.fdopen(wfd, "wb") as fh:
                fh.write(text)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        with pytest.raises(InvalidParameterError, match="the stream is larger than"):
            read_graph(fifo)
    finally:
        os.close(spare)  # no reader left: the writer stops
        writer.join(timeout=30)
    monkeypatch.setenv("GRAPHANON_MEMORY_LIMIT", str(len(text) * factor))
    assert read_graph(plain) == read_graph(packed)


def test_a_file_that_grows_while_read_is_read_whole(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The readers read a regular file in one read of its size (plus one byte, to see
    growth); a file that grew after its size was taken is read to its end all the same."""
    import os
    from types import SimpleNamespace

    from graphanon.io import _input

    p = tmp_path / "g.txt"
    p.write_text("1 2\n2 3\n3 4\n")
    real = os.stat

    q = tmp_path / "b.tsv"
    q.write_text("u\tf\nv\tg\n")
    sizes = {p: 4, q: 3}  # the sizes before the last lines; other paths (numba's cache) as is

    def stale(path: Any, *a: Any, **kw: Any) -> Any:
        st = real(path, *a, **kw)
        size = sizes.get(Path(path))
        return st if size is None else SimpleNamespace(st_mode=st.st_mode, st_size=size)

    monkeypatch.setattr(_input.os, "stat", stale)
    assert read_graph(p).n_edges == 3
    assert _input.read_input_bytes(p) == b"1 2\n2 3\n3 4\n"
    assert read_bipartite(q).n_edges == 2


def test_gzip_members_padding_and_truncation(tmp_path: Path) -> None:
    p = tmp_path / "g.txt.gz"
    p.write_bytes(gzip.compress(b"1 2\n") + gzip.compress(b"2 3\n") + b"\0" * 10)
    assert read_graph(p).n_edges == 2
    p.write_bytes(gzip.compress(b"1 2\n" * 1000)[:-12])
    with pytest.raises(InputFormatError, match="not a readable gzip file"):
        read_graph(p)
    p.write_bytes(gzip.compress(b"1 2\n") + b"trailing garbage")
    with pytest.raises(InputFormatError, match="not a readable gzip file"):
        read_graph(p)
    damaged = bytearray(gzip.compress(b"1 2\n2 3\n" * 1000))
    damaged[12:40] = bytes(b ^ 0xA5 for b in damaged[12:40])  # the deflate stream itself
    p.write_bytes(bytes(damaged))
    with pytest.raises(InputFormatError, match="not a readable gzip file"):
        read_graph(p)


def test_binary_formats_are_bounded_by_their_size(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    G = _graph_with_isolated()
    p = tmp_path / "g.parquet"
    write_graph(G, p)
    monkeypatch.setenv("GRAPHANON_MAX_INPUT_BYTES", str(p.stat().st_size - 1))
    with pytest.raises(InvalidParameterError, match="larger than"):
        read_graph(p)
    monkeypatch.setenv("GRAPHANON_MAX_INPUT_BYTES", str(p.stat().st_size))
    assert read_graph(p) == G


def test_duplicate_edges_are_counted_in_every_format(tmp_path: Path) -> None:
    """Three records of one edge: a directed GraphML's a->b, b->a, a->b (two dropped), a
    general Matrix Market's (1, 2) twice beside (2, 1) (one dropped: the symmetric entry is
    the same edge, not a duplicate), an edge list's three lines (two dropped)."""
    gm = tmp_path / "d.graphml"
    gm.write_text('<?xml version="1.0"?>\n<graphml xmlns="http://graphml.graphdrawing.org/'
                  'xmlns"><graph edgedefault="directed"><node id="a"/><node id="b"/><edge '
                  'source="a" target="b"/><edge source="b" target="a"/><edge source="a" '
                  'target="b"/></graph></graphml>\n')
    mtx = tmp_path / "d.mtx"
    mtx.write_text("%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n1 2\n2 1\n")
    txt = tmp_path / "d.txt"
    txt.write_text("1 2\n1 2\n2 1\n")
    for path, dropped in ((gm, 2), (mtx, 1), (txt, 2)):
        G = read_graph(path)
        assert G.n_edges == 1 and G.input_cleaning["duplicate_edges"] == dropped, path.name


def test_graphml_with_two_graphs_or_undeclared_nodes_is_refused(tmp_path: Path) -> None:
    """igraph would read the first graph only and invent nodes for undeclared edge ends."""
    head = '<?xml version="1.0"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
    g = ('<graph id="G" edgedefault="undirected"><node id="a"/><node id="b"/>'
         '<edge source="a" target="b"/>{extra}</graph>')
    two = tmp_path / "two.graphml"
    two.write_text(head + g.format(extra="") + g.format(extra="").replace('"G"', '"H"')
                   + "</graphml>\n")
    with pytest.raises(InputFormatError, match="holds 2 <graph> elements"):
        read_graph(two)
    und = tmp_path / "und.graphml"
    und.write_text(head + g.format(extra='<edge source="b" target="c"/>') + "</graphml>\n")
    with pytest.raises(InputFormatError, match=r"1 edge end.* no <node> element declares"):
        read_graph(und)
    ok = tmp_path / "ok.graphml"
    ok.write_text(head + g.format(extra="") + "</graphml>\n")
    assert read_graph(ok).n_edges == 1


def test_id_errors_of_whole_file_readers_name_the_file_and_the_id(tmp_path: Path) -> None:
    p = tmp_path / "dn.graphml"
    p.write_text('<?xml version="1.0"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
                 '<key id="v" for="node" attr.name="name" attr.type="string"/><graph '
                 'edgedefault="undirected"><node id="n0"><data key="v">x</data></node><node '
                 'id="n1"><data key="v">x</data></node><edge source="n0" target="n1"/></graph>'
                 '</graphml>\n')
    with pytest.raises(InputFormatError, match=r"dn\.graphml': node_ids must be unique "
                                               r"\('x' occurs more than once\)"):
        read_graph(p)


def test_graphml_shape_is_counted_by_an_xml_parser(tmp_path: Path) -> None:
    """Comments, CDATA and the document's encoding belong to the parser: a <graph> in a
    comment or CDATA is no second graph, a UTF-16 file reads, a <node> in a comment
    declares nothing."""
    body = ('<graph id="G" edgedefault="undirected"><node id="a"/><node id="b"/>'
            '<node id="c"/><edge source="a" target="b"/><edge source="b" target="c"/>'
            '</graph>')
    head = '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
    comment = tmp_path / "comment.graphml"
    comment.write_text('<?xml version="1.0" encoding="UTF-8"?>\n' + head
                       + '<!-- an old version had <graph id="G0"> here -->'
                       + '<desc><![CDATA[ <graph id="G1"> ]]></desc>'
                       + body + "</graphml>\n")
    assert read_graph(comment).n_edges == 2
    u16 = tmp_path / "u16.graphml"
    u16.write_bytes(('<?xml version="1.0" encoding="UTF-16"?>\n' + head + body
                     + "</graphml>\n").encode("utf-16"))
    assert read_graph(u16).n_nodes == 3
    hidden = tmp_path / "hidden.graphml"
    hidden.write_text('<?xml version="1.0"?>\n' + head + '<!-- template: <node id="x"/> -->'
                      + body.replace('<node id="c"/>', "") + "</graphml>\n")
    with pytest.raises(InputFormatError, match="1 edge end"):
        read_graph(hidden)


def test_graphml_shape_check_reads_any_encoding_and_counts_distinct_ids(tmp_path: Path) -> None:
    """A Shift_JIS file (which expat cannot decode) is checked after Python decodes it; a
    node declared twice still declares one id, so an undeclared edge end is refused."""
    sjis = tmp_path / "sjis.graphml"
    sjis.write_bytes(
        b'<?xml version="1.0" encoding="Shift_JIS"?>\n<graphml xmlns="http://graphml.'
        b'graphdrawing.org/xmlns"><key id="d" for="node" attr.name="label" '
        b'attr.type="string"/><graph edgedefault="undirected"><node id="a"><data key="d">'
        + "日本".encode("shift_jis") + b'</data></node><node id="b"/><edge source="a" '
        b'target="b"/></graph></graphml>')
    assert read_graph(sjis).n_edges == 1
    twice = tmp_path / "twice.graphml"
    twice.write_text('<?xml version="1.0"?>\n<graphml xmlns="http://graphml.graphdrawing.org/'
                     'xmlns"><graph edgedefault="undirected"><node id="a"/><node id="a"/>'
                     '<edge source="a" target="b"/></graph></graphml>\n')
    with pytest.raises(InputFormatError, match="1 edge end"):
        read_graph(twice)


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


def test_percent_lines_are_data_with_a_warning_or_a_hint(tmp_path: Path) -> None:
    """Only '#' starts a comment in an edge or user-feature list. A two-field KONECT-style
    '%' line is read as data with a warning naming the ids; a '%' line that breaks the shape
    gets a hint in the error. Ids holding a '%' elsewhere are quiet."""
    import warnings

    from graphanon.errors import CommentLikeIdWarning

    p = tmp_path / "g.txt"
    p.write_text("% first\n1 2\n%x later\n2 3\n")
    with pytest.warns(CommentLikeIdWarning, match=r"2 ids start with '%' \(first '%'\)"):
        G = read_graph(p)
    assert G.n_edges == 4 and "%x" in G.node_ids.tolist()
    b = tmp_path / "b.tsv"
    b.write_text("u1\t%f\nu2\tf2\n")
    with pytest.warns(CommentLikeIdWarning, match=r"1 id starts with '%' \(first '%f'\)"):
        read_bipartite(b)
    p.write_text("a%b c\nc d%\n1 2\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_graph(p).n_edges == 3
    p.write_text("% sym unweighted\n% 3 3 3\n1 2\n")
    with pytest.raises(InputFormatError, match=r"line 2: .*turn '%' lines .* into '#' lines"):
        read_graph(p)


# ---------------------------------------------------------------------- blanks around ids
def _blank_inputs(d: Path) -> None:
    """One graph, 1 – 2 – "x y", spelled with spaces and tabs around its ids in every format
    that reads ids (the Parquet and GraphML ones as a careless export would write them)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (d / "g.txt").write_text(" 1\t 2 \n2 \tx\n")
    (d / "g.csv").write_text("source,target\n 1,2 \n\t2,\"x y \"\n")
    (d / "g.tsv").write_text("source\ttarget\n 1 \t2\n2 \t x y\n")
    pq.write_table(pa.table({"source": [" 1", "2\t"], "target": ["2 ", " x y"]}),
                   d / "g.parquet")
    (d / "g.graphml").write_text(
        '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
        '<graph edgedefault="undirected"><node id=" 1"/><node id="2 "/><node id="x y\t"/>'
        '<edge source=" 1" target="2 "/><edge source="2 " target="x y\t"/></graph></graphml>')
    (d / "b.txt").write_text(" 1 \t x y\n2\t x y \n")  # user<TAB>feature (tab mode)
    (d / "b2.txt").write_text(" 1  xy\n2 xy \n")  # user feature (whitespace mode)
    pq.write_table(pa.table({"user": [" 1", "2 "], "feature": ["x y\t", " x y"]}),
                   d / "b.parquet")


def test_blanks_around_ids_are_dropped_by_every_reader(tmp_path: Path) -> None:
    """A CSV kept the id " 1" where the edge list read 1 and the universe reader stripped
    the blanks, so a CSV's ids could not always be listed. One rule now
    (graphanon._ids.trim_id_blanks): every reader drops the spaces and tabs around an id, and
    keeps everything inside (x y)."""
    from graphanon.io.preferences import read_preferences
    from graphanon.io.universe import read_id_list

    _blank_inputs(tmp_path)
    (tmp_path / "nodes.txt").write_text("1\n \t2\nx y \n")
    universe = read_id_list(tmp_path / "nodes.txt")
    assert sorted(map(str, universe.tolist())) == ["1", "2", "x y"]
    expected = read_graph(tmp_path / "g.csv")
    assert sorted(expected.node_ids.tolist()) == ["1", "2", "x y"]
    for name in ("g.csv", "g.tsv", "g.parquet", "g.graphml"):
        G = read_graph(tmp_path / name)
        assert sorted(map(str, G.node_ids.tolist())) == ["1", "2", "x y"], name
        assert G.n_edges == 2 and G.with_nodes(universe).n_edges == 2, name
    assert sorted(read_graph(tmp_path / "g.txt").node_ids.tolist()) == ["1", "2", "x"]
    for name, features in (("b.txt", ["x y"]), ("b2.txt", ["xy"]), ("b.parquet", ["x y"])):
        B = read_bipartite(tmp_path / name)
        assert B.user_ids.tolist() == [1, 2] and B.feature_ids.tolist() == features, name
        assert B.n_edges == 2, name
    (tmp_path / "prefs.tsv").write_text("node\tepsilon\n 1 \t0.5\n\tx y\t 1.0\n")
    prefs = read_preferences(tmp_path / "prefs.tsv")
    assert prefs.node_ids.tolist() == ["1", "x y"]


@pytest.mark.parametrize(("name", "text", "line"), [
    ("g.csv", "source,target\n1,2\n \t,3\n", 3),
    ("b.txt", "u\tf\n  \tf\n", 2),
])
def test_an_id_of_blanks_only_is_an_empty_id(tmp_path: Path, name: str, text: str,
                                             line: int) -> None:
    (tmp_path / name).write_text(text)
    reader = read_bipartite if name.startswith("b") else read_graph
    with pytest.raises(InputFormatError, match=f"line {line}: an empty"):
        reader(tmp_path / name)


@pytest.mark.parametrize("ext", ["txt", "csv", "tsv", "parquet", "graphml", "gml"])
def test_writers_refuse_ids_with_blank_ends(tmp_path: Path, ext: str) -> None:
    """An id with a space or tab at an end (only the library can make one) would read back
    as another id from every format: refused, nothing written."""
    G = Graph.from_edges([0], [1], node_ids=np.array(["a", "b "], dtype=object))
    with pytest.raises(InvalidParameterError, match=r"'b ' cannot be written .* as 'b'"):
        write_graph(G, tmp_path / f"g.{ext}")
    B = BipartiteGraph.from_pairs(np.array(["\tu"], dtype=object), np.array(["f"], dtype=object))
    with pytest.raises(InvalidParameterError, match="user id '\\\\tu' cannot be written"):
        write_bipartite(B, tmp_path / ("b.parquet" if ext == "parquet" else "b.tsv"))
    assert list(tmp_path.iterdir()) == []
