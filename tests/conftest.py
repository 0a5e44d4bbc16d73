"""Shared fixtures: paths to the shipped and shared datasets."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEST_DATA = ROOT / "tests" / "data"
SHIPPED = {  # name in ../shared/datasets -> the copy shipped with the project
    "ca-GrQc/CA-GrQc.txt": TEST_DATA / "CA-GrQc.txt.gz",
    "facebook100/Reed98.mat": TEST_DATA / "Reed98.mat",
    "facebook100/socfb-Caltech36.mtx": TEST_DATA / "socfb-Caltech36.mtx.gz",
    "adult/adult.data": TEST_DATA / "adult.data.gz",
    "polbooks/polbooks.gml": ROOT / "graphanon" / "data" / "polbooks.gml",
}


def _shared_root() -> Path:
    env = os.environ.get("GRAPHANON_DATASETS")
    return Path(env) if env else ROOT.parent / "shared" / "datasets"


@pytest.fixture(scope="session")
def dataset():  # type: ignore[no-untyped-def]
    """``dataset("ca-GrQc/CA-GrQc.txt")``: the shipped copy of a public dataset
    (``tests/data``, see its ATTRIBUTION.md). Datasets that are not shipped exist only for
    tests marked ``datasets`` (not in the default run): they come from ``GRAPHANON_DATASETS``
    or ``../shared/datasets``."""

    def get(name: str) -> Path:
        if name in SHIPPED:
            return SHIPPED[name]
        path = _shared_root() / name
        if not path.exists():
            pytest.skip(f"{name} is not shipped; set GRAPHANON_DATASETS (run with -m datasets)")
        return path

    return get


@pytest.fixture(autouse=True)
def _fingerprint_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests use a fixed operator key, so no key file is created in the home folder."""
    monkeypatch.setenv("GRAPHANON_FINGERPRINT_KEY", "test-operator-key")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch):
    """A recording fake Neo4j driver that every ``graphanon.io.neo4j.connect`` returns."""
    from neo4j_fake import FakeDB, FakeDriver

    from graphanon.io import neo4j as io_neo4j

    drv = FakeDriver(FakeDB())
    for k, v in {"NEO4J_URI": "bolt://fake:7687", "NEO4J_USER": "neo4j",
                 "NEO4J_PASSWORD": "s3cret-pw"}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(io_neo4j, "connect", lambda settings, verify=True: drv)
    return drv


@contextlib.contextmanager
def threads_and(threads: int, *patches: tuple[Any, str, Any]) -> Iterator[None]:
    """``GRAPHANON_THREADS=threads`` and the ``(module, attribute, value)`` patches for the
    block, undone after it (for hypothesis tests, which take no function fixtures)."""
    saved = [(m, a, getattr(m, a)) for m, a, _ in patches]
    env = os.environ.get("GRAPHANON_THREADS")
    for m, a, v in patches:
        setattr(m, a, v)
    os.environ["GRAPHANON_THREADS"] = str(threads)
    try:
        yield
    finally:
        for m, a, v in saved:
            setattr(m, a, v)
        if env is None:
            del os.environ["GRAPHANON_THREADS"]
        else:
            os.environ["GRAPHANON_THREADS"] = env


def check_invariants(G: Any) -> None:
    """A :class:`graphanon.Graph`'s CSR is well formed: sorted rows, no loops, symmetric."""
    import numpy as np

    n = G.n_nodes
    assert G.indptr[0] == 0 and G.indptr[-1] == G.indices.size
    rows = np.repeat(np.arange(n), G.degrees)
    cols = G.indices.astype(np.int64)
    assert not np.any(rows == cols), "self-loop"
    for i in range(n):
        nb = G.neighbors(i)
        assert np.all(np.diff(nb) > 0), "row not strictly sorted"
    fwd = set(zip(rows.tolist(), cols.tolist(), strict=True))
    assert fwd == {(b, a) for a, b in fwd}, "not symmetric"
    assert G.degrees.sum() == 2 * G.n_edges
