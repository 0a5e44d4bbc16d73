"""The main job on the embedded default: every mechanism on shipped sample data.

Each feature contributes one *step*: a function ``step(ctx) -> Section`` appended to
:data:`DEMO_STEPS`. A step reads the shared inputs from the :class:`DemoContext`, writes its
outputs through :meth:`DemoContext.publish` or :meth:`DemoContext.operator` and returns a
report section (text, tables, plots, JSON data).

The output folder keeps what may be published apart from what may not:

``publish/``
    Secure releases only (secure noise, or a verified k-anonymity release with keyed
    pseudonyms), each with its ``.release.json`` record.
``operator/``
    Everything else: copies of the inputs, exact (non-private) statistics, releases made with
    the seeded ``numpy-insecure`` noise, graphs derived from the exact statistics.
``report.*``
    For the operator: the report holds numbers computed against the private inputs. Its
    section "What may be published" lists every file with the reason for its place.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__
from ._progress import ProgressFn, log_progress
from .datasets import load_adult_sample, load_polbooks
from .graph import BipartiteGraph, Graph
from .io.files import write_bipartite, write_graph
from .metrics import describe_bipartite, describe_graph
from .report import Report, Section, Table

__all__ = ["DEMO_STEPS", "DemoContext", "run_demo"]


@dataclass
class DemoContext:
    """Inputs and output folder shared by the demo steps."""

    outdir: Path
    seed: int
    report: Report
    graph: Graph
    bipartite: BipartiteGraph
    extra: dict[str, Any] = field(default_factory=dict)
    #: Every file written, as ``(path relative to outdir, "publish" | "operator", why)``.
    outputs: list[tuple[str, str, str]] = field(default_factory=list)

    def publish(self, rel: str, why: str) -> Path:
        """The path of a publishable output ``publish/<rel>`` (recorded with ``why``)."""
        self.outputs.append((f"publish/{rel}", "publish", why))
        return self.outdir / "publish" / rel

    def operator(self, rel: str, why: str) -> Path:
        """The path of an operator-only output ``operator/<rel>`` (recorded with ``why``)."""
        self.outputs.append((f"operator/{rel}", "operator", why))
        return self.outdir / "operator" / rel

    def write_record(self, path: Path, release: Any) -> None:
        """Write ``release``'s record next to the output ``path`` (``NAME.release.json``)."""

        from .io._atomic import atomic_write_text

        atomic_write_text(path.with_name(path.name + ".release.json"), release.to_json() + "\n")

    def rng(self, salt: int) -> np.random.Generator:
        """A generator derived from the demo seed, independent per step."""
        return np.random.default_rng([self.seed, salt])


def step_datasets(ctx: DemoContext) -> Section:
    """Describe the two inputs and save copies of them in open formats."""
    G, B = ctx.graph, ctx.bipartite
    why = "a copy of the private input"
    write_graph(G, ctx.operator("data/polbooks.graphml", why))
    write_graph(G, ctx.operator("data/polbooks.txt", why))
    write_bipartite(B, ctx.operator("data/adult_sample.tsv", why))
    g, b = describe_graph(G), describe_bipartite(B)

    def draw(ax: Any) -> None:
        hist = np.bincount(G.degrees)
        ax.bar(np.arange(hist.size), hist, color="#4477aa")
        ax.set_xlabel("degree")
        ax.set_ylabel("nodes")
        ax.set_title("polbooks degree histogram (1K distribution)")

    fig = ctx.report.figure("polbooks_degrees", draw)
    return Section(
        title="Input data",
        text=[
            "Social graph: Krebs' political books co-purchase network (polbooks). "
            "User–feature graph: 2,000 UCI Adult records, categorical attributes one-hot "
            "(see graphanon/data/ATTRIBUTION.md).",
        ],
        tables=[
            Table(["statistic", "polbooks"], [[k, v] for k, v in g.items()]),
            Table(["statistic", "adult sample"], [[k, v] for k, v in b.items()]),
        ],
        figures=[(fig, "Degree histogram of polbooks")],
        data={"polbooks": g, "adult_sample": b},
    )


DemoStep = Callable[[DemoContext], Section]
# (name, "module:function"); steps are imported lazily so the demo pulls in only what runs.
DEMO_STEPS: list[tuple[str, str]] = [
    ("datasets", "graphanon.demo:step_datasets"),
    ("smooth_k", "graphanon.demos.smooth_k:step_smooth_k"),
    ("bmatching", "graphanon.demos.bmatching:step_bmatching"),
    ("randomized_response", "graphanon.demos.randomized_response:step_randomized_response"),
    ("dk", "graphanon.demos.dk:step_dk"),
    ("node-dp", "graphanon.demos.node_dp:step_node_dp"),
    ("personalized", "graphanon.demos.personalized:step_personalized"),
    ("evaluation", "graphanon.demos.evaluation:step_evaluation"),
]


def _resolve(target: str) -> DemoStep:
    module, _, func = target.partition(":")
    step: DemoStep = getattr(importlib.import_module(module), func)
    return step


def run_demo(outdir: str | Path, *, seed: int, progress: ProgressFn = log_progress) -> Report:
    """Run every demo step and write the report into ``outdir``."""
    outdir = Path(outdir)
    report = Report("graphanon demo report", outdir)
    report.meta.update({"graphanon_version": __version__, "seed": seed})
    ctx = DemoContext(outdir, seed, report, load_polbooks(), load_adult_sample())
    total = len(DEMO_STEPS)
    timings = {}
    for i, (name, step) in enumerate(DEMO_STEPS):
        progress("demo", i, total)
        t0 = time.perf_counter()
        section = _resolve(step)(ctx)
        timings[name] = time.perf_counter() - t0
        section.data.setdefault("seconds", timings[name])
        report.add(section)
    progress("demo", total, total)
    report.add(_outputs_section(ctx))
    report.meta["steps"] = ", ".join(name for name, _ in DEMO_STEPS)
    report.write()
    return report


def _outputs_section(ctx: DemoContext) -> Section:
    rows = [[path, where, why] for path, where, why in sorted(ctx.outputs)]
    return Section(
        title="What may be published",
        text=[
            "publish/ holds only secure releases (OpenDP noise, or verified k-anonymity with "
            "keyed per-release user pseudonyms), each with its Release record "
            "(NAME.release.json): these files may leave the organisation. operator/ holds "
            "copies of the inputs, exact statistics and releases made with the seeded, "
            "insecure noise that makes the demo reproducible: keep them in. This report is "
            "operator material as well: its tables compare releases with the true data.",
        ],
        tables=[Table(["file", "place", "why"], rows)],
        data={"outputs": [{"file": p, "place": w, "why": y} for p, w, y in ctx.outputs]},
    )
