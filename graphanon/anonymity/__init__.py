"""k-anonymity of user × feature graphs: smooth-k (facility location), suppression, Mondrian,
LSH sharding and the Definition 3.5 checker."""

from .lsh import lsh_shards, minhash_signatures
from .mondrian import MondrianResult, mondrian, mondrian_table
from .smooth_k import SmoothKResult, cluster_users, release_clusters, smooth_k_anonymity
from .verify import SmoothKReport, verify_smooth_k

__all__ = [
    "MondrianResult",
    "SmoothKReport",
    "SmoothKResult",
    "cluster_users",
    "lsh_shards",
    "minhash_signatures",
    "mondrian",
    "mondrian_table",
    "release_clusters",
    "smooth_k_anonymity",
    "verify_smooth_k",
]
