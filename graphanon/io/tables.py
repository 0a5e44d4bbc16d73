"""Tables to bipartite user × feature graphs.

A row is a user; each categorical value ``v`` of column ``c`` becomes the feature ``"c=v"``
(one-hot), numeric columns are either one-hot too (``binarize=None``), split at the median
(feature ``"c>median"`` where the value is above it) or cut into quantile bins
(``"c∈q2"``...). This is how the UCI Adult and Google Play tables become the bipartite
graphs of the smooth-k-anonymity experiments (``000_*.txt`` Appendix D: "all categorical
features represented as a binary vector") and of the b-matching experiments (``003_*.txt``:
numeric columns split at the median, categoricals one-hot).
"""

from __future__ import annotations

import io
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._arrow import from_numpy
from ..errors import DataDependentFeaturesWarning, InputFormatError, InvalidParameterError
from ..graph import BipartiteGraph
from ._input import check_csv_columns, csv_error, read_input_bytes

__all__ = ["PRESETS", "TablePreset", "read_table", "table_to_bipartite"]


@dataclass(frozen=True)
class TablePreset:
    """How a known public table is read and turned into a bipartite graph."""

    column_names: tuple[str, ...] | None
    columns: tuple[str, ...]
    id_column: str | None = None
    delimiter: str = ","
    na_values: tuple[str, ...] = ("?", "")
    dropna: bool = True
    split: Mapping[str, str] = field(default_factory=dict)


ADULT_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country", "income",
)

PRESETS: dict[str, TablePreset] = {
    # UCI Adult: the 8 categorical attributes (the income label is not a feature);
    # rows with a missing value are dropped (30,162 complete records of 32,561).
    "adult": TablePreset(
        column_names=ADULT_COLUMNS,
        columns=("workclass", "education", "marital-status", "occupation", "relationship",
                 "race", "sex", "native-country"),
    ),
    # Google Play apps: one row per app name (first occurrence), categorical columns one-hot,
    # Genres split on ';'. "Size" is left out: its 461 raw strings ("19M", "Varies with
    # device") one-hot are near-unique per app; without it the Jaccard of smooth-k,
    # suppression and Mondrian at k=8 are closest to Table 1 of 001_*.txt (docs/anonymity.md).
    "playstore": TablePreset(
        column_names=None,
        columns=("Category", "Installs", "Type", "Content Rating", "Genres", "Android Ver",
                 "Price", "Rating"),
        id_column="App",
        dropna=False,
        na_values=("", "NaN"),
        split={"Genres": ";"},
    ),
}


