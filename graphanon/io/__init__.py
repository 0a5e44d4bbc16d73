"""Input and output: files (the embedded default) and Neo4j."""

from .files import detect_format, read_bipartite, read_graph, write_bipartite, write_graph
from .tables import PRESETS, load_preset, read_table, table_to_bipartite

__all__ = [
    "PRESETS",
    "detect_format",
    "load_preset",
    "read_bipartite",
    "read_graph",
    "read_table",
    "table_to_bipartite",
    "write_bipartite",
    "write_graph",
]
