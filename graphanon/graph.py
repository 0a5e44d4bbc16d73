"""Core graph structures: :class:`Graph` (undirected, simple) and :class:`BipartiteGraph`.

Both are immutable CSR structures built with vectorized numpy: no Python object per edge.

Memory layout of :class:`Graph` with ``n`` nodes and ``m`` undirected edges:

* ``indices``: ``2m`` neighbour indices, ``int32`` while ``n < 2**31`` (8 bytes per edge);
* ``indptr``: ``n + 1`` offsets, ``int32`` while ``2m < 2**31``, else ``int64``;
* ``node_ids``: the external id of each node (``int64``, or strings as an object array).

This module performs no I/O and never imports a database driver.
"""

from __future__ import annotations

import hashlib
import sys
import warnings
from collections.abc import Iterable, Iterator, Mapping
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ._arrow import from_numpy, index_values, text_objects
from ._ids import (
    _arrow_text,
    canonical_column,
    canonical_ids,
    id_text_buffers,
    ids_as_text,
    mark_canonical,
    match_text_ids,
)
from .errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    import igraph
    import networkx as nx
    import scipy.sparse as sp

__all__ = ["BipartiteGraph", "Graph", "encode_ids"]

IntArray = npt.NDArray[np.integer[Any]]
_I32_MAX = np.iinfo(np.int32).max


def _index_dtype(bound: int) -> type[np.signedinteger[Any]]:
    return np.int32 if bound <= _I32_MAX else np.int64


