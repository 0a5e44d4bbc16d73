"""Scheduled export jobs: ``graphanon run JOB.toml``.

A job names its **source** (a file — the embedded default — or Neo4j), a list of **steps**
(each a registered name plus parameters, run in order on the current data) and its
**sinks** (files and/or Neo4j), with a release-id template. Example::

    [job]
    name = "weekly-interests"
    release_id = "interests-{date}"     # {job} {date} {datetime} {uuid}
    seed = 42                           # optional: reproducible (insecure) randomness

    [source]
    type = "neo4j"                      # or "file" (path = ..., kind = graph|bipartite)
    kind = "bipartite"
    user_label = "User"
    feature_label = "Interest"
    rel = "HAS_INTEREST"
    id_prop = "uid"

    [[steps]]
    name = "describe"

    [[sinks]]
    type = "file"
    path = "out/{release_id}"           # writes data, statistics and report.json there
    [[sinks]]
    type = "neo4j"
    dataset = "interests"               # ledger key; default: the source fingerprint

Steps live in :data:`STEPS` (name -> ``step(state, params) -> None``). A mechanism is
registered with one line, usually through :func:`mechanism_step`, which adapts a library
function ``f(data, *, rng, **params) -> result``::

    STEPS["randomized-response"] = mechanism_step(randomized_response)

Exit codes (through the CLI): 0 success, 2 bad input or configuration (also: another run of
the job holds its lock), 3 privacy budget refused, 4 database unavailable. Connection
settings come from the environment (``NEO4J_URI``, ``NEO4J_USER``, ``NEO4J_PASSWORD`` or
``NEO4J_PASSWORD_FILE``); a job file never holds a password.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import logging
import os
import string
import time
import tomllib
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from .errors import GraphAnonError, InvalidParameterError
from .graph import BipartiteGraph, Graph

__all__ = [
    "STEPS",
    "JobLockedError",
    "JobResult",
    "JobState",
    "load_job",
    "mechanism_step",
    "register_step",
    "render_release_id",
    "run_job",
]

log = logging.getLogger("graphanon.jobs")

StepFn = Callable[["JobState", dict[str, Any]], None]


class JobLockedError(GraphAnonError):
    """Another run of the same job holds its lock (exit code 2)."""


@dataclass
class JobState:
    """What flows through the steps of a job."""

    data: Graph | BipartiteGraph
    rng: np.random.Generator
    seed: int | None
    release: Any = None  # graphanon.privacy.release.Release of the last mechanism step
    statistics: Any = None  # released dK table: graphanon.dk.DKDistribution / DK3Distribution
    report: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class JobResult:
    """The outcome of :func:`run_job`."""

    job: str
    release_id: str
    steps: tuple[str, ...]
    outputs: tuple[str, ...]
    released: bool
    seconds: float


# ----------------------------------------------------------------------- steps
def _step_describe(state: JobState, params: dict[str, Any]) -> None:
    """Counts and degree statistics of the current data (``graphanon info``)."""
    from .metrics import describe_bipartite, describe_graph

    if params:
        raise InvalidParameterError(f"step 'describe' takes no parameters; got {sorted(params)}.")
    data = state.data
    state.report["describe"] = (
        describe_graph(data) if isinstance(data, Graph) else describe_bipartite(data)
    )


def mechanism_step(func: Callable[..., Any], *, takes_rng: bool = True) -> StepFn:
    """Adapt a library mechanism ``func(data, *, rng, **params)`` into a job step.

    The step's TOML keys (except ``name``) are passed as keyword arguments. ``rng`` is the
    job's generator when ``[job] seed`` is set; without a seed, a mechanism whose ``rng``
    defaults to ``None`` is called without one, so it keeps its secure randomness.

    The result may be a :class:`Graph` / :class:`BipartiteGraph` (the new data) or a
    dataclass whose fields are inspected: a graph field becomes the new data, a ``Release``
    field the release record, a ``DKDistribution`` / ``DK3Distribution`` field (or a 1-D
    ``counts`` / ``histogram`` array indexed by degree, read as a 1K table) the released
    statistics. The whole result (minus arrays and
    graphs) goes into the job report under the step's name.
    """

    import inspect

    rng_param = inspect.signature(func).parameters.get("rng") if takes_rng else None
    secure_default = rng_param is not None and rng_param.default is None

    def step(state: JobState, params: dict[str, Any]) -> None:
        kwargs = dict(params)
        if "rng" in kwargs:
            raise InvalidParameterError("a step cannot set 'rng'; set [job] seed instead.")
        # Without a job seed, a mechanism whose rng defaults to None keeps its secure
        # (CSPRNG) default; a seeded job passes its reproducible generator.
        if rng_param is not None and not (secure_default and state.seed is None):
            kwargs["rng"] = state.rng
        result = func(state.data, **kwargs)
        _absorb(state, result, getattr(func, "__name__", "mechanism"))

    step.__name__ = f"step_{getattr(func, '__name__', 'mechanism')}"
    step.__doc__ = func.__doc__
    return step


def _absorb(state: JobState, result: Any, name: str) -> None:
    from .dk.extract import DK3Distribution, DKDistribution
    from .privacy.release import Release

    if isinstance(result, (Graph, BipartiteGraph)):
        state.data = result
        return
    if not dataclasses.is_dataclass(result):
        raise InvalidParameterError(f"step {name!r} returned {type(result).__name__}; expected "
                                    "a graph or a result dataclass.")
    summary: dict[str, Any] = {}
    for f in dataclasses.fields(result):
        value = getattr(result, f.name)
        if isinstance(value, (Graph, BipartiteGraph)):
            state.data = value
        elif isinstance(value, Release):
            state.release = value
        elif isinstance(value, (DKDistribution, DK3Distribution)):
            state.statistics = value
        elif (isinstance(value, np.ndarray) and value.ndim == 1
              and f.name in ("counts", "histogram")):
            state.statistics = DKDistribution("degree", np.arange(value.size)[:, None], value)
        elif not isinstance(value, np.ndarray):
            summary[f.name] = value
    state.report[name] = summary


#: Registered steps. Mechanisms are added here, one line each, e.g.
#: ``"randomized-response": mechanism_step(randomized_response),``.
STEPS: dict[str, StepFn] = {
    "describe": _step_describe,
}


def register_step(name: str, step: StepFn) -> None:
    """Register ``step`` under ``name`` (an existing name is replaced)."""
    if not isinstance(name, str) or not name:
        raise InvalidParameterError(f"a step name must be a non-empty str; got {name!r}.")
    STEPS[name] = step


# ----------------------------------------------------------------------- config
_TEMPLATE_KEYS = ("job", "date", "datetime", "uuid")


def render_release_id(template: str, *, job: str, now: datetime | None = None) -> str:
    """Fill ``{job}``, ``{date}`` (2026-01-31), ``{datetime}`` (20260131T120000Z), ``{uuid}``."""
    now = now or datetime.now(UTC)
    values = {"job": job, "date": now.strftime("%Y-%m-%d"),
              "datetime": now.strftime("%Y%m%dT%H%M%SZ"), "uuid": uuid.uuid4().hex}
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise InvalidParameterError(f"bad release_id template {template!r}: {exc}.") from None
    unknown = [f for f in fields if f not in values]
    if unknown:
        raise InvalidParameterError(
            f"The 'release_id' template {template!r} uses unknown fields {unknown}; known: "
            f"{', '.join('{' + k + '}' for k in _TEMPLATE_KEYS)}."
        )
    return template.format(**values)


def load_job(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and validate a job file (no connection is made)."""
    p = Path(path)
    try:
        cfg = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidParameterError(f"job file {str(p)!r} does not exist.") from None
    except tomllib.TOMLDecodeError as exc:
        raise InvalidParameterError(f"job file {str(p)!r} is not valid TOML: {exc}.") from None
    unknown = set(cfg) - {"job", "source", "steps", "sinks"}
    if unknown:
        raise InvalidParameterError(f"job file {str(p)!r}: unknown sections {sorted(unknown)}.")
    job = _table(cfg, "job", p)
    job.setdefault("name", p.stem)
    job.setdefault("release_id", "{job}-{datetime}")
    if not isinstance(job["name"], str) or not job["name"]:
        raise InvalidParameterError(f"job file {str(p)!r}: [job] name must be a string.")
    render_release_id(job["release_id"], job=job["name"])  # validates the template
    seed = job.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise InvalidParameterError(f"job file {str(p)!r}: seed must be an int >= 0.")
    source = _table(cfg, "source", p)
    _check_source(source, p)
    steps = cfg.get("steps", [])
    if not isinstance(steps, list):
        raise InvalidParameterError(f"job file {str(p)!r}: use [[steps]] tables.")
    for i, st in enumerate(steps):
        if not isinstance(st, dict) or st.get("name") not in STEPS:
            raise InvalidParameterError(
                f"job file {str(p)!r}: step {i + 1} has unknown name "
                f"{(st or {}).get('name')!r}; registered steps: {', '.join(sorted(STEPS))}."
            )
    sinks = cfg.get("sinks", [])
    if not isinstance(sinks, list) or not sinks:
        raise InvalidParameterError(f"job file {str(p)!r}: needs at least one [[sinks]] table.")
    for i, sk in enumerate(sinks):
        _check_sink(sk, i, p)
    return {"job": job, "source": source, "steps": steps, "sinks": sinks,
            "path": str(p.resolve())}


