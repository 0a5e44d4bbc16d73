"""Hostile input against every command: nothing crashes, nothing is destroyed, nothing is
half-written (issue 14).

Every case runs a command in-process and asserts the contract of the CLI:

* the exit code is 0, 2, or a documented 3 / 4;
* a failure prints exactly one line on stderr, ``graphanon: error: ...``, and no traceback;
  on success every stderr line is a ``graphanon:`` warning or note;
* every input is unchanged (same bytes);
* no temporary file (``.NAME.graphanon-*.tmp``, probes, staging folders) is left behind, and
  a failed command leaves none of its outputs;
* a failed or refused command leaves no file or folder it created, lock files included
  (issue 35).
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import json
import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.cli import main
from graphanon.datasets import data_path, load_adult_sample, load_polbooks
from graphanon.io.files import write_bipartite, write_graph


# ---------------------------------------------------------------------- the contract
def _digest(paths: list[Path]) -> dict[Path, str]:
    out = {}
    for p in paths:
        if p.is_file():
            out[p] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _leftovers(root: Path) -> list[Path]:
    return [p for p in root.rglob("*")
            if ".graphanon-" in p.name or p.name.endswith(".tmp") or ".staging-" in p.name]


def check(args: list[str], root: Path, capsys: pytest.CaptureFixture[str], *,
          outputs: tuple[str, ...] = (), allowed: tuple[int, ...] = (0, 2)) -> int:
    """Run ``graphanon -q ARGS`` under the contract above; return its exit code."""
    inputs = [root / a for a in os.listdir(root)]
    before = _digest(inputs)
    existed = set(root.rglob("*"))
    code = main(["-q", *args])
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code in allowed, (args, code, err)
    assert "Traceback" not in err, err
    if code != 0:
        assert len(lines) == 1 and lines[0].startswith("graphanon: error:"), (args, err)
        for o in outputs:
            assert not (root / o).exists(), (args, o)
        created = sorted(set(root.rglob("*")) - existed)
        assert created == [], (args, created)
    else:
        assert all(ln.startswith("graphanon: ") for ln in lines), err
    assert _digest(list(before)) == before, f"an input changed: {args}"
    assert _leftovers(root) == [], _leftovers(root)
    return code


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A folder with a valid graph, bipartite list, universes, preferences and a table."""
    G = load_polbooks()
    write_graph(G, tmp_path / "g.txt")
    B = load_adult_sample()
    write_bipartite(B, tmp_path / "b.tsv")
    (tmp_path / "nodes.txt").write_text("".join(f"{x}\n" for x in G.node_ids))
    (tmp_path / "users.txt").write_text("".join(f"{u}\n" for u in B.user_ids))
    (tmp_path / "features.txt").write_text("".join(f"{f}\n" for f in B.feature_ids))
    (tmp_path / "prefs.tsv").write_text("".join(f"{x}\t0.5\n" for x in G.node_ids))
    (tmp_path / "table.csv").write_bytes(data_path("adult_sample.csv").read_bytes())
    return tmp_path


# ---------------------------------------------------------------------- hostile files
HOSTILE = {
    "empty.txt": b"",
    "comments.txt": b"# only a comment\n# and another\n",
    "binary.txt": bytes(range(256)) * 4,
    "truncated.txt.gz": gzip.compress(b"1 2\n2 3\n" * 100)[:40],
    "crlf.txt": b"1 2\r\n2 3\r\n3 1\r\n",
    "unicode.txt": "α β\nβ γ\nγ α\n".encode(),
    "huge_ids.txt": b"99999999999999999999999 1\n1 2\n",
    "one_field.txt": b"1 2\n3\n",
    "ragged.tsv": b"source\ttarget\n1\t2\n3\n",
    "empty_target.csv": b"source,target\n1,2\n2,\n",
    "quoted.csv": b'source,target\n"a""b",c\n"x,y",z\n',
    "three_cols.tsv": b"u1\tf1\nu2\tf2\tf3\n",
    "latin1.txt": "é è\n".encode("latin-1"),
    "nul.txt": b"1\x002 3\n",
    "not_mat.mat": b"MATLAB 5.0 MAT-file, garbage",
    "not_parquet.parquet": b"PAR1 not really",
    "bad.graphml": b"<graphml><graph><node id='a'/><edge source='a' target='zz'",
    "lol.graphml": (b'<?xml version="1.0"?>\n<!DOCTYPE g [<!ENTITY a "aaaaaaaaaa">'
                    b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n<graphml><graph>'
                    b'<node id="&b;"/></graph></graphml>'),
    "xxe.graphml": (b'<?xml version="1.0"?>\n<!DOCTYPE g [<!ENTITY x SYSTEM "/etc/passwd">]>'
                    b'\n<graphml><graph><node id="&x;"/></graph></graphml>'),
    "selfloops.txt": b"1 1\n1 2\n2 1\n2 2\n",
    "dup_header.csv": b"source,target,source\n1,2,3\n",
    "latin1_id.csv": b"source,target\n0,1\n1,\xff\xfe\n",
}

