"""Anonymity mechanisms for user × attribute data (syntactic models: k-anonymity family)."""

from .bmatching import (
    AdaptiveAnonymityResult,
    AnonymityVerification,
    adaptive_anonymize,
    agglomerative_k_anonymity,
    b_matching_anonymity,
    delta_from_degree,
    symmetric_b_matching_anonymity,
    verify_adaptive_anonymity,
)

__all__ = [
    "AdaptiveAnonymityResult",
    "AnonymityVerification",
    "adaptive_anonymize",
    "agglomerative_k_anonymity",
    "b_matching_anonymity",
    "delta_from_degree",
    "symmetric_b_matching_anonymity",
    "verify_adaptive_anonymity",
]
