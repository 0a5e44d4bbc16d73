"""The randomized-response demo step runs on the shipped sample and reports its metrics."""

from __future__ import annotations

from graphanon.datasets import load_adult_sample, load_polbooks
from graphanon.demos.job import DEMO_STEPS, DemoContext
from graphanon.demos.randomized_response import step_randomized_response
from graphanon.reporting import Report


def test_demo_step(tmp_path):
    assert "randomized_response" in dict(DEMO_STEPS)
    ctx = DemoContext(tmp_path, 1, Report("t", tmp_path / "operator"), load_polbooks(),
                      load_adult_sample())  # the report lives in operator/, as in run_demo
    section = step_randomized_response(ctx)
    rows = section.tables[0].rows
    assert [r[0] for r in rows[:3]] == [1.0, 5.0, 10.0]
    jaccards = [r[3] for r in rows[:3]]
    assert jaccards == sorted(jaccards)
    assert (tmp_path / "operator" / "plots" / "randomized_response.png").exists()
    assert (tmp_path / "operator" / "randomized_response" / "adult_eps5.tsv").exists()
