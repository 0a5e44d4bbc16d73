"""Only the I/O layer, the CLI and jobs may talk to Neo4j (an ``ast`` walk of the imports)."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "graphanon"
CORE = ("graph.py", "anonymity", "dk", "projection.py", "privacy", "metrics.py")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    rel_pkg = ".".join(("graphanon", *path.relative_to(PKG).parent.parts))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = rel_pkg.split(".")[: len(rel_pkg.split(".")) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return out


def test_core_never_imports_neo4j_or_io() -> None:
    files = []
    for entry in CORE:
        p = PKG / entry
        files += sorted(p.rglob("*.py")) if p.is_dir() else ([p] if p.exists() else [])
    assert files
    for f in files:
        bad = {m for m in _imports(f) if m == "neo4j" or m.startswith("neo4j.")
               or m == "graphanon.io" or m.startswith("graphanon.io.")}
        assert not bad, f"{f.relative_to(PKG)} imports {sorted(bad)}"


def test_only_io_cli_and_jobs_import_the_driver() -> None:
    allowed = {PKG / "io" / "neo4j.py", PKG / "jobs.py"}
    for f in PKG.rglob("*.py"):
        if f in allowed or f.is_relative_to(PKG / "cli"):
            continue
        mods = _imports(f)
        assert not {m for m in mods if m == "neo4j" or m.startswith("neo4j.")}, f
