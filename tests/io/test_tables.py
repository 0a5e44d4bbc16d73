"""Tables to bipartite graphs."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphanon import InvalidParameterError
from graphanon.datasets import load_adult_sample
from graphanon.errors import DataDependentFeaturesWarning
from graphanon.io import load_preset, read_table, table_to_bipartite


def test_one_hot_median_and_split(tmp_path: Path) -> None:
    p = tmp_path / "t.csv"
    p.write_text("id,color,size,tags\na,red,1,x;y\nb,blue,5,y\nc,red,9,\nd,?,3,z\n")
    t = read_table(p)
    B = table_to_bipartite(t, id_column="id", split={"tags": ";"})
    rows = {u: set(B.feature_ids[B.row(i)].tolist()) for i, u in enumerate(B.user_ids)}
    assert rows["a"] == {"color=red", "size=1", "tags=x", "tags=y"}
    # by default a numeric value is a feature of its own: a user's features are a function
    # of the user's own row
    assert rows["c"] == {"color=red", "size=9"}
    assert rows["d"] == {"size=3", "tags=z"}  # '?' is missing: no colour feature
    # cut points computed from the data warn: one row moves the others' features
    with pytest.warns(DataDependentFeaturesWarning, match="median appears"):
        Bm = table_to_bipartite(t, id_column="id", columns=["size"], binarize="median")
    assert sorted(Bm.feature_ids.tolist()) == ["size>4"]
    B2 = table_to_bipartite(t, id_column="id", columns=["color"], dropna=True)
    assert B2.user_ids.tolist() == ["a", "b", "c"]
    with pytest.warns(DataDependentFeaturesWarning, match="quantile"):
        Bq = table_to_bipartite(t, columns=["size"], binarize="quantile", quantiles=2)
    assert sorted(set(Bq.feature_ids.tolist())) == ["size:q1", "size:q2"]


def test_bad_columns(tmp_path: Path) -> None:
    p = tmp_path / "t.csv"
    p.write_text("id,c\n1,x\n")
    t = read_table(p)
    with pytest.raises(InvalidParameterError, match=r"'id_column'.*'nope'"):
        table_to_bipartite(t, id_column="nope")
    with pytest.raises(InvalidParameterError, match="unknown column 'zz'"):
        table_to_bipartite(t, columns=["zz"])
    with pytest.raises(InvalidParameterError, match="'binarize'"):
        table_to_bipartite(t, binarize="mean")
    with pytest.raises(InvalidParameterError, match=r"'split' .* 'id', which is not"):
        table_to_bipartite(t, id_column="id", split={"id": ";"})  # not a feature column


def test_adult_preset_matches_paper_setting(dataset) -> None:
    B = load_preset(dataset("adult/adult.data"), "adult")
    assert B.n_users == 30162  # complete records
    assert set(B.user_degrees.tolist()) == {8}  # one value per categorical attribute


def test_shipped_adult_sample() -> None:
    B = load_adult_sample()
    assert B.n_users == 2000 and set(B.user_degrees.tolist()) == {8}


def test_adult_preset_on_a_file_with_its_header(tmp_path: Path) -> None:
    """The shipped sample names its columns on its first line: that line is a header, not a
    record (which would add a user with ``education=education``); a headerless copy reads
    the same records."""
    from graphanon.datasets import data_path

    with_header = load_preset(data_path("adult_sample.csv"), "adult")
    assert with_header.n_users == 2000
    assert not any(str(f).split("=")[0] == str(f).split("=")[-1]
                   for f in with_header.feature_ids.tolist())
    lines = data_path("adult_sample.csv").read_text().splitlines()
    (tmp_path / "adult.data").write_text("\n".join(lines[1:]) + "\n")
    assert load_preset(tmp_path / "adult.data", "adult") == with_header
