"""A recording fake of the neo4j driver's session / transaction API, for unit tests.

It records every statement (its name, resolved by matching the text against the shipped
``cypher/*.cypher`` templates, the exact text, the parameters, and whether it ran in an
auto-commit, read or write transaction) and executes it against a small in-memory model
with transaction semantics: a managed transaction works on a copy that is committed only
when the transaction function returns, so an exception rolls it back. Statements that
only work in auto-commit mode (``CALL ... IN TRANSACTIONS``) fail inside a transaction,
and writes fail inside read transactions, as on a real server.

``fail`` is a hook ``fail(call) -> Exception | None`` for failure injection;
``before_tx`` is called before every transaction (managed or auto-commit) begins, which is
where the tests interleave two writers: every transaction of a write attempt takes the
release record's lock first, so on a real server the transactions of two attempts are
serialized, and interleaving them at transaction boundaries covers every execution.

Write statements return a summary whose ``counters`` (``nodes_created``,
``relationships_created``, ``nodes_deleted``, ``relationships_deleted``) are what the model
actually did, as a server's would be. Element ids have the Neo4j 5 shape
``4:<database uuid>:<n>``.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphanon.io import cypher

__all__ = ["Call", "FakeDB", "FakeDriver", "Interleaver"]

_WRITES = {
    "begin_release", "lock_release", "claim_release_drop", "delete_release_relationships",
    "claim_release_write", "delete_release_nodes", "delete_release_statistics",
    "delete_release_record",
    "write_nodes", "write_relationships", "write_statistics", "ledger_lock", "ledger_charge",
    "ledger_unlock", "ledger_set_budget", "ledger_create_budget", "complete_release",
    "schema_release_id", "schema_budget_dataset", "schema_charge_id", "schema_release_index",
    "schema_uid_index",
    "schema_drop_index", "sample_constraint", "sample_load_nodes",
    "sample_load_relationships", "migrate_legacy_rows", "migrate_legacy_records",
}
_SCHEMA = {n for n in _WRITES if n.startswith("schema_")} | {"sample_constraint"}
#: Statements that must run in an auto-commit transaction (schema commands and waiting
#: for indexes are never mixed with data writes).
_AUTO_ONLY = _SCHEMA | {"await_index"}
DB_UUID = "8f0d4a52-3c1e-4b7a-9d2e-5f6a7b8c9d0e"


def _template_regex(name: str) -> re.Pattern[str]:
    text = cypher._raw(name)
    out, seen, pos = [], set(), 0
    for m in cypher._PLACEHOLDER.finditer(text):
        out.append(re.escape(text[pos:m.start()]))
        key = m.group(1)
        out.append(f"`(?P=__{key})`" if key in seen else f"`(?P<__{key}>[A-Za-z_][A-Za-z0-9_]*)`")
        seen.add(key)
        pos = m.end()
    out.append(re.escape(text[pos:]))
    return re.compile("".join(out))


_TEMPLATES = {name: _template_regex(name) for name in cypher.statement_names()}


def identify(query: str) -> tuple[str, dict[str, str]]:
    for name, rx in _TEMPLATES.items():
        m = rx.fullmatch(query)
        if m:
            return name, {k[2:]: v for k, v in m.groupdict().items()}
    return "<custom>", {}


@dataclass
class Call:
    name: str
    identifiers: dict[str, str]
    query: str
    params: dict[str, Any]
    mode: str  # "auto", "read" or "write"
    session: dict[str, Any]
    tx: int = 0  # the transaction it ran in (every auto-commit statement is its own)
    thread: str = ""  # the thread that sent it (the task name under an Interleaver)


class Record(dict):  # the driver's Record is indexable by key and position
    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, int):
            return list(self.values())[key]
        return super().__getitem__(key)


@dataclass
class Counters:
    nodes_created: int = 0
    nodes_deleted: int = 0
    relationships_created: int = 0
    relationships_deleted: int = 0
    properties_set: int = 0


@dataclass
class Summary:
    counters: Counters


class Result:
    def __init__(self, rows: list[dict[str, Any]], counters: Counters | None = None) -> None:
        self._rows = [Record(r) for r in rows]
        self.consumed = False
        self.counters = counters or Counters()

    def __iter__(self) -> Any:
        for row in self._rows:
            if self.consumed:
                return
            yield row

    def single(self) -> Record:
        assert len(self._rows) == 1, self._rows
        return self._rows[0]

    def consume(self) -> Summary:
        self.consumed = True
        return Summary(self.counters)


@dataclass
class FakeDB:
    """Source data plus the release subgraphs, in plain Python structures."""

    source_nodes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    source_rels: list[tuple[str, tuple[str, int], tuple[str, int]]] = field(default_factory=list)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    nodes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    rels: list[dict[str, Any]] = field(default_factory=list)
    stats: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    budgets: dict[str, dict[str, Any]] = field(default_factory=dict)
    charges: dict[str, dict[str, Any]] = field(default_factory=dict)
    budget_changes: list[dict[str, Any]] = field(default_factory=list)
    schema: set[str] = field(default_factory=set)
    indexes: set[str] = field(default_factory=set)
    custom: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: GDS graphs projected by gds_project_release: name -> {nodes, relationships, config}
    gds_graphs: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: what the statement being executed did (its summary counters)
    counters: Counters = field(default_factory=Counters)

    def __deepcopy__(self, memo: dict[int, Any]) -> FakeDB:
        """A transaction's working copy. The source data is shared (copied on write by the
        sample loaders' statements), which keeps copies cheap for large samples."""
        shared = {"source_nodes", "source_rels", "custom"}
        out = FakeDB.__new__(FakeDB)
        for name, value in vars(self).items():
            setattr(out, name, value if name in shared else copy.deepcopy(value, memo))
        return out

    # ---------------------------------------------------------------- helpers
    def _eid(self, label: str, i: int) -> str:
        labels = sorted(self.source_nodes)
        offset = sum(len(self.source_nodes[lab]) for lab in labels[:labels.index(label)])
        return f"4:{DB_UUID}:{offset + i}"

    def _id(self, label: str, i: int, prop: str | None) -> Any:
        return self._eid(label, i) if prop is None else self.source_nodes[label][i].get(prop)

    def complete_looking(self) -> list[str]:
        return [rid for rid, r in self.records.items() if r.get("status") == "complete"]

    # ---------------------------------------------------------------- execution
    def execute(self, call: Call) -> list[dict[str, Any]]:
        ids, p = call.identifiers, call.params
        name = call.name
        if name in _SCHEMA:
            self.schema.add(call.query)
            named = re.match(r"CREATE (?:CONSTRAINT|INDEX) `?(\w+)", call.query)
            index = ids.get("index") or ids.get("constraint") or (named and named.group(1))
            if name == "schema_drop_index":
                self.indexes.discard(ids["index"])
            elif index:
                self.indexes.add(index)
            return []
        if name == "await_index":
            assert p["index_name"] in self.indexes, f"no index {p['index_name']!r} to await"
            assert isinstance(p["timeout_seconds"], int)
            return []
        if name in ("sample_load_nodes", "sample_load_relationships"):  # copy on write
            self.source_nodes = copy.deepcopy(self.source_nodes)
            self.source_rels = list(self.source_rels)
        if name == "sample_load_nodes":
            bucket = self.source_nodes.setdefault(ids["label"], [])
            index = {n["id"]: n for n in bucket}
            for row in p["rows"]:
                node = index.get(row["id"])
                if node is None:
                    node = index[row["id"]] = {"id": row["id"]}
                    bucket.append(node)
                node.update(row["properties"])
            return []
        if name == "sample_load_relationships":
            pos = {lab: {n["id"]: i for i, n in enumerate(self.source_nodes.get(lab, []))}
                   for lab in (ids["source_label"], ids["target_label"])}
            have = set(self.source_rels)
            for row in p["rows"]:
                a = pos[ids["source_label"]].get(row["source"])
                b = pos[ids["target_label"]].get(row["target"])
                rel = (ids["rel_type"], (ids["source_label"], a), (ids["target_label"], b))
                if a is not None and b is not None and rel not in have:
                    self.source_rels.append(rel)
                    have.add(rel)
            return []
        if name == "count_nodes":
            return [{"count": len(self.source_nodes.get(ids["label"], []))}]
        if name == "count_graph_relationships":
            return [{"count": sum(1 for t, a, b in self.source_rels if t == ids["rel_type"]
                                  and a[0] == ids["label"] and b[0] == ids["label"])}]
        if name == "count_bipartite_relationships":
            return [{"count": len(self._bip(ids))}]
        if name == "read_nodes":
            label = ids["label"]
            return [{"id": self._id(label, i, p["id_property"]),
                     "properties": [n.get(k) for k in p["properties"]]}
                    for i, n in enumerate(self.source_nodes.get(label, []))]
        if name == "read_graph_edges":
            return [{"source": self._id(a[0], a[1], p["id_property"]),
                     "target": self._id(b[0], b[1], p["id_property"])}
                    for t, a, b in self.source_rels if t == ids["rel_type"]
                    and a[0] == ids["label"] and b[0] == ids["label"]]
        if name == "read_bipartite_edges":
            return [{"user": self._id(u[0], u[1], p["user_id_property"]),
                     "feature": self._id(f[0], f[1], p["feature_id_property"])}
                    for u, f in self._bip(ids)]
        rid = p.get("release_id")
        c = self.counters
        if name == "begin_release":  # MERGE: a new record holds only its release_id
            old = self.records.setdefault(rid, {"release_id": rid})
            keys = ("written_nodes", "written_relationships", "written_statistics",
                    "written_masked")
            return [{"previous_status": old.get("status"),
                     "previous_token": old.get("write_token"),
                     "previous_charge_id": old.get("charge_id"),
                     "previous_counts": {k: old.get(k) for k in keys}}]
        if name == "claim_release_write":
            rec = self.records[rid]
            rec["write_token"] = p["write_token"]
            if rec.get("status") != "complete":
                self.records[rid] = {**p["properties"], "release_id": rid, "status": "pending",
                                     "write_token": p["write_token"]}
            return []
        if name == "lock_release":
            rec = self.records.get(rid)
            if rec is None:
                return []
            return [{"write_token": rec.get("write_token"), "status": rec.get("status"),
                     "current_attempt": rec.get("current_attempt")}]
        if name == "claim_release_drop":
            rec = self.records.get(rid)
            if rec is None:
                return []
            rec.update(status="dropping", write_token=p["write_token"])
            return [{"release_id": rid}]
        keep = p.get("keep", [])
        if name == "delete_release_relationships":
            mine = [r for r in self.rels if r["release_id"] == rid
                    and r["source_label"] == ids["label"]
                    and r["attempt"] not in keep][:p["batch_size"]]
            gone = {id(r) for r in mine}
            self.rels = [r for r in self.rels if id(r) not in gone]
            c.relationships_deleted = len(mine)
            return []
        if name == "delete_release_nodes":
            label = ids["label"]
            bucket = self.nodes.get(label, [])
            mine = [n for n in bucket if n["release_id"] == rid and n.get("uid") is not None
                    and n.get("attempt") is not None
                    and n["attempt"] not in keep][:p["batch_size"]]
            ends = {(n["attempt"], n["uid"]) for n in mine}
            gone = {id(n) for n in mine}
            self.nodes[label] = [n for n in bucket if id(n) not in gone]
            before = len(self.rels)
            self.rels = [r for r in self.rels if not (
                r["release_id"] == rid and (
                    (r["source_label"] == label and (r["attempt"], r["source"]) in ends)
                    or (r["target_label"] == label and (r["attempt"], r["target"]) in ends)))]
            c.nodes_deleted = len(mine)
            c.relationships_deleted = before - len(self.rels)
            return []
        if name == "delete_release_statistics":
            mine = [s for s in self.stats if s[0] == ids["label"]
                    and s[1]["release_id"] == rid and s[1].get("attempt") is not None
                    and s[1]["attempt"] not in keep][:p["batch_size"]]
            gone = {id(s) for s in mine}
            self.stats = [s for s in self.stats if id(s) not in gone]
            c.nodes_deleted = c.relationships_deleted = len(mine)
            return []
        if name == "delete_release_record":
            rec = self.records.get(rid)
            if rec is None or rec.get("write_token") != p["write_token"]:
                return [{"deleted": 0}]  # count(*) over no row is one row
            del rec["write_token"]
            if rec.get("status") == "complete":
                return [{"deleted": 0}]
            del self.records[rid]
            c.nodes_deleted = 1
            return [{"deleted": 1}]
        if name == "write_nodes":  # CREATE then SET, evaluated from the statement's text
            bucket = self.nodes.setdefault(ids["label"], [])
            create = re.search(r"^CREATE \(n:`\w+`(?: \{(.*)\})?\)$", call.query, re.M)
            assignments = re.search(r"^SET (.*)$", call.query, re.M)
            assert create and assignments, call.query
            for row in p["rows"]:
                env = {"row": row, "$": p}
                node = {k: evaluate(e, env)
                        for k, e in (map_items(create.group(1)) if create.group(1) else [])}
                apply_set(node, "n", assignments.group(1), env)
                bucket.append(node)
            c.nodes_created = len(p["rows"])
            return []
        if name == "write_relationships":
            sources = {n["uid"] for n in self.nodes.get(ids["source_label"], [])
                       if n["release_id"] == rid and n.get("attempt") == p["attempt"]}
            targets = {n["uid"] for n in self.nodes.get(ids["target_label"], [])
                       if n["release_id"] == rid and n.get("attempt") == p["attempt"]}
            for row in p["rows"]:
                if row["source"] in sources and row["target"] in targets:
                    # "attempt": that of its end nodes (the model's; not a stored property)
                    self.rels.append({"type": ids["rel_type"], "release_id": rid,
                                      "attempt": p["attempt"],
                                      "source": row["source"], "target": row["target"],
                                      "source_label": ids["source_label"],
                                      "target_label": ids["target_label"]})
                    c.relationships_created += 1
            return []
        if name == "write_statistics":
            if rid in self.records:
                for row in p["rows"]:
                    self.stats.append((ids["label"], {**row, "release_id": rid,
                                                      "attempt": p["attempt"]}))
                c.nodes_created = c.relationships_created = len(p["rows"])
            return []
        ds = p.get("dataset")
        if name == "ledger_peek":
            b = self.budgets.get(ds)
            return [{"found": b is not None,
                     "epsilon_total": b and b["epsilon_total"],
                     "epsilon_spent": b and b["epsilon_spent"],
                     "neighbourhood": b and b["neighbourhood"],
                     "already_charged": p["charge_id"] in self.charges}]
        if name == "ledger_lock":
            b = self.budgets.get(ds)
            if b is None:
                return []
            b["locked_by"] = rid
            return [{"epsilon_total": b["epsilon_total"], "epsilon_spent": b["epsilon_spent"],
                     "neighbourhood": b["neighbourhood"],
                     "already_charged": p["charge_id"] in self.charges}]
        if name == "ledger_charge":
            b = self.budgets[ds]
            assert p["charge_id"] not in self.charges, "uniqueness constraint violated"
            self.charges[p["charge_id"]] = dict(p)
            b["epsilon_spent"] += p["epsilon"]
            b.pop("locked_by", None)
            return []
        if name == "ledger_unlock":
            self.budgets[ds].pop("locked_by", None)
            return []
        if name == "ledger_create_budget":  # MERGE ... ON CREATE SET
            b = self.budgets.setdefault(ds, {"epsilon_spent": 0.0,
                                             "neighbourhood": p["neighbourhood"],
                                             "epsilon_total": p["epsilon_total"]})
            return [{"epsilon_total": b["epsilon_total"], "epsilon_spent": b["epsilon_spent"],
                     "neighbourhood": b["neighbourhood"]}]
        if name == "ledger_set_budget":  # MATCH: no budget, no row
            b = self.budgets.get(ds)
            if b is None:
                return []
            self.budget_changes.append({
                "dataset": ds, "epsilon_total_before": b["epsilon_total"],
                "epsilon_total": p["epsilon_total"], "epsilon_spent": b["epsilon_spent"],
                "changed_at": p["now"]})
            b["epsilon_total"] = p["epsilon_total"]
            return [{"epsilon_total_before": self.budget_changes[-1]["epsilon_total_before"],
                     "epsilon_total": b["epsilon_total"], "epsilon_spent": b["epsilon_spent"]}]
        if name == "complete_release":  # the flip: SET r = $properties, ... (token gone)
            rec = self.records.get(rid)
            if rec is None or rec.get("write_token") != p["write_token"]:
                return []
            new = {**p["properties"], **p["counts"], "release_id": rid, "status": "complete",
                   "current_attempt": p["write_token"]}
            if p["epsilon_charged"] is not None:
                new["epsilon_charged"] = p["epsilon_charged"]
            self.records[rid] = new
            return [{"release_id": rid}]
        if name == "migrate_legacy_rows":  # MATCH (n:{label}) WHERE ... attempt IS NULL SET
            rows = ([n for lab, n in self.stats if lab == ids["label"]]
                    if ids["label"] in ("DegreeCount", "JointDegreeCount", "DegreeTupleCount")
                    else self.nodes.get(ids["label"], []))
            for n in rows:
                if n.get("release_id") is not None and n.get("attempt") is None:
                    n["attempt"] = "legacy"
                    c.properties_set += 1
            return []
        if name == "migrate_legacy_records":
            migrated = 0
            for rec in self.records.values():
                if rec.get("status") == "complete" and rec.get("current_attempt") is None:
                    rec["current_attempt"] = "legacy"
                    migrated += 1
            return [{"migrated": migrated}]
        if name == "schema_state":
            return [{"name": n, "state": "ONLINE"} for n in p["names"] if n in self.indexes]
        if name == "gds_project_release":
            return self._gds_project(rid, p["graph_name"])
        if name == "list_releases":
            keys = ["release_id", "status", "kind", "mechanism", "neighbourhood", "epsilon", "k",
                    "dataset", "created_at", "written_nodes", "written_relationships",
                    "written_statistics"]
            return [{k: r.get(k) for k in keys}
                    for r in sorted(self.records.values(),
                                    key=lambda r: (r.get("created_at") or "", r["release_id"]))]
        if name == "list_budgets":
            return [{"dataset": d, "neighbourhood": b["neighbourhood"],
                     "epsilon_total": b["epsilon_total"],
                     "epsilon_spent": b["epsilon_spent"],
                     "charges": sum(1 for c in self.charges.values() if c["dataset"] == d)}
                    for d, b in sorted(self.budgets.items())]
        if name == "<custom>":
            return self.custom[call.query]
        raise AssertionError(f"the fake has no model of statement {name!r}")

    def _gds_project(self, rid: str, graph_name: str) -> list[dict[str, Any]]:
        """gds.graph.project over the statement's rows: the current attempt's nodes of a
        complete release, each with its outgoing release relationships (or a null target)."""
        rec = self.records.get(rid)
        if rec is None or rec.get("status") != "complete":  # no row to aggregate: no graph
            return [{"graph_name": None, "node_count": None, "relationship_count": None}]
        attempt = rec.get("current_attempt")
        nodes = {(label, n["uid"]) for label in ("AnonNode", "AnonUser", "AnonFeature")
                 for n in self.nodes.get(label, [])
                 if n["release_id"] == rid and n.get("attempt") == attempt
                 and n.get("uid") is not None}
        rels = [((r["source_label"], r["source"]), (r["target_label"], r["target"]), r["type"])
                for r in self.rels if r["release_id"] == rid and r["attempt"] == attempt
                and r["type"] in ("ANON_EDGE", "ANON_HAS_FEATURE", "ANON_MASKED")]
        assert graph_name not in self.gds_graphs, "a GDS graph of this name exists already"
        self.gds_graphs[graph_name] = {"nodes": nodes, "relationships": rels,
                                       "undirected": ["*"]}
        # an undirected relationship is held in both directions, and counted so
        return [{"graph_name": graph_name, "node_count": len(nodes),
                 "relationship_count": 2 * len(rels)}]

    def _bip(self, ids: dict[str, str]) -> list[tuple[tuple[str, int], tuple[str, int]]]:
        out = []
        for t, a, b in self.source_rels:
            if t != ids["rel_type"]:
                continue
            if a[0] == ids["user_label"] and b[0] == ids["feature_label"]:
                out.append((a, b))
            elif b[0] == ids["user_label"] and a[0] == ids["feature_label"]:
                out.append((b, a))
        return out


