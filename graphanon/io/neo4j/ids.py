"""Ids read from Neo4j, under graphanon's one id encoding (:mod:`graphanon._ids`).

A node's id is its business-key property (an integer or a string) or, without one, its
``elementId()``. Every read path (graphs, bipartite graphs, custom queries) maps ids to dense
codes through :class:`IdMap`, which applies the canonical encoding as ids arrive: an id is
its text, so the integer ``7`` and the string ``"7"`` are **one** id. Two source nodes whose
keys are ``7`` and ``"7"`` therefore do not have a unique business key, and the read is
refused with a message naming both, instead of silently merging them. ``"007"`` is another
id than ``7``.

Element ids (``4:<database uuid>:<n>``) identify source nodes: they link a release back to
the source database and change when nodes are deleted and re-created. They may appear in an
operator's export, never in a release: :func:`looks_like_element_id` lets the sink find them
whatever path the ids took (a job, a file written by ``neo4j read-graph``, a custom query).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..._ids import _arrow_text, canonical_ids
from ...errors import InvalidParameterError

__all__ = ["ELEMENT_ID_PATTERN", "IdMap", "contains_element_ids", "looks_like_element_id"]

#: Neo4j 5 element ids: ``<format version>:<database uuid>:<entity number>``.
ELEMENT_ID_PATTERN = (
    r"^[0-9]+:[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}:"
    r"[0-9]+$"
)
_ELEMENT_ID = re.compile(ELEMENT_ID_PATTERN)
_CANONICAL_INT = re.compile(r"-?(0|[1-9][0-9]*)")
_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1


def looks_like_element_id(value: Any) -> bool:
    """True for a string shaped like a Neo4j 5 ``elementId()``."""
    return isinstance(value, str) and _ELEMENT_ID.match(value) is not None


def contains_element_ids(ids: np.ndarray[Any, Any]) -> bool:
    """True when any id of the canonical id column ``ids`` looks like an ``elementId()``."""
    if ids.dtype != object or ids.size == 0:
        return False
    import pyarrow.compute as pc

    arr = _arrow_text(ids)
    return bool(pc.any(pc.match_substring_regex(arr, ELEMENT_ID_PATTERN)).as_py())


def _twin(key: int | str) -> int | str | None:
    """The other representation of the same canonical id (``7`` <-> ``"7"``), if any."""
    if isinstance(key, int):
        return str(key)
    if _CANONICAL_INT.fullmatch(key):
        value = int(key)
        if _I64_MIN <= value <= _I64_MAX:
            return value
    return None


class IdMap:
    """External id -> dense code, in first-seen order (one dict entry per node).

    Keys are the values as Neo4j returned them (``int`` or ``str``); :meth:`ids` returns
    them in canonical form (:func:`graphanon._ids.canonical_ids`). Adding a key whose twin
    (the same id in the other type) is already present raises.
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self.codes: dict[int | str, int] = {}

    def check_type(self, value: Any) -> None:
        if value is None:
            raise InvalidParameterError(
                f"a {self.what} node has no value for the id property (null id); every node "
                "needs the business key, or omit the id property to use elementId()."
            )
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise InvalidParameterError(
                f"{self.what} ids must be integers or strings; got {value!r} of type "
                f"{type(value).__name__}."
            )

    def _check_twin(self, value: int | str) -> None:
        twin = _twin(value)
        if twin is not None and twin in self.codes:
            a, b = (value, twin) if isinstance(value, int) else (twin, value)
            raise InvalidParameterError(
                f"{self.what} ids {a!r} (an integer) and {b!r} (a string) are the same id (an "
                "id is its text): the id property is not a unique business key (choose "
                "another --id-prop, give the property one type, or omit it to use elementId)."
            )

    def add_new(self, value: Any) -> int:
        """Register a node's id; a repeated id is a non-unique business key."""
        self.check_type(value)
        if value in self.codes:
            raise InvalidParameterError(
                f"{self.what} id {value!r} occurs on more than one node: the id property is "
                "not a unique business key (choose another --id-prop, or omit it to use "
                "elementId)."
            )
        self._check_twin(value)
        code = len(self.codes)
        self.codes[value] = code
        return code

    def get_or_add(self, value: Any) -> int:
        """The code of ``value``, registering it when new (ids met through relationships)."""
        code = self.lookup(value)
        if code is None:
            self.check_type(value)
            self._check_twin(value)
            code = len(self.codes)
            self.codes[value] = code
        return code

    def lookup(self, value: Any) -> int | None:
        """The code of a registered id, else ``None``."""
        if isinstance(value, (bool, float)) or not isinstance(value, (int, str)):
            return None
        return self.codes.get(value)

    def ids(self) -> np.ndarray[Any, Any]:
        """The ids in code order, canonical: ``int64`` or an ``object`` array of ``str``."""
        keys = list(self.codes)
        if not keys:
            return np.zeros(0, dtype=np.int64)
        return canonical_ids(np.array(keys, dtype=object), f"{self.what} ids")
