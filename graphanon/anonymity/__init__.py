"""Publishing user × feature (bipartite) graphs: the k-anonymity family and its DP baseline.

Syntactic anonymity (no ε): smooth-k-anonymity (facility location + majority vote,
:mod:`.smooth_k`), k-anonymity by suppression, Mondrian (:mod:`.mondrian`), LSH sharding
(:mod:`.lsh`) and the Definition 3.5 checker (:mod:`.verify`); adaptive anonymity through
b-matching, where every user chooses their own level δ_i, with its agglomerative k-anonymity
baseline (:mod:`.bmatching`). The differentially private baseline those papers compare
against is randomized response on the user × feature matrix (:mod:`.randomized_response`,
edge- or node-DP).
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
from .randomized_response import RandomizedResponseResult, randomized_response
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
    "RandomizedResponseResult",
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
    "randomized_response",
    "release_clusters",
    "smooth_k_anonymity",
    "symmetric_b_matching_anonymity",
    "verify_adaptive_anonymity",
    "verify_smooth_k",
]