def read_table(
    path: str | os.PathLike[str],
    *,
    column_names: Sequence[str] | None = None,
    delimiter: str = ",",
    na_values: Sequence[str] = ("?", ""),
) -> Any:
    """Read a CSV table with pyarrow; string cells are stripped of surrounding spaces.

    ``column_names`` is for headerless files (the first line is then data).
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    p = Path(path)
    raw = read_input_bytes(p)
    try:
        table = pacsv.read_csv(
            io.BytesIO(raw),
            read_options=pacsv.ReadOptions(
                column_names=list(column_names) if column_names else None
            ),
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
            convert_options=pacsv.ConvertOptions(
                null_values=list(na_values) + [" " + v for v in na_values if v],
                strings_can_be_null=True,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise csv_error(p, raw, delimiter, exc) from None
    try:
        names = table.column_names
    except UnicodeDecodeError as exc:
        raise InputFormatError(f"{str(p)!r} is not UTF-8 text (a CSV table): {exc}.",
                               path=str(p)) from None
    check_csv_columns(p, raw, delimiter, table, has_header=not column_names)
    cols = []
    for name in names:
        col = table.column(name)
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            col = pc.utf8_trim_whitespace(col)
            col = pc.if_else(pc.is_in(col, value_set=pa.array(list(na_values))), None, col)
        cols.append(col)
    return pa.table(cols, names=names)


def table_to_bipartite(
    table: Any,
    *,
    columns: Sequence[str] | None = None,
    id_column: str | None = None,
    binarize: str | None = None,
    quantiles: int = 4,
    dropna: bool = False,
    split: Mapping[str, str] | None = None,
    max_categories: int | None = None,
    median_in_names: bool = True,
) -> BipartiteGraph:
    """Turn a table into a user × feature :class:`BipartiteGraph`.

    Parameters
    ----------
    table
        A ``pyarrow.Table`` (see :func:`read_table`).
    columns
        Columns that become features (default: all but ``id_column``).
    id_column
        Column of user ids; rows with the same id are merged (union of features). Default:
        the row number.
    binarize
        Numeric columns: ``None`` (the default) one-hot of each value, ``"median"`` one
        feature ``"c>median"``, ``"quantile"`` one-hot of ``quantiles`` bins. Only the
        default keeps each user's features a function of that user's own row: the median
        and quantile cut points are computed from the whole column, so one user's row moves
        the features of others (it breaks the one-row neighbouring relation of a DP release
        such as randomized response) and the median appears in the feature names. Those two
        warn with :class:`~graphanon.errors.DataDependentFeaturesWarning`.
    dropna
        Drop rows with a missing value in any used column (else a missing cell gives no
        feature). NaN and ±inf in a numeric column are missing values too (a median or
        quantile cut never sees them).
    split
        Multi-valued columns: ``{"Genres": ";"}`` gives one feature per listed value.
    max_categories
        Refuse a categorical column with more distinct values (guards against id-like
        columns turning into millions of features).
    median_in_names
        With ``binarize="median"``: name the feature ``"c>41.5"`` (the column's median, read
        off the data) or, when false, ``"c>median"`` (a published release should not carry
        the value; ``b-anonymize`` does this).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    names = table.column_names
    if id_column is not None and id_column not in names:
        raise InvalidParameterError(
            f"The 'id_column' parameter of table_to_bipartite must name a column "
            f"(one of {names}). Got {id_column!r} instead."
        )
    use = list(columns) if columns else [c for c in names if c != id_column]
    for c in use:
        if c not in names:
            raise InvalidParameterError(
                f"The 'columns' parameter of table_to_bipartite names an unknown column {c!r}; "
                f"columns are {names}."
            )
    stray = [c for c in (split or {}) if c not in use]
    if stray:
        raise InvalidParameterError(
            f"The 'split' parameter of table_to_bipartite names {stray[0]!r}, which is not "
            f"one of the feature columns {use}."
        )
    if binarize not in (None, "median", "quantile"):
        raise InvalidParameterError(
            f"The 'binarize' parameter of table_to_bipartite must be one of None, 'median', "
            f"'quantile'. Got {binarize!r} instead."
        )
    for c in use:  # NaN and ±inf are missing values, as an empty cell is
        col = table.column(c)
        if pa.types.is_floating(col.type) and col.length() and pc.all(
                pc.is_finite(col)).as_py() not in (True, None):
            table = table.set_column(names.index(c), c, pc.if_else(pc.is_finite(col), col,
                                                                   pa.scalar(None, col.type)))
    if dropna:
        mask = None
        for c in use + ([id_column] if id_column else []):
            valid = pc.is_valid(table.column(c))
            mask = valid if mask is None else pc.and_(mask, valid)
        if mask is not None:
            table = table.filter(mask)
    n = table.num_rows
    if id_column is not None:
        ids_col = table.column(id_column)
        if ids_col.null_count:
            raise InvalidParameterError(f"id column {id_column!r} has missing values.")
        row_ids: Any = ids_col
    else:
        row_ids = from_numpy(np.arange(n, dtype=np.int64))
    split = dict(split or {})
    user_rows: list[np.ndarray[Any, Any]] = []
    feature_names: list[np.ndarray[Any, Any]] = []
    for c in use:
        col = table.column(c)
        rows, labels = _column_features(c, col, binarize, quantiles, split.get(c),
                                        median_in_names)
        if max_categories is not None and np.unique(labels).size > max_categories:
            raise InvalidParameterError(
                f"column {c!r} has more than max_categories={max_categories} distinct values."
            )
        user_rows.append(rows)
        feature_names.append(labels)
    rows = np.concatenate(user_rows) if user_rows else np.zeros(0, dtype=np.int64)
    feats = np.concatenate(feature_names) if feature_names else np.zeros(0, dtype=object)
    ids_np = np.asarray(row_ids.to_pylist() if id_column else np.arange(n), dtype=object
                        if id_column else np.int64)
    return BipartiteGraph.from_pairs(
        ids_np[rows] if rows.size else ids_np[:0], feats.astype(object), all_users=ids_np
    )


