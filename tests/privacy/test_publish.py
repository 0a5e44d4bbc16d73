"""Issue 34, points 1 and 8: nothing read from the source is published unless a mechanism
released it, and a payload is bound to its record (graphanon.privacy.publish)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest
from neo4j_fake import FakeDB, FakeDriver

from graphanon import registry
from graphanon.cli import main
from graphanon.datasets import load_polbooks
from graphanon.graph import BipartiteGraph, Graph
from graphanon.io import neo4j as io_neo4j
from graphanon.io.dk_tables import read_dk_table
from graphanon.io.files import read_bipartite, read_graph, write_graph
from graphanon.privacy.publish import bind, check_payload, published_view
from graphanon.privacy.release import Release

SALARY = 7_770_000  # the source's private column: salaries SALARY + i


def salary_db() -> FakeDB:
    """A social graph (:Person) and a user–feature graph (:User -> :Interest) whose nodes
    carry a private ``salary`` next to their ids."""
    rng = np.random.default_rng(4)
    db = FakeDB()
    G = load_polbooks()
    db.source_nodes["Person"] = [{"uid": int(x), "salary": SALARY + i}
                                 for i, x in enumerate(G.node_ids.tolist())]
    u, v = G.edges()
    db.source_rels = [("KNOWS", ("Person", a), ("Person", b))
                      for a, b in zip(u.tolist(), v.tolist(), strict=True)]
    db.source_nodes["User"] = [{"uid": f"p{i}", "salary": SALARY + i} for i in range(40)]
    db.source_nodes["Interest"] = [{"name": f"i{j}"} for j in range(8)]
    db.source_rels += [("HAS_INTEREST", ("User", i), ("Interest", j)) for i in range(40)
                       for j in range(8) if rng.random() < 0.35 or j == i % 8]
    return db


GRAPH_SOURCE = """
    type = "neo4j"
    label = "Person"
    rel = "KNOWS"
    id_prop = "uid"
    node_props = ["salary"]
    universe = "label"
"""
BIPARTITE_SOURCE = """
    type = "neo4j"
    kind = "bipartite"
    user_label = "User"
    feature_label = "Interest"
    rel = "HAS_INTEREST"
    id_prop = "uid"
    feature_id_prop = "name"
    node_props = ["salary"]
    universe = "label"
