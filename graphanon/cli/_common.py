"""Helpers shared by the CLI commands: loading inputs, progress bars, JSON reports, RNGs."""

from __future__ import annotations

import contextlib
import json
import re
import secrets
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .._validation import EPSILON_RANGE
from ..errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover - the CLI imports numpy and the core only when used
    import numpy as np

    from .._progress import ProgressFn
    from ..graph import BipartiteGraph, Graph

__all__ = [
    "distributed_options",
    "echo",
    "guard_paths",
    "load_bipartite",
    "load_graph",
    "make_rng",
    "noise_options",
    "progress_bar",
    "progress_task",
    "resolve_noise",
    "write_json",
]

class _Float(click.ParamType):  # type: ignore[type-arg]
    """A float option that refuses text a float cannot hold (``1e-400`` is not ε = 0.0,
    ``1e400`` not infinity): the error names what was typed, not what it rounded to."""

    name = "float"

    def __init__(self, bounds: tuple[float, float] | None = None) -> None:
        self.bounds = bounds

    def convert(self, value: Any, param: Any, ctx: Any) -> float:
        x = value if isinstance(value, float) else self._parse(value, param, ctx)
        if self.bounds is not None:  # refused while the arguments are read, before any input
            from .._validation import check_float

            try:
                check_float(x, "x", "<cli>", low=self.bounds[0], high=self.bounds[1])
            except InvalidParameterError as exc:
                opt = param.opts[0] if param is not None and param.opts else "the"
                raise InvalidParameterError(str(exc).replace(
                    "The 'x' parameter of <cli>", f"The {opt!r} option")) from None
        return x

    def _parse(self, value: Any, param: Any, ctx: Any) -> float:
        text = str(value).strip()
        try:
            x = float(text)
        except ValueError:
            self.fail(f"{value!r} is not a number.", param, ctx)
        mantissa = text.lower().split("e")[0]
        if (x == 0.0 and any(c in mantissa for c in "123456789")) or (
                x in (float("inf"), float("-inf")) and "inf" not in text.lower()):
            self.fail(f"{value!r} is beyond the range of a float (it would read as {x}).",
                      param, ctx)
        return x


#: The CLI's float options (``type=FLOAT``).
FLOAT = _Float()
#: A privacy parameter ε (:data:`graphanon._validation.EPSILON_RANGE`), checked as the
#: arguments are parsed: a bad ε is reported at once, not after reading the input.
EPSILON = _Float(EPSILON_RANGE)
#: Randomized response's total ε, which at node level is |F| times the per-cell ε (the
#: per-cell ε is checked against :data:`EPSILON_RANGE` by the mechanism).
RR_EPSILON = _Float((EPSILON_RANGE[0], 1e9))

FORMAT_CHOICE = click.Choice(
    ["edgelist", "csv", "tsv", "parquet", "graphml", "gml", "mtx", "mat"], case_sensitive=False
)
#: What --out-format offers: every format but MATLAB's, which graphanon reads only.
OUT_FORMAT_CHOICE = click.Choice(
    ["edgelist", "csv", "tsv", "parquet", "graphml", "gml", "mtx"], case_sensitive=False
)


_STARTED: list[float] = []


def start_clock() -> None:
    """Mark the command's start (:func:`main`), for :func:`wall_seconds`."""
    import time

    _STARTED[:] = [time.perf_counter()]


def wall_seconds() -> float:
    """Seconds since the command started: the time its user waited, reading the input and
    compiling kernels included (a mechanism's own ``seconds`` count its work only)."""
    import time

    return time.perf_counter() - (_STARTED[0] if _STARTED else time.perf_counter())


def quiet() -> bool:
    return bool(_option("quiet"))


def _chatter_on_stderr() -> bool:
    """Whether a command's data goes to stdout (``--out /dev/stdout``): its messages and
    progress then go to stderr, so that stdout holds the data alone."""
    return bool(_option("stdout_is_data"))


