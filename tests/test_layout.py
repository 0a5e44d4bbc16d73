"""The package layout: mechanisms in their family, old module paths as warning aliases."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import graphanon

MOVED = {
    "graphanon.projection": "graphanon.nodedp.projection",
    "graphanon.privacy.node_dp": "graphanon.nodedp.theta_dk",
    "graphanon.privacy.rps": "graphanon.nodedp.degree_sequences",
    "graphanon.privacy.personalized": "graphanon.dk.personalized",
    "graphanon.privacy.preferences": "graphanon.dk.preferences",
    "graphanon.privacy.randomized_response": "graphanon.anonymity.randomized_response",
    "graphanon.privacy.audit": "graphanon.privacy.sensitivity_audit",
    "graphanon.evaluate.audit": "graphanon.evaluate.empirical_audit",
    "graphanon.report": "graphanon.reporting",
    "graphanon.demo": "graphanon.demos.job",
    "graphanon.io.universe": "graphanon.io.id_lists",
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_old_module_paths_still_import_with_a_warning(old: str, new: str) -> None:
    target = importlib.import_module(new)
    alias = importlib.import_module(old)
    for name in target.__all__:
        with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
            assert getattr(alias, name) is getattr(target, name)
    with pytest.raises(AttributeError):
        alias.no_such_name  # noqa: B018


def test_from_import_of_a_moved_name_warns() -> None:
    with pytest.warns(DeprecationWarning, match="graphanon.nodedp.theta_dk"):
        from graphanon.privacy.node_dp import theta_dk_release
    from graphanon.nodedp import theta_dk_release as new

    assert theta_dk_release is new


def test_privacy_holds_the_core_only() -> None:
    """Every module of graphanon.privacy is core (noise, records, ledger, audits, pseudonyms,
    the operator key, the published view and payload binding) or a deprecation alias: no
    mechanism defines a function there."""
    import graphanon.privacy as core

    core_modules = {"noise", "release", "accountant", "sensitivity_audit", "pseudonyms", "keys",
                    "publish"}
    for info in pkgutil.iter_modules(core.__path__):
        name = f"graphanon.privacy.{info.name}"
        if name in MOVED:  # an alias module: nothing but the forwarding __getattr__
            module = importlib.import_module(name)
            assert {n for n in vars(module) if not n.startswith("__")} == {"moved_module"}
        else:
            assert info.name in core_modules, name


def test_secure_mechanisms_do_not_mention_the_thesis_variants() -> None:
    """The secure functions are straight paths: no reproduction branch mentions 'thesis'
    outside their References section (issue 19)."""
    from graphanon.dk.personalized import personalized_query, release_personalized
    from graphanon.dk.release import release_dk
    from graphanon.nodedp.degree_sequences import rps_degree_sequence
    from graphanon.nodedp.theta_dk import theta_dk_release

    for func in (release_dk, rps_degree_sequence, theta_dk_release, release_personalized,
                 personalized_query):
        code = inspect.getsource(inspect.unwrap(func))
        body = code.split('"""', 2)[2] if code.count('"""') >= 2 else code
        assert "thesis" not in body.lower(), func.__name__
        for word in ("observed", "cauchy", "lemma 5"):
            assert word not in body.lower(), (func.__name__, word)


def test_package_docstring_names_the_families() -> None:
    for family in ("graphanon.anonymity", "graphanon.dk", "graphanon.nodedp",
                   "graphanon.reproduce", "graphanon.privacy"):
        assert family in (graphanon.__doc__ or "")


def _shims() -> list[tuple[str, int, str, str]]:
    """Every compatibility layer in the package: ``(file, line, kind, removal version)``.

    A shim is a call of :mod:`graphanon._compat`'s ``moved_module`` / ``moved_names`` /
    ``paper_variants`` (``removed_in``; a ``paper_variants`` without it gets
    ``_compat.REMOVED_IN``) or a ``warnings.warn(..., DeprecationWarning)`` whose message says
    "removed in X" (``""`` where a shim names no version)."""
    import ast
    import re
    from pathlib import Path

    from graphanon._compat import REMOVED_IN

    root = Path(graphanon.__file__).parent
    found: list[tuple[str, int, str, str]] = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "_compat.py":
            continue
        rel = str(path.relative_to(root.parent))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in ("moved_module", "moved_names", "paper_variants", "renamed_keywords"):
                given = [k.value for k in node.keywords if k.arg == "removed_in"]
                version = (given[0].value if given and isinstance(given[0], ast.Constant)
                           else REMOVED_IN if name == "paper_variants" else "")
                found.append((rel, node.lineno, name, version))
            elif name == "warn" and any(getattr(a, "id", "") == "DeprecationWarning"
                                        for a in node.args):
                text = " ".join(c.value for c in ast.walk(node.args[0])
                                if isinstance(c, ast.Constant) and isinstance(c.value, str))
                m = re.search(r"removed\s+in\s+(\d+\.\d+\.\d+)", text)
                found.append((rel, node.lineno, "DeprecationWarning", m.group(1) if m else ""))
    return found


def test_every_shim_names_a_removal_version_not_yet_reached() -> None:
    """Issue 37: a shim lives until the next minor release after the one that added it; the
    day the version reaches it, this fails and the shim (with its tests) goes."""
    from graphanon._version import __version__

    def key(v: str) -> tuple[int, ...]:
        return tuple(int(x) for x in v.split("."))

    shims = _shims()
    assert len(shims) >= 19  # 8 moved modules, 2 moved-name tables, 7 wrappers, 2 warnings
    for rel, line, kind, version in shims:
        assert version, f"{rel}:{line}: {kind} names no removal version"
        assert key(__version__) < key(version), f"{rel}:{line}: {kind} was due in {version}"


def test_the_shim_table_in_the_docs_lists_every_shim_module() -> None:
    from pathlib import Path

    doc = (Path(graphanon.__file__).parents[1] / "docs" / "architecture.md").read_text(
        encoding="utf-8")
    table = doc.split("## Shims", 1)[1]
    for rel, _, _, version in _shims():
        module = rel.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        assert module.rsplit(".", 1)[1] in table and version in table, (module, version)


def test_test_folders_mirror_the_package() -> None:
    """Issue 37: the tests of ``graphanon/<family>/`` live in ``tests/<family>/`` (the shipped
    sample data in ``tests/data/``; the Neo4j tests, through the recording fake, in
    ``tests/io/neo4j/`` beside the fake ``tests/neo4j_fake.py``; cross-cutting tests — CLI,
    fuzzing, architecture — at the top)."""
    from pathlib import Path

    root = Path(graphanon.__file__).parent
    tests = Path(__file__).parent
    folders = [p for p in tests.rglob("*") if p.is_dir() and p.name != "__pycache__"
               and "data" not in p.relative_to(tests).parts]
    assert folders
    for folder in folders:
        assert (root / folder.relative_to(tests)).is_dir(), (
            f"tests/{folder.relative_to(tests)} has no package graphanon/"
            f"{folder.relative_to(tests)}")
