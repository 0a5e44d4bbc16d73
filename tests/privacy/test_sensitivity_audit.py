"""The sensitivity audit harness catches false calibrations and accepts true ones.

1K histogram ``h[d] = #{v : deg(v) = d}`` under edge-DP: flipping edge (u, v) moves u from bin
d_u to d_u ± 1 and v from bin d_v to d_v ± 1. Each move changes two bins by one (L1 2), so the
total is at most 4, reached when d_u = d_v (bin d loses 2, bin d ± 1 gains 2); when
|d_u − d_v| = 1 the moves partly cancel (L1 2). The degree *sequence* (sorted degrees, fixed n)
changes by exactly 2. Under node-DP the histogram's change grows with the removed degree:
2·deg + 1, unbounded without a degree bound.
"""

from __future__ import annotations

import numpy as np
import pytest

from graphanon.datasets import load_polbooks
from graphanon.errors import InvalidParameterError
from graphanon.graph import Graph
from graphanon.privacy.sensitivity_audit import (
    all_graphs,
    audit_personalized,
    audit_sensitivity,
    l1_change,
    neighbouring_pairs,
    random_graphs,
    small_graphs,
)


def degree_histogram(G: Graph) -> np.ndarray:
    return np.bincount(G.degrees)


def degree_sequence(G: Graph) -> np.ndarray:
    return np.sort(G.degrees)


@pytest.fixture(scope="module")
def family():
    return small_graphs() + random_graphs((30, 200), rng=np.random.default_rng(3)) + [
        load_polbooks()
    ]


def test_false_claim_of_one_for_1k_histogram_fails(family):
    res = audit_sensitivity(degree_histogram, family, neighbourhood="edge", claimed=1,
                            rng=np.random.default_rng(0))
    assert not res.passed
    assert res.max_observed == 4
    G, H, _desc = res.worst_pair
    assert l1_change(degree_histogram(G), degree_histogram(H)) == 4
    assert "FAILED" in str(res)


def test_claim_of_two_for_1k_histogram_also_fails():
    # the tempting "one edge, two endpoints" answer is wrong for the histogram
    res = audit_sensitivity(degree_histogram, small_graphs(), neighbourhood="edge", claimed=2)
    assert not res.passed and res.max_observed == 4


def test_correct_claim_for_1k_histogram_passes(family):
    res = audit_sensitivity(degree_histogram, family, neighbourhood="edge", claimed=4,
                            rng=np.random.default_rng(0))
    assert res.passed and res.max_observed == 4
    assert res.n_pairs > 1000


def test_degree_sequence_has_sensitivity_two(family):
    res = audit_sensitivity(degree_sequence, family, neighbourhood="edge", claimed=2,
                            rng=np.random.default_rng(0))
    assert res.passed and res.max_observed == 2


def test_node_dp_histogram_grows_with_degree():
    star = Graph.from_edges(np.zeros(7, dtype=np.int64), np.arange(1, 8), n_nodes=8)
    res = audit_sensitivity(degree_histogram, [star], neighbourhood="node", claimed=4)
    assert not res.passed
    # worst: adding a 9th node joined to all 8 (degree 8): 2·8 + 1. (Removing the centre
    # gives 2·7 + 1 = 15: bin 7 −1, bin 1 −7, bin 0 +7.)
    assert res.max_observed == 2 * 8 + 1
    removals = audit_sensitivity(degree_histogram, [star], neighbourhood="node", claimed=15,
                                 max_added_degree=0)
    assert removals.passed and removals.max_observed == 15


def test_node_dp_with_degree_truncation_passes():
    """On graphs of max degree ≤ θ (neighbours too), the histogram changes by ≤ 2θ + 1."""
    theta = 3

    def capped_hist(G):  # degrees 1..θ: the node set is the non-isolated nodes
        return np.bincount(np.minimum(G.degrees, theta), minlength=theta + 1)[1:]

    graphs = [g for g in small_graphs() if g.n_nodes == 0 or g.degrees.max() <= theta]
    res = audit_sensitivity(capped_hist, graphs, neighbourhood="node", claimed=2 * theta + 1,
                            max_added_degree=theta)
    assert res.passed
    assert res.max_observed == 2 * theta + 1
    # with a degree-0 bin, the edge-list pairs (neighbours vanishing with the node) break it
    res = audit_sensitivity(lambda G: np.bincount(np.minimum(G.degrees, theta),
                                                  minlength=theta + 1),
                            graphs, neighbourhood="node", claimed=2 * theta + 1,
                            max_added_degree=theta)
    assert not res.passed and "from an edge list" in res.worst_pair[2]


def test_exhaustive_neighbours_counts():
    G = Graph.from_edges([0, 1], [1, 2], n_nodes=4)
    assert len(list(neighbouring_pairs(G, neighbourhood="edge"))) == 6
    # 4 removals, each also as an edge list holds it (node 3 has no edge), + 2**4 additions
    assert len(list(neighbouring_pairs(G, neighbourhood="node"))) == 4 + 4 + 16
    assert sum(1 for _ in all_graphs(4)) == 64


def test_l1_change_pads_and_maps():
    assert l1_change([1, 2], [1, 2, 3]) == 3
    assert l1_change({(1, 2): 2}, {(1, 2): 1, (2, 2): 1}) == 2


def test_validation():
    with pytest.raises(InvalidParameterError, match="'neighbourhood' parameter"):
        audit_sensitivity(degree_histogram, small_graphs(), neighbourhood="vertex", claimed=1)
    with pytest.raises(InvalidParameterError, match="no neighbouring pairs"):
        audit_sensitivity(degree_histogram, [], neighbourhood="edge", claimed=1)


# ---------------------------------------------------------------------- personalized
def _node_counts(G: Graph) -> np.ndarray:
    """Per-node-slot degree vector over a public domain of 8 slots (node ids 0..7)."""
    out = np.zeros(8)
    out[np.asarray(G.node_ids, dtype=np.int64)] = G.degrees
    return out


def _eps(G: Graph) -> np.ndarray:
    return 0.5 + 0.25 * (np.asarray(G.node_ids, dtype=np.int64) % 3)


def test_personalized_audit_accepts_sound_scales_and_rejects_unsound():
    graphs = [g for g in small_graphs() if g.n_nodes <= 6]
    # edge flip (u, v) changes slots u and v by one each: loss 1/b_u + 1/b_v. Scales
    # b_i = 2 / ε_min with ε_min = 0.5 give loss ≤ ε_min ≤ min(ε_u, ε_v).
    sound = audit_personalized(_node_counts, lambda G: np.full(8, 2 / 0.5), _eps, graphs,
                               neighbourhood="edge")
    assert sound.passed and sound.max_loss_ratio <= 1
    # naive per-node scales 1 / ε_i ignore that the other endpoint's slot changes too
    naive = audit_personalized(_node_counts, lambda G: 1 / (0.5 + 0.25 * (np.arange(8) % 3)),
                               _eps, graphs, neighbourhood="edge")
    assert not naive.passed and naive.max_loss_ratio > 1.5
    data_dep = audit_personalized(_node_counts, lambda G: np.full(8, 1.0 + G.n_edges), _eps,
                                  graphs, neighbourhood="edge")
    assert not data_dep.passed and "depend on the data" in data_dep.worst
