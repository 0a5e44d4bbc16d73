"""Reading inputs safely: what may be read, and how much.

Every reader of graphanon opens its input through :func:`read_input_bytes` (or
:func:`_check_exists` + :func:`_read_bytes` for the graph readers): regular files and pipes
are read, directories, devices and sockets refused, a pipe without a writer ends at once
instead of hanging, and no input — or its gzip-decompressed content — may exceed
:func:`max_input_bytes`, a bound derived from the memory available (``/dev/zero`` or a gzip
bomb is refused, not read until the machine gives out).

The bound is one estimate for every reader: an input of ``b`` bytes (decompressed) needs
about ``b × READ_FACTORS[kind]`` bytes of memory while it is read, so the most it may have
is the available memory divided by that factor. Text is checked as it streams in (pipes and
gzip included), before a byte is parsed; binary formats, which their libraries read from the
path, by their file size (:func:`check_input_size`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import InputFormatError, InvalidParameterError

__all__ = ["READ_FACTORS", "check_input_size", "max_input_bytes", "read_input_bytes",
           "read_input_text", "read_toml"]


def _check_exists(path: str | os.PathLike[str]) -> Path:
    """The input path, if it is something graphanon can read to an end.

    Regular files and pipes (a FIFO, ``<(command)``) are read; directories, devices
    (``/dev/zero`` never ends) and sockets are refused.
    """
    import stat

    from .._validation import check_path_arg

    p = Path(check_path_arg(path, "path", "graphanon's readers"))
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


#: Peak memory while reading an input, per byte of its (decompressed) text, measured on the
#: 10M-edge power-law graph of ``scripts/bench_memory.py`` (132 MB of text) and its variants:
#: the edge-list scanner holds the text, two columns of 8-byte codes and the CSR build: 3.2x
#: with integer ids (3.3x from gzip), 4.5x with string ids (the distinct ids as Python str);
#: ``user<TAB>feature`` lists 2.9x (integers) and 5.2x (strings, two id spaces); CSV / TSV
#: with a header go through pyarrow's table (8.6x); ``table``: the small text inputs
#: (universes, dK tables, preferences, masked releases) held as Python text. Binary
#: formats, by file size: Parquet about 40x, GraphML 3x, GML 12x, MATLAB 16x. ``text_ids``:
#: an edge or user-feature list whose ids turn out to be text is checked again with this
#: factor once the scanner knows it (short, all-distinct text ids such as ``aaaab`` peak at
#: about 23x: one Python ``str`` per id).
READ_FACTORS = {"edgelist": 6, "bipartite": 6, "mtx": 6, "csv": 9, "tsv": 9, "table": 3,
                "parquet": 40, "graphml": 4, "gml": 12, "mat": 16, "text_ids": 24}


def max_input_bytes(kind: str = "table") -> int:
    """The most bytes an input of ``kind`` (a key of :data:`READ_FACTORS`) may have,
    decompressed: ``GRAPHANON_MAX_INPUT_BYTES``, else the memory available now divided by
    the kind's factor (at least 64 MiB unless ``GRAPHANON_MEMORY_LIMIT`` sets the memory)."""
    env = os.environ.get("GRAPHANON_MAX_INPUT_BYTES")
    if env:
        try:
            value = int(env)
        except ValueError:
            value = 0
        if value < 1:
            raise InvalidParameterError(
                f"GRAPHANON_MAX_INPUT_BYTES must be a positive number of bytes. Got {env!r}.")
        return value
    from .._memory import ENV_VAR, available_memory

    avail = available_memory()  # MemAvailable, cgroup headroom or GRAPHANON_MEMORY_LIMIT
    limit = (avail or 8 << 30) // READ_FACTORS.get(kind, 16)
    # a detected value may be momentarily low: small inputs always pass; an explicit
    # GRAPHANON_MEMORY_LIMIT is applied as given
    return limit if os.environ.get(ENV_VAR, "").strip() else max(limit, 64 << 20)


