"""What flows through a job: its state, its result, and the conventions every step shares."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GraphAnonError
from ..graph import BipartiteGraph, Graph

__all__ = ["NOISE_CHOICES", "UNIVERSE_KEYS", "JobLockedError", "JobResult", "JobState", "StepFn",
           "resolve_path"]


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
    #: The record of a graph generated from the released table (``generate``): it names
    #: ``release`` as its parent (graphanon.privacy.publish.derived_release).
    derived: Any = None
    #: Attribute columns the operator publishes ([job] publish; graphanon.privacy.publish).
    publish: tuple[str, ...] = ()
    statistics: Any = None  # released dK table: graphanon.dk.DKDistribution / DK3Distribution
    #: Released masked rows of ``b-anonymize`` (graphanon.io.masked.MaskedRelease): only
    #: the public cells, never the secret row permutation.
    masked: Any = None
    report: dict[str, Any] = field(default_factory=dict)
    #: True when ``data`` is the output of the release (randomized response, a generated
    #: graph) rather than the private input or something derived from it without a release.
    released_data: bool = False
    #: The step that derived ``data`` from the private input without a release (a
    #: projection): a DP release of its output would protect neighbouring *derived* graphs.
    derived_by: str | None = None
    #: The job step now running (its name in the job file), for messages.
    step: str | None = None
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


#: The values of a step's ``noise`` key, as the CLI's ``--noise`` (``cli._params.noise_options``).
NOISE_CHOICES = ("opendp", "numpy-insecure")


UNIVERSE_KEYS = ("nodes", "users", "features")

def resolve_path(base: Path, value: str) -> Path:
    p = Path(value)
    return p if p.is_absolute() else base / p
