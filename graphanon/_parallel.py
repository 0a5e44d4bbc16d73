"""Kernels on several cores: contiguous parts of one job on a few threads.

The linear passes of reading a graph (scanning the text, scattering pairs into rows,
transposing) are each split into contiguous parts that write to disjoint places, and the
parts run at the same time as numba kernels compiled with ``nogil=True`` on plain threads:
no process pool, no pickling, no threading layer of numba's own.

``GRAPHANON_THREADS`` (a positive integer) sets how many threads a job uses; by default, the
cores this process may run on, at most :data:`MAX_THREADS`. ``GRAPHANON_THREADS=1`` runs
every part in the calling thread, in order. Results never depend on the number of threads
(each kernel's parts are cut so that the output is the same as one pass in order; the tests
compare 1, 2 and 3 threads).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["MAX_THREADS", "THREADS_ENV", "run_parts", "threads"]

THREADS_ENV = "GRAPHANON_THREADS"
MAX_THREADS = 8


def threads() -> int:
    """The number of threads a job uses (:data:`THREADS_ENV`, else the usable cores,
    at most :data:`MAX_THREADS`)."""
    raw = os.environ.get(THREADS_ENV, "").strip()
    if raw:
        try:
            n = int(raw)
        except ValueError:
            n = 0
        if n < 1:
            from .errors import InvalidParameterError

            raise InvalidParameterError(
                f"{THREADS_ENV} must be a positive integer (the threads a job uses), got "
                f"{raw!r}.")
        return n
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover  (not on Linux)
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_THREADS))


def run_parts(fn: Callable[..., Any], parts: Sequence[tuple[Any, ...]]) -> list[Any]:
    """``[fn(*args) for args in parts]``, the parts on threads when there are several.

    ``fn`` must release the GIL (a ``nogil`` numba kernel) for the parts to overlap, and the
    parts must not write to the same places.
    """
    if len(parts) <= 1:
        return [fn(*args) for args in parts]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(parts)) as pool:
        futures = [pool.submit(fn, *args) for args in parts]
        return [f.result() for f in futures]
