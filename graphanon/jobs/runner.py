"""Running a job: its lock, one clock and one output transaction, the steps in order, the
ledger charge, then the sinks."""

from __future__ import annotations

import contextlib
import copy
import logging
import os
import secrets
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GraphAnonError, InvalidParameterError
from ..graph import BipartiteGraph, Graph
from .schema import is_distributed, load_job, render_release_id, validate_job
from .sinks import bind_outputs, check_sinks, probe_file_sinks, write_sink
from .sources import default_driver, read_source, read_universe, shape
from .state import UNIVERSE_KEYS, JobLockedError, JobResult, JobState, resolve_path
from .steps import STEPS

__all__ = ["run_job", "run_job_dict"]

log = logging.getLogger("graphanon.jobs")


@contextlib.contextmanager
def job_lock(path: Path, name: str) -> Iterator[None]:
    """The job's lock file ``.NAME.graphanon.lock`` (holding the pid of its run), removed when
    the run ends, whatever the outcome (:func:`graphanon._locks.lock_file`)."""
    from .._locks import lock_file

    missing = [d for d in reversed(path.parents) if not d.exists()]
    try:
        with contextlib.ExitStack() as stack:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd = stack.enter_context(lock_file(path, wait=False))
            except BlockingIOError:
                raise JobLockedError(
                    f"another run of job {name!r} is in progress (lock {str(path)!r} is "
                    "held).") from None
            except OSError as exc:
                raise InvalidParameterError(
                    f"job {name!r}: cannot create its lock file {str(path)!r}: "
                    f"{exc.strerror or exc}.") from None
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            yield
    finally:
        _remove_empty(missing)


def _remove_empty(folders: list[Path]) -> None:
    """Remove the folders a run created for its lock (deepest first), if still empty."""
    for folder in reversed(folders):
        with contextlib.suppress(OSError):
            folder.rmdir()


def event(event: str, **fields: Any) -> None:
    log.info(event, extra={"event": event, "fields": fields})


def run_job_dict(
    config: Mapping[str, Any],
    *,
    base_dir: str | os.PathLike[str] | None = None,
    driver_factory: Callable[[dict[str, Any]], Any] | None = None,
    lock_dir: str | os.PathLike[str] | None = None,
    now: datetime | None = None,
) -> JobResult:
    """Run a job given as a dict with the TOML file's structure (``job``, ``source``,
    ``steps``, ``sinks``), checked exactly like a job file.

    ``base_dir`` (default: the current folder) stands for the job file's folder: relative
    paths and the lock file are resolved against it. A job that names itself no ``name`` is
    ``"job"``. Everything else is :func:`run_job`.
    """
    base = Path(base_dir if base_dir is not None else os.getcwd()).resolve()
    cfg_in = copy.deepcopy(dict(config)) if isinstance(config, Mapping) else config
    name = (cfg_in.get("job") or {}).get("name") if isinstance(cfg_in, Mapping) else None
    where = base / f"<job {name or 'dict'}>"
    if isinstance(cfg_in, Mapping) and isinstance(cfg_in.get("job", {}), Mapping):
        # a file's job is named after the file; a dict's, when it names none, "job"
        cfg_in["job"] = {"name": "job", **cfg_in.get("job", {})}
    cfg = validate_job(cfg_in, where)
    return _run_loaded(cfg, driver_factory=driver_factory, lock_dir=lock_dir, now=now)


def run_job(
    path: str | os.PathLike[str] | Mapping[str, Any],
    *,
    driver_factory: Callable[[dict[str, Any]], Any] | None = None,
    lock_dir: str | os.PathLike[str] | None = None,
    now: datetime | None = None,
) -> JobResult:
    """Run the job in ``path`` (a TOML file, or a dict: :func:`run_job_dict`) under its lock.

    Parameters
    ----------
    driver_factory
        ``factory(settings_table) -> driver`` for Neo4j sources and sinks; defaults to
        :func:`graphanon.io.neo4j.connect` with settings from the environment.
    lock_dir
        Folder of the lock file (default: next to the job file).

    Raises
    ------
    InvalidParameterError, JobLockedError
        Bad configuration or input; another run holds the lock (exit 2).
    PrivacyBudgetExceeded
        The JSON ledger ([job] ledger) or a Neo4j sink refused the release (exit 3).
    DatabaseUnavailableError
        Neo4j unreachable (exit 4).
    """
    if isinstance(path, Mapping):
        return run_job_dict(path, driver_factory=driver_factory, lock_dir=lock_dir, now=now)
    return _run_loaded(load_job(path), driver_factory=driver_factory, lock_dir=lock_dir,
                       now=now)


