"""A mechanism's parameters are declared once (issue 37): the function's signature and
validation, its click command, its job step and its docs table all agree with its
:class:`~graphanon.params.Spec`, and :func:`disagreements` — what this file asserts empty
for every registry row — catches a spec that drifted from any of them."""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import click
import numpy as np
import pytest

from graphanon import jobs, registry
from graphanon.cli import cli
from graphanon.cli._spec import _type, option_settings
from graphanon.errors import InvalidParameterError
from graphanon.graph import BipartiteGraph, Graph
from graphanon.jobs import steps as steps_module
from graphanon.jobs.adapter import mechanism_step
from graphanon.jobs.state import JobState
from graphanon.params import REQUIRED, Param, Spec, render_block

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import param_docs  # noqa: E402

#: Keywords a spec does not declare: the data's public universes (their own options / the
#: job's [source]) and the run's plumbing (noise, randomness, progress).
NOT_DECLARED = {"nodes", "users", "features", "prefs", "rng", "backend", "seed", "progress",
                "delta"}  # b-anonymize: the users' own levels, read by --delta* / delta*

#: Keys a step reads itself (files and tables next to the job), besides its function's.
STEP_OWN_KEYS = {"release-personalized": set(steps_module.PREFERENCE_KEYS),
                 "release-personalized-thesis": set(steps_module.PREFERENCE_KEYS),
                 "b-anonymize": set(steps_module.B_ANONYMIZE_LEVEL_KEYS)}

SPECS = registry.specs()


def load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _data(name: str) -> tuple[Graph | BipartiteGraph, dict[str, Any]]:
    """A small valid input and the other keywords a call of ``name`` needs."""
    if name in ("release-personalized", "release-personalized-thesis"):
        from graphanon.dk.preferences import thesis_scheme

        G = Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3])
        prefs = thesis_scheme(G.node_ids, rng=np.random.default_rng(0))
        return G, {"prefs": prefs, "nodes": G.node_ids}
    if name in ("smooth-k", "mondrian"):
        X = np.random.default_rng(0).integers(0, 2, size=(12, 5))
        r, c = np.nonzero(X)
        B = BipartiteGraph.from_indices(r, c, n_users=12, n_features=5)
        return B, ({"rng": np.random.default_rng(0)} if name == "smooth-k" else {})
    if name == "b-anonymize":
        X = np.random.default_rng(0).integers(0, 2, size=(10, 4))
        r, c = np.nonzero(X)
        B = BipartiteGraph.from_indices(r, c, n_users=10, n_features=4)
        return B, {"delta": 2, "rng": np.random.default_rng(0)}
    if name == "randomized-response":
        B = BipartiteGraph.from_indices([0, 1, 2], [0, 1, 0], n_users=3, n_features=2)
        return B, {"users": B.user_ids, "features": B.feature_ids}
    G = Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3])
    return G, ({"nodes": G.node_ids} if name in ("synthesize", "release-dk",
                                                 "release-dk-thesis") else {})


def _job_keys(step: Any, data: Any, choose: dict[str, Any] | None = None) -> set[str]:
    """The keys a job step says it takes (from its refusal of an unknown key)."""
    state = JobState(data=data, rng=np.random.default_rng(0), seed=None)
    with pytest.raises(InvalidParameterError) as err, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # an old step name
        step(state, {**(choose or {}), "not_a_key": 1})
    listed = re.search(r"It takes: (.*)\.$", str(err.value))
    assert listed is not None, str(err.value)
    return {k.strip() for k in listed.group(1).split(",")} - {"noise"}


def function_specs(name: str, spec: Spec | None = None) -> list[tuple[Spec, Any]]:
    """Each function a registry row's spec declares, with its own spec: ``spec.owner`` in
    the spec's module (a combined spec: each of its parts)."""
    spec = load(SPECS[name]) if spec is None else spec
    module = importlib.import_module(SPECS[name].partition(":")[0])
    parts = list(spec.parts.values()) if spec.parts else [spec]
    return [(part, getattr(module, part.owner)) for part in parts]


def spec_function(name: str) -> Any:
    (_, func), = function_specs(name)
    return func


def _type_key(t: Any) -> tuple[Any, ...]:
    """What a click type accepts: its class, choices and range."""
    return (type(t).__name__, tuple(getattr(t, "choices", ()) or ()), getattr(t, "min", None),
            getattr(t, "max", None), getattr(t, "bounds", None))


