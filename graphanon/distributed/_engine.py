"""Connection to a Dask cluster and partitioned Parquet folders (glue, no algorithm logic)."""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GraphAnonError, InputFormatError, InvalidParameterError

__all__ = [
    "ReleaseVerificationError",
    "SchedulerUnavailableError",
    "check_output_folder",
    "check_parts",
    "connect",
    "list_parts",
    "output_folder",
    "parse_cluster",
    "read_columns",
    "write_part",
]

PART_SUFFIXES = (".parquet", ".pq")


class ReleaseVerificationError(GraphAnonError):
    """A chunk's release failed verify_smooth_k (a bug: nothing is written)."""


class SchedulerUnavailableError(GraphAnonError):
    """The Dask scheduler could not be reached (CLI exit code 4, like an unreachable
    database)."""

    exit_code = 4


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        raise InvalidParameterError(
            "the distributed engine needs Dask: pip install 'graphanon[distributed]'."
        ) from exc
    return distributed


def parse_cluster(spec: str) -> int:
    """``"local:N"`` -> ``N`` (workers of a local cluster)."""
    head, _, tail = str(spec).partition(":")
    if head != "local" or not tail.isdigit() or not 1 <= int(tail) <= 256:
        raise InvalidParameterError(
            f"The '--cluster' option must look like local:N with 1 <= N <= 256. "
            f"Got {spec!r} instead."
        )
    return int(tail)


