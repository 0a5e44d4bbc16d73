"""MinHash LSH sharding of users (``000_*.txt`` Appendix D).

For each user, ``n_hashes`` independent MinHash values over its feature set; users are sorted
lexicographically by them (shingle sorting, Chierichetti et al. 2009) so that users with
similar feature sets are close in the sequence, and the sequence is cut into consecutive
chunks that are anonymized independently.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_int
from ..errors import InfeasibleError
from ..graph import BipartiteGraph

__all__ = ["lsh_shards", "minhash_signatures"]

_P = np.uint64((1 << 61) - 1)  # Mersenne prime for the universal hash


def minhash_signatures(B: BipartiteGraph, *, n_hashes: int, rng: np.random.Generator
                       ) -> np.ndarray[Any, Any]:
    """``(n_users, n_hashes)`` MinHash values: ``min_{f ∈ F_u} h_t(f)`` with
    ``h_t(f) = (a_t·f + b_t) mod p`` on the feature index (a fresh random ``a_t, b_t``).
    A user without features gets the largest value (all such users sort together)."""
    n_hashes = check_int(n_hashes, "n_hashes", "minhash_signatures", low=1, high=64)
    n = B.n_users
    deg = np.diff(np.asarray(B.indptr, dtype=np.int64))
    nonempty = deg > 0
    starts = np.asarray(B.indptr[:-1], dtype=np.int64)[nonempty]
    f = np.asarray(B.indices, dtype=np.uint64)
    sig = np.full((n, n_hashes), np.iinfo(np.uint64).max, dtype=np.uint64)
    a = rng.integers(1, 2**31 - 1, size=n_hashes).astype(np.uint64)
    b = rng.integers(0, 2**31 - 1, size=n_hashes).astype(np.uint64)
    for t in range(n_hashes):
        # a < 2^31 and f < 2^32 keep a·f + b below 2^63: no overflow before the modulus
        h = (a[t] * f + b[t]) % _P
        if starts.size:
            sig[nonempty, t] = np.minimum.reduceat(h, starts)
    return sig


def lsh_shards(B: BipartiteGraph, *, shard_size: int, n_hashes: int = 4,
               rng: np.random.Generator) -> list[np.ndarray[Any, Any]]:
    """Cut the MinHash-sorted users into chunks of ``shard_size`` users.

    The remainder is added to the last chunk, so every chunk has between ``shard_size`` and
    ``2·shard_size − 1`` users (a single chunk if there are fewer than ``2·shard_size``).
    Returns the user indices of each chunk.
    """
    shard_size = check_int(shard_size, "shard_size", "lsh_shards", low=1)
    n = B.n_users
    if n == 0:
        raise InfeasibleError("cannot shard a graph without users.")
    sig = minhash_signatures(B, n_hashes=n_hashes, rng=rng)
    order = np.lexsort(sig.T[::-1])  # first hash is the primary key
    n_chunks = max(1, n // shard_size)
    bounds = [i * shard_size for i in range(n_chunks)] + [n]
    return [order[bounds[i]:bounds[i + 1]] for i in range(n_chunks)]