def _readonly(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    a.flags.writeable = False
    return a


def _as_id_array(values: Any, what: str) -> np.ndarray[Any, Any]:
    """Validate a 1-D array of ids and return its canonical form (:mod:`graphanon._ids`)."""
    return canonical_ids(values, what)


def _distinct_ids(values: Any, what: str) -> np.ndarray[Any, Any]:
    """:func:`_as_id_array`, refused unless its ids are distinct once canonical (``7`` and
    ``"7"`` are one id)."""
    return _check_distinct(_as_id_array(values, what), what)


def _check_distinct(ids: np.ndarray[Any, Any], what: str) -> np.ndarray[Any, Any]:
    if _n_distinct(ids) != ids.size:
        # name one repeated id (a sort of the ids: only on this error path)
        srt = np.sort(ids_as_text(ids)) if ids.dtype == object else np.sort(ids)
        twice = srt[1:][srt[1:] == srt[:-1]]
        example = f" ({twice[0]!r} occurs more than once)" if twice.size else ""
        raise InvalidParameterError(f"{what} must be unique{example}.")
    return ids


def encode_ids(
    *columns: Any, extra: Any = None
) -> tuple[list[npt.NDArray[np.int64]], np.ndarray[Any, Any]]:
    """Map columns of external ids to dense codes ``0..n-1`` over their sorted union.

    Every column is first brought to the canonical id encoding of :mod:`graphanon._ids`
    (an id is its text; ``7`` and ``"7"`` are one id, ``"007"`` another), so the result
    does not depend on how a column was typed.

    Parameters
    ----------
    *columns
        Array-likes (numpy or pyarrow) of ids: ints, strings, or a mix.
    extra
        Optional further ids that must get a code (e.g. isolated nodes).

    Returns
    -------
    codes, ids
        ``codes[i][j]`` is the position of ``columns[i][j]`` in the sorted array ``ids``
        (``int64`` when every id is a canonical integer, else ``str`` objects in code-point
        order).
    """
    import pyarrow as pa

    cols = [canonical_column(c) for c in columns]
    if extra is not None:
        cols.append(canonical_column(extra))
    if all(isinstance(c, np.ndarray) for c in cols):
        nps: list[npt.NDArray[np.int64]] = cols
        total = sum(len(x) for x in nps)
        lo = min((int(x.min()) for x in nps if len(x)), default=0)
        hi = max((int(x.max()) for x in nps if len(x)), default=-1)
        if lo >= 0 and hi < 4 * total + (1 << 20):
            # dense table: O(m + max id), no sort, no hash
            present = np.zeros(hi + 1, dtype=bool)
            for x in nps:
                present[x] = True
            ids = np.flatnonzero(present).astype(np.int64)
            remap = np.cumsum(present, dtype=np.int64) - 1
            codes = [remap[x] for x in nps]
        else:
            ids = _sorted_unique(np.concatenate(nps)) if nps else np.zeros(0, dtype=np.int64)
            codes = [np.searchsorted(ids, x).astype(np.int64) for x in nps]
        if extra is not None:
            codes = codes[:-1]
        return codes, mark_canonical(_readonly(ids))
    import pyarrow.compute as pc

    # some column is text: every id as its canonical text (integer columns become their
    # decimal text), coded by hashing its bytes: no Python object per id
    arrays = [c if not isinstance(c, np.ndarray) else from_numpy(c).cast(pa.large_string())
              for c in cols]
    if _text_kernel(sum(len(a) for a in arrays)):
        from ._ids import _text_buffers, text_column_codes

        codes_k, ids_k = text_column_codes([_text_buffers(a) for a in arrays])
        if extra is not None:
            codes_k = codes_k[:-1]
        return codes_k, mark_canonical(_readonly(ids_k))
    # few ids and no kernel loaded yet (loading it costs about 0.5 s): Arrow's hash table
    uniq = pc.unique(pa.chunked_array(arrays, type=pa.large_string()))
    uniq = uniq.take(pc.sort_indices(uniq))
    code_list = [
        index_values(pc.index_in(a, value_set=uniq))
        for a in arrays
    ]
    if extra is not None:
        code_list = code_list[:-1]
    ids_obj = text_objects(uniq)
    return code_list, mark_canonical(_readonly(ids_obj))


#: From this many ids on, text ids are coded by the readers' kernels
#: (:func:`graphanon._ids.text_column_codes`) even before they are loaded: about where they
#: win back the 0.5 s that loading numba costs (Arrow's coding takes about 0.6 s per million
#: ids, the kernels 0.25 s).
TEXT_KERNEL_MIN_IDS = 1 << 20


def _text_kernel(n_ids: int) -> bool:
    """Code ``n_ids`` text ids with the reader's kernels (else with Arrow's hash table)."""
    return n_ids >= TEXT_KERNEL_MIN_IDS or "graphanon._text_kernels" in sys.modules


def _sorted_unique(keys: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Sorted distinct values; in-place sort + mask (numpy 2's hash-based unique is slower)."""
    keys = np.sort(keys)
    if keys.size < 2:
        return keys
    keep = np.empty(keys.size, dtype=bool)
    keep[0] = True
    np.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys[keep]


#: Below this many pairs a graph or bipartite matrix is built by the sort-based numpy code
#: (no JIT start-up: the first numba kernel of a process costs about 0.5 s to load); from it
#: on by the counting kernels of :mod:`graphanon._csr_kernels` (linear, no comparison sort).
COUNTING_MIN_PAIRS = 1 << 17


def _csr_from_pairs(u: IntArray, v: IntArray, n: int,
                    dropped: dict[str, int] | None = None) -> tuple[np.ndarray[Any, Any], ...]:
    """Symmetric CSR with sorted rows from undirected pairs; drops loops and duplicates
    (counted into ``dropped`` as ``self_loops`` and ``duplicate_edges`` when given).

    Pairs must be valid indices in ``[0, n)``. Large inputs are built by counting
    (:mod:`graphanon._csr_kernels`), small ones by :func:`_csr_from_pairs_sorting`; both give
    the same arrays.
    """
    if np.asarray(u).size < COUNTING_MIN_PAIRS:
        return _csr_from_pairs_sorting(u, v, n, dropped)
    from . import _csr_kernels as kern

    u = np.asarray(u)
    v = np.asarray(v)
    idx_dtype = _index_dtype(max(n - 1, 0))
    indptr, indices, loops = kern.sorted_csr(u, v, n, n, True, idx_dtype)
    kept = int(indptr[-1])
    if dropped is not None:
        dropped["self_loops"] = loops
        dropped["duplicate_edges"] = (2 * (u.size - loops) - kept) // 2
    return indptr.astype(_index_dtype(kept), copy=False), indices


def _csr_from_pairs_sorting(u: IntArray, v: IntArray, n: int,
                            dropped: dict[str, int] | None = None
                            ) -> tuple[np.ndarray[Any, Any], ...]:
    """:func:`_csr_from_pairs` by sorting: canonical ``a < b`` keys, one sort-unique.

    Each kept edge ``{a, b}`` with ``a < b`` contributes ``b`` to row ``a`` and ``a`` to row
    ``b``. Within row ``r`` every "lower" neighbour (``a < r``) precedes every "upper"
    neighbour (``b > r``), so two independently sorted runs concatenate into a sorted row.
    """
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    keep = u != v
    n_pairs = int(u.size)
    if not keep.all():
        u, v = u[keep], v[keep]
    a = np.minimum(u, v)
    b = np.maximum(u, v)
    del u, v, keep
    key = _sorted_unique(a * n + b)  # sorted by (a, b), duplicates gone
    if dropped is not None:
        dropped["self_loops"] = n_pairs - int(a.size)
        dropped["duplicate_edges"] = int(a.size) - int(key.size)
    a = key // n
    b = key - a * n
    del key
    m = a.size
    lower = np.bincount(b, minlength=n)
    upper = np.bincount(a, minlength=n)
    deg = lower + upper
    ptr_dtype = _index_dtype(2 * m)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=indptr[1:])
    idx_dtype = _index_dtype(max(n - 1, 0))
    indices = np.empty(2 * m, dtype=idx_dtype)
    # upper entries: already grouped by a, sorted by b inside each group
    upper_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(upper, out=upper_start[1:])
    ranks = np.arange(m, dtype=np.int64)
    pos_upper = indptr[a] + lower[a] + (ranks - upper_start[a])
    indices[pos_upper] = b
    # lower entries: group by b (stable, so a stays sorted inside each group)
    order = np.argsort(b, kind="stable")
    bo = b[order]
    lower_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lower, out=lower_start[1:])
    pos_lower = indptr[bo] + (ranks - lower_start[bo])
    indices[pos_lower] = a[order]
    return indptr.astype(ptr_dtype, copy=False), indices


def _cells_csr(r: npt.NDArray[np.int64], c: npt.NDArray[np.int64], n_rows: int, n_cols: int
               ) -> tuple[npt.NDArray[np.int64], np.ndarray[Any, Any]]:
    """``(indptr, indices)`` of the distinct cells ``(r[i], c[i])`` with sorted rows
    (``indptr`` int64, ``indices`` int32 while the columns fit)."""
    idx_dtype = _index_dtype(max(n_cols - 1, 0))
    if r.size < COUNTING_MIN_PAIRS:
        key = _sorted_unique(r * max(n_cols, 1) + c)
        r_sorted = key // max(n_cols, 1)
        indices = (key - r_sorted * max(n_cols, 1)).astype(idx_dtype)
        indptr = np.zeros(n_rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(r_sorted, minlength=n_rows), out=indptr[1:])
        return indptr, indices
    from . import _csr_kernels as kern

    indptr, indices, _ = kern.sorted_csr(r, c, n_rows, n_cols, False, idx_dtype)
    return indptr, indices


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
                      "(operator-only; never a budget key or a published value).",
                      DeprecationWarning, stacklevel=2)
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
        from ._igraph import load

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
        from ._igraph import load

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


