"""graphanon._arrow builds the same Arrow arrays as pyarrow.array, without it."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon._arrow import from_numpy, index_values, large_text, text_objects, text_scalar


@given(st.lists(st.text(), max_size=30))
@settings(max_examples=200, deadline=None)
def test_large_text_equals_pyarrow(items: list[str]) -> None:
    try:
        expected = pa.array(items, pa.large_string())
    except (pa.ArrowInvalid, UnicodeEncodeError):  # lone surrogates: the same refusal
        with pytest.raises((pa.ArrowInvalid, UnicodeEncodeError)):
            large_text(items)
        return
    got = large_text(np.array(items, dtype=object) if items else items)
    got.validate(full=True)
    assert got.equals(expected)
    assert text_objects(got).tolist() == items


def test_large_text_refuses_what_is_not_text() -> None:
    with pytest.raises(TypeError):
        large_text(["a", 1])  # type: ignore[list-item]


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint64, np.float64])
def test_from_numpy_equals_pyarrow(dtype: type) -> None:
    a = np.arange(0, 40, 3).astype(dtype)[::2]  # not contiguous
    assert from_numpy(a).equals(pa.array(a))
    with pytest.raises(TypeError):
        from_numpy(np.array(["x"], dtype=object))


def test_text_scalar() -> None:
    assert text_scalar("\t").equals(pa.scalar("\t", pa.large_string()))
    assert text_scalar("é", large=False).equals(pa.scalar("é", pa.string()))


@pytest.mark.parametrize("offset", [0, 3])
def test_index_values_reads_buffers_and_nulls(offset: int) -> None:
    import pyarrow.compute as pc

    rng = np.random.default_rng(offset)
    words = [f"w{i}" for i in range(40)]
    query = [words[i] if i < 40 else "absent" for i in rng.integers(0, 50, 300)]
    got = pc.index_in(large_text(query), value_set=large_text(words)).slice(offset)
    expected = [-1 if x is None else x for x in got.to_pylist()]
    assert index_values(got).tolist() == expected
    assert index_values(pa.chunked_array([got, got])).tolist() == expected * 2


def test_index_values_of_empty_arrays() -> None:
    assert index_values(pa.array([], pa.int32())).size == 0
    assert index_values(pa.chunked_array([], pa.int32())).size == 0
