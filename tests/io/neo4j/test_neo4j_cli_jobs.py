"""CLI commands ``graphanon neo4j ...`` and ``graphanon run`` against the fake driver."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from bound import bound
from neo4j_fake import FakeDriver
from test_neo4j_io import RELEASE, bipartite_db, other, ring, social_db

from graphanon import jobs
from graphanon.cli import main
from graphanon.errors import InvalidParameterError
from graphanon.graph import Graph
from graphanon.io import neo4j as io_neo4j
from graphanon.io.dk_tables import read_dk_table
from graphanon.io.files import read_bipartite, read_graph, write_graph
from graphanon.privacy.release import Release


def test_read_graph_command(fake: FakeDriver, tmp_path: Path) -> None:
    fake.db = social_db()
    out = tmp_path / "g.graphml"
    assert main(["-q", "neo4j", "read-graph", "--label", "Person", "--rel", "KNOWS",
                 "--id-prop", "uid", "--node-props", "eps", "--out", str(out)]) == 0
    G = read_graph(out)
    assert G.n_nodes == 6 and G.n_edges == 4


def test_read_bipartite_command(fake: FakeDriver, tmp_path: Path) -> None:
    fake.db = bipartite_db()
    out = tmp_path / "b.tsv"
    assert main(["-q", "neo4j", "read-bipartite", "--user-label", "User", "--feature-label",
                 "Interest", "--rel", "HAS_INTEREST", "--id-prop", "uid", "--feature-id-prop",
                 "name", "--out", str(out)]) == 0
    assert read_bipartite(out).n_edges == 5
    # user properties go to user<TAB>value sidecars (the --delta-file / --prefs format)
    assert main(["-q", "neo4j", "read-bipartite", "--user-label", "User", "--feature-label",
                 "Interest", "--rel", "HAS_INTEREST", "--id-prop", "uid", "--feature-id-prop",
                 "name", "--user-props", "delta", "--out", str(out)]) == 2  # needs --props-out
    assert main(["-q", "neo4j", "read-bipartite", "--user-label", "User", "--feature-label",
                 "Interest", "--rel", "HAS_INTEREST", "--id-prop", "uid", "--feature-id-prop",
                 "name", "--user-props", "delta", "--props-out", str(tmp_path / "users"),
                 "--out", str(out)]) == 0
    lines = (tmp_path / "users.delta.tsv").read_text().split()
    assert lines[:2] == ["u0", "2"] and len(lines) == 8


@pytest.mark.parametrize("args", [
    ["read-graph", "--label", "Person`) DETACH DELETE (x", "--rel", "KNOWS"],
    ["read-graph", "--label", "Person", "--rel", "KNOWS", "--node-props", "a,b c"],
    ["read-bipartite", "--user-label", "User", "--feature-label", "Intérêt", "--rel", "R"],
])
def test_hostile_identifiers_exit_2_without_connecting(args: list[str], tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    def no_connect(*a, **k):
        raise AssertionError("connected")

    monkeypatch.setattr(io_neo4j, "connect", no_connect)
    monkeypatch.delenv("NEO4J_URI", raising=False)
    assert main(["neo4j", *args, "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "parameter must be a Neo4j identifier" in err and "Traceback" not in err


def test_unreachable_database_exits_4_with_one_line(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_PASSWORD", "s3cret-pw")
    code = main(["neo4j", "read-graph", "--label", "A", "--rel", "R", "--out",
                 str(tmp_path / "x.txt"), "--uri", "bolt://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 4
    assert err.count("\n") == 1 and "unavailable" in err and "s3cret" not in err
    # the routing scheme too: the driver's own log lines must not add to the one line
    code = main(["neo4j", "releases", "--uri", "neo4j://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 4 and err.count("\n") == 1


def _report(tmp_path: Path, record: dict, payload: object) -> Path:
    """A report holding ``record`` bound to ``payload`` (what the test writes)."""
    p = tmp_path / "report.json"
    p.write_text(json.dumps({"title": "x", "release": bound(record, payload)}))
    return p


def test_write_release_releases_and_drop(fake: FakeDriver, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    g = tmp_path / "anon.graphml"
    write_graph(ring(8), g)
    rep = _report(tmp_path, RELEASE, ring(8))
    assert main(["-q", "neo4j", "budget", "fp-source", "--epsilon-total", "1"]) == 0
    assert main(["neo4j", "write-release", "--release-id", "rel-1", "--graph", str(g),
                 "--report", str(rep)]) == 2  # a DP release needs its dataset name
    assert "stable name" in capsys.readouterr().err
    assert main(["neo4j", "write-release", "--release-id", "rel-1", "--graph", str(g),
                 "--report", str(rep), "--dataset", "fp-source"]) == 0
    assert "release rel-1 complete" in capsys.readouterr().out
    assert fake.db.records["rel-1"]["status"] == "complete"
    assert main(["neo4j", "releases", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["releases"][0]["release_id"] == "rel-1"
    assert listing["budgets"][0]["epsilon_spent"] == 0.5
    assert main(["neo4j", "releases"]) == 0
    assert "rel-1" in capsys.readouterr().out
    # a second, different release exceeds the budget: exit 3, nothing written
    rep2 = _report(tmp_path, other(epsilon=0.75), ring(8))
    assert main(["neo4j", "write-release", "--release-id", "rel-2", "--graph", str(g),
                 "--report", str(rep2), "--dataset", "fp-source"]) == 3
    assert "rel-2" not in fake.db.records
    # another release under a complete release's id: refused, then replaced on request
    rep3 = _report(tmp_path, other(epsilon=0.25), ring(8))
    args = ["-q", "neo4j", "write-release", "--release-id", "rel-1", "--graph", str(g),
            "--report", str(rep3), "--dataset", "fp-source"]
    assert main(args) == 2
    assert "exists and is complete" in capsys.readouterr().err
    assert fake.db.budgets["fp-source"]["epsilon_spent"] == 0.5
    assert main([*args, "--replace"]) == 0
    assert fake.db.budgets["fp-source"]["epsilon_spent"] == 0.75
    assert main(["-q", "neo4j", "drop-release", "rel-1"]) == 0
    assert main(["-q", "neo4j", "drop-release", "rel-1"]) == 2


def test_neo4j_budget_is_set_once_and_changed_by_set_budget(
        fake: FakeDriver, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`neo4j budget` and `write-release --budget-total` re-set the total on every call; now
    they set it once, and `neo4j set-budget` is the one (logged) way to change it."""
    g = tmp_path / "anon.graphml"
    write_graph(ring(8), g)
    assert main(["neo4j", "set-budget", "fp-source", "--epsilon-total", "2"]) == 2
    assert "no budget for dataset 'fp-source'" in capsys.readouterr().err
    assert main(["neo4j", "budget", "FP-Source", "--epsilon-total", "1"]) == 0
    assert "created the budget of dataset 'fp-source'" in capsys.readouterr().out
    assert main(["-q", "neo4j", "budget", "fp-source", "--epsilon-total", "1"]) == 0
    assert main(["neo4j", "budget", "fp-source", "--epsilon-total", "5"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "graphanon neo4j set-budget" in err
    rep = _report(tmp_path, RELEASE, ring(8))
    assert main(["-q", "neo4j", "write-release", "--release-id", "rel-1", "--graph", str(g),
                 "--report", str(rep), "--dataset", "fp-source", "--budget-total", "5"]) == 2
    assert "rel-1" not in fake.db.records and fake.db.budgets["fp-source"]["epsilon_total"] == 1
    assert main(["neo4j", "set-budget", "fp-source", "--epsilon-total", "5"]) == 0
    assert "from ε=1 to ε=5" in capsys.readouterr().out
    assert [(c["epsilon_total_before"], c["epsilon_total"]) for c in fake.db.budget_changes] \
        == [(1.0, 5.0)]
    assert main(["-q", "neo4j", "write-release", "--release-id", "rel-1", "--graph", str(g),
                 "--report", str(rep), "--dataset", "ＦＰ-source", "--budget-total", "5"]) == 0
    assert fake.db.budgets == {"fp-source": {"epsilon_spent": 0.5, "neighbourhood": "edge",
                                             "epsilon_total": 5.0}}


def test_write_release_table_and_bad_report(fake: FakeDriver, tmp_path: Path) -> None:
    t = tmp_path / "dd.tsv"
    t.write_text("# graphanon dK table: kind=degree\ndegree1\tcount\n0\t3.5\n1\t2\n")
    rec = other(neighbourhood="k-anonymity", epsilon=None)
    assert main(["-q", "neo4j", "write-release", "--table", str(t), "--report",
                 str(_report(tmp_path, rec, read_dk_table(t)))]) == 0
    assert fake.db.records[rec["release_id"]]["written_statistics"] == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"title": "no release here"}')
    assert main(["-q", "neo4j", "write-release", "--table", str(t), "--report", str(bad)]) == 2
    assert main(["-q", "neo4j", "write-release", "--report", str(bad)]) == 2


def test_write_release_refuses_what_may_not_be_published(
        fake: FakeDriver, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exact statistics (no privacy claim) and the seeded insecure noise (its recorded seed
    regenerates the exact table) are refused before connecting, unless --operator-only."""
    t = tmp_path / "dd.tsv"
    t.write_text("# graphanon dK table: kind=degree\ndegree1\tcount\n0\t3\n1\t2\n")
    exact = other(neighbourhood="none", epsilon=None)
    insecure = other(backend="numpy-insecure", seed=1)
    for rec, why in ((exact, "no privacy claim"), (insecure, "numpy-insecure")):
        rep = _report(tmp_path, rec, read_dk_table(t))
        assert main(["-q", "neo4j", "write-release", "--table", str(t), "--report", str(rep),
                     "--dataset", "fp-source"]) == 2
        err = capsys.readouterr().err
        assert why in err and "--operator-only" in err and err.count("\n") == 1
        assert fake.calls == []  # refused before connecting
    assert main(["-q", "neo4j", "write-release", "--table", str(t), "--operator-only",
                 "--report", str(_report(tmp_path, exact, read_dk_table(t)))]) == 0
    assert fake.db.records[exact["release_id"]]["publishable"] is False


# ----------------------------------------------------------------------- jobs
def dp_step(state: jobs.JobState, params: dict) -> None:
    """A stand-in mechanism for the tests: records a Release (no real privacy claim) whose
    output is the current data."""
    state.release = Release.create(mechanism="test-step", neighbourhood="edge",
                                   epsilon=params.get("epsilon", 0.5),
                                   source_fingerprint="jobdata")
    state.released_data = True


@pytest.fixture
def with_dp_step():
    jobs.register_step("test-dp", dp_step)
    yield
    jobs.STEPS.pop("test-dp")


def write_job(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "job.toml"
    p.write_text(textwrap.dedent(body))
    return p


def test_file_job_describe(tmp_path: Path) -> None:
    write_graph(ring(6), tmp_path / "in.txt")
    job = write_job(tmp_path, """
        [job]
        name = "nightly"
        release_id = "n-{date}"
        [source]
        type = "file"
        path = "in.txt"
        [[steps]]
        name = "info"
        [[sinks]]
        type = "file"
        path = "out/{release_id}"
    """)
    assert main(["-q", "run", str(job)]) == 0
    outs = list((tmp_path / "out").iterdir())
    assert len(outs) == 1 and outs[0].name.startswith("n-20")
    report = json.loads((outs[0] / "operator" / "report.json").read_text())
    assert report["not_private"]["steps"]["info"]["nodes"] == 6 and report["release"] is None
    # no release: the data is the private input, written for the operator only
    assert not report["publishable"] and not (outs[0] / "publish").exists()
    assert read_graph(outs[0] / "operator" / "graph.graphml").n_edges == 6


def test_neo4j_job_json_logs_and_exit_codes(fake: FakeDriver, tmp_path: Path, with_dp_step,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    fake.db = social_db()
    job = write_job(tmp_path, """
        [job]
        name = "social"
        release_id = "social-{datetime}"
        [source]
        type = "neo4j"
        label = "Person"
        rel = "KNOWS"
        id_prop = "uid"
        [[steps]]
        name = "info"
        [[steps]]
        name = "test-dp"
        epsilon = 0.6
        [[sinks]]
        type = "neo4j"
        dataset = "social"
        budget_total = 1.0
    """)
    assert main(["run", str(job), "--log-format", "json"]) == 0
    err = capsys.readouterr().err
    events = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert [e["event"] for e in events] == [
        "job_start", "source_read", "step_done", "step_done", "sink_written", "job_done"]
    assert "s3cret" not in err
    assert fake.db.complete_looking()[0].startswith("social-")
    assert fake.db.budgets["social"]["epsilon_spent"] == pytest.approx(0.6)
    # the second run does not fit the budget: exit 3
    assert main(["run", str(job), "--log-format", "json"]) == 3
    failed = [json.loads(x) for x in capsys.readouterr().err.splitlines() if x.startswith("{")]
    assert failed[-1]["event"] == "job_failed" and failed[-1]["exit_code"] == 3
    assert logging.getLogger("graphanon.jobs").handlers == []


def test_job_config_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = {
        "bad toml": "[job\n",
        "unknown step": '[source]\npath="x"\n[[steps]]\nname="nope"\n[[sinks]]\ntype="file"\n'
                        'path="o"',
        "hostile label": '[source]\ntype="neo4j"\nlabel="A` B"\nrel="R"\n[[sinks]]\ntype="file"\n'
                         'path="o"',
        "password": '[source]\ntype="neo4j"\nlabel="A"\nrel="R"\npassword="x"\n[[sinks]]\n'
                    'type="file"\npath="o"',
        "template": '[job]\nrelease_id="{nope}"\n[source]\npath="x"\n[[sinks]]\ntype="file"\n'
                    'path="o"',
        "no sinks": '[source]\npath="x"',
        "missing input": '[source]\npath="missing.txt"\n[[sinks]]\ntype="file"\npath="o"',
        "replace not a bool": '[source]\npath="x"\n[[sinks]]\ntype="neo4j"\nreplace="yes"',
        "budget without ledger": '[job]\nbudget=3\n[source]\npath="x"\n[[sinks]]\n'
                                 'type="file"\npath="o"',
    }
    for what, body in cases.items():
        job = tmp_path / "j.toml"
        job.write_text(body)
        assert main(["-q", "run", str(job)]) == 2, what
        err = capsys.readouterr().err
        assert err.startswith("graphanon: error:") and "Traceback" not in err, (what, err)


def test_neo4j_sink_needs_a_release(fake: FakeDriver, tmp_path: Path) -> None:
    write_graph(ring(4), tmp_path / "in.txt")
    job = write_job(tmp_path, """
        [source]
        path = "in.txt"
        [[sinks]]
        type = "neo4j"
    """)
    assert main(["-q", "run", str(job)]) == 2


def test_job_unavailable_database_exits_4(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:9")
    monkeypatch.setenv("NEO4J_PASSWORD", "pw")
    job = write_job(tmp_path, """
        [source]
        type = "neo4j"
        label = "A"
        rel = "R"
        [[sinks]]
        type = "file"
        path = "o"
    """)
    assert main(["-q", "run", str(job)]) == 4


def test_lock_prevents_concurrent_runs(tmp_path: Path) -> None:
    write_graph(ring(4), tmp_path / "in.txt")
    job = write_job(tmp_path, """
        [job]
        name = "locked"
        [source]
        path = "in.txt"
        [[sinks]]
        type = "file"
        path = "o"
    """)
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import fcntl, os, sys, time
            fd = os.open({str(tmp_path / '.locked.graphanon.lock')!r}, os.O_RDWR | os.O_CREAT)
            fcntl.flock(fd, fcntl.LOCK_EX)
            print("locked", flush=True)
            time.sleep(30)
        """)], stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(jobs.JobLockedError, match="in progress"):
            jobs.run_job(job)
    finally:
        holder.kill()
        holder.communicate()
    assert jobs.run_job(job).job == "locked"


