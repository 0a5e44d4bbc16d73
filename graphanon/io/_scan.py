"""Reading the pairs of a text edge list or ``user<TAB>feature`` list into id codes.

The rules, shared by the numba kernel (:mod:`._scan_kernels`) and the pure-Python reference
scanner of this module:

* lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r``; a UTF-8 byte-order mark at the start is
  skipped; lines are numbered from 1 and every line counts (comments, blank lines);
* a line whose first character other than space and tab is ``#`` is a comment;
* whitespace mode (edge lists, and ``user feature`` lists without tabs): fields are separated
  by runs of spaces and tabs; a line of spaces and tabs only is blank;
* tab mode (``user<TAB>feature`` lists with a tab anywhere): fields are separated by single
  tabs and kept verbatim but for the spaces at their ends, which are not part of an id in any
  reader (:func:`graphanon._ids.trim_id_blanks`); a field may hold spaces inside, or be
  empty; only an empty line is blank;
* the first data line fixes the number of fields; it needs at least two, and every later
  line the same number (further fields, an edge weight say, are ignored); with ``exact`` a
  line must have exactly two; an empty id is a bad row;
* ids are text (:mod:`graphanon._ids`): an id column whose every token matches
  ``0|-?[1-9][0-9]*`` within int64 is held as ``int64``, any other as ``str``; ids must be
  valid UTF-8.

A bad row stops the read with one line naming the file, the line number and its content; with
``skip_bad_rows`` rows of the wrong shape are skipped and counted instead (the first data line
still fixes the shape, and text that is not UTF-8 is always an error).

Inputs below :data:`SMALL_BYTES` are read by the Python scanner while the kernel is not yet
loaded in the process: loading it (numba and the cached machine code, about 0.5 s) costs more
than the Python read of a small file (about 0.15 s per MB); larger inputs, and every input
once the kernel is loaded (50x faster than the Python scanner), go through the kernel. A property
test holds the two to the same codes, ids, counts and errors.

Integer ids are parsed during the scan. When a token is not one, the commonest text ids, one
prefix per id space followed by a number (``u17``, ``user_0042``), are parsed during a second
scan the same way (:func:`_numbered_pairs`); any other text is scanned as token starts and
coded by a hash table over the bytes (:func:`graphanon._ids.text_token_ids`). Both give the
same ids (``str`` objects, in code-point order) and codes.

Inputs from :data:`PARALLEL_BYTES` on are scanned in line-aligned pieces on several threads
(:mod:`graphanon._parallel`), and many ids are coded in parts (integers: ranges of rows;
text: the tokens of each hash part, each part with its own table; the text coding,
:func:`graphanon._ids.text_token_ids`, is shared with the matching of ids elsewhere).

A piece never decides an error: when one meets a bad row, or the pieces' first rows disagree
on the number of fields, the whole input is scanned again in one sequential pass, so
messages and line numbers are those of a single pass. The same property test runs with 2
and 3 pieces.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import _ids
from .._ids import text_token_ids
from ..errors import InputFormatError

__all__ = ["SMALL_BYTES", "Pairs", "find_byte", "scan_pairs"]

#: The text the scanners read: its bytes, or a ``uint8`` array of them.
Text = bytes | bytearray | np.ndarray[Any, Any]

#: Inputs up to this many bytes are read by the pure-Python scanner (no numba start-up).
SMALL_BYTES = 1 << 20

_BOM = b"\xef\xbb\xbf"
_CANONICAL = re.compile(rb"(?:0|-?[1-9][0-9]*)\Z")  # "-0" is text, as in _ids
_I64_MIN = -(2**63)
_I64_MAX = 2**63 - 1


@dataclass
class Pairs:
    """Two id columns as codes: ``codes[k][i]`` is the position of row ``i``'s id of column
    ``k`` in ``ids[k]`` (sorted; ``int64`` or an object array of ``str``, the canonical
    encoding of :mod:`graphanon._ids`). With one id space both entries of ``ids`` are the
    same array."""

    codes: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]
    ids: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]
    rows_skipped: int
    ignored_columns: int


@dataclass
class _Bad:
    status: int
    line: int
    content: bytes
    n_fields: int = 0
    nonempty: int = 0
    expected: int = -1


# ---------------------------------------------------------------------- entry point
def scan_pairs(path: Path, raw: Text, *, tabs: bool, exact: bool, shared: bool,
               skip_bad_rows: bool = False, start: int = 0, first_line: int = 1,
               engine: str | None = None) -> Pairs:
    """The first two fields of every data line of ``raw`` as id codes (rules above).

    Parameters
    ----------
    path
        The input, for messages.
    raw
        Its bytes, or a ``uint8`` array of them (gzip already looked through).
    tabs
        Tab mode (fields split at single tabs) instead of whitespace mode.
    exact
        Exactly two fields per line (bipartite lists).
    shared
        One id space for both columns (a graph's nodes) instead of one per column (users,
        features).
    skip_bad_rows
        Skip and count rows of the wrong shape instead of stopping at the first.
    start, first_line
        Where the text to read begins in ``raw`` (after a header line, say) and the number
        of its first line, for messages.
    engine
        ``"python"`` or ``"numba"``; by default by size (:data:`SMALL_BYTES`) unless the
        kernel is loaded already.

    Raises
    ------
    InputFormatError
        A bad row (file, line number and content), or no data line at all.
    """
    if start == 0 and bytes(raw[:3]) == _BOM:
        start = 3
    if engine is None:
        engine = "numba" if len(raw) > SMALL_BYTES or _kernel_loaded() else "python"
    if engine == "python":
        res = _scan_python(raw, start, tabs, exact, shared, skip_bad_rows)
    elif engine == "numba":
        res = _scan_numba(raw, start, tabs, exact, shared, skip_bad_rows,
                          lambda: _check_text_size(path, len(raw)))
    else:
        raise ValueError(f"unknown engine {engine!r}")
    if isinstance(res, _Bad):
        res.line += first_line - 1
        raise _error(path, res, tabs)
    if res is None:  # no data line: the empty graph. Refusing it would leak: its neighbour
        # (one edge, one node with its edges) is read, so whether a run fails would tell them
        # apart; with a universe (--nodes, --users) it is a graph of isolated nodes. The
        # readers note it ("no data lines").
        codes = np.zeros(0, dtype=np.int64)
        ids = np.zeros(0, dtype=np.int64)
        res = Pairs((codes, codes.copy()), (ids, ids if shared else ids.copy()), 0, 0)
    return res


def _kernel_loaded() -> bool:
    return f"{__package__}._scan_kernels" in sys.modules


def _error(path: Path, bad: _Bad, tabs: bool) -> InputFormatError:
    where = f"{str(path)!r} line {bad.line}"
    try:
        text = bad.content.decode("utf-8")
    except UnicodeDecodeError:
        bad = _Bad(6, bad.line, bad.content)
        text = ""
    if bad.status == 6:
        msg = f"{where}: not valid UTF-8 text: {bad.content[:80]!r}"
    elif bad.status == 2:
        if bad.n_fields >= 2:
            msg = f"{where}: an empty id (the first two fields must not be empty): {text[:120]!r}"
        else:
            msg = (f"{where}: expected at least 2 non-empty fields, got {bad.nonempty}: "
                   f"{text[:120]!r}")
        if tabs and " " in text:
            msg += " (the file holds a tab, so its fields are tab-separated)"
    elif bad.status == 3:
        sep = "tab-separated " if tabs else ""
        msg = (f"{where}: expected 2 {sep}fields, got {bad.n_fields} (nothing is dropped "
               f"silently; pass --skip-bad-rows to skip such rows): {text[:120]!r}")
    elif bad.status == 4:
        msg = (f"{where}: expected {bad.expected} fields like the first data line, got "
               f"{bad.n_fields}: {text[:120]!r} (the first line that is not blank or a "
               "comment fixes the number of fields; a '#' after data is a field, not a "
               "comment)")
    else:  # 5
        msg = (f"{where}: the first data row has {bad.n_fields} fields; expected 2 (rows "
               f"like it cannot be told from bad ones): {text[:120]!r}")
    if bad.status != 6 and text.lstrip(" \t").startswith("%"):
        msg += ("; only '#' starts a comment here: turn '%' lines (KONECT, Matrix Market "
                "headers) into '#' lines")
    return InputFormatError(msg, path=str(path), line=bad.line)


# ---------------------------------------------------------------------- the reference
def _fields(line: bytes, tabs: bool) -> list[bytes] | None:
    """The fields of a line, or ``None`` for a comment or blank line."""
    stripped = line.lstrip(b" \t")
    if stripped.startswith(b"#"):
        return None
    if tabs:
        return [f.strip(b" ") for f in line.split(b"\t")] if line else None
    if not stripped:
        return None
    return [f for f in stripped.replace(b"\t", b" ").split(b" ") if f]


def _shape(fields: list[bytes], expected: int, exact: bool, skip: bool) -> tuple[int, bool]:
    """``(status, skippable)`` of a data row (status 0: good)."""
    nf = len(fields)
    if nf < 2 or not fields[0] or not fields[1]:
        return 2, not (expected < 0 and nf < 2)
    if exact and nf > 2:
        return (5 if expected < 0 and skip else 3), expected >= 0
    if expected >= 0 and nf != expected:
        return 4, True
    return 0, True


def _data_rows(raw: Text, start: int, tabs: bool, exact: bool,
               skip: bool) -> Iterator[tuple[int, bytes, list[bytes]] | _Bad | None]:
    """The data lines of ``raw[start:]`` by the rules above: ``(line number, line, fields)``
    for a row, ``None`` for a row skipped (``skip``), a :class:`_Bad` for the first bad row
    (and then nothing)."""
    expected = -1
    for lineno, line in enumerate(bytes(raw[start:]).splitlines(), start=1):
        fields = _fields(line, tabs)
        if fields is None:
            continue
        status, skippable = _shape(fields, expected, exact, skip)
        if status and skip and skippable and expected < 0 and exact and len(fields) > 2:
            status, skippable = 5, False  # a skipped first row still fixes the shape
        if status == 0 and expected < 0:
            expected = len(fields)
        if status:
            if skip and skippable:
                if expected < 0:
                    expected = len(fields)
                yield None
                continue
            yield _Bad(status, lineno, bytes(line), len(fields), sum(1 for f in fields if f),
                       expected)
            return
        yield lineno, bytes(line), fields


def row_line(raw: Text, start: int, row: int, *, skip_bad_rows: bool = False) -> tuple[int, str]:
    """``(line number, text)`` of data row ``row`` (0-based, as in the codes of
    :func:`scan_pairs`) of an edge list, for messages about a row's values."""
    k = 0
    for item in _data_rows(raw, start, False, False, skip_bad_rows):
        if isinstance(item, tuple):
            if k == row:
                return item[0], item[1].decode("utf-8", "replace")
            k += 1
    raise IndexError(row)


