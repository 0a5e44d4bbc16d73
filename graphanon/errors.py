"""Exception hierarchy of graphanon.

Every error a caller can provoke with bad input is an :class:`InvalidParameterError`
(also a ``ValueError`` and ``TypeError``, so generic handlers keep working). The CLI
prints the message of any :class:`GraphAnonError` and exits with its ``exit_code``.
"""

from __future__ import annotations

__all__ = [
    "CommentLikeIdWarning",
    "DatabaseUnavailableError",
    "DegreeBoundWarning",
    "GraphAnonError",
    "GraphAnonWarning",
    "InfeasibleError",
    "InputFormatError",
    "InsecureNoiseWarning",
    "InsecureReproductionWarning",
    "InvalidParameterError",
    "LooseSensitivityWarning",
    "Neo4jError",
    "NodeSensitivityWarning",
    "PersonalizedCalibrationWarning",
    "PrivacyBudgetExceeded",
    "RealIdsWarning",
    "ReproductionWarning",
    "UnstableOrderingWarning",
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


# ---------------------------------------------------------------------- warnings
class GraphAnonWarning(UserWarning):
    """Base class of graphanon's warnings."""


class DegreeBoundWarning(GraphAnonWarning):
    """No public degree bound was given; ``|nodes| − 1`` of the public universe is used."""


class CommentLikeIdWarning(GraphAnonWarning):
    """A text edge list or ``user<TAB>feature`` list holds ids that start with ``%``, the
    comment mark of KONECT and Matrix Market files: in graphanon's text lists only ``#``
    starts a comment, so a ``% header`` line was read as data."""


class DataDependentFeaturesWarning(GraphAnonWarning):
    """A table's numeric columns were cut at points computed from the data itself (its
    median or quantiles): every user's features then depend on every other row, and the
    median appears in the feature names."""


class RealIdsWarning(GraphAnonWarning):
    """An anonymized output was written with the real user or node ids (``--keep-ids``,
    ``keep_ids = true``, ``keep_ids=True``): the output then tells anyone who is in the data."""


class InsecureNoiseWarning(GraphAnonWarning):
    """Noise for a release was drawn from the seeded, insecure numpy backend."""


class ReproductionWarning(GraphAnonWarning):
    """A paper variant (:mod:`graphanon.reproduce`) ran: it reproduces a paper as written and
    is weaker than — or not at all — the secure mechanism of the same name."""


class InsecureReproductionWarning(ReproductionWarning):
    """The thesis's observed-domain dK release: not differentially private."""


class LooseSensitivityWarning(ReproductionWarning):
    """The thesis's Lemma 5 calibration: valid, but needlessly noisy."""


class NodeSensitivityWarning(ReproductionWarning):
    """Stable-Edge-Removal as a release projection: its cascades break the node sensitivity
    bound, so the release claims no privacy."""


class PersonalizedCalibrationWarning(ReproductionWarning):
    """The chapter-8 personalized calibrations, which fail the personalized audit."""


class UnstableOrderingWarning(ReproductionWarning):
    """A projection ordering that is not stable under node-neighbouring graphs was used."""
