"""2K / 3K extraction in blocks: same tables whatever the blocking, progress, memory checks."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon._memory import ENV_VAR
from graphanon.cli import main
from graphanon.datasets import data_path, load_polbooks
from graphanon.dk import dk_distribution
from graphanon.dk import extract as ex
from graphanon.dk.extract import DK3Distribution, DKDistribution, three_k_memory
from graphanon.errors import InvalidParameterError
from graphanon.graph import Graph
from graphanon.io.dk_tables import read_dk_table, write_dk_table


def _powerlaw(n: int, m: int, seed: int, alpha: float = 0.8) -> Graph:
    """A small Chung–Lu graph with hubs (many distinct degrees, many classes)."""
    rng = np.random.default_rng(seed)
    w = (np.arange(n) + 1.0) ** -alpha
    p = w / w.sum()
    u = rng.choice(n, size=m, p=p)
    v = rng.choice(n, size=m, p=p)
    return Graph.from_edges(u, v, n_nodes=n)


def _brute_3k(G: Graph) -> tuple[Counter, Counter]:
    deg = G.degrees
    wedges: Counter = Counter()
    tris: Counter = Counter()
    for c in range(G.n_nodes):
        for a, b in combinations(G.neighbors(c).tolist(), 2):
            if G.has_edge(a, b):
                if c < a:
                    tris[tuple(sorted((int(deg[a]), int(deg[b]), int(deg[c]))))] += 1
            else:
                lo, hi = sorted((int(deg[a]), int(deg[b])))
                wedges[(lo, int(deg[c]), hi)] += 1
    return wedges, tris


@pytest.fixture
def tiny_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of a single work unit (every class and block boundary is exercised) and the
    in-place sort that large tables use."""
    monkeypatch.setattr(ex, "_MIN_CHUNK_WORK", 1)
    monkeypatch.setattr(ex, "_GATHER_MAX_ROWS", 0)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 60), m=st.integers(0, 400), seed=st.integers(0, 10_000))
def test_3k_blocks_match_brute_force(n: int, m: int, seed: int) -> None:
    G = _powerlaw(n, m, seed)
    wedges, tris = _brute_3k(G)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ex, "_MIN_CHUNK_WORK", 1)
        mp.setattr(ex, "_GATHER_MAX_ROWS", 0)  # the in-place sort of large tables
        blocked = dk_distribution(G, 3)
    whole = dk_distribution(G, 3)
    for D in (blocked, whole):
        assert isinstance(D, DK3Distribution)
        assert D.wedges.as_dict() == dict(wedges)
        assert D.triangles.as_dict() == dict(tris)
        for t in (D.wedges, D.triangles):  # rows sorted lexicographically, unique
            keys = [tuple(r) for r in t.degrees.tolist()]
            assert keys == sorted(set(keys))
            assert t.degrees.dtype == np.int64 and t.counts.dtype == np.int64


def test_3k_class_state_carries_over_blocks(tiny_blocks: None) -> None:
    # many nodes of one degree: a class spans many blocks, its cells must add up
    G = _powerlaw(300, 1500, 7)
    wedges, tris = _brute_3k(G)
    D = dk_distribution(G, 3)
    assert D.wedges.as_dict() == dict(wedges) and D.triangles.as_dict() == dict(tris)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 80), m=st.integers(0, 400), seed=st.integers(0, 10_000))
def test_2k_blocks_match_edge_count(n: int, m: int, seed: int) -> None:
    G = _powerlaw(n, m, seed)
    deg = G.degrees
    u, v = G.edges()
    expect = Counter(zip(np.minimum(deg[u], deg[v]).tolist(),
                         np.maximum(deg[u], deg[v]).tolist(), strict=True))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ex, "_MIN_CHUNK_WORK", 1)
        D = dk_distribution(G, 2)
    assert isinstance(D, DKDistribution)
    assert D.as_dict() == dict(expect)
    keys = [tuple(r) for r in D.degrees.tolist()]
    assert keys == sorted(keys)


def test_progress_is_reported_per_block_not_per_edge(tiny_blocks: None) -> None:
    G = load_polbooks()
    calls: list[tuple[str, int, int]] = []
    dk_distribution(G, 3, progress=lambda t, d, n: calls.append((t, d, n)))
    tasks = {t for t, _, _ in calls}
    assert {"3K 2-paths", "3K triangles", "3K tables"} <= tasks
    for task in ("3K 2-paths", "3K triangles"):
        mine = [(d, n) for t, d, n in calls if t == task]
        assert mine[0][0] == 0 and mine[-1][0] == mine[-1][1] == G.n_nodes
        done = [d for d, _ in mine]
        assert done == sorted(done)
    calls.clear()
    dk_distribution(G, 2, progress=lambda t, d, n: calls.append((t, d, n)))
    assert calls[-1] == ("2K extraction", G.n_nodes, G.n_nodes)


def test_progress_calls_are_few_on_default_blocks() -> None:
    G = _powerlaw(3000, 30_000, 1)
    calls: list[str] = []
    dk_distribution(G, 3, progress=lambda t, d, n: calls.append(t))
    # at most ~100 blocks per pass plus the first and last report: never one call per edge
    assert len(calls) <= 2 * 102 + 2


def test_3k_refuses_working_space_above_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    G = load_polbooks()
    monkeypatch.setenv(ENV_VAR, str(three_k_memory(G) - 1))
    with pytest.raises(InvalidParameterError, match=r"3K extraction.*105 nodes"):
        dk_distribution(G, 3)


