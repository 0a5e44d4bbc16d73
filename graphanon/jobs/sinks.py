"""A job's sinks: a folder (``publish/`` and ``operator/``) or a Neo4j release."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import InvalidParameterError
from ..graph import Graph
from .schema import render_sink_path
from .state import JobState, resolve_path

__all__ = ["bind_outputs", "check_bound", "check_sinks", "is_publishable", "write_sink"]

def not_private_note() -> str:
    from ..privacy.release import NOT_PRIVATE_NOTE

    return NOT_PRIVATE_NOTE


def is_publishable(state: JobState) -> tuple[bool, str]:
    """Whether a job's output may be published, and why (or why not)."""
    rel = state.release
    if rel is None:
        return False, ("no release step: the data is the private input or derived from it "
                       "without a privacy mechanism")
    from ..privacy.release import unpublishable_reason

    why = unpublishable_reason(rel.to_dict())
    if why is not None:
        return False, why
    return True, f"{rel.mechanism}: {rel.neighbourhood} guarantee with secure randomness"


def bind_outputs(state: JobState) -> None:
    """The job's published view, and its record bound to it (:mod:`graphanon.privacy.publish`),
    once every step has run and before any sink sees the data.

    Released data keeps no column read from the source but those ``[job] publish`` names and
    the release released; the release's record is bound to its own payload (the masked
    cells, the released table, else the released data). A generated graph is bound to its
    own derived record (``generate``).
    """
    from ..privacy.publish import bind, published_view

    if state.release is None:
        return
    if state.released_data:
        state.data = published_view(state.data, state.derived or state.release, state.publish)
    payload = (state.masked if state.masked is not None
               else state.statistics if state.statistics is not None
               else state.data if state.released_data else None)
    if payload is not None:  # (a table too: a column named to publish is refused)
        state.release = bind(state.release, published_view(payload, state.release,
                                                           state.publish))


def check_bound(state: JobState) -> None:
    """Refuse every output a sink would write next to a release that is not exactly what
    its record released (:func:`graphanon.privacy.publish.check_payload`)."""
    from ..privacy.publish import check_payload

    if state.release is None:
        return
    if state.released_data:
        check_payload(state.derived or state.release, state.data, what="the job's data")
    for table in (state.statistics, state.masked):
        if table is not None:
            check_payload(state.release, table, what="the job's released table")


