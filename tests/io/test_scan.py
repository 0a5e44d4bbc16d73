"""The edge-list scanner (graphanon.io._scan): the numba kernel against the Python reference,
and the rules both follow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import threads_and
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon import InputFormatError, InvalidParameterError, _ids
from graphanon.io import _scan, read_bipartite, read_graph

P = Path("x.txt")


def outcome(data: bytes, engine: str, **kw: Any) -> tuple[Any, ...]:
    """What scanning ``data`` gives, in a comparable form: the pairs as ids, or the error."""
    try:
        res = _scan.scan_pairs(P, data, engine=engine, **kw)
    except InputFormatError as exc:
        return ("error", str(exc), exc.line)
    ids = [i.tolist() for i in res.ids]
    kinds = [i.dtype.kind for i in res.ids]
    pairs = [[ids[k][c] for c in res.codes[k].tolist()] for k in (0, 1)]
    assert all(x == sorted(x) for x in ids)  # ids sorted: codes are ranks
    return ("ok", pairs, ids, kinds, res.rows_skipped, res.ignored_columns)


MODES = [dict(tabs=False, exact=False, shared=True),   # edge lists
         dict(tabs=False, exact=True, shared=False),   # user feature, no tab
         dict(tabs=True, exact=True, shared=False)]    # user<TAB>feature

# bytes that matter to the rules: separators, line ends, comments, signs, digits, letters,
# NUL, multi-byte UTF-8 and invalid UTF-8
PIECES = [b" ", b"\t", b"\n", b"\r", b"\r\n", b"#", b"-", b"0", b"1", b"7", b"9", b"a", b"Z",
          b"\x00", b"\xc3\xa9", b"\xe2\x82\xac", b"\xff", b"\xc3", b"007", b"42", b"-3",
          b"9223372036854775807", b"9223372036854775808", b"-9223372036854775808",
          b"\xef\xbb\xbf", b"aaaaaaaa", b"aaaaaaaaX"]
texts = st.lists(st.sampled_from(PIECES), max_size=60).map(b"".join)


# rows of integer ids, the kernel's fast path (two canonical integers of up to 18 digits,
# blanks around) and every near miss it must hand back to the general loop
_TOKENS = [b"0", b"42", b"123456789012345678", b"00", b"07", b"-3", b"-0", b"+5",
           b"1234567890123456789", b"9223372036854775808", b"12a"]


@pytest.mark.parametrize("first", _TOKENS)
def test_integer_rows_match_the_reference(first: bytes) -> None:
    """Every row ``lead first sep second trail`` after a good first row (the fast path starts
    once the shape is known), for the edge-list and the user–feature modes."""
    import itertools

    for lead, sep, second, trail, end in itertools.product(
            [b"", b" "], [b" ", b"\t ", b"\x0b"], _TOKENS, [b"", b" ", b" 5", b" #c"],
            [b"\n", b"\r\n", b"\r", b""]):
        data = b"1 2\n" + lead + first + sep + second + trail + end + (b"3 4" if end else b"")
        for mode in MODES[:2]:
            assert outcome(data, "numba", **mode) == outcome(data, "python", **mode), data


@given(data=texts, mode=st.sampled_from(range(len(MODES))), skip=st.booleans())
@settings(max_examples=600, deadline=None)
def test_kernel_matches_the_reference(data: bytes, mode: int, skip: bool) -> None:
    kw = dict(MODES[mode], skip_bad_rows=skip)
    want = outcome(data, "python", **kw)
    assert outcome(data, "numba", **kw) == want
    as_array = np.frombuffer(data, dtype=np.uint8)  # how the file readers pass their text
    assert outcome(as_array, "python", **kw) == want
    assert outcome(as_array, "numba", **kw) == want
    for threads in (2, 3):  # line-aligned pieces scanned apart, then put together
        with _pieces(threads):
            assert outcome(data, "numba", **kw) == want


def _pieces(threads: int) -> Any:
    """Every input cut into ``threads`` pieces for the kernel, however small, and its ids
    coded in ``threads`` parts."""
    return threads_and(threads, (_scan, "PARALLEL_BYTES", 0), (_ids, "PARALLEL_IDS", 0))


def test_pieces_are_cut_at_line_ends() -> None:
    raw = b"1 2\r\n3 4\n5 6\n\n7 8"
    cuts = _scan._line_cuts(raw, 0, 3)
    assert cuts[0] == 0 and cuts[-1] == len(raw) and cuts == sorted(set(cuts))
    assert all(raw[c - 1:c] == b"\n" for c in cuts[1:-1]) and len(cuts) == 4
    assert _scan._line_cuts(b"1 2", 0, 4) == [0, 3]  # no line end: one piece
    assert _scan._line_cuts(raw, 5, 1) == [5, len(raw)]


def test_find_byte_in_bytes_and_arrays() -> None:
    raw = b"a" * (5 << 19) + b"\n" + b"b\tc\n"  # a line longer than the search window
    arr = np.frombuffer(raw, dtype=np.uint8)
    for byte in (b"\n", b"\t", b"z"):
        for pos in (0, 7, (5 << 19) + 1, len(raw)):
            assert _scan.find_byte(arr, byte, pos) == raw.find(byte, pos)
            assert _scan.find_byte(raw, byte, pos) == raw.find(byte, pos)
    assert _scan._line_cuts(arr, 0, 2) == _scan._line_cuts(raw, 0, 2) == [0, (5 << 19) + 1,
                                                                          len(raw)]


def test_a_bad_row_in_a_later_piece_has_its_line_number() -> None:
    rows = [f"{i} {i + 1}" for i in range(2000)]
    rows[1500] = "12"  # one field
    with _pieces(2):
        with pytest.raises(InputFormatError, match="line 1501") as err:
            _scan.scan_pairs(P, "\n".join(rows).encode(), engine="numba", tabs=False,
                             exact=False, shared=True)
    assert err.value.line == 1501
    rows[1500] = "12 13 14"  # a shape the later piece alone would take as its own
    with _pieces(2), pytest.raises(InputFormatError, match="line 1501"):
        _scan.scan_pairs(P, "\n".join(rows).encode(), engine="numba", tabs=False,
                         exact=False, shared=True)


lines = st.lists(st.tuples(st.sampled_from(["1", "2", "10", "-4", "x", "007", "é", "a b"]),
                           st.sampled_from(["1", "3", "x", "y", "0", "+1"])),
                 min_size=1, max_size=40)


@given(rows=lines, sep=st.sampled_from([" ", "\t", "  \t "]), crlf=st.booleans())
@settings(max_examples=200, deadline=None)
def test_well_formed_lists_match_too(rows: list[tuple[str, str]], sep: str, crlf: bool) -> None:
    end = "\r\n" if crlf else "\n"
    data = ("# header\n" + "".join(f"{a}{sep}{b}{end}" for a, b in rows)).encode()
    for mode in MODES:
        assert outcome(data, "numba", **mode) == outcome(data, "python", **mode)


def test_rules() -> None:
    data = b"\xef\xbb\xbf# c\n  1\t 2  \r\n\n \t\n7 007\r# x\n-0 3\n"
    ok, pairs, ids, kinds, skipped, ignored = outcome(data, "numba", **MODES[0])
    # "-0" and "007" are not canonical integers: the column is text
    assert ok == "ok" and pairs == [["1", "7", "-0"], ["2", "007", "3"]]
    assert kinds == ["O", "O"] and skipped == 0 and ignored == 0
    ok, pairs, ids, kinds, *_ = outcome(b"5 6\n1 2\n", "numba", **MODES[0])
    assert ok == "ok" and pairs == [[5, 1], [6, 2]]
    assert ids[0] == [1, 2, 5, 6] and kinds == ["i", "i"]
    # the field loop reads up to 18 digits itself, longer or signed ones go to the parser
    big = [999999999999999999, 1000000000000000000, 9223372036854775807, -5, 0,
           -9223372036854775808]
    data = "".join(f"{a} {b}\n" for a, b in zip(big, big[::-1], strict=True)).encode()
    for engine in ("numba", "python"):
        ok, pairs, ids, kinds, *_ = outcome(data, engine, **MODES[0])
        assert ok == "ok" and pairs == [big, big[::-1]] and kinds == ["i", "i"]
    # tab mode keeps fields verbatim but for the spaces at their ends (not part of an id in
    # any reader); an integer column of its own space stays int64
    for engine in ("numba", "python"):
        ok, pairs, ids, kinds, *_ = outcome(b" u 1 \t 7\nv\t8  \n", engine, **MODES[2])
        assert ok == "ok" and pairs == [["u 1", "v"], [7, 8]] and kinds == ["O", "i"]


@pytest.mark.parametrize(("data", "mode", "skip", "line", "snippet"), [
    (b"1 2\n3\n", 0, False, 2, "at least 2 non-empty fields, got 1: '3'"),
    (b"1 2\n1 2 3\n", 0, False, 2, "expected 2 fields like the first data line, got 3"),
    (b"1 2 3\n1 2\n", 0, False, 2, "expected 3 fields like the first data line, got 2"),
    (b"u\tf\nu\tf\tg\n", 2, False, 2, "expected 2 tab-separated fields, got 3"),
    (b"u\tf\tg\nu\tf\n", 2, True, 1, "the first data row has 3 fields"),
    (b"u\t\n", 2, False, 1, "an empty id (the first two fields must not be empty)"),
    (b"\t1\t2\n", 2, False, 1, "an empty id"),
    (b"# a\tb\nalice f1\n", 2, False, 2, "the file holds a tab, so its fields are tab-separated"),
    (b"1\n2 3\n", 0, True, 1, "got 1"),  # the first data row fixes the shape, even skipping
    (b"1 2\n\xff 3\n", 0, True, 2, "not valid UTF-8"),  # never skipped
    (b"a b\r\nc\r\n", 0, False, 2, "'c'"),
])
@pytest.mark.parametrize("engine", ["python", "numba"])
def test_errors_name_line_and_content(data: bytes, mode: int, skip: bool, line: int,
                                      snippet: str, engine: str) -> None:
    with pytest.raises(InputFormatError) as err:
        _scan.scan_pairs(P, data, engine=engine, skip_bad_rows=skip, **MODES[mode])
    assert err.value.line == line
    assert f"'x.txt' line {line}:" in str(err.value) and snippet in str(err.value)


@pytest.mark.parametrize("engine", ["python", "numba"])
def test_skipped_rows_are_counted(engine: str) -> None:
    data = b"1 2 0.5\n3\n4 5 1\n6 7 8 9\n"
    res = _scan.scan_pairs(P, data, engine=engine, skip_bad_rows=True, **MODES[0])
    assert res.rows_skipped == 2 and res.ignored_columns == 1
    assert [res.ids[0][c].tolist() for c in res.codes] == [[1, 4], [2, 5]]


def test_long_and_colliding_prefixes_sort_by_bytes() -> None:
    """Tokens sharing 8-byte chunks, prefixes of each other and NUL bytes: the radix sort
    must give code-point order (= Python's str order)."""
    rng = np.random.default_rng(3)
    alphabet = ["a", "b", "\x00", "é", "€", "z"]
    toks = {"".join(alphabet[i] for i in rng.integers(0, len(alphabet), int(rng.integers(1, 30))))
            for _ in range(3000)}
    toks |= {"aaaaaaaa", "aaaaaaaa\x00", "aaaaaaa", "aaaaaaaab", "aaaaaaaaaaaaaaaa"}
    words = sorted(toks)
    order = rng.permutation(len(words))
    data = "".join(f"{words[i]}\tx\n" for i in order).encode()
    res = _scan.scan_pairs(P, data, engine="numba", **MODES[2])
    assert res.ids[0].tolist() == words
    assert [res.ids[0][c] for c in res.codes[0]] == [words[i] for i in order]


def test_many_distinct_ids_grow_the_tables() -> None:
    """More ids than the initial tables hold (text and sparse integers)."""
    n = 20_000
    rng = np.random.default_rng(1)
    a = rng.integers(0, n, 3 * n)
    b = rng.integers(0, n, 3 * n)
    text = "".join(f"id{x:x} {y * 10**12}\n" for x, y in zip(a, b, strict=True)).encode()
    res = _scan.scan_pairs(P, text, engine="numba", **MODES[1])
    assert res.ids[0].tolist() == sorted({f"id{x:x}" for x in a})
    assert res.ids[1].tolist() == sorted({int(y) * 10**12 for y in b})
    assert [res.ids[0][c] for c in res.codes[0][:5]] == [f"id{x:x}" for x in a[:5]]
    assert (res.ids[1][res.codes[1]] == b * 10**12).all()


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edges=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1,
                      max_size=200),
       strings=st.booleans())
