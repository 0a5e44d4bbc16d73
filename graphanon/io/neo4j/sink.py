"""Writing releases into Neo4j: :class:`Neo4jSink`.

A release is a separate subgraph tagged with its ``release_id``: the record
``(:AnonRelease {release_id, mechanism, neighbourhood, epsilon, ..., status})``; an anonymized
graph as ``(:AnonNode)-[:ANON_EDGE]->(:AnonNode)`` or
``(:AnonUser)-[:ANON_HAS_FEATURE]->(:AnonFeature)``; a masked (b-anonymized) release as
``(:AnonUser {uid: released row})-[:ANON_HAS_FEATURE|ANON_MASKED]->(:AnonFeature)``; released
statistics as ``(:AnonRelease)-[:HAS_STATISTIC]->(:DegreeCount | :JointDegreeCount |
:DegreeTupleCount)``. Anonymized nodes never link to source nodes.

**Stage, then flip.** Every write (and every drop) is an *attempt* with a random token.
``begin_release`` takes the record's write lock, *then* reads it (the guard: an identical
complete release is left as it is and nothing is written or charged; a complete release of
other content is replaced only when asked), and puts the attempt's token on the record. The
attempt writes its rows keyed by its token (``attempt``); a complete release keeps its status
and its ``current_attempt`` meanwhile, so its readers see it unchanged. The completing
transaction charges the ledger and flips the record: its properties, ``status = "complete"``
and ``current_attempt`` = this attempt, in one commit. The rows of earlier attempts are
removed after the flip, in batches (a clean-up that stops early leaves only rows no reader
sees, removed by the next write or drop). A failed or interrupted attempt leaves the previous
complete release exactly as it was, only its token stays on the record.

**One writer per release.** Every later transaction of an attempt — each write batch, each
delete batch of a drop, the completing one — first runs ``lock_release``, which takes the
record's write lock and reads the token back, and the attempt stops with
:class:`ReleaseConflictError` (exit code 4) as soon as the token is no longer its own.
Because each of these transactions holds the record's lock from its first statement, the
transactions of two attempts on one release are serialized; an attempt that was taken over
writes nothing more, deletes nothing of the new attempt's rows, and flips nothing. The last
attempt to begin wins (a re-run replaces a release, also one whose writer died).

**Streaming.** Rows are built batch by batch from the payload's CSR slices as they are sent:
a write holds the payload, the per-node order and names, and one batch of row dicts.

**Counts the database confirms.** Every batch compares the summary counters of its statement
(``nodes_created``, ``relationships_created``) with the rows it sent and refuses a short
batch (a relationship whose endpoint is missing, statistics without their record); the
confirmed counts are summed and the release is completed only when they equal what was sent.
They are stored as ``written_nodes``, ``written_relationships``, ``written_statistics`` and
``written_masked``: counts of *released* rows, as public as the rows themselves.

**No source ids.** Users and nodes get keyed per-release pseudonyms
(:func:`graphanon.privacy.pseudonyms.pseudonymize`, scope = the release id) unless
``keep_ids``; features keep their business key, except ids shaped like ``elementId()``, which
are pseudonymized too (``feature_ids: "pseudonymized"``); ``keep_ids`` refuses ids shaped like
element ids. Pseudonymized rows are written in pseudonym order, so not even the creation
order of the release's nodes follows the input.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import secrets
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._ids import ids_as_text
from ..._progress import ProgressFn, log_progress
from ...errors import InvalidParameterError, Neo4jError, PrivacyBudgetExceeded
from ...graph import BipartiteGraph, Graph
from ...privacy.accountant import Budget, BudgetChange, charge_epsilon
from ...privacy.publish import check_payload, published_view
from ...privacy.release import keyed_fingerprint, unpublishable_reason
from ..cypher import load, validate_identifier
from ..masked import MaskedRelease
from . import ledger
from .connection import _now, wrap_driver_errors
from .ids import contains_element_ids
from .records import (
    canonical_json,
    check_dataset,
    record_properties,
    release_record,
    scalar,
    validate_budget,
    validate_release_id,
)
from .statistics import STATISTIC_LABELS, StatisticsTable, statistic_rows, table_fingerprint

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "EDGE_REL_TYPE",
    "FEATURE_REL_TYPE",
    "INDEX_TIMEOUT_SECONDS",
    "MASKED_REL_TYPE",
    "RELEASE_LABELS",
    "RESERVED_NODE_PROPERTIES",
    "Neo4jSink",
    "ReleaseConflictError",
    "ReleaseSummary",
]

DEFAULT_BATCH_SIZE = 10_000
#: How long a write waits for its indexes to come online before it fails.
INDEX_TIMEOUT_SECONDS = 300

RELEASE_LABELS = ("AnonNode", "AnonUser", "AnonFeature")
#: Labels whose nodes start release relationships (the delete phase walks from them).
_RELATIONSHIP_START_LABELS = ("AnonNode", "AnonUser")
#: Relationship types of release subgraphs (fixed, validated identifiers).
EDGE_REL_TYPE = "ANON_EDGE"
FEATURE_REL_TYPE = "ANON_HAS_FEATURE"
MASKED_REL_TYPE = "ANON_MASKED"

_log = logging.getLogger("graphanon")

#: Keys ``write_nodes`` sets on every release node itself (after the properties): a payload
#: attribute of one of these names is refused, never written over them.
RESERVED_NODE_PROPERTIES = ("release_id", "uid", "attempt")


class ReleaseConflictError(Neo4jError):
    """Another attempt took the release over (or dropped it) while this one wrote (exit 4).

    The attempt that raises it stopped before writing anything more; it deleted nothing of
    the other attempt's data and marked nothing complete.
    """


@dataclass(frozen=True)
class ReleaseSummary:
    """What :meth:`Neo4jSink.write_release` wrote (for the operator).

    The counts are the ones the database confirmed (summary counters of each batch) and
    equal what was sent. ``seconds`` is the write's wall time: it belongs to the operator's
    report and is never stored on the release.
    """

    release_id: str
    kind: str
    status: str
    n_nodes: int
    n_relationships: int
    n_statistics: int
    epsilon_charged: float
    dataset: str | None
    seconds: float
    n_masked: int = 0  # of n_relationships: ANON_MASKED cells of a masked release
    #: the release was already complete with this very content: nothing written or charged
    unchanged: bool = False


def _batches(rows: Sequence[Any], size: int) -> Iterator[list[Any]]:
    """Batches of ``rows`` (a list, or lazy rows built per slice as it is sent)."""
    for start in range(0, len(rows), size):
        yield list(rows[start:start + size])


def _counter(summary: Any, name: str) -> int:
    return int(getattr(summary.counters, name))


def _lock(tx: Any, release_id: str) -> dict[str, Any] | None:
    """``lock_release``: the record's write lock, then its token, status and current attempt
    (``None``: no record)."""
    rows = [dict(r) for r in tx.run(load("lock_release"), {"release_id": release_id})]
    return rows[0] if rows else None


class _Attempt:
    """One write or drop attempt on a release: its token and its locked transactions."""

    def __init__(self, session: Any, release_id: str, token: str) -> None:
        self.session = session
        self.release_id = release_id
        self.token = token

    def check(self, tx: Any) -> dict[str, Any]:
        """Take the record's write lock and verify that this attempt still holds it; return
        what ``lock_release`` read."""
        row = _lock(tx, self.release_id)
        if row is None:
            raise ReleaseConflictError(
                f"release {self.release_id!r} was dropped by another attempt while this one "
                "was writing it; this attempt stopped without writing more and marked "
                "nothing complete.")
        if row.get("write_token") != self.token:
            raise ReleaseConflictError(
                f"release {self.release_id!r} was taken over by another attempt (its record "
                f"is now {row.get('status')!r} under another writer) while this one was "
                "writing it; this attempt stopped without writing more, deleted nothing of "
                "the other attempt's data and marked nothing complete.")
        return row

    def transaction(self, work: Callable[[Any], Any]) -> Any:
        """Run ``work(tx)`` in a managed write transaction that starts with :meth:`check`."""

        def locked(tx: Any) -> Any:
            self.check(tx)
            return work(tx)

        return self.session.execute_write(locked)


@dataclass
class _Rows:
    """One group of rows to write and what the database must confirm for it."""

    query: str
    rows: Sequence[dict[str, Any]]  # a list, or rows built per slice (_NodeRows, _EdgeRows)
    task: str  # unique within a release, shown in progress and errors
    category: str  # the record count it adds to: "nodes", "relationships" or "statistics"
    counters: tuple[str, ...]  # summary counters that must each equal len(batch)
    masked: bool = False  # ANON_MASKED cells (also counted as written_masked)


class _NodeRows(Sequence[dict[str, Any]]):
    """``{"uid", "properties"}`` rows of nodes ``order[k]``, built per slice."""

    def __init__(self, uids: np.ndarray[Any, Any], order: np.ndarray[Any, Any],
                 attrs: Mapping[str, np.ndarray[Any, Any]]) -> None:
        self.uids, self.order, self.attrs = uids, order, attrs

    def __len__(self) -> int:
        return int(self.order.size)

    def __getitem__(self, item: Any) -> Any:
        if not isinstance(item, slice):
            return self[item:item + 1][0] if item >= 0 else self[len(self) + item]
        idx = self.order[item]
        uids = _take(self.uids, idx)
        if not self.attrs:
            return [{"uid": u, "properties": {}} for u in uids]
        cols = {k: [scalar(x) for x in col[idx].tolist()] for k, col in self.attrs.items()}
        return [{"uid": u, "properties": {k: c[i] for k, c in cols.items() if c[i] is not None}}
                for i, u in enumerate(uids)]


#: CSR entries a write looks at in one go (its temporary arrays stay small)
_BLOCK = 1 << 16


class _EdgeRows(Sequence[dict[str, Any]]):
    """``{"source", "target"}`` rows of a CSR's edges, built per slice.

    Rows go out in the written order of their source (``order``), then of their target
    (``right_rank``). With ``forward`` (a graph's CSR holds each edge twice) an edge is
    written once, from the endpoint written first, so neither the order of the rows nor an
    edge's direction follows the input. ``self.starts[k]`` is the first row of the ``k``-th
    source written: a slice needs one binary search and the CSR rows it covers.
    """

    def __init__(self, indptr: np.ndarray[Any, Any], indices: np.ndarray[Any, Any],
                 order: np.ndarray[Any, Any], left: np.ndarray[Any, Any],
                 right: np.ndarray[Any, Any], right_rank: np.ndarray[Any, Any],
                 forward: bool) -> None:
        self.indptr, self.indices, self.order = indptr, indices, order
        self.left, self.right, self.right_rank, self.forward = left, right, right_rank, forward
        counts = np.diff(indptr).astype(np.int64)
        if forward:  # neighbours written after the node, counted a block of the CSR at a time
            lo = 0
            while lo < order.size:
                hi = max(lo + 1, int(np.searchsorted(indptr, indptr[lo] + _BLOCK, "right")) - 1)
                a, b = int(indptr[lo]), int(indptr[hi])
                own = np.repeat(right_rank[lo:hi], counts[lo:hi])
                later = np.zeros(b - a + 1, dtype=np.int64)
                np.cumsum(right_rank[indices[a:b]] > own, out=later[1:])
                counts[lo:hi] = later[indptr[lo + 1:hi + 1] - a] - later[indptr[lo:hi] - a]
                lo = hi
        self.starts = np.zeros(order.size + 1, dtype=np.int64)
        np.cumsum(counts[order], out=self.starts[1:])
        self._row_of: tuple[int, np.ndarray[Any, Any] | None] = (-1, None)

    def __len__(self) -> int:
        return int(self.starts[-1])

    def _row(self, node: int) -> np.ndarray[Any, Any]:
        """The targets of ``node``'s rows in written order, kept for the next slice: a node
        with more rows than a batch (a hub) is sorted once, not once per batch."""
        if self._row_of[0] != node:
            targets = self.indices[self.indptr[node]:self.indptr[node + 1]]
            if self.forward:
                targets = targets[self.right_rank[targets] > self.right_rank[node]]
            self._row_of = (node, targets[np.argsort(self.right_rank[targets], kind="stable")])
        row = self._row_of[1]
        assert row is not None
        return row

    def __getitem__(self, item: Any) -> Any:
        if not isinstance(item, slice):
            return self[item:item + 1][0] if item >= 0 else self[len(self) + item]
        start, stop, _ = item.indices(len(self))
        if stop <= start:
            return []
        first = int(np.searchsorted(self.starts, start, side="right")) - 1
        last = int(np.searchsorted(self.starts, stop, side="left"))
        skip = start - int(self.starts[first])
        if last - first == 1:  # inside one node's rows
            node = int(self.order[first])
            targets = self._row(node)[skip:skip + stop - start]
            sources = _take(self.left, np.full(targets.size, node))
            names = _take(self.right, targets)
            return [{"source": s, "target": t} for s, t in zip(sources, names, strict=True)]
        self._row_of = (-1, None)
        nodes = self.order[first:last]
        lo, hi = self.indptr[nodes], self.indptr[nodes + 1]
        lengths = hi - lo
        pos = np.repeat(np.arange(nodes.size), lengths)  # k - first of each CSR entry
        flat = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        targets = self.indices[np.repeat(lo, lengths) + flat]
        if self.forward:
            keep = self.right_rank[targets] > self.right_rank[nodes][pos]
            pos, targets = pos[keep], targets[keep]
        # by source, then by the target's written order (one sort of a combined key)
        order = np.argsort(pos * self.right_rank.size + self.right_rank[targets])
        pick = order[skip:skip + stop - start]
        per_node = np.empty(nodes.size, dtype=object)  # each source's name made once
        per_node[:] = _take(self.left, nodes)
        sources = per_node[pos[pick]].tolist()
        names = _take(self.right, targets[pick])
        return [{"source": s, "target": t} for s, t in zip(sources, names, strict=True)]


class Neo4jSink:
    """Write releases and keep the privacy ledger (see the module docstring).

    Parameters
    ----------
    driver
        A ``neo4j.Driver`` or an object with the same ``session`` API.
    database
        Database name; ``None`` uses the server default.
    batch_size
        Rows per ``UNWIND $rows`` transaction and per delete transaction.
    """

    def __init__(
        self,
        driver: Any,
        *,
        database: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        progress: ProgressFn = log_progress,
    ) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise InvalidParameterError(
                f"The 'batch_size' parameter must be a positive int. Got {batch_size!r} instead."
            )
        self.driver = driver
        self.database = database
        self.batch_size = batch_size
        self.progress = progress
        self._bookmarks: Any = None
        self._schema_ready = False  # checked (or created) once per sink

    @contextlib.contextmanager
    def _session(self, *, read: bool = False) -> Iterator[Any]:
        """A session causally chained to every earlier one of this sink (one bookmark
        manager): on a cluster, the budget check of a write sees the budget just set and the
        schema just created, whichever member serves it."""
        import neo4j

        if self._bookmarks is None:
            self._bookmarks = neo4j.GraphDatabase.bookmark_manager()
        with self.driver.session(
            database=self.database,
            default_access_mode=neo4j.READ_ACCESS if read else neo4j.WRITE_ACCESS,
            bookmark_manager=self._bookmarks,
        ) as session:
            yield session

    @staticmethod
    def _run_write(session: Any, query: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        def work(tx: Any) -> list[dict[str, Any]]:
            return [dict(r) for r in tx.run(query, dict(params))]

        return list(session.execute_write(work))

    # ------------------------------------------------------------------ schema
    @staticmethod
    def index_names() -> list[str]:
        """The indexes a write relies on (the uniqueness constraints' indexes and the
        statistics' release indexes), which must be online before its first batch."""
        return ([f"graphanon_{label}_key" for label in RELEASE_LABELS]
                + [f"graphanon_{label}_release" for label in STATISTIC_LABELS])

    def ensure_schema(self, *, timeout_seconds: int = INDEX_TIMEOUT_SECONDS) -> None:
        """Create the constraints and indexes the writer relies on and wait until they are
        online (idempotent; ``graphanon neo4j init``, or the first write to a database).

        - unique ``AnonRelease.release_id``, ``PrivacyBudget.dataset``,
          ``PrivacyCharge.charge_id``;
        - unique ``(release_id, attempt, uid)`` on ``AnonNode``, ``AnonUser``,
          ``AnonFeature``: a uid is unique within each attempt of a release (two attempts'
          rows coexist until the earlier one is removed after the flip). Its index also
          serves lookups by ``release_id`` alone, so the indexes of earlier versions on these
          labels (``(release_id)``, ``(release_id, uid)``) are dropped;
        - ``(release_id)`` on the statistics labels (they have no ``uid``).

        A new index populates in the background; ``db.awaitIndex`` waits for each of them
        (at most ``timeout_seconds``), so the first batch does not run on label scans.
        """
        with wrap_driver_errors("creating constraints and indexes"), \
                self._session() as session:
            for label in RELEASE_LABELS:  # replaced by the uniqueness constraint's index
                for legacy in (f"graphanon_{label}_release", f"graphanon_{label}_uid"):
                    session.run(load("schema_drop_index", index=legacy), {}).consume()
            for name in ("schema_release_id", "schema_budget_dataset", "schema_charge_id"):
                session.run(load(name), {}).consume()
            for label in RELEASE_LABELS:
                session.run(load("schema_uid_index", index=f"graphanon_{label}_key",
                                 label=label), {}).consume()
            for label in STATISTIC_LABELS:
                session.run(load("schema_release_index", index=f"graphanon_{label}_release",
                                 label=label), {}).consume()
            for index in self.index_names():
                session.run(load("await_index"), {"index_name": index,
                                                  "timeout_seconds": timeout_seconds}).consume()
        self._schema_ready = True

    def migrate_legacy_releases(self) -> int:
        """Give the rows of releases written before staged writes the attempt ``'legacy'``
        and make it current on their complete records, so readers, the clean-up and
        ``drop-release`` find them again (idempotent; ``graphanon neo4j init``). Returns the
        number of records migrated. Runs after :meth:`ensure_schema`."""
        with wrap_driver_errors("migrating releases of earlier versions"), \
                self._session() as session:
            for label in (*RELEASE_LABELS, *STATISTIC_LABELS):
                session.run(load("migrate_legacy_rows", label=label), {}).consume()
            row = session.run(load("migrate_legacy_records"), {}).single()
        return int(row["migrated"]) if row is not None else 0

    def _ensure_schema_once(self) -> None:
        """Schema statements run once per database: when the constraints and indexes a write
        relies on are all there and online (``SHOW INDEXES``), nothing is created."""
        if self._schema_ready:
            return
        names = ["graphanon_release_id", "graphanon_budget_dataset", "graphanon_charge_id",
                 *self.index_names()]
        with wrap_driver_errors("checking constraints and indexes"), \
                self._session(read=True) as session:
            states = {r["name"]: r["state"]
                      for r in session.run(load("schema_state"), {"names": names})}
        if all(states.get(name) == "ONLINE" for name in names):
            self._schema_ready = True
        else:
            self.ensure_schema()

    # ------------------------------------------------------------------ ledger
    def create_budget(self, dataset: str, epsilon_total: float, *,
                      neighbourhood: str | None = None) -> Budget:
        """Set the budget (total ε) of ``dataset`` once: the one rule of both ledgers
        (:class:`~graphanon.privacy.accountant.BudgetLedger`).

        ``neighbourhood`` (``"edge"`` or ``"node"``) is the relation the budget is stated
        for, as for :class:`~graphanon.privacy.accountant.Accountant`: fixed when the budget
        is created (``None``: ``"edge"``). An existing budget with this total is left as it
        is (``None`` keeps its neighbourhood); another total or neighbourhood is refused
        (``InvalidParameterError``, nothing changed): see :meth:`set_budget`.
        """
        dataset = validate_budget(dataset, epsilon_total, neighbourhood)
        with wrap_driver_errors("setting the privacy budget"), self._session() as session:
            return ledger.create_budget(session, dataset, epsilon_total, neighbourhood, _now())

    def set_budget(self, dataset: str, epsilon_total: float) -> BudgetChange:
        """Change the budget (total ε) of an existing dataset: a separate operator action,
        logged in the ledger (``PrivacyBudgetChange``) and as a warning."""
        dataset = validate_budget(dataset, epsilon_total)
        with wrap_driver_errors("changing the privacy budget"), self._session() as session:
            return ledger.set_budget(session, dataset, epsilon_total, _now())

    # ------------------------------------------------------------------ releases
    def write_release(
        self,
        release: Any,
        *,
        release_id: str | None = None,
        graph: Graph | None = None,
        bipartite: BipartiteGraph | None = None,
        statistics: StatisticsTable | None = None,
        masked: MaskedRelease | None = None,
        dataset: str | None = None,
        keep_ids: bool = False,
        budget_total: float | None = None,
        operator_only: bool = False,
        replace: bool = False,
        publish: Sequence[str] = (),
    ) -> ReleaseSummary:
        """Write one release idempotently, visible as ``complete`` all at once (stage, then
        flip: see the module docstring).

        Parameters
        ----------
        release
            The release record (a ``Release``, its dict, or a report holding it).
        release_id
            The id of the release subgraph (default: the record's ``release_id``). An
            unfinished release with this id (``pending``: its writer stopped or is still
            running) is taken over; the same release written again (same record, payload and
            dataset) when it is complete is left as it is, nothing written or charged
            (``ReleaseSummary.unchanged``); a ``complete`` release of other content is
            replaced only with ``replace=True``, and stays readable until the replacement
            is complete.
        graph, bipartite, statistics, masked
            Exactly one payload: an anonymized social graph, an anonymized bipartite graph,
            a released dK table (:class:`~graphanon.dk.DKDistribution` 1K / 2K, or a
            :class:`~graphanon.dk.DK3Distribution`; see
            :func:`~graphanon.io.neo4j.statistic_rows`), or a b-anonymized release
            (:class:`~graphanon.io.masked.MaskedRelease`): one ``(:AnonUser {uid: r})`` per
            released row ``r`` (already a random pseudonym: the rows are permuted and the key
            is not part of the payload), one ``(:AnonFeature {uid})`` per attribute,
            ``[:ANON_HAS_FEATURE]`` for every known-1 cell and ``[:ANON_MASKED]`` for every
            masked cell; absent relationships are known 0.
        dataset
            Ledger key: a stable name of the source dataset chosen by the operator. Required
            when the release has an ε (never derived from a content hash, which changes with
            the data and would reset the budget).
        keep_ids
            Write the payload's node / user ids as ``uid``. By default users and nodes get
            keyed per-release pseudonyms (``n…`` / ``u…``, see the module docstring), so the
            release does not say which real user a row belongs to; feature ids (public
            attribute values) are kept. With ``keep_ids=True`` a k-anonymous release maps
            each anonymized row to its real user: it reveals who is in the data and which
            (generalized) features each person was published with. Ids that look like
            ``elementId()`` values are refused: they name source nodes.
        budget_total
            The dataset's total ε, set if the ledger has no budget for it yet; an existing
            budget must have this total (:meth:`create_budget`): a write never changes a
            budget (that is :meth:`set_budget`).
        operator_only
            Write a release that may not be published — no privacy claim (neighbourhood
            ``"none"``: exact statistics) or noise from the seeded ``numpy-insecure`` backend,
            whose recorded seed regenerates the exact statistic — marked
            ``publishable: false`` on its record. Without it such a release is refused: a
            release subgraph is read as published.
        replace
            Replace a complete release of other content that has this ``release_id`` (see
            ``release_id``).
        publish
            Attribute columns of ``graph`` / ``bipartite`` to write as node properties: only
            columns the release's record lists in ``released_attributes``. Every other
            column is dropped (:func:`graphanon.privacy.publish.published_view`).

        Raises
        ------
        InvalidParameterError
            Bad arguments; a payload that is not exactly what the record released (its
            kind, shape or keyed digest differs, or the record names no digest:
            :func:`graphanon.privacy.publish.check_payload`); an attribute named like a key
            the writer sets (:data:`RESERVED_NODE_PROPERTIES`). Nothing is written.
        PrivacyBudgetExceeded
            The release's ε does not fit the remaining budget (nothing is written).
        ReleaseConflictError
            Another attempt began writing (or dropping) the same release id meanwhile; this
            attempt stopped without touching the other's data (exit code 4).
        CommitOutcomeUnknown
            The connection was lost during a commit: it may or may not have happened
            (exit 4); check ``graphanon neo4j releases`` (re-running the write is safe).
        DatabaseUnavailableError, Neo4jError
            Driver failures, or a batch the database did not fully confirm: the release
            under this id stays as it was (at most a ``pending`` record of a new release,
            and staged rows no reader sees, are left behind).
        """
        t0 = time.perf_counter()
        record = release_record(release)
        release_id = record["release_id"] if release_id is None else release_id
        validate_release_id(release_id)
        why = unpublishable_reason(record)
        if why is not None and not operator_only:
            raise InvalidParameterError(
                f"release {release_id!r} may not be published: {why}. A release subgraph is "
                "read as published; write it to a file (a job's operator/ folder) or pass "
                "operator_only=True (CLI: --operator-only) to write it marked "
                "publishable: false.")
        payloads = [p for p in (graph, bipartite, statistics, masked) if p is not None]
        if len(payloads) != 1:
            raise InvalidParameterError(
                "write_release needs exactly one of graph, bipartite, statistics or masked."
            )
        # the published view (allow-list: nothing read from the source but what the release
        # released) of exactly the payload the record is bound to; the file sink writes the
        # same view (graphanon.privacy.publish)
        graph, bipartite = (None if p is None else published_view(p, record, publish)
                            for p in (graph, bipartite))
        check_payload(record, next(p for p in (graph, bipartite, statistics, masked)
                                   if p is not None))
        epsilon = charge_epsilon(record, "edge")  # None: no ε, written uncharged
        if epsilon is not None:
            if not dataset:
                raise InvalidParameterError(
                    "a DP release needs the 'dataset' its ε is charged to: a stable name of "
                    "the source data (a content hash would reset the budget whenever the data "
                    "changes)."
                )
            dataset = check_dataset(dataset)
        if graph is not None:
            kind, payload_fp = "graph", graph.content_hash
            _check_property_names(graph.attributes, "node attribute")
        elif bipartite is not None:
            kind, payload_fp = "bipartite", bipartite.content_hash
            _check_property_names(bipartite.user_attributes, "user attribute")
        elif masked is not None:
            if not isinstance(masked, MaskedRelease):
                raise InvalidParameterError(
                    "The 'masked' parameter of write_release must be a MaskedRelease "
                    f"(graphanon.io.masked). Got {type(masked).__name__} instead."
                )
            kind, payload_fp = "masked", masked.fingerprint
        else:
            assert statistics is not None
            kind, payload_fp = "statistics", table_fingerprint(statistics)
        # every id is checked and named before anything is written; rows are built per batch
        # pseudonyms are scoped by the record's random release id, never by the given one (a
        # job's template or a --release-id repeats: two releases would share pseudonyms)
        groups, id_modes = self._payload_rows(record["release_id"], graph, bipartite,
                                              statistics, masked, keep_ids)
        # keyed: a plain hash of the payload (whose content hash covers the real ids before
        # pseudonymization) would let anyone test a guessed id mapping against the record
        # the id modes too: the same payload with real ids (keep_ids) is other content
        charge_id = keyed_fingerprint(hashlib.sha256(
            f"{dataset}\n{canonical_json(record)}\n{kind}\n{payload_fp}\n"
            f"{canonical_json(id_modes)}".encode()
        ).hexdigest())
        properties: dict[str, Any] = {
            **record_properties(record),
            "kind": kind,
            "dataset": dataset,
            **id_modes,
            "charge_id": charge_id,
            "publishable": why is None,
        }
        properties = {k: v for k, v in properties.items() if v is not None}
        charged = epsilon is not None

        with wrap_driver_errors(f"writing release {release_id!r}"):
            self._ensure_schema_once()  # the budget's constraint too: no schema per write
            if budget_total is not None:
                assert dataset is not None or not charged
                ds = validate_budget(dataset or "", budget_total)
                with self._session() as session:
                    ledger.create_budget(session, ds, budget_total, None, _now(), schema=False)
            with self._session() as session:
                if charged:
                    assert dataset is not None
                    ledger.peek_budget(session, dataset, charge_id, record)
                attempt, previous = self._begin(session, release_id, properties,
                                                replace=replace)
                if attempt is None:  # this very release is complete: nothing to do
                    counts = {k: int(previous.get(k) or 0) for k in (
                        "written_nodes", "written_relationships", "written_statistics",
                        "written_masked")}
                    return ReleaseSummary(
                        release_id=release_id, kind=kind, status="complete",
                        n_nodes=counts["written_nodes"],
                        n_relationships=counts["written_relationships"],
                        n_statistics=counts["written_statistics"], epsilon_charged=0.0,
                        dataset=dataset, seconds=time.perf_counter() - t0,
                        n_masked=counts["written_masked"], unchanged=True)
                written = {group.task: self._write_rows(attempt, group) for group in groups}
                counts = self._counts(groups, written)
                try:
                    spent = self._complete(attempt, dataset if charged else None, record,
                                           charge_id, properties, counts)
                except PrivacyBudgetExceeded:
                    # refused by the final check under the budget's lock (another release
                    # spent the budget meanwhile): the staged rows go, a complete release
                    # under this id stays as it was, a new one is removed
                    self._end(attempt)
                    raise
                if previous.get("previous_status") is not None:  # (a new record has no rows)
                    self._clean_up(session, release_id)
        return ReleaseSummary(
            release_id=release_id, kind=kind, status="complete",
            n_nodes=counts["written_nodes"], n_relationships=counts["written_relationships"],
            n_statistics=counts["written_statistics"], epsilon_charged=spent, dataset=dataset,
            seconds=time.perf_counter() - t0, n_masked=counts.get("written_masked", 0),
        )

    # ------------------------------------------------------------------ protocol
    def _begin(self, session: Any, release_id: str, properties: Mapping[str, Any], *,
               replace: bool) -> tuple[_Attempt | None, dict[str, Any]]:
        """Begin an attempt: lock the record, read it, decide, claim it (one transaction).

        Returns ``(None, counts)`` when the record is this very release, complete (same
        charge id: same record, payload, dataset and id modes): nothing is written."""
        token = secrets.token_hex(16)
        begin, claim = load("begin_release"), load("claim_release_write")
        params = {"release_id": release_id, "properties": dict(properties),
                  "write_token": token}

        def work(tx: Any) -> dict[str, Any]:
            rows = [dict(r) for r in tx.run(begin, {"release_id": release_id})]
            old = rows[0]  # read under the record's lock (begin_release takes it first)
            if old.get("previous_status") == "complete":
                if old.get("previous_charge_id") == properties.get("charge_id"):
                    return old
                if not replace:
                    # raised inside the transaction: the record is left as it was
                    raise InvalidParameterError(
                        f"release {release_id!r} exists and is complete with other content "
                        "(another record or payload); it is not replaced silently, since its "
                        "readers would lose it. Choose another release id, or pass "
                        "replace=True (CLI --replace, job sink replace = true).")
            tx.run(claim, params).consume()
            old["claimed"] = True
            return old

        previous = dict(session.execute_write(work))
        if not previous.get("claimed"):
            return None, dict(previous.get("previous_counts") or {})
        if previous.get("previous_token") is not None:
            _log.warning(
                "release %s had another attempt (%s; still running, or one that stopped); "
                "this attempt takes it over and the other one stops at its next "
                "transaction", release_id, previous["previous_status"])
        return _Attempt(session, release_id, token), previous

    def _delete_data(self, run: Callable[[Callable[[Any, dict[str, Any]], int]], int | None],
                     keep: Callable[[dict[str, Any]], list[str]]) -> int:
        """Delete rows of the attempts not in ``keep(lock row)``, in batches: relationships,
        nodes, statistics. ``run(work)`` runs ``work(tx, lock row)`` in a locked write
        transaction, or returns ``None`` to stop."""
        steps = ([("delete_release_relationships", label, "relationships_deleted")
                  for label in _RELATIONSHIP_START_LABELS]
                 + [("delete_release_nodes", label, "nodes_deleted")
                    for label in RELEASE_LABELS]
                 + [("delete_release_statistics", label, "nodes_deleted")
                    for label in STATISTIC_LABELS])
        total = 0
        for name, label, counter in steps:
            query = load(name, label=label)

            def work(tx: Any, row: dict[str, Any], q: str = query, c: str = counter) -> int:
                params = {"release_id": row["release_id"], "keep": keep(row),
                          "batch_size": self.batch_size}
                return _counter(tx.run(q, params).consume(), c)

            while True:
                deleted = run(work)
                if deleted is None:
                    return total
                total += deleted
                if deleted < self.batch_size:
                    break
        return total

    @staticmethod
    def _attempt_run(attempt: _Attempt) -> Callable[[Callable[[Any, dict[str, Any]], int]], int]:
        """Delete batches of ``attempt`` itself (a drop, or a write refused at the end)."""

        def run(work: Callable[[Any, dict[str, Any]], int]) -> int:
            def locked(tx: Any) -> int:
                row = attempt.check(tx)
                return work(tx, {**row, "release_id": attempt.release_id})

            return int(attempt.session.execute_write(locked))

        return run

    def _clean_up(self, session: Any, release_id: str) -> None:
        """After the flip: remove the rows of every attempt that is neither the release's
        current one nor one staging now (both read under the record's lock in each batch).
        It stops when the release is being dropped (the drop removes everything) and, on a
        driver error, leaves the rest — rows no reader sees — to the next write or drop."""

        def run(work: Callable[[Any, dict[str, Any]], int]) -> int | None:
            def locked(tx: Any) -> int | None:
                row = _lock(tx, release_id)
                if row is None or row.get("status") != "complete":
                    return None
                return work(tx, {**row, "release_id": release_id})

            return session.execute_write(locked)  # type: ignore[no-any-return]

        def keep(row: dict[str, Any]) -> list[str]:
            return [t for t in (row.get("current_attempt"), row.get("write_token")) if t]

        try:
            with wrap_driver_errors(f"removing earlier attempts of release {release_id!r}"):
                self._delete_data(run, keep)
        except Neo4jError as exc:
            _log.warning("release %s is complete; removing the rows of its earlier attempts "
                         "stopped (%s): no reader sees them, and the next write or drop of "
                         "the release removes them", release_id, exc)

    def _write_rows(self, attempt: _Attempt, group: _Rows) -> int:
        """Write ``group`` in locked batches, each built as it is sent; return the count the
        database confirmed."""
        total = len(group.rows)
        done = confirmed = 0
        for number, batch in enumerate(_batches(group.rows, self.batch_size), start=1):

            def work(tx: Any, batch: list[dict[str, Any]] = batch, number: int = number) -> int:
                summary = tx.run(group.query, {"release_id": attempt.release_id,
                                               "attempt": attempt.token,
                                               "rows": batch}).consume()
                created = [_counter(summary, name) for name in group.counters]
                for name, n in zip(group.counters, created, strict=True):
                    if n != len(batch):
                        raise Neo4jError(
                            f"batch {number} of the {group.task} of release "
                            f"{attempt.release_id!r}: the database reports {name} = {n} for "
                            f"{len(batch)} rows sent (rows whose endpoints or record are "
                            "missing create nothing); the batch was rolled back and the "
                            "release was not marked complete.")
                return created[0]

            confirmed += int(attempt.transaction(work))
            done += len(batch)
            del batch, work  # (before the next batch is built: one batch at a time)
            self.progress(group.task, done, total)
        return confirmed

    @staticmethod
    def _counts(groups: list[_Rows], written: Mapping[str, int]) -> dict[str, int]:
        """The confirmed counts of the record; raise unless they equal what was sent."""
        sent = {g.task: len(g.rows) for g in groups}
        if dict(written) != sent:
            raise Neo4jError(
                f"the database confirmed {dict(written)} rows but {sent} were sent; the "
                "release was not marked complete.")
        counts = {f"written_{c}": sum(written[g.task] for g in groups if g.category == c)
                  for c in ("nodes", "relationships", "statistics")}
        if any(g.masked for g in groups):
            counts["written_masked"] = sum(written[g.task] for g in groups if g.masked)
        return counts

    def _complete(self, attempt: _Attempt, dataset: str | None, record: Mapping[str, Any],
                  charge_id: str, properties: Mapping[str, Any],
                  counts: Mapping[str, int]) -> float:
        """The completing transaction: charge the ledger and flip the record."""
        # the charge is stamped with the release's created_at (the start of its run), not
        # the wall clock: a completion time minus the start would tell how long the read
        # and the mechanism took, which depends on the data
        now = str(record.get("created_at") or _now())
        complete_q = load("complete_release")

        def work(tx: Any) -> float:
            spent = cost = 0.0
            if dataset is not None:  # the budget node's lock first, then the record's
                spent, cost = ledger.lock_budget(
                    tx, dataset=dataset, release_id=attempt.release_id, charge_id=charge_id,
                    record=record)
            attempt.check(tx)
            if dataset is not None:
                ledger.record_charge(tx, dataset=dataset, release_id=attempt.release_id,
                                     charge_id=charge_id, mechanism=record["mechanism"],
                                     epsilon=spent, now=now)
            done = [dict(r) for r in tx.run(complete_q, {
                "release_id": attempt.release_id, "write_token": attempt.token,
                "properties": dict(properties), "counts": dict(counts),
                # the release's charge (an identical rewrite charges 0 now, not in total)
                "epsilon_charged": cost if dataset is not None else None})]
            if not done:
                raise ReleaseConflictError(
                    f"release {attempt.release_id!r} was no longer this attempt's when it was "
                    "completed; nothing was marked complete.")
            return spent

        return float(attempt.session.execute_write(work))

    # ------------------------------------------------------------------ payload rows
    def _payload_rows(self, scope: str, graph: Graph | None,
                      bipartite: BipartiteGraph | None, statistics: StatisticsTable | None,
                      masked: MaskedRelease | None,
                      keep_ids: bool) -> tuple[list[_Rows], dict[str, str]]:
        """The rows of the payload: ids are checked and named now, rows built per batch."""
        nodes_q = {label: load("write_nodes", label=label) for label in RELEASE_LABELS}

        def rels_q(source: str, target: str, rel_type: str) -> str:
            return load("write_relationships", source_label=source, target_label=target,
                        rel_type=rel_type)

        if graph is not None:
            uids, order = _published_ids(graph.node_ids, scope, keep_ids, "n", "node")
            rank = _rank(order)
            # each edge points from the endpoint written first: its direction, like the
            # order of the rows, says nothing about the input
            edges = _EdgeRows(graph.indptr, graph.indices, order, uids, uids, rank,
                              forward=True)
            return ([_Rows(nodes_q["AnonNode"], _NodeRows(uids, order, graph.attributes),
                           "release nodes", "nodes", ("nodes_created",)),
                     _Rows(rels_q("AnonNode", "AnonNode", EDGE_REL_TYPE), edges,
                           "release relationships", "relationships",
                           ("relationships_created",))],
                    {"ids": "kept" if keep_ids else "pseudonymized"})
        if bipartite is not None:
            uids, order = _published_ids(bipartite.user_ids, scope, keep_ids, "u", "user")
            fids, forder, feature_mode = _feature_ids(bipartite.feature_ids, scope)
            edges = _EdgeRows(bipartite.indptr, bipartite.indices, order, uids, fids,
                              _rank(forder), forward=False)
            return ([_Rows(nodes_q["AnonUser"],
                           _NodeRows(uids, order, bipartite.user_attributes),
                           "release users", "nodes", ("nodes_created",)),
                     _Rows(nodes_q["AnonFeature"], _NodeRows(fids, forder, {}),
                           "release features", "nodes", ("nodes_created",)),
                     _Rows(rels_q("AnonUser", "AnonFeature", FEATURE_REL_TYPE), edges,
                           "release relationships", "relationships",
                           ("relationships_created",))],
                    {"ids": "kept" if keep_ids else "pseudonymized", "feature_ids": feature_mode})
        if masked is not None:
            return self._masked_rows(scope, masked, nodes_q, rels_q)
        assert statistics is not None
        label, rows = statistic_rows(statistics)
        return ([_Rows(load("write_statistics", label=label), rows, "release statistics",
                       "statistics", ("nodes_created", "relationships_created"))], {})

    @staticmethod
    def _masked_rows(scope: str, masked: MaskedRelease, nodes_q: Mapping[str, str],
                     rels_q: Callable[[str, str, str], str]
                     ) -> tuple[list[_Rows], dict[str, str]]:
        """Released rows, attributes, then known-1 and masked cells (see write_release)."""
        from ..._ids import canonical_ids

        attr_ids = canonical_ids(np.asarray(masked.attribute_ids), "attribute ids")
        names, forder, feature_mode = _feature_ids(attr_ids, scope)
        fids = _take(names, slice(None))
        user_rows = [{"uid": r, "properties": {}} for r in range(masked.n_rows)]
        feat_rows = [{"uid": fids[j], "properties": {}} for j in forder.tolist()]
        order = np.lexsort((masked.cols, masked.rows))
        rows, cols = masked.rows[order].tolist(), masked.cols[order].tolist()
        flags = masked.masked[order].tolist()
        ones = [{"source": r, "target": fids[c]}
                for r, c, m in zip(rows, cols, flags, strict=True) if not m]
        stars = [{"source": r, "target": fids[c]}
                 for r, c, m in zip(rows, cols, flags, strict=True) if m]
        groups = [
            _Rows(nodes_q["AnonUser"], user_rows, "release rows", "nodes", ("nodes_created",)),
            _Rows(nodes_q["AnonFeature"], feat_rows, "release attributes", "nodes",
                  ("nodes_created",)),
            _Rows(rels_q("AnonUser", "AnonFeature", FEATURE_REL_TYPE), ones,
                  "release known-1 cells", "relationships", ("relationships_created",)),
            _Rows(rels_q("AnonUser", "AnonFeature", MASKED_REL_TYPE), stars,
                  "release masked cells", "relationships", ("relationships_created",),
                  masked=True),
        ]
        return groups, {"ids": "released-rows", "feature_ids": feature_mode}

    # ------------------------------------------------------------------ drop and list
    def drop_release(self, release_id: str) -> bool:
        """Delete a release (the rows of every attempt in locked batches, then the record).
        Ledger charges are kept. A write attempt still running on the release fails at its
        next transaction. Returns whether the release existed."""
        validate_release_id(release_id)
        with wrap_driver_errors(f"dropping release {release_id!r}"), \
                self._session() as session:
            token = secrets.token_hex(16)
            claimed = self._run_write(session, load("claim_release_drop"),
                                      {"release_id": release_id, "write_token": token})
            if not claimed:
                return False
            return self._end(_Attempt(session, release_id, token), keep_current=False)

    def _end(self, attempt: _Attempt, *, keep_current: bool = True) -> bool:
        """End an attempt that completes nothing, under its lock: delete its rows (and, for a
        drop, those of every attempt), then take its token off the record and delete a record
        that holds no complete release. Whether the record was deleted."""
        self._delete_data(self._attempt_run(attempt), lambda row: (
            [row["current_attempt"]] if keep_current and row.get("current_attempt") else []))
        query = load("delete_release_record")
        rows = attempt.transaction(lambda tx: [dict(r) for r in tx.run(
            query, {"release_id": attempt.release_id, "write_token": attempt.token})])
        return bool(rows and rows[0].get("deleted"))

    def project_gds(self, release_id: str, graph_name: str) -> dict[str, Any]:
        """Project one complete release into the Graph Data Science catalog as
        ``graph_name`` (an undirected graph of its current attempt's rows only; the
        statement is ``cypher/gds_project_release.cypher``, which ``graphanon neo4j
        releases`` prints). Needs the GDS plugin. Returns the graph's name, node count and
        relationship count (GDS counts an undirected relationship twice); the values are
        ``None`` when no complete release has this id."""
        validate_release_id(release_id)
        with wrap_driver_errors(f"projecting release {release_id!r}"), \
                self._session(read=True) as session:

            def work(tx: Any) -> list[dict[str, Any]]:
                return [dict(r) for r in tx.run(load("gds_project_release"), {
                    "release_id": release_id, "graph_name": graph_name})]

            rows = session.execute_read(work)
        return dict(rows[0]) if rows else {}

    def releases(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """All release records and all budget ledgers."""
        with wrap_driver_errors("listing releases"), self._session(read=True) as session:

            def work(tx: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
                rel = [dict(r) for r in tx.run(load("list_releases"), {})]
                bud = [dict(r) for r in tx.run(load("list_budgets"), {})]
                return rel, bud

            rel, bud = session.execute_read(work)
        return list(rel), list(bud)


# ----------------------------------------------------------------------- published ids
#: Ids pseudonymized at a time (keeps the transient strings of a large graph small).
_PSEUDONYM_CHUNK = 1 << 14


def _take(names: np.ndarray[Any, Any], idx: Any) -> list[Any]:
    """The uids ``names[idx]`` as a row carries them: ``str`` (pseudonyms, held as ASCII
    bytes, or text ids) or ``int``."""
    values = names[idx]
    if values.dtype.kind == "S":
        return [b.decode() for b in values.tolist()]
    if values.dtype.kind in "iu":
        return values.tolist()  # type: ignore[no-any-return]
    return [x if isinstance(x, str) else int(x) for x in values.tolist()]


def _pseudonyms(ids: np.ndarray[Any, Any], scope: str,
                prefix: str) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Keyed pseudonyms of ``ids`` as ASCII bytes (a few bytes per id instead of a Python
    string each), made a chunk at a time, and their sorted order."""
    from ...errors import GraphAnonError
    from ...privacy.pseudonyms import PSEUDONYM_HEX, pseudonymize_with_key, scope_key

    key = scope_key(scope)
    names = np.empty(ids.size, dtype=f"S{len(prefix) + PSEUDONYM_HEX}")
    for start in range(0, ids.size, _PSEUDONYM_CHUNK):
        chunk = ids[start:start + _PSEUDONYM_CHUNK]
        names[start:start + chunk.size] = pseudonymize_with_key(chunk, key, prefix=prefix)
    order = np.argsort(names, kind="stable")
    if ids.size and np.any(names[order[1:]] == names[order[:-1]]):
        raise GraphAnonError(
            "two ids received the same pseudonym (an 80-bit collision); nothing was written. "
            "Run again: the next release id gives fresh pseudonyms.")
    return names, order


def _published_ids(ids: np.ndarray[Any, Any], scope: str, keep_ids: bool, prefix: str,
                   what: str) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The uids written for ``ids`` (read with :func:`_take`) and the order to write them in.

    Pseudonyms are keyed and per release; rows go out in pseudonym order. Kept ids are
    refused when they look like ``elementId()`` values.
    """
    if keep_ids:
        if contains_element_ids(ids):
            raise InvalidParameterError(
                f"keep_ids would publish {what} ids that are Neo4j elementId() values: they "
                "name source nodes (and change when nodes are re-created). Read with a "
                "business-key property (--id-prop) or drop --keep-ids (keyed pseudonyms).")
        from ...privacy.pseudonyms import warn_real_ids

        warn_real_ids(f"keep_ids ({what} ids)")
        return ids, np.arange(ids.size)
    return _pseudonyms(ids, scope, prefix)


def _feature_ids(ids: np.ndarray[Any, Any],
                 scope: str) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], str]:
    """Feature uids (business keys, or keyed pseudonyms of element ids; read with
    :func:`_take`), their write order (by canonical text, not by first appearance in the
    input) and the record's mode."""
    if contains_element_ids(ids):
        return (*_pseudonyms(ids, scope, "f"), "pseudonymized")
    text = ids_as_text(ids)
    return ids, np.argsort(text.astype(str), kind="stable"), "kept"


def _check_property_names(names: Any, what: str) -> None:
    """Refuse attribute names that are no identifier or that the writer sets itself."""
    for name in names:
        validate_identifier(name, what)
        if name in RESERVED_NODE_PROPERTIES:
            raise InvalidParameterError(
                f"The {what} {name!r} cannot be written: {', '.join(RESERVED_NODE_PROPERTIES)} "
                "are the keys the writer sets on every release node itself. Rename the "
                "attribute.")


def _rank(order: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``rank[i]``: the position at which item ``i`` is written (the inverse of ``order``)."""
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank
