"""Core graph structures: :class:`Graph` (undirected, simple) and :class:`BipartiteGraph`.

Both are immutable CSR structures built with vectorized numpy: no Python object per edge.

Memory layout of :class:`Graph` with ``n`` nodes and ``m`` undirected edges:

* ``indices``: ``2m`` neighbour indices, ``int32`` while ``n < 2**31`` (8 bytes per edge);
* ``indptr``: ``n + 1`` offsets, ``int32`` while ``2m < 2**31``, else ``int64``;
* ``node_ids``: the external id of each node (``int64``, or strings as an object array).

The package holds the structures and, apart from them, their builders:

* :mod:`._undirected` — :class:`Graph`; :mod:`._bipartite` — :class:`BipartiteGraph`;
* :mod:`._csr` — pairs / cells → sorted CSR rows, and the checks of CSR arrays given;
* :mod:`._codes` — external ids → dense codes (:func:`encode_ids`), lookups, id checks.

It performs no I/O and never imports a database driver.
"""

from __future__ import annotations

from ._bipartite import BipartiteGraph
from ._codes import encode_ids
from ._csr import iter_rows
from ._undirected import Graph

__all__ = ["BipartiteGraph", "Graph", "encode_ids", "iter_rows"]