def disagreements(name: str, spec: Spec) -> list[str]:
    """Every way the function, command, job step and docs of ``name`` differ from ``spec``."""
    bad: list[str] = []
    row = next(r for r in registry.REGISTRY if r.name == name)
    # the function (named by the spec, beside it): every keyword declared, same default
    for part, func in function_specs(name, spec):
        sig = list(inspect.signature(func).parameters.values())[1:]
        keywords = {p.name: p.default for p in sig if p.name not in NOT_DECLARED}
        if set(keywords) != set(part.names):
            bad.append(f"function keywords {sorted(keywords)} != spec {sorted(part.names)}")
        for p in part.params:
            want = inspect.Parameter.empty if p.required else p.default
            if p.name in keywords and keywords[p.name] != want:
                bad.append(f"default of {p.name!r}: function {keywords[p.name]!r}, spec "
                           f"{p.default!r}")
    # the command: one generated option per CLI parameter (of the command's spec, which
    # holds the function's parameters, each applying under its neighbouring relation)
    if row.cli is not None:
        cmd = cli.get_command(click.Context(cli), name)
        assert cmd is not None, name
        module = importlib.import_module(f"graphanon.cli.{row.cli}")
        command_spec = getattr(module, "COMMAND_SPECS", {}).get(name, spec)
        for p in spec.params:
            q = command_spec[p.name] if p.name in command_spec.names else None
            if q is None or Param(**{**q.__dict__, "only": p.only}) != p:
                if p.flag and p.name != "neighbourhood":
                    bad.append(f"the command's spec declares {p.name!r} differently")
        options = {o.name: o for o in cmd.params if isinstance(o, click.Option)}
        spec_for_cli = spec
        spec = command_spec
        for p in spec.cli_params():
            o = options.get(p.name)
            if o is None or p.flag not in o.opts:
                bad.append(f"command has no {p.flag}")
                continue
            want = option_settings(p, spec)
            if o.help != want["help"]:
                bad.append(f"{p.flag}: help differs from the spec's")
            if o.required != want.get("required", False):
                bad.append(f"{p.flag}: required={o.required}, spec {p.required}")
            want_type = _type(p) if p.kind != "bool" else o.type
            if _type_key(o.type) != _type_key(want_type):
                bad.append(f"{p.flag}: type {_type_key(o.type)}, spec {_type_key(want_type)}")
            click_default = want.get("default")
            default = None if type(o.default).__name__ == "Sentinel" else o.default
            if default != click_default:
                bad.append(f"{p.flag}: default {default!r}, spec {click_default!r}")
        for p in spec.params:
            if not p.flag and any(o.name == p.name for o in options.values()):
                bad.append(f"{p.name!r} is declared job/API-only but the command has it")
        spec = spec_for_cli
    # the job step: exactly the spec's job keys
    data, _ = _data(name)
    for value, (part, func) in zip(spec.parts or [None], function_specs(name, spec),
                                   strict=True):
        # the registered step, as a job file meets it (a combined spec: each choice)
        choose = {} if value is None else {spec.on: value}
        keys = _job_keys(jobs.STEPS[name], data, choose)
        keys -= set(getattr(func, "__paper_variants__", (None, {}))[1])  # until 0.3.0
        keys -= STEP_OWN_KEYS.get(name, set()) | set(part.aliases())  # old names: until 0.3.0
        if keys != set(part.job_keys()):
            bad.append(f"job keys {sorted(keys)} != spec {sorted(part.job_keys())}")
    # the docs: the generated table is the one on the page
    page = ROOT / spec.doc
    text = page.read_text(encoding="utf-8")
    try:
        if render_block(text, name, spec) != text:
            bad.append(f"{spec.doc}: the parameter table of {name} is stale "
                       "(python scripts/param_docs.py)")
    except ValueError as exc:
        bad.append(f"{spec.doc}: {exc}")
    return bad


def test_the_migrated_mechanisms_have_specs() -> None:
    assert {"synthesize", "randomized-response", "project", "smooth-k", "mondrian",
            "release-dk", "release-dk-node", "release-degrees",
            "release-personalized"} <= set(SPECS)
    # every row that runs a mechanism, the paper reproductions included
    mechanisms = {r.name for r in registry.REGISTRY
                  if r.family in ("anonymity", "dk", "nodedp", "synthetic", "reproduce")
                  and r.step is not None}
    assert mechanisms - set(SPECS) == {"generate"}  # it takes no keys
    for name, target in SPECS.items():
        assert isinstance(load(target), Spec), name


@pytest.mark.parametrize("name", sorted(SPECS))
def test_function_command_job_and_docs_agree_with_the_spec(name: str) -> None:
    assert disagreements(name, load(SPECS[name])) == []


