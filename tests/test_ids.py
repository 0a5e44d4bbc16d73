"""The canonical id encoding (graphanon._ids) and the attack it closes (issue 13, point 1).

One added node with a non-integer id used to turn a whole integer id column into strings,
which changed the hash key of every node and so the whole EAD edge order: the θ-projected 1K
of a 3,000-node graph moved by 57 (bound 2θ+1 = 9). A node's key must depend on its own id
only, for every input path.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon import Graph
from graphanon._ids import canonical_ids, id_keys
from graphanon.errors import InvalidParameterError
from graphanon.io import read_graph
from graphanon.nodedp.projection import edge_addition
from graphanon.nodedp.theta_dk import node_dk_query, node_sensitivity


# ---------------------------------------------------------------------- the encoding
def test_canonical_integers_become_int64() -> None:
    out = canonical_ids(np.array(["12", "-3", "0", "9223372036854775807"]))
    assert out.dtype == np.int64
    assert out.tolist() == [12, -3, 0, 9223372036854775807]
    assert canonical_ids(pa.array(["-9223372036854775808"])).tolist() == [-(2**63)]


@pytest.mark.parametrize("token", ["007", "+7", "0x10", "7.0", " 7", "-0", "1e3",
                                   "9223372036854775808", "٣"])
def test_non_canonical_tokens_stay_text(token: str) -> None:
    out = canonical_ids(np.array(["1", token], dtype=object))
    assert out.dtype == object
    assert out.tolist() == ["1", token]


def test_mixed_python_values_and_big_ints() -> None:
    assert canonical_ids([1, "x"]).tolist() == ["1", "x"]
    assert canonical_ids(np.array([1, 2**70], dtype=object)).tolist() == ["1", str(2**70)]
    assert canonical_ids(np.array([2**64 - 1], dtype=np.uint64)).tolist() == [str(2**64 - 1)]
    assert canonical_ids(np.array([3.0, 4.0])).dtype == np.int64


@pytest.mark.parametrize("bad", [[True, False], [1.5], ["a", None], ["a", ""], [object()]])
def test_bad_ids_are_refused(bad: list[object]) -> None:
    with pytest.raises(InvalidParameterError):
        canonical_ids(np.array(bad, dtype=object) if bad and bad[0] is not True else bad)


def test_key_depends_on_the_id_only() -> None:
    ints = np.array([0, 7, -5, 123456789012, -(2**63), 2**63 - 1])
    text = np.array([str(x) for x in ints.tolist()] + ["x", "007"], dtype=object)
    for key in (0, 1, 2**64 - 1, 0xDEADBEEF):
        a = id_keys(ints, key)
        b = id_keys(text, key)
        assert np.array_equal(a, b[: ints.size])
        assert len(set(b.tolist())) == b.size  # "007" is not 7
    assert not np.array_equal(id_keys(ints, 1), id_keys(ints, 2))


def test_seven_and_quoted_seven_are_one_node() -> None:
    G = Graph.from_id_edges(np.array([7, 1], dtype=object), np.array(["7", "x"], dtype=object))
    assert G.n_nodes == 3  # {"1", "7", "x"}: the loop 7–"7" was dropped
    assert G.n_edges == 1
    assert G.index_of([7]).tolist() == G.index_of(["7"]).tolist()


def test_text_file_keeps_leading_zeros_and_hex(tmp_path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "g.txt"
    p.write_text("007 7\n0x10 16\n")
    G = read_graph(p)
    assert sorted(G.node_ids.tolist()) == sorted(["007", "7", "0x10", "16"])
    assert G.n_edges == 2


# ---------------------------------------------------------------------- the attack
def _random_int_graph(n: int = 3000, m: int = 15000, seed: int = 5) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    u = rng.integers(0, n, 3 * m)
    v = rng.integers(0, n, 3 * m)
    keep = u != v
    a, b = np.minimum(u[keep], v[keep]), np.maximum(u[keep], v[keep])
    key = np.unique(a * n + b)[:m]
    return key // n, key % n


def _projected_change(G: Graph, H: Graph, theta: int, key: int) -> tuple[float, float]:
    P = edge_addition(G, theta=theta, key=key).graph
    Q = edge_addition(H, theta=theta, key=key).graph
    out = []
    for d in (1, 2):
        a, b = node_dk_query(P, d, theta), node_dk_query(Q, d, theta)
        out.append(float(np.abs(a - b).sum()))
    return out[0], out[1]


def _write(path, src, dst, fmt: str) -> None:  # type: ignore[no-untyped-def]
    if fmt == "edgelist":
        path.write_text("".join(f"{a} {b}\n" for a, b in zip(src, dst, strict=True)))
    elif fmt == "csv":
        path.write_text("source,target\n"
                        + "".join(f"{a},{b}\n" for a, b in zip(src, dst, strict=True)))
    else:
        typed = all(isinstance(x, int) for x in [*src, *dst])
        t = pa.int64() if typed else pa.large_string()
        cast = (lambda xs: list(xs)) if typed else (lambda xs: [str(x) for x in xs])
        pq.write_table(pa.table({"source": pa.array(cast(src), t),
                                 "target": pa.array(cast(dst), t)}), path)


@pytest.mark.parametrize("fmt,ext", [("edgelist", "txt"), ("csv", "csv"),
                                      ("parquet", "parquet")])
@pytest.mark.parametrize("extra", ["x", "99999999999999999999", "007"])
def test_one_foreign_id_moves_the_projection_within_the_bound(tmp_path, fmt, ext,  # type: ignore[no-untyped-def]
                                                              extra: str) -> None:
    a, b = _random_int_graph()
    src, dst = a.tolist(), b.tolist()
    base, plus = tmp_path / f"g.{ext}", tmp_path / f"h.{ext}"
    _write(base, src, dst, fmt)
    _write(plus, [*src, extra], [*dst, 0], fmt)
    G, H = read_graph(base), read_graph(plus)
    assert G.node_ids.dtype == np.int64 and H.node_ids.dtype == object
    assert H.n_nodes == G.n_nodes + 1
    theta = 4
    for key in (11, 2**63 + 5):
        d1, d2 = _projected_change(G, H, theta, key)
        assert d1 <= node_sensitivity(1, theta), (d1, key)
        assert d2 <= node_sensitivity(2, theta), (d2, key)


def test_python_api_mixed_types_keep_keys() -> None:
    a, b = _random_int_graph(n=500, m=2000, seed=2)
    G = Graph.from_id_edges(a, b)
    H = Graph.from_id_edges(np.array([*a.tolist(), "node-x"], dtype=object),
                            np.array([*b.tolist(), 3], dtype=object))
    for key in (1, 99):
        d1, d2 = _projected_change(G, H, 3, key)
        assert d1 <= node_sensitivity(1, 3)
        assert d2 <= node_sensitivity(2, 3)


# ---------------------------------------------------------------------- coding text ids
_TOKENS = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.one_of(_TOKENS, st.integers(-10, 10).map(str)), max_size=30),
                min_size=1, max_size=3),
       st.booleans())
def test_text_ids_coded_by_the_kernel_as_by_arrow(columns: list[list[str]],
                                                  int_column: bool) -> None:
    """encode_ids has two text codings (the reader's kernels; Arrow while the kernels are not
    loaded, for few ids): the same codes and the same ids, in code-point order, for any text
    (line breaks, the separator-free 0xFF-joined decode, non-ASCII) and mixed columns."""
    import graphanon.graph._codes as gmod

    cols: list[object] = [np.array([*c, "x"], dtype=object) for c in columns]
    if int_column:
        cols.append(np.array([3, -1, 3], dtype=np.int64))
    out = {}
    for kernel in (False, True):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(gmod, "_text_kernel", lambda n, k=kernel: k)
            codes, ids = gmod.encode_ids(*cols)
        out[kernel] = ([c.tolist() for c in codes], ids.tolist())
    assert out[True] == out[False]
    codes, ids = out[True]
    texts = sorted({str(x) for c in cols for x in np.asarray(c).tolist()})
    assert ids == texts  # code-point order of the canonical text
    for c, col in zip(codes, cols, strict=True):
        assert [ids[i] for i in c] == [str(x) for x in np.asarray(col).tolist()]


@pytest.mark.parametrize("kernel", [False, True])
def test_universe_with_line_breaks_and_unicode_ids(kernel: bool,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """with_nodes matches text ids by sorting both sides and merging (kernel) or by Arrow's
    hash table: the same graph either way, duplicates in the universe listed once."""
    import graphanon.graph._codes as gmod

    monkeypatch.setattr(gmod, "_text_kernel", lambda n: kernel)
    G = Graph.from_id_edges(np.array(["a\nb", "é"], dtype=object),
                            np.array(["z", "a"], dtype=object))
    H = G.with_nodes(np.array(["a", "z", "é", "a\nb", "ü", "z"], dtype=object))
    assert H.node_ids.tolist() == ["a", "a\nb", "z", "é", "ü"]
    assert H.n_edges == 2 and H.degrees.tolist() == [1, 1, 1, 1, 0]
    u, v = H.edges()
    ids = H.node_ids
    assert sorted(tuple(sorted((ids[a], ids[b]))) for a, b in zip(u, v, strict=True)) == [
        ("a", "é"), ("a\nb", "z")]
    with pytest.raises(InvalidParameterError, match="'a\\\\nb' of the input is not in the node"):
        G.with_nodes(np.array(["a", "z", "é", "ab"], dtype=object))


def test_nearly_sorted_ids_are_coded_in_order() -> None:
    """Sorted ids with a few out of place at the end (a graph's ids against a slightly larger
    list): numba's quicksort is quadratic on this pattern (0.5 s for 100k ids), so the kernels
    sort by merge sort; the codes must still be exact."""
    from pathlib import Path

    import graphanon.graph._codes as gmod
    from graphanon.io import _scan

    base = sorted(f"u{i}" for i in range(3000))
    late = np.array([*base, "u1234x", "a"], dtype=object)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gmod, "_text_kernel", lambda n: True)
        (c,), ids = gmod.encode_ids(late)
    assert ids.tolist() == sorted(late.tolist())
    assert [ids[i] for i in c.tolist()] == late.tolist()
    # integer ids spread too widely for the presence table: the hash coding, then the sort
    first = [i * 10**12 for i in range(3000)] + [5]
    text = "".join(f"{a} {a + 7}\n" for a in first).encode()
    pairs = _scan.scan_pairs(Path("x"), text, tabs=False, exact=False, shared=True,
                             engine="numba")
    ids = pairs.ids[0]
    assert ids.tolist() == sorted({x for a in first for x in (a, a + 7)})
    assert ids[pairs.codes[0]].tolist() == first
    assert ids[pairs.codes[1]].tolist() == [a + 7 for a in first]


@pytest.mark.parametrize("kernel", [False, True])
def test_text_that_is_not_unicode_is_refused_clearly(kernel: bool, tmp_path,  # type: ignore[no-untyped-def]
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Parquet does not check UTF-8 and a Python ``str`` may hold a lone surrogate: both are
    refused with the parameter named, on either text coding, never decoded into ids that
    cannot be written back."""
    import graphanon.graph._codes as gmod

    monkeypatch.setattr(gmod, "_text_kernel", lambda n: kernel)
    offsets = pa.py_buffer(np.array([0, 2, 3, 4], dtype=np.int64))
    bad = pa.Array.from_buffers(pa.large_string(), 3, [None, offsets, pa.py_buffer(b"a\xfebc")])
    pq.write_table(pa.table({"source": bad, "target": pa.array(["b", "c", "a"])}),
                   tmp_path / "bad.parquet")
    with pytest.raises(InvalidParameterError, match="valid UTF-8"):
        read_graph(tmp_path / "bad.parquet")
    with pytest.raises(InvalidParameterError, match="src ids must be valid UTF-8"):
        canonical_ids(bad, "src ids")
    for call in (lambda: Graph.from_id_edges(["a\ud800", "b"], ["b", "c"]),
                 lambda: canonical_ids(np.array(["\udcff"], dtype=object))):
        with pytest.raises(InvalidParameterError, match="lone surrogate"):
            call()
    G = Graph.from_id_edges(["a"], ["b"])
    with pytest.raises(InvalidParameterError, match="node ids must be valid Unicode"):
        G.with_nodes(np.array(["a", "b", "\udc80"], dtype=object))


