"""Small real datasets shipped inside the package (see ``graphanon/data/ATTRIBUTION.md``)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .graph import BipartiteGraph, Graph

__all__ = ["data_path", "load_adult_sample", "load_polbooks"]


def data_path(name: str) -> Path:
    """Filesystem path of a shipped data file."""
    return Path(str(resources.files("graphanon") / "data" / name))


def load_polbooks() -> Graph:
    """Krebs' political books co-purchase graph: 105 nodes, 441 edges, ``value`` leaning."""
    from .io.files import read_graph

    return read_graph(data_path("polbooks.gml"))


def load_adult_sample() -> BipartiteGraph:
    """2,000 complete UCI Adult records as users × one-hot categorical features."""
    from .io.tables import PRESETS, read_table, table_to_bipartite

    spec = PRESETS["adult"]
    table = read_table(data_path("adult_sample.csv"))
    return table_to_bipartite(table, columns=spec.columns, binarize=None, dropna=True)