@contextlib.contextmanager
def connect(*, scheduler: str | None = None, cluster: str | None = None,
            processes: bool = True, timeout: float | None = None,
            memory_limit: str | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` to ``scheduler`` (an address such as ``tcp://host:8786``) or
    to a new ``LocalCluster`` of ``N`` single-threaded workers for ``cluster="local:N"``.

    Raises :class:`SchedulerUnavailableError` when the scheduler cannot be reached within
    ``timeout`` seconds (default: Dask's ``distributed.comm.timeouts.connect``, settable with
    the environment variable ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT``).
    """
    if (scheduler is None) == (cluster is None):
        raise InvalidParameterError(
            "Give exactly one of a scheduler address or a cluster spec (local:N).")
    distributed = _import_distributed()
    if cluster is not None:
        n = parse_cluster(cluster)
        lc = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=processes,
                                      dashboard_address=":0",
                                      memory_limit=memory_limit or "auto")
        try:
            with distributed.Client(lc) as client:
                yield client
        finally:
            lc.close()
        return
    address = str(scheduler)
    if timeout is None:
        import dask

        timeout = _seconds(dask.config.get("distributed.comm.timeouts.connect"))
    try:
        client = distributed.Client(address, timeout=timeout)
    except ValueError as exc:
        raise InvalidParameterError(
            f"The '--scheduler' option must be a Dask scheduler address such as "
            f"tcp://host:8786. Got {address!r} instead ({exc}).") from None
    except (OSError, TimeoutError) as exc:
        raise SchedulerUnavailableError(
            f"cannot reach the Dask scheduler at {address!r} within {timeout:g} s: "
            f"{type(exc).__name__}: {exc}"
        ) from None
    try:
        yield client
    finally:
        client.close()


def _seconds(value: Any) -> float:
    from dask.utils import parse_timedelta

    return float(parse_timedelta(value, default="seconds") or 30.0)


def n_workers(client: Any) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def list_parts(path: str | os.PathLike[str]) -> list[str]:
    """The part files of a partitioned Parquet input: every ``*.parquet`` / ``*.pq`` file of a
    folder, in name order (hidden files skipped), or a single Parquet file as one part."""
    p = Path(path)
    if p.is_file():
        if p.suffix.lower() not in PART_SUFFIXES:
            raise InputFormatError(f"{str(p)!r} is not a Parquet file (.parquet or .pq).",
                                   path=str(p))
        return [str(p)]
    if not p.is_dir():
        raise InputFormatError(f"{str(p)!r}: no such file or folder.", path=str(p))
    parts = sorted(str(q) for q in p.iterdir()
                   if q.is_file() and q.suffix.lower() in PART_SUFFIXES
                   and not q.name.startswith((".", "_")))
    if not parts:
        raise InputFormatError(f"{str(p)!r} holds no Parquet part files.", path=str(p))
    return parts


def check_parts(path: str | os.PathLike[str], columns: tuple[str, ...]) -> list[str]:
    """:func:`list_parts`, then every part's Parquet schema (footer only, no data): the
    ``columns`` exist and hold integers or strings, one kind per column across the parts.

    The client calls it before any task (or cluster) starts; the workers check the data
    again when they read it.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts = list_parts(path)
    kinds: dict[str, dict[str, str]] = {name: {} for name in columns}
    for part in parts:
        try:
            schema = pq.read_schema(part)
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise InputFormatError(f"{part!r} is not a readable Parquet file: {exc}",
                                   path=part) from None
        for name in columns:
            if name not in schema.names:
                raise InputFormatError(
                    f"{part!r} has no column {name!r}; columns are {schema.names}.", path=part)
            t = schema.field(name).type
            if pa.types.is_integer(t):
                kinds[name].setdefault("integer", part)
            elif pa.types.is_string(t) or pa.types.is_large_string(t):
                kinds[name].setdefault("string", part)
            else:
                raise InputFormatError(
                    f"{part!r}: column {name!r} must hold integers or strings, got {t}.",
                    path=part)
    for name, seen in kinds.items():
        if len(seen) > 1:
            raise InputFormatError(
                f"{str(path)!r}: column {name!r} holds integers in {seen['integer']!r} and "
                f"strings in {seen['string']!r}; use one type in every part.", path=str(path))
    return parts


def _ids(col: Any, path: str, name: str) -> np.ndarray[Any, Any]:
    import pyarrow as pa

    t = col.type
    if pa.types.is_integer(t):
        return np.asarray(col.cast(pa.int64()).to_numpy(), dtype=np.int64)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return np.asarray(col.to_numpy(zero_copy_only=False), dtype=str)
    raise InputFormatError(f"{path!r}: column {name!r} must hold integers or strings, got {t}.",
                           path=path)


def read_columns(path: str, columns: tuple[str, ...], *, nullable: str | None = None
                 ) -> dict[str, np.ndarray[Any, Any]]:
    """Read id columns of one part as numpy (int64 or str). Nulls are refused, except in the
    ``nullable`` column, whose null rows are returned under ``"_isolated"`` (ids of the first
    column) and dropped from the others."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path, columns=None)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise InputFormatError(f"{path!r} is not a readable Parquet file: {exc}",
                               path=path) from None
    for name in columns:
        if name not in table.column_names:
            raise InputFormatError(
                f"{path!r} has no column {name!r}; columns are {table.column_names}.",
                path=path)
    cols = {name: table.column(name) for name in columns}
    out: dict[str, np.ndarray[Any, Any]] = {}
    if nullable is not None and cols[nullable].null_count:
        valid = pc.is_valid(cols[nullable])
        first = columns[0]
        out["_isolated"] = _ids(pc.filter(cols[first], pc.invert(valid)), path, first)
        cols = {name: pc.filter(c, valid) for name, c in cols.items()}
    for name, c in cols.items():
        if c.null_count:
            raise InputFormatError(f"{path!r}: column {name!r} has missing ids.", path=path)
        out[name] = _ids(c, path, name)
    return out


def write_part(folder: str, name: str, columns: dict[str, np.ndarray[Any, Any]]) -> str:
    """Write one Parquet part into ``folder`` (the temporary output folder)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = os.path.join(folder, name)
    pq.write_table(pa.table(dict(columns.items())), path)
    return path


def check_output_folder(path: str | os.PathLike[str]) -> Path:
    """An output folder of Parquet parts can be written at ``path``: it is not an existing
    file and its parent folder exists."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise InvalidParameterError(
            f"The output {str(target)!r} exists and is not a folder of Parquet parts.")
    if not target.parent.is_dir():
        raise InvalidParameterError(
            f"The output folder's parent {str(target.parent)!r} does not exist.")
    return target


@contextlib.contextmanager
def output_folder(path: str | os.PathLike[str]) -> Iterator[str]:
    """A temporary sibling folder that replaces ``path`` only when the block succeeds.

    Workers write their parts there (the folder must be on a file system shared with the
    workers); on any error it is removed and ``path`` is left as it was.
    """
    target = check_output_folder(path)
    parent = target.parent
    tmp = parent / f".{target.name}.tmp-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    try:
        yield str(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = None
    if target.exists():
        old = parent / f".{target.name}.old-{uuid.uuid4().hex[:8]}"
        os.replace(target, old)
    os.replace(tmp, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
