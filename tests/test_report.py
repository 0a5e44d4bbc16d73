"""Reports: self-contained HTML (no broken references)."""

from __future__ import annotations

import base64
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from graphanon.report import Report, Section, Table, broken_references, slug


def _draw(ax: Any) -> None:
    ax.plot([0, 1, 2], [1, 0, 2])
    ax.set_xlabel("x")


def _small_report(outdir: Path) -> Report:
    rep = Report("a small report", outdir)
    rep.meta["seed"] = 3
    fig = rep.figure("line", _draw, size=(3, 2))
    rep.add(Section("How to read", text=["See [the results](#results) and `code`."]))
    rep.add(Section(
        "Results", text=["Numbers <b>escaped</b> & [a glossary link](#glossary)."],
        tables=[Table(["name", "value"], [["a", 1.5], ["b", "0 (0.00)"]], caption="T",
                      lead="How to read T.")],
        figures=[(fig, "a line")], for_dpo="Protected: nothing, it is a test."))
    rep.add(Section("Glossary", definitions=[("ε", "a number"), ("k", "another")]))
    return rep


def test_html_is_self_contained(tmp_path: Path) -> None:
    rep = _small_report(tmp_path / "r")
    rep.write()
    page = tmp_path / "r" / "report.html"
    text = page.read_text()
    assert broken_references(page) == []
    # the plot is embedded, byte for byte the PNG also written for the Markdown report
    uris = re.findall(r"src='data:image/png;base64,([A-Za-z0-9+/=]+)'", text)
    assert len(uris) == 1
    assert base64.b64decode(uris[0]) == (tmp_path / "r" / "plots" / "line.png").read_bytes()
    assert "plots/line.png" not in text and "<style>" in text
    assert "<b>escaped</b>" not in text and "&lt;b&gt;escaped&lt;/b&gt;" in text
    assert "<a href='#results'>the results</a>" in text and "<code>code</code>" in text
    assert "For the data-protection officer" in text and "<dt>ε</dt>" in text
    # copied alone, it still renders everything
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(page, alone / "report.html")
    assert broken_references(alone / "report.html") == []
    # the Markdown links the PNG (and says so), and carries the same prose
    md = (tmp_path / "r" / "report.md").read_text()
    assert "![a line](plots/line.png)" in md and "`plots/`" in md
    assert "> **For the data-protection officer.** Protected" in md
    assert "- **ε**: a number" in md
    js = rep.json()
    assert [s["anchor"] for s in js["sections"]] == ["how-to-read", "results", "glossary"]
    assert js["sections"][1]["tables"][0]["lead"] == "How to read T."


def test_broken_references_finds_each_kind(tmp_path: Path) -> None:
    (tmp_path / "there.txt").write_text("x")
    page = tmp_path / "p.html"
    page.write_text(
        "<!doctype html><html><head><style>body{background:url(http://x.org/a.png)}</style>"
        "</head><body id='top'><p><a href='#top'>ok</a> <a href='there.txt'>ok</a>"
        "<a href='#nowhere'>bad</a> <a href='missing/file.png'>bad</a>"
        "<img src='https://example.org/a.png'><img src='data:image/png;base64,@@'>"
        "<img src='data:image/png;base64,iVBORw0KGgo='></p>"
        "<div><span></div></body></html>")
    problems = broken_references(page)
    joined = "\n".join(problems)
    assert "'#nowhere' does not exist" in joined
    assert "missing/file.png" in joined
    assert "https://example.org/a.png" in joined and "http://x.org/a.png" in joined
    assert "malformed data URI" in joined
    assert "</div> closes <span>" in joined
    assert "#top" not in joined and "there.txt" not in joined
    assert len(problems) == 6
    page.write_text("<html><body><div><p>never closed</body>")
    assert any("closes" in p or "unclosed" in p for p in broken_references(page))


def test_missing_figure_fails_before_anything_is_written(tmp_path: Path) -> None:
    rep = Report("r", tmp_path)
    rep.add(Section("s", figures=[("plots/nope.png", "missing")]))
    with pytest.raises(FileNotFoundError, match=r"nope\.png"):
        rep.write()
    assert not (tmp_path / "report.html").exists() and not (tmp_path / "report.md").exists()


def test_images_of_a_pending_transaction_are_embedded(tmp_path: Path) -> None:
    """A figure written by another report in the same output transaction is not in place
    until the end; add_image hands its bytes over (the demo's evaluation section)."""
    from graphanon.io._atomic import output_transaction

    with output_transaction():
        inner = Report("inner", tmp_path / "sub")
        fig = inner.figure("p", _draw, size=(2, 2))
        outer = Report("outer", tmp_path)
        outer.add(Section("s", figures=[(f"sub/{fig}", "from the inner report")]))
        assert not (tmp_path / "sub" / fig).exists()
        with pytest.raises(FileNotFoundError):
            outer.html()
        outer.add_image(f"sub/{fig}", inner.image(fig))
        outer.write()
    assert broken_references(tmp_path / "report.html") == []
    assert (tmp_path / "sub" / "plots" / "p.png").exists()
    with pytest.raises(ValueError, match="not a PNG"):
        outer.add_image("x.png", b"GIF89a")


def test_slug_and_duplicate_titles(tmp_path: Path) -> None:
    assert slug("What may be published") == "what-may-be-published"
    assert slug("Node-DP: projections, θ-dKε") == "node-dp-projections-dk"
    rep = Report("r", tmp_path)
    rep.add(Section("Same"))
    rep.add(Section("Same"))
    rep.write()
    assert [s["anchor"] for s in rep.json()["sections"]] == ["same", "same-2"]
    assert broken_references(tmp_path / "report.html") == []
