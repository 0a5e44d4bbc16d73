"""``graphanon randomized-response``: the randomized-response baseline on a bipartite list."""

from __future__ import annotations

import dataclasses

import click

from ..anonymity.randomized_response import RANDOMIZED_RESPONSE
from ..errors import InvalidParameterError
from ..privacy.release import NOT_PRIVATE_NOTE
from ._console import echo, progress_bar
from ._inputs import load_bipartite, read_universe
from ._outputs import pseudonymized, write_json
from ._params import (
    SEED_OF_NOISE_ONLY,
    ledger_options,
    noise_options_seeding,
    pseudonym_options,
)
from ._privacy import charge_on_commit, make_rng, open_ledger
from ._spec import options_from, spec_values

__all__ = ["COMMANDS"]


@click.command("randomized-response")
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False))
@options_from(RANDOMIZED_RESPONSE)  # --epsilon, --neighbourhood: declared with the function
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False),
              help="Released user<TAB>feature list.")
@click.option("--report", "report_path", required=True, type=click.Path(dir_okay=False),
              help="JSON report: the Release record; jaccard / suppressed / created against "
                   "the input under not_private (for the operator, not to publish).")
@click.option("--users", "users_path", type=click.Path(dir_okay=False), required=True,
              help="PUBLIC user universe: one user id per line (every user that may appear).")
@click.option("--features", "features_path", type=click.Path(dir_okay=False), required=True,
              help="PUBLIC feature universe: one feature id per line.")
@noise_options_seeding(SEED_OF_NOISE_ONLY)
@ledger_options
@pseudonym_options
def randomized_response_cmd(
    input_path: str, epsilon: float, neighbourhood: str | None, out_path: str,
    report_path: str,
    users_path: str, features_path: str, seed: int | None, noise: str, ledger: str | None,
    dataset: str | None, budget: float | None, budget_neighbourhood: str | None,
    keep_ids: bool, pseudonym_map: str | None,
) -> None:
    """Randomize every cell of INPUT (user<TAB>feature pairs) and write OUT and REPORT.

    Each cell keeps its value with probability p = tanh(ε_cell/2), otherwise it becomes a fair
    coin: ε-edge-DP with ε_cell = ε, or ε-node-DP with ε_cell = ε/|F| (Algorithm 1 of the
    smooth-k-anonymity paper). Expect the Jaccard similarity to collapse on sparse data
    unless ε is large. The coin flips are the mechanism's noise: with --noise opendp (the
    default) they come from the OS CSPRNG and cannot be seeded.

    Every cell of USERS x FEATURES is randomized, so both sets must be public: pass them
    (--users, --features; one id per line). Users appear in OUT under keyed per-release
    pseudonyms unless --keep-ids.
    """
    from ..anonymity.randomized_response import randomized_response
    from ..metrics import edge_set_metrics

    if noise == "opendp" and seed is not None:
        raise InvalidParameterError(
            "The '--seed' option only applies with '--noise numpy-insecure' (secure coin flips "
            f"cannot be seeded). Got --seed {seed} with --noise opendp."
        )
    rng = None
    if noise == "numpy-insecure":
        rng, seed = make_rng(seed)
    level = spec_values(RANDOMIZED_RESPONSE, {"epsilon": epsilon,
                                              "neighbourhood": neighbourhood})["neighbourhood"]
    acc = open_ledger(ledger, dataset, budget, budget_neighbourhood, neighbourhood=level,
                      epsilon=epsilon)
    users = read_universe(users_path, "user")
    features = read_universe(features_path, "feature")
    B = load_bipartite(input_path)
    with progress_bar() as progress:
        res = randomized_response(B, epsilon=epsilon, neighbourhood=level, users=users,
                                  features=features, rng=rng, progress=progress)
    release = dataclasses.replace(res.release, seed=seed)
    metrics = edge_set_metrics(B, res.graph)
    from ..io.files import write_bipartite
    from ..privacy.publish import bind, published_view

    published = published_view(pseudonymized(
        res.graph, release_id=release.release_id, keep_ids=keep_ids, out=out_path,
        pseudonym_map=pseudonym_map), release)
    release = bind(release, published)
    write_bipartite(published, out_path)
    write_json(report_path, {
        "release": release.to_dict(),
        "output": out_path,
        "output_edges": res.graph.n_edges,
        "user_ids": "real (--keep-ids)" if keep_ids else "keyed per-release pseudonyms",
        "not_private": {
            "note": NOT_PRIVATE_NOTE,
            "metrics": metrics,
            "kept": res.kept,
            "created": res.created,
            "input_edges": B.n_edges,
            "seconds": res.seconds,
        },
    })
    charge_on_commit(acc, release)
    echo(f"randomized response ({level}-DP, ε={epsilon:g}, p={res.p:.6g}): "
         f"{res.graph.n_edges} cells released; jaccard {metrics['jaccard']:.4f}, "
         f"suppressed {metrics['suppressed']:.4f}, created {metrics['created']:.4f}")
    if rng is not None:
        echo(f"seed {seed} (numpy-insecure backend: reproducible, not a secure release)")


COMMANDS = [randomized_response_cmd]