def _too_large(path: Path, what: str, limit: int) -> InvalidParameterError:
    from .._memory import ENV_VAR

    if os.environ.get("GRAPHANON_MAX_INPUT_BYTES"):
        source = "GRAPHANON_MAX_INPUT_BYTES"
    elif os.environ.get(ENV_VAR, "").strip():
        source = f"the memory {ENV_VAR}={os.environ[ENV_VAR].strip()} allows"
    else:
        source = "this machine's available memory allows"
    return InvalidParameterError(
        f"{str(path)!r}: {what} is larger than {limit:,} bytes, the most {source} for "
        "this input (set GRAPHANON_MAX_INPUT_BYTES to change the limit).")


def check_input_size(path: Path, kind: str) -> None:
    """Refuse a regular file of ``kind`` whose size exceeds :func:`max_input_bytes` (for
    inputs that a library reads from the path; text goes through :func:`_read_bytes`)."""
    import stat

    st = os.stat(path)
    limit = max_input_bytes(kind)
    if stat.S_ISREG(st.st_mode) and st.st_size > limit:
        raise _too_large(path, f"the file ({st.st_size:,} bytes)", limit)


def _read_stream(fh: Any, path: Path, limit: int, what: str) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = fh.read(1 << 24)
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            raise _too_large(path, what, limit)
        chunks.append(chunk)


def _gunzip(raw: bytes, path: Path, limit: int) -> bytearray:
    """The decompressed content of gzip data, at most ``limit`` bytes, in one growing
    buffer (no chunks to join: the peak is the content, not twice)."""
    import gzip
    import io
    import zlib

    out = bytearray()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as fh:
            while True:
                chunk = fh.read(1 << 24)
                if not chunk:
                    return out
                out += chunk
                if len(out) > limit:
                    raise _too_large(path, "the decompressed content", limit)
    except (OSError, EOFError, zlib.error) as exc:  # zlib.error: a damaged deflate stream
        raise InputFormatError(
            f"{str(path)!r} is not a readable gzip file: {exc}", path=str(path)
        ) from None


def _read_bytes(path: Path, kind: str = "table") -> bytes | bytearray:
    """The bytes of an input (gzip looked through: then a ``bytearray``), at most
    :func:`max_input_bytes` of ``kind``."""
    raw = _read(path, kind, array=False)
    assert isinstance(raw, (bytes, bytearray))
    return raw


def _read_array(path: Path, kind: str) -> Any:
    """:func:`_read_bytes` as a ``uint8`` array, for the scanners. A regular file is read
    straight into numpy memory: numpy asks the kernel for huge pages, so a large file's
    first touch costs a quarter of a ``bytes`` object's (0.016 s against 0.065 s for 138 MB
    here)."""
    import numpy as np

    raw = _read(path, kind, array=True)
    return raw if isinstance(raw, np.ndarray) else np.frombuffer(raw, dtype=np.uint8)


def _read(path: Path, kind: str, array: bool) -> Any:
    import stat

    import numpy as np

    limit = max_input_bytes(kind)
    st = os.stat(path)
    if stat.S_ISREG(st.st_mode) and st.st_size > limit:
        raise _too_large(path, f"the file ({st.st_size:,} bytes)", limit)
    raw: Any
    if stat.S_ISFIFO(st.st_mode):
        # opened as every Unix reader does: waiting for a writer (one that opens a moment
        # later must not be read as an empty input, whose result would replace the output)
        with path.open("rb") as fh:
            raw = _read_stream(fh, path, limit, "the stream")
    else:
        with path.open("rb") as fh:
            if not stat.S_ISREG(st.st_mode):
                raw = _read_stream(fh, path, limit, "the file")
            elif array:
                # a regular file in one read of its size (no chunks to join: half the peak)
                buf = np.empty(st.st_size + 1, dtype=np.uint8)
                got = fh.readinto(buf.data)
                raw = buf[:got]
                if got > st.st_size:  # it grew while we read
                    raw = raw.tobytes() + _read_stream(fh, path, limit - got, "the file")
            else:
                raw = fh.read(st.st_size + 1)
                if len(raw) > st.st_size:
                    raw += _read_stream(fh, path, limit - len(raw), "the file")
    if bytes(raw[:2]) == b"\x1f\x8b":
        return _gunzip(bytes(raw), path, limit)
    return raw


