"""A recording fake of the neo4j driver's session / transaction API, for unit tests.

It records every statement (its name, resolved by matching the text against the shipped
``cypher/*.cypher`` templates, the exact text, the parameters, and whether it ran in an
auto-commit, read or write transaction) and executes it against a small in-memory model
with transaction semantics: a managed transaction works on a copy that is committed only
when the transaction function returns, so an exception rolls it back. Statements that
only work in auto-commit mode (``CALL ... IN TRANSACTIONS``) fail inside a transaction,
and writes fail inside read transactions, as on a real server.

``fail`` is a hook ``fail(call) -> Exception | None`` for failure injection.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphanon.io import cypher

__all__ = ["Call", "FakeDB", "FakeDriver"]

_WRITES = {
    "begin_release", "delete_release_relationships", "delete_release_nodes",
    "delete_release_record", "write_nodes", "write_relationships", "write_statistics",
    "ledger_lock", "ledger_charge", "ledger_unlock", "ledger_set_budget", "complete_release",
    "schema_release_id", "schema_budget_dataset", "schema_charge_id", "schema_release_index",
    "schema_uid_index", "sample_index", "sample_load_nodes", "sample_load_relationships",
}
_AUTO_ONLY = {"delete_release_relationships", "delete_release_nodes"}
_SCHEMA = {n for n in _WRITES if n.startswith("schema_")} | {"sample_index"}


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


class Record(dict):  # the driver's Record is indexable by key and position
    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, int):
            return list(self.values())[key]
        return super().__getitem__(key)


class Result:
    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self._rows = [Record(r) for r in rows]
        self.consumed = False

    def __iter__(self) -> Any:
        for row in self._rows:
            if self.consumed:
                return
            yield row

    def single(self) -> Record:
        assert len(self._rows) == 1, self._rows
        return self._rows[0]

    def consume(self) -> None:
        self.consumed = True


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
    schema: set[str] = field(default_factory=set)
    custom: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    # ---------------------------------------------------------------- helpers
    def _eid(self, label: str, i: int) -> str:
        return f"4:fake:{label}:{i}"

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
            return []
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
        if name == "begin_release":
            rec = dict(p["properties"])
            rec.update(release_id=p["release_id"], status="pending", started_at=p["started_at"])
            self.records[p["release_id"]] = rec
            return [{"release_id": p["release_id"]}]
        rid = p.get("release_id")
        if name == "delete_release_relationships":
            self.rels = [r for r in self.rels if r["release_id"] != rid]
            return []
        if name == "delete_release_nodes":
            for label in self.nodes:
                self.nodes[label] = [n for n in self.nodes[label] if n["release_id"] != rid]
            self.stats = [s for s in self.stats if s[1]["release_id"] != rid]
            return []
        if name == "delete_release_record":
            return [{"deleted": 1 if self.records.pop(rid, None) is not None else 0}]
        if name == "write_nodes":
            bucket = self.nodes.setdefault(ids["label"], [])
            for row in p["rows"]:
                bucket.append({**row["properties"], "release_id": rid, "uid": row["uid"]})
            return []
        if name == "write_relationships":
            for row in p["rows"]:
                a = self._find(ids["source_label"], rid, row["source"])
                b = self._find(ids["target_label"], rid, row["target"])
                if a and b:
                    self.rels.append({"type": ids["rel_type"], "release_id": rid,
                                      "source": row["source"], "target": row["target"]})
            return []
        if name == "write_statistics":
            if rid in self.records:
                for row in p["rows"]:
                    self.stats.append((ids["label"], {**row, "release_id": rid}))
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
        if name == "ledger_set_budget":
            b = self.budgets.setdefault(ds, {"epsilon_spent": 0.0})
            b["epsilon_total"] = p["epsilon_total"]
            b["neighbourhood"] = p["neighbourhood"]
            return [{"epsilon_total": b["epsilon_total"], "epsilon_spent": b["epsilon_spent"]}]
        if name == "complete_release":
            rec = self.records.get(rid)
            if rec is None or rec["status"] != "pending":
                return []
            rec.update(p["counts"], status="complete", completed_at=p["completed_at"])
            return [{"release_id": rid}]
        if name == "list_releases":
            keys = ["release_id", "status", "kind", "mechanism", "neighbourhood", "epsilon", "k",
                    "dataset", "created_at", "completed_at", "n_nodes", "n_relationships",
                    "n_statistics"]
            return [{k: r.get(k) for k in keys} for r in self.records.values()]
        if name == "list_budgets":
            return [{"dataset": d, "neighbourhood": b["neighbourhood"],
                     "epsilon_total": b["epsilon_total"],
                     "epsilon_spent": b["epsilon_spent"],
                     "charges": sum(1 for c in self.charges.values() if c["dataset"] == d)}
                    for d, b in sorted(self.budgets.items())]
        if name == "<custom>":
            return self.custom[call.query]
        raise AssertionError(f"the fake has no model of statement {name!r}")

    def _find(self, label: str, rid: str, uid: Any) -> bool:
        return any(n["release_id"] == rid and n["uid"] == uid for n in self.nodes.get(label, []))

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


class FakeTx:
    def __init__(self, session: FakeSession, mode: str, db: FakeDB) -> None:
        self.session, self.mode, self.db = session, mode, db

    def run(self, query: Any, parameters: dict[str, Any] | None = None) -> Result:
        assert isinstance(query, str), "managed transactions take a str, not a Query"
        return self.session._exec(query, parameters or {}, self.mode, self.db)


class FakeSession:
    def __init__(self, driver: FakeDriver, config: dict[str, Any]) -> None:
        self.driver, self.config = driver, config
        self.open = True

    def __enter__(self) -> FakeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.open = False

    def _exec(self, query: str, params: dict[str, Any], mode: str, db: FakeDB) -> Result:
        assert self.open
        name, ids = identify(query)
        call = Call(name, ids, query, copy.deepcopy(params), mode, self.config)
        self.driver.calls.append(call)
        if self.driver.fail is not None:
            exc = self.driver.fail(call)
            if exc is not None:
                raise exc
        if name in _AUTO_ONLY and mode != "auto":
            raise AssertionError(f"{name}: CALL IN TRANSACTIONS needs an auto-commit session")
        if name in _WRITES and mode == "read":
            raise AssertionError(f"{name}: writing in read access mode is not allowed")
        return Result(db.execute(call))

    def run(self, query: Any, parameters: dict[str, Any] | None = None) -> Result:
        return self._exec(str(query), parameters or {}, "auto", self.driver.db)

    def _transaction(self, mode: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        staged = copy.deepcopy(self.driver.db)
        result = fn(FakeTx(self, mode, staged), *args, **kw)
        self.driver.db = staged  # commit
        self.driver.commits += 1
        return result

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
        self.calls: list[Call] = []
        self.sessions: list[dict[str, Any]] = []
        self.commits = 0
        self.closed = False

    def session(self, **config: Any) -> FakeSession:
        self.sessions.append(config)
        return FakeSession(self, config)

    def verify_connectivity(self) -> None:
        return None

    def close(self) -> None:
        self.closed = True

    def named(self, name: str) -> list[Call]:
        return [c for c in self.calls if c.name == name]