def _table(cfg: Mapping[str, Any], key: str, p: Path) -> dict[str, Any]:
    value = cfg.get(key, {} if key == "job" else None)
    if not isinstance(value, dict):
        raise InvalidParameterError(f"job file {str(p)!r}: needs a [{key}] table.")
    return dict(value)


def _check_source(src: dict[str, Any], p: Path) -> None:
    from .io.cypher import validate_identifier

    kind = src.get("kind", "graph")
    if kind not in ("graph", "bipartite"):
        raise InvalidParameterError(
            f"job file {str(p)!r}: [source] kind must be 'graph' or 'bipartite'. Got {kind!r}."
        )
    typ = src.get("type", "file")
    if typ == "file":
        if not isinstance(src.get("path"), str):
            raise InvalidParameterError(f"job file {str(p)!r}: [source] needs a path.")
        return
    if typ != "neo4j":
        raise InvalidParameterError(
            f"job file {str(p)!r}: [source] type must be 'file' or 'neo4j'. Got {typ!r}."
        )
    if "password" in src:
        raise InvalidParameterError(
            f"job file {str(p)!r}: never put a password in a job file; use NEO4J_PASSWORD or "
            "NEO4J_PASSWORD_FILE."
        )
    if "query" in src:
        return
    needed = ("label", "rel") if kind == "graph" else ("user_label", "feature_label", "rel")
    for key in needed:
        validate_identifier(src.get(key), f"source.{key}")
    for key in ("id_prop", "feature_id_prop"):
        if src.get(key) is not None:
            validate_identifier(src[key], f"source.{key}")
    for prop in src.get("node_props", []):
        validate_identifier(prop, "source.node_props")


