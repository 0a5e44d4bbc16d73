"""Differential privacy core: noise backends, release records, accounting, audits, mechanisms.

Submodules: :mod:`.noise` (OpenDP secure default, seeded numpy backend named insecure),
:mod:`.release` (the :class:`Release` record), :mod:`.accountant` (sequential composition with
a JSON ledger), :mod:`.audit` (brute-force sensitivity audits used by the tests) and the
mechanisms (e.g. :mod:`.randomized_response`).
"""

from .noise import InsecureNoiseWarning, NoiseBackend, dp_scale, get_backend
from .release import NEIGHBOURHOODS, Release

__all__ = [
    "NEIGHBOURHOODS",
    "InsecureNoiseWarning",
    "NoiseBackend",
    "Release",
    "dp_scale",
    "get_backend",
]