def _run_loaded(
    cfg: dict[str, Any],
    *,
    driver_factory: Callable[[dict[str, Any]], Any] | None,
    lock_dir: str | os.PathLike[str] | None,
    now: datetime | None,
) -> JobResult:
    from ..io._atomic import output_transaction
    from ..privacy.release import run_clock

    t0 = time.perf_counter()
    job = cfg["job"]
    name = job["name"]
    lock = Path(lock_dir or Path(cfg["path"]).parent) / f".{name}.graphanon.lock"
    # run_clock: every record is stamped with the job's start, not when the data was read;
    # output_transaction: the file sinks' files are put in place together, after every sink
    # (and the ledger charge) succeeded, or not at all
    release_id = job["release_id"]  # rendered inside; named here for the failure log
    try:
        with job_lock(lock, name), run_clock(), output_transaction(own=True) as tx:
            release_id = render_release_id(job["release_id"], job=name, now=now)
            event("job_start", job=name, release_id=release_id)
            drivers: dict[str, Any] = {}

            def driver(settings: dict[str, Any]) -> Any:
                key = repr(sorted((k, v) for k, v in settings.items()
                                  if k in ("uri", "user", "database", "password_file")))
                if key not in drivers:
                    drivers[key] = (driver_factory or default_driver)(settings)
                return drivers[key]

            try:
                # as the CLI's --seed: a fresh seed is drawn (and recorded) when none is given;
                # it seeds non-noise randomness, and the noise only with noise="numpy-insecure"
                seed = job.get("seed")
                seed = secrets.randbits(63) if seed is None else seed
                rng = np.random.default_rng(seed)
                base = Path(cfg["path"]).parent
                # no sink may replace the job file, a file the source reads or the ledger
                src = cfg["source"] or {}
                reads = [src[k] for k in ("path", *UNIVERSE_KEYS) if isinstance(src.get(k), str)]
                if isinstance(job.get("ledger"), str):
                    reads.append(job["ledger"])
                tx.inputs.update([os.path.realpath(cfg["path"]),
                                  *(os.path.realpath(resolve_path(base, p)) for p in reads)])
                if driver_factory is None:  # a neo4j sink's settings, before any step runs
                    from ..io.neo4j import CONNECTION_KEYS, connection_settings

                    for sink in cfg["sinks"]:
                        if sink["type"] == "neo4j":
                            connection_settings(**{k: sink.get(k) for k in CONNECTION_KEYS})
                probe_file_sinks(cfg["sinks"], name, release_id=release_id, base=base)
                universe: Any = None
                if cfg["source"] is None:  # every step reads its own partitioned input
                    data: Graph | BipartiteGraph = Graph.from_edges([], [], n_nodes=0)
                else:
                    universe = read_universe(cfg["source"], base)
                    data, label_universe = read_source(cfg["source"], driver, base)
                    universe = label_universe if label_universe is not None else universe
                    event("source_read", job=name, **shape(data),
                           **({"universe": universe.source} if universe is not None else {}))
                state = JobState(data=data, rng=rng, seed=seed, base=base, universe=universe)
                state.report["seed"] = seed
                names = []
                for st in cfg["steps"]:
                    params = {k: v for k, v in st.items() if k != "name"}
                    t = time.perf_counter()
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        state.step = st["name"]
                        if is_distributed(st):
                            run_distributed(state, st["name"], params)
                        else:
                            STEPS[st["name"]](state, params)
                    for w in caught:
                        event("step_warning", job=name, step=st["name"], warning=str(w.message),
                               category=w.category.__name__)
                        state.report.setdefault("warnings", []).append(
                            {"step": st["name"], "category": w.category.__name__,
                             "message": str(w.message)})
                    names.append(st["name"])
                    event("step_done", job=name, step=st["name"],
                           seconds=round(time.perf_counter() - t, 3))
                state.publish = tuple(job.get("publish", ()))
                bind_outputs(state)
                check_sinks(cfg["sinks"], state, name, release_id=release_id,
                            base=Path(cfg["path"]).parent, keep=set(tx.inputs))
                for sink in cfg["sinks"]:  # connect (and verify) before the ε is charged
                    if sink["type"] == "neo4j":
                        driver(sink)
                if job.get("ledger") is not None and state.release is not None:
                    charge_ledger(job, state.release, Path(cfg["path"]).parent)
                outputs = []
                try:
                    for sink in cfg["sinks"]:
                        outputs.append(write_sink(sink, state, release_id, name, driver,
                                                   Path(cfg["path"]).parent))
                        if sink["type"] == "neo4j":  # committed in the database
                            event("sink_written", job=name, sink="neo4j", target=outputs[-1])
                except OSError as exc:
                    raise InvalidParameterError(
                        f"job {name!r}: cannot write a sink: {exc.strerror or exc}"
                        f"{': ' + str(exc.filename) if exc.filename else ''}.") from None
            finally:
                for d in drivers.values():
                    with contextlib.suppress(Exception):
                        d.close()
    except GraphAnonError as exc:
        event("job_failed", job=name, exit_code=exc.exit_code, error=str(exc))
        raise
    except OSError as exc:  # the commit: putting the file sinks' files in place
        event("job_failed", job=name, exit_code=2, error=str(exc))
        raise
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM / SIGHUP in the CLI's process
        signum = getattr(exc, "signum", 2)
        event("job_failed", job=name, exit_code=128 + signum,
              error="interrupted" if signum == 2 else f"terminated by signal {signum}")
        raise
    # the output transaction has put the file sinks' files in place only now
    for sink, target in zip(cfg["sinks"], outputs, strict=True):
        if sink["type"] == "file":
            event("sink_written", job=name, sink="file", target=target)
    seconds = time.perf_counter() - t0
    event("job_done", job=name, release_id=release_id, seconds=round(seconds, 3))
    return JobResult(name, release_id, tuple(names), tuple(outputs),
                     state.release is not None, seconds)


