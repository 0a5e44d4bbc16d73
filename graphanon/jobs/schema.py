"""The job file: reading it and checking every table before anything runs."""

from __future__ import annotations

import os
import re
import string
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._validation import check_float, check_int
from ..errors import InvalidParameterError
from .state import NOISE_CHOICES, UNIVERSE_KEYS
from .steps import STEPS

__all__ = ["is_distributed", "load_job", "render_release_id", "render_sink_path",
           "validate_job"]


_TEMPLATE_KEYS = ("job", "date", "datetime", "uuid")

_JOB_KEYS = frozenset({"name", "release_id", "seed", "ledger", "budget",
                       "budget_neighbourhood", "dataset", "publish"})


_RELEASE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,199}")

_JOB_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def render_release_id(template: str, *, job: str, now: datetime | None = None) -> str:
    """Fill ``{job}``, ``{date}`` (2026-01-31), ``{datetime}`` (20260131T120000Z), ``{uuid}``."""
    now = now or datetime.now(UTC)
    values = {"job": job, "date": now.strftime("%Y-%m-%d"),
              "datetime": now.strftime("%Y%m%dT%H%M%SZ"), "uuid": uuid.uuid4().hex}
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise InvalidParameterError(f"bad release_id template {template!r}: {exc}.") from None
    unknown = [f for f in fields if f not in values]
    if unknown:
        raise InvalidParameterError(
            f"The 'release_id' template {template!r} uses unknown fields {unknown}; known: "
            f"{', '.join('{' + k + '}' for k in _TEMPLATE_KEYS)}."
        )
    rendered = template.format(**values)
    if not _RELEASE_ID.fullmatch(rendered):
        raise InvalidParameterError(
            f"The 'release_id' template {template!r} renders to {rendered!r}: a release id must "
            "be 1-200 letters, digits, '.', '_', ':' or '-', starting with a letter or digit "
            "(it names folders and Neo4j records: no '/' or '..').")
    return rendered


_SINK_FIELDS = ("release_id", "job")

def render_sink_path(template: str, *, release_id: str, job: str) -> str:
    """Fill ``{release_id}`` and ``{job}`` in a file sink's path — nothing else.

    Only those two plain fields are allowed: no attribute or index access
    (``{release_id.__class__}``), conversions or format specs, no other names, and the
    result holds no NUL character.
    """
    if "\x00" in template:
        raise InvalidParameterError("a file sink path must not contain a NUL character.")
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise InvalidParameterError(
            f"bad file sink path template {template!r}: {exc}.") from None
    out = []
    for literal, fname, spec, conv in parsed:
        out.append(literal)
        if fname is None:
            continue
        if fname not in _SINK_FIELDS or spec or conv:
            raise InvalidParameterError(
                f"The file sink path {template!r} uses {{{fname}{'!' + conv if conv else ''}"
                f"{':' + spec if spec else ''}}}; only {{release_id}} and {{job}} may appear "
                "(write a literal brace as {{ or }}).")
        out.append(release_id if fname == "release_id" else job)
    return "".join(out)