# ----------------------------------------------------------------------- Cypher semantics
# The few Cypher 5 rules the fake evaluates from a statement's own text (rather than
# restating what a statement does), checked against the documented semantics by
# tests/io/neo4j/test_neo4j_fake.py: SET items apply left to right; ``e = map`` replaces every
# property, ``e += map`` merges (a key of the map overwrites, a null value removes) and
# ``e.key = value`` sets one (null removes it); MERGE matches a node holding every property of
# its pattern, else creates one with exactly those, then runs ON CREATE SET or ON MATCH SET.

def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside brackets, braces and quotes."""
    out, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    return [x for x in out if x]


def map_items(text: str) -> list[tuple[str, str]]:
    """``key: expr, ...`` (a map literal's inside) as ``[(key, expr), ...]``."""
    return [(k.strip(), e.strip()) for k, _, e in
            (item.partition(":") for item in _split_top(text))]


def evaluate(expr: str, env: dict[str, Any]) -> Any:
    """A Cypher expression of the forms the statements use: ``$param``, ``var``,
    ``var.key``, ``'text'``, an integer, ``null`` or a map literal ``{k: expr}``."""
    expr = expr.strip()
    if expr.startswith("$"):
        return env["$"][expr[1:]]
    if expr == "null":
        return None
    if expr.startswith("'") and expr.endswith("'"):
        return expr[1:-1]
    if re.fullmatch(r"-?\d+", expr):
        return int(expr)
    if expr.startswith("{") and expr.endswith("}"):
        return {k: evaluate(e, env) for k, e in map_items(expr[1:-1])}
    var, _, key = expr.partition(".")
    value = env[var]
    return value.get(key) if key else value


def apply_set(entity: dict[str, Any], var: str, items: str, env: dict[str, Any]) -> None:
    """Apply the items of one ``SET`` clause to ``entity`` (bound to ``var``), left to
    right."""
    for item in _split_top(items):
        m = re.fullmatch(r"(\w+)(?:\.(\w+))?\s*(\+=|=)\s*(.+)", item, re.S)
        assert m and m.group(1) == var, f"unsupported SET item {item!r}"
        _, key, op, expr = m.groups()
        value = evaluate(expr, env)
        if key is not None:
            assert op == "=", item
            if value is None:
                entity.pop(key, None)
            else:
                entity[key] = value
            continue
        assert isinstance(value, dict), f"SET {var} {op} needs a map; got {value!r}"
        if op == "=":
            entity.clear()
        for k, v in value.items():
            if v is None:
                entity.pop(k, None)
            else:
                entity[k] = v


def merge(bucket: list[dict[str, Any]], pattern: dict[str, Any], *, var: str = "n",
          on_create: str | None = None, on_match: str | None = None,
          env: dict[str, Any] | None = None) -> tuple[dict[str, Any], bool]:
    """``MERGE (var {pattern}) [ON CREATE SET ...] [ON MATCH SET ...]`` over ``bucket``:
    the node and whether it was created."""
    env = env or {"$": {}}
    found = next((n for n in bucket if all(k in n and n[k] == v for k, v in pattern.items())),
                 None)
    created = found is None
    node = dict(pattern) if created else found
    if created:
        bucket.append(node)
    clause = on_create if created else on_match
    if clause:
        apply_set(node, var, clause, {**env, var: node})
    return node, created


class FakeTx:
    def __init__(self, session: FakeSession, mode: str, db: FakeDB, number: int) -> None:
        self.session, self.mode, self.db, self.number = session, mode, db, number

    def run(self, query: Any, parameters: dict[str, Any] | None = None) -> Result:
        assert isinstance(query, str), "managed transactions take a str, not a Query"
        return self.session._exec(query, parameters or {}, self.mode, self.db, self.number)


class FakeSession:
    def __init__(self, driver: FakeDriver, config: dict[str, Any]) -> None:
        self.driver, self.config = driver, config
        self.open = True

    def __enter__(self) -> FakeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.open = False

    def _exec(self, query: str, params: dict[str, Any], mode: str, db: FakeDB,
              tx: int) -> Result:
        assert self.open
        name, ids = identify(query)
        call = Call(name, ids, query, copy.deepcopy(params), mode, self.config, tx,
                    threading.current_thread().name)
        self.driver.calls.append(call)
        if self.driver.fail is not None:
            exc = self.driver.fail(call)
            if exc is not None:
                raise exc
        if name in _AUTO_ONLY and mode != "auto":
            raise AssertionError(f"{name}: schema commands need an auto-commit transaction")
        if name in _WRITES and mode == "read":
            raise AssertionError(f"{name}: writing in read access mode is not allowed")
        db.counters = Counters()
        rows = db.execute(call)
        return Result(rows, db.counters)

    def run(self, query: Any, parameters: dict[str, Any] | None = None) -> Result:
        number = self.driver._begin_tx()
        try:
            return self._exec(str(query), parameters or {}, "auto", self.driver.db, number)
        finally:
            self.driver._end_tx()

    def _transaction(self, mode: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        number = self.driver._begin_tx()
        try:
            staged = copy.deepcopy(self.driver.db)
            result = fn(FakeTx(self, mode, staged, number), *args, **kw)
            self.driver.db = staged  # commit
            self.driver.commits += 1
            return result
        finally:
            self.driver._end_tx()

    def execute_read(self, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        return self._transaction("read", fn, *args, **kw)

    def execute_write(self, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        return self._transaction("write", fn, *args, **kw)


class FakeDriver:
    """Stands in for ``neo4j.Driver``: ``session(**config)`` and ``close()``."""

    def __init__(self, db: FakeDB | None = None,
                 fail: Callable[[Call], BaseException | None] | None = None) -> None:
        self.db = db or FakeDB()
        self.fail = fail
        self.before_tx: Callable[[], None] | None = None
        self.after_tx: Callable[[], None] | None = None
        self.calls: list[Call] = []
        self.sessions: list[dict[str, Any]] = []
        self.commits = 0
        self.transactions = 0
        self.closed = False

    def _begin_tx(self) -> int:
        if self.before_tx is not None:
            self.before_tx()
        self.transactions += 1
        return self.transactions

    def _end_tx(self) -> None:
        if self.after_tx is not None:
            self.after_tx()

    def session(self, **config: Any) -> FakeSession:
        self.sessions.append(config)
        return FakeSession(self, config)

    def verify_connectivity(self) -> None:
        return None

    def close(self) -> None:
        self.closed = True

    def named(self, name: str) -> list[Call]:
        return [c for c in self.calls if c.name == name]

    def transactions_of(self) -> dict[int, list[Call]]:
        """The recorded calls grouped by transaction, in order."""
        out: dict[int, list[Call]] = {}
        for c in self.calls:
            out.setdefault(c.tx, []).append(c)
        return out


class Interleaver:
    """Run several callables in threads, one transaction at a time, in a given order.

    ``schedule`` names, transaction by transaction, which task runs the next one (names of
    finished tasks are skipped); once it is used up, the remaining tasks run their
    transactions in the order the tasks were given. A task holds the turn for the whole
    transaction (``FakeDriver.before_tx`` / ``after_tx``), so the fake's copy-on-commit
    transactions stay exact; code between transactions may run concurrently, as it would.
    """

    def __init__(self, driver: FakeDriver, tasks: dict[str, Callable[[], Any]],
                 schedule: list[str]) -> None:
        import threading

        self.driver = driver
        self.tasks = tasks
        self.schedule = list(schedule)
        self.order = list(tasks)
        self.cond = threading.Condition()
        self.busy = False
        self.done: set[str] = set()
        self.results: dict[str, Any] = {}
        self.errors: dict[str, BaseException] = {}
        self.trace: list[str] = []

    def _head(self) -> str | None:
        while self.schedule and self.schedule[0] in self.done:
            self.schedule.pop(0)
        if self.schedule:
            return self.schedule[0]
        return next((n for n in self.order if n not in self.done), None)

    def _begin(self) -> None:
        import threading

        me = threading.current_thread().name
        with self.cond:
            self.cond.wait_for(lambda: not self.busy and self._head() == me)
            if self.schedule:
                self.schedule.pop(0)
            self.busy = True
            self.trace.append(me)

    def _end(self) -> None:
        with self.cond:
            self.busy = False
            self.cond.notify_all()

    def _body(self, name: str) -> None:
        try:
            self.results[name] = self.tasks[name]()
        except BaseException as exc:  # recorded for the test to inspect
            self.errors[name] = exc
        finally:
            with self.cond:
                self.done.add(name)
                self.cond.notify_all()

    def run(self) -> Interleaver:
        import threading

        threads = [threading.Thread(target=self._body, args=(n,), name=n) for n in self.tasks]
        self.driver.before_tx, self.driver.after_tx = self._begin, self._end
        try:
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=120)
                assert not t.is_alive(), "an interleaved task did not finish"
        finally:
            self.driver.before_tx = self.driver.after_tx = None
        return self
