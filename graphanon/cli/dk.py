"""``graphanon dk`` / ``release-dk`` / ``generate``: dK-series tables, private releases, graphs."""

from __future__ import annotations

import time
import warnings
from typing import Any

import click

from ..errors import InvalidParameterError
from ._console import echo, progress_bar, progress_task, wall_seconds
from ._inputs import load_graph, read_record, read_universe, refuse_skip_bad_rows
from ._outputs import bound, write_graph_output, write_json
from ._params import (
    EPSILON,
    FLOAT,
    FORMAT_CHOICE,
    OUT_FORMAT_CHOICE,
    distributed_options,
    ledger_options,
    nodes_option,
    noise_options,
)
from ._privacy import charge_on_commit, make_rng, open_ledger, resolve_noise

__all__ = ["COMMANDS", "dk", "generate", "release_dk_cmd"]


class _IntOrAuto(click.ParamType):  # type: ignore[type-arg]
    """An int, or the word ``auto`` (a bound chosen privately)."""

    name = "INT|auto"

    def convert(self, value: Any, param: Any, ctx: Any) -> int | str:
        if value == "auto":
            return "auto"
        try:
            return int(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not an int or 'auto'.", param, ctx)


INT_OR_AUTO = _IntOrAuto()


def _echo_warnings(caught: list[warnings.WarningMessage]) -> None:
    for w in caught:
        click.echo(f"graphanon: warning: {w.message}", err=True)


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


@click.command("release-dk")
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False))
@click.option("--d", "d", type=click.IntRange(1, 2), required=True, help="1 or 2.")
@click.option("--epsilon", type=EPSILON, required=True, help="Privacy budget ε > 0.")
@click.option("--privacy", type=click.Choice(["edge", "node"]), default="edge",
              show_default=True,
              help="Neighbouring relation. edge: one edge added or removed. node: one node "
                   "added or removed with all its edges (θ-dKε: project to degree ≤ θ first).")
@click.option("--max-degree", type=INT_OR_AUTO, default=None,
              help="edge: PUBLIC degree bound h (degrees above it are top-coded), never the "
                   "observed maximum; or 'auto' (with --nodes): the 95th percentile of a "
                   "private degree sequence, for 10% of ε. Without it, --nodes makes h = "
                   "|nodes| - 1 (with a warning); with neither the command is refused.")
@click.option("--theta", default=None,
              help="node: public degree bound θ of the projection, or 'auto' to choose it "
                   "privately (spends --select-fraction of ε). Default auto.")
@click.option("--projection", type=click.Choice(["ead", "ser"]), default="ead",
              show_default=True,
              help="node: edge-addition (audited) or the thesis's Stable-Edge-Removal (warns: "
                   "its cascades break the node sensitivity bound).")
@click.option("--select-fraction", type=FLOAT, default=None,
              help="node with --theta auto: share of ε spent on choosing θ. Default 0.1.")
@click.option("--microaggregation", type=click.Choice(["none", "mdav", "mpdc"]),
              default="none", show_default=True, help="dK-microaggregation (2K only).")
@click.option("--k", "k", type=int, default=None, help="MDAV-dK cluster size.")
@click.option("--tau", type=int, default=None, help="MPDC-dK box side τ.")
@click.option("--domain", type=click.Choice(["public", "observed"]), default="public",
              show_default=True,
              help="'observed' reproduces the thesis (noise only on observed tuples): "
                   "INSECURE, no privacy claim.")
@click.option("--sensitivity-rule", type=click.Choice(["tight", "thesis"]), default="tight",
              show_default=True, help="'thesis' = Lemma 5's loose (4h+1)·z.")
@click.option("--threshold", type=int, default=None,
              help="edge: PUBLIC threshold τ >= 1; only noisy answers >= τ are released. "
                   "Default: none for the dense form, ceil(scale·ln(domain cells)) for the "
                   "sampled form.")
@click.option("--form", "form", type=click.Choice(["auto", "dense", "sampled"]),
              default="auto", show_default=True,
              help="edge: 'dense' noises every domain cell; 'sampled' draws the thresholded "
                   "dense release in time O(non-zero cells + released cells), same "
                   "distribution; 'auto' = sampled above 10^6 domain cells without "
                   "microaggregation.")
@click.option("--edge-total", "edge_total", type=FLOAT, default=None,
              help="edge, 2K (dense): share of ε spent on a private edge count (sensitivity "
                   "1); the noisy cells are projected onto it, so the table's total is "
                   "near the true edge count. E.g. 0.1.")
@click.option("--graphical/--no-graphical", "graphical", default=None,
              help="edge, 2K (dense): post-process the noisy table into a graphical one "
                   "(integer class sizes, row sums k*n_k, cell capacities; with "
                   "--edge-total its total), which the 2K generator realizes exactly. "
                   "Default: on with --edge-total or --degree-sequence (h <= 2000).")
