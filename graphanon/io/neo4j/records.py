"""Release records as the sink stores them, and the checks on the sink's arguments.

The ``(:AnonRelease)`` node holds the :class:`~graphanon.privacy.release.Release` record's
fields written generically from ``Release.to_dict()`` (scalars under their own name, maps and
lists as canonical JSON under ``<field>_json``, the whole record as ``release_json``) plus
the sink's own bookkeeping (``kind``, ``dataset``, ``ids``, ``feature_ids``,
``epsilon_charged``, ``charge_id``, ``status``, the ``written_*`` counts of *released*
rows that the database confirmed, and the random tokens of the write protocol:
``current_attempt``, whose rows readers see, and ``write_token``, the attempt writing now).
Nothing the record does not carry is added: no wall time (``created_at`` is the run's start,
from the record) and no count read from the input.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...errors import InvalidParameterError

__all__ = [
    "record_properties",
    "release_record",
    "validate_budget",
    "validate_release_id",
]


def release_record(release: Any) -> dict[str, Any]:
    """A validated release record as a plain dict.

    Accepts a :class:`graphanon.privacy.release.Release`, its ``to_dict()`` mapping, or a
    report mapping holding it under ``"release"``. The mapping is checked with
    ``Release.from_dict`` (every field, known neighbourhood, ε > 0 where one is claimed).
    """
    from ...privacy.release import Release

    if isinstance(release, Release):
        return release.to_dict()
    if not isinstance(release, Mapping):
        raise InvalidParameterError(
            f"a release record must be a Release or a mapping; got {type(release).__name__}."
        )
    inner = release.get("release")
    data = dict(inner) if isinstance(inner, Mapping) else dict(release)
    if "mechanism" not in data:
        raise InvalidParameterError(
            "no release record found: expected a Release object (mechanism, neighbourhood, "
            "epsilon, ...) at the top level or under 'release'."
        )
    return Release.from_dict(data).to_dict()


def canonical_json(obj: Any) -> str:
    from ...reporting import to_jsonable

    return json.dumps(to_jsonable(obj), sort_keys=True, separators=(",", ":"), default=str)


def scalar(value: Any) -> Any:
    """A value Neo4j can store as a property (numpy scalars -> Python; NaN -> None)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(x, (int, float, str)) for x in value):
        return list(value)
    return canonical_json(value)


#: Properties of the record node that the sink owns; a record field of the same name would
#: be a contract violation (Release has none of these).
SINK_PROPERTIES = frozenset({
    "release_id", "kind", "dataset", "ids", "feature_ids", "epsilon_charged", "charge_id",
    "status", "write_token", "current_attempt", "release_json", "k", "written_nodes",
    "written_relationships", "written_statistics", "written_masked",
})


def record_properties(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record's fields as ``(:AnonRelease)`` properties (see the module docstring).

    Scalars keep their name; maps and lists become ``<name>_json``; ``None`` is left out
    (Neo4j stores no nulls); ``release_json`` holds the whole record; ``k`` repeats
    ``params["k"]`` for the documented listing queries.
    """
    out: dict[str, Any] = {}
    for key, value in record.items():
        if key in SINK_PROPERTIES:
            continue
        if isinstance(value, (Mapping, list, tuple)):
            out[f"{key}_json"] = canonical_json(value)
        else:
            v = scalar(value)
            if v is not None:
                out[key] = v
    params = record.get("params")
    if isinstance(params, Mapping) and scalar(params.get("k")) is not None:
        out["k"] = scalar(params["k"])
    out["release_json"] = canonical_json(record)
    return out


def validate_budget(dataset: Any, epsilon_total: Any, neighbourhood: str | None = None) -> str:
    """Check the arguments of a budget operation (before any connection); return the
    dataset's budget key (:func:`check_dataset`)."""
    name = check_dataset(dataset)
    if neighbourhood not in ("edge", "node", None):
        raise InvalidParameterError(
            f"The 'neighbourhood' parameter must be 'edge' or 'node'. Got {neighbourhood!r}."
        )
    if (isinstance(epsilon_total, bool) or not isinstance(epsilon_total, (int, float))
            or not math.isfinite(epsilon_total) or epsilon_total <= 0):
        raise InvalidParameterError(
            f"The 'epsilon_total' parameter must be a finite number > 0. "
            f"Got {epsilon_total!r} instead."
        )
    return name


def validate_release_id(release_id: Any) -> None:
    """A release id: a non-empty printable string of at most 200 characters, without
    surrounding blanks (``" "`` would look empty in a listing)."""
    # str.isprintable: no control (DEL included), format (bidi overrides, zero-width) or
    # line / paragraph separator character, which could make a listing lie
    if not isinstance(release_id, str) or not release_id.strip() or len(release_id) > 200 or (
        not release_id.isprintable() or release_id != release_id.strip()
    ):
        raise InvalidParameterError(
            f"The 'release_id' parameter must be a non-empty printable string of at most 200 "
            f"characters without surrounding blanks. Got {release_id!r} instead."
        )


def check_dataset(dataset: Any) -> str:
    """The budget key of ``dataset``: the same function as the JSON ledger's (a stable name,
    never a hash; Unicode NFKC, case-folded)."""
    from ...privacy.accountant import check_dataset_name

    return check_dataset_name(dataset, "the Neo4j ledger")
