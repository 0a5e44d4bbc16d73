"""The job steps: every registered name (:mod:`graphanon.registry`) and the step functions
that are more than one library call (files next to the job, verification, dispatch).

A library function ``f(data, **params)`` needs no code here: its row in the registry names it
and :func:`~graphanon.jobs.adapter.mechanism_step` adapts it. The step functions below are
grouped by family, in the registry's order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import registry
from ..errors import GraphAnonError, InvalidParameterError
from ..graph import BipartiteGraph, Graph
from .adapter import import_target, mechanism_step
from .state import JobState, StepFn, resolve_path

__all__ = ["STEPS", "register_step"]

def describe_step(state: JobState, params: dict[str, Any]) -> None:
    """``info``: counts and degree statistics of the current data (``graphanon info``),
    reported under the step's name."""
    from ..metrics import describe_bipartite, describe_graph

    name = state.step or "info"
    if params:
        raise InvalidParameterError(f"step {name!r} takes no parameters; got {sorted(params)}.")
    data = state.data
    state.report[name] = (
        describe_graph(data) if isinstance(data, Graph) else describe_bipartite(data)
    )


def _renamed(old: str, new: str) -> None:
    """The warning of a job step name that changed (issue 37: step names are command
    names)."""
    import warnings

    warnings.warn(f"the job step {old!r} is now {new} (the old name is removed in 0.3.0).",
                  DeprecationWarning, stacklevel=3)


def describe_alias_step(state: JobState, params: dict[str, Any]) -> None:
    """``describe``: the old name of ``info`` (removed in 0.3.0)."""
    _renamed("describe", "'info'")
    describe_step(state, params)


def release_dk_step(state: JobState, params: dict[str, Any]) -> None:
    """``release-dk``: the edge-DP release (:func:`graphanon.dk.release.release_dk`) or, with
    ``neighbourhood = "node"``, θ-dKε (:func:`graphanon.nodedp.theta_dk.theta_dk_release`),
    as ``graphanon release-dk --neighbourhood edge|node``. A key of the other relation is
    refused; ``privacy`` is the key's old name (until 0.3.0)."""
    from ..nodedp.theta_dk import RELEASE_DK_EITHER as both

    params = both.rename(params, style="job")
    relation = params.get("neighbourhood", "edge")
    if relation in ("edge", "node"):
        both.check_applies(params, set(params) & set(both.names) - {"neighbourhood"},
                           style="job")
    if relation == "node":
        _THETA_DK(state, {k: v for k, v in params.items() if k != "neighbourhood"})
    else:
        _RELEASE_DK(state, params)


def release_dk_node_step(state: JobState, params: dict[str, Any]) -> None:
    """``release-dk-node``: the old name of ``release-dk`` with ``neighbourhood = "node"``."""
    _renamed("release-dk-node", "'release-dk' with neighbourhood = \"node\"")
    _THETA_DK(state, params)


def release_degrees_step(state: JobState, params: dict[str, Any]) -> None:
    """``release-degrees``: ``method = "rps" | "laplace" | "hay"``
    (:mod:`graphanon.nodedp.degree_sequences`; the keys of the chosen method's spec, another
    method's refused)."""
    from .adapter import load_spec

    both = load_spec(registry.specs()["release-degrees"])
    kwargs = dict(params)
    method = kwargs.pop("method", "rps")
    if method not in both.parts:
        raise InvalidParameterError(
            f"The 'method' key of step 'release-degrees' must be 'rps', 'laplace' or 'hay'. "
            f"Got {method!r} instead."
        )
    both.check_applies({**kwargs, "method": method}, set(kwargs) & set(both.names),
                       style="job")
    spec = both.parts[method]
    mechanism_step(f"graphanon.nodedp.degree_sequences:{spec.owner}", spec=spec)(state, kwargs)


def release_personalized_step(state: JobState, params: dict[str, Any]) -> None:
    """``release-personalized``: per-node ε from ``prefs`` (a ``node<TAB>epsilon`` file,
    relative to the job file), ``prefs_attribute`` (a node property of the source) or
    ``prefs_scheme = "thesis"``; ``default_epsilon`` for unlisted nodes; every other key is
    a parameter of :func:`graphanon.dk.personalized.release_personalized`."""
    _personalized(state, params, "graphanon.dk.personalized:release_personalized",
                  "release-personalized")


def release_personalized_thesis_step(state: JobState, params: dict[str, Any]) -> None:
    """``release-personalized-thesis``: chapter 8 as written
    (:func:`graphanon.reproduce.personalized_thesis.release_personalized_thesis`), with the
    keys of ``release-personalized``."""
    _personalized(state, params,
                  "graphanon.reproduce.personalized_thesis:release_personalized_thesis",
                  "release-personalized-thesis")


