"""One module per file format, each with its reader and its writer (as networkx's
``readwrite/``); :mod:`graphanon.io.files` dispatches on the format.

``edgelist``, ``delimited`` (CSV / TSV), ``parquet``, ``graphml`` (GraphML and GML, through
igraph), ``mtx`` (Matrix Market), ``mat`` (MATLAB), ``bipartite`` (``user<TAB>feature``
lists); shared: ``_lines`` (the line scanner's pairs, the line writer), ``_table`` (id
columns → graph), ``_writable`` (which ids a format can hold).
"""
