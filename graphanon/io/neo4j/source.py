"""Reading graphs from Neo4j: :class:`Neo4jSource`, and the public universe of a label.

Reads run in managed read transactions (``execute_read``) of a READ-mode session; results
are consumed lazily in batches of the driver's ``fetch_size``; ids (a business-key property,
or ``elementId()`` — never the deprecated ``id()``) are mapped to dense integers on the fly
under graphanon's canonical id encoding (:mod:`graphanon.io.neo4j.ids`), so memory holds one
dictionary entry per *node* and two integers per relationship. A count query first gives a
memory estimate; a read above ``memory_limit`` is refused unless ``force=True``. The source
data is only read, never modified.

Nodes, then relationships, are read in one read-committed transaction: a relationship to a
node created meanwhile can be seen without its node. Such a read is retried as a whole (at
most ``READ_ATTEMPTS`` times), then refused with one line saying what changed (exit code 4).

Edge-DP treats the node set as public, randomized response the user and feature sets
(:mod:`graphanon.universe`). A file cannot say which nodes exist; a label can: with
``universe="label"`` a read also returns a :class:`graphanon.universe.Universe` of every node
carrying the label — isolated ones included — whose ``source`` says so (and which a
release's params then carry). Declaring the label's members public is the operator's
decision; the ``source`` string names it.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np

from ..._progress import ProgressFn, log_progress
from ...errors import InvalidParameterError, Neo4jError
from ...graph import BipartiteGraph, Graph
from ...universe import Universe
from ..cypher import load, validate_identifier
from .connection import parse_size, rust_extension_active, wrap_driver_errors
from .ids import IdMap

__all__ = [
    "BYTES_PER_NODE",
    "BYTES_PER_PROPERTY",
    "BYTES_PER_RELATIONSHIP",
    "DEFAULT_FETCH_SIZE",
    "DEFAULT_MEMORY_LIMIT",
    "Neo4jSource",
    "ReadStats",
]

DEFAULT_FETCH_SIZE = 10_000
DEFAULT_MEMORY_LIMIT = 4 * 2**30
#: Peak bytes per node (dict entry, id string, list slot, the graph's id array), per node
#: property value, and per relationship (the rows of a fetched batch, two int64 codes while
#: reading, CSR in both directions afterwards), measured with ``tracemalloc`` on 200,000
#: nodes / 400,000 relationships: elementId ids (the dearest: 177 MiB for 200,000 nodes
#: alone, 96 MiB for 20,000 nodes and 400,000 relationships), 40-character keys, 4
#: properties. Keys much longer than 200 characters are not covered.
BYTES_PER_NODE = 1000
BYTES_PER_PROPERTY = 128
BYTES_PER_RELATIONSHIP = 240

UNIVERSE_CHOICES = ("label",)
#: Times a read that meets a concurrent change of the source is run before it is refused.
READ_ATTEMPTS = 3

_log = logging.getLogger("graphanon")


@dataclass(frozen=True)
class ReadStats:
    """Throughput of the last read (for the operator; never part of a release)."""

    records: int
    seconds: float
    rust_extension: bool

    @property
    def records_per_second(self) -> float:
        return self.records / self.seconds if self.seconds > 0 else float("inf")

    def describe(self) -> str:
        return (f"read {self.records:,} records in {self.seconds:.2f} s "
                f"({self.records_per_second:,.0f} records/s; driver Rust extension: "
                f"{'yes' if self.rust_extension else 'no'})")


def _batched_codes(
    result: Iterable[Any],
    map_a: Callable[[Any], int],
    map_b: Callable[[Any], int],
    *,
    chunk: int,
    progress: ProgressFn,
    task: str,
    total: int,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Consume ``result`` lazily; keep only int64 code arrays, one block per chunk."""
    blocks_a: list[np.ndarray[Any, Any]] = []
    blocks_b: list[np.ndarray[Any, Any]] = []
    buf_a = np.empty(chunk, dtype=np.int64)
    buf_b = np.empty(chunk, dtype=np.int64)
    fill = 0
    done = 0
    for record in result:
        buf_a[fill] = map_a(record[0])
        buf_b[fill] = map_b(record[1])
        fill += 1
        if fill == chunk:
            blocks_a.append(buf_a.copy())
            blocks_b.append(buf_b.copy())
            done += fill
            fill = 0
            progress(task, done, max(total, done))
    blocks_a.append(buf_a[:fill].copy())
    blocks_b.append(buf_b[:fill].copy())
    done += fill
    progress(task, done, max(total, done))
    return np.concatenate(blocks_a), np.concatenate(blocks_b)