def _scan_python(raw: Text, start: int, tabs: bool, exact: bool, shared: bool,
                 skip: bool) -> Pairs | _Bad | None:
    cols: tuple[list[bytes], list[bytes]] = ([], [])
    seen: tuple[set[bytes], set[bytes]] = (set(), set())
    expected = -1
    skipped = 0
    for item in _data_rows(raw, start, tabs, exact, skip):
        if item is None:
            skipped += 1
            continue
        if isinstance(item, _Bad):
            return item
        lineno, line, fields = item
        if expected < 0:
            expected = len(fields)
        for k in (0, 1):
            tok = fields[k]
            space = seen[0 if shared else k]
            if tok not in space:
                try:
                    tok.decode("utf-8")
                except UnicodeDecodeError:
                    return _Bad(6, lineno, line)
                space.add(tok)
            cols[k].append(tok)
    if not cols[0] and not skipped:
        return None
    if shared:
        codes, ids = _encode_python(cols[0] + cols[1])
        n = len(cols[0])
        ca, cb = codes[:n], codes[n:]
        return Pairs((ca, cb), (ids, ids), skipped, max(expected - 2, 0))
    ca, ia = _encode_python(cols[0])
    cb, ib = _encode_python(cols[1])
    return Pairs((ca, cb), (ia, ib), skipped, max(expected - 2, 0))