def test_mechanism_step_adapter() -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Result:
        graph: Graph
        release: Release
        counts: np.ndarray
        note: str

    def fake_mechanism(G, *, rng=None, scale):
        assert rng is None  # no job seed: the mechanism keeps its secure default
        rel = Release.create(mechanism="m", neighbourhood="node", epsilon=scale)
        return Result(G.subgraph(np.arange(G.n_nodes) < 3), rel,
                      np.bincount(G.degrees).astype(float), "ok")

    state = jobs.JobState(data=ring(6), rng=np.random.default_rng(0), seed=None)
    jobs.mechanism_step(fake_mechanism)(state, {"scale": 0.3})
    assert state.data.n_nodes == 3 and state.release.epsilon == 0.3
    assert io_neo4j.statistic_rows(state.statistics) == ("DegreeCount", [
        {"degree": 0, "count": 0}, {"degree": 1, "count": 0}, {"degree": 2, "count": 6}])
    assert state.report["fake_mechanism"] == {"note": "ok", "noise": "opendp"}
    seeded = jobs.JobState(data=ring(6), rng=np.random.default_rng(0), seed=0)

    def needs_rng(G, *, rng=None):
        assert isinstance(rng, np.random.Generator)
        return G

    # an rng that is the mechanism's noise is passed only with noise = "numpy-insecure":
    # a seeded job never makes noise insecure by itself
    jobs.mechanism_step(needs_rng)(seeded, {"noise": "numpy-insecure"})
    with pytest.raises(AssertionError):
        jobs.mechanism_step(needs_rng)(seeded, {})
    with pytest.raises(ValueError, match="cannot set 'rng'"):
        jobs.mechanism_step(needs_rng)(seeded, {"rng": 1})


