"""The privacy-budget ledger kept in Neo4j.

``(:PrivacyBudget {dataset, epsilon_total, epsilon_spent, neighbourhood})`` per source
dataset, with one ``(:PrivacyCharge {charge_id, epsilon, release_id})-[:CHARGED_TO]->`` node
per release, under the same rules as the JSON accountant
(:func:`graphanon.privacy.accountant.charge_epsilon`; sequential composition: spent = Σ ε of
the charges). A release that would take ``epsilon_spent`` above ``epsilon_total`` is refused
with :class:`~graphanon.errors.PrivacyBudgetExceeded`; the total only changes through
:func:`set_budget`. Re-writing the *identical* release (same record, same data) is not
charged twice; any other re-run is a new release and is charged.

The charge is made in the transaction that completes the release, whose first statement
(:func:`lock_budget`) takes the budget node's write lock: concurrent releases of one dataset
are serialized there, so no update is lost; :func:`record_charge` then adds the charge.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from ...errors import InvalidParameterError, PrivacyBudgetExceeded
from ...privacy.accountant import charge_epsilon, fits_budget
from ..cypher import load

__all__ = ["check_budget", "lock_budget", "peek_budget", "record_charge", "set_budget"]


def check_budget(row: Mapping[str, Any] | None, dataset: str,
                 record: Mapping[str, Any]) -> float:
    """The ε to charge (0 if already charged); raise if it exceeds the budget."""
    if row is None or not row.get("found", True) or row.get("epsilon_total") is None:
        raise PrivacyBudgetExceeded(
            f"no privacy budget is set for dataset {dataset!r}: set one explicitly "
            "(graphanon neo4j budget / --budget-total) before a DP release."
        )
    if row.get("already_charged"):
        return 0.0
    epsilon = release_cost(row, record)
    total, spent = float(row["epsilon_total"]), float(row["epsilon_spent"])
    if not fits_budget(spent, epsilon, total):
        raise PrivacyBudgetExceeded(
            f"release needs ε={epsilon:g} but dataset {dataset!r} has {total - spent:g} of "
            f"{total:g} left (spent {spent:g}); raise the budget explicitly to proceed."
        )
    return epsilon


def set_budget(session: Any, dataset: str, epsilon_total: float, neighbourhood: str | None,
               now: str) -> dict[str, float]:
    """Create the ledger of ``dataset`` or set its total ε (in ``session``).

    ``neighbourhood`` is set when the budget is created (``None``: ``"edge"``) and never
    changed: a different one for an existing budget is refused, ``None`` keeps it."""
    session.run(load("schema_budget_dataset"), {}).consume()

    def work(tx: Any) -> list[dict[str, Any]]:
        rows = [dict(r) for r in tx.run(load("ledger_set_budget"), {
            "dataset": dataset, "epsilon_total": float(epsilon_total),
            "neighbourhood": neighbourhood or "edge", "now": now})]
        stored = rows[0].get("neighbourhood") if rows else None
        if neighbourhood is not None and stored != neighbourhood:
            # raised inside the transaction function: the driver rolls the change back
            raise InvalidParameterError(
                f"the budget of dataset {dataset!r} is stated for the {stored} neighbourhood; "
                f"it cannot be changed to {neighbourhood!r} (a {stored}-level ε would be "
                "charged under other rules). Use another dataset name.")
        return rows

    row = session.execute_write(work)[0]
    if not fits_budget(row["epsilon_spent"], 0.0, row["epsilon_total"]):
        logging.getLogger("graphanon").warning(
            "budget of %s set to %g but %g is already spent: further DP releases are refused",
            dataset, row["epsilon_total"], row["epsilon_spent"],
        )
    return {"epsilon_total": float(row["epsilon_total"]),
            "epsilon_spent": float(row["epsilon_spent"])}


def peek_budget(session: Any, dataset: str, charge_id: str,
                record: Mapping[str, Any]) -> float:
    """Read-only check before anything is written (repeated under the lock at the end)."""

    def work(tx: Any) -> list[dict[str, Any]]:
        return [dict(r) for r in tx.run(load("ledger_peek"),
                                        {"dataset": dataset, "charge_id": charge_id})]

    rows = session.execute_read(work)
    return check_budget(rows[0] if rows else None, dataset, record)


def release_cost(row: Mapping[str, Any], record: Mapping[str, Any]) -> float:
    """What the release costs on the budget of ``row`` (charged now, or already)."""
    epsilon = charge_epsilon(record, row.get("neighbourhood") or "edge")
    assert epsilon is not None
    return epsilon


def lock_budget(tx: Any, *, dataset: str, release_id: str, charge_id: str,
                record: Mapping[str, Any]) -> tuple[float, float]:
    """First statement of the completing transaction: lock the budget node and check the
    budget again under the lock. Returns the ε to charge now (0 for an identical re-write)
    and the release's cost on this budget (what the record says was charged)."""
    rows = [dict(r) for r in tx.run(load("ledger_lock"), {
        "dataset": dataset, "release_id": release_id, "charge_id": charge_id})]
    row = rows[0] if rows else None
    spent = check_budget(row, dataset, record)
    assert row is not None  # (check_budget raised otherwise)
    return spent, release_cost(row, record)


def record_charge(tx: Any, *, dataset: str, release_id: str, charge_id: str,
                  mechanism: str, epsilon: float, now: str) -> None:
    """Record the charge (or only release the lock marker when nothing is charged)."""
    if epsilon > 0:
        tx.run(load("ledger_charge"), {
            "dataset": dataset, "charge_id": charge_id, "release_id": release_id,
            "mechanism": mechanism, "epsilon": epsilon, "charged_at": now}).consume()
    else:
        tx.run(load("ledger_unlock"), {"dataset": dataset}).consume()
