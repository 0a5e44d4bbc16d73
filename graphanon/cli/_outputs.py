"""Writing a command's outputs: graphs, JSON reports and records (bounded), pseudonymized
bipartite graphs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidParameterError
from ._console import _option, warn_after_success

if TYPE_CHECKING:  # pragma: no cover - the CLI imports numpy and the core only when used

    from ..graph import BipartiteGraph, Graph


def write_graph_output(G: Graph, out: str, out_format: str | None) -> None:
    """Write a command's graph output; warn when its format cannot hold every node (an edge
    list has no line for a node without edges: it reads back without them)."""
    from ..io.files import nodes_not_written, write_graph

    write_graph(G, out, format=out_format)
    lost = nodes_not_written(G, out, out_format)
    if lost:
        warn_after_success(
            f"{out}: {lost} of the {G.n_nodes} nodes have no edge, and an edge list cannot "
            f"hold them: the file reads back with {G.n_nodes - lost} nodes. Write .parquet or "
            ".graphml to keep them.")


def bound(report: dict[str, Any], release: Any, payload: Any) -> Any:
    """``release`` bound to the ``payload`` the command writes (its published view,
    :func:`graphanon.privacy.publish.bind`), also put into ``report["release"]``."""
    from ..privacy.publish import bind

    release = bind(release, payload)
    report["release"] = release.to_dict()
    return release


def write_json(path: str | Path, payload: Any) -> None:
    """Write a JSON report atomically.

    A report with a ``not_private`` block also records there what reading the command's
    inputs dropped (self-loops, duplicate edges, skipped rows): counts of the private input.
    """
    cleaning = _option("input_cleaning")
    if cleaning and isinstance(payload, dict) and isinstance(payload.get("not_private"), dict):
        payload = {**payload, "not_private": {**payload["not_private"],
                                              "input_cleaning": cleaning}}
    from ..io._atomic import atomic_write_text
    from ..reporting import to_jsonable

    atomic_write_text(path, json.dumps(to_jsonable(payload), indent=2, sort_keys=False) + "\n")


def outside_published(option: str, path: str, out: str, what: str, *,
                      folders: bool = False) -> None:
    """Refuse an operator-only file (``path``, given by ``option``) inside the folder of the
    published output ``out``, where it would be shared along with it. With ``folders``,
    ``out`` and ``path`` are output folders themselves (a distributed run's)."""
    import os

    out_dir, own_dir = os.path.realpath(out), os.path.realpath(path)
    if not folders:
        out_dir, own_dir = os.path.dirname(out_dir), os.path.dirname(own_dir)
    if own_dir == out_dir or own_dir.startswith(out_dir + os.sep):
        raise InvalidParameterError(
            f"The '{option}' option names {path!r}, inside the folder of the published "
            f"output: {what} is operator material; write it elsewhere.")


def pseudonymized(B: BipartiteGraph, *, release_id: str, keep_ids: bool,
                  out: str, pseudonym_map: str | None) -> BipartiteGraph:
    """``B`` with user ids replaced by keyed per-release pseudonyms and its rows in pseudonym
    order (unless ``keep_ids``; :func:`graphanon.privacy.pseudonyms.pseudonymous_rows`).

    The mapping is written to ``pseudonym_map`` only when asked, and never next to ``out``.
    """
    from ..privacy.pseudonyms import pseudonymize, pseudonymous_rows, warn_real_ids

    if keep_ids:
        if pseudonym_map is not None:
            raise InvalidParameterError(
                "The '--pseudonym-map' option conflicts with '--keep-ids' (no pseudonyms).")
        warn_real_ids("--keep-ids")
        return B
    if pseudonym_map is not None:
        outside_published("--pseudonym-map", pseudonym_map, out, "the mapping")
    names = pseudonymize(B.user_ids, scope=release_id)
    if pseudonym_map is not None:
        from ..io._atomic import atomic_path

        with atomic_path(pseudonym_map) as tmp, open(tmp, "w", encoding="utf-8") as fh:
            fh.write("# graphanon pseudonym map (operator only): id<TAB>pseudonym\n")
            from .._ids import ids_as_text

            for a, b in zip(ids_as_text(B.user_ids).tolist(), names.tolist(), strict=True):
                fh.write(f"{a}\t{b}\n")
    return pseudonymous_rows(B, names)
