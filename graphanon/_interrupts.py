"""Stop signals in the command's own process, and the critical sections that defer them.

``graphanon`` (the console script) routes SIGINT, SIGTERM and SIGHUP through
:func:`on_signal`: outside a critical section it raises at once (``KeyboardInterrupt`` for
Ctrl-C, :class:`Terminated` for the others), so the command unwinds, removes its temporaries
and the folders it created, and exits ``128 + signal``. Inside :func:`deferred` — the renames
that put a run's outputs in place, which never block — the signal is remembered: if the
renames complete, the run has completed, and the stop is reported by :func:`completed_stop`
(the CLI exits 0 and says so) instead of raising; if they fail, the failure is what is
reported. A run is thus stopped before anything is published or after all of it, and a
scheduler is never told that a completed run failed. Only the main thread defers; a library
user's process keeps its own handlers: nothing here is installed unless the CLI asks
(:func:`install`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["Terminated", "completed_stop", "deferred", "install"]


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP (``docker stop``, systemd, ``timeout``, a closed terminal): stops the
    command the way Ctrl-C does."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_depth = 0
_pending: int | None = None
_completed: int | None = None


def _raise(signum: int) -> None:
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


#: Folders of the packages whose code cannot take an exception raised by a signal handler:
#: numba's compiler and llvmlite run Python code called back from C, where a ``ctypes``
#: callback prints and drops it (the run would go on) and a dispatcher turns it into
#: ``SystemError: CPUDispatcher(...) returned a result with an exception set``.
_UNINTERRUPTIBLE = tuple(f"{os.sep}{name}{os.sep}" for name in ("numba", "llvmlite"))
#: How long a stop that arrived inside them waits before it is delivered again.
REDELIVER_S = 0.05


def _in_compiler(frame: Any) -> bool:
    while frame is not None:
        if any(part in frame.f_code.co_filename for part in _UNINTERRUPTIBLE):
            return True
        frame = frame.f_back
    return False


def on_signal(signum: int, frame: Any) -> None:
    """The handler: raise now, or remember the signal for the end of the critical section.
    A signal that arrives while numba compiles or loads a kernel is sent again a moment
    later (:data:`REDELIVER_S`), until it finds the command's own code running."""
    global _pending
    if _depth:
        if _pending is None:
            _pending = signum
        return
    if _in_compiler(frame):
        timer = threading.Timer(REDELIVER_S, os.kill, (os.getpid(), signum))
        timer.daemon = True
        timer.start()
        return
    _raise(signum)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """A critical section of the main thread (elsewhere: no deferral). A stop signal that
    arrives inside it does not interrupt it; if the block completes, the stop is recorded
    for :func:`completed_stop`, and if it fails, its own error is what propagates."""
    global _depth, _pending, _completed
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _depth += 1
    ok = False
    try:
        yield
        ok = True
    finally:
        _depth -= 1
        if _depth == 0:
            signum, _pending = _pending, None
            if ok and signum is not None and _completed is None:
                _completed = signum


def completed_stop() -> int | None:
    """The stop signal that arrived while a run's outputs were put in place, which then
    completed (``None`` if none did)."""
    return _completed


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