def test_node_ids_equal_once_canonical_are_refused() -> None:
    """``7`` and ``"7"`` are one id: a graph built with both would merge two nodes later."""
    with pytest.raises(InvalidParameterError, match="node_ids must be unique"):
        Graph.from_edges([0, 1], [1, 2], node_ids=np.array([7, "7", "b"], dtype=object))
    from graphanon import BipartiteGraph

    with pytest.raises(InvalidParameterError, match="feature_ids must be unique"):
        BipartiteGraph.from_indices([0], [0], n_users=1, n_features=2,
                                    feature_ids=np.array([1, "1"], dtype=object))
    G = Graph.from_edges([0], [1], node_ids=np.array([7, "x"], dtype=object))
    assert G.node_ids.tolist() == ["7", "x"]


def test_universe_file_lines_are_those_of_the_edge_lists(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A universe file is read by the edge-list rules: a BOM skipped, lines split only at
    ``\\n``, ``\\r\\n`` and ``\\r``, only spaces and tabs stripped; so every id an edge list can
    hold (``U+2028``, a form feed, a no-break space) can be listed, and ``7`` stays node 7."""
    from graphanon.io.id_lists import read_id_list

    ids = ["a\u2028b", "c\x0cd", "\xa0e", "f\x85", "g\x1ch"]
    (tmp_path / "g.txt").write_text("".join(f"{x}\tz\n" for x in ids), encoding="utf-8")
    (tmp_path / "u.txt").write_text("\ufeff" + "\r\n".join([*ids, " z\t", "", "# note"]) + "\r",
                                    encoding="utf-8")
    G = read_graph(tmp_path / "g.txt")
    U = read_id_list(tmp_path / "u.txt")
    assert sorted(U.tolist()) == sorted([*ids, "z"])
    assert G.with_nodes(U).n_edges == G.n_edges == len(ids)
    (tmp_path / "n.txt").write_text("\ufeff7\n8\n9\n", encoding="utf-8")
    (tmp_path / "i.txt").write_text("7 8\n", encoding="utf-8")
    H = read_graph(tmp_path / "i.txt").with_nodes(read_id_list(tmp_path / "n.txt"))
    assert H.node_ids.tolist() == [7, 8, 9] and H.n_edges == 1


_PIECES = ["7", "007", "-0", "a", " b ", "\tc", "#x", "  #y", "", " ", "d\te", "\u2028",
           "f\x0cg", "é", "9223372036854775808", "-9223372036854775808", "12", "x y"]


def _universe_reference(text: str) -> list[str] | str:
    """The rules of read_id_list line by line in Python: its ids (canonical text, first
    occurrence order) or the first error's line number."""
    import re

    text = text.removeprefix("\ufeff")
    ids: list[str] = []
    for no, line in enumerate(re.split("\r\n|\r|\n", text), 1):
        s = line.strip(" \t")
        if not s or s.startswith("#"):
            continue
        if "\t" in s:
            return f"line {no}"
        ids.append(s)
    return list(dict.fromkeys(ids)) if ids else "lists no"


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(["\n", "\r\n", "\r"])),
                      max_size=8), bom=st.booleans(), cut=st.booleans())
