"""MATLAB files with an adjacency matrix ``A`` (Facebook100), attributes from ``local_info``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...errors import InputFormatError
from ...graph import Graph

# SNAP / Facebook100 local_info columns, in order
FACEBOOK100_ATTRIBUTES = (
    "status",
    "gender",
    "major",
    "second_major",
    "dorm",
    "year",
    "high_school",
)


def read_mat(path: Path) -> Graph:
    import scipy.io

    try:
        mat = scipy.io.loadmat(str(path))
    except Exception as exc:
        raise InputFormatError(f"{str(path)!r} is not a readable MATLAB file: {exc}",
                               path=str(path)) from exc
    if "A" not in mat:
        keys = sorted(k for k in mat if not k.startswith("__"))
        raise InputFormatError(f"{str(path)!r} has no adjacency matrix 'A'; keys: {keys}.",
                               path=str(path))
    A = mat["A"]
    import scipy.sparse as sp

    if not (sp.issparse(A) or (isinstance(A, np.ndarray) and A.dtype.kind in "biuf")):
        kind = getattr(A, "dtype", type(A).__name__)
        raise InputFormatError(
            f"{str(path)!r}: the matrix 'A' must be a numeric adjacency matrix; it holds "
            f"{kind} values.", path=str(path))
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise InputFormatError(
            f"{str(path)!r}: the adjacency matrix 'A' must be square; it has shape "
            f"{A.shape}.", path=str(path))
    n = A.shape[0]
    g = Graph.from_scipy(A)
    info = mat.get("local_info")
    if info is not None and info.shape[0] == n:
        names = FACEBOOK100_ATTRIBUTES if info.shape[1] == len(FACEBOOK100_ATTRIBUTES) else [
            f"attr{i}" for i in range(info.shape[1])
        ]
        attrs = {name: np.asarray(info[:, i]).astype(np.int64) for i, name in enumerate(names)}
        g = Graph(g.indptr, g.indices, g.node_ids, attrs, validate=False)
    return g