def _check_sink(sink: Any, i: int, p: Path) -> None:
    if not isinstance(sink, dict) or sink.get("type") not in ("file", "neo4j"):
        raise InvalidParameterError(
            f"job file {str(p)!r}: sink {i + 1} needs type = 'file' or 'neo4j'."
        )
    if sink["type"] == "file" and not isinstance(sink.get("path"), str):
        raise InvalidParameterError(f"job file {str(p)!r}: file sink {i + 1} needs a path.")
    if "password" in sink:
        raise InvalidParameterError(f"job file {str(p)!r}: never put a password in a job file.")


# ----------------------------------------------------------------------- running
@contextlib.contextmanager
def _job_lock(path: Path, name: str) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise JobLockedError(
                f"another run of job {name!r} is in progress (lock {str(path)!r} is held)."
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)


def _event(event: str, **fields: Any) -> None:
    log.info(event, extra={"event": event, "fields": fields})


def run_job(
    path: str | os.PathLike[str],
    *,
    driver_factory: Callable[[dict[str, Any]], Any] | None = None,
    lock_dir: str | os.PathLike[str] | None = None,
    now: datetime | None = None,
) -> JobResult:
    """Run the job in ``path`` under its lock.

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
        A Neo4j sink refused the release (exit 3).
    DatabaseUnavailableError
        Neo4j unreachable (exit 4).
    """
    t0 = time.perf_counter()
    cfg = load_job(path)
    job = cfg["job"]
    name = job["name"]
    lock = Path(lock_dir or Path(cfg["path"]).parent) / f".{name}.graphanon.lock"
    with _job_lock(lock, name):
        release_id = render_release_id(job["release_id"], job=name, now=now)
        _event("job_start", job=name, release_id=release_id)
        drivers: dict[str, Any] = {}

        def driver(settings: dict[str, Any]) -> Any:
            key = repr(sorted((k, v) for k, v in settings.items()
                              if k in ("uri", "user", "database", "password_file")))
            if key not in drivers:
                drivers[key] = (driver_factory or _default_driver)(settings)
            return drivers[key]

        try:
            seed = job.get("seed")
            rng = np.random.default_rng(seed)
            data = _read_source(cfg["source"], driver, Path(cfg["path"]).parent)
            _event("source_read", job=name, **_shape(data))
            state = JobState(data=data, rng=rng, seed=seed)
            names = []
            for st in cfg["steps"]:
                params = {k: v for k, v in st.items() if k != "name"}
                t = time.perf_counter()
                STEPS[st["name"]](state, params)
                names.append(st["name"])
                _event("step_done", job=name, step=st["name"],
                       seconds=round(time.perf_counter() - t, 3))
            outputs = []
            for sink in cfg["sinks"]:
                outputs.append(_write_sink(sink, state, release_id, name, driver,
                                           Path(cfg["path"]).parent))
                _event("sink_written", job=name, sink=sink["type"], target=outputs[-1])
        except GraphAnonError as exc:
            _event("job_failed", job=name, exit_code=exc.exit_code, error=str(exc))
            raise
        finally:
            for d in drivers.values():
                with contextlib.suppress(Exception):
                    d.close()
        seconds = time.perf_counter() - t0
        _event("job_done", job=name, release_id=release_id, seconds=round(seconds, 3))
        return JobResult(name, release_id, tuple(names), tuple(outputs),
                         state.release is not None, seconds)


