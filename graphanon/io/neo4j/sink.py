"""Writing releases into Neo4j: :class:`Neo4jSink`.

A release is a separate subgraph tagged with its ``release_id``: the record
``(:AnonRelease {release_id, mechanism, neighbourhood, epsilon, ..., status})``; an anonymized
graph as ``(:AnonNode)-[:ANON_EDGE]->(:AnonNode)`` or
``(:AnonUser)-[:ANON_HAS_FEATURE]->(:AnonFeature)``; a masked (b-anonymized) release as
``(:AnonUser {uid: released row})-[:ANON_HAS_FEATURE|ANON_MASKED]->(:AnonFeature)``; released
statistics as ``(:AnonRelease)-[:HAS_STATISTIC]->(:DegreeCount | :JointDegreeCount |
:DegreeTupleCount)``. Anonymized nodes never link to source nodes.

**One writer per release.** Every write (and every drop) is an *attempt* with a random token.
``begin_release`` sets the record to ``pending`` with the attempt's token; every later
transaction of the attempt — each delete batch, each write batch, the completing one — first
runs ``lock_release``, which takes the record's write lock and reads the token back, and the
attempt stops with :class:`ReleaseConflictError` (exit code 4) as soon as the token is no
longer its own. Because each of these transactions holds the record's lock from its first
statement, the transactions of two attempts on one release are serialized; an attempt that
was taken over writes nothing more, deletes nothing of the new attempt's data, and marks
nothing complete. The last attempt to begin wins (a re-run replaces a release, also one whose
writer died).

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


def _batches(rows: Sequence[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(rows), size):
        yield list(rows[start:start + size])


def _counter(summary: Any, name: str) -> int:
    return int(getattr(summary.counters, name))


class _Attempt:
    """One write or drop attempt on a release: its token and its locked transactions."""

    def __init__(self, session: Any, release_id: str, token: str, status: str) -> None:
        self.session = session
        self.release_id = release_id
        self.token = token
        self.status = status

    def check(self, tx: Any) -> None:
        """Take the record's write lock and verify that this attempt still holds it."""
        rows = [dict(r) for r in tx.run(load("lock_release"), {"release_id": self.release_id})]
        if not rows:
            raise ReleaseConflictError(
                f"release {self.release_id!r} was dropped by another attempt while this one "
                "was writing it; this attempt stopped without writing more and marked "
                "nothing complete.")
        row = rows[0]
        if row.get("write_token") != self.token or row.get("status") != self.status:
            raise ReleaseConflictError(
                f"release {self.release_id!r} was taken over by another attempt (its record "
                f"is now {row.get('status')!r} under another writer) while this one was "
                "writing it; this attempt stopped without writing more, deleted nothing of "
                "the other attempt's data and marked nothing complete.")

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
    rows: list[dict[str, Any]]
    task: str  # unique within a release, shown in progress and errors
    category: str  # the record count it adds to: "nodes", "relationships" or "statistics"
    counters: tuple[str, ...]  # summary counters that must each equal len(batch)
    masked: bool = False  # ANON_MASKED cells (also counted as written_masked)


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
        """The indexes a write relies on (awaited before its first batch)."""
        return ([f"graphanon_{label}_uid" for label in RELEASE_LABELS]
                + [f"graphanon_{label}_release" for label in STATISTIC_LABELS])

    def ensure_schema(self, *, timeout_seconds: int = INDEX_TIMEOUT_SECONDS) -> None:
        """Create the constraints and indexes the writer relies on and wait until they are
        online (idempotent).

        - unique ``AnonRelease.release_id``, ``PrivacyBudget.dataset``,
          ``PrivacyCharge.charge_id``;
        - ``(release_id, uid)`` on ``AnonNode``, ``AnonUser``, ``AnonFeature`` (it also serves
          lookups by ``release_id`` alone, so the single-property ``release_id`` indexes of
          these labels, made by earlier versions, are dropped);
        - ``(release_id)`` on the statistics labels (they have no ``uid``).

        A new index populates in the background; ``db.awaitIndex`` waits for each of them
        (at most ``timeout_seconds``), so the first batch does not run on label scans.
        """
        with wrap_driver_errors("creating constraints and indexes"), \
                self._session() as session:
            for name in ("schema_release_id", "schema_budget_dataset", "schema_charge_id"):
                session.run(load(name), {}).consume()
            for label in RELEASE_LABELS:
                session.run(load("schema_uid_index", index=f"graphanon_{label}_uid",
                                 label=label), {}).consume()
            for label in STATISTIC_LABELS:
                session.run(load("schema_release_index", index=f"graphanon_{label}_release",
                                 label=label), {}).consume()
            for label in RELEASE_LABELS:  # covered by the composite index
                session.run(load("schema_drop_index", index=f"graphanon_{label}_release"),
                            {}).consume()
            for index in self.index_names():
                session.run(load("await_index"), {"index_name": index,
                                                  "timeout_seconds": timeout_seconds}).consume()

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
    ) -> ReleaseSummary:
        """Write one release idempotently, visible as ``complete`` all at once.

        Parameters
        ----------
        release
            The release record (a ``Release``, its dict, or a report holding it).
        release_id
            The id of the release subgraph (default: the record's ``release_id``). An
            unfinished release with this id (``pending``: its writer stopped or is still
            running) is taken over; the same release written again (same record and
            payload) is rewritten without a second charge; a ``complete`` release of other
            content is replaced only with ``replace=True``.
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

        Raises
        ------
        PrivacyBudgetExceeded
            The release's ε does not fit the remaining budget (nothing is written).
        ReleaseConflictError
            Another attempt began writing (or dropping) the same release id meanwhile; this
            attempt stopped without touching the other's data (exit code 4).
        DatabaseUnavailableError, Neo4jError
            Driver failures, or a batch the database did not fully confirm; at most a
            ``pending`` record is left behind.
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
            for name in graph.attributes:
                validate_identifier(name, "node attribute")
        elif bipartite is not None:
            kind, payload_fp = "bipartite", bipartite.content_hash
            for name in bipartite.user_attributes:
                validate_identifier(name, "user attribute")
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
        # every row is built (and every id checked) before anything is written
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
            if budget_total is not None:
                assert dataset is not None or not charged
                self.create_budget(dataset or "", budget_total)
            self.ensure_schema()
            with self._session() as session:
                if charged:
                    assert dataset is not None
                    ledger.peek_budget(session, dataset, charge_id, record)
                attempt = self._begin(session, release_id, properties, status="pending",
                                      replace=replace)
                self._delete_data(attempt)
                written = {group.task: self._write_rows(attempt, group) for group in groups}
                counts = self._counts(groups, written)
                try:
                    spent = self._complete(attempt, dataset if charged else None, record,
                                           charge_id, counts)
                except PrivacyBudgetExceeded:
                    # refused by the final check under the budget's lock (another release
                    # spent the budget meanwhile): nothing uncharged may stay readable
                    self._remove(attempt)
                    raise
        return ReleaseSummary(
            release_id=release_id, kind=kind, status="complete",
            n_nodes=counts["written_nodes"], n_relationships=counts["written_relationships"],
            n_statistics=counts["written_statistics"], epsilon_charged=spent, dataset=dataset,
            seconds=time.perf_counter() - t0, n_masked=counts.get("written_masked", 0),
        )

    # ------------------------------------------------------------------ protocol
    def _begin(self, session: Any, release_id: str, properties: Mapping[str, Any], *,
               status: str, replace: bool) -> _Attempt:
        token = secrets.token_hex(16)
        query = load("begin_release")
        params = {"release_id": release_id, "properties": dict(properties),
                  "write_token": token}

        def work(tx: Any) -> list[dict[str, Any]]:
            rows = [dict(r) for r in tx.run(query, params)]
            old = rows[0] if rows else {}
            if (old.get("previous_status") == "complete" and not replace
                    and old.get("previous_charge_id") != properties.get("charge_id")):
                # raised inside the transaction: the record is left as it was
                raise InvalidParameterError(
                    f"release {release_id!r} exists and is complete with other content (another "
                    "record or payload); it is not replaced silently, since its readers would "
                    "lose it. Choose another release id, or pass replace=True (CLI --replace, "
                    "job sink replace = true).")
            return rows

        rows = list(session.execute_write(work))
        previous = rows[0] if rows else {}
        if previous.get("previous_status") in ("pending", "dropping"):
            _log.warning(
                "release %s was %s under another attempt (still running, or one that "
                "stopped); this attempt takes it over and the other one stops at its next "
                "transaction", release_id, previous["previous_status"])
        return _Attempt(session, release_id, token, status)

    def _delete_data(self, attempt: _Attempt) -> int:
        """Delete the release's data in locked batches: relationships, nodes, statistics."""
        steps = ([("delete_release_relationships", label, "relationships_deleted")
                  for label in _RELATIONSHIP_START_LABELS]
                 + [("delete_release_nodes", label, "nodes_deleted")
                    for label in RELEASE_LABELS]
                 + [("delete_release_statistics", label, "nodes_deleted")
                    for label in STATISTIC_LABELS])
        total = 0
        for name, label, counter in steps:
            query = load(name, label=label)
            params = {"release_id": attempt.release_id, "batch_size": self.batch_size}
            def work(tx: Any, q: str = query, p: dict[str, Any] = params,
                     c: str = counter) -> int:
                return _counter(tx.run(q, p).consume(), c)

            while True:
                deleted = int(attempt.transaction(work))
                total += deleted
                if deleted < self.batch_size:
                    break
        return total

    def _write_rows(self, attempt: _Attempt, group: _Rows) -> int:
        """Write ``group`` in locked batches; return the count the database confirmed."""
        total = len(group.rows)
        done = confirmed = 0
        for number, batch in enumerate(_batches(group.rows, self.batch_size), start=1):

            def work(tx: Any, batch: list[dict[str, Any]] = batch, number: int = number) -> int:
                summary = tx.run(group.query, {"release_id": attempt.release_id,
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
                  charge_id: str, counts: Mapping[str, int]) -> float:
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
                "counts": dict(counts),
                # the release's charge (an identical rewrite charges 0 now, not in total)
                "epsilon_charged": cost if dataset is not None else None})]
            if not done:
                raise ReleaseConflictError(
                    f"release {attempt.release_id!r} was no longer this attempt's pending "
                    "release when it was completed; nothing was marked complete.")
            return spent

        return float(attempt.session.execute_write(work))

    # ------------------------------------------------------------------ payload rows
    def _payload_rows(self, scope: str, graph: Graph | None,
                      bipartite: BipartiteGraph | None, statistics: StatisticsTable | None,
                      masked: MaskedRelease | None,
                      keep_ids: bool) -> tuple[list[_Rows], dict[str, str]]:
        nodes_q = {label: load("write_nodes", label=label) for label in RELEASE_LABELS}

        def rels_q(source: str, target: str, rel_type: str) -> str:
            return load("write_relationships", source_label=source, target_label=target,
                        rel_type=rel_type)

        if graph is not None:
            uids, order = _published_ids(graph.node_ids, scope, keep_ids, "n", "node")
            attrs = {k: v.tolist() for k, v in graph.attributes.items()}
            node_rows = [_node_row(uids[i], attrs, i) for i in order.tolist()]
            u, v = graph.edges()
            rank = _rank(order)
            # each edge points from the endpoint written first: its direction, like the
            # order of the rows, says nothing about the input
            swap = rank[u] > rank[v]
            u, v = np.where(swap, v, u), np.where(swap, u, v)
            edge_rows = _edge_rows(u, v, uids, rank, uids, rank)
            return ([_Rows(nodes_q["AnonNode"], node_rows, "release nodes", "nodes",
                           ("nodes_created",)),
                     _Rows(rels_q("AnonNode", "AnonNode", EDGE_REL_TYPE), edge_rows,
                           "release relationships", "relationships",
                           ("relationships_created",))],
                    {"ids": "kept" if keep_ids else "pseudonymized"})
        if bipartite is not None:
            uids, order = _published_ids(bipartite.user_ids, scope, keep_ids, "u", "user")
            fids, forder, feature_mode = _feature_ids(bipartite.feature_ids, scope)
            attrs = {k: v.tolist() for k, v in bipartite.user_attributes.items()}
            user_rows = [_node_row(uids[i], attrs, i) for i in order.tolist()]
            feat_rows = [{"uid": fids[j], "properties": {}} for j in forder.tolist()]
            r, c = bipartite.edges()
            edge_rows = _edge_rows(r, c, uids, _rank(order), fids, _rank(forder))
            return ([_Rows(nodes_q["AnonUser"], user_rows, "release users", "nodes",
                           ("nodes_created",)),
                     _Rows(nodes_q["AnonFeature"], feat_rows, "release features", "nodes",
                           ("nodes_created",)),
                     _Rows(rels_q("AnonUser", "AnonFeature", FEATURE_REL_TYPE), edge_rows,
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
        fids, forder, feature_mode = _feature_ids(attr_ids, scope)
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
        """Delete a release (data in locked batches, then the record). Ledger charges are
        kept. A write attempt still running on the release fails at its next transaction.
        Returns whether the release existed."""
        validate_release_id(release_id)
        with wrap_driver_errors(f"dropping release {release_id!r}"), \
                self._session() as session:
            token = secrets.token_hex(16)
            claimed = self._run_write(session, load("claim_release_drop"),
                                      {"release_id": release_id, "write_token": token})
            if not claimed:
                return False
            return self._remove(_Attempt(session, release_id, token, "dropping"))

    def _remove(self, attempt: _Attempt) -> bool:
        """Delete the release's data, then its record, under ``attempt``'s lock; whether the
        record was deleted."""
        self._delete_data(attempt)
        query = load("delete_release_record")
        rows = attempt.transaction(lambda tx: [dict(r) for r in tx.run(
            query, {"release_id": attempt.release_id, "write_token": attempt.token})])
        return bool(rows and rows[0].get("deleted"))

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
def _plain_ids(ids: np.ndarray[Any, Any]) -> list[Any]:
    return [x if isinstance(x, str) else int(x) for x in ids.tolist()]


def _published_ids(ids: np.ndarray[Any, Any], scope: str, keep_ids: bool, prefix: str,
                   what: str) -> tuple[list[Any], np.ndarray[Any, Any]]:
    """The uids written for ``ids`` and the order to write them in.

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
        return _plain_ids(ids), np.arange(ids.size)
    from ...privacy.pseudonyms import pseudonymize

    names = pseudonymize(ids, scope=scope, prefix=prefix)
    return names.tolist(), np.argsort(names, kind="stable")


def _feature_ids(ids: np.ndarray[Any, Any],
                 scope: str) -> tuple[list[Any], np.ndarray[Any, Any], str]:
    """Feature uids (business keys, or keyed pseudonyms of element ids), their write order
    (by canonical text, not by first appearance in the input) and the record's mode."""
    if contains_element_ids(ids):
        from ...privacy.pseudonyms import pseudonymize

        names = pseudonymize(ids, scope=scope, prefix="f")
        return names.tolist(), np.argsort(names, kind="stable"), "pseudonymized"
    text = ids_as_text(ids)
    return _plain_ids(ids), np.argsort(text.astype(str), kind="stable"), "kept"


def _node_row(uid: Any, attrs: Mapping[str, list[Any]], i: int) -> dict[str, Any]:
    props = {k: scalar(col[i]) for k, col in attrs.items()}
    return {"uid": uid, "properties": {k: v for k, v in props.items() if v is not None}}


def _rank(order: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``rank[i]``: the position at which item ``i`` is written (the inverse of ``order``)."""
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank


def _edge_rows(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any], left: list[Any],
               left_rank: np.ndarray[Any, Any], right: list[Any],
               right_rank: np.ndarray[Any, Any]) -> list[dict[str, Any]]:
    """Relationship rows in the written order of their source, then of their target."""
    if not a.size:
        return []
    order = np.lexsort((right_rank[b], left_rank[a]))
    return [{"source": left[x], "target": right[y]}
            for x, y in zip(a[order].tolist(), b[order].tolist(), strict=True)]