def _canonical_int(tok: bytes) -> bool:
    # at most 20 bytes ("-9223372036854775808"): int() of a longer token is wasted work, and
    # Python refuses to convert more than 4,300 digits
    return len(tok) <= 20 and bool(_CANONICAL.match(tok)) and _I64_MIN <= int(tok) <= _I64_MAX


def _encode_python(tokens: list[bytes]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    distinct = set(tokens)
    if all(_canonical_int(t) for t in distinct):
        ints = sorted(int(t) for t in distinct)
        pos = {str(x).encode(): i for i, x in enumerate(ints)}
        ids: np.ndarray[Any, Any] = np.asarray(ints, dtype=np.int64)
    else:
        texts = sorted(t.decode("utf-8") for t in distinct)  # code-point order
        pos = {x.encode("utf-8"): i for i, x in enumerate(texts)}
        ids = np.empty(len(texts), dtype=object)
        ids[:] = texts
    codes = np.fromiter((pos[t] for t in tokens), dtype=np.int64, count=len(tokens))
    return codes, ids


# ---------------------------------------------------------------------- the kernel
def _check_text_size(path: Path, size: int) -> None:
    """Refuse an input whose ids turned out to be text when it is too large for that: its
    distinct ids become Python ``str`` objects (``READ_FACTORS["text_ids"]`` bytes of memory
    per input byte at worst, against 6 for integer ids)."""
    from ._input import _too_large, max_input_bytes

    limit = max_input_bytes("text_ids")
    if size > limit:
        raise _too_large(path, f"the text ({size:,} bytes, with text ids)", limit)


def _scan_numba(raw: Text, start: int, tabs: bool, exact: bool, shared: bool,
                skip: bool, on_text: Any = None, parts: int | None = None
                ) -> Pairs | _Bad | None:
    """The kernel's read. Large inputs are cut into ``parts`` line-aligned pieces scanned
    at the same time (:data:`PARALLEL_BYTES`); a piece that meets a bad row, or pieces that
    disagree on the number of fields, send the whole input through one sequential scan,
    which finds the first bad row with its line number exactly as a single pass would."""
    from .._parallel import run_parts, threads
    from . import _scan_kernels as kern

    buf = np.frombuffer(raw, dtype=np.uint8)
    if parts is None:
        parts = 1 if skip or len(raw) - start < PARALLEL_BYTES else threads()
    cuts = _line_cuts(raw, start, parts)
    # rows of each piece, at most: its line breaks (+1 for the last, which may lack one)
    pieces = range(len(cuts) - 1)
    breaks = run_parts(kern.line_breaks, [(buf, cuts[i], cuts[i + 1]) for i in pieces])
    caps = [int(b) for b in breaks]
    caps[-1] += 1
    first_row = np.concatenate([[0], np.cumsum(caps)]).astype(np.int64)
    cap = int(first_row[-1])

    def run(text: bool) -> tuple[list[Any], tuple[Any, ...]]:
        width = cap if text else 0
        cols = (np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64),
                np.empty(width, dtype=np.int32), np.empty(width, dtype=np.int32))
        sts = run_parts(kern.scan, [(buf, cuts[i], cuts[i + 1], tabs, exact, skip, text,
                                     *cols, int(first_row[i])) for i in range(len(caps))])
        return sts, cols

    text = False  # integer ids first; on the first token that is not one, numbered text
    sts, cols = run(text)  # ids (u17), else again as any text
    if any(int(st[kern.ST]) == 1 for st in sts) and not _piece_failed(kern, sts):
        if on_text is not None:
            on_text()
        numbered = _numbered_pairs(raw, start, cuts, first_row, tabs, exact, shared, cols)
        if numbered is not None:
            return numbered
        text = True
        del cols
        sts, cols = run(text)
    if len(sts) > 1 and _piece_failed(kern, sts):
        return _scan_numba(raw, start, tabs, exact, shared, skip, parts=1)
    st = sts[0]
    status = int(st[kern.ST])
    if status:
        ls, le = int(st[kern.LSTART]), int(st[kern.LEND])
        return _Bad(status, int(st[kern.LINE]), bytes(raw[ls:le]), int(st[kern.NFIELDS]),
                    int(st[kern.NONEMPTY]), int(st[kern.EXPECTED]))
    c0, c1, l0, l1 = _packed(cols, [int(st[kern.ROWS]) for st in sts], first_row, text)
    st = next((st for st in sts if int(st[kern.ROWS])), sts[0])  # the first data row's
    rows = c0.size
    skipped = sum(int(x[kern.SKIPPED]) for x in sts)
    if rows == 0 and not skipped:
        return None
    ignored = max(int(st[kern.FIRST_FIELDS]) - 2, 0)
    if not text:
        b0 = (min(int(x[kern.MIN0]) for x in sts), max(int(x[kern.MAX0]) for x in sts))
        b1 = (min(int(x[kern.MIN1]) for x in sts), max(int(x[kern.MAX1]) for x in sts))
        if shared:
            ids = _int_ids(kern, (c0, c1), (min(b0[0], b1[0]), max(b0[1], b1[1])))
            return Pairs((c0, c1), (ids, ids), skipped, ignored)
        return Pairs((c0, c1), (_int_ids(kern, (c0,), b0), _int_ids(kern, (c1,), b1)),
                     skipped, ignored)
    if shared:
        ids = text_token_ids(buf, (c0, c1), (l0, l1))
        return Pairs((c0, c1), (ids, ids), skipped, ignored)
    return Pairs((c0, c1), (text_token_ids(buf, (c0,), (l0,)),
                            text_token_ids(buf, (c1,), (l1,))), skipped, ignored)


