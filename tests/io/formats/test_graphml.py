"""graphanon.io.formats.graphml: GraphML (and GML) through igraph."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphanon import Graph, InputFormatError, InvalidParameterError
from graphanon.io import read_graph, write_graph


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
