"""The Cypher loader and identifier validation."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from graphanon.errors import InvalidParameterError
from graphanon.io import cypher

HOSTILE = [
    "",
    "User`) DETACH DELETE n //",
    "User`",
    "Us er",
    "User})",
    "User:Admin",
    "User\n",
    "1User",
    "Usеr",  # Cyrillic 'е' look-alike
    "User\u200b",  # zero-width space
    "User\u202e",  # right-to-left override
    "Ｕser",  # full-width letter
    "a" * 65,
    "$label",
    "n.uid",
    None,
    3,
]


@pytest.mark.parametrize("name", ["User", "HAS_INTEREST", "_x", "a1", "A" * 64])
def test_valid_identifiers_are_backtick_quoted(name: str) -> None:
    assert cypher.validate_identifier(name, "--label") == name
    assert cypher.quote_identifier(name) == f"`{name}`"


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_identifiers_are_rejected_with_the_parameter_name(name: object) -> None:
    with pytest.raises(InvalidParameterError, match=r"'--label' parameter must be a Neo4j"):
        cypher.validate_identifier(name, "--label")


@pytest.mark.parametrize("name", HOSTILE[:8])
def test_load_refuses_hostile_placeholder_values(name: str) -> None:
    with pytest.raises(InvalidParameterError, match="'label' parameter"):
        cypher.load("count_nodes", label=name)


def test_every_statement_loads_and_has_no_stray_braces() -> None:
    names = cypher.statement_names()
    assert len(names) >= 20
    for name in names:
        ids = {key: "X" for key in cypher.placeholders(name)}
        text = cypher.load(name, **ids)
        assert "//" not in text  # comments are stripped
        assert not cypher._PLACEHOLDER.search(text), name
        assert "id(" not in text.replace("elementId(", ""), f"{name} uses the deprecated id()"


def test_placeholders_are_filled_exactly() -> None:
    text = cypher.load("read_graph_edges", label="Person", rel_type="KNOWS")
    assert "MATCH (a:`Person`)-[:`KNOWS`]->(b:`Person`)" in text
    with pytest.raises(InvalidParameterError, match="needs identifiers"):
        cypher.load("read_graph_edges", label="Person")
    with pytest.raises(InvalidParameterError, match="needs identifiers"):
        cypher.load("count_nodes", label="A", extra="B")


def test_unknown_statement() -> None:
    with pytest.raises(InvalidParameterError, match="no Cypher statement named"):
        cypher.load("nope")
    with pytest.raises(InvalidParameterError, match="no Cypher statement named"):
        cypher.load("../pyproject")


def test_cypher_dir_is_the_top_level_folder_in_a_checkout() -> None:
    d = cypher.cypher_dir()
    assert (d / "write_nodes.cypher").is_file()


# ----------------------------------------------------------------------- lint manifest
MANIFEST = Path(__file__).resolve().parents[3] / "scripts" / "cypher_calls.json"


def _shape(value: Any) -> Any:
    """A deterministic sample of a parameter value with the same JSON shape and types."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return 1
    if isinstance(value, float):
        return 1.0
    if isinstance(value, str):
        return "s"
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in sorted(value.items())}
    raise TypeError(f"parameter value {value!r} of type {type(value).__name__}")


