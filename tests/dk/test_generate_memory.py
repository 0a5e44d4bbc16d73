"""dK-graph generation: memory linear in the table and the implied graph, blocks, progress."""

from __future__ import annotations

import collections
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from graphanon._memory import ENV_VAR
from graphanon.cli import main
from graphanon.datasets import load_polbooks
from graphanon.dk import _generate_kernels as kern
from graphanon.dk import dk_distribution
from graphanon.dk import generate as gen
from graphanon.dk.extract import DKDistribution
from graphanon.dk.generate import (
    generate_1k,
    generate_1k_memory,
    generate_2k,
    generate_2k_memory,
    jdd_feasible,
)
from graphanon.errors import InvalidParameterError
from graphanon.graph import Graph

BIG = 10**9


def _graph(n: int, p: float, seed: int) -> Graph:
    rng = np.random.default_rng(seed)
    iu = np.triu_indices(n, 1)
    keep = rng.random(iu[0].size) < p
    return Graph.from_edges(iu[0][keep], iu[1][keep], n_nodes=n)


def _edges(G: Graph) -> list[tuple[int, int]]:
    u, v = G.edges()
    return list(zip(u.tolist(), v.tolist(), strict=True))


def _peak_numpy_bytes(f):  # type: ignore[no-untyped-def]
    """Run ``f`` and return (result, peak bytes of the numpy/Python allocations it made)."""
    f()  # warm-up: numba loads its compiled kernels (Python objects) on the first call
    tracemalloc.start()
    try:
        out = f()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_2k_table_naming_degree_1e9_needs_little_memory() -> None:
    # the three-line table of the issue: a degree of 10^9 held by one node
    table = DKDistribution("joint_degree", [[1, BIG], [BIG, BIG], [5, BIG]], [3, 1, 2])
    S, peak = _peak_numpy_bytes(lambda: generate_2k(table, rng=np.random.default_rng(0)))
    assert peak < 2**20  # a dense degree x degree or degree-sized array would be gigabytes
    assert not S.exact and S.graph.n_nodes == 5
    assert S.graph.degrees.max() <= S.graph.n_nodes - 1
    feas = jdd_feasible(table.degrees, table.counts)
    assert feas["degrees"].tolist() == [1, 5, BIG]  # indexed by distinct degree
    assert feas["n_k"].tolist() == [3, 1, 1]


def test_2k_implied_graph_too_large_is_refused_up_front() -> None:
    table = DKDistribution("joint_degree", [[1, BIG]], [BIG])
    assert generate_2k_memory(table)["nodes"] == BIG + 1
    with pytest.raises(InvalidParameterError, match=r"implied 1,000,000,001 nodes"):
        generate_2k(table, rng=np.random.default_rng(0))


def test_2k_memory_estimate_is_linear() -> None:
    D = dk_distribution(load_polbooks(), 2)
    est = generate_2k_memory(D)
    assert (est["nodes"], est["edges"]) == (105, 441)
    assert est["bytes"] == 64 * 105 + 8 * 2 * 441 + 40 * 441  # feasible: slots = degrees


def test_2k_refused_by_the_memory_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    D = dk_distribution(load_polbooks(), 2)
    monkeypatch.setenv(ENV_VAR, "10KiB")
    with pytest.raises(InvalidParameterError, match=r"generate_2k.*105 nodes and 441 edges"):
        generate_2k(D, rng=np.random.default_rng(0))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 40), p=st.floats(0.05, 0.9), seed=st.integers(0, 10_000))
def test_2k_blocks_do_not_change_the_graph(n: int, p: float, seed: int) -> None:
    D = dk_distribution(_graph(n, p, seed), 2)
    calls: list[tuple[str, int, int]] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gen, "SMALL_2K_EDGES", -1)  # the numba kernel, in blocks
        whole = generate_2k(D, rng=np.random.default_rng(seed))
        mp.setattr(gen, "_MIN_BLOCK_EDGES", 1)
        blocked = generate_2k(D, rng=np.random.default_rng(seed),
                              progress=lambda t, d, m: calls.append((t, d, m)))
    assert whole.exact and blocked.exact
    assert _edges(blocked.graph) == _edges(whole.graph)  # one random stream across blocks
    placement = [(d, m) for t, d, m in calls if t == "2K placement"]
    if D.total:
        assert placement[0] == (0, D.total) and placement[-1] == (D.total, D.total)
    assert [d for d, _ in placement] == sorted(d for d, _ in placement)


