"""numba's cache goes to a per-user folder (graphanon._numba), so that a regular install in a
read-only site-packages does not compile every kernel in every process (issue 16)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import graphanon

PACKAGE = Path(graphanon.__file__).resolve().parent

PROBE = """
import json, os, sys
{before}
import graphanon._ids_kernels as k
import numba, numpy as np
k.parse_canonical_int64(np.array([0, 1], dtype=np.int64), np.frombuffer(b"7", dtype=np.uint8))
print(json.dumps({{"env": os.environ.get("NUMBA_CACHE_DIR"),
                   "config": numba.config.CACHE_DIR}}))
"""


def _run(tmp_path: Path, env_extra: dict[str, str], before: str = "") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(HOME=str(tmp_path / "home"), **env_extra)
    out = subprocess.run([sys.executable, "-c", PROBE.format(before=before)], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_every_kernel_module_imports_the_cache_setting_first() -> None:
    """A module that defines numba kernels imports graphanon._numba, before its first
    ``@numba.njit`` runs (module level, so at import)."""
    missing = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        uses_numba = any(isinstance(n, ast.Import) and any(a.name == "numba" for a in n.names)
                         for n in top)
        imports_cache = any(isinstance(n, ast.ImportFrom) and n.module in (None, "graphanon")
                            and any(a.name == "_numba" for a in n.names) for n in top)
        if uses_numba and not imports_cache:
            missing.append(str(path.relative_to(PACKAGE)))
    assert missing == []


def test_cache_folder_under_home(tmp_path: Path) -> None:
    got = _run(tmp_path, {})
    folder = tmp_path / "home" / ".cache" / "graphanon" / "numba"
    assert got == {"env": str(folder), "config": str(folder)}
    assert folder.stat().st_mode & 0o777 == 0o700
    assert list(folder.rglob("*.nbi")), "no cache index written"


def test_xdg_cache_home_and_numba_imported_first(tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    got = _run(tmp_path, {"XDG_CACHE_HOME": str(xdg)}, before="import numba")
    assert got["env"] == got["config"] == str(xdg / "graphanon" / "numba")


def test_the_users_choice_wins(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    got = _run(tmp_path, {"NUMBA_CACHE_DIR": str(mine)})
    assert got == {"env": str(mine), "config": str(mine)}
    assert not (tmp_path / "home" / ".cache" / "graphanon").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_home_leaves_numba_alone(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o500)
    try:
        got = _run(tmp_path, {})
    finally:
        home.chmod(0o700)
    assert got["env"] is None and got["config"] in ("", None)


def test_a_folder_of_another_user_is_not_used(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from graphanon import _numba

    folder = tmp_path / "c"
    folder.mkdir()
    assert _numba._usable(str(folder))
    monkeypatch.setattr(os, "getuid", lambda: os.stat(folder).st_uid + 1)
    assert not _numba._usable(str(folder))
