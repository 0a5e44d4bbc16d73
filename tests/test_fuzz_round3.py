"""Hostile input, round 3 (issue 35): each case under the contract of
:func:`test_fuzz_cli.check` (one error line, exit 2, inputs unchanged, no file the failed run
created left behind, locks included)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import test_fuzz_cli
from test_fuzz_cli import NODE_JOB, check

from graphanon.cli import main

work = test_fuzz_cli.work  # the fixture: a folder with a graph, tables and universes

DEEP = 3000  # far deeper than Python's recursion limit
CHILD = [sys.executable, "-c", "from graphanon.cli import main; raise SystemExit(main())"]


# ---------------------------------------------------------------------- nesting
def test_deeply_nested_job_and_suite_files(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "job.toml").write_text("a = " + "[" * DEEP + "]" * DEEP + "\n")
    assert check(["run", str(work / "job.toml")], work, capsys) == 2
    (work / "suite.toml").write_text("x = " + "{a = " * DEEP + "1" + "}" * DEEP + "\n")
    assert check(["evaluate", "--suite", str(work / "suite.toml"), "--out",
                  str(work / "ev")], work, capsys, outputs=("ev",)) == 2
    # 65 levels parse, but are refused all the same (MAX_NESTING)
    (work / "job.toml").write_text("a = " + "[" * 65 + "]" * 65 + "\n")
    assert check(["run", str(work / "job.toml")], work, capsys) == 2


@pytest.mark.parametrize("budget", [[], ["--budget", "3"]])
def test_deeply_nested_ledger(work: Path, budget: list[str],
                              capsys: pytest.CaptureFixture[str]) -> None:
    (work / "l.json").write_text("[" * 100_000 + "]" * 100_000)
    assert check(["release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1",
                  "--max-degree", "10", "--out", str(work / "o.tsv"), "--ledger",
                  str(work / "l.json"), "--dataset", "d", *budget], work, capsys,
                 outputs=("o.tsv",)) == 2
    assert not (work / "l.json.lock").exists()


def test_deeply_nested_report_is_refused_before_connecting(
        work: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    monkeypatch.setenv("NEO4J_PASSWORD", "x")
    (work / "t.tsv").write_text("")
    (work / "deep.json").write_text('{"release": ' + "[" * DEEP + "]" * DEEP + "}")
    assert check(["neo4j", "write-release", "--table", str(work / "t.tsv"), "--report",
                  str(work / "deep.json"), "--dataset", "d"], work, capsys) == 2


# ---------------------------------------------------------------------- environment, streams
def test_environment_variable_that_is_not_utf8(work: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHANON_FINGERPRINT_KEY", "a\udced\udca0\udc80b")
    assert check(["release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1",
                  "--max-degree", "10", "--out", str(work / "o.tsv")], work, capsys,
                 outputs=("o.tsv",)) == 2


@pytest.mark.parametrize("quiet", [True, False])
def test_closed_stdout(work: Path, quiet: bool) -> None:
    """``graphanon project ... >&-``: the run completes, its chatter is dropped, and the file
    it writes does not take descriptor 1."""
    args = [*CHILD, *(["-q"] if quiet else []), "project", str(work / "g.txt"), "--theta",
            "3", "--out", str(work / "p.txt")]
    done = subprocess.run(args, stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.close(1))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert (work / "p.txt").read_text().startswith("# graphanon edge list")
    # the data itself cannot go to a closed stdout: refused, not dropped
    done = subprocess.run([*args[:-1], "/dev/stdout"], stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.close(1))
    assert done.returncode == 2 and "cannot write '/dev/stdout'" in done.stderr, done.stderr


# ---------------------------------------------------------------------- igraph's writer
def test_graphml_sink_on_a_full_disk(work: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """igraph reports a failed write as ``InternalError: ... Write failed`` (no errno): the
    job fails like every other writer, one line, exit 2, nothing in place."""
    from graphanon._igraph import load

    igraph = load()

    def full(self: object, path: str, *args: object, **kwargs: object) -> None:
        Path(path).write_text("<?xml")
        raise igraph.InternalError(
            "Error at src/io/graphml.c:2001: Write failed. -- File operation error")

    class Full:
        f_bavail = 0

    monkeypatch.setattr(igraph.Graph, "write_graphml", full)
    monkeypatch.setattr("graphanon.io.files.os.statvfs", lambda path: Full())
    (work / "job.toml").write_text(
        '[job]\nrelease_id = "r1"\n[source]\npath = "g.txt"\n[[steps]]\nname = "info"\n'
        '[[sinks]]\ntype = "file"\npath = "out"\n')
    assert check(["run", str(work / "job.toml")], work, capsys, outputs=("out",)) == 2
    assert not list(work.glob(".*.lock"))


# ---------------------------------------------------------------------- stop signals
def test_stop_signal_inside_numba_is_delivered_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A SIGTERM that arrives while numba compiles (Python code called back from C, which
    drops or garbles the exception) is sent again a moment later instead of raised there."""
    import threading

    from graphanon import _interrupts

    sent: list[tuple[object, ...]] = []

    class Timer:
        def __init__(self, delay: float, fn: object, args: tuple[object, ...]) -> None:
            sent.append((delay, fn, args))

        def start(self) -> None:
            pass

    monkeypatch.setattr(threading, "Timer", Timer)
    namespace: dict[str, object] = {}
    exec(compile("import sys\nframe = sys._getframe()", os.path.join(
        os.sep, "site-packages", "numba", "core", "compiler.py"), "exec"), namespace)
    try:
        _interrupts.on_signal(15, namespace["frame"])
    except _interrupts.Terminated:
        pytest.fail("the stop was raised inside numba's compiler")
    assert sent == [(_interrupts.REDELIVER_S, os.kill, (os.getpid(), 15))]
    with pytest.raises(_interrupts.Terminated):
        _interrupts.on_signal(15, sys._getframe())