#: Keys the personalized steps read themselves (the preference table), besides the
#: function's (``dk.personalized.PERSONALIZED``).
PREFERENCE_KEYS = ("prefs", "prefs_scheme", "prefs_attribute", "default_epsilon")


def _personalized(state: JobState, params: dict[str, Any], target: str, step: str) -> None:
    from ..dk import preferences as pp

    impl = import_target(target)
    spec = None
    if step in registry.specs():  # the function's declared keys
        from .adapter import load_spec

        spec = load_spec(registry.specs()[step])
        routed = set(getattr(impl, "__paper_variants__", (None, {}))[1])
        takes = set(spec.job_keys()) | set(PREFERENCE_KEYS) | routed | set(spec.aliases())
        unknown = sorted(set(params) - takes - {"noise"})
        if unknown:
            raise InvalidParameterError(
                f"step {step!r}: unknown keys {unknown}. It takes: "
                f"{', '.join(sorted(takes))}, noise.")
    kwargs = dict(params)
    path = kwargs.pop("prefs", None)
    scheme = kwargs.pop("prefs_scheme", None)
    attribute = kwargs.pop("prefs_attribute", None)
    default = kwargs.pop("default_epsilon", None)
    if sum(x is not None for x in (path, scheme, attribute)) != 1:
        raise InvalidParameterError(
            f"step {step!r} needs exactly one of the keys 'prefs' (a file), "
            "'prefs_attribute' (a node property) or 'prefs_scheme' (\"thesis\").")
    if not isinstance(state.data, Graph):
        raise InvalidParameterError(f"step {step!r} needs a social graph source.")
    if kwargs.get("neighbourhood", kwargs.get("privacy")) == "node" and path is None:
        raise InvalidParameterError(
            f"step {step!r} with neighbourhood = \"node\" needs 'prefs' (a public "
            "table file): 'prefs_scheme' and 'prefs_attribute' derive the table from the "
            "private node set.")
    if path is not None:
        from ..io.preferences import read_preferences

        prefs = read_preferences(resolve_path(state.base, str(path)), default=default)
    elif attribute is not None:
        prefs = pp.from_attribute(state.data, str(attribute), default=default)
    elif scheme == "thesis":
        nodes = None if state.universe is None else state.universe.nodes
        if nodes is None:
            raise InvalidParameterError(
                f"step {step!r} with prefs_scheme = \"thesis\" draws the "
                "preferences over the public node universe: give [source] nodes = FILE.")
        prefs = pp.thesis_scheme(nodes, rng=state.rng)
    else:
        raise InvalidParameterError(
            f"The 'prefs_scheme' key of step {step!r} must be 'thesis'. "
            f"Got {scheme!r} instead.")

    def release_personalized(G: Graph, **kw: Any) -> Any:
        from .._compat import variant_for

        return variant_for(impl, kw)(G, prefs, **kw)

    release_personalized.__name__ = impl.__name__
    release_personalized.__signature__ = _without_prefs(impl)  # type: ignore[attr-defined]
    if hasattr(impl, "__paper_variants__"):  # its deprecated keys (graphanon.jobs.adapter)
        release_personalized.__paper_variants__ = impl.__paper_variants__  # type: ignore[attr-defined]
        release_personalized.__routes_itself__ = True  # type: ignore[attr-defined]
    mechanism_step(release_personalized, spec=spec)(state, kwargs)


def _without_prefs(func: Callable[..., Any]) -> Any:
    """``func``'s signature without the ``prefs`` argument (the step reads the table)."""
    import inspect

    sig = inspect.signature(func)
    return sig.replace(parameters=[p for n, p in sig.parameters.items() if n != "prefs"])


def generate_step(state: JobState, params: dict[str, Any]) -> None:
    """``generate``: a synthetic graph realizing the released 1K / 2K table (post-processing)."""
    from ..dk.extract import DKDistribution
    from ..dk.generate import dk_graph

    if params:
        raise InvalidParameterError(f"step 'generate' takes no parameters; got {sorted(params)}.")
    table = state.statistics
    if (state.release is None or not isinstance(table, DKDistribution)
            or table.kind not in ("degree", "joint_degree")):
        raise InvalidParameterError(
            "step 'generate' builds a graph from a released 1K or 2K table: put a release-dk, "
            "release-dk-node or release-degrees step before it."
        )
    from ..privacy.publish import derived_release

    S = dk_graph(table, rng=state.rng)
    state.data = S.graph
    state.released_data = True  # post-processing of the release
    state.derived = derived_release(state.release, S.graph, mechanism="generate",
                                    params={"d": S.d, "method": S.method}, seed=state.seed)
    state.report["generate"] = {"d": S.d, "method": S.method, "exact": S.exact,
                                "deviation": S.deviation, "nodes": S.graph.n_nodes,
                                "edges": S.graph.n_edges}


