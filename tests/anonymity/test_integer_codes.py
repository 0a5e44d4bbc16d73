"""Issue 16 part 1: ids are aligned once and every check runs on integer codes.

String-keyed and integer-keyed copies of the same graph must give the same verification,
the same metrics and the same release; the helpers that replace numpy's object-array
``isin`` / ``unique`` are checked against their obvious definitions.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.anonymity import release_clusters, smooth_k_anonymity, verify_smooth_k
from graphanon.anonymity._align import _group_rows_dict, group_rows, index_in, unique_sorted
from graphanon.graph import BipartiteGraph
from graphanon.metrics import edge_set_metrics


def random_graph(n: int, m: int, p: float, seed: int) -> BipartiteGraph:
    rng = np.random.default_rng(seed)
    return BipartiteGraph.from_scipy((rng.random((n, m)) < p).astype(np.int8))


def as_strings(B: BipartiteGraph, *, users: str = "user-", feats: str = "f") -> BipartiteGraph:
    """The same graph keyed by strings (the order of ids changes: '10' < '9')."""
    r, c = B.edges()
    uid = np.array([f"{users}{i}" for i in range(B.n_users)], dtype=object)
    fid = np.array([f"{feats}{j}" for j in range(B.n_features)], dtype=object)
    return BipartiteGraph.from_pairs(uid[r], fid[c], all_users=uid, all_features=fid)


# ---------------------------------------------------------------------- helpers
def test_index_in_integer_text_and_mixed_ids() -> None:
    ref = np.array([10, 3, 7, 42], dtype=np.int64)
    assert index_in(np.array([7, 10, 5, 42]), ref).tolist() == [2, 0, -1, 3]
    assert index_in(ref, ref).tolist() == [0, 1, 2, 3]
    text = np.array(["b", "a", "x7"], dtype=object)
    assert index_in(np.array(["x7", "a", "zz"], dtype=object), text).tolist() == [2, 1, -1]
    # canonical encoding: an int id and its decimal text are the same id, "007" is not 7
    mixed = np.array(["7", "a", "3"], dtype=object)
    assert index_in(np.array([3, 7, 8]), mixed).tolist() == [2, 0, -1]
    assert index_in(np.array(["007", "10"], dtype=object), ref).tolist() == [-1, 0]
    assert index_in(np.zeros(0, dtype=object), text).tolist() == []


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 60), m=st.integers(1, 12), p=st.floats(0.0, 0.7),
       seed=st.integers(0, 1000))
def test_group_rows_labels_equal_rows_alike(n: int, m: int, p: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    dense = rng.random((n, m)) < p
    dense[rng.random(n) < 0.3] = dense[0] if n else dense[:0]  # many repeated rows
    B = BipartiteGraph.from_scipy(dense.astype(np.int8))
    labels, n_groups = group_rows(B.indptr, B.indices)
    ref, n_ref = _group_rows_dict(np.asarray(B.indptr, np.int64),
                                  np.asarray(B.indices, np.int64))
    assert n_groups == n_ref
    assert labels.tolist() == ref.tolist()  # both number groups by their first row


def test_unique_sorted_matches_numpy() -> None:
    x = np.random.default_rng(0).integers(-50, 50, 1000)
    assert np.array_equal(unique_sorted(x), np.unique(x))
    assert unique_sorted(np.zeros(0, dtype=np.int64)).size == 0


# ---------------------------------------------------------------------- same answers
def test_verify_and_metrics_do_not_depend_on_the_id_type() -> None:
    Bi = random_graph(120, 30, 0.15, 1)
    Bs = as_strings(Bi)
    ri = smooth_k_anonymity(Bi, k=4, rng=np.random.default_rng(2), restarts=2)
    # the string graph orders users differently; release the same clustering by id
    pos = Bs.user_index_of(np.array([f"user-{i}" for i in range(Bi.n_users)], dtype=object))
    cl = np.empty(Bs.n_users, dtype=np.int64)
    cl[pos] = ri.clusters
    rs = release_clusters(Bs, cl)
    a, b = verify_smooth_k(Bi, ri.anonymized, 4), verify_smooth_k(Bs, rs, 4)
    assert a.ok and b.ok
    assert (a.n_classes, a.min_class_size, a.is_suppression) == (
        b.n_classes, b.min_class_size, b.is_suppression)
    assert edge_set_metrics(Bi, ri.anonymized) == pytest.approx(edge_set_metrics(Bs, rs))


def test_verify_matches_users_by_id_across_graphs() -> None:
    B = as_strings(random_graph(40, 10, 0.3, 3))
    res = smooth_k_anonymity(B, k=4, rng=np.random.default_rng(0), restarts=2)
    # the release read back from a file: only users with a non-empty set, in another order
    r, c = res.anonymized.edges()
    order = np.random.default_rng(1).permutation(r.size)
    back = BipartiteGraph.from_pairs(res.anonymized.user_ids[r][order],
                                     res.anonymized.feature_ids[c][order])
    rep = verify_smooth_k(B, back, 4)
    assert rep.ok, rep.violations
    assert edge_set_metrics(B, back)["jaccard"] == pytest.approx(res.jaccard)
    # an unknown user or feature is reported, not matched by position
    stranger = BipartiteGraph.from_pairs(np.array(["nobody"] * 4, dtype=object),
                                         np.array(["f1", "f2", "zz", "f3"], dtype=object))
    rep = verify_smooth_k(B, stranger, 2)
    assert not rep.ok and rep.unknown_users == 1
    assert any("features are not in the original" in v for v in rep.violations)
    # the metrics put both id sets in one index space: the stranger's cells are all created
    m = edge_set_metrics(B, stranger)
    assert m["jaccard"] == 0.0 and m["created"] == pytest.approx(4 / (B.n_edges + 4))


def test_integer_and_string_ids_give_the_same_sharded_release() -> None:
    """The algorithm sees only index arrays: relabelling ids (keeping their order) does not
    change the release."""
    Bi = random_graph(300, 40, 0.1, 5)
    r, c = Bi.edges()
    # zero-padded names sort like the integers, so indices are unchanged
    uid = np.array([f"u{i:04d}" for i in range(Bi.n_users)], dtype=object)
    fid = np.array([f"f{j:03d}" for j in range(Bi.n_features)], dtype=object)
    Bs = BipartiteGraph.from_pairs(uid[r], fid[c], all_users=uid, all_features=fid)
    kw = {"k": 5, "restarts": 2, "shard_size": 60}
    a = smooth_k_anonymity(Bi, rng=np.random.default_rng(9), **kw)
    b = smooth_k_anonymity(Bs, rng=np.random.default_rng(9), **kw)
    assert np.array_equal(a.clusters, b.clusters)
    assert np.array_equal(a.anonymized.indices, b.anonymized.indices)
    assert a.jaccard == b.jaccard
