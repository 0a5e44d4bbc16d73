"""Privacy accounting: pure-ε sequential composition with a persistent JSON ledger.

An :class:`Accountant` guards one dataset (a stable name the operator chooses) under one
neighbouring relation and a total budget ε_total. Every release of that dataset is charged
before it is published; a charge that would take the total above the budget is refused with
:class:`~graphanon.errors.PrivacyBudgetExceeded` and nothing is recorded.

Composition rules (pure ε-DP):

- **Sequential** (always valid): releases M₁ … M_k on the same data cost ``Σ εᵢ``.
- **Parallel** (only over a public partition): releases that each read only the units of
  their own part of a *data-independent* partition of the unit domain cost ``max εᵢ``.
  :meth:`Accountant.spend_parallel` takes, per release, its part's domain — every unit id
  the release may read, fixed before the data is seen (cell / edge keys of a public node
  universe for edge-DP, node ids of a public universe for node-DP), never the units the data
  happens to contain — and checks pairwise disjointness itself; if any two overlap it
  charges the sum instead and says so.
- **Which ε a release costs** (:func:`charge_epsilon`, shared with the Neo4j ledger):
  k-anonymity / non-private releases carry none.
- **Across neighbourhoods**: a node-level release is charged to an edge budget at **2ε**.
  The node relation adds or removes one node with all its edges, so ``G`` and ``G + uv`` are
  two node steps apart (remove ``u``, add it back with one more edge) and group privacy gives
  2ε-edge-DP; the same ε is *not* enough in general (the θ-projected 1K histogram at θ = 1
  has node sensitivity 2θ + 1 = 3 but moves by 4 when one edge is added). An edge-DP release
  implies nothing useful at node level (ε grows with the degree), so charging it to a node
  budget is refused. Personalized releases are charged their largest per-node ε
  (``epsilon_summary["max"]``, doubled on an edge budget for a node-level one), which bounds
  every node's loss.

The ledger is a JSON file ``{"format": "graphanon-ledger/1", "datasets": {name:
{"budget", "neighbourhood", "entries": [...]}}}``; it is re-read under a file lock before each
charge (so two processes share one budget) and rewritten atomically (temp file + rename).

One ledger, one budget, however it is reached: the ledger is identified by its resolved real
path (symbolic links and ``..`` resolved anew before every charge), locked through
``REALPATH.lock`` and replaced at the real path, so a symlink stays a symlink and every
spelling of the path shares one lock. A ledger file with several hard links is refused (the
replacement would split them into two budgets). The file is validated against its schema on
every read (:func:`validate_ledger`): a malformed or hand-edited ledger is an error, never a
silently larger budget.

One dataset, one budget: names are keys after :func:`check_dataset_name` (Unicode NFKC,
case-folded), in this ledger and the Neo4j one. One budget rule for both
(:class:`BudgetLedger`): a budget is set once, explicitly (the first charge's budget, or
:meth:`JsonLedger.create_budget`); changing it is :meth:`JsonLedger.set_budget`, an operator
action logged in the dataset's ``budget_changes``. Nothing is written before the first charge
of a dataset: a refused run leaves no ledger (nor lock file) behind.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import math
import os
import re
import stat
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .._tempfiles import new_temp
from .._validation import check_choice, check_float, check_type, loads_json
from ..errors import InvalidParameterError, PrivacyBudgetExceeded
from .release import Release

__all__ = ["NODE_TO_EDGE", "Accountant", "Budget", "BudgetChange", "BudgetLedger", "JsonLedger",
           "LedgerEntry", "charge_epsilon", "check_dataset_name", "find_dataset", "fits_budget",
           "log_budget_change", "same_budget", "validate_ledger"]

LEDGER_FORMAT = "graphanon-ledger/1"
# Relative slack for float sums (ten charges of 0.1 must fit a budget of 1.0).
_TOL = 1e-9


@dataclass(frozen=True)
class LedgerEntry:
    """One charge: what was released, how much ε it cost and by which composition rule."""

    release_id: str
    mechanism: str
    neighbourhood: str
    epsilon: float
    composition: str
    created_at: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "release_id": self.release_id,
            "mechanism": self.mechanism,
            "neighbourhood": self.neighbourhood,
            "epsilon": self.epsilon,
            "composition": self.composition,
            "created_at": self.created_at,
        }


#: The edge-level ε of an ε-node-DP release, in units of ε: adding or removing one edge ``uv``
#: keeps the node set, so under the add/remove-node relation it is two node steps (remove
#: ``u`` with its edges, add it back with them and ``uv``); group privacy gives 2ε. One step
#: does not suffice in general: graphanon's θ-projected 1K histogram at θ = 1 is calibrated
#: to its node sensitivity 2θ + 1 = 3, and one added edge moves it by 4.
NODE_TO_EDGE = 2.0


def charge_epsilon(
    release: Release | Mapping[str, Any], budget_neighbourhood: str
) -> float | None:
    """The ε a release costs against a budget stated for ``budget_neighbourhood``.

    The one set of accounting rules (pure-ε sequential composition), used by the JSON
    :class:`Accountant` and by the Neo4j ledger (:class:`graphanon.io.neo4j.Neo4jSink`):

    - ``"k-anonymity"`` / ``"none"`` releases carry no ε: ``None`` (nothing to charge; the
      Accountant refuses to account them, the Neo4j ledger writes them uncharged);
    - a node-DP (or personalized node-DP) release may be charged to an edge budget, at twice
      its ε: one added or removed edge ``uv`` is two node steps (remove ``u``, add it back
      with its edges and ``uv``), so ε-node-DP implies 2ε-edge-DP by group privacy and no
      less in general (:data:`NODE_TO_EDGE`);
    - an edge-DP (or personalized edge-DP) release is refused against a node budget
      (``InvalidParameterError``): its node-level ε grows with the degree;
    - personalized releases are charged their largest per-node ε
      (``epsilon_summary["max"]``), which bounds every node's loss; others their ``epsilon``.

    Parameters
    ----------
    release : Release or mapping
        The release, or its :meth:`Release.to_dict` record.
    budget_neighbourhood : {"edge", "node"}
        The relation the budget is stated for.

    Returns
    -------
    float or None

    Raises
    ------
    InvalidParameterError
        An edge-level release against a node budget; an unknown budget neighbourhood; a
        record without the ε its neighbourhood requires.
    """
    check_choice(budget_neighbourhood, "budget_neighbourhood", "charge_epsilon",
                 ("edge", "node"))
    rec: Mapping[str, Any] = release.to_dict() if isinstance(release, Release) else release
    nb = rec["neighbourhood"]
    if nb in ("k-anonymity", "none"):
        return None
    if budget_neighbourhood == "node" and nb.removeprefix("personalized-") == "edge":
        raise InvalidParameterError(
            f"Release {rec.get('release_id')} ({rec.get('mechanism')}) is {nb}-DP; it gives "
            "no node-level guarantee and cannot be charged to a node-DP budget."
        )
    factor = NODE_TO_EDGE if (budget_neighbourhood == "edge"
                              and nb.removeprefix("personalized-") == "node") else 1.0
    try:
        if nb.startswith("personalized"):
            return factor * float(rec["epsilon_summary"]["max"])
        return factor * float(rec["epsilon"])
    except (KeyError, TypeError, ValueError):
        raise InvalidParameterError(
            f"Release {rec.get('release_id')} ({rec.get('mechanism')}) is {nb}-DP but its "
            "record has no ε to charge."
        ) from None


def fits_budget(spent: float, epsilon: float, total: float) -> bool:
    """Whether charging ``epsilon`` on top of ``spent`` stays within ``total``.

    A relative slack of ``1e-9`` absorbs float sums (ten charges of 0.1 fit a budget of 1).
    """
    return spent + epsilon <= total * (1 + _TOL)


def _charge_of(release: Release, budget_neighbourhood: str) -> float:
    """:func:`charge_epsilon` for the Accountant, which refuses releases without an ε."""
    eps = charge_epsilon(release, budget_neighbourhood)
    if eps is None:
        raise InvalidParameterError(
            f"Release {release.release_id} ({release.mechanism}) has neighbourhood "
            f"{release.neighbourhood!r}: it carries no ε and cannot be accounted; it is not "
            "differentially private."
        )
    return eps


#: 20 or more hex digits in a row anywhere in the name (80 bits: a digest, or a truncated
#: one, under any prefix such as ``sha256:``, ``SHA256:``, ``blake2b:`` or ``ds-``). A UUID's
#: longest run is 12.
_HEXLIKE = re.compile(r"[0-9a-fA-F]{20,}")


def _fold(name: str) -> str:
    """The budget key of ``name``: Unicode NFKC, every run of blanks one space, case-folded
    (then NFKC again, which case folding can undo)."""
    flat = " ".join(unicodedata.normalize("NFKC", name).split())
    return unicodedata.normalize("NFKC", flat.casefold())


def check_dataset_name(dataset: Any, owner: str = "Accountant") -> str:
    """The budget key of ``dataset``: a stable name chosen by the operator, normalized.

    One name, one budget, however it is typed: the key is the name in Unicode NFKC
    (fullwidth ``ｇｒｑｃ`` is ``grqc``, NFC and NFD ``café`` are one), case-folded (``GRQC``
    is ``grqc``), with every run of inner blanks counted as one space (``social  prod`` is
    ``social prod``). Leading or trailing blanks (``"grqc\t"``), blank-only names and
    control or invisible characters are refused rather than dropped. Both ledgers (the JSON
    :class:`Accountant` and the Neo4j ledger) key budgets by this function.

    A hash of the data changes with the very edge or node that DP protects, so a budget keyed
    by it silently resets when the data changes. Names that hold something shaped like a hex
    digest (20 or more hex digits in a row, whatever surrounds them) are refused. That is a
    heuristic against the common mistake, not a proof: a key derived from the data in any
    other form resets the budget just the same.
    """
    text = unicodedata.normalize("NFKC", dataset) if isinstance(dataset, str) else ""
    if not text.strip():
        raise InvalidParameterError(
            f"The 'dataset' parameter of {owner} must be a non-empty str naming the data "
            f"(e.g. 'social-prod'). Got {dataset!r} instead.")
    if text != text.strip():
        raise InvalidParameterError(
            f"The 'dataset' parameter of {owner} must not begin or end with a blank (a "
            f"budget name that looks like another). Got {dataset!r} instead.")
    if any(not (c.isprintable() or c.isspace()) for c in text) or len(text) > 200:
        raise InvalidParameterError(
            f"The 'dataset' parameter of {owner} must be printable text of at most 200 "
            f"characters. Got {dataset[:40]!r} instead.")
    name = _fold(text)
    if _HEXLIKE.search(name):
        raise InvalidParameterError(
            f"The 'dataset' parameter of {owner} looks like a content hash ({dataset[:20]}…): "
            "a budget keyed by the data's hash resets when one edge changes. Use a stable "
            "name chosen for the dataset (e.g. 'social-prod').")
    return name


def find_dataset(stored: Iterable[str], dataset: str, where: str) -> str | None:
    """The name under which a ledger already keeps the budget of ``dataset`` (a name
    :func:`check_dataset_name` returned), or ``None``.

    A ledger written before names were normalized can hold ``GRQC`` or ``grqc\t``: such a
    name is found for ``grqc``. Two stored names that normalize to one are two budgets of one
    dataset; they are refused (``InvalidParameterError`` naming ``where``), never merged.
    """
    found = [s for s in stored if isinstance(s, str) and _fold(s) == dataset]
    if len(found) > 1:
        raise InvalidParameterError(
            f"{where} holds {len(found)} budgets for dataset {dataset!r} under the names "
            f"{', '.join(repr(f) for f in sorted(found))} (one name after Unicode NFKC, "
            "case folding and blank collapsing); they are not merged silently. Combine them "
            "into one by hand, keeping every charge and the smallest budget, while no release "
            "runs.")
    return found[0] if found else None


_ENTRY_KEYS = {"release_id": str, "mechanism": str, "neighbourhood": str, "epsilon": float,
               "composition": str, "created_at": str}
_CHANGE_KEYS = {"epsilon_total_before", "epsilon_total", "epsilon_spent", "changed_at"}


def validate_ledger(data: Any, where: str) -> dict[str, Any]:
    """Check a ledger document against the ``graphanon-ledger/1`` schema; return it.

    Raises ``InvalidParameterError`` naming ``where`` and the first problem: a wrong format
    tag, unknown keys, a budget that is not a finite number > 0, an unknown neighbourhood, an
    entry with unknown or missing keys, an entry ε that is not a finite number >= 0, or a
    malformed ``budget_changes`` log (the operator's changes of the budget, optional).
    """
    def bad(msg: str) -> InvalidParameterError:
        return InvalidParameterError(f"privacy ledger {where} is invalid: {msg}")

    def number(x: Any, low_open: bool) -> bool:
        return (not isinstance(x, bool) and isinstance(x, (int, float)) and math.isfinite(x)
                and (x > 0 if low_open else x >= 0))

    if not isinstance(data, dict) or data.get("format") != LEDGER_FORMAT:
        raise InvalidParameterError(f"privacy ledger {where} is not a {LEDGER_FORMAT} file.")
    if set(data) != {"format", "datasets"}:
        raise bad(f"top-level keys must be 'format' and 'datasets', got {sorted(data)}.")
    datasets = data["datasets"]
    if not isinstance(datasets, dict):
        raise bad("'datasets' must be an object.")
    for name, ds in datasets.items():
        if not isinstance(ds, dict) or not (
                {"budget", "neighbourhood", "entries"} <= set(ds)
                <= {"budget", "neighbourhood", "entries", "budget_changes"}):
            raise bad(f"dataset {name!r} must hold exactly 'budget', 'neighbourhood' and "
                      "'entries' (and the optional 'budget_changes').")
        b = ds["budget"]
        if not number(b, True):
            raise bad(f"dataset {name!r}: budget must be a number > 0, got {b!r}.")
        if ds["neighbourhood"] not in ("edge", "node"):
            raise bad(f"dataset {name!r}: neighbourhood must be 'edge' or 'node', got "
                      f"{ds['neighbourhood']!r}.")
        if not isinstance(ds["entries"], list):
            raise bad(f"dataset {name!r}: entries must be a list.")
        for i, e in enumerate(ds["entries"]):
            if not isinstance(e, dict) or set(e) != set(_ENTRY_KEYS):
                raise bad(f"dataset {name!r} entry {i} must hold exactly "
                          f"{sorted(_ENTRY_KEYS)}.")
            eps = e["epsilon"]
            if not number(eps, False):
                raise bad(f"dataset {name!r} entry {i}: epsilon must be a number >= 0, "
                          f"got {eps!r}.")
            for key, typ in _ENTRY_KEYS.items():
                if typ is str and not isinstance(e[key], str):
                    raise bad(f"dataset {name!r} entry {i}: {key} must be a string.")
        changes = ds.get("budget_changes", [])
        if not isinstance(changes, list) or not all(
                isinstance(c, dict) and set(c) == _CHANGE_KEYS
                and number(c["epsilon_total_before"], True) and number(c["epsilon_total"], True)
                and number(c["epsilon_spent"], False) and isinstance(c["changed_at"], str)
                for c in changes):
            raise bad(f"dataset {name!r}: budget_changes must be a list of "
                      f"{sorted(_CHANGE_KEYS)} (totals > 0).")
    return data


# ---------------------------------------------------------------------- one budget rule
@dataclass(frozen=True)
class Budget:
    """The budget of one dataset as a ledger holds it.

    ``created`` says what :meth:`BudgetLedger.create_budget` (or a first charge) made:
    ``"ledger"`` (a new ledger file), ``"dataset"`` (a new budget in an existing ledger) or
    ``None`` (it was there already).
    """

    dataset: str
    neighbourhood: str
    epsilon_total: float
    epsilon_spent: float
    created: str | None = None


@dataclass(frozen=True)
class BudgetChange:
    """One change of a budget's total by the operator, as the ledger logs it."""

    dataset: str
    epsilon_total_before: float
    epsilon_total: float
    epsilon_spent: float
    changed_at: str


@runtime_checkable
class BudgetLedger(Protocol):
    """The one budget rule, offered alike by the JSON ledger (:class:`JsonLedger`) and the
    Neo4j ledger (:class:`graphanon.io.neo4j.Neo4jSink`).

    - The budget of a dataset is **set once, explicitly** (:meth:`create_budget`, or the
      budget a first charge states: ``--budget``, a job's ``budget`` / ``budget_total``).
      Stating the same budget again is a no-op; stating another is refused
      (``InvalidParameterError``): a release never moves a budget.
    - **Changing** it is a separate operator action (:meth:`set_budget`; CLI ``graphanon
      ledger set-budget`` / ``graphanon neo4j set-budget``), logged in the ledger itself
      (the total before and after, the ε spent then, when) and as a warning.
    - A budget's neighbourhood never changes.
    - Dataset names are keys after :func:`check_dataset_name`.
    """

    def create_budget(self, dataset: str, epsilon_total: float, *,
                      neighbourhood: str | None = None) -> Budget: ...

    def set_budget(self, dataset: str, epsilon_total: float) -> BudgetChange: ...


def _check_budget_args(owner: str, dataset: Any, epsilon_total: Any,
                       neighbourhood: Any = None) -> tuple[str, float, str | None]:
    """The arguments of a budget operation, checked (the one rule for both ledgers)."""
    name = check_dataset_name(dataset, owner)
    total = check_float(epsilon_total, "epsilon_total", owner, low=0.0, closed="right")
    if neighbourhood is not None:
        check_choice(neighbourhood, "neighbourhood", owner, ("edge", "node"))
    return name, total, neighbourhood


def same_budget(where: str, dataset: str, stored_total: float, stored_neighbourhood: str,
                epsilon_total: float, neighbourhood: str | None, change_command: str) -> None:
    """Refuse a budget stated for a dataset that has another one (nothing is changed)."""
    if neighbourhood is not None and neighbourhood != stored_neighbourhood:
        raise InvalidParameterError(
            f"{where} holds dataset {dataset!r} with a {stored_neighbourhood}-DP budget; got "
            f"neighbourhood {neighbourhood!r}. A budget's neighbourhood never changes (a "
            f"{stored_neighbourhood}-level ε would be charged under other rules): use another "
            "dataset name.")
    if not math.isclose(stored_total, epsilon_total):
        raise InvalidParameterError(
            f"{where} already holds dataset {dataset!r} with budget ε={stored_total:g}; got "
            f"ε={epsilon_total:g}. A budget is set once: changing it is a separate, logged "
            f"operator action ({change_command} {dataset!r} --epsilon-total "
            f"{epsilon_total:g}).")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _spent(ds: Mapping[str, Any]) -> float:
    return math.fsum(e["epsilon"] for e in ds["entries"])


class JsonLedger:
    """A JSON ledger file as a :class:`BudgetLedger` (the budgets of all its datasets).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "ledger.json")
    >>> JsonLedger(path).create_budget("Social-Prod", 2.0).created
    'ledger'
    >>> JsonLedger(path).set_budget("social-prod", 3.0).epsilon_total_before
    2.0
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    @property
    def real(self) -> Path:
        """The ledger's real path (symbolic links and ``..`` resolved now)."""
        return Path(os.path.realpath(self.path))

    def create_budget(self, dataset: str, epsilon_total: float, *,
                      neighbourhood: str | None = None) -> Budget:
        """Set the budget of ``dataset`` once (see :class:`BudgetLedger`)."""
        name, total, nb = _check_budget_args("JsonLedger.create_budget", dataset,
                                             epsilon_total, neighbourhood)
        real = self.real
        with _locked(real):
            new_file = not real.exists()
            data = _read(real)
            key = find_dataset(data["datasets"], name, f"privacy ledger {real}")
            if key is not None:
                ds = data["datasets"][key]
                same_budget(f"privacy ledger {real}", name, ds["budget"], ds["neighbourhood"],
                            total, nb, f"graphanon ledger set-budget {real}")
                return Budget(name, ds["neighbourhood"], float(ds["budget"]), _spent(ds))
            data["datasets"][name] = {"budget": total, "neighbourhood": nb or "edge",
                                      "entries": []}
            _write(real, data)
        return Budget(name, nb or "edge", total, 0.0,
                      created="ledger" if new_file else "dataset")

    def set_budget(self, dataset: str, epsilon_total: float) -> BudgetChange:
        """Change the budget of an existing dataset: a separate operator action, logged in
        the dataset's ``budget_changes`` and as a warning."""
        name, total, _ = _check_budget_args("JsonLedger.set_budget", dataset, epsilon_total)
        real = self.real
        with _locked(real):
            data = _read(real) if real.exists() else None
            key = None if data is None else find_dataset(data["datasets"], name,
                                                         f"privacy ledger {real}")
            if data is None or key is None:
                raise InvalidParameterError(
                    f"privacy ledger {real} has no budget for dataset {name!r} to change: set "
                    "it first (--budget on its first charge).")
            ds = data["datasets"][key]
            change = BudgetChange(name, float(ds["budget"]), total, _spent(ds), _now())
            ds.setdefault("budget_changes", []).append(
                {k: v for k, v in dataclasses.asdict(change).items() if k != "dataset"})
            ds["budget"] = total
            _write(real, data)
        log_budget_change(change, f"privacy ledger {real}")
        return change

    def budgets(self) -> list[Budget]:
        """Every dataset's budget in the ledger (by name)."""
        real = self.real
        data = _read(real)
        return [Budget(name, ds["neighbourhood"], float(ds["budget"]), _spent(ds))
                for name, ds in sorted(data["datasets"].items())]


def log_budget_change(change: BudgetChange, where: str) -> None:
    """The warning every change of a budget logs (both ledgers)."""
    logging.getLogger("graphanon").warning(
        "%s: budget of dataset %r changed by the operator from ε=%g to ε=%g (ε=%g spent)",
        where, change.dataset, change.epsilon_total_before, change.epsilon_total,
        change.epsilon_spent)


class Accountant:
    """Pure-ε budget of one dataset, persisted in a JSON ledger.

    Parameters
    ----------
    budget : float
        Total ε the dataset may spend (> 0). When the ledger already holds this dataset, the
        two must agree (a different value raises: changing a budget is
        :meth:`JsonLedger.set_budget`). Otherwise the dataset is added to the ledger (and the
        ledger file created) by the first charge, not before: :attr:`created` then says so.
    dataset : str
        A stable name of the dataset chosen by the operator (``"social-prod"``), keyed after
        :func:`check_dataset_name` (``Social-Prod`` is the same budget). Never a content
        hash: the data changes (by the very edge DP protects, say) and a budget keyed by
        content would silently reset.
    neighbourhood : {"edge", "node"}
        The relation the budget is stated for.
    ledger : path, optional
        JSON ledger file; ``None`` keeps the ledger in memory only.

    Raises
    ------
    InvalidParameterError
        Bad budget / neighbourhood, an unreadable ledger, or a budget that disagrees with the
        one already stored for this dataset.

    Examples
    --------
    >>> acc = Accountant(1.0, dataset="abc", neighbourhood="edge")
    >>> acc.spend_epsilon(0.4, mechanism="test").epsilon
    0.4
    >>> round(acc.remaining, 12)
    0.6
    """

    def __init__(
        self,
        budget: float,
        *,
        dataset: str,
        neighbourhood: str = "edge",
        ledger: str | os.PathLike[str] | None = None,
    ) -> None:
        self.budget = check_float(budget, "budget", "Accountant", low=0.0, closed="right")
        self.neighbourhood = check_choice(
            neighbourhood, "neighbourhood", "Accountant", ("edge", "node")
        )
        self.dataset = check_dataset_name(dataset)
        self._ledger_arg = None if ledger is None else Path(ledger)
        self._entries: list[LedgerEntry] = []
        self._key = self.dataset  # the name the ledger keeps it under (older ledgers: GRQC)
        #: What this accountant's first charge created: ``"ledger"`` (the file),
        #: ``"dataset"`` (its budget in an existing file) or ``None``.
        self.created: str | None = None
        if self.ledger is not None:  # checked now; nothing is written before a charge
            self._adopt(_read(self.ledger))

    @classmethod
    def open(cls, ledger: str | os.PathLike[str], *, dataset: str,
             budget: float | None = None, neighbourhood: str | None = None) -> Accountant:
        """The accountant of ``dataset`` in the JSON ``ledger``.

        With ``budget`` (and ``neighbourhood``, default ``"edge"``) the dataset is created on
        first use or checked against the stored values; without, it must already be in the
        ledger and its stored budget is used.

        Raises
        ------
        InvalidParameterError
            No budget given for a dataset the ledger does not hold yet; a budget or
            neighbourhood that disagrees with the stored one; a malformed ledger.
        """
        dataset = check_dataset_name(dataset)
        if budget is not None:
            return cls(budget, dataset=dataset, neighbourhood=neighbourhood or "edge",
                       ledger=ledger)
        real = Path(os.path.realpath(ledger))
        datasets = _read(real)["datasets"]
        key = find_dataset(datasets, dataset, f"privacy ledger {real}")
        if key is None:
            raise InvalidParameterError(
                f"privacy ledger {real} has no budget for dataset {dataset!r} yet: give one "
                "on first use (--budget EPSILON, and --budget-neighbourhood edge|node).")
        stored = datasets[key]
        return cls(float(stored["budget"]), dataset=dataset,
                   neighbourhood=neighbourhood or stored["neighbourhood"], ledger=ledger)

    @property
    def ledger(self) -> Path | None:
        """The ledger's real path (symbolic links and ``..`` resolved now)."""
        if self._ledger_arg is None:
            return None
        return Path(os.path.realpath(self._ledger_arg))

    # ------------------------------------------------------------------ state
    @property
    def entries(self) -> tuple[LedgerEntry, ...]:
        if self.ledger is not None:
            self._adopt(_read(self.ledger))
        return tuple(self._entries)

    @property
    def spent(self) -> float:
        return math.fsum(e.epsilon for e in self.entries)

    @property
    def remaining(self) -> float:
        return max(self.budget - self.spent, 0.0)

    def can_spend(self, epsilon: float) -> bool:
        """Whether a charge of ``epsilon`` fits the remaining budget."""
        return fits_budget(self.spent, epsilon, self.budget)

    # ------------------------------------------------------------------ charging
    def spend(self, release: Release) -> LedgerEntry:
        """Charge one release (sequential composition) or raise ``PrivacyBudgetExceeded``.

        Raises
        ------
        PrivacyBudgetExceeded
            The release would take the total above the budget; nothing is recorded.
        InvalidParameterError
            The release has no ε, or is edge-level against a node budget.
        """
        check_type(release, Release, "release", "Accountant.spend", "a Release")
        eps = _charge_of(release, self.neighbourhood)
        return self._charge([(release, eps)], eps, "sequential")[0]

    def spend_epsilon(self, epsilon: float, *, mechanism: str) -> LedgerEntry:
        """Charge a bare ``epsilon`` (for callers without a :class:`Release`)."""
        eps = check_float(epsilon, "epsilon", "Accountant.spend_epsilon", low=0.0,
                          closed="neither")
        r = Release.create(mechanism=mechanism, neighbourhood=self.neighbourhood, epsilon=eps)
        return self.spend(r)

    def spend_parallel(
        self, releases: Sequence[Release], domains: Sequence[Any] | None = None, *,
        units: Sequence[Any] | None = None,
    ) -> list[LedgerEntry]:
        """Charge releases on disjoint parts of a public partition: ``max ε`` if disjoint.

        Parameters
        ----------
        releases : sequence of Release
            The releases, one per part.
        domains : sequence of array-like
            For each release, its part's **domain**: every id of a protected unit it may read
            (cell or edge keys for an edge budget, node ids for a node budget), fixed from
            public information before the data is seen — for example the nodes of a public
            universe whose keyed hash falls in the part. They are checked pairwise for
            overlap here; overlapping parts fall back to sequential composition (the sum).
            An empty domain is refused (a release over no units reads nothing).

        Notes
        -----
        Parallel composition: if a neighbouring change touches one unit, it changes the input
        of at most one part, so only that part's ε is spent. This requires that each release
        depends *only* on the units of its domain, and that the domains do not depend on the
        data. **The units a data set happens to contain are not a domain**: under add/remove
        neighbours the added unit is in no such list, and two releases that both read the
        whole graph would look disjoint on an edgeless graph (charged ``max`` instead of the
        sum). The caller's claim is made explicit and auditable by the listing; the code can
        check the disjointness of the domains, not that they are public.
        """
        if units is not None:  # the former name: a domain is what was meant all along
            import warnings

            warnings.warn("spend_parallel(units=...) is now spend_parallel(domains=...): each "
                          "release's domain, fixed before the data is seen ('units' is removed "
                          "in 0.3.0).", DeprecationWarning, stacklevel=2)
            if domains is not None:
                raise InvalidParameterError(
                    "spend_parallel takes the domains once: 'domains' or the former 'units', "
                    "not both.")
            domains = units
        if domains is None:
            raise InvalidParameterError("spend_parallel needs the releases' domains.")
        units = domains
        if len(releases) != len(units) or not releases:
            raise InvalidParameterError(
                "spend_parallel needs one domain per release "
                f"(got {len(releases)} releases and {len(units)} domains)."
            )
        charges = []
        for r in releases:
            charges.append((r, _charge_of(r, self.neighbourhood)))
        arrays = [np.unique(np.asarray(u).ravel()) for u in units]
        empty = [i for i, a in enumerate(arrays) if not a.size]
        if empty:
            raise InvalidParameterError(
                f"spend_parallel: the domain of release {empty[0] + 1} is empty. A domain is "
                "every unit the release may read, fixed before the data is seen (not the "
                "units the data contains).")
        allu = np.concatenate(arrays) if arrays else np.zeros(0)
        disjoint = np.unique(allu).size == allu.size
        if disjoint:
            total = max(eps for _, eps in charges)
            rule = "parallel"
        else:
            total = math.fsum(eps for _, eps in charges)
            rule = "sequential (parts overlap)"
        return self._charge(charges, total, rule)

    # ------------------------------------------------------------------ internals
    def _charge(
        self, charges: list[tuple[Release, float]], total: float, rule: str
    ) -> list[LedgerEntry]:
        real = self.ledger
        if real is not None:  # refused without taking the lock (nor creating anything)
            self._adopt(_read(real))
            self._refuse_over(total)
        with _locked(real) if real is not None else contextlib.nullcontext():
            new_file = real is not None and not real.exists()
            data = _read(real) if real is not None else None
            stored = data is not None and self._adopt(data)
            self._refuse_over(total)
            now = _now()
            # the whole charge sits on the first entry; the others are recorded at 0
            new = [
                LedgerEntry(r.release_id, r.mechanism, r.neighbourhood,
                            total if i == 0 else 0.0,
                            rule if len(charges) == 1 else f"{rule} (ε of part {eps:.6g})",
                            now)
                for i, (r, eps) in enumerate(charges)
            ]
            self._entries.extend(new)
            if data is not None and real is not None:
                if not stored:
                    data["datasets"][self._key] = {
                        "budget": self.budget, "neighbourhood": self.neighbourhood,
                        "entries": []}
                    self.created = "ledger" if new_file else "dataset"
                data["datasets"][self._key]["entries"] = [e.to_dict() for e in self._entries]
                _write(real, data)
            return new

    def _refuse_over(self, total: float) -> None:
        spent = math.fsum(e.epsilon for e in self._entries)
        if not fits_budget(spent, total, self.budget):
            raise PrivacyBudgetExceeded(
                f"privacy budget of dataset {self.dataset!r} exceeded: spent "
                f"ε={spent:.6g} of {self.budget:.6g}, this release needs ε={total:.6g} "
                f"(remaining {max(self.budget - spent, 0.0):.6g}); nothing was released."
            )

    def _adopt(self, data: dict[str, Any]) -> bool:
        """Take the stored entries of the dataset (``False``: the ledger has none yet)."""
        where = f"privacy ledger {self.ledger}"
        key = find_dataset(data["datasets"], self.dataset, where)
        if key is None:
            self._entries = []
            return False
        ds = data["datasets"][key]
        same_budget(where, self.dataset, ds["budget"], ds["neighbourhood"], self.budget,
                    self.neighbourhood, f"graphanon ledger set-budget {self.ledger}")
        self._key = key
        self._entries = [LedgerEntry(**e) for e in ds["entries"]]
        return True


# ---------------------------------------------------------------------- the ledger file
@contextlib.contextmanager
def _locked(real: Path) -> Iterator[None]:
    """Hold the ledger's lock (``REALPATH.lock``, created with its folder if missing; removed
    again if this run created it and the block fails: :func:`graphanon._locks.lock_file`)."""
    from .._locks import lock_file

    with contextlib.ExitStack() as stack:
        try:
            real.parent.mkdir(parents=True, exist_ok=True)
            stack.enter_context(lock_file(real.with_name(real.name + ".lock"), keep=True))
        except OSError as exc:
            above = real.parent
            while not above.exists() and above != above.parent:
                above = above.parent
            why = (f"{str(above)!r} is a file, not a folder" if not above.is_dir()
                   else exc.strerror or str(exc))
            raise InvalidParameterError(
                f"privacy ledger {real}: cannot create its lock file: {why}.") from None
        yield


def _read(real: Path) -> dict[str, Any]:
    """The validated ledger at ``real`` (an empty one if there is no file)."""
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return {"format": LEDGER_FORMAT, "datasets": {}}
    except OSError as exc:
        raise InvalidParameterError(
            f"privacy ledger {real} is unreadable: {exc.strerror or exc}.") from None
    if not stat.S_ISREG(st.st_mode):
        raise InvalidParameterError(f"privacy ledger {real} is not a regular file.")
    if st.st_nlink > 1:
        raise InvalidParameterError(
            f"privacy ledger {real} has {st.st_nlink} hard links: each link would become "
            "a budget of its own. Keep one name (symbolic links are fine).")
    try:
        data = loads_json(real.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidParameterError(
            f"privacy ledger {real} is unreadable: {exc}") from None
    return validate_ledger(data, str(real))


def _write(real: Path, data: dict[str, Any]) -> None:
    """Replace the ledger at ``real`` atomically (temporary file, fsync, rename)."""
    tmp = new_temp(real)
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
            fh.flush()
            os.fsync(fh.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, os.stat(real).st_mode & 0o7777)
        os.replace(tmp, real)  # the real file: a symlink to it stays a symlink
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