def test_read_graph_is_the_same_through_both_engines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edges: list[tuple[int, int]],
        strings: bool) -> None:
    p = tmp_path / "g.txt"
    fmt = "n{}" if strings else "{}"
    p.write_text("".join(f"{fmt.format(a)}\t{fmt.format(b)}\n" for a, b in edges))
    monkeypatch.setattr(_scan, "SMALL_BYTES", 1 << 30)
    monkeypatch.setattr(_scan, "_kernel_loaded", lambda: False)
    G = read_graph(p)
    monkeypatch.setattr(_scan, "SMALL_BYTES", -1)
    H = read_graph(p)
    assert G == H and G.input_cleaning == H.input_cleaning
    assert G.node_ids.dtype == H.node_ids.dtype == (object if strings else np.int64)


def test_default_engine_by_size_until_the_kernel_is_loaded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[str] = []
    for name in ("_scan_python", "_scan_numba"):
        real = getattr(_scan, name)
        monkeypatch.setattr(_scan, name, lambda *a, real=real, name=name: (
            used.append(name), real(*a))[1])
    small, large = b"1 2\n", b"1 2\n" * (_scan.SMALL_BYTES // 4 + 1)
    monkeypatch.setattr(_scan, "_kernel_loaded", lambda: False)
    for data in (small, large):
        _scan.scan_pairs(P, data, **MODES[0])
    monkeypatch.setattr(_scan, "_kernel_loaded", lambda: True)
    _scan.scan_pairs(P, small, **MODES[0])
    assert used == ["_scan_python", "_scan_numba", "_scan_numba"]


def test_bipartite_reader_through_the_kernel(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_scan, "SMALL_BYTES", -1)
    p = tmp_path / "b.tsv"
    p.write_text("# user\tfeature\nu1\tArt & Design\nu2\tx\nu1\tx\nu1\tx\n")
    B = read_bipartite(p)
    assert B.user_ids.tolist() == ["u1", "u2"]
    assert B.feature_ids.tolist() == ["Art & Design", "x"]
    assert B.n_edges == 3 and B.input_cleaning["duplicate_pairs"] == 1


_NUMBERED = [  # families of ids of the shape "prefix + number", and near misses
    lambda r: f"u{r.integers(0, 300)}",                      # widths vary: byte order
    lambda r: f"user_{r.integers(0, 999):04d}",              # zero padded, one width
    lambda r: f"{r.integers(0, 99):03d}",                    # padded digits: text
    lambda r: str(r.choice(["u1", "u01", "u10", "u2", "u007", "u7"])),  # u7 and u07
    lambda r: str(r.choice(["-5", "-12", "-0", "-3"])),      # integers, and "-0"
    lambda r: str(r.integers(0, 10 ** int(r.integers(1, 19)))),
    lambda r: str(r.choice(["é1", "é22", "é3", "é100", "\x001"])),
    lambda r: str(r.choice(["a1", "a1x", "ab2", "a", "1a1"])),
    lambda r: f"n{r.integers(0, 10**18)}",                   # spread out: no presence table
    lambda r: f"n{r.integers(0, 10**18)}0",                  # 19 digits
]


# rows of numbered text ids (the kernel's numbered scan: a prefix and up to 18 digits) and
# every near miss it must hand back to the general text scan
_NUMBERED_TOKENS = [b"u3", b"u45", b"u007", b"u0", b"u", b"u3a", b"x3", b"uu3", b"u-3", b"3",
                    b"u1234567890123456789", b"u123456789012345678", b"\xc3\xa93"]


@pytest.mark.parametrize("first", _NUMBERED_TOKENS)
def test_numbered_rows_match_the_reference(first: bytes) -> None:
    """Every row ``lead first sep second trail`` between good rows of numbered ids (with a
    comment and a blank line), in every mode and in one piece or three: the numbered scan
    takes only rows the general rules read as two such ids, and hands every other back."""
    import itertools

    for lead, sep, second, trail, end in itertools.product(
            [b"", b" "], [b" ", b"\t", b"\t\t"], [b"u8", b"u08", b"v8"],
            [b"", b"\t", b" 5", b" #c"], [b"\n", b""]):
        row = lead + first + sep + second + trail + end
        for data in (b"# ids\nu1\tu2\n\n" + row + (b"u3\tu4\n" if end else b""),
                     row + (b"u3\tu4\n" if end else b"")):  # (the first data row)
            for mode in MODES:
                want = outcome(data, "python", **mode)
                assert outcome(data, "numba", **mode) == want, data
                if data.startswith(b"#"):
                    with _pieces(3):
                        assert outcome(data, "numba", **mode) == want, data
    for blank in [b" ", b"\t", b" #x", b"\t#x", b"#x\ty"]:  # blank or not by the mode
        data = b"u1\tu2\n" + blank + b"\nu3\tu4\n"
        for mode in MODES:
            assert outcome(data, "numba", **mode) == outcome(data, "python", **mode), data


@pytest.mark.parametrize("parts", [1, 3])
def test_numbered_text_ids_are_coded_like_any_text(parts: int) -> None:
    """Ids of one prefix and a number are coded by their numbers (no hash table), then put
    in byte order; the ids, their representation and every code are what the general
    coding gives, for every family and its near misses, alone and mixed, in one column or
    two, in one part or in several."""
    rng = np.random.default_rng(8)
    with threads_and(parts, (_ids, "PARALLEL_IDS", 0 if parts > 1 else _ids.PARALLEL_IDS)):
        for trial in range(400):
            fams = ([trial % len(_NUMBERED)] if trial < 200
                    else rng.integers(0, len(_NUMBERED), 2))
            rows = int(rng.integers(1, 40))
            toks = [_NUMBERED[int(rng.choice(fams))](rng) for _ in range(2 * rows)]
            data = "".join(f"{a}\t{b}\n" for a, b in zip(toks[::2], toks[1::2], strict=True))
            for mode in MODES:
                got = outcome(data.encode(), "numba", **mode)
                assert got == outcome(data.encode(), "python", **mode), toks
                assert got[0] == "ok" or "\x00" in data


@pytest.mark.parametrize("engine", ["python", "numba"])
def test_very_long_digit_ids_are_text(engine: str) -> None:
    """More digits than int64 holds (beyond Python's 4,300-digit int() limit too): text."""
    res = _scan.scan_pairs(P, b"1" * 4301 + b" 2\n", engine=engine, **MODES[0])
    assert res.ids[0].dtype == object and res.ids[0].tolist() == ["1" * 4301, "2"]


def test_text_ids_are_bounded_by_their_own_factor(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The same size passes with integer ids and is refused with text ids, whose distinct
    ids need about four times the memory."""
    from graphanon.io._input import READ_FACTORS

    ints = tmp_path / "i.txt"
    ints.write_bytes(b"".join(b"%d %d\n" % (i, i + 1) for i in range(200_000)))
    text = tmp_path / "t.txt"
    lines = b"".join(b"a%d a%d\n" % (i, i + 1) for i in range(200_000))
    text.write_bytes(lines[:ints.stat().st_size])
    size = ints.stat().st_size
    assert size > _scan.SMALL_BYTES
    monkeypatch.delenv("GRAPHANON_MAX_INPUT_BYTES", raising=False)
    monkeypatch.setenv("GRAPHANON_MEMORY_LIMIT", str(size * READ_FACTORS["edgelist"] * 2))
    assert read_graph(ints).n_edges == 200_000
    with pytest.raises(InvalidParameterError, match=r"with text ids.*GRAPHANON_MEMORY_LIMIT"):
        read_graph(text)
