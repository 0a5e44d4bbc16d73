"""A job's source: a file (the embedded default) or Neo4j, and its public universe."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..graph import BipartiteGraph, Graph
from .state import UNIVERSE_KEYS, resolve_path

__all__ = ["default_driver", "read_source", "read_universe", "shape"]

def default_driver(settings: dict[str, Any]) -> Any:
    from ..io.neo4j import CONNECTION_KEYS, open_driver

    return open_driver(**{k: settings.get(k) for k in CONNECTION_KEYS})[0]


def shape(data: Graph | BipartiteGraph) -> dict[str, Any]:
    if isinstance(data, Graph):
        return {"kind": "graph", "nodes": data.n_nodes, "edges": data.n_edges}
    return {"kind": "bipartite", "users": data.n_users, "features": data.n_features,
            "edges": data.n_edges}


def read_universe(src: dict[str, Any], base: Path) -> Any:
    """The public universe named by ``[source] nodes / users / features`` (files), or None."""
    from ..io.id_lists import read_id_list
    from ..universe import Universe

    given = {k: read_id_list(resolve_path(base, src[k]), what=k.rstrip("s"))
             for k in UNIVERSE_KEYS if k in src}
    if not given:
        return None
    return Universe(**given, source="given by the operator ([source] " +
                    ", ".join(sorted(given)) + " files)")


def read_source(src: dict[str, Any], driver: Callable[[dict[str, Any]], Any],
                 base: Path) -> tuple[Graph | BipartiteGraph, Any]:
    """The source's data and, for ``universe = "label"``, its public Universe."""
    kind = src.get("kind", "graph")
    if src.get("type", "file") == "file":
        from ..io.files import read_bipartite, read_graph

        path = resolve_path(base, src["path"])
        if kind == "bipartite":
            if src.get("preset"):
                from ..io.tables import load_preset

                return load_preset(path, src["preset"]), None
            return read_bipartite(path), None
        return read_graph(path, format=src.get("format")), None
    from ..io.neo4j import Neo4jSource

    source = Neo4jSource(driver(src), database=src.get("database"),
                         fetch_size=int(src.get("fetch_size", 10_000)),
                         memory_limit=src.get("memory_limit", 4 * 2**30))
    force = bool(src.get("force", False))
    universe = src.get("universe")
    if "query" in src:
        return source.read_query_graph(src["query"], src.get("parameters"),
                                       bipartite=kind == "bipartite"), None
    if kind == "graph":
        read: Any = source.read_graph(label=src["label"], rel_type=src["rel"],
                                      id_property=src.get("id_prop"),
                                      node_properties=src.get("node_props", []), force=force,
                                      universe=universe)
    else:
        read = source.read_bipartite(
            user_label=src["user_label"], feature_label=src["feature_label"],
            rel_type=src["rel"], user_id_property=src.get("id_prop"),
            feature_id_property=src.get("feature_id_prop", src.get("id_prop")),
            user_properties=src.get("node_props", []), force=force, universe=universe,
        )
    return read if universe is not None else (read, None)