def write_sink(sink: dict[str, Any], state: JobState, release_id: str, job: str,
                driver: Callable[[dict[str, Any]], Any], base: Path) -> str:
    """Write one sink. File sinks write through :func:`graphanon.io._atomic.atomic_path`
    inside the job's output transaction: nothing is put in place before every sink of the
    job has succeeded.

    A file sink's folder has two parts (``docs/privacy.md``, "What may be published"):

    ``publish/``
        The release's output (``statistics.tsv``, ``masked.tsv``, the anonymized
        ``bipartite.tsv`` with keyed per-release user pseudonyms unless ``keep_ids = true``,
        or a generated ``graph.graphml`` with its own record ``graph.graphml.release.json``
        naming its parent) and ``release.json``, its Release record — only when the release
        is secure (a DP release with secure noise, or a verified k-anonymity release). Every
        output is the published view its record is bound to (:func:`bind_outputs`): no
        column read from the source but those published on purpose.
    ``operator/``
        ``report.json`` (every step's numbers, including those computed against the private
        input) and, when there is nothing publishable, the data itself: a job without a
        release, or a release that claims no privacy or used the seeded ``numpy-insecure``
        noise.
    """
    if sink["type"] == "file":
        import json

        from ..io._atomic import atomic_write_text
        from ..io.files import write_bipartite, write_graph
        from ..reporting import to_jsonable

        target = resolve_path(base, render_sink_path(sink["path"], release_id=release_id, job=job))
        check_bound(state)
        keep_ids = bool(sink.get("keep_ids", False))
        publishable, why = is_publishable(state)
        folder = target / ("publish" if publishable else "operator")
        # next to a release, only its output is written: never the private input (or a
        # graph derived from it without the release, e.g. a projection)
        write_data = state.release is None or state.released_data
        written: list[str] = []
        if write_data:
            if isinstance(state.data, Graph):
                fname = sink.get("graph_name", "graph.graphml")
                write_graph(state.data, folder / fname)
                from ..io.files import nodes_not_written

                lost = nodes_not_written(state.data, folder / fname)
                if lost:
                    import warnings

                    warnings.warn(
                        f"file sink {sink['path']!r}: {fname} is an edge list, which cannot "
                        f"hold the {lost} nodes without edges of the graph's "
                        f"{state.data.n_nodes}; name a .graphml or .parquet graph_name to keep "
                        "them.", stacklevel=2)
                if state.derived is not None:
                    atomic_write_text(folder / f"{fname}.release.json", json.dumps(
                        to_jsonable(state.derived.to_dict()), indent=2) + "\n")
                    written.append(f"{folder.name}/{fname}.release.json")
            else:
                data = state.data
                if state.release is not None and keep_ids:
                    from ..privacy.pseudonyms import warn_real_ids

                    warn_real_ids(f"keep_ids = true in file sink {sink['path']!r}")
                if state.release is not None and not keep_ids:
                    from ..privacy.pseudonyms import pseudonymize, pseudonymous_rows

                    # scoped by the record's random release id, not the job's release_id
                    # (a template such as "sk-{date}" repeats: joinable pseudonyms)
                    data = pseudonymous_rows(data, pseudonymize(
                        data.user_ids, scope=state.release.release_id))
                fname = "bipartite.tsv"
                write_bipartite(data, folder / fname)
            written.append(f"{folder.name}/{fname}")
        if state.statistics is not None:
            from ..io.dk_tables import write_dk_table

            write_dk_table(state.statistics, folder / "statistics.tsv")
            written.append(f"{folder.name}/statistics.tsv")
        if state.masked is not None:
            from ..io.masked import write_masked

            write_masked(state.masked, folder / "masked.tsv")
            written.append(f"{folder.name}/masked.tsv")
        record = state.release.to_dict() if state.release is not None else None
        if record is not None:
            atomic_write_text(folder / "release.json",
                              json.dumps(to_jsonable(record), indent=2) + "\n")
            written.append(f"{folder.name}/release.json")
        report = {"job": job, "release_id": release_id, "release": record,
                  "publishable": publishable, "why": why, "written": written,
                  "user_ids": ("real (keep_ids = true)" if keep_ids
                               else "keyed per-release pseudonyms"),
                  "not_private": {"note": not_private_note(), "steps": state.report}}
        atomic_write_text(target / "operator" / "report.json",
                          json.dumps(to_jsonable(report), indent=2) + "\n")
        return str(target)
    from ..io.neo4j import Neo4jSink

    payload = neo4j_payload(sink, state, job)
    assert state.release is not None  # (neo4j_payload refuses a job without one)
    # a generated graph is written under its own record, which names the table's release
    record = state.derived if "graph" in payload and state.derived else state.release
    out = Neo4jSink(driver(sink), database=sink.get("database"),
                    batch_size=int(sink.get("batch_size", 10_000)))
    summary = out.write_release(
        record, release_id=release_id, dataset=sink.get("dataset"), publish=state.publish,
        keep_ids=bool(sink.get("keep_ids", False)), budget_total=sink.get("budget_total"),
        replace=bool(sink.get("replace", False)), **payload,
    )
    return f"neo4j:{summary.release_id}"


