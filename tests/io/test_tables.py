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


@pytest.mark.parametrize("rename", [("education-num", "education.num"),
                                    ("marital-status", "marital.status"),
                                    ("workclass", "wc")])
def test_adult_preset_refuses_a_header_in_another_spelling(tmp_path: Path,
                                                           rename: tuple[str, str]) -> None:
    """Kaggle's adult.csv spells its columns with dots: read as data, its header would
    become a user with features such as education=education."""
    from graphanon.datasets import data_path
    from graphanon.errors import InputFormatError

    lines = data_path("adult_sample.csv").read_text().splitlines()
    header = lines[0].replace(*rename)
    (tmp_path / "kaggle.csv").write_text("\n".join([header, *lines[1:4]]) + "\n")
    with pytest.raises(InputFormatError, match=r"line 1 looks like a header .*"
                                               + rename[1].replace(".", r"\.")):
        load_preset(tmp_path / "kaggle.csv", "adult")


def test_nan_and_inf_are_missing_values_not_bins() -> None:
    """NaN and ±inf in a numeric column are missing (no feature), so a median or quantile
    cut is computed from the numbers alone; the one-hot path gives no 'b=nan' feature."""
    import pyarrow as pa

    t = pa.table({"id": [1, 2, 3, 4, 5, 6, 7, 8],
                  "b": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, float("nan")]})
    with pytest.warns(DataDependentFeaturesWarning):
        q = table_to_bipartite(t, id_column="id", binarize="quantile")
    r, c = q.edges()
    got = {int(q.user_ids[i]): str(q.feature_ids[j]) for i, j in zip(r, c, strict=True)}
    assert 8 not in got and got[1] == "b:q1" and got[7] == "b:q4"
    with pytest.warns(DataDependentFeaturesWarning):
        m = table_to_bipartite(t, id_column="id", binarize="median")
    assert set(m.feature_ids.tolist()) == {"b>4"}
    t2 = pa.table({"b": [1.5, float("inf"), float("-inf"), float("nan")]})
    one_hot = table_to_bipartite(t2, binarize=None)
    assert set(one_hot.feature_ids.tolist()) == {"b=1.5"}


def test_adult_preset_reads_a_quoted_header(tmp_path: Path) -> None:
    """A CSV writer's quoted header ("age","workclass",...) names the columns exactly."""
    from graphanon.datasets import data_path

    lines = data_path("adult_sample.csv").read_text().splitlines()
    quoted = ",".join(f'"{c}"' for c in lines[0].split(","))
    (tmp_path / "q.csv").write_text("\n".join([quoted, *lines[1:4]]) + "\n")
    assert load_preset(tmp_path / "q.csv", "adult").n_users == 3
