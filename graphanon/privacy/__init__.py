"""The differential-privacy core every mechanism uses (no mechanisms live here).

Submodules: :mod:`.noise` (OpenDP secure default, seeded numpy backend named insecure),
:mod:`.release` (the :class:`Release` record), :mod:`.accountant` (sequential composition with
a JSON ledger), :mod:`.audit` (brute-force sensitivity audits used by the tests) and
:mod:`.pseudonyms` (keyed per-release pseudonyms). The mechanisms are in their families:
:mod:`graphanon.dk`, :mod:`graphanon.nodedp`, :mod:`graphanon.anonymity` (docs/architecture.md).
The old module paths (``graphanon.privacy.node_dp``, ``.rps``, ``.personalized``,
``.preferences``, ``.randomized_response``) still import, with a ``DeprecationWarning``.
"""

from typing import TYPE_CHECKING, Any

from .release import NEIGHBOURHOODS, Release

if TYPE_CHECKING:  # pragma: no cover
    from .noise import InsecureNoiseWarning, NoiseBackend, dp_scale, get_backend

_NOISE = ("InsecureNoiseWarning", "NoiseBackend", "dp_scale", "get_backend")


def __getattr__(name: str) -> Any:
    """The noise names on first use (OpenDP and numpy load only when noise is drawn)."""
    if name in _NOISE:
        from . import noise

        return getattr(noise, name)
    raise AttributeError(f"module 'graphanon.privacy' has no attribute {name!r}")

__all__ = [
    "NEIGHBOURHOODS",
    "InsecureNoiseWarning",
    "NoiseBackend",
    "Release",
    "dp_scale",
    "get_backend",
]