def test_sample_loader_round_trip(fake: FakeDriver) -> None:
    import importlib.util

    from graphanon.datasets import load_adult_sample, load_polbooks

    path = Path(__file__).resolve().parents[3] / "scripts" / "neo4j_load_sample.py"
    spec = importlib.util.spec_from_file_location("neo4j_load_sample", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = mod.load_sample("polbooks")
    mod.load_sample("polbooks")  # idempotent
    # the MERGE is backed by a uniqueness constraint, created after the old lookup index
    # (same schema, it would block the constraint) is dropped
    schema = [(c.name, c.identifiers) for c in fake.calls
              if c.name in ("schema_drop_index", "sample_constraint")][:2]
    assert schema == [("schema_drop_index", {"index": "sample_book_id"}),
                      ("sample_constraint", {"constraint": "sample_book_id_unique",
                                             "label": "Book"})]
    assert all(c.mode == "auto" for c in fake.named("sample_constraint"))
    G0 = load_polbooks()
    assert out["relationships"] == G0.n_edges
    G = io_neo4j.Neo4jSource(fake).read_graph(label="Book", rel_type="COPURCHASED",
                                              id_property="id")
    def ids_edges(H: Graph) -> set:
        u, v = H.edges()
        return {frozenset((H.node_ids[a], H.node_ids[b])) for a, b in zip(u, v, strict=True)}

    assert G.n_nodes == G0.n_nodes and ids_edges(G) == ids_edges(G0)
    mod.load_sample("adult")
    B = io_neo4j.Neo4jSource(fake).read_bipartite(
        user_label="Person", feature_label="Attribute", rel_type="HAS_ATTRIBUTE",
        user_id_property="id", feature_id_property="id")
    B0 = load_adult_sample()
    assert B.n_users == B0.n_users and B.n_edges == B0.n_edges


@pytest.mark.parametrize("command", ["smooth-k", "mondrian"])
def test_k_anonymity_report_writes_back(fake: FakeDriver, tmp_path: Path, command: str) -> None:
    """smooth-k / mondrian reports carry a k-anonymity Release, so write-release takes them."""
    from graphanon.datasets import load_adult_sample
    from graphanon.io.files import write_bipartite

    src, out, rep = tmp_path / "b.tsv", tmp_path / "o.tsv", tmp_path / "r.json"
    write_bipartite(load_adult_sample(), src)
    assert main(["-q", command, str(src), "--k", "8", "--out", str(out), "--report",
                 str(rep)]) == 0
    record = json.loads(rep.read_text())["release"]
    assert record["neighbourhood"] == "k-anonymity" and record["epsilon"] is None
    assert record["params"]["k"] == 8
    assert main(["-q", "neo4j", "write-release", "--bipartite", str(out), "--report",
                 str(rep), "--release-id", "k8"]) == 0
    assert fake.db.records["k8"]["status"] == "complete"


# ----------------------------------------------------------------------- issue 15 / 13
def test_read_graph_universe_and_throughput(fake: FakeDriver, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    fake.db = social_db()
    fake.db.source_nodes["Person"].append({"uid": 99, "eps": 0.0})  # isolated
    out, prefix = tmp_path / "g.graphml", tmp_path / "people"
    assert main(["neo4j", "read-graph", "--label", "Person", "--rel", "KNOWS", "--id-prop",
                 "uid", "--universe", "label", "--universe-out", str(prefix),
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "records/s" in printed and "Rust extension" in printed
    assert (tmp_path / "people.nodes.txt").read_text().split() == [
        "0", "1", "2", "3", "4", "5", "99"]
    meta = json.loads((tmp_path / "people.universe.json").read_text())
    assert meta["source"] == "neo4j label :Person (all 7 nodes, isolated included)"
    assert meta["files"]["nodes"]["count"] == 7


def test_read_bipartite_universe_files(fake: FakeDriver, tmp_path: Path) -> None:
    fake.db = bipartite_db()
    fake.db.source_nodes["Interest"].append({"name": "unused"})
    assert main(["-q", "neo4j", "read-bipartite", "--user-label", "User", "--feature-label",
                 "Interest", "--rel", "HAS_INTEREST", "--id-prop", "uid", "--feature-id-prop",
                 "name", "--universe", "label", "--universe-out", str(tmp_path / "u"),
                 "--out", str(tmp_path / "b.tsv")]) == 0
    assert (tmp_path / "u.users.txt").read_text().split() == ["u0", "u1", "u2", "u3"]
    assert (tmp_path / "u.features.txt").read_text().split() == [
        "golf", "jazz", "chess", "unused"]
    assert json.loads((tmp_path / "u.universe.json").read_text())["source"] == (
        "neo4j labels :User (all 4 users, isolated included) and :Interest (all 4 features, "
        "unused included)")


@pytest.mark.parametrize("args", [
    ["read-graph", "--label", "P", "--rel", "R", "--universe", "label"],
    ["read-graph", "--label", "P", "--rel", "R", "--universe-out", "x"],
    ["read-graph", "--query", "MATCH (a)-->(b) RETURN a, b", "--universe", "label",
     "--universe-out", "x"],
    ["read-bipartite", "--user-label", "U", "--feature-label", "F", "--rel", "R",
     "--universe", "label"],
])
def test_universe_options_checked_before_connecting(args: list[str], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def no_connect(*a, **k):
        raise AssertionError("connected")

    monkeypatch.setattr(io_neo4j, "connect", no_connect)
    assert main(["-q", "neo4j", *args, "--out", str(tmp_path / "o.txt")]) == 2


def test_a_writer_taken_over_exits_4(fake: FakeDriver, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    g = tmp_path / "anon.graphml"
    write_graph(ring(8), g)
    rec = other(neighbourhood="k-anonymity", epsilon=None)
    rep = _report(tmp_path, rec, ring(8))
    state = {"done": False}

    def competing_writer() -> None:  # another writer begins between our batches
        if fake.named("write_nodes") and not state["done"]:
            state["done"] = True
            io_neo4j.Neo4jSink(fake).write_release(bound(rec, ring(5)),
                                                   release_id="rel", graph=ring(5))

    fake.before_tx = competing_writer
    code = main(["neo4j", "write-release", "--release-id", "rel", "--graph", str(g),
                 "--report", str(rep), "--batch-size", "3"])
    err = capsys.readouterr().err
    assert code == 4 and "taken over by another attempt" in err and "Traceback" not in err
    assert fake.db.records["rel"]["status"] == "complete"
    assert fake.db.records["rel"]["written_nodes"] == 5  # the winner's release, untouched


def test_run_job_from_a_dict(fake: FakeDriver, tmp_path: Path, with_dp_step) -> None:
    fake.db = social_db()
    config = {
        "job": {"name": "from-dict", "release_id": "dict-{date}"},
        "source": {"type": "neo4j", "label": "Person", "rel": "KNOWS", "id_prop": "uid",
                   "universe": "label"},
        "steps": [{"name": "describe"}, {"name": "test-dp", "epsilon": 0.25}],
        "sinks": [{"type": "neo4j", "dataset": "social", "budget_total": 1.0},
                  {"type": "file", "path": "out/{release_id}"}],
    }
    before = json.dumps(config)
    result = jobs.run_job_dict(config, base_dir=tmp_path)
    assert json.dumps(config) == before  # the caller's dict is not modified
    assert result.job == "from-dict" and result.released
    assert (tmp_path / "out" / result.release_id / "operator" / "report.json").is_file()
    assert fake.db.records[result.release_id]["status"] == "complete"
    # run_job takes the dict too; a bad dict is refused like a bad file (exit 2)
    absolute = {**config, "job": {"name": "again"},
                "sinks": [{"type": "file", "path": str(tmp_path / "again" / "{release_id}")}]}
    again = jobs.run_job(absolute, lock_dir=tmp_path)
    assert again.job == "again" and (tmp_path / "again" / again.release_id).is_dir()
    # a dict that names no job (as the README's example): the job is "job"
    unnamed = {k: v for k, v in absolute.items() if k != "job"}
    assert jobs.run_job(unnamed, lock_dir=tmp_path).job == "job"
    assert jobs.run_job_dict({**unnamed, "job": {"release_id": "u-{date}"}},
                             base_dir=tmp_path).job == "job"
    with pytest.raises(InvalidParameterError, match="universe"):
        jobs.run_job_dict({**config, "source": {**config["source"], "universe": "all"}},
                          base_dir=tmp_path)


def test_job_universe_from_the_label(fake: FakeDriver, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    fake.db = social_db()
    seen: dict[str, object] = {}

    def keep_universe(state: jobs.JobState, params: dict) -> None:
        seen["universe"] = state.universe

    jobs.register_step("keep-universe", keep_universe)
    try:
        job = write_job(tmp_path, """
            [job]
            name = "u"
            [source]
            type = "neo4j"
            label = "Person"
            rel = "KNOWS"
            id_prop = "uid"
            universe = "label"
            [[steps]]
            name = "keep-universe"
            [[sinks]]
            type = "file"
            path = "out"
        """)
        assert main(["run", str(job), "--log-format", "json"]) == 0
    finally:
        jobs.STEPS.pop("keep-universe")
    universe = seen["universe"]
    assert isinstance(universe, io_neo4j.Universe) and universe.nodes is not None
    assert universe.nodes.tolist() == list(range(6))
    events = [json.loads(x) for x in capsys.readouterr().err.splitlines() if x.startswith("{")]
    read = next(e for e in events if e["event"] == "source_read")
    assert read["universe"] == "neo4j label :Person (all 6 nodes, isolated included)"
    bad = write_job(tmp_path, """
        [source]
        type = "neo4j"
        query = "MATCH (a)-->(b) RETURN a, b"
        universe = "label"
        [[sinks]]
        type = "file"
        path = "out"
    """)
    assert main(["-q", "run", str(bad)]) == 2


def test_the_readme_python_example_runs_against_the_fake(fake: FakeDriver) -> None:
    """The README's Python block, verbatim, through the recording fake (the integration
    suite runs it against a server)."""
    import importlib.util
    import re

    root = Path(__file__).resolve().parents[3]
    block = re.search(r"<!-- neo4j-python-example -->\s*```python\n(.*?)```",
                      (root / "README.md").read_text(encoding="utf-8"), re.S)
    assert block is not None
    spec = importlib.util.spec_from_file_location("load_sample_readme",
                                                  root / "scripts" / "neo4j_load_sample.py")
    assert spec is not None and spec.loader is not None
    loader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loader)
    loader.load_sample("adult")
    namespace: dict = {}
    exec(compile(block.group(1), "README.md", "exec"), namespace)
    summary = namespace["summary"]
    assert summary.status == "complete" and summary.epsilon_charged == pytest.approx(2.0)
    assert [b["epsilon_spent"] for b in namespace["budgets"]] == [pytest.approx(2.0)]
    assert namespace["releases"][0]["status"] == "complete"
    users = {r["uid"] for c in fake.named("write_nodes") if c.identifiers["label"] == "AnonUser"
             for r in c.params["rows"]}
    assert users and all(u.startswith("u") and len(u) == 21 for u in users)  # pseudonyms
    assert summary.release_id not in fake.db.records and fake.closed  # dropped, closed


def test_randomized_response_job_over_the_label_universe(fake: FakeDriver,
                                                         tmp_path: Path) -> None:
    """A Neo4j label read in full is the public universe randomized response needs."""
    fake.db = bipartite_db()
    fake.db.source_nodes["Interest"].append({"name": "unused"})
    body = """
        [job]
        name = "rr"
        release_id = "rr-1"
        [source]
        type = "neo4j"
        kind = "bipartite"
        user_label = "User"
        feature_label = "Interest"
        rel = "HAS_INTEREST"
        id_prop = "uid"
        feature_id_prop = "name"
        {universe}
        [[steps]]
        name = "randomized-response"
        epsilon = 3.0
        [[sinks]]
        type = "neo4j"
        dataset = "interests"
        budget_total = 5.0
    """
    without = write_job(tmp_path, body.format(universe=""))
    assert main(["-q", "run", str(without)]) == 2  # no universe: refused, nothing written
    assert "rr-1" not in fake.db.records
    job = write_job(tmp_path, body.format(universe='universe = "label"'))
    assert main(["-q", "run", str(job)]) == 0
    rec = fake.db.records["rr-1"]
    assert rec["status"] == "complete" and rec["mechanism"] == "randomized-response"
    feats = {n["uid"] for n in fake.db.nodes["AnonFeature"]}
    assert feats == {"golf", "jazz", "chess", "unused"}  # every feature of the label
    assert len(fake.db.nodes["AnonUser"]) == 4
    assert fake.db.budgets["interests"]["epsilon_spent"] == pytest.approx(3.0)


def test_drop_release_checks_the_id_before_connecting(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_connect(*a, **k):
        raise AssertionError("connected")

    monkeypatch.setattr(io_neo4j, "connect", no_connect)
    assert main(["-q", "neo4j", "drop-release", "bad\nid"]) == 2


def test_read_prefix_outputs_are_checked_before_connecting(
        fake: FakeDriver, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--universe-out / --props-out write PREFIX.kind files: one of them may not be --out."""
    pre = str(tmp_path / "pre")
    assert main(["-q", "neo4j", "read-graph", "--label", "Person", "--rel", "KNOWS",
                 "--universe", "label", "--universe-out", pre, "--out",
                 f"{pre}.nodes.txt"]) == 2
    assert "name the same file" in capsys.readouterr().err
    assert main(["-q", "neo4j", "read-bipartite", "--user-label", "U", "--feature-label", "F",
                 "--rel", "R", "--user-props", "age", "--props-out", pre, "--out",
                 f"{pre}.age.tsv"]) == 2
    assert "name the same file" in capsys.readouterr().err
    assert fake.calls == [] and not list(tmp_path.iterdir())


def test_a_neo4j_sink_without_a_uri_fails_before_the_steps(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    for key in ("NEO4J_URI", "NEO4J_PASSWORD", "NEO4J_PASSWORD_FILE"):
        monkeypatch.delenv(key, raising=False)
    write_graph(ring(6), tmp_path / "in.txt")
    job = write_job(tmp_path, """
        [source]
        path = "in.txt"
        [[steps]]
        name = "info"
        [[sinks]]
        type = "neo4j"
    """)
    assert main(["run", str(job)]) == 2
    err = capsys.readouterr().err
    assert "No Neo4j URI" in err and "step_done" not in err


@pytest.mark.parametrize("uri", ["bolt://host:abc", "neo4j://[::1", "neo4j://h:-1",
                                 "bolt://host:99999", "neo4j://:7687", "neo4j://h:0",
                                 "bolt://h:7687/db?x=1", "bolt://h os:7687",
                                 "bolt://h:7687?policy=x", "bolt://u:p@h:7687",
                                 "neo4j://h?a=1&a=2"])
def test_a_malformed_uri_is_one_line_before_anything_runs(
        uri: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A mistyped URI is exit 2 naming --uri / NEO4J_URI, never a driver traceback; in a
    job it stops before the steps and the JSON ledger's charge."""
    monkeypatch.setenv("NEO4J_PASSWORD", "pw")
    assert main(["neo4j", "releases", "--uri", uri]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "NEO4J_URI" in err and repr(uri) in err
    monkeypatch.setenv("NEO4J_URI", uri)
    write_graph(ring(6), tmp_path / "in.txt")
    job = write_job(tmp_path, """
        [job]
        name = "j"
        release_id = "r"
        ledger = "L.json"
        budget = 5.0
        dataset = "ring"
        [source]
        path = "in.txt"
        [[steps]]
        name = "release-dk"
        d = 1
        epsilon = 1.0
        max_degree = 4
        [[sinks]]
        type = "neo4j"
        dataset = "ring"
    """)
    assert main(["run", str(job)]) == 2
    err = capsys.readouterr().err
    assert "NEO4J_URI" in err and "Traceback" not in err
    assert not (tmp_path / "L.json").exists()


@pytest.mark.parametrize("uri", ["NEO4J://host", "bolt://host:7687//", "neo4j://[::1]:7687",
                                 "neo4j+s://h.example.io", "neo4j://h:7687/?policy=eu"])
def test_valid_uris_pass_the_check(uri: str) -> None:
    """What the driver accepts is not refused by the check before it."""
    from graphanon.io.neo4j.connection import connection_settings

    assert connection_settings(uri=uri, environ={"NEO4J_PASSWORD": "pw"}).uri == uri


def test_releases_shows_how_to_project_a_release_into_gds(
        fake: FakeDriver, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from graphanon.io.cypher import load

    g = tmp_path / "anon.graphml"
    write_graph(ring(8), g)
    rep = _report(tmp_path, other(neighbourhood="k-anonymity", epsilon=None), ring(8))
    assert main(["-q", "neo4j", "write-release", "--release-id", "rel-g", "--graph", str(g),
                 "--report", str(rep)]) == 0
    capsys.readouterr()
    assert main(["neo4j", "releases"]) == 0
    out = capsys.readouterr().out
    assert ':param release_id => "rel-g";' in out
    assert load("gds_project_release") + ";" in out
    assert main(["neo4j", "releases", "--json"]) == 0
    gds = json.loads(capsys.readouterr().out)["gds_projection"]
    assert gds["parameters"] == {"release_id": "rel-g", "graph_name": "graphanon-rel-g"}
    # the printed command projects exactly that release, through the fake
    row = io_neo4j.Neo4jSink(fake).project_gds(**gds["parameters"])
    assert row == {"graph_name": "graphanon-rel-g", "node_count": 8, "relationship_count": 16}


def test_init_creates_the_schema_once_and_writes_then_create_none(
        fake: FakeDriver, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["neo4j", "init"]) == 0
    assert "schema ready" in capsys.readouterr().out
    created = len(fake.named("schema_uid_index"))
    g = tmp_path / "anon.graphml"
    write_graph(ring(8), g)
    rep = _report(tmp_path, other(neighbourhood="k-anonymity", epsilon=None), ring(8))
    assert main(["-q", "neo4j", "write-release", "--release-id", "r", "--graph", str(g),
                 "--report", str(rep)]) == 0
    assert len(fake.named("schema_uid_index")) == created == 3
    # the identical write again: nothing written, nothing charged, and the CLI says so
    assert main(["neo4j", "write-release", "--release-id", "r", "--graph", str(g),
                 "--report", str(rep)]) == 0
    assert "already complete with this content" in capsys.readouterr().out


def test_an_unknown_commit_outcome_exits_4_with_one_line(
        fake: FakeDriver, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from neo4j import exceptions as nx

    g = tmp_path / "anon.graphml"
    write_graph(ring(8), g)
    rep = _report(tmp_path, other(neighbourhood="k-anonymity", epsilon=None), ring(8))
    fake.fail = lambda c: nx.IncompleteCommit("gone") if c.name == "complete_release" else None
    code = main(["neo4j", "write-release", "--release-id", "r", "--graph", str(g),
                 "--report", str(rep)])
    err = capsys.readouterr().err
    assert code == 4 and "Traceback" not in err
    assert ("the commit may or may not have happened: check `graphanon neo4j releases`"
            in err)


def test_a_source_that_keeps_changing_exits_4_with_one_line(
        fake: FakeDriver, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from test_neo4j_io import grow_during_reads

    fake.db = social_db()
    fake.fail = grow_during_reads(fake.db, 10)
    code = main(["neo4j", "read-graph", "--label", "Person", "--rel", "KNOWS", "--id-prop",
                 "uid", "--out", str(tmp_path / "g.txt")])
    err = capsys.readouterr().err
    assert code == 4 and "Traceback" not in err
    assert "the source changed while the :Person graph was read" in err
    assert not (tmp_path / "g.txt").exists()


def test_init_migrates_releases_of_an_earlier_version(
        fake: FakeDriver, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rows written before staged writes have no attempt: readers, the clean-up and drop
    could not see them until init gives them the attempt 'legacy' (made current)."""
    g = tmp_path / "anon.graphml"
    write_graph(ring(8), g)
    rep = _report(tmp_path, other(neighbourhood="k-anonymity", epsilon=None), ring(8))
    assert main(["-q", "neo4j", "write-release", "--release-id", "old", "--graph", str(g),
                 "--report", str(rep)]) == 0
    db = fake.db
    for n in db.nodes["AnonNode"]:  # as an earlier version left them
        del n["attempt"]
    del db.records["old"]["current_attempt"]
    db.records["pend"] = {"release_id": "pend", "status": "pending"}
    capsys.readouterr()
    assert main(["neo4j", "init"]) == 0
    assert "1 release(s) of an earlier version migrated" in capsys.readouterr().out
    db = fake.db
    assert db.records["old"]["current_attempt"] == "legacy"
    assert "current_attempt" not in db.records["pend"]
    assert {n["attempt"] for n in db.nodes["AnonNode"]} == {"legacy"}
    assert main(["neo4j", "init"]) == 0  # idempotent: nothing left to migrate
    assert "migrated" not in capsys.readouterr().out
    assert main(["-q", "neo4j", "drop-release", "old"]) == 0
    assert not fake.db.nodes["AnonNode"]  # drop finds the migrated rows
