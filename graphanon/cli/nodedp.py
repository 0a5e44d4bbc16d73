"""``graphanon project`` / ``graphanon release-degrees`` and the node-DP part of ``release-dk``.

Glue only: the algorithms live in :mod:`graphanon.nodedp` (:mod:`~graphanon.nodedp.projection`,
:mod:`~graphanon.nodedp.theta_dk`, :mod:`~graphanon.nodedp.degree_sequences`).
:func:`release_dk_node` is the implementation behind ``graphanon release-dk --neighbourhood node``
(the ``release-dk`` command itself is defined by the dK module and calls it).
"""

from __future__ import annotations

import warnings
from typing import Any

import click

from ..nodedp.degree_sequences import RELEASE_DEGREES
from ..nodedp.projection import PROJECT
from ..privacy.release import NOT_PRIVATE_NOTE
from ._console import echo, progress_bar, progress_task
from ._inputs import load_graph, read_universe
from ._outputs import bound, write_graph_output, write_json
from ._params import (
    FORMAT_CHOICE,
    OUT_FORMAT_CHOICE,
    ledger_options,
    nodes_option,
    noise_options,
)
from ._privacy import charge_on_commit, make_rng, open_ledger, resolve_noise
from ._spec import options_from, spec_values

__all__ = ["COMMANDS", "release_dk_node"]


@click.command("project")
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False))
@options_from(PROJECT)  # --theta, --method, --order: declared with the function
@click.option("--seed", type=int, default=None, help="Ordering key seed (default: random).")
@click.option("--out", required=True, type=click.Path(dir_okay=False),
              help="Projected graph (format from the extension, or --out-format).")
@click.option("--report", type=click.Path(dir_okay=False), help="JSON report.")
@click.option("--format", "fmt", type=FORMAT_CHOICE,
              help="Input format (default: extension).")
@click.option("--out-format", type=OUT_FORMAT_CHOICE,
              help="Output format (default: extension).")
def project_cmd(input_path: str, theta: int, method: str, order: str | None, seed: int | None,
                out: str, report: str | None, fmt: str | None, out_format: str | None) -> None:
    """Project INPUT to maximum degree θ (no privacy by itself: a preprocessing step)."""
    from ..io.files import graph_output_format
    from ..metrics import describe_graph
    from ..nodedp.projection import project

    values = spec_values(PROJECT, {"theta": theta, "method": method, "order": order})
    out_format = graph_output_format(out, out_format)
    with progress_task(f"reading {input_path}"):
        G = load_graph(input_path, fmt)
    rng = make_rng(seed)[0]
    with warnings.catch_warnings(record=True) as caught, progress_bar() as bar:
        warnings.simplefilter("always")
        P = project(G, **values, rng=rng, progress=bar)
    for w in caught:
        click.echo(f"graphanon: warning: {w.message}", err=True)
    del G
    with progress_task(f"writing {out}"):
        write_graph_output(P.graph, out, out_format)
    payload: dict[str, Any] = {
        "input": input_path, "method": P.method, "order": P.order, "theta": P.theta,
        "key": P.key, "n_edges_before": P.n_edges_before, "n_edges_after": P.n_edges_after,
        "preserved_edge_ratio": P.preserved_edge_ratio, "seconds": P.seconds,
    }
    if report:
        with progress_task("statistics of the projection"):
            payload["projected"] = describe_graph(P.graph)
        write_json(report, payload)
    echo(f"{method} θ={theta}: kept {P.n_edges_after}/{P.n_edges_before} edges "
         f"({P.preserved_edge_ratio:.3f}) -> {out}")


