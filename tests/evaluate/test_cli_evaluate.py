"""``graphanon evaluate``: suites, TOML files, the report, CLI errors, the demo step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphanon.cli import main
from graphanon.datasets import data_path, load_adult_sample, load_polbooks
from graphanon.demos.job import DEMO_STEPS, DemoContext
from graphanon.errors import InvalidParameterError
from graphanon.evaluate.suites import load_suite, named_suite, resolve_suite
from graphanon.reporting import Report

SMALL_ADULT = """
name = "tiny adult"
dataset = "adult"

[risk]
ks = [4, 16]
qs = [1, 5]
rr_epsilons = [5]
n_targets = 100
b_anonymize_max_users = 150

[audit]
epsilons = [1.0]
n_select = 300
n_eval = 1000

[utility]
ks = [4]
epsilons = [5]
classifiers = ["logistic"]
b_anonymize_max_users = 0
"""

SMALL_SOCIAL = """
dataset = "social"

[audit]
epsilons = [1.0]
mechanisms = ["dk2-laplace", "theta-dk1-ead", "control-dk1-half-sensitivity"]
n_select = 300
n_eval = 1000

[utility]
epsilons = [2.0, 10.0]
mechanisms = ["dk1-edge", "theta-dk2-node"]
max_degree = 16
theta = 6
n_sources = 10
"""


def test_named_suites_and_quick_grids() -> None:
    full = named_suite("adult")
    quick = named_suite("adult", quick=True)
    assert quick.quick and len(quick.risk.ks) < len(full.risk.ks)
    assert quick.audit.n_eval < full.audit.n_eval
    assert quick.utility.classifiers == ("logistic",)
    assert "randomized-response-edge" in full.audit.mechanisms
    social = named_suite("social", input_path="g.txt")
    assert not social.risk.enabled and "dk2-laplace" in social.audit.mechanisms
    with pytest.raises(InvalidParameterError, match="needs an INPUT graph"):
        named_suite("social")


def test_toml_suites(tmp_path: Path) -> None:
    p = tmp_path / "s.toml"
    p.write_text('input = "data/adult.data"\n' + SMALL_ADULT)
    cfg = load_suite(p, seed=4)
    assert cfg.name == "tiny adult" and cfg.seed == 4 and cfg.risk.ks == (4, 16)
    assert cfg.input == str((tmp_path / "data" / "adult.data").resolve())
    assert cfg.utility.b_anonymize_max_users == 0
    # the file's own values win over the quick defaults; relative inputs are file-relative
    assert load_suite(p, quick=True).risk.n_targets == 100
    # a file's seed is kept unless one is given; without either a fresh one is drawn
    seeded_file = tmp_path / "seeded.toml"
    seeded_file.write_text('seed = 11\n' + SMALL_ADULT)
    assert resolve_suite(str(seeded_file)).seed == 11
    assert resolve_suite(str(seeded_file), seed=2).seed == 2
    assert resolve_suite(str(p)).seed != resolve_suite(str(p)).seed
    bad = tmp_path / "bad.toml"
    bad.write_text('dataset = "adult"\n[risk]\nkz = [2]\n')
    with pytest.raises(InvalidParameterError, match=r"\[risk\] table of the suite has unknown"):
        load_suite(bad)
    bad.write_text('dataset = "adult"\n[audit]\nmechanisms = ["nope"]\n')
    with pytest.raises(InvalidParameterError, match=r"audit\.mechanisms"):
        load_suite(bad)
    for risk in ("enabled = true", "ks = [2]"):  # a social suite would ignore either
        bad.write_text(f'dataset = "social"\n[risk]\n{risk}\n')
        with pytest.raises(InvalidParameterError, match="needs a user–feature table"):
            load_suite(bad, input_path="g.txt")
    # a file's noise is kept unless one is given, and validated
    noisy = tmp_path / "noisy.toml"
    noisy.write_text('noise = "numpy-insecure"\n' + SMALL_ADULT)
    assert resolve_suite(str(noisy)).noise == "numpy-insecure"
    assert resolve_suite(str(noisy), noise="opendp").noise == "opendp"
    noisy.write_text('noise = "laplace"\n' + SMALL_ADULT)
    with pytest.raises(InvalidParameterError, match="'noise'"):
        resolve_suite(str(noisy))
    with pytest.raises(InvalidParameterError, match="must be one of adult, social"):
        resolve_suite("nonsense")


def test_cli_adult_suite_writes_the_report(tmp_path: Path) -> None:
    suite = tmp_path / "tiny.toml"
    suite.write_text(SMALL_ADULT)
    out = tmp_path / "out"
    assert main(["--quiet", "evaluate", "--suite", str(suite), "--out", str(out), "--seed", "3",
                 "--noise", "numpy-insecure"]) == 0
    rep = json.loads((out / "report.json").read_text())
    assert (out / "report.html").stat().st_size > 1000
    for plot in ("risk_vs_k", "risk_vs_q", "audit_epsilon", "utility_adult_vs_k",
                 "utility_adult_vs_epsilon"):
        assert (out / "plots" / f"{plot}.png").stat().st_size > 1000
    audits = rep["audit"]
    assert {a["mechanism"].split(" (")[0] for a in audits} == {
        "randomized-response", "CONTROL dk1 with half sensitivity"}
    for a in audits:
        assert "claimed_epsilon" in a and "empirical_epsilon_lower_bound" in a
        assert a["exceeds_claim"] == a["control"]
    assert rep["suite"]["seed"] == 3 and rep["meta"]["noise"] == "numpy-insecure"
    risk = {(r["mechanism"], r["parameter"], r["q"]) for r in rep["risk"]}
    assert ("smooth-k", "k=16", 5) in risk and ("original", "-", 1) in risk
    assert any(r["mechanism"] == "b-anonymize" for r in rep["risk"])
    assert {u["mechanism"] for u in rep["utility"]["adult"]} >= {"original", "smooth-k"}
    assert not list(out.rglob("*.tmp"))


def test_cli_social_suite(tmp_path: Path) -> None:
    suite = tmp_path / "social.toml"
    suite.write_text(SMALL_SOCIAL)
    out = tmp_path / "out"
    assert main(["--quiet", "evaluate", str(data_path("polbooks.gml")), "--suite", str(suite),
                 "--out", str(out), "--seed", "5", "--noise", "numpy-insecure"]) == 0
    rep = json.loads((out / "report.json").read_text())
    assert len(rep["audit"]) == 3 and rep["risk"] == []
    ctrl = [a for a in rep["audit"] if a["control"]]
    assert ctrl and ctrl[0]["empirical_epsilon_lower_bound"] > ctrl[0]["claimed_epsilon"]
    rows = rep["utility"]["social"]["rows"]
    assert {r["mechanism"] for r in rows} == {"exact-2k (no privacy)", "dk1-edge",
                                             "theta-dk2-node"}
    assert rep["utility"]["social"]["original"]["n_edges"] == 441
    assert (out / "plots" / "utility_social_vs_epsilon.png").exists()


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--suite", "social", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs an INPUT graph" in err
    assert main(["evaluate", "--suite", "bogus", "--out", str(tmp_path / "o")]) == 2
    assert "must be one of adult, social or a TOML file" in capsys.readouterr().err


def test_demo_step(tmp_path: Path) -> None:
    assert dict(DEMO_STEPS)["evaluation"] == "graphanon.demos.evaluation:step_evaluation"
    from graphanon.demos.evaluation import step_evaluation

    ctx = DemoContext(tmp_path, 2, Report("t", tmp_path), load_polbooks(), load_adult_sample())
    section = step_evaluation(ctx)
    audit = section.tables[0].rows
    verdicts = {r[0].split(" (")[0]: r[4] for r in audit}
    assert verdicts["CONTROL dk1 with half sensitivity"] == "caught"
    assert all(v == "ok" for k, v in verdicts.items() if not k.startswith("CONTROL"))
    assert (tmp_path / "operator" / "evaluation" / "report.html").exists()
    assert [o[1] for o in ctx.outputs] == ["operator"]  # operator material, never publish/
    for fig, _ in section.figures:
        assert (tmp_path / "operator" / fig).exists()  # relative to the report, operator/


def test_the_readme_evaluate_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The README's evaluate line exactly as written (``graphanon evaluate --suite adult
    --quick --out eval/``), in an empty folder; its summary counts the audits and the
    controls apart, as the report does."""
    import re

    from test_readme import readme_command

    argv = readme_command("graphanon evaluate ")
    monkeypatch.chdir(tmp_path)
    assert main(argv[1:]) == 0
    out = tmp_path / argv[argv.index("--out") + 1]
    report = json.loads((out / "report.json").read_text())
    assert report["sections"] and (out / "report.html").exists()
    said = re.search(r"(\d+) audits and (\d+) controls", capsys.readouterr().out)
    assert said is not None and int(said.group(2)) > 0


