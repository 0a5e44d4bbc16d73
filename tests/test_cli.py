"""The command line: info, demo, error handling."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from graphanon.cli import main
from graphanon.errors import InputFormatError, InvalidParameterError


def test_info_on_shipped_style_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "g.txt"
    p.write_text("1 2\n2 3\n4 5\n")
    assert main(["info", str(p), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["nodes"] == 5 and stats["edges"] == 3
    assert stats["connected_components"] == 2 and stats["degree_max"] == 2


def test_info_bipartite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "b.tsv"
    p.write_text("u1\tf1\nu1\tf2\nu2\tf1\n")
    assert main(["info", "--bipartite", str(p)]) == 0
    out = capsys.readouterr().out
    assert "users" in out and "features" in out


def test_malformed_file_exit_2_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "bad.txt"
    p.write_text("1 2\nonly-one-field\n")
    assert main(["info", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 2" in err and "Traceback" not in err


def test_bad_threads_setting_is_one_line_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Even on a small input, which never starts a thread, and before anything is written."""
    p = tmp_path / "g.txt"
    p.write_text("1 2\n2 3\n")
    out = tmp_path / "dk.tsv"
    monkeypatch.setenv("GRAPHANON_THREADS", "0")
    assert main(["dk", "--d", "1", str(p), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "GRAPHANON_THREADS must be a positive integer" in err
    assert not out.exists() and sorted(x.name for x in tmp_path.iterdir()) == ["g.txt"]


def test_missing_file_and_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "/nonexistent/x.txt"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["no-such-command"]) == 2


@pytest.mark.parametrize(
    ("name", "nodes", "edges"),
    [("ca-GrQc/CA-GrQc.txt", 5242, 14484),
     pytest.param("wiki-Vote/Wiki-Vote.txt", 7115, 100762, marks=pytest.mark.datasets)],
)
def test_info_matches_manifest(dataset, capsys: pytest.CaptureFixture[str],
                               name: str, nodes: int, edges: int) -> None:
    assert main(["info", str(dataset(name)), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["nodes"], stats["edges"]) == (nodes, edges)


def test_demo_writes_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's demo line exactly as written (``graphanon demo --seed 1 --out
    results/``), in an empty folder."""
    from test_readme import readme_command

    argv = readme_command("graphanon demo ")
    monkeypatch.chdir(tmp_path)
    assert main(argv[1:]) == 0
    out = tmp_path / argv[argv.index("--out") + 1]
    # publishable releases and operator material, nothing beside them: the report and its
    # exact-degree plot are operator material
    assert sorted(p.name for p in out.iterdir()) == ["operator", "publish"]
    rep = out / "operator"
    report = json.loads((rep / "report.json").read_text())
    assert report["meta"]["seed"] == int(argv[argv.index("--seed") + 1])
    sections = {s["title"]: s for s in report["sections"]}
    assert sections["Input data"]["data"]["polbooks"]["edges"] == 441
    assert (rep / "report.html").exists() and (rep / "report.md").exists()
    assert (rep / "plots" / "polbooks_degrees.png").stat().st_size > 1000
    leftovers = [p for p in out.rglob("*.tmp")]
    assert leftovers == []
    # every published file's record names exactly it (neo4j write-release takes the pair);
    # the generated graph has its own record, naming the release it was generated from
    from graphanon.io.dk_tables import read_dk_table
    from graphanon.io.files import read_bipartite, read_graph
    from graphanon.privacy.publish import check_payload

    records = sorted((out / "publish").rglob("*.release.json"))
    assert records
    for rec_path in records:
        data = out / "publish" / rec_path.parent / rec_path.name[:-len(".release.json")]
        rec = json.loads(rec_path.read_text())
        payload = (read_dk_table(data) if data.suffix == ".tsv" and "dk" in data.parts
                   else read_graph(data) if rec["payload_kind"] == "graph"
                   else read_bipartite(data))
        check_payload(rec, payload)
        if rec["mechanism"] == "generate":
            assert rec["parent_release"] and rec["parent_release"] != rec["release_id"]
    # the reader's orientation comes first: how to read it (operator material), what may
    # leave the house; the glossary last
    titles = [s["title"] for s in report["sections"]]
    assert titles[:2] == ["How to read this report", "What may be published"]
    assert titles[-1] == "Glossary"
    assert "operator material" in sections["How to read this report"]["text"][0]
    # every mechanism section speaks to the data-protection officer; every table says how
    # to read it
    for title in titles[3:-1]:
        assert len(sections[title]["for_dpo"]) > 100, title
        assert all(t["lead"] for t in sections[title]["tables"]), title
    terms = " ".join(d["term"] for d in sections["Glossary"]["definitions"])
    for term in ("θ-dKε", "EAD", "SER", "MDAV-dK", "MPDC-dK", "SAE", "KS", "EMD", "L1",
                 "Jaccard", "Stars", "δ", "k (k-anonymity)", "ε", "Sensitivity", "Node-DP",
                 "Edge-DP", "Personalized DP", "Lemma 4.5", "μ", "RPS"):
        assert term in terms, term
    # report.html is self-contained: plots embedded, no reference it could lose when copied
    from graphanon.reporting import broken_references

    page = (rep / "report.html").read_text()
    assert broken_references(rep / "report.html") == []
    assert broken_references(out / "operator" / "evaluation" / "report.html") == []
    n_figures = sum(len(s["figures"]) for s in report["sections"])
    assert n_figures >= 7 and page.count("src='data:image/png;base64,") == n_figures
    md = (rep / "report.md").read_text()
    for link in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md):  # the Markdown links the PNGs
        assert (rep / link).is_file(), link
    # publishable outputs and operator material are kept apart, and the report says which
    places = {o["file"]: o["place"] for o in sections["What may be published"]["data"]["outputs"]}
    assert places and all(f.startswith(place + "/") for f, place in places.items())
    assert places["operator/data/polbooks.txt"] == "operator"
    assert places["operator/dk/polbooks_2k.tsv"] == "operator"  # exact statistic
    published = [f for f, place in places.items() if place == "publish"]
    assert published and all((out / f).exists() for f in published)
    for f in published:
        if f.endswith(".tsv") or f.endswith(".txt"):
            rec = json.loads((out / (f + ".release.json")).read_text())
            assert rec["backend"] != "numpy-insecure" and rec["neighbourhood"] != "none"
    assert not (out / "publish" / "data").exists()
    # published user lists carry pseudonyms, never the sample's row ids
    from graphanon.datasets import load_adult_sample
    from graphanon.io.files import read_bipartite

    A = read_bipartite(out / "publish" / "anonymity" / "adult_sample_smooth_k8.tsv")
    assert not set(A.user_ids.tolist()) & set(load_adult_sample().user_ids.tolist())


def test_library_warnings_are_one_graphanon_line(tmp_path: Path) -> None:
    """A warning that no command reports itself (here numpy-insecure noise in release-degrees,
    which warns once per process) is one ``graphanon: warning:`` line, not Python's two lines
    with the library's source."""
    import subprocess
    import sys

    from graphanon.datasets import data_path

    done = subprocess.run(
        [sys.executable, "-c", "from graphanon.cli import main; raise SystemExit(main())",
         "-q", "release-degrees", str(data_path("polbooks.gml")), "--method", "rps",
         "--epsilon", "1", "--max-nodes", "200", "--noise", "numpy-insecure", "--seed", "1",
         "--out", str(tmp_path / "d.tsv")], capture_output=True, text=True)
    err = done.stderr.splitlines()
    assert done.returncode == 0
    assert len(err) == 1 and err[0].startswith("graphanon: warning: noise drawn from"), err
    # a warning the user's filters make an error is one error line, exit 2
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c",
         "from graphanon.cli import main; raise SystemExit(main())", "-q", "release-degrees",
         str(data_path("polbooks.gml")), "--method", "rps", "--epsilon", "1", "--max-nodes",
         "200", "--noise", "numpy-insecure", "--seed", "1", "--out", str(tmp_path / "e.tsv")],
        capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("graphanon: error: noise drawn")
    assert len(done.stderr.splitlines()) == 1 and not (tmp_path / "e.tsv").exists()


