"""Neo4j source and sink adapters over the official ``neo4j`` driver (6.x).

Reading (:class:`Neo4jSource`)
    Social graphs (a node label and a relationship type, direction ignored, duplicates and
    self-loops dropped) and bipartite user–feature graphs (two labels and a relationship
    type), or a user-supplied read-only Cypher query returning two columns. Reads run in
    managed read transactions (``execute_read``) of a READ-mode session; results are consumed
    lazily in batches of the driver's ``fetch_size``; ids (a business-key property, or
    ``elementId()`` — never the deprecated ``id()``) are mapped to dense integers on the fly,
    so memory holds one dictionary entry per *node* and two integers per relationship. A
    count query first gives a memory estimate; a read above ``memory_limit`` is refused
    unless ``force=True``. The source data is only read, never modified.

Writing (:class:`Neo4jSink`)
    A release is a separate subgraph tagged with its ``release_id``: the record
    ``(:AnonRelease {release_id, mechanism, neighbourhood, epsilon, k, params_json, ...,
    status})``; an anonymized graph as ``(:AnonNode)-[:ANON_EDGE]->(:AnonNode)`` or
    ``(:AnonUser)-[:ANON_HAS_FEATURE]->(:AnonFeature)``; a masked (b-anonymized) release as
    ``(:AnonUser {uid: released row})-[:ANON_HAS_FEATURE]->(:AnonFeature)`` for its known-1
    cells and ``-[:ANON_MASKED]->(:AnonFeature)`` for its masked cells (every other cell is
    a known 0), see :meth:`Neo4jSink.write_release`; released statistics as
    ``(:AnonRelease)-[:HAS_STATISTIC]->(:DegreeCount {degree, count})`` /
    ``(:JointDegreeCount {degree_a, degree_b, count})`` / ``(:DegreeTupleCount {kind,
    degrees, count})`` (see :func:`statistic_rows`). Anonymized nodes never link to source nodes.

    Atomicity: the record is first set to ``status: "pending"``; old data under the same id is
    deleted with ``CALL { ... } IN TRANSACTIONS`` in auto-commit statements; the data is
    written in batches (``UNWIND $rows``, one managed write transaction per batch, one
    writer); finally one transaction checks and charges the privacy ledger and flips the
    record to ``"complete"``. A failure anywhere leaves at most a ``pending`` record, and a
    re-run with the same id replaces everything cleanly.

Privacy ledger
    ``(:PrivacyBudget {dataset, epsilon_total, epsilon_spent})`` per source dataset, with one
    ``(:PrivacyCharge {charge_id, epsilon, release_id})-[:CHARGED_TO]->`` node per release,
    under the same rules as the JSON accountant
    (:func:`graphanon.privacy.accountant.charge_epsilon`; sequential composition: spent =
    Σ ε of the charges).
    A release that would take ``epsilon_spent`` above ``epsilon_total`` is refused with
    :class:`~graphanon.errors.PrivacyBudgetExceeded`; the total only changes through
    :meth:`Neo4jSink.set_budget`. Re-writing the *identical* release (same record, same data)
    is not charged twice; any other re-run is a new release and is charged.

Every statement is loaded by name from ``cypher/`` (:mod:`graphanon.io.cypher`); every
label, relationship type and property key is validated before a connection is opened.
Driver errors become :class:`~graphanon.errors.DatabaseUnavailableError` (unreachable,
authentication) or :class:`~graphanon.errors.Neo4jError` (anything else), exit code 4.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import secrets
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from .._progress import ProgressFn, log_progress
from .._version import __version__
from ..dk.extract import DK3Distribution, DKDistribution
from ..errors import (
    DatabaseUnavailableError,
    GraphAnonError,
    InvalidParameterError,
    Neo4jError,
    PrivacyBudgetExceeded,
)
from ..graph import BipartiteGraph, Graph
from ..privacy.accountant import charge_epsilon, fits_budget
from .cypher import load, validate_identifier
from .masked import MaskedRelease

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "EDGE_REL_TYPE",
    "FEATURE_REL_TYPE",
    "MASKED_REL_TYPE",
    "ConnectionSettings",
    "Neo4jSink",
    "Neo4jSource",
    "ReleaseSummary",
    "StatisticsTable",
    "connect",
    "connection_settings",
    "release_record",
    "statistic_rows",
]

DEFAULT_BATCH_SIZE = 10_000
DEFAULT_FETCH_SIZE = 10_000
DEFAULT_MEMORY_LIMIT = 4 * 2**30
#: Rough bytes per node (dict entry, id object, list slot) and per relationship
#: (two int64 codes while reading, CSR in both directions afterwards).
BYTES_PER_NODE = 200
BYTES_PER_RELATIONSHIP = 48

RELEASE_LABELS = ("AnonNode", "AnonUser", "AnonFeature")
#: Relationship types of release subgraphs (fixed, validated identifiers).
EDGE_REL_TYPE = "ANON_EDGE"
FEATURE_REL_TYPE = "ANON_HAS_FEATURE"
MASKED_REL_TYPE = "ANON_MASKED"
STATISTIC_LABELS = ("DegreeCount", "JointDegreeCount", "DegreeTupleCount")


# ----------------------------------------------------------------------- connection
@dataclass(frozen=True)
class ConnectionSettings:
    """Where and as whom to connect. ``repr`` never shows the password."""

    uri: str
    user: str
    password: str = field(repr=False)
    database: str | None = None


def connection_settings(
    *,
    uri: str | None = None,
    user: str | None = None,
    password_file: str | os.PathLike[str] | None = None,
    database: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> ConnectionSettings:
    """Resolve connection settings from arguments and the environment.

    The password comes from ``password_file`` (first line), else ``NEO4J_PASSWORD_FILE``,
    else ``NEO4J_PASSWORD``; never from a command-line value, so it stays out of shell
    history and process listings. ``uri`` defaults to ``NEO4J_URI``, ``user`` to
    ``NEO4J_USER`` (then ``"neo4j"``), ``database`` to ``NEO4J_DATABASE`` (then the server
    default).
    """
    env = os.environ if environ is None else environ
    uri = uri or env.get("NEO4J_URI")
    if not uri:
        raise InvalidParameterError(
            "No Neo4j URI: pass --uri or set NEO4J_URI (e.g. neo4j://localhost:7687)."
        )
    schemes = ("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc")
    if "://" not in uri or uri.split("://", 1)[0] not in schemes:
        raise InvalidParameterError(
            f"The '--uri' parameter must look like neo4j://host:7687 or bolt://host:7687. "
            f"Got {uri!r} instead."
        )
    user = user or env.get("NEO4J_USER") or "neo4j"
    pw_file = password_file or env.get("NEO4J_PASSWORD_FILE")
    if pw_file:
        try:
            password = Path(pw_file).read_text(encoding="utf-8").splitlines()[0].strip()
        except (OSError, IndexError) as exc:
            raise InvalidParameterError(
                f"The password file {str(pw_file)!r} could not be read or is empty."
            ) from exc
    else:
        password = env.get("NEO4J_PASSWORD", "")
        if not password:
            raise InvalidParameterError(
                "No Neo4j password: set NEO4J_PASSWORD, or NEO4J_PASSWORD_FILE / "
                "--password-file to a file holding it."
            )
    database = database or env.get("NEO4J_DATABASE") or None
    if database is not None and not _valid_database_name(database):
        raise InvalidParameterError(
            f"The '--database' parameter must be a database name (letters, digits, '.', '-', "
            f"'_'). Got {database!r} instead."
        )
    return ConnectionSettings(uri, user, password, database)


def _valid_database_name(name: str) -> bool:
    return name.isascii() and 0 < len(name) <= 63 and all(
        c.isalnum() or c in ".-_" for c in name
    )


def connect(settings: ConnectionSettings, *, verify: bool = True) -> Any:
    """A ``neo4j.Driver`` for ``settings``; connectivity is checked when ``verify``.

    Raises
    ------
    DatabaseUnavailableError
        The server cannot be reached or refuses the credentials (exit code 4).
    """
    import neo4j

    with wrap_driver_errors(f"connecting to {settings.uri}"):
        driver = neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password))
        if verify:
            try:
                driver.verify_connectivity()
            except BaseException:
                driver.close()
                raise
    return driver


@contextlib.contextmanager
def wrap_driver_errors(context: str) -> Iterator[None]:
    """Turn driver exceptions into graphanon errors with one clear line."""
    try:
        yield
    except GraphAnonError:
        raise
    except Exception as exc:
        try:
            from neo4j import exceptions as nx
        except ImportError:  # pragma: no cover
            raise
        if isinstance(exc, (nx.ServiceUnavailable, nx.SessionExpired)):
            raise DatabaseUnavailableError(
                f"Neo4j is unavailable while {context}: {_first_line(exc)}"
            ) from exc
        if isinstance(exc, (nx.AuthError, nx.ConfigurationError)):
            raise DatabaseUnavailableError(
                f"Neo4j refused the connection while {context}: {_first_line(exc)}"
            ) from exc
        if isinstance(exc, (nx.GqlError, nx.DriverError)):
            raise Neo4jError(f"Neo4j error while {context}: {_first_line(exc)}") from exc
        raise


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0].rstrip(" :")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def parse_size(value: int | str) -> int:
    """Bytes of ``value``: an int, or a size like ``"4GiB"``, ``"512M"``; positive, finite."""
    bad = InvalidParameterError(
        f"The 'memory_limit' parameter must be a positive size like '4GiB'. Got {value!r} "
        "instead.")
    if isinstance(value, int):
        if value <= 0:
            raise bad
        return value
    text = value.strip().lower().replace(" ", "")
    units = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
    num = text.rstrip("ib").rstrip("b")
    mult = 1
    if num and num[-1] in units:
        mult = units[num[-1]]
        num = num[:-1]
    try:
        size = float(num) * mult
    except ValueError:
        raise bad from None
    if not (0 < size < 2**63):
        raise bad
    return int(size)


# ----------------------------------------------------------------------- reading
class _IdMap:
    """External id -> dense code, assigned in first-seen order (one dict entry per node)."""

    def __init__(self) -> None:
        self.codes: dict[Any, int] = {}

    def add_new(self, value: Any, what: str) -> int:
        key = _check_id(value, what)
        if key in self.codes:
            raise InvalidParameterError(
                f"{what} id {key!r} occurs on more than one node: the id property is not a "
                "unique business key (choose another --id-prop, or omit it to use elementId)."
            )
        code = len(self.codes)
        self.codes[key] = code
        return code

    def get_or_add(self, value: Any, what: str) -> int:
        key = _check_id(value, what)
        code = self.codes.get(key)
        if code is None:
            code = len(self.codes)
            self.codes[key] = code
        return code

    def ids(self) -> np.ndarray[Any, Any]:
        keys = list(self.codes)
        if keys and all(isinstance(k, int) for k in keys):
            return np.array(keys, dtype=np.int64)
        return np.array([str(k) for k in keys], dtype=object)


def _check_id(value: Any, what: str) -> Any:
    if value is None:
        raise InvalidParameterError(
            f"a {what} node has no value for the id property (null id); every node needs the "
            "business key, or omit the id property to use elementId()."
        )
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise InvalidParameterError(
            f"{what} ids must be integers or strings; got {value!r} of type "
            f"{type(value).__name__}."
        )
    return value


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


class Neo4jSource:
    """Read graphs from Neo4j (read transactions only; the source is never modified).

    Parameters
    ----------
    driver
        A ``neo4j.Driver`` (see :func:`connect`), or any object with the same ``session``
        API (the unit tests pass a recording fake).
    database
        Database name; ``None`` uses the server default.
    fetch_size
        Records pulled per network round trip, and the block size of the id → code arrays.
    memory_limit
        Refuse a read whose estimate (from a count query) is larger, unless ``force``.
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

    def estimate_bytes(self, n_nodes: int, n_relationships: int) -> int:
        """Estimated peak memory of a read: nodes and relationships from the count queries."""
        return BYTES_PER_NODE * n_nodes + BYTES_PER_RELATIONSHIP * n_relationships

    def _check_memory(self, n_nodes: int, n_relationships: int, force: bool) -> None:
        need = self.estimate_bytes(n_nodes, n_relationships)
        if need > self.memory_limit and not force:
            raise InvalidParameterError(
                f"reading {n_nodes:,} nodes and {n_relationships:,} relationships needs about "
                f"{need / 2**30:.2f} GiB, above the memory limit of "
                f"{self.memory_limit / 2**30:.2f} GiB; raise --memory-limit or pass --force."
            )

    # ------------------------------------------------------------------ social graphs
    def read_graph(
        self,
        *,
        label: str,
        rel_type: str,
        id_property: str | None = None,
        node_properties: Sequence[str] = (),
        force: bool = False,
    ) -> Graph:
        """Read the ``label`` nodes and their ``rel_type`` relationships as a :class:`Graph`.

        Direction is ignored; parallel relationships and self-loops are dropped. Nodes
        without relationships are kept. ``node_properties`` become attribute columns (e.g. a
        personalized ε or an anonymity level δ; missing values are ``None``).

        Raises
        ------
        InvalidParameterError
            Unsafe identifiers, duplicate or null ids, or a read above the memory limit.
        DatabaseUnavailableError, Neo4jError
            Driver failures.
        """
        validate_identifier(label, "label")
        validate_identifier(rel_type, "rel_type")
        if id_property is not None:
            validate_identifier(id_property, "id_property")
        props = [validate_identifier(p, "node_properties") for p in node_properties]
        with wrap_driver_errors("reading a graph"), self._session() as session:
            n_nodes = self._count(session, "count_nodes", label=label)
            n_rels = self._count(session, "count_graph_relationships", label=label,
                                 rel_type=rel_type)
            self._check_memory(n_nodes, n_rels, force)
            nodes_q = load("read_nodes", label=label)
            edges_q = load("read_graph_edges", label=label, rel_type=rel_type)
            params = {"id_property": id_property}

            def work(tx: Any) -> tuple[_IdMap, list[list[Any]], Any, Any]:
                ids = _IdMap()
                columns: list[list[Any]] = [[] for _ in props]
                done = 0
                for record in tx.run(nodes_q, {**params, "properties": props}):
                    ids.add_new(record[0], label)
                    for col, value in zip(columns, record[1], strict=True):
                        col.append(value)
                    done += 1
                    if done % self.fetch_size == 0:
                        self.progress(f"nodes :{label}", done, max(n_nodes, done))
                self.progress(f"nodes :{label}", done, max(n_nodes, done))

                def lookup(value: Any) -> int:
                    code = ids.codes.get(value)
                    if code is None:
                        _check_id(value, label)
                        raise Neo4jError(f"relationship endpoint {value!r} is not a :{label} node.")
                    return code

                u, v = _batched_codes(
                    tx.run(edges_q, params), lookup, lookup, chunk=self.fetch_size,
                    progress=self.progress, task=f"relationships :{rel_type}", total=n_rels,
                )
                return ids, columns, u, v

            ids, columns, u, v = session.execute_read(work)
        attrs = {name: _column(values) for name, values in zip(props, columns, strict=True)}
        node_ids = ids.ids()
        return Graph.from_edges(u, v, n_nodes=node_ids.size, node_ids=node_ids,
                                attributes=attrs or None)

    # ------------------------------------------------------------------ bipartite graphs
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
    ) -> BipartiteGraph:
        """Read users, features and the ``rel_type`` relationships between them.

        Users without relationships are kept (with their ``user_properties``); features are
        those with at least one user. Direction is ignored.
        """
        validate_identifier(user_label, "user_label")
        validate_identifier(feature_label, "feature_label")
        validate_identifier(rel_type, "rel_type")
        for name, value in (("user_id_property", user_id_property),
                            ("feature_id_property", feature_id_property)):
            if value is not None:
                validate_identifier(value, name)
        props = [validate_identifier(p, "user_properties") for p in user_properties]
        with wrap_driver_errors("reading a bipartite graph"), self._session() as session:
            n_users = self._count(session, "count_nodes", label=user_label)
            n_feats = self._count(session, "count_nodes", label=feature_label)
            n_rels = self._count(session, "count_bipartite_relationships",
                                 user_label=user_label, rel_type=rel_type,
                                 feature_label=feature_label)
            self._check_memory(n_users + n_feats, n_rels, force)
            users_q = load("read_nodes", label=user_label)
            edges_q = load("read_bipartite_edges", user_label=user_label, rel_type=rel_type,
                           feature_label=feature_label)

            def work(tx: Any) -> tuple[_IdMap, _IdMap, list[list[Any]], Any, Any]:
                users, feats = _IdMap(), _IdMap()
                columns: list[list[Any]] = [[] for _ in props]
                for record in tx.run(users_q, {"id_property": user_id_property,
                                               "properties": props}):
                    users.add_new(record[0], user_label)
                    for col, value in zip(columns, record[1], strict=True):
                        col.append(value)

                def user_code(value: Any) -> int:
                    code = users.codes.get(value)
                    if code is None:
                        _check_id(value, user_label)
                        raise Neo4jError(f"endpoint {value!r} is not a :{user_label} node.")
                    return code

                r, c = _batched_codes(
                    tx.run(edges_q, {"user_id_property": user_id_property,
                                     "feature_id_property": feature_id_property}),
                    user_code, lambda x: feats.get_or_add(x, feature_label),
                    chunk=self.fetch_size, progress=self.progress,
                    task=f"relationships :{rel_type}", total=n_rels,
                )
                return users, feats, columns, r, c

            users, feats, columns, r, c = session.execute_read(work)
        attrs = {name: _column(values) for name, values in zip(props, columns, strict=True)}
        uids, fids = users.ids(), feats.ids()
        return BipartiteGraph.from_indices(
            r, c, n_users=uids.size, n_features=fids.size, user_ids=uids, feature_ids=fids,
            user_attributes=attrs or None,
        )

    # ------------------------------------------------------------------ custom queries
    def read_query_graph(self, query: str, parameters: Mapping[str, Any] | None = None,
                         *, bipartite: bool = False) -> Graph | BipartiteGraph:
        """Run a user's read-only Cypher query returning ``(source, target)`` rows (or
        ``(user, feature)`` rows with ``bipartite=True``) and build the graph.

        The query runs in a managed *read* transaction, so a server refuses writes in it.
        Nodes appear only through their rows (no isolated nodes).
        """
        if not isinstance(query, str) or not query.strip():
            raise InvalidParameterError("The 'query' parameter must be a non-empty Cypher query.")
        q = str(query)  # a user-supplied query: deliberately not a named statement

        with wrap_driver_errors("running the source query"), self._session() as session:

            def work(tx: Any) -> tuple[_IdMap, _IdMap, Any, Any]:
                left = _IdMap()
                right = left if not bipartite else _IdMap()
                a, b = _batched_codes(
                    tx.run(q, dict(parameters or {})),
                    lambda x: left.get_or_add(x, "source"),
                    lambda x: right.get_or_add(x, "target"),
                    chunk=self.fetch_size, progress=self.progress, task="query rows", total=0,
                )
                return left, right, a, b

            left, right, a, b = session.execute_read(work)
        if bipartite:
            uids, fids = left.ids(), right.ids()
            return BipartiteGraph.from_indices(a, b, n_users=uids.size, n_features=fids.size,
                                               user_ids=uids, feature_ids=fids)
        ids = left.ids()
        return Graph.from_edges(a, b, n_nodes=ids.size, node_ids=ids)


