"""Randomness and budget on the command line: ``--seed`` → a generator, ``--noise`` → a noise
backend, the privacy ledger opened and charged when the outputs commit."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

import click

from ..errors import InvalidParameterError
from ._console import echo

if TYPE_CHECKING:  # pragma: no cover - the CLI imports numpy and the core only when used
    import numpy as np


def make_rng(seed: int | None) -> tuple[np.random.Generator, int]:
    """A numpy Generator from ``--seed``; a fresh random seed is drawn (and returned) if None."""
    if seed is None:
        seed = secrets.randbits(63)
    if seed < 0:
        raise InvalidParameterError(f"The '--seed' option must be a non-negative int. Got {seed}.")
    import numpy as np

    return np.random.default_rng(seed), seed


def resolve_noise(noise: str, seed: int | None) -> tuple[Any, np.random.Generator, int]:
    """``(backend, rng, seed)`` for ``--noise`` / ``--seed``.

    ``rng`` drives everything that is not DP noise; with ``numpy-insecure`` it also drives
    the noise, which makes the run reproducible and insecure.
    """
    from ..privacy.noise import get_backend

    rng, used = make_rng(seed)
    if noise == "numpy-insecure":
        return get_backend("numpy-insecure", rng=rng), rng, used
    return get_backend("opendp"), rng, used


def open_ledger(ledger: str | None, dataset: str | None, budget: float | None,
                budget_neighbourhood: str | None, *, neighbourhood: str,
                epsilon: float | None = None) -> Any:
    """The :class:`~graphanon.privacy.accountant.Accountant` of ``--ledger``/``--dataset``,
    opened (and checked) before any work; ``None`` without ``--ledger``.

    ``neighbourhood`` is the release's relation (``"edge"``/``"node"``), the default of a new
    budget. With ``epsilon`` known in advance, an exhausted budget is refused now (exit 3)
    rather than after the computation.
    """
    from ..errors import PrivacyBudgetExceeded
    from ..privacy.accountant import NODE_TO_EDGE, Accountant

    if ledger is None:
        given = [o for o, v in (("--dataset", dataset), ("--budget", budget),
                                ("--budget-neighbourhood", budget_neighbourhood))
                 if v is not None]
        if given:
            raise InvalidParameterError(
                f"The option(s) {', '.join(given)} need --ledger FILE (the privacy ledger to "
                "charge).")
        return None
    if dataset is None:
        raise InvalidParameterError(
            "The '--ledger' option needs '--dataset NAME': the stable name the budget is "
            "kept under.")
    nb = budget_neighbourhood or (neighbourhood if budget is not None else None)
    acc = Accountant.open(ledger, dataset=dataset, budget=budget, neighbourhood=nb)
    if acc.neighbourhood == "node" and neighbourhood == "edge":
        raise InvalidParameterError(
            f"dataset {acc.dataset!r} has a node-DP budget in {acc.ledger}; an edge-DP release "
            "gives no node-level guarantee and cannot be charged to it.")
    if epsilon is not None:
        # what the charge will be (charge_epsilon's rule: a node-level ε costs
        # NODE_TO_EDGE times as much on an edge budget)
        cost = epsilon * (NODE_TO_EDGE if (acc.neighbourhood, neighbourhood) == ("edge", "node")
                          else 1.0)
        if not acc.can_spend(cost):
            raise PrivacyBudgetExceeded(
                f"privacy budget of dataset {acc.dataset!r} exceeded: spent ε={acc.spent:.6g} of "
                f"{acc.budget:.6g}, this release needs ε={cost:.6g}; nothing was computed.")
    return acc


def charge_on_commit(accountant: Any, release: Any) -> None:
    """Charge ``release`` to ``accountant`` when the command's outputs are committed.

    The charge runs after every output file was written (to its temporary name) and before
    any is renamed into place: a refused charge (exit 3) leaves no output, and an output
    that could not be written costs no budget.
    """
    if accountant is None:
        return
    from ..io._atomic import output_transaction
    from ..privacy.accountant import charge_epsilon

    charge_epsilon(release, accountant.neighbourhood)  # refuses a bad pairing right now

    def charge() -> None:
        entry = accountant.spend(release)
        where, name = accountant.ledger, accountant.dataset
        if accountant.created is not None:  # a new budget is never silent, even with -q
            what = (f"created ledger {where} for dataset {name!r}"
                    if accountant.created == "ledger"
                    else f"created the budget of dataset {name!r} in ledger {where}")
            click.echo(f"graphanon: {what} with budget ε={accountant.budget:g} "
                       f"({accountant.neighbourhood}-DP)", err=True)
        echo(f"charged ε={entry.epsilon:g} to dataset {name!r} in ledger {where} (spent "
             f"{accountant.spent:g} of {accountant.budget:g})")

    with output_transaction() as tx:
        tx.before_commit.append(charge)
