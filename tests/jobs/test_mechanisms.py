"""Jobs end to end, one job file per mechanism family: file source, file / Neo4j sinks,
the CLI's noise convention, the JSON ledger."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest
from neo4j_fake import FakeDB, FakeDriver

from graphanon import jobs
from graphanon.cli import main
from graphanon.datasets import load_polbooks
from graphanon.dk.extract import DKDistribution
from graphanon.graph import BipartiteGraph
from graphanon.io import neo4j as io_neo4j
from graphanon.io.cypher import load
from graphanon.io.dk_tables import read_dk_table
from graphanon.io.files import read_bipartite, read_graph, write_bipartite, write_graph


@pytest.fixture
def polbooks(tmp_path: Path) -> Path:
    write_graph(load_polbooks(), tmp_path / "g.txt")
    return tmp_path / "g.txt"


def run(tmp_path: Path, body: str, *, expect: int = 0) -> dict:
    """Run the job; return the report of its single file sink (``out/operator/``)."""
    job = tmp_path / "job.toml"
    job.write_text(textwrap.dedent(body))
    assert main(["-q", "run", str(job)]) == expect
    report = tmp_path / "out" / "operator" / "report.json"
    return json.loads(report.read_text()) if expect == 0 else {}


def out(tmp_path: Path, rep: dict, name: str) -> Path:
    """Where the sink put ``name``: ``publish/`` for a secure release, else ``operator/``."""
    where = "publish" if rep["publishable"] else "operator"
    assert f"{where}/{name}" in rep["written"]
    return tmp_path / "out" / where / name


def wrote_data(rep: dict) -> bool:
    return any(w.split("/")[1] in ("graph.graphml", "bipartite.tsv") for w in rep["written"])


def head(source: str, seed: int | None = 5, extra: str = "") -> str:
    seed_line = "" if seed is None else f"seed = {seed}"
    return f"""
        [job]
        name = "t"
        release_id = "r"
        {seed_line}
        {extra}
        [source]
        {source}
    """


FILE_SINK = """
        [[sinks]]
        type = "file"
        path = "out"
"""


def test_every_mechanism_is_registered() -> None:
    assert {"describe", "randomized-response", "release-dk", "release-dk-node",
            "release-degrees", "release-personalized", "project", "generate", "smooth-k",
            "mondrian", "b-anonymize"} <= set(jobs.STEPS)


def test_commands_and_steps_come_from_one_table() -> None:
    """graphanon.registry is the one list: the CLI's commands and the job steps are read
    from it, and every target it names exists."""
    import importlib

    import click

    from graphanon import registry
    from graphanon.cli import COMMANDS, cli
    from graphanon.jobs.adapter import import_target

    rows = {r.name: r for r in registry.REGISTRY}
    assert len(rows) == len(registry.REGISTRY)  # a name is registered once
    assert COMMANDS == registry.commands()
    assert set(jobs.STEPS) == set(registry.steps())
    ctx = click.Context(cli)
    for r in registry.REGISTRY:
        assert r.family in ("anonymity", "dk", "nodedp", "synthetic", "reproduce", "io",
                            "tools"), r
        if r.cli is not None:
            module = importlib.import_module(f"graphanon.cli.{r.cli}")
            assert r.name in {c.name for c in module.COMMANDS}, r.name
            assert cli.get_command(ctx, r.name) is not None
        if r.step is not None:
            assert callable(import_target(r.step.target)), r.step.target


VARIANT_KEYS = [
    ('name = "release-dk"\n        d = 1\n        max_degree = 30\n'
     '        domain = "observed"', "release-dk-thesis"),
    ('name = "release-degrees"\n        counts = "cauchy"', "release-degrees-seed"),
    ('name = "release-dk"\n        neighbourhood = "node"\n        d = 1\n        theta = 4\n'
     '        projection = "ser"', "release-dk-node-ser"),
]


@pytest.mark.parametrize(("step", "new_step"), VARIANT_KEYS)
def test_a_paper_variant_key_still_runs_its_reproduction_and_names_its_step(
        tmp_path: Path, polbooks: Path, step: str, new_step: str) -> None:
    """The keys that chose a paper variant on a secure step still do until 0.3.0, with a
    DeprecationWarning naming the reproduction's own step (issue 37)."""
    rep = run(tmp_path, head('path = "g.txt"') + f"""
        [[steps]]
        {step}
        epsilon = 1.0
        noise = "numpy-insecure"
    """ + FILE_SINK)
    import graphanon.errors as errors

    warned = rep["not_private"]["steps"]["warnings"]
    deprecations = [w for w in warned if w["category"] == "DeprecationWarning"]
    assert len(deprecations) == 1, warned
    assert f"name the step {new_step!r}" in deprecations[0]["message"]
    assert "0.3.0" in deprecations[0]["message"]
    assert any(issubclass(getattr(errors, w["category"], Warning), errors.ReproductionWarning)
               for w in warned), warned
    assert rep["release"]["neighbourhood"] == "none"
    assert not rep["publishable"]


@pytest.mark.parametrize("step", [
    'name = "release-dk-thesis"\n        d = 1\n        max_degree = 30',
    'name = "release-degrees-seed"',
    'name = "release-dk-node-ser"\n        d = 1\n        theta = 4',
    'name = "release-personalized-thesis"\n        d = 1\n        prefs_scheme = "thesis"\n'
    '        neighbourhood = "edge"\n        method = "tp"\n        theta = 20\n        mu = 1.0',
])
def test_a_paper_reproduction_is_a_step_of_its_own(tmp_path: Path, polbooks: Path,
                                                   step: str) -> None:
    """Each reproduction has its own step name and runs without a deprecation detour; the
    secure function's signature names no variant keyword."""
    source = 'path = "g.txt"'
    if "personalized" in step:
        (tmp_path / "nodes.txt").write_text("".join(f"{v}\n" for v in load_polbooks().node_ids))
        source += '\n        nodes = "nodes.txt"'
    epsilon = "" if "personalized" in step else "epsilon = 1.0"
    rep = run(tmp_path, head(source) + f"""
        [[steps]]
        {step}
        {epsilon}
        noise = "numpy-insecure"
    """ + FILE_SINK)
    import graphanon.errors as errors

    warned = rep["not_private"]["steps"]["warnings"]
    assert not [w for w in warned if w["category"] == "DeprecationWarning"], warned
    assert any(issubclass(getattr(errors, w["category"], Warning), errors.ReproductionWarning)
               for w in warned), warned
    assert not rep["publishable"]


