"""Library entry points given the wrong kind of argument raise graphanon's own errors (a
precise message naming the parameter), not an AttributeError from deep inside."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphanon.anonymity import smooth_k_anonymity
from graphanon.dk.extract import joint_degree_distribution
from graphanon.dk.generate import generate_1k, generate_2k
from graphanon.errors import InvalidParameterError
from graphanon.graph import BipartiteGraph, Graph
from graphanon.io.files import read_graph, write_graph
from graphanon.privacy.accountant import Accountant

G = Graph.from_edges([0, 1], [1, 2])
B = BipartiteGraph.from_pairs(["a"], ["b"])
RNG = np.random.default_rng(1)


@pytest.mark.parametrize(("call", "match"), [
    (lambda p: write_graph("G", p), "'G' parameter of write_graph"),  # type: ignore[arg-type]
    (lambda p: write_graph(B, p), "write_bipartite"),  # type: ignore[arg-type]
    (lambda p: write_graph(G, 5), "'path' parameter of write_graph"),  # type: ignore[arg-type]
    (lambda p: Accountant(1.0, dataset="d").spend("abc"),  # type: ignore[arg-type]
     "'release' parameter of Accountant.spend"),
    (lambda p: smooth_k_anonymity(G, k=2, rng=RNG), "'B' parameter"),  # type: ignore[arg-type]
    (lambda p: smooth_k_anonymity(None, k=2, rng=RNG), "'B' parameter"),  # type: ignore[arg-type]
    (lambda p: generate_2k(joint_degree_distribution(G), rng=3),  # type: ignore[arg-type]
     "'rng' parameter of generate_2k"),
    (lambda p: generate_1k({1: 2}, rng=None), "'rng' parameter of generate_1k"),  # type: ignore[arg-type]
    (lambda p: read_graph(5), "'path' parameter"),  # type: ignore[arg-type]
    (lambda p: read_graph(None), "'path' parameter"),  # type: ignore[arg-type]
    (lambda p: Graph.from_scipy("x"), "'matrix' parameter of Graph.from_scipy"),
])
def test_wrong_argument_types(tmp_path: Path, call: Any, match: str) -> None:
    with pytest.raises(InvalidParameterError, match=match):
        call(tmp_path / "x.txt")
    assert not (tmp_path / "x.txt").exists()


def test_a_symmetric_matrix_holds_each_edge_once() -> None:
    """Both triangles of a symmetric adjacency matrix are one edge each, not duplicates."""
    A = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    H = Graph.from_scipy(A)
    assert H.n_edges == 2 and H.input_cleaning.get("duplicate_edges", 0) == 0


def test_a_csv_edge_list_id_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    from graphanon.errors import InputFormatError

    p = tmp_path / "n.csv"
    p.write_bytes(b"source,target\n0,1\n1,\xff\xfe\n")
    with pytest.raises(InputFormatError, match="line 3: a field is not UTF-8 text"):
        read_graph(p)
