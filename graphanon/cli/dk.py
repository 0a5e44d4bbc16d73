"""``graphanon dk`` / ``generate``: dK-series tables and the graphs that realize them."""

from __future__ import annotations

import time
from typing import Any

import click

from ..errors import InvalidParameterError
from ._console import echo, progress_bar, progress_task, wall_seconds
from ._inputs import load_graph, read_record, refuse_skip_bad_rows
from ._outputs import write_graph_output, write_json
from ._params import (
    FORMAT_CHOICE,
    OUT_FORMAT_CHOICE,
    distributed_options,
)
from ._privacy import make_rng

__all__ = ["COMMANDS", "dk", "generate"]


@click.command("dk")
@click.argument("input_path", metavar="INPUT", type=click.Path())
@click.option("--d", "d", type=click.IntRange(1, 3), required=True,
              help="1 degree histogram, 2 joint degrees, 3 wedges and triangles.")
@click.option("--out", "out", type=click.Path(dir_okay=False), required=True,
              help="Output TSV: one row per degree tuple, degree columns then count.")
@click.option("--format", "fmt", type=FORMAT_CHOICE, help="Graph format (default: extension).")
@distributed_options
def dk(input_path: str, d: int, out: str, fmt: str | None, scheduler: str | None,
       cluster: str | None) -> None:
    """Extract the exact dK distribution of INPUT (no privacy: the true statistic).

    With --scheduler or --cluster, INPUT is a folder of Parquet parts (source, target) and
    the 1K / 2K / 3K tables are computed on the Dask cluster (identical to the
    in-memory tables).
    """
    from ..io.dk_tables import write_dk_table

    if scheduler or cluster:
        from ._distributed import dk_on_cluster

        dist = dk_on_cluster(input_path, d, scheduler=scheduler, cluster=cluster)
    else:
        from ..dk import dk_distribution

        with progress_task(f"reading {input_path}"):
            G = load_graph(input_path, fmt)
        if d == 3:  # streamed to the file in partitions by centre degree (bounded memory)
            _write_3k_stream(G, out)
            return
        with progress_bar() as bar:
            dist = dk_distribution(G, d, progress=bar)
        del G
    with progress_task(f"writing {out}"):
        write_dk_table(dist, out)
    echo(f"{out}: {dist.n_tuples} distinct {d}K tuples ({wall_seconds():.1f} s)")


def _write_3k_stream(G: Any, out: str) -> None:
    """``dk --d 3`` in memory: the size bound first, then the partitions of
    :func:`graphanon.dk.extract.iter_three_k` written as they come."""
    from ..dk.extract import iter_three_k, three_k_rows_bound
    from ..io.dk_tables import write_3k_chunks

    bound = three_k_rows_bound(G)
    # a 3K row is about 20 bytes of text; the bound can be far above the real count
    echo(f"3K of {G.n_nodes:,} nodes and {G.n_edges:,} edges: at most {bound:,} rows "
         f"(at most about {bound * 20 / 1e9:.3g} GB of text); writing them as they come")
    with progress_bar() as bar:
        wedges, triangles = write_3k_chunks(iter_three_k(G, progress=bar), out)
    echo(f"{out}: {wedges + triangles} distinct 3K tuples ({wedges} wedge, {triangles} "
         f"triangle rows; {wall_seconds():.1f} s)")


@click.command("generate")
@click.argument("table", metavar="TABLE.tsv", type=click.Path(dir_okay=False))
@click.option("--d", "d", type=click.IntRange(1, 2), required=True, help="1 or 2.")
@click.option("--seed", type=int, default=None, help="Seed of the construction.")
@click.option("--out", "out", type=click.Path(dir_okay=False), required=True,
              help="Output graph (format from the extension, .txt = edge list, or "
                   "--out-format).")
@click.option("--out-format", type=OUT_FORMAT_CHOICE, help="Output format (default: extension).")
@click.option("--report", "report", type=click.Path(dir_okay=False), default=None,
              help="JSON: method, exactness and deviation from the target; with "
                   "--parent-report also the graph's own Release record.")
@click.option("--parent-report", "parent_report", type=click.Path(dir_okay=False),
              default=None,
              help="The report of the release that published TABLE (release-dk, ...): the "
                   "table must be exactly its payload, and --report then holds the graph's "
                   "own record, naming that release as its parent (the graph can then be "
                   "written with neo4j write-release).")
def generate(table: str, d: int, seed: int | None, out: str, out_format: str | None,
             report: str | None, parent_report: str | None) -> None:
    """Generate a simple graph realizing a 1K or 2K table (e.g. a release-dk output)."""
    from ..dk.extract import DKDistribution
    from ..dk.generate import dk_graph
    from ..io.dk_tables import read_dk_table
    from ..io.files import graph_output_format

    out_format = graph_output_format(out, out_format)
    refuse_skip_bad_rows(f"the dK table {table!r}")
    with progress_task(f"reading {table}"):
        dist = read_dk_table(table)
    want = {1: "degree", 2: "joint_degree"}[d]
    if not isinstance(dist, DKDistribution) or dist.kind != want:
        got = "3k" if not isinstance(dist, DKDistribution) else dist.kind
        raise InvalidParameterError(
            f"The '--d' option is {d} but {table} holds a {got} table (need {want}).")
    import numpy as np

    values = np.asarray(dist.counts)
    bad = np.flatnonzero((values < 0) | (values != np.round(values)))
    if bad.size:
        key = dist.degrees[bad[0]].tolist()
        raise InvalidParameterError(
            f"{table!r}: the count of degree{'' if d == 1 else 's'} "
            f"{key[0] if d == 1 else tuple(key)} is {values[bad[0]]:g}; generate needs "
            "non-negative integer counts (post-process a noisy release first: release-dk "
            "writes post-processed tables).")
    parent = None
    if parent_report is not None:
        from ..privacy.publish import check_payload

        if report is None:
            raise InvalidParameterError(
                "The '--parent-report' option needs '--report' (where the graph's own record "
                "goes).")
        parent = read_record(parent_report)
        check_payload(parent, dist, what=f"the table {table!r}")
    rng, used_seed = make_rng(seed)
    t0 = time.perf_counter()
    with progress_bar() as bar:
        S = dk_graph(dist, rng=rng, progress=bar)
    with progress_task(f"writing {out}"):
        write_graph_output(S.graph, out, out_format)
    payload: dict[str, Any] = {"d": d, "method": S.method, "exact": S.exact,
                               "deviation": S.deviation, "nodes": S.graph.n_nodes,
                               "edges": S.graph.n_edges, "seed": used_seed,
                               "seconds": time.perf_counter() - t0}
    if parent is not None:  # the graph's own record: post-processing of the parent release
        from ..privacy.publish import derived_release

        payload = {"release": derived_release(
            parent, S.graph, mechanism="generate", params={"d": d, "method": S.method},
            seed=used_seed).to_dict(), **payload}
    if report is not None:
        write_json(report, payload)
    dev = ", ".join(f"{k} {v:g}" for k, v in S.deviation.items())
    echo(f"{out}: {S.graph.n_nodes} nodes, {S.graph.n_edges} edges ({S.method}; "
         f"{'exact' if S.exact else 'target not realizable: ' + dev}); seed {used_seed}")


COMMANDS = [dk, generate]
