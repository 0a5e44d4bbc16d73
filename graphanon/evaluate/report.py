"""The privacy–utility–risk report of ``graphanon evaluate`` (HTML + Markdown + JSON + plots).

Built on :class:`graphanon.reporting.Report`; :meth:`EvaluationReport.json` adds top-level keys
with the raw results: ``audit`` (one entry per audited mechanism and ε, with
``claimed_epsilon`` and ``empirical_epsilon_lower_bound``), ``risk``, ``utility``, the
``suite`` configuration and ``timings``.
"""

from __future__ import annotations

import math
import os
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__
from ..graph import BipartiteGraph, Graph
from ..privacy.release import NOT_PRIVATE_NOTE
from ..reporting import Report, Section, Table, to_jsonable

__all__ = ["EvaluationReport"]

_STYLES = ["-o", "--s", ":^", "-.D", "-v", "--P", ":X", "-.*", "-h", "--<"]

#: Every mechanism keeps one colour and marker in every figure of a report (and of the demo's):
#: the known names in a fixed order over a colour-blind-safe palette (Paul Tol's), distinct
#: within each family that shares a figure (user × feature; graph releases); the social
#: suite's names are the audit's mechanisms under other names; the rest by a stable hash.
_KNOWN_MECHANISMS = (
    ("smooth-k", "suppress", "mondrian", "b-anonymize", "randomized-response"),
    ("dk1-laplace", "dk2-laplace", "dk2-mdav", "dk2-mpdc", "theta-dk1-ead", "theta-dk2-ead",
     "hay-constrained-inference", "pdp-min-dk1", "pdp-ll-dk1", "pdp-ag-dk1",
     "pdp-min-dk1-node", "dk2-edge-thresholded", "pdp-st-dk2", "private-partition",
     "node-degrees", "community-edges", "bounded-triangles", "edge-total",
     "smooth-triangles", "degree-cdf"),
)
_ALIASES = {"dk1-edge": "dk1-laplace", "dk2-edge": "dk2-laplace", "dk2-mpdc-edge": "dk2-mpdc",
            "theta-dk1-node": "theta-dk1-ead", "theta-dk2-node": "theta-dk2-ead",
            "randomized response": "randomized-response"}
_PALETTE = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#332288",
            "#117733", "#882255", "#44aa99", "#999933", "#cc6677", "#88ccee", "#ddcc77",
            "#000000", "#bbbbbb", "#ee7733", "#009988", "#aa4499", "#771155")
_MARKERS = "osD^vP<X>hp*d8"


def mechanism_style(name: str) -> dict[str, Any]:
    """``{"color", "marker"}`` of a mechanism, the same in every figure: the name before
    ``" ("``, ``" ε="`` or ``", "`` (its setting) counts; a control is red crosses."""
    base = name.split(" (")[0].split(" ε=")[0].split(", ")[0].strip()
    base = _ALIASES.get(base, base)
    if "CONTROL" in base:
        return {"color": "red", "marker": "x"}
    for family in _KNOWN_MECHANISMS:
        if base in family:
            i = family.index(base)
            return {"color": _PALETTE[i], "marker": _MARKERS[i % len(_MARKERS)]}
    h = zlib.crc32(base.encode("utf-8"))
    return {"color": _PALETTE[h % len(_PALETTE)], "marker": _MARKERS[h % len(_MARKERS)]}


def release_verdict(r: Any, original: dict[str, Any], *, max_degree: int, theta: int) -> str:
    """One sentence on whether a synthetic graph is still useful (evaluation only: it reads
    the original's statistics): its size against the input's, and whether a public degree
    bound below the input's largest degree caps the degree distribution (then more ε does
    not help: top-coding, not noise, is the error)."""
    if not r.n_nodes:
        return "no graph generated"
    m0, n0 = max(int(original["n_edges"]), 1), max(int(original["n_nodes"]), 1)
    dmax = max(len(original.get("degree_histogram", [])) - 1, 0)
    bound = None if r.epsilon is None else theta if r.neighbourhood == "node" else max_degree
    out = []
    ratio = r.n_edges / m0
    if not 1 / 1.5 <= ratio <= 1.5:
        out.append(f"{r.n_nodes:,} nodes and {r.n_edges:,} edges for the input's {n0:,} and "
                   f"{m0:,} ({ratio:.2g}× the edges): counts and paths are off")
    if bound is not None and dmax > bound and r.degree_ks >= 0.2:
        out.append(f"degrees above the public bound {bound} are cut (input maximum {dmax}): "
                   "more ε will not fix the degree distribution; raise the bound")
    if not out:
        out.append("close to the input in size"
                   + (" and degrees" if r.degree_ks < 0.1 else "; degrees differ (KS "
                      f"{r.degree_ks:.2g})"))
    return "; ".join(out) + "."


