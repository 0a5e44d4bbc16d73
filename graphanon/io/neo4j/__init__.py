"""Neo4j source and sink adapters over the official ``neo4j`` driver (6.x).

One module per responsibility; this package re-exports the public names.

- :mod:`~graphanon.io.neo4j.connection` — settings from the environment, :func:`connect`,
  driver errors as :class:`~graphanon.errors.DatabaseUnavailableError` /
  :class:`~graphanon.errors.Neo4jError` (exit code 4), the optional Rust extension.
- :mod:`~graphanon.io.neo4j.ids` — ids under graphanon's canonical encoding (``7`` and
  ``"7"`` are one id), element-id detection.
- :mod:`~graphanon.io.neo4j.source` — :class:`Neo4jSource` (read transactions only; the
  source is never modified); with ``universe="label"`` a read also returns the label's
  public :class:`graphanon.universe.Universe` (re-exported here).
- :mod:`~graphanon.io.neo4j.sink` — :class:`Neo4jSink`: stage, then flip (an attempt writes
  rows keyed by its token, the completing transaction charges and flips the record), one
  writer per release (the token checked under the record's lock in every transaction),
  counts the database confirms, rows built per batch, keyed pseudonyms instead of source ids.
- :mod:`~graphanon.io.neo4j.ledger` — the ``(:PrivacyBudget)`` ledger.
- :mod:`~graphanon.io.neo4j.statistics` — dK tables as ``:DegreeCount`` /
  ``:JointDegreeCount`` / ``:DegreeTupleCount`` rows.
- :mod:`~graphanon.io.neo4j.records` — the ``(:AnonRelease)`` properties and argument checks.

Every statement is loaded by name from ``cypher/`` (:mod:`graphanon.io.cypher`); every
label, relationship type and property key is validated before a connection is opened.
"""

from __future__ import annotations

from ...privacy.accountant import charge_epsilon  # noqa: F401  (the ledger's one rule set)
from ...universe import Universe
from .connection import (
    CONNECTION_KEYS,
    CommitOutcomeUnknown,
    ConnectionSettings,
    connect,
    connection_settings,
    open_driver,
    parse_size,
    rust_extension_active,
    wrap_driver_errors,
)
from .ids import IdMap, contains_element_ids, looks_like_element_id
from .records import record_properties, release_record, validate_budget, validate_release_id
from .sink import (
    DEFAULT_BATCH_SIZE,
    EDGE_REL_TYPE,
    FEATURE_REL_TYPE,
    INDEX_TIMEOUT_SECONDS,
    MASKED_REL_TYPE,
    RELEASE_LABELS,
    Neo4jSink,
    ReleaseConflictError,
    ReleaseSummary,
)
from .source import (
    BYTES_PER_NODE,
    BYTES_PER_PROPERTY,
    BYTES_PER_RELATIONSHIP,
    DEFAULT_FETCH_SIZE,
    DEFAULT_MEMORY_LIMIT,
    Neo4jSource,
    ReadStats,
)
from .statistics import STATISTIC_LABELS, StatisticsTable, statistic_rows

__all__ = [
    "BYTES_PER_NODE",
    "BYTES_PER_PROPERTY",
    "BYTES_PER_RELATIONSHIP",
    "CONNECTION_KEYS",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_FETCH_SIZE",
    "DEFAULT_MEMORY_LIMIT",
    "EDGE_REL_TYPE",
    "FEATURE_REL_TYPE",
    "INDEX_TIMEOUT_SECONDS",
    "MASKED_REL_TYPE",
    "RELEASE_LABELS",
    "STATISTIC_LABELS",
    "CommitOutcomeUnknown",
    "ConnectionSettings",
    "IdMap",
    "Neo4jSink",
    "Neo4jSource",
    "ReadStats",
    "ReleaseConflictError",
    "ReleaseSummary",
    "StatisticsTable",
    "Universe",
    "connect",
    "connection_settings",
    "contains_element_ids",
    "looks_like_element_id",
    "open_driver",
    "parse_size",
    "record_properties",
    "release_record",
    "rust_extension_active",
    "statistic_rows",
    "validate_budget",
    "validate_release_id",
    "wrap_driver_errors",
]
