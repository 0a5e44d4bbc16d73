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
    budget_neighbourhood = "edge"       # the relation the budget is stated for (node-DP: 2ε on it)

    [source]
    type = "neo4j"                      # or "file" (path = ..., kind = graph|bipartite)
    kind = "bipartite"
    user_label = "User"
    feature_label = "Interest"
    rel = "HAS_INTEREST"
    id_prop = "uid"

    [[steps]]
    name = "info"
    [[steps]]
    name = "randomized-response"
    epsilon = 2.0
    neighbourhood = "edge"              # noise = "opendp" (default, secure) | "numpy-insecure"

    [[sinks]]
    type = "file"
    path = "out/{release_id}"           # writes data, statistics and report.json there
    [[sinks]]
    type = "neo4j"
    dataset = "interests"               # ledger key: a stable name (required for DP releases)

Steps live in :data:`STEPS` (name -> ``step(state, params) -> None``), built from the one
table of :mod:`graphanon.registry` that also lists the CLI commands (a step has its
command's name): ``info``, ``randomized-response``, ``release-dk`` (``neighbourhood = "node"``:
θ-dKε), ``release-degrees``, ``synthesize``,
``release-personalized``, ``project``, ``generate``, ``smooth-k``, ``mondrian``,
``b-anonymize`` (keys: ``docs/neo4j.md``, ``docs/bmatching.md``). A mechanism is one row
there, usually naming a library function ``f(data, **params) -> result`` that
:func:`mechanism_step` adapts (it supplies ``backend`` / ``rng`` / ``seed`` by the CLI's
noise convention)::

    Registration("release-dk", "dk", "...", cli="dk",
                 step=Step("graphanon.dk.release:release_dk", defaults={"max_degree": None}))

:func:`register_step` adds a step at run time (a plug-in, a test).

The package, by responsibility: :mod:`.schema` (reading and checking a job file),
:mod:`.state` (what flows through the steps), :mod:`.adapter` (:func:`mechanism_step`),
:mod:`.steps` (the step functions and :data:`STEPS`), :mod:`.sources`, :mod:`.sinks` and
:mod:`.runner` (:func:`run_job`).

A job publishes exactly one release (a second release step is refused); next to it the
sinks write only the release's output — never the private input graph.

Exit codes (through the CLI): 0 success, 2 bad input or configuration (also: another run of
the job holds its lock), 3 privacy budget refused, 4 database unavailable. Connection
settings come from the environment (``NEO4J_URI``, ``NEO4J_USER``, ``NEO4J_PASSWORD`` or
``NEO4J_PASSWORD_FILE``); a job file never holds a password.
"""

from __future__ import annotations

from .adapter import mechanism_step
from .runner import run_job, run_job_dict
from .schema import load_job, render_release_id, render_sink_path
from .state import NOISE_CHOICES, JobLockedError, JobResult, JobState
from .steps import STEPS, register_step

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
    "render_sink_path",
    "run_job",
    "run_job_dict",
]