@pytest.mark.parametrize("args", [
    ["release-dk", "{missing}", "--d", "1", "--max-degree", "5", "--epsilon"],
    ["release-degrees", "{missing}", "--epsilon"],
    ["randomized-response", "{missing}", "--users", "u", "--features", "f", "--epsilon"],
    ["release-personalized", "{missing}", "--d", "1", "--neighbourhood", "edge",
     "--default-epsilon"],
])
def test_a_bad_epsilon_is_refused_before_the_input_is_read(tmp_path: Path, capsys: Any,
                                                           args: list[str]) -> None:
    """ε is checked while the arguments are parsed (an argument error is instant, whatever
    the input's size): the input named here does not even exist, and the error is ε's.
    (Randomized response's total ε may reach |F| times the per-cell bound at node level.)"""
    argv = [a.format(missing=tmp_path / "none.txt") for a in args]
    opt = argv[-1]
    rr = args[0] == "randomized-response"
    for bad, shown in (("-1", "-1.0"), ("0", "0.0"), ("nan", "nan"),
                       ("2e9", "2000000000.0") if rr else ("1e3", "1000.0")):
        assert main(["-q", *argv, bad, "--out", str(tmp_path / "o.tsv")]) == 2
        err = capsys.readouterr().err
        assert err == (f"graphanon: error: The '{opt}' option must be a finite float in "
                       f"[1e-06, {'1e+09' if rr else '100'}]. Got {shown} instead.\n")


