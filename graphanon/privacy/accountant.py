"""Privacy accounting: pure-ε sequential composition with a persistent JSON ledger.

An :class:`Accountant` guards one dataset (a stable name the operator chooses) under one
neighbouring relation and a total budget ε_total. Every release of that dataset is charged
before it is published; a charge that would take the total above the budget is refused with
:class:`~graphanon.errors.PrivacyBudgetExceeded` and nothing is recorded.

Composition rules (pure ε-DP):

- **Sequential** (always valid): releases M₁ … M_k on the same data cost ``Σ εᵢ``.
- **Parallel** (only when disjointness is proven): releases that each read a *disjoint* set of
  protected units cost ``max εᵢ``. :meth:`Accountant.spend_parallel` takes, per release, the
  array of unit ids it reads (cell / edge keys for edge-DP, node ids for node-DP) and checks
  pairwise disjointness itself; if any two overlap it charges the sum instead and says so.
- **Which ε a release costs** (:func:`charge_epsilon`, shared with the Neo4j ledger):
  k-anonymity / non-private releases carry none.
- **Across neighbourhoods**: a node-DP ε implies edge-DP at the same ε (one edge change is
  contained in one node change), so node-level releases may be charged to an edge budget; an
  edge-DP release implies nothing useful at node level (ε grows with the degree), so charging
  it to a node budget is refused. Personalized releases are charged their largest per-node ε
  (``epsilon_summary["max"]``), which bounds every node's loss.

The ledger is a JSON file ``{"format": "graphanon-ledger/1", "datasets": {name:
{"budget", "neighbourhood", "entries": [...]}}}``; it is re-read under a file lock before each
charge (so two processes share one budget) and rewritten atomically (temp file + rename).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import check_choice, check_float
from ..errors import InvalidParameterError, PrivacyBudgetExceeded
from .release import Release

__all__ = ["Accountant", "LedgerEntry", "charge_epsilon", "fits_budget"]

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


def charge_epsilon(
    release: Release | Mapping[str, Any], budget_neighbourhood: str
) -> float | None:
    """The ε a release costs against a budget stated for ``budget_neighbourhood``.

    The one set of accounting rules (pure-ε sequential composition), used by the JSON
    :class:`Accountant` and by the Neo4j ledger (:class:`graphanon.io.neo4j.Neo4jSink`):

    - ``"k-anonymity"`` / ``"none"`` releases carry no ε: ``None`` (nothing to charge; the
      Accountant refuses to account them, the Neo4j ledger writes them uncharged);
    - a node-DP (or personalized node-DP) release may be charged to an edge budget: one edge
      change is contained in one node change, so ε-node-DP implies ε-edge-DP;
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
    try:
        if nb.startswith("personalized"):
            return float(rec["epsilon_summary"]["max"])
        return float(rec["epsilon"])
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