def load_job(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and validate a job file (no connection is made)."""
    from ..io._input import read_toml

    p = Path(path)
    cfg = read_toml(p, what="job file")
    return validate_job(cfg, p)


def validate_job(cfg: dict[str, Any], p: Path) -> dict[str, Any]:
    """Validate a parsed job; ``p`` names it in messages and its folder is the job's base."""
    if not isinstance(cfg, dict):
        raise InvalidParameterError(f"job {str(p)!r} must be a table (a dict).")
    unknown = set(cfg) - {"job", "source", "steps", "sinks"}
    if unknown:
        raise InvalidParameterError(f"job file {str(p)!r}: unknown sections {sorted(unknown)}.")
    job = _table(cfg, "job", p)
    unknown_keys = sorted(set(job) - _JOB_KEYS)
    if unknown_keys:
        raise InvalidParameterError(
            f"job file {str(p)!r}: unknown key(s) {', '.join(unknown_keys)} in [job] (known: "
            f"{', '.join(sorted(_JOB_KEYS))}); steps go in [[steps]] tables.")
    job.setdefault("name", p.stem)
    job.setdefault("release_id", "{job}-{datetime}")
    if not isinstance(job["name"], str) or not _JOB_NAME.fullmatch(job["name"]):
        raise InvalidParameterError(
            f"job file {str(p)!r}: [job] name must be 1-100 letters, digits, '.', '_' or '-' "
            f"(it names the job's lock file). Got {job['name']!r}.")
    render_release_id(job["release_id"], job=job["name"])  # validates the template
    publish = job.setdefault("publish", [])
    if not isinstance(publish, list) or not all(isinstance(x, str) for x in publish):
        raise InvalidParameterError(
            f"job file {str(p)!r}: [job] publish must be a list of attribute names (columns a "
            f"mechanism released, to publish next to it). Got {publish!r}.")
    seed = job.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise InvalidParameterError(f"job file {str(p)!r}: seed must be an int >= 0.")
    if job.get("ledger") is not None:
        budget = job.get("budget")
        if not isinstance(job["ledger"], str) or isinstance(budget, bool) or not isinstance(
                budget, (int, float)) or not budget > 0 or budget == float("inf"):
            raise InvalidParameterError(
                f"job file {str(p)!r}: [job] ledger needs a path and budget = the dataset's "
                f"total ε (a finite number > 0); got ledger = {job['ledger']!r}, budget = "
                f"{budget!r}.")
        if not isinstance(job.get("dataset"), str) or not job["dataset"]:
            raise InvalidParameterError(
                f"job file {str(p)!r}: [job] ledger needs dataset = a stable name of the "
                "source data (the budget is kept per name; a content hash would reset it "
                "whenever the data changes).")
        if job.get("budget_neighbourhood", "edge") not in ("edge", "node"):
            raise InvalidParameterError(
                f"job file {str(p)!r}: [job] budget_neighbourhood must be 'edge' or 'node'.")
    else:
        ignored = sorted(k for k in ("budget", "budget_neighbourhood", "dataset") if k in job)
        if ignored:
            raise InvalidParameterError(
                f"job file {str(p)!r}: [job] {', '.join(ignored)} belong(s) to the JSON ledger, "
                "which [job] ledger = PATH names; without it they would be ignored (a neo4j "
                "sink has its own dataset and budget_total).")
    steps = cfg.get("steps", [])
    if not isinstance(steps, list):
        raise InvalidParameterError(f"job file {str(p)!r}: use [[steps]] tables.")
    distributed_only = bool(steps) and all(is_distributed(st) for st in steps)
    source: dict[str, Any] | None = None
    if not (distributed_only and "source" not in cfg):
        source = _table(cfg, "source", p)
        _check_source(source, p)
    for i, st in enumerate(steps):
        if is_distributed(st):
            from ..distributed.steps import DISTRIBUTED_STEPS

            if st.get("name") not in DISTRIBUTED_STEPS:
                raise InvalidParameterError(
                    f"job file {str(p)!r}: step {i + 1} ({st.get('name')!r}) names a "
                    f"scheduler or cluster; only {', '.join(DISTRIBUTED_STEPS)} run "
                    "distributed.")
            continue
        if not isinstance(st, dict) or st.get("name") not in STEPS:
            raise InvalidParameterError(
                f"job file {str(p)!r}: step {i + 1} has unknown name "
                f"{(st or {}).get('name')!r}; registered steps: {', '.join(sorted(STEPS))}."
            )
        if st.get("noise", "opendp") not in NOISE_CHOICES:
            raise InvalidParameterError(
                f"job file {str(p)!r}: step {i + 1} ({st['name']}) has noise = "
                f"{st['noise']!r}; use 'opendp' (secure, the default) or 'numpy-insecure'."
            )
    sinks = cfg.get("sinks", [])
    if not isinstance(sinks, list) or (not sinks and not distributed_only):
        raise InvalidParameterError(f"job file {str(p)!r}: needs at least one [[sinks]] table.")
    for i, sk in enumerate(sinks):
        _check_sink(sk, i, p)
    return {"job": job, "source": source, "steps": steps, "sinks": sinks,
            "path": str(p.resolve())}


def _table(cfg: Mapping[str, Any], key: str, p: Path) -> dict[str, Any]:
    value = cfg.get(key, {} if key == "job" else None)
    if not isinstance(value, dict):
        raise InvalidParameterError(f"job file {str(p)!r}: needs a [{key}] table.")
    return dict(value)


_CONNECTION_KEYS = {"uri", "user", "password_file", "database"}
_SOURCE_KEYS = {
    "file": {"type", "kind", "path", "format", "preset", "nodes", "users", "features"},
    "neo4j": {"type", "kind", "label", "rel", "user_label", "feature_label", "id_prop",
              "feature_id_prop", "node_props", "query", "parameters", "universe", "fetch_size",
              "memory_limit", "force", "nodes", "users", "features", *_CONNECTION_KEYS},
}
_SINK_KEYS = {
    "file": {"type", "path", "keep_ids", "graph_name"},
    "neo4j": {"type", "write", "dataset", "budget_total", "batch_size", "keep_ids",
              "replace", *_CONNECTION_KEYS},
}
_GRAPH_NAME = re.compile(
    r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\.(graphml|gml|txt|edges|csv|tsv|parquet)")


def _unknown(table: dict[str, Any], known: set[str], where: str, p: Path) -> None:
    """Refuse keys a table does not take: a typo (``nodez``, ``kep_ids``) would otherwise
    run the job without the setting, silently (a release without its universe, say)."""
    unknown = sorted(set(table) - known)
    if unknown:
        raise InvalidParameterError(
            f"job file {str(p)!r}: unknown key(s) {', '.join(unknown)} in {where} (known: "
            f"{', '.join(sorted(known))}).")


def _foreign(src: dict[str, Any], keys: set[str], what: str, p: Path) -> None:
    """Refuse [source] keys that do not apply to ``what`` (they would be ignored)."""
    given = sorted(keys & set(src))
    if given:
        raise InvalidParameterError(
            f"job file {str(p)!r}: [source] key(s) {', '.join(given)} do not apply to {what}.")


def _count(table: dict[str, Any], key: str, where: str, p: Path) -> None:
    """``table[key]``, when given, is an int >= 1 (checked before any connection)."""
    if key in table:
        check_int(table[key], key, f"job file {str(p)!r} {where}", low=1)


def _check_source(src: dict[str, Any], p: Path) -> None:
    from ..io.cypher import validate_identifier

    if src.get("type", "file") in _SOURCE_KEYS:
        _unknown(src, _SOURCE_KEYS[src.get("type", "file")], "[source]", p)
    kind = src.get("kind", "graph")
    if kind not in ("graph", "bipartite"):
        raise InvalidParameterError(
            f"job file {str(p)!r}: [source] kind must be 'graph' or 'bipartite'. Got {kind!r}."
        )
    typ = src.get("type", "file")
    for key in UNIVERSE_KEYS:
        if key in src and not isinstance(src[key], str):
            raise InvalidParameterError(
                f"job file {str(p)!r}: [source] {key} must name a file (one id per line).")
    if "nodes" in src and kind != "graph":
        raise InvalidParameterError(
            f"job file {str(p)!r}: [source] nodes is the universe of a social graph; a "
            "bipartite source takes users and features.")
    if ("users" in src or "features" in src) and kind != "bipartite":
        raise InvalidParameterError(
            f"job file {str(p)!r}: [source] users / features are the universe of a bipartite "
            "source; a social graph takes nodes.")
    if "universe" in src:
        if typ != "neo4j":
            raise InvalidParameterError(
                f"job file {str(p)!r}: [source] universe = \"label\" is for Neo4j sources; a "
                "file source names its universe with nodes / users / features files.")
        if any(key in src for key in UNIVERSE_KEYS):
            raise InvalidParameterError(
                f"job file {str(p)!r}: [source] has universe = \"label\" and universe files; "
                "name one universe.")
    if typ == "file":
        if not isinstance(src.get("path"), str):
            raise InvalidParameterError(f"job file {str(p)!r}: [source] needs a path.")
        _foreign(src, {"preset"} if kind == "graph" else {"format"}, f"kind = {kind!r}", p)
        return
    if typ != "neo4j":
        raise InvalidParameterError(
            f"job file {str(p)!r}: [source] type must be 'file' or 'neo4j'. Got {typ!r}."
        )
    if "password" in src:
        raise InvalidParameterError(
            f"job file {str(p)!r}: never put a password in a job file; use NEO4J_PASSWORD or "
            "NEO4J_PASSWORD_FILE."
        )
    if src.get("universe") not in (None, "label"):
        raise InvalidParameterError(
            f"job file {str(p)!r}: [source] universe must be 'label' (every node with the "
            f"label, isolated ones included). Got {src['universe']!r}.")
    by_label = {"label", "rel", "user_label", "feature_label", "id_prop", "feature_id_prop",
                "node_props", "force", "memory_limit"}
    if "query" in src:
        _foreign(src, by_label, "a query (its rows are the graph, of a size not known "
                 "before it runs)", p)
    else:
        _foreign(src, {"parameters"}, "a read by labels (they are a query's)", p)
        _foreign(src, {"user_label", "feature_label", "feature_id_prop"} if kind == "graph"
                 else {"label"}, f"kind = {kind!r}", p)
    if "query" in src:
        if src.get("universe") is not None:
            raise InvalidParameterError(
                f"job file {str(p)!r}: [source] universe needs labels; a query cannot say "
                "which nodes exist.")
        return
    needed = ("label", "rel") if kind == "graph" else ("user_label", "feature_label", "rel")
    for key in needed:
        validate_identifier(src.get(key), f"source.{key}")
    for key in ("id_prop", "feature_id_prop"):
        if src.get(key) is not None:
            validate_identifier(src[key], f"source.{key}")
    if not isinstance(src.get("node_props", []), list):
        raise InvalidParameterError(
            f"job file {str(p)!r}: [source] node_props must be a list of property names. "
            f"Got {src['node_props']!r}.")
    for prop in src.get("node_props", []):
        validate_identifier(prop, "source.node_props")
    _count(src, "fetch_size", "[source]", p)


def _check_sink(sink: Any, i: int, p: Path) -> None:
    if not isinstance(sink, dict) or sink.get("type") not in ("file", "neo4j"):
        raise InvalidParameterError(
            f"job file {str(p)!r}: sink {i + 1} needs type = 'file' or 'neo4j'."
        )
    _unknown(sink, _SINK_KEYS[sink["type"]], f"{sink['type']} sink {i + 1}", p)
    if sink["type"] == "file":
        if not isinstance(sink.get("path"), str) or not sink["path"].strip():
            raise InvalidParameterError(
                f"job file {str(p)!r}: file sink {i + 1} needs a path (a folder name; got "
                f"{sink.get('path')!r}).")
        name = sink.get("graph_name", "graph.graphml")
        if not isinstance(name, str) or not _GRAPH_NAME.fullmatch(name):
            raise InvalidParameterError(
                f"job file {str(p)!r}: file sink {i + 1} has graph_name = {name!r}; it must be "
                "a plain file name (no folder: it is written inside the sink's publish/ or "
                "operator/ folder) with a graph extension (.graphml, .gml, .txt, .edges, .csv, "
                ".tsv, .parquet).")
        render_sink_path(sink["path"], release_id="r", job="j")  # validates the template
        if "keep_ids" in sink and not isinstance(sink["keep_ids"], bool):
            raise InvalidParameterError(
                f"job file {str(p)!r}: file sink {i + 1} has keep_ids = {sink['keep_ids']!r}; "
                "use true or false.")
    if sink["type"] == "neo4j":
        _count(sink, "batch_size", f"neo4j sink {i + 1}", p)
        if "dataset" in sink:  # the ledger key: a stable name, never a hash
            from ..privacy.accountant import check_dataset_name

            check_dataset_name(sink["dataset"], f"job file {str(p)!r} neo4j sink {i + 1}")
        if "replace" in sink and not isinstance(sink["replace"], bool):
            raise InvalidParameterError(
                f"job file {str(p)!r}: neo4j sink {i + 1} has replace = {sink['replace']!r}; "
                "use true or false.")
        if sink.get("budget_total") is not None:  # the total ε of the dataset
            check_float(sink["budget_total"], "budget_total",
                        f"job file {str(p)!r} neo4j sink {i + 1}", low=0.0, closed="right")
    if sink["type"] == "neo4j" and sink.get("write", "auto") not in ("auto", "statistics",
                                                                     "graph"):
        raise InvalidParameterError(
            f"job file {str(p)!r}: neo4j sink {i + 1} has write = {sink['write']!r}; use "
            "'auto', 'statistics' or 'graph'.")
    if "password" in sink:
        raise InvalidParameterError(f"job file {str(p)!r}: never put a password in a job file.")


def is_distributed(st: Any) -> bool:
    """A step table naming ``scheduler`` or ``cluster`` runs on Dask (graphanon.distributed)."""
    return isinstance(st, dict) and ("scheduler" in st or "cluster" in st)
