"""Stop signals in the command's own process, and the critical sections that defer them.

``graphanon`` (the console script) routes SIGINT, SIGTERM and SIGHUP through
:func:`on_signal`: outside a critical section it raises at once (``KeyboardInterrupt`` for
Ctrl-C, :class:`Terminated` for the others), so the command unwinds, removes its temporaries
and the folders it created, and exits ``128 + signal``. Inside :func:`deferred` — the commit
of an output transaction: the ledger charge and the renames that put every output in place —
the signal is remembered and raised when the section ends, so a run is stopped either before
anything is published or after all of it, never between two renames. A library user's process
keeps its own handlers: nothing here is installed unless the CLI asks (:func:`install`).
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from typing import Any

__all__ = ["Terminated", "deferred", "install"]


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP (``docker stop``, systemd, ``timeout``, a closed terminal): stops the
    command the way Ctrl-C does."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_depth = 0
_pending: int | None = None


def _raise(signum: int) -> None:
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def on_signal(signum: int, _frame: Any) -> None:
    """The handler: raise now, or at the end of the current critical section."""
    global _pending
    if _depth:
        if _pending is None:
            _pending = signum
        return
    _raise(signum)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """A critical section: a stop signal that arrives inside it is raised when it ends (after
    the block succeeded; if the block failed, its own error wins)."""
    global _depth, _pending
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
    if _depth == 0 and _pending is not None:
        signum, _pending = _pending, None
        _raise(signum)


def install() -> None:
    """In the command's own process: SIGINT, SIGTERM and SIGHUP go through
    :func:`on_signal` (a handler someone else installed is left alone)."""
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is None:
            continue
        current = signal.getsignal(sig)
        if current in (signal.SIG_DFL, None) or current is signal.default_int_handler:
            signal.signal(sig, on_signal)
