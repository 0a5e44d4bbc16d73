"""Projections and θ-dKε on large inputs: memory checks, progress, the shared θ-selection
order and the sparse utility (same values as the dense definitions)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon._memory import ENV_VAR
from graphanon.cli import main
from graphanon.datasets import data_path, load_polbooks
from graphanon.dk.extract import DKDistribution, cell_index, joint_degree_distribution
from graphanon.errors import InvalidParameterError
from graphanon.graph import Graph
from graphanon.metrics import ks_distance, l1_distance
from graphanon.nodedp.projection import (
    edge_addition,
    edge_addition_sizes,
    project,
    projection_memory,
)
from graphanon.nodedp.theta_dk import dk_utility, select_theta, theta_dk_release
from graphanon.privacy.noise import get_backend

pytestmark = pytest.mark.filterwarnings("ignore::graphanon.privacy.noise.InsecureNoiseWarning")


def _er(n: int, p: float, seed: int) -> Graph:
    rng = np.random.default_rng(seed)
    iu = np.triu_indices(n, 1)
    keep = rng.random(iu[0].size) < p
    return Graph.from_edges(iu[0][keep], iu[1][keep], n_nodes=n)


def _ead_reference(G: Graph, theta: int, key: int) -> set[tuple[int, int]]:
    """EAD by its definition: the edges in keyed-hash order, kept while both ends < θ."""
    from graphanon.nodedp.projection import _pair_hash, node_hash

    u, v = G.edges()
    h = node_hash(G.node_ids, key)
    order = np.argsort(_pair_hash(h[u], h[v]), kind="stable")
    deg = np.zeros(G.n_nodes, dtype=np.int64)
    kept = set()
    for e in order.tolist():
        a, b = int(u[e]), int(v[e])
        if deg[a] < theta and deg[b] < theta:
            deg[a] += 1
            deg[b] += 1
            kept.add((a, b))
    return kept


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), p=st.floats(0.0, 1.0), seed=st.integers(0, 10_000),
       key=st.integers(0, 2**64 - 1))
def test_ead_graph_and_sizes_match_the_definition(n: int, p: float, seed: int, key: int
                                                  ) -> None:
    G = _er(n, p, seed)
    thetas = [1, 2, 3, 7]
    sizes = edge_addition_sizes(G, thetas=thetas, key=key)
    for t, size in zip(thetas, sizes, strict=True):
        P = edge_addition(G, theta=t, key=key)
        ref = _ead_reference(G, t, key)
        u, v = P.graph.edges()
        assert set(zip(u.tolist(), v.tolist(), strict=True)) == ref
        assert P.n_edges_after == size == len(ref)
        assert P.graph.node_ids.tolist() == G.node_ids.tolist()


def test_select_theta_scores_use_the_projection_sizes() -> None:
    G = load_polbooks()
    grid = (2, 4, 8)
    theta, info = select_theta(G, epsilon=1.0, d=1, release_epsilon=1.0, grid=grid, key=9,
                               backend=get_backend("numpy-insecure",
                                                   rng=np.random.default_rng(0)))
    expect = [2.0 * project(G, theta=t, key=9).n_edges_after - t * (2 * t + 1)  # degrees 1..t
              for t in grid]
    assert info["scores"] == pytest.approx(expect)
    assert theta in grid


def _dense_utility(G: Graph, table: DKDistribution) -> dict[str, float]:
    """The dense definition: both 2K tables over all h(h+1)/2 cells."""
    true = joint_degree_distribution(G)
    h = max(true.max_degree, table.max_degree, 1)
    a = np.zeros(h * (h + 1) // 2)
    b = np.zeros_like(a)
    a[cell_index(true.degrees[:, 0], true.degrees[:, 1], h)] = true.counts
    b[cell_index(table.degrees[:, 0], table.degrees[:, 1], h)] = table.counts
    return {"l1": l1_distance(a, b), "ks": ks_distance(a, b)}


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), rows=st.integers(0, 12), hi=st.integers(1, 40))
def test_sparse_2k_utility_equals_dense(seed: int, rows: int, hi: int) -> None:
    rng = np.random.default_rng(seed)
    G = _er(30, 0.2, seed)
    i = rng.integers(1, hi + 1, size=rows)
    j = rng.integers(1, hi + 1, size=rows)
    lo, up = np.minimum(i, j), np.maximum(i, j)
    cells = np.unique(np.stack([lo, up], axis=1), axis=0)
    table = DKDistribution("joint_degree", cells, rng.integers(0, 9, size=len(cells)))
    got = dk_utility(G, table)
    ref = _dense_utility(G, table)
    assert got["l1"] == ref["l1"] and got["ks"] == pytest.approx(ref["ks"], abs=1e-12)


def test_release_utility_equals_dense() -> None:
    G = load_polbooks()
    rel = theta_dk_release(G, d=2, epsilon=2.0, theta=6, key=3,
                           backend=get_backend("numpy-insecure", rng=np.random.default_rng(1)))
    assert dk_utility(G, rel) == pytest.approx(_dense_utility(G, rel.table))


def test_projection_refused_above_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    G = load_polbooks()
    monkeypatch.setenv(ENV_VAR, str(projection_memory(G) - 1))
    for method in ("ead", "ser"):
        with pytest.raises(InvalidParameterError, match="441 edges"):
            project(G, theta=3, method=method, key=1)
    with pytest.raises(InvalidParameterError, match="edge_addition_sizes"):
        edge_addition_sizes(G, thetas=[2], key=1)


def test_theta_domain_refused_above_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    G = load_polbooks()
    monkeypatch.setenv(ENV_VAR, "16MiB")
    backend = get_backend("numpy-insecure", rng=np.random.default_rng(0))
    rel = theta_dk_release(G, d=2, epsilon=1.0, theta=64, key=1, backend=backend)
    assert rel.theta == 64  # 2,080 cells fit
    with pytest.raises(InvalidParameterError, match=r"theta = 2000 \(2,001,000 2K cells\)"):
        theta_dk_release(G, d=2, epsilon=1.0, theta=2000, key=1, backend=backend)


def test_progress_of_projection_and_release() -> None:
    G = load_polbooks()
    calls: list[tuple[str, int, int]] = []
    project(G, theta=4, method="ead", key=1, progress=lambda *a: calls.append(a))
    assert calls[0] == ("EAD projection θ=4", 0, 3) and calls[-1] == ("EAD projection θ=4", 3, 3)
    calls.clear()
    project(G, theta=4, method="ser", key=1, progress=lambda *a: calls.append(a))
    assert calls[-1] == ("SER projection θ=4", 3, 3)
    calls.clear()
    theta_dk_release(G, d=1, epsilon=1.0, theta="auto", key=1,
                     backend=get_backend("numpy-insecure", rng=np.random.default_rng(0)),
                     progress=lambda *a: calls.append(a))
    tasks = [t for t, _, _ in calls]
    grid_steps = [(d, n) for t, d, n in calls if t == "EAD sizes for θ selection"]
    assert grid_steps[-1] == (9, 9)  # the order, then one step per θ of the default grid
    assert any(t.startswith("EAD projection") for t in tasks)


def test_cli_project_and_node_release_show_progress(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    src = str(data_path("polbooks.gml"))
    out, rep = tmp_path / "p.txt", tmp_path / "p.json"
    assert main(["project", src, "--theta", "5", "--seed", "1", "--out", str(out),
                 "--report", str(rep)]) == 0
    text = "".join(capsys.readouterr())  # progress bars on stderr, messages on stdout
    assert "EAD projection θ=5" in text and "reading" in text
    assert json.loads(rep.read_text())["projected"]["degree_max"] <= 5
    table = tmp_path / "n.tsv"
    assert main(["release-dk", src, "--d", "2", "--epsilon", "1", "--neighbourhood", "node",
                 "--noise", "numpy-insecure", "--seed", "2", "--out", str(table)]) == 0
    text = "".join(capsys.readouterr())  # progress bars on stderr, messages on stdout
    assert "θ selection" in text and "utility" in text
    # the input itself may be read: the refusal under test is the later memory check
    monkeypatch.setenv("GRAPHANON_MAX_INPUT_BYTES", str(1 << 30))
    monkeypatch.setenv(ENV_VAR, "1KiB")
    assert main(["-q", "project", src, "--theta", "5", "--out", str(tmp_path / "q.txt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ENV_VAR in err and not (tmp_path / "q.txt").exists()
