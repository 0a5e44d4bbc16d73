"""MinHash LSH sharding of users (``000_*.txt`` Appendix D).

For each user, ``n_hashes`` independent MinHash values over its feature set; users are sorted
lexicographically by them (shingle sorting, Chierichetti et al. 2009) so that users with
similar feature sets are close in the sequence, and the sequence is cut into consecutive
chunks that are anonymized independently.

The pieces (hash parameters, signatures of a block of rows, the order, the chunk bounds and
the per-chunk seeds) are separate functions so that the distributed engine
(:mod:`graphanon.distributed`) computes them per partition and reproduces the single-machine
sharded run exactly: the random draws happen in the same order on the same generator
(``a``, ``b`` of the hashes, then one seed per chunk), signatures depend only on a user's row
in global feature indices, and ties in the order are broken by the user index (the sorted
user id).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_int
from ..errors import InfeasibleError
from ..graph import BipartiteGraph

__all__ = [
    "child_seed",
    "chunk_bounds",
    "chunk_seeds",
    "lsh_shards",
    "minhash_params",
    "minhash_rows",
    "minhash_signatures",
    "signature_order",
]

_EMPTY = np.iinfo(np.uint64).max
_C1 = np.uint64(0xFF51AFD7ED558CCD)  # MurmurHash3's 64-bit finalizer (a bijection)
_C2 = np.uint64(0xC4CEB9FE1A85EC53)
_S33 = np.uint64(33)
_S32 = np.uint64(32)


def _fmix64(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """MurmurHash3's finalizer on a ``uint64`` array (wrapping arithmetic, a bijection)."""
    x = x ^ (x >> _S33)
    x = x * _C1
    x = x ^ (x >> _S33)
    x = x * _C2
    out: np.ndarray[Any, Any] = x ^ (x >> _S33)
    return out


def minhash_params(n_hashes: int, rng: np.random.Generator
                   ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The keys ``a_t, b_t`` of the hash functions ``h_t`` of :func:`minhash_rows` (two draws
    from ``rng``)."""
    a = rng.integers(1, 2**31 - 1, size=n_hashes).astype(np.uint64)
    b = rng.integers(0, 2**31 - 1, size=n_hashes).astype(np.uint64)
    return a, b


def minhash_rows(indptr: Any, indices: Any, a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]
                 ) -> np.ndarray[Any, Any]:
    """``(n_rows, n_hashes)`` MinHash values of the rows of a CSR block whose ``indices`` are
    global feature indices; a row without features gets the largest value.

    ``h_t(f) = fmix64(f ⊕ (a_t·2³² + b_t))`` with MurmurHash3's 64-bit finalizer: a
    pseudo-random permutation of the feature indices per ``t``. (The former
    ``(a_t·f + b_t) mod (2⁶¹ − 1)`` with ``a_t < 2³¹`` never wrapped for feature indices
    below 2³⁰, so it was increasing in ``f``: every "hash" picked the smallest feature index
    and the sort was by that index alone.)"""
    indptr = np.asarray(indptr, dtype=np.int64)
    n = indptr.size - 1
    deg = np.diff(indptr)
    nonempty = deg > 0
    starts = indptr[:-1][nonempty]
    f = np.asarray(indices, dtype=np.uint64)
    sig = np.full((n, a.size), _EMPTY, dtype=np.uint64)
    keys = (np.asarray(a, dtype=np.uint64) << _S32) ^ np.asarray(b, dtype=np.uint64)
    for t in range(keys.size):
        h = np.minimum(_fmix64(f ^ keys[t]), _EMPTY - np.uint64(1))
        if starts.size:
            sig[nonempty, t] = np.minimum.reduceat(h, starts)
    return sig


def minhash_signatures(B: BipartiteGraph, *, n_hashes: int, rng: np.random.Generator
                       ) -> np.ndarray[Any, Any]:
    """``(n_users, n_hashes)`` MinHash values: ``min_{f ∈ F_u} h_t(f)`` with ``h_t`` a keyed
    64-bit hash of the feature index (fresh random keys; see :func:`minhash_rows`). A user
    without features gets the largest value (all such users sort together)."""
    n_hashes = check_int(n_hashes, "n_hashes", "minhash_signatures", low=1, high=64)
    a, b = minhash_params(n_hashes, rng)
    return minhash_rows(B.indptr, B.indices, a, b)


def signature_order(sig: np.ndarray[Any, Any], tiebreak: Any = None) -> np.ndarray[Any, Any]:
    """Positions sorted lexicographically by the signature (first hash is the primary key),
    ties broken by ``tiebreak`` (default: the row position, i.e. the user index)."""
    keys = list(sig.T[::-1])
    if tiebreak is not None:
        keys.insert(0, np.asarray(tiebreak))
    return np.lexsort(keys) if keys else np.arange(sig.shape[0])


def chunk_bounds(n_users: int, shard_size: int) -> np.ndarray[Any, Any]:
    """Start positions of the chunks in the sorted order, plus ``n_users``: chunks of
    ``shard_size``, the remainder added to the last one."""
    n_chunks = max(1, n_users // shard_size)
    bounds = np.arange(n_chunks + 1, dtype=np.int64) * shard_size
    bounds[-1] = n_users
    return bounds


def chunk_seeds(rng: np.random.Generator, n_chunks: int) -> np.ndarray[Any, Any]:
    """One seed per chunk for its facility-location runs (one draw from ``rng``)."""
    return rng.integers(0, 2**63 - 1, size=n_chunks)


def child_seed(rng: np.random.Generator) -> int:
    """The seed of an unsharded run (one draw from ``rng``)."""
    return int(rng.integers(0, 2**63 - 1))


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
    order = signature_order(sig)
    bounds = chunk_bounds(n, shard_size)
    return [order[bounds[i]:bounds[i + 1]] for i in range(bounds.size - 1)]
