"""``graphanon release-personalized``: 1K / 2K under edge- or node-personalized DP (glue only)."""

from __future__ import annotations

import warnings
from typing import Any

import click

from ..dk.personalized import PERSONALIZED
from ..errors import InvalidParameterError
from ._console import echo
from ._inputs import load_graph, read_universe
from ._outputs import bound, write_json
from ._params import EPSILON, ledger_options, nodes_option, noise_options
from ._privacy import charge_on_commit, open_ledger, resolve_noise
from ._spec import options_from, spec_values

__all__ = ["COMMANDS"]


@click.command("release-personalized")
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False))
@options_from(PERSONALIZED)  # --d ... --k: declared with the function
@click.option("--prefs", "prefs_path", type=click.Path(dir_okay=False), default=None,
              help="Preference table: node<TAB>epsilon (public).")
@click.option("--prefs-scheme", type=click.Choice(["thesis"]), default=None,
              help="Generate preferences: conservative/moderate/liberal (thesis §8.5.1).")
@click.option("--prefs-attribute", default=None,
              help="Read preferences from this node attribute of INPUT.")
@click.option("--default-epsilon", type=EPSILON, default=None,
              help="ε of nodes without a preference (default: the smallest listed ε).")
@click.option("--calibration", type=click.Choice(["strict", "thesis"]), default="strict",
              show_default=True,
              help="strict: audited; thesis: chapter 8 as written (warns, no guarantee).")
@noise_options
@nodes_option
@ledger_options
@click.option("--out", required=True, type=click.Path(dir_okay=False),
              help="TSV: degree<TAB>count (1K) or deg1<TAB>deg2<TAB>count (2K).")
@click.option("--report", type=click.Path(dir_okay=False), help="JSON report.")
def release_personalized_cmd(input_path: str, d: int, neighbourhood: str | None, method: str,
                             prefs_path: str | None, prefs_scheme: str | None,
                             prefs_attribute: str | None, default_epsilon: float | None,
                             theta: int | None, mu: float | str | None, k: int | None,
                             calibration: str,
                             noise: str, seed: int | None, nodes_path: str | None,
                             ledger: str | None, dataset: str | None, budget: float | None,
                             budget_neighbourhood: str | None, out: str,
                             report: str | None) -> None:
    """Release the 1K/2K distribution of INPUT where every node has its own ε.

    Edge-PDP needs the public node set (--nodes FILE); node-PDP refuses it. With --ledger
    the release is charged its largest per-node ε.
    """
    from ..dk.personalized import release_personalized
    from ..dk.preferences import from_attribute, thesis_scheme
    from ..io.dk_tables import write_dk_table

    values = spec_values(PERSONALIZED, {"d": d, "neighbourhood": neighbourhood,
                                        "method": method, "theta": theta, "mu": mu, "k": k})
    privacy = values["neighbourhood"]
    given = [x for x in (prefs_path, prefs_scheme, prefs_attribute) if x is not None]
    if len(given) != 1:
        raise InvalidParameterError(
            "Give exactly one of --prefs FILE, --prefs-scheme thesis or --prefs-attribute NAME.")
    if privacy == "node" and prefs_path is None:
        raise InvalidParameterError(
            "Under --neighbourhood node the preference table must be public and independent of "
            "which nodes are present: pass --prefs FILE. --prefs-scheme and --prefs-attribute "
            "derive it from the private node set.")
    if privacy == "edge" and nodes_path is None:
        raise InvalidParameterError(
            "release-personalized --neighbourhood edge needs the public node set (--nodes FILE): "
            "edge-PDP treats it as public, and an edge list cannot say which nodes exist.")
    if privacy == "node" and nodes_path is not None:
        raise InvalidParameterError(
            "The '--nodes' option applies to --neighbourhood edge; under node-PDP the node set "
            "itself is private.")
    acc = open_ledger(ledger, dataset, budget, budget_neighbourhood, neighbourhood=privacy)
    nodes = read_universe(nodes_path, "node")
    G = load_graph(input_path)
    backend, rng, used_seed = resolve_noise(noise, seed)
    if prefs_path is not None:
        from ..io.preferences import read_preferences

        prefs = read_preferences(prefs_path, default=default_epsilon)
    elif prefs_attribute is not None:
        prefs = from_attribute(G, prefs_attribute, default=default_epsilon)
    else:
        prefs = thesis_scheme(nodes, rng=rng)  # over the public universe, seeded by --seed
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        common: dict[str, Any] = dict(d=int(d), neighbourhood=privacy, method=method, theta=theta,
                                      mu=mu, k=k, nodes=nodes, backend=backend, rng=rng,
                                      seed=used_seed)
        if calibration == "strict":
            rel = release_personalized(G, prefs, **common)
        else:  # chapter 8 as written (graphanon.reproduce): claims no privacy
            from ..reproduce.personalized_thesis import release_personalized_thesis

            rel = release_personalized_thesis(G, prefs, **common)
    for w in caught:
        click.echo(f"graphanon: warning: {w.message}", err=True)
    write_dk_table(rel.table, out)
    payload = rel.to_dict()
    release = bound(payload, rel.release, rel.table)
    if report:
        write_json(report, payload)
    charge_on_commit(acc, release)
    s = rel.release.epsilon_summary
    claim = ("no privacy claim (thesis calibration)" if s is None else
             f"per-node ε in [{s['min']:.3g}, {s['max']:.3g}]")
    echo(f"{rel.release.mechanism}: {rel.table.n_tuples} rows, {claim} -> {out}")


COMMANDS = [release_personalized_cmd]
