"""Keyed pseudonyms for the ids in published outputs.

A k-anonymous or randomized user–feature list that keeps real user ids (``alice``) tells
everyone who is in it and which row is whose: the guarantee is about the *features* of a
row, not about its label. Every anonymized output therefore replaces user (and node) ids by
pseudonyms by default.

``pseudonym(id) = "u" + hex(BLAKE2b-80(key = K_s, text(id)))`` — keyed BLAKE2b with an
80-bit digest, a PRF — with the scope key ``K_s = HMAC-SHA256(K_p, scope)``, where

- ``text(id)`` is the canonical text of the id (:mod:`graphanon._ids`: ``7`` and ``"7"`` get
  the same pseudonym);
- ``K_p = HMAC-SHA256(K, "graphanon/pseudonym")`` is derived from the operator's secret key
  ``K`` (the key of :func:`graphanon.privacy.release.keyed_fingerprint`:
  ``GRAPHANON_FINGERPRINT_KEY`` or ``$GRAPHANON_HOME/fingerprint.key``, see
  :mod:`graphanon.privacy.keys`: a damaged key file is refused, never used), so it never
  leaves the operator and is separate from the fingerprint's use of ``K``;
- ``scope`` is the release id by default: two releases of the same people use unrelated
  pseudonyms and cannot be joined on them. An operator who *wants* stable pseudonyms across
  releases passes a fixed scope (and accepts that the releases can then be linked).

``K_s`` alone can be handed to workers that write a release (the distributed smooth-k): it
pseudonymizes that one scope and reveals nothing about ``K`` or other scopes.

Without the key a pseudonym reveals nothing about the id (HMAC is a PRF); with the key and
the scope the operator can recompute the mapping at any time, so no mapping file needs to
exist. When one is written (``--pseudonym-map``) it is operator material and never lies in
the folder of the published output. 80 bits make a collision among 10⁸ users about 4·10⁻⁹
likely; a collision is detected and refused, never published.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING, Any

import numpy as np

from .._ids import canonical_ids, ids_as_text
from ..errors import GraphAnonError

if TYPE_CHECKING:
    from ..graph import BipartiteGraph

__all__ = ["PSEUDONYM_HEX", "pseudonymize", "pseudonymize_with_key", "pseudonymous_rows",
           "scope_key"]

#: Hex characters of a pseudonym (80 bits).
PSEUDONYM_HEX = 20
_DOMAIN = b"graphanon/pseudonym"


def _pseudonym_key() -> bytes:
    from .release import _fingerprint_key

    return hmac.new(_fingerprint_key(), _DOMAIN, hashlib.sha256).digest()


def scope_key(scope: str) -> bytes:
    """``K_s``: the key of one pseudonym scope (derived from the operator's key)."""
    return hmac.new(_pseudonym_key(), scope.encode("utf-8"), hashlib.sha256).digest()


def pseudonymize(ids: Any, *, scope: str, prefix: str = "u") -> np.ndarray[Any, Any]:
    """Keyed pseudonyms of ``ids`` (an ``object`` array of ``str``, aligned with ``ids``).

    Parameters
    ----------
    ids : array-like
        Ids in any form :func:`graphanon._ids.canonical_ids` accepts.
    scope : str
        Separates pseudonym spaces; use the release id (the default everywhere in graphanon)
        so that two releases cannot be joined on their pseudonyms.
    prefix : str
        Prepended to each pseudonym (``"u"`` users, ``"n"`` nodes).

    Raises
    ------
    GraphAnonError
        Two distinct ids got the same pseudonym (about 4·10⁻⁹ for 10⁸ ids): nothing is
        published.
    """
    return pseudonymize_with_key(ids, scope_key(scope), prefix=prefix)


def pseudonymize_with_key(ids: Any, key: bytes, *, prefix: str = "u") -> np.ndarray[Any, Any]:
    """:func:`pseudonymize` under a scope key ``K_s`` (:func:`scope_key`)."""
    text = ids_as_text(canonical_ids(ids, "ids"))
    blake = hashlib.blake2b
    size = PSEUDONYM_HEX // 2
    out = np.asarray([prefix + blake(x.encode("utf-8"), key=key, digest_size=size).hexdigest()
                      for x in text.tolist()], dtype=object)
    if len(set(out.tolist())) != len(set(text.tolist())):
        raise GraphAnonError(
            "two ids received the same pseudonym (an 80-bit collision); nothing was written. "
            "Run again: the next release id gives fresh pseudonyms.")
    return out


def warn_real_ids(option: str) -> None:
    """The :class:`~graphanon.errors.RealIdsWarning` of an output written with real ids
    (``option`` names the switch the caller used)."""
    import warnings

    from ..errors import RealIdsWarning

    warnings.warn(f"{option}: the output lists the real ids, which tells anyone who is in "
                  "the data.", RealIdsWarning, stacklevel=3)


def pseudonymous_rows(B: BipartiteGraph, names: np.ndarray[Any, Any]) -> BipartiteGraph:
    """``B`` as it is published: its user ids replaced by ``names`` (their pseudonyms, from
    :func:`pseudonymize`, aligned with ``B.user_ids``) **and its rows put in pseudonym
    order**.

    Renaming alone is not enough: a graph's rows are in the sorted order of the real ids, so a
    reader who knows the set of users (a randomized-response universe is public by design)
    would pair them, sorted, with the rows and undo every pseudonym. Sorted by pseudonym, the
    order is that of a keyed PRF of the ids: without the key it says nothing about them.
    """
    from ..graph import BipartiteGraph

    order = np.argsort(names.astype(str), kind="stable")
    deg = np.diff(B.indptr)[order]
    indptr = np.zeros(B.n_users + 1, dtype=np.int64)
    np.cumsum(deg, out=indptr[1:])
    gather = (np.repeat(B.indptr[order].astype(np.int64) - indptr[:-1], deg)
              + np.arange(int(indptr[-1]), dtype=np.int64))
    return BipartiteGraph(
        indptr.astype(B.indptr.dtype, copy=False), B.indices[gather], B.n_features,
        user_ids=names[order], feature_ids=B.feature_ids,
        user_attributes={k: np.asarray(v)[order] for k, v in B.user_attributes.items()},
        validate=False)