class _SourceChanged(Exception):
    """A relationship's endpoint is not among the nodes read before it in the same
    transaction: the node was created (or got its label or id) during the read, which a
    read-committed transaction lets the relationship query see."""


def _known(ids: IdMap, label: str) -> Callable[[Any], int]:
    """Code of a relationship endpoint that must be a node read before."""

    def lookup(value: Any) -> int:
        code = ids.lookup(value)
        if code is None:
            ids.check_type(value)
            raise _SourceChanged(
                f"a :{label} node with id {value!r} appeared (or got its label or id) after "
                f"the :{label} nodes were read, and a relationship to it was read")
        return code

    return lookup


def _read_consistently(session: Any, work: Callable[[Any], Any], what: str) -> Any:
    """Run the read ``work`` in a managed read transaction; a read that meets a concurrent
    change (:class:`_SourceChanged`) is retried as a whole, up to :data:`READ_ATTEMPTS`
    times, then refused with one line saying what changed (exit code 4)."""
    for attempt in range(1, READ_ATTEMPTS + 1):
        try:
            return session.execute_read(work)
        except _SourceChanged as exc:
            if attempt == READ_ATTEMPTS:
                raise Neo4jError(
                    f"the source changed while {what} was read, {READ_ATTEMPTS} times in a "
                    f"row (last: {exc}); nothing was read. Read again when the writes to it "
                    "have stopped.") from None
            _log.warning("the source changed while %s was read (%s); reading it again",
                         what, exc)
    raise AssertionError("unreachable")  # pragma: no cover


def _column(values: list[Any]) -> np.ndarray[Any, Any]:
    if values and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in values):
        return np.asarray(values, dtype=np.float64 if any(isinstance(x, float) for x in values)
                          else np.int64)
    return np.array(values, dtype=object)


def _check_universe(universe: Any) -> None:
    if universe is not None and universe not in UNIVERSE_CHOICES:
        raise InvalidParameterError(
            f"The 'universe' parameter must be None or 'label' (every node with the label, "
            f"isolated ones included). Got {universe!r} instead.")


