"""``graphanon neo4j ...``: export graphs from Neo4j, write releases back, manage them.

Glue only: options are validated (identifiers before any connection), then
:mod:`graphanon.io.neo4j` does the work. Connection: ``--uri`` or ``NEO4J_URI``,
``NEO4J_USER``, ``NEO4J_PASSWORD`` or a password file (``--password-file`` /
``NEO4J_PASSWORD_FILE``), ``--database``. There is deliberately no ``--password`` option.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import click

from ..errors import InvalidParameterError
from ._console import echo, progress_bar
from ._inputs import load_bipartite, load_graph, read_record
from ._params import FLOAT, FORMAT_CHOICE

__all__ = ["COMMANDS", "neo4j"]


def _connection_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option("--database", help="Database name (default: NEO4J_DATABASE or the "
                     "server default).")(f)
    f = click.option("--password-file", type=click.Path(dir_okay=False),
                     help="File holding the password (else NEO4J_PASSWORD_FILE or "
                     "NEO4J_PASSWORD).")(f)
    f = click.option("--uri", help="Bolt URI (default: NEO4J_URI), e.g. neo4j://localhost:7687.")(f)
    return f


@contextlib.contextmanager
def _driver(uri: str | None, password_file: str | None, database: str | None) -> Iterator[Any]:
    from ..io.neo4j import open_driver

    driver, settings = open_driver(uri=uri, password_file=password_file, database=database)
    try:
        yield driver, settings.database
    finally:
        driver.close()


def _props(value: str | None, option: str) -> list[str]:
    from ..io.cypher import validate_identifier

    if not value:
        return []
    return [validate_identifier(p.strip(), option) for p in value.split(",")]


def _memory_limit(value: str | None) -> int:
    """``--memory-limit`` in bytes (the source's default when not given)."""
    from ..io.neo4j import DEFAULT_MEMORY_LIMIT, parse_size

    return parse_size(DEFAULT_MEMORY_LIMIT if value is None else value)


def _check_read_options(universe: str | None, universe_out: str | None, query: str | None,
                        by_label: dict[str, Any]) -> None:
    """The options of a read that go together: ``by_label`` (option -> value) apply to a
    read by labels, which a ``--query`` replaces (its size is not known before it runs: no
    memory estimate either)."""
    if query is not None and not query.strip():
        raise InvalidParameterError("The '--query' option must be a non-empty Cypher query.")
    given = [name for name, value in by_label.items() if value not in (None, False)]
    if query is not None and given:
        raise InvalidParameterError(
            f"The option(s) {', '.join(given)} apply to a read by labels; --query replaces "
            "it (its rows are the graph).")
    if (universe is None) != (universe_out is None):
        raise InvalidParameterError(
            "The '--universe' and '--universe-out' options go together (what to export and "
            "where).")
    if universe is not None and query is not None:
        raise InvalidParameterError(
            "The '--universe' option needs labels: a --query cannot say which nodes exist.")


def _check_extra_outputs(out: str, universe_out: str | None, kinds: tuple[str, ...],
                         props_out: str | None = None, props: tuple[str, ...] = ()) -> None:
    """Before connecting: the files the prefixes ``--universe-out`` / ``--props-out`` will
    write are checked with ``--out`` as :func:`guard_paths` checks a command's outputs (none
    is another output or unwritable)."""
    from ._guard import check_outputs

    named = {"--out": out}
    if universe_out is not None:
        for kind in (*kinds, "universe"):
            ext = "json" if kind == "universe" else "txt"
            named[f"--universe-out ({kind})"] = f"{universe_out}.{kind}.{ext}"
    for prop in props:
        assert props_out is not None
        named[f"--props-out ({prop})"] = f"{props_out}.{prop}.tsv"
    check_outputs(named, {}, lambda n: f"The '{n.split(' ')[0]}' option")


def _write_universe(universe: Any, prefix: str) -> None:
    """One id per line per set, and a JSON sidecar naming the universe's source."""
    from .._ids import ids_as_text
    from ..io._atomic import atomic_write_text

    files = {}
    for name in ("nodes", "users", "features"):
        ids = getattr(universe, name)
        if ids is None:
            continue
        text = ids_as_text(ids).tolist()
        bad = next((x for x in text if "\n" in x or "\r" in x), None)
        if bad is not None:
            raise InvalidParameterError(
                f"universe {name} id {bad!r} holds a line break; it cannot be written one id "
                "per line.")
        path = f"{prefix}.{name}.txt"
        atomic_write_text(path, "".join(f"{x}\n" for x in text))
        files[name] = {"path": path, "count": len(text)}
        echo(f"wrote {path}: {len(text)} {name} ({universe.source})")
    atomic_write_text(f"{prefix}.universe.json", json.dumps(
        {"source": universe.source, "files": files}, indent=2) + "\n")


def _ident(value: str | None, option: str) -> str | None:
    from ..io.cypher import validate_identifier

    return None if value is None else validate_identifier(value, option)


@click.group("neo4j")
def neo4j() -> None:
    """Read graphs from Neo4j, write releases back as separate subgraphs, list and drop them.

    Credentials come from NEO4J_USER and NEO4J_PASSWORD (or a password file), never from
    the command line. Exit codes: 2 bad input, 3 privacy budget refused, 4 database
    unavailable or database error (also: another writer took the release over while this
    one wrote it, the source changed during a read, or the outcome of a commit is unknown).
    """


_read_options = [
    click.option("--out", required=True, type=click.Path(dir_okay=False),
                 help="Output file."),
    click.option("--universe", type=click.Choice(["label"]),
                 help="Also export the public universe: every node with the label(s), "
                 "isolated ones included (for edge-DP --nodes / randomized-response "
                 "--users/--features). Needs --universe-out."),
    click.option("--universe-out", metavar="PREFIX",
                 help="With --universe: write PREFIX.nodes.txt (or PREFIX.users.txt and "
                 "PREFIX.features.txt), one id per line, and PREFIX.universe.json saying "
                 "where the universe came from."),
    click.option("--fetch-size", type=click.IntRange(1), default=10_000, show_default=True,
                 help="Records per network batch."),
    click.option("--memory-limit", default=None,
                 help="Refuse label reads estimated above this size (default 4GiB)."),
    click.option("--force", is_flag=True, help="Read even above --memory-limit."),
]


def _with(options: list[Callable[..., Any]]) -> Callable[..., Any]:
    def deco(f: Callable[..., Any]) -> Callable[..., Any]:
        for opt in reversed(options):
            f = opt(f)
        return f

    return deco


@neo4j.command("read-graph")
@click.option("--label", help="Node label of the social graph.")
@click.option("--rel", help="Relationship type (direction ignored).")
@click.option("--id-prop", help="Business-key property (default: elementId).")
@click.option("--node-props", help="Comma-separated node properties to carry (e.g. eps,delta).")
@click.option("--query", help="Instead of --label/--rel: a read-only Cypher query returning "
              "(source, target) rows.")
@click.option("--format", "fmt", type=FORMAT_CHOICE, help="Output format (default: from --out).")
@_with(_read_options)
@_connection_options
def read_graph(label: str | None, rel: str | None, id_prop: str | None, node_props: str | None,
               query: str | None, fmt: str | None, out: str, universe: str | None,
               universe_out: str | None, fetch_size: int, memory_limit: str | None,
               force: bool, uri: str | None, password_file: str | None,
               database: str | None) -> None:
    """Export a social graph from Neo4j to a file; report the read's throughput."""
    from ..graph import Graph
    from ..io.neo4j import Neo4jSource
    from ._outputs import write_graph_output

    if query is None:
        if not label or not rel:
            raise InvalidParameterError("read-graph needs --label and --rel, or --query.")
        _ident(label, "--label")
        _ident(rel, "--rel")
    _ident(id_prop, "--id-prop")
    props = _props(node_props, "--node-props")
    _check_read_options(universe, universe_out, query,
                        {"--label": label, "--rel": rel, "--id-prop": id_prop,
                         "--node-props": node_props, "--memory-limit": memory_limit,
                         "--force": force})
    _check_extra_outputs(out, universe_out, ("nodes",))
    from ..io.files import graph_output_format

    graph_output_format(out, fmt)  # (checked before connecting)
    limit = _memory_limit(memory_limit)
    found = None
    with _driver(uri, password_file, database) as (drv, db), progress_bar() as bar:
        src = Neo4jSource(drv, database=db, fetch_size=fetch_size, memory_limit=limit,
                          progress=bar)
        if query is not None:
            G = src.read_query_graph(query)
        else:
            assert label is not None and rel is not None
            if universe is None:
                G = src.read_graph(label=label, rel_type=rel, id_property=id_prop,
                                   node_properties=props, force=force)
            else:
                G, found = src.read_graph(label=label, rel_type=rel, id_property=id_prop,
                                          node_properties=props, force=force,
                                          universe="label")
    assert isinstance(G, Graph)
    if src.last_read is not None:
        echo(src.last_read.describe())
    write_graph_output(G, out, fmt)
    echo(f"wrote {out}: {G.n_nodes} nodes, {G.n_edges} edges")
    if found is not None:
        assert universe_out is not None
        _write_universe(found, universe_out)


@neo4j.command("read-bipartite")
@click.option("--user-label", help="Label of the user nodes.")
@click.option("--feature-label", help="Label of the feature nodes.")
@click.option("--rel", help="Relationship type between them (direction ignored).")
@click.option("--id-prop", help="Business-key property of users (default: elementId).")
@click.option("--feature-id-prop", help="Business-key property of features (default: --id-prop).")
@click.option("--user-props", help="Comma-separated user properties to read (e.g. an anonymity "
              "level delta or a privacy preference epsilon); see --props-out.")
@click.option("--props-out", help="Write each --user-props property to PREFIX.<prop>.tsv as "
              "user<TAB>value lines (the format of b-anonymize --delta-file and "
              "release-personalized --prefs).")
@click.option("--query", help="Instead: a read-only Cypher query returning (user, feature) rows.")
@_with(_read_options)
@_connection_options
def read_bipartite(user_label: str | None, feature_label: str | None, rel: str | None,
                   id_prop: str | None, feature_id_prop: str | None, user_props: str | None,
                   props_out: str | None, query: str | None, out: str, universe: str | None,
                   universe_out: str | None, fetch_size: int, memory_limit: str | None,
                   force: bool,
                   uri: str | None, password_file: str | None, database: str | None) -> None:
    """Export a user–feature graph from Neo4j to a user<TAB>feature file; report the
    read's throughput."""
    from ..graph import BipartiteGraph
    from ..io.files import write_bipartite
    from ..io.neo4j import Neo4jSource

    if query is None:
        if not user_label or not feature_label or not rel:
            raise InvalidParameterError(
                "read-bipartite needs --user-label, --feature-label and --rel, or --query.")
        _ident(user_label, "--user-label")
        _ident(feature_label, "--feature-label")
        _ident(rel, "--rel")
    _ident(id_prop, "--id-prop")
    _ident(feature_id_prop, "--feature-id-prop")
    props = _props(user_props, "--user-props")
    if props_out is not None and not props:
        raise InvalidParameterError(
            "The '--props-out' option writes the --user-props properties; give them.")
    if props and props_out is None:
        raise InvalidParameterError(
            "The '--user-props' option needs '--props-out PREFIX' (the list itself holds only "
            "user<TAB>feature pairs).")
    _check_read_options(universe, universe_out, query,
                        {"--user-label": user_label, "--feature-label": feature_label,
                         "--rel": rel, "--id-prop": id_prop, "--feature-id-prop": feature_id_prop,
                         "--user-props": user_props, "--memory-limit": memory_limit,
                         "--force": force})
    _check_extra_outputs(out, universe_out, ("users", "features"), props_out, tuple(props))
    limit = _memory_limit(memory_limit)
    found = None
    with _driver(uri, password_file, database) as (drv, db), progress_bar() as bar:
        src = Neo4jSource(drv, database=db, fetch_size=fetch_size, memory_limit=limit,
                          progress=bar)
        if query is not None:
            B = src.read_query_graph(query, bipartite=True)
        else:
            assert user_label and feature_label and rel
            kwargs: dict[str, Any] = dict(
                user_label=user_label, feature_label=feature_label, rel_type=rel,
                user_id_property=id_prop, feature_id_property=feature_id_prop or id_prop,
                user_properties=props, force=force)
            if universe is None:
                B = src.read_bipartite(**kwargs)
            else:
                B, found = src.read_bipartite(**kwargs, universe="label")
    assert isinstance(B, BipartiteGraph)
    if src.last_read is not None:
        echo(src.last_read.describe())
    write_bipartite(B, out)
    echo(f"wrote {out}: {B.n_users} users, {B.n_features} features, {B.n_edges} edges")
    if found is not None:
        assert universe_out is not None
        _write_universe(found, universe_out)
    for prop in props:
        from ..io._atomic import atomic_write_text

        values = B.user_attributes.get(prop)
        if values is None:
            continue
        lines = [f"{u}\t{v}" for u, v in zip(B.user_ids.tolist(), values.tolist(), strict=True)
                 if v is not None and v == v]  # v == v drops NaN
        atomic_write_text(f"{props_out}.{prop}.tsv", "\n".join(lines) + "\n")
        echo(f"wrote {props_out}.{prop}.tsv: {len(lines)} users")


@neo4j.command("write-release")
@click.option("--release-id", help="Id of the release subgraph (default: the record's).")
@click.option("--graph", "graph_path", type=click.Path(dir_okay=False),
              help="An anonymized social graph file.")
@click.option("--bipartite", "bipartite_path", type=click.Path(dir_okay=False),
              help="An anonymized user<TAB>feature list.")
@click.option("--table", "table_path", type=click.Path(dir_okay=False),
              help="Released statistics: a dK table (as written by dk / release-dk / "
              "release-degrees): 1K -> :DegreeCount, 2K -> :JointDegreeCount, 3K -> "
              ":DegreeTupleCount.")
@click.option("--masked", "masked_path", type=click.Path(dir_okay=False),
              help="A b-anonymized release ('row<TAB>attribute<TAB>1|*', as written by "
              "b-anonymize): known-1 cells -> :ANON_HAS_FEATURE, masked cells -> :ANON_MASKED.")
@click.option("--format", "fmt", type=FORMAT_CHOICE, help="Format of --graph.")
@click.option("--report", "report_path", required=True, type=click.Path(dir_okay=False),
              help="The JSON report carrying the Release record.")
@click.option("--dataset",
              help="Ledger key: a stable name of the source data (required for a DP release).")
@click.option("--budget-total", type=FLOAT,
              help="The dataset's total ε, set if it has no budget yet (an existing budget "
                   "must match: changing one is 'graphanon neo4j set-budget').")
@click.option("--keep-ids", is_flag=True,
              help="Write real user/node ids instead of fresh pseudonyms (reveals who is in "
              "the release; see docs/neo4j.md).")
@click.option("--operator-only", is_flag=True,
              help="Write a release that may not be published (no privacy claim, or the "
                   "seeded numpy-insecure noise), marked publishable: false. Without it such "
                   "a release is refused.")
@click.option("--replace", is_flag=True,
              help="Replace a complete release of other content that has this release id "
                   "(refused without it: its readers would lose it).")
@click.option("--publish", default=None,
              help="Comma-separated attribute columns of --graph / --bipartite to write as "
                   "node properties: only columns the record's mechanism released "
                   "(released_attributes). Every other column read from a source is dropped.")
@click.option("--batch-size", type=click.IntRange(1), default=10_000, show_default=True)
@_connection_options
def write_release(release_id: str | None, graph_path: str | None, bipartite_path: str | None,
                  table_path: str | None, masked_path: str | None, fmt: str | None,
                  report_path: str,
                  dataset: str | None, budget_total: float | None, keep_ids: bool,
                  operator_only: bool, replace: bool, publish: str | None, batch_size: int,
                  uri: str | None, password_file: str | None, database: str | None) -> None:
    """Write a release produced by any other command into Neo4j (atomic, idempotent).

    The payload must be exactly what the record released (its kind, shape and keyed
    digest): anything else, the raw input say, is refused before connecting."""
    from ..io.dk_tables import read_dk_table
    from ..io.neo4j import Neo4jSink

    given = [p for p in (graph_path, bipartite_path, table_path, masked_path) if p]
    if len(given) != 1:
        raise InvalidParameterError("write-release needs exactly one of --graph, --bipartite, "
                                    "--table, --masked.")
    if fmt is not None and not graph_path:
        raise InvalidParameterError("The '--format' option is the format of --graph.")
    if keep_ids and not (graph_path or bipartite_path):
        raise InvalidParameterError(
            "The '--keep-ids' option applies to --graph and --bipartite (the ids they hold).")
    record = read_record(report_path)
    from ..io.neo4j import validate_budget, validate_release_id

    validate_release_id(record.get("release_id") if release_id is None else release_id)
    from ..privacy.accountant import charge_epsilon, check_dataset_name
    from ..privacy.release import unpublishable_reason

    why = unpublishable_reason(record)
    if why is not None and not operator_only:  # before connecting
        raise InvalidParameterError(
            f"this release may not be published: {why}. A release subgraph in Neo4j is read "
            "as published; pass --operator-only to write it marked publishable: false.")

    if dataset is None and charge_epsilon(record, "edge") is not None:  # before connecting
        raise InvalidParameterError(
            "a DP release needs --dataset: a stable name of the source data, which its ε is "
            "charged to (a content hash would reset the budget whenever the data changes).")
    if dataset is not None:
        check_dataset_name(dataset, "neo4j write-release (--dataset)")
    if budget_total is not None:
        validate_budget(dataset or "-", budget_total)
    payload: dict[str, Any] = {}
    if graph_path:
        payload["graph"] = load_graph(graph_path, fmt)
    elif bipartite_path:
        payload["bipartite"] = load_bipartite(bipartite_path)
    elif masked_path:
        from ..io.masked import read_masked

        n_rows = (record.get("params") or {}).get("n")
        payload["masked"] = read_masked(masked_path,
                                        n_rows=n_rows if isinstance(n_rows, int) else None)
    else:
        assert table_path
        payload["statistics"] = read_dk_table(table_path)
    from ..privacy.publish import check_payload, published_view

    names = _props(publish, "--publish")
    given_path = next(p for p in (graph_path, bipartite_path, masked_path, table_path) if p)
    # before connecting: only what the record released, and exactly its payload
    check_payload(record, published_view(next(iter(payload.values())), record, names),
                  what=f"the payload {given_path!r}")
    with _driver(uri, password_file, database) as (drv, db), progress_bar() as bar:
        sink = Neo4jSink(drv, database=db, batch_size=batch_size, progress=bar)
        s = sink.write_release(record, release_id=release_id, dataset=dataset,
                               keep_ids=keep_ids, budget_total=budget_total,
                               operator_only=operator_only, replace=replace, publish=names,
                               **payload)
    if s.unchanged:
        echo(f"release {s.release_id} is already complete with this content: nothing "
             "written, nothing charged")
        return
    echo(f"release {s.release_id} complete: {s.n_nodes} nodes, {s.n_relationships} "
         f"relationships, {s.n_statistics} statistics; ε charged {s.epsilon_charged:g}"
         + (f" to {s.dataset}" if s.dataset and s.epsilon_charged else ""))


@neo4j.command("releases")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@_connection_options
def releases(as_json: bool, uri: str | None, password_file: str | None,
             database: str | None) -> None:
    """List the releases and the privacy-budget ledger."""
    from ..io.cypher import load
    from ..io.neo4j import Neo4jSink
    from ..reporting import to_jsonable

    with _driver(uri, password_file, database) as (drv, db):
        rel, bud = Neo4jSink(drv, database=db).releases()
    projectable = [r["release_id"] for r in rel if r.get("status") == "complete"
                   and r.get("kind") in ("graph", "bipartite", "masked")]
    example = projectable[-1] if projectable else None  # the newest complete one
    parameters = {"release_id": example or "<release id>",
                  "graph_name": f"graphanon-{example}" if example else "<graph name>"}
    query = load("gds_project_release")
    if as_json:
        click.echo(json.dumps(to_jsonable({
            "releases": rel, "budgets": bud,
            "gds_projection": {"query": query, "parameters": parameters}}), indent=2))
        return
    click.echo(f"{'release_id':<36} {'status':<9} {'kind':<10} {'mechanism':<24} epsilon")
    for r in rel:
        eps = "-" if r.get("epsilon") is None else f"{r['epsilon']:g}"
        click.echo(f"{r['release_id']!s:<36} {r['status']!s:<9} {r.get('kind')!s:<10} "
                   f"{r.get('mechanism')!s:<24} {eps}")
    click.echo("")
    click.echo(f"{'dataset':<36} {'neighbourhood':<13} {'spent':>8} {'total':>8} charges")
    for b in bud:
        click.echo(f"{b['dataset']!s:<36} {b.get('neighbourhood')!s:<13} "
                   f"{b['epsilon_spent']:>8g} {b['epsilon_total']:>8g} {b['charges']}")
    click.echo("")
    click.echo("Project a complete release into Graph Data Science (undirected, its current "
               "rows only), e.g. in cypher-shell:")
    for key, value in parameters.items():
        click.echo(f":param {key} => {json.dumps(value)};")
    click.echo(query + ";")


@neo4j.command("init")
@_connection_options
def init(uri: str | None, password_file: str | None, database: str | None) -> None:
    """Create the constraints and indexes releases rely on and wait until they are online
    (once per database, by a user with schema rights; otherwise the first write does it);
    releases written by earlier versions (rows without an attempt) are migrated."""
    from ..io.neo4j import Neo4jSink

    with _driver(uri, password_file, database) as (drv, db):
        sink = Neo4jSink(drv, database=db)
        sink.ensure_schema()
        migrated = sink.migrate_legacy_releases()
    echo(f"schema ready: {len(sink.index_names()) + 3} constraints and indexes online"
         + (f"; {migrated} release(s) of an earlier version migrated" if migrated else ""))


@neo4j.command("drop-release")
@click.argument("release_id")
@_connection_options
def drop_release(release_id: str, uri: str | None, password_file: str | None,
                 database: str | None) -> int:
    """Delete a release subgraph (the ε it spent stays spent). A writer still writing it
    stops at its next transaction."""
    from ..io.neo4j import Neo4jSink, validate_release_id

    validate_release_id(release_id)  # before connecting
    with _driver(uri, password_file, database) as (drv, db):
        found = Neo4jSink(drv, database=db).drop_release(release_id)
    if not found:
        raise InvalidParameterError(f"no release {release_id!r} in the database.")
    echo(f"dropped release {release_id}")
    return 0


@neo4j.command("budget")
@click.argument("dataset")
@click.option("--epsilon-total", type=FLOAT, required=True, help="Total ε of the dataset.")
@click.option("--neighbourhood", type=click.Choice(["edge", "node"]), default=None,
              help="The relation the budget is stated for, fixed when it is created "
                   "(default: edge for a new budget; an existing budget keeps its own and "
                   "a different one is refused).")
@_connection_options
def budget(dataset: str, epsilon_total: float, neighbourhood: str | None, uri: str | None,
           password_file: str | None, database: str | None) -> None:
    """Set the privacy budget (total ε) of a dataset in the Neo4j ledger, once.

    Stating the budget a dataset already has changes nothing; another one is refused:
    changing a budget is 'graphanon neo4j set-budget'.
    """
    from ..io.neo4j import Neo4jSink, validate_budget

    validate_budget(dataset, epsilon_total, neighbourhood)
    with _driver(uri, password_file, database) as (drv, db):
        b = Neo4jSink(drv, database=db).create_budget(dataset, epsilon_total,
                                                      neighbourhood=neighbourhood)
    if b.created:
        click.echo(f"created the budget of dataset {b.dataset!r} in the Neo4j ledger: "
                   f"ε={b.epsilon_total:g} ({b.neighbourhood}-DP)")
    else:
        echo(f"{b.dataset}: unchanged, spent {b.epsilon_spent:g} of {b.epsilon_total:g} "
             f"({b.neighbourhood}-DP)")


@neo4j.command("set-budget")
@click.argument("dataset")
@click.option("--epsilon-total", type=FLOAT, required=True, help="New total ε of the dataset.")
@_connection_options
def set_budget(dataset: str, epsilon_total: float, uri: str | None, password_file: str | None,
               database: str | None) -> None:
    """Change the privacy budget (total ε) of a dataset: an operator action the ledger logs."""
    from ..io.neo4j import Neo4jSink, validate_budget

    validate_budget(dataset, epsilon_total)
    with _driver(uri, password_file, database) as (drv, db):
        c = Neo4jSink(drv, database=db).set_budget(dataset, epsilon_total)
    click.echo(f"changed the budget of dataset {c.dataset!r} in the Neo4j ledger from "
               f"ε={c.epsilon_total_before:g} to ε={c.epsilon_total:g} (spent "
               f"{c.epsilon_spent:g}; logged as a PrivacyBudgetChange)")


# its --report is the input carrying the Release record, not an output
write_release.input_params = {"report_path"}  # type: ignore[attr-defined]

COMMANDS = [neo4j]
