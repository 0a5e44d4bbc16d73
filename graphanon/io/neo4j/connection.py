"""Connecting to Neo4j: settings from the environment, the driver, and error wrapping.

The password comes from a file or the environment, never from a command-line value;
:class:`ConnectionSettings` hides it in its ``repr``. Driver exceptions become
:class:`~graphanon.errors.DatabaseUnavailableError` (unreachable server, refused
credentials) or :class:`~graphanon.errors.Neo4jError` (anything else), both exit code 4.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ...errors import DatabaseUnavailableError, GraphAnonError, InvalidParameterError, Neo4jError

__all__ = [
    "CONNECTION_KEYS",
    "CommitOutcomeUnknown",
    "ConnectionSettings",
    "connect",
    "connection_settings",
    "open_driver",
    "parse_size",
    "rust_extension_active",
    "wrap_driver_errors",
]


class CommitOutcomeUnknown(Neo4jError):
    """The connection was lost while a commit was under way (the driver's
    ``IncompleteCommit``): the commit may or may not have happened (exit code 4)."""


@dataclass(frozen=True)
class ConnectionSettings:
    """Where and as whom to connect. ``repr`` never shows the password."""

    uri: str
    user: str
    password: str = field(repr=False)
    database: str | None = None


def connection_settings(
    *,
    uri: str | None = None,
    user: str | None = None,
    password_file: str | os.PathLike[str] | None = None,
    database: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> ConnectionSettings:
    """Resolve connection settings from arguments and the environment.

    The password comes from ``password_file`` (first line), else ``NEO4J_PASSWORD_FILE``,
    else ``NEO4J_PASSWORD``; never from a command-line value, so it stays out of shell
    history and process listings. ``uri`` defaults to ``NEO4J_URI``, ``user`` to
    ``NEO4J_USER`` (then ``"neo4j"``), ``database`` to ``NEO4J_DATABASE`` (then the server
    default).
    """
    env = os.environ if environ is None else environ
    uri = uri or env.get("NEO4J_URI")
    if not uri:
        raise InvalidParameterError(
            "No Neo4j URI: pass --uri or set NEO4J_URI (e.g. neo4j://localhost:7687)."
        )
    _check_uri(uri)
    user = user or env.get("NEO4J_USER") or "neo4j"
    pw_file = password_file or env.get("NEO4J_PASSWORD_FILE")
    if pw_file:
        from .._input import read_input_text

        try:  # bounded, regular files and pipes only (never a device), like every input
            password = read_input_text(pw_file, what="password file").splitlines()[0].strip()
        except (GraphAnonError, IndexError):
            raise InvalidParameterError(
                f"The password file {str(pw_file)!r} could not be read (a regular file or a "
                "pipe), is empty or is not UTF-8 text."
            ) from None
        if not password or any(not c.isprintable() for c in password):
            raise InvalidParameterError(
                f"The password file {str(pw_file)!r} must hold the password on its first "
                "line (printable text).")
    else:
        password = env.get("NEO4J_PASSWORD", "")
        if not password:
            raise InvalidParameterError(
                "No Neo4j password: set NEO4J_PASSWORD, or NEO4J_PASSWORD_FILE / "
                "--password-file to a file holding it."
            )
    database = database or env.get("NEO4J_DATABASE") or None
    if database is not None and not _valid_database_name(database):
        raise InvalidParameterError(
            f"The '--database' parameter must be a database name (letters, digits, '.', '-', "
            f"'_'). Got {database!r} instead."
        )
    return ConnectionSettings(uri, user, password, database)


def _check_uri(uri: str) -> None:
    """A scheme the driver knows, a host, and a port in 1..65535 when one is given: checked
    here so that a mistyped URI is a one-line error (exit 2) before anything runs, not a
    driver traceback after a job has charged its ledger."""
    from urllib.parse import urlsplit

    schemes = ("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc")
    shape = ("The '--uri' parameter (or NEO4J_URI) must look like neo4j://host:7687 or "
             f"bolt://host:7687. Got {uri!r} instead")
    if "://" not in uri or uri.split("://", 1)[0].lower() not in schemes:
        raise InvalidParameterError(shape + ".")
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError as exc:
        raise InvalidParameterError(f"{shape}: {exc}.") from None
    if not parts.hostname or any(c.isspace() for c in parts.netloc):
        raise InvalidParameterError(f"{shape}: no host, or blanks in it.")
    if "@" in parts.netloc:
        raise InvalidParameterError(
            f"{shape}: the user goes in --user / NEO4J_USER, the password in a file, not in "
            "the URI.")
    if parts.path.strip("/") or parts.fragment:
        raise InvalidParameterError(f"{shape}: a Neo4j URI has no path.")
    if parts.query:
        from urllib.parse import parse_qs

        if not parts.scheme.lower().startswith("neo4j"):
            raise InvalidParameterError(
                f"{shape}: only neo4j:// URIs take a routing context ('?...'), bolt:// does "
                "not.")
        try:
            keys = parse_qs(parts.query, keep_blank_values=True, strict_parsing=True)
        except ValueError as exc:
            raise InvalidParameterError(f"{shape}: {exc}.") from None
        if any(len(v) > 1 for v in keys.values()):
            raise InvalidParameterError(f"{shape}: a routing context key is repeated.")
    if port is not None and not 0 < port < 65536:
        raise InvalidParameterError(f"{shape}: port {port} is not in 1..65535.")


def _valid_database_name(name: str) -> bool:
    return name.isascii() and 0 < len(name) <= 63 and all(
        c.isalnum() or c in ".-_" for c in name
    )


#: The keys of a job's ``[source]`` / ``[[sinks]]`` table that :func:`connection_settings`
#: reads (the CLI's ``--uri``, ``--password-file``, ``--database``; the user from the
#: environment).
CONNECTION_KEYS = ("uri", "user", "password_file", "database")


def open_driver(*, uri: str | None = None, user: str | None = None,
                password_file: str | os.PathLike[str] | None = None,
                database: str | None = None) -> tuple[Any, ConnectionSettings]:
    """A connected driver for the settings the arguments and the environment resolve to
    (:func:`connection_settings`, then :func:`connect`), and those settings: the one way the
    CLI's Neo4j commands and the jobs' sources and sinks open a connection."""
    from . import connect as connect_  # the package's name, which a test may replace by a fake

    settings = connection_settings(uri=uri, user=user, password_file=password_file,
                                   database=database)
    return connect_(settings), settings


def connect(settings: ConnectionSettings, *, verify: bool = True) -> Any:
    """A ``neo4j.Driver`` for ``settings``; connectivity is checked when ``verify``.

    With the optional ``rust`` extra installed (``neo4j-rust-ext``, the official driver's
    Rust extension), the same driver decodes results several times faster; nothing changes
    in the code (see :func:`rust_extension_active`).

    Raises
    ------
    DatabaseUnavailableError
        The server cannot be reached or refuses the credentials (exit code 4).
    """
    import neo4j

    with wrap_driver_errors(f"connecting to {settings.uri}"):
        driver = neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password))
        if verify:
            try:
                driver.verify_connectivity()
            except BaseException:
                driver.close()
                raise
    return driver


def rust_extension_active() -> bool:
    """Whether the driver's Rust extension (``pip install "graphanon[rust]"``) is installed.

    The official package ``neo4j-rust-ext`` installs the module ``neo4j._rust``, which the
    driver picks up by itself for its PackStream decoding.
    """
    try:
        return importlib.util.find_spec("neo4j._rust") is not None
    except (ImportError, ValueError):  # pragma: no cover - a broken installation
        return False


@contextlib.contextmanager
def wrap_driver_errors(context: str) -> Iterator[None]:
    """Turn driver exceptions into graphanon errors with one clear line."""
    try:
        yield
    except GraphAnonError:
        raise
    except Exception as exc:
        try:
            from neo4j import exceptions as nx
        except ImportError:  # pragma: no cover
            raise
        if isinstance(exc, nx.IncompleteCommit):  # (a ServiceUnavailable: checked first)
            raise CommitOutcomeUnknown(
                f"Neo4j lost the connection during a commit while {context}: the commit may "
                "or may not have happened: check `graphanon neo4j releases`."
            ) from exc
        if isinstance(exc, (nx.ServiceUnavailable, nx.SessionExpired)):
            raise DatabaseUnavailableError(
                f"Neo4j is unavailable while {context}: {_first_line(exc)}"
            ) from exc
        if isinstance(exc, (nx.AuthError, nx.ConfigurationError)):
            raise DatabaseUnavailableError(
                f"Neo4j refused the connection while {context}: {_first_line(exc)}"
            ) from exc
        if isinstance(exc, (nx.GqlError, nx.DriverError)):
            raise Neo4jError(f"Neo4j error while {context}: {_first_line(exc)}") from exc
        raise


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0].rstrip(" :")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def parse_size(value: int | str) -> int:
    """Bytes of ``value``: an int, or a size like ``"4GiB"``, ``"512M"``; positive, finite."""
    bad = InvalidParameterError(
        f"The 'memory_limit' parameter must be a positive size like '4GiB'. Got {value!r} "
        "instead.")
    if isinstance(value, int):
        if value <= 0:
            raise bad
        return value
    text = value.strip().lower().replace(" ", "")
    units = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
    num = text.rstrip("ib").rstrip("b")
    mult = 1
    if num and num[-1] in units:
        mult = units[num[-1]]
        num = num[:-1]
    try:
        size = float(num) * mult
    except ValueError:
        raise bad from None
    if not (0 < size < 2**63):
        raise bad
    return int(size)
