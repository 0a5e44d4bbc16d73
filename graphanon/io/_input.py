"""Reading inputs safely: what may be read, and how much.

Every reader of graphanon opens its input through :func:`read_input_bytes` (or
:func:`_check_exists` + :func:`_read_bytes` for the graph readers): regular files and pipes
are read, directories, devices and sockets refused, a pipe without a writer ends at once
instead of hanging, and no input — or its gzip-decompressed content — may exceed
:func:`max_input_bytes`, a bound derived from the memory available (``/dev/zero`` or a gzip
bomb is refused, not read until the machine gives out).
"""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path
from typing import Any

from ..errors import InputFormatError, InvalidParameterError

__all__ = ["max_input_bytes", "read_input_bytes", "read_input_text", "read_toml"]


def _check_exists(path: str | os.PathLike[str]) -> Path:
    """The input path, if it is something graphanon can read to an end.

    Regular files and pipes (a FIFO, ``<(command)``) are read; directories, devices
    (``/dev/zero`` never ends) and sockets are refused.
    """
    import stat

    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise InvalidParameterError(f"input file {str(p)!r} does not exist.") from None
    except OSError as exc:
        raise InvalidParameterError(
            f"cannot read input {str(p)!r}: {exc.strerror or exc}.") from None
    if stat.S_ISDIR(st.st_mode):
        raise InvalidParameterError(f"input path {str(p)!r} is a directory, not a file.")
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        kind = ("a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise InvalidParameterError(
            f"input {str(p)!r} is {kind}: graphanon reads regular files and pipes.")
    return p


def max_input_bytes() -> int:
    """The most bytes an input may have (decompressed): ``GRAPHANON_MAX_INPUT_BYTES``, else a
    third of the memory available now (parsing and the CSR need about three times the text)."""
    env = os.environ.get("GRAPHANON_MAX_INPUT_BYTES")
    if env:
        try:
            return max(int(env), 1)
        except ValueError:
            raise InvalidParameterError(
                f"GRAPHANON_MAX_INPUT_BYTES must be a number of bytes. Got {env!r}.") from None
    from .._memory import available_memory

    avail = available_memory()  # MemAvailable, cgroup headroom or GRAPHANON_MEMORY_LIMIT
    return max((avail or 8 << 30) // 3, 64 << 20)


def _read_stream(fh: Any, path: Path, limit: int, what: str) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = fh.read(1 << 24)
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            raise InvalidParameterError(
                f"{str(path)!r}: {what} is larger than {limit:,} bytes, more than this machine "
                "can parse in its available memory (set GRAPHANON_MAX_INPUT_BYTES to change "
                "the limit).")
        chunks.append(chunk)


def _read_bytes(path: Path) -> bytes:
    """The bytes of an input (gzip looked through), at most :func:`max_input_bytes`."""
    import stat

    limit = max_input_bytes()
    st = os.stat(path)
    if stat.S_ISREG(st.st_mode) and st.st_size > limit:
        raise InvalidParameterError(
            f"{str(path)!r} has {st.st_size:,} bytes, more than this machine can parse in its "
            f"available memory ({limit:,}; set GRAPHANON_MAX_INPUT_BYTES to change the limit).")
    if stat.S_ISFIFO(st.st_mode):
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # no writer: EOF at once, no hang
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as fh:
            raw = _read_stream(fh, path, limit, "the stream")
    else:
        with path.open("rb") as fh:
            raw = _read_stream(fh, path, limit, "the file")
    if raw[:2] == b"\x1f\x8b":
        try:
            with gzip.open(io.BytesIO(raw), "rb") as fh:
                return _read_stream(fh, path, limit, "the decompressed content")
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise InputFormatError(
                f"{str(path)!r} is not a readable gzip file: {exc}", path=str(path)
            ) from None
    return raw



def read_input_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the input ``path`` (gzip looked through), checked as described above."""
    return _read_bytes(_check_exists(path))


def read_input_text(path: str | os.PathLike[str], *, what: str) -> str:
    """The UTF-8 text of the input ``path``; ``what`` names its layout in messages."""
    raw = read_input_bytes(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputFormatError(f"{str(path)!r} ({what}) line {line}: not valid UTF-8 text.",
                               path=str(path), line=line) from None


def read_toml(path: str | os.PathLike[str], *, what: str) -> dict[str, Any]:
    """The TOML file ``path`` as a dict (a job file, an evaluation suite), read like every
    input; ``what`` ("job file", "suite file") names it in messages."""
    import tomllib

    p = Path(path)
    try:
        text = read_input_text(p, what="TOML")
    except InvalidParameterError as exc:  # one message per kind of file
        raise InvalidParameterError(str(exc).replace("input file", what, 1)
                                    .replace("input path", what, 1)) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidParameterError(f"{what} {str(p)!r} is not valid TOML: {exc}.") from None