def echo(message: str = "") -> None:
    """Print unless ``--quiet`` (on stderr when stdout holds the command's data).

    A status line nobody reads is no reason to stop: when the reader of stdout has gone
    (``... | head -1``), the command goes on with stdout pointed at ``/dev/null``."""
    if not quiet():
        try:
            click.echo(message, err=_chatter_on_stderr())
        except BrokenPipeError:
            from . import _silence_stdout

            _silence_stdout()


def refuse_skip_bad_rows(what: str) -> None:
    """Refuse the global ``--skip-bad-rows`` for an input read another way (it would be
    ignored)."""
    if _option("skip_bad_rows"):
        raise InvalidParameterError(
            f"--skip-bad-rows does not apply to {what}: it is read whole, or refused with the "
            "line of its first bad row.")


def _option(name: str) -> Any:
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        if ctx.obj and name in ctx.obj:
            return ctx.obj[name]
        ctx = ctx.parent
    return None


#: How each count of ``input_cleaning`` is reported.
CLEANING_LABELS = {"self_loops": "self_loops_dropped",
                   "duplicate_edges": "duplicate_edges_dropped",
                   "duplicate_pairs": "duplicate_pairs_merged",
                   "rows_skipped": "rows_skipped", "ignored_columns": "columns_ignored"}


def cleaning_report(data: Any) -> dict[str, int]:
    """``data.input_cleaning`` under the labels of :data:`CLEANING_LABELS`."""
    return {CLEANING_LABELS.get(k, k): int(v) for k, v in data.input_cleaning.items()}


#: What a count of duplicate edges equal to the number of edges means (SNAP's lists).
BOTH_WAYS = "one per edge: the file lists every edge in both directions, as SNAP does"


def both_ways(data: Any) -> bool:
    """Whether reading dropped exactly one duplicate per edge: an undirected graph whose
    file lists every edge both ways (``a b`` and ``b a``), as SNAP's edge lists do."""
    dup = int(getattr(data, "input_cleaning", {}).get("duplicate_edges", 0))
    return dup > 0 and dup == int(getattr(data, "n_edges", -1))


def _noted(data: Any, path: str | Path) -> None:
    """Say on stderr what reading ``path`` dropped, and keep it for the command's report."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.find_root().ensure_object(dict)
        ctx.find_root().obj.setdefault("input_cleaning", {})[str(path)] = cleaning_report(
            data)
        if both_ways(data):
            ctx.find_root().obj.setdefault("both_ways", set()).add(str(path))


def _echo_input_notes() -> None:
    """One stderr note per input from which reading dropped something, then the warnings
    about the outputs (:func:`warn_after_success`)."""
    for path, counts in (_option("input_cleaning") or {}).items():
        dropped = {k: v for k, v in counts.items() if v}
        if dropped:
            what = ", ".join(
                f"{k.replace('_', ' ')}: {v}"
                + (f" ({BOTH_WAYS})" if k == "duplicate_edges_dropped"
                   and path in (_option("both_ways") or ()) else "")
                for k, v in dropped.items())
            click.echo(f"graphanon: note: {path}: {what}.", err=True)
    for message in _option("output_warnings") or ():
        click.echo(f"graphanon: warning: {message}", err=True)


def warn_after_success(message: str) -> None:
    """A warning about what the command wrote, printed once its outputs are in place (a run
    that fails prints its one error line only)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        import warnings

        warnings.warn(message, stacklevel=2)
        return
    ctx.find_root().ensure_object(dict)
    ctx.find_root().obj.setdefault("output_warnings", []).append(message)


def write_graph_output(G: Graph, out: str, out_format: str | None) -> None:
    """Write a command's graph output; warn when its format cannot hold every node (an edge
    list has no line for a node without edges: it reads back without them)."""
    from ..io.files import nodes_not_written, write_graph

    write_graph(G, out, format=out_format)
    lost = nodes_not_written(G, out, out_format)
    if lost:
        warn_after_success(
            f"{out}: {lost} of the {G.n_nodes} nodes have no edge, and an edge list cannot "
            f"hold them: the file reads back with {G.n_nodes - lost} nodes. Write .parquet or "
            ".graphml to keep them.")


