"""Named Cypher statements and safe identifiers.

Every statement graphanon sends to Neo4j lives in one ``.cypher`` file of the top-level
``cypher/`` folder (shipped in the wheel as ``graphanon/cypher``). :func:`load` reads a
statement by name; values always travel as query parameters (``$name``).

Labels, relationship types, property keys and index names cannot be parameters, so a
statement that needs one holds a ``{placeholder}``. :func:`load` fills placeholders only
with identifiers that pass :func:`validate_identifier` (ASCII letters, digits and ``_``,
not starting with a digit, at most 64 characters) and quotes them in backticks. Anything
else (backticks, spaces, braces, quotes, non-ASCII look-alikes, empty strings) is
refused with an :class:`~graphanon.errors.InvalidParameterError` naming the parameter,
before any connection is made.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
from pathlib import Path

from ..errors import InvalidParameterError

__all__ = [
    "IDENTIFIER_PATTERN",
    "cypher_dir",
    "load",
    "placeholders",
    "quote_identifier",
    "statement_names",
    "validate_identifier",
]

#: What an identifier may look like. Deliberately stricter than Neo4j (which accepts any
#: string in backticks): no Unicode, so no homoglyphs, invisible or bidi characters.
IDENTIFIER_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}", re.ASCII)
_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def validate_identifier(value: object, parameter: str) -> str:
    """Return ``value`` if it is a safe Neo4j identifier, else raise.

    Parameters
    ----------
    value
        A label, relationship type, property key or index name.
    parameter
        The name of the option it came from (``"--label"``, ``"user_label"``), used in the
        error message.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a string fully matching :data:`IDENTIFIER_PATTERN`.
    """
    if not isinstance(value, str) or not value.isascii() or not IDENTIFIER_PATTERN.fullmatch(
        value
    ):
        raise InvalidParameterError(
            f"The {parameter!r} parameter must be a Neo4j identifier: ASCII letters, digits "
            f"and '_', not starting with a digit, 1 to 64 characters. Got {value!r} instead."
        )
    return value


def quote_identifier(value: str, parameter: str = "identifier") -> str:
    """Validate ``value`` and return it in backticks (``User`` -> ```User```)."""
    return f"`{validate_identifier(value, parameter)}`"


def _package_dir() -> Path | None:
    try:
        root = importlib.resources.files("graphanon").joinpath("cypher")
    except ModuleNotFoundError:  # pragma: no cover
        return None
    path = Path(str(root))
    return path if path.is_dir() else None


@functools.cache
def cypher_dir() -> Path:
    """The folder holding the ``.cypher`` files.

    In an installed wheel it is ``graphanon/cypher`` (package data, found with
    :mod:`importlib.resources`); in a source checkout or an editable install it is the
    top-level ``cypher/`` folder next to the package.
    """
    packaged = _package_dir()
    if packaged is not None:
        return packaged
    checkout = Path(__file__).resolve().parents[2] / "cypher"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(  # pragma: no cover - a broken installation
        "graphanon's Cypher statements were not found (neither graphanon/cypher in the "
        f"package nor {checkout})."
    )


def statement_names() -> list[str]:
    """The names of every shipped statement, sorted."""
    return sorted(p.stem for p in cypher_dir().glob("*.cypher"))


@functools.cache
def _raw(name: str) -> str:
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise InvalidParameterError(f"no Cypher statement named {name!r}.")
    path = cypher_dir() / f"{name}.cypher"
    if not path.is_file():
        raise InvalidParameterError(
            f"no Cypher statement named {name!r}; known: {', '.join(statement_names())}."
        )
    lines = [
        line.rstrip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if not line.lstrip().startswith("//")
    ]
    return "\n".join(line for line in lines if line).strip()


def placeholders(name: str) -> set[str]:
    """The identifier placeholders the statement ``name`` needs."""
    return set(_PLACEHOLDER.findall(_raw(name)))


def load(name: str, **identifiers: str) -> str:
    """The text of statement ``name`` with its placeholders filled.

    Parameters
    ----------
    name
        The file name without ``.cypher`` (``"read_graph_edges"``).
    **identifiers
        One value per placeholder; each is validated and backtick-quoted.

    Raises
    ------
    InvalidParameterError
        Unknown statement, a missing or unexpected placeholder, or an unsafe identifier.
    """
    text = _raw(name)
    needed = placeholders(name)
    given = set(identifiers)
    if needed != given:
        raise InvalidParameterError(
            f"statement {name!r} needs identifiers {sorted(needed)}; got {sorted(given)}."
        )
    quoted = {key: quote_identifier(value, key) for key, value in identifiers.items()}
    return _PLACEHOLDER.sub(lambda m: quoted[m.group(1)], text)