def test_stop_signal_wrapped_in_system_error(work: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """``SystemError: CPUDispatcher(...) returned a result with an exception set`` raised
    from a SIGTERM exits 143, as the SIGTERM itself does."""
    from graphanon._interrupts import Terminated

    def dispatcher(*args: object, **kwargs: object) -> None:
        try:
            raise Terminated(15)
        except Terminated as exc:
            raise SystemError("CPUDispatcher(<function meyerson>) returned a result with an "
                              "exception set") from exc

    monkeypatch.setattr("graphanon.io.files.read_graph", dispatcher)
    assert main(["-q", "info", str(work / "g.txt")]) == 143
    err = capsys.readouterr().err
    assert err.strip() == "graphanon: terminated (SIGTERM)", err


# ---------------------------------------------------------------------- lock files
@pytest.mark.parametrize("ledger", ["/dev/null", "fifo", "job.toml", "g.txt"])
def test_refused_ledgers_leave_no_lock(work: Path, ledger: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A ledger that is a device, a FIFO, the job file itself or the job's input: refused,
    and no ``NAME.lock`` made beside it (``/dev/null.lock`` included)."""
    os.mkfifo(work / "fifo")
    path = ledger if ledger.startswith("/") else str(work / ledger)
    (work / "job.toml").write_text(NODE_JOB.format(
        job=f'ledger = "{path}"\nbudget = 5.0\ndataset = "d"', sink="out", more=""))
    assert check(["run", str(work / "job.toml")], work, capsys, outputs=("out",)) == 2
    assert check(["release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1",
                  "--max-degree", "10", "--out", str(work / "o.tsv"), "--ledger", path,
                  "--dataset", "d", "--budget", "5"], work, capsys, outputs=("o.tsv",)) == 2
    assert not Path(path + ".lock").exists()


def test_a_removed_lock_file_is_not_held_twice(tmp_path: Path) -> None:
    """The holder removes the lock file while another process waits on it: the waiter finds
    the path no longer names the file it locked and locks the new one (two holders never
    think they hold one lock)."""
    import threading

    from graphanon._locks import lock_file

    lock = tmp_path / "x.lock"
    inside, release, done = threading.Event(), threading.Event(), threading.Event()
    seen: list[int] = []

    def second() -> None:
        inside.wait()
        with lock_file(lock) as fd:
            seen.append(os.fstat(fd).st_ino)
            seen.append(os.stat(lock).st_ino)
        done.set()

    t = threading.Thread(target=second)
    t.start()
    with lock_file(lock):
        inside.set()
        release.wait(0.2)  # let the other thread open the file and block on it
    done.wait()
    t.join()
    assert seen[0] == seen[1]  # it holds the file the path names
    assert not lock.exists()  # and removed it in turn


def test_job_lock_is_removed_after_every_run(work: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (work / "job.toml").write_text(
        '[job]\nrelease_id = "r1"\n[source]\npath = "g.txt"\n[[steps]]\nname = "info"\n'
        '[[sinks]]\ntype = "file"\npath = "out"\n')
    assert check(["run", str(work / "job.toml")], work, capsys) == 0
    assert not list(work.glob(".*.lock")) and (work / "out").is_dir()


# ---------------------------------------------------------------------- ids kept exactly
@pytest.mark.parametrize("lines,out", [
    ("1234567890123456789 1\n1 2\n", "o.graphml"),
    ("9007199254740993 9007199254740992\n1 2\n", "o.gml"),
])
def test_ids_a_format_would_change_are_refused(work: Path, lines: str, out: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (work / "big.txt").write_text(lines)
    assert check(["project", str(work / "big.txt"), "--theta", "3", "--out", str(work / out)],
                 work, capsys, outputs=(out,)) == 2


def test_gml_refuses_a_nul_in_an_id(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "nul.csv").write_bytes(b"source,target\n\"e\x00f\",b\nb,c\n")
    assert check(["project", str(work / "nul.csv"), "--theta", "3", "--out",
                  str(work / "o.gml")], work, capsys, outputs=("o.gml",)) == 2


# ---------------------------------------------------------------------- nodes kept or warned
def test_isolated_nodes_an_edge_list_cannot_hold_are_warned(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``generate`` from a 1K table with degree-0 nodes, ``project`` leaving nodes without
    edges: the edge list reads back with fewer nodes, and the run says so."""
    (work / "t1.tsv").write_text("# graphanon dK table: kind=degree\ndegree1\tcount\n0\t5\n"
                                 "1\t2\n")
    assert main(["-q", "generate", str(work / "t1.tsv"), "--d", "1", "--out",
                 str(work / "gen.txt")]) == 0
    err = capsys.readouterr().err
    assert "5 of the 7 nodes have no edge" in err and "reads back with 2 nodes" in err, err
    assert main(["-q", "generate", str(work / "t1.tsv"), "--d", "1", "--out",
                 str(work / "gen.parquet")]) == 0
    assert capsys.readouterr().err == ""  # Parquet keeps them
    (work / "star.txt").write_text("1 2\n1 3\n1 4\n1 5\n")
    assert main(["-q", "project", str(work / "star.txt"), "--theta", "1", "--out",
                 str(work / "p.txt")]) == 0
    assert "have no edge" in capsys.readouterr().err
    # a failed run prints its one error line only, never the warning
    assert check(["generate", str(work / "t1.tsv"), "--d", "1", "--out", str(work / "x.txt"),
                  "--report", "/dev/full"], work, capsys, outputs=("x.txt",)) == 2


def test_graphml_hyperedges_are_refused(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "h.graphml").write_text(
        '<?xml version="1.0"?><graphml><graph edgedefault="undirected"><node id="a"/>'
        '<node id="b"/><node id="c"/><edge source="a" target="b"/><hyperedge>'
        '<endpoint node="a"/><endpoint node="b"/><endpoint node="c"/></hyperedge></graph>'
        '</graphml>')
    assert check(["info", str(work / "h.graphml")], work, capsys) == 2


# ---------------------------------------------------------------------- budget and delivery
def _charged(ledger: Path) -> list[float]:
    import json

    if not ledger.exists():
        return []
    data = json.loads(ledger.read_text())
    return [e["epsilon"] for ds in data["datasets"].values() for e in ds["entries"]]


def test_observed_domain_with_a_ledger_is_refused_before_computing(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check(["release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1",
                  "--max-degree", "10", "--domain", "observed", "--out", str(work / "o.tsv"),
                  "--ledger", str(work / "L.json"), "--dataset", "d", "--budget", "3"], work,
                 capsys, outputs=("o.tsv",)) == 2
    assert not (work / "L.json").exists()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("option", ["--out", "--report"])
def test_a_full_device_after_the_charge_says_so(work: Path, option: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    other = "--report" if option == "--out" else "--out"
    code = main(["-q", "release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1",
                 "--max-degree", "10", option, "/dev/full", other, str(work / "x.out"),
                 "--ledger", str(work / "L.json"), "--dataset", "d", "--budget", "3"])
    lines = capsys.readouterr().err.splitlines()
    # the charge created the ledger (said as it happened), then the output failed: one error
    assert code == 2 and [ln for ln in lines if "error" in ln] == lines[-1:], lines
    assert "No space left on device" in lines[-1] and "ε stays spent" in lines[-1], lines
    assert _charged(work / "L.json") == [1.0] and not (work / "x.out").exists()


def test_a_pipe_is_opened_before_the_charge(work: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A FIFO whose reader never comes: the run waits for it before charging, so a SIGTERM
    there (simulated where the open would block) costs no ε."""
    from graphanon._interrupts import Terminated
    from graphanon.io import _atomic

    os.mkfifo(work / "fifo")
    seen: list[list[float]] = []

    def never_read(target: Path) -> object:
        seen.append(_charged(work / "L.json"))
        raise Terminated(15)

    monkeypatch.setattr(_atomic, "_open_in_place", never_read)
    assert main(["-q", "release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1",
                 "--max-degree", "10", "--out", str(work / "fifo"), "--ledger",
                 str(work / "L.json"), "--dataset", "d", "--budget", "3"]) == 143
    assert seen == [[]] and _charged(work / "L.json") == []
    capsys.readouterr()


# ---------------------------------------------------------------------- the README's options
def test_folder_outputs_may_end_in_a_separator(work: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """``--out results/`` of a command whose --out is a folder (demo, evaluate) names that
    folder: it is not refused as "names a folder; name a file"."""
    assert main(["-q", "evaluate", "--suite", str(work / "none.toml"), "--out",
                 str(work / "eval") + "/"]) == 2
    err = capsys.readouterr().err
    assert "none.toml" in err and "name a file" not in err, err


def test_seed_help_agrees_with_behaviour(work: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """randomized-response refuses --seed with its default (secure) noise, and its help says
    so; release-dk takes it for sampling and post-processing, and its help says that."""
    from click.testing import CliRunner

    from graphanon.cli import cli

    def seed_help(command: str) -> str:
        text = CliRunner().invoke(cli, [command, "--help"], terminal_width=200).output
        return " ".join(text.split("--seed INTEGER", 1)[1].split("\n  -", 1)[0].split())

    assert "refused with the default opendp noise" in seed_help("randomized-response")
    assert main(["-q", "randomized-response", str(work / "b.tsv"), "--epsilon", "1",
                 "--users", str(work / "users.txt"), "--features", str(work / "features.txt"),
                 "--seed", "1", "--out", str(work / "rr.tsv"), "--report",
                 str(work / "rr.json")]) == 2
    assert "'--seed' option only applies" in capsys.readouterr().err
    assert "sampling and post-processing" in seed_help("release-dk")
    assert main(["-q", "release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1",
                 "--max-degree", "10", "--seed", "1", "--out", str(work / "r.tsv")]) == 0


# ---------------------------------------------------------------------- neo4j, before connecting
def test_neo4j_budget_totals_are_checked_before_connecting(
        work: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing listens on port 1: a connection attempt would exit 4."""
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    monkeypatch.setenv("NEO4J_PASSWORD", "x")
    assert main(["-q", "release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1",
                 "--max-degree", "10", "--out", str(work / "t.tsv"), "--report",
                 str(work / "dp.json")]) == 0
    for total in ("0", "-0", "nan"):
        assert check(["neo4j", "budget", "books", "--epsilon-total", total], work, capsys) == 2
        assert check(["neo4j", "write-release", "--table", str(work / "t.tsv"), "--report",
                      str(work / "dp.json"), "--dataset", "books", "--budget-total", total],
                     work, capsys) == 2


def test_a_lock_that_cannot_be_created_is_one_line(
        work: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder that takes no new file (immutable, read-only): one line naming the lock."""
    import errno
    from contextlib import contextmanager

    @contextmanager
    def immutable(path: Path, **kwargs: object):  # type: ignore[no-untyped-def]
        raise PermissionError(errno.EPERM, "Operation not permitted", str(path))
        yield

    monkeypatch.setattr("graphanon._locks.lock_file", immutable)
    (work / "job.toml").write_text(NODE_JOB.format(job="", sink="out", more=""))
    assert check(["run", str(work / "job.toml")], work, capsys, outputs=("out",)) == 2
    assert check(["release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1",
                  "--max-degree", "10", "--out", str(work / "o.tsv"), "--ledger",
                  str(work / "L.json"), "--dataset", "d", "--budget", "3"], work, capsys,
                 outputs=("o.tsv",)) == 2


# ---------------------------------------------------------------------- left-over files
@pytest.mark.parametrize("args", [
    ["release-dk", "{w}/missing.txt", "--d", "1", "--epsilon", "1", "--max-degree", "10"],
    ["release-dk", "{w}/b.tsv", "--d", "1", "--epsilon", "1", "--max-degree", "10"],
    ["release-dk", "{w}/g.txt", "--d", "1", "--epsilon", "5", "--max-degree", "10"],  # > budget
    ["release-dk", "{w}/g.txt", "--d", "1", "--epsilon", "1", "--max-degree", "10",
     "--budget-neighbourhood", "node"],  # an edge release against a node budget
    ["randomized-response", "{w}/b.tsv", "--epsilon", "1", "--users", "{w}/users.txt",
     "--features", "{w}/nodes.txt", "--report", "{w}/rr.json"],
])
def test_a_refused_run_leaves_no_new_ledger(work: Path, args: list[str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A ledger that did not exist is created when it is opened; a run that then fails or is
    refused removes it again, lock included (check: no file the run created remains)."""
    argv = [a.format(w=str(work)) for a in args]
    code = check([*argv, "--out", str(work / "o.tsv"), "--ledger", str(work / "new.json"),
                  "--dataset", "d", "--budget", "3"], work, capsys, allowed=(2, 3),
                 outputs=("o.tsv",))
    assert code in (2, 3)
    assert not (work / "new.json").exists() and not (work / "new.json.lock").exists()


# ---------------------------------------------------------------------- messages
def test_edges_listed_both_ways_are_explained(work: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """SNAP lists each undirected edge both ways: "duplicate edges dropped 3" says why."""
    (work / "snap.txt").write_text("1 2\n2 1\n2 3\n3 2\n3 1\n1 3\n")
    assert main(["-q", "info", str(work / "snap.txt")]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "duplicate edges dropped" in ln)
    assert "3 (one per edge" in line and "both directions" in line, line
    (work / "dup.txt").write_text("1 2\n1 2\n2 3\n3 1\n")
    assert main(["-q", "info", str(work / "dup.txt")]) == 0
    assert "both directions" not in capsys.readouterr().out


def test_a_dangling_link_as_lock_file_is_an_error(tmp_path: Path) -> None:
    from graphanon._locks import lock_file

    (tmp_path / "x.lock").symlink_to(tmp_path / "nowhere" / "x")
    with pytest.raises(OSError), lock_file(tmp_path / "x.lock"):
        pass


def test_a_refused_job_leaves_no_new_ledger(work: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (work / "job.toml").write_text(NODE_JOB.format(
        job='ledger = "new.json"\nbudget = 0.5\ndataset = "d"', sink="out", more=""))
    assert check(["run", str(work / "job.toml")], work, capsys, allowed=(3,),
                 outputs=("out",)) == 3
    assert not (work / "new.json").exists() and not (work / "new.json.lock").exists()


# ---------------------------------------------------------------------- 3K size, said first
def test_the_3k_row_bound_holds_and_is_said_first(work: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    import numpy as np

    from graphanon.datasets import load_polbooks
    from graphanon.dk.extract import three_k_distribution, three_k_rows_bound
    from graphanon.graph import Graph

    rng = np.random.default_rng(5)
    graphs = [load_polbooks(), Graph.from_edges([], [], n_nodes=3)]
    for n, m in ((10, 20), (50, 300), (200, 400)):
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
        keep = u != v
        graphs.append(Graph.from_edges(u[keep], v[keep], n_nodes=n))
    for G in graphs:
        assert three_k_distribution(G).n_tuples <= three_k_rows_bound(G)
    assert main(["dk", str(work / "g.txt"), "--d", "3", "--out", str(work / "t3.tsv")]) == 0
    out = capsys.readouterr().out
    assert out.index("at most") < out.index("distinct 3K tuples"), out
