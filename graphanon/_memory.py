"""How much memory this process may still use, and refusing work that would not fit.

Algorithms whose memory is driven by a parameter or an input (a degree bound, a table naming
huge degrees, a file size) estimate their peak *before* they start and call
:func:`require_memory`. It compares the estimate with :func:`available_memory`, the smallest
of

* ``MemAvailable`` of ``/proc/meminfo`` (what the kernel can give without swapping),
* the headroom of this process's cgroup: ``memory.max − memory.current`` (cgroup v2) or
  ``memory.limit_in_bytes − memory.usage_in_bytes`` (cgroup v1), for the cgroup of this
  process and each of its ancestors that sets a limit,

and raises :class:`~graphanon.errors.InvalidParameterError` (exit code 2 on the command line)
with one line naming what drives the estimate. The environment variable
``GRAPHANON_MEMORY_LIMIT`` (a size such as ``512MiB``, ``4G`` or a number of bytes, binary units;
``unlimited`` turns the checks off) replaces the detected value — for tests, and for users who
know better than the heuristics.

The estimates are deliberately simple (bytes per node, per edge, per table cell, measured on
the 10M-edge benchmark of ``scripts/bench_memory.py``); they are meant to catch orders of
magnitude (a table that implies 10⁹ nodes), not to predict the peak to the megabyte.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from .errors import InvalidParameterError

__all__ = [
    "ENV_VAR",
    "available_memory",
    "format_bytes",
    "parse_size",
    "require_memory",
]

ENV_VAR = "GRAPHANON_MEMORY_LIMIT"
_UNLIMITED = 1 << 60  # cgroup "no limit" values are about 2**63; anything this large is none
#: Estimates below this are not checked against the detected memory (reading /proc and the
#: cgroup files costs ~0.2 ms, more than the work it would guard); an explicit
#: GRAPHANON_MEMORY_LIMIT is always applied.
NEGLIGIBLE_BYTES = 32 * 2**20
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}  # binary, as --memory-limit
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?(?:[eE][0-9]+)?)\s*([KMGTkmgt]?)(?:[iI]?[bB])?\s*$")
_log = logging.getLogger("graphanon.memory")


def parse_size(value: str | int, name: str = ENV_VAR) -> int:
    """Bytes of a size like ``4GiB``, ``512 MB``, ``1e9`` or ``123456``.

    Units are binary (``4G`` = ``4GB`` = ``4GiB`` = 4·2³⁰ bytes), as for the Neo4j reads'
    ``--memory-limit``.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a positive size.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        if value > 0:
            return value
    elif isinstance(value, str):
        match = _SIZE.match(value)
        if match and match.group(2).upper() in _UNITS:
            size = int(float(match.group(1)) * _UNITS[match.group(2).upper()])
            if size > 0:
                return size
    raise InvalidParameterError(
        f"{name} must be a positive size like '4GiB', '512MB' or a number of bytes. "
        f"Got {value!r} instead."
    )


def format_bytes(n: float) -> str:
    """``1.5 GiB``, ``12.0 MiB``, ``300 B``."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} B"


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    if not text or text == "max":
        return None
    try:
        value = int(text)
    except ValueError:
        return None
    return None if value >= _UNLIMITED else value


def _meminfo_available(path: Path = Path("/proc/meminfo")) -> int | None:
    try:
        for line in path.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_dirs(root: Path, rel: str) -> list[Path]:
    """The cgroup folder of this process and its ancestors (innermost first) that exist."""
    parts = [p for p in rel.strip("/").split("/") if p]
    dirs = [root.joinpath(*parts[:i]) for i in range(len(parts), -1, -1)]
    return [d for d in dirs if d.is_dir()]


def _cgroup_headroom(proc_cgroup: Path = Path("/proc/self/cgroup"),
                     root: Path = Path("/sys/fs/cgroup")) -> int | None:
    """Smallest ``limit − usage`` over the cgroups (v2 or v1) of this process, if any."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return None
    best: int | None = None
    for line in lines:
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        _, controllers, rel = fields
        if controllers == "":  # cgroup v2 unified hierarchy
            base, limit_name, usage_name = root, "memory.max", "memory.current"
        elif "memory" in controllers.split(","):
            base = root / "memory"
            limit_name, usage_name = "memory.limit_in_bytes", "memory.usage_in_bytes"
        else:
            continue
        for d in _cgroup_dirs(base, rel):
            limit = _read_int(d / limit_name)
            if limit is None:
                continue
            usage = _read_int(d / usage_name) or 0
            room = max(limit - usage, 0)
            best = room if best is None else min(best, room)
    return best


def available_memory() -> int | None:
    """Bytes this process may still allocate, or ``None`` when nothing is known or the
    checks are turned off (``GRAPHANON_MEMORY_LIMIT=unlimited``).

    ``GRAPHANON_MEMORY_LIMIT`` replaces the detection; otherwise the smaller of
    ``MemAvailable`` and the cgroup headroom (see the module docstring).
    """
    env = os.environ.get(ENV_VAR)
    if env is not None and env.strip():
        if env.strip().lower() in ("unlimited", "none", "off"):
            return None
        return parse_size(env.strip())
    found = [v for v in (_meminfo_available(), _cgroup_headroom()) if v is not None]
    return min(found) if found else None


def require_memory(estimate_bytes: float, *, what: str, parameter: str) -> None:
    """Refuse work whose estimated memory exceeds what this process may still use.

    Parameters
    ----------
    estimate_bytes
        Estimated additional peak memory of the work, in bytes.
    what
        The work, for the message (``"generate_2k"``, ``"reading 'g.txt'"``).
    parameter
        What drives the estimate, for the message (``"the table's implied node count
        (1,000,000,001)"``, ``"the file size (12.0 GiB)"``).

    Raises
    ------
    InvalidParameterError
        If ``estimate_bytes`` is larger than :func:`available_memory`. Estimates below
        :data:`NEGLIGIBLE_BYTES` pass unchecked unless ``GRAPHANON_MEMORY_LIMIT`` is set.
    """
    if estimate_bytes < NEGLIGIBLE_BYTES and not os.environ.get(ENV_VAR, "").strip():
        return
    avail = available_memory()
    _log.debug("%s: estimated %s, available %s", what, format_bytes(estimate_bytes),
               "unknown" if avail is None else format_bytes(avail))
    if avail is None or estimate_bytes <= avail:
        return
    source = f"{ENV_VAR}" if os.environ.get(ENV_VAR, "").strip() else "free memory"
    raise InvalidParameterError(
        f"{what} would need about {format_bytes(estimate_bytes)} of memory, driven by "
        f"{parameter}; only {format_bytes(avail)} is available ({source}). Use a smaller "
        f"input or parameter, or set {ENV_VAR} to override the limit."
    )
