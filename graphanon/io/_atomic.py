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
substitution ``/dev/fd/N``) and the process's own descriptors (``/dev/stdout``, ``/dev/fd/N``,
``/proc/self/fd/N``, whatever they are open on: a regular file too) are never renamed over:
the finished temporary file, kept in the system's temporary folder, is copied into them at
commit time (opened before the ``before_commit`` hooks, so that a pipe's reader is waited
for before the ledger is charged; written after them, and a write that fails then says that
the charge was made) (an own descriptor is written through, sharing its offset with the process's
other writes to it). A symbolic link to a file is written through: the file it points to is
replaced, the link stays. A target that is an existing directory is refused. Missing parent
folders of a target are created (documented behaviour of every ``--out`` option).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .._tempfiles import OutputError, new_temp, temp_name_pattern
from ..errors import InvalidParameterError

__all__ = ["OutputError", "atomic_path", "atomic_write_text", "can_write_in_place", "new_temp",
           "output_transaction", "own_descriptor", "temp_name_pattern", "writes_in_place"]


#: The standard descriptors that were closed when the command started (reopened on
#: /dev/null by the CLI): ``--out /dev/stdout`` then has no reader, and is refused.
CLOSED_AT_START: set[int] = set()


class _Transaction:
    def __init__(self) -> None:
        self.staged: list[tuple[Path, Path]] = []
        self.before_commit: list[Callable[[], None]] = []
        self.made: list[Path] = []  # folders its writes created, parents first
        self.inputs: set[str] = set()  # real paths no write may replace (a job's source)

    def commit(self) -> None:
        """The hooks (the ledger charge), the copies into non-regular targets, then the
        renames. Those may wait (a ledger lock, a pipe nobody reads) and stay interruptible;
        a stop signal during the renames, which never wait, is deferred
        (:func:`graphanon._interrupts.deferred`), so a run is stopped before anything is
        renamed into place or after all of it."""
        from .._interrupts import deferred

        in_place = [st for st in self.staged if writes_in_place(st[1])]
        with contextlib.ExitStack() as stack:
            # a device or pipe is opened before the hooks (a pipe waits for its reader here:
            # a run stopped while it waits has charged nothing) and written after them
            opened = {target: stack.enter_context(_open_in_place(target))
                      for _, target in in_place}
            for hook in self.before_commit:
                hook()
            # copies into non-regular targets (/dev/full, a pipe) can still fail: do them
            # first, then the renames, which do not fail on one file system
            try:
                for tmp, target in in_place:
                    _install(tmp, target, opened[target])
                    self.staged.remove((tmp, target))
            except OutputError as exc:
                if not self.before_commit:
                    raise
                raise OutputError(
                    f"{exc} The privacy ledger was charged before it failed (a device or "
                    "pipe is written only after the charge, so that a refused charge "
                    "publishes nothing): the ε stays spent.") from None
        with deferred():
            for tmp, target in list(self.staged):
                _install(tmp, target)
                self.staged.remove((tmp, target))

    def rollback(self) -> None:
        for tmp, _ in self.staged:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        self.staged.clear()
        for folder in reversed(self.made):  # the folders made for the outputs, if empty
            with contextlib.suppress(OSError):
                folder.rmdir()
        self.made.clear()


_TX: contextvars.ContextVar[_Transaction | None] = contextvars.ContextVar(
    "graphanon_output_transaction", default=None)


@contextlib.contextmanager
def output_transaction(*, own: bool = False) -> Iterator[_Transaction]:
    """Commit every :func:`atomic_path` write of the block together, or none of them.

    Nested blocks join the outermost transaction, unless ``own``: then the block commits its
    writes itself when it ends (a job, which logs what it wrote only once it is in place).
    ``tx.before_commit.append(fn)`` registers a hook that runs after every file was written
    and before any is renamed into place (the CLI charges the privacy ledger there); if it
    raises, nothing is committed.
    """
    outer = _TX.get()
    if outer is not None and not own:
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


def _own_fd(target: str | os.PathLike[str]) -> int | None:
    """The descriptor of this process that ``target`` names (``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/self/fd/N``, ``/proc/thread-self/fd/N``), else None. Its folder is resolved as
    the kernel resolves it (links first, then ``..``); its own name is not followed (the
    descriptor's link points at what the descriptor is open on)."""
    path = os.fspath(target)
    folder = os.path.realpath(os.path.dirname(path) or ".")
    name = os.path.basename(path)
    std = {"stdin": 0, "stdout": 1, "stderr": 2}
    if folder == "/dev" and name in std:
        return std[name]
    pid = os.getpid()
    if re.fullmatch(rf"/proc/{pid}(?:/task/[0-9]+)?/fd", folder) and name.isdigit():
        return int(name)
    return None


