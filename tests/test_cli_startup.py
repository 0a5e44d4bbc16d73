"""The CLI starts cheap: commands are imported on first use (issue 17)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click

from graphanon.cli import COMMANDS, cli


def _python(code: str, *args: str) -> str:
    """The standard output of ``code`` run by a new Python process (``args`` its argv)."""
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          check=True).stdout


def test_static_help_matches_every_command() -> None:
    """``graphanon --help`` prints one-liners from a static table; they must be the
    commands' own first docstring lines, and every command must be in the table."""
    ctx = click.Context(cli)
    for name, (_module, help_) in COMMANDS.items():
        cmd = cli.get_command(ctx, name)
        assert cmd is not None, name
        assert cmd.get_short_help_str(limit=300) == help_, name


def test_help_imports_no_heavy_library() -> None:
    code = ("import sys\nfrom graphanon.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('numpy', 'pyarrow', 'numba', 'opendp', 'matplotlib', "
            "'neo4j', 'igraph', 'scipy', 'dask') if m in sys.modules]\n"
            "print('HEAVY=' + ','.join(heavy))")
    out = _python(code)
    line = next(ln for ln in out.splitlines() if ln.startswith("HEAVY="))
    assert line == "HEAVY=", f"--help imported {line[6:]}"


def test_commands_do_not_import_what_they_never_use(tmp_path: Path) -> None:
    """pandas, scikit-learn and Polars cost seconds of start-up and no command needs them:
    ``pyarrow.array`` and ``opendp.prelude`` would pull them in (graphanon._arrow and
    privacy.noise.opendp_prelude avoid both). One process runs a reading, a writing and an
    OpenDP command on string ids."""
    edges = tmp_path / "g.txt"
    edges.write_text("".join(f"n{i}\tn{(i * 7 + 1) % 50}\n" for i in range(50)))
    pairs = tmp_path / "b.tsv"
    pairs.write_text("".join(f"u{i}\tf{i % 5}\n" for i in range(40)))
    nodes = tmp_path / "nodes.txt"
    nodes.write_text("".join(f"n{i}\n" for i in range(60)))
    users, features = tmp_path / "users.txt", tmp_path / "features.txt"
    users.write_text("".join(f"u{i}\n" for i in range(40)))
    features.write_text("".join(f"f{i}\n" for i in range(5)))
    runs = [["info", str(edges)],
            ["release-dk", str(edges), "--d", "2", "--epsilon", "1", "--neighbourhood", "edge",
             "--max-degree", "10", "--nodes", str(nodes), "--out", str(tmp_path / "n.tsv"),
             "--report", str(tmp_path / "n.json")],
            ["randomized-response", str(pairs), "--epsilon", "1", "--users", str(users),
             "--features", str(features), "--out", str(tmp_path / "rr.tsv"),
             "--report", str(tmp_path / "rr.json")],
            ["dk", str(edges), "--d", "2", "--out", str(tmp_path / "t.tsv")],
            ["generate", str(tmp_path / "t.tsv"), "--d", "2", "--seed", "1",
             "--out", str(tmp_path / "gen.txt")],
            ["release-dk", str(edges), "--d", "1", "--epsilon", "1", "--neighbourhood", "edge",
             "--max-degree", "10", "--out", str(tmp_path / "r.tsv"),
             "--report", str(tmp_path / "r.json")],
            ["smooth-k", str(pairs), "--k", "4", "--out", str(tmp_path / "s.tsv"),
             "--report", str(tmp_path / "s.json")]]
    code = ("import sys\nfrom graphanon.cli import main\n"
            f"for args in {runs!r}:\n"
            "    assert main(['-q', *args]) == 0, args\n"
            "print('UNUSED=' + ','.join(m for m in ('pandas', 'sklearn', 'polars') "
            "if m in sys.modules))")
    out = _python(code)
    line = next(ln for ln in out.splitlines() if ln.startswith("UNUSED="))
    assert line == "UNUSED=", f"the commands imported {line[7:]}"