def read_input_bytes(path: str | os.PathLike[str], kind: str = "table") -> bytes:
    """The bytes of the input ``path`` (gzip looked through), checked as described above."""
    raw = _read_bytes(_check_exists(path), kind)
    return raw if isinstance(raw, bytes) else bytes(raw)


def read_input_text(path: str | os.PathLike[str], *, what: str) -> str:
    """The UTF-8 text of the input ``path``; ``what`` names its layout in messages."""
    raw = _read_bytes(_check_exists(path))
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
    from .._validation import check_nesting

    try:
        data = check_nesting(tomllib.loads(text.removeprefix("\ufeff")))  # a BOM, as elsewhere
    except tomllib.TOMLDecodeError as exc:
        raise InvalidParameterError(f"{what} {str(p)!r} is not valid TOML: {exc}.") from None
    except (RecursionError, ValueError):
        from .._validation import MAX_NESTING

        raise InvalidParameterError(
            f"{what} {str(p)!r} nests arrays or tables more than {MAX_NESTING} levels deep."
        ) from None
    return dict(data)


def csv_records(raw: bytes | bytearray, delimiter: str) -> Any:
    """``(line, fields)`` of each record of a CSV text, ``line`` the 1-based number of the
    physical line it starts on: empty lines skipped and quoted fields over several lines
    followed, as pyarrow's reader does. For messages only (it runs in Python, up to the
    record asked for)."""
    import csv
    import io

    text = io.StringIO(bytes(raw).decode("utf-8", "replace"), newline="")
    reader = csv.reader(text, delimiter=delimiter, quotechar='"', doublequote=True,
                        strict=False)
    end = 0
    for fields in reader:
        start, end = end + 1, reader.line_num
        if fields:
            yield start, fields


def csv_error(path: Path, raw: bytes | bytearray, delimiter: str,
              exc: Exception) -> InputFormatError:
    """pyarrow's CSV error ``exc`` as an :class:`InputFormatError`; a row with another number
    of fields than the first (pyarrow names no line for it) gets its line and content."""
    message = str(exc).split("\n")[0]
    if "invalid UTF8" in message:
        for line, text in enumerate(bytes(raw).split(b"\n"), 1):
            if not _is_utf8(text):
                return InputFormatError(
                    f"{str(path)!r} line {line}: a field is not UTF-8 text: "
                    f"{text.decode('utf-8', 'replace')[:120]!r}", path=str(path), line=line)
    if "Expected" in message and "columns" in message:
        records = csv_records(raw, delimiter)
        first = next(records, None)
        expected = len(first[1]) if first is not None else 0
        for line, fields in records:
            if len(fields) != expected:
                return InputFormatError(
                    f"{str(path)!r} line {line}: {expected} fields expected, got "
                    f"{len(fields)}: {delimiter.join(fields)[:120]!r}", path=str(path),
                    line=line)
    return InputFormatError(f"{str(path)!r}: {message}", path=str(path))


def check_csv_columns(path: Path, raw: bytes | bytearray, delimiter: str, table: Any,
                      has_header: bool = True) -> None:
    """Refuse a CSV table with a column name twice (pyarrow keeps both, and a column is then
    ambiguous) or a cell that is not UTF-8 text (pyarrow reads such a column as bytes)."""
    import itertools

    import pyarrow as pa

    names = table.column_names
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputFormatError(
            f"{str(path)!r} line 1: the column name {twice[0]!r} appears "
            f"{names.count(twice[0])} times; column names must be unique.", path=str(path),
            line=1)
    for name in names:
        col = table.column(name)
        if not (pa.types.is_binary(col.type) or pa.types.is_large_binary(col.type)):
            continue
        row = next((i for i, v in enumerate(col.to_pylist())
                    if v is not None and not _is_utf8(v)), None)
        if row is None:
            continue
        record = next(itertools.islice(csv_records(raw, delimiter), row + int(has_header),
                                       None), None)
        where = f" line {record[0]}" if record is not None else ""
        raise InputFormatError(
            f"{str(path)!r}{where}: column {name!r} holds a value that is not UTF-8 text.",
            path=str(path), line=record[0] if record is not None else None)


def _is_utf8(value: bytes) -> bool:
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