# ---------------------------------------------------------------------- helpers
def _as_index_array(x: Any, name: str) -> npt.NDArray[np.int64]:
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise InvalidParameterError(f"{name} must be one-dimensional. Got shape {arr.shape}.")
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise InvalidParameterError(
                f"{name} must hold integer node indices. Got dtype {arr.dtype}."
            )
    if int(arr.min()) < 0:
        raise InvalidParameterError(f"{name} must not hold negative indices. Got {int(arr.min())}.")
    return arr.astype(np.int64, copy=False)


def _validate_rows(indptr: np.ndarray[Any, Any], indices: np.ndarray[Any, Any], n_cols: int,
                   what: str) -> None:
    if indptr.ndim != 1 or indptr.size < 1 or indices.ndim != 1:
        raise InvalidParameterError("indptr and indices must be one-dimensional; indptr non-empty.")
    if indptr.dtype.kind not in "iu" or (indices.size and indices.dtype.kind not in "iu"):
        raise InvalidParameterError("indptr and indices must be integer arrays.")
    if indptr[0] != 0 or indptr[-1] != indices.size or np.any(np.diff(indptr) < 0):
        raise InvalidParameterError(
            "indptr must start at 0, be non-decreasing and end at len(indices)."
        )
    if indices.size:
        if int(indices.min()) < 0 or int(indices.max()) >= n_cols:
            raise InvalidParameterError(
                f"{what} indices must lie in [0, {n_cols}). "
                f"Got range [{int(indices.min())}, {int(indices.max())}]."
            )
        step = np.diff(indices.astype(np.int64))
        row_start = np.zeros(indices.size, dtype=bool)
        row_start[indptr[:-1][np.diff(indptr) > 0]] = True
        if np.any((step <= 0) & ~row_start[1:]):
            raise InvalidParameterError(
                f"{what} indices must be strictly increasing within each row "
                "(sorted, no duplicates)."
            )


