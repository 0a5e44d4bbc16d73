"""The CLI starts cheap: commands are imported on first use (issue 17)."""

from __future__ import annotations

import subprocess
import sys

import click

from graphanon.cli import COMMANDS, cli


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
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("HEAVY="))
    assert line == "HEAVY=", f"--help imported {line[6:]}"