READ_COMMANDS = [
    ["info", "{f}"],
    ["info", "--bipartite", "{f}"],
    ["dk", "{f}", "--d", "2", "--out", "{o}/t.tsv"],
    ["dk", "{f}", "--d", "3", "--out", "{o}/t.tsv"],
    ["project", "{f}", "--theta", "3", "--out", "{o}/p.txt"],
    ["release-dk", "{f}", "--d", "1", "--epsilon", "1", "--max-degree", "10", "--out",
     "{o}/r.tsv", "--report", "{o}/r.json"],
    ["release-dk", "{f}", "--d", "2", "--epsilon", "1", "--neighbourhood", "node", "--theta", "4",
     "--out", "{o}/r.tsv"],
    ["release-degrees", "{f}", "--epsilon", "1", "--max-nodes", "50", "--out", "{o}/d.tsv"],
    ["smooth-k", "{f}", "--k", "2", "--out", "{o}/s.tsv", "--report", "{o}/s.json"],
    ["mondrian", "{f}", "--k", "2", "--out", "{o}/m.tsv", "--report", "{o}/m.json"],
    ["randomized-response", "{f}", "--epsilon", "1", "--users", "{w}/users.txt",
     "--features", "{w}/features.txt", "--out", "{o}/rr.tsv", "--report", "{o}/rr.json"],
    ["generate", "{f}", "--d", "2", "--out", "{o}/g.txt"],
]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_files_through_every_reader(work: Path, name: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (work / name).write_bytes(HOSTILE[name])
    out = work / "out"
    for template in READ_COMMANDS:
        args = [a.format(f=str(work / name), o=str(out), w=str(work)) for a in template]
        outs = tuple(str(Path(a).relative_to(work)) for a in args if a.startswith(str(out)))
        check(args, work, capsys, outputs=outs)


def test_non_regular_inputs(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = work / "pipe.txt"
    os.mkfifo(fifo)
    # a writer that opens the pipe a moment later: waited for, as by every Unix reader (its
    # data must not be lost to an empty read)
    def writer() -> None:
        time.sleep(0.3)
        with open(fifo, "wb") as fh:
            fh.write(b"1 2\n2 3\n")

    t = threading.Thread(target=writer)
    t.start()
    assert main(["-q", "info", "--json", str(fifo)]) == 0
    t.join()
    assert json.loads(capsys.readouterr().out)["edges"] == 2
    for dev in ("/dev/zero", "/dev/null"):
        assert check(["info", dev, "--format", "edgelist"], work, capsys) == 2
    assert check(["info", str(work)], work, capsys) == 2  # a folder
    loop = work / "loop.txt"
    loop.symlink_to(loop)
    assert check(["info", str(loop)], work, capsys) == 2


def test_inputs_are_bounded(work: Path, capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHANON_MAX_INPUT_BYTES", "1000")
    bomb = work / "bomb.txt.gz"
    bomb.write_bytes(gzip.compress(b"1 2\n" * 100_000))  # 400 kB from 1 kB
    assert bomb.stat().st_size < 1000
    assert check(["info", str(bomb)], work, capsys) == 2
    assert check(["info", str(work / "g.txt")], work, capsys) == 2


# ---------------------------------------------------------------------- hostile parameters
PARAMETERS = [
    ["release-dk", "{g}", "--d", "1", "--epsilon", "nan", "--max-degree", "5"],
    ["release-dk", "{g}", "--d", "1", "--epsilon", "inf", "--max-degree", "5"],
    ["release-dk", "{g}", "--d", "1", "--epsilon", "-1", "--max-degree", "5"],
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1e-300", "--max-degree", "5"],
    ["release-dk", "{g}", "--d", "2", "--epsilon", "1", "--max-degree", "9999999999"],
    ["release-dk", "{g}", "--d", "2", "--epsilon", "1", "--max-degree", "1000000000000000"],
    ["release-dk", "{g}", "--d", "2", "--epsilon", "1", "--max-degree", "1000000000"],
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1", "--max-degree", "1000000000"],
    ["release-dk", "{g}", "--d", "2", "--epsilon", "1", "--max-degree", "25",
     "--microaggregation", "mpdc", "--tau", "0"],
    ["release-dk", "{g}", "--d", "2", "--epsilon", "1", "--max-degree", "25",
     "--microaggregation", "mdav", "--k", "100000"],
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1"],  # no bound, no universe
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1", "--nodes", "{w}/missing.txt"],
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1", "--nodes", "{w}/features.txt"],
    ["release-dk", "{g}", "--d", "2", "--epsilon", "1", "--neighbourhood", "node", "--theta", "0"],
    ["release-dk", "{g}", "--d", "2", "--epsilon", "1", "--neighbourhood", "node", "--theta",
     "10000000000"],
    ["release-degrees", "{g}", "--epsilon", "1", "--method", "hay"],
    ["release-personalized", "{g}", "--d", "1", "--neighbourhood", "edge", "--method", "ag",
     "--prefs", "{w}/prefs.tsv", "--nodes", "{w}/nodes.txt", "--k", "100000", "--theta", "5"],
    ["smooth-k", "{b}", "--k", "1000000"],
    ["smooth-k", "{b}", "--k", "1"],
    ["smooth-k", "{b}", "--k", "3", "--alpha", "nan"],
    ["smooth-k", "{b}", "--k", "3", "--restarts", "1000000000000000000000000000000"],
    ["mondrian", "{b}", "--k", "0"],
    ["randomized-response", "{b}", "--epsilon", "1"],  # no universe
    ["randomized-response", "{b}", "--epsilon", "1", "--users", "{w}/users.txt",
     "--features", "{w}/nodes.txt"],  # a universe that misses features
    ["b-anonymize", "{b}", "--delta", "100000"],
    ["b-anonymize", "{b}", "--delta", "0"],
    ["generate", "{w}/prefs.tsv", "--d", "2"],
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1", "--max-degree", "5", "--ledger",
     "{w}/l.json"],  # no --dataset
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1", "--max-degree", "5", "--ledger",
     "{w}/l.json", "--dataset", "0123456789abcdef0123456789abcdef", "--budget", "1"],
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1", "--max-degree", "5", "--budget", "1"],
    # text a float cannot hold is not read as ε = 0 or ε = inf
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1e-400", "--max-degree", "5"],
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1e400", "--max-degree", "5"],
    # options that do not apply to the rest of the command are refused, never ignored
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1", "--neighbourhood", "node", "--theta", "5",
     "--select-fraction", "0.5"],
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1", "--neighbourhood", "node", "--theta", ""],
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1", "--max-degree", "5",
     "--select-fraction", "0.5"],
    ["release-dk", "{g}", "--d", "1", "--epsilon", "1", "--max-degree", "5",
     "--projection", "ser"],
    ["release-personalized", "{g}", "--d", "1", "--neighbourhood", "edge", "--method", "min",
     "--prefs", "{w}/prefs.tsv", "--nodes", "{w}/nodes.txt", "--k", "3", "--theta", "5"],
    ["release-personalized", "{g}", "--d", "1", "--neighbourhood", "edge", "--method", "ll",
     "--prefs", "{w}/prefs.tsv", "--nodes", "{w}/nodes.txt", "--mu", "0.5", "--theta", "5"],
    ["bipartite-from-table", "{w}/table.csv", "--preset", "adult", "--columns", "age"],
    ["bipartite-from-table", "{w}/table.csv", "--split", "Nope=;"],
    ["info", "{w}/table.csv", "--bipartite", "--preset", "adult"],
    ["info", "{b}", "--bipartite", "--format", "tsv"],
    # outputs whose format cannot be told or written: refused before the work
    ["project", "{g}", "--theta", "3", "--out", "{w}/o/p"],
    ["project", "{g}", "--theta", "3", "--out", "{w}/o/p.mat"],
    ["b-anonymize", "{b}", "--delta", "3", "--delta-max", "5"],
    ["b-anonymize", "{b}", "--delta", "3", "--method", "k-anonymity", "--candidates", "5"],
]