def _distinct_colors(n: int) -> list[Any]:
    """``n`` colours of one hue ramp, all distinct (one per ε of a sweep)."""
    import matplotlib

    cmap = matplotlib.colormaps["viridis"]
    return [cmap(x) for x in np.linspace(0.1, 0.85, max(n, 1))]


def _panels(report: Report, name: str, n: int, draw: Callable[[Sequence[Any]], None], *,
            size: tuple[float, float], columns: int | None = None) -> str:
    """A figure of ``n`` panels (in rows of ``columns``, default all in one row) through
    :meth:`Report.figure`."""
    cols = n if columns is None else columns
    rows = -(-n // cols)

    def inner(ax: Any) -> None:
        fig = ax.get_figure()
        fig.delaxes(ax)
        axes = np.atleast_1d(fig.subplots(rows, cols)).ravel()
        for extra in axes[n:]:
            extra.axis("off")
        draw(list(axes[:n]))

    return report.figure(name, inner, size=size)


def _log2_axis(ax: Any, ticks: Sequence[float]) -> None:
    """Log-2 x axis with the grid values as plain tick labels."""
    from matplotlib.ticker import NullFormatter

    ax.set_xscale("log", base=2)
    ax.set_xticks(list(ticks))
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.xaxis.set_minor_formatter(NullFormatter())


def _r(x: Any, nd: int = 3) -> Any:
    if x is None:
        return "–"
    if isinstance(x, float):
        return "nan" if math.isnan(x) else round(x, nd)
    return x


class EvaluationReport(Report):
    """Sections built from the results of :func:`graphanon.evaluate.run_suite`."""

    def __init__(self, config: Any, outdir: str | os.PathLike[str]) -> None:
        super().__init__(f"graphanon evaluate: {config.name}", Path(outdir))
        self.config = config
        self.results: dict[str, Any] = {}
        self.timings: dict[str, float] = {}
        self.dataset: dict[str, Any] = {}
        self.meta.update({"graphanon_version": __version__, "suite": config.name,
                          "dataset": config.dataset, "input": config.input or "shipped sample",
                          "seed": config.seed, "noise": config.noise,
                          "quick": config.quick})

    # ------------------------------------------------------------------ datasets
    def add_dataset_adult(self, B: BipartiteGraph, y: Any) -> None:
        self.dataset = {"kind": "adult", "n_users": B.n_users, "n_features": B.n_features,
                        "n_cells": B.n_edges, "positive_rate": float(np.mean(y))}

    def add_dataset_social(self, G: Graph) -> None:
        self.dataset = {"kind": "social", "n_nodes": G.n_nodes, "n_edges": G.n_edges,
                        "max_degree": int(G.degrees.max(initial=0))}

    # ------------------------------------------------------------------ sections
    def build(self) -> None:
        """Turn the results into sections and plots (call once, before :meth:`write`)."""
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
        self.meta["seconds"] = round(self.timings.get("total", 0.0), 1)
        self.meta["load_average_1min_at_end"] = round(load, 2)
        intro = [
            "Three views of the same mechanisms: how often an adversary re-identifies someone "
            "in a release (risk), whether the noise behaves as the claimed ε says (an "
            "empirical lower bound on ε), and what a downstream analysis loses (utility).",
            "Every number below is computed against the private input; the report is for "
            "the operator and is not covered by any release's guarantee. " + NOT_PRIVATE_NOTE,
            "This page is self-contained (plots embedded); the same plots are PNG files in "
            "plots/, linked from report.md. Terms are explained in the "
            "[Glossary](#glossary) at the end.",
        ]
        self.add(Section("Setup", text=intro,
                         tables=[Table(["key", "value"], [[k, v] for k, v in
                                                          self.dataset.items()],
                                       caption="Dataset",
                                       lead="Size of the private input (exact)."),
                                 Table(["part", "seconds"],
                                       [[k, round(v, 1)] for k, v in self.timings.items()],
                                       caption="Timings",
                                       lead="Wall time of each part in seconds on this "
                                            "machine (operator information).")],
                         data={"dataset": self.dataset, "timings": self.timings}))
        if "risk" in self.results:
            self._risk_section(self.results["risk"])
        if "audit" in self.results:
            self._audit_section(self.results["audit"])
        if "utility_adult" in self.results:
            self._adult_section(self.results["utility_adult"])
        if "utility_social" in self.results:
            self._social_section(self.results["utility_social"])
        from ..demos.glossary import EVALUATION_TERMS, glossary

        self.add(Section("Glossary", text=["The terms this report uses, one or two sentences "
                                           "each."],
                         definitions=glossary(EVALUATION_TERMS)))

    def _risk_section(self, rows: list[Any]) -> None:
        cfg = self.config.risk
        qmax = max(cfg.qs)
        ks = list(cfg.ks)
        mid_k = ks[len(ks) // 2]
        by = {(r.mechanism, r.parameter.split(" (")[0], r.q): r for r in rows}

        subset = next((r.mechanism for r in rows if r.mechanism.startswith("original (")),
                      None)
        rr_colors = _distinct_colors(len(cfg.rr_epsilons))

        def draw_k(ax: Any) -> None:
            for i, mech in enumerate(("smooth-k", "suppress", "mondrian", "b-anonymize")):
                key = "δ" if mech == "b-anonymize" else "k"
                ys = [by[(mech, f"{key}={k}", qmax)].mean_link_probability
                      if (mech, f"{key}={k}", qmax) in by else np.nan for k in ks]
                ax.plot(ks, ys, _STYLES[i][:-1], label=mech, **mechanism_style(mech))
            ax.plot(ks, [1.0 / k for k in ks], "k--", lw=1, label="bound 1/k")
            if ("original", "-", qmax) in by:
                ax.axhline(by[("original", "-", qmax)].mean_link_probability, color="black",
                           lw=1, label="original data")
            if subset is not None and (subset, "-", qmax) in by:
                ax.axhline(by[(subset, "-", qmax)].mean_link_probability,
                           color=mechanism_style("b-anonymize")["color"],
                           lw=1, ls="--", label=f"{subset} (b-anonymize's baseline)")
            for j, e in enumerate(cfg.rr_epsilons):
                r = by.get(("randomized-response", f"ε={e:g}", qmax))
                if r is not None:
                    ax.axhline(r.mean_link_probability, ls=":", lw=1.2,
                               label=f"randomized response ε={e:g}",
                               color=rr_colors[j % len(rr_colors)])
            _log2_axis(ax, ks)
            ax.set_yscale("log")
            ax.set_xlabel("k (δ for b-anonymize)")
            ax.set_ylabel(f"mean P(correct link), q={qmax} known features")
            ax.set_title("Re-identification risk vs k")
            ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))

        def draw_q(ax: Any) -> None:
            qs = list(cfg.qs)
            series = [("original", "-"), ("smooth-k", f"k={mid_k}"), ("suppress", f"k={mid_k}"),
                      ("mondrian", f"k={mid_k}"), ("b-anonymize", f"δ={mid_k}")]
            if subset is not None:
                series.append((subset, "-"))
            series += [("randomized-response", f"ε={e:g}") for e in cfg.rr_epsilons]
            for i, (mech, param) in enumerate(series):
                ys = [by[(mech, param, q)].mean_link_probability if (mech, param, q) in by
                      else np.nan for q in qs]
                ax.plot(qs, ys, _STYLES[i % len(_STYLES)], label=f"{mech} {param}".strip(" -"))
            ax.set_yscale("log")
            ax.set_xticks(qs)
            ax.set_xlabel("q (features the adversary knows)")
            ax.set_ylabel("mean P(correct link)")
            ax.set_title(f"Risk vs adversary knowledge (k = δ = {mid_k})")
            ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))

        f1 = self.figure("risk_vs_k", draw_k, size=(9.5, 4.5))
        f2 = self.figure("risk_vs_q", draw_q, size=(9.5, 4.5))
        from .risk import RISK_HEADER, risk_table

        self.add(Section(
            "Re-identification risk (linkage with q known features)",
            text=[
                f"{rows[0].n_targets if rows else 0} targets per q, each with q features drawn "
                "from their true features. The candidate set C is the set of released rows "
                "the adversary cannot rule out (suppression: a known value may be missing but "
                "not replaced; b-anonymize: * matches anything; smooth-k: the best-matching "
                "rows, since a majority release may add and remove features; randomized "
                "response: the exact posterior, |C| = its perplexity). P(link) = 1/|C| if the "
                "target is in C (else 0), or the posterior of the target's row.",
                "'bound' is the theoretical guarantee: 1/k for k-anonymity, 1/δ_i for "
                "b-matching; for edge-DP randomized response only a model bound "
                "1/(1+(n−1)e^(−2mε)) over the m cells the adversary knows, which is vacuous "
                "once m·ε is a few units — randomized response at large ε protects against "
                "linkage no better than publishing the data.",
            ],
            tables=[Table(RISK_HEADER, [[_r(x) for x in row] for row in risk_table(rows)],
                          caption="Risk per mechanism, setting and q",
                          lead="Per release and number q of known features: median |C| = "
                               "rows the adversary cannot rule out, 'frac |C| < level' = "
                               "share of targets with fewer candidates than the promised "
                               "k or δ_i, 'singled out' = share left with exactly their own "
                               "row, mean P(link) against 'bound' (the guarantee; 1 = "
                               "none).")],
            figures=[(f1, "Mean correct-link probability vs k, strongest adversary"),
                     (f2, "Mean correct-link probability vs q")],
            data={"rows": [r.to_dict() for r in rows]}))

    def _audit_section(self, results: list[Any]) -> None:
        real = [r for r in results if not r.control]
        violations = [r for r in real if r.exceeds_claim or r.pair_exceeds_claim]
        caught = [r for r in results if r.control and r.exceeds_claim]

        def draw(ax: Any) -> None:
            names = sorted({r.mechanism for r in results})
            top = max([r.claimed_epsilon for r in results] + [1.0])
            ax.plot([0, top], [0, top], "k--", lw=1, label="claimed ε (y = x)")
            for i, name in enumerate(names):
                pts = sorted((r.claimed_epsilon, r.empirical_epsilon_lower_bound)
                             for r in results if r.mechanism == name)
                ax.plot([p[0] for p in pts], [p[1] for p in pts],
                        _STYLES[i % len(_STYLES)][:-1], label=name, ms=4,
                        **mechanism_style(name))
            ax.set_xlabel("claimed ε")
            ax.set_ylabel("empirical ε lower bound")
            ax.set_title("Empirical vs claimed ε (OpenDP noise)" if results
                         and results[0].backend == "opendp" else "Empirical vs claimed ε")
            ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))

        fig = self.figure("audit_epsilon", draw, size=(10, 5))
        rows = [[r.mechanism, r.command, r.neighbourhood, _r(r.claimed_epsilon),
                 _r(r.empirical_epsilon_lower_bound), _r(r.ratio),
                 _r(r.pair_epsilon), r.sensitivity if r.sensitivity is not None else "–",
                 r.pair, r.backend, r.n_eval,
                 "CONTROL: caught" if r.control and r.exceeds_claim else
                 "CONTROL: NOT caught" if r.control else
                 "EXCEEDS CLAIM" if r.exceeds_claim else
                 "PAIR EXCEEDS CLAIM" if r.pair_exceeds_claim else "ok"] for r in results]
        text = [
            "Each DP mechanism is run on a neighbouring pair that stresses it (joined stars for "
            "the edge-DP dK releases, hubs for node-DP, an edge of the node with the smallest "
            "ε for personalized DP, one cell / one row for randomized response), chosen among "
            "the worst cases its sensitivity derivation names and, for the edge and node "
            "releases, random small neighbouring graphs that no derivation names. The real "
            "release function makes its noise call; the audit repeats exactly that call — "
            "the mechanism's own statistic, sensitivity and ε — n times in the backend "
            "(randomized response is run n times directly). A threshold test on the "
            "likelihood-ratio statistic, chosen on separate runs, gives Clopper–Pearson upper "
            "bounds on its false positive and false negative rates, hence a lower bound on ε "
            "valid with the stated confidence.",
            "'pair ε' is the privacy loss that the mechanism's own calibration allows on this "
            "pair (Σ|Δ|/scale): the best an audit of this pair can reach. Where it is below "
            "the claim (θ-dK 2K: the hub pair changes 2θ²−θ of the θ(2θ+1) bound) the pair "
            "does not reach the sensitivity; elsewhere the gap between the lower bound and "
            "the claim is statistical and shrinks with n. A pair ε above the claim proves a "
            "leak outright ('PAIR EXCEEDS CLAIM': the derivation missed that pair).",
            "What the audit cannot see: a wrong sensitivity derivation whose worst case is "
            "none of the audited pairs. The control (half the sensitivity) shows that the "
            "test detects noise scaled below the mechanism's own calibration; it says nothing "
            "about the derivation. A lower bound below the claim is consistent with the "
            "claim and never proves it; the guarantees rest on the derivations and their "
            "brute-force sensitivity audits (docs/privacy.md).",
            f"Confidence: {self.config.audit.confidence:.0%} family-wise — each of the "
            f"{len(real)} audits of real mechanisms runs at "
            f"{results[0].confidence if results else 1.0:.5g} (Bonferroni), so with that "
            "probability no lower bound in this table exceeds the true ε of its mechanism. "
            f"Result: {len(violations)} of {len(real)} audits of real mechanisms exceed their "
            f"claim" + (" — investigate: " + ", ".join(r.mechanism for r in violations)
                        if violations else "") +
            f"; the deliberately mis-calibrated control is caught in {len(caught)} of "
            f"{len(results) - len(real)} runs.",
        ]
        self.add(Section(
            "Empirical privacy audit (lower bounds on ε)", text=text,
            tables=[Table(["mechanism", "command", "neighbourhood", "claimed ε",
                           "empirical ε ≥", "ratio", "pair ε", "sensitivity used", "pair",
                           "backend", "runs", "verdict"], rows,
                          lead="One row per mechanism and claimed ε: 'empirical ε ≥' is a "
                               "lower bound valid with the stated confidence — above the "
                               "claim it proves a leak ('EXCEEDS CLAIM'), below it is "
                               "consistent with the claim; 'pair ε' is the most this pair "
                               "can show (above the claim: 'PAIR EXCEEDS CLAIM'); the "
                               "control must be caught.")],
            figures=[(fig, "Empirical lower bound vs claimed ε, one curve per mechanism")],
            data={"mechanisms": [r.to_dict() for r in results]}))

    def _adult_section(self, scores: list[Any]) -> None:
        cfg = self.config.utility
        classifiers = list(cfg.classifiers)
        base = {c: next((s for s in scores if s.mechanism == "original" and s.classifier == c),
                        None) for c in classifiers}

        def draw_k(axes: Sequence[Any]) -> None:
            for ax, metric in zip(axes, ("auc", "accuracy"), strict=True):
                for i, mech in enumerate(("smooth-k", "suppress", "mondrian", "b-anonymize")):
                    pts = [(int(s.parameter.split("=")[1]), getattr(s, metric)) for s in scores
                           if s.mechanism == mech and s.classifier == classifiers[0]]
                    pts.sort()
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], _STYLES[i][:-1],
                            label=mech, **mechanism_style(mech))
                b = base[classifiers[0]]
                if b is not None:
                    ax.axhline(getattr(b, metric), color="grey", lw=1, label="original")
                _log2_axis(ax, cfg.ks)
                ax.set_xlabel("k (δ for b-anonymize)")
                ax.set_ylabel(f"test {metric} ({classifiers[0]})")
                ax.legend(fontsize=7)

        def draw_e(axes: Sequence[Any]) -> None:
            for ax, metric in zip(axes, ("auc", "accuracy"), strict=True):
                for i, c in enumerate(classifiers):
                    pts = sorted((float(s.parameter.split("=")[1]), getattr(s, metric))
                                 for s in scores
                                 if s.mechanism == "randomized-response" and s.classifier == c)
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], _STYLES[i],
                            label=f"randomized response, {c}")
                    b = base[c]
                    if b is not None:
                        ax.axhline(getattr(b, metric), ls=_STYLES[i][:-1] or "-", color="grey",
                                   lw=1, label=f"original, {c}")
                _log2_axis(ax, cfg.epsilons)
                ax.set_xlabel("ε (edge-DP, per cell)")
                ax.set_ylabel(f"test {metric}")
                ax.legend(fontsize=7)

        f1 = _panels(self, "utility_adult_vs_k", 2, draw_k, size=(10, 4))
        f2 = _panels(self, "utility_adult_vs_epsilon", 2, draw_e, size=(10, 4))
        rows = []
        for s in scores:
            b = base.get(s.classifier)
            rows.append([s.mechanism, s.parameter, s.classifier, _r(s.accuracy), _r(s.auc),
                         _r(s.auc - b.auc) if b is not None and not math.isnan(s.auc) else "–",
                         s.n_train, _r(s.seconds, 1), s.notes])
        self.add(Section(
            "Downstream utility: income classifier on anonymized Adult",
            text=[
                "Users are split (stratified, seeded) into training and test parts; only the "
                "training features are anonymized (labels are kept, as in the smooth-k "
                "paper's Figure 4); the classifier is trained on the anonymized features and "
                "tested on the original test features. b-anonymize's masked cells (*) are "
                "read as absent. Randomized response is edge-DP per cell (a user's row of |F| "
                "cells costs |F|·ε).",
            ],
            tables=[Table(["mechanism", "setting", "classifier", "accuracy", "AUC",
                           "AUC − original", "train users", "seconds", "notes"], rows,
                          lead="Test accuracy and AUC of a classifier trained on each "
                               "release; 'AUC − original' is the loss against training on "
                               "the true data (0 = no loss).")],
            figures=[(f1, "Test AUC / accuracy vs k"), (f2, "Test AUC / accuracy vs ε")],
            data={"scores": [s.to_dict() for s in scores]}))

    def _social_section(self, res: dict[str, Any]) -> None:
        orig, rows = res["original"], res["rows"]
        cfg = self.config.utility
        metrics = [("size", "nodes ÷ original nodes"),
                   ("degree_ks", "degree KS (↓)"), ("avg_clustering", "avg clustering"),
                   ("assortativity", "assortativity"), ("avg_path_length", "avg path length"),
                   ("lcc_fraction", "largest component share")]
        ref = next((r for r in rows if r.epsilon is None), None)

        n0 = max(int(orig["n_nodes"]), 1)

        def value(r: Any, key: str) -> float:
            if key == "size":  # synthetic nodes / original nodes (nan if not generated)
                return r.n_nodes / n0 if r.n_nodes else math.nan
            return float(getattr(r, key))

        def draw(axes: Sequence[Any]) -> None:
            mechs = [m for m in cfg.mechanisms]
            for ax, (key, label) in zip(axes, metrics, strict=False):
                for i, m in enumerate(mechs):
                    pts = sorted((r.epsilon, value(r, key)) for r in rows
                                 if r.mechanism == m and r.epsilon is not None)
                    ax.plot([p[0] for p in pts], [p[1] for p in pts],
                            _STYLES[i % len(_STYLES)][:-1], label=m, ms=4,
                            **mechanism_style(m))
                if key == "size":
                    ax.set_yscale("log")
                    ax.axhline(1.0, color="black", lw=1, label="original")
                elif key != "degree_ks":
                    ax.axhline(orig[key], color="black", lw=1, label="original")
                if ref is not None:
                    ax.axhline(value(ref, key), color="grey", ls="--", lw=1,
                               label="exact 2K (no privacy)")
                _log2_axis(ax, cfg.epsilons)
                ax.set_xlabel("ε")
                ax.set_title(label, fontsize=9)
            handles, labels = axes[2].get_legend_handles_labels()
            axes[-1].axis("off")  # the last panel holds the legend
            axes[-1].legend(handles, labels, fontsize=9, loc="center")

        # two rows of four: readable at page width (one row of seven was not)
        fig = _panels(self, "utility_social_vs_epsilon", len(metrics) + 1,
                      draw, size=(13, 6.4), columns=4)
        table = [["original", "–", "–", orig["n_nodes"], orig["n_edges"], 0.0,
                  _r(orig["avg_clustering"]), _r(orig["assortativity"]),
                  _r(orig["avg_path_length"], 2), _r(orig["lcc_fraction"]), ""]]
        for r in rows:
            table.append([r.mechanism, r.neighbourhood, "–" if r.epsilon is None else r.epsilon,
                          r.n_nodes, r.n_edges, _r(r.degree_ks), _r(r.avg_clustering),
                          _r(r.assortativity), _r(r.avg_path_length, 2), _r(r.lcc_fraction),
                          release_verdict(r, orig, max_degree=cfg.max_degree,
                                          theta=cfg.theta), r.notes])
        self.add(Section(
            "Downstream utility: synthetic graphs from released 1K / 2K",
            text=[
                "Each release is turned into a synthetic graph (dK-graph generation) and "
                "compared with the original. Public parameters: degree bound h = "
                f"{cfg.max_degree} (edge-DP and personalized releases; larger degrees are "
                f"top-coded), θ = {cfg.theta} (node-DP EAD projection), MPDC τ = "
                f"{cfg.mpdc_tau}; dk2-edge is the plain release (every domain cell noised, "
                "negative counts clipped), dk2-edge-thresholded keeps the cells above the "
                "public default τ = ⌈b·ln N⌉ (sampled form). Personalized: ST-dK under "
                "edge-PDP with the "
                "thesis's preference mix (54 % at 0.01ε, 37 % at 0.2ε, 9 % at ε).",
                "The exact-2K row shows what the generator itself preserves: 2K fixes the "
                "degree correlations but not clustering. A noisy release's clustering may "
                "land above that row (another 2K table gives other graphs), which is chance, "
                "not triangles recovered.",
            ],
            tables=[Table(["release", "neighbourhood", "ε", "nodes", "edges", "degree KS",
                           "avg clustering", "assortativity", "avg path", "LCC share",
                           "verdict", "notes"], table,
                          lead="One synthetic graph per release and ε, compared with the "
                               "original (first row): the closer each statistic is to the "
                               "original's, the more useful the release; degree KS 0 = same "
                               "degree distribution.")],
            figures=[(fig, "Synthetic-graph statistics vs ε, one curve per mechanism")],
            data={"original": {k: v for k, v in orig.items() if k != "degree_histogram"},
                  "rows": [r.to_dict() for r in rows]}))

    # ------------------------------------------------------------------ JSON
    def json(self) -> dict[str, Any]:
        out = super().json()
        res = self.results
        out["suite"] = to_jsonable(self.config.to_dict())
        out["timings"] = to_jsonable(self.timings)
        out["not_private"] = NOT_PRIVATE_NOTE
        out["audit"] = [to_jsonable(r.to_dict()) for r in res.get("audit", [])]
        out["risk"] = [to_jsonable(r.to_dict()) for r in res.get("risk", [])]
        util: dict[str, Any] = {}
        if "utility_adult" in res:
            util["adult"] = [to_jsonable(s.to_dict()) for s in res["utility_adult"]]
        if "utility_social" in res:
            so = res["utility_social"]
            util["social"] = {
                "original": to_jsonable({k: v for k, v in so["original"].items()
                                         if k != "degree_histogram"}),
                "rows": [to_jsonable(r.to_dict()) for r in so["rows"]]}
        out["utility"] = util
        return out