def test_2k_deviation_matches_a_dense_reference() -> None:
    # unrealizable: s_2 = 3 is odd, m(1, 1) = 5 exceeds C(n_1, 2)
    table = DKDistribution("joint_degree", [[1, 1], [1, 2], [3, 7], [2, 9]], [5, 3, 4, 7])
    S = generate_2k(table, rng=np.random.default_rng(0))
    h = max(9, int(S.graph.degrees.max()))
    want = np.zeros((h + 1, h + 1))
    for (a, b), c in table.as_dict().items():
        want[a, b] += c
    got = np.zeros_like(want)
    deg = S.graph.degrees
    for a, b in _edges(S.graph):
        lo, hi = sorted((int(deg[a]), int(deg[b])))
        got[lo, hi] += 1
    assert S.deviation["2k_l1"] == np.abs(want - got).sum()
    n_k = collections.Counter()
    for (a, b), c in table.as_dict().items():
        n_k[a] += c
        n_k[b] += c
    target_1k = {k: -(-s // k) for k, s in n_k.items()}
    real_1k = collections.Counter(deg.tolist())
    keys = set(target_1k) | set(real_1k)
    assert S.deviation["1k_l1"] == sum(abs(target_1k.get(k, 0) - real_1k.get(k, 0))
                                       for k in keys)


def test_1k_huge_degree_is_capped_and_small() -> None:
    table = DKDistribution("degree", [[BIG], [1]], [2, 3])
    S, peak = _peak_numpy_bytes(lambda: generate_1k(table, rng=np.random.default_rng(0)))
    assert peak < 2**20
    assert S.method == "configuration-model-erased" and not S.exact
    assert S.graph.n_nodes == 5 and S.graph.degrees.max() <= 4
    assert generate_1k_memory(table)["edges"] == (2 * 4 + 3) // 2


def test_1k_refused_up_front() -> None:
    table = DKDistribution("degree", [[BIG]], [BIG])  # 10^9 nodes of degree 10^9 - 1
    with pytest.raises(InvalidParameterError, match=r"generate_1k.*1,000,000,000 nodes"):
        generate_1k(table, rng=np.random.default_rng(0))


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 50), p=st.floats(0.0, 1.0), seed=st.integers(0, 10_000))
def test_1k_switching_keeps_degrees_and_progress(n: int, p: float, seed: int) -> None:
    G = _graph(n, p, seed)
    D = dk_distribution(G, 1)
    calls: list[tuple[str, int, int]] = []
    S = generate_1k(D, rng=np.random.default_rng(seed),
                    progress=lambda t, d, m: calls.append((t, d, m)))
    assert S.exact and S.method == "havel-hakimi+edge-switching"
    assert sorted(S.graph.degrees.tolist()) == sorted(G.degrees.tolist())
    switching = [(d, m) for t, d, m in calls if t == "1K edge switching"]
    assert switching[-1] == (10 * G.n_edges, 10 * G.n_edges)


def test_1k_switching_samples_all_realizations() -> None:
    # the degree sequence (1, 1, 1, 1) has three realizations, each equally likely under
    # the switching chain; Havel-Hakimi alone always gives the same one
    seen: collections.Counter = collections.Counter()
    table = DKDistribution("degree", [[1]], [4])
    for s in range(300):
        seen[tuple(_edges(generate_1k(table, rng=np.random.default_rng(s)).graph))] += 1
    assert len(seen) == 3
    assert stats.chisquare(list(seen.values())).pvalue > 1e-3
    # 2-regular on 5 nodes: the 12 labelled 5-cycles
    seen.clear()
    table = DKDistribution("degree", [[2]], [5])
    for s in range(240):
        seen[tuple(_edges(generate_1k(table, rng=np.random.default_rng(s)).graph))] += 1
    assert len(seen) == 12
    assert stats.chisquare(list(seen.values())).pvalue > 1e-3


def test_1k_seeds_reproduce_and_differ() -> None:
    D = dk_distribution(load_polbooks(), 1)
    a = generate_1k(D, rng=np.random.default_rng(5)).graph
    b = generate_1k(D, rng=np.random.default_rng(5)).graph
    c = generate_1k(D, rng=np.random.default_rng(6)).graph
    assert _edges(a) == _edges(b) and _edges(a) != _edges(c)


def test_hash_set_deletion_keeps_lookups_right() -> None:
    # backward-shift deletion in a tiny table with wrap-around clusters
    rng = np.random.default_rng(0)
    table = np.full(16, -1, dtype=np.int64)
    present: set[int] = set()
    for _ in range(2000):
        key = int(rng.integers(0, 40))
        if key in present:
            kern._set_delete(table, kern._set_find(table, key))
            present.discard(key)
        elif len(present) < 12:
            kern._set_insert(table, key)
            present.add(key)
        assert all(kern._set_find(table, k) >= 0 for k in present)
        assert all(kern._set_find(table, k) < 0 for k in range(40) if k not in present)


def test_cli_generate_refuses_huge_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    table = tmp_path / "huge.tsv"
    table.write_text("# graphanon dK table: kind=joint_degree\ndegree1\tdegree2\tcount\n"
                     f"1\t{BIG}\t{BIG}\n")
    out = tmp_path / "g.txt"
    assert main(["-q", "generate", str(table), "--d", "2", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "implied 1,000,000,001 nodes" in err
    assert not out.exists()
    small = tmp_path / "small.tsv"
    small.write_text("# graphanon dK table: kind=joint_degree\ndegree1\tdegree2\tcount\n"
                     f"1\t{BIG}\t3\n{BIG}\t{BIG}\t1\n")
    assert main(["generate", str(small), "--d", "2", "--seed", "1", "--out", str(out)]) == 0
    text = "".join(capsys.readouterr())  # progress bars on stderr, messages on stdout
    assert "2K placement" in text and "target not realizable" in text
    assert Path(out).exists()