"""

#: Every job step that makes a release (info and project make none: a sink refuses to
#: publish their data), with a source carrying the salary column.
RELEASE_STEPS = {
    "randomized-response": (BIPARTITE_SOURCE, 'epsilon = 2.0\nneighbourhood = "edge"'),
    "smooth-k": (BIPARTITE_SOURCE, "k = 3"),
    "mondrian": (BIPARTITE_SOURCE, "k = 3"),
    "b-anonymize": (BIPARTITE_SOURCE, "delta = 2"),
    "release-dk": (GRAPH_SOURCE, "d = 2\nepsilon = 1.0\nmax_degree = 30"),
    "release-dk-node": (GRAPH_SOURCE, "d = 1\nepsilon = 1.0\ntheta = 8"),  # old name
    "release-degrees": (GRAPH_SOURCE, 'method = "laplace"\nepsilon = 1.0'),
    "release-personalized": (GRAPH_SOURCE, 'prefs_scheme = "thesis"\nd = 1\n'
                                           'neighbourhood = "edge"\nmethod = "tp"\n'
                                           'theta = 20\nmu = 1.0'),
    "generate": (GRAPH_SOURCE, ""),  # after release-dk d = 1: a graph of the released table
    "synthesize": (GRAPH_SOURCE, 'epsilon = 1.0\nneighbourhood = "edge"'),  # on the public ids
}


def test_the_table_covers_every_release_step() -> None:
    # the paper reproductions claim no privacy: their output is not publishable at all
    reproductions = {r.name for r in registry.REGISTRY if r.family == "reproduce"}
    assert set(RELEASE_STEPS) | {"info", "describe", "project"} | reproductions == set(
        registry.steps())


def _job(tmp_path: Path, step: str, extra: str = "") -> Path:
    source, keys = RELEASE_STEPS[step]
    steps = f"[[steps]]\nname = \"{step}\"\n{keys}\n"
    write = ""
    if step == "generate":
        steps = ("[[steps]]\nname = \"release-dk\"\nd = 1\nepsilon = 1.0\nmax_degree = 30\n"
                 + steps)
        write = 'write = "graph"'
    body = textwrap.dedent("""
        [job]
        name = "t"
        release_id = "r"
        seed = 5
        {extra}
        [source]
        {source}
        {steps}
        [[sinks]]
        type = "file"
        path = "out"
        [[sinks]]
        type = "neo4j"
        dataset = "people"
        budget_total = 100.0
        {write}
    """).format(extra=extra, source=textwrap.indent(source, "        ").strip(),
                steps=steps, write=write)
    job = tmp_path / "job.toml"
    job.write_text(body)
    return job


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeDriver:
    drv = FakeDriver(salary_db())
    for k, v in {"NEO4J_URI": "bolt://fake:7687", "NEO4J_PASSWORD": "pw"}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(io_neo4j, "connect", lambda settings, verify=True: drv)
    return drv


@pytest.mark.parametrize("step", sorted(RELEASE_STEPS))
def test_no_source_attribute_reaches_either_sink(tmp_path: Path, fake: FakeDriver,
                                                 step: str) -> None:
    """Point 1: a job reading a salary next to each person publishes it in neither sink,
    for every mechanism that has a job step; asking to publish it is refused (exit 2)."""
    assert main(["-q", "run", str(_job(tmp_path, step))]) == 0
    assert fake.db.records["r"]["status"] == "complete"
    published = [p for p in (tmp_path / "out" / "publish").rglob("*") if p.is_file()]
    assert published
    written = json.dumps([fake.db.nodes, fake.db.rels, fake.db.stats, fake.db.records,
                          [c.params for c in fake.calls if c.name.startswith("write_")]],
                         default=str)
    for text in [written, *(p.read_text() for p in published)]:
        assert "salary" not in text and str(SALARY)[:5] not in text
    for node in [n for nodes in fake.db.nodes.values() for n in nodes]:
        assert set(node) == {"release_id", "attempt", "uid"}
    fake.db.records.clear()
    assert main(["-q", "run", str(_job(tmp_path, step, 'publish = ["salary"]'))]) == 2
    assert "r" not in fake.db.records


def test_mechanism_outputs_drop_the_inputs_columns() -> None:
    """The new cells of randomized response and smooth-k carry no column of the input."""
    B = BipartiteGraph.from_pairs(["a", "b"], ["x", "y"], all_users=["a", "b"],
                                  user_attributes={"salary": np.array([1, 2])})
    assert dict(B.with_cells([0], [1]).user_attributes) == {}


# ----------------------------------------------------------------------- point 8
def _private_graph(tmp_path: Path) -> Path:
    write_graph(load_polbooks(), tmp_path / "g.txt")
    return tmp_path / "g.txt"


def test_write_release_refuses_the_raw_input_under_a_release(
        tmp_path: Path, fake: FakeDriver, capsys: pytest.CaptureFixture[str]) -> None:
    """Point 8, as the issue reproduced it: the private input graph under a node-DP 1K report,
    an exact 2K table under a DP report and a 2K table under a 1K report are each refused
    with exit 2 before connecting; the release's own table is written."""
    g = _private_graph(tmp_path)
    assert main(["-q", "release-dk", str(g), "--neighbourhood", "node", "--d", "1", "--epsilon",
                 "1", "--theta", "8", "--out", str(tmp_path / "node1k.tsv"), "--report",
                 str(tmp_path / "node1k.json")]) == 0
    assert main(["-q", "release-dk", str(g), "--d", "2", "--epsilon", "1", "--max-degree",
                 "30", "--out", str(tmp_path / "dp2k.tsv"), "--report",
                 str(tmp_path / "dp2k.json")]) == 0
    assert main(["-q", "dk", str(g), "--d", "2", "--out", str(tmp_path / "exact2k.tsv")]) == 0
    record = json.loads((tmp_path / "node1k.json").read_text())["release"]
    assert record["payload_kind"] == "statistics" and record["payload_digest"].startswith(
        "hmac-sha256:")
    lines = (tmp_path / "dp2k.tsv").read_text().splitlines()
    head, count = lines[-1].rsplit("\t", 1)
    (tmp_path / "edited.tsv").write_text("\n".join([*lines[:-1], f"{head}\t{int(count) + 1}"]))
    capsys.readouterr()
    for payload, report, why in (
            (["--graph", str(g)], "node1k.json", "is a graph payload"),
            (["--table", str(tmp_path / "exact2k.tsv")], "dp2k.json", "not the release's"),
            (["--table", str(tmp_path / "edited.tsv")], "dp2k.json", "payload digest"),
            (["--table", str(tmp_path / "dp2k.tsv")], "node1k.json", "released {'rows'")):
        assert main(["-q", "neo4j", "write-release", *payload, "--report",
                     str(tmp_path / report), "--dataset", "polbooks"]) == 2
        err = capsys.readouterr().err
        assert why in err and err.count("\n") == 1 and "Traceback" not in err
    assert fake.calls == []  # every refusal came before connecting
    assert main(["-q", "neo4j", "write-release", "--table", str(tmp_path / "dp2k.tsv"),
                 "--report", str(tmp_path / "dp2k.json"), "--dataset", "polbooks",
                 "--budget-total", "5"]) == 0


