"""SIGTERM and SIGHUP stop a command as Ctrl-C does: nothing half-written is left behind."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

CLI = [sys.executable, "-c", "from graphanon.cli import main; raise SystemExit(main())"]


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32",
                    reason="POSIX signals")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_terminated_while_writing_leaves_nothing(tmp_path: Path, sig: int) -> None:
    rng = np.random.default_rng(0)
    edges = rng.integers(0, 50_000, size=(400_000, 2))
    src = tmp_path / "g.txt"
    np.savetxt(src, edges, fmt="%d")
    out = tmp_path / "sub" / "deep" / "g.graphml"
    proc = subprocess.Popen([*CLI, "-q", "project", str(src), "--theta", "40", "--out",
                             str(out)], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    # wait until the output's temporary sibling exists: the command is writing
    while proc.poll() is None and time.monotonic() < deadline:
        if out.parent.exists() and any(out.parent.glob(".g.graphml.graphanon-*")):
            break
        time.sleep(0.01)
    if proc.poll() is not None:
        pytest.skip("the command finished before the signal could be sent")
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + sig, err
    assert f"terminated ({signal.Signals(sig).name})" in err and "Traceback" not in err
    assert not (tmp_path / "sub").exists()  # the folders it created are gone, no temporary
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt"]


def test_a_reader_that_stops_reading_is_a_normal_end(tmp_path: Path) -> None:
    """`graphanon info g.txt | head -1`: the rest of the output meets a closed pipe at exit;
    that is exit 0 and no message, not exit 1."""
    src = tmp_path / "g.txt"
    src.write_text("".join(f"{i} {i + 1}\n" for i in range(2000)))
    proc = subprocess.Popen([*CLI, "-q", "info", str(src)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # as head -1 does
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 0, err
    assert "Traceback" not in err and "Exception ignored" not in err
