"""Masked releases of adaptive anonymity: the file format, the Neo4j sink (recording fake)
and ``graphanon neo4j write-release --masked``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from bound import bound
from neo4j_fake import FakeDB, FakeDriver

from graphanon.anonymity.bmatching import MASKED, b_matching_anonymity
from graphanon.cli import main
from graphanon.errors import InputFormatError, InvalidParameterError
from graphanon.graph import BipartiteGraph
from graphanon.io.cypher import load
from graphanon.io.files import write_bipartite
from graphanon.io.masked import MaskedRelease, read_masked, write_masked
from graphanon.io.neo4j import MASKED_REL_TYPE, Neo4jSink


def small_bipartite(n: int = 30, d: int = 6, seed: int = 0) -> BipartiteGraph:
    X = np.random.default_rng(seed).integers(0, 2, size=(n, d))
    X[np.arange(n), np.arange(n) % d] = 1  # every user has a line in the list format
    r, c = np.nonzero(X)
    return BipartiteGraph.from_pairs([f"u{i}" for i in r], [f"f{j}" for j in c])


def tiny() -> MaskedRelease:
    # rows 0..2, attributes a, b: row 0 = (1, *), row 1 = (*, 0), row 2 = (0, 1)
    return MaskedRelease(3, np.array(["a", "b"], dtype=object),
                         np.array([0, 0, 1, 2]), np.array([0, 1, 0, 1]),
                         np.array([False, True, True, False]))


# ----------------------------------------------------------------------- file format
def test_write_read_round_trip_of_a_verified_result(tmp_path: Path) -> None:
    B = small_bipartite()
    res = b_matching_anonymity(B, delta=3, rng=np.random.default_rng(1))
    write_masked(res, tmp_path / "m.tsv")
    lines = (tmp_path / "m.tsv").read_text().splitlines()
    assert all(len(ln.split("\t")) == 3 and ln.split("\t")[2] in ("1", "*") for ln in lines)
    back = read_masked(tmp_path / "m.tsv", n_rows=res.n)
    assert back.n_masked == res.stars and back.n_cells == len(lines)
    # dense view equals the released matrix, columns in the reader's (sorted) id order
    order = [list(map(str, B.feature_ids)).index(a) for a in back.attribute_ids]
    np.testing.assert_array_equal(back.to_dense(), res.released[:, order])
    assert "owner" not in (tmp_path / "m.tsv").read_text()


def test_from_result_refuses_unverified_and_categorical() -> None:
    X = np.random.default_rng(0).integers(0, 2, size=(12, 4))
    res = b_matching_anonymity(X, delta=2, rng=np.random.default_rng(0), verify=False)
    with pytest.raises(InvalidParameterError, match="was not verified"):
        MaskedRelease.from_result(res)
    cat = b_matching_anonymity(np.array([[0, 2], [1, 0], [2, 1]]), delta=1,
                               rng=np.random.default_rng(0))
    assert (cat.released == 2).any() and not (cat.released == MASKED).any()
    with pytest.raises(InvalidParameterError, match="categorical"):
        MaskedRelease.from_result(cat)


@pytest.mark.parametrize("body, line, what", [
    ("0\ta\t1\n1\tb\n", 2, "2 tab-separated fields"),
    ("x\ta\t1\n", 1, "not a non-negative integer"),
    ("-1\ta\t1\n", 1, "not a non-negative integer"),
    ("0\t\t1\n", 1, "attribute is empty"),
    ("0\ta\t0\n", 1, "neither 1 nor *"),
    ("# c\n0\ta\t1\n0\ta\t*\n", 3, "already listed on line 2"),
])
def test_read_masked_bad_lines(tmp_path: Path, body: str, line: int, what: str) -> None:
    p = tmp_path / "m.tsv"
    p.write_text(body)
    with pytest.raises(InputFormatError, match=f":{line}: .*{what}") as err:
        read_masked(p)
    assert err.value.line == line


def test_read_masked_row_range_and_missing_file(tmp_path: Path) -> None:
    p = tmp_path / "m.tsv"
    p.write_text("5\ta\t1\n")
    assert read_masked(p).n_rows == 6 and read_masked(p, n_rows=9).n_rows == 9
    with pytest.raises(InputFormatError, match="out of range"):
        read_masked(p, n_rows=3)
    with pytest.raises(InvalidParameterError, match="does not exist"):
        read_masked(tmp_path / "nope.tsv")


# ----------------------------------------------------------------------- Neo4j sink
def record() -> dict:
    res = b_matching_anonymity(np.eye(4, dtype=int), delta=2, rng=np.random.default_rng(0))
    return res.release(source_fingerprint="fp-masked").to_dict()


def test_masked_release_exact_statements_and_batches() -> None:
    drv = FakeDriver(FakeDB())
    sink = Neo4jSink(drv, batch_size=2)
    rec = record()
    s = sink.write_release(bound(rec, tiny()), release_id="m1", masked=tiny())
    assert (s.status, s.kind, s.n_nodes, s.n_relationships, s.n_masked) == (
        "complete", "masked", 5, 4, 2)
    assert s.epsilon_charged == 0.0  # syntactic anonymity: nothing charged
    names = [c.name for c in drv.calls
             if not c.name.startswith("schema_") and c.name not in ("await_index", "lock_release")]
    assert names == (["begin_release", "claim_release_write"]
                     + ["write_nodes"] * 3 + ["write_relationships"] * 2
                     + ["complete_release"])  # stage, then flip (a new release: no clean-up)
    attempt = drv.named("claim_release_write")[0].params["write_token"]
    users, feats = drv.named("write_nodes")[:2], drv.named("write_nodes")[2:]
    assert {c.query for c in users} == {load("write_nodes", label="AnonUser")}
    assert [c.params["rows"] for c in users] == [
        [{"uid": 0, "properties": {}}, {"uid": 1, "properties": {}}],
        [{"uid": 2, "properties": {}}]]
    assert feats[0].query == load("write_nodes", label="AnonFeature")
    assert feats[0].params == {"release_id": "m1", "attempt": attempt, "rows": [
        {"uid": "a", "properties": {}}, {"uid": "b", "properties": {}}]}
    ones, stars = drv.named("write_relationships")
    assert ones.query == load("write_relationships", source_label="AnonUser",
                              target_label="AnonFeature", rel_type="ANON_HAS_FEATURE")
    assert stars.query == load("write_relationships", source_label="AnonUser",
                               target_label="AnonFeature", rel_type=MASKED_REL_TYPE)
    assert "`ANON_MASKED`" in stars.query
    assert ones.params == {"release_id": "m1", "attempt": attempt,
                           "rows": [{"source": 0, "target": "a"}, {"source": 2, "target": "b"}]}
    assert stars.params == {"release_id": "m1", "attempt": attempt,
                            "rows": [{"source": 0, "target": "b"}, {"source": 1, "target": "a"}]}
    assert all(c.mode == "write" for c in users + feats + [ones, stars])
    db_rec = drv.db.records["m1"]
    assert db_rec["status"] == "complete" and db_rec["kind"] == "masked"
    assert db_rec["neighbourhood"] == "k-anonymity" and "epsilon" not in db_rec
    assert db_rec["written_masked"] == 2 and db_rec["ids"] == "released-rows"
    assert db_rec["feature_ids"] == "kept"
    assert sorted((r["type"], r["source"], r["target"]) for r in drv.db.rels) == [
        ("ANON_HAS_FEATURE", 0, "a"), ("ANON_HAS_FEATURE", 2, "b"),
        ("ANON_MASKED", 0, "b"), ("ANON_MASKED", 1, "a")]
    # the delete statement covers the masked relationship type
    assert "ANON_MASKED" in load("delete_release_relationships", label="AnonUser")
    assert "owner" not in json.dumps([c.params for c in drv.calls], default=str)


def test_masked_release_failure_leaves_pending_and_rerun_replaces() -> None:
    def fail(call):
        if call.name == "write_relationships" and call.identifiers["rel_type"] == "ANON_MASKED":
            return RuntimeError("boom")
        return None

    drv = FakeDriver(FakeDB(), fail=fail)
    sink = Neo4jSink(drv, batch_size=2)
    rec = record()
    with pytest.raises(RuntimeError):
        sink.write_release(bound(rec, tiny()), release_id="m2", masked=tiny())
    assert drv.db.records["m2"]["status"] == "pending"
    drv.fail = None
    sink.write_release(bound(rec, tiny()), release_id="m2", masked=tiny())
    assert drv.db.records["m2"]["status"] == "complete" and len(drv.db.rels) == 4
    with pytest.raises(InvalidParameterError, match="exactly one"):
        sink.write_release(bound(rec, tiny()), release_id="m3", masked=tiny(),
                           bipartite=small_bipartite())
    with pytest.raises(InvalidParameterError, match="MaskedRelease"):
        sink.write_release(rec, release_id="m3", masked=np.zeros((2, 2)))  # type: ignore[arg-type]


# ----------------------------------------------------------------------- CLI
def test_b_anonymize_then_write_release_masked(fake: FakeDriver, tmp_path: Path) -> None:
    B = small_bipartite(40, 7)
    write_bipartite(B, tmp_path / "in.tsv")
    out, rep = tmp_path / "masked.tsv", tmp_path / "r.json"
    assert main(["-q", "b-anonymize", str(tmp_path / "in.tsv"), "--delta", "4", "--seed", "3",
                 "--out", str(out), "--report", str(rep)]) == 0
    report = json.loads(rep.read_text())
    assert report["release"]["neighbourhood"] == "k-anonymity"
    assert report["release"]["params"]["verified"] is True and "owner" not in rep.read_text()
    assert main(["-q", "neo4j", "write-release", "--release-id", "bm", "--masked", str(out),
                 "--report", str(rep), "--batch-size", "16"]) == 0
    cells = {tuple(ln.split("\t")) for ln in out.read_text().splitlines()}
    written = {(str(r["source"]), r["target"],
                "*" if r["type"] == "ANON_MASKED" else "1") for r in fake.db.rels}
    assert written == cells
    assert len(fake.db.nodes["AnonUser"]) == B.n_users  # every released row, even all-0 ones
    assert fake.db.records["bm"]["written_masked"] == report["masked_cells"]
    assert all(len(c.params["rows"]) <= 16 for c in fake.named("write_relationships"))
    # two payloads, or a malformed masked file: exit 2, nothing new written
    assert main(["-q", "neo4j", "write-release", "--release-id", "bm2", "--masked", str(out),
                 "--graph", str(out), "--report", str(rep)]) == 2
    (tmp_path / "bad.tsv").write_text("0\tf1\t2\n")
    assert main(["-q", "neo4j", "write-release", "--release-id", "bm2", "--masked",
                 str(tmp_path / "bad.tsv"), "--report", str(rep)]) == 2
    assert "bm2" not in fake.db.records


# ----------------------------------------------------------------------- δ sources
def _lists(tmp_path: Path) -> Path:
    write_bipartite(small_bipartite(12, 5), tmp_path / "in.tsv")
    return tmp_path / "in.tsv"


@pytest.mark.parametrize("body, message", [
    ("".join(f"u{i}\t2\n" for i in range(12)) + "ghost\t2\n", "user 'ghost' is not in the input"),
    ("".join(f"u{i}\t{0 if i == 3 else 2}\n" for i in range(12)), "user 'u3': δ=0 is below 1"),
    ("".join(f"u{i}\t{13 if i == 5 else 2}\n" for i in range(12)),
     "δ=13 is larger than the number of users n=12"),
    ("".join(f"u{i}\t2\n" for i in range(11)), "no δ for user 'u11'"),
    ("".join(f"u{i}\t2.5\n" for i in range(12)), "must be an integer"),
    ("user\tdelta\n" + "".join(f"u{i}\t2\n" for i in range(12)) + "u0\t3\n", "already has a δ"),
    ("u0\t2\t3\n", "expected 'user<TAB>delta'"),
])
def test_delta_file_bad_input_exit_2_no_output(tmp_path: Path, capsys, body: str,
                                               message: str) -> None:
    inp = _lists(tmp_path)
    (tmp_path / "d.tsv").write_text(body)
    out, rep = tmp_path / "out.tsv", tmp_path / "r.json"
    code = main(["b-anonymize", str(inp), "--delta-file", str(tmp_path / "d.tsv"),
                 "--out", str(out), "--report", str(rep)])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert not out.exists() and not rep.exists()
    assert not list(tmp_path.glob(".out.tsv*"))  # no temporary file left either


def test_delta_file_with_header_and_levels_used(tmp_path: Path) -> None:
    inp = _lists(tmp_path)
    (tmp_path / "d.tsv").write_text("user\tdelta\n# comment\n"
                                    + "".join(f"u{i}\t{2 + i % 3}\n" for i in range(12)))
    rep = tmp_path / "r.json"
    assert main(["-q", "b-anonymize", str(inp), "--delta-file", str(tmp_path / "d.tsv"),
                 "--out", str(tmp_path / "o.tsv"), "--report", str(rep)]) == 0
    r = json.loads(rep.read_text())["not_private"]
    assert (r["delta_min"], r["delta_max"]) == (2, 4) and r["verification"]["ok"]


def test_a_mistyped_first_row_is_not_a_header(tmp_path: Path) -> None:
    """``1<TAB>abc`` names no columns: it is refused with its line, not dropped."""
    from graphanon.io.preferences import read_preferences

    (tmp_path / "p.tsv").write_text("1\tabc\n2\t1\n")
    with pytest.raises(InputFormatError, match=r"p\.tsv:1: epsilon 'abc'"):
        read_preferences(tmp_path / "p.tsv")
    (tmp_path / "p.tsv").write_text("node\tepsilon\n2\t1\n")
    assert read_preferences(tmp_path / "p.tsv") is not None  # a header names both columns
    (tmp_path / "p.tsv").write_text("node\tepsilon\n2\t1\n3\t1\n2\t0.5\n")
    with pytest.raises(InputFormatError, match=r"p\.tsv:4: node '2' is listed again "
                                               r"\(first on line 2\)"):
        read_preferences(tmp_path / "p.tsv")


def _csv(tmp_path: Path, deltas: list) -> Path:
    rng = np.random.default_rng(4)
    lines = ["age,colour,delta"] + [
        f"{int(rng.integers(18, 80))},{['red', 'blue', 'green'][int(rng.integers(3))]},{d}"
        for d in deltas]
    (tmp_path / "t.csv").write_text("\n".join(lines) + "\n")
    return tmp_path / "t.csv"


def test_delta_column_of_a_table(tmp_path: Path) -> None:
    deltas = [2 + i % 4 for i in range(20)]
    rep, out = tmp_path / "r.json", tmp_path / "o.tsv"
    assert main(["-q", "b-anonymize", str(_csv(tmp_path, deltas)), "--delta-column", "delta",
                 "--seed", "2", "--out", str(out), "--report", str(rep)]) == 0
    r = json.loads(rep.read_text())["not_private"]
    assert (r["delta_min"], r["delta_max"], r["n"]) == (2, 5, 20) and r["verification"]["ok"]
    assert not any("delta" in ln.split("\t")[1] for ln in out.read_text().splitlines())
    assert r["d"] == 4  # age>median + 3 colours; the δ column is not an attribute


@pytest.mark.parametrize("deltas, message", [
    ([2] * 19 + [0], "user 19: δ=0 is below 1"),
    ([2] * 19 + [21], "δ=21 is larger than the number of users n=20"),
    ([2] * 19 + [""], "user 19 has no δ"),
])
def test_delta_column_bad_values_exit_2(tmp_path: Path, capsys, deltas, message) -> None:
    out = tmp_path / "o.tsv"
    code = main(["b-anonymize", str(_csv(tmp_path, deltas)), "--delta-column", "delta",
                 "--out", str(out), "--report", str(tmp_path / "r.json")])
    assert code == 2 and message in capsys.readouterr().err and not out.exists()


def test_delta_column_needs_a_table_and_a_known_column(tmp_path: Path, capsys) -> None:
    inp = _lists(tmp_path)
    out = tmp_path / "o.tsv"
    assert main(["b-anonymize", str(inp), "--delta-column", "d", "--out", str(out),
                 "--report", str(tmp_path / "r.json")]) == 2
    assert "needs a table INPUT" in capsys.readouterr().err
    assert main(["b-anonymize", str(_csv(tmp_path, [2] * 20)), "--delta-column", "nope",
                 "--out", str(out), "--report", str(tmp_path / "r.json")]) == 2
    assert "unknown column 'nope'" in capsys.readouterr().err and not out.exists()
    assert main(["b-anonymize", str(inp), "--delta", "2", "--delta-column", "d", "--out",
                 str(out), "--report", str(tmp_path / "r.json")]) == 2


def test_b_anonymize_reads_a_preset_header_as_a_header(tmp_path: Path) -> None:
    """The shipped Adult sample names its columns on line 1: b-anonymize reads 2,000 users,
    not 2,001 with one of them 'education=education'."""
    from graphanon.datasets import data_path

    rep = tmp_path / "r.json"
    assert main(["-q", "b-anonymize", str(data_path("adult_sample.csv")), "--preset", "adult",
                 "--delta", "2", "--seed", "1", "--out", str(tmp_path / "o.tsv"), "--report",
                 str(rep)]) == 0
    assert json.loads(rep.read_text())["not_private"]["n"] == 2000
    # numeric columns are published as "c>median", never with the data's median value
    cuts = {ln.split("\t")[1] for ln in (tmp_path / "o.tsv").read_text().splitlines()
            if ">" in ln.split("\t")[1]}
    assert cuts and all(c.endswith(">median") for c in cuts), sorted(cuts)[:3]


def test_b_anonymize_refuses_a_table_without_any_value(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    inp = tmp_path / "allna.csv"
    inp.write_text("a,b\n,\n,\n")
    out = tmp_path / "o.tsv"
    assert main(["-q", "b-anonymize", str(inp), "--table", "--delta", "1", "--out", str(out),
                 "--report", str(tmp_path / "r.json")]) == 2
    assert "yields no user–attribute pair" in capsys.readouterr().err and not out.exists()