def _column(values: list[Any]) -> np.ndarray[Any, Any]:
    if values and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in values):
        return np.asarray(values, dtype=np.float64 if any(isinstance(x, float) for x in values)
                          else np.int64)
    return np.array(values, dtype=object)


# ----------------------------------------------------------------------- release records
def release_record(release: Any) -> dict[str, Any]:
    """A validated release record as a plain dict.

    Accepts a :class:`graphanon.privacy.release.Release`, its ``to_dict()`` mapping, or a
    report mapping holding it under ``"release"``. The mapping is checked with
    ``Release.from_dict`` (every field, known neighbourhood, ε > 0 where one is claimed).
    """
    from ..privacy.release import Release

    if isinstance(release, Release):
        return release.to_dict()
    if not isinstance(release, Mapping):
        raise InvalidParameterError(
            f"a release record must be a Release or a mapping; got {type(release).__name__}."
        )
    inner = release.get("release")
    data = dict(inner) if isinstance(inner, Mapping) else dict(release)
    if "mechanism" not in data:
        raise InvalidParameterError(
            "no release record found: expected a Release object (mechanism, neighbourhood, "
            "epsilon, ...) at the top level or under 'release'."
        )
    return Release.from_dict(data).to_dict()


def _canonical_json(obj: Any) -> str:
    from ..report import to_jsonable

    return json.dumps(to_jsonable(obj), sort_keys=True, separators=(",", ":"), default=str)


