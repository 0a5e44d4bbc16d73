"""Where numba keeps graphanon's compiled kernels: a per-user cache directory.

Every module that defines numba kernels imports this module *before* ``numba`` (a test walks
the package and checks it), so that ``@numba.njit(cache=True)`` writes its cache where it
can: numba's default is a ``__pycache__`` folder next to the module, which a regular install
into a read-only (system, container, shared) ``site-packages`` does not allow. Without a
usable cache every process compiles every kernel again, seconds per command.

Unless the user has chosen a folder with ``NUMBA_CACHE_DIR``, this module sets it to

* ``$XDG_CACHE_HOME/graphanon/numba`` when ``XDG_CACHE_HOME`` is an absolute path, else
* ``~/.cache/graphanon/numba``,

for this process and the processes it starts (Dask workers, subprocesses). numba names the
cache files by the absolute folder of the source module and checks them against a hash of
the source, so several installs and versions share the folder without mixing. If numba was
imported before graphanon, its configuration is updated as well. The setting applies to all
numba code of the process: a program that wants its own kernels cached elsewhere sets
``NUMBA_CACHE_DIR`` itself, which graphanon then leaves alone.

The folder is created with mode 0700 and used only if it belongs to the user: numba's cache
files are pickles, and loading a file planted by someone else would run their code. If no
such folder can be had (no home folder, read-only home), nothing is set and numba falls back
to its own rules (its per-user ``~/.cache/numba``, or no cache at all).

This module must stay cheap to import (``os`` only): the CLI imports it on every command
that runs a kernel, never for ``--help``.
"""

from __future__ import annotations

import os
import sys

__all__ = ["CACHE_ENV", "cache_dir"]

CACHE_ENV = "NUMBA_CACHE_DIR"


def _default_dir() -> str | None:
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        base = xdg
    else:
        home = os.path.expanduser("~")
        if not home or home == "~" or not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "graphanon", "numba")


def _usable(path: str) -> bool:
    """Create ``path`` (mode 0700) if needed; true if it is a folder this user owns and can
    write to."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.stat(path)
    except OSError:
        return False
    owner_ok = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return owner_ok and os.access(path, os.W_OK | os.X_OK)


def cache_dir() -> str | None:
    """The folder numba caches graphanon's kernels in (``None``: numba's own default)."""
    chosen = os.environ.get(CACHE_ENV)
    return chosen or None


def _configure() -> None:
    if os.environ.get(CACHE_ENV):  # the user's choice wins
        return
    path = _default_dir()
    if path is None or not _usable(path):
        return
    os.environ[CACHE_ENV] = path
    config = sys.modules.get("numba.core.config")
    if config is not None and not getattr(config, "CACHE_DIR", ""):
        # numba read its environment before graphanon was imported
        setattr(config, "CACHE_DIR", path)  # noqa: B010


_configure()
