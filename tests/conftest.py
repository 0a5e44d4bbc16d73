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