StatisticsTable = DKDistribution | DK3Distribution


def statistic_rows(table: StatisticsTable) -> tuple[str, list[dict[str, Any]]]:
    """The node label and the property maps written for a released dK table.

    ===========================  ==============================================================
    table                        written as
    ===========================  ==============================================================
    1K ``DKDistribution``        ``(:DegreeCount {degree, count})``
    2K ``DKDistribution``        ``(:JointDegreeCount {degree_a, degree_b, count})``
    ``DK3Distribution`` (3K)     ``(:DegreeTupleCount {kind, degrees, count})``, ``kind`` =
                                 ``"wedge"`` (degrees ``[end, centre, end]``) or
                                 ``"triangle"`` (sorted degrees)
    ===========================  ==============================================================

    Integral counts are written as integers, others (raw noisy values) as floats. A lone
    wedge or triangle table is refused: it is half of a 3K distribution.
    """
    def counts(t: DKDistribution) -> list[int | float]:
        return [int(c) if float(c).is_integer() else float(c) for c in t.counts.tolist()]

    if isinstance(table, DK3Distribution):
        rows = [{"kind": t.kind, "degrees": d, "count": c}
                for t in (table.wedges, table.triangles)
                for d, c in zip(t.degrees.tolist(), counts(t), strict=True)]
        return "DegreeTupleCount", rows
    if not isinstance(table, DKDistribution):
        raise InvalidParameterError(
            "statistics must be a graphanon.dk.DKDistribution (1K or 2K) or a "
            f"DK3Distribution. Got {type(table).__name__}."
        )
    d = table.degrees.tolist()
    if table.kind == "degree":
        return "DegreeCount", [{"degree": a[0], "count": c}
                               for a, c in zip(d, counts(table), strict=True)]
    if table.kind == "joint_degree":
        return "JointDegreeCount", [{"degree_a": a[0], "degree_b": a[1], "count": c}
                                    for a, c in zip(d, counts(table), strict=True)]
    raise InvalidParameterError(
        f"a lone {table.kind!r} table is half of a 3K distribution; write the "
        "DK3Distribution (wedges and triangles) instead."
    )