def charge_ledger(job: Mapping[str, Any], release: Any, base: Path) -> None:
    """Charge the release to the JSON ledger of ``[job] ledger`` before any sink writes.

    Same rules as everywhere (:func:`graphanon.privacy.accountant.charge_epsilon`); a release
    without an ε (k-anonymity) is not charged. Refusal raises PrivacyBudgetExceeded (exit 3)
    and nothing is written. The charge is made first, so a sink failing afterwards leaves the
    ε spent (conservative: never under-counted).
    """
    from ..privacy.accountant import Accountant, charge_epsilon

    nb = job.get("budget_neighbourhood", "edge")
    if charge_epsilon(release, nb) is None:
        return
    acc = Accountant(float(job["budget"]), dataset=job["dataset"],
                     neighbourhood=nb, ledger=resolve_path(base, job["ledger"]))
    entry = acc.spend(release)
    if acc.created is not None:
        event("ledger_created", job=job["name"], ledger=str(acc.ledger), dataset=acc.dataset,
              budget=acc.budget, neighbourhood=acc.neighbourhood, created=acc.created)
    event("ledger_charged", job=job["name"], ledger=str(acc.ledger), dataset=acc.dataset,
          epsilon=entry.epsilon, spent=acc.spent, budget=acc.budget)


def run_distributed(state: JobState, name: str, params: dict[str, Any]) -> None:
    """Run a distributed step: it reads and writes partitioned Parquet folders itself
    (``input``, ``out``, ``clusters_out``, relative to the job file) and leaves the job's
    data unchanged; its summary goes into the job report."""
    from ..distributed.steps import run_distributed_step

    p = dict(params)
    for key in ("input", "out", "clusters_out"):
        if isinstance(p.get(key), str):
            p[key] = str(resolve_path(state.base, p[key]))
    state.report[f"{name} (distributed)"] = run_distributed_step(name, p, seed=state.seed)
