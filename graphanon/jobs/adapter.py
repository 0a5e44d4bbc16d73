"""Adapting a library function into a job step: keys checked against its signature, noise
and randomness supplied by the CLI's convention, and its result absorbed into the job."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._compat import variant_for
from ..errors import InvalidParameterError
from ..graph import BipartiteGraph, Graph
from ..params import Spec
from .state import NOISE_CHOICES, UNIVERSE_KEYS, JobState, StepFn

__all__ = ["absorb", "check_data_kind", "import_target", "load_spec", "mechanism_step"]

#: Keys a job file may not set on a step: the job supplies them (see :func:`mechanism_step`;
#: the universe comes from the [source] table).
_RESERVED = ("rng", "backend", "seed", "progress", "nodes", "users", "features")


def import_target(target: Callable[..., Any] | str) -> Callable[..., Any]:
    if callable(target):
        return target
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]


def mechanism_step(
    func: Callable[..., Any] | str,
    *,
    rng: str = "auto",
    defaults: Mapping[str, Any] | None = None,
    spec: Spec | str | None = None,
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
    spec
        The function's :class:`~graphanon.params.Spec` (or ``"module:NAME"``): the step then
        takes exactly the spec's job keys (instead of reading them off the signature) and
        refuses a key that does not apply to the chosen setting (``theta`` under
        ``neighbourhood = "edge"``), before anything runs.

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
            f = import_target(func)
            sig = inspect.signature(f).parameters
            names = list(sig)[1:]  # the first parameter is the data
            role = rng
            if role == "auto":
                role = "other" if "backend" in sig else "noise" if "rng" in sig else "none"
            if role != "none" and "rng" not in sig:
                role = "none"
            required = {n for n in names if sig[n].default is inspect.Parameter.empty
                        and sig[n].kind is not inspect.Parameter.VAR_KEYWORD}
            # a secure function's paper-variant keywords (domain = "observed", ...): still
            # accepted until they are removed, with a warning naming the reproduction's step
            routed = getattr(f, "__paper_variants__", None)
            variant_keys = dict(routed[1]) if routed is not None else {}
            declared = load_spec(spec) if isinstance(spec, str) else spec
            accepted = {n for n in names if n not in _RESERVED}
            if declared is not None:
                accepted = set(declared.job_keys())
                required = {p.name for p in declared.params if p.job and p.required}
            resolved.update(
                func=f, name=getattr(f, "__name__", "mechanism"), role=role,
                backend="backend" in sig, seed="seed" in sig,
                universe=[k for k in UNIVERSE_KEYS if k in sig],
                accepted=accepted | set(variant_keys), spec=declared,
                variants=variant_keys, variant_target=routed[0] if routed else None,
                required=required - set(_RESERVED) - set(fixed),
                var_kw=any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.values()),
            )
        return resolved

    def step(state: JobState, params: dict[str, Any]) -> None:
        info = setup()
        name = info["name"]
        if info["spec"] is not None:  # old key names (deprecated): the new ones
            params = info["spec"].rename(params, style="job")
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
        if info["spec"] is not None:
            info["spec"].check_applies(kwargs, set(params) & set(info["spec"].names),
                                       style="job")
        insecure = noise == "numpy-insecure"
        if info["backend"]:
            from ..privacy.noise import get_backend

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
        check_data_kind(name, info["func"], state.data)
        # a paper variant chosen by its keys (domain = "observed", ...) runs its reproduction
        # (deprecated: the reproduction is a step of its own)
        chosen = {k: v for k, v in kwargs.items()
                  if k in info["variants"] and v != info["variants"][k]}
        if chosen:
            _warn_variant_keys(name, chosen, info["variant_target"])
        func = info["func"]
        if not getattr(func, "__routes_itself__", False):
            func = variant_for(func, kwargs)
        result = func(state.data, **kwargs)
        # an rng-noise mechanism (no seed argument) records the seed only when it was used
        used_universe = [k for k in info["universe"] if k in kwargs]
        absorb(state, result, name,
                release_seed=state.seed if info["role"] == "noise" and insecure else None,
                universe_source=state.universe.source if used_universe else None)
        if draws_noise and isinstance(state.report.get(name), dict):
            state.report[name]["noise"] = noise

    step.__name__ = f"step_{func if isinstance(func, str) else func.__name__}"
    step.__doc__ = None if isinstance(func, str) else func.__doc__
    return step


def load_spec(target: str) -> Spec:
    """The :class:`~graphanon.params.Spec` at ``"module:NAME"``."""
    module, _, attr = target.partition(":")
    spec = getattr(importlib.import_module(module), attr)
    if not isinstance(spec, Spec):
        raise TypeError(f"{target} is not a graphanon.params.Spec")
    return spec


def reproduction_steps() -> dict[str, str]:
    """The job step of each paper reproduction: ``function name -> step name`` (the
    registry's ``reproduce`` rows; a custom step function is named ``<function>_step``)."""
    from .. import registry

    out = {}
    for r in registry.REGISTRY:
        if r.family == "reproduce" and r.step is not None:
            func = r.step.target.rpartition(":")[2]
            out[func.removesuffix("_step") if r.step.custom else func] = r.name
    return out


def _warn_variant_keys(name: str, chosen: Mapping[str, Any], target: str | None) -> None:
    import warnings

    func = (target or "").rpartition(":")[2]
    step = reproduction_steps().get(func, func)
    shown = ", ".join(f"{k} = {v!r}" for k, v in chosen.items())
    warnings.warn(
        f"step {name!r}: the keys {shown} choose a paper reproduction, not the secure "
        f"mechanism; name the step {step!r} instead (these keys are removed in 0.3.0).",
        DeprecationWarning, stacklevel=2)


def absorb(state: JobState, result: Any, name: str, *,
            release_seed: int | None = None, universe_source: str | None = None) -> None:
    step = state.step or name  # the step's name in the job file, for messages
    from ..dk.extract import DK3Distribution, DKDistribution
    from ..nodedp.degree_sequences import DegreeSequenceRelease
    from ..privacy.release import Release

    if isinstance(result, (Graph, BipartiteGraph)):
        state.data = result  # derived from the current data: it stays private or released
        if not state.released_data:
            state.derived_by = step
        return
    if not dataclasses.is_dataclass(result) or isinstance(result, type):
        raise InvalidParameterError(f"step {step!r} returned {type(result).__name__}; expected "
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
        dp = release.epsilon is not None or release.epsilon_summary is not None
        if dp and state.derived_by is not None:
            raise InvalidParameterError(
                f"step {step!r} would release the output of step {state.derived_by!r} with "
                f"ε-DP, but its ε protects neighbouring {state.derived_by} outputs, not "
                f"neighbouring inputs: one edge or node of the source can change the "
                f"{state.derived_by} output by more than one (a projection's cascades), so no "
                "guarantee about the source follows. Run the DP step on the source (the "
                "node-DP steps project by themselves: theta = ...).")
        if state.release is not None:
            raise InvalidParameterError(
                f"step {step!r} makes a second release, but a job publishes exactly one (its "
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
        elif not state.released_data:
            state.derived_by = step
    state.report[name] = summary


def check_data_kind(name: str, func: Callable[..., Any], data: Any) -> None:
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