@pytest.mark.parametrize(("old", "keys", "new"), [
    ("describe", "", "'info'"),
    ("release-dk-node", "d = 1\n        epsilon = 1.0\n        theta = 4",
     "'release-dk' with neighbourhood"),
])
def test_old_step_names_still_run_and_warn(tmp_path: Path, polbooks: Path, old: str,
                                           keys: str, new: str) -> None:
    """Job step names are command names (issue 37); the old ones run until 0.3.0."""
    rep = run(tmp_path, head('path = "g.txt"') + f"""
        [[steps]]
        name = "{old}"
        {keys}
    """ + FILE_SINK)
    warned = [w for w in rep["not_private"]["steps"]["warnings"]
              if w["category"] == "DeprecationWarning"]
    assert len(warned) == 1 and new in warned[0]["message"] and "0.3.0" in warned[0]["message"]


def test_release_dk_step_runs_either_relation_and_refuses_the_other_s_keys(
        tmp_path: Path, polbooks: Path) -> None:
    rep = run(tmp_path, head('path = "g.txt"') + """
        [[steps]]
        name = "release-dk"
        neighbourhood = "node"
        d = 1
        epsilon = 1.0
        theta = 4
        noise = "numpy-insecure"
    """ + FILE_SINK)
    assert rep["release"]["neighbourhood"] == "node"
    assert rep["release"]["params"]["theta"] == 4
    run(tmp_path, head('path = "g.txt"') + """
        [[steps]]
        name = "release-dk"
        neighbourhood = "node"
        d = 1
        epsilon = 1.0
        max_degree = 30
    """ + FILE_SINK, expect=2)


def test_secure_signatures_name_only_secure_parameters() -> None:
    import inspect

    from graphanon.dk.personalized import release_personalized
    from graphanon.dk.release import release_dk
    from graphanon.nodedp.degree_sequences import rps_degree_sequence
    from graphanon.nodedp.theta_dk import theta_dk_release

    for func, keys in ((release_dk, {"domain", "sensitivity_rule"}),
                       (theta_dk_release, {"projection", "order"}),
                       (rps_degree_sequence, {"counts"}),
                       (release_personalized, {"calibration"})):
        assert not keys & set(inspect.signature(func).parameters), func.__name__


def test_randomized_response_job(tmp_path: Path) -> None:
    B = BipartiteGraph.from_pairs([f"u{i}" for i in range(30) for _ in range(2)],
                                  [f"f{(i * 7 + j) % 10}" for i in range(30) for j in range(2)])
    write_bipartite(B, tmp_path / "b.tsv")
    (tmp_path / "users.txt").write_text("".join(f"u{i}\n" for i in range(30)))
    (tmp_path / "features.txt").write_text("".join(f"f{j}\n" for j in range(12)))
    src = ('path = "b.tsv"\n        kind = "bipartite"\n        users = "users.txt"\n'
           '        features = "features.txt"')
    body = head(src) + """
        [[steps]]
        name = "randomized-response"
        epsilon = 3.0
        noise = "numpy-insecure"
    """ + FILE_SINK
    rep = run(tmp_path, body)
    data = out(tmp_path, rep, "bipartite.tsv")
    text = data.read_text()
    assert rep["release"]["neighbourhood"] == "edge" and rep["release"]["seed"] == 5
    assert rep["release"]["backend"] == "numpy-insecure" and not rep["publishable"]
    assert "12 features" in rep["release"]["params"]["universe"]
    assert "[source] features, users" in rep["release"]["params"]["universe_source"]
    released = read_bipartite(data)
    assert released.n_users == B.n_users
    assert not set(released.user_ids.tolist()) & set(B.user_ids.tolist())  # pseudonyms
    assert run(tmp_path, body)["release"]["seed"] == 5
    # seeded: the same cells (pseudonyms differ per release id and run)
    assert read_bipartite(data).n_edges == released.n_edges
    assert len(data.read_text()) == len(text)
    # default noise: secure coin flips, even in a seeded job (the seed is not recorded)
    secure = run(tmp_path, body.replace('noise = "numpy-insecure"', ""))
    assert secure["release"]["seed"] is None and secure["publishable"]
    assert secure["release"]["backend"] != "numpy-insecure"
    assert secure["not_private"]["steps"]["randomized_response"]["noise"] == "opendp"
    assert (tmp_path / "out" / "publish" / "bipartite.tsv").exists()
    # without the universe the step is refused
    run(tmp_path, head('path = "b.tsv"\n        kind = "bipartite"') + """
        [[steps]]
        name = "randomized-response"
        epsilon = 3.0
    """ + FILE_SINK, expect=2)


