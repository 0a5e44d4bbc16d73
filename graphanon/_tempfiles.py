"""Temporary siblings of output files, and the cleanup of those a killed run left behind.

A temporary file of ``NAME`` is ``.NAME.graphanon-PID-RANDOM.tmp`` in the same folder (mode
0600 while being written). A process killed with ``kill -9`` cannot remove its own; the next
write of the same ``NAME`` removes every such file whose process is gone (and keeps those of
running processes). Used by every writer (:mod:`graphanon.io._atomic`) and by the privacy
ledger.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from pathlib import Path

from .errors import GraphAnonError

__all__ = ["OutputError", "new_temp", "temp_name_pattern"]


class OutputError(GraphAnonError):
    """An output could not be written (disk full, permission, ...); nothing was committed."""


def temp_name_pattern(target: str | os.PathLike[str]) -> re.Pattern[str]:
    """The names of graphanon's temporary files for ``target`` (group ``pid``)."""
    name = re.escape(Path(target).name)
    return re.compile(rf"^\.{name}\.graphanon-(?P<pid>\d+)-[0-9a-f]+\.tmp$")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale(target: Path) -> None:
    """Remove temporary files of ``target`` left by processes that no longer run."""
    pattern = temp_name_pattern(target)
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return
    for entry in entries:
        m = pattern.match(entry.name)
        if m and not _alive(int(m.group("pid"))):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def new_temp(target: Path) -> Path:
    """A new, empty temporary sibling of ``target`` (mode 0600), named so that the next
    write of ``target`` can remove it if this process dies; stale ones are removed now."""
    _remove_stale(target)
    tmp = target.parent / f".{target.name}.graphanon-{os.getpid()}-{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise OutputError(f"cannot write {str(target)!r}: {exc.strerror or exc}.") from None
    os.close(fd)
    return tmp
