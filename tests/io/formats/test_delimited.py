"""graphanon.io.formats.delimited: CSV / TSV with a header."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphanon import InputFormatError
from graphanon.io import read_graph


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
