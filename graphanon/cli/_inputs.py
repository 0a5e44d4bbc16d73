"""Reading a command's inputs: graphs and bipartite graphs (what reading dropped, reported once
the command succeeded), release records, public universes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..errors import InvalidParameterError
from ._console import _option

if TYPE_CHECKING:  # pragma: no cover - the CLI imports numpy and the core only when used

    from ..graph import BipartiteGraph, Graph


def refuse_skip_bad_rows(what: str) -> None:
    """Refuse the global ``--skip-bad-rows`` for an input read another way (it would be
    ignored)."""
    if _option("skip_bad_rows"):
        raise InvalidParameterError(
            f"--skip-bad-rows does not apply to {what}: it is read whole, or refused with the "
            "line of its first bad row.")


#: How each count of ``input_cleaning`` is reported.
CLEANING_LABELS = {"self_loops": "self_loops_dropped",
                   "duplicate_edges": "duplicate_edges_dropped",
                   "duplicate_pairs": "duplicate_pairs_merged",
                   "rows_skipped": "rows_skipped", "ignored_columns": "columns_ignored"}


def cleaning_report(data: Any) -> dict[str, int]:
    """``data.input_cleaning`` under the labels of :data:`CLEANING_LABELS`."""
    return {CLEANING_LABELS.get(k, k): int(v) for k, v in data.input_cleaning.items()}


#: What a count of duplicate edges equal to the number of edges means (SNAP's lists).
BOTH_WAYS = "one per edge: the file lists every edge in both directions, as SNAP does"


def both_ways(data: Any) -> bool:
    """Whether reading dropped exactly one duplicate per edge: an undirected graph whose
    file lists every edge both ways (``a b`` and ``b a``), as SNAP's edge lists do."""
    dup = int(getattr(data, "input_cleaning", {}).get("duplicate_edges", 0))
    return dup > 0 and dup == int(getattr(data, "n_edges", -1))


def _noted(data: Any, path: str | Path) -> None:
    """Say on stderr what reading ``path`` dropped, and keep it for the command's report."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.find_root().ensure_object(dict)
        ctx.find_root().obj.setdefault("input_cleaning", {})[str(path)] = cleaning_report(
            data)
        if both_ways(data):
            ctx.find_root().obj.setdefault("both_ways", set()).add(str(path))


def _echo_input_notes() -> None:
    """One stderr note per input from which reading dropped something, then the warnings
    about the outputs (:func:`warn_after_success`)."""
    for path, counts in (_option("input_cleaning") or {}).items():
        dropped = {k: v for k, v in counts.items() if v}
        if dropped:
            what = ", ".join(
                f"{k.replace('_', ' ')}: {v}"
                + (f" ({BOTH_WAYS})" if k == "duplicate_edges_dropped"
                   and path in (_option("both_ways") or ()) else "")
                for k, v in dropped.items())
            click.echo(f"graphanon: note: {path}: {what}.", err=True)
    for message in _option("output_warnings") or ():
        click.echo(f"graphanon: warning: {message}", err=True)


def _release_parser_memory() -> None:
    """pyarrow's allocator keeps the parser's freed buffers (0.45 GB after a 10M-edge edge
    list): give them back before the command's own work starts."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def load_graph(path: str | Path, fmt: str | None = None) -> Graph:
    from ..io.files import read_graph

    G = read_graph(path, format=fmt, skip_bad_rows=bool(_option("skip_bad_rows")))
    _noted(G, path)
    _release_parser_memory()
    return G


def load_bipartite(path: str | Path) -> BipartiteGraph:
    from ..io.files import read_bipartite

    B = read_bipartite(path, skip_bad_rows=bool(_option("skip_bad_rows")))
    _noted(B, path)
    return B


def read_record(path: str) -> dict[str, Any]:
    """The Release record of the JSON report ``path`` (an input: bounded, regular files and
    pipes only), checked as :func:`graphanon.io.neo4j.release_record` checks it."""
    from .._validation import loads_json
    from ..io._input import read_input_text
    from ..io.neo4j.records import release_record

    try:  # bounded, regular files and pipes only, like every input
        report = loads_json(read_input_text(path, what="release report"))
    except InvalidParameterError as exc:
        raise InvalidParameterError(
            str(exc).replace("input file", "report", 1).replace("input path", "report", 1)
            .replace("input ", "report ", 1)) from None
    except ValueError as exc:
        raise InvalidParameterError(f"report {path!r} is not JSON: {exc}.") from None
    return release_record(report)


def read_universe(path: str | None, what: str) -> Any:
    """The ids of a universe file, or ``None``."""
    if path is None:
        return None
    from ..io.id_lists import read_id_list

    return read_id_list(path, what=what)
