"""The undirected simple graph :class:`Graph` (and what both graph types note on input)."""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Iterator, Mapping
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._ids import mark_canonical
from ..errors import InvalidParameterError
from ._codes import (
    _as_id_array,
    _distinct_ids,
    _extend_ids,
    _hash_ids,
    _lookup,
    encode_ids,
)
from ._csr import (
    IntArray,
    _as_index_array,
    _check_attributes,
    _csr_from_pairs,
    _empty_column,
    _hash_int64,
    _readonly,
    _spread_csr,
    _validate_csr,
)

if TYPE_CHECKING:  # pragma: no cover
    import igraph
    import networkx as nx
    import scipy.sparse as sp

__all__ = ["Graph"]

class _InputNotes:
    """What building a graph dropped, merged or skipped, and the deprecated ``fingerprint``
    (shared by both graph types)."""

    __slots__ = ()

    @property
    def input_cleaning(self) -> Mapping[str, int]:
        """Counts of what was dropped while building: ``self_loops``, ``duplicate_edges`` (a
        :class:`Graph`), ``duplicate_pairs`` (a :class:`BipartiteGraph`) and, for graphs read
        from files, ``rows_skipped`` / ``ignored_columns`` / ``zero_entries_dropped``. Not
        part of equality; operator information (counts read from the private input)."""
        return MappingProxyType(self.__dict__.get("_cleaning", {}))

    @property
    def fingerprint(self) -> str:
        """Deprecated alias of ``content_hash`` (renamed: it is not for publication)."""
        warnings.warn(f"{type(self).__name__}.fingerprint is deprecated: use content_hash "
                      "(operator-only; never a budget key or a published value). It is "
                      "removed in 0.3.0.", DeprecationWarning, stacklevel=2)
        return self.content_hash  # type: ignore[attr-defined,no-any-return]

    def _note_input(self, **counts: int) -> None:
        notes = self.__dict__
        cleaning = dict(notes.get("_cleaning", {}))
        for k, v in counts.items():
            cleaning[k] = cleaning.get(k, 0) + int(v)
        notes["_cleaning"] = cleaning


