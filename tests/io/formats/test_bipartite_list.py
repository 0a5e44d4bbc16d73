"""graphanon.io.formats.bipartite: user<TAB>feature lists."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphanon import BipartiteGraph, InvalidParameterError
from graphanon.io import read_bipartite, write_bipartite


def test_bipartite_list_round_trip_with_spaces(tmp_path: Path) -> None:
    p = tmp_path / "b.tsv"
    p.write_text("# user\tfeature\nu1\tArt & Design\nu2\tgenre=Action\nu1\tgenre=Action\n")
    B = read_bipartite(p)
    assert B.feature_ids.tolist() == ["Art & Design", "genre=Action"]
    assert B.n_edges == 3
    out = tmp_path / "out.tsv"
    write_bipartite(B, out)
    assert read_bipartite(out) == B


def test_writer_refuses_tab_in_id_and_leaves_nothing(tmp_path: Path) -> None:
    B = BipartiteGraph.from_pairs(np.array(["a\tb"], dtype=object), np.array(["x"], dtype=object))
    out = tmp_path / "o.tsv"
    with pytest.raises(InvalidParameterError, match="tab"):
        write_bipartite(B, out)
    assert list(tmp_path.iterdir()) == []