def test_choices_in_a_usage_error_stay_on_one_readable_line(capsys: Any) -> None:
    assert main(["release-personalized", "x.txt", "--d", "1"]) == 2
    err = capsys.readouterr().err
    assert "Missing option '--method'. Choose from: min, ll, tp, st, ag" in err
    assert "\\t" not in err and len(err.splitlines()) == 1
    # an option with an old name (--privacy) is checked by the command, the same way
    assert main(["release-personalized", "x.txt", "--d", "1", "--method", "min", "--out",
                 "o.tsv"]) == 2
    err = capsys.readouterr().err
    assert "Missing option '--neighbourhood'. Choose from: edge, node." in err
    assert "\\t" not in err and len(err.splitlines()) == 1


def test_library_parameter_errors_name_the_option(tmp_path: Path, capsys: Any) -> None:
    """A bound the library refuses is named by the command's option, with the user's value;
    a value the command derived from the user's keeps the library's name (naming the option
    with a value the user never gave would misstate it)."""
    from graphanon.cli._guard import _as_option

    g = tmp_path / "g.txt"
    g.write_text("1 2\n2 3\n3 1\n")
    out = tmp_path / "o.tsv"
    assert main(["-q", "release-dk", str(g), "--d", "1", "--epsilon", "1", "--max-degree", "0",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "The '--max-degree' option must be an int in [1, 2147483646]. Got 0 instead." in err
    assert "parameter of" not in err and not out.exists()
    exc = InvalidParameterError("The 'epsilon' parameter of f must be a float > 0. Got 0.5 "
                                "instead.")
    flags = {"epsilon": "--epsilon"}
    assert _as_option(exc, {"epsilon": 1.0}, flags) is None  # derived: a share of --epsilon
    assert str(_as_option(exc, {"epsilon": 0.5}, flags)) == (
        "The '--epsilon' option must be a float > 0. Got 0.5 instead.")
    assert _as_option(InputFormatError(str(exc)), {"epsilon": 0.5}, flags) is None