class Graph(_InputNotes):
    """An immutable undirected simple graph in CSR form.

    Parameters
    ----------
    indptr, indices
        CSR arrays of the symmetric adjacency matrix: the neighbours of node ``i`` are
        ``indices[indptr[i]:indptr[i+1]]``, strictly increasing, never ``i`` itself.
    node_ids
        External id of each node (ints or strings); defaults to ``0..n-1``.
    attributes
        Optional per-node columns (e.g. ``"epsilon"`` or ``"delta"``), each of length ``n``.
    validate
        Check every invariant (sorted rows, no loops, symmetry). Internal constructors that
        guarantee them pass ``False``.

    Notes
    -----
    Use :meth:`from_edges` (dense indices) or :meth:`from_id_edges` (external ids) rather
    than this constructor unless you already hold a valid CSR.
    """

    __slots__ = ("__dict__", "_attributes", "_indices", "_indptr", "_node_ids")

    def __init__(
        self,
        indptr: Any,
        indices: Any,
        node_ids: Any = None,
        attributes: Mapping[str, Any] | None = None,
        *,
        validate: bool = True,
    ) -> None:
        indptr = np.asarray(indptr)
        indices = np.asarray(indices)
        if validate:
            _validate_csr(indptr, indices)
        n = indptr.size - 1
        if node_ids is None:
            node_ids = np.arange(n, dtype=np.int64)
        else:
            node_ids = (_distinct_ids if validate else _as_id_array)(node_ids, "node_ids")
            if node_ids.size != n:
                raise InvalidParameterError(
                    f"node_ids has {node_ids.size} entries but the graph has {n} nodes."
                )
        self._indptr = _readonly(indptr)
        self._indices = _readonly(indices)
        self._node_ids = mark_canonical(_readonly(node_ids))
        self._attributes = MappingProxyType(_check_attributes(attributes, n))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_edges(
        cls,
        u: Any,
        v: Any,
        *,
        n_nodes: int | None = None,
        node_ids: Any = None,
        attributes: Mapping[str, Any] | None = None,
    ) -> Graph:
        """Build from endpoint index arrays in ``[0, n_nodes)``.

        Edges are symmetrized; self-loops and duplicates are dropped. Nodes without edges
        are kept (they are ``0..n_nodes-1``). ``n_nodes`` defaults to ``len(node_ids)``,
        else to ``max(u, v) + 1``.
        """
        u_arr = _as_index_array(u, "u")
        v_arr = _as_index_array(v, "v")
        if u_arr.shape != v_arr.shape:
            raise InvalidParameterError(
                f"u and v must have the same length. Got {u_arr.size} and {v_arr.size}."
            )
        if n_nodes is None:
            if node_ids is not None:
                n_nodes = len(node_ids)
            else:
                n_nodes = int(max(u_arr.max(initial=-1), v_arr.max(initial=-1))) + 1
        if u_arr.size and max(int(u_arr.max()), int(v_arr.max())) >= n_nodes:
            raise InvalidParameterError(
                f"edge endpoints must be < n_nodes={n_nodes}. "
                f"Got {max(int(u_arr.max()), int(v_arr.max()))}."
            )
        if node_ids is not None:  # (the readers' _from_codes get distinct ids)
            node_ids = _distinct_ids(node_ids, "node_ids")
        return cls._from_codes(u_arr, v_arr, n_nodes, node_ids, attributes)

    @classmethod
    def _from_codes(cls, u: np.ndarray[Any, Any], v: np.ndarray[Any, Any], n_nodes: int,
                    node_ids: Any = None, attributes: Mapping[str, Any] | None = None
                    ) -> Graph:
        """:meth:`from_edges` of pairs already known valid (integer arrays of one length,
        every entry in ``[0, n_nodes)``: a reader's codes), without checking them again
        (four passes over the pairs)."""
        dropped: dict[str, int] = {}
        indptr, indices = _csr_from_pairs(u, v, n_nodes, dropped)
        G = cls(indptr, indices, node_ids, attributes, validate=False)
        G._note_input(**dropped)
        return G

    @classmethod
    def from_id_edges(
        cls,
        src: Any,
        dst: Any,
        *,
        nodes: Any = None,
        attributes: Mapping[str, Any] | None = None,
    ) -> Graph:
        """Build from columns of external ids (ints or strings).

        Node ids are the sorted union of ``src``, ``dst`` and ``nodes`` (which adds isolated
        nodes). ``attributes`` columns, if given, are aligned with ``nodes``.
        """
        (cu, cv), ids = encode_ids(src, dst, extra=nodes)
        attrs = None
        if attributes:
            if nodes is None:
                raise InvalidParameterError("attributes need the 'nodes' column they align with.")
            (cn,), _ = encode_ids(nodes, extra=ids)
            attrs = {}
            for name, col in attributes.items():
                col = np.asarray(col)
                if col.shape[0] != cn.size:
                    raise InvalidParameterError(
                        f"attribute {name!r} has {col.shape[0]} values for {cn.size} nodes."
                    )
                full = _empty_column(col.dtype, ids.size)
                full[cn] = col
                attrs[name] = full
        return cls.from_edges(cu, cv, n_nodes=ids.size, node_ids=ids, attributes=attrs)

    @classmethod
    def from_scipy(cls, matrix: Any, *, node_ids: Any = None) -> Graph:
        """Build from a square sparse or dense adjacency matrix (the pattern is symmetrized:
        ``A[i, j]`` and ``A[j, i]`` are one edge, not a duplicate)."""
        import scipy.sparse as sp

        if not (sp.issparse(matrix) or isinstance(matrix, np.ndarray)):
            raise InvalidParameterError(
                "The 'matrix' parameter of Graph.from_scipy must be a scipy sparse matrix or "
                f"a numpy array. Got {type(matrix).__name__} instead.")
        coo = sp.coo_array(matrix)
        if coo.ndim != 2 or coo.shape[0] != coo.shape[1]:
            raise InvalidParameterError(f"adjacency matrix must be square. Got {coo.shape}.")
        nz = coo.data != 0
        r, c = coo.row[nz].astype(np.int64), coo.col[nz].astype(np.int64)
        n = int(coo.shape[0])
        # one edge per unordered pair: a symmetric matrix holds each edge twice; an entry
        # repeated at the same (i, j) (a coordinate list read without summing) is a duplicate
        off = r != c  # loops are dropped and counted by from_edges
        repeated = int(off.sum()) - np.unique(r[off] * n + c[off]).size
        key = np.unique(np.minimum(r, c) * n + np.maximum(r, c))
        G = cls.from_edges(key // max(n, 1), key % max(n, 1), n_nodes=n, node_ids=node_ids)
        if repeated:
            G._note_input(duplicate_edges=repeated)
        return G

    @classmethod
    def from_igraph(cls, g: igraph.Graph, *, id_attribute: str | None = "name") -> Graph:
        """Build from an :class:`igraph.Graph`; ids from ``id_attribute`` if present."""
        edges = np.asarray(g.get_edgelist(), dtype=np.int64).reshape(-1, 2)
        ids = None
        if id_attribute and id_attribute in g.vs.attributes():
            ids = _as_id_array(np.asarray(g.vs[id_attribute]), "node_ids")
        attrs = {
            a: np.asarray(g.vs[a]) for a in g.vs.attributes() if a != id_attribute
        }
        return cls.from_edges(
            edges[:, 0], edges[:, 1], n_nodes=g.vcount(), node_ids=ids, attributes=attrs or None
        )

    @classmethod
    def from_networkx(cls, G: nx.Graph) -> Graph:
        """Build from a networkx graph; node keys become ids (sorted)."""
        nodes = list(G.nodes())
        edges = list(G.edges())
        src = [e[0] for e in edges]
        dst = [e[1] for e in edges]
        return cls.from_id_edges(
            np.asarray(src, dtype=object) if src else np.asarray(nodes[:0], dtype=np.int64),
            np.asarray(dst, dtype=object) if dst else np.asarray(nodes[:0], dtype=np.int64),
            nodes=np.asarray(nodes, dtype=object) if nodes else None,
        )

    # ------------------------------------------------------------------ properties
    @property
    def indptr(self) -> IntArray:
        """CSR row offsets (read-only)."""
        return self._indptr

    @property
    def indices(self) -> IntArray:
        """CSR neighbour indices, sorted within each row (read-only)."""
        return self._indices

    @property
    def node_ids(self) -> np.ndarray[Any, Any]:
        """External id of each node (read-only)."""
        return self._node_ids

    @property
    def attributes(self) -> Mapping[str, np.ndarray[Any, Any]]:
        """Per-node attribute columns."""
        return self._attributes


    @property
    def n_nodes(self) -> int:
        return int(self._indptr.size - 1)

    @property
    def n_edges(self) -> int:
        """Number of undirected edges ``m``."""
        return int(self._indices.size // 2)

    @cached_property
    def degrees(self) -> npt.NDArray[np.int64]:
        """Degree of each node."""
        return _readonly(np.diff(self._indptr).astype(np.int64))

    @property
    def density(self) -> float:
        n = self.n_nodes
        return 0.0 if n < 2 else 2.0 * self.n_edges / (n * (n - 1))

    @property
    def nbytes(self) -> int:
        """Bytes held by the CSR and id arrays."""
        ids = self._node_ids.nbytes if self._node_ids.dtype != object else 8 * self.n_nodes
        return int(self._indptr.nbytes + self._indices.nbytes + ids)

    def neighbors(self, i: int) -> IntArray:
        """Sorted neighbour indices of node index ``i`` (a read-only view)."""
        return self._indices[self._indptr[i] : self._indptr[i + 1]]

    def edges(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """All undirected edges as index arrays ``(u, v)`` with ``u < v``, sorted."""
        rows = np.repeat(np.arange(self.n_nodes, dtype=np.int64), self.degrees)
        cols = self._indices.astype(np.int64)
        upper = rows < cols
        return rows[upper], cols[upper]

    def iter_edges(self) -> Iterator[tuple[int, int]]:
        """Iterate ``(u, v)`` index pairs with ``u < v`` (convenience; use :meth:`edges`)."""
        u, v = self.edges()
        yield from zip(u.tolist(), v.tolist(), strict=True)

    def has_edge(self, u: int, v: int) -> bool:
        row = self.neighbors(u)
        j = int(np.searchsorted(row, v))
        return j < row.size and int(row[j]) == v

    def index_of(self, ids: Any) -> npt.NDArray[np.int64]:
        """Node indices of external ``ids``; unknown ids raise :class:`InvalidParameterError`."""
        return _lookup(self._node_ids, ids, "node")

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 over ids and CSR (operator-only).

        Never publish it and never key a budget by it: a published plain hash lets anyone
        test a candidate input against it, and a budget keyed by content resets when one
        edge changes. Release records carry its keyed form
        (:func:`graphanon.privacy.release.keyed_fingerprint`); budgets use a stable name.
        """
        h = hashlib.sha256()
        _hash_int64(h, self._indptr)
        _hash_int64(h, self._indices)
        _hash_ids(h, self._node_ids)
        return h.hexdigest()

    # ------------------------------------------------------------------ derived graphs
    def subgraph(self, mask: Any) -> Graph:
        """Induced subgraph on the nodes where boolean ``mask`` is true (ids kept)."""
        mask = np.asarray(mask)
        if mask.dtype != bool or mask.shape != (self.n_nodes,):
            raise InvalidParameterError(
                f"mask must be a boolean array of length {self.n_nodes}. "
                f"Got dtype {mask.dtype}, shape {mask.shape}."
            )
        new_index = np.cumsum(mask, dtype=np.int64) - 1
        u, v = self.edges()
        keep = mask[u] & mask[v]
        attrs = {k: col[mask] for k, col in self._attributes.items()}
        return Graph.from_edges(
            new_index[u[keep]],
            new_index[v[keep]],
            n_nodes=int(mask.sum()),
            node_ids=self._node_ids[mask],
            attributes=attrs,
        )

    def with_edges(self, u: Any, v: Any) -> Graph:
        """Same nodes, ids and attributes; the edge set replaced by ``(u, v)`` indices."""
        return Graph.from_edges(
            u, v, n_nodes=self.n_nodes, node_ids=self._node_ids, attributes=self._attributes
        )

    def with_nodes(self, nodes: Any) -> Graph:
        """This graph on the node set ``nodes``: ids of ``nodes`` without edges become
        isolated nodes.

        ``nodes`` is a *public universe* (for example the ``--nodes`` file of an edge-DP
        release): it must contain every node of the graph. Attributes of added nodes are
        missing (NaN / None).

        Raises
        ------
        InvalidParameterError
            A node of the graph is not in ``nodes``.
        """
        ids, remap = _extend_ids(self._node_ids, nodes, "node", "the node universe")
        attrs = {}
        for name, col in self._attributes.items():
            full = _empty_column(col.dtype, ids.size)
            full[remap] = col
            attrs[name] = full
        csr = _spread_csr(self._indptr, self._indices, remap, remap, ids.size, ids.size)
        if csr is not None:
            return Graph(*csr, ids, attrs, validate=False)
        u, v = self.edges()
        return Graph.from_edges(remap[u], remap[v], n_nodes=ids.size, node_ids=ids,
                                attributes=attrs)

    def with_attribute(self, name: str, values: Any) -> Graph:
        """A copy sharing the CSR with one attribute column added or replaced."""
        attrs = dict(self._attributes)
        attrs[name] = values
        return Graph(self._indptr, self._indices, self._node_ids, attrs, validate=False)

    # ------------------------------------------------------------------ conversions
    def to_scipy(self) -> sp.csr_array:
        """Symmetric adjacency as a ``scipy.sparse.csr_array`` of int8 ones (shares indices)."""
        import scipy.sparse as sp

        data = np.ones(self._indices.size, dtype=np.int8)
        return sp.csr_array((data, self._indices, self._indptr), shape=(self.n_nodes,) * 2)

    def to_igraph(self) -> igraph.Graph:
        """An :class:`igraph.Graph` with vertex attribute ``name`` = external id."""
        from .._igraph import load

        igraph = load()

        u, v = self.edges()
        g = igraph.Graph(n=self.n_nodes, edges=np.column_stack([u, v]), directed=False)
        g.vs["name"] = self._node_ids.tolist()
        for k, col in self._attributes.items():
            g.vs[k] = col.tolist()
        return g

    def to_networkx(self) -> nx.Graph:
        """A networkx graph keyed by external id, with node attributes."""
        import networkx as nx

        G = nx.Graph()
        ids = self._node_ids.tolist()
        cols = {k: c.tolist() for k, c in self._attributes.items()}
        G.add_nodes_from(
            (ids[i], {k: c[i] for k, c in cols.items()}) for i in range(self.n_nodes)
        )
        u, v = self.edges()
        G.add_edges_from(zip([ids[i] for i in u], [ids[j] for j in v], strict=True))
        return G

    # ------------------------------------------------------------------ dunder
    def __repr__(self) -> str:
        return f"Graph(n_nodes={self.n_nodes}, n_edges={self.n_edges})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Graph):
            return NotImplemented
        return (
            np.array_equal(self._indptr, other._indptr)
            and np.array_equal(self._indices, other._indices)
            and np.array_equal(self._node_ids, other._node_ids)
            and self._attributes.keys() == other._attributes.keys()
            and all(
                np.array_equal(c, other._attributes[k]) for k, c in self._attributes.items()
            )
        )

    __hash__ = None  # type: ignore[assignment]
