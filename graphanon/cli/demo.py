"""``graphanon demo``: the main job on the embedded default."""

from __future__ import annotations

import os

import click

from ._console import echo, progress_bar
from ._privacy import make_rng


@click.command("demo")
@click.option(
    "--out",
    "outdir",
    default="graphanon-out",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Folder for outputs and the report.",
)
@click.option("--seed", type=int, default=None,
              help="Seed of the demo's sampling and of the sections that use the seeded "
                   "numpy-insecure noise (reproducible there); sections with secure OpenDP "
                   "noise differ from run to run by design.")
def demo(outdir: str, seed: int | None) -> None:
    """Run every mechanism on shipped sample data (polbooks, UCI Adult) with sensible defaults.

    Writes publish/ (the secure releases with their records) and operator/ (everything
    else, the report included: operator/report.html with its plots, report.md,
    report.json) into the output folder. No database needed.
    """
    from ..demos.job import run_demo

    _, seed = make_rng(seed)
    with progress_bar() as progress:
        report = run_demo(outdir, seed=seed, progress=progress)
    echo(f"wrote {len(report.sections)} report sections to "
         f"{os.path.join(outdir, 'operator', 'report.html')} "
         f"(also report.md, report.json); seed {seed}")


COMMANDS = [demo]