def load_graph(path: str | Path, fmt: str | None = None) -> Graph:
    from ..io.files import read_graph

    G = read_graph(path, format=fmt, skip_bad_rows=bool(_option("skip_bad_rows")))
    _noted(G, path)
    _release_parser_memory()
    return G


#: The library's message for a parameter (:func:`graphanon._validation.fail`).
_LIBRARY_PARAMETER = re.compile(
    r"The '(?P<name>\w+)' parameter of \w+ (?P<rest>must .*)\. Got (?P<got>.*) instead\.",
    re.DOTALL)


def _as_option(exc: InvalidParameterError, kwargs: Mapping[str, Any],
               flags: Mapping[str, str]) -> InvalidParameterError | None:
    """The library's ``The 'max_degree' parameter of release_dk must be ...`` as the
    command's ``The '--max-degree' option must be ...``, when the parameter is an option of
    the command and holds the value the user gave (a value the command derived, a share of
    ``--epsilon`` say, keeps the library's message: naming the option would misstate it)."""
    m = _LIBRARY_PARAMETER.fullmatch(str(exc))
    if type(exc) is not InvalidParameterError or m is None:
        return None
    name = m.group("name")
    flag = flags.get(name, "")
    if not flag.startswith("--") or name not in kwargs or repr(kwargs[name]) != m.group("got"):
        return None
    return InvalidParameterError(
        f"The '{flag}' option {m.group('rest')}. Got {m.group('got')} instead.")


