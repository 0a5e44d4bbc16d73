"""graphanon.graph._csr: the counting kernels build the same CSR as the sorting reference."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import check_invariants, threads_and
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon import BipartiteGraph, Graph, InvalidParameterError


def _reference_csr(u: np.ndarray, v: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray,
                                                                    dict[str, int]]:
    """The sort-based construction as it was before the counting kernels (issue 16),
    frozen here as the reference: canonical a < b keys, sort-unique, two scatter passes."""
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    keep = u != v
    a, b = np.minimum(u[keep], v[keep]), np.maximum(u[keep], v[keep])
    key = np.unique(a * n + b)
    dropped = {"self_loops": int(u.size - a.size), "duplicate_edges": int(a.size - key.size)}
    a, b = key // n, key % n
    m = a.size
    lower = np.bincount(b, minlength=n)
    upper = np.bincount(a, minlength=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lower + upper, out=indptr[1:])
    indices = np.empty(2 * m, dtype=np.int32 if n - 1 <= 2**31 - 1 else np.int64)
    upper_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(upper, out=upper_start[1:])
    ranks = np.arange(m, dtype=np.int64)
    indices[indptr[a] + lower[a] + (ranks - upper_start[a])] = b
    order = np.argsort(b, kind="stable")
    bo = b[order]
    lower_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lower, out=lower_start[1:])
    indices[indptr[bo] + (ranks - lower_start[bo])] = a[order]
    return indptr.astype(np.int32 if 2 * m <= 2**31 - 1 else np.int64), indices, dropped


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Build every graph of the test with the counting kernels, however small, their passes
    cut into parts as on a large input (3 threads: parts of unequal size), in blocks of 1,000
    entries (a hub: a block of its own)."""
    from graphanon import _csr_kernels
    from graphanon.graph import _csr

    monkeypatch.setattr(_csr, "COUNTING_MIN_PAIRS", 0)
    monkeypatch.setattr(_csr_kernels, "PARALLEL_MIN", 0)
    monkeypatch.setattr(_csr_kernels, "BLOCK", 1000)
    monkeypatch.setenv("GRAPHANON_THREADS", "3")


def _building(counting: bool, threads: int = 1, block: int = 1 << 15, digit: int = 11) -> Any:
    """Inside a hypothesis test (no function fixtures): the counting kernels or the numpy
    path, the kernels' passes cut into ``threads`` parts, blocks of ``block`` entries and
    radix digits of ``digit`` bits."""
    from graphanon import _csr_kernels
    from graphanon.graph import _csr

    return threads_and(threads, (_csr, "COUNTING_MIN_PAIRS", 0 if counting else 1 << 60),
                       (_csr_kernels, "PARALLEL_MIN", 0), (_csr_kernels, "BLOCK", block),
                       (_csr_kernels, "DIGIT_BITS", digit))


pair_lists = st.integers(1, 60).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                         max_size=300)))


@given(pair_lists)
@settings(max_examples=300, deadline=None)
def test_counting_csr_equals_the_sorting_reference(case: tuple[int, list[tuple[int, int]]]
                                                   ) -> None:
    from graphanon.graph import _csr

    n, pairs = case
    u = np.array([p[0] for p in pairs], dtype=np.int64)
    v = np.array([p[1] for p in pairs], dtype=np.int64)
    ptr, idx, dropped = _reference_csr(u, v, n)
    # the numpy path for small inputs, and the counting kernels on 1, 2 and 3 threads, in
    # one block or in many (rows longer than a block alone), with one radix pass or several
    for how in ((False, 1), (True, 1), (True, 2), (True, 3), (True, 1, 8, 2), (True, 2, 3, 3),
                (True, 3, 1, 1)):
        with _building(*how):
            got: dict[str, int] = {}
            p2, i2 = _csr._csr_from_pairs(u, v, n, got)
        assert got == dropped
        assert p2.dtype == ptr.dtype and i2.dtype == idx.dtype
        assert np.array_equal(p2, ptr) and np.array_equal(i2, idx)


@pytest.mark.usefixtures("counting")
def test_counting_csr_on_a_skewed_graph() -> None:
    """A hub, loops and duplicates in both directions, beyond the small-input size."""
    rng = np.random.default_rng(7)
    n = 5000
    u = np.concatenate([np.zeros(20000, dtype=np.int64), rng.integers(0, n, 200000)])
    v = np.concatenate([rng.integers(0, n, 20000), rng.integers(0, n, 200000)])
    u, v = np.concatenate([u, v[:500]]), np.concatenate([v, u[:500]])  # reversed duplicates
    ptr, idx, dropped = _reference_csr(u, v, n)
    G = Graph.from_edges(u, v, n_nodes=n)
    assert dict(G.input_cleaning) == dropped
    assert np.array_equal(G.indptr, ptr) and np.array_equal(G.indices, idx)
    check_invariants(G)


@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 6)), max_size=80),
       st.integers(1, 3))
@settings(max_examples=150, deadline=None)
def test_counting_cells_equal_the_sorted_unique(cells: list[tuple[int, int]],
                                                threads: int) -> None:
    r = np.array([c[0] for c in cells], dtype=np.int64)
    c = np.array([c[1] for c in cells], dtype=np.int64)
    with _building(True, threads, block=4 * threads - 3, digit=threads):
        B = BipartiteGraph.from_indices(r, c, n_users=10, n_features=7)
    keys = np.unique(r * 7 + c)
    assert B.indptr.tolist() == np.searchsorted(keys, np.arange(11) * 7).tolist()
    assert B.indices.tolist() == (keys % 7).tolist()
    assert B.indices.dtype == np.int32
    assert B.input_cleaning["duplicate_pairs"] == len(cells) - keys.size


def test_threads_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphanon import _parallel

    monkeypatch.setenv("GRAPHANON_THREADS", "5")
    assert _parallel.threads() == 5
    monkeypatch.delenv("GRAPHANON_THREADS")
    assert 1 <= _parallel.threads() <= _parallel.MAX_THREADS
    for bad in ("0", "-2", "two"):
        monkeypatch.setenv("GRAPHANON_THREADS", bad)
        with pytest.raises(InvalidParameterError, match="GRAPHANON_THREADS must be a positive"):
            _parallel.threads()
