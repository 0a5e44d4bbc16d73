"""The ``graphanon`` command line.

Glue only: parse options, read inputs, call the library, write outputs. Every
:class:`~graphanon.errors.GraphAnonError` becomes one line on stderr and its exit code
(2 bad input, 3 privacy budget refused, 4 database unavailable); no traceback.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Sequence

import click

from .._version import __version__
from ..errors import GraphAnonError
from ._common import guard_paths

__all__ = ["cli", "main"]

# Each module defines COMMANDS, a list of click commands. Later features add their module here.
COMMAND_MODULES = (
    "info", "demo", "anonymity", "bmatching", "privacy", "dk", "nodedp", "personalized",
    "neo4j", "run", "evaluate",
)


class _DaskChatter(logging.Filter):
    """Drops the INFO/DEBUG records of Dask and its servers (cluster start and stop, worker
    registration, ...) unless ``--log-level info`` or ``debug`` asked for them: Dask sets its
    own loggers to INFO when it is imported, so the root level alone does not silence them."""

    PREFIXES = ("distributed", "tornado", "bokeh")

    def filter(self, record: logging.LogRecord) -> bool:
        return (record.levelno >= logging.WARNING
                or record.name.split(".", 1)[0] not in self.PREFIXES)


_DASK_CHATTER = _DaskChatter()


@click.group(
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    help=(
        "graphanon publishes graphs and graph statistics privately: k-anonymity for "
        "user-feature graphs, differentially private degree and joint-degree statistics, "
        "and synthetic graphs, from files or Neo4j.\n\n"
        "Start with 'graphanon demo' (no arguments: runs every mechanism on shipped sample "
        "data and writes a report into ./graphanon-out/), or 'graphanon info FILE' to look "
        "at a graph."
    ),
)
@click.option(
    "-q", "--quiet", is_flag=True, help="No progress bars or chatter; errors still print."
)
@click.option(
    "--log-level",
    type=click.Choice(["warning", "info", "debug"], case_sensitive=False),
    default="warning",
    show_default=True,
    help="Library log level (to stderr).",
)
@click.version_option(__version__, prog_name="graphanon")
@click.pass_context
def cli(ctx: click.Context, quiet: bool, log_level: str) -> None:
    ctx.ensure_object(dict)
    ctx.obj["quiet"] = quiet
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        if log_level.lower() == "warning":
            handler.addFilter(_DASK_CHATTER)
        else:
            handler.removeFilter(_DASK_CHATTER)
    if log_level.lower() != "debug":  # the driver's own connection errors would add lines
        logging.getLogger("neo4j").setLevel(logging.CRITICAL)


def _guard_all(cmd: click.Command) -> click.Command:
    if isinstance(cmd, click.Group):
        for sub in cmd.commands.values():
            _guard_all(sub)
        return cmd
    return guard_paths(cmd)


for _name in COMMAND_MODULES:
    for _cmd in importlib.import_module(f".{_name}", __name__).COMMANDS:
        cli.add_command(_guard_all(_cmd))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run the CLI and map errors to exit codes."""
    try:
        rv = cli.main(args=list(argv) if argv is not None else None, standalone_mode=False,
                      prog_name="graphanon")
    except GraphAnonError as exc:
        click.echo(f"graphanon: error: {_printable(str(exc))}", err=True)
        return _exit(exc.exit_code, argv)
    except (MemoryError, OverflowError) as exc:  # a parameter asked for more than fits
        click.echo("graphanon: error: the input or a parameter asks for more than this machine "
                   f"can hold ({type(exc).__name__}: {_printable(str(exc))}); use smaller "
                   "bounds.", err=True)
        return _exit(2, argv)
    except click.exceptions.Abort:
        click.echo("graphanon: aborted", err=True)
        return _exit(130, argv)
    except click.ClickException as exc:
        exc.show()
        return _exit(exc.exit_code, argv)
    except OSError as exc:  # unwritable output folder, disk full, ...
        click.echo(f"graphanon: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
                   err=True)
        return _exit(2, argv)
    except KeyboardInterrupt:
        click.echo("graphanon: interrupted", err=True)
        return _exit(130, argv)
    code = rv if isinstance(rv, int) else 0
    return _exit(code, argv)


def _printable(message: str, limit: int = 600) -> str:
    """One line: control characters (binary garbage from a bad file) escaped, length capped."""
    out = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message.replace("\n", " "))
    return out if len(out) <= limit else out[: limit - 1] + "…"


def _exit(code: int, argv: Sequence[str] | None) -> int:
    if argv is None:  # called as the console script
        sys.exit(code)
    return code
