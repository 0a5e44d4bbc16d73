"""The :class:`Release` record: what was published, under which guarantee, from what.

A release record is written next to every private output (``*.release.json`` / the CLI's
``--report``) and into Neo4j. It is the machine-readable privacy claim of that output:

- ``mechanism``: registered name of the mechanism (``"randomized-response"``, ...);
- ``neighbourhood``: the neighbouring relation the ε refers to — ``"edge"`` (add/remove one
  edge / one user–feature cell), ``"node"`` (add/remove one node with all its edges / one
  user's whole row), ``"personalized-edge"`` / ``"personalized-node"`` (each node has its own
  ε, see ``epsilon_summary``), ``"k-anonymity"`` (a syntactic guarantee; ``epsilon`` is
  ``None``) or ``"none"`` (no privacy claim, e.g. a plain statistic);
- ``epsilon``: the pure-DP ε of the release (``None`` for personalized / k-anonymity / none);
- ``epsilon_summary``: ``{"min", "median", "max"}`` of the per-node ε for personalized DP;
- ``sensitivity`` and ``sensitivity_derivation``: the L1 sensitivity used to calibrate the
  noise and a one-line derivation (or ``"n/a"``);
- ``params``: public parameters (degree bound, θ, k, τ, μ, level, ...);
- ``backend``: the noise backend (``"opendp"``, ``"numpy-insecure"``, ...) and ``seed``: the
  seed of the run's randomness that is *not* DP noise (sampling of public keys,
  post-processing); it seeds the noise too only with the ``numpy-insecure`` backend, and only
  then is the output reproducible and **not** a secure release (:attr:`Release.reproducible`);
- ``graphanon_version``, ``source_fingerprint``, ``created_at`` (UTC ISO 8601, when the run
  *started*: see below) and ``release_id`` (a UUID4);
- ``released_attributes``: attribute columns the mechanism itself released (none today: no
  column read from the source is ever published, :mod:`graphanon.privacy.publish`);
- ``payload_kind``, ``payload_shape``, ``payload_digest``: what was published — its kind, the
  counts of its released rows and a keyed digest of exactly those rows
  (:func:`graphanon.privacy.publish.bind`); every sink refuses a payload that does not match;
- ``parent_release``: for an output derived from a release by post-processing (a graph
  generated from a released table), the release it was derived from.

A record holds only things that are public or protected by the release's own guarantee: no
wall time and no count read from the input (how long a run took, or how many nodes it read,
tells neighbouring inputs apart — a hub adds measurable seconds). Those go into the report's
``not_private`` block. ``created_at`` is the start of the run (:func:`run_clock`): the CLI and
the job runner stamp it before reading any data, a library call at its entry, so it carries
no run time.

The source fingerprint is **keyed and salted per release**: ``HMAC-SHA256(operator key,
release_id ‖ 0x00 ‖ content hash of the input)``. A plain content hash would break every
guarantee at once: the DP adversary knows the input up to one edge or node, hashes both
candidates and compares with the published value. An unsalted HMAC breaks them across
releases: repeated releases of an unchanged input would carry one value, and one added edge
would change it. The key (``GRAPHANON_FINGERPRINT_KEY``, else a 32-byte key file created once at
``$GRAPHANON_HOME/fingerprint.key``, default ``~/.config/graphanon``) never leaves the
operator, who can still recompute the fingerprint of a candidate input to check provenance.
Budgets are *not* keyed by fingerprint (the data changes; the budget must not reset): ledgers
use an operator-chosen dataset name.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import hashlib
import hmac
import json
import logging
import math
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .._validation import check_choice
from .._version import __version__
from ..errors import InvalidParameterError

__all__ = ["NEIGHBOURHOODS", "NOT_PRIVATE_NOTE", "Release", "keyed_fingerprint", "run_clock",
           "started_at", "unpublishable_reason"]

#: Every report groups the numbers computed against the private input (utility against the
#: truth, input counts, step summaries) under a ``"not_private"`` key with this note.
NOT_PRIVATE_NOTE = (
    "Computed from the private input (utility against the truth, input counts, summaries): "
    "for the operator, not covered by the release's guarantee. Do not publish.")

_log = logging.getLogger(__name__)
_RUN_STARTED: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "graphanon_run_started", default=None)


def unpublishable_reason(record: Mapping[str, Any]) -> str | None:
    """Why a release with this record may not be published (``None``: it may).

    A release that makes no privacy claim (neighbourhood ``"none"``: exact statistics, a
    reproduction) or whose noise came from the seeded ``numpy-insecure`` backend (its recorded
    seed regenerates the noise, hence the exact statistic) is for the operator only. One rule
    for the job's file sinks (``publish/`` vs ``operator/``) and the Neo4j sink.
    """
    if record.get("neighbourhood") == "none":
        return f"{record.get('mechanism')} makes no privacy claim (a reproduction or plain output)"
    if record.get("backend") == "numpy-insecure":
        return ("the noise came from the seeded numpy-insecure backend: reproducible and NOT a "
                "secure release")
    return None


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def started_at() -> str:
    """The ``created_at`` of a release made now: the start of the enclosing
    :func:`run_clock` block if there is one, else the current time.

    Mechanisms call it at their entry, so a record never says how long the mechanism ran.
    """
    return _RUN_STARTED.get() or _utc_now()


@contextlib.contextmanager
def run_clock() -> Iterator[str]:
    """Stamp every release made inside the block with the block's start time.

    The CLI and the job runner open one before reading any input: a record's ``created_at``
    then says when the run was started (known to whoever scheduled it), not when the data had
    been read and processed.
    """
    if _RUN_STARTED.get() is not None:  # an outer run already stamped it
        yield _RUN_STARTED.get() or ""
        return
    token = _RUN_STARTED.set(_utc_now())
    try:
        yield _RUN_STARTED.get() or ""
    finally:
        _RUN_STARTED.reset(token)


def _fingerprint_key() -> bytes:
    """The operator's secret key (:func:`graphanon.privacy.keys.operator_key`: a damaged or
    unreadable key file is refused, never used or replaced)."""
    from .keys import operator_key

    return operator_key()


def keyed_fingerprint(content_hash: str, release_id: str = "") -> str:
    """``HMAC-SHA256(key, release_id ‖ 0x00 ‖ content_hash)`` under the operator's secret key
    ("" stays "").

    ``content_hash`` is ``Graph.content_hash`` / ``BipartiteGraph.content_hash``. A published
    :class:`Release` carries it salted with its own ``release_id``: an unsalted value is the
    same in every release of an unchanged input and different after one edge is added, so
    comparing the fingerprints of repeated releases (a weekly job) would tell neighbouring
    inputs apart without the key. The operator checks provenance with the key and the
    record's ``release_id``: ``keyed_fingerprint(candidate.content_hash, rec.release_id)``.
    """
    if not content_hash:
        return ""
    message = release_id.encode("utf-8") + b"\x00" + content_hash.encode("utf-8")
    digest = hmac.new(_fingerprint_key(), message, hashlib.sha256)
    return "hmac-sha256:" + digest.hexdigest()

#: Release fields added after records were first written (optional when reading one).
_LATER_FIELDS = frozenset({"released_attributes", "payload_kind", "payload_shape",
                           "payload_digest", "parent_release"})

NEIGHBOURHOODS = (
    "edge",
    "node",
    "personalized-edge",
    "personalized-node",
    "k-anonymity",
    "none",
)


def _plain(obj: Any) -> Any:
    """JSON-safe copy of ``obj`` (numpy scalars/arrays → Python; non-finite floats → None)."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if hasattr(obj, "tolist") and callable(obj.tolist):  # numpy scalar / array
        return _plain(obj.tolist())
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


