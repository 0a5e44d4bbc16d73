"""The users × features matrix :class:`BipartiteGraph`."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._ids import mark_canonical
from ..errors import InvalidParameterError
from ._codes import (
    _as_id_array,
    _check_distinct,
    _distinct_ids,
    _extend_ids,
    _hash_ids,
    _lookup,
    encode_ids,
)
from ._csr import (
    IntArray,
    _as_index_array,
    _cells_csr,
    _check_attributes,
    _empty_column,
    _hash_int64,
    _index_dtype,
    _readonly,
    _spread_csr,
    _validate_rows,
)
from ._undirected import _InputNotes

if TYPE_CHECKING:  # pragma: no cover
    import igraph
    import networkx as nx
    import scipy.sparse as sp

__all__ = ["BipartiteGraph"]

class BipartiteGraph(_InputNotes):
    """An immutable users × features binary matrix (a bipartite graph) in CSR form.

    Parameters
    ----------
    indptr, indices
        CSR of the user × feature matrix: the features of user ``i`` are
        ``indices[indptr[i]:indptr[i+1]]``, strictly increasing.
    n_features
        Number of feature columns.
    user_ids, feature_ids
        External ids (ints or strings); default ``0..n-1``.
    user_attributes
        Optional per-user columns (e.g. an anonymity level ``"delta"``).
    """

    __slots__ = (
        "__dict__",
        "_feature_ids",
        "_indices",
        "_indptr",
        "_user_attributes",
        "_user_ids",
    )

    def __init__(
        self,
        indptr: Any,
        indices: Any,
        n_features: int,
        *,
        user_ids: Any = None,
        feature_ids: Any = None,
        user_attributes: Mapping[str, Any] | None = None,
        validate: bool = True,
    ) -> None:
        indptr = np.asarray(indptr)
        indices = np.asarray(indices)
        if validate:
            _validate_rows(indptr, indices, n_features, "feature")
        n_users = indptr.size - 1
        user_ids = np.arange(n_users, dtype=np.int64) if user_ids is None else _as_id_array(
            user_ids, "user_ids"
        )
        feature_ids = (
            np.arange(n_features, dtype=np.int64)
            if feature_ids is None
            else _as_id_array(feature_ids, "feature_ids")
        )
        if user_ids.size != n_users or feature_ids.size != n_features:
            raise InvalidParameterError(
                f"ids do not match the matrix: {user_ids.size} user ids for {n_users} rows, "
                f"{feature_ids.size} feature ids for {n_features} columns."
            )
        if validate:
            for name, ids in (("user_ids", user_ids), ("feature_ids", feature_ids)):
                _check_distinct(ids, name)
        self._indptr = _readonly(indptr)
        self._indices = _readonly(indices)
        self._user_ids = mark_canonical(_readonly(user_ids))
        self._feature_ids = mark_canonical(_readonly(feature_ids))
        self._user_attributes = MappingProxyType(_check_attributes(user_attributes, n_users))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_pairs(
        cls,
        users: Any,
        features: Any,
        *,
        all_users: Any = None,
        all_features: Any = None,
        user_attributes: Mapping[str, Any] | None = None,
    ) -> BipartiteGraph:
        """Build from columns of external ``(user, feature)`` ids; duplicates are merged.

        ``all_users`` / ``all_features`` add users or features without edges.
        ``user_attributes`` columns are aligned with ``all_users``.
        """
        (cu,), uids = encode_ids(users, extra=all_users)
        (cf,), fids = encode_ids(features, extra=all_features)
        attrs = None
        if user_attributes:
            if all_users is None:
                raise InvalidParameterError(
                    "user_attributes need the 'all_users' column they align with."
                )
            (ca,), _ = encode_ids(all_users, extra=uids)
            attrs = {}
            for name, col in user_attributes.items():
                col = np.asarray(col)
                full = _empty_column(col.dtype, uids.size)
                full[ca] = col
                attrs[name] = full
        return cls.from_indices(
            cu, cf, n_users=uids.size, n_features=fids.size, user_ids=uids, feature_ids=fids,
            user_attributes=attrs,
        )

    @classmethod
    def from_indices(
        cls,
        rows: Any,
        cols: Any,
        *,
        n_users: int,
        n_features: int,
        user_ids: Any = None,
        feature_ids: Any = None,
        user_attributes: Mapping[str, Any] | None = None,
    ) -> BipartiteGraph:
        """Build from index arrays of the 1-cells; duplicates are merged."""
        r = _as_index_array(rows, "rows")
        c = _as_index_array(cols, "cols")
        if r.shape != c.shape:
            raise InvalidParameterError(
                f"rows and cols must have the same length. Got {r.size} and {c.size}."
            )
        if r.size and (int(r.max()) >= n_users or int(c.max()) >= n_features):
            raise InvalidParameterError(
                f"cell indices out of range for a {n_users} × {n_features} matrix."
            )
        user_ids, feature_ids = (None if ids is None else _distinct_ids(ids, name)
                                 for ids, name in ((user_ids, "user_ids"),
                                                   (feature_ids, "feature_ids")))
        return cls._from_codes(r, c, n_users, n_features, user_ids, feature_ids,
                               user_attributes)

    @classmethod
    def _from_codes(cls, r: np.ndarray[Any, Any], c: np.ndarray[Any, Any], n_users: int,
                    n_features: int, user_ids: Any = None, feature_ids: Any = None,
                    user_attributes: Mapping[str, Any] | None = None) -> BipartiteGraph:
        """:meth:`from_indices` of cells already known valid (a reader's codes), without
        checking them again."""
        indptr, indices = _cells_csr(r, c, n_users, n_features)
        n_duplicates = int(r.size) - int(indices.size)
        B = cls(
            indptr.astype(_index_dtype(indices.size), copy=False),
            indices,
            n_features,
            user_ids=user_ids,
            feature_ids=feature_ids,
            user_attributes=user_attributes,
            validate=False,
        )
        B._note_input(duplicate_pairs=n_duplicates)
        return B

    @classmethod
    def from_scipy(
        cls, matrix: Any, *, user_ids: Any = None, feature_ids: Any = None
    ) -> BipartiteGraph:
        """Build from a binary sparse or dense matrix; any value other than 0/1 is an error."""
        import scipy.sparse as sp

        coo = sp.coo_array(matrix)
        data = np.asarray(coo.data)
        if data.size and not np.all((data == 0) | (data == 1)):
            bad = data[(data != 0) & (data != 1)][0]
            raise InvalidParameterError(
                f"a bipartite matrix must be binary (0/1). Found value {bad!r}."
            )
        nz = data != 0
        return cls.from_indices(
            coo.row[nz],
            coo.col[nz],
            n_users=coo.shape[0],
            n_features=coo.shape[1],
            user_ids=user_ids,
            feature_ids=feature_ids,
        )

    # ------------------------------------------------------------------ properties
    @property
    def indptr(self) -> IntArray:
        return self._indptr

    @property
    def indices(self) -> IntArray:
        return self._indices

    @property
    def user_ids(self) -> np.ndarray[Any, Any]:
        return self._user_ids

    @property
    def feature_ids(self) -> np.ndarray[Any, Any]:
        return self._feature_ids

    @property
    def user_attributes(self) -> Mapping[str, np.ndarray[Any, Any]]:
        return self._user_attributes


    @property
    def n_users(self) -> int:
        return int(self._indptr.size - 1)

    @property
    def n_features(self) -> int:
        return int(self._feature_ids.size)

    @property
    def n_edges(self) -> int:
        """Number of 1-cells (user–feature edges)."""
        return int(self._indices.size)

    @property
    def density(self) -> float:
        cells = self.n_users * self.n_features
        return 0.0 if cells == 0 else self.n_edges / cells

    @cached_property
    def user_degrees(self) -> npt.NDArray[np.int64]:
        return _readonly(np.diff(self._indptr).astype(np.int64))

    @cached_property
    def feature_degrees(self) -> npt.NDArray[np.int64]:
        return _readonly(np.bincount(self._indices, minlength=self.n_features).astype(np.int64))

    @cached_property
    def csc(self) -> tuple[IntArray, IntArray]:
        """``(indptr, indices)`` of the transposed matrix: users of each feature, sorted."""
        order = np.argsort(self._indices, kind="stable")
        rows = np.repeat(np.arange(self.n_users, dtype=np.int64), self.user_degrees)
        indptr = np.zeros(self.n_features + 1, dtype=np.int64)
        np.cumsum(self.feature_degrees, out=indptr[1:])
        users = rows[order].astype(_index_dtype(max(self.n_users - 1, 0)))
        return _readonly(indptr), _readonly(users)

    def row(self, i: int) -> IntArray:
        """Sorted feature indices of user index ``i``."""
        return self._indices[self._indptr[i] : self._indptr[i + 1]]

    def edges(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """All 1-cells as ``(user_index, feature_index)`` arrays, row-major sorted."""
        rows = np.repeat(np.arange(self.n_users, dtype=np.int64), self.user_degrees)
        return rows, self._indices.astype(np.int64)

    def user_index_of(self, ids: Any) -> npt.NDArray[np.int64]:
        return _lookup(self._user_ids, ids, "user")

    def feature_index_of(self, ids: Any) -> npt.NDArray[np.int64]:
        return _lookup(self._feature_ids, ids, "feature")

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 over ids and CSR (operator-only; see :attr:`Graph.content_hash`)."""
        h = hashlib.sha256(b"bipartite")
        _hash_int64(h, self._indptr)
        _hash_int64(h, self._indices)
        _hash_ids(h, self._user_ids)
        _hash_ids(h, self._feature_ids)
        return h.hexdigest()

    def with_cells(self, rows: Any, cols: Any) -> BipartiteGraph:
        """Same users and features; the 1-cells replaced by ``(rows, cols)``.

        The user attributes are not kept: the new cells are a mechanism's output (randomized
        response, smooth-k), and a column read with the input is no part of it (issue 34:
        publication by allow-list, :mod:`graphanon.privacy.publish`).
        """
        return BipartiteGraph.from_indices(
            rows,
            cols,
            n_users=self.n_users,
            n_features=self.n_features,
            user_ids=self._user_ids,
            feature_ids=self._feature_ids,
        )

    def with_universe(self, *, users: Any = None, features: Any = None) -> BipartiteGraph:
        """This matrix over the user and/or feature sets of a public universe.

        ``users`` / ``features`` (each optional) must contain every user / feature of the
        graph; the others become empty rows / columns. Attributes of added users are missing.

        Raises
        ------
        InvalidParameterError
            A user or feature of the graph is not in the given universe.
        """
        uids, fids = self._user_ids, self._feature_ids
        rmap = np.arange(self.n_users, dtype=np.int64)
        cmap = np.arange(self.n_features, dtype=np.int64)
        if users is not None and users is not uids:  # the graph's own ids: nothing to add
            uids, rmap = _extend_ids(uids, users, "user", "the user universe")
        if features is not None and features is not fids:
            fids, cmap = _extend_ids(fids, features, "feature", "the feature universe")
        if uids is self._user_ids and fids is self._feature_ids:
            return self
        attrs = {}
        for name, col in self._user_attributes.items():
            full = _empty_column(col.dtype, uids.size)
            full[rmap] = col
            attrs[name] = full
        csr = _spread_csr(self._indptr, self._indices, rmap, cmap, uids.size, fids.size)
        if csr is not None:
            return BipartiteGraph(*csr, fids.size, user_ids=uids, feature_ids=fids,
                                  user_attributes=attrs, validate=False)
        rows, cols = self.edges()
        return BipartiteGraph.from_indices(
            rmap[rows], cmap[cols], n_users=uids.size, n_features=fids.size, user_ids=uids,
            feature_ids=fids, user_attributes=attrs)

    # ------------------------------------------------------------------ conversions
    def to_scipy(self) -> sp.csr_array:
        """The user × feature matrix as a ``csr_array`` of int8 ones."""
        import scipy.sparse as sp

        data = np.ones(self._indices.size, dtype=np.int8)
        return sp.csr_array(
            (data, self._indices, self._indptr), shape=(self.n_users, self.n_features)
        )

    def to_dense(self) -> npt.NDArray[np.bool_]:
        """Dense boolean matrix (for small graphs and tests)."""
        out = np.zeros((self.n_users, self.n_features), dtype=bool)
        r, c = self.edges()
        out[r, c] = True
        return out

    def to_igraph(self) -> igraph.Graph:
        """Bipartite igraph: users first, then features; vertex ``type`` False/True."""
        from .._igraph import load

        igraph = load()

        r, c = self.edges()
        g = igraph.Graph(
            n=self.n_users + self.n_features,
            edges=np.column_stack([r, c + self.n_users]),
            directed=False,
        )
        g.vs["type"] = [False] * self.n_users + [True] * self.n_features
        g.vs["name"] = self._user_ids.tolist() + self._feature_ids.tolist()
        return g

    def to_networkx(self) -> nx.Graph:
        """networkx graph with nodes ``("u", id)`` / ``("f", id)`` and ``bipartite`` 0/1."""
        import networkx as nx

        G = nx.Graph()
        uids = self._user_ids.tolist()
        fids = self._feature_ids.tolist()
        G.add_nodes_from((("u", x) for x in uids), bipartite=0)
        G.add_nodes_from((("f", x) for x in fids), bipartite=1)
        r, c = self.edges()
        G.add_edges_from(((("u", uids[i]), ("f", fids[j])) for i, j in zip(r, c, strict=True)))
        return G

    def __repr__(self) -> str:
        return (
            f"BipartiteGraph(n_users={self.n_users}, n_features={self.n_features}, "
            f"n_edges={self.n_edges})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BipartiteGraph):
            return NotImplemented
        return (
            np.array_equal(self._indptr, other._indptr)
            and np.array_equal(self._indices, other._indices)
            and np.array_equal(self._user_ids, other._user_ids)
            and np.array_equal(self._feature_ids, other._feature_ids)
        )

    __hash__ = None  # type: ignore[assignment]