def test_universe_reader_follows_the_line_rules(tmp_path_factory, lines, bom,  # type: ignore[no-untyped-def]
                                                cut) -> None:
    """read_id_list works on Arrow columns (no Python object per line); a line-by-line
    Python reference of the same rules gives the same ids, or fails on the same line."""
    from graphanon.errors import InputFormatError
    from graphanon.io.id_lists import read_id_list

    text = ("\ufeff" if bom else "") + "".join(a + b for a, b in lines)
    if cut and text:
        text = text[:-1]
    path = tmp_path_factory.mktemp("u") / "u.txt"
    path.write_bytes(text.encode("utf-8"))
    want = _universe_reference(text)
    if isinstance(want, str):
        with pytest.raises(InputFormatError, match=want):
            read_id_list(path)
        return
    got = read_id_list(path)
    assert [str(x) for x in got.tolist()] == want
    assert got.dtype == (np.int64 if all(
        x == "0" or (x.lstrip("-")[:1] in "123456789" and x.lstrip("-").isdigit()
                     and x != "-0" and -2**63 <= int(x) < 2**63) for x in want) else object)


@pytest.mark.parametrize("parts", [1, 3])
def test_text_coding_does_not_depend_on_its_hash_key(parts: int,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The hash table's key is drawn at random for every coding (an input cannot be made of
    ids that collide in its slots); the codes and ids are the same for any key: all-ones,
    zero, and keys whose low bits agree, in one part or in several."""
    import graphanon._ids as ids_mod
    from graphanon._ids import text_column_codes

    rng = np.random.default_rng(5)
    words = [f"id{i:0{w}d}" for i, w in zip(range(3000), rng.integers(1, 14, 3000), strict=True)]
    col = np.array(rng.choice(words, 20_000).tolist(), dtype=object)
    buffers = ids_mod.id_text_buffers(col)
    if parts > 1:
        monkeypatch.setattr(ids_mod, "PARALLEL_IDS", 0)
        monkeypatch.setenv("GRAPHANON_THREADS", str(parts))
    results = []
    for key in (0, 2**64 - 1, 1 << 40, (1 << 40) + 1):
        monkeypatch.setattr(ids_mod.secrets, "randbits", lambda n, key=key: key)
        codes, ids = text_column_codes([buffers])
        results.append((codes[0].tolist(), ids.tolist()))
    assert all(r == results[0] for r in results)
    assert results[0][1] == sorted(set(col.tolist()))
    assert [results[0][1][c] for c in results[0][0]] == col.tolist()


def test_token_bytes_compared_a_word_at_a_time() -> None:
    """The hash table's last check (two tokens with equal hashes, lengths and first 8 bytes
    are one id only if all their bytes are equal) and the word loads under it: a difference
    at any byte is seen, whatever the length and wherever the token sits (the end of the
    buffer included, where a whole word cannot be read)."""
    from graphanon._text_kernels import _prefix, same_bytes

    rng = np.random.default_rng(3)
    for length in range(0, 41):
        tok = rng.integers(1, 256, length).astype(np.uint8)
        for pad in (0, 3, 9):  # bytes after the token in its buffer
            a = np.concatenate([rng.integers(0, 256, 5).astype(np.uint8), tok,
                                np.zeros(pad, np.uint8)])
            b = np.concatenate([tok, np.full(pad, 255, np.uint8)])
            assert same_bytes(a, 5, b, 0, length)
            want = int.from_bytes(bytes(tok[:8]), "little")
            assert _prefix(a, 5, length) == want and _prefix(b, 0, length) == want
            for at in range(length):
                c = b.copy()
                c[at] ^= 1
                assert not same_bytes(a, 5, c, 0, length)
                assert same_bytes(a, 5, c, 0, length, skip=8) == (at < 8)


@pytest.mark.parametrize("tokens", [["é1", "a b", "x\u2028y", "ü", "zz"], ["u10", "u9", "u7"],
                                    ["only"]])
def test_read_ids_keep_their_text_without_a_pass_over_the_strings(tokens: list[str]) -> None:
    """Text ids coded by the kernels (general and numbered) or taken from an Arrow column
    remember their text: its Arrow form is the one built from the ``str`` objects, and the
    array is read-only, so that the text can never go stale."""
    from graphanon import _ids as ids_mod
    from graphanon._arrow import large_text
    from graphanon.io import _scan

    raw = "".join(f"{a}\t{b}\n" for a, b in zip(tokens, tokens[1:] + tokens[:1],
                                                strict=True)).encode()
    res = _scan.scan_pairs(Path("x.txt"), raw, tabs=True, exact=True, shared=False,
                           engine="numba")
    arrow_ids = canonical_ids(pa.array(tokens * 2))
    for got in (*res.ids, arrow_ids):
        assert id(got) in ids_mod._TEXT and not got.flags.writeable
        assert ids_mod._arrow_text(got).equals(large_text(got))
        assert ids_mod._arrow_text(got).to_pylist() == got.tolist()
    copy = res.ids[0].copy()  # another array: built from its strings
    assert id(copy) not in ids_mod._TEXT and ids_mod._arrow_text(copy).equals(
        large_text(copy))