#: Inputs from this many bytes on are scanned in line-aligned pieces on several threads.
PARALLEL_BYTES = 8 << 20



def _line_cuts(raw: Text, start: int, parts: int) -> list[int]:
    """``[start, ..., len(raw)]``: up to ``parts`` pieces of about equal size, each but the
    last ending just after a ``\\n`` (so a piece never splits a line, nor a ``\\r\\n``)."""
    n = len(raw)
    cuts = [start]
    for t in range(1, parts):
        at = find_byte(raw, b"\n", max(start + (n - start) * t // parts, cuts[-1]))
        if at < 0 or at + 1 >= n:
            break
        if at + 1 > cuts[-1]:
            cuts.append(at + 1)
    cuts.append(n)
    return cuts


def find_byte(raw: Any, byte: bytes, pos: int = 0) -> int:
    """``raw.find(byte, pos)`` for a ``bytes``-like ``raw`` or a ``uint8`` array (searched
    in windows: no copy of the whole)."""
    if not isinstance(raw, np.ndarray):
        return int(raw.find(byte, pos))
    window = 1 << 20
    while pos < raw.size:
        at = bytes(raw[pos:pos + window]).find(byte)
        if at >= 0:
            return pos + at
        pos += window
    return -1


def _piece_failed(kern: Any, sts: list[Any]) -> bool:
    """A piece met a bad row (status 2 and up), or the pieces' first data rows disagree on
    the number of fields (a piece alone cannot tell: each fixes the shape from its own)."""
    if any(int(st[kern.ST]) >= 2 for st in sts):
        return True
    shapes = {int(st[kern.EXPECTED]) for st in sts if int(st[kern.ROWS]) and not int(st[kern.ST])}
    return len(shapes) > 1


def _packed(cols: tuple[Any, ...], rows: list[int], first_row: Any,
            text: bool) -> tuple[Any, ...]:
    """The pieces' rows moved together (each piece wrote from its own first row, leaving
    room for every line it might hold), trimmed."""
    w = rows[0]
    for i in range(1, len(rows)):
        r0 = int(first_row[i])
        if r0 != w and rows[i]:
            for col in cols[:4] if text else cols[:2]:
                col[w:w + rows[i]] = col[r0:r0 + rows[i]]  # overlapping: numpy copies safely
        w += rows[i]
    out = [cols[0][:w], cols[1][:w]]
    out += [cols[2][:w], cols[3][:w]] if text else [cols[2], cols[3]]
    return tuple(out)


def _int_ids(kern: Any, cols: tuple[np.ndarray[Any, Any], ...], bounds: tuple[int, int],
             order: Any = None) -> np.ndarray[Any, Any]:
    """Codes in place (ranks of the ids), the sorted distinct ids returned; ``bounds``: the
    least and the greatest id (the scan kept them). ``order``, if given, maps the sorted
    distinct ids to the permutation that puts them in the order wanted instead (the codes
    are then ranks in that order)."""
    sized = [c for c in cols if c.size]
    if not sized:
        return np.zeros(0, dtype=np.int64)
    lo, hi = bounds
    total = sum(c.size for c in cols)
    # a presence table when it is not much larger than the data, else hash + sort
    if hi - lo < 2 * total + (1 << 20) and total < 2**31:  # ranks fit int32
        from .._parallel import run_parts, threads

        k = 1 if total < _ids.PARALLEL_IDS else -(-threads() // len(sized))  # parts per column
        parts = [(c, c.size * t // k, c.size * (t + 1) // k) for c in sized for t in range(k)]
        width = hi - lo + 1
        bits = np.zeros((len(parts), (width + 63) // 64), dtype=np.uint64)
        run_parts(kern.mark_present, [(c, a, b, lo, bits[i]) for i, (c, a, b) in enumerate(parts)])
        rank, ids = kern.dense_ranks(bits, lo, width)
        del bits
        perm = None if order is None else order(ids)
        if perm is not None:  # the ranks in the table, not in the data: no extra pass
            pos = np.empty(ids.size + 1, dtype=np.int32)  # (an absent id's rank may be n)
            pos[perm] = np.arange(ids.size, dtype=np.int32)
            pos[-1] = ids.size
            rank, ids = pos[rank], ids[perm]
        run_parts(kern.apply_ranks, [(c, a, b, rank, lo) for c, a, b in parts])
        return ids  # type: ignore[no-any-return]
    ids = kern.int_codes(cols)
    perm = None if order is None else order(ids)
    if perm is not None:
        from .. import _text_kernels

        _text_kernels.recode(cols, perm)
        ids = ids[perm]
    return ids  # type: ignore[no-any-return]


def _prefixes(raw: Text, start: int, tabs: bool) -> list[str] | None:
    """The prefixes of the first data row's two ids when both end in decimal digits (``u``
    and ``f`` for ``u17 f3``), from the first 64 KiB; ``None`` if they do not, or if a prefix
    is ``-`` (``-7`` is the integer -7: the general coding tells it from ``-0``)."""
    chunk = bytes(raw[start:start + (1 << 16)])
    lines = chunk.splitlines()
    if len(raw) - start > len(chunk):
        lines = lines[:-1]  # (it may be cut)
    for line in lines:
        fields = _fields(line, tabs)
        if fields is None:
            continue
        out = []
        for tok in fields[:2]:
            plen = len(tok.rstrip(b"0123456789"))
            try:
                prefix = tok[:plen].decode("utf-8")
            except UnicodeDecodeError:
                return None
            if plen == len(tok) or prefix == "-":
                return None
            out.append(prefix)
        return out if len(out) == 2 else None
    return None


def _numbered_pairs(raw: Text, start: int, cuts: list[int], first_row: Any, tabs: bool,
                    exact: bool, shared: bool, cols: tuple[Any, ...]) -> Pairs | None:
    """The pairs of an input whose ids are one prefix per id space followed by a number
    (``u17``, ``user_0042``), coded by their numbers the way integer ids are (a presence
    table or a hash table over ``int64``, none over bytes) and then put in byte order; the
    ids are the same ``str`` objects as the general coding gives. ``None`` (nothing
    decided) unless every row is such a pair (:func:`._scan_kernels.scan_numbered`) and,
    in each id space, the numbers name the ids one-to-one: either no number has a leading
    zero, or all have the same number of digits (``u7`` and ``u07`` never meet). ``cols``:
    two ``int64`` columns with room for every row, overwritten."""
    from .. import _text_kernels as tk
    from .._parallel import run_parts
    from . import _scan_kernels as kern

    prefixes = _prefixes(raw, start, tabs)
    if prefixes is None or (shared and prefixes[0] != prefixes[1]):
        return None
    buf = np.frombuffer(raw, dtype=np.uint8)
    pre = [np.frombuffer(p.encode("utf-8"), dtype=np.uint8) for p in prefixes]
    recs = np.zeros((len(cuts) - 1, kern.NB_COL + 10), dtype=np.int64)
    run_parts(kern.scan_numbered, [(buf, cuts[i], cuts[i + 1], tabs, exact, *pre, cols[0],
                                    cols[1], int(first_row[i]), recs[i])
                                   for i in range(len(cuts) - 1)])
    held = recs[recs[:, kern.NB_ROWS] > 0]
    if not recs[:, kern.NB_OK].all() or len(set(held[:, kern.NB_EXPECTED])) != 1:
        return None
    c0, c1, _, _ = _packed(cols, recs[:, kern.NB_ROWS].tolist(), first_row, False)
    spaces: list[tuple[tuple[Any, ...], tuple[int, ...]]] = (
        [((c0, c1), (0, 1))] if shared else [((c0,), (0,)), ((c1,), (1,))])
    facts = []
    for _, ks in spaces:
        f = np.concatenate([held[:, kern.NB_COL + 5 * k:kern.NB_COL + 5 * k + 5] for k in ks])
        canonical, same = bool(f[:, 0].all()), int(f[:, 1].min()) == int(f[:, 2].max())
        if not (canonical or same):
            return None
        facts.append((canonical, same, int(f[:, 1].min()), int(f[:, 3].min()),
                      int(f[:, 4].max())))
    ids = []
    for (space, ks), (canonical, same, width, lo, hi) in zip(spaces, facts, strict=True):
        prefix = prefixes[ks[0]]
        width = 0 if canonical else width
        if not prefix and not width:  # canonical integers after all (a column of its own)
            ids.append(_int_ids(kern, space, (lo, hi)))
            continue
        values = _int_ids(kern, space, (lo, hi), None if same else _decimal_order)
        joined = tk.numbered_text(pre[ks[0]], values, width)
        ids.append(_ids.joined_ids(joined, values.size))
    ignored = max(int(held[0, kern.NB_EXPECTED]) - 2, 0)
    return Pairs((c0, c1), (ids[0], ids[0] if shared else ids[1]), 0, ignored)


_POWERS = 10 ** np.arange(1, 19, dtype=np.int64)


def _decimal_order(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The permutation that puts sorted non-negative numbers (below 10**18) in the byte order
    of their decimal text (``10`` before ``9``): by their digits left-aligned, then by their
    number of digits (``1`` before ``10``)."""
    digits = np.searchsorted(_POWERS, values, side="right") + 1
    aligned = values * (10 ** (18 - digits))  # (below 10**18)
    # ties (1, 10, 100) go shorter first: the sorted numbers list them in that order, and the
    # stable sort keeps it (a merge of at most 18 sorted runs, one per number of digits)
    return np.argsort(aligned, kind="stable")
