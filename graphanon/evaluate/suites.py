"""Evaluation suites: what ``graphanon evaluate`` runs, as named presets or a TOML file.

A suite names a dataset kind (``"adult"``: a user–feature table with an income label;
``"social"``: a graph), an input, a seed, the noise backend and one table per part:
``[risk]`` (adult only), ``[audit]`` and ``[utility]``. Every key is optional; unknown keys are
an error. Example::

    name = "Adult, full"
    dataset = "adult"
    input = "../shared/datasets/adult/adult.data"
    seed = 1

    [risk]
    ks = [2, 5, 10, 20, 50]
    qs = [1, 2, 3, 4, 5]
    rr_epsilons = [1, 5, 10]

    [audit]
    epsilons = [0.5, 1, 2, 4]
    mechanisms = ["randomized-response-edge", "randomized-response-node"]

    [utility]
    classifiers = ["logistic", "gradient-boosting"]

``--quick`` (or ``quick = true``) replaces the defaults by small grids for the demo and CI;
values given in the file still win.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._progress import ProgressFn, log_progress
from .._validation import check_choice, check_float, check_int
from ..errors import InvalidParameterError
from .targets import AUDIT_MECHANISMS
from .utility import CLASSIFIERS, SOCIAL_MECHANISMS

__all__ = [
    "DATASETS",
    "SUITES",
    "AuditConfig",
    "RiskConfig",
    "SuiteConfig",
    "UtilityConfig",
    "load_suite",
    "named_suite",
    "resolve_suite",
    "run_suite",
]

SUITES = ("adult", "social")
DATASETS = ("adult", "social")
_ADULT_AUDIT = ("randomized-response-edge", "randomized-response-node",
                "control-dk1-half-sensitivity")
_SOCIAL_AUDIT = tuple(m for m in AUDIT_MECHANISMS if not m.startswith("randomized"))


@dataclass(frozen=True)
class RiskConfig:
    """Part 1 (adult suites): re-identification risk (:mod:`graphanon.evaluate.risk`)."""

    enabled: bool = True
    ks: tuple[int, ...] = (2, 5, 10, 20, 50)
    qs: tuple[int, ...] = (1, 2, 3, 4, 5)
    rr_epsilons: tuple[float, ...] = (1.0, 5.0, 10.0)
    n_targets: int = 1000
    reference_k: int = 5
    b_anonymize_max_users: int = 3000


@dataclass(frozen=True)
class AuditConfig:
    """Part 2: empirical privacy audits (:mod:`graphanon.evaluate.empirical_audit`).

    ``confidence`` is family-wise: each of the ``m`` audits of real mechanisms in a report
    runs at ``1 − (1 − confidence)/m`` (Bonferroni).
    """

    enabled: bool = True
    mechanisms: tuple[str, ...] = ()
    epsilons: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0)
    n_select: int = 5_000
    n_eval: int = 50_000
    confidence: float = 0.95
    max_degree: int = 4
    theta: int = 3


@dataclass(frozen=True)
class UtilityConfig:
    """Part 3: downstream utility (:mod:`graphanon.evaluate.utility`)."""

    enabled: bool = True
    # adult
    ks: tuple[int, ...] = (2, 5, 10, 20, 50)
    epsilons: tuple[float, ...] = (0.5, 1.0, 2.0, 5.0, 10.0)
    classifiers: tuple[str, ...] = ("logistic", "gradient-boosting")
    test_fraction: float = 0.3
    b_anonymize_max_users: int = 3000
    b_anonymize_ks: tuple[int, ...] = ()  # () = every k of ks
    # social
    mechanisms: tuple[str, ...] = SOCIAL_MECHANISMS
    max_degree: int = 64
    theta: int = 16
    mpdc_tau: int = 4
    n_sources: int = 200
    max_synthetic_edges: int = 2_000_000


@dataclass(frozen=True)
class SuiteConfig:
    """A whole evaluation (see the module docstring)."""

    name: str
    dataset: str
    input: str | None = None
    seed: int = 0
    noise: str = "opendp"
    quick: bool = False
    risk: RiskConfig = field(default_factory=RiskConfig)
    audit: AuditConfig = field(default_factory=AuditConfig)
    utility: UtilityConfig = field(default_factory=UtilityConfig)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_QUICK: dict[str, dict[str, dict[str, Any]]] = {
    "adult": {
        "risk": {"ks": (2, 8, 32), "qs": (1, 2, 3, 4, 5), "rr_epsilons": (1.0, 5.0),
                 "n_targets": 300, "reference_k": 5, "b_anonymize_max_users": 2000},
        "audit": {"epsilons": (1.0, 2.0), "n_select": 1000, "n_eval": 4000},
        "utility": {"ks": (2, 8, 32), "epsilons": (1.0, 5.0), "classifiers": ("logistic",),
                    "b_anonymize_max_users": 2000},
    },
    "social": {
        "audit": {"epsilons": (1.0, 2.0), "n_select": 1000, "n_eval": 5000},
        "utility": {"epsilons": (1.0, 10.0), "n_sources": 30, "max_degree": 32, "theta": 8},
    },
}


def named_suite(name: str, *, input_path: str | None = None, quick: bool = False,
                seed: int = 0, noise: str = "opendp") -> SuiteConfig:
    """The preset ``"adult"`` or ``"social"`` (``input_path`` required for ``"social"``)."""
    check_choice(name, "suite", "named_suite", SUITES)
    check_choice(noise, "noise", "named_suite", ("opendp", "numpy-insecure"))
    if name == "social" and input_path is None:
        raise InvalidParameterError(
            "The social suite needs an INPUT graph: graphanon evaluate --suite social INPUT.")
    return _build({"name": f"{name}{' (quick)' if quick else ''}", "dataset": name,
                   "input": input_path, "seed": seed, "noise": noise, "quick": quick})


_TOP = {"name", "dataset", "input", "seed", "noise", "quick", "risk", "audit", "utility"}


def _section(cls: Any, data: Mapping[str, Any], where: str) -> Any:
    names = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(data) - set(names)
    if unknown:
        raise InvalidParameterError(
            f"The [{where}] table of the suite has unknown key(s) {sorted(unknown)}; known: "
            f"{sorted(names)}.")
    out: dict[str, Any] = {}
    for k, v in data.items():
        default = names[k].default
        if isinstance(default, tuple):
            if not isinstance(v, (list, tuple)):
                raise InvalidParameterError(
                    f"The '{where}.{k}' key of the suite must be a list. Got {v!r} instead.")
            out[k] = tuple(v)
        else:
            out[k] = v
    return cls(**out)


def _build(data: Mapping[str, Any]) -> SuiteConfig:
    unknown = set(data) - _TOP
    if unknown:
        raise InvalidParameterError(
            f"The suite has unknown key(s) {sorted(unknown)}; known: {sorted(_TOP)}.")
    dataset = check_choice(data.get("dataset"), "dataset", "the suite", DATASETS)
    quick = bool(data.get("quick", False))
    parts: dict[str, Any] = {}
    for part, cls in (("risk", RiskConfig), ("audit", AuditConfig),
                      ("utility", UtilityConfig)):
        if not isinstance(data.get(part) or {}, Mapping):
            raise InvalidParameterError(f"[{part}] of the suite must be a table.")
        given = dict(data.get(part) or {})
        base = dict(_QUICK[dataset].get(part, {})) if quick else {}
        if part == "audit" and "mechanisms" not in given:
            base["mechanisms"] = _ADULT_AUDIT if dataset == "adult" else _SOCIAL_AUDIT
        if part == "risk" and dataset == "social":
            base["enabled"] = False
        parts[part] = _section(cls, {**base, **given}, part)
    if dataset == "social" and (parts["risk"].enabled or data.get("risk")):
        raise InvalidParameterError(
            "The [risk] part needs a user–feature table (dataset = 'adult'); a social suite "
            "would ignore it.")
    seed = data.get("seed")
    seed = secrets.randbits(63) if seed is None else check_int(seed, "seed", "the suite", low=0)
    noise = check_choice(data.get("noise", "opendp"), "noise", "the suite",
                         ("opendp", "numpy-insecure"))
    inp = data.get("input")
    if inp is not None and not isinstance(inp, str):
        raise InvalidParameterError(f"The 'input' key of the suite must be a path. Got {inp!r}.")
    if dataset == "social" and inp is None:
        raise InvalidParameterError("A social suite needs an input graph ('input' or INPUT).")
    cfg = SuiteConfig(name=str(data.get("name", dataset)), dataset=dataset, input=inp,
                      seed=seed, noise=noise, quick=quick, **parts)
    _validate(cfg)
    return cfg


def _validate(cfg: SuiteConfig) -> None:
    owner = "the suite"
    r, a, u = cfg.risk, cfg.audit, cfg.utility
    for k in (*r.ks, *u.ks):
        check_int(k, "ks", owner, low=2)
    for q in r.qs:
        check_int(q, "risk.qs", owner, low=1, high=50)
    for e in (*r.rr_epsilons, *a.epsilons, *u.epsilons):
        check_float(e, "epsilons", owner, low=0.0, high=100.0, closed="right")
    check_int(r.n_targets, "risk.n_targets", owner, low=1)
    check_int(r.b_anonymize_max_users, "risk.b_anonymize_max_users", owner,
              low=max(r.ks, default=2))
    check_int(u.b_anonymize_max_users, "utility.b_anonymize_max_users", owner, low=0)
    for k in u.b_anonymize_ks:
        check_int(k, "utility.b_anonymize_ks", owner, low=2)
    check_int(r.reference_k, "risk.reference_k", owner, low=1)
    for m in a.mechanisms:
        check_choice(m, "audit.mechanisms", owner, AUDIT_MECHANISMS)
    check_int(a.n_select, "audit.n_select", owner, low=10)
    check_int(a.n_eval, "audit.n_eval", owner, low=10)
    check_float(a.confidence, "audit.confidence", owner, low=0.5, high=1.0, closed="left")
    for c in u.classifiers:
        check_choice(c, "utility.classifiers", owner, CLASSIFIERS)
    for m in u.mechanisms:
        check_choice(m, "utility.mechanisms", owner, SOCIAL_MECHANISMS)
    check_float(u.test_fraction, "utility.test_fraction", owner, low=0.0, high=1.0,
                closed="neither")
    check_int(u.n_sources, "utility.n_sources", owner, low=1)


def load_suite(path: str | os.PathLike[str], *, input_path: str | None = None,
               quick: bool | None = None, seed: int | None = None,
               noise: str | None = None) -> SuiteConfig:
    """Read a suite from a TOML file; the keyword arguments override the file."""
    from ..io._input import read_toml

    p = Path(path)
    data = read_toml(p, what="suite file")
    if input_path is not None:
        data["input"] = input_path
    elif isinstance(data.get("input"), str) and not Path(data["input"]).is_absolute():
        data["input"] = str((p.parent / data["input"]).resolve())
    for key, val in (("quick", quick), ("seed", seed), ("noise", noise)):
        if val is not None:
            data[key] = val
    data.setdefault("name", p.stem)
    return _build(data)


def resolve_suite(suite: str, *, input_path: str | None = None, quick: bool = False,
                  seed: int | None = None, noise: str | None = None) -> SuiteConfig:
    """``suite`` is a preset name (:data:`SUITES`) or the path of a TOML file.

    ``seed=None`` keeps a suite file's own seed; without one a fresh seed is drawn (and
    recorded in the report). ``noise=None`` likewise keeps a suite file's ``noise``
    (default ``"opendp"``).
    """
    if suite in SUITES:
        return named_suite(suite, input_path=input_path, quick=quick,
                           seed=secrets.randbits(63) if seed is None else seed,
                           noise="opendp" if noise is None else noise)
    if suite.endswith(".toml") or Path(suite).is_file():
        return load_suite(suite, input_path=input_path, quick=quick or None, seed=seed,
                          noise=noise)
    raise InvalidParameterError(
        f"The '--suite' option must be one of {', '.join(SUITES)} or a TOML file. "
        f"Got {suite!r} instead.")


# ---------------------------------------------------------------------- running
def run_suite(config: SuiteConfig, outdir: str | os.PathLike[str], *,
              progress: ProgressFn = log_progress) -> Any:
    """Run every enabled part of ``config`` and write ``report.html`` / ``.json`` / ``.md``.

    Returns
    -------
    graphanon.evaluate.report.EvaluationReport
        The written report (``.results`` holds the raw results).
    """
    from ..privacy.noise import get_backend
    from .report import EvaluationReport

    rng = np.random.default_rng(config.seed)
    backend = (get_backend("numpy-insecure", rng=np.random.default_rng([config.seed, 1]))
               if config.noise == "numpy-insecure" else get_backend("opendp"))
    report = EvaluationReport(config, outdir)
    t_all = time.perf_counter()
    if config.dataset == "adult":
        from .utility import load_adult_labeled

        B, y = load_adult_labeled(config.input)
        report.add_dataset_adult(B, y)
        if config.risk.enabled:
            t0 = time.perf_counter()
            report.results["risk"] = _run_risk(B, config.risk, rng=rng, backend=backend,
                                               progress=progress)
            report.timings["risk"] = time.perf_counter() - t0
        if config.audit.enabled:
            _run_audit(report, config.audit, backend=backend, progress=progress)
        if config.utility.enabled:
            from .utility import adult_utility

            t0 = time.perf_counter()
            u = config.utility
            report.results["utility_adult"] = adult_utility(
                B, y, ks=u.ks, epsilons=u.epsilons, classifiers=u.classifiers,
                test_fraction=u.test_fraction, b_anonymize_max_users=u.b_anonymize_max_users,
                b_anonymize_ks=u.b_anonymize_ks or None, rng=rng, backend=backend,
                progress=progress)
            report.timings["utility"] = time.perf_counter() - t0
    else:
        from ..io.files import read_graph
        from .utility import social_utility

        assert config.input is not None
        G = read_graph(config.input)
        report.add_dataset_social(G)
        if config.audit.enabled:
            _run_audit(report, config.audit, backend=backend, progress=progress)
        if config.utility.enabled:
            t0 = time.perf_counter()
            u = config.utility
            orig, rows = social_utility(
                G, epsilons=u.epsilons, mechanisms=u.mechanisms, max_degree=u.max_degree,
                theta=u.theta, mpdc_tau=u.mpdc_tau, n_sources=u.n_sources,
                max_synthetic_edges=u.max_synthetic_edges, backend=backend, rng=rng,
                progress=progress)
            report.results["utility_social"] = {"original": orig, "rows": rows}
            report.timings["utility"] = time.perf_counter() - t0
    report.timings["total"] = time.perf_counter() - t_all
    report.build()
    report.write()
    return report


def _run_audit(report: Any, cfg: AuditConfig, *, backend: Any, progress: ProgressFn) -> None:
    from .empirical_audit import audit_mechanism
    from .targets import audit_targets

    t0 = time.perf_counter()
    results = []
    steps = [(e, t) for e in cfg.epsilons
             for t in audit_targets(e, mechanisms=cfg.mechanisms, max_degree=cfg.max_degree,
                                    theta=cfg.theta)]
    # the confidence is family-wise: Bonferroni over the audits of real mechanisms, so that
    # with probability >= cfg.confidence no bound of the report exceeds its true ε
    m = max(1, sum(not t.control for _, t in steps))
    per_audit = 1.0 - (1.0 - cfg.confidence) / m
    for i, (_, target) in enumerate(steps):
        progress("audit: empirical ε", i, len(steps))
        results.append(audit_mechanism(target, backend=backend, n_select=cfg.n_select,
                                       n_eval=cfg.n_eval, confidence=per_audit))
    progress("audit: empirical ε", len(steps), len(steps))
    report.results["audit"] = results
    report.timings["audit"] = time.perf_counter() - t0


def _run_risk(B: Any, cfg: RiskConfig, *, rng: np.random.Generator, backend: Any,
              progress: ProgressFn) -> list[Any]:
    from ..anonymity import adaptive_anonymize, mondrian, smooth_k_anonymity
    from ..anonymity.randomized_response import randomized_response
    from ..privacy.noise import NumpyInsecureBackend
    from .risk import ReleasedRows, draw_targets, feature_groups, reidentification_risk
    from .utility import _subset

    groups = feature_groups(B)
    targets = {q: draw_targets(B, q=q, n_targets=cfg.n_targets, rng=rng, groups=groups)
               for q in cfg.qs}
    rows: list[Any] = []

    def score(rel: ReleasedRows, data: Any = B, tg: Mapping[int, Any] = targets) -> None:
        for q in cfg.qs:
            rows.append(reidentification_risk(data, rel, tg[q], reference_k=cfg.reference_k,
                                               groups=groups))

    releases: list[Any] = [lambda: ReleasedRows.from_bipartite("original", "-", "exact", B)]
    for k in cfg.ks:
        lv = np.full(B.n_users, k, dtype=np.int64)
        releases += [
            lambda k=k, lv=lv: ReleasedRows.from_bipartite(
                "smooth-k", f"k={k}", "majority",
                smooth_k_anonymity(B, k=k, rng=rng).anonymized, levels=lv),
            lambda k=k, lv=lv: ReleasedRows.from_bipartite(
                "suppress", f"k={k}", "suppression",
                smooth_k_anonymity(B, k=k, rng=rng, variant="suppress").anonymized, levels=lv),
            lambda k=k, lv=lv: ReleasedRows.from_bipartite(
                "mondrian", f"k={k}", "suppression", mondrian(B, k=k).anonymized, levels=lv),
        ]
    rr_rng = backend.rng if isinstance(backend, NumpyInsecureBackend) else None

    def rr(eps: float) -> Any:
        res = randomized_response(B, epsilon=eps, neighbourhood="edge", users=B.user_ids,
                                  features=B.feature_ids, rng=rr_rng)
        return ReleasedRows.from_bipartite(
            "randomized-response", f"ε={eps:g}", "randomized", res.graph,
            flip=res.release.params["q"], epsilon=res.release.params["epsilon_per_entry"])

    releases += [lambda e=e: rr(e) for e in cfg.rr_epsilons]
    # b-anonymize: on all users, or on a random subset (then with its own original baseline)
    if B.n_users > cfg.b_anonymize_max_users:
        sub = np.sort(rng.choice(B.n_users, size=cfg.b_anonymize_max_users, replace=False))
        Bb = _subset(B, sub)
        tb = {q: draw_targets(Bb, q=q, n_targets=cfg.n_targets, rng=rng, groups=groups)
              for q in cfg.qs}
        label = f" (subset of {Bb.n_users} users)"
    else:
        Bb, tb, label = B, targets, ""
    total = len(releases) + len(cfg.ks) + (1 if label else 0)
    done = 0
    for make in releases:
        progress("risk: linkage attacks", done, total)
        score(make())
        done += 1
    if label:
        progress("risk: linkage attacks", done, total)
        score(ReleasedRows.from_bipartite(f"original{label}", "-", "exact", Bb), Bb, tb)
        done += 1
    X = Bb.to_dense().astype(np.int32)
    for k in cfg.ks:
        progress("risk: linkage attacks", done, total)
        res = adaptive_anonymize(X, delta=k, rng=rng)
        rel = ReleasedRows.from_masked("b-anonymize", f"δ={k}{label}", res.in_original_order(),
                                       levels=res.delta)
        score(rel, Bb, tb)
        done += 1
    progress("risk: linkage attacks", total, total)
    return rows