def release_dk_node(input_path: str, *, d: int, epsilon: float, theta: int | str,
                    projection: str = "ead", select_fraction: float | None = None,
                    backend: Any = None, rng: Any = None,
                    seed: int | None = None, out: str, report: str | None = None,
                    fmt: str | None = None, accountant: Any = None) -> dict[str, Any]:
    """Implementation of ``graphanon release-dk --neighbourhood node`` (θ-dKε).

    Reads INPUT, runs :func:`~graphanon.nodedp.theta_dk.theta_dk_release`, writes the released
    table in the dK table format (as ``release-dk --neighbourhood edge`` does) to ``out`` and the
    Release record, θ and the utility against the unprojected truth (not private) to
    ``report`` (with the wall-clock ``seconds``; the preserved edge ratio ``|E^θ|/|E|`` is
    computed from the private graph and so sits under ``not_private``).
    ``theta`` is a positive int or ``"auto"`` (private selection with
    ``select_fraction · ε``).
    """
    from ..errors import InvalidParameterError
    from ..io.dk_tables import write_dk_table
    from ..nodedp.theta_dk import dk_utility, theta_dk_release

    if theta == "auto":
        th: int | str = "auto"
    else:
        try:
            th = int(theta)
        except (TypeError, ValueError):
            th = 0
        if th < 1:
            raise InvalidParameterError(
                f"The '--theta' option must be a positive int or 'auto'. Got {theta!r}.")
    with progress_task(f"reading {input_path}"):
        G = load_graph(input_path, fmt)
    with warnings.catch_warnings(record=True) as caught, progress_bar() as bar:
        warnings.simplefilter("always")
        if projection == "ead":
            rel = theta_dk_release(G, d=d, epsilon=epsilon, theta=th,
                                   select_fraction=select_fraction, backend=backend, rng=rng,
                                   seed=seed, progress=bar)
        else:  # the thesis's SER release (graphanon.reproduce): claims no privacy
            from ..reproduce.node_dp_thesis import theta_dk_release_ser

            rel = theta_dk_release_ser(G, d=d, epsilon=epsilon, theta=th,
                                       projection=projection, backend=backend, rng=rng,
                                       seed=seed, progress=bar)
    for w in caught:
        click.echo(f"graphanon: warning: {w.message}", err=True)
    # the preserved edge ratio |E^θ|/|E| is computed from the private graph: evaluation only
    with progress_task("utility against the input (not private)"):
        utility = {**dk_utility(G, rel), "preserved_edge_ratio": rel.preserved_edge_ratio}
    payload = {"release": rel.release.to_dict(), "theta": rel.theta, "d": d,
               "n_rows": rel.table.n_tuples,
               "not_private": {"note": NOT_PRIVATE_NOTE, "seconds": rel.seconds, **utility}}
    release = bound(payload, rel.release, rel.table)
    with progress_task(f"writing {out}"):
        write_dk_table(rel.table, out)
    if report:
        write_json(report, payload)
    charge_on_commit(accountant, release)
    echo(f"{out}: θ-dKε node-DP ε={epsilon:g}, θ={rel.theta}, sensitivity "
         f"{rel.release.sensitivity:g}; L1 {utility.get('l1', float('nan')):.0f} vs truth "
         "(not private)")
    return payload


@click.command("release-degrees")
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False))
@options_from(RELEASE_DEGREES)  # declared with the three functions (degree_sequences.py)
# the RPS seed's summarization (graphanon.reproduce.rps_seed), not a secure parameter:
@click.option("--counts", "rps_counts", type=click.Choice(["partition", "cauchy"]),
              default=None,
              help="RPS: region counts from the public split targets, or the seed's "
                   "smooth-sensitivity Cauchy counts.")
@click.option("--summary", type=click.Choice(["interpolate", "lower"]), default=None,
              help="RPS: spread a region's nodes along the quantile line, or put them at its "
                   "lower boundary (the seed's rule).")
@noise_options
@nodes_option
@ledger_options
@click.option("--out", required=True, type=click.Path(dir_okay=False),
              help="Released degree histogram as a 1K dK table (TSV: degree1<TAB>count).")