def exercise_every_call_site(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Run every code path that sends a named statement through the recording fake."""
    import importlib.util

    import numpy as np
    from bound import bound
    from neo4j_fake import FakeDB, FakeDriver

    from graphanon.anonymity.bmatching import b_matching_anonymity
    from graphanon.dk.extract import DK3Distribution, DKDistribution
    from graphanon.graph import BipartiteGraph, Graph
    from graphanon.io import neo4j as io_neo4j
    from graphanon.io.masked import MaskedRelease
    from graphanon.privacy.release import Release

    db = FakeDB()
    db.source_nodes["Member"] = [{"uid": i, "eps": 0.5} for i in range(4)]
    db.source_nodes["Topic"] = [{"name": n} for n in ("a", "b")]
    db.source_rels = [("KNOWS", ("Member", 0), ("Member", 1)),
                      ("LIKES", ("Member", 0), ("Topic", 1))]
    drv = FakeDriver(db)
    src = io_neo4j.Neo4jSource(drv)
    src.read_graph(label="Member", rel_type="KNOWS", id_property="uid", node_properties=["eps"],
                   universe="label")
    src.read_bipartite(user_label="Member", feature_label="Topic", rel_type="LIKES",
                       user_id_property="uid", feature_id_property="name", universe="label")
    sink = io_neo4j.Neo4jSink(drv, batch_size=2)
    sink.create_budget("ds", 5.0)
    sink.set_budget("ds", 10.0)
    dp = Release.create(mechanism="m", neighbourhood="edge", epsilon=1.0, params={"k": 2})
    u = np.arange(5)
    G = Graph.from_edges(u, (u + 1) % 5)
    sink.write_release(bound(dp, G), release_id="r1", graph=G, dataset="ds")
    sink.write_release(bound(dp, G), release_id="r1", graph=G,
                       dataset="ds")  # identical: a no-op
    sink.write_release(bound(dp, G), release_id="r1b", graph=G,
                       dataset="ds")  # charged: ledger_unlock
    sink.project_gds("r1", "graphanon-r1")
    k = Release.create(mechanism="k", neighbourhood="k-anonymity", params={"k": 2})
    B = BipartiteGraph.from_pairs(["u1", "u1", "u2"], ["x", "y", "x"])
    sink.write_release(bound(k, B), release_id="r2", bipartite=B)
    tables = {"r3": DKDistribution("degree", np.array([[0], [1]]), np.array([1.0, 2.0])),
              "r4": DKDistribution("joint_degree", np.array([[1, 2]]), np.array([1.0])),
              "r5": DK3Distribution(
                  DKDistribution("wedge", np.array([[1, 2, 1]]), np.array([1.0])),
                  DKDistribution("triangle", np.array([[2, 2, 2]]), np.array([1.0])))}
    for rid, table in tables.items():
        sink.write_release(bound(k, table), release_id=rid, statistics=table)
    res = b_matching_anonymity(np.eye(4, dtype=int), delta=2, rng=np.random.default_rng(0))
    sink.write_release(bound(res.release(), MaskedRelease.from_result(res)),
                       release_id="r6", masked=MaskedRelease.from_result(res))
    sink.releases()
    sink.drop_release("r2")
    sink.migrate_legacy_releases()
    # the sample loaders
    monkeypatch.setattr(io_neo4j, "connect", lambda settings, verify=True: drv)
    for k_, v in {"NEO4J_URI": "bolt://fake:7687", "NEO4J_PASSWORD": "pw"}.items():
        monkeypatch.setenv(k_, v)
    path = Path(__file__).resolve().parents[3] / "scripts" / "neo4j_load_sample.py"
    spec = importlib.util.spec_from_file_location("neo4j_load_sample_lint", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.load_sample("polbooks")
    mod.load_sample("adult")
    return drv.calls


def lint_manifest(calls: list[Any]) -> dict[str, Any]:
    """Every distinct (statement, identifiers, parameter names) the code sent."""
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for c in calls:
        if c.name == "<custom>":
            continue
        key = (c.name, tuple(sorted(c.identifiers.items())), tuple(sorted(c.params)))
        if key not in seen:
            seen[key] = {"name": c.name, "identifiers": dict(sorted(c.identifiers.items())),
                         "query": c.query, "mode": c.mode,
                         "parameters": {k: _shape(v) for k, v in sorted(c.params.items())}}
    entries = sorted(seen.values(), key=lambda e: (e["name"], json.dumps(e["identifiers"]),
                                                   json.dumps(sorted(e["parameters"]))))
    return {"format": "graphanon-cypher-calls/1",
            "note": "Generated by tests/io/neo4j/test_neo4j_cypher.py from the calls the code "
                    "makes (GRAPHANON_UPDATE_CYPHER_CALLS=1 pytest "
                    "tests/io/neo4j/test_neo4j_cypher.py); "
                    "linted by scripts/lint_cypher.mjs.",
            "statements": entries}


def test_lint_manifest_lists_exactly_the_calls_the_code_makes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = lint_manifest(exercise_every_call_site(monkeypatch))
    names = {e["name"] for e in manifest["statements"]}
    assert names == set(cypher.statement_names())  # every statement is exercised and linted
    text = json.dumps(manifest, indent=1, sort_keys=False) + "\n"
    if os.environ.get("GRAPHANON_UPDATE_CYPHER_CALLS"):
        MANIFEST.write_text(text, encoding="utf-8")
    assert MANIFEST.read_text(encoding="utf-8") == text, (
        "scripts/cypher_calls.json is out of date: regenerate it with "
        "GRAPHANON_UPDATE_CYPHER_CALLS=1 pytest tests/io/neo4j/test_neo4j_cypher.py")
    # the schema the sink relies on, rendered for every label it uses
    ids = {(e["name"], tuple(e["identifiers"].values())) for e in manifest["statements"]}
    for label in ("AnonNode", "AnonUser", "AnonFeature"):
        assert ("schema_uid_index", (f"graphanon_{label}_key", label)) in ids
        assert ("schema_drop_index", (f"graphanon_{label}_release",)) in ids
        assert ("schema_drop_index", (f"graphanon_{label}_uid",)) in ids
        assert ("schema_release_index", (f"graphanon_{label}_release", label)) not in ids
        assert ("delete_release_nodes", (label,)) in ids
    for label in ("DegreeCount", "JointDegreeCount", "DegreeTupleCount"):
        assert ("write_statistics", (label,)) in ids
        assert ("delete_release_statistics", (label,)) in ids
