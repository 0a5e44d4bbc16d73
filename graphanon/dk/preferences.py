"""Per-node privacy preferences Φ = {ε_v} for personalized differential privacy.

A :class:`Preferences` is a **public** table ``node id -> ε`` plus a default ε for nodes the
table does not list. Public means: the preferences themselves are not protected by the
release (they are chosen by, or announced for, the individuals, as in Jorgensen et al.). Under
node-PDP the *set of nodes in the graph* is private, so everything a mechanism derives from
the preferences (``ε_min``, μ = max / average) is computed over the table — the public universe
of potential nodes — and never over the nodes that happen to be in the graph.

Sources:

* :func:`thesis_scheme` — the thesis's specification after Jorgensen et al.: nodes are split at
  random into conservative (fraction ``f_c = 0.54``, ε uniform in ``[ε_C, ε_M]``), moderate
  (``f_m = 0.37``, ε uniform in ``[ε_M, ε_L]``) and liberal (the rest, ε = ``ε_L``), defaults
  ``ε_C = 0.01, ε_M = 0.2, ε_L = 1.0``;
* :func:`from_attribute` — a node attribute column of a :class:`~graphanon.graph.Graph` (e.g.
  a Neo4j property read by :mod:`graphanon.io.neo4j`);
* :func:`from_pairs` — ``(node id, ε)`` pairs (the CLI reads ``node<TAB>epsilon`` files with
  :func:`graphanon.io.preferences.read_preferences`).

**Default for nodes without a preference:** the smallest ε in the table (the most
conservative listed level), unless ``default=`` is given. It is public and counts in
``ε_min``.

References
----------
``004_*.txt`` §8.2 (Definitions 30–31) and §8.5.1 (privacy specifications); Z. Jorgensen,
T. Yu, G. Cormode, "Conservative or liberal? Personalized differential privacy", ICDE 2015.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._validation import EPSILON_RANGE, check_epsilon, check_float
from ..errors import InvalidParameterError
from ..graph import Graph
from ..privacy.release import keyed_fingerprint

__all__ = [
    "GROUP_CUTS",
    "Preferences",
    "from_attribute",
    "from_pairs",
    "group_labels",
    "thesis_scheme",
]

#: ε cut points of the per-group summaries: conservative < 0.2 <= moderate < 1.0 <= liberal
#: (the thesis's default ε_M and ε_L).
GROUP_CUTS = (0.2, 1.0)
GROUPS = ("conservative", "moderate", "liberal")


def _key(x: Any) -> str:
    if isinstance(x, (np.integer, int)):
        return str(int(x))
    return str(x)


@dataclass(frozen=True)
class Preferences:
    """A public preference table.

    Attributes
    ----------
    node_ids : ndarray of str
        Node ids of the table (as strings, so ``"7"`` in a file matches node id ``7``).
    epsilons : ndarray of float64
        ε of each listed node (finite, > 0).
    default : float
        ε of nodes not in the table.
    source : str
        How the table was made, in public words (``"thesis-scheme"``, ``"attribute:<name>"``,
        ``"file"``, ``"pairs"``); recorded in release records, so never a path.
    """

    node_ids: npt.NDArray[Any]
    epsilons: npt.NDArray[np.float64]
    default: float
    source: str = "pairs"

    def __post_init__(self) -> None:
        e = np.asarray(self.epsilons, dtype=np.float64)
        ids = np.asarray([_key(x) for x in np.asarray(self.node_ids, dtype=object).ravel()],
                         dtype=object)
        if e.shape != ids.shape:
            raise InvalidParameterError(
                f"Preferences need one ε per node id: {ids.size} ids, {e.size} values.")
        lo, hi = EPSILON_RANGE
        ok = np.isfinite(e) & (e >= lo) & (e <= hi)
        if e.size and not np.all(ok):
            raise InvalidParameterError(
                f"Every privacy preference ε must be a float in [{lo:g}, {hi:g}]. "
                f"Got {e[~ok][0]} instead.")
        if len(set(ids.tolist())) != ids.size:
            raise InvalidParameterError("The preference table lists a node id twice.")
        check_epsilon(self.default, "default", "Preferences")
        object.__setattr__(self, "epsilons", e)
        object.__setattr__(self, "node_ids", ids)

    # ------------------------------------------------------------------ public constants
    @property
    def universe(self) -> npt.NDArray[np.float64]:
        """ε over the public universe: the table plus the default."""
        return np.append(self.epsilons, self.default)

    @property
    def epsilon_min(self) -> float:
        """Smallest ε of the universe (PDP_min's level); public."""
        return float(self.universe.min())

    @property
    def epsilon_max(self) -> float:
        return float(self.universe.max())

    @property
    def epsilon_mean(self) -> float:
        """Average listed preference (the thesis's μ for ``*_avg``); the default if empty."""
        return float(self.epsilons.mean()) if self.epsilons.size else float(self.default)

    def resolve_mu(self, mu: float | str) -> float:
        """μ from ``"max"``, ``"avg"`` or a number (an ε: validated in ``EPSILON_RANGE``)."""
        if isinstance(mu, str):
            if mu == "max":
                return self.epsilon_max
            if mu in ("avg", "mean"):
                return self.epsilon_mean
            try:
                value = float(mu)
            except ValueError:
                value = float("nan")
            if not value > 0:  # (also text a float cannot hold: '1e-400' is not 0.0)
                raise InvalidParameterError(
                    f"The 'mu' parameter must be a float > 0, 'max' or 'avg'. Got {mu!r} "
                    "instead.")
            mu = value
        lo, hi = EPSILON_RANGE  # μ is an ε (the threshold of the TP / ST splits)
        return check_float(mu, "mu", "release_personalized (--mu)", low=lo, high=hi)

    # ------------------------------------------------------------------ lookups
    def for_graph(self, G: Graph) -> npt.NDArray[np.float64]:
        """ε of every node of ``G`` by index (``default`` for unlisted nodes)."""
        table = dict(zip(self.node_ids.tolist(), self.epsilons.tolist(), strict=True))
        return np.fromiter((table.get(_key(x), self.default) for x in G.node_ids),
                           dtype=np.float64, count=G.n_nodes)

    def n_missing(self, G: Graph) -> int:
        """Nodes of ``G`` that take the default."""
        ids = set(self.node_ids.tolist())
        return sum(_key(x) not in ids for x in G.node_ids)

    @property
    def content_hash(self) -> str:
        """SHA-256 of the table's content (sorted ``(id, ε)`` pairs and the default), whatever
        file, order or spelling of the numbers it was read from."""
        pairs = sorted(zip(self.node_ids.tolist(), map(float.hex, self.epsilons.tolist()),
                           strict=True))
        text = json.dumps([pairs, float(self.default).hex()], ensure_ascii=False)
        return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()

    def summary(self) -> dict[str, Any]:
        """The public description a release records: sizes and levels, how the table was
        made, and its keyed digest (HMAC of :attr:`content_hash` under the operator's
        fingerprint key: the operator can tell which table a release used, nobody else learns
        more than the public table; where the table lives is not recorded)."""
        return {"n_listed": int(self.epsilons.size), "default": self.default,
                "min": self.epsilon_min, "mean": self.epsilon_mean, "max": self.epsilon_max,
                "source": self.source, "digest": keyed_fingerprint(self.content_hash)}


def from_pairs(node_ids: Any, epsilons: Any, *, default: float | None = None,
               source: str = "pairs") -> Preferences:
    """A table from parallel sequences; ``default`` = smallest listed ε when None."""
    e = np.asarray(epsilons, dtype=np.float64).ravel()
    if default is None:
        if e.size == 0:
            raise InvalidParameterError(
                "An empty preference table needs an explicit 'default' ε.")
        default = float(np.nanmin(e)) if np.isfinite(e).any() else math.nan
    return Preferences(np.asarray(node_ids, dtype=object).ravel(), e, float(default), source)


def from_attribute(G: Graph, name: str = "epsilon", *, default: float | None = None
                   ) -> Preferences:
    """The table from a node attribute column of ``G``; NaN / None entries take the default."""
    if name not in G.attributes:
        raise InvalidParameterError(
            f"The graph has no node attribute {name!r} to read privacy preferences from "
            f"(attributes: {sorted(G.attributes)}).")
    raw = np.asarray(G.attributes[name], dtype=object)
    try:
        vals = np.array([math.nan if v is None else float(v) for v in raw], dtype=np.float64)
    except (TypeError, ValueError):
        bad = next(v for v in raw if not _is_float(v))
        raise InvalidParameterError(
            f"The node attribute {name!r} must hold numbers (privacy preferences ε). Got "
            f"{bad!r}.") from None
    listed = ~np.isnan(vals)
    return from_pairs(np.asarray(G.node_ids, dtype=object)[listed], vals[listed],
                      default=default, source=f"attribute:{name}")


def _is_float(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return v is None
    return True


def thesis_scheme(
    node_ids: Any,
    *,
    rng: np.random.Generator,
    eps_c: float = 0.01,
    eps_m: float = 0.2,
    eps_l: float = 1.0,
    f_c: float = 0.54,
    f_m: float = 0.37,
) -> Preferences:
    """Random conservative / moderate / liberal preferences (thesis §8.5.1, Jorgensen et al.).

    Parameters
    ----------
    node_ids : sequence
        The nodes to assign (e.g. ``G.node_ids``).
    rng : numpy.random.Generator
        Source of the assignment (the preferences are public: no secure randomness needed).
    eps_c, eps_m, eps_l : float
        ``0 < ε_C <= ε_M <= ε_L``.
    f_c, f_m : float
        Fractions of conservative and moderate nodes; liberal get ``1 − f_c − f_m``.

    Returns
    -------
    Preferences
        ``round(f_c n)`` conservative nodes with ε ~ U[ε_C, ε_M], ``round(f_m n)`` moderate
        with ε ~ U[ε_M, ε_L], the rest liberal at ε_L; default = ε_C.
    """
    owner = "thesis_scheme"
    eps_c = check_epsilon(eps_c, "eps_c", owner)
    eps_m = check_float(eps_m, "eps_m", owner, low=eps_c)
    eps_l = check_float(eps_l, "eps_l", owner, low=eps_m)
    f_c = check_float(f_c, "f_c", owner, low=0.0, high=1.0)
    f_m = check_float(f_m, "f_m", owner, low=0.0, high=1.0 - f_c)
    ids = np.asarray(node_ids, dtype=object).ravel()
    n = ids.size
    n_c, n_m = round(f_c * n), round(f_m * n)
    n_m = min(n_m, n - n_c)
    perm = rng.permutation(n)
    eps = np.full(n, eps_l, dtype=np.float64)
    eps[perm[:n_c]] = rng.uniform(eps_c, eps_m, size=n_c)
    eps[perm[n_c:n_c + n_m]] = rng.uniform(eps_m, eps_l, size=n_m)
    return Preferences(ids, eps, eps_c, "thesis-scheme")


def group_labels(eps: Any, cuts: tuple[float, float] = GROUP_CUTS) -> npt.NDArray[Any]:
    """``"conservative"`` (ε < cuts[0]), ``"moderate"`` (< cuts[1]) or ``"liberal"``."""
    e = np.asarray(eps, dtype=np.float64)
    idx = np.searchsorted(np.asarray(cuts), e, side="right")
    return np.asarray(GROUPS, dtype=object)[idx]