def test_edge_dp_dk_release_and_generate(tmp_path: Path, polbooks: Path) -> None:
    body = head('path = "g.txt"', seed=3) + """
        [[steps]]
        name = "release-dk"
        d = 2
        epsilon = 1.0
        max_degree = 30
        noise = "numpy-insecure"
    """ + FILE_SINK
    rep = run(tmp_path, body)
    table = read_dk_table(out(tmp_path, rep, "statistics.tsv"))
    assert isinstance(table, DKDistribution) and table.kind == "joint_degree"
    assert rep["release"]["neighbourhood"] == "edge" and rep["release"]["seed"] == 3
    # the private input is never written next to a release
    assert not wrote_data(rep) and not list((tmp_path / "out").rglob("graph.graphml"))
    again = run(tmp_path, body)
    second = read_dk_table(out(tmp_path, again, "statistics.tsv"))
    assert second.as_dict() == table.as_dict()  # reproducible
    assert again["release"]["epsilon"] == 1.0
    rep = run(tmp_path, body + """
        [[steps]]
        name = "generate"
    """)
    G = read_graph(out(tmp_path, rep, "graph.graphml"))
    assert wrote_data(rep) and rep["not_private"]["steps"]["generate"]["edges"] == G.n_edges > 0
    # opendp noise: secure; the seed is recorded for the non-noise randomness only
    rep = run(tmp_path, body.replace('noise = "numpy-insecure"', ""))
    assert rep["release"]["backend"] == "opendp" and rep["publishable"]
    assert json.loads((tmp_path / "out" / "publish" / "release.json").read_text()) == (
        rep["release"])


