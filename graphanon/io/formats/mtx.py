"""Matrix Market: with a banner (through scipy) or the NetworkRepository ``n m`` header variant
(scanned); a file of positions ``1..n``, not ids."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..._memory import require_memory
from ...errors import InputFormatError, InvalidParameterError
from ...graph import Graph
from .._input import (
    _read_bytes,
)
from .._scan import _canonical_int, row_line
from ._lines import _notes, _scan


def read_mtx(path: Path, skip_bad_rows: bool = False) -> Graph:
    raw = _read_bytes(path, "mtx")
    raw = raw[3:] if raw[:3] == b"\xef\xbb\xbf" else raw  # a byte order mark
    if raw.lstrip().startswith(b"%%MatrixMarket"):
        if skip_bad_rows:
            raise InvalidParameterError(
                f"skip_bad_rows (--skip-bad-rows) does not apply to {str(path)!r}: a Matrix "
                "Market file with a banner is read whole by scipy, which skips nothing.")
        import scipy.io

        try:
            A = scipy.io.mmread(io.BytesIO(raw))
            n = A.shape[0]
            return Graph.from_scipy(A, node_ids=np.arange(1, n + 1, dtype=np.int64))
        except MemoryError:
            raise
        except Exception as exc:  # scipy's errors, and a matrix that is not square
            raise InputFormatError(f"{str(path)!r} is not a valid Matrix Market file: {exc}",
                                   path=str(path)) from exc
    # NetworkRepository variant: a header line "n m" (or "n n m"), then 1-indexed edges;
    # lines starting with "%" are comments (Matrix Market's), read as the scanner's "#" ones
    if b"%" in raw:
        raw = re.sub(rb"(?m)^([ \t]*)%", rb"\1#", raw)
    head = re.match(rb"(?:[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n))*([^\r\n]*)(?:\r\n|\r|\n|\Z)",
                    raw)
    assert head is not None  # the pattern matches any text
    before = len(re.findall(rb"\r\n|\r|\n", raw[:head.start(1)]))  # lines above the header
    fields = head.group(1).split()
    if len(fields) not in (2, 3) or not all(re.fullmatch(rb"[0-9]{1,18}", f) for f in fields):
        raise InputFormatError(
            f"{str(path)!r} line {before + 1}: expected a Matrix Market banner or an 'n m' "
            f"header (non-negative integers), got {head.group(1)[:80]!r}",
            path=str(path),
            line=before + 1,
        )
    n, m = int(fields[0]), int(fields[-1])
    require_memory(32 * n, what=f"reading {str(path)!r}",
                   parameter=f"the node count of its header ({n:,})")
    if m == 0 and not re.search(rb"(?m)^[ \t]*[^#\s]", raw[head.end():]):  # no data line
        return Graph.from_edges([], [], n_nodes=n, node_ids=np.arange(1, n + 1, dtype=np.int64))
    body, zeros = _drop_zero_entries(raw[head.end():], n)
    if zeros:
        raw = raw[:head.end()] + body
    pairs = _scan(path, raw, bipartite=False, skip_bad_rows=skip_bad_rows, start=head.end(),
                  first_line=before + 2)
    held = pairs.codes[0].size + pairs.rows_skipped + zeros
    if held != m:
        raise InputFormatError(
            f"{str(path)!r}: the header announces {m:,} edges, the file holds {held:,} "
            "(truncated?).", path=str(path))
    ids = pairs.ids[0]

    def bad_row(row: int, what: str) -> InputFormatError:
        line, text = row_line(raw, head.end(), row, skip_bad_rows=skip_bad_rows)
        line += before + 1
        return InputFormatError(f"{str(path)!r} line {line}: {what}: {text[:120]!r}",
                                path=str(path), line=line)

    if ids.dtype == object:
        text_id = int(np.flatnonzero([not _canonical_int(x.encode()) for x in ids])[0])
        row = int(np.flatnonzero((pairs.codes[0] == text_id) | (pairs.codes[1] == text_id))[0])
        raise bad_row(row, "Matrix Market indices must be integers")
    u = ids[pairs.codes[0]] - 1
    v = ids[pairs.codes[1]] - 1
    out = (u < 0) | (u >= n) | (v < 0) | (v >= n)
    if out.any():
        raise bad_row(int(np.argmax(out)), f"edge endpoints must lie in 1..{n} as the header says")
    G = Graph._from_codes(u, v, n, np.arange(1, n + 1, dtype=np.int64))
    G._note_input(**_notes(pairs), **({"zero_entries_dropped": zeros} if zeros else {}))
    return G


#: The first data line of the body (its field count is the file's).
_FIRST_DATA = re.compile(rb"(?:(?<=[\r\n])|\A)[ \t]*([^#\s][^\r\n]*)")


#: An entry line "i j v" of a header-only Matrix Market file.
_ENTRY = re.compile(rb"[ \t]*([0-9]+)[ \t]+([0-9]+)[ \t]+(\S+)[ \t]*")


def _byte_table(chars: bytes) -> Any:
    table = np.zeros(256, dtype=bool)
    table[list(chars)] = True
    return table


_BLANK, _ZEROISH, _EXP = (_byte_table(b" \t\r\n"), _byte_table(b"0.+-"),
                          _byte_table(b"eE"))


_DIGIT = _byte_table(b"0123456789")


def _drop_zero_entries(body: bytes | bytearray, n: int) -> tuple[bytes | bytearray, int]:
    """``body`` with its zero-valued entries commented out, and their count.

    An entry whose value reads as zero is no edge, as with a banner (scipy reads it and
    :meth:`Graph.from_scipy` drops it), and the header's ``m`` counts it. Only in a file
    of three fields, and only an entry whose endpoints lie in ``1..n``: any other line is
    left for the scanner, which reports it.

    Linear and vectorized: the candidates are the tokens whose mantissa is made only of
    ``0 . + -`` (``0``, ``-0.0``, ``0e5``) and the numbers with an exponent of ``-100`` or
    less (``1e-400`` reads as 0.0); only their lines are parsed."""
    first = _FIRST_DATA.search(body)
    if first is None or len(first.group(1).split()) != 3:
        return body, 0
    b = np.frombuffer(body, dtype=np.uint8)
    size = b.size
    z = _ZEROISH[b]
    step = np.diff(z.view(np.int8))
    starts = np.flatnonzero(step == 1) + 1  # the runs of 0 . + - characters
    stops = np.flatnonzero(step == -1) + 1
    if z[0]:
        starts = np.concatenate([[0], starts])
    if z[-1]:
        stops = np.concatenate([stops, [size]])
    before = (starts == 0) | _BLANK[b[np.maximum(starts - 1, 0)]]
    after = b[np.minimum(stops, size - 1)]
    mantissas = starts[before & ((stops == size) | _BLANK[after] | _EXP[after])]
    exps = np.flatnonzero(_EXP[b])  # (rare: checked where they are)
    exps = exps[exps + 4 < size]
    tiny = exps[(b[exps + 1] == ord("-")) & _DIGIT[b[exps + 2]] & _DIGIT[b[exps + 3]]
                & _DIGIT[b[exps + 4]]]
    cands = np.union1d(mantissas, tiny)
    if not cands.size:
        return body, 0
    eol = np.flatnonzero((b == 10) | (b == 13))
    line_of = np.unique(np.searchsorted(eol, cands))  # the line holding each candidate
    out, last, zeros = [], 0, 0
    for k in line_of.tolist():
        lo = int(eol[k - 1]) + 1 if k else 0
        hi = int(eol[k]) if k < eol.size else len(body)
        m = _ENTRY.fullmatch(body, lo, hi)
        if m is None or not 1 <= int(m.group(1)) <= n or not 1 <= int(m.group(2)) <= n:
            continue
        try:
            if float(m.group(3)) != 0.0:
                continue
        except ValueError:
            continue
        out += [body[last:lo], b"#"]
        last = hi
        zeros += 1
    return (b"".join([*out, body[last:]]) if zeros else body), zeros


def _check_positional_ids(ids: np.ndarray[Any, Any]) -> None:
    """A Matrix Market file holds positions, not ids: it reads back as nodes ``1..n``.
    Ids ``1..n`` are written as they are; ids ``0..n-1`` (a generated graph's, or a 0-based
    data set's) as positions shifted by one, with a warning; any other ids are refused
    rather than renumbered silently."""
    import warnings

    n = ids.size
    if ids.dtype != object and np.array_equal(ids, np.arange(1, n + 1)):
        return
    if ids.dtype != object and n and np.array_equal(ids, np.arange(n)):
        warnings.warn(
            "a Matrix Market (.mtx) file is 1-based: nodes 0..n-1 are written as positions "
            "1..n and read back as 1..n (write .graphml, .parquet or an edge list to keep "
            "the ids).", stacklevel=4)  # write_graph → the writer → here
        return
    first = next((i for i in range(n) if ids.dtype == object or ids[i] != i + 1), 0)
    raise InvalidParameterError(
        f"a Matrix Market (.mtx) file holds node positions 1..n, not ids: node "
        f"{ids[first].item() if ids.dtype != object else ids[first]!r} would read back "
        f"as {first + 1}. Write .graphml, .gml, .parquet or an edge list, which keep the "
        "ids (only a graph whose ids are 1..n, or 0..n-1 shifted by one, can be written as "
        ".mtx).")


def mtx_writer(G: Graph, u: Any, v: Any) -> Callable[[Path], None]:
    """The writer of ``G`` as a symmetric pattern Matrix Market file (positions ``1..n``)."""

    def write(tmp: Path) -> None:
        _check_positional_ids(G.node_ids)
        import scipy.io
        import scipy.sparse as sp

        upper = sp.coo_array(
            (np.ones(u.size, dtype=np.int8), (v, u)), shape=(G.n_nodes, G.n_nodes)
        )
        with tmp.open("wb") as fh:
            scipy.io.mmwrite(fh, upper, field="pattern", symmetry="symmetric")

    return write
