"""The core never imports the database driver or the I/O layer (data flows one way)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "graphanon"
CORE = ["graph", "metrics.py", "errors.py", "_validation.py", "universe.py", "anonymity",
        "dk", "nodedp", "privacy", "reproduce", "synthetic"]
FORBIDDEN = ("neo4j", "graphanon.io")
#: The glue above the mechanisms: nothing in CORE may import it (data flows one way).
GLUE = ("graphanon.cli", "graphanon.jobs", "graphanon.reporting", "graphanon.demos",
        "graphanon.demo", "graphanon.evaluate", "graphanon.registry")


def _core_files() -> list[Path]:
    files: list[Path] = []
    for name in CORE:
        p = PKG / name
        if p.is_dir():
            files += sorted(p.rglob("*.py"))
        elif p.exists():
            files.append(p)
    return files


def _imports(path: Path, root: Path = PKG) -> list[str]:
    """Absolute module names imported by ``path`` (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel_pkg = path.relative_to(root.parent).with_suffix("").parts[:-1]
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(rel_pkg[: len(rel_pkg) - node.level + 1])
                mod = ".".join(base + ([node.module] if node.module else []))
                out.append(mod)
                out += [f"{mod}.{a.name}" for a in node.names]
            else:
                out.append(node.module or "")
    return out


@pytest.mark.parametrize("path", _core_files(), ids=lambda p: str(p.relative_to(PKG)))
def test_core_does_not_import_io_or_driver(path: Path) -> None:
    bad = [m for m in _imports(path) if any(m == f or m.startswith(f + ".") for f in FORBIDDEN)]
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", _core_files(), ids=lambda p: str(p.relative_to(PKG)))
def test_core_does_not_import_the_glue(path: Path) -> None:
    bad = [m for m in _imports(path) if any(m == g or m.startswith(g + ".") for g in GLUE)]
    assert not bad, f"{path.name} imports {bad}"


def test_the_registry_imports_nothing_of_graphanon() -> None:
    """graphanon --help reads the registry: it must stay plain data (no numpy)."""
    assert not [m for m in _imports(PKG / "registry.py") if m.startswith("graphanon")]


def test_the_check_sees_relative_imports(tmp_path: Path) -> None:
    p = tmp_path / "graphanon" / "dk" / "x.py"
    p.parent.mkdir(parents=True)
    p.write_text("from ..io import files\nimport neo4j.exceptions\n")
    mods = _imports(p, tmp_path / "graphanon")
    assert "graphanon.io" in mods and "neo4j.exceptions" in mods


def test_only_io_cli_and_jobs_import_the_driver() -> None:
    for f in PKG.rglob("*.py"):
        if any(f.is_relative_to(PKG / d) for d in ("cli", "jobs", "io/neo4j")):
            continue
        assert not [m for m in _imports(f) if m == "neo4j" or m.startswith("neo4j.")], f
