"""``graphanon info``: counts and degree statistics of a graph, bipartite list or table."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import click

from ._console import progress_task
from ._inputs import BOTH_WAYS, both_ways, cleaning_report, load_bipartite, load_graph
from ._params import FORMAT_CHOICE


@click.command("info")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=FORMAT_CHOICE, help="Graph format (default: from extension).")
@click.option("--bipartite", is_flag=True, help="PATH is a user<TAB>feature list.")
@click.option(
    "--preset",
    type=click.Choice(["adult", "playstore"]),
    help="PATH is a known table (UCI Adult, Google Play); show its user × feature graph.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def info(path: str, fmt: str | None, bipartite: bool, preset: str | None, as_json: bool) -> None:
    """Print nodes, edges, density, degree statistics and components of PATH.

    For a bipartite list (--bipartite) or a table (--preset): users, features, edges and
    the row / column degree statistics.
    """
    from ..errors import InvalidParameterError
    from ..metrics import describe_bipartite, describe_graph
    from ..reporting import to_jsonable

    clash = [opt for opt, given in (("--preset", preset), ("--bipartite", bipartite),
                                    ("--format", fmt)) if given]
    if len(clash) > 1:
        raise InvalidParameterError(
            f"The options {' and '.join(clash)} exclude each other: --preset reads a known "
            "table, --bipartite a user<TAB>feature list, --format names a graph format.")

    data: Any
    # --json keeps stdout for the JSON: no progress bar there
    step = (lambda task: contextlib.nullcontext()) if as_json else progress_task
    if preset:
        from ..io.tables import load_preset

        with step(f"reading {path}"):
            data = load_preset(path, preset)
        stats = describe_bipartite(data)
    elif bipartite:
        with step(f"reading {path}"):
            data = load_bipartite(path)
        stats = describe_bipartite(data)
    else:
        with step(f"reading {path}"):
            data = load_graph(path, fmt)
        with step("statistics"):
            stats = describe_graph(data)
    # what reading dropped, so that "degree min 0" is never a surprise
    stats.update(cleaning_report(data))
    if as_json:
        click.echo(json.dumps(to_jsonable(stats), indent=2))
        return
    width = max(len(k) for k in stats)
    click.echo(path)
    for k, v in stats.items():
        val = f"{v:.6g}" if isinstance(v, float) else str(v)
        if k == "duplicate_edges_dropped" and both_ways(data):
            val += f" ({BOTH_WAYS})"
        click.echo(f"  {k.replace('_', ' '):<{width}}  {val}")


COMMANDS = [info]
