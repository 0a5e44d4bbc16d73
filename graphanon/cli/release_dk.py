"""``graphanon release-dk``: a 1K / 2K table under edge-DP (:func:`graphanon.dk.release_dk`)
or node-DP (θ-dKε, :func:`graphanon.nodedp.theta_dk_release`).

Glue only. Its options are generated from the two functions' parameter specs
(:data:`RELEASE_DK_CLI`); a module of its own, so that ``dk`` and ``generate`` start without
the release's imports.
"""

from __future__ import annotations

import warnings
from typing import Any

import click

from ..errors import InvalidParameterError
from ..nodedp.theta_dk import RELEASE_DK_EITHER
from ._console import echo, progress_task
from ._inputs import load_graph, read_universe
from ._outputs import bound, write_json
from ._params import FORMAT_CHOICE, ledger_options, nodes_option, noise_options
from ._privacy import charge_on_commit, open_ledger, resolve_noise
from ._spec import options_from, spec_values

__all__ = ["COMMANDS", "COMMAND_SPECS", "RELEASE_DK_CLI", "release_dk_cmd"]

#: ``release-dk``'s parameters (:data:`graphanon.nodedp.theta_dk.RELEASE_DK_EITHER`, shared
#: with the job step): release_dk's under ``--neighbourhood edge``, theta_dk_release's under
#: ``--neighbourhood node``.
RELEASE_DK_CLI = RELEASE_DK_EITHER


def _echo_warnings(caught: list[warnings.WarningMessage]) -> None:
    for w in caught:
        click.echo(f"graphanon: warning: {w.message}", err=True)


@click.command("release-dk")
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False))
@options_from(RELEASE_DK_CLI)  # declared with release_dk and theta_dk_release
# the paper reproductions' option values (graphanon.reproduce), not parameters of the secure
# functions:
@click.option("--projection", type=click.Choice(["ead", "ser"]), default="ead",
              show_default=True,
              help="node: edge-addition (audited) or the thesis's Stable-Edge-Removal (warns: "
                   "its cascades break the node sensitivity bound).")
@click.option("--domain", type=click.Choice(["public", "observed"]), default="public",
              show_default=True,
              help="'observed' reproduces the thesis (noise only on observed tuples): "
                   "INSECURE, no privacy claim.")
@click.option("--sensitivity-rule", type=click.Choice(["tight", "thesis"]), default="tight",
              show_default=True, help="'thesis' = Lemma 5's loose (4h+1)·z.")
@noise_options
@nodes_option
@ledger_options
@click.option("--out", "out", type=click.Path(dir_okay=False), required=True,
              help="Released table (TSV).")
@click.option("--report", "report", type=click.Path(dir_okay=False), default=None,
              help="JSON report: Release record, l1/ks/euclidean vs the truth, n_clusters, sae.")
@click.option("--format", "fmt", type=FORMAT_CHOICE, help="Graph format (default: extension).")
def release_dk_cmd(input_path: str, d: int, epsilon: float, neighbourhood: str | None,
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

    values = spec_values(RELEASE_DK_CLI, dict(
        neighbourhood=neighbourhood, d=d, epsilon=epsilon, max_degree=max_degree, theta=theta,
        select_fraction=select_fraction, microaggregation=microaggregation, k=k, tau=tau,
        threshold=threshold, form=form, edge_total=edge_total, graphical=graphical,
        degree_sequence=degree_sequence))
    nb, rng, used_seed = resolve_noise(noise, seed)
    privacy = values["neighbourhood"]
    if privacy == "node":
        from .nodedp import release_dk_node

        edge_only = {"--domain": domain != "public",
                     "--sensitivity-rule": sensitivity_rule != "tight",
                     "--nodes": nodes_path is not None}
        used = [name for name, given in edge_only.items() if given]
        if used:
            raise InvalidParameterError(
                f"The option(s) {', '.join(used)} apply to --neighbourhood edge only; node-DP "
                "releases take --theta, --projection and --select-fraction (and no --nodes: "
                "under node-DP the node set itself is private).")
        acc = open_ledger(ledger, dataset, budget, budget_neighbourhood, neighbourhood="node",
                          epsilon=epsilon if projection == "ead" else None)
        release_dk_node(input_path, d=d, epsilon=epsilon, theta=values["theta"],
                        projection=projection, select_fraction=select_fraction,
                        backend=nb, rng=rng, seed=used_seed, out=out, report=report, fmt=fmt,
                        accountant=acc)
        return
    if projection != "ead":
        raise InvalidParameterError(
            "The option(s) --projection apply to --neighbourhood node only; edge-DP uses "
            "--max-degree.")
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
            "release-dk --neighbourhood edge needs a public degree bound (--max-degree H) or the "
            "public node set (--nodes FILE, which makes H = |nodes| - 1 public): the default "
            "n - 1 would read the node count off the private input.")
    if degree_sequence is not None and nodes_path is None:
        raise InvalidParameterError(
            f"The '--degree-sequence' option ({degree_sequence:g}) needs the public node set "
            "(--nodes FILE): the released sequence has one degree per node.")
    for opt, given in (("--graphical", graphical is not None),
                       ("--degree-sequence", degree_sequence is not None),
                       ("--edge-total", edge_total is not None)):
        if given and (domain, sensitivity_rule) != ("public", "tight"):
            raise InvalidParameterError(
                f"The '{opt}' option applies to the secure release (--domain public, "
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
            d=d, epsilon=epsilon, max_degree=max_degree,
            microaggregation=values["microaggregation"], k=k, tau=tau, neighbourhood=privacy,
            threshold=threshold, form=values["form"], nodes=nodes, backend=nb, rng=rng,
            seed=used_seed)
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


COMMANDS = [release_dk_cmd]

#: Commands whose options come from a spec other than their registry row's (one command over
#: two functions); ``tests/test_param_specs.py`` checks them against both.
COMMAND_SPECS = {"release-dk": RELEASE_DK_CLI}
