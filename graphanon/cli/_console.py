"""What a command prints and how long it ran: ``--quiet``, messages on stderr when stdout
holds the data, progress bars, warnings after success, the wall clock."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # pragma: no cover - the CLI imports numpy and the core only when used

    from .._progress import ProgressFn


def _option(name: str) -> Any:
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        if ctx.obj and name in ctx.obj:
            return ctx.obj[name]
        ctx = ctx.parent
    return None


_STARTED: list[float] = []


def start_clock() -> None:
    """Mark the command's start (:func:`main`), for :func:`wall_seconds`."""
    import time

    _STARTED[:] = [time.perf_counter()]


def wall_seconds() -> float:
    """Seconds since the command started: the time its user waited, reading the input and
    compiling kernels included (a mechanism's own ``seconds`` count its work only)."""
    import time

    return time.perf_counter() - (_STARTED[0] if _STARTED else time.perf_counter())


def quiet() -> bool:
    return bool(_option("quiet"))


def _chatter_on_stderr() -> bool:
    """Whether a command's data goes to stdout (``--out /dev/stdout``): its messages and
    progress then go to stderr, so that stdout holds the data alone."""
    return bool(_option("stdout_is_data"))


def echo(message: str = "") -> None:
    """Print unless ``--quiet`` (on stderr when stdout holds the command's data).

    A status line nobody reads is no reason to stop: when the reader of stdout has gone
    (``... | head -1``), the command goes on with stdout pointed at ``/dev/null``."""
    if not quiet():
        try:
            click.echo(message, err=_chatter_on_stderr())
        except BrokenPipeError:
            from . import _silence_stdout

            _silence_stdout()


def warn_after_success(message: str) -> None:
    """A warning about what the command wrote, printed once its outputs are in place (a run
    that fails prints its one error line only)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        import warnings

        warnings.warn(message, stacklevel=2)
        return
    ctx.find_root().ensure_object(dict)
    ctx.find_root().obj.setdefault("output_warnings", []).append(message)


@contextlib.contextmanager
def progress_bar() -> Iterator[ProgressFn]:
    """A rich progress bar as a :data:`ProgressFn` (silent with ``--quiet``), on stderr: stdout
    is for what a command prints as its result."""
    if quiet():
        yield lambda task, done, total: None
        return
    from rich.console import Console

    class _ChatterConsole(Console):
        def on_broken_pipe(self) -> None:  # a closed stderr: stop drawing, go on working
            self.quiet = True

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=False,
        console=_ChatterConsole(stderr=True),
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(task: str, done: int, total: int) -> None:
            if task not in tasks:
                tasks[task] = bar.add_task(task, total=total)
            bar.update(tasks[task], completed=done, total=total)

        try:
            yield update
        except BaseException:  # a failed run: its error stays the one line on stderr
            bar.live.transient = True  # erased from a terminal,
            if not bar.console.is_terminal:  # and never printed to a file or a pipe
                bar.console.quiet = True
            raise


@contextlib.contextmanager
def progress_task(task: str) -> Iterator[ProgressFn]:
    """A progress bar showing the enclosed block as one step ``task`` (reading a file, one
    library call without progress of its own); yields the bar for calls that report more."""
    from .._progress import progress_step

    with progress_bar() as bar, progress_step(bar, task):
        yield bar
