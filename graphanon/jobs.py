"""Scheduled export jobs: ``graphanon run JOB.toml``.

A job names its **source** (a file — the embedded default — or Neo4j), a list of **steps**
(each a registered name plus parameters, run in order on the current data) and its
**sinks** (files and/or Neo4j), with a release-id template. Example::

    [job]
    name = "weekly-interests"
    release_id = "interests-{date}"     # {job} {date} {datetime} {uuid}
    seed = 42                           # optional: seeds non-noise randomness (and the
                                        # noise of steps with noise = "numpy-insecure")
    ledger = "ledger.json"              # optional JSON privacy ledger (privacy.accountant),
    budget = 2.0                        # charged before any sink writes; total ε
    budget_neighbourhood = "edge"       # the relation the budget is stated for

    [source]
    type = "neo4j"                      # or "file" (path = ..., kind = graph|bipartite)
    kind = "bipartite"
    user_label = "User"
    feature_label = "Interest"
    rel = "HAS_INTEREST"
    id_prop = "uid"

    [[steps]]
    name = "describe"
    [[steps]]
    name = "randomized-response"
    epsilon = 2.0
    level = "edge"                      # noise = "opendp" (default, secure) | "numpy-insecure"

    [[sinks]]
    type = "file"
    path = "out/{release_id}"           # writes data, statistics and report.json there
    [[sinks]]
    type = "neo4j"
    dataset = "interests"               # ledger key: a stable name (required for DP releases)

Steps live in :data:`STEPS` (name -> ``step(state, params) -> None``): ``describe``,
``randomized-response``, ``release-dk``, ``release-dk-node``, ``release-degrees``,
``release-personalized``, ``project``, ``generate``, ``smooth-k``, ``mondrian``,
``b-anonymize`` (keys: ``docs/neo4j.md``, ``docs/bmatching.md``). A mechanism is registered with one
line, usually through :func:`mechanism_step`, which adapts a library function
``f(data, **params) -> result`` and supplies ``backend`` / ``rng`` / ``seed`` by the CLI's
noise convention::

    STEPS["release-dk"] = mechanism_step("graphanon.dk.release:release_dk")

A job publishes exactly one release (a second release step is refused); next to it the
sinks write only the release's output — never the private input graph.

Exit codes (through the CLI): 0 success, 2 bad input or configuration (also: another run of
the job holds its lock), 3 privacy budget refused, 4 database unavailable. Connection
settings come from the environment (``NEO4J_URI``, ``NEO4J_USER``, ``NEO4J_PASSWORD`` or
``NEO4J_PASSWORD_FILE``); a job file never holds a password.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import fcntl
import importlib
import inspect
import logging
import os
import re
import secrets
import string
import time
import tomllib
import uuid
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from .errors import GraphAnonError, InvalidParameterError
from .graph import BipartiteGraph, Graph

__all__ = [
    "NOISE_CHOICES",
    "STEPS",
    "JobLockedError",
    "JobResult",
    "JobState",
    "load_job",
    "mechanism_step",
    "register_step",
    "render_release_id",
    "run_job",
    "run_job_dict",
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
    seed: int | None  # seeds ``rng``; recorded in the release
    release: Any = None  # graphanon.privacy.release.Release of the job's one release
    statistics: Any = None  # released dK table: graphanon.dk.DKDistribution / DK3Distribution
    #: Released masked rows of ``b-anonymize`` (graphanon.io.masked.MaskedRelease): only
    #: the public cells, never the secret row permutation.
    masked: Any = None
    report: dict[str, Any] = field(default_factory=dict)
    #: True when ``data`` is the output of the release (randomized response, a generated
    #: graph) rather than the private input or something derived from it without a release.
    released_data: bool = False
    #: Folder of the job file: relative paths in step keys are resolved against it.
    base: Path = field(default_factory=Path)
    #: The public universe named by the source (``nodes`` / ``users`` / ``features`` files,
    #: or a Neo4j label read in full with ``universe = "label"``); passed to mechanisms that
    #: take it (:class:`graphanon.universe.Universe`).
    universe: Any = None


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
#: The values of a step's ``noise`` key, as the CLI's ``--noise`` (``cli._common.noise_options``).
NOISE_CHOICES = ("opendp", "numpy-insecure")
#: Keys a job file may not set on a step: the job supplies them (see :func:`mechanism_step`;
#: the universe comes from the [source] table).
_RESERVED = ("rng", "backend", "seed", "progress", "nodes", "users", "features")
_UNIVERSE_KEYS = ("nodes", "users", "features")


def _step_describe(state: JobState, params: dict[str, Any]) -> None:
    """Counts and degree statistics of the current data (``graphanon info``)."""
    from .metrics import describe_bipartite, describe_graph

    if params:
        raise InvalidParameterError(f"step 'describe' takes no parameters; got {sorted(params)}.")
    data = state.data
    state.report["describe"] = (
        describe_graph(data) if isinstance(data, Graph) else describe_bipartite(data)
    )


def _import_target(target: Callable[..., Any] | str) -> Callable[..., Any]:
    if callable(target):
        return target
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]


def mechanism_step(
    func: Callable[..., Any] | str,
    *,
    rng: str = "auto",
    defaults: Mapping[str, Any] | None = None,
) -> StepFn:
    """Adapt a library function ``func(data, **params)`` into a job step.

    Parameters
    ----------
    func
        The function, or ``"module:function"`` (imported on first use, so registering a
        step costs nothing at import time).
    rng : {"auto", "other", "noise", "none"}
        What ``func``'s ``rng`` argument is. ``"other"``: randomness that is not DP noise
        (projection keys, post-processing, graph generation) — always the job generator,
        which ``[job] seed`` seeds. ``"noise"``: the mechanism's noise source (randomized
        response's coin flips) — passed **only** with ``noise = "numpy-insecure"``; otherwise
        ``func`` keeps its secure default. ``"auto"``: ``"other"`` when ``func`` takes a
        ``backend`` (then the backend is its noise), else ``"noise"`` when it takes ``rng``.
    defaults
        Values for keyword arguments the job file may omit (e.g. ``max_degree=None``, which
        TOML cannot spell).

    Notes
    -----
    The step's TOML keys (except ``name``) are passed as keyword arguments, checked against
    ``func``'s signature first (an unknown or missing key is exit code 2, before anything
    runs). Noise follows the CLI's one convention (``--noise`` / ``--seed``): the step key
    ``noise = "opendp" | "numpy-insecure"`` (default ``"opendp"``, secure) becomes a
    :class:`~graphanon.privacy.noise.NoiseBackend` for functions that take ``backend``; the
    job seed seeds every non-noise random choice, and the noise only with
    ``"numpy-insecure"``. A seeded job never makes noise insecure by itself. ``seed`` (the
    job's seed, recorded in the release) is passed where ``func`` takes it. ``rng``,
    ``backend``, ``seed`` and ``progress`` cannot be set from a job file.

    The result may be a :class:`Graph` / :class:`BipartiteGraph` (the new data, derived
    from the current data) or a dataclass whose fields are inspected: a graph field becomes
    the new data, a :class:`~graphanon.privacy.release.Release` field the job's release, a
    :class:`~graphanon.dk.DKDistribution` / ``DK3Distribution`` field (or a 1-D ``counts``
    / ``histogram`` array indexed by degree, read as a 1K table) the released statistics; a
    :class:`~graphanon.nodedp.degree_sequences.DegreeSequenceRelease` becomes its 1K histogram. The
    other plain fields (not arrays, graphs or nested dataclasses) go into the job report
    under the function's name.
    """
    if rng not in ("auto", "other", "noise", "none"):
        raise InvalidParameterError(
            f"The 'rng' parameter of mechanism_step must be 'auto', 'other', 'noise' or 'none'. "
            f"Got {rng!r} instead."
        )
    fixed = dict(defaults or {})
    resolved: dict[str, Any] = {}

    def setup() -> dict[str, Any]:
        if not resolved:
            f = _import_target(func)
            sig = inspect.signature(f).parameters
            names = list(sig)[1:]  # the first parameter is the data
            role = rng
            if role == "auto":
                role = "other" if "backend" in sig else "noise" if "rng" in sig else "none"
            if role != "none" and "rng" not in sig:
                role = "none"
            required = {n for n in names if sig[n].default is inspect.Parameter.empty
                        and sig[n].kind is not inspect.Parameter.VAR_KEYWORD}
            resolved.update(
                func=f, name=getattr(f, "__name__", "mechanism"), role=role,
                backend="backend" in sig, seed="seed" in sig,
                universe=[k for k in _UNIVERSE_KEYS if k in sig],
                accepted={n for n in names if n not in _RESERVED},
                required=required - set(_RESERVED) - set(fixed),
                var_kw=any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.values()),
            )
        return resolved

    def step(state: JobState, params: dict[str, Any]) -> None:
        info = setup()
        name = info["name"]
        kwargs = {**fixed, **params}
        bad = sorted(set(params) & set(_RESERVED))
        if bad:
            raise InvalidParameterError(
                f"step {name!r} cannot set {', '.join(map(repr, bad))}: choose the noise with "
                "noise = \"opendp\" | \"numpy-insecure\" and seed the job with [job] seed."
            )
        draws_noise = info["backend"] or info["role"] == "noise"
        noise = kwargs.pop("noise", None)
        if noise is not None and not draws_noise:
            raise InvalidParameterError(
                f"step {name!r} draws no DP noise; remove its 'noise' key."
            )
        noise = "opendp" if noise is None else noise
        if noise not in NOISE_CHOICES:
            raise InvalidParameterError(
                f"The 'noise' key of step {name!r} must be 'opendp' or 'numpy-insecure'. "
                f"Got {noise!r} instead."
            )
        unknown = sorted(set(kwargs) - info["accepted"]) if not info["var_kw"] else []
        missing = sorted(info["required"] - set(kwargs))
        if unknown or missing:
            keys = ", ".join(sorted(info["accepted"] - set(fixed) | set(fixed)))
            what = (f"unknown keys {unknown}" if unknown else "") + (
                "; " if unknown and missing else "") + (
                f"missing keys {missing}" if missing else "")
            raise InvalidParameterError(
                f"step {name!r}: {what}. It takes: {keys}"
                + (", noise" if draws_noise else "") + "."
            )
        insecure = noise == "numpy-insecure"
        if info["backend"]:
            from .privacy.noise import get_backend

            kwargs["backend"] = (get_backend("numpy-insecure", rng=state.rng) if insecure
                                 else get_backend("opendp"))
        if info["role"] == "other" or (info["role"] == "noise" and insecure):
            kwargs["rng"] = state.rng
        if info["seed"]:
            kwargs["seed"] = state.seed
        for key in info["universe"]:
            value = None if state.universe is None else getattr(state.universe, key)
            if value is not None:
                kwargs[key] = value
        _check_data_kind(name, info["func"], state.data)
        result = info["func"](state.data, **kwargs)
        # an rng-noise mechanism (no seed argument) records the seed only when it was used
        used_universe = [k for k in info["universe"] if k in kwargs]
        _absorb(state, result, name,
                release_seed=state.seed if info["role"] == "noise" and insecure else None,
                universe_source=state.universe.source if used_universe else None)
        if draws_noise and isinstance(state.report.get(name), dict):
            state.report[name]["noise"] = noise

    step.__name__ = f"step_{func if isinstance(func, str) else func.__name__}"
    step.__doc__ = None if isinstance(func, str) else func.__doc__
    return step


def _absorb(state: JobState, result: Any, name: str, *,
            release_seed: int | None = None, universe_source: str | None = None) -> None:
    from .dk.extract import DK3Distribution, DKDistribution
    from .nodedp.degree_sequences import DegreeSequenceRelease
    from .privacy.release import Release

    if isinstance(result, (Graph, BipartiteGraph)):
        state.data = result  # derived from the current data: it stays private or released
        return
    if not dataclasses.is_dataclass(result) or isinstance(result, type):
        raise InvalidParameterError(f"step {name!r} returned {type(result).__name__}; expected "
                                    "a graph or a result dataclass.")
    summary: dict[str, Any] = {}
    graph: Graph | BipartiteGraph | None = None
    release: Release | None = None
    for f in dataclasses.fields(result):
        value = getattr(result, f.name)
        if isinstance(value, (Graph, BipartiteGraph)):
            graph = value
        elif isinstance(value, Release):
            release = value
        elif isinstance(value, (DKDistribution, DK3Distribution)):
            state.statistics = value
        elif (isinstance(value, np.ndarray) and value.ndim == 1
              and f.name in ("counts", "histogram")):
            state.statistics = DKDistribution("degree", np.arange(value.size)[:, None], value)
        elif not (isinstance(value, np.ndarray) or dataclasses.is_dataclass(value)):
            summary[f.name] = value
    if isinstance(result, DegreeSequenceRelease):
        state.statistics = result.histogram()
    if release is not None:
        if state.release is not None:
            raise InvalidParameterError(
                f"step {name!r} makes a second release, but a job publishes exactly one (its "
                f"sinks write one release and the ledger charges one ε; the first was "
                f"{state.release.mechanism!r}). Split the job."
            )
        if release_seed is not None and release.seed is None:
            release = dataclasses.replace(release, seed=release_seed)
        if universe_source is not None:  # where the public universe came from (public)
            release = dataclasses.replace(
                release, params={**release.params, "universe_source": universe_source})
        state.release = release
    if graph is not None:
        state.data = graph
        # the output of a release is publishable; a graph derived without one inherits the
        # status of the data it came from
        if release is not None:
            state.released_data = True
    state.report[name] = summary


def _step_release_degrees(state: JobState, params: dict[str, Any]) -> None:
    """``release-degrees``: ``method = "rps" | "laplace" | "hay"``
    (:mod:`graphanon.nodedp.degree_sequences`)."""
    kwargs = dict(params)
    method = kwargs.pop("method", "rps")
    funcs = {"rps": "rps_degree_sequence", "laplace": "laplace_degree_sequence",
             "hay": "hay_degree_sequence"}
    if method not in funcs:
        raise InvalidParameterError(
            f"The 'method' key of step 'release-degrees' must be 'rps', 'laplace' or 'hay'. "
            f"Got {method!r} instead."
        )
    mechanism_step(f"graphanon.nodedp.degree_sequences:{funcs[method]}")(state, kwargs)


def _step_release_personalized(state: JobState, params: dict[str, Any]) -> None:
    """``release-personalized``: per-node ε from ``prefs`` (a ``node<TAB>epsilon`` file,
    relative to the job file), ``prefs_attribute`` (a node property of the source) or
    ``prefs_scheme = "thesis"``; ``default_epsilon`` for unlisted nodes; every other key is
    a parameter of :func:`graphanon.dk.personalized.release_personalized`."""
    from .dk import preferences as pp

    kwargs = dict(params)
    path = kwargs.pop("prefs", None)
    scheme = kwargs.pop("prefs_scheme", None)
    attribute = kwargs.pop("prefs_attribute", None)
    default = kwargs.pop("default_epsilon", None)
    if sum(x is not None for x in (path, scheme, attribute)) != 1:
        raise InvalidParameterError(
            "step 'release-personalized' needs exactly one of the keys 'prefs' (a file), "
            "'prefs_attribute' (a node property) or 'prefs_scheme' (\"thesis\").")
    if not isinstance(state.data, Graph):
        raise InvalidParameterError("step 'release-personalized' needs a social graph source.")
    if kwargs.get("privacy") == "node" and path is None:
        raise InvalidParameterError(
            "step 'release-personalized' with privacy = \"node\" needs 'prefs' (a public "
            "table file): 'prefs_scheme' and 'prefs_attribute' derive the table from the "
            "private node set.")
    if path is not None:
        from .io.preferences import read_preferences

        prefs = read_preferences(_resolve(state.base, str(path)), default=default)
    elif attribute is not None:
        prefs = pp.from_attribute(state.data, str(attribute), default=default)
    elif scheme == "thesis":
        nodes = None if state.universe is None else state.universe.nodes
        if nodes is None:
            raise InvalidParameterError(
                "step 'release-personalized' with prefs_scheme = \"thesis\" draws the "
                "preferences over the public node universe: give [source] nodes = FILE.")
        prefs = pp.thesis_scheme(nodes, rng=state.rng)
    else:
        raise InvalidParameterError(
            f"The 'prefs_scheme' key of step 'release-personalized' must be 'thesis'. "
            f"Got {scheme!r} instead.")

    def release_personalized(G: Graph, **kw: Any) -> Any:
        from .dk.personalized import release_personalized as impl

        return impl(G, prefs, **kw)

    release_personalized.__signature__ = _personalized_signature()  # type: ignore[attr-defined]
    mechanism_step(release_personalized)(state, kwargs)


def _personalized_signature() -> Any:
    """``release_personalized``'s signature without the ``prefs`` argument."""
    import inspect

    from .dk.personalized import release_personalized

    sig = inspect.signature(release_personalized)
    return sig.replace(parameters=[p for n, p in sig.parameters.items() if n != "prefs"])


def _step_generate(state: JobState, params: dict[str, Any]) -> None:
    """``generate``: a synthetic graph realizing the released 1K / 2K table (post-processing)."""
    from .dk.extract import DKDistribution
    from .dk.generate import dk_graph

    if params:
        raise InvalidParameterError(f"step 'generate' takes no parameters; got {sorted(params)}.")
    table = state.statistics
    if (state.release is None or not isinstance(table, DKDistribution)
            or table.kind not in ("degree", "joint_degree")):
        raise InvalidParameterError(
            "step 'generate' builds a graph from a released 1K or 2K table: put a release-dk, "
            "release-dk-node or release-degrees step before it."
        )
    S = dk_graph(table, rng=state.rng)
    state.data = S.graph
    state.released_data = True  # post-processing of the release
    state.report["generate"] = {"d": S.d, "method": S.method, "exact": S.exact,
                                "deviation": S.deviation, "nodes": S.graph.n_nodes,
                                "edges": S.graph.n_edges}


_B_ANONYMIZE_OPTIONS = ("candidates", "max_iter", "time_limit")


def _step_b_anonymize(state: JobState, params: dict[str, Any]) -> None:
    """``b-anonymize``: adaptive anonymity via b-matching of a bipartite source (issue 8).

    Keys: exactly one of ``delta`` (an int for every user), ``delta_file`` (``user<TAB>delta``,
    relative to the job file) or ``delta_attribute`` (a user property the source read, e.g.
    a Neo4j ``node_props`` entry); ``symmetric = true`` (Algorithm 2) or ``baseline =
    "k-anonymity"``; ``candidates``, ``max_iter``, ``time_limit`` (symmetric only). The
    output is checked with ``verify_adaptive_anonymity`` before the step returns (a failure
    stops the job before any sink runs); the sinks write the masked rows (file:
    ``masked.tsv``; Neo4j: ``ANON_HAS_FEATURE`` / ``ANON_MASKED``) and the report, never the
    secret row permutation ``owner`` nor the private input.
    """
    from .anonymity.bmatching import adaptive_anonymize
    from .io.levels import levels_from_values, read_delta_file
    from .io.masked import MaskedRelease

    kwargs = dict(params)
    if not isinstance(state.data, BipartiteGraph):
        raise InvalidParameterError("step 'b-anonymize' needs a bipartite source (kind = "
                                    "\"bipartite\").")
    if state.release is not None:
        raise InvalidParameterError(
            f"step 'b-anonymize' makes a second release, but a job publishes exactly one (the "
            f"first was {state.release.mechanism!r}). Split the job.")
    delta = kwargs.pop("delta", None)
    delta_file = kwargs.pop("delta_file", None)
    delta_attribute = kwargs.pop("delta_attribute", None)
    symmetric = kwargs.pop("symmetric", False)
    baseline = kwargs.pop("baseline", None)
    if sum(x is not None for x in (delta, delta_file, delta_attribute)) != 1:
        raise InvalidParameterError(
            "step 'b-anonymize' needs exactly one of the keys 'delta' (an int), 'delta_file' "
            "(a user<TAB>delta file) or 'delta_attribute' (a user property).")
    if not isinstance(symmetric, bool):
        raise InvalidParameterError(
            f"The 'symmetric' key of step 'b-anonymize' must be true or false. Got {symmetric!r}.")
    if baseline not in (None, "k-anonymity"):
        raise InvalidParameterError(
            f"The 'baseline' key of step 'b-anonymize' must be 'k-anonymity'. Got {baseline!r}.")
    if symmetric and baseline:
        raise InvalidParameterError("step 'b-anonymize': 'symmetric' and 'baseline' exclude "
                                    "each other.")
    allowed = () if baseline else (_B_ANONYMIZE_OPTIONS if symmetric
                                   else _B_ANONYMIZE_OPTIONS[:2])
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown:
        raise InvalidParameterError(
            f"step 'b-anonymize': unknown keys {unknown}. It takes: delta | delta_file | "
            f"delta_attribute, symmetric, baseline, {', '.join(_B_ANONYMIZE_OPTIONS)} "
            "(time_limit with symmetric only; none with baseline).")
    B = state.data
    levels: Any
    if delta is not None:
        if isinstance(delta, bool) or not isinstance(delta, int):
            raise InvalidParameterError(
                f"The 'delta' key of step 'b-anonymize' must be an int. Got {delta!r} instead.")
        levels = delta
    elif delta_file is not None:
        levels = read_delta_file(_resolve(state.base, str(delta_file)), B.user_ids)
    else:
        name = str(delta_attribute)
        if name not in B.user_attributes:
            raise InvalidParameterError(
                f"step 'b-anonymize': the source has no user property {name!r} (read it with "
                f"[source] node_props = [\"{name}\"]); it has "
                f"{sorted(B.user_attributes) or 'none'}.")
        levels = levels_from_values(B.user_attributes[name], B.user_ids,
                                    source=f"user property {name!r}")
    method = ("k-anonymity" if baseline else
              "symmetric-b-matching" if symmetric else "b-matching")
    res = adaptive_anonymize(B, delta=levels, rng=state.rng, method=method, verify=True,
                             **kwargs)
    if res.verification is None or not res.verification.ok:  # pragma: no cover - raises first
        raise GraphAnonError("step 'b-anonymize': the output fails verify_adaptive_anonymity; "
                             "nothing is written.")
    state.masked = MaskedRelease.from_result(res)
    state.release = res.release(source_fingerprint=B.content_hash, seed=state.seed)
    summary = res.summary()  # public fields only: no owner, no rows
    summary.update(cells_written=state.masked.n_cells, masked_cells=state.masked.n_masked)
    state.report["b-anonymize"] = summary


def _k_anonymity_step(target: str, mechanism: Callable[[dict[str, Any]], str],
                      public: tuple[str, ...]) -> StepFn:
    """A smooth-k / Mondrian step: run, verify (``verify_smooth_k``), record the release.

    The anonymized graph becomes the job's released data and the step's k-anonymity Release
    record (public parameters only: ``public`` keys of the step) the job's release; a release
    that fails the verification stops the job before any sink runs.
    """
    inner = mechanism_step(target, rng="other")

    def step(state: JobState, params: dict[str, Any]) -> None:
        from .anonymity import verify_smooth_k
        from .privacy.release import Release

        if state.release is not None:
            raise InvalidParameterError(
                f"step {target.rsplit(':', 1)[1]!r} makes a second release, but a job "
                f"publishes exactly one (the first was {state.release.mechanism!r}).")
        original = state.data
        inner(state, params)
        k = int(params["k"])
        assert isinstance(original, BipartiteGraph) and isinstance(state.data, BipartiteGraph)
        check = verify_smooth_k(original, state.data, k)
        if not check.ok:  # pragma: no cover - the mechanisms guarantee it
            raise GraphAnonError("the release failed verify_smooth_k; nothing is written: "
                                 + "; ".join(check.violations[:3]))
        state.release = Release.k_anonymity(
            mechanism(params), k=k, params={p: params[p] for p in public if p in params},
            seed=state.seed, source_fingerprint=original.content_hash)
        state.released_data = True

    return step


#: Registered steps: name -> ``step(state, params)``. A mechanism is one line through
#: :func:`mechanism_step` (``"module:function"`` strings are imported on first use).
STEPS: dict[str, StepFn] = {
    "describe": _step_describe,
    "randomized-response": mechanism_step(
        "graphanon.anonymity.randomized_response:randomized_response"),
    "release-dk": mechanism_step("graphanon.dk.release:release_dk",
                                 defaults={"max_degree": None}),
    "release-dk-node": mechanism_step("graphanon.nodedp.theta_dk:theta_dk_release"),
    "release-degrees": _step_release_degrees,
    "release-personalized": _step_release_personalized,
    "project": mechanism_step("graphanon.nodedp.projection:project", rng="other"),
    "smooth-k": _k_anonymity_step(
        "graphanon.anonymity.smooth_k:smooth_k_anonymity",
        lambda p: ("k-anonymity-suppression" if p.get("variant") == "suppress"
                   else "smooth-k-anonymity"),
        ("variant", "alpha", "restarts", "postprocess", "shard_size")),
    "mondrian": _k_anonymity_step("graphanon.anonymity.mondrian:mondrian",
                                  lambda p: "mondrian", ("split",)),
    "generate": _step_generate,
    "b-anonymize": _step_b_anonymize,
}


def _check_data_kind(name: str, func: Callable[..., Any], data: Any) -> None:
    """Refuse a step whose function takes the other kind of graph than the job's data."""
    params = list(inspect.signature(func).parameters.values())
    ann = str(params[0].annotation) if params else ""
    if "BipartiteGraph" in ann and not isinstance(data, BipartiteGraph):
        raise InvalidParameterError(
            f"step {name!r} needs a bipartite (user–feature) source; this job's data is a "
            "social graph (set kind = \"bipartite\" in [source]).")
    if "BipartiteGraph" not in ann and "Graph" in ann and not isinstance(data, Graph):
        raise InvalidParameterError(
            f"step {name!r} needs a social graph source; this job's data is a bipartite "
            "user–feature graph.")


def _is_distributed(st: Any) -> bool:
    """A step table naming ``scheduler`` or ``cluster`` runs on Dask (graphanon.distributed)."""
    return isinstance(st, dict) and ("scheduler" in st or "cluster" in st)


def _run_distributed(state: JobState, name: str, params: dict[str, Any]) -> None:
    """Run a distributed step: it reads and writes partitioned Parquet folders itself
    (``input``, ``out``, ``clusters_out``, relative to the job file) and leaves the job's
    data unchanged; its summary goes into the job report."""
    from .distributed.steps import run_distributed_step

    p = dict(params)
    for key in ("input", "out", "clusters_out"):
        if isinstance(p.get(key), str):
            p[key] = str(_resolve(state.base, p[key]))
    state.report[f"{name} (distributed)"] = run_distributed_step(name, p, seed=state.seed)


def register_step(name: str, step: StepFn) -> None:
    """Register ``step`` under ``name`` (an existing name is replaced)."""
    if not isinstance(name, str) or not name:
        raise InvalidParameterError(f"a step name must be a non-empty str; got {name!r}.")
    STEPS[name] = step


# ----------------------------------------------------------------------- config
_TEMPLATE_KEYS = ("job", "date", "datetime", "uuid")
_JOB_KEYS = frozenset({"name", "release_id", "seed", "ledger", "budget",
                       "budget_neighbourhood", "dataset"})
_RELEASE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,199}")
_JOB_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


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
    rendered = template.format(**values)
    if not _RELEASE_ID.fullmatch(rendered):
        raise InvalidParameterError(
            f"The 'release_id' template {template!r} renders to {rendered!r}: a release id must "
            "be 1-200 letters, digits, '.', '_', ':' or '-', starting with a letter or digit "
            "(it names folders and Neo4j records: no '/' or '..').")
    return rendered


