"""The operator's secret key ``K``: source fingerprints and pseudonyms are keyed with it.

``K`` is ``GRAPHANON_FINGERPRINT_KEY`` when that is set, else the 32 bytes of the key file
``$GRAPHANON_HOME/fingerprint.key`` (default ``~/.config/graphanon/fingerprint.key``),
created on first use.

Whoever holds ``K`` recomputes every pseudonym and tests candidate inputs against a
published fingerprint, so a key file that is not exactly :data:`KEY_BYTES` long is never
used: a 0-byte file (a full disk at first use, a crash between creating the file and writing
it) would key everything with ``b""``, which every reader knows. Such a file, or one that
cannot be read, is refused (:class:`~graphanon.errors.InvalidParameterError`, CLI exit 2),
and it is never replaced by a new key behind the operator's back: the pseudonyms and
fingerprints of earlier releases were made with the old one.

Creating the file cannot leave it short: the key is written to a temporary sibling, synced,
and then linked to its name — a rename that never replaces an existing file. When several
processes create it at once, the first link wins and every process (the losers too) reads
the key that won, so they agree on one key.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from .._tempfiles import OutputError, new_temp
from ..errors import InvalidParameterError

__all__ = ["KEY_BYTES", "key_path", "operator_key"]

#: Length of the key in the key file.
KEY_BYTES = 32


def key_path() -> Path:
    """Where the key file is (whether it exists or not)."""
    home = os.environ.get("GRAPHANON_HOME") or Path.home() / ".config" / "graphanon"
    return Path(home) / "fingerprint.key"


def operator_key() -> bytes:
    """``K``: ``GRAPHANON_FINGERPRINT_KEY``, else the key file (created on first use).

    Raises
    ------
    InvalidParameterError
        The key file has the wrong length, cannot be read, or cannot be created.
    """
    env = os.environ.get("GRAPHANON_FINGERPRINT_KEY")
    if env:
        return env.encode("utf-8")
    path = key_path()
    key = _read(path)
    return key if key is not None else _create(path)


def _read(path: Path) -> bytes | None:
    """The key in ``path``; ``None`` if there is no such file."""
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InvalidParameterError(
            f"fingerprint key {path} cannot be read ({exc.strerror or exc}): fix its "
            "permissions, or point GRAPHANON_HOME at the folder that holds your key.") from None
    if len(key) != KEY_BYTES:
        raise InvalidParameterError(
            f"fingerprint key {path} holds {len(key)} bytes, not {KEY_BYTES}: it is damaged "
            "(a full disk or a crash while it was created) and is not used. Restore it from "
            "a backup; only if nothing was ever released with it, delete it and run again to "
            "create a new key.")
    return key


def _create(path: Path) -> bytes:
    """Create the key file atomically and return the key that is in it afterwards."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = new_temp(path)
    except (OSError, OutputError) as exc:
        raise InvalidParameterError(
            f"fingerprint key {path} cannot be created: {exc}. Set GRAPHANON_HOME to a "
            "writable folder, or GRAPHANON_FINGERPRINT_KEY.") from None
    try:
        with open(tmp, "wb") as fh:
            fh.write(secrets.token_bytes(KEY_BYTES))
            fh.flush()
            os.fsync(fh.fileno())
        with contextlib.suppress(FileExistsError):  # another process linked its key first
            os.link(tmp, path)
        _sync_folder(path.parent)
    except OSError as exc:
        raise InvalidParameterError(
            f"fingerprint key {path} cannot be created ({exc.strerror or exc}); nothing was "
            "written. Free some space or set GRAPHANON_HOME to a writable folder.") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    key = _read(path)
    assert key is not None
    return key


def _sync_folder(folder: Path) -> None:
    """Make the new name durable (where the platform allows syncing a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
