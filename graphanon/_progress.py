"""Progress reporting without a UI dependency in the library.

Library functions that can run for more than a second accept ``progress``: a callable
``progress(task, done, total)``. The default logs at DEBUG level; the CLI passes a rich
progress bar (see :mod:`graphanon.cli._console`). A step of unknown length (reading a file,
one library call) is reported with :func:`progress_step`: ``0/1`` when it starts, ``1/1``
when it ends, and an INFO log line with its duration.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator

__all__ = ["ProgressFn", "log_progress", "progress_step"]

ProgressFn = Callable[[str, int, int], None]
_log = logging.getLogger("graphanon")


def log_progress(task: str, done: int, total: int) -> None:
    """Default progress sink: a DEBUG log line."""
    _log.debug("%s: %d/%d", task, done, total)


@contextlib.contextmanager
def progress_step(progress: ProgressFn, task: str) -> Iterator[None]:
    """Report the enclosed block as one step ``task`` (``0/1`` then ``1/1``), logged at INFO."""
    t0 = time.perf_counter()
    _log.info("%s ...", task)
    progress(task, 0, 1)
    yield
    progress(task, 1, 1)
    _log.info("%s: done in %.1f s", task, time.perf_counter() - t0)
