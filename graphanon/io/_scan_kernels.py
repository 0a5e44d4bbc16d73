"""numba kernels of :mod:`graphanon.io._scan`: one pass over the bytes of a text edge list.

The rules (lines, comments, fields, canonical integers) are those of :mod:`._scan`, whose
pure-Python scanner is the reference these kernels are tested against.

Status codes of :func:`scan` (``out[0]``):

* ``0`` done;
* ``1`` a token is not a canonical integer: scan again with ``text=True``;
* ``2`` a row with fewer than two fields, or an empty id;
* ``3`` a row with more than two fields where exactly two are allowed;
* ``4`` a row with another number of fields than the first data row;
* ``5`` the first data row has more than two fields (exactly two allowed, rows skipped);
* ``6`` an id that is not valid UTF-8 (``text=True``).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from .. import _numba  # noqa: F401  (numba's per-user cache folder)
from .._ids_kernels import _mix  # fmix64, the same mixer as the id keys

_FNV_BASIS = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_I64_MAX_U = np.uint64(9223372036854775807)

# fields of the int64 status record returned by scan(); MIN0..MAX1: the least and greatest
# id of each column (integer ids)
(ST, LINE, LSTART, LEND, NFIELDS, NONEMPTY, EXPECTED, ROWS, SKIPPED, FIRST_FIELDS,
 MIN0, MAX0, MIN1, MAX1) = range(14)
_I64_MIN = np.iinfo(np.int64).min
_I64_MAX = np.iinfo(np.int64).max


@numba.njit(cache=True, nogil=True)
def line_breaks(buf: Any, lo: int, hi: int) -> int:  # pragma: no cover
    """How many ``\\n`` and ``\\r`` bytes ``buf[lo:hi]`` holds (lines, at most, minus
    one)."""
    count = 0
    for i in range(lo, hi):
        c = buf[i]
        if c == 10 or c == 13:
            count += 1
    return count


@numba.njit(cache=True, inline="always")
def _hash_bytes(buf: Any, s: int, e: int) -> Any:  # pragma: no cover
    h = _FNV_BASIS
    for p in range(s, e):
        h = (h ^ np.uint64(buf[p])) * _FNV_PRIME
    return _mix(h ^ np.uint64(e - s))


@numba.njit(cache=True)
def _utf8_ok(buf: Any, s: int, e: int) -> bool:  # pragma: no cover
    """Strict UTF-8 (no overlong forms, no surrogates, at most U+10FFFF), as Python."""
    p = s
    while p < e:
        c = buf[p]
        if c < 0x80:
            p += 1
            continue
        if 0xC2 <= c <= 0xDF:
            need = 1
            lo = 0x80
            hi = 0xBF
        elif c == 0xE0:
            need = 2
            lo = 0xA0
            hi = 0xBF
        elif 0xE1 <= c <= 0xEC or c == 0xEE or c == 0xEF:
            need = 2
            lo = 0x80
            hi = 0xBF
        elif c == 0xED:
            need = 2
            lo = 0x80
            hi = 0x9F
        elif c == 0xF0:
            need = 3
            lo = 0x90
            hi = 0xBF
        elif 0xF1 <= c <= 0xF3:
            need = 3
            lo = 0x80
            hi = 0xBF
        elif c == 0xF4:
            need = 3
            lo = 0x80
            hi = 0x8F
        else:
            return False
        if p + need >= e:
            return False
        c1 = buf[p + 1]
        if c1 < lo or c1 > hi:
            return False
        for k in range(2, need + 1):
            ck = buf[p + k]
            if ck < 0x80 or ck > 0xBF:
                return False
        p += need + 1
    return True


@numba.njit(cache=True)
def _parse_int(buf: Any, s: int, e: int) -> Any:  # pragma: no cover
    """``(ok, value)``: ``buf[s:e]`` matches ``0|-?[1-9][0-9]*`` within int64."""
    p = s
    neg = False
    if p < e and buf[p] == 45:  # '-'
        neg = True
        p += 1
    if p >= e or e - p > 19:
        return False, 0
    if buf[p] == 48:  # '0': only "0" itself is canonical
        if e - p != 1 or neg:
            return False, 0
        return True, 0
    u = np.uint64(0)
    while p < e:
        c = buf[p]
        if c < 48 or c > 57:
            return False, 0
        u = u * np.uint64(10) + np.uint64(c - 48)
        p += 1
    if neg:
        if u > _I64_MAX_U + np.uint64(1):
            return False, 0
        return True, -np.int64(u - np.uint64(1)) - np.int64(1)
    if u > _I64_MAX_U:
        return False, 0
    return True, np.int64(u)


@numba.njit(cache=True, nogil=True)
def scan(buf: Any, start: int, stop: int, tabs: bool, exact: bool, skip_bad: bool, text: bool,
         col0: Any, col1: Any, len0: Any, len1: Any, row0: int) -> Any:  # pragma: no cover
    """Split ``buf[start:stop]`` into lines and the first two fields of each data line,
    written to ``col0``, ``col1`` (and ``len0``, ``len1``) from row ``row0`` on.

    Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r``. A line whose first character other
    than space and tab is ``#`` is a comment. Fields are separated by runs of spaces and
    tabs (``tabs=False``; such a line with nothing else is blank) or by single tabs
    (``tabs=True``: fields are verbatim, may be empty, and only an empty line is blank).

    With ``text=False`` the two id columns are parsed as canonical ``int64`` (status 1 as
    soon as one token is not canonical). With ``text=True`` the two columns are the start
    of each id in ``buf`` and ``len0``, ``len1`` their lengths; every id is checked to be
    UTF-8.

    Returns ``status``, an int64 record indexed by the constants of this module (``LINE``
    counts from the first line of ``buf[start:stop]``; ``ROWS`` the rows written; ``MIN0``
    to ``MAX1`` the bounds of the integer ids of each column, for the rank table). Releases
    the GIL: line-aligned parts of one text are scanned at the same time.
    """
    n = stop
    out = np.zeros(14, dtype=np.int64)
    lo0 = lo1 = _I64_MAX
    hi0 = hi1 = _I64_MIN
    expected = -1
    rows = row0
    skipped = 0
    line = 0
    pos = start
    while pos < n:
        line += 1
        ls = pos
        p = pos
        while p < n and (buf[p] == 32 or buf[p] == 9):
            p += 1
        c = buf[p] if p < n else 10
        eol = c == 10 or c == 13
        if c == 35 or (eol and (not tabs or p == ls)):  # comment or blank line
            while p < n and buf[p] != 10 and buf[p] != 13:
                p += 1
            pos = p + 2 if p + 1 < n and buf[p] == 13 and buf[p + 1] == 10 else p + 1
            continue
        # fields: the first two are kept, the others counted
        f0s = f0e = f1s = f1e = -1
        v0 = v1 = 0
        ok0 = ok1 = False
        nf = 0
        nonempty = 0
        if tabs:
            p = ls
            while True:
                fs = p
                while p < n:
                    c = buf[p]
                    if c == 9 or c == 10 or c == 13:
                        break
                    p += 1
                if nf == 0:
                    f0s = fs
                    f0e = p
                elif nf == 1:
                    f1s = fs
                    f1e = p
                nf += 1
                if p > fs:
                    nonempty += 1
                if p < n and buf[p] == 9:
                    p += 1
                else:
                    break
        else:
            while True:
                fs = p
                acc = 0  # the field's digits as a number, read on the way (integer ids)
                bad = False
                while p < n:
                    c = buf[p]
                    if c == 32 or c == 9 or c == 10 or c == 13:
                        break
                    d = int(c) - 48
                    bad |= d < 0 or d > 9
                    acc = acc * 10 + d
                    p += 1
                if nf == 0:
                    f0s = fs
                    f0e = p
                    v0 = acc
                    ok0 = not bad and 0 < p - fs < 19 and (buf[fs] != 48 or p - fs == 1)
                elif nf == 1:
                    f1s = fs
                    f1e = p
                    v1 = acc
                    ok1 = not bad and 0 < p - fs < 19 and (buf[fs] != 48 or p - fs == 1)
                nf += 1
                while p < n and (buf[p] == 32 or buf[p] == 9):
                    p += 1
                if p >= n or buf[p] == 10 or buf[p] == 13:
                    break
            nonempty = nf
        le = p
        pos = p + 2 if p + 1 < n and buf[p] == 13 and buf[p + 1] == 10 else p + 1
        # the row's shape
        status = 0
        skip_ok = True
        if nf < 2 or f0e == f0s or f1e == f1s:
            status = 2
            skip_ok = not (expected < 0 and nf < 2)  # the first data row fixes the shape
        elif exact and nf > 2:
            status = 5 if (expected < 0 and skip_bad) else 3
            skip_ok = expected >= 0
        elif expected >= 0 and nf != expected:
            status = 4
        if status != 0 and skip_bad and skip_ok and expected < 0 and exact and nf > 2:
            status = 5  # a skipped first row still fixes the shape: it cannot be 2 fields
            skip_ok = False
        if status != 0 and skip_bad and skip_ok:
            if expected < 0:
                expected = nf
            skipped += 1
            continue
        if status == 0 and text and not (_utf8_ok(buf, f0s, f0e) and _utf8_ok(buf, f1s, f1e)):
            status = 6
        if status != 0:
            out[ST] = status
            out[LINE] = line
            out[LSTART] = ls
            out[LEND] = le
            out[NFIELDS] = nf
            out[NONEMPTY] = nonempty
            out[EXPECTED] = expected
            out[ROWS] = rows - row0
            return out
        if expected < 0:
            expected = nf
        # the ids
        if text:
            col0[rows] = f0s
            col1[rows] = f1s
            len0[rows] = f0e - f0s
            len1[rows] = f1e - f1s
        else:
            if ok0 and ok1:  # plain digits (whitespace mode), parsed by the field loop
                x = v0
                y = v1
            else:
                ok, x = _parse_int(buf, f0s, f0e)
                oky, y = _parse_int(buf, f1s, f1e)
                if not (ok and oky):
                    out[ST] = 1
                    return out
            col0[rows] = x
            col1[rows] = y
            lo0 = min(lo0, x)
            hi0 = max(hi0, x)
            lo1 = min(lo1, y)
            hi1 = max(hi1, y)
        rows += 1
    out[ST] = 0
    out[EXPECTED] = expected
    out[ROWS] = rows - row0
    out[SKIPPED] = skipped
    out[FIRST_FIELDS] = expected
    out[MIN0] = lo0
    out[MAX0] = hi0
    out[MIN1] = lo1
    out[MAX1] = hi1
    return out


_BLOCK = 64  # tokens hashed ahead of their probes: the table's cache misses overlap


@numba.njit(cache=True, inline="always")
def _prefix(buf: Any, s: int, length: int) -> Any:  # pragma: no cover
    """The first (up to) 8 bytes of a token as a little-endian uint64, zero padded."""
    k = np.uint64(0)
    for j in range(min(length, 8)):
        k = k | (np.uint64(buf[s + j]) << np.uint64(8 * j))
    return k


@numba.njit(cache=True, nogil=True)
def token_parts(buf: Any, start: Any, lens: Any, a: int, b: int, parts: int,
                out: Any) -> None:  # pragma: no cover
    """``out[i]``, for the tokens ``a..b`` of one column: the part (of ``parts``) that
    codes token ``i``, from the top bits of its hash (the table uses the low bits)."""
    for i in range(a, b):
        h = _hash_bytes(buf, start[i], start[i] + lens[i])
        out[i] = np.uint8((h >> np.uint64(40)) % np.uint64(parts))


@numba.njit(cache=True, nogil=True)
def text_codes(buf: Any, starts: Any, lens: Any, part_of: Any,
               part: int) -> Any:  # pragma: no cover
    """Codes of the tokens ``buf[starts[k][i]:starts[k][i] + lens[k][i]]`` of the columns
    ``k`` (one id space) in order of first appearance, written over ``starts`` in place.

    With ``part_of`` (one uint8 array per column, from :func:`token_parts`; empty arrays
    for one part) only the tokens of part ``part`` are coded, so that the parts run at the
    same time without sharing a table: equal tokens have equal hashes, hence one part, and
    each part writes and reads only its own slots of ``starts``. The codes of a part count
    from 0 (:func:`offset_codes` makes them distinct).

    Returns the distinct tokens copied into a compact arena, ``(arena, start, length)``:
    sorting and joining them later touches a few megabytes, not the whole input.

    An open-addressing table (load at most 1/2) whose slots hold the token's hash, its
    first 8 bytes and ``length << 32 | code + 1``: a token of up to 8 bytes is compared
    exactly without leaving the slot; a longer one compares its other bytes with the arena.
    Hashes are computed a block ahead of the probes, so that the probes' cache misses
    overlap.
    """
    size = 1 << 12
    tab = np.zeros(3 * size, dtype=np.uint64)
    ustart = np.empty(size // 2, dtype=np.int64)
    ulen = np.empty(size // 2, dtype=np.int64)
    uhash = np.empty(size // 2, dtype=np.uint64)
    upre = np.empty(size // 2, dtype=np.uint64)
    hs = np.empty(_BLOCK, dtype=np.uint64)
    ps = np.empty(_BLOCK, dtype=np.uint64)
    arena = np.empty(1 << 16, dtype=np.uint8)
    used = 0
    n = 0
    mine = np.empty(_BLOCK, dtype=np.int64)
    for k in range(len(starts)):
        col = starts[k]
        lens_k = lens[k]
        own = part_of[k]
        every = own.size == 0
        m = col.size
        for b0 in range(0, m, _BLOCK):
            b1 = min(m, b0 + _BLOCK)
            q = 0
            for i in range(b0, b1):
                if every or own[i] == part:
                    mine[q] = i
                    hs[q] = _hash_bytes(buf, col[i], col[i] + lens_k[i])
                    ps[q] = _prefix(buf, col[i], lens_k[i])
                    q += 1
            for r in range(q):
                i = mine[r]
                h = hs[r]
                pre = ps[r]
                length = np.uint64(lens_k[i])
                mask = size - 1
                j = np.int64(h & np.uint64(mask))
                while True:
                    meta = tab[3 * j + 2]
                    if meta == 0:  # a new token
                        if n == ustart.size:
                            grow = 2 * n
                            a1 = np.empty(grow, dtype=np.int64)
                            a1[:n] = ustart[:n]
                            ustart = a1
                            a2 = np.empty(grow, dtype=np.int64)
                            a2[:n] = ulen[:n]
                            ulen = a2
                            a3 = np.empty(grow, dtype=np.uint64)
                            a3[:n] = uhash[:n]
                            uhash = a3
                            a4 = np.empty(grow, dtype=np.uint64)
                            a4[:n] = upre[:n]
                            upre = a4
                        ln = lens_k[i]
                        if used + ln > arena.size:
                            grown = np.empty(max(2 * arena.size, used + ln), dtype=np.uint8)
                            grown[:used] = arena[:used]
                            arena = grown
                        src = col[i]
                        for t in range(ln):
                            arena[used + t] = buf[src + t]
                        ustart[n] = used
                        ulen[n] = ln
                        used += ln
                        uhash[n] = h
                        upre[n] = pre
                        tab[3 * j] = h
                        tab[3 * j + 1] = pre
                        tab[3 * j + 2] = (length << np.uint64(32)) | np.uint64(n + 1)
                        col[i] = n
                        n += 1
                        if 2 * n > size:  # grow the table, keep the load at most 1/2
                            size *= 2
                            tab = np.zeros(3 * size, dtype=np.uint64)
                            mask = size - 1
                            for c in range(n):
                                jj = np.int64(uhash[c] & np.uint64(mask))
                                while tab[3 * jj + 2] != 0:
                                    jj = (jj + 1) & mask
                                tab[3 * jj] = uhash[c]
                                tab[3 * jj + 1] = upre[c]
                                tab[3 * jj + 2] = ((np.uint64(ulen[c]) << np.uint64(32))
                                                   | np.uint64(c + 1))
                        break
                    if (tab[3 * j] == h and tab[3 * j + 1] == pre
                            and (meta >> np.uint64(32)) == length):
                        cand = np.int64(meta & np.uint64(0xFFFFFFFF)) - 1
                        same = True
                        if length > 8:  # the first 8 bytes are equal: compare the others
                            a = ustart[cand]
                            s = col[i]
                            for t in range(8, lens_k[i]):
                                if arena[a + t] != buf[s + t]:
                                    same = False
                                    break
                        if same:
                            col[i] = cand
                            break
                    j = (j + 1) & mask
    return arena[:used].copy(), ustart[:n].copy(), ulen[:n].copy()


@numba.njit(cache=True, nogil=True)
def offset_codes(col: Any, a: int, b: int, part_of: Any, offsets: Any) -> None:  # pragma: no cover
    """``col[i] += offsets[part_of[i]]`` for ``i`` in ``a..b``: the parts' codes made
    distinct."""
    for i in range(a, b):
        col[i] += offsets[part_of[i]]


# ---------------------------------------------------------------------- integer ids
@numba.njit(cache=True, nogil=True)
def mark_present(col: Any, a: int, b: int, lo: int, bits: Any) -> None:  # pragma: no cover
    """Set bit ``x - lo`` of ``bits`` (a bitset of uint64 words) for the ids ``x`` of
    ``col[a:b]``."""
    for i in range(a, b):
        q = col[i] - lo
        bits[q >> 6] |= np.uint64(1) << np.uint64(q & 63)


@numba.njit(cache=True, nogil=True)
def dense_ranks(bits: Any, lo: int, width: int) -> Any:  # pragma: no cover
    """``(rank, ids)`` from the presence bitsets of the parts (rows of ``bits``) of ids in
    ``[lo, lo + width)``: ``rank[x - lo]`` is the rank of ``x`` among the distinct ids (at most
    ``2**31 - 1`` of them), ``ids`` sorted."""
    rank = np.empty(width, dtype=np.int32)  # half the cache of int64 for the lookups
    ids = np.empty(width, dtype=np.int64)
    k = 0
    for w in range(bits.shape[1]):
        word = np.uint64(0)
        for t in range(bits.shape[0]):
            word |= bits[t, w]
        base = w << 6
        for j in range(min(64, width - base)):
            rank[base + j] = k
            if (word >> np.uint64(j)) & np.uint64(1):
                ids[k] = lo + base + j
                k += 1
    return rank, ids[:k].copy()


@numba.njit(cache=True, nogil=True)
def apply_ranks(col: Any, a: int, b: int, rank: Any, lo: int) -> None:  # pragma: no cover
    """``col[a:b]`` replaced by the ranks of its ids (``rank[x - lo]``), in place."""
    for i in range(a, b):
        col[i] = rank[col[i] - lo]


@numba.njit(cache=True)
def int_codes(cols: Any) -> Any:  # pragma: no cover
    """Replace the int64 ids of ``cols`` (a tuple of arrays sharing one id space) by their
    rank among the distinct ids, in place; return the sorted distinct ids (ids spread too
    widely for :func:`dense_ranks`: a hash table gives first-appearance codes, and only the
    distinct ids are sorted).
    """
    size = 1 << 12
    tab = np.zeros(2 * size, dtype=np.int64)  # [id, code + 1] pairs; code + 1 == 0: empty
    uniq = np.empty(size // 2, dtype=np.int64)
    n = 0
    for col in cols:
        for i in range(col.size):
            x = col[i]
            mask = size - 1
            j = np.int64(_mix(np.uint64(x)) & np.uint64(mask))
            while True:
                c = tab[2 * j + 1]
                if c == 0:  # a new id
                    if n == uniq.size:
                        grown = np.empty(2 * n, dtype=np.int64)
                        grown[:n] = uniq[:n]
                        uniq = grown
                    uniq[n] = x
                    tab[2 * j] = x
                    tab[2 * j + 1] = n + 1
                    col[i] = n
                    n += 1
                    if 2 * n > size:  # keep the load at most 1/2
                        size *= 2
                        tab = np.zeros(2 * size, dtype=np.int64)
                        mask = size - 1
                        for cc in range(n):
                            jj = np.int64(_mix(np.uint64(uniq[cc])) & np.uint64(mask))
                            while tab[2 * jj + 1] != 0:
                                jj = (jj + 1) & mask
                            tab[2 * jj] = uniq[cc]
                            tab[2 * jj + 1] = cc + 1
                    break
                if tab[2 * j] == x:
                    col[i] = c - 1
                    break
                j = (j + 1) & mask
    uniq = uniq[:n]
    order = np.argsort(uniq)
    rank = np.empty(n, dtype=np.int64)
    for r in range(n):
        rank[order[r]] = r
    for col in cols:
        for i in range(col.size):
            col[i] = rank[col[i]]
    return uniq[order]


# ---------------------------------------------------------------------- text ids
@numba.njit(cache=True, inline="always")
def _chunk(buf: Any, s: int, length: int, off: int) -> Any:  # pragma: no cover
    """Bytes ``off..off+8`` of a token as a big-endian uint64, zero padded."""
    k = np.uint64(0)
    for j in range(8):
        k = k << np.uint64(8)
        if off + j < length:
            k = k | np.uint64(buf[s + off + j])
    return k


@numba.njit(cache=True)
def sort_tokens(buf: Any, ustart: Any, ulen: Any) -> Any:  # pragma: no cover
    """Order of the distinct tokens ``buf[ustart[i]:ustart[i]+ulen[i]]`` by their bytes
    (UTF-8 byte order is code-point order): an MSD radix sort on 8-byte chunks.

    At depth ``d`` the tokens of a group share their first ``8d`` bytes; they are ordered by
    the next chunk (zero padded) and then by how many bytes they have left (``1..8``, or
    ``9`` for more); groups equal in both with more bytes left go one level deeper.
    """
    n = ustart.size
    order = np.arange(n)
    stack = [(0, n, 0)]
    while len(stack) > 0:
        lo, hi, d = stack.pop()
        m = hi - lo
        if m < 2:
            continue
        keys = np.empty(m, dtype=np.uint64)
        rest = np.empty(m, dtype=np.int64)
        off = 8 * d
        for i in range(m):
            u = order[lo + i]
            keys[i] = _chunk(buf, ustart[u], ulen[u], off)
            r = ulen[u] - off
            rest[i] = r if r <= 8 else 9
        perm = np.argsort(keys)
        sk = keys[perm]
        members = order[lo:hi].copy()
        i = 0
        while i < m:
            j = i + 1
            while j < m and sk[j] == sk[i]:
                j += 1
            if j - i > 1:  # equal chunks: by bytes left (a stable counting sort, 1..9)
                counts = np.zeros(11, dtype=np.int64)
                for a in range(i, j):
                    counts[rest[perm[a]] + 1] += 1
                for c in range(1, 11):
                    counts[c] += counts[c - 1]
                run = perm[i:j].copy()
                for a in range(run.size):
                    c = rest[run[a]]
                    perm[i + counts[c]] = run[a]
                    counts[c] += 1
                a = i
                while a < j:
                    b = a + 1
                    while b < j and rest[perm[b]] == rest[perm[a]]:
                        b += 1
                    if rest[perm[a]] == 9 and b - a > 1:
                        stack.append((lo + a, lo + b, d + 1))
                    a = b
            i = j
        for i in range(m):
            order[lo + i] = members[perm[i]]
    return order


@numba.njit(cache=True)
def recode(cols: Any, order: Any) -> None:  # pragma: no cover
    """Codes in order of first appearance -> codes in sorted order (in place)."""
    rank = np.empty(order.size, dtype=np.int64)
    for r in range(order.size):
        rank[order[r]] = r
    for col in cols:
        for i in range(col.size):
            col[i] = rank[col[i]]


@numba.njit(cache=True)
def joined(buf: Any, ustart: Any, ulen: Any, order: Any) -> Any:  # pragma: no cover
    """The tokens in ``order``, joined by ``\\n`` (no token holds a line break)."""
    n = order.size
    total = n - 1 if n else 0
    for i in range(n):
        total += ulen[i]
    out = np.empty(total, dtype=np.uint8)
    w = 0
    for r in range(n):
        u = order[r]
        if r:
            out[w] = 10
            w += 1
        s = ustart[u]
        for t in range(ulen[u]):
            out[w + t] = buf[s + t]
        w += ulen[u]
    return out


@numba.njit(cache=True)
def parse_tokens(buf: Any, ustart: Any, ulen: Any) -> Any:  # pragma: no cover
    """``(values, ok)``: the tokens as int64 if every one is a canonical integer."""
    n = ustart.size
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        ok, x = _parse_int(buf, ustart[i], ustart[i] + ulen[i])
        if not ok:
            return out, False
        out[i] = x
    return out, True
