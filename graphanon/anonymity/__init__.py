"""Syntactic anonymity of user × feature graphs (the k-anonymity family, not DP).

Smooth-k-anonymity (facility location + majority vote), k-anonymity by suppression, Mondrian,
LSH sharding and the Definition 3.5 checker; adaptive anonymity through b-matching, where
every user chooses their own level δ_i, with its agglomerative k-anonymity baseline.
"""

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
from .lsh import lsh_shards, minhash_signatures
from .mondrian import MondrianResult, mondrian, mondrian_table
from .smooth_k import (
    SmoothKResult,
    cluster_users,
    minhash_baseline,
    release_clusters,
    smooth_k_anonymity,
)
from .verify import SmoothKReport, verify_smooth_k

__all__ = [
    "AdaptiveAnonymityResult",
    "AnonymityVerification",
    "MondrianResult",
    "SmoothKReport",
    "SmoothKResult",
    "adaptive_anonymize",
    "agglomerative_k_anonymity",
    "b_matching_anonymity",
    "cluster_users",
    "delta_from_degree",
    "lsh_shards",
    "minhash_baseline",
    "minhash_signatures",
    "mondrian",
    "mondrian_table",
    "release_clusters",
    "smooth_k_anonymity",
    "symmetric_b_matching_anonymity",
    "verify_adaptive_anonymity",
    "verify_smooth_k",
]