def _validate_csr(indptr: np.ndarray[Any, Any], indices: np.ndarray[Any, Any]) -> None:
    n = indptr.size - 1
    _validate_rows(indptr, indices, n, "neighbour")
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    cols = indices.astype(np.int64)
    if np.any(rows == cols):
        raise InvalidParameterError("a simple graph has no self-loops; the CSR has one.")
    fwd = np.sort(rows * max(n, 1) + cols)
    bwd = np.sort(cols * max(n, 1) + rows)
    if not np.array_equal(fwd, bwd):
        raise InvalidParameterError("the CSR adjacency must be symmetric (undirected graph).")


def _check_attributes(attributes: Mapping[str, Any] | None, n: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, col in (attributes or {}).items():
        if not isinstance(name, str) or not name:
            raise InvalidParameterError(f"attribute names must be non-empty strings. Got {name!r}.")
        arr = np.asarray(col)
        if arr.ndim != 1 or arr.shape[0] != n:
            raise InvalidParameterError(
                f"attribute {name!r} must be a column of length {n}. Got shape {arr.shape}."
            )
        out[name] = _readonly(arr.copy()) if arr.flags.writeable else arr
    return out


def _empty_column(dtype: np.dtype[Any], n: int) -> np.ndarray[Any, Any]:
    if dtype.kind == "f":
        return np.full(n, np.nan, dtype=dtype)
    if dtype.kind in "iub":
        return np.full(n, np.nan, dtype=np.float64)
    return np.full(n, None, dtype=object)


def _n_distinct(ids: np.ndarray[Any, Any]) -> int:
    """Number of distinct ids (hash-based in Arrow for text, a sort for integers)."""
    if ids.dtype == object:
        import pyarrow.compute as pc

        return int(pc.count_distinct(_arrow_text(ids)).as_py())
    return int(_sorted_unique(np.asarray(ids, dtype=np.int64)).size)


def _extend_ids(ids: np.ndarray[Any, Any], universe: Any, what: str, where: str
                ) -> tuple[np.ndarray[Any, Any], npt.NDArray[np.int64]]:
    """``(universe ids sorted, position of each of ids in them)``; every id must be listed."""
    uni = canonical_ids(universe, f"{what} ids")
    if ids.dtype == object and uni.dtype == object and _text_kernel(ids.size + uni.size):
        # text in both (the common case of string ids): a merge of the two sorted lists
        new_ids, codes = match_text_ids(ids, uni)
        new_ids = mark_canonical(_readonly(new_ids))
        absent = codes < 0
    else:
        (codes, ucodes), new_ids = encode_ids(ids, uni)
        listed = np.zeros(new_ids.size, dtype=bool)
        listed[ucodes] = True
        absent = ~listed[codes]
    if absent.any():
        missing = ids[absent]
        raise InvalidParameterError(
            f"{what} {missing[:1].tolist()[0]!r} of the input is not in {where} "
            f"({missing.size} {what}s missing); the universe must list every {what}.")
    return new_ids, codes


def _spread_csr(indptr: Any, indices: Any, rmap: npt.NDArray[np.int64],
                cmap: npt.NDArray[np.int64], n_rows: int, n_cols: int) -> tuple[Any, Any] | None:
    """The CSR with row ``i`` moved to ``rmap[i]`` and column ``j`` to ``cmap[j]`` (new rows
    empty), when both maps keep the order (each row stays sorted: no rebuild); else None."""
    if np.any(rmap[1:] <= rmap[:-1]) or np.any(cmap[1:] <= cmap[:-1]):
        return None
    counts = np.zeros(n_rows, dtype=np.int64)
    counts[rmap] = np.diff(indptr)
    new_ptr = np.zeros(n_rows + 1, dtype=_index_dtype(int(indptr[-1])))
    np.cumsum(counts, out=new_ptr[1:])
    return new_ptr, cmap.astype(_index_dtype(max(n_cols - 1, 0)))[indices]


def _lookup(ids: np.ndarray[Any, Any], query: Any, what: str) -> npt.NDArray[np.int64]:
    q = canonical_ids(np.atleast_1d(np.asarray(query, dtype=object if not isinstance(
        query, np.ndarray) or query.dtype == object else query.dtype)), f"{what} ids")
    if ids.dtype == object:
        import pyarrow.compute as pc

        # hash join in Arrow: no object comparisons
        text = ids_as_text(q)
        found = pc.index_in(_arrow_text(text), value_set=_arrow_text(ids))
        if found.null_count:
            missing = text[int(pc.index(pc.is_null(found), True).as_py())]
            raise InvalidParameterError(f"unknown {what} id {missing!r}.")
        return index_values(found)
    if q.dtype == object:  # a text id that is no canonical integer cannot be in an int column
        raise InvalidParameterError(f"unknown {what} id {q[0]!r}.")
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    pos = np.searchsorted(sorted_ids, q)
    pos_c = np.minimum(pos, max(sorted_ids.size - 1, 0))
    found = (pos < sorted_ids.size) & (sorted_ids[pos_c] == q) if sorted_ids.size else np.zeros(
        q.size, dtype=bool
    )
    if not np.all(found):
        missing = q[~found][:1].tolist()[0]
        raise InvalidParameterError(f"unknown {what} id {missing!r}.")
    return order[pos_c].astype(np.int64)


def _hash_int64(h: Any, values: IntArray) -> None:
    """Feed the bytes of ``values`` as int64 to ``h``, a block at a time (the digest of the
    whole array, without an int64 copy of it)."""
    block = 1 << 16
    for start in range(0, values.size, block):
        h.update(np.ascontiguousarray(values[start:start + block], dtype=np.int64))


def _hash_ids(h: Any, ids: np.ndarray[Any, Any]) -> None:
    """Feed the canonical text of ``ids`` to ``h`` (the same bytes for ints and strings)."""
    offsets, data = id_text_buffers(ids)
    h.update(np.ascontiguousarray(offsets - offsets[0]).tobytes())
    h.update(data[offsets[0]:offsets[-1]].tobytes())


def iter_rows(indptr: IntArray, indices: IntArray) -> Iterable[IntArray]:
    """Yield each CSR row as a view (helper for algorithms that need row loops)."""
    for i in range(indptr.size - 1):
        yield indices[indptr[i] : indptr[i + 1]]