def test_edge_dp_release_needs_a_bound_or_a_universe(tmp_path: Path, polbooks: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    step = """
        [[steps]]
        name = "release-dk"
        d = 1
        epsilon = 1.0
    """
    run(tmp_path, head('path = "g.txt"') + step + FILE_SINK, expect=2)
    assert "max_degree" in capsys.readouterr().err
    nodes = read_graph(polbooks).node_ids
    (tmp_path / "nodes.txt").write_text("".join(f"{x}\n" for x in nodes) + "extra-node\n")
    rep = run(tmp_path, head('path = "g.txt"\n        nodes = "nodes.txt"') + step + FILE_SINK)
    assert rep["not_private"]["steps"]["warnings"][0]["category"] == "DegreeBoundWarning"
    table = read_dk_table(out(tmp_path, rep, "statistics.tsv"))
    assert table.kind == "degree"
    assert rep["release"]["params"]["max_degree"] == len(nodes)  # h = |nodes| - 1
    assert rep["release"]["params"]["node_universe"].startswith("given")


def test_edge_dp_release_with_a_private_bound_and_total(tmp_path: Path,
                                                        polbooks: Path) -> None:
    """Issue 36: max_degree = "auto" (with the source's universe) and edge_total as job
    keys, recorded with their share of ε."""
    nodes = read_graph(polbooks).node_ids
    (tmp_path / "nodes.txt").write_text("".join(f"{x}\n" for x in nodes))
    rep = run(tmp_path, head('path = "g.txt"\n        nodes = "nodes.txt"') + """
        [[steps]]
        name = "release-dk"
        d = 2
        epsilon = 2.0
        max_degree = "auto"
        edge_total = 0.1
        noise = "numpy-insecure"
    """ + FILE_SINK)
    params = rep["release"]["params"]
    assert params["epsilon_max_degree"] == pytest.approx(0.2)
    assert params["epsilon_edge_total"] == pytest.approx(0.2)
    assert params["epsilon_cells"] == pytest.approx(1.6) and rep["release"]["epsilon"] == 2.0
    table = read_dk_table(out(tmp_path, rep, "statistics.tsv"))
    assert abs(table.total - params["edge_total"]) <= 0.5 * params["edge_total"]


def test_edge_dp_2k_on_a_private_degree_sequence(tmp_path: Path, polbooks: Path) -> None:
    """Issue 36: degree_sequence (Hay's sequence, its share of ε recorded) as a job key."""
    nodes = read_graph(polbooks).node_ids
    (tmp_path / "nodes.txt").write_text("".join(f"{x}\n" for x in nodes))
    rep = run(tmp_path, head('path = "g.txt"\n        nodes = "nodes.txt"') + """
        [[steps]]
        name = "release-dk"
        d = 2
        epsilon = 2.0
        max_degree = "auto"
        degree_sequence = 0.2
        edge_total = 0.1
        noise = "numpy-insecure"
    """ + FILE_SINK)
    params = rep["release"]["params"]
    assert params["epsilon_degree_sequence"] == pytest.approx(0.4)
    assert params["epsilon_cells"] == pytest.approx(1.4) and params["graphical"]
    table = read_dk_table(out(tmp_path, rep, "statistics.tsv"))
    assert table.total == params["edge_total"]


def test_node_dp_dk_release(tmp_path: Path, polbooks: Path) -> None:
    rep = run(tmp_path, head('path = "g.txt"') + """
        [[steps]]
        name = "release-dk"
        neighbourhood = "node"
        d = 1
        epsilon = 1.0
        theta = 8
        noise = "numpy-insecure"
    """ + FILE_SINK)
    assert rep["release"]["neighbourhood"] == "node"
    assert rep["release"]["sensitivity"] == 2 * 8 + 1
    assert rep["not_private"]["steps"]["theta_dk_release"]["theta"] == 8
    table = read_dk_table(out(tmp_path, rep, "statistics.tsv"))
    assert isinstance(table, DKDistribution) and table.kind == "degree"
    assert table.max_degree <= 8


@pytest.mark.parametrize("method", ["rps", "laplace", "hay"])
def test_degree_sequence_release(tmp_path: Path, polbooks: Path, method: str) -> None:
    source = 'path = "g.txt"'
    if method == "hay":
        (tmp_path / "nodes.txt").write_text(
            "".join(f"{x}\n" for x in read_graph(polbooks).node_ids))
        source += '\n        nodes = "nodes.txt"'
    rep = run(tmp_path, head(source) + f"""
        [[steps]]
        name = "release-degrees"
        method = "{method}"
        epsilon = 1.0
        noise = "numpy-insecure"
    """ + FILE_SINK)
    table = read_dk_table(out(tmp_path, rep, "statistics.tsv"))
    assert isinstance(table, DKDistribution) and table.kind == "degree"
    assert rep["release"]["neighbourhood"] == ("edge" if method == "hay" else "node")
    if method == "hay":
        assert table.total == load_polbooks().n_nodes


def test_projection_job(tmp_path: Path, polbooks: Path) -> None:
    rep = run(tmp_path, head('path = "g.txt"') + """
        [[steps]]
        name = "project"
        theta = 4
        [[steps]]
        name = "info"
    """ + FILE_SINK)
    G = read_graph(out(tmp_path, rep, "graph.graphml"))
    assert rep["release"] is None and G.degrees.max() <= 4 and not rep["publishable"]
    assert rep["not_private"]["steps"]["info"]["edges"] == G.n_edges
    # projection is reproducible from the job seed (non-noise randomness)
    run(tmp_path, head('path = "g.txt"') + """
        [[steps]]
        name = "project"
        theta = 4
    """ + FILE_SINK)
    assert read_graph(tmp_path / "out" / "operator" / "graph.graphml").content_hash == (
        G.content_hash)


@pytest.mark.parametrize(("step", "why"), [
    ('name = "project"\n        theta = 4\n        noise = "opendp"', "draws no DP noise"),
    ('name = "release-dk"\n        d = 1\n        epsilon = 1.0\n        seed = 1',
     "cannot set 'seed'"),
    ('name = "release-dk"\n        d = 1\n        epsilon = 1.0\n        nodes = "x"',
     "cannot set 'nodes'"),
    ('name = "release-dk"\n        d = 1\n        epsilon = 1.0\n        noise = "numpy"',
     "noise = 'numpy'"),
    ('name = "release-dk"\n        d = 1\n        epsilon = 1.0\n        colour = 1',
     "unknown keys ['colour']"),
    ('name = "release-dk"\n        epsilon = 1.0', "missing keys ['d']"),
    ('name = "release-degrees"\n        method = "x"\n        epsilon = 1.0', "'method' key"),
    ('name = "generate"', "released 1K or 2K table"),
])
def test_bad_step_keys_exit_2_and_write_nothing(tmp_path: Path, polbooks: Path, step: str,
                                                why: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    run(tmp_path, head('path = "g.txt"') + f"""
        [[steps]]
        {step}
    """ + FILE_SINK, expect=2)
    err = capsys.readouterr().err
    assert why in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_one_release_per_job(tmp_path: Path, polbooks: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    run(tmp_path, head('path = "g.txt"') + """
        [[steps]]
        name = "release-dk"
        d = 1
        epsilon = 1.0
        max_degree = 30
        [[steps]]
        name = "release-degrees"
        epsilon = 1.0
    """ + FILE_SINK, expect=2)
    assert "second release" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_json_ledger_refuses_over_budget_exit_3(tmp_path: Path, polbooks: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    body = head('path = "g.txt"', extra='ledger = "ledger.json"\n        budget = 3.0\n'
                '        dataset = "polbooks"') + """
        [[steps]]
        name = "release-dk"
        neighbourhood = "node"
        d = 1
        epsilon = 1.0
        theta = 8
    """ + FILE_SINK
    run(tmp_path, body)
    ledger = json.loads((tmp_path / "ledger.json").read_text())
    (entry,) = ledger["datasets"]["polbooks"]["entries"]
    # a node-level ε = 1 costs 2 on this edge budget (one edge is two node steps)
    assert entry["epsilon"] == 2.0 and entry["neighbourhood"] == "node"
    stats = tmp_path / "out" / "publish" / "statistics.tsv"
    stats.unlink()
    run(tmp_path, body, expect=3)  # 2.0 + 2.0 > 3.0
    assert "exceeded" in capsys.readouterr().err
    assert not stats.exists()  # nothing written
    # an edge-DP release cannot be charged to a node budget
    node_budget = body.replace('neighbourhood = "node"', 'neighbourhood = "edge"').replace(
        "theta = 8", "max_degree = 30").replace(
        "budget = 3.0", 'budget = 3.0\n        budget_neighbourhood = "node"')
    (tmp_path / "ledger.json").unlink()
    run(tmp_path, node_budget, expect=2)
    assert "node-DP budget" in capsys.readouterr().err
    # the budget is per dataset name: a changed input (one more edge) does not reset it
    (tmp_path / "ledger.json").unlink(missing_ok=True)
    run(tmp_path, body)
    G = read_graph(polbooks)
    u, v = G.edges()
    missing = next((a, b) for a in range(G.n_nodes) for b in range(a + 1, G.n_nodes)
                   if not G.has_edge(a, b))
    write_graph(G.with_edges(np.append(u, missing[0]), np.append(v, missing[1])), polbooks)
    stats.unlink()
    run(tmp_path, body, expect=3)
    no_name = body.replace('dataset = "polbooks"', "")
    run(tmp_path, no_name, expect=2)
    assert "stable name" in capsys.readouterr().err


def test_neo4j_sink_of_a_dp_release(tmp_path: Path, polbooks: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    drv = FakeDriver(FakeDB())
    for k, v in {"NEO4J_URI": "bolt://fake:7687", "NEO4J_PASSWORD": "pw"}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(io_neo4j, "connect", lambda settings, verify=True: drv)
    body = head('path = "g.txt"') + """
        [[steps]]
        name = "release-dk"
        d = 2
        epsilon = 0.75
        max_degree = 30
        [[sinks]]
        type = "neo4j"
        dataset = "polbooks"
        budget_total = 1.0
    """
    job = tmp_path / "job.toml"
    job.write_text(textwrap.dedent(body))
    assert main(["-q", "run", str(job)]) == 0
    (call,) = drv.named("write_statistics")
    assert call.query == load("write_statistics", label="JointDegreeCount")
    rows = call.params["rows"]
    assert rows and set(rows[0]) == {"degree_a", "degree_b", "count"}
    assert all(1 <= r["degree_a"] <= r["degree_b"] <= 30 for r in rows)
    assert drv.db.records["r"]["status"] == "complete"
    assert drv.db.budgets["polbooks"]["epsilon_spent"] == pytest.approx(0.75)
    assert not drv.named("write_nodes")  # the private input graph is never written
    assert main(["-q", "run", str(job)]) == 3  # a second draw does not fit the budget
    # writing the graph under a statistics release is refused
    job.write_text(textwrap.dedent(body + '        write = "graph"\n'))
    assert main(["-q", "run", str(job)]) == 2
    assert np.isclose(drv.db.budgets["polbooks"]["epsilon_spent"], 0.75)
    # a release with the seeded insecure noise is refused before the charge: its recorded
    # seed regenerates the exact table, and a release subgraph is read as published
    job.write_text(textwrap.dedent(body.replace("max_degree = 30", 'max_degree = 30\n'
                                                '        noise = "numpy-insecure"')))
    assert main(["-q", "run", str(job)]) == 2
    assert np.isclose(drv.db.budgets["polbooks"]["epsilon_spent"], 0.75)
    assert drv.db.complete_looking() == ["r"]


@pytest.mark.parametrize("name", ["example.toml", "dp-statistics.toml"])
def test_shipped_example_jobs_are_valid(name: str) -> None:
    cfg = jobs.load_job(Path(__file__).resolve().parents[2] / "docker" / "jobs" / name)
    assert all(st["name"] in jobs.STEPS for st in cfg["steps"])


@pytest.mark.parametrize("step", ["smooth-k", "mondrian"])
def test_k_anonymity_jobs_write_a_verified_release(tmp_path: Path, step: str) -> None:
    from graphanon.anonymity import verify_smooth_k
    from graphanon.datasets import load_adult_sample

    B = load_adult_sample()
    write_bipartite(B, tmp_path / "b.tsv")
    src = 'path = "b.tsv"\n        kind = "bipartite"'
    body = head(src) + f"""
        [[steps]]
        name = "{step}"
        k = 8
    """ + FILE_SINK
    rep = run(tmp_path, body)
    released = read_bipartite(out(tmp_path, rep, "bipartite.tsv"))
    assert rep["publishable"] and rep["user_ids"] == "keyed per-release pseudonyms"
    assert not set(released.user_ids.tolist()) & set(B.user_ids.tolist())
    from graphanon.privacy.pseudonyms import pseudonymize

    # the operator can map the pseudonyms back with the key and the record's release id (the
    # job's release_id "r" would repeat between runs: joinable pseudonyms)
    record_id = json.loads(out(tmp_path, rep, "release.json").read_text())["release_id"]
    assert record_id != "r"
    names = dict(zip(pseudonymize(B.user_ids, scope=record_id).tolist(), B.user_ids.tolist(),
                     strict=True))
    released = BipartiteGraph.from_pairs(
        [names[u] for u in released.user_ids[released.edges()[0]]],
        released.feature_ids[released.edges()[1]])
    assert verify_smooth_k(B, released, 8).ok
    summaries = [v for v in rep["not_private"]["steps"].values() if isinstance(v, dict)]
    assert summaries and all("clusters" not in v for v in summaries)  # stays private
    assert all(v.get("k") == 8 for v in summaries)


@pytest.mark.filterwarnings("default::graphanon.errors.RealIdsWarning")
def test_a_sink_that_keeps_real_ids_warns(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """``keep_ids = true`` puts real ids into the published folder: allowed, with the same
    warning as ``--keep-ids``."""
    names = ["alice", "bob", "carol", "dave"]
    (tmp_path / "b.tsv").write_text("".join(f"{n}\tage=30\n" for n in names))
    body = head('path = "b.tsv"\n        kind = "bipartite"') + """
        [[steps]]
        name = "smooth-k"
        k = 2
    """ + FILE_SINK + "        keep_ids = true\n"
    rep = run(tmp_path, body)
    assert rep["user_ids"] == "real (keep_ids = true)"
    assert "alice" in out(tmp_path, rep, "bipartite.tsv").read_text()
    err = capsys.readouterr().err
    assert "graphanon: warning: keep_ids = true in file sink 'out': the output lists the " \
           "real ids" in err
    run(tmp_path, body.replace("keep_ids = true", "keep_ids = false"))
    assert "warning" not in capsys.readouterr().err


def test_personalized_job_reads_prefs_relative_to_the_job(tmp_path: Path, polbooks: Path) -> None:
    G = read_graph(polbooks)
    lines = "".join(f"{n}\t{0.05 if i % 2 else 1.0}\n" for i, n in enumerate(G.node_ids))
    (tmp_path / "prefs.tsv").write_text(lines)
    (tmp_path / "nodes.txt").write_text("".join(f"{x}\n" for x in G.node_ids))
    body = head('path = "g.txt"\n        nodes = "nodes.txt"') + """
        [[steps]]
        name = "release-personalized"
        prefs = "prefs.tsv"
        d = 1
        neighbourhood = "edge"
        method = "tp"
        theta = 20
        mu = 1.0
        noise = "numpy-insecure"
    """ + FILE_SINK
    rep = run(tmp_path, body)
    rel = rep["release"]
    assert rel["neighbourhood"] == "personalized-edge" and rel["backend"] == "numpy-insecure"
    assert rel["epsilon_summary"]["max"] == pytest.approx(1.0)
    assert read_dk_table(out(tmp_path, rep, "statistics.tsv")).kind == "degree"
    bad = head('path = "g.txt"') + """
        [[steps]]
        name = "release-personalized"
        d = 1
        neighbourhood = "edge"
        method = "min"
    """ + FILE_SINK
    run(tmp_path, bad, expect=2)


# ----------------------------------------------------------------------- b-anonymize
def _bmatch_input(tmp_path: Path, n: int = 40, d: int = 7) -> BipartiteGraph:
    X = np.random.default_rng(11).integers(0, 2, size=(n, d))
    X[np.arange(n), np.arange(n) % d] = 1  # every user is listed in the file
    r, c = np.nonzero(X)
    B = BipartiteGraph.from_pairs([f"u{i}" for i in r], [f"f{j}" for j in c])
    write_bipartite(B, tmp_path / "b.tsv")
    return B


def _check_adaptive(B: BipartiteGraph, masked_path: Path, delta: np.ndarray) -> None:
    """Degree conditions and a perfect matching of the compatibility graph, from the
    published file alone (the key is not published, so the matching is searched for)."""
    from scipy.optimize import linear_sum_assignment

    from graphanon.io.masked import read_masked

    M = read_masked(masked_path, n_rows=B.n_users)
    cols = [list(map(str, B.feature_ids)).index(a) for a in M.attribute_ids]
    X = B.to_dense()[:, cols].astype(int)
    X = np.hstack([X, B.to_dense()[:, [j for j in range(B.n_features) if j not in cols]]])
    Y = np.hstack([M.to_dense(), np.zeros((M.n_rows, X.shape[1] - len(cols)), dtype=int)])
    known = Y != -1
    compat = ((X[:, None, :] == Y[None, :, :]) | ~known[None, :, :]).all(axis=2)  # orig × rel
    assert (compat.sum(axis=1) >= delta).all()
    assert compat.sum(axis=0).min() >= delta.min()
    r, c = linear_sum_assignment(-compat.astype(int))
    assert compat[r, c].all()  # a perfect matching exists


def test_b_anonymize_job_file_sink(tmp_path: Path) -> None:
    B = _bmatch_input(tmp_path)
    (tmp_path / "levels").mkdir()
    (tmp_path / "levels" / "d.tsv").write_text(
        "".join(f"{u}\t{2 + k % 4}\n" for k, u in enumerate(B.user_ids)))
    src = 'path = "b.tsv"\n        kind = "bipartite"'
    body = head(src) + """
        [[steps]]
        name = "b-anonymize"
        delta_file = "levels/d.tsv"
        candidates = 16
    """ + FILE_SINK
    rep = run(tmp_path, body)
    text = (tmp_path / "out" / "operator" / "report.json").read_text()
    assert "owner" not in text
    step = rep["not_private"]["steps"]["b-anonymize"]
    assert step["verification"]["ok"] and (step["delta_min"], step["delta_max"]) == (2, 5)
    assert rep["release"]["neighbourhood"] == "k-anonymity" and rep["release"]["epsilon"] is None
    assert rep["release"]["mechanism"] == "adaptive-anonymity" and rep["release"]["seed"] == 5
    masked = out(tmp_path, rep, "masked.tsv")
    assert not wrote_data(rep) and rep["publishable"]
    assert not list((tmp_path / "out").rglob("bipartite.tsv"))  # the private input stays home
    lines = masked.read_text().splitlines()
    assert sum(ln.endswith("\t*") for ln in lines) == step["stars"] == step["masked_cells"]
    levels = np.array([2 + k % 4 for k in range(B.n_users)])
    _check_adaptive(B, masked, levels)
    # symmetric and the baseline through the same step and format
    for extra in ('method = "symmetric-b-matching"\n        time_limit = 30',
                  'method = "k-anonymity"'):
        rep = run(tmp_path, head(src) + f"""
        [[steps]]
        name = "b-anonymize"
        delta = 3
        {extra}
    """ + FILE_SINK)
        assert rep["not_private"]["steps"]["b-anonymize"]["verification"]["ok"]
        _check_adaptive(B, out(tmp_path, rep, "masked.tsv"), np.full(B.n_users, 3))


def test_b_anonymize_job_old_method_keys_warn_and_choose_the_same_method(
        tmp_path: Path) -> None:
    """``symmetric = true`` / ``baseline = "k-anonymity"`` (before ``method``, removed in
    0.3.0) still run the method they chose, with a deprecation naming the new key."""
    _bmatch_input(tmp_path)
    src = 'path = "b.tsv"\n        kind = "bipartite"'
    for old, new in (("symmetric = true", "symmetric-b-matching"),
                     ('baseline = "k-anonymity"', "k-anonymity")):
        body = head(src) + f"""
        [[steps]]
        name = "b-anonymize"
        delta = 3
        {old}
    """ + FILE_SINK
        rep = run(tmp_path, body)
        warned = [w for w in rep["not_private"]["steps"]["warnings"]
                  if w["category"] == "DeprecationWarning"]
        assert len(warned) == 1, warned
        assert f'now method = "{new}"' in warned[0]["message"]
        assert "0.3.0" in warned[0]["message"]
        step = rep["not_private"]["steps"]["b-anonymize"]
        assert step["method"] == new and step["verification"]["ok"]


@pytest.mark.parametrize("keys, message", [
    ("delta = 41", "[1, 40]"),
    ("delta = 0", "[1, 40]"),
    ('delta_file = "missing.tsv"', "(user<TAB>delta): no such file"),
    ("delta = 2\n        delta_file = \"d.tsv\"", "exactly one of"),
    ("delta = 2\n        colour = 1", "unknown keys ['colour']"),
    ('delta = 2\n        method = "k-anonymity"\n        candidates = 4',
     "The 'candidates' key of adaptive_anonymize applies to method='b-matching' or "
     "method='symmetric-b-matching' only (here method='k-anonymity')"),
    ('delta = 2\n        time_limit = 5', "'time_limit' key of adaptive_anonymize applies to "
                                           "method='symmetric-b-matching' only"),
    ('delta = 2\n        method = "greedy"', "'method' parameter of adaptive_anonymize must be"),
    ('delta = 2\n        symmetric = true\n        method = "k-anonymity"',
     "choose different methods"),
    ('delta = 2\n        baseline = "other"', "The 'baseline' key of step 'b-anonymize'"),
    ('delta_attribute = "delta"', "no user property 'delta'"),
])
def test_b_anonymize_job_bad_keys_exit_2_nothing_written(tmp_path: Path, capsys, keys: str,
                                                         message: str) -> None:
    _bmatch_input(tmp_path)
    body = head('path = "b.tsv"\n        kind = "bipartite"') + f"""
        [[steps]]
        name = "b-anonymize"
        {keys}
    """ + FILE_SINK
    run(tmp_path, body, expect=2)
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_b_anonymize_job_neo4j_property_levels_and_sink(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = FakeDB()
    rng = np.random.default_rng(3)
    db.source_nodes["User"] = [{"uid": f"u{i}", "delta": 2 + i % 3} for i in range(30)]
    db.source_nodes["Interest"] = [{"name": f"i{j}"} for j in range(6)]
    db.source_rels = [("HAS_INTEREST", ("User", i), ("Interest", j))
                      for i in range(30) for j in range(6) if rng.random() < 0.4 or j == i % 6]
    drv = FakeDriver(db)
    for k, v in {"NEO4J_URI": "bolt://fake:7687", "NEO4J_PASSWORD": "pw"}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(io_neo4j, "connect", lambda settings, verify=True: drv)
    body = head("""type = "neo4j"
        kind = "bipartite"
        user_label = "User"
        feature_label = "Interest"
        rel = "HAS_INTEREST"
        id_prop = "uid"
        feature_id_prop = "name"
        node_props = ["delta"]""") + """
        [[steps]]
        name = "b-anonymize"
        delta_attribute = "delta"
        [[sinks]]
        type = "neo4j"
        batch_size = 25
    """ + FILE_SINK
    rep = run(tmp_path, body)
    step = rep["not_private"]["steps"]["b-anonymize"]
    assert (step["delta_min"], step["delta_max"]) == (2, 4) and step["verification"]["ok"]
    rec = drv.db.records["r"]
    assert rec["status"] == "complete" and rec["kind"] == "masked"
    assert rec["written_masked"] == step["stars"] and rec["neighbourhood"] == "k-anonymity"
    rels = drv.named("write_relationships")
    assert {c.identifiers["rel_type"] for c in rels} == {"ANON_HAS_FEATURE", "ANON_MASKED"}
    assert all(len(c.params["rows"]) <= 25 for c in rels)
    masked_rows = [r for c in rels if c.identifiers["rel_type"] == "ANON_MASKED"
                   for r in c.params["rows"]]
    assert len(masked_rows) == step["stars"]
    file_cells = {tuple(ln.split("\t")) for ln in
                  out(tmp_path, rep, "masked.tsv").read_text().splitlines()}
    assert {(str(r["source"]), r["target"], "*" if r["type"] == "ANON_MASKED" else "1")
            for r in drv.db.rels} == file_cells
    users = drv.db.nodes["AnonUser"]
    assert sorted(u["uid"] for u in users) == list(range(30))  # released rows, not real ids
    assert "owner" not in json.dumps([c.params for c in drv.calls], default=str)
    assert not any(str(u).startswith("u") for c in drv.named("write_nodes")
                   for u in (row["uid"] for row in c.params["rows"]))


def test_a_failing_sink_leaves_no_release_behind(tmp_path: Path, polbooks: Path) -> None:
    """Sinks commit together: a later sink failing removes the staged earlier ones."""
    body = head('path = "g.txt"') + """
        [[steps]]
        name = "release-dk"
        neighbourhood = "node"
        d = 1
        epsilon = 1.0
        theta = 8
    """ + FILE_SINK + """
        [[sinks]]
        type = "file"
        path = "blocked/out"
    """
    (tmp_path / "blocked").write_text("a file where the sink wants a folder")
    run(tmp_path, body, expect=2)
    assert not list((tmp_path / "out").rglob("*.tsv")) if (tmp_path / "out").exists() else True
    leftovers = [p for p in tmp_path.rglob("*") if p.is_file() and p.name.endswith(".tmp")]
    assert not leftovers


def test_release_id_cannot_escape_the_sink_folder(tmp_path: Path, polbooks: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    body = head('path = "g.txt"').replace('release_id = "r"', 'release_id = "../../esc"') + """
        [[steps]]
        name = "info"
    """ + FILE_SINK.replace('path = "out"', 'path = "out/{release_id}"')
    run(tmp_path, body, expect=2)
    assert "release id" in capsys.readouterr().err
    assert not (tmp_path.parent.parent / "esc").exists()


@pytest.mark.parametrize(("path", "message"), [
    ("/dev/zero", "is a device"),
    ("missing.toml", "job file .* does not exist"),
    ("bad.toml", "job file .* is not valid TOML"),
])
def test_a_job_file_is_read_like_every_input(tmp_path: Path, capsys, path: str,
                                             message: str) -> None:
    """Job files go through the same bounded reader as data (no hang on a device)."""
    import re

    (tmp_path / "bad.toml").write_text("x = [")
    target = path if path.startswith("/") else str(tmp_path / path)
    assert main(["-q", "run", target]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err) and "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize(("source", "sink", "message"), [
    ('path = "g.txt"\n        nodez = "g.txt"', "", "unknown key.*nodez.*in \\[source\\]"),
    ('path = "g.txt"', 'kep_ids = true', "unknown key.*kep_ids.*file sink 1"),
    ('path = "g.txt"', 'graph_name = "../../g.txt"', "graph_name = '../../g.txt'"),
    ('path = "g.txt"', 'graph_name = 5', "graph_name = 5"),
    ('path = "g.txt"', 'graph_name = "g.exe"', "graph extension"),
])
def test_source_and_sink_tables_refuse_what_they_do_not_take(
        tmp_path: Path, polbooks: Path, source: str, sink: str, message: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A typo would run the job without the setting (a release without its universe); a
    graph_name with a folder would write outside the sink, over the job's own input."""
    before = polbooks.read_bytes()
    body = head(source) + f"""
        [[steps]]
        name = "info"

        [[sinks]]
        type = "file"
        path = "out"
        {sink}
    """
    run(tmp_path, body, expect=2)
    import re

    assert re.search(message, capsys.readouterr().err)
    assert polbooks.read_bytes() == before and not (tmp_path / "out").exists()


@pytest.mark.parametrize(("source", "sink", "message"), [
    ('fetch_size = "abc"', "", "'fetch_size' parameter of job file"),
    ("fetch_size = 0", "", "'fetch_size' parameter of job file"),
    ('node_props = "ab"', "", "node_props must be a list"),
    ("", "batch_size = 0", "'batch_size' parameter of job file"),
    ("", "budget_total = -1.0", "'budget_total' parameter of job file"),
])
def test_neo4j_settings_are_checked_before_connecting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        source: str, sink: str, message: str) -> None:
    """A bad setting is a configuration error (exit 2), not "Neo4j is unavailable" (4)."""
    monkeypatch.setenv("NEO4J_URI", "neo4j://127.0.0.1:1")
    monkeypatch.setenv("NEO4J_PASSWORD", "x")
    body = head(f'type = "neo4j"\n        label = "B"\n        rel = "R"\n        {source}') + f"""
        [[steps]]
        name = "info"

        [[sinks]]
        type = "neo4j"
        dataset = "d"
        {sink}
    """
    run(tmp_path, body, expect=2)
    assert message in capsys.readouterr().err


def test_a_dp_release_of_a_projection_is_refused(tmp_path: Path, polbooks: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """project, then an ε-DP release: the ε would protect neighbouring projections, and one
    edge of the source can change the projection by more than one edge (cascades)."""
    body = head('path = "g.txt"') + """
        [[steps]]
        name = "project"
        theta = 3
        [[steps]]
        name = "release-dk"
        d = 2
        epsilon = 1.0
        max_degree = 3
    """ + FILE_SINK
    run(tmp_path, body, expect=2)
    err = capsys.readouterr().err
    assert "step 'release-dk' would release the output of step 'project'" in err
    assert err.count("\n") == 1
    assert not (tmp_path / "out").exists()
    # the same release on the source, and a projection alone, run
    run(tmp_path, body.replace('name = "project"\n        theta = 3', 'name = "info"'))
    run(tmp_path, head('path = "g.txt"') + """
        [[steps]]
        name = "project"
        theta = 3
    """ + FILE_SINK)


def test_a_sink_may_not_write_over_the_ledger(tmp_path: Path, polbooks: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A ledger inside a file sink's publish/ folder is refused before the charge."""
    body = head('path = "g.txt"', extra='ledger = "out/publish/statistics.tsv"\n'
                '        budget = 3.0\n        dataset = "polbooks"') + """
        [[steps]]
        name = "release-dk"
        d = 1
        epsilon = 1.0
        max_degree = 30
    """ + FILE_SINK
    run(tmp_path, body, expect=2)
    assert "could be replaced" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # nothing charged, nothing written


@pytest.mark.parametrize("paths", [("dd", "./dd/"), ("nn", "nn/publish"),
                                   ("out/{release_id}", "out/r"), ("real", "link")])
def test_two_file_sinks_in_one_folder_are_refused(tmp_path: Path, polbooks: Path,
                                                  paths: tuple[str, str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Compared as written with this run's release id ("r"), links followed."""
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to("real")
    sinks = "".join(f'\n        [[sinks]]\n        type = "file"\n        path = "{p}"'
                    for p in paths)
    run(tmp_path, head('path = "g.txt"') + """
        [[steps]]
        name = "info"
    """ + sinks + "\n", expect=2)
    assert "give each its own folder" in capsys.readouterr().err
    # other folders, one with a template that differs from this run's id: both written
    run(tmp_path, head('path = "g.txt"') + """
        [[steps]]
        name = "info"
        [[sinks]]
        type = "file"
        path = "out"
        [[sinks]]
        type = "file"
        path = "other/{release_id}"
    """)
    assert (tmp_path / "other" / "r" / "operator" / "report.json").is_file()


@pytest.mark.parametrize("sink_path", ["afile/out", "   "])
def test_an_unwritable_file_sink_is_refused_before_the_charge(
        tmp_path: Path, polbooks: Path, sink_path: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A sink folder under a file (or an empty path) stops the job before any step and
    before the ledger charge: three failed runs spend nothing."""
    (tmp_path / "afile").write_text("x\n")
    body = head('path = "g.txt"', extra='ledger = "L.json"\n        budget = 2.5\n'
                '        dataset = "polbooks"') + f"""
        [[steps]]
        name = "release-dk"
        d = 1
        epsilon = 1.0
        max_degree = 30
        [[sinks]]
        type = "file"
        path = "{sink_path}"
    """
    for _ in range(3):
        run(tmp_path, body, expect=2)
    err = capsys.readouterr().err
    assert ("not a folder" in err) if sink_path.strip() else ("needs a path" in err)
    assert not (tmp_path / "L.json").exists() or '"release_id"' not in (
        tmp_path / "L.json").read_text()


def test_an_interrupted_job_logs_its_failure(tmp_path: Path, polbooks: Path,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """SIGTERM in the CLI's process arrives as Terminated (a KeyboardInterrupt): the job
    logs job_failed with exit code 143, and its file sink writes nothing."""
    from graphanon._interrupts import Terminated
    from graphanon.jobs import runner

    def stop(state, params):  # type: ignore[no-untyped-def]
        raise Terminated(15)

    monkeypatch.setitem(runner.STEPS, "info", stop)
    job = tmp_path / "job.toml"
    job.write_text(textwrap.dedent(head('path = "g.txt"') + """
        [[steps]]
        name = "info"
    """ + FILE_SINK))
    assert main(["run", str(job), "--log-format", "json"]) == 143
    events = [json.loads(x) for x in capsys.readouterr().err.splitlines() if x.startswith("{")]
    assert events[-1]["event"] == "job_failed" and events[-1]["exit_code"] == 143
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("budget", ["nan", "-1.0", "inf", "0.0", '"5"'])
def test_a_bad_ledger_budget_is_named_with_its_value(tmp_path: Path, polbooks: Path,
                                                     budget: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    body = head('path = "g.txt"', extra=f'ledger = "L.json"\n        budget = {budget}\n'
                '        dataset = "polbooks"') + """
        [[steps]]
        name = "info"
    """ + FILE_SINK
    run(tmp_path, body, expect=2)
    err = capsys.readouterr().err
    assert "[job] ledger needs a path and budget" in err and "budget = " in err
    assert not (tmp_path / "L.json").exists()
