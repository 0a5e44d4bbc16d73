"""Load graphanon's shipped samples into Neo4j as *source* data, for trying the workflow.

    python scripts/neo4j_load_sample.py polbooks  # (:Book {id, value})-[:COPURCHASED]->(:Book)
    python scripts/neo4j_load_sample.py adult     # (:Person)-[:HAS_ATTRIBUTE]->(:Attribute)

Connection from NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD or NEO4J_PASSWORD_FILE. Idempotent
(MERGE on ``id``, backed by a uniqueness constraint per label, which also serves the
lookups). Prints a small table of what was loaded; ``--json PATH`` writes it as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from graphanon.datasets import load_adult_sample, load_polbooks
from graphanon.errors import GraphAnonError
from graphanon.io.cypher import load
from graphanon.io.neo4j import connect, connection_settings, wrap_driver_errors

BATCH = 5_000


def _write(session: Any, query: str, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), BATCH):
        batch = rows[start:start + BATCH]
        session.execute_write(lambda tx, b=batch: tx.run(query, {"rows": b}).consume())


def _plain(x: Any) -> Any:
    return x.item() if hasattr(x, "item") else x


def _unique_id(session: Any, label: str) -> None:
    """A uniqueness constraint on ``(:label {id})`` for the loader's MERGE; the plain lookup
    index of earlier versions (same schema, so it would block the constraint) goes first."""
    index = f"sample_{label.lower()}_id"
    session.run(load("schema_drop_index", index=index)).consume()
    session.run(load("sample_constraint", constraint=f"{index}_unique", label=label)).consume()


def load_sample(name: str) -> dict[str, Any]:
    settings = connection_settings()
    driver = connect(settings)
    t0 = time.perf_counter()
    try:
        with wrap_driver_errors(f"loading the {name} sample"), driver.session(
            database=settings.database
        ) as s:
            if name == "polbooks":
                G = load_polbooks()
                attrs = {k: v.tolist() for k, v in G.attributes.items()}
                nodes = [{"id": _plain(i),
                          "properties": {k: str(col[j]) for k, col in attrs.items()}}
                         for j, i in enumerate(G.node_ids.tolist())]
                u, v = G.edges()
                rels = [{"source": _plain(G.node_ids[a]), "target": _plain(G.node_ids[b])}
                        for a, b in zip(u, v, strict=True)]
                _unique_id(s, "Book")
                _write(s, load("sample_load_nodes", label="Book"), nodes)
                _write(s, load("sample_load_relationships", source_label="Book",
                               target_label="Book", rel_type="COPURCHASED"), rels)
                out = {"dataset": name, "nodes": len(nodes), "relationships": len(rels)}
            else:
                B = load_adult_sample()
                users = [{"id": _plain(x), "properties": {}} for x in B.user_ids.tolist()]
                feats = [{"id": _plain(x), "properties": {}} for x in B.feature_ids.tolist()]
                r, c = B.edges()
                rels = [{"source": _plain(B.user_ids[a]), "target": _plain(B.feature_ids[b])}
                        for a, b in zip(r, c, strict=True)]
                _unique_id(s, "Person")
                _unique_id(s, "Attribute")
                _write(s, load("sample_load_nodes", label="Person"), users)
                _write(s, load("sample_load_nodes", label="Attribute"), feats)
                _write(s, load("sample_load_relationships", source_label="Person",
                               target_label="Attribute", rel_type="HAS_ATTRIBUTE"), rels)
                out = {"dataset": name, "nodes": len(users) + len(feats),
                       "relationships": len(rels)}
    finally:
        driver.close()
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", choices=["polbooks", "adult"])
    ap.add_argument("--json", metavar="PATH", help="also write the table as JSON")
    args = ap.parse_args(argv)
    try:
        out = load_sample(args.dataset)
    except GraphAnonError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    print(f"{'dataset':<10} {'nodes':>8} {'relationships':>14} {'seconds':>8}")
    print(f"{out['dataset']:<10} {out['nodes']:>8} {out['relationships']:>14} "
          f"{out['seconds']:>8}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
