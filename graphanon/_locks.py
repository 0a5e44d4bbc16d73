"""Lock files that do not outlive the run that made them.

A lock is an exclusive :func:`fcntl.flock` on a small file (``.NAME.graphanon.lock`` beside a
job, ``LEDGER.lock`` beside a privacy ledger). A lock file is removed by the run that holds
it — always (``keep=False``, the job lock), or when the run fails or is refused and it had
created the file (``keep=True``, the ledger's lock, which a run that charged leaves in place).
Removing a lock file that another process may be waiting on is safe because every locker
checks, once it holds the lock, that the path still names the file it locked, and starts
again if not (the file was removed, or replaced, by the previous holder).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["lock_file"]


def _still_named(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


@contextlib.contextmanager
def lock_file(path: Path, *, wait: bool = True, keep: bool = False) -> Iterator[int]:
    """Hold an exclusive lock on ``path`` (created if missing) for the block; yields its
    descriptor. ``wait=False`` raises :class:`BlockingIOError` at once if another process
    holds it. The file is removed when the block ends, unless ``keep`` and the block
    succeeded, or ``keep`` and the file was there before (see the module docstring).

    Raises ``OSError`` when the file cannot be created or opened."""
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            created = True
        except FileExistsError:
            try:
                fd = os.open(path, os.O_WRONLY)
            except FileNotFoundError:  # removed by its holder meanwhile: create it again
                if os.path.islink(path):  # a link to nothing is no lock file
                    raise
                continue
            created = False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BaseException:
            os.close(fd)  # (another process holds it: the file is theirs to remove)
            raise
        if _still_named(fd, path):
            break
        os.close(fd)  # the holder before us removed it: lock the file now at the path
    ok = False
    try:
        yield fd
        ok = True
    finally:
        if not keep or (created and not ok):
            with contextlib.suppress(OSError):
                os.unlink(path)  # still locked: whoever waits on it will start again
        os.close(fd)

