"""The privacy-budget ledger kept in Neo4j.

``(:PrivacyBudget {dataset, epsilon_total, epsilon_spent, neighbourhood})`` per source
dataset, with one ``(:PrivacyCharge {charge_id, epsilon, release_id})-[:CHARGED_TO]->`` node
per release, under the same rules as the JSON accountant
(:func:`graphanon.privacy.accountant.charge_epsilon`; sequential composition: spent = Σ ε of
the charges). A release that would take ``epsilon_spent`` above ``epsilon_total`` is refused
with :class:`~graphanon.errors.PrivacyBudgetExceeded`. Re-writing the *identical* release
(same record, same data) is not charged twice; any other re-run is a new release and is
charged.

The budget rule is the JSON ledger's (:class:`graphanon.privacy.accountant.BudgetLedger`):
a budget is set once (:func:`create_budget`; stating the same total again changes nothing,
another one is refused), and changed only by :func:`set_budget`, an operator action logged
as a ``(:PrivacyBudgetChange {dataset, epsilon_total_before, epsilon_total, epsilon_spent,
changed_at})-[:CHANGED]->`` node. Dataset names are keys after
:func:`~graphanon.privacy.accountant.check_dataset_name`; a budget stored under a name that
normalizes to the one asked for (written before names were normalized) is never merged nor
shadowed by a new budget: creating or changing the budget is refused until it is renamed (and
a release finds no budget under the normalized name until then).

The charge is made in the transaction that completes the release, whose first statement
(:func:`lock_budget`) takes the budget node's write lock: concurrent releases of one dataset
are serialized there, so no update is lost; :func:`record_charge` then adds the charge.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import InvalidParameterError, PrivacyBudgetExceeded
from ...privacy.accountant import (
    Budget,
    BudgetChange,
    charge_epsilon,
    find_dataset,
    fits_budget,
    log_budget_change,
    same_budget,
)
from ..cypher import load

__all__ = ["check_budget", "create_budget", "lock_budget", "peek_budget", "record_charge",
           "set_budget"]

_WHERE = "the Neo4j ledger"


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
            f"{total:g} left (spent {spent:g}); changing a budget is a separate operator "
            "action (graphanon neo4j set-budget)."
        )
    return epsilon


def check_stored_name(tx: Any, dataset: str) -> None:
    """Refuse when the ledger keeps ``dataset``'s budget under another spelling (``GRQC``
    for ``grqc``, stored before names were normalized), or under several."""
    names = [r["dataset"] for r in tx.run(load("list_budgets"), {})]
    key = find_dataset(names, dataset, _WHERE)
    if key is not None and key != dataset:
        raise InvalidParameterError(
            f"{_WHERE} keeps the budget of dataset {dataset!r} under the name {key!r} (stored "
            "before dataset names were normalized); rename it once, with its charges, as "
            "docs/neo4j.md ('Dataset names') shows. Nothing was written.")


def create_budget(session: Any, dataset: str, epsilon_total: float,
                  neighbourhood: str | None, now: str, *, schema: bool = True) -> Budget:
    """Set the budget of ``dataset`` once (in ``session``): created if missing; an existing
    one with the same total (and neighbourhood, if given) is left as it is; another total or
    neighbourhood is refused (``InvalidParameterError``, nothing changed). ``schema=False``:
    the caller has checked the budget's uniqueness constraint (a write, once per database)."""
    if schema:
        session.run(load("schema_budget_dataset"), {}).consume()

    def work(tx: Any) -> Budget:
        check_stored_name(tx, dataset)
        old = [dict(r) for r in tx.run(load("ledger_peek"),
                                       {"dataset": dataset, "charge_id": ""})]
        rows = old if old and old[0].get("found") else [dict(r) for r in tx.run(
            load("ledger_create_budget"), {
                "dataset": dataset, "epsilon_total": float(epsilon_total),
                "neighbourhood": neighbourhood or "edge", "now": now})]
        row = rows[0]
        # raised inside the transaction function: nothing is changed
        same_budget(_WHERE, dataset, float(row["epsilon_total"]), row["neighbourhood"],
                    float(epsilon_total), neighbourhood, "graphanon neo4j set-budget")
        return Budget(dataset, row["neighbourhood"], float(row["epsilon_total"]),
                      float(row["epsilon_spent"]), created=None if rows is old else "dataset")

    result: Budget = session.execute_write(work)
    return result


def set_budget(session: Any, dataset: str, epsilon_total: float, now: str) -> BudgetChange:
    """Change the total ε of an existing budget (in ``session``): the operator's action,
    logged in the ledger (a ``PrivacyBudgetChange`` node) and as a warning."""

    def work(tx: Any) -> BudgetChange:
        check_stored_name(tx, dataset)
        rows = [dict(r) for r in tx.run(load("ledger_set_budget"), {
            "dataset": dataset, "epsilon_total": float(epsilon_total), "now": now})]
        if not rows:
            raise InvalidParameterError(
                f"{_WHERE} has no budget for dataset {dataset!r} to change: set it first "
                f"(graphanon neo4j budget {dataset} --epsilon-total EPSILON).")
        r = rows[0]
        return BudgetChange(dataset, float(r["epsilon_total_before"]),
                            float(r["epsilon_total"]), float(r["epsilon_spent"]), now)

    change: BudgetChange = session.execute_write(work)
    log_budget_change(change, _WHERE)
    return change


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