#: The step's own keys (the users' levels, read beside the job); the mechanism's are
#: :data:`graphanon.anonymity.bmatching.B_ANONYMIZE`'s.
B_ANONYMIZE_LEVEL_KEYS = ("delta", "delta_file", "delta_attribute")
#: The keys before ``method`` (removed in 0.3.0): ``symmetric = true`` and ``baseline =
#: "k-anonymity"``, each the method it chose.
_B_ANONYMIZE_OLD_KEYS = {"symmetric": (True, "symmetric-b-matching"),
                         "baseline": ("k-anonymity", "k-anonymity")}


def b_anonymize_step(state: JobState, params: dict[str, Any]) -> None:
    """``b-anonymize``: adaptive anonymity via b-matching of a bipartite source (issue 8).

    Keys: exactly one of ``delta`` (an int for every user), ``delta_file`` (``user<TAB>delta``,
    relative to the job file) or ``delta_attribute`` (a user property the source read, e.g.
    a Neo4j ``node_props`` entry); and the mechanism's keys, declared once in
    :data:`~graphanon.anonymity.bmatching.B_ANONYMIZE` (``method``, ``candidates``,
    ``max_iter``, ``time_limit``; a key of another method is refused). Until 0.3.0 the old
    keys ``symmetric = true`` / ``baseline = "k-anonymity"`` still choose the method, with a
    deprecation. The output is checked with ``verify_adaptive_anonymity`` before the step
    returns (a failure stops the job before any sink runs); the sinks write the masked rows
    (file: ``masked.tsv``; Neo4j: ``ANON_HAS_FEATURE`` / ``ANON_MASKED``) and the report,
    never the secret row permutation ``owner`` nor the private input.
    """
    import warnings

    from ..anonymity.bmatching import B_ANONYMIZE, adaptive_anonymize
    from ..io.levels import levels_from_values, read_delta_file
    from ..io.masked import MaskedRelease

    kwargs = dict(params)
    if not isinstance(state.data, BipartiteGraph):
        raise InvalidParameterError("step 'b-anonymize' needs a bipartite source (kind = "
                                    "\"bipartite\").")
    if state.release is not None:
        raise InvalidParameterError(
            f"step 'b-anonymize' makes a second release, but a job publishes exactly one (the "
            f"first was {state.release.mechanism!r}). Split the job.")
    for old, (value, method) in _B_ANONYMIZE_OLD_KEYS.items():
        if old not in kwargs:
            continue
        given = kwargs.pop(old)
        if given is False and old == "symmetric":  # the default method: nothing to choose
            warnings.warn("step 'b-anonymize': the key 'symmetric' is removed in 0.3.0 (now "
                          "method = \"...\"); leave it out.", DeprecationWarning, stacklevel=2)
            continue
        if given != value:
            raise InvalidParameterError(
                f"The {old!r} key of step 'b-anonymize' (old: use method = \"{method}\") must "
                f"be {value!r}. Got {given!r} instead.")
        if "method" in kwargs and kwargs["method"] != method:
            raise InvalidParameterError(
                f"step 'b-anonymize': the keys {old!r} and 'method' choose different methods; "
                "give 'method' only.")
        kwargs["method"] = method
        warnings.warn(f"step 'b-anonymize': the key {old!r} is now method = \"{method}\" "
                      "(the old key is removed in 0.3.0).", DeprecationWarning, stacklevel=2)
    accepted = set(B_ANONYMIZE_LEVEL_KEYS) | set(B_ANONYMIZE.job_keys())
    unknown = sorted(set(kwargs) - accepted)
    if unknown:
        raise InvalidParameterError(
            f"step 'b-anonymize': unknown keys {unknown}. It takes: "
            f"{', '.join(sorted(accepted))}.")
    delta = kwargs.pop("delta", None)
    delta_file = kwargs.pop("delta_file", None)
    delta_attribute = kwargs.pop("delta_attribute", None)
    if sum(x is not None for x in (delta, delta_file, delta_attribute)) != 1:
        raise InvalidParameterError(
            "step 'b-anonymize' needs exactly one of the keys 'delta' (an int), 'delta_file' "
            "(a user<TAB>delta file) or 'delta_attribute' (a user property).")
    B_ANONYMIZE.check_applies(kwargs, set(kwargs), style="job")
    B = state.data
    levels: Any
    if delta is not None:
        if isinstance(delta, bool) or not isinstance(delta, int):
            raise InvalidParameterError(
                f"The 'delta' key of step 'b-anonymize' must be an int. Got {delta!r} instead.")
        levels = delta
    elif delta_file is not None:
        levels = read_delta_file(resolve_path(state.base, str(delta_file)), B.user_ids)
    else:
        name = str(delta_attribute)
        if name not in B.user_attributes:
            raise InvalidParameterError(
                f"step 'b-anonymize': the source has no user property {name!r} (read it with "
                f"[source] node_props = [\"{name}\"]); it has "
                f"{sorted(B.user_attributes) or 'none'}.")
        levels = levels_from_values(B.user_attributes[name], B.user_ids,
                                    source=f"user property {name!r}")
    res = adaptive_anonymize(B, delta=levels, rng=state.rng, verify=True, **kwargs)
    if res.verification is None or not res.verification.ok:  # pragma: no cover - raises first
        raise GraphAnonError("step 'b-anonymize': the output fails verify_adaptive_anonymity; "
                             "nothing is written.")
    state.masked = MaskedRelease.from_result(res)
    state.release = res.release(source_fingerprint=B.content_hash, seed=state.seed)
    summary = res.summary()  # public fields only: no owner, no rows
    summary.update(cells_written=state.masked.n_cells, masked_cells=state.masked.n_masked)
    state.report["b-anonymize"] = summary


