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
from .._text_kernels import _load8, _parse_int

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
    b = buf[lo:hi]  # indices from 0 on a slice: the loop is vectorised (6x faster)
    count = 0
    for i in range(b.size):
        c = b[i]
        if c == 10 or c == 13:
            count += 1
    return count


_HIGH_BITS = np.uint64(0x8080808080808080)


@numba.njit(cache=True)
def _utf8_ok(buf: Any, s: int, e: int) -> bool:  # pragma: no cover
    """Strict UTF-8 (no overlong forms, no surrogates, at most U+10FFFF), as Python."""
    p = s
    while p < e:
        c = buf[p]
        if c < 0x80:
            p += 1
            while p + 8 <= e and (_load8(buf, p) & _HIGH_BITS) == 0:  # 8 ASCII bytes (in
                p += 8  # any byte order)
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


@numba.njit(cache=True, nogil=True, inline="always")
def _put(col0: Any, col1: Any, row: int, x: int, y: int, lo0: int, hi0: int, lo1: int,
         hi1: int) -> Any:  # pragma: no cover
    """Row ``row``'s integer ids written; the columns' bounds so far returned."""
    col0[row] = x
    col1[row] = y
    return min(lo0, x), max(hi0, x), min(lo1, y), max(hi1, y)


@numba.njit(cache=True, nogil=True)
def scan(buf: Any, start: int, stop: int, tabs: bool, exact: bool, skip_bad: bool, text: bool,
         col0: Any, col1: Any, len0: Any, len1: Any, row0: int) -> Any:  # pragma: no cover
    """Split ``buf[start:stop]`` into lines and the first two fields of each data line,
    written to ``col0``, ``col1`` (and ``len0``, ``len1``) from row ``row0`` on.

    Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r``. A line whose first character other
    than space and tab is ``#`` is a comment. Fields are separated by runs of spaces and
    tabs (``tabs=False``; such a line with nothing else is blank) or by single tabs
    (``tabs=True``: fields are verbatim but for the spaces at their ends, may be empty, and
    only an empty line is blank).

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
    fast = not tabs and not text  # rows "digits blanks digits", once 2 fields are the shape
    while pos < n:
        if fast and expected == 2:
            # the common row in one go: two canonical integers of at most 18 digits, blanks
            # between and after; anything else (a sign, a comment, a third field, a 19-digit
            # id) is read again by the general loop below from the line's start
            q = pos
            x = 0
            while q < n and 48 <= buf[q] <= 57:
                x = x * 10 + (int(buf[q]) - 48)
                q += 1
            if 0 < q - pos < 19 and (buf[pos] != 48 or q - pos == 1) and q < n and (
                    buf[q] == 32 or buf[q] == 9):
                while q < n and (buf[q] == 32 or buf[q] == 9):
                    q += 1
                s1 = q
                y = 0
                while q < n and 48 <= buf[q] <= 57:
                    y = y * 10 + (int(buf[q]) - 48)
                    q += 1
                if 0 < q - s1 < 19 and (buf[s1] != 48 or q - s1 == 1):
                    while q < n and (buf[q] == 32 or buf[q] == 9):
                        q += 1
                    if q >= n or buf[q] == 10 or buf[q] == 13:
                        line += 1
                        lo0, hi0, lo1, hi1 = _put(col0, col1, rows, x, y, lo0, hi0, lo1, hi1)
                        rows += 1
                        pos = q + 2 if q + 1 < n and buf[q] == 13 and buf[q + 1] == 10 else q + 1
                        continue
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
                # a field less the spaces at its ends (graphanon._ids.trim_id_blanks)
                while p < n and buf[p] == 32:
                    p += 1
                fs = p
                fe = p
                while p < n:
                    c = buf[p]
                    if c == 9 or c == 10 or c == 13:
                        break
                    p += 1
                    if c != 32:
                        fe = p
                if nf == 0:
                    f0s = fs
                    f0e = fe
                elif nf == 1:
                    f1s = fs
                    f1e = fe
                nf += 1
                if fe > fs:
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
            lo0, hi0, lo1, hi1 = _put(col0, col1, rows, x, y, lo0, hi0, lo1, hi1)
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
    order = np.argsort(uniq, kind="mergesort")  # not numba's quicksort: quadratic on
    # nearly sorted ids (a sorted file with one id out of place)
    rank = np.empty(n, dtype=np.int64)
    for r in range(n):
        rank[order[r]] = r
    for col in cols:
        for i in range(col.size):
            col[i] = rank[col[i]]
    return uniq[order]


# ---------------------------------------------------------------------- numbered text ids
# fields of the int64 record of scan_numbered(): per column c (0, 1) at NB_COL + 5 c: whether
# no number has a leading zero, the least and the greatest number of digits, the least and
# the greatest number
NB_OK, NB_ROWS, NB_EXPECTED, NB_COL = range(4)


@numba.njit(cache=True, nogil=True, inline="always")
def _numbered_field(buf: Any, p: int, n: int, pre: Any, tabs: bool) -> Any:  # pragma: no cover
    """``(end, value, digits, leading zero)`` of the field at ``p`` if it is exactly ``pre``
    followed by 1 to 18 decimal digits (then a separator or a line end), else end ``-1``."""
    if p + pre.size > n:
        return -1, 0, 0, False
    for t in range(pre.size):
        if buf[p + t] != pre[t]:
            return -1, 0, 0, False
    q = p + pre.size
    v = 0
    while q < n and 48 <= buf[q] <= 57:
        v = v * 10 + (int(buf[q]) - 48)
        q += 1
    d = q - p - pre.size
    if d < 1 or d > 18:
        return -1, 0, 0, False
    if q < n:
        c = buf[q]
        if not (c == 9 or c == 10 or c == 13 or (c == 32 and not tabs)):
            return -1, 0, 0, False
    return q, v, d, d > 1 and buf[p + pre.size] == 48


@numba.njit(cache=True, nogil=True)
def scan_numbered(buf: Any, start: int, stop: int, tabs: bool, exact: bool, pre0: Any,
                  pre1: Any, col0: Any, col1: Any, row0: int, out: Any) -> None:  # pragma: no cover
    """:func:`scan` for the commonest text ids, one prefix followed by a number (``u17``,
    ``user_0042``): every data row's two ids must be ``pre0`` and ``pre1`` (UTF-8) followed by
    1 to 18 digits, and their numbers are written to ``col0``, ``col1`` (from row ``row0`` on)
    as :func:`scan` writes integer ids.

    The rules of lines, comments, blank lines and fields are those of :func:`scan`; but
    every row that is not such a pair of good ids (a bad row, another id) stops the scan
    with ``out[NB_OK] = 0`` instead of an error: the caller then scans the text as any text
    (:func:`scan` with ``text=True``), which finds the error, or codes the other ids. A
    row's ids are thus never partly numbered. ``out`` (int64) receives ``NB_OK``, the rows
    written, the number of fields of the rows and, per column, the facts the caller needs
    to tell whether the numbers name the ids one-to-one (``NB_COL``).
    """
    n = stop
    out[NB_OK] = 0
    can0 = can1 = True
    wlo0 = wlo1 = 19
    whi0 = whi1 = 0
    lo0 = lo1 = _I64_MAX
    hi0 = hi1 = -1
    expected = -1
    rows = row0
    pos = start
    while pos < n:
        ls = pos
        p = pos
        while p < n and (buf[p] == 32 or buf[p] == 9):
            p += 1
        c = buf[p] if p < n else 10
        if c == 35 or ((c == 10 or c == 13) and (not tabs or p == ls)):  # comment, blank
            while p < n and buf[p] != 10 and buf[p] != 13:
                p += 1
            pos = p + 2 if p + 1 < n and buf[p] == 13 and buf[p + 1] == 10 else p + 1
            continue
        if tabs:
            p = ls  # fields are verbatim
        q, x, d0, z0 = _numbered_field(buf, p, n, pre0, tabs)
        if q < 0 or q >= n or not (buf[q] == 9 or (buf[q] == 32 and not tabs)):
            return
        q += 1
        while not tabs and q < n and (buf[q] == 32 or buf[q] == 9):
            q += 1
        q, y, d1, z1 = _numbered_field(buf, q, n, pre1, tabs)
        if q < 0:
            return
        nf = 2  # the other fields, counted
        if tabs:
            while q < n and buf[q] == 9:
                q += 1
                nf += 1
                while q < n and buf[q] != 9 and buf[q] != 10 and buf[q] != 13:
                    q += 1
        else:
            while True:
                while q < n and (buf[q] == 32 or buf[q] == 9):
                    q += 1
                if q >= n or buf[q] == 10 or buf[q] == 13:
                    break
                nf += 1
                while q < n and not (buf[q] == 32 or buf[q] == 9 or buf[q] == 10
                                     or buf[q] == 13):
                    q += 1
        if (exact and nf > 2) or (expected >= 0 and nf != expected):
            return
        expected = nf
        pos = q + 2 if q + 1 < n and buf[q] == 13 and buf[q + 1] == 10 else q + 1
        col0[rows] = x
        col1[rows] = y
        rows += 1
        can0 = can0 and not z0
        can1 = can1 and not z1
        wlo0 = min(wlo0, d0)
        whi0 = max(whi0, d0)
        wlo1 = min(wlo1, d1)
        whi1 = max(whi1, d1)
        lo0 = min(lo0, x)
        hi0 = max(hi0, x)
        lo1 = min(lo1, y)
        hi1 = max(hi1, y)
    out[NB_OK] = 1
    out[NB_ROWS] = rows - row0
    out[NB_EXPECTED] = expected
    out[NB_COL] = can0
    out[NB_COL + 1] = wlo0
    out[NB_COL + 2] = whi0
    out[NB_COL + 3] = lo0
    out[NB_COL + 4] = hi0
    out[NB_COL + 5] = can1
    out[NB_COL + 6] = wlo1
    out[NB_COL + 7] = whi1
    out[NB_COL + 8] = lo1
    out[NB_COL + 9] = hi1
