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
    # the command as a terminal starts it: the signal at its default disposition (under
    # nohup SIGHUP arrives ignored, and graphanon leaves an ignored signal alone)
    proc = subprocess.Popen([*CLI, "-q", "project", str(src), "--theta", "40", "--out",
                             str(out)], stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
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


@pytest.mark.parametrize("args", [["-q", "info", "{src}"], ["info", "{src}"],
                                  ["dk", "{src}", "--d", "2", "--out", "{out}"]])
def test_a_reader_that_stops_reading_is_a_normal_end(tmp_path: Path, args: list[str]) -> None:
    """`graphanon info g.txt | head -1`: the rest of the output meets a closed pipe; that is
    exit 0 and no message, not exit 1, with or without progress bars (which go to stderr:
    stdout's first line is the result's). A status line that meets the closed pipe does not
    stop a command before its output is written."""
    src, out = tmp_path / "g.txt", tmp_path / "o" / "x.tsv"
    src.write_text("".join(f"{i} {i + 1}\n" for i in range(2000)))
    argv = [a.format(src=src, out=out) for a in args]
    proc = subprocess.Popen([*CLI, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline().decode()
    proc.stdout.close()  # as head -1 does
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "Exception ignored" not in err
    if argv[0] == "dk":
        assert first.startswith(str(out)) and out.exists()
    else:
        assert first.strip() == str(src)


def test_a_signal_during_the_renames_lets_the_run_complete(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """A stop signal while the outputs are renamed into place is deferred: every output
    lands and the run counts as completed (a scheduler must not retry a published run);
    before the renames — during the ledger charge, say — it stops the run with nothing
    published."""
    import os

    from graphanon import _interrupts
    from graphanon.io import _atomic
    from graphanon.io._atomic import atomic_path, output_transaction

    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    real = _atomic._install
    sent: list[int] = []

    def install(tmp: Path, target: Path) -> None:
        if not sent:
            sent.append(1)
            os.kill(os.getpid(), signal.SIGTERM)
        real(tmp, target)

    try:
        for s in saved:
            signal.signal(s, signal.SIG_DFL)
        _interrupts.install()
        monkeypatch.setattr(_atomic, "_install", install)
        with output_transaction():
            for name in ("t.tsv", "r.json"):
                with atomic_path(tmp_path / name) as tmp:
                    tmp.write_text(name)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "t.tsv"]
        assert _interrupts.completed_stop() == signal.SIGTERM
        monkeypatch.setattr(_atomic, "_install", real)
        # before the renames (the ledger hook) the signal stops the run, nothing published
        with pytest.raises(_interrupts.Terminated), output_transaction() as tx:
            with atomic_path(tmp_path / "u.tsv") as tmp:
                tmp.write_text("u")
            tx.before_commit.append(lambda: os.kill(os.getpid(), signal.SIGTERM))
        assert not (tmp_path / "u.tsv").exists()
    finally:
        _interrupts._completed = None
        for s, h in saved.items():
            signal.signal(s, h)


def test_a_failed_job_commit_is_logged_as_a_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The job commits its own transaction before it logs: a rename that fails is
    job_failed, and no sink_written or job_done is logged."""
    import json
    import textwrap

    from graphanon.cli import main
    from graphanon.datasets import load_polbooks
    from graphanon.io import _atomic
    from graphanon.io.files import write_graph

    write_graph(load_polbooks(), tmp_path / "g.txt")
    job = tmp_path / "job.toml"
    job.write_text(textwrap.dedent("""
        [job]
        name = "t"
        release_id = "r"
        [source]
        path = "g.txt"
        [[steps]]
        name = "info"
        [[sinks]]
        type = "file"
        path = "out"
    """))
    real = _atomic._install

    def failing(tmp: Path, target: Path) -> None:
        if target.name == "report.json":
            raise OSError(5, "Input/output error", str(target))
        real(tmp, target)

    monkeypatch.setattr(_atomic, "_install", failing)
    assert main(["run", str(job), "--log-format", "json"]) == 2
    events = [json.loads(x)["event"] for x in capsys.readouterr().err.splitlines()
              if x.startswith("{")]
    assert events[-1] == "job_failed" and "sink_written" not in events
    assert "job_done" not in events
