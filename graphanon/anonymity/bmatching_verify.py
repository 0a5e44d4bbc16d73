"""The verifier of adaptive anonymity (Choromanski, Jebara & Tang, NIPS 2013; ``003_*.txt``):
the compatibility graph between original and released rows, the true matching in it, every
user's degree ≥ δ_i (and, for the symmetric variant, Lemma 4.5's symmetric degree).

It checks a release on its own: :mod:`.bmatching` runs it on every output it makes, and a
caller can run it on any release whose key (``owner``) it holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._validation import fail
from ..errors import InvalidParameterError
from . import _bmatch_kernels as K
from ._bmatch_encode import MASKED, _as_codes, _check_delta, _encode, _pack

__all__ = ["AnonymityVerification", "verify_adaptive_anonymity"]

@dataclass(frozen=True)
class AnonymityVerification:
    """Outcome of :func:`verify_adaptive_anonymity`."""

    ok: bool
    n: int
    min_slack: int  # min over users of (compatibility degree − δ_i), both sides
    original_degree_min: int
    released_degree_min: int
    perfect_matching: bool
    symmetric_checked: bool
    violations: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok, "min_slack": self.min_slack,
            "original_degree_min": self.original_degree_min,
            "released_degree_min": self.released_degree_min,
            "perfect_matching": self.perfect_matching,
            "symmetric_checked": self.symmetric_checked,
            "violations": list(self.violations[:20]), "n_violations": len(self.violations),
        }


def verify_adaptive_anonymity(
    X: Any, Y: Any, delta: Any, *, owner: Any = None, symmetric: bool = False
) -> AnonymityVerification:
    """Check that a release ``Y`` gives every user their anonymity level.

    Builds the compatibility graph between the original rows ``X`` and the released rows
    ``Y`` (``x_i`` ~ ``y_r`` when they agree on every unmasked cell of ``y_r``) and checks

    1. the true matching is a perfect matching of it: ``x_{owner[r]}`` ~ ``y_r`` for all r
       (``owner=None``: ``Y`` is in the order of ``X``, ``owner`` = identity);
    2. every original row i is compatible with ≥ δ_i released rows, and every released row r
       with ≥ δ_{owner[r]} original rows;
    3. with ``symmetric=True``: the compatibility graph restricted to symmetric pairs (y of i
       ~ x_j and y of j ~ x_i) still gives user i degree ≥ δ_i (Lemma 4.5's hypothesis).

    Parameters
    ----------
    X
        Original data (BipartiteGraph or n × d integer codes).
    Y
        Released data: n × d codes with :data:`MASKED` (-1) for ``*``.
    delta
        Levels per original row (int or array).
    owner
        The secret key: released row r belongs to original row ``owner[r]``.

    Returns
    -------
    AnonymityVerification
        ``ok`` and one precise message per violation.
    """
    codes, _, _ = _as_codes(X, "verify_adaptive_anonymity")
    n, d = codes.shape
    Yc = np.asarray(Y)
    if Yc.shape != (n, d):
        raise fail("Y", "verify_adaptive_anonymity", f"an array of shape ({n}, {d})", Yc.shape)
    dl = _check_delta(delta, n, "verify_adaptive_anonymity")
    if owner is None:
        own = np.arange(n, dtype=np.int64)
    else:
        own = np.asarray(owner, dtype=np.int64)
        if own.shape != (n,) or not np.array_equal(np.sort(own), np.arange(n)):
            raise fail("owner", "verify_adaptive_anonymity", "a permutation of range(n)",
                       own.shape)
    if Yc.size and (not np.issubdtype(Yc.dtype, np.number)
                    or not np.array_equal(Yc, np.round(Yc))):
        raise fail("Y", "verify_adaptive_anonymity", f"integer codes or {MASKED} (masked)",
                   Yc.dtype)
    width = codes.max(axis=0).astype(np.int64) + 1 if n else np.zeros(d, dtype=np.int64)
    bad = (Yc != MASKED) & ((Yc < 0) | (Yc >= width[None, :]))
    if bad.any():  # a code no row holds would be read as another category
        r, k = (int(x) for x in np.argwhere(bad)[0])
        raise InvalidParameterError(
            f"verify_adaptive_anonymity: released row {r}, attribute {k} holds "
            f"{Yc[r, k].item()!r}, neither masked ({MASKED}) nor a code of that attribute "
            f"(0..{width[k] - 1}).")
    return _verify_impl(codes, Yc.astype(np.int32), dl, own, symmetric=symmetric)


def _verify_impl(
    codes: npt.NDArray[np.int32], Y: npt.NDArray[np.int32], dl: npt.NDArray[np.int64],
    own: npt.NDArray[np.int64], *, symmetric: bool,
) -> AnonymityVerification:
    n, d = codes.shape
    vio: list[str] = []
    known = Y != MASKED
    bad_known = known & (Y != codes[own])
    # packed bits: compatibility = agreement on all known attributes' bits
    enc = _encode(codes)
    Yfill = np.where(known, Y, 0)
    if enc.binary:
        ybits = _pack(Yfill.astype(bool))
        ymask = _pack(known)
    else:
        Yfill = np.minimum(Yfill, enc.widths[None, :] - 1)
        oh = np.zeros((n, enc.n_bits), dtype=bool)
        kb = np.zeros((n, enc.n_bits), dtype=bool)
        for k in range(d):
            s, w = enc.starts[k], enc.widths[k]
            oh[np.arange(n), s + Yfill[:, k]] = True
            kb[:, s:s + w] = known[:, k:k + 1]
        ybits, ymask = _pack(oh & kb), _pack(kb)
    true_ok = K.pair_compatible(enc.bits, ybits, ymask, own, np.arange(n, dtype=np.int64))
    for r in np.flatnonzero(~true_ok)[:50]:
        k = int(np.flatnonzero(bad_known[r])[0]) if bad_known[r].any() else -1
        vio.append(f"released row {r} is not compatible with its own original row "
                   f"{int(own[r])} (attribute {k})")
    deg_x, deg_y = K.compatibility_degrees(enc.bits, ybits, ymask)
    need_y = dl[own]
    for i in np.flatnonzero(deg_x < dl)[:50]:
        vio.append(f"original row {i} is compatible with {int(deg_x[i])} released rows < "
                   f"δ={int(dl[i])}")
    for r in np.flatnonzero(deg_y < need_y)[:50]:
        vio.append(f"released row {r} is compatible with {int(deg_y[r])} original rows < "
                   f"δ={int(need_y[r])}")
    slack = int(min((deg_x - dl).min(), (deg_y - need_y).min())) if n else 0
    if symmetric:
        # Y in original order: user i's released row is Y[pos[i]]
        pos = np.empty(n, dtype=np.int64)
        pos[own] = np.arange(n)
        sdeg = _symmetric_degrees(enc.bits, ybits[pos], ymask[pos])
        for i in np.flatnonzero(sdeg < dl)[:50]:
            vio.append(f"user {i} has symmetric compatibility degree {int(sdeg[i])} < "
                       f"δ={int(dl[i])}")
    return AnonymityVerification(
        ok=not vio, n=n, min_slack=slack,
        original_degree_min=int(deg_x.min()) if n else 0,
        released_degree_min=int(deg_y.min()) if n else 0,
        perfect_matching=bool(true_ok.all()), symmetric_checked=symmetric,
        violations=tuple(vio),
    )


def _symmetric_degrees(xbits: Any, ybits: Any, ymask: Any) -> npt.NDArray[np.int64]:
    from ._bmatch_kernels import symmetric_degrees

    return np.asarray(symmetric_degrees(xbits, ybits, ymask))