def test_node_dp_leaves_scipy_optimize_until_hay() -> None:
    """scipy.optimize costs about 0.25 s of imports; only Hay's isotonic post-processing
    uses it, so importing the node-DP family (every node-DP command does) must not."""
    code = ("import sys, graphanon.nodedp, graphanon.cli.nodedp\n"
            "print('LOADED=' + str('scipy.optimize' in sys.modules))")
    out = _python(code)
    assert "LOADED=False" in out


def test_console_script_skips_numba_blas_probe(tmp_path: Path) -> None:
    """Run as the ``graphanon`` command (``main()`` without arguments), a kernel load does not
    import scipy.linalg for numba's BLAS probe, and ``generate`` writes what it writes when
    called in-process."""
    from graphanon.cli import main
    from graphanon.datasets import data_path

    table = tmp_path / "t.tsv"
    assert main(["-q", "dk", str(data_path("polbooks.gml")), "--d", "2", "--out", str(table)]) == 0
    assert main(["-q", "generate", str(table), "--d", "2", "--seed", "3",
                 "--out", str(tmp_path / "in.txt")]) == 0
    code = ("import sys\nfrom graphanon.cli import main\n"
            "try:\n    main()\nexcept SystemExit as e:\n    assert e.code == 0, e.code\n"
            "import numba.np.arraymath as am\n"
            "print('LINALG=' + str('scipy.linalg' in sys.modules), 'BLAS=' + str(am._HAVE_BLAS))")
    out = _python(code, "-q", "generate", str(table), "--d", "2", "--seed", "3",
                  "--out", str(tmp_path / "cli.txt"))
    assert "LINALG=False BLAS=False" in out
    assert (tmp_path / "cli.txt").read_bytes() == (tmp_path / "in.txt").read_bytes()


def test_cli_imports_igraph_without_matplotlib(tmp_path: Path) -> None:
    """igraph imports matplotlib.pyplot (0.7 s) for its own plotting, which no command uses:
    the command's process imports igraph without it, and matplotlib still imports normally
    afterwards (the reports' plots). A library user's igraph keeps its plotting."""
    g = tmp_path / "g.graphml"
    g.write_text('<?xml version="1.0"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
                 '<graph edgedefault="undirected"><node id="a"/><node id="b"/>'
                 '<edge source="a" target="b"/></graph></graphml>\n')
    code = ("import sys\nfrom graphanon.cli import _own_process, main\n_own_process()\n"
            f"assert main(['-q', 'info', {str(g)!r}]) == 0\n"
            "print('IGRAPH=' + str('igraph' in sys.modules))\n"
            "print('PYPLOT=' + str('matplotlib.pyplot' in sys.modules))\n"
            "import matplotlib.pyplot\nprint('LATER=ok')\n")
    out = _python(code)
    assert "IGRAPH=True" in out and "PYPLOT=False" in out and "LATER=ok" in out
    lib = ("import sys\nfrom graphanon._igraph import load\nload()\n"
           "print('PYPLOT=' + str('matplotlib.pyplot' in sys.modules))\n")
    out = _python(lib)
    assert "PYPLOT=True" in out  # the library leaves igraph's plotting alone


def test_command_process_collects_garbage_less_often() -> None:
    """The command's own process raises the collector's thresholds (its start loads hundreds
    of thousands of long-lived objects); cycles are still collected. A program calling
    ``main(argv)`` keeps its own settings."""
    code = ("import gc\nbefore = gc.get_threshold()\n"
            "from graphanon.cli import GC_THRESHOLDS, _own_process, main\n"
            "assert main(['-q', '--version']) == 0 and gc.get_threshold() == before\n"
            "_own_process()\nassert gc.get_threshold() == GC_THRESHOLDS, gc.get_threshold()\n"
            "class Node:\n    pass\n"
            "a, b = Node(), Node()\na.other, b.other = b, a\ndel a, b\n"
            "print('FREED=' + str(gc.collect() >= 2))\n")
    out = _python(code)
    assert "FREED=True" in out
