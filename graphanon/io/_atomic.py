"""Atomic file output, alone or as one transaction of several files.

Every writer of graphanon goes through :func:`atomic_path`: it yields a temporary sibling of
the target, and the target is replaced by a rename only when the write succeeded, so a
failed or killed write never leaves a partial file under the target's name.

Inside :func:`output_transaction` the renames are deferred: every file of a command (data,
report, plots) is first written to its temporary sibling, then the transaction's
``before_commit`` hooks run (the privacy-ledger charge), and only then are all files renamed
into place. An error anywhere — a full disk while writing the report, a refused budget —
removes every temporary file and leaves every target as it was.

Temporary files are named ``.NAME.graphanon-PID-RANDOM.tmp`` next to ``NAME`` (mode 0600
while being written). A process killed with ``kill -9`` cannot remove its own; the next write
of the same target removes every such file whose process is gone.

Targets that exist and are not regular files (``/dev/null``, a FIFO, a terminal, a process
substitution ``/dev/fd/N``) are never renamed over: the finished temporary file is copied
into them at commit time. A target that is an existing directory is refused. Missing parent
folders of a target are created (documented behaviour of every ``--out`` option).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from .._tempfiles import OutputError, new_temp, temp_name_pattern
from ..errors import InvalidParameterError

__all__ = ["OutputError", "atomic_path", "atomic_write_text", "new_temp", "output_transaction",
           "temp_name_pattern"]


class _Transaction:
    def __init__(self) -> None:
        self.staged: list[tuple[Path, Path]] = []
        self.before_commit: list[Callable[[], None]] = []

    def commit(self) -> None:
        for hook in self.before_commit:
            hook()
        # copies into non-regular targets (/dev/full, a pipe) can still fail: do them first,
        # then the renames, which do not fail on one file system
        for tmp, target in sorted(self.staged, key=lambda st: _is_file_or_missing(st[1])):
            _install(tmp, target)
            self.staged.remove((tmp, target))

    def rollback(self) -> None:
        for tmp, _ in self.staged:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        self.staged.clear()


_TX: contextvars.ContextVar[_Transaction | None] = contextvars.ContextVar(
    "graphanon_output_transaction", default=None)


@contextlib.contextmanager
def output_transaction() -> Iterator[_Transaction]:
    """Commit every :func:`atomic_path` write of the block together, or none of them.

    Nested blocks join the outermost transaction. ``tx.before_commit.append(fn)`` registers
    a hook that runs after every file was written and before any is renamed into place (the
    CLI charges the privacy ledger there); if it raises, nothing is committed.
    """
    outer = _TX.get()
    if outer is not None:
        yield outer
        return
    tx = _Transaction()
    token = _TX.set(tx)
    try:
        yield tx
        tx.commit()
    except BaseException:
        tx.rollback()
        raise
    finally:
        _TX.reset(token)


def _check_target(target: Path) -> None:
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(f"cannot write {str(target)!r}: {exc.strerror or exc}.") from None
    if stat.S_ISDIR(st.st_mode):
        raise InvalidParameterError(
            f"the output {str(target)!r} is an existing folder; name a file.")


def _is_file_or_missing(target: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(target).st_mode)
    except OSError:
        return True


def _install(tmp: Path, target: Path) -> None:
    """Put the finished temporary file in place: rename, or copy into a non-regular file."""
    try:
        try:
            st = os.stat(target)
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            with open(tmp, "rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            tmp.unlink()
            return
        os.chmod(tmp, _final_mode(target))  # mkstemp-like 0600 → the mode open() would give
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise OutputError(f"cannot write {str(target)!r}: {exc.strerror or exc}.") from None


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; on success it replaces ``path`` atomically.

    On any exception the temporary file is removed and ``path`` is left untouched, so a
    failed write never leaves a partial output behind. Inside :func:`output_transaction`
    the replacement waits for the transaction's commit.

    Raises
    ------
    InvalidParameterError
        ``path`` is an existing folder.
    OutputError
        The file could not be written (its message names ``path``).
    """
    target = Path(path)
    _check_target(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(
            f"cannot create the folder of {str(target)!r}: {exc.strerror or exc}.") from None
    tmp = new_temp(target)
    tx = _TX.get()
    try:
        yield tmp
    except OSError as exc:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        if exc.filename not in (None, str(tmp)):
            raise  # about another file (an input): its own message names it
        raise OutputError(f"cannot write {str(target)!r}: {exc.strerror or exc}.") from None
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    if tx is not None:
        tx.staged.append((tmp, target))
    else:
        _install(tmp, target)


def _final_mode(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it where Linux allows (thread-safe)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    umask = os.umask(0)
    os.umask(umask)
    return umask


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
