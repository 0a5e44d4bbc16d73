"""CLI: dk, release-dk, generate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphanon.cli import main
from graphanon.datasets import data_path
from graphanon.errors import InputFormatError
from graphanon.io.dk_tables import read_dk_table

POLBOOKS = str(data_path("polbooks.gml"))

pytestmark = pytest.mark.filterwarnings("ignore::graphanon.privacy.noise.InsecureNoiseWarning")


def test_dk_tables_roundtrip(tmp_path: Path) -> None:
    for d in (1, 2, 3):
        out = tmp_path / f"t{d}.tsv"
        assert main(["-q", "dk", POLBOOKS, "--d", str(d), "--out", str(out)]) == 0
        t = read_dk_table(out)
        if d == 2:
            assert t.n_tuples == 161 and t.total == 441
        if d == 3:
            assert t.triangles.total == 560


def test_release_and_generate(tmp_path: Path) -> None:
    table, rep = tmp_path / "r.tsv", tmp_path / "r.json"
    rc = main(["-q", "release-dk", POLBOOKS, "--d", "2", "--epsilon", "1", "--max-degree",
               "25", "--microaggregation", "mdav", "--k", "5", "--noise", "numpy-insecure",
               "--seed", "4", "--out", str(table), "--report", str(rep)])
    assert rc == 0
    report = json.loads(rep.read_text())
    assert report["release"]["mechanism"] == "dk2-mdav"
    assert report["release"]["neighbourhood"] == "edge"
    assert report["release"]["sensitivity"] == 97
    assert report["release"]["seed"] == 4
    assert {"n_clusters", "release"} <= set(report) and "seconds" not in report
    assert {"l1", "ks", "euclidean", "sae", "seconds"} <= set(report["not_private"])
    graph, grep = tmp_path / "g.txt", tmp_path / "g.json"
    assert main(["-q", "generate", str(table), "--d", "2", "--seed", "1", "--out", str(graph),
                 "--report", str(grep)]) == 0
    gen = json.loads(grep.read_text())
    # a noisy table need not be realizable; then the deviation is reported
    assert gen["exact"] == (gen["deviation"]["2k_l1"] == 0)
    assert main(["-q", "generate", str(table), "--d", "1", "--out", str(graph)]) == 2
    # same seed, same release
    table2 = tmp_path / "r2.tsv"
    main(["-q", "release-dk", POLBOOKS, "--d", "2", "--epsilon", "1", "--max-degree", "25",
          "--microaggregation", "mdav", "--k", "5", "--noise", "numpy-insecure", "--seed",
          "4", "--out", str(table2)])
    assert table2.read_text() == table.read_text()


def test_bad_input_exit_2_and_no_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    out = tmp_path / "x.tsv"
    assert main(["-q", "release-dk", POLBOOKS, "--d", "2", "--epsilon", "0", "--max-degree",
                 "25", "--out", str(out)]) == 2
    assert "The '--epsilon' option must be" in capsys.readouterr().err
    assert main(["-q", "release-dk", POLBOOKS, "--d", "2", "--epsilon", "1", "--max-degree",
                 "25", "--microaggregation", "mpdc", "--out", str(out)]) == 2
    assert main(["-q", "release-dk", POLBOOKS, "--d", "2", "--epsilon", "1", "--neighbourhood",
                 "node", "--microaggregation", "mdav", "--out", str(out)]) == 2
    assert "option applies to --neighbourhood edge only" in capsys.readouterr().err
    assert main(["-q", "release-dk", POLBOOKS, "--d", "2", "--epsilon", "1", "--theta", "5",
                 "--out", str(out)]) == 2
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []
    bad = tmp_path / "bad.tsv"
    bad.write_text("hello\n")
    assert main(["-q", "generate", str(bad), "--d", "2", "--out", str(out)]) == 2
    assert "not a dK table" in capsys.readouterr().err
    assert not out.exists()


def test_degree_bound_from_the_node_universe(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.tsv"
    # no bound and no universe: refused (n - 1 would read the node count off the data)
    assert main(["-q", "release-dk", POLBOOKS, "--d", "1", "--epsilon", "1", "--out",
                 str(out)]) == 2
    assert "--max-degree" in capsys.readouterr().err and not out.exists()
    from graphanon.datasets import load_polbooks

    nodes = tmp_path / "nodes.txt"
    nodes.write_text("".join(f"{x}\n" for x in load_polbooks().node_ids))
    assert main(["-q", "release-dk", POLBOOKS, "--d", "1", "--epsilon", "1", "--nodes",
                 str(nodes), "--out", str(out)]) == 0
    assert "|nodes| - 1 = 104" in capsys.readouterr().err
    # --nodes is refused under node-DP (the node set itself is private)
    assert main(["-q", "release-dk", POLBOOKS, "--d", "1", "--epsilon", "1", "--neighbourhood",
                 "node", "--nodes", str(nodes), "--out", str(tmp_path / "y.tsv")]) == 2
    assert "--nodes" in capsys.readouterr().err


@pytest.mark.parametrize(("rows", "message"), [
    ("1\t2\n1\t2\n", "line 4: the same degree as line 3"),
    ("1\t2\n2\t99999999999999999999\n", "line 4: count '99999999999999999999' is too large"),
])
def test_dk_table_rows_listed_twice_or_too_large(tmp_path: Path, rows: str,
                                                 message: str) -> None:
    p = tmp_path / "t.tsv"
    p.write_text("# graphanon dK table: kind=degree\ndegree1\tcount\n" + rows)
    with pytest.raises(InputFormatError, match=message):
        read_dk_table(p)


@pytest.mark.parametrize("count", ["1.5", "-3"])
def test_generate_names_the_table_row_it_cannot_realize(
        tmp_path: Path, count: str, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "t.tsv"
    p.write_text(f"# graphanon dK table: kind=degree\ndegree1\tcount\n1\t2\n2\t{count}\n")
    assert main(["-q", "generate", str(p), "--d", "1", "--out", str(tmp_path / "g.txt")]) == 2
    err = capsys.readouterr().err
    assert f"the count of degree 2 is {count}" in err and str(p) in err
    assert not (tmp_path / "g.txt").exists()


def test_the_early_budget_check_counts_a_node_release_twice_on_an_edge_budget(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger = ["--ledger", str(tmp_path / "l.json"), "--dataset", "books"]
    assert main(["-q", "release-dk", POLBOOKS, "--d", "1", "--epsilon", "1", "--max-degree",
                 "30", "--out", str(tmp_path / "a.tsv"), *ledger, "--budget", "3",
                 "--budget-neighbourhood", "edge"]) == 0
    # 2 left; a node-DP ε = 1.2 costs 2.4 there: refused before the computation
    assert main(["-q", "release-dk", POLBOOKS, "--d", "1", "--epsilon", "1.2", "--neighbourhood",
                 "node", "--theta", "8", "--out", str(tmp_path / "b.tsv"), *ledger]) == 3
    assert "needs ε=2.4; nothing was computed" in capsys.readouterr().err
    assert not (tmp_path / "b.tsv").exists()
