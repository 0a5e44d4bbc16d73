"""Smooth-k-anonymity engine: guarantees, kernels against brute force, sharding, baselines."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.anonymity import _kernels as K
from graphanon.anonymity import (
    lsh_shards,
    mondrian,
    mondrian_table,
    release_clusters,
    smooth_k_anonymity,
    verify_smooth_k,
)
from graphanon.anonymity.smooth_k import _points
from graphanon.errors import InfeasibleError, InvalidParameterError
from graphanon.graph import BipartiteGraph
from graphanon.metrics import edge_set_metrics


def random_bipartite(n: int, m: int, p: float, seed: int) -> BipartiteGraph:
    rng = np.random.default_rng(seed)
    dense = rng.random((n, m)) < p
    return BipartiteGraph.from_scipy(dense.astype(np.int8))


def sbm(n_blocks: int, users: int, feats: int, p_in: float, p_out: float,
        seed: int) -> BipartiteGraph:
    rng = np.random.default_rng(seed)
    ub = np.repeat(np.arange(n_blocks), users)
    fb = np.repeat(np.arange(n_blocks), feats)
    p = np.where(ub[:, None] == fb[None, :], p_in, p_out)
    return BipartiteGraph.from_scipy((rng.random(p.shape) < p).astype(np.int8))


# ---------------------------------------------------------------------- guarantees
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 60), m=st.integers(1, 40), p=st.floats(0.0, 0.6),
       k=st.integers(2, 9), seed=st.integers(0, 10_000),
       variant=st.sampled_from(["smooth", "suppress"]),
       postprocess=st.sampled_from(["simple", "paper"]),
       search=st.sampled_from(["bits", "sparse"]))
def test_every_release_is_smooth_k_anonymous(n: int, m: int, p: float, k: int, seed: int,
                                             variant: str, postprocess: str,
                                             search: str) -> None:
    B = random_bipartite(n, m, p, seed)
    if n < k:
        with pytest.raises(InfeasibleError):
            smooth_k_anonymity(B, k=k, rng=np.random.default_rng(seed))
        return
    res = smooth_k_anonymity(B, k=k, rng=np.random.default_rng(seed), variant=variant,
                             postprocess=postprocess, search=search, restarts=2)
    assert np.bincount(res.clusters).min() >= k
    rep = verify_smooth_k(B, res.anonymized, k)
    assert rep.ok, rep.violations
    if variant == "suppress":
        assert rep.is_suppression
    assert res.jaccard + res.suppressed + res.created == pytest.approx(1.0)
    # all members of a cluster get the same released set
    dense = res.anonymized.to_dense()
    for c in np.unique(res.clusters):
        rows = dense[res.clusters == c]
        assert (rows == rows[0]).all()


def test_paper_postprocess_keeps_clusters_below_2k_when_merging() -> None:
    B = random_bipartite(300, 30, 0.2, 1)
    res = smooth_k_anonymity(B, k=5, rng=np.random.default_rng(3), postprocess="paper")
    assert res.min_cluster_size >= 5
    assert verify_smooth_k(B, res.anonymized, 5).ok


def test_same_seed_same_release() -> None:
    B = random_bipartite(120, 25, 0.25, 2)
    a = smooth_k_anonymity(B, k=4, rng=np.random.default_rng(7))
    b = smooth_k_anonymity(B, k=4, rng=np.random.default_rng(7))
    assert a.anonymized == b.anonymized
    assert np.array_equal(a.clusters, b.clusters)


def test_identical_users_form_their_own_clusters() -> None:
    # two groups of 6 identical users with disjoint features: a perfect release exists
    rows = [0, 1, 2] * 6 + [3, 4] * 6
    users = np.repeat(np.arange(12), [3] * 6 + [2] * 6)
    B = BipartiteGraph.from_indices(users, rows, n_users=12, n_features=5)
    res = smooth_k_anonymity(B, k=3, rng=np.random.default_rng(0))
    assert res.jaccard == 1.0
    assert res.n_clusters == 2


def test_smooth_beats_suppression_on_block_model() -> None:
    B = sbm(6, 40, 30, 0.7, 0.02, seed=5)
    kw = {"k": 8, "restarts": 3}
    smooth = smooth_k_anonymity(B, rng=np.random.default_rng(1), **kw)
    supp = smooth_k_anonymity(B, rng=np.random.default_rng(1), variant="suppress", **kw)
    mond = mondrian(B, k=8)
    # section 4.2 of 000_*.txt: the block clustering keeps a constant fraction under smooth
    # anonymity while any suppression keeps almost nothing
    block = edge_set_metrics(B, release_clusters(B, np.repeat(np.arange(6), 40)))
    assert smooth.jaccard >= block["jaccard"] - 0.02
    assert smooth.jaccard > 0.55
    assert supp.jaccard < 0.1 and mond.jaccard < 0.15


# ---------------------------------------------------------------------- release rule
def test_release_majority_and_intersection() -> None:
    # one cluster of 4 users: f0 held by 3 (majority), f1 by 2 (tie: not strict), f2 by 4
    users = [0, 1, 2, 0, 1, 0, 1, 2, 3]
    feats = [0, 0, 0, 1, 1, 2, 2, 2, 2]
    B = BipartiteGraph.from_indices(users, feats, n_users=4, n_features=3)
    smooth = release_clusters(B, np.zeros(4, dtype=np.int64), variant="smooth")
    supp = release_clusters(B, np.zeros(4, dtype=np.int64), variant="suppress")
    assert smooth.to_dense().tolist() == [[True, False, True]] * 4
    assert supp.to_dense().tolist() == [[False, False, True]] * 4


# ---------------------------------------------------------------------- kernels vs brute force
def _brute_dist(B: BipartiteGraph) -> np.ndarray:
    D = B.to_dense().astype(np.int64)
    return (D[:, None, :] != D[None, :, :]).sum(axis=2)


@pytest.mark.parametrize("search", ["bits", "sparse"])
def test_knn_costs_match_brute_force(search: str) -> None:
    B = random_bipartite(70, 90, 0.08, 4)
    mode, bits, pptr, pind, deg, colptr, rowidx, weight, inverse = _points(
        B.indptr, B.indices, search)
    k = 5
    got = K.knn_costs(mode, bits, pptr, pind, deg, colptr, rowidx, weight, k)
    D = _brute_dist(B)
    want = np.sort(D, axis=1)[:, :k].sum(axis=1)
    # a user's point carries the cost of its row
    assert np.allclose(got[inverse], want)


@pytest.mark.parametrize("search", ["bits", "sparse"])
def test_meyerson_assigns_each_point_to_its_nearest_open_facility(search: str) -> None:
    B = random_bipartite(80, 70, 0.1, 6)
    mode, bits, pptr, pind, deg, colptr, rowidx, weight, inverse = _points(
        B.indptr, B.indices, search)
    u = weight.size
    rng = np.random.default_rng(0)
    cost_open = 2.0 * K.knn_costs(mode, bits, pptr, pind, deg, colptr, rowidx, weight, 4)
    assign, cost = K.meyerson(mode, bits, pptr, pind, deg, colptr, weight, cost_open,
                              rng.permutation(u), rng.random(u))
    first = np.unique(inverse, return_index=True)[1]
    D = _brute_dist(B)[np.ix_(first, first)]
    facilities = np.flatnonzero(assign == np.arange(u))
    assert set(np.unique(assign)) == set(facilities)
    nearest = D[:, facilities].min(axis=1)
    assert np.array_equal(D[np.arange(u), assign], nearest)
    assert cost == pytest.approx(cost_open[facilities].sum() + (weight * nearest).sum())


# ---------------------------------------------------------------------- verify
def test_verify_reports_small_classes_and_minority_features() -> None:
    B = BipartiteGraph.from_pairs(["a", "b", "c", "d"], ["x", "x", "y", "y"])
    # everybody gets x: x was held by 2 of 4 (half: allowed)
    ok = BipartiteGraph.from_pairs(["a", "b", "c", "d"], ["x"] * 4)
    assert verify_smooth_k(B, ok, 4).ok
    # everybody gets x and y... plus z unknown
    bad = BipartiteGraph.from_pairs(["a", "b", "c", "d"], ["z"] * 4)
    rep = verify_smooth_k(B, bad, 2)
    assert not rep.ok and "not in the original" in rep.violations[0]
    # a and b keep x (class of 2 < k=3); c and d lose everything (empty class of 2)
    sub = BipartiteGraph.from_pairs(["a", "b"], ["x", "x"])
    rep = verify_smooth_k(B, sub, 3)
    assert not rep.ok and rep.small_classes == 2
    assert rep.is_suppression
    assert any("condition 1" in v for v in rep.violations)
    # one feature given to a class of 4 where only 1 had it
    users = ["a", "b", "c", "d", "a", "b", "c", "d"]
    minority = BipartiteGraph.from_pairs(["a", "b", "c", "d"], ["x", "x", "y", "w"])
    rel = BipartiteGraph.from_pairs(users, ["x"] * 4 + ["y"] * 4)
    rep = verify_smooth_k(minority, rel, 2)
    assert not rep.ok and rep.majority_violations == 1 and rep.small_classes == 0
    assert any("'y'" in v and "only 1" in v for v in rep.violations)


# ---------------------------------------------------------------------- sharding
def test_lsh_shards_partition_users_and_sharded_release_verifies() -> None:
    B = sbm(10, 50, 40, 0.4, 0.01, seed=8)
    shards = lsh_shards(B, shard_size=60, rng=np.random.default_rng(0))
    sizes = [s.size for s in shards]
    assert min(sizes) >= 60 and max(sizes) < 120
    assert np.array_equal(np.sort(np.concatenate(shards)), np.arange(B.n_users))
    res = smooth_k_anonymity(B, k=5, rng=np.random.default_rng(1), shard_size=60,
                             restarts=2)
    assert verify_smooth_k(B, res.anonymized, 5).ok
    # MinHash ordering keeps blocks together: sharding loses little against one chunk
    whole = smooth_k_anonymity(B, k=5, rng=np.random.default_rng(1), restarts=2)
    assert res.jaccard > 0.6 * whole.jaccard


def test_sharding_result_does_not_depend_on_jobs() -> None:
    B = random_bipartite(200, 30, 0.2, 9)
    a = smooth_k_anonymity(B, k=4, rng=np.random.default_rng(2), shard_size=50, restarts=1)
    b = smooth_k_anonymity(B, k=4, rng=np.random.default_rng(2), shard_size=50, restarts=1,
                           n_jobs=2)
    assert a.anonymized == b.anonymized
    # n_jobs without shards would be ignored: refused (and a huge n_jobs starts no more
    # processes than shards: a result, not a fork storm)
    with pytest.raises(InvalidParameterError, match=r"'n_jobs'.*needs 'shard_size'"):
        smooth_k_anonymity(B, k=4, rng=np.random.default_rng(2), n_jobs=2)
    c = smooth_k_anonymity(B, k=4, rng=np.random.default_rng(2), shard_size=50, restarts=1,
                           n_jobs=100_000)
    assert c.anonymized == a.anonymized


# ---------------------------------------------------------------------- Mondrian
@pytest.mark.parametrize("split", ["first", "balanced"])
def test_mondrian_is_k_anonymous_by_suppression(split: str) -> None:
    B = random_bipartite(150, 20, 0.3, 10)
    res = mondrian(B, k=6, split=split)
    assert res.min_cluster_size >= 6
    rep = verify_smooth_k(B, res.anonymized, 6)
    assert rep.ok and rep.is_suppression
    assert res.created == 0.0


def test_mondrian_table_median_split_and_ncp() -> None:
    res = mondrian_table(np.array([[1.0], [2.0], [3.0], [4.0]]), k=2)
    assert res.n_clusters == 2
    assert res.ncp == pytest.approx(100 * (2 * 1 / 3 + 2 * 1 / 3) / 4)
    # k = n: nothing splits, full width on both attributes
    res = mondrian_table(np.array([[0, 5], [1, 5], [2, 6]]), k=3)
    assert res.n_clusters == 1 and res.ncp == pytest.approx(100.0)


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize(("kwargs", "match"), [
    ({"k": 0}, "'k' parameter of smooth_k_anonymity must be an int"),
    ({"k": 2, "alpha": 1.0}, "'alpha' parameter"),
    ({"k": 2, "restarts": 0}, "'restarts' parameter"),
    ({"k": 2, "variant": "x"}, "'variant' parameter"),
    ({"k": 2, "shard_size": 1}, "'shard_size' parameter"),
])
def test_bad_parameters_are_named(kwargs: dict, match: str) -> None:
    B = random_bipartite(10, 5, 0.5, 0)
    with pytest.raises(InvalidParameterError, match=match):
        smooth_k_anonymity(B, rng=np.random.default_rng(0), **kwargs)


def test_rng_must_be_a_generator() -> None:
    with pytest.raises(InvalidParameterError, match="'rng'"):
        smooth_k_anonymity(random_bipartite(10, 5, 0.5, 0), k=2, rng=0)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- real data
def test_adult_smooth_k8_quality(dataset) -> None:  # type: ignore[no-untyped-def]
    from graphanon.io.tables import load_preset

    B = load_preset(dataset("adult/adult.data"), "adult")
    res = smooth_k_anonymity(B, k=8, rng=np.random.default_rng(0), restarts=2)
    assert res.jaccard >= 0.85  # Table 1 of 001_*.txt: 85.0 %
    assert verify_smooth_k(B, res.anonymized, 8).ok