class Accountant:
    """Pure-ε budget of one dataset, persisted in a JSON ledger.

    Parameters
    ----------
    budget : float
        Total ε the dataset may spend (> 0). When the ledger already holds this dataset, its
        stored budget wins unless they agree (a different value raises).
    dataset : str
        A stable name of the dataset chosen by the operator (``"social-prod"``). Never a
        content hash: the data changes (by the very edge DP protects, say) and a budget keyed
        by content would silently reset.
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
        if not isinstance(dataset, str) or not dataset:
            raise InvalidParameterError(
                f"The 'dataset' parameter of Accountant must be a non-empty str. "
                f"Got {dataset!r} instead."
            )
        self.dataset = dataset
        self.ledger = None if ledger is None else Path(ledger)
        self._entries: list[LedgerEntry] = []
        if self.ledger is not None:
            with self._locked():
                data = self._read()
                self._adopt(data)
                self._write(data)

    # ------------------------------------------------------------------ state
    @property
    def entries(self) -> tuple[LedgerEntry, ...]:
        if self.ledger is not None:
            self._adopt(self._read())
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
        eps = _charge_of(release, self.neighbourhood)
        return self._charge([(release, eps)], eps, "sequential")[0]

    def spend_epsilon(self, epsilon: float, *, mechanism: str) -> LedgerEntry:
        """Charge a bare ``epsilon`` (for callers without a :class:`Release`)."""
        eps = check_float(epsilon, "epsilon", "Accountant.spend_epsilon", low=0.0,
                          closed="neither")
        r = Release.create(mechanism=mechanism, neighbourhood=self.neighbourhood, epsilon=eps)
        return self.spend(r)

    def spend_parallel(
        self, releases: Sequence[Release], units: Sequence[Any]
    ) -> list[LedgerEntry]:
        """Charge releases on (provably) disjoint parts of the data: ``max ε`` if disjoint.

        Parameters
        ----------
        releases : sequence of Release
            The releases, one per part.
        units : sequence of array-like
            For each release, the ids of the protected units it reads (cell or edge keys for
            an edge budget, node ids for a node budget). They are checked pairwise for
            overlap here; overlapping parts fall back to sequential composition (the sum).

        Notes
        -----
        Parallel composition: if a neighbouring change touches one unit, it changes the input
        of at most one part, so only that part's ε is spent. This requires that each release
        depends *only* on its listed units — the caller's claim, which the listing makes
        explicit and auditable.
        """
        if len(releases) != len(units) or not releases:
            raise InvalidParameterError(
                "spend_parallel needs one units array per release "
                f"(got {len(releases)} releases and {len(units)} unit arrays)."
            )
        charges = []
        for r in releases:
            charges.append((r, _charge_of(r, self.neighbourhood)))
        arrays = [np.unique(np.asarray(u).ravel()) for u in units]
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
        with self._locked():
            data = self._read() if self.ledger is not None else None
            if data is not None:
                self._adopt(data)
            spent = math.fsum(e.epsilon for e in self._entries)
            if not fits_budget(spent, total, self.budget):
                raise PrivacyBudgetExceeded(
                    f"privacy budget of dataset {self.dataset!r} exceeded: spent "
                    f"ε={spent:.6g} of {self.budget:.6g}, this release needs ε={total:.6g} "
                    f"(remaining {max(self.budget - spent, 0.0):.6g}); nothing was released."
                )
            now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
            # the whole charge sits on the first entry; the others are recorded at 0
            new = [
                LedgerEntry(r.release_id, r.mechanism, r.neighbourhood,
                            total if i == 0 else 0.0,
                            rule if len(charges) == 1 else f"{rule} (ε of part {eps:.6g})",
                            now)
                for i, (r, eps) in enumerate(charges)
            ]
            self._entries.extend(new)
            if data is not None:
                data["datasets"][self.dataset]["entries"] = [e.to_dict() for e in self._entries]
                self._write(data)
            return new

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        if self.ledger is None:
            yield
            return
        self.ledger.parent.mkdir(parents=True, exist_ok=True)
        lock = self.ledger.with_name(self.ledger.name + ".lock")
        with open(lock, "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _read(self) -> dict[str, Any]:
        assert self.ledger is not None
        if not self.ledger.exists():
            return {"format": LEDGER_FORMAT, "datasets": {}}
        try:
            data = json.loads(self.ledger.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InvalidParameterError(
                f"privacy ledger {self.ledger} is unreadable: {exc}"
            ) from exc
        if not isinstance(data, dict) or data.get("format") != LEDGER_FORMAT:
            raise InvalidParameterError(
                f"privacy ledger {self.ledger} is not a {LEDGER_FORMAT} file."
            )
        return data

    def _adopt(self, data: dict[str, Any]) -> None:
        ds = data["datasets"].get(self.dataset)
        if ds is None:
            data["datasets"][self.dataset] = {
                "budget": self.budget, "neighbourhood": self.neighbourhood, "entries": [],
            }
            self._entries = []
            return
        if not math.isclose(ds["budget"], self.budget) or ds["neighbourhood"] != self.neighbourhood:
            raise InvalidParameterError(
                f"privacy ledger {self.ledger} already holds dataset {self.dataset!r} with "
                f"budget ε={ds['budget']} ({ds['neighbourhood']}); got ε={self.budget} "
                f"({self.neighbourhood}). A budget cannot be changed after the fact."
            )
        self._entries = [LedgerEntry(**e) for e in ds["entries"]]

    def _write(self, data: dict[str, Any]) -> None:
        assert self.ledger is not None
        fd, tmp = tempfile.mkstemp(prefix=f".{self.ledger.name}.", suffix=".tmp",
                                   dir=self.ledger.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=2)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.ledger)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
