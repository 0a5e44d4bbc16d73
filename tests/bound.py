"""Records bound to the payload a test writes (graphanon.privacy.publish.bind): every sink
refuses a payload its record does not name."""

from __future__ import annotations

from typing import Any

from graphanon.io.neo4j import release_record
from graphanon.privacy.publish import bind, published_view
from graphanon.privacy.release import Release


def bound(record: Any, payload: Any, publish: tuple[str, ...] = ()) -> Any:
    """``record`` (a Release or its dict) bound to the published view of ``payload``, in the
    form it was given."""
    rel = record if isinstance(record, Release) else Release.from_dict(release_record(record))
    out = bind(rel, published_view(payload, rel, publish))
    return out if isinstance(record, Release) else out.to_dict()
