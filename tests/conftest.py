"""Shared fixtures: paths to the shipped and shared datasets."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    """The ../shared/datasets folder; tests that need it skip when it is absent."""
    if not SHARED.exists():
        pytest.skip(f"shared datasets not found at {SHARED}")
    return SHARED


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