def _resolve(target: Path) -> Path:
    """``target`` with its symbolic links followed, as the kernel follows them (a file is
    written through its links), or the first of the process's own descriptors on the way
    (``/dev/stdout`` -> ``/proc/self/fd/1`` is written through the descriptor, whatever it
    is open on)."""
    path = os.fspath(target)
    for _ in range(40):
        if _own_fd(path) is not None:
            return Path(path)
        if not os.path.islink(path):
            break
        # the link's text is relative to its folder as the kernel resolves that folder
        path = os.path.join(os.path.realpath(os.path.dirname(path) or "."), os.readlink(path))
    else:
        raise OutputError(f"cannot write {str(target)!r}: too many levels of symbolic links.")
    return Path(os.path.realpath(target))


def own_descriptor(target: str | os.PathLike[str]) -> int | None:
    """The process's own descriptor that ``target`` writes through (links followed), if any:
    1 for ``--out /dev/stdout``."""
    try:
        return _own_fd(_resolve(Path(target)))
    except OutputError:
        return None


def can_write_in_place(target: str | os.PathLike[str]) -> bool:
    """Whether an in-place target (:func:`writes_in_place`) takes writes: an own descriptor
    opened for writing (``/dev/stdin`` usually is not), or a file this user may write."""
    fd = own_descriptor(target)
    if fd is None:
        return os.access(target, os.W_OK)
    if fd in CLOSED_AT_START:
        return False
    import fcntl

    try:
        return fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY
    except OSError:  # not open
        return False


def writes_in_place(target: str | os.PathLike[str]) -> bool:
    """Whether ``target`` is written in place (copied into), not replaced by a rename: one
    of the process's own descriptors, or an existing file that is not a regular file
    (symbolic links followed)."""
    if own_descriptor(target) is not None:
        return True
    try:  # (stat follows the links as the kernel does)
        return not stat.S_ISREG(os.stat(target).st_mode)
    except OSError:
        return False


def creatable_reason(target: str | os.PathLike[str]) -> str | None:
    """Why ``target`` (a file to be created, with any missing parent folders) cannot be
    written, or ``None``: a trailing separator (a folder name), a ``.gz`` name (outputs are
    not compressed), a parent that is a file, or a folder this process cannot create files
    in (probed with a temporary file in the nearest existing ancestor)."""
    import tempfile

    value = os.fspath(target)
    if (value.endswith(os.sep) or (os.altsep and value.endswith(os.altsep))
            or os.path.basename(value) in (".", "..")):
        return "the name ends with a path separator, '.' or '..', so it names a folder; name a file"
    if value.lower().endswith(".gz"):
        return ("graphanon writes its outputs uncompressed; drop the '.gz' (and compress "
                "the file afterwards)")
    parent = Path(os.path.realpath(value)).parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        return f"{str(parent)!r} is not a folder"
    try:
        fd, probe = tempfile.mkstemp(prefix=".graphanon-probe.", dir=parent)
    except OSError as exc:
        return str(exc.strerror or exc)
    os.close(fd)
    os.unlink(probe)
    return None


@contextlib.contextmanager
def _open_in_place(target: Path) -> Iterator[Any]:
    """An in-place target (:func:`writes_in_place`) opened for writing; ``None`` for one of
    the process's own descriptors, which is written through as it is."""
    if _own_fd(target) is not None:
        yield None
        return
    try:
        fh = open(target, "wb", buffering=0)  # (a failed write is not retried at close)
    except OSError as exc:
        raise OutputError(f"cannot write {str(target)!r}: {exc.strerror or exc}.") from None
    with contextlib.closing(fh):
        yield fh


def _install(tmp: Path, target: Path, opened: Any = None) -> None:
    """Put the finished temporary file in place: rename, or copy into a non-regular file
    (``opened``: that file, already opened by :func:`_open_in_place`)."""
    try:
        if opened is not None:
            with open(tmp, "rb") as src:
                while chunk := src.read(1 << 20):
                    view = memoryview(chunk)
                    while view:
                        view = view[opened.write(view):]
            tmp.unlink()
            return
        fd = _own_fd(target)
        if fd is not None:  # through the descriptor, after what the process wrote to it
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            with open(tmp, "rb") as src:
                while chunk := src.read(1 << 20):
                    view = memoryview(chunk)
                    while view:
                        view = view[os.write(fd, view):]
            tmp.unlink()
            return
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
    target = _resolve(Path(path))
    _check_target(target)
    tx = _TX.get()
    if tx is not None and str(target) in tx.inputs:
        raise InvalidParameterError(
            f"the output {str(path)!r} is an input of this run; it would be overwritten.")
    if writes_in_place(target):  # (a device's folder may not take files)
        tmp = new_temp(Path(tempfile.gettempdir()) / target.name)
    else:
        missing = [d for d in reversed(target.parents) if not d.exists()]
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(
                f"cannot create the folder of {str(target)!r}: {exc.strerror or exc}.") from None
        if tx is not None:
            tx.made.extend(missing)
        tmp = new_temp(target)
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
        from .._interrupts import deferred

        if writes_in_place(target):  # a pipe may wait for its reader: stays interruptible
            _install(tmp, target)
        else:
            with deferred():
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