@dataclass(frozen=True)
class Release:
    """Machine-readable privacy claim of one published output (see the module docstring)."""

    mechanism: str
    neighbourhood: str
    epsilon: float | None
    epsilon_summary: dict[str, float] | None
    sensitivity: float | None
    sensitivity_derivation: str
    params: dict[str, Any]
    backend: str | None
    seed: int | None
    graphanon_version: str
    source_fingerprint: str
    created_at: str
    release_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    #: Attribute columns the mechanism itself released (generalised or noised) and a sink
    #: may publish when the operator names them (:mod:`graphanon.privacy.publish`); none today.
    released_attributes: list[str] = field(default_factory=list)
    #: What the release published, bound by :func:`graphanon.privacy.publish.bind`: its kind,
    #: its shape (counts of released rows) and a keyed digest of exactly those rows.
    payload_kind: str | None = None
    payload_shape: dict[str, int] | None = None
    payload_digest: str | None = None
    #: The release this one was derived from by post-processing (a generated graph's table).
    parent_release: str | None = None

    def __post_init__(self) -> None:
        check_choice(self.neighbourhood, "neighbourhood", "Release", NEIGHBOURHOODS)
        if self.epsilon is not None and not (
            isinstance(self.epsilon, (int, float)) and math.isfinite(self.epsilon)
            and self.epsilon > 0
        ):
            raise InvalidParameterError(
                f"The 'epsilon' parameter of Release must be a finite float > 0 or None. "
                f"Got {self.epsilon!r} instead."
            )
        if self.neighbourhood in ("edge", "node") and self.epsilon is None:
            raise InvalidParameterError(
                f"A Release with neighbourhood {self.neighbourhood!r} must state its epsilon."
            )
        if self.neighbourhood.startswith("personalized") and self.epsilon_summary is None:
            raise InvalidParameterError(
                f"A Release with neighbourhood {self.neighbourhood!r} must state its "
                "epsilon_summary (per-node ε min/median/max)."
            )

    # ------------------------------------------------------------------ construction
    @classmethod
    def create(
        cls,
        *,
        mechanism: str,
        neighbourhood: str,
        epsilon: float | None = None,
        epsilon_summary: dict[str, float] | None = None,
        sensitivity: float | None = None,
        sensitivity_derivation: str = "n/a",
        params: dict[str, Any] | None = None,
        backend: str | None = None,
        seed: int | None = None,
        source_fingerprint: str = "",
        created_at: str | None = None,
    ) -> Release:
        """Build a record, filling ``graphanon_version``, ``created_at`` and ``release_id``.

        ``source_fingerprint`` is the input's *content* hash (``G.content_hash``); the record
        stores its keyed form salted with the new ``release_id`` (:func:`keyed_fingerprint`),
        never the content hash itself, and never a value another release also carries.
        ``created_at`` is the value of :func:`started_at` taken when the mechanism started
        (default: :func:`started_at` now).
        """
        release_id = str(uuid.uuid4())
        return cls(
            mechanism=mechanism,
            neighbourhood=neighbourhood,
            epsilon=None if epsilon is None else float(epsilon),
            epsilon_summary=None if epsilon_summary is None else _plain(dict(epsilon_summary)),
            sensitivity=None if sensitivity is None else float(sensitivity),
            sensitivity_derivation=sensitivity_derivation,
            params=_plain(dict(params or {})),
            backend=backend,
            seed=None if seed is None else int(seed),
            graphanon_version=__version__,
            source_fingerprint=keyed_fingerprint(source_fingerprint, release_id),
            created_at=created_at or started_at(),
            release_id=release_id,
        )

    @classmethod
    def k_anonymity(cls, mechanism: str, *, k: int, params: dict[str, Any] | None = None,
                    seed: int | None = None, source_fingerprint: str = "") -> Release:
        """The record of a syntactic (k-anonymity family) release: no ε, no noise.

        ``params`` must hold public parameters only (the method's options), never numbers
        read from the input.
        """
        return cls.create(
            mechanism=mechanism, neighbourhood="k-anonymity", params={"k": k, **(params or {})},
            sensitivity_derivation="n/a: k-anonymity is a syntactic guarantee (every released "
            "feature set is shared by at least k users), not differential privacy",
            seed=seed, source_fingerprint=source_fingerprint)

    @staticmethod
    def summarize_epsilons(epsilons: Any) -> dict[str, float]:
        """``{"min", "median", "max"}`` of a per-node ε vector (for ``epsilon_summary``)."""
        import numpy as np

        e = np.asarray(epsilons, dtype=np.float64)
        if e.size == 0:
            return {"min": 0.0, "median": 0.0, "max": 0.0}
        return {"min": float(e.min()), "median": float(np.median(e)), "max": float(e.max())}

    # ------------------------------------------------------------------ properties
    @property
    def reproducible(self) -> bool:
        """True when the noise came from a seed (then this is not a secure release).

        Only the ``numpy-insecure`` backend draws its noise from the seed; with OpenDP the
        ``seed`` covers non-noise randomness only and the release stays secure.
        """
        return self.seed is not None and self.backend == "numpy-insecure"

    # ------------------------------------------------------------------ serialization
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict of every field."""
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Release:
        """Inverse of :meth:`to_dict`; unknown keys are an error (a record is a contract).

        Records written by graphanon 0.1 carried ``seconds`` (the wall time, which is not
        public); it is dropped on reading. Records written before payloads were bound lack
        the fields :data:`_LATER_FIELDS` (they read as unbound: no sink writes their payload).
        """
        data = {k: v for k, v in data.items() if k != "seconds"}
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        missing = names - set(data) - _LATER_FIELDS
        if unknown or missing:
            raise InvalidParameterError(
                "Release.from_dict got "
                + (f"unknown keys {sorted(unknown)} " if unknown else "")
                + (f"missing keys {sorted(missing)}" if missing else "")
            )
        return cls(**data)

    @classmethod
    def from_json(cls, text: str) -> Release:
        from .._validation import loads_json

        return cls.from_dict(loads_json(text))
