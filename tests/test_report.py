"""Reports: self-contained HTML (no broken references), and the demo sections' tables hold
what their headers say."""

from __future__ import annotations

import base64
import re
import shutil
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pytest

from graphanon.reporting import Report, Section, Table, broken_references, slug


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
    # numbers (and texts that read as one) right-aligned, words left-aligned
    assert "<td>a</td><td class='n'>1.5</td>" in text and "<td class='n'>0 (0.00)</td>" in text
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
        "<img src='https://example.org/a.png'><img src='data:image/png;base64,'>"
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


# ---------------------------------------------------------------------- demo sections
@pytest.fixture
def ctx(tmp_path: Path) -> Any:
    from graphanon.datasets import load_adult_sample, load_polbooks
    from graphanon.demos.job import DemoContext

    return DemoContext(tmp_path, 1, Report("t", tmp_path / "operator"), load_polbooks(),
                       load_adult_sample())


def _table(section: Section, caption: str) -> tuple[list[str], dict[str, list[Any]]]:
    t = next(t for t in section.tables if t.caption.startswith(caption))
    assert all(len(r) == len(t.header) for r in t.rows)
    return list(t.header), {str(r[0]): list(r) for r in t.rows}


def _stats(G: Any) -> dict[str, float]:
    g = G.to_networkx() if hasattr(G, "to_networkx") else G
    return {"nodes": g.number_of_nodes(), "edges": g.number_of_edges(),
            "average clustering": nx.average_clustering(g),
            "degree assortativity": nx.degree_assortativity_coefficient(g)}


def test_synthetic_dk_table_columns_hold_what_their_headers_say(ctx: Any) -> None:
    """Regression (issue 17): the original clustering sat under "exact 2K" and the original
    assortativity under "MPDC". Each column must describe the graph its header names."""
    from graphanon.demos.dk import step_dk
    from graphanon.io.files import read_graph

    section = step_dk(ctx)
    header, rows = _table(section, "Synthetic dK-graphs")
    col = {h: i for i, h in enumerate(header)}
    original = col["original"]
    exact = next(i for h, i in col.items() if "exact 2K" in h)
    private = next(i for h, i in col.items() if "MPDC" in h)
    published = read_graph(ctx.outdir / "publish" / "dk" / "polbooks_synthetic_from_mpdc_2k.txt")
    for j, truth in ((original, _stats(ctx.graph)), (private, _stats(published))):
        for stat, value in truth.items():
            assert rows[stat][j] == pytest.approx(value, abs=1e-3), (header[j], stat)
    # the exact 2K-graph has the original's 2K: same size, same degree assortativity
    assert rows["nodes"][exact] == ctx.graph.n_nodes and rows["edges"][exact] == 441
    assert rows["degree assortativity"][exact] == pytest.approx(
        rows["degree assortativity"][original], abs=1e-3)
    # distances to the original: none in the original's own column, 0 for the exact 2K
    for stat in ("1K L1 vs original (÷ true total)", "2K L1 vs original (÷ true total)"):
        assert rows[stat][original] == "–" and rows[stat][exact] == "0 (0.00)"
    # relative errors next to absolute ones, with the stated definition (÷ true total)
    l1, rel = re.fullmatch(r"(\d+) \(([\d.]+)\)",
                           rows["2K L1 vs original (÷ true total)"][private]).groups()
    assert float(rel) == pytest.approx(int(l1) / 441, abs=0.006)
    header2, releases = _table(section, "2K releases")
    i, j = header2.index("L1"), header2.index("L1 ÷ true total")
    for r in releases.values():
        assert r[j] == pytest.approx(r[i] / 441, abs=0.01)
    assert section.for_dpo and all(t.lead for t in section.tables)


def test_node_dp_plot_and_errors_show_the_projection(ctx: Any) -> None:
    from graphanon.demos.node_dp import THETA, step_node_dp

    section = step_node_dp(ctx)
    above = int((ctx.graph.degrees > THETA).sum())
    assert above == 34 and f"{above} of the 105 books" in section.text[1]
    _, rows = _table(section, "Where the error")
    proj, noise, both = rows.values()
    assert proj[1] > 0 and noise[1] > 0  # the projection alone already costs L1
    assert both[1] <= proj[1] + noise[1]  # and the two parts bound the total
    assert both[2] == pytest.approx(both[1] / 105, abs=1e-3)
    fig, caption = section.figures[0]
    assert (ctx.report.outdir / fig).stat().st_size > 1000 and "projection" in caption
    assert ctx.report.image(fig)[:4] == b"\x89PNG"


def test_personalized_table_explains_guaranteed_epsilon(ctx: Any) -> None:
    from graphanon.demos.personalized import step_personalized
    from graphanon.dk.preferences import thesis_scheme

    section = step_personalized(ctx)
    header, _ = _table(section, "Personalized 1K")
    t = section.tables[0]
    col = {h: i for i, h in enumerate(header)}
    by = {(r[0], r[1]): r for r in t.rows}
    tp = by[("pdp-tp-avg-dk1", "strict")]
    mu = section.data["tp"]["mu"]
    prefs = thesis_scheme(ctx.graph.node_ids, rng=ctx.rng(7)).for_graph(ctx.graph)
    below = int((prefs < mu).sum())
    assert tp[col["books at ε 0"]] == below > 105 / 2
    assert tp[col["median guaranteed ε"]] == "0"
    assert f"here {below} of the 105 books" in section.text[1] and "median" in section.text[1]
    assert by[("pdp-min-dk1", "strict")][col["books at ε 0"]] == 0
    for r in t.rows:
        assert r[col["L1 ÷ true total"]] == pytest.approx(r[col["L1"]] / 105, abs=0.01)
    assert t.lead and section.for_dpo
    assert np.isfinite(mu)
