"""``graphanon evaluate``: attacks, empirical privacy audits and downstream utility (glue only)."""

from __future__ import annotations

import os

import click

from ._console import echo, progress_bar, wall_seconds
from ._privacy import make_rng

__all__ = ["COMMANDS"]


@click.command("evaluate")
@click.argument("input_path", metavar="[INPUT]", required=False, default=None,
                type=click.Path(dir_okay=False))
@click.option("--suite", required=True, metavar="adult|social|FILE.toml",
              help="adult: risk, audit and classifier utility on the Adult table (INPUT: "
                   "adult.data, default the shipped 2,000-record sample); social: audit and "
                   "synthetic-graph utility on the graph INPUT; or a TOML suite file "
                   "(docs/evaluation.md).")
@click.option("--quick", is_flag=True,
              help="Small grids and fewer audit runs (a minute or two; for the demo and CI).")
@click.option("--out", "outdir", default="graphanon-eval", show_default=True,
              type=click.Path(file_okay=False),
              help="Folder for report.html, report.md, report.json and plots/.")
@click.option("--seed", type=int, default=None,
              help="Seed of everything that is not DP noise (splits, targets, anonymizers, "
                   "generation); recorded in the report. Default: a suite file's seed, else a "
                   "fresh one.")
@click.option("--noise", type=click.Choice(["opendp", "numpy-insecure"]), default=None,
              help="Noise of the audited and evaluated DP releases: opendp (secure) or seeded "
                   "numpy (reproducible, insecure). Default: a suite file's noise, else "
                   "opendp.")
def evaluate(input_path: str | None, suite: str, quick: bool, outdir: str, seed: int | None,
             noise: str | None) -> None:
    """Report re-identification risk, empirical ε lower bounds and downstream utility.

    How private, how useful: the linkage risk of the anonymized user–feature releases,
    statistically valid lower bounds on the ε of the DP mechanisms (run with OpenDP noise on
    worst-case neighbouring inputs) and what a downstream analysis loses, in one report.
    Writes OUT/report.html (with plots), OUT/report.md and OUT/report.json; the JSON lists
    claimed_epsilon and empirical_epsilon_lower_bound for every audited mechanism. All
    numbers are computed against the private input: keep the report with the operator.
    """
    from ..evaluate import resolve_suite, run_suite

    if seed is not None:
        make_rng(seed)  # validates it (non-negative)
    config = resolve_suite(suite, input_path=input_path, quick=quick, seed=seed, noise=noise)
    with progress_bar() as progress:
        report = run_suite(config, outdir, progress=progress)
    audits = report.results.get("audit", [])
    over = [a for a in audits if a.exceeds_claim and not a.control]
    controls = sum(1 for a in audits if a.control)  # counted apart, as the report does
    echo(f"wrote {os.path.join(outdir, 'report.html')} (also report.md, report.json); "
         f"seed {config.seed}; {len(audits) - controls} audits and {controls} controls, "
         f"{len(over)} audits above their claim; {wall_seconds():.0f} s")


COMMANDS = [evaluate]