def neo4j_payload(sink: dict[str, Any], state: JobState, job: str) -> dict[str, Any]:
    """What a neo4j sink writes (``write_release``'s payload keyword), or the reason it
    cannot: no release, a release that may not be published (:func:`is_publishable`),
    nothing of the kind ``write`` asks for, the private input, or a DP release without the
    ``dataset`` its ε is charged to."""
    from ..privacy.accountant import charge_epsilon

    if state.release is None:
        raise InvalidParameterError(
            f"job {job!r}: a neo4j sink writes a release, but no step produced one (add a "
            "mechanism step)."
        )
    publishable, why = is_publishable(state)
    if not publishable:
        raise InvalidParameterError(
            f"job {job!r}: a neo4j sink writes only publishable releases (a release subgraph "
            f"is read as published), and this one is not: {why}. Write it with a file sink "
            "(its operator/ folder), or by hand with 'graphanon neo4j write-release "
            "--operator-only'.")
    if charge_epsilon(state.release, "edge") is not None and not sink.get("dataset"):
        raise InvalidParameterError(
            f"job {job!r}: the neo4j sink writes the DP release {state.release.mechanism!r} "
            "and needs dataset = a stable name of the source data, which its ε is charged "
            "to in the database's ledger.")
    what = sink.get("write", "auto")
    if state.masked is not None and what != "statistics":
        return {"masked": state.masked}
    if what == "statistics" or (what == "auto" and state.statistics is not None):
        if state.statistics is None:
            raise InvalidParameterError(
                f"job {job!r}: the neo4j sink has write = 'statistics' but no step released "
                "a table.")
        return {"statistics": state.statistics}
    if not state.released_data:
        raise InvalidParameterError(
            f"job {job!r}: the neo4j sink would write the current graph under release "
            f"{state.release.mechanism!r}, but that graph is not the release's output (it is "
            "the private input or derived from it); write the released statistics, or add a "
            "step whose output is the release (e.g. generate).")
    return {"graph" if isinstance(state.data, Graph) else "bipartite": state.data}


def probe_file_sinks(sinks: list[dict[str, Any]], job: str, *, release_id: str,
                     base: Path) -> None:
    """Refuse, before any step runs and before the ledger is charged, a file sink whose
    folder cannot be created or written (a parent that is a file, no permission): otherwise
    every failed run would spend its ε for nothing."""
    from ..io._atomic import creatable_reason

    for i, sink in enumerate(sinks):
        if sink["type"] != "file":
            continue
        folder = resolve_path(base, render_sink_path(sink["path"], release_id=release_id,
                                                     job=job))
        reason = creatable_reason(folder / "publish" / "release.json")
        if reason is not None:
            raise InvalidParameterError(
                f"job {job!r}: file sink {i + 1} cannot write into {str(folder)!r}: "
                f"{reason}.")


def check_sinks(sinks: list[dict[str, Any]], state: JobState, job: str, *,
                release_id: str, base: Path, keep: set[str]) -> None:
    """Refuse, before the ledger charge and before any sink writes: a neo4j sink that could
    not write the job's release (:func:`neo4j_payload`); a file sink whose ``publish/`` or
    ``operator/`` folder holds a file the job must keep (``keep``: real paths of the job
    file, the source's files and the ledger); two file sinks in one folder or one inside
    the other (they would merge or nest their outputs). Paths are compared resolved
    (templates filled with this run's release id, symbolic links followed), so the budget is
    not spent on a job that stops at its sinks."""
    import os

    check_bound(state)
    folders: list[tuple[int, str]] = []
    for i, sink in enumerate(sinks):
        if sink["type"] == "neo4j":
            neo4j_payload(sink, state, job)
            continue
        folder = os.path.realpath(resolve_path(base, render_sink_path(
            sink["path"], release_id=release_id, job=job)))
        parts = [os.path.realpath(os.path.join(folder, p)) for p in ("publish", "operator")]
        inside = sorted(p for p in keep if p == folder or any(
            p == part or p.startswith(part + os.sep) for part in parts))
        if inside:
            raise InvalidParameterError(
                f"job {job!r}: file sink {i + 1} writes into {folder!r} (its publish/ and "
                f"operator/ folders), where {inside[0]!r}, a file of this job (its job file, "
                "an input or the ledger), could be replaced; put the sink elsewhere.")
        for j, other in folders:
            if folder == other or folder.startswith(other + os.sep) or other.startswith(
                    folder + os.sep):
                raise InvalidParameterError(
                    f"job {job!r}: file sinks {j + 1} and {i + 1} write the same folder or "
                    f"one inside the other ({other!r}, {folder!r}); give each its own folder.")
        folders.append((i, folder))