@click.option("--report", type=click.Path(dir_okay=False), help="JSON report.")
def release_degrees(input_path: str, method: str, epsilon: float, max_degree: int | None,
                    max_nodes: int | None, count_theta: int | None, theta: int | None,
                    depth: int | None,
                    rps_counts: str | None, summary: str | None, noise: str, seed: int | None,
                    nodes_path: str | None, ledger: str | None, dataset: str | None,
                    budget: float | None, budget_neighbourhood: str | None, out: str,
                    report: str | None) -> None:
    """Release a differentially private degree sequence of INPUT.

    rps and laplace are node-DP over the nodes with an edge (no --nodes: the node set
    itself is private, and an edge list cannot hold an isolated node); hay is edge-DP and
    releases one degree per node, so it needs the public node set (--nodes).
    """
    from ..errors import InvalidParameterError
    from ..io.dk_tables import write_dk_table
    from ..nodedp.degree_sequences import (
        hay_degree_sequence,
        laplace_degree_sequence,
        rps_degree_sequence,
    )

    values = spec_values(RELEASE_DEGREES, dict(
        method=method, epsilon=epsilon, max_degree=max_degree, max_nodes=max_nodes,
        count_theta=count_theta, theta=theta, depth=depth))
    misplaced = [f"{opt} (for --method rps)" for opt, v in (("--counts", rps_counts),
                                                           ("--summary", summary))
                 if v is not None and method != "rps"]
    if nodes_path is not None and method != "hay":
        misplaced.append("--nodes (for --method hay; node-DP protects the node set itself)")
    if count_theta is not None and max_nodes is not None:
        misplaced.append("--count-theta (for an estimated node count; --max-nodes gives it)")
    if misplaced:
        raise InvalidParameterError(
            f"The option(s) {', '.join(misplaced)} do not apply to --method {method}"
            + (" with --max-nodes." if method == "rps" and max_nodes is not None else "."))
    if method == "hay" and nodes_path is None:
        raise InvalidParameterError(
            "release-degrees --method hay (edge-DP) releases one degree per node: it needs the "
            "public node set (--nodes FILE); reading it off the edges would leak it.")
    acc = open_ledger(ledger, dataset, budget, budget_neighbourhood,
                      neighbourhood="edge" if method == "hay" else "node", epsilon=epsilon)
    nodes = read_universe(nodes_path, "node")
    G = load_graph(input_path)
    backend, rng, used_seed = resolve_noise(noise, seed)
    kw: dict[str, Any] = {"backend": backend, "rng": rng, "seed": used_seed}
    rps_kw: dict[str, Any] = {k: values[k] for k in
                              ("epsilon", "max_degree", "max_nodes", "depth", "count_theta")}
    if method == "rps" and (rps_counts or "partition", summary or "interpolate") == (
            "partition", "interpolate"):
        rel = rps_degree_sequence(G, **rps_kw, **kw)
    elif method == "rps":  # the seed's summarization (graphanon.reproduce): node-DP, looser
        from ..reproduce.rps_seed import rps_degree_sequence_seed

        rel = rps_degree_sequence_seed(G, **rps_kw, counts=rps_counts or "partition",
                                       summary=summary or "interpolate", **kw)
    elif method == "laplace":
        rel = laplace_degree_sequence(G, epsilon=epsilon, theta=values["theta"], **kw)
    else:
        rel = hay_degree_sequence(G, epsilon=epsilon, nodes=nodes, **kw)
    payload = {"release": rel.release.to_dict(), "method": method,
               "n_released": int(rel.degrees.size),
               "not_private": {"note": NOT_PRIVATE_NOTE, "seconds": rel.seconds}}
    # a 1K dK table, so it can be written to Neo4j (neo4j write-release --table) or fed to
    # generate like any other released statistic; both writes are atomic
    table = rel.histogram()
    release = bound(payload, rel.release, table)
    write_dk_table(table, out)
    if report:
        write_json(report, payload)
    charge_on_commit(acc, release)
    echo(f"{method}: released {rel.degrees.size} degrees (ε={epsilon}, "
         f"{rel.release.neighbourhood}-DP) -> {out}")


COMMANDS = [project_cmd, release_degrees]