def test_a_record_without_a_digest_is_refused(tmp_path: Path, fake: FakeDriver,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A record made before payloads were bound still reads, but binds nothing: refused."""
    rec = Release.create(mechanism="m", neighbourhood="k-anonymity").to_dict()
    old = {k: v for k, v in rec.items()
           if k not in ("released_attributes", "payload_kind", "payload_shape",
                        "payload_digest", "parent_release")}
    assert Release.from_dict(old).payload_digest is None
    (tmp_path / "old.json").write_text(json.dumps({"release": old}))
    assert main(["-q", "neo4j", "write-release", "--graph", str(_private_graph(tmp_path)),
                 "--report", str(tmp_path / "old.json")]) == 2
    assert "names no payload digest" in capsys.readouterr().err and fake.calls == []


def test_the_digest_is_keyed_and_ignores_only_the_user_names(
        monkeypatch: pytest.MonkeyPatch) -> None:
    B = BipartiteGraph.from_pairs(["a", "a", "b"], ["x", "y", "x"])
    renamed = BipartiteGraph.from_pairs(["u9", "u9", "u1"], ["x", "y", "x"])
    other = BipartiteGraph.from_pairs(["a", "a", "b"], ["x", "y", "y"])  # same shape
    rel = bind(Release.create(mechanism="m", neighbourhood="k-anonymity"), B)
    check_payload(rel, renamed)  # a sink's pseudonyms (or real ids) are the same payload
    with pytest.raises(Exception, match="does not match the payload digest"):
        check_payload(rel, other)
    monkeypatch.setenv("GRAPHANON_FINGERPRINT_KEY", "another operator")
    with pytest.raises(Exception, match="does not match the payload digest"):
        check_payload(rel, B)
    G = Graph.from_edges([0, 1], [1, 2]).with_attribute("salary", np.array([1, 2, 3]))
    assert dict(published_view(G, rel).attributes) == {}


def test_generate_gets_its_own_record_naming_its_parent(
        tmp_path: Path, fake: FakeDriver, capsys: pytest.CaptureFixture[str]) -> None:
    g = _private_graph(tmp_path)
    assert main(["-q", "release-dk", str(g), "--d", "1", "--epsilon", "1", "--max-degree",
                 "30", "--out", str(tmp_path / "t.tsv"), "--report",
                 str(tmp_path / "t.json")]) == 0
    parent = json.loads((tmp_path / "t.json").read_text())["release"]
    assert main(["-q", "generate", str(tmp_path / "t.tsv"), "--d", "1", "--seed", "2",
                 "--out", str(tmp_path / "s.txt"), "--report", str(tmp_path / "s.json"),
                 "--parent-report", str(tmp_path / "t.json")]) == 0
    derived = json.loads((tmp_path / "s.json").read_text())["release"]
    assert derived["parent_release"] == parent["release_id"] != derived["release_id"]
    assert derived["params"] == {"d": 1, "method": derived["params"]["method"]}
    assert (derived["mechanism"], derived["payload_kind"]) == ("generate", "graph")
    assert (derived["neighbourhood"], derived["epsilon"]) == ("edge", 1.0)
    check_payload(derived, read_graph(tmp_path / "s.txt"))
    # the generated graph under its own record is written; under the table's it is not
    assert main(["-q", "neo4j", "write-release", "--graph", str(tmp_path / "s.txt"),
                 "--report", str(tmp_path / "t.json"), "--dataset", "polbooks",
                 "--budget-total", "5"]) == 2
    assert main(["-q", "neo4j", "write-release", "--graph", str(tmp_path / "s.txt"),
                 "--report", str(tmp_path / "s.json"), "--dataset", "polbooks",
                 "--budget-total", "5"]) == 0
    assert fake.db.records[derived["release_id"]]["parent_release"] == parent["release_id"]
    # a table that is not the parent's payload is refused
    (tmp_path / "t2.tsv").write_text("# graphanon dK table: kind=degree\ndegree1\tcount\n"
                                     "1\t2\n")
    capsys.readouterr()
    assert main(["-q", "generate", str(tmp_path / "t2.tsv"), "--d", "1", "--out",
                 str(tmp_path / "s2.txt"), "--report", str(tmp_path / "s2.json"),
                 "--parent-report", str(tmp_path / "t.json")]) == 2
    assert "t2.tsv" in capsys.readouterr().err and not (tmp_path / "s2.txt").exists()


def test_a_jobs_published_files_are_bound_to_their_records(tmp_path: Path,
                                                           fake: FakeDriver) -> None:
    """The job's publish/ folder can be written by hand later: its bipartite.tsv (keyed
    pseudonyms) matches release.json; a generated graph has its own record."""
    assert main(["-q", "run", str(_job(tmp_path, "smooth-k"))]) == 0
    publish = tmp_path / "out" / "publish"
    record = json.loads((publish / "release.json").read_text())
    check_payload(record, read_bipartite(publish / "bipartite.tsv"))
    fake.db.records.clear()
    assert main(["-q", "run", str(_job(tmp_path, "generate"))]) == 0
    table_record = json.loads((publish / "release.json").read_text())
    graph_record = json.loads((publish / "graph.graphml.release.json").read_text())
    check_payload(table_record, read_dk_table(publish / "statistics.tsv"))
    check_payload(graph_record, read_graph(publish / "graph.graphml"))
    assert graph_record["parent_release"] == table_record["release_id"]
    assert fake.db.records["r"]["mechanism"] == "generate"  # the neo4j sink wrote the graph