_SINK_FIELDS = ("release_id", "job")


def render_sink_path(template: str, *, release_id: str, job: str) -> str:
    """Fill ``{release_id}`` and ``{job}`` in a file sink's path — nothing else.

    Only those two plain fields are allowed: no attribute or index access
    (``{release_id.__class__}``), conversions or format specs, no other names, and the
    result holds no NUL character.
    """
    if "\x00" in template:
        raise InvalidParameterError("a file sink path must not contain a NUL character.")
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise InvalidParameterError(
            f"bad file sink path template {template!r}: {exc}.") from None
    out = []
    for literal, fname, spec, conv in parsed:
        out.append(literal)
        if fname is None:
            continue
        if fname not in _SINK_FIELDS or spec or conv:
            raise InvalidParameterError(
                f"The file sink path {template!r} uses {{{fname}{'!' + conv if conv else ''}"
                f"{':' + spec if spec else ''}}}; only {{release_id}} and {{job}} may appear "
                "(write a literal brace as {{ or }}).")
        out.append(release_id if fname == "release_id" else job)
    return "".join(out)


def load_job(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and validate a job file (no connection is made)."""
    p = Path(path)
    try:
        cfg = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidParameterError(f"job file {str(p)!r} does not exist.") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InvalidParameterError(f"job file {str(p)!r} is not valid TOML: {exc}.") from None
    except IsADirectoryError:
        raise InvalidParameterError(f"job file {str(p)!r} is a folder.") from None
    return _validate_job(cfg, p)


def _validate_job(cfg: dict[str, Any], p: Path) -> dict[str, Any]:
    """Validate a parsed job; ``p`` names it in messages and its folder is the job's base."""
    if not isinstance(cfg, dict):
        raise InvalidParameterError(f"job {str(p)!r} must be a table (a dict).")
    unknown = set(cfg) - {"job", "source", "steps", "sinks"}
    if unknown:
        raise InvalidParameterError(f"job file {str(p)!r}: unknown sections {sorted(unknown)}.")
    job = _table(cfg, "job", p)
    unknown_keys = sorted(set(job) - _JOB_KEYS)
    if unknown_keys:
        raise InvalidParameterError(
            f"job file {str(p)!r}: unknown key(s) {', '.join(unknown_keys)} in [job] (known: "
            f"{', '.join(sorted(_JOB_KEYS))}); steps go in [[steps]] tables.")
    job.setdefault("name", p.stem)
    job.setdefault("release_id", "{job}-{datetime}")
    if not isinstance(job["name"], str) or not _JOB_NAME.fullmatch(job["name"]):
        raise InvalidParameterError(
            f"job file {str(p)!r}: [job] name must be 1-100 letters, digits, '.', '_' or '-' "
            f"(it names the job's lock file). Got {job['name']!r}.")
    render_release_id(job["release_id"], job=job["name"])  # validates the template
    seed = job.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise InvalidParameterError(f"job file {str(p)!r}: seed must be an int >= 0.")
    if job.get("ledger") is not None:
        budget = job.get("budget")
        if not isinstance(job["ledger"], str) or isinstance(budget, bool) or not isinstance(
                budget, (int, float)) or not budget > 0:
            raise InvalidParameterError(
                f"job file {str(p)!r}: [job] ledger needs a path and budget = the dataset's "
                "total ε (> 0).")
        if not isinstance(job.get("dataset"), str) or not job["dataset"]:
            raise InvalidParameterError(
                f"job file {str(p)!r}: [job] ledger needs dataset = a stable name of the "
                "source data (the budget is kept per name; a content hash would reset it "
                "whenever the data changes).")
        if job.get("budget_neighbourhood", "edge") not in ("edge", "node"):
            raise InvalidParameterError(
                f"job file {str(p)!r}: [job] budget_neighbourhood must be 'edge' or 'node'.")
    steps = cfg.get("steps", [])
    if not isinstance(steps, list):
        raise InvalidParameterError(f"job file {str(p)!r}: use [[steps]] tables.")
    distributed_only = bool(steps) and all(_is_distributed(st) for st in steps)
    source: dict[str, Any] | None = None
    if not (distributed_only and "source" not in cfg):
        source = _table(cfg, "source", p)
        _check_source(source, p)
    for i, st in enumerate(steps):
        if _is_distributed(st):
            from .distributed.steps import DISTRIBUTED_STEPS

            if st.get("name") not in DISTRIBUTED_STEPS:
                raise InvalidParameterError(
                    f"job file {str(p)!r}: step {i + 1} ({st.get('name')!r}) names a "
                    f"scheduler or cluster; only {', '.join(DISTRIBUTED_STEPS)} run "
                    "distributed.")
            continue
        if not isinstance(st, dict) or st.get("name") not in STEPS:
            raise InvalidParameterError(
                f"job file {str(p)!r}: step {i + 1} has unknown name "
                f"{(st or {}).get('name')!r}; registered steps: {', '.join(sorted(STEPS))}."
            )
        if st.get("noise", "opendp") not in NOISE_CHOICES:
            raise InvalidParameterError(
                f"job file {str(p)!r}: step {i + 1} ({st['name']}) has noise = "
                f"{st['noise']!r}; use 'opendp' (secure, the default) or 'numpy-insecure'."
            )
    sinks = cfg.get("sinks", [])
    if not isinstance(sinks, list) or (not sinks and not distributed_only):
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
    for key in _UNIVERSE_KEYS:
        if key in src and not isinstance(src[key], str):
            raise InvalidParameterError(
                f"job file {str(p)!r}: [source] {key} must name a file (one id per line).")
    if "nodes" in src and kind != "graph":
        raise InvalidParameterError(
            f"job file {str(p)!r}: [source] nodes is the universe of a social graph; a "
            "bipartite source takes users and features.")
    if ("users" in src or "features" in src) and kind != "bipartite":
        raise InvalidParameterError(
            f"job file {str(p)!r}: [source] users / features are the universe of a bipartite "
            "source; a social graph takes nodes.")
    if "universe" in src:
        if typ != "neo4j":
            raise InvalidParameterError(
                f"job file {str(p)!r}: [source] universe = \"label\" is for Neo4j sources; a "
                "file source names its universe with nodes / users / features files.")
        if any(key in src for key in _UNIVERSE_KEYS):
            raise InvalidParameterError(
                f"job file {str(p)!r}: [source] has universe = \"label\" and universe files; "
                "name one universe.")
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
    if src.get("universe") not in (None, "label"):
        raise InvalidParameterError(
            f"job file {str(p)!r}: [source] universe must be 'label' (every node with the "
            f"label, isolated ones included). Got {src['universe']!r}.")
    if "query" in src:
        if src.get("universe") is not None:
            raise InvalidParameterError(
                f"job file {str(p)!r}: [source] universe needs labels; a query cannot say "
                "which nodes exist.")
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
    if sink["type"] == "file":
        if not isinstance(sink.get("path"), str):
            raise InvalidParameterError(f"job file {str(p)!r}: file sink {i + 1} needs a path.")
        render_sink_path(sink["path"], release_id="r", job="j")  # validates the template
        if "keep_ids" in sink and not isinstance(sink["keep_ids"], bool):
            raise InvalidParameterError(
                f"job file {str(p)!r}: file sink {i + 1} has keep_ids = {sink['keep_ids']!r}; "
                "use true or false.")
    if sink["type"] == "neo4j" and sink.get("write", "auto") not in ("auto", "statistics",
                                                                     "graph"):
        raise InvalidParameterError(
            f"job file {str(p)!r}: neo4j sink {i + 1} has write = {sink['write']!r}; use "
            "'auto', 'statistics' or 'graph'.")
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
    paths and the lock file are resolved against it. Everything else is :func:`run_job`.
    """
    base = Path(base_dir if base_dir is not None else os.getcwd()).resolve()
    name = (config.get("job") or {}).get("name") if isinstance(config, Mapping) else None
    where = base / f"<job {name or 'dict'}>"
    cfg = _validate_job(copy.deepcopy(dict(config)) if isinstance(config, Mapping)
                        else config, where)
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
    from .io._atomic import output_transaction
    from .privacy.release import run_clock

    t0 = time.perf_counter()
    job = cfg["job"]
    name = job["name"]
    lock = Path(lock_dir or Path(cfg["path"]).parent) / f".{name}.graphanon.lock"
    # run_clock: every record is stamped with the job's start, not when the data was read;
    # output_transaction: the file sinks' files are put in place together, after every sink
    # (and the ledger charge) succeeded, or not at all
    with _job_lock(lock, name), run_clock(), output_transaction():
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
            # as the CLI's --seed: a fresh seed is drawn (and recorded) when none is given;
            # it seeds non-noise randomness, and the noise only with noise="numpy-insecure"
            seed = job.get("seed")
            seed = secrets.randbits(63) if seed is None else seed
            rng = np.random.default_rng(seed)
            base = Path(cfg["path"]).parent
            universe: Any = None
            if cfg["source"] is None:  # every step reads its own partitioned input
                data: Graph | BipartiteGraph = Graph.from_edges([], [], n_nodes=0)
            else:
                universe = _read_universe(cfg["source"], base)
                data, label_universe = _read_source(cfg["source"], driver, base)
                universe = label_universe if label_universe is not None else universe
                _event("source_read", job=name, **_shape(data),
                       **({"universe": universe.source} if universe is not None else {}))
            state = JobState(data=data, rng=rng, seed=seed, base=base, universe=universe)
            state.report["seed"] = seed
            names = []
            for st in cfg["steps"]:
                params = {k: v for k, v in st.items() if k != "name"}
                t = time.perf_counter()
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    if _is_distributed(st):
                        _run_distributed(state, st["name"], params)
                    else:
                        STEPS[st["name"]](state, params)
                for w in caught:
                    _event("step_warning", job=name, step=st["name"], warning=str(w.message),
                           category=w.category.__name__)
                    state.report.setdefault("warnings", []).append(
                        {"step": st["name"], "category": w.category.__name__,
                         "message": str(w.message)})
                names.append(st["name"])
                _event("step_done", job=name, step=st["name"],
                       seconds=round(time.perf_counter() - t, 3))
            if job.get("ledger") is not None and state.release is not None:
                _charge_ledger(job, state.release, Path(cfg["path"]).parent)
            outputs = []
            try:
                for sink in cfg["sinks"]:
                    outputs.append(_write_sink(sink, state, release_id, name, driver,
                                               Path(cfg["path"]).parent))
                    _event("sink_written", job=name, sink=sink["type"], target=outputs[-1])
            except OSError as exc:
                raise InvalidParameterError(
                    f"job {name!r}: cannot write a sink: {exc.strerror or exc}"
                    f"{': ' + str(exc.filename) if exc.filename else ''}.") from None
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


def _not_private_note() -> str:
    from .privacy.release import NOT_PRIVATE_NOTE

    return NOT_PRIVATE_NOTE


def _charge_ledger(job: Mapping[str, Any], release: Any, base: Path) -> None:
    """Charge the release to the JSON ledger of ``[job] ledger`` before any sink writes.

    Same rules as everywhere (:func:`graphanon.privacy.accountant.charge_epsilon`); a release
    without an ε (k-anonymity) is not charged. Refusal raises PrivacyBudgetExceeded (exit 3)
    and nothing is written. The charge is made first, so a sink failing afterwards leaves the
    ε spent (conservative: never under-counted).
    """
    from .privacy.accountant import Accountant, charge_epsilon

    nb = job.get("budget_neighbourhood", "edge")
    if charge_epsilon(release, nb) is None:
        return
    acc = Accountant(float(job["budget"]), dataset=job["dataset"],
                     neighbourhood=nb, ledger=_resolve(base, job["ledger"]))
    entry = acc.spend(release)
    _event("ledger_charged", job=job["name"], epsilon=entry.epsilon, spent=acc.spent,
           budget=acc.budget)


def _publishable(state: JobState) -> tuple[bool, str]:
    """Whether a job's output may be published, and why (or why not)."""
    rel = state.release
    if rel is None:
        return False, ("no release step: the data is the private input or derived from it "
                       "without a privacy mechanism")
    if rel.neighbourhood == "none":
        return False, f"{rel.mechanism} makes no privacy claim (a reproduction or plain output)"
    if rel.backend == "numpy-insecure":
        return False, ("the noise came from the seeded numpy-insecure backend: reproducible "
                       "and NOT a secure release")
    return True, f"{rel.mechanism}: {rel.neighbourhood} guarantee with secure randomness"


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


def _read_universe(src: dict[str, Any], base: Path) -> Any:
    """The public universe named by ``[source] nodes / users / features`` (files), or None."""
    from .io.universe import read_id_list
    from .universe import Universe

    given = {k: read_id_list(_resolve(base, src[k]), what=k.rstrip("s"))
             for k in _UNIVERSE_KEYS if k in src}
    if not given:
        return None
    return Universe(**given, source="given by the operator ([source] " +
                    ", ".join(sorted(given)) + " files)")


def _read_source(src: dict[str, Any], driver: Callable[[dict[str, Any]], Any],
                 base: Path) -> tuple[Graph | BipartiteGraph, Any]:
    """The source's data and, for ``universe = "label"``, its public Universe."""
    kind = src.get("kind", "graph")
    if src.get("type", "file") == "file":
        from .io.files import read_bipartite, read_graph

        path = _resolve(base, src["path"])
        if kind == "bipartite":
            if src.get("preset"):
                from .io.tables import load_preset

                return load_preset(path, src["preset"]), None
            return read_bipartite(path), None
        return read_graph(path, format=src.get("format")), None
    from .io.neo4j import Neo4jSource

    source = Neo4jSource(driver(src), database=src.get("database"),
                         fetch_size=int(src.get("fetch_size", 10_000)),
                         memory_limit=src.get("memory_limit", 4 * 2**30))
    force = bool(src.get("force", False))
    universe = src.get("universe")
    if "query" in src:
        return source.read_query_graph(src["query"], src.get("parameters"),
                                       bipartite=kind == "bipartite"), None
    if kind == "graph":
        read: Any = source.read_graph(label=src["label"], rel_type=src["rel"],
                                      id_property=src.get("id_prop"),
                                      node_properties=src.get("node_props", []), force=force,
                                      universe=universe)
    else:
        read = source.read_bipartite(
            user_label=src["user_label"], feature_label=src["feature_label"],
            rel_type=src["rel"], user_id_property=src.get("id_prop"),
            feature_id_property=src.get("feature_id_prop", src.get("id_prop")),
            user_properties=src.get("node_props", []), force=force, universe=universe,
        )
    return read if universe is not None else (read, None)


def _write_sink(sink: dict[str, Any], state: JobState, release_id: str, job: str,
                driver: Callable[[dict[str, Any]], Any], base: Path) -> str:
    """Write one sink. File sinks write through :func:`graphanon.io._atomic.atomic_path`
    inside the job's output transaction: nothing is put in place before every sink of the
    job has succeeded.

    A file sink's folder has two parts (``docs/privacy.md``, "What may be published"):

    ``publish/``
        The release's output (``statistics.tsv``, ``masked.tsv``, the anonymized
        ``bipartite.tsv`` with keyed per-release user pseudonyms unless ``keep_ids = true``,
        or a generated ``graph.graphml``) and ``release.json``, its Release record — only when
        the release is secure (a DP release with secure noise, or a verified k-anonymity
        release).
    ``operator/``
        ``report.json`` (every step's numbers, including those computed against the private
        input) and, when there is nothing publishable, the data itself: a job without a
        release, or a release that claims no privacy or used the seeded ``numpy-insecure``
        noise.
    """
    if sink["type"] == "file":
        import json

        from .io._atomic import atomic_write_text
        from .io.files import write_bipartite, write_graph
        from .report import to_jsonable

        target = _resolve(base, render_sink_path(sink["path"], release_id=release_id, job=job))
        keep_ids = bool(sink.get("keep_ids", False))
        publishable, why = _publishable(state)
        folder = target / ("publish" if publishable else "operator")
        # next to a release, only its output is written: never the private input (or a
        # graph derived from it without the release, e.g. a projection)
        write_data = state.release is None or state.released_data
        written: list[str] = []
        if write_data:
            if isinstance(state.data, Graph):
                fname = sink.get("graph_name", "graph.graphml")
                write_graph(state.data, folder / fname)
            else:
                data = state.data
                if state.release is not None and not keep_ids:
                    from .privacy.pseudonyms import pseudonymize

                    data = BipartiteGraph(
                        data.indptr, data.indices, data.n_features,
                        user_ids=pseudonymize(data.user_ids, scope=release_id),
                        feature_ids=data.feature_ids, validate=False)
                fname = "bipartite.tsv"
                write_bipartite(data, folder / fname)
            written.append(f"{folder.name}/{fname}")
        if state.statistics is not None:
            from .io.dk_tables import write_dk_table

            write_dk_table(state.statistics, folder / "statistics.tsv")
            written.append(f"{folder.name}/statistics.tsv")
        if state.masked is not None:
            from .io.masked import write_masked

            write_masked(state.masked, folder / "masked.tsv")
            written.append(f"{folder.name}/masked.tsv")
        record = state.release.to_dict() if state.release is not None else None
        if record is not None:
            atomic_write_text(folder / "release.json",
                              json.dumps(to_jsonable(record), indent=2) + "\n")
            written.append(f"{folder.name}/release.json")
        report = {"job": job, "release_id": release_id, "release": record,
                  "publishable": publishable, "why": why, "written": written,
                  "user_ids": ("real (keep_ids = true)" if keep_ids
                               else "keyed per-release pseudonyms"),
                  "not_private": {"note": _not_private_note(), "steps": state.report}}
        atomic_write_text(target / "operator" / "report.json",
                          json.dumps(to_jsonable(report), indent=2) + "\n")
        return str(target)
    from .io.neo4j import Neo4jSink

    if state.release is None:
        raise InvalidParameterError(
            f"job {job!r}: a neo4j sink writes a release, but no step produced one (add a "
            "mechanism step)."
        )
    out = Neo4jSink(driver(sink), database=sink.get("database"),
                    batch_size=int(sink.get("batch_size", 10_000)))
    payload: dict[str, Any] = {}
    what = sink.get("write", "auto")
    if state.masked is not None and what != "statistics":
        payload["masked"] = state.masked
    elif what == "statistics" or (what == "auto" and state.statistics is not None):
        if state.statistics is None:
            raise InvalidParameterError(
                f"job {job!r}: the neo4j sink has write = 'statistics' but no step released "
                "a table.")
        payload["statistics"] = state.statistics
    elif not state.released_data:
        raise InvalidParameterError(
            f"job {job!r}: the neo4j sink would write the current graph under release "
            f"{state.release.mechanism!r}, but that graph is not the release's output (it is "
            "the private input or derived from it); write the released statistics, or add a "
            "step whose output is the release (e.g. generate).")
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