@pytest.mark.parametrize("drift", ["default", "range", "help", "new-param", "job-only"])
def test_a_drifted_spec_is_caught(drift: str) -> None:
    """The checker is not vacuous: change the spec in each way and it says where."""
    spec: Spec = load(SPECS["synthesize"])
    params = list(spec.params)
    if drift == "default":
        params[1] = Param("neighbourhood", "choice", params[1].help, default="node",
                          choices=("edge", "node"), aliases=("privacy",))
        want = "default of 'neighbourhood'"
    elif drift == "range":
        params[2] = Param("theta", "int", params[2].help, default=16, low=1, high=99,
                          only=("neighbourhood", "node"))
        want = "--theta: type"
    elif drift == "help":
        params[0] = Param("epsilon", "epsilon", "Something else.")
        want = "help differs"
    elif drift == "new-param":
        params.append(Param("extra", "int", "A parameter the function lacks.", default=1))
        want = "function keywords"
    else:
        params[2] = Param("theta", "int", params[2].help, default=16, low=1, high=4096,
                          only=("neighbourhood", "node"), job=False)
        want = "job keys"
    drifted = Spec(spec.owner, tuple(params), doc=spec.doc)
    found = disagreements("synthesize", drifted)
    assert any(want in d for d in found), found


def test_the_docs_script_agrees() -> None:
    assert param_docs.main(["--check"]) == 0


# ---------------------------------------------------------------------- the generated checks
@pytest.mark.parametrize("name", sorted(SPECS))
def test_each_bound_and_choice_is_enforced_by_the_function(name: str) -> None:
    """Every declared range and choice refuses a value just outside it, naming the
    parameter, through the function itself."""
    for spec, func in function_specs(name):
        _check_bounds(name, spec, func)


def _base(spec: Spec) -> dict[str, Any]:
    """A valid value for every required parameter."""
    return {q.name: (q.choices[0] if q.kind == "choice" else 1.0
                     if q.kind in ("epsilon", "float") else 2)
            for q in spec.params if q.required}


def _check_bounds(name: str, spec: Spec, func: Any) -> None:
    data, extra = _data(name)
    base = _base(spec)
    base.update(extra)
    for p in spec.params:
        bad_values: list[Any] = []
        if p.kind == "choice":
            bad_values.append("not-a-choice")
        if p.low is not None:
            bad_values.append(p.low - 1)
        if p.high is not None:
            bad_values.append(p.high * 2 + 1)
        if p.kind == "epsilon":
            bad_values += [0.0, -1.0, float("nan")]
        for value in bad_values:
            call = {**base, p.name: value}
            for other, want in p.conditions:
                call[other] = want[0] if isinstance(want, tuple) else want
                if (other, want) == ("neighbourhood", "node"):
                    call.pop("nodes", None)
            with pytest.raises(InvalidParameterError, match=repr(p.name)):
                func(data, **call)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_a_parameter_for_another_setting_is_refused_everywhere(name: str) -> None:
    data, extra = _data(name)
    for spec, func in function_specs(name):
        for p in spec.params:
            if not p.conditions:
                continue
            other_name, want = p.conditions[0]
            other = spec[other_name]
            wants = want if isinstance(want, tuple) else (want,)
            elsewhere = (next(c for c in other.choices if c not in wants)
                         if other.kind == "choice" else 8)
            value = p.choices[0] if p.kind == "choice" else 0.5 if p.kind == "float" else (
                (p.low or 0) + 1)
            base = _base(spec)
            call = {**base, **extra, other_name: elsewhere, p.name: value}
            with pytest.raises(InvalidParameterError, match=f"{p.name!r} parameter of "
                                                            f"{spec.owner} applies to"):
                func(data, **call)
            step = mechanism_step(func, spec=spec)
            state = JobState(data=data, rng=np.random.default_rng(0), seed=None)
            with pytest.raises(InvalidParameterError, match=f"{p.name!r} key of {spec.owner} "
                                                            "applies to"):
                step(state, {**base, other_name: elsewhere, p.name: value})
    spec = load(SPECS[name])
    if spec.parts:  # the registered step refuses a key of another choice, naming it
        choices = list(spec.parts)
        for p in spec.params:
            if p.conditions and p.conditions[0][0] == spec.on:
                wants = p.conditions[0][1]
                wants = wants if isinstance(wants, tuple) else (wants,)
                elsewhere = next(c for c in choices if c not in wants)
                state = JobState(data=data, rng=np.random.default_rng(0), seed=None)
                with pytest.raises(InvalidParameterError,
                                   match=f"{p.name!r} key of {spec.owner} applies to"):
                    jobs.STEPS[name](state, {spec.on: elsewhere, "epsilon": 1.0,
                                             p.name: 2})


# ---------------------------------------------------------------------- the Spec itself
def test_a_spec_refuses_a_malformed_declaration() -> None:
    with pytest.raises(ValueError, match="kind"):
        Param("x", "complex", "help")
    with pytest.raises(ValueError, match="choices"):
        Param("x", "int", "help", choices=("a",))
    with pytest.raises(ValueError, match="twice"):
        Spec("f", (Param("x", "int", "h"), Param("x", "int", "h")))
    with pytest.raises(ValueError, match="unknown parameter 'mode'"):
        Spec("f", (Param("x", "int", "h", default=1, only=("mode", "a")),))