def _table_fingerprint(table: StatisticsTable) -> str:
    h = hashlib.sha256()
    parts = [table.wedges, table.triangles] if isinstance(table, DK3Distribution) else [table]
    for t in parts:
        h.update(t.kind.encode() + b"\0")
        h.update(np.ascontiguousarray(t.degrees, dtype=np.int64).tobytes())
        h.update(np.ascontiguousarray(t.counts, dtype=np.float64).tobytes())
    return h.hexdigest()


@dataclass(frozen=True)
class ReleaseSummary:
    """What :meth:`Neo4jSink.write_release` wrote."""

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


# ----------------------------------------------------------------------- writing
def _batches(rows: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


class Neo4jSink:
    """Write releases and keep the privacy ledger (see the module docstring).

    Parameters
    ----------
    driver
        A ``neo4j.Driver`` or an object with the same ``session`` API.
    database
        Database name; ``None`` uses the server default.
    batch_size
        Rows per ``UNWIND $rows`` transaction and per inner delete transaction.
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

    @contextlib.contextmanager
    def _session(self, *, read: bool = False) -> Iterator[Any]:
        import neo4j

        with self.driver.session(
            database=self.database,
            default_access_mode=neo4j.READ_ACCESS if read else neo4j.WRITE_ACCESS,
        ) as session:
            yield session

    @staticmethod
    def _run_write(session: Any, query: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        def work(tx: Any) -> list[dict[str, Any]]:
            return [dict(r) for r in tx.run(query, dict(params))]

        return list(session.execute_write(work))

    @staticmethod
    def _run_read(session: Any, query: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        def work(tx: Any) -> list[dict[str, Any]]:
            return [dict(r) for r in tx.run(query, dict(params))]

        return list(session.execute_read(work))

    @staticmethod
    def _run_auto(session: Any, query: str, params: Mapping[str, Any]) -> None:
        session.run(query, dict(params)).consume()

    # ------------------------------------------------------------------ schema
    def ensure_schema(self) -> None:
        """Create the constraints and indexes the writer relies on (idempotent)."""
        with wrap_driver_errors("creating constraints"), self._session() as session:
            for name in ("schema_release_id", "schema_budget_dataset", "schema_charge_id"):
                self._run_auto(session, load(name), {})
            for label in RELEASE_LABELS + STATISTIC_LABELS:
                self._run_auto(session, load("schema_release_index",
                                             index=f"graphanon_{label}_release", label=label), {})
            for label in RELEASE_LABELS:
                self._run_auto(session, load("schema_uid_index",
                                             index=f"graphanon_{label}_uid", label=label), {})

    # ------------------------------------------------------------------ ledger
    def set_budget(self, dataset: str, epsilon_total: float, *,
                   neighbourhood: str = "edge") -> dict[str, float]:
        """Create the ledger of ``dataset`` or set its total ε (an explicit decision).

        ``neighbourhood`` (``"edge"`` or ``"node"``) is the relation the budget is stated
        for, as for :class:`~graphanon.privacy.accountant.Accountant`.
        """
        validate_budget(dataset, epsilon_total, neighbourhood)
        with wrap_driver_errors("setting the privacy budget"), self._session() as session:
            self._run_auto(session, load("schema_budget_dataset"), {})
            rows = self._run_write(session, load("ledger_set_budget"),
                                   {"dataset": dataset, "epsilon_total": float(epsilon_total),
                                    "neighbourhood": neighbourhood, "now": _now()})
        row = rows[0]
        if not fits_budget(row["epsilon_spent"], 0.0, row["epsilon_total"]):
            import logging

            logging.getLogger("graphanon").warning(
                "budget of %s set to %g but %g is already spent: further DP releases are refused",
                dataset, row["epsilon_total"], row["epsilon_spent"],
            )
        return {"epsilon_total": float(row["epsilon_total"]),
                "epsilon_spent": float(row["epsilon_spent"])}

    def _check_budget(self, row: Mapping[str, Any] | None, dataset: str,
                      record: Mapping[str, Any]) -> float:
        """The ε to charge (0 if already charged); raise if it exceeds the budget."""
        if row is None or not row.get("found", True) or row.get("epsilon_total") is None:
            raise PrivacyBudgetExceeded(
                f"no privacy budget is set for dataset {dataset!r}: set one explicitly "
                "(graphanon neo4j budget / --budget-total) before a DP release."
            )
        if row.get("already_charged"):
            return 0.0
        epsilon = charge_epsilon(record, row.get("neighbourhood") or "edge")
        assert epsilon is not None
        total, spent = float(row["epsilon_total"]), float(row["epsilon_spent"])
        if not fits_budget(spent, epsilon, total):
            raise PrivacyBudgetExceeded(
                f"release needs ε={epsilon:g} but dataset {dataset!r} has {total - spent:g} of "
                f"{total:g} left (spent {spent:g}); raise the budget explicitly to proceed."
            )
        return epsilon

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
    ) -> ReleaseSummary:
        """Write one release atomically and idempotently.

        Parameters
        ----------
        release
            The release record (a ``Release``, its dict, or a report holding it).
        release_id
            The id of the release subgraph (default: the record's ``release_id``); an
            existing release with this id is replaced.
        graph, bipartite, statistics, masked
            Exactly one payload: an anonymized social graph, an anonymized bipartite graph,
            a released dK table (:class:`~graphanon.dk.DKDistribution` 1K / 2K, or a
            :class:`~graphanon.dk.DK3Distribution`; see :func:`statistic_rows`), or a
            b-anonymized release (:class:`~graphanon.io.masked.MaskedRelease`): one
            ``(:AnonUser {uid: r})`` per released row ``r`` (already a random pseudonym: the
            rows are permuted and the key is not part of the payload), one
            ``(:AnonFeature {uid})`` per attribute, ``[:ANON_HAS_FEATURE]`` for every known-1
            cell and ``[:ANON_MASKED]`` for every masked cell; absent relationships are
            known 0, so a consumer can tell "absent" from "unknown".
        dataset
            Ledger key: a stable name of the source dataset chosen by the operator. Required
            when the release has an ε (never derived from a content hash, which changes with
            the data and would reset the budget).
        keep_ids
            Write the payload's node / user ids as ``uid``. By default users and nodes get
            fresh pseudonyms ``0..n-1`` in a random order, so the release does not say which
            real user a row belongs to; feature ids (public attribute values) are kept.
            With ``keep_ids=True`` a k-anonymous release maps each anonymized row to its
            real user: it reveals who is in the data and which (generalized) features each
            person was published with. DP synthetic graphs have no such mapping to reveal.
        budget_total
            If given, set the dataset's total ε to this value first (an explicit raise).

        Raises
        ------
        PrivacyBudgetExceeded
            The release's ε does not fit the remaining budget (nothing is written).
        DatabaseUnavailableError, Neo4jError
            Driver failures; at most a ``pending`` record is left behind.
        """
        t0 = time.perf_counter()
        record = release_record(release)
        release_id = record["release_id"] if release_id is None else release_id
        validate_release_id(release_id)
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
            _check_dataset(dataset)
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
            kind, payload_fp = "statistics", _table_fingerprint(statistics)
            statistic_rows(statistics)  # refuses a bad table before anything is written
        charge_id = hashlib.sha256(
            f"{dataset}\n{_canonical_json(record)}\n{kind}\n{payload_fp}".encode()
        ).hexdigest()

        params = record.get("params") or {}
        properties: dict[str, Any] = {
            "release_id": release_id,
            "kind": kind,
            "mechanism": record["mechanism"],
            "neighbourhood": record["neighbourhood"],
            "epsilon": record.get("epsilon"),
            "epsilon_charged": epsilon,
            "k": params.get("k") if isinstance(params, Mapping) else None,
            "sensitivity": _scalar(record.get("sensitivity")),
            "params_json": _canonical_json(params),
            "release_json": _canonical_json(record),
            "source_fingerprint": record.get("source_fingerprint"),
            "graphanon_version": record.get("graphanon_version") or __version__,
            "created_at": record.get("created_at") or _now(),
            "dataset": dataset,
            "ids": ("released-rows" if masked is not None else "kept" if keep_ids
                    else "pseudonymized"),
            "charge_id": charge_id,
        }
        properties = {k: v for k, v in properties.items() if v is not None}
        charged = epsilon is not None

        with wrap_driver_errors(f"writing release {release_id!r}"):
            if budget_total is not None:
                assert dataset is not None or not charged
                self.set_budget(dataset or "", budget_total)
            self.ensure_schema()
            with self._session() as session:
                if charged:
                    assert dataset is not None and epsilon is not None
                    peek = self._run_read(session, load("ledger_peek"),
                                          {"dataset": dataset, "charge_id": charge_id})
                    self._check_budget(peek[0] if peek else None, dataset, record)
                self._run_write(session, load("begin_release"),
                                {"release_id": release_id, "properties": properties,
                                 "started_at": _now()})
                self._delete_data(session, release_id)
                counts = self._write_payload(session, release_id, graph, bipartite, statistics,
                                             masked, keep_ids)
                spent = self._complete(session, release_id, dataset if charged else None,
                                       record, charge_id, counts)
        return ReleaseSummary(
            release_id=release_id, kind=kind, status="complete",
            n_nodes=counts["n_nodes"], n_relationships=counts["n_relationships"],
            n_statistics=counts["n_statistics"], epsilon_charged=spent, dataset=dataset,
            seconds=time.perf_counter() - t0, n_masked=counts.get("n_masked", 0),
        )

    def _delete_data(self, session: Any, release_id: str) -> None:
        for name in ("delete_release_relationships", "delete_release_nodes"):
            self._run_auto(session, load(name),
                           {"release_id": release_id, "batch_size": self.batch_size})

    def _write_rows(self, session: Any, query: str, release_id: str,
                    rows: Sequence[Any], task: str) -> None:
        total = len(rows)
        done = 0
        for batch in _batches(rows, self.batch_size):
            self._run_write(session, query, {"release_id": release_id, "rows": list(batch)})
            done += len(batch)
            self.progress(task, done, total)

    def _write_payload(self, session: Any, release_id: str, graph: Graph | None,
                       bipartite: BipartiteGraph | None, statistics: StatisticsTable | None,
                       masked: MaskedRelease | None, keep_ids: bool) -> dict[str, int]:
        if graph is not None:
            uids = _uids(graph.node_ids, keep_ids)
            attrs = {k: v.tolist() for k, v in graph.attributes.items()}
            node_rows = [
                {"uid": uid, "properties": {k: _scalar(col[i]) for k, col in attrs.items()
                                            if _scalar(col[i]) is not None}}
                for i, uid in enumerate(uids)
            ]
            u, v = graph.edges()
            edge_rows = [{"source": uids[a], "target": uids[b]}
                         for a, b in zip(u.tolist(), v.tolist(), strict=True)]
            self._write_rows(session, load("write_nodes", label="AnonNode"), release_id,
                             node_rows, "release nodes")
            self._write_rows(session, load("write_relationships", source_label="AnonNode",
                                           target_label="AnonNode", rel_type=EDGE_REL_TYPE),
                             release_id, edge_rows, "release relationships")
            return {"n_nodes": len(node_rows), "n_relationships": len(edge_rows),
                    "n_statistics": 0}
        if bipartite is not None:
            uids = _uids(bipartite.user_ids, keep_ids)
            fids = bipartite.feature_ids.tolist()
            attrs = {k: v.tolist() for k, v in bipartite.user_attributes.items()}
            user_rows = [
                {"uid": uid, "properties": {k: _scalar(col[i]) for k, col in attrs.items()
                                            if _scalar(col[i]) is not None}}
                for i, uid in enumerate(uids)
            ]
            feat_rows = [{"uid": f, "properties": {}} for f in fids]
            r, c = bipartite.edges()
            edge_rows = [{"source": uids[a], "target": fids[b]}
                         for a, b in zip(r.tolist(), c.tolist(), strict=True)]
            self._write_rows(session, load("write_nodes", label="AnonUser"), release_id,
                             user_rows, "release users")
            self._write_rows(session, load("write_nodes", label="AnonFeature"), release_id,
                             feat_rows, "release features")
            self._write_rows(session, load("write_relationships", source_label="AnonUser",
                                           target_label="AnonFeature",
                                           rel_type=FEATURE_REL_TYPE),
                             release_id, edge_rows, "release relationships")
            return {"n_nodes": len(user_rows) + len(feat_rows),
                    "n_relationships": len(edge_rows), "n_statistics": 0}
        if masked is not None:
            return self._write_masked(session, release_id, masked)
        assert statistics is not None
        label, rows = statistic_rows(statistics)
        self._write_rows(session, load("write_statistics", label=label), release_id,
                         rows, "release statistics")
        return {"n_nodes": 0, "n_relationships": 0, "n_statistics": len(rows)}

    def _write_masked(self, session: Any, release_id: str,
                      masked: MaskedRelease) -> dict[str, int]:
        """Released rows, attributes, then known-1 and masked cells (see write_release)."""
        fids = [_scalar(f) if isinstance(_scalar(f), (int, str)) else str(f)
                for f in np.asarray(masked.attribute_ids).tolist()]
        user_rows = [{"uid": r, "properties": {}} for r in range(masked.n_rows)]
        feat_rows: list[dict[str, Any]] = [{"uid": f, "properties": {}} for f in fids]
        order = np.lexsort((masked.cols, masked.rows))
        rows, cols = masked.rows[order].tolist(), masked.cols[order].tolist()
        flags = masked.masked[order].tolist()
        ones = [{"source": r, "target": fids[c]}
                for r, c, m in zip(rows, cols, flags, strict=True) if not m]
        stars = [{"source": r, "target": fids[c]}
                 for r, c, m in zip(rows, cols, flags, strict=True) if m]
        self._write_rows(session, load("write_nodes", label="AnonUser"), release_id,
                         user_rows, "release rows")
        self._write_rows(session, load("write_nodes", label="AnonFeature"), release_id,
                         feat_rows, "release attributes")
        for rel_type, rel_rows, task in ((FEATURE_REL_TYPE, ones, "known-1 cells"),
                                         (MASKED_REL_TYPE, stars, "masked cells")):
            self._write_rows(session, load("write_relationships", source_label="AnonUser",
                                           target_label="AnonFeature", rel_type=rel_type),
                             release_id, rel_rows, task)
        return {"n_nodes": len(user_rows) + len(feat_rows),
                "n_relationships": len(ones) + len(stars), "n_statistics": 0,
                "n_masked": len(stars)}

    def _complete(self, session: Any, release_id: str, dataset: str | None,
                  record: Mapping[str, Any], charge_id: str, counts: Mapping[str, int]) -> float:
        mechanism = record["mechanism"]
        lock_q, charge_q = load("ledger_lock"), load("ledger_charge")
        unlock_q, complete_q = load("ledger_unlock"), load("complete_release")
        now = _now()

        def work(tx: Any) -> float:
            spent = 0.0
            if dataset is not None:
                rows = [dict(r) for r in tx.run(lock_q, {"dataset": dataset,
                                                         "release_id": release_id,
                                                         "charge_id": charge_id})]
                spent = self._check_budget(rows[0] if rows else None, dataset, record)
                if spent > 0:
                    tx.run(charge_q, {"dataset": dataset, "charge_id": charge_id,
                                      "release_id": release_id, "mechanism": mechanism,
                                      "epsilon": spent, "charged_at": now}).consume()
                else:
                    tx.run(unlock_q, {"dataset": dataset}).consume()
            done = [dict(r) for r in tx.run(complete_q, {"release_id": release_id,
                                                         "counts": dict(counts),
                                                         "completed_at": now})]
            if not done:
                raise Neo4jError(
                    f"release {release_id!r} was no longer pending when it was completed "
                    "(another writer replaced or dropped it); nothing was marked complete."
                )
            return spent

        return float(session.execute_write(work))

    def drop_release(self, release_id: str) -> bool:
        """Delete a release (data in batches, then the record). Ledger charges are kept."""
        with wrap_driver_errors(f"dropping release {release_id!r}"), self._session() as session:
            self._delete_data(session, release_id)
            rows = self._run_write(session, load("delete_release_record"),
                                   {"release_id": release_id})
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


def validate_budget(dataset: Any, epsilon_total: Any, neighbourhood: str = "edge") -> None:
    """Check the arguments of a budget change (before any connection)."""
    _check_dataset(dataset)
    if neighbourhood not in ("edge", "node"):
        raise InvalidParameterError(
            f"The 'neighbourhood' parameter must be 'edge' or 'node'. Got {neighbourhood!r}."
        )
    if (isinstance(epsilon_total, bool) or not isinstance(epsilon_total, (int, float))
            or not math.isfinite(epsilon_total) or epsilon_total < 0):
        raise InvalidParameterError(
            f"The 'epsilon_total' parameter must be a finite number >= 0. "
            f"Got {epsilon_total!r} instead."
        )


def validate_release_id(release_id: Any) -> None:
    """A release id: a non-empty printable string of at most 200 characters."""
    if not isinstance(release_id, str) or not release_id or len(release_id) > 200 or any(
        ord(c) < 32 for c in release_id
    ):
        raise InvalidParameterError(
            f"The 'release_id' parameter must be a non-empty printable string of at most 200 "
            f"characters. Got {release_id!r} instead."
        )


def _check_dataset(dataset: Any) -> None:
    if not isinstance(dataset, str) or not dataset or len(dataset) > 200:
        raise InvalidParameterError(
            f"The 'dataset' parameter must be a non-empty string of at most 200 characters. "
            f"Got {dataset!r} instead."
        )


def _scalar(value: Any) -> Any:
    """A value Neo4j can store as a property (numpy scalars -> Python; NaN -> None)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(x, (int, float, str)) for x in value):
        return list(value)
    return _canonical_json(value)


def _uids(ids: np.ndarray[Any, Any], keep: bool) -> list[Any]:
    if keep:
        return [x if isinstance(x, str) else int(x) for x in ids.tolist()]
    perm = np.random.default_rng(secrets.randbits(128)).permutation(ids.size)
    return [int(x) for x in perm]
