"""``user<TAB>feature`` lists (tab separated when the file holds a tab, string ids allowed,
``#`` comments)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..._arrow import from_numpy
from ...graph import BipartiteGraph
from .._atomic import atomic_path
from .._input import (
    _read_array,
)
from ._lines import _frozen_ids, _notes, _scan, _warn_comment_like_ids, _write_lines
from ._writable import _check_writable_ids


def read_bipartite_list(path: Path, skip_bad_rows: bool = False) -> BipartiteGraph:
    """The bipartite graph of a ``user<TAB>feature`` list (users and features apart)."""
    pairs = _scan(path, _read_array(path, "bipartite"), bipartite=True,
                  skip_bad_rows=skip_bad_rows)
    users, features = (_frozen_ids(i) for i in pairs.ids)
    for ids in (users, features):
        _warn_comment_like_ids(path, ids)
    B = BipartiteGraph._from_codes(*pairs.codes, users.size, features.size, users, features)
    B._note_input(**_notes(pairs))
    return B


def write_bipartite_list(B: BipartiteGraph, path: str | os.PathLike[str]) -> Path:
    """Write ``B``'s cells as ``user<TAB>feature`` lines atomically (the ids checked first)."""
    r, c = B.edges()
    users = _check_writable_ids(B.user_ids, "user", "tsv-raw", "user<TAB>feature")
    features = _check_writable_ids(B.feature_ids, "feature", "tsv-raw", "user<TAB>feature")
    with atomic_path(path) as tmp:
        header = (
            f"# graphanon bipartite list: user<TAB>feature\n"
            f"# Users: {np.count_nonzero(np.bincount(r, minlength=1))} "
            f"Features: {np.count_nonzero(np.bincount(c, minlength=1))} Edges: {B.n_edges}\n"
        )
        _write_lines(tmp, users.take(from_numpy(r)), features.take(from_numpy(c)), header)
    return Path(path)
