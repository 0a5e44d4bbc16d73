"""Progress reporting without a UI dependency in the library.

Library functions that can run for more than a second accept ``progress``: a callable
``progress(task, done, total)``. The default logs at DEBUG level; the CLI passes a rich
progress bar (see :mod:`graphanon.cli._common`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

__all__ = ["ProgressFn", "log_progress"]

ProgressFn = Callable[[str, int, int], None]
_log = logging.getLogger("graphanon")


def log_progress(task: str, done: int, total: int) -> None:
    """Default progress sink: a DEBUG log line."""
    _log.debug("%s: %d/%d", task, done, total)
