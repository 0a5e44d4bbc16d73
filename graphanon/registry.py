"""Every command and job step of graphanon, in one table.

A row names a mechanism (or a tool) once: its family, the :mod:`graphanon.cli` module that
defines its click command, the command's one-line help, and how a job file runs it. Both the
CLI (:mod:`graphanon.cli`) and the job runner (:mod:`graphanon.jobs`) read this table, so
adding a mechanism touches its family package (the function), its command in the family's CLI
module, and one row here (``docs/architecture.md``).

Everything is a string: nothing is imported until a command or step runs (``graphanon
--help`` starts without numpy).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["REGISTRY", "Registration", "Step", "commands", "specs", "steps"]


@dataclass(frozen=True)
class Step:
    """How a job runs a registered name.

    ``target`` is either a library function ``f(data, **params)`` (``"module:function"``),
    adapted by :func:`graphanon.jobs.mechanism_step` with ``rng`` and ``defaults`` as there,
    or — with ``custom = True`` — a ready step function ``step(state, params)`` (for steps
    that read files next to the job, verify their output, or dispatch between functions).
    """

    target: str
    custom: bool = False
    rng: str = "auto"
    defaults: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Registration:
    """One command and / or job step (``name`` is the same in both)."""

    name: str
    family: str  # "anonymity", "dk", "nodedp", "synthetic", "reproduce", "io", "tools"
    help: str = ""  # the CLI command's one-line help (its docstring's first line)
    cli: str | None = None  # module of graphanon.cli defining the command; None: job only
    step: Step | None = None  # None: CLI only
    #: ``"module:NAME"`` of the mechanism's :class:`~graphanon.params.Spec` (its parameters,
    #: declared once beside the function): the command's options, the job step's keys and
    #: the docs' table are generated from it (``tests/test_param_specs.py``).
    spec: str | None = None


_JOB = "graphanon.jobs.steps"

#: The table. Sorted by family; within a family, by what a user meets first.
REGISTRY: tuple[Registration, ...] = (
    # ---- user × feature graphs: the k-anonymity family and its DP baseline
    Registration(
        "smooth-k", "anonymity", "Smooth-k-anonymize the user<TAB>feature list INPUT.",
        cli="anonymity", step=Step(f"{_JOB}:smooth_k_step", custom=True),
        spec="graphanon.anonymity.smooth_k:SMOOTH_K"),
    Registration(
        "mondrian", "anonymity",
        "Strict Mondrian k-anonymity by suppression of the user<TAB>feature list INPUT.",
        cli="anonymity", step=Step(f"{_JOB}:mondrian_step", custom=True),
        spec="graphanon.anonymity.mondrian:MONDRIAN"),
    Registration(
        "b-anonymize", "anonymity",
        "Mask cells of INPUT so that every user i hides among ≥ δ_i others (b-matching).",
        cli="bmatching", step=Step(f"{_JOB}:b_anonymize_step", custom=True),
        spec="graphanon.anonymity.bmatching:B_ANONYMIZE"),
    Registration(
        "randomized-response", "anonymity",
        "Randomize every cell of INPUT (user<TAB>feature pairs) and write OUT and REPORT.",
        cli="randomized_response",
        step=Step("graphanon.anonymity.randomized_response:randomized_response"),
        spec="graphanon.anonymity.randomized_response:RANDOMIZED_RESPONSE"),
    # ---- dK-series: statistics, edge-DP and personalized releases, synthetic graphs
    Registration(
        "dk", "dk", "Extract the exact dK distribution of INPUT (no privacy: the true "
        "statistic).", cli="dk"),
    Registration(
        "release-dk", "dk",
        "Release the 1K or 2K distribution of INPUT with ε-differential privacy.",
        cli="release_dk", step=Step(f"{_JOB}:release_dk_step", custom=True),
        spec="graphanon.dk.release:RELEASE_DK"),
    Registration(
        "release-personalized", "dk",
        "Release the 1K/2K distribution of INPUT where every node has its own ε.",
        cli="personalized", step=Step(f"{_JOB}:release_personalized_step", custom=True),
        spec="graphanon.dk.personalized:PERSONALIZED"),
    Registration(
        "generate", "dk",
        "Generate a simple graph realizing a 1K or 2K table (e.g. a release-dk output).",
        cli="dk", step=Step(f"{_JOB}:generate_step", custom=True)),
    # ---- node-DP: projections, θ-dKε, degree sequences
    Registration(
        "project", "nodedp",
        "Project INPUT to maximum degree θ (no privacy by itself: a preprocessing step).",
        cli="nodedp", step=Step("graphanon.nodedp.projection:project", rng="other"),
        spec="graphanon.nodedp.projection:PROJECT"),
    Registration(  # the old job name of release-dk with neighbourhood = "node" (until 0.3.0)
        "release-dk-node", "nodedp",
        step=Step(f"{_JOB}:release_dk_node_step", custom=True),
        spec="graphanon.nodedp.theta_dk:THETA_DK"),
    Registration(
        "release-degrees", "nodedp",
        "Release a differentially private degree sequence of INPUT.",
        cli="nodedp", step=Step(f"{_JOB}:release_degrees_step", custom=True),
        spec="graphanon.nodedp.degree_sequences:RELEASE_DEGREES"),
    # ---- synthetic graphs: the recommended pipeline, one record (issue 36)
    Registration(
        "synthesize", "synthetic",
        "Release a private synthetic graph of INPUT (edge-DP on the public node ids, or "
        "node-DP).", cli="synthetic", step=Step("graphanon.synthetic.pipeline:synthesize"),
        spec="graphanon.synthetic.pipeline:SYNTHESIZE"),
    # ---- paper reproductions (graphanon.reproduce): their own job steps; on the CLI the
    # option values of the secure command (--domain observed, --projection ser, ...)
    Registration(
        "release-dk-thesis", "reproduce",
        step=Step("graphanon.reproduce.dk_thesis:release_dk_thesis"),
        spec="graphanon.reproduce.dk_thesis:RELEASE_DK_THESIS"),
    Registration(
        "release-dk-node-ser", "reproduce",
        step=Step("graphanon.reproduce.node_dp_thesis:theta_dk_release_ser"),
        spec="graphanon.reproduce.node_dp_thesis:THETA_DK_SER"),
    Registration(
        "release-degrees-seed", "reproduce",
        step=Step("graphanon.reproduce.rps_seed:rps_degree_sequence_seed"),
        spec="graphanon.reproduce.rps_seed:RPS_SEED"),
    Registration(
        "release-personalized-thesis", "reproduce",
        step=Step(f"{_JOB}:release_personalized_thesis_step", custom=True),
        spec="graphanon.reproduce.personalized_thesis:PERSONALIZED_THESIS"),
    # ---- input, output and tools
    Registration(
        "info", "io",
        "Print nodes, edges, density, degree statistics and components of PATH.", cli="info",
        step=Step(f"{_JOB}:describe_step", custom=True)),
    Registration(  # the old job name of `info` (until 0.3.0)
        "describe", "io", step=Step(f"{_JOB}:describe_alias_step", custom=True)),
    Registration(
        "bipartite-from-table", "io",
        "Turn the table CSV into a user<TAB>feature list (categorical values one-hot).",
        cli="anonymity"),
    Registration(
        "neo4j", "io", "Read graphs from Neo4j, write releases back as separate subgraphs, "
        "list and drop them.", cli="neo4j"),
    Registration(
        "ledger", "tools", "Show a JSON privacy ledger, set a dataset's budget once, or "
        "change it on purpose.", cli="ledger"),
    Registration(
        "run", "tools",
        "Run the export job in JOB_FILE: read its source, run its steps, write its sinks.",
        cli="run"),
    Registration(
        "demo", "tools", "Run every mechanism on shipped sample data (polbooks, UCI Adult) "
        "with sensible defaults.", cli="demo"),
    Registration(
        "evaluate", "tools", "Report re-identification risk, empirical ε lower bounds and "
        "downstream utility.", cli="evaluate"),
)


def commands() -> dict[str, tuple[str, str]]:
    """CLI commands: name -> (module of :mod:`graphanon.cli`, one-line help)."""
    return {r.name: (r.cli, r.help) for r in REGISTRY if r.cli is not None}


def steps() -> dict[str, Step]:
    """Job steps: name -> :class:`Step`."""
    return {r.name: r.step for r in REGISTRY if r.step is not None}


def specs() -> dict[str, str]:
    """Parameter specifications: name -> ``"module:NAME"`` of its
    :class:`~graphanon.params.Spec`."""
    return {r.name: r.spec for r in REGISTRY if r.spec is not None}
