"""Released statistics tables as ``(:AnonRelease)-[:HAS_STATISTIC]->(...)`` rows."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from ...dk.extract import DK3Distribution, DKDistribution
from ...errors import InvalidParameterError

__all__ = ["STATISTIC_LABELS", "StatisticsTable", "statistic_rows", "table_fingerprint"]

StatisticsTable = DKDistribution | DK3Distribution
STATISTIC_LABELS = ("DegreeCount", "JointDegreeCount", "DegreeTupleCount")


def statistic_rows(table: StatisticsTable) -> tuple[str, list[dict[str, Any]]]:
    """The node label and the property maps written for a released dK table.

    ===========================  ==============================================================
    table                        written as
    ===========================  ==============================================================
    1K ``DKDistribution``        ``(:DegreeCount {degree, count})``
    2K ``DKDistribution``        ``(:JointDegreeCount {degree_a, degree_b, count})``
    ``DK3Distribution`` (3K)     ``(:DegreeTupleCount {kind, degrees, count})``, ``kind`` =
                                 ``"wedge"`` (degrees ``[end, centre, end]``) or
                                 ``"triangle"`` (sorted degrees)
    ===========================  ==============================================================

    Integral counts are written as integers, others (raw noisy values) as floats. A lone
    wedge or triangle table is refused: it is half of a 3K distribution.
    """
    def counts(t: DKDistribution) -> list[int | float]:
        return [int(c) if float(c).is_integer() else float(c) for c in t.counts.tolist()]

    if isinstance(table, DK3Distribution):
        rows = [{"kind": t.kind, "degrees": d, "count": c}
                for t in (table.wedges, table.triangles)
                for d, c in zip(t.degrees.tolist(), counts(t), strict=True)]
        return "DegreeTupleCount", rows
    if not isinstance(table, DKDistribution):
        raise InvalidParameterError(
            "statistics must be a graphanon.dk.DKDistribution (1K or 2K) or a "
            f"DK3Distribution. Got {type(table).__name__}."
        )
    d = table.degrees.tolist()
    if table.kind == "degree":
        return "DegreeCount", [{"degree": a[0], "count": c}
                               for a, c in zip(d, counts(table), strict=True)]
    if table.kind == "joint_degree":
        return "JointDegreeCount", [{"degree_a": a[0], "degree_b": a[1], "count": c}
                                    for a, c in zip(d, counts(table), strict=True)]
    raise InvalidParameterError(
        f"a lone {table.kind!r} table is half of a 3K distribution; write the "
        "DK3Distribution (wedges and triangles) instead."
    )


def table_fingerprint(table: StatisticsTable) -> str:
    h = hashlib.sha256()
    parts = [table.wedges, table.triangles] if isinstance(table, DK3Distribution) else [table]
    for t in parts:
        h.update(t.kind.encode() + b"\0")
        h.update(np.ascontiguousarray(t.degrees, dtype=np.int64).tobytes())
        h.update(np.ascontiguousarray(t.counts, dtype=np.float64).tobytes())
    return h.hexdigest()
