"""CLI: graphanon release-personalized."""

from __future__ import annotations

import json

import numpy as np

from graphanon.cli import main
from graphanon.datasets import load_polbooks
from graphanon.io.files import write_graph


def _input(tmp_path):
    G = load_polbooks()
    path = tmp_path / "g.txt"
    write_graph(G, path)
    prefs = tmp_path / "prefs.tsv"
    rng = np.random.default_rng(0)
    prefs.write_text("node\tepsilon\n" + "".join(
        f"{i}\t{rng.choice([0.05, 0.5, 1.0])}\n" for i in G.node_ids))
    (tmp_path / "nodes.txt").write_text("".join(f"{i}\n" for i in G.node_ids))
    return path, prefs


def test_release_personalized_from_file(tmp_path):
    g, prefs = _input(tmp_path)
    out, rep = tmp_path / "t.tsv", tmp_path / "r.json"
    rc = main(["release-personalized", str(g), "--d", "2", "--neighbourhood", "node", "--method",
               "tp", "--prefs", str(prefs), "--theta", "6", "--mu", "0.5", "--noise",
               "numpy-insecure", "--seed", "3", "--out", str(out), "--report", str(rep)])
    assert rc == 0
    from graphanon.io.dk_tables import read_dk_table

    assert read_dk_table(out).kind == "joint_degree"
    r = json.loads(rep.read_text())
    assert r["release"]["neighbourhood"] == "personalized-node"
    assert r["release"]["epsilon_summary"]["max"] == 0.5
    assert set(r["groups"]) == {"conservative", "moderate", "liberal"}
    assert "l1" in r["not_private"] and "ks" in r["not_private"] and "l1" not in r


def test_record_names_the_preference_table_by_keyed_digest_not_path(tmp_path):
    """The record held the operator's absolute path ("preferences.source": "/…/prefs.tsv"):
    it names the table by its keyed digest, the same for the same table wherever it lives."""
    g, prefs = _input(tmp_path)
    elsewhere = tmp_path / "copy" / "table.tsv"
    elsewhere.parent.mkdir()
    header, *rows = prefs.read_text().splitlines()
    elsewhere.write_text("\n".join([header, *reversed(rows)]) + "\n")  # same table, reordered
    changed = tmp_path / "changed.tsv"
    node, eps = rows[0].split("\t")
    changed.write_text("\n".join([header, f"{node}\t{float(eps) * 0.9}", *rows[1:]]) + "\n")
    records = []
    for i, table in enumerate((prefs, elsewhere, changed)):
        rep = tmp_path / f"r{i}.json"
        rc = main(["release-personalized", str(g), "--d", "2", "--neighbourhood", "node",
                   "--method", "min", "--prefs", str(table), "--theta", "6", "--noise",
                   "numpy-insecure", "--seed", "3", "--out", str(tmp_path / f"t{i}.tsv"),
                   "--report", str(rep)])
        assert rc == 0
        records.append(json.loads(rep.read_text())["release"])
    for rec in records:
        assert str(tmp_path) not in json.dumps(rec) and "prefs.tsv" not in json.dumps(rec)
        assert rec["params"]["preferences"]["source"] == "file"
        assert rec["params"]["preferences"]["digest"].startswith("hmac-sha256:")
    digests = [rec["params"]["preferences"]["digest"] for rec in records]
    assert digests[0] == digests[1] != digests[2]


def test_release_personalized_scheme_and_thesis(tmp_path):
    g, _ = _input(tmp_path)
    out, rep = tmp_path / "t.tsv", tmp_path / "r.json"
    rc = main(["release-personalized", str(g), "--d", "1", "--neighbourhood", "edge", "--method",
               "ag", "--prefs-scheme", "thesis", "--k", "3", "--theta", "20", "--nodes",
               str(tmp_path / "nodes.txt"),
               "--calibration", "thesis", "--noise", "numpy-insecure", "--seed", "1", "--out",
               str(out), "--report", str(rep)])
    assert rc == 0
    assert json.loads(rep.read_text())["release"]["neighbourhood"] == "none"


def test_release_personalized_bad_input_writes_nothing(tmp_path, capsys):
    g, prefs = _input(tmp_path)
    out = tmp_path / "t.tsv"
    bad = tmp_path / "bad.tsv"
    bad.write_text("1\t0.5\n2\t-1\n")
    rc = main(["release-personalized", str(g), "--d", "1", "--neighbourhood", "edge", "--method",
               "min", "--prefs", str(bad), "--nodes", str(tmp_path / "nodes.txt"), "--out",
               str(out)])
    assert rc == 2 and not out.exists()
    assert "bad.tsv:2" in capsys.readouterr().err
    rc = main(["release-personalized", str(g), "--d", "1", "--neighbourhood", "edge", "--method",
               "min", "--prefs", str(prefs), "--out", str(out)])
    assert rc == 2 and not out.exists()
    assert "--nodes FILE" in capsys.readouterr().err
    rc = main(["release-personalized", str(g), "--d", "1", "--neighbourhood", "node", "--method",
               "min", "--prefs", str(prefs), "--out", str(out)])
    assert rc == 2 and not out.exists()
    rc = main(["release-personalized", str(g), "--d", "1", "--neighbourhood", "edge", "--method",
               "min", "--out", str(out)])
    assert rc == 2 and not out.exists()


def test_preferences_outside_the_public_universe_are_refused(tmp_path, capsys):
    """Both tables are public: a preference for an id outside --nodes (or '7' for the node
    '007') would set ε_min for nobody, so it is refused (a data-independent check)."""
    g, nodes, prefs = tmp_path / "g.txt", tmp_path / "nodes.txt", tmp_path / "p.tsv"
    g.write_text("1 2\n2 3\n3 1\n3 4\n4 007\n")
    nodes.write_text("1\n2\n3\n4\n007\n")
    args = ["-q", "release-personalized", str(g), "--d", "1", "--neighbourhood", "edge", "--method",
            "min", "--prefs", str(prefs), "--nodes", str(nodes), "--theta", "3", "--out",
            str(tmp_path / "o.tsv"), "--report", str(tmp_path / "r.json")]
    for stray in ("9", "7"):
        prefs.write_text("".join(f"{x}\t1\n" for x in ("1", "2", "3", "4", "007"))
                         + f"{stray}\t0.2\n")
        assert main(args) == 2
        err = capsys.readouterr().err
        assert f"preference for '{stray}'" in err and "not in the public node universe" in err
        assert not (tmp_path / "o.tsv").exists()
    prefs.write_text("1\t1\n007\t0.2\n")
    assert main(args) == 0
    assert json.loads((tmp_path / "r.json").read_text())["release"]["epsilon_summary"][
        "min"] == 0.2