def _k_anonymity_step(target: str, mechanism: Callable[[dict[str, Any]], str],
                      public: tuple[str, ...], spec: str) -> StepFn:
    """A smooth-k / Mondrian step: run, verify (``verify_smooth_k``), record the release.

    The anonymized graph becomes the job's released data and the step's k-anonymity Release
    record (public parameters only: ``public`` keys of the step) the job's release; a release
    that fails the verification stops the job before any sink runs.
    """
    inner = mechanism_step(target, rng="other", spec=spec)

    def step(state: JobState, params: dict[str, Any]) -> None:
        from ..anonymity import verify_smooth_k
        from ..privacy.release import Release

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


def smooth_k_step(state: JobState, params: dict[str, Any]) -> None:
    """``smooth-k``: :func:`graphanon.anonymity.smooth_k_anonymity`, verified."""
    _SMOOTH_K(state, params)


def mondrian_step(state: JobState, params: dict[str, Any]) -> None:
    """``mondrian``: :func:`graphanon.anonymity.mondrian`, verified."""
    _MONDRIAN(state, params)


_SMOOTH_K = _k_anonymity_step(
    "graphanon.anonymity.smooth_k:smooth_k_anonymity",
    lambda p: ("k-anonymity-suppression" if p.get("variant") == "suppress"
               else "smooth-k-anonymity"),
    ("variant", "alpha", "restarts", "postprocess", "shard_size"), registry.specs()["smooth-k"])
_MONDRIAN = _k_anonymity_step("graphanon.anonymity.mondrian:mondrian", lambda p: "mondrian",
                              ("split",), registry.specs()["mondrian"])


def _custom(target: str) -> StepFn:
    """A registered step function, imported when the step first runs."""

    def step(state: JobState, params: dict[str, Any]) -> None:
        import_target(target)(state, params)

    step.__name__ = target.rpartition(":")[2]
    return step


#: Registered steps: name -> ``step(state, params)``, one per row of
#: :data:`graphanon.registry.REGISTRY` that has a job step (imported on first use).
STEPS: dict[str, StepFn] = {
    name: (_custom(spec.target) if spec.custom
           else mechanism_step(spec.target, rng=spec.rng, defaults=spec.defaults,
                               spec=registry.specs().get(name)))
    for name, spec in registry.steps().items()
}


_RELEASE_DK = mechanism_step("graphanon.dk.release:release_dk",
                             spec=registry.specs()["release-dk"])
_THETA_DK = mechanism_step("graphanon.nodedp.theta_dk:theta_dk_release",
                           spec=registry.specs()["release-dk-node"])


def register_step(name: str, step: StepFn) -> None:
    """Register ``step`` under ``name`` (an existing name is replaced)."""
    if not isinstance(name, str) or not name:
        raise InvalidParameterError(f"a step name must be a non-empty str; got {name!r}.")
    STEPS[name] = step