@pytest.mark.parametrize("i", range(len(PARAMETERS)))
def test_hostile_parameters(work: Path, i: int, capsys: pytest.CaptureFixture[str]) -> None:
    args = [a.format(g=str(work / "g.txt"), b=str(work / "b.tsv"), w=str(work))
            for a in PARAMETERS[i]]
    needs_out = args[0] in ("release-dk", "release-degrees", "release-personalized",
                            "generate", "b-anonymize", "smooth-k", "mondrian",
                            "randomized-response", "bipartite-from-table")
    outs: tuple[str, ...] = ()
    if needs_out:
        args += ["--out", str(work / "o" / "x.tsv")]
        outs = ("o/x.tsv",)
        if args[0] in ("smooth-k", "mondrian", "randomized-response", "b-anonymize"):
            args += ["--report", str(work / "o" / "x.json")]
            outs += ("o/x.json",)
    assert check(args, work, capsys, outputs=outs) == 2


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(eps=st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                     st.sampled_from(["1e309", "-0", "0x10", "", " ", "1,5"])),
       bound=st.one_of(st.integers(-5, 10**12), st.sampled_from(["x", "", "1.5"])))
def test_random_epsilon_and_bound(work: Path, capsys: pytest.CaptureFixture[str],
                                  eps: object, bound: object) -> None:
    check(["release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", str(eps),
           "--max-degree", str(bound), "--out", str(work / "o" / "x.tsv")], work, capsys,
          outputs=("o/x.tsv",))
    for p in (work / "o").glob("*"):
        p.unlink()


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300))
def test_random_bytes_as_every_input_kind(work: Path, capsys: pytest.CaptureFixture[str],
                                          data: bytes) -> None:
    for name, args in (("x.txt", ["info", "{f}"]), ("x.tsv", ["info", "--bipartite", "{f}"]),
                       ("x.csv", ["info", "{f}"]),
                       ("x.dk.tsv", ["generate", "{f}", "--d", "1", "--out", "{o}"])):
        f = work / name
        f.write_bytes(data)
        out = work / "o" / "g.txt"
        check([a.format(f=str(f), o=str(out)) for a in args], work, capsys,
              outputs=("o/g.txt",))
        f.unlink()
        if out.exists():
            out.unlink()


