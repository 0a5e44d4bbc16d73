"""File adapters: parsing, round trips, malformed input, atomic writes, shared dataset counts."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import SHIPPED

from graphanon import BipartiteGraph, Graph, InputFormatError, InvalidParameterError
from graphanon.io import read_bipartite, read_graph, write_bipartite, write_graph
from graphanon.io._atomic import atomic_path


def test_missing_empty_and_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameterError, match="does not exist"):
        read_graph(tmp_path / "nope.txt")
    (tmp_path / "empty.txt").write_text("# only a comment\n")
    # the empty graph, not an error: its neighbour (one edge) is read, so refusing it would
    # tell the two apart (with a universe it is a graph of isolated nodes)
    G = read_graph(tmp_path / "empty.txt")
    assert G.n_nodes == G.n_edges == 0
    (tmp_path / "nodes.txt").write_text("1\n2\n")
    from graphanon.io.id_lists import read_id_list

    assert G.with_nodes(read_id_list(tmp_path / "nodes.txt")).n_nodes == 2
    assert read_bipartite(tmp_path / "empty.txt").n_users == 0
    (tmp_path / "x.weird").write_text("1 2\n")
    with pytest.raises(InvalidParameterError, match="extension"):
        read_graph(tmp_path / "x.weird")
    (tmp_path / "bad.graphml").write_text("<graphml><oops")
    with pytest.raises(InputFormatError, match="GRAPHML"):
        read_graph(tmp_path / "bad.graphml")


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
    from graphanon.io.id_lists import read_id_list
    from graphanon.io.preferences import read_preferences

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
