"""Node-level releases range over non-isolated nodes: the star-versus-empty-file attack.

An edge list cannot hold an isolated node, so a 100-leaf star and the empty file are node
neighbours (remove the centre and every leaf goes with it). Before the fix the θ-dK1 vector
moved by 101 where 2θ + 1 = 5 is claimed, RPS's private node count by 101 (sensitivity 1
claimed) and its split quality by 42, and every node-PDP method by 101.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from graphanon.dk.personalized import personalized_query, release_personalized
from graphanon.dk.preferences import from_pairs
from graphanon.graph import Graph
from graphanon.io.files import read_graph
from graphanon.nodedp.degree_sequences import (
    laplace_degree_sequence,
    rank_envelope,
    rps_degree_sequence,
)
from graphanon.nodedp.projection import project
from graphanon.nodedp.theta_dk import (
    node_dk_query,
    node_sensitivity,
    non_isolated_count,
    plain_node_dk_release,
    theta_dk_release,
)
from graphanon.privacy.noise import InsecureNoiseWarning, get_backend
from graphanon.privacy.sensitivity_audit import (
    audit_sensitivity,
    neighbouring_pairs,
    remove_node_from_edge_list,
)

THETA = 2
KEY = 12345
DATA = Path(__file__).parent / "data"


def star(leaves: int = 100) -> Graph:
    return Graph.from_edges(np.zeros(leaves, np.int64), np.arange(1, leaves + 1))


EMPTY = Graph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), n_nodes=0)


def l1(a, b) -> float:
    return float(np.abs(np.asarray(a, np.int64) - np.asarray(b, np.int64)).sum())


def insecure(seed: int):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        return get_backend("numpy-insecure", rng=np.random.default_rng(seed))


def test_the_generator_pairs_a_star_with_the_empty_file() -> None:
    G = star(7)
    pairs = [H for H, desc, _ in neighbouring_pairs(G, neighbourhood="node")
             if "from an edge list" in desc]
    assert any(H.n_nodes == 0 for H in pairs)
    assert remove_node_from_edge_list(star(100), 0).n_nodes == 0


@pytest.mark.parametrize("d", [1, 2])
def test_theta_dk_vector_star_versus_empty(d: int) -> None:
    def f(G: Graph) -> np.ndarray:
        return node_dk_query(project(G, theta=THETA, method="ead", key=KEY).graph, d, THETA)

    assert l1(f(star()), f(EMPTY)) <= node_sensitivity(d, THETA)
    # the release itself: the same noise draws on both sides, so the difference is the query's
    a = theta_dk_release(star(), d=d, epsilon=1.0, theta=THETA, key=KEY, backend=insecure(0))
    b = theta_dk_release(EMPTY, d=d, epsilon=1.0, theta=THETA, key=KEY, backend=insecure(0))
    assert l1(a.noisy, b.noisy) <= node_sensitivity(d, THETA)
    assert a.release.params["node_set"].startswith("non-isolated")
    if d == 1:
        assert a.table.degrees.min() >= 1  # no degree-0 bin


def test_plain_node_release_star_versus_empty() -> None:
    a = plain_node_dk_release(star(4), d=1, epsilon=1.0, degree_bound=4, backend=insecure(0))
    b = plain_node_dk_release(EMPTY, d=1, epsilon=1.0, degree_bound=4, backend=insecure(0))
    assert l1(a.noisy, b.noisy) <= a.release.sensitivity


def test_laplace_degree_sequence_star_versus_empty() -> None:
    a = laplace_degree_sequence(star(), epsilon=1.0, theta=THETA, key=KEY, backend=insecure(0))
    b = laplace_degree_sequence(EMPTY, epsilon=1.0, theta=THETA, key=KEY, backend=insecure(0))
    assert a.degrees.min() >= 1
    # the sequences come from clipped noisy 1K vectors that differ by <= 2θ + 1 counts
    ha = np.bincount(a.degrees, minlength=THETA + 1)[1:]
    hb = np.bincount(b.degrees, minlength=THETA + 1)[1:]
    assert l1(ha, hb) <= 2 * THETA + 1


def test_rps_star_versus_empty() -> None:
    # the private node count: non-isolated nodes of the EAD count_theta projection
    assert abs(non_isolated_count(star(), theta=THETA, key=KEY)
               - non_isolated_count(EMPTY, theta=THETA, key=KEY)) <= THETA + 1
    # the split quality's rank envelope moves by <= c + 1 (Δq = 1 with the divisor c + 1)
    for N in (1, 50, 101, 500):
        for c in (1.0, 4.0):
            V = rank_envelope(star().degrees, max_degree=8, rank_scale=c, n_total=N)
            W = rank_envelope(EMPTY.degrees, max_degree=8, rank_scale=c, n_total=N)
            assert np.abs(V - W).max() <= c + 1 + 1e-9
    r = rps_degree_sequence(star(), epsilon=4.0, key=KEY, backend=insecure(0))
    assert r.release.params["node_count_theta"] == 8 and r.degrees.min() >= 1


def test_node_count_audit_over_edge_list_pairs() -> None:
    from graphanon.privacy.sensitivity_audit import random_graphs, small_graphs

    graphs = [*small_graphs()[:60], *random_graphs((30, 80), rng=np.random.default_rng(3)),
              star(30)]
    res = audit_sensitivity(lambda G: [non_isolated_count(G, theta=3, key=KEY)], graphs,
                            neighbourhood="node", claimed=4, n_samples=40,
                            rng=np.random.default_rng(0))
    assert res.passed, str(res)
    # the plain count of nodes with an edge is what the attack breaks
    res = audit_sensitivity(lambda G: [int((G.degrees > 0).sum())], [star(30)],
                            neighbourhood="node", claimed=4, n_samples=40,
                            rng=np.random.default_rng(0))
    assert not res.passed and res.max_observed == 31


@pytest.mark.parametrize("method", ["min", "ll", "tp", "st", "ag"])
@pytest.mark.parametrize("d", [1, 2])
def test_node_pdp_query_star_versus_empty(method: str, d: int) -> None:
    kw = {"mu": 0.5} if method in ("tp", "st") else {"k": 2} if method == "ag" else {}

    def f(G: Graph) -> np.ndarray:
        eps = np.full(G.n_nodes, 1.0)
        return personalized_query(G, eps, d=d, privacy="node", method=method, h=THETA,
                                  eps_min=1.0, key=KEY, **kw).values

    assert l1(f(star()), f(EMPTY)) <= node_sensitivity(d, THETA)


def test_node_pdp_release_star_versus_empty() -> None:
    prefs = from_pairs([], [], default=1.0)
    a = release_personalized(star(), prefs, d=1, neighbourhood="node", method="min", theta=THETA,
                             key=KEY, backend=insecure(0), rng=np.random.default_rng(0))
    b = release_personalized(EMPTY, prefs, d=1, neighbourhood="node", method="min", theta=THETA,
                             key=KEY, backend=insecure(0), rng=np.random.default_rng(0))
    assert l1(a.noisy, b.noisy) <= node_sensitivity(1, THETA)
    assert a.table.degrees.min(initial=1) >= 1


def test_real_graph_node_removal_from_the_edge_list() -> None:
    """ca-GrQc's node 14265 has six neighbours of degree 1: removing it from the file moved
    the θ = 2 1K vector by 7 > 5 (a loss of 1.40 at a claimed ε = 1)."""
    G = _read_grqc()
    x = int(G.index_of([14265])[0])
    H = remove_node_from_edge_list(G, x)
    assert G.n_nodes - H.n_nodes >= 7

    def f(G: Graph) -> np.ndarray:
        return node_dk_query(project(G, theta=THETA, method="ead", key=KEY).graph, 1, THETA)

    assert l1(f(G), f(H)) <= node_sensitivity(1, THETA)


def _read_grqc() -> Graph:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_graph(DATA / "CA-GrQc.txt.gz")


def test_cli_node_releases_on_an_edge_list(tmp_path) -> None:
    import json

    from graphanon.cli import main
    from graphanon.io.dk_tables import read_dk_table

    src = tmp_path / "star.txt"
    src.write_text("".join(f"0 {i}\n" for i in range(1, 101)))
    out, rep = tmp_path / "k.tsv", tmp_path / "k.json"
    assert main(["-q", "release-dk", str(src), "--d", "1", "--neighbourhood", "node", "--epsilon",
                 "1", "--theta", "2", "--noise", "numpy-insecure", "--seed", "3", "--out",
                 str(out), "--report", str(rep)]) == 0
    table = read_dk_table(out)
    assert table.degrees.min() >= 1
    params = json.loads(rep.read_text())["release"]["params"]
    assert params["domain"] == "degrees 1..theta" and "non-isolated" in params["node_set"]
    seq, srep = tmp_path / "s.tsv", tmp_path / "s.json"
    assert main(["-q", "release-degrees", str(src), "--epsilon", "2", "--count-theta", "4",
                 "--noise", "numpy-insecure", "--seed", "1", "--out", str(seq),
                 "--report", str(srep)]) == 0
    params = json.loads(srep.read_text())["release"]["params"]
    assert params["node_count_theta"] == 4 and params["max_nodes_source"] == "private estimate"
    assert read_dk_table(seq).degrees.min() >= 1
    bad = tmp_path / "bad.tsv"
    assert main(["-q", "release-degrees", str(src), "--epsilon", "2", "--count-theta", "4",
                 "--max-nodes", "100", "--out", str(bad)]) == 2
    assert not bad.exists()
