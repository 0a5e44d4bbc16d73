"""The ``graphanon`` command line.

Glue only: parse options, read inputs, call the library, write outputs. Every
:class:`~graphanon.errors.GraphAnonError` becomes one line on stderr and its exit code
(2 bad input, 3 privacy budget refused, 4 database unavailable); no traceback.
"""

from __future__ import annotations

import gc
import importlib
import logging
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import click

from .._interrupts import Terminated
from .._version import __version__
from ..errors import GraphAnonError
from ..registry import commands

__all__ = ["COMMANDS", "cli", "main"]

#: Every command: name -> (module of graphanon.cli defining it, one-line help shown by
#: ``graphanon --help``), from the one table of :mod:`graphanon.registry`. A command's module
#: is imported only when that command runs (or its own --help is asked for), so the CLI
#: starts without numpy, pyarrow, numba, OpenDP, matplotlib or the Neo4j driver.
#: tests/test_cli_startup.py checks the one-liners against the commands' docstrings.
COMMANDS: dict[str, tuple[str, str]] = commands()


class _LazyGroup(click.Group):
    """A group whose commands are imported on first use (see :data:`COMMANDS`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        if cmd_name not in self.commands:
            module = importlib.import_module(f".{COMMANDS[cmd_name][0]}", __name__)
            for cmd in module.COMMANDS:
                if cmd.name in COMMANDS and cmd.name not in self.commands:
                    self.add_command(_guard_all(cmd))
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: Any) -> None:
        rows = [(name, help_) for name, (_, help_) in sorted(COMMANDS.items())]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


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
    cls=_LazyGroup,
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
@click.option(
    "--skip-bad-rows", is_flag=True,
    help="Skip (and count) malformed rows of text inputs — a wrong number of fields, an "
    "empty id — instead of stopping at the first one with its line number.",
)
@click.version_option(__version__, prog_name="graphanon")
@click.pass_context
def cli(ctx: click.Context, quiet: bool, log_level: str, skip_bad_rows: bool) -> None:
    ctx.ensure_object(dict)
    ctx.obj["quiet"] = quiet
    ctx.obj["skip_bad_rows"] = skip_bad_rows
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        if log_level.lower() == "warning":
            handler.addFilter(_DASK_CHATTER)
        else:
            handler.removeFilter(_DASK_CHATTER)
    if log_level.lower() != "debug":  # the driver's own connection errors would add lines
        logging.getLogger("neo4j").setLevel(logging.CRITICAL)


def _guard_all(cmd: click.Command) -> click.Command:
    from ._guard import guard_paths

    if isinstance(cmd, click.Group):
        for sub in cmd.commands.values():
            _guard_all(sub)
        return cmd
    return guard_paths(cmd)


class _SkipBlasProbe:
    """One-shot import hook: runs the module ``numba.np.arraymath`` with
    ``scipy.linalg.cython_blas`` marked absent (see :func:`_own_process`)."""

    ARRAYMATH, BLAS = "numba.np.arraymath", "scipy.linalg.cython_blas"

    @classmethod
    def find_spec(cls, name: str, path: Any = None, target: Any = None) -> Any:
        if name != cls.ARRAYMATH:
            return None
        sys.meta_path.remove(cls)
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or "scipy.linalg" in sys.modules:
            return spec
        run = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            sys.modules[cls.BLAS] = None  # type: ignore[assignment]  # importing it: ImportError
            try:
                run(module)
            finally:
                del sys.modules[cls.BLAS]

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


#: The collector's thresholds in the command's own process (:func:`_own_process`).
GC_THRESHOLDS = (50_000, 50, 100)


def _own_process() -> None:
    """Start-up setting for a process the ``graphanon`` command owns: ``main()`` called
    without ``argv`` (the console script), never a program or a test calling :func:`main`.

    numba's first kernel load (cached or compiled) imports ``numba.np.arraymath``, whose
    module code tries ``import scipy.linalg.cython_blas`` only to decide whether its
    ``np.convolve`` / ``np.correlate`` call BLAS; that imports all of ``scipy.linalg``, about
    0.15 s. No graphanon kernel uses those (nor ``np.dot`` / ``np.linalg``, which look for BLAS
    again when compiled), so :class:`_SkipBlasProbe` lets the probe fail; ``scipy.linalg``
    itself still imports normally for the code that needs it. The probe's flag is
    process-wide, hence only for the command's own process.

    The cyclic garbage collector runs less often (:data:`GC_THRESHOLDS`): a command's start
    imports numba, llvmlite and pyarrow and loads cached kernels, hundreds of thousands of
    long-lived container objects, and Python's default thresholds (700, 10, 10) walk all of
    them again in full collections as they arrive, 0.05 to 0.15 s of a light command. Cycles
    are still collected; a young collection comes every 50,000 new containers.
    """
    _open_closed_std_streams()
    gc.set_threshold(*GC_THRESHOLDS)
    if "numba.np.arraymath" not in sys.modules and _SkipBlasProbe not in sys.meta_path:
        sys.meta_path.insert(0, _SkipBlasProbe)
    from .. import _igraph, _interrupts

    _igraph.cli_process()  # igraph without matplotlib.pyplot: 0.7 s of a command's start
    _interrupts.install()  # SIGTERM / SIGHUP stop a command as Ctrl-C does


def _open_closed_std_streams() -> None:
    """A command started with stdin, stdout or stderr closed (``graphanon ... >&-``) gets
    ``/dev/null`` there: what it would print is dropped (its exit code still tells the
    outcome), and no file it opens can take descriptor 0, 1 or 2 and receive its messages."""
    import os

    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        from ..io import _atomic

        _atomic.CLOSED_AT_START.add(fd)  # no output may be written through it
        null = os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: fd itself
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        setattr(sys, name, open(fd, mode, encoding="utf-8", closefd=False))


def _show_warning(seen: set[str]) -> Any:
    """``warnings.showwarning`` for a command: a warning no command reported itself is one
    ``graphanon: warning:`` line on stderr (once per message), not Python's two lines with
    the library's source line."""

    def show(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
             line: Any = None) -> None:
        text = str(message)
        if text not in seen:
            seen.add(text)
            click.echo(f"graphanon: warning: {_printable(text)}", err=True)

    return show


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run the CLI and map errors to exit codes."""
    from ._console import start_clock

    start_clock()
    if argv is None:
        _own_process()
    try:
        _check_environment()
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning(set())
            rv = cli.main(args=list(argv) if argv is not None else None,
                          standalone_mode=False, prog_name="graphanon")
    except GraphAnonError as exc:
        click.echo(f"graphanon: error: {_printable(str(exc))}", err=True)
        return _exit(exc.exit_code, argv)
    except Warning as exc:  # a warning the user's filters turned into an error
        click.echo(f"graphanon: error: {_printable(str(exc))}", err=True)
        return _exit(2, argv)
    except (MemoryError, OverflowError) as exc:  # a parameter asked for more than fits
        click.echo("graphanon: error: the input or a parameter asks for more than this machine "
                   f"can hold ({type(exc).__name__}: {_printable(str(exc))}); use smaller "
                   "bounds.", err=True)
        return _exit(2, argv)
    except click.exceptions.Abort as exc:  # click's wrapper of KeyboardInterrupt
        if isinstance(exc.__cause__, Terminated):
            return _terminated(exc.__cause__, argv)
        click.echo("graphanon: aborted", err=True)
        return _exit(130, argv)
    except click.ClickException as exc:
        # one line naming the command, the option and the value (click's own usage errors
        # print three: usage, a hint, the error)
        where = ""
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            where = f"{exc.ctx.command_path}: "
        click.echo(f"graphanon: error: {where}{_printable(exc.format_message())}"
                   + (f" (see '{exc.ctx.command_path} --help')"
                      if isinstance(exc, click.UsageError) and exc.ctx is not None else ""),
                   err=True)
        return _exit(exc.exit_code, argv)
    except BrokenPipeError:  # `graphanon info ... | head -1`: the reader has what it wanted
        _silence_stdout()
        return _exit(0, argv)
    except SystemExit:
        # click turns EPIPE on stdout into exit 1 after wrapping stdout; a closed pipe is a
        # normal end for us
        if type(sys.stdout).__name__.endswith("PacifyFlushWrapper"):  # click 8.1 / 8.2 names
            _silence_stdout()
            return _exit(0, argv)
        raise
    except OSError as exc:  # unwritable output folder, disk full, ...
        click.echo(f"graphanon: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
                   err=True)
        return _exit(2, argv)
    except Terminated as exc:
        return _terminated(exc, argv)
    except SystemError as exc:
        # a stop signal raised while a compiled kernel's dispatcher ran comes out as
        # "SystemError: CPUDispatcher(...) returned a result with an exception set"
        cause = _stop_in(exc)
        if isinstance(cause, Terminated):
            return _terminated(cause, argv)
        if cause is None:
            raise
        click.echo("graphanon: interrupted", err=True)
        return _exit(130, argv)
    except KeyboardInterrupt:
        click.echo("graphanon: interrupted", err=True)
        return _exit(130, argv)
    code = rv if isinstance(rv, int) else 0
    from .. import _interrupts

    stop = _interrupts.completed_stop()
    if stop is not None:  # it came while the outputs were renamed into place
        import signal

        click.echo(f"graphanon: note: {signal.Signals(stop).name} arrived while the outputs "
                   "were being put in place; the run completed first.", err=True)
    return _exit(code, argv)


#: The environment variables graphanon reads: their names' prefixes.
ENV_PREFIXES = ("GRAPHANON_", "NEO4J_")


def _check_environment() -> None:
    """Refuse a graphanon or Neo4j environment variable that is not UTF-8 text (its bytes
    decode to lone surrogates): one line naming it, before anything is read or written."""
    import os

    from ..errors import InvalidParameterError

    for name, value in sorted(os.environ.items()):
        if not name.startswith(ENV_PREFIXES):
            continue
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidParameterError(
                f"the environment variable {name} holds bytes that are not UTF-8 text "
                f"({value!a}); "
                "set it to UTF-8 text.") from None


def _stop_in(exc: BaseException) -> KeyboardInterrupt | None:
    """The stop (Ctrl-C, SIGTERM, SIGHUP) an exception was raised from, if any."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def _terminated(exc: Terminated, argv: Sequence[str] | None) -> int:
    import signal

    click.echo(f"graphanon: terminated ({signal.Signals(exc.signum).name})", err=True)
    return _exit(128 + exc.signum, argv)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _printable(message: str, limit: int = 600) -> str:
    """One line: control characters (binary garbage from a bad file) escaped, length capped."""
    flat = message.replace("\n\t", " ").replace("\n", " ")  # click lists choices on lines
    out = "".join(c if c.isprintable() else repr(c)[1:-1] for c in flat)
    return out if len(out) <= limit else out[: limit - 1] + "…"


def _exit(code: int, argv: Sequence[str] | None) -> int:
    if argv is None:  # called as the console script
        # The interpreter's shutdown runs the cyclic garbage collector over the whole heap
        # several times: 0.2 s and more once numba's registries are loaded. Frozen objects are
        # left to the process's exit instead. atexit handlers still run and the standard
        # streams are still flushed; the commands close their output files themselves.
        gc.freeze()
        try:  # flushed here, where a reader that stopped reading can be told from an error
            sys.stdout.flush()
        except BrokenPipeError:  # `graphanon info g.txt | head -1`: a normal end
            _silence_stdout()
        except (OSError, ValueError):
            pass
        sys.exit(code)
    return code