def test_3k_refuses_a_table_that_cannot_be_sorted(monkeypatch: pytest.MonkeyPatch) -> None:
    # the working space fits, the table found by the first pass does not
    G = _powerlaw(400, 4000, 3)
    monkeypatch.setenv(ENV_VAR, str(three_k_memory(G) + 1))
    with pytest.raises(InvalidParameterError, match=r"size of the 3K table \([0-9,]+ rows"):
        dk_distribution(G, 3)
    monkeypatch.delenv(ENV_VAR)
    assert dk_distribution(G, 3).n_tuples > 0


def test_2k_refuses_above_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    G = load_polbooks()
    monkeypatch.setenv(ENV_VAR, "100")
    with pytest.raises(InvalidParameterError, match="2K extraction"):
        dk_distribution(G, 2)


def test_empty_and_edgeless_graphs() -> None:
    for G in (Graph.from_edges([], [], n_nodes=0), Graph.from_edges([], [], n_nodes=4)):
        two = dk_distribution(G, 2)
        three = dk_distribution(G, 3)
        assert two.n_tuples == 0 and three.n_tuples == 0


def test_writer_blocks_give_the_same_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    from graphanon.io import dk_tables

    three = dk_distribution(load_polbooks(), 3)
    noisy = DKDistribution("joint_degree", [[1, 2], [2, 3], [4, 4]], [1.5, 2.0, -0.25])
    write_dk_table(three, tmp_path / "a.tsv")
    write_dk_table(noisy, tmp_path / "f.tsv")
    monkeypatch.setattr(dk_tables, "_BLOCK_ROWS", 2)
    write_dk_table(three, tmp_path / "b.tsv")
    write_dk_table(noisy, tmp_path / "g.tsv")
    assert (tmp_path / "a.tsv").read_bytes() == (tmp_path / "b.tsv").read_bytes()
    assert (tmp_path / "f.tsv").read_text().splitlines()[2:] == ["1\t2\t1.5", "2\t3\t2",
                                                                 "4\t4\t-0.25"]
    assert (tmp_path / "f.tsv").read_bytes() == (tmp_path / "g.tsv").read_bytes()
    back = read_dk_table(tmp_path / "b.tsv")
    assert isinstance(back, DK3Distribution)
    assert back.wedges.as_dict() == three.wedges.as_dict()
    assert back.triangles.as_dict() == three.triangles.as_dict()


def test_cli_dk3_with_progress_and_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    src = str(data_path("polbooks.gml"))
    out = tmp_path / "t3.tsv"
    assert main(["dk", src, "--d", "3", "--out", str(out)]) == 0
    text = "".join(capsys.readouterr())  # progress bars on stderr, messages on stdout
    assert "3K 2-paths" in text and "3K triangles" in text and "reading" in text
    assert read_dk_table(out).triangles.total == 560
    # the input itself may be read: the refusal under test is the later memory check
    monkeypatch.setenv("GRAPHANON_MAX_INPUT_BYTES", str(1 << 30))
    monkeypatch.setenv(ENV_VAR, "1KiB")
    out2 = tmp_path / "t3b.tsv"
    assert main(["-q", "dk", src, "--d", "3", "--out", str(out2)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ENV_VAR in err and not out2.exists()


def test_3k_partitions_stream_the_same_table(tmp_path: Path, tiny_blocks: None) -> None:
    """iter_three_k in partitions by centre degree: the same rows as the whole table, each
    partition smaller than the table; the file written partition by partition reads back as
    the same distribution."""
    from graphanon.dk.extract import iter_three_k, three_k_rows_bound
    from graphanon.io.dk_tables import write_3k_chunks

    G = _powerlaw(3000, 30_000, 2)
    whole = dk_distribution(G, 3)
    parts = list(iter_three_k(G, partition_rows=500))
    wedge_parts = [p for p in parts if p.kind == "wedge"]
    assert len(wedge_parts) > 3 and parts[-1].kind == "triangle"
    assert max(p.n_tuples for p in wedge_parts) < whole.wedges.n_tuples / 2
    merged: dict = {}
    for p in wedge_parts:
        d = p.as_dict()
        assert not set(d) & set(merged)  # each tuple in one partition
        merged.update(d)
    assert merged == whole.wedges.as_dict()
    assert parts[-1].as_dict() == whole.triangles.as_dict()
    assert three_k_rows_bound(G) >= whole.n_tuples
    rows = write_3k_chunks(iter_three_k(G, partition_rows=500), tmp_path / "s.tsv")
    assert rows == (whole.wedges.n_tuples, whole.triangles.n_tuples)
    back = read_dk_table(tmp_path / "s.tsv")
    assert isinstance(back, DK3Distribution)
    assert back.wedges.as_dict() == whole.wedges.as_dict()
    assert back.triangles.as_dict() == whole.triangles.as_dict()
    # the many-partition merge in three_k_distribution restores the sorted order
    ex_parts = ex.PARTITION_ROWS
    try:
        ex.PARTITION_ROWS = 500
        small = ex.three_k_distribution(G)
    finally:
        ex.PARTITION_ROWS = ex_parts
    assert np.array_equal(small.wedges.degrees, whole.wedges.degrees)
    assert np.array_equal(small.wedges.counts, whole.wedges.counts)