def test_one_style_per_mechanism_and_a_verdict_per_release() -> None:
    from types import SimpleNamespace

    from graphanon.evaluate.report import mechanism_style, release_verdict

    # the same mechanism looks the same in every figure, whatever its setting
    assert mechanism_style("dk2-mpdc (h=4, τ=2)") == mechanism_style("dk2-mpdc")
    assert mechanism_style("randomized response ε=2") == mechanism_style("randomized-response")
    assert mechanism_style("dk2-mpdc-edge") == mechanism_style("dk2-mpdc (h=4, τ=2)")
    from graphanon.evaluate.empirical_audit import AUDIT_MECHANISMS
    from graphanon.evaluate.utility import SOCIAL_MECHANISMS

    for family in (["smooth-k", "suppress", "mondrian", "b-anonymize", "randomized-response"],
                   [m for m in AUDIT_MECHANISMS if not m.startswith(("control", "random"))],
                   list(SOCIAL_MECHANISMS)):  # the mechanisms that share a figure
        assert len({mechanism_style(m)["color"] for m in family}) == len(family), family
    assert mechanism_style("CONTROL dk1 with half sensitivity")["color"] == "red"
    orig = {"n_nodes": 105, "n_edges": 441, "degree_histogram": [0] * 25 + [1]}
    big = SimpleNamespace(n_nodes=464, n_edges=1477, degree_ks=0.05, epsilon=1.0,
                          neighbourhood="edge")
    assert "3.3× the edges" in release_verdict(big, orig, max_degree=64, theta=8)
    capped = SimpleNamespace(n_nodes=105, n_edges=450, degree_ks=0.42, epsilon=10.0,
                             neighbourhood="edge")
    v = release_verdict(capped, orig, max_degree=10, theta=8)
    assert "more ε will not fix" in v and "bound 10" in v
    fine = SimpleNamespace(n_nodes=105, n_edges=440, degree_ks=0.05, epsilon=1.0,
                           neighbourhood="node")
    assert release_verdict(fine, orig, max_degree=10, theta=32).startswith("close to the input")
