"""Human-readable reports: Markdown + self-contained HTML with plots, and the same as JSON.

A :class:`Report` is a list of :class:`Section` s; each has prose, tables, figures (PNG files
made with matplotlib's Agg backend), an optional plain-language note for a data-protection
officer, optional glossary entries and a JSON-able ``data`` payload. :meth:`Report.write`
writes ``report.md``, ``report.html`` and ``report.json`` into one folder, atomically per
file.

``report.html`` is one self-contained file: every plot is embedded as a ``data:image/png``
URI, the style sheet is inline, and the only links are in-page anchors (the table of
contents, the glossary), so the file can be copied or mailed alone. The PNGs are also written
under ``plots/`` for ``report.md``, which links them (keep that folder next to it).
:func:`broken_references` checks a written HTML file for anything that would not render.

Inline markup in section text, table leads and notes (everything else is escaped):
```` `code` ```` and in-page links ``[label](#anchor)``.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np

from .io._atomic import atomic_path, atomic_write_text

__all__ = ["Report", "Section", "Table", "broken_references", "slug", "to_jsonable"]


@dataclass
class Table:
    """A table: ``caption`` names it, ``lead`` is one sentence on how to read it."""

    header: Sequence[str]
    rows: Sequence[Sequence[Any]]
    caption: str = ""
    lead: str = ""


@dataclass
class Section:
    """One section of a report.

    ``for_dpo`` is a short plain-language note for a data-protection officer (what is
    protected, against whom, at which ε or k, and what is not); ``definitions`` are glossary
    entries ``(term, meaning)``, rendered as a definition list.
    """

    title: str
    text: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    figures: list[tuple[str, str]] = field(default_factory=list)  # (path under outdir, caption)
    data: dict[str, Any] = field(default_factory=dict)
    for_dpo: str = ""
    definitions: list[tuple[str, str]] = field(default_factory=list)


def _fmt(x: Any) -> str:
    if isinstance(x, (float, np.floating)):
        if math.isnan(x):
            return "nan"
        return f"{x:.4g}"
    return str(x)


_NUMERIC_TEXT = re.compile(
    r"^(?:[−–-]|nan|[−-]?\d[\d.,]*(?:e[+-]?\d+)?(?: ?[%×])?(?: \([^)]*\))?)$")


def _cell(x: Any) -> str:
    """A table cell: numbers (and texts that read as one, like ``"136 (1.30)"`` or ``"–"``)
    right-aligned (class ``n``), other text left-aligned."""
    text = _fmt(x)
    num = ((isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool))
           or (isinstance(x, str) and _NUMERIC_TEXT.match(x) is not None))
    return f"<td class='n'>{html.escape(text)}</td>" if num else f"<td>{html.escape(text)}</td>"


def slug(title: str) -> str:
    """The in-page anchor of a section title: ``"What may be published"`` ->
    ``"what-may-be-published"`` (letters and digits kept, everything else one ``-``)."""
    s = re.sub(r"[^0-9a-z]+", "-", title.lower()).strip("-")
    return s or "section"


_LINK = re.compile(r"\[([^\]\n]+)\]\((#[A-Za-z0-9_-]+)\)")
_CODE = re.compile(r"`([^`\n]+)`")


def _inline(text: str) -> str:
    """Escape ``text`` for HTML, then turn ```code``` and ``[label](#anchor)`` into markup."""
    out = html.escape(text)
    out = _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", out)
    return _LINK.sub(lambda m: f"<a href='{m.group(2)}'>{m.group(1)}</a>", out)


def to_jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays and dataclasses to plain JSON types."""
    import dataclasses

    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        f = float(obj)
        return None if not math.isfinite(f) else f
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, Path):
        return str(obj)
    return obj


_STYLE = (
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:70em;"
    "margin:2em auto;padding:0 1em;color:#222;line-height:1.45}"
    "h1{margin-bottom:.3em}h2{margin-top:2.2em;border-bottom:1px solid #ddd;"
    "padding-bottom:.2em}"
    "div.tbl{margin:1.2em 0 1.6em;overflow-x:auto}div.wide table{font-size:.8em}"
    "table{border-collapse:collapse;margin:.3em 0}"
    "td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "th{background:#f3f3f3}"
    "p.tcap{font-weight:600;margin:0 0 .15em}"
    "p.lead{margin:0 0 .3em;font-size:.92em;color:#444}"
    "figure{margin:1em 0 1.6em}figure img{max-width:100%;height:auto}"
    "figcaption{font-size:.92em;color:#444}"
    ".dpo{background:#fff8e1;border-left:4px solid #e0a800;padding:.6em 1em;margin:1em 0}"
    ".dpo b{display:block;margin-bottom:.2em}"
    "nav.toc{background:#f7f7f7;padding:.5em 1.2em;margin:1em 0}"
    "nav.toc ol{margin:.3em 0;padding-left:1.4em}"
    "dl dt{font-weight:600;margin-top:.6em}dl dd{margin-left:1.5em}"
    "code{background:#f3f3f3;padding:0 .2em;font-size:.95em}"
    "ul.meta{color:#555;font-size:.92em}"
)


class Report:
    """Sections and figures, written as ``report.md``, ``report.html`` and ``report.json``."""

    def __init__(self, title: str, outdir: str | Path) -> None:
        self.title = title
        self.outdir = Path(outdir)
        self.sections: list[Section] = []
        self.meta: dict[str, Any] = {}
        self._images: dict[str, bytes] = {}

    def add(self, section: Section) -> Section:
        self.sections.append(section)
        return section

    def figure(self, name: str, draw: Callable[[Any], None], *, size: tuple[float, float] = (6, 4)
               ) -> str:
        """Draw a matplotlib figure with ``draw(ax)`` and save it as ``plots/<name>.png``.

        Returns the path relative to the report folder (what :attr:`Section.figures` takes);
        the PNG is also kept in memory for the HTML, which embeds it.
        """
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=size)
        try:
            draw(ax)
            fig.tight_layout()
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=110)
        finally:
            plt.close(fig)
        rel = f"plots/{name}.png"
        data = buf.getvalue()
        with atomic_path(self.outdir / rel) as tmp:
            tmp.write_bytes(data)
        self._images[rel] = data
        return rel

    def add_image(self, rel: str, data: bytes) -> None:
        """Make the PNG ``data`` of a file written elsewhere (``rel``, relative to the report
        folder) available to the HTML, which embeds it; inside an output transaction the file
        is not in place until the end, so it could not be read back."""
        if not data.startswith(b"\x89PNG\r\n\x1a\n"):
            raise ValueError(f"{rel}: not a PNG image")
        self._images[rel] = data

    def image(self, rel: str) -> bytes:
        """The PNG bytes of figure ``rel``: drawn by :meth:`figure`, given to
        :meth:`add_image`, or else read from ``outdir / rel``."""
        if rel in self._images:
            return self._images[rel]
        path = self.outdir / rel
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise FileNotFoundError(
                f"report figure {rel!r} was neither drawn by Report.figure nor added with "
                f"Report.add_image, and {str(path)!r} does not exist") from None

    # ------------------------------------------------------------------ rendering
    def _anchors(self) -> list[str]:
        seen: dict[str, int] = {}
        out = []
        for s in self.sections:
            a = slug(s.title)
            if a in seen:
                seen[a] += 1
                a = f"{a}-{seen[a]}"
            else:
                seen[a] = 1
            out.append(a)
        return out

    def markdown(self) -> str:
        out = [f"# {self.title}", ""]
        for k, v in self.meta.items():
            out.append(f"- **{k}**: {_fmt(v)}")
        out.append("")
        if any(s.figures for s in self.sections):
            out += ["*The plots are PNG files under `plots/` next to this file, linked from "
                    "here (keep the folder with it); `report.html` embeds them and can be "
                    "read alone.*", ""]
        for s, anchor in zip(self.sections, self._anchors(), strict=True):
            out += [f'<a id="{anchor}"></a>', "", f"## {s.title}", ""]
            for p in s.text:
                out += [p, ""]
            if s.for_dpo:
                out += [f"> **For the data-protection officer.** {s.for_dpo}", ""]
            for t in s.tables:
                if t.caption:
                    out += [f"**{t.caption}**", ""]
                if t.lead:
                    out += [f"*{t.lead}*", ""]
                out.append("| " + " | ".join(t.header) + " |")
                out.append("|" + "---|" * len(t.header))
                for r in t.rows:
                    out.append("| " + " | ".join(_fmt(x).replace("|", "\\|") for x in r) + " |")
                out.append("")
            for path, cap in s.figures:
                out += [f"![{cap}]({path})", ""]
            for term, meaning in s.definitions:
                out.append(f"- **{term}**: {meaning}")
            if s.definitions:
                out.append("")
        return "\n".join(out)

    def html(self) -> str:
        """One self-contained HTML page (inline style, plots as ``data:`` URIs)."""
        e = html.escape
        parts = [
            "<!doctype html>",
            "<html lang='en'><head><meta charset='utf-8'>",
            "<meta name='viewport' content='width=device-width, initial-scale=1'>",
            f"<title>{e(self.title)}</title>",
            f"<style>{_STYLE}</style></head><body>",
            f"<h1>{e(self.title)}</h1>",
        ]
        if self.meta:
            parts.append("<ul class='meta'>")
            parts += [f"<li><b>{e(str(k))}</b>: {e(_fmt(v))}</li>" for k, v in self.meta.items()]
            parts.append("</ul>")
        anchors = self._anchors()
        if len(self.sections) > 1:
            parts.append("<nav class='toc'><b>Contents</b><ol>")
            parts += [f"<li><a href='#{a}'>{e(s.title)}</a></li>"
                      for s, a in zip(self.sections, anchors, strict=True)]
            parts.append("</ol></nav>")
        for s, anchor in zip(self.sections, anchors, strict=True):
            parts.append(f"<section id='{anchor}'>")
            parts.append(f"<h2>{e(s.title)}</h2>")
            parts += [f"<p>{_inline(p)}</p>" for p in s.text]
            if s.for_dpo:
                parts.append(f"<div class='dpo'><b>For the data-protection officer</b>"
                             f"{_inline(s.for_dpo)}</div>")
            for t in s.tables:
                wide = " wide" if len(t.header) > 8 else ""
                parts.append(f"<div class='tbl{wide}'>")
                if t.caption:
                    parts.append(f"<p class='tcap'>{e(t.caption)}</p>")
                if t.lead:
                    parts.append(f"<p class='lead'>{_inline(t.lead)}</p>")
                parts.append("<table><thead><tr>"
                             + "".join(f"<th>{e(str(h))}</th>" for h in t.header)
                             + "</tr></thead><tbody>")
                for r in t.rows:
                    parts.append("<tr>" + "".join(_cell(x) for x in r) + "</tr>")
                parts.append("</tbody></table></div>")
            for path, cap in s.figures:
                uri = "data:image/png;base64," + base64.b64encode(self.image(path)).decode()
                parts.append(f"<figure><img src='{uri}' alt='{e(cap)}'>"
                             f"<figcaption>{e(cap)}</figcaption></figure>")
            if s.definitions:
                parts.append("<dl>")
                for term, meaning in s.definitions:
                    parts.append(f"<dt>{e(term)}</dt>"
                                 f"<dd>{_inline(meaning)}</dd>")
                parts.append("</dl>")
            parts.append("</section>")
        parts.append("</body></html>")
        return "\n".join(parts)

    def json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "meta": to_jsonable(self.meta),
            "sections": [
                {
                    "title": s.title,
                    "anchor": anchor,
                    "text": s.text,
                    "for_dpo": s.for_dpo,
                    "tables": [
                        {"caption": t.caption, "lead": t.lead, "header": list(t.header),
                         "rows": to_jsonable(t.rows)}
                        for t in s.tables
                    ],
                    "figures": [p for p, _ in s.figures],
                    "definitions": [{"term": a, "meaning": b} for a, b in s.definitions],
                    "data": to_jsonable(s.data),
                }
                for s, anchor in zip(self.sections, self._anchors(), strict=True)
            ],
        }

    def write(self) -> Path:
        """Write the three renderings; returns the folder."""
        self.outdir.mkdir(parents=True, exist_ok=True)
        page = self.html()  # first: a missing figure fails before anything is written
        atomic_write_text(self.outdir / "report.md", self.markdown())
        atomic_write_text(self.outdir / "report.html", page)
        atomic_write_text(self.outdir / "report.json", json.dumps(self.json(), indent=2))
        return self.outdir


# ---------------------------------------------------------------------- checking
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "source", "track", "wbr"})
_URL_ATTRS = frozenset({"src", "href", "srcset", "poster", "data", "action", "background"})
_CSS_URL = re.compile(r"url\(\s*['\"]?([^'\")\s]+)|@import\s+['\"]([^'\"]+)")


class _RefParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.refs: list[tuple[str, str]] = []  # (tag.attr, value)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            if name in _URL_ATTRS and value is not None:
                self.refs.append((f"{tag}.{name}", value))
            if name == "style" and value:
                self._css(value)
        if tag not in _VOID:
            self.stack.append(tag)
        self._in_style = tag == "style"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID and self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False
        if tag in _VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            line = self.getpos()[0]
            open_ = self.stack[-1] if self.stack else "nothing"
            self.errors.append(f"line {line}: </{tag}> closes <{open_}>")
            if tag in self.stack:  # recover: unwind to the matching tag
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self._css(data)

    def _css(self, css: str) -> None:
        for m in _CSS_URL.finditer(css):
            self.refs.append(("css url", m.group(1) or m.group(2)))


def broken_references(path: str | Path) -> list[str]:
    """What would not render if the HTML file ``path`` were opened on its own; ``[]`` if all
    is well.

    Checked: the page parses with every element closed explicitly (as :class:`Report`
    writes them; optional end tags count as missing); every ``src``/``href`` (and CSS ``url()`` /
    ``@import``) is a ``data:`` URI, an in-page ``#anchor`` whose ``id`` exists, or a relative
    link to a file that exists next to the HTML (no ``http:``, ``file:`` or ``//host``
    references, so nothing is fetched from outside).
    """
    path = Path(path)
    parser = _RefParser()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    problems = list(parser.errors)
    if parser.stack:
        problems.append("unclosed elements at the end: " + ", ".join(parser.stack))
    for where, ref in parser.refs:
        ref = ref.strip()
        if not ref:
            problems.append(f"{where}: empty reference")
        elif ref.startswith("data:"):
            if where.endswith(".src") and not re.match(r"data:[\w/+.-]+(;[\w=.-]+)*;base64,"
                                                      r"[A-Za-z0-9+/=\s]+$", ref):
                problems.append(f"{where}: malformed data URI {ref[:40]!r}")
        elif ref.startswith("#"):
            if ref[1:] not in parser.ids:
                problems.append(f"{where}: in-page anchor {ref!r} does not exist")
        elif re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", ref):
            problems.append(f"{where}: external reference {ref!r}")
        else:
            target = ref.split("#", 1)[0].split("?", 1)[0]
            if not (path.parent / target).is_file():
                problems.append(f"{where}: file {ref!r} does not exist next to {path.name}")
    return problems