class Neo4jSource:
    """Read graphs from Neo4j (read transactions only; the source is never modified).

    Parameters
    ----------
    driver
        A ``neo4j.Driver`` (see :func:`~graphanon.io.neo4j.connect`), or any object with the
        same ``session`` API (the unit tests pass a recording fake).
    database
        Database name; ``None`` uses the server default.
    fetch_size
        Records pulled per network round trip, and the block size of the id → code arrays.
    memory_limit
        Refuse a read whose estimate (from a count query) is larger, unless ``force``.

    Attributes
    ----------
    last_read : ReadStats or None
        Records streamed, seconds and records/s of the last read (for the operator).
    """

    def __init__(
        self,
        driver: Any,
        *,
        database: str | None = None,
        fetch_size: int = DEFAULT_FETCH_SIZE,
        memory_limit: int | str = DEFAULT_MEMORY_LIMIT,
        progress: ProgressFn = log_progress,
    ) -> None:
        if not isinstance(fetch_size, int) or isinstance(fetch_size, bool) or fetch_size < 1:
            raise InvalidParameterError(
                f"The 'fetch_size' parameter must be a positive int. Got {fetch_size!r} instead."
            )
        self.driver = driver
        self.database = database
        self.fetch_size = fetch_size
        self.memory_limit = parse_size(memory_limit)
        self.progress = progress
        self.last_read: ReadStats | None = None

    # ------------------------------------------------------------------ helpers
    @contextlib.contextmanager
    def _session(self) -> Iterator[Any]:
        import neo4j

        with self.driver.session(
            database=self.database,
            default_access_mode=neo4j.READ_ACCESS,
            fetch_size=self.fetch_size,
        ) as session:
            yield session

    def _count(self, session: Any, name: str, **identifiers: str) -> int:
        query = load(name, **identifiers)

        def work(tx: Any) -> int:
            return int(tx.run(query, {}).single()["count"])

        return int(session.execute_read(work))

    def estimate_bytes(self, n_nodes: int, n_relationships: int, n_properties: int = 0) -> int:
        """Estimated peak memory of a read: nodes and relationships from the count queries,
        ``n_properties`` property columns read per node."""
        return ((BYTES_PER_NODE + BYTES_PER_PROPERTY * n_properties) * n_nodes
                + BYTES_PER_RELATIONSHIP * n_relationships)

    def _check_memory(self, n_nodes: int, n_relationships: int, force: bool,
                      n_properties: int = 0) -> None:
        need = self.estimate_bytes(n_nodes, n_relationships, n_properties)
        if need > self.memory_limit and not force:
            raise InvalidParameterError(
                f"reading {n_nodes:,} nodes and {n_relationships:,} relationships needs about "
                f"{need / 2**30:.2f} GiB, above the memory limit of "
                f"{self.memory_limit / 2**30:.2f} GiB; raise --memory-limit or pass --force."
            )

    def _read_nodes(self, tx: Any, label: str, id_property: str | None, props: list[str],
                    total: int) -> tuple[IdMap, list[list[Any]]]:
        ids = IdMap(label)
        columns: list[list[Any]] = [[] for _ in props]
        done = 0
        for record in tx.run(load("read_nodes", label=label),
                             {"id_property": id_property, "properties": props}):
            ids.add_new(record[0])
            for col, value in zip(columns, record[1], strict=True):
                col.append(value)
            done += 1
            if done % self.fetch_size == 0:
                self.progress(f"nodes :{label}", done, max(total, done))
        self.progress(f"nodes :{label}", done, max(total, done))
        return ids, columns

    def _finish(self, t0: float, records: int) -> None:
        self.last_read = ReadStats(records, time.perf_counter() - t0, rust_extension_active())

    # ------------------------------------------------------------------ social graphs
    @overload
    def read_graph(self, *, label: str, rel_type: str, id_property: str | None = ...,
                   node_properties: Sequence[str] = ..., force: bool = ...,
                   universe: None = ...) -> Graph: ...

    @overload
    def read_graph(self, *, label: str, rel_type: str, id_property: str | None = ...,
                   node_properties: Sequence[str] = ..., force: bool = ...,
                   universe: Literal["label"]) -> tuple[Graph, Universe]: ...

    def read_graph(
        self,
        *,
        label: str,
        rel_type: str,
        id_property: str | None = None,
        node_properties: Sequence[str] = (),
        force: bool = False,
        universe: Literal["label"] | None = None,
    ) -> Graph | tuple[Graph, Universe]:
        """Read the ``label`` nodes and their ``rel_type`` relationships as a :class:`Graph`.

        Direction is ignored; parallel relationships and self-loops are dropped. Nodes
        without relationships are kept. ``node_properties`` become attribute columns (e.g. a
        personalized ε or an anonymity level δ; missing values are ``None``).

        With ``universe="label"`` the result is ``(graph, universe)``: the
        :class:`Universe` of every ``label`` node (isolated ones included), whose ``source``
        says so, for edge-DP mechanisms that take the node set as public.

        Raises
        ------
        InvalidParameterError
            Unsafe identifiers, duplicate or null ids (also ``7`` and ``"7"``: one id), or a
            read above the memory limit.
        DatabaseUnavailableError, Neo4jError
            Driver failures.
        """
        validate_identifier(label, "label")
        validate_identifier(rel_type, "rel_type")
        if id_property is not None:
            validate_identifier(id_property, "id_property")
        props = [validate_identifier(p, "node_properties") for p in node_properties]
        _check_universe(universe)
        t0 = time.perf_counter()
        with wrap_driver_errors("reading a graph"), self._session() as session:
            n_nodes = self._count(session, "count_nodes", label=label)
            n_rels = self._count(session, "count_graph_relationships", label=label,
                                 rel_type=rel_type)
            self._check_memory(n_nodes, n_rels, force, len(props))
            edges_q = load("read_graph_edges", label=label, rel_type=rel_type)

            def work(tx: Any) -> tuple[IdMap, list[list[Any]], Any, Any]:
                ids, columns = self._read_nodes(tx, label, id_property, props, n_nodes)
                lookup = _known(ids, label)
                u, v = _batched_codes(
                    tx.run(edges_q, {"id_property": id_property}), lookup, lookup,
                    chunk=self.fetch_size, progress=self.progress,
                    task=f"relationships :{rel_type}", total=n_rels,
                )
                return ids, columns, u, v

            ids, columns, u, v = _read_consistently(session, work, f"the :{label} graph")
        attrs = {name: _column(values) for name, values in zip(props, columns, strict=True)}
        node_ids = ids.ids()
        G = Graph.from_edges(u, v, n_nodes=node_ids.size, node_ids=node_ids,
                             attributes=attrs or None)
        self._finish(t0, node_ids.size + u.size)
        if universe is None:
            return G
        return G, Universe(nodes=node_ids, source=(
            f"neo4j label :{label} (all {node_ids.size} nodes, isolated included)"))

    # ------------------------------------------------------------------ bipartite graphs
    @overload
    def read_bipartite(self, *, user_label: str, feature_label: str, rel_type: str,
                       user_id_property: str | None = ..., feature_id_property: str | None = ...,
                       user_properties: Sequence[str] = ..., force: bool = ...,
                       universe: None = ...) -> BipartiteGraph: ...

    @overload
    def read_bipartite(self, *, user_label: str, feature_label: str, rel_type: str,
                       user_id_property: str | None = ..., feature_id_property: str | None = ...,
                       user_properties: Sequence[str] = ..., force: bool = ...,
                       universe: Literal["label"]) -> tuple[BipartiteGraph, Universe]: ...

    def read_bipartite(
        self,
        *,
        user_label: str,
        feature_label: str,
        rel_type: str,
        user_id_property: str | None = None,
        feature_id_property: str | None = None,
        user_properties: Sequence[str] = (),
        force: bool = False,
        universe: Literal["label"] | None = None,
    ) -> BipartiteGraph | tuple[BipartiteGraph, Universe]:
        """Read users, features and the ``rel_type`` relationships between them.

        Users without relationships are kept (with their ``user_properties``); features are
        those with at least one user. Direction is ignored.

        With ``universe="label"`` the result is ``(bipartite, universe)``: every
        ``user_label`` node and every ``feature_label`` node (features without users
        included, read with one more query), as a :class:`Universe`.
        """
        validate_identifier(user_label, "user_label")
        validate_identifier(feature_label, "feature_label")
        validate_identifier(rel_type, "rel_type")
        if user_label == feature_label:
            raise InvalidParameterError(
                f"user_label and feature_label are both {user_label!r}: a user–feature graph "
                "needs two labels (with one, every relationship would be read in both "
                "directions, a user also being a feature).")
        for name, value in (("user_id_property", user_id_property),
                            ("feature_id_property", feature_id_property)):
            if value is not None:
                validate_identifier(value, name)
        props = [validate_identifier(p, "user_properties") for p in user_properties]
        _check_universe(universe)
        t0 = time.perf_counter()
        with wrap_driver_errors("reading a bipartite graph"), self._session() as session:
            n_users = self._count(session, "count_nodes", label=user_label)
            n_feats = self._count(session, "count_nodes", label=feature_label)
            n_rels = self._count(session, "count_bipartite_relationships",
                                 user_label=user_label, rel_type=rel_type,
                                 feature_label=feature_label)
            self._check_memory(n_users + n_feats, n_rels, force, len(props))
            edges_q = load("read_bipartite_edges", user_label=user_label, rel_type=rel_type,
                           feature_label=feature_label)

            def work(tx: Any) -> tuple[IdMap, IdMap, IdMap | None, list[list[Any]], Any, Any]:
                users, columns = self._read_nodes(tx, user_label, user_id_property, props,
                                                  n_users)
                every_feature = None
                if universe is not None or feature_id_property is not None:
                    # every feature node: the universe, and the check that the business key
                    # is unique (two nodes with one key would silently become one feature)
                    every_feature, _ = self._read_nodes(tx, feature_label, feature_id_property,
                                                        [], n_feats)
                feats = IdMap(feature_label)
                r, c = _batched_codes(
                    tx.run(edges_q, {"user_id_property": user_id_property,
                                     "feature_id_property": feature_id_property}),
                    _known(users, user_label), feats.get_or_add,
                    chunk=self.fetch_size, progress=self.progress,
                    task=f"relationships :{rel_type}", total=n_rels,
                )
                return users, feats, every_feature, columns, r, c

            users, feats, every_feature, columns, r, c = _read_consistently(
                session, work, f"the :{user_label}-:{feature_label} graph")
        attrs = {name: _column(values) for name, values in zip(props, columns, strict=True)}
        uids, fids = users.ids(), feats.ids()
        B = BipartiteGraph.from_indices(
            r, c, n_users=uids.size, n_features=fids.size, user_ids=uids, feature_ids=fids,
            user_attributes=attrs or None,
        )
        if universe is None:
            self._finish(t0, uids.size + r.size)
            return B
        assert every_feature is not None
        all_fids = every_feature.ids()
        self._finish(t0, uids.size + all_fids.size + r.size)
        return B, Universe(users=uids, features=all_fids, source=(
            f"neo4j labels :{user_label} (all {uids.size} users, isolated included) and "
            f":{feature_label} (all {all_fids.size} features, unused included)"))

    # ------------------------------------------------------------------ custom queries
    def read_query_graph(self, query: str, parameters: Mapping[str, Any] | None = None,
                         *, bipartite: bool = False) -> Graph | BipartiteGraph:
        """Run a user's read-only Cypher query returning ``(source, target)`` rows (or
        ``(user, feature)`` rows with ``bipartite=True``) and build the graph.

        The query runs in a managed *read* transaction, so a server refuses writes in it.
        Nodes appear only through their rows (no isolated nodes, so no universe either).
        Ids follow the canonical encoding: ``7`` and ``"7"`` in one column are refused.
        """
        if not isinstance(query, str) or not query.strip():
            raise InvalidParameterError("The 'query' parameter must be a non-empty Cypher query.")
        q = str(query)  # a user-supplied query: deliberately not a named statement
        t0 = time.perf_counter()

        with wrap_driver_errors("running the source query"), self._session() as session:

            def work(tx: Any) -> tuple[IdMap, IdMap, Any, Any]:
                left = IdMap("user" if bipartite else "node")
                right = left if not bipartite else IdMap("feature")
                a, b = _batched_codes(
                    tx.run(q, dict(parameters or {})), left.get_or_add, right.get_or_add,
                    chunk=self.fetch_size, progress=self.progress, task="query rows", total=0,
                )
                return left, right, a, b

            left, right, a, b = session.execute_read(work)
        self._finish(t0, a.size)
        if bipartite:
            uids, fids = left.ids(), right.ids()
            return BipartiteGraph.from_indices(a, b, n_users=uids.size, n_features=fids.size,
                                               user_ids=uids, feature_ids=fids)
        ids = left.ids()
        return Graph.from_edges(a, b, n_nodes=ids.size, node_ids=ids)