def test_validate_normalizes_and_names_the_caller_style() -> None:
    spec = Spec("f", (Param("mode", "choice", "m", default="a", choices=("a", "b")),
                      Param("n", "int", "n", default=3, low=1, high=9, only=("mode", "b")),
                      Param("on", "bool", "o", default=False)))
    assert spec.validate({"mode": "b", "n": np.int64(4)}) == {"mode": "b", "n": 4}
    assert spec.validate({"mode": "a", "n": 3}) == {"mode": "a", "n": 3}  # the default: fine
    with pytest.raises(InvalidParameterError,
                       match=r"The 'n' parameter of f applies to mode='b' only \(here "
                             r"mode='a'\)"):
        spec.validate({"mode": "a", "n": 5})
    with pytest.raises(InvalidParameterError, match="The '--n' option applies to --mode b"):
        spec.check_applies({"mode": "a"}, {"n"}, style="cli")
    with pytest.raises(InvalidParameterError, match="The 'n' key of f"):
        spec.check_applies({}, {"n"}, style="job")
    with pytest.raises(InvalidParameterError, match="'on' parameter of f must be a bool"):
        spec.validate({"on": 1})
    assert spec.defaults() == {"mode": "a", "n": 3, "on": False}
    assert REQUIRED is Spec("g", (Param("e", "epsilon", "e"),))["e"].default


def test_markdown_escapes_and_render_needs_its_markers() -> None:
    spec = Spec("f", (Param("mode", "choice", "a | b", default="a", choices=("a", "b")),))
    table = spec.markdown()
    assert "a \\| b" in table and "`a` \\| `b`" in table
    with pytest.raises(ValueError, match="params:f"):
        render_block("no markers", "f", spec)
    page = "x\n<!-- params:f -->\nold\n<!-- /params:f -->\ny\n"
    out = render_block(page, "f", spec)
    assert "old" not in out and table in out and out.startswith("x\n") and out.endswith("y\n")
    assert render_block(out, "f", spec) == out  # idempotent


# ---------------------------------------------------------------------- one name (issue 37)
def test_the_neighbouring_relation_has_one_name_and_the_old_ones_warn(tmp_path: Path) -> None:
    """``neighbourhood`` everywhere (API, CLI, jobs, records, ledgers); ``privacy`` /
    ``level`` still work until 0.3.0 with a deprecation, and both at once are refused."""
    from graphanon.anonymity.randomized_response import randomized_response_epsilon
    from graphanon.synthetic.pipeline import synthesize

    for name in ("synthesize", "release-dk", "release-personalized", "randomized-response"):
        spec = load(SPECS[name])
        assert "neighbourhood" in spec.names, name
        assert spec["neighbourhood"].aliases, name
    G = Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3])
    with pytest.warns(DeprecationWarning, match=r"synthesize\(privacy=...\) is now "
                                                r"synthesize\(neighbourhood=...\).*0\.3\.0"):
        res = synthesize(G, epsilon=5.0, privacy="node", theta=2,  # type: ignore[call-arg]
                         backend=None, rng=np.random.default_rng(0))
    assert res.release.neighbourhood == "node"
    with pytest.raises(InvalidParameterError, match="one setting"):
        synthesize(G, epsilon=5.0, privacy="node", neighbourhood="node")  # type: ignore[call-arg]
    with pytest.warns(DeprecationWarning, match="level"):
        old = randomized_response_epsilon(0.5, level="node", n_features=3)  # type: ignore[call-arg]
    assert old == randomized_response_epsilon(0.5, neighbourhood="node", n_features=3)


def test_old_option_names_warn_and_both_are_refused(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from graphanon.cli import main

    g = tmp_path / "g.txt"
    g.write_text("1 2\n2 3\n3 1\n")
    base = ["-q", "release-dk", str(g), "--d", "1", "--epsilon", "1", "--theta", "2",
            "--noise", "numpy-insecure", "--seed", "1"]
    assert main([*base, "--privacy", "node", "--out", str(tmp_path / "a.tsv")]) == 0
    err = capsys.readouterr().err
    assert "--privacy is now --neighbourhood" in err and "0.3.0" in err
    assert main([*base, "--neighbourhood", "node", "--out", str(tmp_path / "b.tsv")]) == 0
    assert "--privacy" not in capsys.readouterr().err
    assert (tmp_path / "a.tsv").read_text() == (tmp_path / "b.tsv").read_text()
    assert main([*base, "--privacy", "node", "--neighbourhood", "node", "--out",
                 str(tmp_path / "c.tsv")]) == 2
    assert "one setting" in capsys.readouterr().err and not (tmp_path / "c.tsv").exists()
