"""numba kernels that code text ids: a hash table over their bytes, sorting, merging.

Used by the text readers (:mod:`graphanon.io._scan`, on the tokens of the input buffer) and by
:mod:`graphanon._ids` (on Arrow text columns, e.g. a graph's ids against a universe): one way to
turn text ids into codes, with no Python object per token. Tokens are given as a byte buffer and
per-token ``start`` / ``length`` arrays.
"""

from __future__ import annotations

import sys
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from . import _numba  # noqa: F401  (numba's per-user cache folder)
from ._ids_kernels import _mix  # fmix64, the same mixer as the id keys

_I64_MAX_U = np.uint64(9223372036854775807)


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


_BLOCK = 64  # tokens hashed ahead of their probes: the table's cache misses overlap


def _load8_typer(typingctx: Any, arr: Any, pos: Any) -> Any:  # pragma: no cover
    """The 8 bytes ``arr[pos:pos + 8]`` of a ``uint8`` array as one little-endian uint64:
    one unaligned load instead of eight byte loads. The caller keeps ``pos + 8`` within
    the array (no bounds check)."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.gep(ary.data, [args[1]])
        return builder.load(builder.bitcast(ptr, ir.IntType(64).as_pointer()), align=1)

    return types.uint64(arr, types.intp), codegen


_load8: Any = intrinsic(_load8_typer)
_LITTLE = sys.byteorder == "little"  # (the words are read as little-endian numbers)


@numba.njit(cache=True, inline="always")
def _prefix(buf: Any, s: int, length: int) -> Any:  # pragma: no cover
    """The first (up to) 8 bytes of a token as a little-endian uint64, zero padded."""
    if _LITTLE and s + 8 <= buf.size:  # one load, the bytes after the token masked off
        k = _load8(buf, s)
        if length < 8:
            k = k & ((np.uint64(1) << np.uint64(8 * max(length, 0))) - np.uint64(1))
        return k
    k = np.uint64(0)
    for j in range(min(length, 8)):
        k = k | (np.uint64(buf[s + j]) << np.uint64(8 * j))
    return k


@numba.njit(cache=True, inline="always")
def same_bytes(abuf: Any, a: int, bbuf: Any, b: int, length: int,
               skip: int = 0) -> bool:  # pragma: no cover
    """Whether ``abuf[a + skip:a + length] == bbuf[b + skip:b + length]``, 8 bytes at a
    time."""
    for t in range(skip, length, 8):
        if _prefix(abuf, a + t, length - t) != _prefix(bbuf, b + t, length - t):
            return False
    return True


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, inline="always")
def _token_hash(buf: Any, s: int, length: int, pre: Any, key: Any) -> Any:  # pragma: no cover
    """A 64-bit hash of the token ``buf[s:s+length]`` whose first 8 bytes are ``pre``
    (:func:`_prefix`): fmix64 over its 8-byte chunks, seeded with its length and ``key``. A
    word at a time, not a byte: most ids are one or two chunks long.

    ``key`` is drawn at random for each coding (:func:`graphanon._ids._token_codes`): the
    codes do not depend on it (they are renumbered in sorted order), and an input cannot be
    made of ids that collide in the table's slots, which would make probing quadratic."""
    h = _mix(pre ^ key ^ (np.uint64(length) * _GOLDEN))
    off = 8
    while off < length:
        h = _mix(h ^ _prefix(buf, s + off, length - off))
        off += 8
    return h


@numba.njit(cache=True, inline="always")
def _grown(a: Any, n: int, size: int) -> Any:  # pragma: no cover
    """A new array of ``size`` entries starting with ``a[:n]``."""
    out = np.empty(size, dtype=a.dtype)
    out[:n] = a[:n]
    return out


@numba.njit(cache=True, nogil=True)
def token_parts(buf: Any, start: Any, lens: Any, a: int, b: int, parts: int, key: Any,
                out: Any) -> None:  # pragma: no cover
    """``out[i]``, for the tokens ``a..b`` of one column: the part (of ``parts``) that
    codes token ``i``, from the top bits of its hash (the table uses the low bits)."""
    for i in range(a, b):
        h = _token_hash(buf, start[i], lens[i], _prefix(buf, start[i], lens[i]), key)
        out[i] = np.uint8((h >> np.uint64(40)) % np.uint64(parts))


