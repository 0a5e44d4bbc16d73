"""``graphanon ledger``: the JSON privacy ledger's budgets, set once and changed on purpose.

The same rule as the Neo4j ledger (``graphanon neo4j budget`` / ``set-budget``): see
:class:`graphanon.privacy.accountant.BudgetLedger`.
"""

from __future__ import annotations

import json

import click

from ._console import echo
from ._params import FLOAT


@click.group("ledger")
def ledger() -> None:
    """Show a JSON privacy ledger, set a dataset's budget once, or change it on purpose.

    A budget is set once (here, or by --budget on a dataset's first charge); a release never
    changes it. 'set-budget' is the only way to change it, and the ledger logs each change.
    """


_ledger_arg = click.argument("ledger_path", metavar="LEDGER", type=click.Path(dir_okay=False))
_dataset_arg = click.argument("dataset")
_total_opt = click.option("--epsilon-total", type=FLOAT, required=True,
                          help="Total ε of the dataset.")


@ledger.command("show")
@_ledger_arg
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show(ledger_path: str, as_json: bool) -> None:
    """List the budgets of a JSON privacy ledger."""
    from ..privacy.accountant import JsonLedger

    book = JsonLedger(ledger_path)
    budgets = book.budgets()
    if as_json:
        click.echo(json.dumps({"ledger": str(book.real), "budgets": [
            {"dataset": b.dataset, "neighbourhood": b.neighbourhood,
             "epsilon_total": b.epsilon_total, "epsilon_spent": b.epsilon_spent}
            for b in budgets]}, indent=2))
        return
    click.echo(str(book.real))
    click.echo(f"{'dataset':<36} {'neighbourhood':<13} {'spent':>8} {'total':>8}")
    for b in budgets:
        click.echo(f"{b.dataset:<36} {b.neighbourhood:<13} {b.epsilon_spent:>8g} "
                   f"{b.epsilon_total:>8g}")


@ledger.command("budget")
@_ledger_arg
@_dataset_arg
@_total_opt
@click.option("--neighbourhood", type=click.Choice(["edge", "node"]), default=None,
              help="The relation the budget is stated for (default: edge), fixed for good.")
def budget(ledger_path: str, dataset: str, epsilon_total: float,
           neighbourhood: str | None) -> None:
    """Set the budget (total ε) of a dataset once (the ledger file is created if missing)."""
    from ..privacy.accountant import JsonLedger

    book = JsonLedger(ledger_path)
    b = book.create_budget(dataset, epsilon_total, neighbourhood=neighbourhood)
    if b.created == "ledger":
        click.echo(f"created ledger {book.real} for dataset {b.dataset!r} with budget "
                   f"ε={b.epsilon_total:g} ({b.neighbourhood}-DP)")
    elif b.created == "dataset":
        click.echo(f"created the budget of dataset {b.dataset!r} in ledger {book.real}: "
                   f"ε={b.epsilon_total:g} ({b.neighbourhood}-DP)")
    else:
        echo(f"{b.dataset}: unchanged, spent {b.epsilon_spent:g} of {b.epsilon_total:g} "
             f"({b.neighbourhood}-DP) in ledger {book.real}")


@ledger.command("set-budget")
@_ledger_arg
@_dataset_arg
@_total_opt
def set_budget(ledger_path: str, dataset: str, epsilon_total: float) -> None:
    """Change the budget (total ε) of a dataset: an operator action the ledger logs."""
    from ..privacy.accountant import JsonLedger

    book = JsonLedger(ledger_path)
    c = book.set_budget(dataset, epsilon_total)
    click.echo(f"changed the budget of dataset {c.dataset!r} in ledger {book.real} from "
               f"ε={c.epsilon_total_before:g} to ε={c.epsilon_total:g} (spent "
               f"{c.epsilon_spent:g}; logged in the ledger)")


COMMANDS = [ledger]
