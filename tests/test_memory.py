"""graphanon._memory: the memory this process may use, and refusing work that would not fit."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphanon import _memory
from graphanon._memory import (
    ENV_VAR,
    available_memory,
    format_bytes,
    parse_size,
    require_memory,
)
from graphanon.errors import GraphAnonError, InvalidParameterError


@pytest.mark.parametrize(("text", "expected"), [
    ("4GiB", 4 * 2**30), ("4G", 4 * 2**30), ("4gb", 4 * 2**30), ("512 MB", 512 * 2**20),
    ("1.5k", 1536), ("1e9", 10**9), ("123456", 123456), (7, 7),
])
def test_parse_size(text: str | int, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["", "abc", "-1G", "0", "4 parsecs", 0, -5, True, 1.5])
def test_parse_size_rejects(bad: object) -> None:
    with pytest.raises(InvalidParameterError, match=ENV_VAR):
        parse_size(bad)  # type: ignore[arg-type]


def test_format_bytes() -> None:
    assert format_bytes(300) == "300 B"
    assert format_bytes(1536) == "1.5 KiB"
    assert format_bytes(3 * 2**30) == "3.0 GiB"


def test_env_override_and_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "64MiB")
    assert available_memory() == 64 * 2**20
    monkeypatch.setenv(ENV_VAR, "unlimited")
    assert available_memory() is None
    require_memory(10**18, what="anything", parameter="nothing")  # checks are off
    monkeypatch.setenv(ENV_VAR, "lots")
    with pytest.raises(InvalidParameterError, match=ENV_VAR):
        available_memory()


def test_detection_takes_the_smaller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setattr(_memory, "_meminfo_available", lambda: 8 * 2**30)
    monkeypatch.setattr(_memory, "_cgroup_headroom", lambda: 3 * 2**30)
    assert available_memory() == 3 * 2**30
    monkeypatch.setattr(_memory, "_cgroup_headroom", lambda: None)
    assert available_memory() == 8 * 2**30
    monkeypatch.setattr(_memory, "_meminfo_available", lambda: None)
    assert available_memory() is None


def test_real_machine_reports_something() -> None:
    # Linux CI: /proc/meminfo exists, so some positive amount is known
    value = _memory._meminfo_available()
    if Path("/proc/meminfo").exists():
        assert value is not None and value > 0


def test_meminfo_parsing(tmp_path: Path) -> None:
    p = tmp_path / "meminfo"
    p.write_text("MemTotal:       16000000 kB\nMemFree: 100 kB\nMemAvailable:    2048 kB\n")
    assert _memory._meminfo_available(p) == 2048 * 1024
    p.write_text("MemTotal: 1 kB\n")
    assert _memory._meminfo_available(p) is None
    assert _memory._meminfo_available(tmp_path / "missing") is None


def test_cgroup_v2_nested_limits(tmp_path: Path) -> None:
    proc = tmp_path / "cgroup"
    proc.write_text("0::/jobs/me\n")
    root = tmp_path / "fs"
    inner, outer = root / "jobs" / "me", root / "jobs"
    inner.mkdir(parents=True)
    (inner / "memory.max").write_text("max\n")  # no limit here
    (inner / "memory.current").write_text("100\n")
    (outer / "memory.max").write_text(str(4 * 2**30) + "\n")
    (outer / "memory.current").write_text(str(1 * 2**30) + "\n")
    assert _memory._cgroup_headroom(proc, root) == 3 * 2**30
    (inner / "memory.max").write_text(str(2 * 2**30) + "\n")
    assert _memory._cgroup_headroom(proc, root) == 2 * 2**30 - 100


def test_cgroup_v1_and_unlimited(tmp_path: Path) -> None:
    proc = tmp_path / "cgroup"
    proc.write_text("12:cpu,cpuacct:/x\n4:memory:/box\n0::/\n")
    mem = tmp_path / "fs" / "memory" / "box"
    mem.mkdir(parents=True)
    (mem / "memory.limit_in_bytes").write_text(str(2**30))
    (mem / "memory.usage_in_bytes").write_text(str(2**29))
    assert _memory._cgroup_headroom(proc, tmp_path / "fs") == 2**29
    (mem / "memory.limit_in_bytes").write_text("9223372036854771712")  # "no limit"
    assert _memory._cgroup_headroom(proc, tmp_path / "fs") is None
    assert _memory._cgroup_headroom(tmp_path / "absent", tmp_path / "fs") is None


def test_require_memory_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "1MiB")
    require_memory(2**20, what="small work", parameter="nothing much")  # fits exactly
    with pytest.raises(InvalidParameterError) as info:
        require_memory(5 * 2**30, what="generate_2k",
                       parameter="the table's implied 1,000,000,001 nodes")
    msg = str(info.value)
    assert isinstance(info.value, GraphAnonError) and info.value.exit_code == 2
    assert "\n" not in msg
    assert "generate_2k" in msg and "1,000,000,001 nodes" in msg
    assert "5.0 GiB" in msg and "1.0 MiB" in msg and ENV_VAR in msg


def test_small_estimates_skip_the_detection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setattr(_memory, "available_memory", lambda: 1)  # as if nothing were free
    require_memory(_memory.NEGLIGIBLE_BYTES - 1, what="small", parameter="x")
    with pytest.raises(InvalidParameterError, match="big"):
        require_memory(_memory.NEGLIGIBLE_BYTES, what="big", parameter="x")