def _release_parser_memory() -> None:
    """pyarrow's allocator keeps the parser's freed buffers (0.45 GB after a 10M-edge edge
    list): give them back before the command's own work starts."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def load_bipartite(path: str | Path) -> BipartiteGraph:
    from ..io.files import read_bipartite

    B = read_bipartite(path, skip_bad_rows=bool(_option("skip_bad_rows")))
    _noted(B, path)
    return B


def make_rng(seed: int | None) -> tuple[np.random.Generator, int]:
    """A numpy Generator from ``--seed``; a fresh random seed is drawn (and returned) if None."""
    if seed is None:
        seed = secrets.randbits(63)
    if seed < 0:
        raise InvalidParameterError(f"The '--seed' option must be a non-negative int. Got {seed}.")
    import numpy as np

    return np.random.default_rng(seed), seed


#: Parameter names that are outputs of a command (files or folders it writes).
OUTPUT_PARAMS = frozenset({"out", "out_path", "report", "report_path", "clusters",
                           "clusters_path", "outdir", "pseudonym_map", "record"})
#: Files a command reads and updates in place (the privacy ledger): no output may name one,
#: whether it exists yet or not (a new ledger overwritten by the table would lose the charge).
STATE_PARAMS = frozenset({"ledger"})


def check_outputs(outputs: Mapping[str, str], inputs: Mapping[str, str],
                  where: Callable[[str], str], input_name: Callable[[str], str] = str,
                  folders: frozenset[str] = frozenset()) -> None:
    """The checks :func:`guard_paths` makes before a command runs, for ``outputs`` (name ->
    path): none is an input, no two are one file, each can be written. ``where(name)`` says
    which option names an output (``"The '--out' option"``), ``input_name`` an input's;
    ``folders`` the outputs that are folders (``demo --out results/``: a trailing separator
    is what a folder's name may well end with)."""
    import os

    from ..io._atomic import can_write_in_place, creatable_reason, writes_in_place

    seen: dict[str, str] = {}
    for name, value in outputs.items():
        if name in folders:
            value = value.rstrip(os.sep) or value
        real = os.path.realpath(value)
        if not os.path.isdir(value) and writes_in_place(value):
            # /dev/null, a FIFO, /dev/stdout: written in place, never renamed over
            if not can_write_in_place(value):
                from ..io._atomic import own_descriptor

                why = ("the descriptor is closed or open for reading only"
                       if own_descriptor(value) is not None else "this user may not write it")
                raise InvalidParameterError(f"{where(name)} cannot write {value!r}: {why}.")
            continue
        for iname, ivalue in inputs.items():
            if real == os.path.realpath(ivalue):
                raise InvalidParameterError(
                    f"{where(name)} names the input {input_name(iname)} ({value!r}): "
                    "the command would overwrite its own input.")
        if real in seen:
            raise InvalidParameterError(
                f"{where(name)} and {where(seen[real]).lower()} name the same file "
                f"{value!r}.")
        seen[real] = name
        reason = creatable_reason(value)
        if reason is not None:
            raise InvalidParameterError(f"{where(name)} cannot write {value!r}: {reason}.")


def guard_paths(cmd: click.Command) -> click.Command:
    """Wrap ``cmd`` so that, before it runs, its output paths are checked.

    * no output may be one of the command's existing input files (which it would destroy),
      nor its ledger (:data:`STATE_PARAMS`), existing or not,
    * no two outputs may be the same file,
    * every output must be writable: its nearest existing ancestor is a directory in which a
      file can be created.

    A command whose ``--report`` is an input (``neo4j write-release``) lists it in its
    ``input_params`` attribute.
    """
    import functools
    import os

    inner = cmd.callback
    if inner is None:
        return cmd
    as_inputs = set(getattr(cmd, "input_params", ()))
    flags = {p.name: (p.opts[0] if isinstance(p, click.Option) else p.human_readable_name)
             for p in cmd.params}
    paths = {p.name for p in cmd.params if isinstance(p.type, click.Path)}
    folders = frozenset(p.name for p in cmd.params
                        if isinstance(p.type, click.Path) and not p.type.file_okay and p.name)

    def where(name: str) -> str:
        return f"The '{flags.get(name, name)}' option"

    @functools.wraps(inner)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        from .._parallel import threads
        from ..io._atomic import own_descriptor

        threads()  # a bad GRAPHANON_THREADS fails every command, not only large inputs
        for name, value in kwargs.items():  # '' would silently mean "not given"
            if isinstance(value, str) and not value.strip():
                raise InvalidParameterError(
                    f"{where(name)} is empty ({value!r}); give a value or leave the option "
                    "out.")
        outputs = {k: v for k, v in kwargs.items()
                   if k in OUTPUT_PARAMS and k not in as_inputs and isinstance(v, str)}
        if any(own_descriptor(v) == 1 for v in outputs.values()):
            ctx = click.get_current_context()
            ctx.find_root().ensure_object(dict)
            ctx.find_root().obj["stdout_is_data"] = True
        inputs = {k: v for k, v in kwargs.items()
                  if k not in outputs and isinstance(v, str) and v
                  and (os.path.isfile(v) or k in STATE_PARAMS)}
        check_outputs(outputs, inputs, where,
                      lambda n: str(flags.get(n, n)), folders)
        for state in STATE_PARAMS:  # the ledger is no input either, existing or not
            value = kwargs.get(state)
            if not isinstance(value, str) or not value:
                continue
            for name, other in kwargs.items():
                if (name != state and name in paths and isinstance(other, str) and other
                        and os.path.realpath(other) == os.path.realpath(value)):
                    raise InvalidParameterError(
                        f"{where(state)} and {where(name).lower()} name the same file "
                        f"{value!r}: the ledger is updated in place and cannot be an input.")
        from ..io._atomic import output_transaction
        from ..privacy.release import run_clock

        # every record of the run is stamped with its start; every file it writes is
        # committed together with the others (and after the ledger charge), or not at all
        with run_clock(), output_transaction():
            try:
                rv = inner(*args, **kwargs)
            except InvalidParameterError as exc:
                named = _as_option(exc, kwargs, flags)
                if named is None:
                    raise
                raise named from None
        _echo_input_notes()  # after success only: a failure prints its one error line
        return rv

    cmd.callback = wrapped
    return cmd


#: ``--seed`` of a command whose only randomness is its DP noise (randomized response's
#: coin flips): refused with the secure default noise, which cannot be seeded.
SEED_OF_NOISE_ONLY = ("Seed of the coin flips, only with --noise numpy-insecure (recorded in "
                      "the release); refused with the default opendp noise, whose secure "
                      "coin flips cannot be seeded.")


def noise_options_seeding(seed_help: str) -> Callable[[Any], Any]:
    """:func:`noise_options` whose ``--seed`` help is ``seed_help``, for a command whose seed
    does something else than seeding sampling and post-processing
    (:data:`SEED_OF_NOISE_ONLY`): the help says what the option does."""
    return lambda func: noise_options(func, seed_help=seed_help)


def noise_options(func: Any, *, seed_help: str | None = None) -> Any:
    """Add ``--noise`` and ``--seed``: the one way every private command picks its noise."""
    func = click.option(
        "--seed",
        type=int,
        default=None,
        help=seed_help or "Seed for sampling and post-processing (recorded in the release). "
        "It seeds the DP noise only with --noise numpy-insecure.",
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


def read_record(path: str) -> dict[str, Any]:
    """The Release record of the JSON report ``path`` (an input: bounded, regular files and
    pipes only), checked as :func:`graphanon.io.neo4j.release_record` checks it."""
    from .._validation import loads_json
    from ..io._input import read_input_text
    from ..io.neo4j.records import release_record

    try:  # bounded, regular files and pipes only, like every input
        report = loads_json(read_input_text(path, what="release report"))
    except InvalidParameterError as exc:
        raise InvalidParameterError(
            str(exc).replace("input file", "report", 1).replace("input path", "report", 1)
            .replace("input ", "report ", 1)) from None
    except ValueError as exc:
        raise InvalidParameterError(f"report {path!r} is not JSON: {exc}.") from None
    return release_record(report)


def bound(report: dict[str, Any], release: Any, payload: Any) -> Any:
    """``release`` bound to the ``payload`` the command writes (its published view,
    :func:`graphanon.privacy.publish.bind`), also put into ``report["release"]``."""
    from ..privacy.publish import bind

    release = bind(release, payload)
    report["release"] = release.to_dict()
    return release


def write_json(path: str | Path, payload: Any) -> None:
    """Write a JSON report atomically.

    A report with a ``not_private`` block also records there what reading the command's
    inputs dropped (self-loops, duplicate edges, skipped rows): counts of the private input.
    """
    cleaning = _option("input_cleaning")
    if cleaning and isinstance(payload, dict) and isinstance(payload.get("not_private"), dict):
        payload = {**payload, "not_private": {**payload["not_private"],
                                              "input_cleaning": cleaning}}
    from ..io._atomic import atomic_write_text
    from ..report import to_jsonable

    atomic_write_text(path, json.dumps(to_jsonable(payload), indent=2, sort_keys=False) + "\n")


@contextlib.contextmanager
def progress_bar() -> Iterator[ProgressFn]:
    """A rich progress bar as a :data:`ProgressFn` (silent with ``--quiet``), on stderr: stdout
    is for what a command prints as its result."""
    if quiet():
        yield lambda task, done, total: None
        return
    from rich.console import Console

    class _ChatterConsole(Console):
        def on_broken_pipe(self) -> None:  # a closed stderr: stop drawing, go on working
            self.quiet = True

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=False,
        console=_ChatterConsole(stderr=True),
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(task: str, done: int, total: int) -> None:
            if task not in tasks:
                tasks[task] = bar.add_task(task, total=total)
            bar.update(tasks[task], completed=done, total=total)

        try:
            yield update
        except BaseException:  # a failed run: its error stays the one line on stderr
            bar.live.transient = True  # erased from a terminal,
            if not bar.console.is_terminal:  # and never printed to a file or a pipe
                bar.console.quiet = True
            raise


@contextlib.contextmanager
def progress_task(task: str) -> Iterator[ProgressFn]:
    """A progress bar showing the enclosed block as one step ``task`` (reading a file, one
    library call without progress of its own); yields the bar for calls that report more."""
    from .._progress import progress_step

    with progress_bar() as bar, progress_step(bar, task):
        yield bar


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


# ---------------------------------------------------------------------- privacy ledger
def ledger_options(f: Any) -> Any:
    """``--ledger FILE --dataset NAME [--budget EPS --budget-neighbourhood edge|node]``.

    Every DP command takes them: the release is charged to the dataset's budget in the JSON
    ledger after all its files were written and before any is put in place; a short budget
    exits 3 and leaves no output.
    """
    f = click.option("--budget-neighbourhood", type=click.Choice(["edge", "node"]),
                     default=None,
                     help="Relation the budget is stated for (first use; default: this "
                          "release's).")(f)
    f = click.option("--budget", "budget", type=FLOAT, default=None, metavar="EPSILON",
                     help="Total ε of the dataset, required the first time the ledger sees "
                          "it (then checked against the stored value).")(f)
    f = click.option("--dataset", default=None, metavar="NAME",
                     help="Stable name of the data in the ledger (never a content hash; "
                          "case and Unicode width do not matter).")(f)
    f = click.option("--ledger", "ledger", type=click.Path(dir_okay=False), default=None,
                     help="JSON privacy ledger to charge (graphanon-ledger/1; created, and "
                          "said so, by the first charge with --budget).")(f)
    return f


def open_ledger(ledger: str | None, dataset: str | None, budget: float | None,
                budget_neighbourhood: str | None, *, neighbourhood: str,
                epsilon: float | None = None) -> Any:
    """The :class:`~graphanon.privacy.accountant.Accountant` of ``--ledger``/``--dataset``,
    opened (and checked) before any work; ``None`` without ``--ledger``.

    ``neighbourhood`` is the release's relation (``"edge"``/``"node"``), the default of a new
    budget. With ``epsilon`` known in advance, an exhausted budget is refused now (exit 3)
    rather than after the computation.
    """
    from ..errors import PrivacyBudgetExceeded
    from ..privacy.accountant import NODE_TO_EDGE, Accountant

    if ledger is None:
        given = [o for o, v in (("--dataset", dataset), ("--budget", budget),
                                ("--budget-neighbourhood", budget_neighbourhood))
                 if v is not None]
        if given:
            raise InvalidParameterError(
                f"The option(s) {', '.join(given)} need --ledger FILE (the privacy ledger to "
                "charge).")
        return None
    if dataset is None:
        raise InvalidParameterError(
            "The '--ledger' option needs '--dataset NAME': the stable name the budget is "
            "kept under.")
    nb = budget_neighbourhood or (neighbourhood if budget is not None else None)
    acc = Accountant.open(ledger, dataset=dataset, budget=budget, neighbourhood=nb)
    if acc.neighbourhood == "node" and neighbourhood == "edge":
        raise InvalidParameterError(
            f"dataset {acc.dataset!r} has a node-DP budget in {acc.ledger}; an edge-DP release "
            "gives no node-level guarantee and cannot be charged to it.")
    if epsilon is not None:
        # what the charge will be (charge_epsilon's rule: a node-level ε costs
        # NODE_TO_EDGE times as much on an edge budget)
        cost = epsilon * (NODE_TO_EDGE if (acc.neighbourhood, neighbourhood) == ("edge", "node")
                          else 1.0)
        if not acc.can_spend(cost):
            raise PrivacyBudgetExceeded(
                f"privacy budget of dataset {acc.dataset!r} exceeded: spent ε={acc.spent:.6g} of "
                f"{acc.budget:.6g}, this release needs ε={cost:.6g}; nothing was computed.")
    return acc


def charge_on_commit(accountant: Any, release: Any) -> None:
    """Charge ``release`` to ``accountant`` when the command's outputs are committed.

    The charge runs after every output file was written (to its temporary name) and before
    any is renamed into place: a refused charge (exit 3) leaves no output, and an output
    that could not be written costs no budget.
    """
    if accountant is None:
        return
    from ..io._atomic import output_transaction
    from ..privacy.accountant import charge_epsilon

    charge_epsilon(release, accountant.neighbourhood)  # refuses a bad pairing right now

    def charge() -> None:
        entry = accountant.spend(release)
        where, name = accountant.ledger, accountant.dataset
        if accountant.created is not None:  # a new budget is never silent, even with -q
            what = (f"created ledger {where} for dataset {name!r}"
                    if accountant.created == "ledger"
                    else f"created the budget of dataset {name!r} in ledger {where}")
            click.echo(f"graphanon: {what} with budget ε={accountant.budget:g} "
                       f"({accountant.neighbourhood}-DP)", err=True)
        echo(f"charged ε={entry.epsilon:g} to dataset {name!r} in ledger {where} (spent "
             f"{accountant.spent:g} of {accountant.budget:g})")

    with output_transaction() as tx:
        tx.before_commit.append(charge)


# ---------------------------------------------------------------------- public universes
def nodes_option(f: Any) -> Any:
    """``--nodes FILE``: the public node universe of an edge-level release."""
    return click.option(
        "--nodes", "nodes_path", type=click.Path(dir_okay=False), default=None,
        help="PUBLIC node universe: one node id per line. Edge-DP treats the node set as "
             "public, but an edge list cannot say which nodes exist; without it the release "
             "uses nothing that depends on the node count.")(f)


def read_universe(path: str | None, what: str) -> Any:
    """The ids of a universe file, or ``None``."""
    if path is None:
        return None
    from ..io.universe import read_id_list

    return read_id_list(path, what=what)


# ---------------------------------------------------------------------- pseudonyms
def pseudonym_options(f: Any) -> Any:
    """``--keep-ids`` / ``--pseudonym-map FILE`` for outputs that list users."""
    f = click.option("--pseudonym-map", "pseudonym_map", type=click.Path(dir_okay=False),
                     default=None,
                     help="Also write the operator's id<TAB>pseudonym mapping here (never in "
                          "the folder of the published output).")(f)
    f = click.option("--keep-ids", is_flag=True,
                     help="Publish the real user ids instead of keyed pseudonyms (warns: the "
                          "output then names who is in it).")(f)
    return f


def outside_published(option: str, path: str, out: str, what: str, *,
                      folders: bool = False) -> None:
    """Refuse an operator-only file (``path``, given by ``option``) inside the folder of the
    published output ``out``, where it would be shared along with it. With ``folders``,
    ``out`` and ``path`` are output folders themselves (a distributed run's)."""
    import os

    out_dir, own_dir = os.path.realpath(out), os.path.realpath(path)
    if not folders:
        out_dir, own_dir = os.path.dirname(out_dir), os.path.dirname(own_dir)
    if own_dir == out_dir or own_dir.startswith(out_dir + os.sep):
        raise InvalidParameterError(
            f"The '{option}' option names {path!r}, inside the folder of the published "
            f"output: {what} is operator material; write it elsewhere.")


def pseudonymized(B: BipartiteGraph, *, release_id: str, keep_ids: bool,
                  out: str, pseudonym_map: str | None) -> BipartiteGraph:
    """``B`` with user ids replaced by keyed per-release pseudonyms and its rows in pseudonym
    order (unless ``keep_ids``; :func:`graphanon.privacy.pseudonyms.pseudonymous_rows`).

    The mapping is written to ``pseudonym_map`` only when asked, and never next to ``out``.
    """
    from ..privacy.pseudonyms import pseudonymize, pseudonymous_rows, warn_real_ids

    if keep_ids:
        if pseudonym_map is not None:
            raise InvalidParameterError(
                "The '--pseudonym-map' option conflicts with '--keep-ids' (no pseudonyms).")
        warn_real_ids("--keep-ids")
        return B
    if pseudonym_map is not None:
        outside_published("--pseudonym-map", pseudonym_map, out, "the mapping")
    names = pseudonymize(B.user_ids, scope=release_id)
    if pseudonym_map is not None:
        from ..io._atomic import atomic_path

        with atomic_path(pseudonym_map) as tmp, open(tmp, "w", encoding="utf-8") as fh:
            fh.write("# graphanon pseudonym map (operator only): id<TAB>pseudonym\n")
            from .._ids import ids_as_text

            for a, b in zip(ids_as_text(B.user_ids).tolist(), names.tolist(), strict=True):
                fh.write(f"{a}\t{b}\n")
    return pseudonymous_rows(B, names)