# ---------------------------------------------------------------------- outputs
def test_outputs_that_are_not_regular_files(work: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    args = ["release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1", "--max-degree",
            "10"]
    assert check([*args, "--out", "/dev/null"], work, capsys) == 0
    assert Path("/dev/null").is_char_device()  # written in place, never renamed over
    if Path("/dev/full").exists():
        assert check([*args, "--out", str(work / "r.tsv"), "--report", "/dev/full"], work,
                     capsys, outputs=("r.tsv",)) == 2
        assert Path("/dev/full").is_char_device()
    (work / "adir").mkdir()
    assert check([*args, "--out", str(work / "adir")], work, capsys) == 2
    assert check([*args, "--out", str(work / "g.txt")], work, capsys) == 2  # its own input
    # a ledger that does not exist yet is not an output either (the table would replace the
    # charge, and the budget with it)
    for out in ("--out", "--report"):
        assert check([*args, out, str(work / "L.json"), "--ledger", str(work / "L.json"),
                      "--dataset", "d", "--budget", "1"], work, capsys, outputs=("L.json",)) == 2
    assert check([*args, "--out", str(work / "a.tsv"), "--report", str(work / "a.tsv")], work,
                 capsys, outputs=("a.tsv",)) == 2
    # a folder that does not exist yet is created (documented), and removed again when the
    # command fails
    assert check([*args, "--out", str(work / "new" / "deep" / "r.tsv")], work, capsys) == 0
    assert check([*args, "--out", str(work / "gone" / "deep" / "r.tsv"), "--report",
                  "/dev/full"], work, capsys) == 2
    assert not (work / "gone").exists()
    # the ledger is never an input, even one that does not exist yet (it would be created,
    # then read as the universe)
    assert check([*args, "--out", str(work / "x.tsv"), "--nodes", str(work / "U.txt"),
                  "--ledger", str(work / "U.txt"), "--dataset", "d", "--budget", "5"], work,
                 capsys) == 2
    assert not (work / "U.txt").exists()
    # a name ending in a separator names a folder; a .gz name would hold plain text
    for folder_like in (f"{work}/results/", f"{work}/results/.", f"{work}/results/sub/.."):
        assert check([*args, "--out", folder_like], work, capsys) == 2
        assert not (work / "results").exists()
    assert check([*args, "--out", str(work / "r.tsv.gz")], work, capsys) == 2
    assert not (work / "r.tsv.gz").exists()


def test_outputs_through_links_and_own_descriptors(work: Path, tmp_path: Path) -> None:
    """A symbolic link is written through (the link stays, its file is replaced); the
    process's own descriptors (``/dev/stdout``, ``/proc/self/fd/1``, a link to one) are
    written through the descriptor, also when it is open on a regular file: never renamed
    over (as root, renaming over ``/dev/stdout`` replaced the machine's link)."""
    import subprocess
    import sys

    (work / "real.tsv").write_text("old\n")
    (work / "link.tsv").symlink_to("real.tsv")
    (work / "fd1").symlink_to("/proc/self/fd/1")
    args = ["release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1", "--max-degree",
            "10", "--noise", "numpy-insecure", "--seed", "1", "--out"]
    assert main(["-q", *args, str(work / "link.tsv")]) == 0
    assert (work / "link.tsv").is_symlink() and (work / "real.tsv").read_text() != "old\n"
    expected = (work / "real.tsv").read_bytes()
    # a folder link then "..": the kernel's path (real/g.txt), never the input g.txt
    (work / "real" / "sub").mkdir(parents=True)
    (work / "a").symlink_to("real/sub")
    before = (work / "g.txt").read_bytes()
    assert main(["-q", *args, str(work / "a" / ".." / "g.txt")]) == 0
    assert (work / "g.txt").read_bytes() == before and (work / "real" / "g.txt").exists()
    own = ["/proc/self/fd/1", str(work / "fd1")]
    if Path("/proc/thread-self/fd").exists():
        own.append("/proc/thread-self/fd/1")
    for out in own:
        with open(tmp_path / "captured", "wb") as fh:  # stdout is a regular file
            done = subprocess.run(
                [sys.executable, "-c", "from graphanon.cli import main; raise SystemExit(main())",
                 "-q", *args, out], stdout=fh, stderr=subprocess.PIPE, text=True)
        assert done.returncode == 0, done.stderr
        assert (tmp_path / "captured").read_bytes() == expected, out
        assert (work / "fd1").is_symlink()
    piped = subprocess.run(
        [sys.executable, "-c", "from graphanon.cli import main; raise SystemExit(main())",
         "-q", *args, str(work / "fd1")], capture_output=True)
    assert piped.returncode == 0 and piped.stdout == expected


def test_full_disk_while_writing_leaves_nothing(work: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A fault-injecting writer: the second file of a command hits ENOSPC."""
    from graphanon.io import _atomic

    real = _atomic.atomic_path
    calls = {"n": 0}

    def failing(path):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path)

    monkeypatch.setattr(_atomic, "atomic_path", failing)
    for mod in ("graphanon.io.files", "graphanon.io.dk_tables", "graphanon.io.formats.bipartite",
                "graphanon.io.formats.parquet"):
        import importlib

        m = importlib.import_module(mod)
        if hasattr(m, "atomic_path"):
            monkeypatch.setattr(m, "atomic_path", failing)
    monkeypatch.setattr("graphanon.io._atomic.atomic_write_text",
                        lambda p, t: _write_text_via(failing, p, t))
    # graphanon.io.dk_tables streams through atomic_path (patched in the loop above)
    code = check(["smooth-k", str(work / "b.tsv"), "--k", "5", "--out", str(work / "s.tsv"),
                  "--report", str(work / "s.json")], work, capsys, outputs=("s.tsv", "s.json"))
    assert code == 2


def _write_text_via(factory, path, text):  # type: ignore[no-untyped-def]
    with factory(path) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")


def test_temporaries_of_a_killed_run_are_removed(work: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``kill -9`` leaves ``.NAME.graphanon-PID-X.tmp``; the next write of NAME removes the
    ones whose process is gone (and keeps those of live processes)."""
    dead = 2**22 + 12345  # no such pid (pid_max is at most 2**22)
    stale = work / f".r.tsv.graphanon-{dead}-abcd1234.tmp"
    stale.write_text("partial")
    live = work / f".r.tsv.graphanon-{os.getppid()}-abcd1234.tmp"
    live.write_text("another run in progress")
    main(["-q", "release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1",
          "--max-degree", "10", "--out", str(work / "r.tsv")])
    capsys.readouterr()
    assert not stale.exists() and live.exists()
    live.unlink()


# ---------------------------------------------------------------------- job files
JOBS = {
    "ledger_without_datasets": ('ledger = "l.json"\nbudget = 2.0\ndataset = "d"',
                                '{"format": "graphanon-ledger/1"}'),
    "ledger_string_budget": ('ledger = "l.json"\nbudget = 2.0\ndataset = "d"',
                             '{"format": "graphanon-ledger/1", "datasets": {"d": {"budget": '
                             '"2", "neighbourhood": "edge", "entries": []}}}'),
    "ledger_unknown_key": ('ledger = "l.json"\nbudget = 2.0\ndataset = "d"',
                           '{"format": "graphanon-ledger/1", "datasets": {"d": {"budget": 2, '
                           '"neighbourhood": "edge", "entries": [{"colour": 1}]}}}'),
    "ledger_negative_epsilon": (
        'ledger = "l.json"\nbudget = 2.0\ndataset = "d"',
        '{"format": "graphanon-ledger/1", "datasets": {"d": {"budget": 2, "neighbourhood": '
        '"edge", "entries": [{"release_id": "r", "mechanism": "m", "neighbourhood": "edge", '
        '"epsilon": -100, "composition": "sequential", "created_at": "t"}]}}}'),
    "ledger_duplicate_key": (  # json keeps the last "datasets": the 1.9 charge would vanish
        'ledger = "l.json"\nbudget = 2.0\ndataset = "d"',
        '{"format": "graphanon-ledger/1", "datasets": {"d": {"budget": 2, "neighbourhood": '
        '"node", "entries": [{"release_id": "r", "mechanism": "m", "neighbourhood": "node", '
        '"epsilon": 1.9, "composition": "sequential", "created_at": "t"}]}}, "datasets": {}}'),
    "ledger_duplicate_budget": (
        'ledger = "l.json"\nbudget = 2.0\ndataset = "d"',
        '{"format": "graphanon-ledger/1", "datasets": {"d": {"budget": 2, "budget": 9, '
        '"neighbourhood": "node", "entries": []}}}'),
    "sink_unknown_field": ("", None, "out/{nope}"),
    "sink_attribute_access": ("", None, "out/{release_id.__class__}"),
    "sink_format_spec": ("", None, "out/{release_id:>40}"),
    "name_with_nul": ('name = "a\\u0000b"', None),
    "name_with_slash": ('name = "../x"', None),
}


#: A node-DP release job from g.txt; ``job``: more [job] keys, ``sink``: the file sink's
#: path, ``more``: tables after it.
NODE_JOB = """
[job]
release_id = "r1"
{job}
[source]
path = "g.txt"
[[steps]]
name = "release-dk"
neighbourhood = "node"
d = 1
epsilon = 1.0
theta = 4
[[sinks]]
type = "file"
path = "{sink}"
{more}
"""


@pytest.mark.parametrize("case", sorted(JOBS))
def test_bad_job_files(work: Path, case: str, capsys: pytest.CaptureFixture[str]) -> None:
    job_extra, ledger, *sink = JOBS[case]
    if ledger is not None:
        (work / "l.json").write_text(ledger)
    sink_path = sink[0] if sink else "out/{release_id}"
    (work / "job.toml").write_text(NODE_JOB.format(job=job_extra, sink=sink_path, more=""))
    assert check(["run", str(work / "job.toml")], work, capsys, outputs=("out",)) == 2
    assert not any("class" in p.name for p in work.rglob("*"))


def test_random_job_files(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(3)
    pieces = ["[job]", "[source]", "[[steps]]", "[[sinks]]", 'name = "release-dk"',
              'type = "file"', 'path = "g.txt"', 'path = "out/{release_id}"', "d = 2",
              "epsilon = 1.0", "epsilon = -1", "k = 3", 'noise = "numpy-insecure"',
              'kind = "bipartite"', "seed = -1", 'release_id = "../x"', "max_degree = 0",
              'type = "neo4j"', 'password = "x"', "[other]"]
    for _ in range(60):
        body = "\n".join(rng.choice(pieces, size=int(rng.integers(1, 12))))
        (work / "job.toml").write_text(body)
        check(["run", str(work / "job.toml")], work, capsys, allowed=(0, 2, 4))
        for p in sorted(work.glob("out*"), reverse=True):
            if p.is_dir():
                import shutil

                shutil.rmtree(p)


@pytest.mark.parametrize("matrix", ["a string", np.array([[1, 2], [3, 4]]), np.ones((2, 3)),
                                    np.array([[0.5, 0], [0, 0]])])
def test_mat_files_with_the_wrong_matrix(work: Path, matrix: object,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    import scipy.io

    scipy.io.savemat(work / "x.mat", {"A": matrix})
    check(["info", str(work / "x.mat")], work, capsys)


def test_neo4j_arguments_are_checked_before_connecting(
        work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing listens on port 1: an argument error must be found (exit 2) before a
    connection is tried (exit 4)."""
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    monkeypatch.setenv("NEO4J_PASSWORD", "x")
    (work / "pw.bin").write_bytes(bytes(range(256)))
    (work / "empty.tsv").write_text("")
    (work / "bin.tsv").write_bytes(b"\x80\x81\x00\xff")
    (work / "rec.json").write_text('{"release": {"mechanism": "m"}}')
    cases = [
        ["neo4j", "releases", "--password-file", str(work / "pw.bin")],
        ["neo4j", "releases", "--password-file", "/dev/zero"],  # read to the end: no memory
        ["neo4j", "write-release", "--masked", str(work / "bin.tsv"), "--release-id", "r",
         "--dataset", "d", "--report", "/dev/zero"],
        ["neo4j", "write-release", "--table", str(work / "t.tsv"), "--report",
         str(work / "twice.json"), "--dataset", "d"],
        ["neo4j", "write-release", "--masked", str(work / "bin.tsv"), "--release-id", "r",
         "--dataset", "d", "--report", str(work / "rec.json")],
        ["neo4j", "write-release", "--masked", str(work / "empty.tsv"), "--release-id", "r",
         "--dataset", "d", "--report", str(work / "rec.json")],
        ["neo4j", "drop-release", "x" * 300],
        ["neo4j", "budget", "0123456789abcdef0123456789abcdef", "--epsilon-total", "1"],
        ["neo4j", "read-graph", "--label", "Bad Label", "--rel", "R", "--out",
         str(work / "o.txt")],
        ["neo4j", "read-graph", "--label", "L", "--rel", "R", "--query",
         "MATCH (a)--(b) RETURN a, b", "--out", str(work / "o.txt")],
        ["neo4j", "read-bipartite", "--user-props", "x", "--props-out", str(work / "p"),
         "--query", "MATCH (a)--(b) RETURN a, b", "--out", str(work / "o.tsv")],
        ["neo4j", "read-graph", "--label", "L", "--rel", "R", "--out", str(work / "o.mat")],
        ["neo4j", "read-graph", "--query", "MATCH (a)--(b) RETURN a, b", "--force", "--out",
         str(work / "o.txt")],
        ["neo4j", "read-graph", "--query", "MATCH (a)--(b) RETURN a, b", "--memory-limit",
         "1GiB", "--out", str(work / "o.txt")],
        ["neo4j", "read-bipartite", "--user-label", "U", "--feature-label", "F", "--rel", "R",
         "--props-out", str(work / "p"), "--out", str(work / "o.tsv")],
        ["neo4j", "write-release", "--table", str(work / "t.tsv"), "--report",
         str(work / "dp.json")],  # a DP record without --dataset
        ["neo4j", "write-release", "--table", str(work / "t.tsv"), "--report",
         str(work / "dp.json"), "--dataset", "0123456789abcdef0123456789abcdef"],
        ["neo4j", "write-release", "--table", str(work / "t.tsv"), "--report",
         str(work / "dp.json"), "--dataset", "d", "--keep-ids"],
        ["neo4j", "write-release", "--table", str(work / "t.tsv"), "--report",
         str(work / "dp.json"), "--dataset", "d", "--format", "edgelist"],
    ]
    assert main(["-q", "release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1",
                 "--max-degree", "10", "--out", str(work / "t.tsv"), "--report",
                 str(work / "dp.json")]) == 0
    (work / "twice.json").write_text(
        (work / "dp.json").read_text().replace("{", '{"d": 9, ', 1))  # "d" twice
    for args in cases:
        assert check(args, work, capsys) == 2, args


@pytest.mark.parametrize("source", [
    'path = "g.txt"\npreset = "adult"',  # a preset is a table: kind = "bipartite"
    'path = "b.tsv"\nkind = "bipartite"\nformat = "tsv"',  # format: graph files only
    'type = "neo4j"\nquery = "MATCH (a)--(b) RETURN a, b"\nlabel = "L"',  # query or labels
    'type = "neo4j"\nlabel = "L"\nrel = "R"\nuser_label = "U"',  # a bipartite key
    'type = "neo4j"\nlabel = "L"\nrel = "R"\nparameters = {x = 1}',  # a query's key
    'type = "neo4j"\nquery = "MATCH (a)--(b) RETURN a, b"\nmemory_limit = "1GiB"',
])
def test_job_source_keys_that_do_not_apply(work: Path, source: str,
                                           capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A [source] key the source does not use is refused (before any connection), never
    ignored."""
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    monkeypatch.setenv("NEO4J_PASSWORD", "x")
    (work / "job.toml").write_text(
        f'[job]\nrelease_id = "r1"\n[source]\n{source}\n[[steps]]\nname = "info"\n'
        '[[sinks]]\ntype = "file"\npath = "out"\n')
    assert check(["run", str(work / "job.toml")], work, capsys, outputs=("out",)) == 2


@pytest.mark.parametrize("dataset", ["", 'dataset = "   "', "dataset = 5",
                                     'dataset = "0123456789abcdef0123456789abcdef"'])
def test_neo4j_sink_without_dataset_is_refused_before_the_charge(
        work: Path, dataset: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A DP release for a neo4j sink without ``dataset`` stops before the JSON ledger is
    charged and before any sink (or connection): no budget spent on a job that cannot
    finish."""
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    monkeypatch.setenv("NEO4J_PASSWORD", "x")
    (work / "job.toml").write_text(NODE_JOB.format(
        job='ledger = "l.json"\nbudget = 5.0\ndataset = "books"', sink="out",
        more=f'[[sinks]]\ntype = "neo4j"\n{dataset}'))
    code = main(["-q", "run", str(work / "job.toml")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "dataset" in err and "Traceback" not in err
    assert not (work / "l.json").exists() and not (work / "out").exists()


def test_read_only_descriptor_and_job_inputs_are_never_outputs(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--out /dev/stdin`` is refused before the ledger charge (its descriptor is open for
    reading); a job's file sink may not replace the file its source reads."""
    import subprocess
    import sys

    with open(work / "g.txt", "rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-c", "from graphanon.cli import main; raise SystemExit(main())",
             "-q", "release-dk", str(work / "g.txt"), "--d", "1", "--epsilon", "1",
             "--max-degree", "10", "--out", "/dev/stdin", "--ledger", str(work / "l.json"),
             "--dataset", "books", "--budget", "4"], stdin=stdin, capture_output=True,
            text=True)
    assert done.returncode == 2 and "cannot write '/dev/stdin'" in done.stderr
    assert not (work / "l.json").exists()
    (work / "out" / "operator").mkdir(parents=True)
    write_graph(load_polbooks(), work / "out" / "operator" / "graph.graphml")
    source = (work / "out" / "operator" / "graph.graphml").read_bytes()
    (work / "job.toml").write_text(
        '[job]\nrelease_id = "r1"\n[source]\npath = "out/operator/graph.graphml"\n'
        '[[steps]]\nname = "info"\n[[sinks]]\ntype = "file"\npath = "out"\n')
    code = main(["-q", "run", str(work / "job.toml")])
    assert code == 2 and "could be replaced" in capsys.readouterr().err  # before any sink writes
    assert (work / "out" / "operator" / "graph.graphml").read_bytes() == source


def test_stdout_holds_the_data_alone(work: Path) -> None:
    """With ``--out /dev/stdout`` and without ``-q``, the messages and progress bars go to
    stderr: stdout is exactly the file the command would write."""
    import subprocess
    import sys

    args = ["dk", str(work / "g.txt"), "--d", "2", "--out"]
    assert main(["-q", *args, str(work / "t.tsv")]) == 0
    done = subprocess.run(
        [sys.executable, "-c", "from graphanon.cli import main; raise SystemExit(main())",
         *args, "/dev/stdout"], capture_output=True)
    assert done.returncode == 0 and done.stdout == (work / "t.tsv").read_bytes()
    assert b"distinct 2K tuples" in done.stderr


@pytest.mark.parametrize("body", [b"id,a,a\n1,x,3\n", b"id,a,b\n1,x,3\n2,\xff,4\n"])
def test_table_readers_refuse_ambiguous_columns_and_bytes(
        work: Path, body: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    """A column name twice, or a cell that is not UTF-8: one error line, no traceback."""
    (work / "t.csv").write_bytes(body)
    for args in (["bipartite-from-table", str(work / "t.csv"), "--out", str(work / "o.tsv")],
                 ["b-anonymize", str(work / "t.csv"), "--delta", "2", "--out",
                  str(work / "o.tsv"), "--report", str(work / "o.json")]):
        assert check(args, work, capsys, outputs=("o.tsv", "o.json")) == 2


def test_skip_bad_rows_is_refused_where_it_would_be_ignored(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_graph(load_polbooks(), work / "g.graphml")
    assert check(["dk", str(work / "g.txt"), "--d", "2", "--out", str(work / "t.tsv")], work,
                 capsys) == 0
    for args in (["info", str(work / "g.graphml")],
                 ["generate", str(work / "t.tsv"), "--d", "2", "--out", str(work / "o.txt")],
                 ["bipartite-from-table", str(work / "table.csv"), "--out",
                  str(work / "o.tsv")]):
        assert check(["--skip-bad-rows", *args], work, capsys,
                     outputs=("o.txt", "o.tsv")) == 2


@pytest.mark.parametrize("args", [
    ["dk", "g.txt", "--d", "1", "--out", ""],
    ["bipartite-from-table", "t.csv", "--columns", "", "--out", "o.tsv"],
    ["neo4j", "releases", "--uri", " "],
    ["release-dk", "g.txt", "--d", "1", "--epsilon", "1", "--max-degree", "10", "--nodes", "",
     "--out", "o.tsv"],
])
def test_empty_option_values_are_refused(work: Path, args: list[str],
                                         capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty value would silently mean 'not given' (all columns, NEO4J_URI, no
    universe): it is one error line naming the option."""
    monkeypatch.chdir(work)
    monkeypatch.setenv("NEO4J_PASSWORD", "pw")
    assert main(["-q", *args]) == 2
    err = capsys.readouterr().err
    empty = next(a for a in args if not a.strip())
    option = args[args.index(empty) - 1]
    assert err.count("\n") == 1 and f"'{option}' option is empty" in err, err
    assert not (work / "o.tsv").exists() and _leftovers(work) == []
