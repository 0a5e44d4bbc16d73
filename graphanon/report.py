"""Human-readable reports: Markdown + HTML with plots, and the same content as JSON.

A :class:`Report` is a list of :class:`Section` s; each has prose, tables, figures (PNG files
made with matplotlib's Agg backend) and a JSON-able ``data`` payload. :meth:`Report.write`
writes everything into one folder atomically per file.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .io._atomic import atomic_path, atomic_write_text

__all__ = ["Report", "Section", "Table", "to_jsonable"]


@dataclass
class Table:
    header: Sequence[str]
    rows: Sequence[Sequence[Any]]
    caption: str = ""


@dataclass
class Section:
    title: str
    text: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    figures: list[tuple[str, str]] = field(default_factory=list)  # (file name, caption)
    data: dict[str, Any] = field(default_factory=dict)


def _fmt(x: Any) -> str:
    if isinstance(x, (float, np.floating)):
        if math.isnan(x):
            return "nan"
        return f"{x:.4g}"
    return str(x)


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


class Report:
    """Sections and figures, written as ``report.md``, ``report.html`` and ``report.json``."""

    def __init__(self, title: str, outdir: str | Path) -> None:
        self.title = title
        self.outdir = Path(outdir)
        self.sections: list[Section] = []
        self.meta: dict[str, Any] = {}

    def add(self, section: Section) -> Section:
        self.sections.append(section)
        return section

    def figure(self, name: str, draw: Callable[[Any], None], *, size: tuple[float, float] = (6, 4)
               ) -> str:
        """Draw a matplotlib figure with ``draw(ax)`` and save it as ``plots/<name>.png``."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=size)
        try:
            draw(ax)
            fig.tight_layout()
            rel = f"plots/{name}.png"
            with atomic_path(self.outdir / rel) as tmp:
                fig.savefig(tmp, format="png", dpi=110)
        finally:
            plt.close(fig)
        return rel

    # ------------------------------------------------------------------ rendering
    def markdown(self) -> str:
        out = [f"# {self.title}", ""]
        for k, v in self.meta.items():
            out.append(f"- **{k}**: {_fmt(v)}")
        out.append("")
        for s in self.sections:
            out += [f"## {s.title}", ""]
            for p in s.text:
                out += [p, ""]
            for t in s.tables:
                if t.caption:
                    out += [f"*{t.caption}*", ""]
                out.append("| " + " | ".join(t.header) + " |")
                out.append("|" + "---|" * len(t.header))
                for r in t.rows:
                    out.append("| " + " | ".join(_fmt(x) for x in r) + " |")
                out.append("")
            for path, cap in s.figures:
                out += [f"![{cap}]({path})", ""]
        return "\n".join(out)

    def html(self) -> str:
        e = html.escape
        parts = [
            "<!doctype html><html><head><meta charset='utf-8'>",
            f"<title>{e(self.title)}</title>",
            "<style>body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;"
            "padding:0 1em;color:#222}table{border-collapse:collapse;margin:1em 0}"
            "td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}"
            "th{background:#f3f3f3}img{max-width:100%}caption{caption-side:top;"
            "font-style:italic}</style></head><body>",
            f"<h1>{e(self.title)}</h1><ul>",
        ]
        parts += [f"<li><b>{e(k)}</b>: {e(_fmt(v))}</li>" for k, v in self.meta.items()]
        parts.append("</ul>")
        for s in self.sections:
            parts.append(f"<h2>{e(s.title)}</h2>")
            parts += [f"<p>{e(p)}</p>" for p in s.text]
            for t in s.tables:
                parts.append("<table>")
                if t.caption:
                    parts.append(f"<caption>{e(t.caption)}</caption>")
                parts.append("<tr>" + "".join(f"<th>{e(h)}</th>" for h in t.header) + "</tr>")
                for r in t.rows:
                    parts.append("<tr>" + "".join(f"<td>{e(_fmt(x))}</td>" for x in r) + "</tr>")
                parts.append("</table>")
            for path, cap in s.figures:
                parts.append(f"<figure><img src='{e(path)}' alt='{e(cap)}'>"
                             f"<figcaption>{e(cap)}</figcaption></figure>")
        parts.append("</body></html>")
        return "\n".join(parts)

    def json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "meta": to_jsonable(self.meta),
            "sections": [
                {
                    "title": s.title,
                    "text": s.text,
                    "tables": [
                        {"caption": t.caption, "header": list(t.header),
                         "rows": to_jsonable(t.rows)}
                        for t in s.tables
                    ],
                    "figures": [p for p, _ in s.figures],
                    "data": to_jsonable(s.data),
                }
                for s in self.sections
            ],
        }

    def write(self) -> Path:
        """Write the three renderings; returns the folder."""
        self.outdir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.outdir / "report.md", self.markdown())
        atomic_write_text(self.outdir / "report.html", self.html())
        atomic_write_text(self.outdir / "report.json", json.dumps(self.json(), indent=2))
        return self.outdir