def _column_features(
    name: str, col: Any, binarize: str | None, quantiles: int, sep: str | None,
    median_in_names: bool = True,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    import pyarrow as pa

    valid = ~np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    idx = np.flatnonzero(valid)
    numeric = pa.types.is_integer(col.type) or pa.types.is_floating(col.type)
    if numeric and binarize is not None:
        warnings.warn(DataDependentFeaturesWarning(
            f"column {name!r} is cut at its {binarize} computed from the data: every user's "
            "features depend on every row (not a one-row neighbouring relation: do not feed "
            "them to a DP release such as randomized response)"
            + (" and the median appears in the feature names"
               if binarize == "median" and median_in_names else "")
            + "; binarize=None (CLI: --binarize none) keeps one feature per value."),
            stacklevel=3)
        vals = np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)[idx]
        if vals.size == 0:
            return idx, np.zeros(0, dtype=object)
        if binarize == "median":
            med = float(np.median(vals))
            above = vals > med
            label = f"{name}>{med:g}" if median_in_names else f"{name}>median"
            return idx[above], np.full(int(above.sum()), label, dtype=object)
        edges = np.quantile(vals, np.linspace(0, 1, quantiles + 1)[1:-1])
        bins = np.searchsorted(edges, vals, side="right")
        labels = np.array([f"{name}:q{b + 1}" for b in range(quantiles)], dtype=object)
        return idx, labels[bins]
    values = np.asarray(col.cast(pa.string()).to_pylist(), dtype=object)[idx]
    if sep is None:
        return idx, np.array([f"{name}={v}" for v in values], dtype=object)
    split_rows: list[int] = []
    split_labels: list[str] = []
    for i, v in zip(idx.tolist(), values.tolist(), strict=True):
        for part in str(v).split(sep):
            part = part.strip()
            if part:
                split_rows.append(i)
                split_labels.append(f"{name}={part}")
    return np.asarray(split_rows, dtype=np.int64), np.asarray(split_labels, dtype=object)


def preset_column_names(path: str | os.PathLike[str], spec: TablePreset
                        ) -> tuple[str, ...] | None:
    """The names to give a headerless file of ``spec`` (``None`` when the file has a header:
    its first line names the preset's columns, as the shipped Adult sample's does; read
    without it, that line would become a record)."""
    if spec.column_names is None:
        return None
    with open(path, "rb") as fh:
        first = fh.readline().decode("utf-8", "replace").lstrip("\ufeff").strip()
    # a header may quote its names ("age","workclass",...), as CSV writers do
    fields = [f.strip().strip('"').strip().lower() for f in first.split(spec.delimiter)]
    names = [c.lower() for c in spec.column_names]
    if fields == names:
        return None

    def norm(x: str) -> str:
        return "".join(ch for ch in x if ch.isalnum())

    known = {norm(c) for c in names}
    if sum(norm(f) in known for f in fields) * 2 >= len(names):
        # a header in another spelling (Kaggle's "marital.status"): read as data it would
        # become a user with features such as education=education
        odd = [(f, c) for f, c in zip(fields, names, strict=False) if f != c]
        example = f" ({odd[0][0]!r} for {odd[0][1]!r})" if odd else ""
        raise InputFormatError(
            f"{str(path)!r} line 1 looks like a header but does not name the preset's columns "
            f"exactly{example}: rename the header to {spec.delimiter.join(spec.column_names)!r}"
            ", or remove the line (a headerless file is read with the preset's names).",
            path=str(path))
    return spec.column_names


def load_preset(path: str | os.PathLike[str], preset: str) -> BipartiteGraph:
    """Read a known public table (``"adult"``, ``"playstore"``) as its bipartite graph."""
    if preset not in PRESETS:
        raise InvalidParameterError(
            f"The 'preset' parameter must be one of {', '.join(PRESETS)}. Got {preset!r} instead."
        )
    spec = PRESETS[preset]
    table = read_table(path, column_names=preset_column_names(path, spec),
                       delimiter=spec.delimiter, na_values=spec.na_values)
    missing = [c for c in (*spec.columns, *([spec.id_column] if spec.id_column else []))
               if c not in table.column_names]
    if missing:
        raise InputFormatError(
            f"{str(path)!r} is not a {preset!r} table: it has no column(s) "
            f"{', '.join(repr(c) for c in missing)} (columns: {table.column_names[:20]}).",
            path=str(path))
    if spec.id_column is not None:
        table = _first_per_id(table, spec.id_column)
    return table_to_bipartite(
        table,
        columns=spec.columns,
        id_column=spec.id_column,
        binarize=None,
        dropna=spec.dropna,
        split=spec.split,
    )


def _first_per_id(table: Any, id_column: str) -> Any:
    ids = table.column(id_column).to_pylist()
    _, first = np.unique(np.asarray(ids, dtype=object).astype(str), return_index=True)
    return table.take(np.sort(first))
