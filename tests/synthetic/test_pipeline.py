"""graphanon.synthesize: one record, the ε split, node ids, bad input, sensitivity audits.

The assertions are about the plumbing (record, split, ids, refusals, every noise call
accounted for); the edge pipeline's statistics are audited in ``test_communities.py``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import graphanon
from graphanon.datasets import load_polbooks
from graphanon.errors import InvalidParameterError
from graphanon.graph import Graph
from graphanon.nodedp.projection import project
from graphanon.privacy.noise import get_backend
from graphanon.privacy.release import Release
from graphanon.privacy.sensitivity_audit import audit_sensitivity, random_graphs, small_graphs
from graphanon.synthetic import SyntheticRelease, synthesize
from graphanon.synthetic.communities import DEFAULT_SPLIT
from graphanon.synthetic.pipeline import NODE_SPLIT

pytestmark = pytest.mark.filterwarnings("ignore::graphanon.errors.InsecureNoiseWarning")


def _insecure(seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    return {"backend": get_backend("numpy-insecure", rng=rng), "rng": rng, "seed": seed}


@pytest.fixture(scope="module")
def polbooks() -> Graph:
    return load_polbooks()


def _dense(n: int = 60, p: float = 0.3, seed: int = 1) -> Graph:
    rng = np.random.default_rng(seed)
    u, v = np.triu_indices(n, 1)
    keep = rng.random(u.size) < p
    return Graph.from_edges(u[keep], v[keep], n_nodes=n,
                            node_ids=np.asarray([f"v{i}" for i in range(n)], dtype=object))


# ---------------------------------------------------------------------- the record
@pytest.mark.parametrize("privacy", ["edge", "node"])
def test_one_record_states_total_split_and_sensitivities(polbooks: Graph, privacy: str) -> None:
    where = {"nodes": polbooks.node_ids} if privacy == "edge" else {"theta": 4}
    res = synthesize(polbooks, epsilon=2.5, neighbourhood=privacy, **where, **_insecure(1))
    assert isinstance(res, SyntheticRelease) and isinstance(res.release, Release)
    rec = res.release
    assert rec.mechanism == f"synthesize-{privacy}" and rec.neighbourhood == privacy
    assert rec.epsilon == 2.5 and rec.seed == 1 and rec.backend == "numpy-insecure"
    split = rec.params["epsilon_split"]
    sens = rec.params["sensitivities"]
    assert split and set(split) == set(sens)
    assert math.isclose(math.fsum(split.values()), 2.5, rel_tol=1e-12)  # sequential
    assert all(e > 0 for e in split.values()) and all(s > 0 for s in sens.values())
    for name in split:  # the derivation names every part with its ε and Δ
        assert name in rec.sensitivity_derivation
    if privacy == "node":
        assert split == pytest.approx({k: 2.5 * v for k, v in NODE_SPLIT.items()})
        assert sens == {"edge_total": 4.0, "theta_dk2": 4.0 * 9}  # θ and θ(2θ+1)
        assert rec.params["theta"] == 4
    else:  # the community release's parts, with their audited sensitivities
        # polbooks' 105 nodes are fewer than 50 noise scales of the cumulative degree counts
        # (2 / (0.15 · 2.5)): their share goes to the node degrees (public n and ε)
        want = {k: 2.5 * v for k, v in DEFAULT_SPLIT.items() if v and k != "degree_cdf"}
        want["node_degrees"] += 2.5 * DEFAULT_SPLIT["degree_cdf"]
        assert split == pytest.approx(want)
        h = rec.params["max_degree"]
        assert sens == {"supergraph": 1.0, "node_degrees": 2.0, "community_edges": 1.0,
                        "triangles": (2 * h - 2) * (3 * h - 1) / h, "edge_total": 1.0}
    # only public things: the record round-trips, and states no count of the input
    assert Release.from_dict(rec.to_dict()) == rec
    flat = repr(rec.params)
    assert str(polbooks.n_edges) not in flat


def _ring(n: int, k: int = 4) -> Graph:
    """A ring lattice of ``n`` nodes, each joined to its ``k`` nearest on either side."""
    i = np.arange(n)
    u = np.concatenate([i] * k)
    v = np.concatenate([(i + j) % n for j in range(1, k + 1)])
    return Graph.from_edges(u, v, n_nodes=n)


@pytest.mark.parametrize("n, released", [(660, False), (680, True)])
def test_cumulative_counts_need_fifty_noise_scales_of_nodes(n: int, released: bool) -> None:
    """At ε = 1 the counts' share is 0.15 ε, a noise scale of 2 / 0.15 = 13.3: 667 nodes is
    the boundary (public n and ε). Below it the node degrees take the share; either way the
    record states the parts actually released and sums to ε, and every part is Δ-audited."""
    G = _ring(n)
    rec = synthesize(G, epsilon=1.0, neighbourhood="edge", nodes=G.node_ids,
                     **_insecure(3)).release
    split, sens = rec.params["epsilon_split"], rec.params["sensitivities"]
    assert math.isclose(math.fsum(split.values()), 1.0, rel_tol=1e-12)
    assert ("degree_cdf" in split) is released and set(split) == set(sens)
    if released:
        assert split["degree_cdf"] == pytest.approx(DEFAULT_SPLIT["degree_cdf"])
        assert split["node_degrees"] == pytest.approx(DEFAULT_SPLIT["node_degrees"])
        assert sens["degree_cdf"] == 2.0 and "degree_cdf (ε=0.15, Δ=2" in \
            rec.sensitivity_derivation
    else:
        assert split["node_degrees"] == pytest.approx(DEFAULT_SPLIT["node_degrees"]
                                                      + DEFAULT_SPLIT["degree_cdf"])


def test_api_is_exported_lazily() -> None:
    assert graphanon.synthesize is synthesize
    assert graphanon.SyntheticRelease is SyntheticRelease
    assert "synthesize" in graphanon.__all__


# ---------------------------------------------------------------------- node ids
def test_edge_dp_keeps_the_public_node_ids(polbooks: Graph) -> None:
    universe = np.concatenate([polbooks.node_ids.astype(str),
                               np.asarray(["not-in-the-graph-1", "not-in-the-graph-2"])])
    res = synthesize(polbooks, epsilon=1.0, neighbourhood="edge", nodes=universe, **_insecure(2))
    ids = res.graph.node_ids.astype(str)
    assert sorted(ids.tolist()) == sorted(universe.tolist())  # every listed node, no other
    assert res.graph.n_edges > 0
    assert res.release.params["node_ids"] == "the public node universe"


def test_edge_dp_groups_super_nodes_in_the_listing_order() -> None:
    """Two dense blocks with ids in random order: listed block by block (the CLI's --nodes
    file order), the partition finds both; listed in sorted order, nothing to find."""
    rng = np.random.default_rng(0)
    n = 400
    iu, ju = np.triu_indices(n, 1)
    keep = rng.random(iu.size) < np.where((iu < 200) == (ju < 200), 0.1, 0.005)
    perm = np.random.default_rng(1).permutation(n)
    G = Graph.from_edges(perm[iu[keep]], perm[ju[keep]], n_nodes=n)
    listed = synthesize(G, epsilon=2.0, nodes=perm, **_insecure(4))
    sorted_ = synthesize(G, epsilon=2.0, nodes=np.arange(n), **_insecure(4))
    assert listed.parts["n_communities"] == 2
    assert sorted_.parts["n_communities"] == 1
    assert (listed.graph.node_ids == sorted_.graph.node_ids).all()


def test_node_dp_gives_new_ids() -> None:
    G = _dense()
    res = synthesize(G, epsilon=50.0, neighbourhood="node", theta=8, **_insecure(3))
    ids = res.graph.node_ids.astype(str).tolist()
    assert res.graph.n_edges > 0 and res.graph.degrees.max() <= 8
    assert all(i.startswith("s") for i in ids) and len(set(ids)) == len(ids)
    assert not set(ids) & set(G.node_ids.astype(str).tolist())
    assert sorted(ids) == sorted(f"s{i}" for i in range(len(ids)))


def test_node_dp_chooses_theta_privately_and_it_grows_with_epsilon() -> None:
    """θ = "auto": the exponential mechanism over the public grid, 0.1 of ε, stated in the
    record; more ε affords a larger θ, so the projection keeps more edges."""
    from graphanon.nodedp.theta_dk import DEFAULT_THETA_GRID
    from graphanon.synthetic.pipeline import NODE_SPLIT_AUTO

    rng = np.random.default_rng(1)
    u, v = np.triu_indices(300, 1)
    keep = rng.random(u.size) < 0.2  # degrees about 60
    G = Graph.from_edges(u[keep], v[keep], n_nodes=300)
    low = synthesize(G, epsilon=1.0, neighbourhood="node", theta="auto", **_insecure(0))
    high = synthesize(G, epsilon=100.0, neighbourhood="node", theta="auto", **_insecure(0))
    p = low.release.params
    assert p["theta_selection"] == "exponential-mechanism"
    assert p["epsilon_split"] == pytest.approx(dict(NODE_SPLIT_AUTO))
    assert p["sensitivities"]["theta_selection"] == 2 * max(DEFAULT_THETA_GRID)
    assert p["sensitivities"]["theta_dk2"] == p["theta"] * (2 * p["theta"] + 1)
    assert high.release.params["theta"] > p["theta"]
    assert high.graph.n_edges > low.graph.n_edges
    fixed = synthesize(G, epsilon=1.0, neighbourhood="node", **_insecure(0))  # θ = 16
    assert fixed.release.params["theta_selection"] == "fixed"
    assert fixed.release.params["theta"] == 16
    assert "theta_selection" not in fixed.release.params["epsilon_split"]


@pytest.mark.parametrize("privacy", ["edge", "node"])
def test_seeded_runs_are_reproducible(privacy: str) -> None:
    G = _dense()
    where = {"nodes": G.node_ids} if privacy == "edge" else {"theta": 8}
    a = synthesize(G, epsilon=20.0, neighbourhood=privacy, **where, **_insecure(4))
    b = synthesize(G, epsilon=20.0, neighbourhood=privacy, **where, **_insecure(4))
    assert a.graph.content_hash == b.graph.content_hash
    assert a.parts == b.parts


@pytest.mark.parametrize("privacy", ["edge", "node"])
def test_noise_calls_spend_exactly_the_split(privacy: str) -> None:
    """Every noise draw of a pipeline, with its ε and sensitivity: they are the parts the
    record states, one draw each (no unaccounted query)."""
    inner = get_backend("numpy-insecure", rng=np.random.default_rng(5))
    calls: list[tuple[float, float]] = []

    class Spy:
        name, secure = inner.name, inner.secure

        def discrete_laplace(self, counts: Any, *, sensitivity: float, epsilon: float) -> Any:
            calls.append((float(sensitivity), float(epsilon)))
            return inner.discrete_laplace(counts, sensitivity=sensitivity, epsilon=epsilon)

        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"unexpected noise call {name}")

    G = _dense()
    where = {"nodes": G.node_ids} if privacy == "edge" else {"theta": 5}
    res = synthesize(G, epsilon=3.0, neighbourhood=privacy, **where,
                     backend=Spy(), rng=np.random.default_rng(5))  # type: ignore[arg-type]
    p = res.release.params
    # the smooth triangle statistic is noised as the integer h · S_h (Δ scaled by h)
    scale = {"triangles": p["max_degree"]} if privacy == "edge" else {}
    stated = sorted((p["sensitivities"][k] * scale.get(k, 1), p["epsilon_split"][k])
                    for k in p["epsilon_split"])
    assert len(calls) == len(stated)
    for (ds, es), (dc, ec) in zip(stated, sorted(calls), strict=True):
        assert math.isclose(ds, dc, rel_tol=1e-12) and math.isclose(es, ec, rel_tol=1e-12)
    assert math.isclose(sum(e for _, e in calls), 3.0, rel_tol=1e-9)


def test_progress_is_reported(polbooks: Graph) -> None:
    seen: list[str] = []
    synthesize(polbooks, epsilon=1.0, nodes=polbooks.node_ids,
               progress=lambda task, done, total: seen.append(task), **_insecure(6))
    assert seen


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("kwargs", "match"), [
    ({"epsilon": 0.0}, "'epsilon'"),
    ({"epsilon": -1.0}, "'epsilon'"),
    ({"epsilon": float("nan")}, "'epsilon'"),
    ({"epsilon": 1e-6}, "'epsilon' parameter of synthesize"),  # valid, its parts not
    ({"epsilon": 1e-6, "neighbourhood": "node", "nodes": None},
     "'epsilon' parameter of synthesize"),
    ({"neighbourhood": "vertex"}, "'neighbourhood'"),
    ({"neighbourhood": "edge", "nodes": None}, "'nodes'.*required"),
    ({"neighbourhood": "node", "nodes": ["a"]}, "'nodes'.*edge"),
    ({"neighbourhood": "node", "nodes": None, "theta": 0}, "'theta'"),
    ({"neighbourhood": "edge", "theta": 8}, "'theta' parameter of synthesize applies to "
                                      "neighbourhood='node' only"),
    ({"seed": -1}, "'seed'"),
    ({"rng": 3}, "'rng'"),
])
def test_bad_parameters_are_named(polbooks: Graph, kwargs: dict[str, Any], match: str) -> None:
    args: dict[str, Any] = {"epsilon": 1.0, "neighbourhood": "edge", "nodes": polbooks.node_ids}
    args.update(kwargs)
    with pytest.raises(InvalidParameterError, match=match):
        synthesize(polbooks, **args)


def test_a_universe_missing_a_node_is_refused(polbooks: Graph) -> None:
    with pytest.raises(InvalidParameterError, match="universe"):
        synthesize(polbooks, epsilon=1.0, nodes=polbooks.node_ids[1:])
    with pytest.raises(InvalidParameterError, match="'G'"):
        synthesize("g.txt", epsilon=1.0, nodes=["a"])  # type: ignore[arg-type]


# ---------------------------------------------------------------------- sensitivity audits
@pytest.fixture(scope="module")
def audit_family() -> list[Graph]:
    return small_graphs() + random_graphs((30, 60), rng=np.random.default_rng(7))


@pytest.mark.parametrize("theta", [1, 2, 3, 5])
def test_node_edge_total_passes_the_node_audit(audit_family: list[Graph], theta: int) -> None:
    """|E^θ| of the EAD projection (the node pipeline's edge total), claimed Δ = θ."""
    def f(G: Graph) -> list[int]:
        return [project(G, theta=theta, method="ead", key=12345).graph.n_edges]

    res = audit_sensitivity(f, audit_family, neighbourhood="node", claimed=theta,
                            n_samples=40, rng=np.random.default_rng(0))
    assert res.passed, str(res)
    assert res.max_observed == theta  # attained: the claim is tight
