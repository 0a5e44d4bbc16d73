"""What a release publishes: the published view of its payload, and the payload's binding to
its record.

**Publication by allow-list.** A sink writes a release's structure (a graph's edges, a
user–feature list's cells, a table's rows, a masked release's cells) and nothing else read
from the source: the attribute columns a source read next to it (Neo4j ``node_props``, a
GraphML file's node data, a table preset's columns) are dropped by :func:`published_view`
before any sink sees the payload. A column is kept only when the operator names it
(``publish``) *and* the release's record lists it in ``released_attributes`` (a column the
mechanism itself released, e.g. generalised or noised); no mechanism of graphanon releases
one today, so every named column is refused. The file and the Neo4j sink both write the
view this one function returns.

**A payload is bound to its record.** :func:`bind` stamps a record with the kind of its
payload (``graph``, ``bipartite``, ``statistics`` or ``masked``), its shape (counts of the
released rows, as public as the rows) and a keyed digest of exactly what it released
(:func:`payload_digest`); :func:`check_payload` refuses a payload whose kind, shape or
digest differs, before anything is written. The digest is
``HMAC-SHA256(K_d, release_id ‖ 0x00 ‖ kind ‖ 0x00 ‖ canonical payload)`` with
``K_d = HMAC-SHA256(K, "graphanon/payload")`` derived from the operator's fingerprint key
``K`` (as the pseudonym key is): it is public-safe, since the payload itself is published,
and without the key nobody can test a guessed payload (the raw input, say) against a record.

The canonical payload is what survives writing the payload to its file and reading it back:

- ``graph``: the edges, as pairs of id texts (the ids of the nodes with edges in text order,
  then the edges as sorted pairs of positions in it; nodes without edges are not part of a
  graph's edge list file, and are not bound);
- ``bipartite``: the multiset of non-empty rows, each its sorted feature ids — *not* the
  user ids, which a sink chooses (keyed per-release pseudonyms, or the real ids with
  ``keep_ids``), so the job's pseudonymized ``bipartite.tsv`` and the in-memory rows have
  one digest;
- ``statistics``: the table's rows (kind, degrees, count as the table file writes it);
- ``masked``: the cells ``row, attribute, 1|*``.

Published attribute columns (``released_attributes``) are part of the canonical rows.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from ..errors import InvalidParameterError

__all__ = ["PAYLOAD_KINDS", "bind", "check_payload", "derived_release", "payload_digest",
           "payload_kind", "payload_shape", "published_view"]

PAYLOAD_KINDS = ("graph", "bipartite", "statistics", "masked")
_DOMAIN = b"graphanon/payload"


def _record(release: Any) -> Mapping[str, Any]:
    from .release import Release

    return release.to_dict() if isinstance(release, Release) else release


# ----------------------------------------------------------------------- the published view
def published_view(payload: Any, release: Any, publish: Iterable[str] = ()) -> Any:
    """``payload`` as every sink publishes it: its structure and only the attribute columns
    named in ``publish`` that the release's record lists in ``released_attributes``.

    Raises
    ------
    InvalidParameterError
        ``publish`` names a column the release's mechanism did not release, or one the
        payload does not hold.
    """
    from ..graph import BipartiteGraph, Graph

    record = _record(release)
    names = list(publish)
    released = list(record.get("released_attributes") or [])
    for name in names:
        if name not in released:
            raise InvalidParameterError(
                f"The 'publish' parameter names {name!r}, which release "
                f"{record.get('mechanism')!r} did not release (it released "
                f"{', '.join(map(repr, released)) or 'no attribute'}): a column read from the "
                "source is published only when a mechanism released it (generalised or "
                "noised).")
    if isinstance(payload, Graph):
        columns = payload.attributes
    elif isinstance(payload, BipartiteGraph):
        columns = payload.user_attributes
    else:  # tables and masked cells carry nothing but the release
        return payload
    missing = [n for n in names if n not in columns]
    if missing:
        raise InvalidParameterError(
            f"The 'publish' parameter names {missing[0]!r}, which the payload does not hold.")
    if set(columns) == set(names):
        return payload
    keep = {n: columns[n] for n in names}
    if isinstance(payload, Graph):
        return Graph(payload.indptr, payload.indices, payload.node_ids, keep, validate=False)
    return BipartiteGraph(payload.indptr, payload.indices, payload.n_features,
                          user_ids=payload.user_ids, feature_ids=payload.feature_ids,
                          user_attributes=keep, validate=False)


# ----------------------------------------------------------------------- binding
def payload_kind(payload: Any) -> str:
    """``"graph"``, ``"bipartite"``, ``"statistics"`` or ``"masked"``."""
    from ..dk.extract import DK3Distribution, DKDistribution
    from ..graph import BipartiteGraph, Graph

    for kind, types in (("graph", Graph), ("bipartite", BipartiteGraph),
                        ("statistics", (DKDistribution, DK3Distribution))):
        if isinstance(payload, types):
            return kind
    # graphanon.io.masked.MaskedRelease, by its fields (the core does not import graphanon.io)
    if type(payload).__name__ == "MaskedRelease" and all(
            hasattr(payload, f) for f in ("n_rows", "attribute_ids", "rows", "cols", "masked")):
        return "masked"
    raise InvalidParameterError(
        f"a release payload is a Graph, a BipartiteGraph, a dK table or a MaskedRelease; got "
        f"{type(payload).__name__}.")


def payload_shape(payload: Any) -> dict[str, int]:
    """The counts of released rows a record states (public: the rows are published)."""
    from ..dk.extract import DK3Distribution

    kind = payload_kind(payload)
    if kind == "graph":
        return {"edges": int(payload.n_edges)}
    if kind == "bipartite":
        return {"cells": int(payload.n_edges)}
    if kind == "masked":
        return {"cells": int(payload.n_cells)}
    parts = ((payload.wedges, payload.triangles) if isinstance(payload, DK3Distribution)
             else (payload,))
    return {"rows": sum(int(t.n_tuples) for t in parts)}


def _text(ids: Any) -> list[str]:
    from .._ids import canonical_ids, ids_as_text

    return [str(x) for x in ids_as_text(canonical_ids(np.asarray(ids), "ids")).tolist()]


def _column_text(columns: Mapping[str, Any], index: np.ndarray[Any, Any]) -> list[str]:
    """Per row of ``index``: its attribute values as one JSON text (sorted names)."""
    from .release import _plain

    cols = {name: np.asarray(columns[name])[index].tolist() for name in sorted(columns)}
    return [json.dumps([_plain(cols[n][i]) for n in cols], separators=(",", ":"), default=str)
            for i in range(index.size)]


def _count_text(c: float) -> str:
    c = float(c)
    return str(int(c)) if c.is_integer() else repr(c)


def _graph_chunks(G: Any) -> Iterator[bytes]:
    """A graph's canonical form: the ids of the nodes with edges in text order, then its
    edges as pairs of those positions (smaller first), sorted; then published columns."""
    text = np.asarray(_text(G.node_ids), dtype=object)
    u, v = G.edges()
    used = np.flatnonzero(np.diff(G.indptr) > 0)
    order = used[np.argsort(text[used].astype(str), kind="stable")]
    yield "".join(f"{t}\n" for t in text[order].tolist()).encode("utf-8")
    rank = np.zeros(G.n_nodes, dtype=np.int64)
    rank[order] = np.arange(order.size, dtype=np.int64)
    lo, hi = np.minimum(rank[u], rank[v]), np.maximum(rank[u], rank[v])
    sort = np.lexsort((hi, lo))
    yield b"\0edges\0" + lo[sort].tobytes() + hi[sort].tobytes()
    if G.attributes:
        attrs = _column_text(G.attributes, np.arange(G.n_nodes))
        for line in sorted(f"{t}\t{a}" for t, a in zip(text.tolist(), attrs, strict=True)):
            yield b"\0node\0" + line.encode("utf-8")


def _canonical(payload: Any) -> Iterator[bytes]:
    """The canonical payload (see the module docstring): sorted lines, as bytes."""
    from ..dk.extract import DK3Distribution

    kind = payload_kind(payload)
    if kind == "graph":
        yield from _graph_chunks(payload)
        return
    if kind == "bipartite":
        ftext = _text(payload.feature_ids)
        indptr, indices = payload.indptr.tolist(), payload.indices.tolist()
        rows = [i for i in range(payload.n_users) if indptr[i + 1] > indptr[i]]
        attrs = (_column_text(payload.user_attributes, np.asarray(rows, dtype=np.int64))
                 if payload.user_attributes else [""] * len(rows))
        lines = ["\t".join([a, *sorted(ftext[j] for j in indices[indptr[i]:indptr[i + 1]])])
                 for i, a in zip(rows, attrs, strict=True)]
    elif kind == "masked":
        atext = _text(payload.attribute_ids)
        lines = [f"{r}\t{atext[c]}\t{'*' if m else '1'}" for r, c, m in zip(
            payload.rows.tolist(), payload.cols.tolist(), payload.masked.tolist(), strict=True)]
    else:
        parts = ((payload.wedges, payload.triangles) if isinstance(payload, DK3Distribution)
                 else (payload,))
        lines = ["\t".join([t.kind, *map(str, d), _count_text(c)]) for t in parts
                 for d, c in zip(t.degrees.tolist(), t.counts.tolist(), strict=True)]
    for line in sorted(lines):
        yield line.encode("utf-8") + b"\n"


def payload_digest(payload: Any, release_id: str) -> str:
    """The keyed digest of ``payload`` in the record ``release_id`` (module docstring)."""
    from .release import _fingerprint_key

    key = hmac.new(_fingerprint_key(), _DOMAIN, hashlib.sha256).digest()
    h = hmac.new(key, f"{release_id}\0{payload_kind(payload)}\0".encode(), hashlib.sha256)
    for chunk in _canonical(payload):
        h.update(chunk)
    return "hmac-sha256:" + h.hexdigest()


def bind(release: Any, payload: Any) -> Any:
    """``release`` (a :class:`~graphanon.privacy.release.Release`) stamped with the kind,
    shape and keyed digest of ``payload``: the published view it releases."""
    return dataclasses.replace(release, payload_kind=payload_kind(payload),
                               payload_shape=payload_shape(payload),
                               payload_digest=payload_digest(payload, release.release_id))


def check_payload(release: Any, payload: Any, *, what: str = "the payload") -> None:
    """Refuse ``payload`` unless it is exactly what ``release``'s record released.

    Raises
    ------
    InvalidParameterError
        The record carries no digest (made by graphanon before payloads were bound, or never
        bound), or the payload's kind, shape or digest differs from the record's.
    """
    record = _record(release)
    rid = record.get("release_id")
    kind = payload_kind(payload)
    if not record.get("payload_digest"):
        raise InvalidParameterError(
            f"release {rid!r} ({record.get('mechanism')}) names no payload digest, so "
            f"nothing shows that {what} is what it released; produce the release again with "
            "this version of graphanon (its record binds its output).")
    if kind != record.get("payload_kind"):
        raise InvalidParameterError(
            f"{what} is a {kind} payload, but release {rid!r} ({record.get('mechanism')}) "
            f"released a {record.get('payload_kind')} payload; nothing was written.")
    shape = payload_shape(payload)
    if shape != record.get("payload_shape"):
        raise InvalidParameterError(
            f"{what} has {shape}, but release {rid!r} ({record.get('mechanism')}) released "
            f"{record.get('payload_shape')}: it is not the release's output; nothing was "
            "written.")
    if not hmac.compare_digest(payload_digest(payload, str(rid)), str(record["payload_digest"])):
        raise InvalidParameterError(
            f"{what} does not match the payload digest of release {rid!r} "
            f"({record.get('mechanism')}): it is not the release's output (or the operator's "
            "fingerprint key changed); nothing was written.")


def derived_release(parent: Any, payload: Any, *, mechanism: str, params: Mapping[str, Any],
                    seed: int | None) -> Any:
    """The record of an output derived from a released payload without further access to
    the data (a graph generated from a released table): post-processing, so it states the
    parent's guarantee; ``parent_release`` names the parent, ``params`` holds the
    generator's public parameters. Returned bound to ``payload``."""
    from .release import Release

    rec = _record(parent)
    derivation = (f"post-processing of release {rec['release_id']} ({rec['mechanism']}): "
                  "the parent's guarantee")
    out = Release.create(
        mechanism=mechanism, neighbourhood=rec["neighbourhood"], epsilon=rec.get("epsilon"),
        epsilon_summary=rec.get("epsilon_summary"), sensitivity_derivation=derivation,
        params=dict(params), backend=rec.get("backend"), seed=seed)
    return bind(dataclasses.replace(out, parent_release=rec["release_id"]), payload)