@click.option("--degree-sequence", "degree_sequence", type=FLOAT, default=None,
              help="edge, 2K (dense), needs --nodes: share of ε spent on Hay's degree "
                   "sequence (sensitivity 2); the class sizes come from it and the cells are "
                   "fitted to them (implies --graphical; with --max-degree auto the same "
                   "sequence gives the bound). E.g. 0.2.")
@noise_options
@nodes_option
@ledger_options
@click.option("--out", "out", type=click.Path(dir_okay=False), required=True,
              help="Released table (TSV).")
@click.option("--report", "report", type=click.Path(dir_okay=False), default=None,
              help="JSON report: Release record, l1/ks/euclidean vs the truth, n_clusters, sae.")
@click.option("--format", "fmt", type=FORMAT_CHOICE, help="Graph format (default: extension).")
def release_dk_cmd(input_path: str, d: int, epsilon: float, privacy: str,
                   max_degree: int | str | None, theta: str | None, projection: str,
                   select_fraction: float | None, microaggregation: str, k: int | None,
                   tau: int | None, domain: str, sensitivity_rule: str,
                   threshold: int | None, form: str, edge_total: float | None,
                   graphical: bool | None, degree_sequence: float | None, noise: str,
                   seed: int | None, nodes_path: str | None, ledger: str | None,
                   dataset: str | None, budget: float | None,
                   budget_neighbourhood: str | None, out: str, report: str | None,
                   fmt: str | None) -> None:
    """Release the 1K or 2K distribution of INPUT with ε-differential privacy.

    edge: noise goes on every cell of the public domain (degrees 0..h for 1K; every pair
    1 <= i <= j <= h for 2K), calibrated to the tight L1 sensitivity (4 for 1K, 4h-3 for 2K,
    also with microaggregation).

    node: θ-dKε. The graph is projected to maximum degree θ by edge addition in a stable
    (keyed-hash) order, then the 1K / 2K table of the projection gets noise calibrated to
    the node sensitivity of the projection composed with the statistic (2θ+1 for 1K,
    θ(2θ+1) for 2K), checked by brute-force node-neighbour audits.

    Edge-DP treats the node set as public; pass it with --nodes FILE. Without it the 1K
    table covers degrees 1..h (the count of degree-0 nodes would depend on which nodes
    exist) and --max-degree is required. Node-DP needs no universe (the node set itself is
    protected) and refuses --nodes.

    With --ledger FILE --dataset NAME the release is charged to the dataset's budget before
    any output is put in place (exit 3 when the budget is short).

    The report's l1/ks/euclidean/sae compare against the private input: they are for
    evaluation and are not private.
    """
    from ..dk.release import release_dk
    from ..io.dk_tables import write_dk_table

    nb, rng, used_seed = resolve_noise(noise, seed)
    if privacy == "node":
        from .nodedp import release_dk_node

        edge_only = {"--max-degree": max_degree is not None, "--k": k is not None,
                     "--tau": tau is not None, "--microaggregation": microaggregation != "none",
                     "--domain": domain != "public",
                     "--sensitivity-rule": sensitivity_rule != "tight",
                     "--threshold": threshold is not None, "--form": form != "auto",
                     "--edge-total": edge_total is not None,
                     "--graphical": graphical is not None,
                     "--degree-sequence": degree_sequence is not None,
                     "--nodes": nodes_path is not None}
        used = [name for name, given in edge_only.items() if given]
        if used:
            raise InvalidParameterError(
                f"The option(s) {', '.join(used)} apply to --privacy edge only; node-DP "
                "releases take --theta, --projection and --select-fraction (and no --nodes: "
                "under node-DP the node set itself is private).")
        if theta is not None and theta != "auto" and select_fraction is not None:
            raise InvalidParameterError(
                f"The '--select-fraction' option applies to --theta auto (θ chosen "
                f"privately); with the public bound --theta {theta!r} no ε is spent on θ.")
        acc = open_ledger(ledger, dataset, budget, budget_neighbourhood, neighbourhood="node",
                          epsilon=epsilon if projection == "ead" else None)
        release_dk_node(input_path, d=d, epsilon=epsilon,
                        theta="auto" if theta is None else theta, projection=projection,
                        select_fraction=select_fraction,
                        backend=nb,
                        rng=rng, seed=used_seed, out=out, report=report, fmt=fmt,
                        accountant=acc)
        return
    node_only = {"--theta": theta is not None, "--projection": projection != "ead",
                 "--select-fraction": select_fraction is not None}
    used = [name for name, given in node_only.items() if given]
    if used:
        raise InvalidParameterError(
            f"The option(s) {', '.join(used)} apply to --privacy node only; edge-DP uses "
            "--max-degree.")
    if k is not None and microaggregation != "mdav":
        raise InvalidParameterError("The '--k' option applies to --microaggregation mdav.")
    if tau is not None and microaggregation != "mpdc":
        raise InvalidParameterError("The '--tau' option applies to --microaggregation mpdc.")
    if max_degree == "auto" and nodes_path is None:
        raise InvalidParameterError(
            "The '--max-degree' option can be 'auto' only with the public node set (--nodes "
            "FILE): the bound is read off a private degree sequence with one degree per "
            "node.")
    if max_degree == "auto" and (domain, sensitivity_rule) != ("public", "tight"):
        raise InvalidParameterError(
            "The '--max-degree auto' choice applies to the secure release (--domain public, "
            "--sensitivity-rule tight), not to the thesis's variants.")
    if max_degree is None and nodes_path is None:
        raise InvalidParameterError(
            "release-dk --privacy edge needs a public degree bound (--max-degree H) or the "
            "public node set (--nodes FILE, which makes H = |nodes| - 1 public): the default "
            "n - 1 would read the node count off the private input.")
    if degree_sequence is not None and nodes_path is None:
        raise InvalidParameterError(
            f"The '--degree-sequence' option ({degree_sequence:g}) needs the public node set "
            "(--nodes FILE): the released sequence has one degree per node.")
    for opt, given in (("--graphical", graphical is not None),
                       ("--degree-sequence", degree_sequence is not None)):
        if given and (domain, sensitivity_rule) != ("public", "tight"):
            raise InvalidParameterError(
                f"The '{opt}' option applies to the secure release (--domain public, "
                "--sensitivity-rule tight), not to the thesis's variants.")
    if edge_total is not None and (domain, sensitivity_rule) != ("public", "tight"):
        raise InvalidParameterError(
            "The '--edge-total' option applies to the secure release (--domain public, "
            "--sensitivity-rule tight), not to the thesis's variants.")
    if domain == "observed" and ledger is not None:
        raise InvalidParameterError(
            "The '--ledger' option charges a differentially private release; --domain "
            "observed (the thesis's variant) is NOT differentially private and carries no ε "
            "to charge: drop --ledger, or use --domain public.")
    acc = open_ledger(ledger, dataset, budget, budget_neighbourhood, neighbourhood="edge",
                      epsilon=epsilon if domain == "public" else None)
    nodes = read_universe(nodes_path, "node")
    with progress_task(f"reading {input_path}"):
        G = load_graph(input_path, fmt)
    with warnings.catch_warnings(record=True) as caught, progress_task(f"edge-DP {d}K release"):
        warnings.simplefilter("always")
        common: dict[str, Any] = dict(
            d=d, epsilon=epsilon, max_degree=max_degree, microaggregation=microaggregation,
            k=k, tau=tau, privacy=privacy, threshold=threshold, form=form, nodes=nodes,
            backend=nb, rng=rng, seed=used_seed)
        if domain == "public" and sensitivity_rule == "tight":
            rel = release_dk(G, **common, edge_total=edge_total, graphical=graphical,
                             degree_sequence=degree_sequence)
        else:  # the thesis's own variants (graphanon.reproduce)
            from ..reproduce.dk_thesis import release_dk_thesis

            rel = release_dk_thesis(G, domain=domain, sensitivity_rule=sensitivity_rule,
                                    **common)
    _echo_warnings(caught)
    with progress_task(f"writing {out}"):
        write_dk_table(rel.distribution, out)
    payload = rel.to_dict()
    release = bound(payload, rel.release, rel.distribution)
    if report is not None:
        write_json(report, payload)
    charge_on_commit(acc, release)
    ev = rel.evaluation
    claim = (f"ε={epsilon:g} ({rel.neighbourhood})" if rel.neighbourhood != "none"
             else "NOT differentially private (a paper's variant)")
    echo(f"{out}: {rel.mechanism} {claim}, sensitivity "
         f"{rel.sensitivity:g}, h={rel.max_degree}, {rel.n_clusters} noisy answers"
         f"{_form_note(rel)}; "
         f"L1 {ev['l1']:.0f}, euclidean {ev['euclidean']:.1f} vs truth (not private)")


def _form_note(rel: Any) -> str:
    p = rel.release.params
    if p.get("form") == "sampled":
        return f" (sampled form, threshold {p['threshold']}, {rel.distribution.n_tuples} kept)"
    return f" (threshold {p['threshold']})" if p.get("threshold") is not None else ""


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


COMMANDS = [dk, release_dk_cmd, generate]
