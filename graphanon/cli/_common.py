"""Helpers shared by the CLI commands: loading inputs, progress bars, JSON reports, RNGs."""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import numpy as np

from .._progress import ProgressFn
from ..errors import InvalidParameterError
from ..graph import BipartiteGraph, Graph
from ..io._atomic import atomic_write_text
from ..report import to_jsonable

__all__ = [
    "distributed_options",
    "echo",
    "guard_paths",
    "load_bipartite",
    "load_graph",
    "make_rng",
    "noise_options",
    "progress_bar",
    "resolve_noise",
    "write_json",
]

FORMAT_CHOICE = click.Choice(
    ["edgelist", "csv", "tsv", "parquet", "graphml", "gml", "mtx", "mat"], case_sensitive=False
)


def quiet() -> bool:
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        if ctx.obj and ctx.obj.get("quiet"):
            return True
        ctx = ctx.parent
    return False


def echo(message: str = "") -> None:
    """Print unless ``--quiet``."""
    if not quiet():
        click.echo(message)


def load_graph(path: str | Path, fmt: str | None = None) -> Graph:
    from ..io.files import read_graph

    return read_graph(path, format=fmt)


def load_bipartite(path: str | Path) -> BipartiteGraph:
    from ..io.files import read_bipartite

    return read_bipartite(path)


def make_rng(seed: int | None) -> tuple[np.random.Generator, int]:
    """A numpy Generator from ``--seed``; a fresh random seed is drawn (and returned) if None."""
    if seed is None:
        seed = secrets.randbits(63)
    if seed < 0:
        raise InvalidParameterError(f"The '--seed' option must be a non-negative int. Got {seed}.")
    return np.random.default_rng(seed), seed


#: Parameter names that are outputs of a command (files or folders it writes).
OUTPUT_PARAMS = frozenset({"out", "out_path", "report", "report_path", "clusters",
                           "clusters_path", "outdir"})


def guard_paths(cmd: click.Command) -> click.Command:
    """Wrap ``cmd`` so that, before it runs, its output paths are checked.

    * no output may be one of the command's existing input files (which it would destroy),
    * no two outputs may be the same file,
    * every output must be writable: its nearest existing ancestor is a directory in which a
      file can be created.

    A command whose ``--report`` is an input (``neo4j write-release``) lists it in its
    ``input_params`` attribute.
    """
    import functools
    import os
    import tempfile

    inner = cmd.callback
    if inner is None:
        return cmd
    as_inputs = set(getattr(cmd, "input_params", ()))
    flags = {p.name: (p.opts[0] if isinstance(p, click.Option) else p.human_readable_name)
             for p in cmd.params}

    def where(name: str) -> str:
        return f"The '{flags.get(name, name)}' option"

    @functools.wraps(inner)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        outputs = {k: v for k, v in kwargs.items()
                   if k in OUTPUT_PARAMS and k not in as_inputs and isinstance(v, str)}
        inputs = {k: v for k, v in kwargs.items()
                  if k not in outputs and isinstance(v, str) and v and os.path.isfile(v)}
        seen: dict[str, str] = {}
        for name, value in outputs.items():
            real = os.path.realpath(value)
            for iname, ivalue in inputs.items():
                if real == os.path.realpath(ivalue):
                    raise InvalidParameterError(
                        f"{where(name)} names the input {flags.get(iname, iname)} ({value!r}): "
                        "the command would overwrite its own input.")
            if real in seen:
                raise InvalidParameterError(
                    f"{where(name)} and {where(seen[real]).lower()} name the same file "
                    f"{value!r}.")
            seen[real] = name
            parent = Path(real).parent
            while not parent.exists():
                parent = parent.parent
            if not parent.is_dir():
                raise InvalidParameterError(
                    f"{where(name)} cannot write {value!r}: {str(parent)!r} is not a folder.")
            try:
                fd, probe = tempfile.mkstemp(prefix=".graphanon-probe.", dir=parent)
            except OSError as exc:
                raise InvalidParameterError(
                    f"{where(name)} cannot write {value!r}: {exc.strerror or exc}.") from None
            os.close(fd)
            os.unlink(probe)
        return inner(*args, **kwargs)

    cmd.callback = wrapped
    return cmd


def noise_options(func: Any) -> Any:
    """Add ``--noise`` and ``--seed``: the one way every private command picks its noise."""
    func = click.option(
        "--seed",
        type=int,
        default=None,
        help="Seed for sampling and post-processing (recorded in the release). It seeds the DP "
        "noise only with --noise numpy-insecure.",
    )(func)
    return click.option(
        "--noise",
        type=click.Choice(["opendp", "numpy-insecure"]),
        default="opendp",
        show_default=True,
        help="opendp: secure noise (the default); numpy-insecure: seeded numpy noise, "
        "reproducible but NOT secure (research and tests only).",
    )(func)


def resolve_noise(noise: str, seed: int | None) -> tuple[Any, np.random.Generator, int]:
    """``(backend, rng, seed)`` for ``--noise`` / ``--seed``.

    ``rng`` drives everything that is not DP noise; with ``numpy-insecure`` it also drives
    the noise, which makes the run reproducible and insecure.
    """
    from ..privacy.noise import get_backend

    rng, used = make_rng(seed)
    if noise == "numpy-insecure":
        return get_backend("numpy-insecure", rng=rng), rng, used
    return get_backend("opendp"), rng, used


def write_json(path: str | Path, payload: Any) -> None:
    """Write a JSON report atomically."""
    atomic_write_text(path, json.dumps(to_jsonable(payload), indent=2, sort_keys=False) + "\n")


@contextlib.contextmanager
def progress_bar() -> Iterator[ProgressFn]:
    """A rich progress bar as a :data:`ProgressFn` (silent with ``--quiet``)."""
    if quiet():
        yield lambda task, done, total: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=False,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(task: str, done: int, total: int) -> None:
            if task not in tasks:
                tasks[task] = bar.add_task(task, total=total)
            bar.update(tasks[task], completed=done, total=total)

        yield update


def distributed_options(f: Any) -> Any:
    """``--scheduler ADDRESS`` / ``--cluster local:N``: run the command on a Dask cluster
    (optional extra ``graphanon[distributed]``; Dask is imported only when one is given)."""
    f = click.option("--cluster", default=None, metavar="local:N",
                     help="Run on a new local Dask cluster of N worker processes "
                          "(needs graphanon[distributed]).")(f)
    f = click.option("--scheduler", default=None, metavar="ADDRESS",
                     help="Run on the Dask cluster at ADDRESS (e.g. tcp://host:8786); INPUT "
                          "and the outputs must be on storage the workers share.")(f)
    return f
