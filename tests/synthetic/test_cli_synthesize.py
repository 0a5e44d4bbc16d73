"""``graphanon synthesize``: one ledger charge, graph and record written together or not at
all, exit codes; a job step (file and Neo4j sinks); ``neo4j write-release`` of its output."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from neo4j_fake import FakeDriver

from graphanon.cli import main
from graphanon.datasets import load_polbooks
from graphanon.io.cypher import load
from graphanon.io.files import read_graph, write_graph
from graphanon.privacy.publish import check_payload
from graphanon.privacy.release import Release


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    G = load_polbooks()
    write_graph(G, tmp_path / "g.txt")
    (tmp_path / "nodes.txt").write_text(
        "".join(f"{x}\n" for x in G.node_ids) + "lonely-1\nlonely-2\n")
    return tmp_path / "g.txt", tmp_path / "nodes.txt"


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_edge_dp_writes_graph_and_record_and_charges_once(
        tmp_path: Path, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    g, nodes = files
    out = tmp_path / "syn.parquet"
    ledger = tmp_path / "L.json"
    assert main(["synthesize", str(g), "--epsilon", "1.5", "--neighbourhood", "edge", "--nodes",
                 str(nodes), "-o", str(out), "--seed", "3", "--ledger", str(ledger),
                 "--dataset", "polbooks", "--budget", "4"]) == 0
    assert "charged ε=1.5" in capsys.readouterr().out
    (entry,) = json.loads(ledger.read_text())["datasets"]["polbooks"]["entries"]
    assert entry["epsilon"] == 1.5 and entry["mechanism"] == "synthesize-edge"
    record = json.loads((tmp_path / "syn.parquet.release.json").read_text())
    rel = Release.from_dict(record)
    assert rel.neighbourhood == "edge" and rel.epsilon == 1.5 and rel.seed == 3
    assert sum(rel.params["epsilon_split"].values()) == pytest.approx(1.5)
    assert entry["release_id"] == rel.release_id
    S = read_graph(out)
    check_payload(record, S)  # the record is bound to exactly the written graph
    universe = set(nodes.read_text().split())
    assert set(S.node_ids.astype(str).tolist()) == universe  # ids kept, isolated ones too
    assert rel.params["block_slope"] == 0.0  # the default: one block density
    # the operator's prior: --block-slope 0.5, kept where the triangles are significant
    out3 = tmp_path / "sloped.txt"
    assert main(["-q", "synthesize", str(g), "--epsilon", "20", "--nodes", str(nodes), "-o",
                 str(out3), "--block-slope", "0.5", "--seed", "3"]) == 0
    sloped = json.loads((tmp_path / "sloped.txt.release.json").read_text())
    assert sloped["params"]["block_slope"] == 0.5
    assert rel.params["block_mixing_selection"].startswith("auto")
    # the operator's choice: --block-mixing 2 is taken as given and stated
    out4 = tmp_path / "mixed.txt"
    assert main(["-q", "synthesize", str(g), "--epsilon", "0.5", "--nodes", str(nodes), "-o",
                 str(out4), "--block-mixing", "2", "--seed", "3"]) == 0
    mixed = json.loads((tmp_path / "mixed.txt.release.json").read_text())
    assert mixed["params"]["block_mixing"] == 2.0
    assert mixed["params"]["block_mixing_selection"] == "given"
    # auto where polbooks' triangle statistic is significant (ε = 40): the fit runs and the
    # choice is a function of the released values and the seed, so it repeats
    chosen = []
    for run in range(2):
        out5 = tmp_path / f"auto{run}.txt"
        assert main(["-q", "synthesize", str(g), "--epsilon", "40", "--nodes", str(nodes),
                     "-o", str(out5), "--noise", "numpy-insecure", "--seed", "3"]) == 0
        params = json.loads((tmp_path / f"auto{run}.txt.release.json").read_text())["params"]
        assert params["block_mixing_selection"].startswith("auto: the first")
        chosen.append(params["block_mixing"])
    assert chosen[0] == chosen[1] and chosen[0] in (0.0, 1.0)
    # a second release that does not fit: exit 3, nothing new written or charged
    out2 = tmp_path / "syn2.txt"
    assert main(["-q", "synthesize", str(g), "--epsilon", "3", "--nodes", str(nodes), "-o",
                 str(out2), "--ledger", str(ledger), "--dataset", "polbooks"]) == 3
    assert not out2.exists() and not (tmp_path / "syn2.txt.release.json").exists()
    assert len(json.loads(ledger.read_text())["datasets"]["polbooks"]["entries"]) == 1


def test_node_dp_gives_new_ids_and_an_explicit_record(tmp_path: Path,
                                                     files: tuple[Path, Path]) -> None:
    g, _ = files
    out, rec = tmp_path / "syn.graphml", tmp_path / "records" / "syn.json"
    assert main(["-q", "synthesize", str(g), "--epsilon", "60", "--neighbourhood", "node",
                 "--theta", "6", "--out", str(out), "--record", str(rec), "--noise",
                 "numpy-insecure", "--seed", "1"]) == 0
    record = json.loads(rec.read_text())
    assert record["mechanism"] == "synthesize-node" and record["neighbourhood"] == "node"
    assert record["params"]["theta"] == 6
    assert record["params"]["sensitivities"]["theta_dk2"] == 6 * 13
    S = read_graph(out)
    assert S.n_edges > 0 and all(str(i).startswith("s") for i in S.node_ids)
    assert not (tmp_path / "syn.graphml.release.json").exists()
    # with --theta auto θ is chosen privately and the record says so
    for extra in (["--theta", "auto"],):
        rec2 = tmp_path / "records" / f"auto{len(extra)}.json"
        assert main(["-q", "synthesize", str(g), "--epsilon", "60", "--neighbourhood", "node",
                     *extra, "--out", str(tmp_path / f"auto{len(extra)}.txt"), "--record",
                     str(rec2), "--noise", "numpy-insecure", "--seed", "1"]) == 0
        params = json.loads(rec2.read_text())["params"]
        assert params["theta_selection"] == "exponential-mechanism"
        assert params["epsilon_split"]["theta_selection"] == pytest.approx(6.0)
        assert params["theta"] in params["theta_grid"]


@pytest.mark.parametrize(("args", "message"), [
    (["--epsilon", "0", "--nodes", "{nodes}"], "--epsilon"),
    (["--epsilon", "-1", "--nodes", "{nodes}"], "--epsilon"),
    (["--epsilon", "1"], "--nodes"),
    (["--epsilon", "1", "--neighbourhood", "node", "--nodes", "{nodes}"], "--nodes"),
    (["--epsilon", "1", "--nodes", "{nodes}", "--theta", "4"], "--theta"),
    (["--epsilon", "1", "--neighbourhood", "node", "--block-slope", "0"], "--block-slope"),
    (["--epsilon", "1", "--nodes", "{nodes}", "--block-slope", "3"], "--block-slope"),
    (["--epsilon", "1", "--neighbourhood", "node", "--block-mixing", "1"], "--block-mixing"),
    (["--epsilon", "1", "--nodes", "{nodes}", "--block-mixing", "5"], "--block-mixing"),
    (["--epsilon", "1", "--nodes", "{nodes}", "--block-mixing", "some"], "--block-mixing"),
    (["--epsilon", "1", "--neighbourhood", "vertex", "--nodes", "{nodes}"], "--neighbourhood"),
    (["--epsilon", "1", "--nodes", "{nodes}", "--ledger", "{dir}/L.json"], "--dataset"),
])
def test_bad_input_exit_2_one_line_nothing_left(
        tmp_path: Path, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
        args: list[str], message: str) -> None:
    g, nodes = files
    before = _names(tmp_path)
    argv = [a.format(nodes=nodes, dir=tmp_path) for a in args]
    assert main(["-q", "synthesize", str(g), *argv, "-o", str(tmp_path / "s.txt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
    assert _names(tmp_path) == before


def test_a_malformed_input_exit_2_nothing_left(tmp_path: Path, files: tuple[Path, Path],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    _, nodes = files
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2\nonly-one-field\n")
    before = _names(tmp_path)
    assert main(["-q", "synthesize", str(bad), "--epsilon", "1", "--nodes", str(nodes),
                 "-o", str(tmp_path / "s.graphml"), "--ledger", str(tmp_path / "L.json"),
                 "--dataset", "d", "--budget", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 2" in err
    assert _names(tmp_path) == before  # no graph, no record, no new ledger


def test_output_guards(tmp_path: Path, files: tuple[Path, Path],
                       capsys: pytest.CaptureFixture[str]) -> None:
    g, nodes = files
    # the graph may not overwrite the input, nor the record the ledger
    assert main(["-q", "synthesize", str(g), "--epsilon", "1", "--nodes", str(nodes),
                 "-o", str(g)]) == 2
    assert main(["-q", "synthesize", str(g), "--epsilon", "1", "--nodes", str(nodes),
                 "-o", str(tmp_path / "s.txt"), "--record", str(tmp_path / "L.json"),
                 "--ledger", str(tmp_path / "L.json"), "--dataset", "d", "--budget", "2"]) == 2
    # a graph written in place has no "next to it": the record must be named
    assert main(["-q", "synthesize", str(g), "--epsilon", "1", "--nodes", str(nodes),
                 "-o", "/dev/null", "--out-format", "edgelist"]) == 2
    assert "--record" in capsys.readouterr().err
    assert _names(tmp_path) == ["g.txt", "nodes.txt"]


# ---------------------------------------------------------------------- Neo4j
def test_write_release_takes_the_graph_and_its_record(
        fake: FakeDriver, tmp_path: Path, files: tuple[Path, Path]) -> None:
    g, nodes = files
    out = tmp_path / "syn.parquet"
    assert main(["-q", "synthesize", str(g), "--epsilon", "0.5", "--nodes", str(nodes),
                 "-o", str(out)]) == 0
    record = json.loads((tmp_path / "syn.parquet.release.json").read_text())
    S = read_graph(out)
    assert main(["-q", "neo4j", "write-release", "--graph", str(out), "--report",
                 str(tmp_path / "syn.parquet.release.json"), "--dataset", "polbooks",
                 "--budget-total", "1"]) == 0
    rid = record["release_id"]
    assert fake.db.records[rid]["status"] == "complete"
    assert fake.db.records[rid]["mechanism"] == "synthesize-edge"
    assert fake.db.budgets["polbooks"]["epsilon_spent"] == pytest.approx(0.5)
    nodes_calls = fake.named("write_nodes")
    assert {c.query for c in nodes_calls} == {load("write_nodes", label="AnonNode")}
    assert sum(len(c.params["rows"]) for c in nodes_calls) == S.n_nodes  # isolated too
    rels = fake.named("write_relationships")
    assert {c.query for c in rels} == {load("write_relationships", source_label="AnonNode",
                                            target_label="AnonNode", rel_type="ANON_EDGE")}
    assert sum(len(c.params["rows"]) for c in rels) == S.n_edges
    written = {r["uid"] for c in nodes_calls for r in c.params["rows"]}
    assert not written & set(S.node_ids.astype(str).tolist())  # pseudonyms by default


# ---------------------------------------------------------------------- jobs
def _job(tmp_path: Path, steps: str, sinks: str, extra: str = "") -> Path:
    job = tmp_path / "job.toml"
    job.write_text(textwrap.dedent(f"""
        [job]
        name = "syn"
        release_id = "syn-1"
        seed = 4
        {extra}
        [source]
        path = "g.txt"
        nodes = "nodes.txt"
    """) + textwrap.dedent(steps) + textwrap.dedent(sinks))
    return job


STEP = """
[[steps]]
name = "synthesize"
epsilon = 1.0
neighbourhood = "edge"
"""


def test_job_step_file_sink(tmp_path: Path, files: tuple[Path, Path]) -> None:
    job = _job(tmp_path, STEP, '[[sinks]]\ntype = "file"\npath = "out"\n',
               extra='ledger = "L.json"\nbudget = 2.0\ndataset = "polbooks"')
    assert main(["-q", "run", str(job)]) == 0
    report = json.loads((tmp_path / "out" / "operator" / "report.json").read_text())
    assert report["publishable"] and report["release"]["mechanism"] == "synthesize-edge"
    assert report["release"]["params"]["universe_source"]
    S = read_graph(tmp_path / "out" / "publish" / "graph.graphml")
    assert set(S.node_ids.astype(str).tolist()) == set(files[1].read_text().split())
    (entry,) = json.loads((tmp_path / "L.json").read_text())["datasets"]["polbooks"]["entries"]
    assert entry["epsilon"] == 1.0 and entry["mechanism"] == "synthesize-edge"


def test_job_step_node_dp_and_bad_keys(tmp_path: Path, files: tuple[Path, Path],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    node = STEP.replace('neighbourhood = "edge"',
                        'neighbourhood = "node"\ntheta = 4\nepsilon = 1.0')
    node = node.replace("epsilon = 1.0\n", "", 1)
    job = _job(tmp_path, node, '[[sinks]]\ntype = "file"\npath = "out"\n')
    # the source's node universe is refused under node-DP (the node set is private)
    assert main(["-q", "run", str(job)]) == 2
    assert "'nodes'" in capsys.readouterr().err
    job.write_text(job.read_text().replace('nodes = "nodes.txt"\n', ""))
    assert main(["-q", "run", str(job)]) == 0
    rep = json.loads((tmp_path / "out" / "operator" / "report.json").read_text())
    assert rep["release"]["mechanism"] == "synthesize-node"
    S = read_graph(tmp_path / "out" / "publish" / "graph.graphml")
    assert all(str(i).startswith("s") for i in S.node_ids)
    job.write_text(job.read_text().replace("theta = 4", "theta = 4\nbogus = 1"))
    assert main(["-q", "run", str(job)]) == 2
    assert "bogus" in capsys.readouterr().err


def test_job_step_neo4j_sink(fake: FakeDriver, tmp_path: Path,
                             files: tuple[Path, Path]) -> None:
    job = _job(tmp_path, STEP, """
        [[sinks]]
        type = "neo4j"
        dataset = "polbooks"
        budget_total = 1.5
    """)
    assert main(["-q", "run", str(job)]) == 0
    rec = fake.db.records["syn-1"]
    assert rec["status"] == "complete" and rec["mechanism"] == "synthesize-edge"
    assert fake.db.budgets["polbooks"]["epsilon_spent"] == pytest.approx(1.0)
    n_nodes = len(files[1].read_text().split())
    calls = fake.named("write_nodes")
    assert {c.query for c in calls} == {load("write_nodes", label="AnonNode")}
    assert sum(len(c.params["rows"]) for c in calls) == n_nodes
    assert fake.named("write_relationships")
    assert not fake.named("write_statistics")
    assert main(["-q", "run", str(job)]) == 3  # a second draw does not fit the budget
