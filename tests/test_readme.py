"""Every README block runs, top to bottom, as a reader would run it (issue 17).

Python blocks share one namespace; bash blocks run with ``bash -euo pipefail`` and this
interpreter's ``graphanon`` first on PATH; all run in one folder that holds the files the
README names (``CA-GrQc.txt``, ``adult.data``, ``socfb-Caltech36.mtx``, from the copies in
``tests/data``). ``adult.data`` is the first 2,000 records of UCI Adult so that the block stays
quick; the commands are the README's, unchanged. A block preceded by ``<!-- readme-test: skip
(reason) -->`` is run elsewhere, and the reason says where.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
FENCE = re.compile(r"((?:<!--[^\n]*-->\n)*)```(\w+)\n(.*?)```", re.S)


def readme_blocks() -> list[tuple[str, str, str | None]]:
    """``(language, code, skip reason or None)`` of every fenced block, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        comments, lang, code = m.group(1), m.group(2), m.group(3)
        skip = re.search(r"<!-- readme-test: skip \((.*?)\) -->", comments)
        out.append((lang, code, skip.group(1) if skip else None))
    return out


def readme_command(prefix: str) -> list[str]:
    """The arguments of the README's command line that starts with ``prefix`` (its comment
    dropped), for a test that runs a skipped block's command exactly as written."""
    import shlex

    for _lang, code, _skip in readme_blocks():
        for line in code.splitlines():
            if line.startswith(prefix):
                return shlex.split(line, comments=True)
    raise AssertionError(f"no README line starts with {prefix!r}")


def test_every_block_is_run_or_says_where_it_runs() -> None:
    blocks = readme_blocks()
    assert len(blocks) >= 10
    for lang, _code, skip in blocks:
        assert lang in ("bash", "python", "cypher", "toml", "json"), lang
        if skip is None:
            assert lang in ("bash", "python"), f"a {lang} block must say where it is tested"
        else:
            assert len(skip) > 10, skip
            # a test named file::function exists
            for path, name in re.findall(r"(tests/[\w/]+\.py)::(\w+)", skip):
                assert f"def {name}(" in (ROOT / path).read_text(), (path, name)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    with gzip.open(DATA / "CA-GrQc.txt.gz") as src:
        (tmp_path / "CA-GrQc.txt").write_bytes(src.read())
    with gzip.open(DATA / "socfb-Caltech36.mtx.gz") as src:
        (tmp_path / "socfb-Caltech36.mtx").write_bytes(src.read())
    with gzip.open(DATA / "adult.data.gz", "rt", encoding="utf-8") as src:
        lines = src.read().splitlines()[:2000]
    (tmp_path / "adult.data").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_the_readme_runs_top_to_bottom(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workdir)
    bindir = Path(sys.executable).parent
    if not (bindir / "graphanon").exists():  # pragma: no cover - run from a non-venv python
        shutil.which("graphanon") or pytest.skip("the graphanon entry point is not installed")
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
           "MPLBACKEND": "Agg"}
    namespace: dict[str, object] = {"__name__": "readme"}
    ran = 0
    for i, (lang, code, skip) in enumerate(readme_blocks()):
        if skip is not None or lang not in ("bash", "python"):
            continue
        if lang == "python":
            exec(compile(code, f"README.md block {i}", "exec"), namespace)
        else:
            proc = subprocess.run(["bash", "-euo", "pipefail", "-c", code], env=env,
                                  capture_output=True, text=True)
            assert proc.returncode == 0, f"README block {i} failed:\n{code}\n{proc.stderr}"
            assert "Traceback" not in proc.stderr
        ran += 1
    assert ran >= 4
    # what the blocks promise exists
    for name in ("core.graphml", "adult_k8.tsv", "adult_rr.tsv", "masked.tsv", "jdd.tsv",
                 "jdd_private.tsv", "deg_node.tsv", "synthetic.txt", "deg.tsv", "ledger.json"):
        assert (workdir / name).exists(), name
