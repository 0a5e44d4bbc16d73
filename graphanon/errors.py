"""Exception hierarchy of graphanon.

Every error a caller can provoke with bad input is an :class:`InvalidParameterError`
(also a ``ValueError`` and ``TypeError``, so generic handlers keep working). The CLI
prints the message of any :class:`GraphAnonError` and exits with its ``exit_code``.
"""

from __future__ import annotations

__all__ = [
    "DatabaseUnavailableError",
    "GraphAnonError",
    "InfeasibleError",
    "InputFormatError",
    "InvalidParameterError",
    "Neo4jError",
    "PrivacyBudgetExceeded",
]


class GraphAnonError(Exception):
    """Base class of every error raised on purpose by graphanon."""

    exit_code: int = 2


class InvalidParameterError(GraphAnonError, ValueError, TypeError):
    """A parameter or an input value is out of its documented domain."""


class InputFormatError(InvalidParameterError):
    """A file could not be parsed; the message names the file, the line and its content."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.line = line


class InfeasibleError(GraphAnonError):
    """The parameters are valid but no solution exists (e.g. k larger than the graph)."""


class PrivacyBudgetExceeded(GraphAnonError):
    """A release would spend more ε than the dataset's budget allows."""

    exit_code = 3


class Neo4jError(GraphAnonError):
    """A failure reported by the Neo4j driver, wrapped with context."""

    exit_code = 4


class DatabaseUnavailableError(Neo4jError):
    """The database could not be reached."""

    exit_code = 4