def _default_driver(settings: dict[str, Any]) -> Any:
    from .io.neo4j import connect, connection_settings

    return connect(connection_settings(uri=settings.get("uri"), user=settings.get("user"),
                                       password_file=settings.get("password_file"),
                                       database=settings.get("database")))


def _shape(data: Graph | BipartiteGraph) -> dict[str, Any]:
    if isinstance(data, Graph):
        return {"kind": "graph", "nodes": data.n_nodes, "edges": data.n_edges}
    return {"kind": "bipartite", "users": data.n_users, "features": data.n_features,
            "edges": data.n_edges}


def _resolve(base: Path, value: str) -> Path:
    p = Path(value)
    return p if p.is_absolute() else base / p


def _read_source(src: dict[str, Any], driver: Callable[[dict[str, Any]], Any],
                 base: Path) -> Graph | BipartiteGraph:
    kind = src.get("kind", "graph")
    if src.get("type", "file") == "file":
        from .io.files import read_bipartite, read_graph

        path = _resolve(base, src["path"])
        if kind == "bipartite":
            if src.get("preset"):
                from .io.tables import load_preset

                return load_preset(path, src["preset"])
            return read_bipartite(path)
        return read_graph(path, format=src.get("format"))
    from .io.neo4j import Neo4jSource

    source = Neo4jSource(driver(src), database=src.get("database"),
                         fetch_size=int(src.get("fetch_size", 10_000)),
                         memory_limit=src.get("memory_limit", 4 * 2**30))
    force = bool(src.get("force", False))
    if "query" in src:
        return source.read_query_graph(src["query"], src.get("parameters"),
                                       bipartite=kind == "bipartite")
    if kind == "graph":
        return source.read_graph(label=src["label"], rel_type=src["rel"],
                                 id_property=src.get("id_prop"),
                                 node_properties=src.get("node_props", []), force=force)
    return source.read_bipartite(
        user_label=src["user_label"], feature_label=src["feature_label"], rel_type=src["rel"],
        user_id_property=src.get("id_prop"),
        feature_id_property=src.get("feature_id_prop", src.get("id_prop")),
        user_properties=src.get("node_props", []), force=force,
    )


def _write_sink(sink: dict[str, Any], state: JobState, release_id: str, job: str,
                driver: Callable[[dict[str, Any]], Any], base: Path) -> str:
    if sink["type"] == "file":
        import json

        from .io._atomic import atomic_write_text
        from .io.files import write_bipartite, write_graph
        from .report import to_jsonable

        folder = _resolve(base, sink["path"].format(release_id=release_id, job=job))
        folder.mkdir(parents=True, exist_ok=True)
        if isinstance(state.data, Graph):
            write_graph(state.data, folder / sink.get("graph_name", "graph.graphml"))
        else:
            write_bipartite(state.data, folder / "bipartite.tsv")
        if state.statistics is not None:
            from .io.dk_tables import write_dk_table

            write_dk_table(state.statistics, folder / "statistics.tsv")
        report = {"job": job, "release_id": release_id, "steps": state.report,
                  "release": state.release.to_dict() if state.release is not None else None}
        atomic_write_text(folder / "report.json",
                          json.dumps(to_jsonable(report), indent=2) + "\n")
        return str(folder)
    from .io.neo4j import Neo4jSink

    if state.release is None:
        raise InvalidParameterError(
            f"job {job!r}: a neo4j sink writes a release, but no step produced one (add a "
            "mechanism step)."
        )
    out = Neo4jSink(driver(sink), database=sink.get("database"),
                    batch_size=int(sink.get("batch_size", 10_000)))
    payload: dict[str, Any] = {}
    if state.statistics is not None and sink.get("write", "auto") in ("auto", "statistics"):
        payload["statistics"] = state.statistics
    elif isinstance(state.data, Graph):
        payload["graph"] = state.data
    else:
        payload["bipartite"] = state.data
    summary = out.write_release(
        state.release, release_id=release_id, dataset=sink.get("dataset"),
        keep_ids=bool(sink.get("keep_ids", False)), budget_total=sink.get("budget_total"),
        **payload,
    )
    return f"neo4j:{summary.release_id}"
