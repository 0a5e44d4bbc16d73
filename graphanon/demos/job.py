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
    the seeded ``numpy-insecure`` noise, graphs derived from the exact statistics, and the
    report (``operator/report.*`` with its ``plots/``, the exact degree histogram among them):
    it holds numbers computed against the private inputs. Its section "What may be
    published" lists every file with the reason for its place.

Nothing else is written at the top of the output folder.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from .._progress import ProgressFn, log_progress
from ..datasets import load_adult_sample, load_polbooks
from ..graph import BipartiteGraph, Graph
from ..io.files import write_bipartite, write_graph
from ..metrics import describe_bipartite, describe_graph
from ..reporting import Report, Section, Table

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

    def write_record(self, path: Path, release: Any, payload: Any) -> None:
        """Write ``release``'s record, bound to the ``payload`` written at ``path``
        (:func:`graphanon.privacy.publish.bind`, so ``neo4j write-release`` takes the pair),
        next to it (``NAME.release.json``)."""

        from ..io._atomic import atomic_write_text
        from ..privacy.publish import bind

        if not release.payload_digest:
            release = bind(release, payload)
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
        ax.set_xlabel("degree (co-purchased books)")
        ax.set_ylabel("number of books (nodes)")
        ax.set_title("polbooks degree histogram (1K distribution)")

    fig = ctx.report.figure("polbooks_degrees", draw)
    return Section(
        title="Input data",
        text=[
            "Social graph: Krebs' political books co-purchase network (polbooks): a node is a "
            "book, an edge joins two books often bought together. User–feature graph: 2,000 "
            "UCI Adult records, categorical attributes one-hot (a user is linked to each of "
            "their attribute values; see graphanon/data/ATTRIBUTION.md). Both are the "
            "private inputs every section below protects; the copies in operator/data/ stay "
            "with the operator.",
        ],
        tables=[
            Table(["statistic", "polbooks"], [[k, v] for k, v in g.items()],
                  caption="polbooks (social graph)",
                  lead="Exact size and degree summary of the private social graph; degree = "
                       "number of edges of a node."),
            Table(["statistic", "adult sample"], [[k, v] for k, v in b.items()],
                  caption="Adult sample (user–feature graph)",
                  lead="Exact size of the private user–feature graph; edges are the "
                       "(user, attribute value) pairs, user degree = values per user, "
                       "feature degree = users per value."),
        ],
        figures=[(fig, "Degree histogram of polbooks: how many books have each number of "
                       "co-purchase edges")],
        data={"polbooks": g, "adult_sample": b},
    )


DemoStep = Callable[[DemoContext], Section]
# (name, "module:function"); steps are imported lazily so the demo pulls in only what runs.
DEMO_STEPS: list[tuple[str, str]] = [
    ("datasets", "graphanon.demos.job:step_datasets"),
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
    """Run every demo step and write the report into ``outdir/operator`` (operator
    material: it compares the releases with the private inputs)."""
    outdir = Path(outdir)
    report = Report("graphanon demo report", outdir / "operator")
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
    # the reader's orientation first: how to read the report, then what may leave the house
    report.sections[0:0] = [_intro_section(), _outputs_section(ctx)]
    report.add(glossary_section())
    report.meta["steps"] = ", ".join(name for name, _ in DEMO_STEPS)
    report.write()
    return report


def _intro_section() -> Section:
    return Section(
        title="How to read this report",
        text=[
            "This report is operator material: its tables and plots compare every release "
            "with the true data, and no privacy guarantee covers such comparisons. It lives in "
            "the operator/ folder and stays, like the rest of that folder, inside the "
            "organisation; only the files in publish/ "
            "may leave it — see [What may be published](#what-may-be-published) right below.",
            "Each mechanism section says what was run on which shipped sample, then gives a "
            "box for the data-protection officer (what is protected, against whom, at which "
            "ε or k, and what is not), its tables — each with one sentence on how to read "
            "it — and its plots. Terms and abbreviations are explained in the "
            "[Glossary](#glossary) at the end.",
            "The adversary assumed by every guarantee (docs/privacy.md): anyone who sees the "
            "published files and their release records, knows the code and its public "
            "parameters, and knows everything about the data except the one protected unit "
            "(an edge, a person with all their edges, a user's row). Sections marked "
            "'seeded insecure noise' use a reproducible random generator so that the demo "
            "gives the same numbers for the same --seed: they illustrate a mechanism, their "
            "outputs are never published, and they protect nothing.",
            "Errors against the truth: L1 is the sum of absolute differences between a "
            "released table and the true one; 'L1 ÷ true total' divides it by the true "
            "table's total count (books for a degree histogram, co-purchase edges for a 2K "
            "table), so 0.1 means errors adding up to a tenth of what the table counts and "
            "anything above 1 means more noise than data.",
        ],
    )


def _outputs_section(ctx: DemoContext) -> Section:
    order = sorted(ctx.outputs, key=lambda o: (o[1] != "publish", o[0]))
    rows = [[path, where, why] for path, where, why in order]
    rows.append(["operator/report.html, operator/report.md, operator/report.json, "
                 "operator/plots/", "operator",
                 "this report and its plots (the exact degree histogram among them): they "
                 "compare the releases with the true data"])
    n_pub = sum(1 for _, where, _ in ctx.outputs if where == "publish")
    return Section(
        title="What may be published",
        text=[
            "publish/ holds only secure releases (OpenDP noise, or verified k-anonymity with "
            "keyed per-release user pseudonyms), each with its Release record "
            f"(NAME.release.json): these {n_pub} files, each with its record, may leave the "
            "organisation together. They hold one release per protected data set (one 2K "
            "release of polbooks and the graph generated from it; one k-anonymous release of "
            "the Adult sample), so the folder as a whole carries the guarantee its records "
            "state: releases about the same data compose (their ε add up; k-anonymous "
            "releases of one table can be intersected). operator/ "
            "holds copies of the inputs, exact statistics, the alternative releases kept for "
            "comparison and releases made with the seeded, "
            "insecure noise that makes the demo reproducible: keep them in. This report is "
            "operator material as well: its tables compare releases with the true data.",
        ],
        for_dpo="Only the files marked 'publish' below may be handed out, each together with "
                "its .release.json record, which states the mechanism, the protected unit "
                "and ε or k; handed out together they still hold that ε or k, because each "
                "data set has one release among them. Every later release about the same "
                "data adds its ε. Everything marked 'operator' — including this report, and "
                "the comparison releases that would add to the ε or break the k — would "
                "reveal the private data or protects nothing, and must stay inside.",
        tables=[Table(["file", "place", "why"], rows,
                      lead="Every file the demo wrote, publishable ones first: 'place' says "
                           "where it is kept, 'why' the reason.")],
        data={"outputs": [{"file": p, "place": w, "why": y} for p, w, y in ctx.outputs]},
    )


def glossary_section() -> Section:
    """The glossary of the demo report (terms of every section)."""
    from .glossary import GLOSSARY

    return Section(
        title="Glossary",
        text=["One or two sentences per term, grouped by topic: privacy notions, "
              "syntactic anonymity, randomized response, dK statistics, node-DP, "
              "personalized DP, error measures, the evaluation."],
        definitions=list(GLOSSARY),
    )