@numba.njit(cache=True, nogil=True)
def text_codes(buf: Any, starts: Any, lens: Any, part_of: Any, key: Any,
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
                    pre = _prefix(buf, col[i], lens_k[i])
                    ps[q] = pre
                    hs[q] = _token_hash(buf, col[i], lens_k[i], pre, key)
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
                            ustart = _grown(ustart, n, 2 * n)
                            ulen = _grown(ulen, n, 2 * n)
                            uhash = _grown(uhash, n, 2 * n)
                            upre = _grown(upre, n, 2 * n)
                        ln = lens_k[i]
                        if used + ln > arena.size:
                            arena = _grown(arena, used, max(2 * arena.size, used + ln))
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
                            same = same_bytes(arena, ustart[cand], buf, col[i], lens_k[i], 8)
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
        perm = np.argsort(keys, kind="mergesort")  # numba's quicksort is quadratic on
        # nearly sorted keys (sorted ids and one more at the end)
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
    """The tokens in ``order``, joined by the byte ``0xFF``, which no UTF-8 text holds (a
    token may hold any character, a line break included)."""
    n = order.size
    total = n - 1 if n else 0
    for i in range(n):
        total += ulen[i]
    out = np.empty(total, dtype=np.uint8)
    w = 0
    for r in range(n):
        u = order[r]
        if r:
            out[w] = 0xFF
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


@numba.njit(cache=True)
def finish_codes(cols: Any, buf: Any, ustart: Any, ulen: Any) -> Any:  # pragma: no cover
    """The distinct tokens of :func:`text_codes` put in order, in one kernel (one cache load
    in a fresh process instead of four): ``(ok, values, text)``.

    If every token is a canonical integer, ``ok`` is true and ``values`` holds them sorted;
    else they are sorted by their bytes (:func:`sort_tokens`) and ``text`` holds them in
    that order (:func:`joined`). Either way the codes in ``cols`` are renumbered to that
    order in place (:func:`recode`)."""
    values, ok = parse_tokens(buf, ustart, ulen)
    if ok:
        order = np.argsort(values, kind="mergesort")
    else:
        order = sort_tokens(buf, ustart, ulen)
    recode(cols, order)
    if ok:
        return True, values[order], np.zeros(0, dtype=np.uint8)
    return False, values[:0], joined(buf, ustart, ulen, order)


@numba.njit(cache=True, inline="always")
def _compare(abuf: Any, a: int, alen: int, bbuf: Any, b: int, blen: int) -> int:  # pragma: no cover
    """-1, 0 or 1 as the bytes ``abuf[a:a+alen]`` sort before, with or after ``bbuf[b:b+blen]``."""
    for t in range(min(alen, blen)):
        x = abuf[a + t]
        y = bbuf[b + t]
        if x != y:
            return -1 if x < y else 1
    return -1 if alen < blen else (1 if alen > blen else 0)


@numba.njit(cache=True)
def match_sorted(abuf: Any, astart: Any, alen: Any, aorder: Any, bbuf: Any, bstart: Any,
                 blen: Any, border: Any) -> Any:  # pragma: no cover
    """``(pos, firsts)`` for two token lists given in byte order (``aorder``, ``border`` from
    :func:`sort_tokens`; ``a`` distinct): ``firsts`` the first of each run of equal ``b``
    tokens, in order (``b``'s distinct tokens sorted), and ``pos[i]`` the rank among them of
    the token equal to ``a`` token ``i`` (``-1`` where ``b`` lacks it). One merge, no hash."""
    nb = border.size
    firsts = np.empty(nb, dtype=np.int64)
    nd = 0
    for r in range(nb):
        u = border[r]
        if r == 0 or _compare(bbuf, bstart[border[r - 1]], blen[border[r - 1]],
                              bbuf, bstart[u], blen[u]) != 0:
            firsts[nd] = u
            nd += 1
    pos = np.full(aorder.size, -1, dtype=np.int64)
    j = 0
    for r in range(aorder.size):
        i = aorder[r]
        while j < nd:
            c = _compare(bbuf, bstart[firsts[j]], blen[firsts[j]], abuf, astart[i], alen[i])
            if c >= 0:
                if c == 0:
                    pos[i] = j
                break
            j += 1
    return pos, firsts[:nd].copy()


@numba.njit(cache=True)
def _byte_order(buf: Any, start: Any, length: Any) -> Any:  # pragma: no cover
    """:func:`sort_tokens`, skipped when the tokens are in strictly increasing byte order
    already (a graph's own ids are)."""
    n = start.size
    for i in range(1, n):
        if _compare(buf, start[i - 1], length[i - 1], buf, start[i], length[i]) >= 0:
            return sort_tokens(buf, start, length)
    return np.arange(n)


@numba.njit(cache=True)
def match_text(abuf: Any, astart: Any, alen: Any, bbuf: Any, bstart: Any,
               blen: Any) -> Any:  # pragma: no cover
    """:func:`match_sorted` of two token lists in any order (``a`` distinct): both put in
    byte order first, in one kernel."""
    return match_sorted(abuf, astart, alen, _byte_order(abuf, astart, alen),
                        bbuf, bstart, blen, _byte_order(bbuf, bstart, blen))


@numba.njit(cache=True)
def numbered_text(prefix: Any, values: Any, width: int) -> Any:  # pragma: no cover
    """The ids ``prefix`` + each of ``values`` in decimal (zero padded to ``width`` digits),
    joined by the byte ``0xFF`` as :func:`joined` does."""
    n = values.size
    digits = np.empty(n, dtype=np.int64)
    total = n - 1 if n else 0
    for i in range(n):
        d = 1
        v = values[i]
        while v >= 10:
            v //= 10
            d += 1
        digits[i] = max(d, width)
        total += prefix.size + digits[i]
    out = np.empty(total, dtype=np.uint8)
    w = 0
    for i in range(n):
        if i:
            out[w] = 0xFF
            w += 1
        out[w:w + prefix.size] = prefix
        w += prefix.size
        v = values[i]
        for t in range(digits[i] - 1, -1, -1):
            out[w + t] = 48 + v % 10
            v //= 10
        w += digits[i]
    return out
