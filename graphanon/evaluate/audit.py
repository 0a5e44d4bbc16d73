"""Empirical privacy audits: a statistically valid lower bound on the ε of a DP mechanism.

A DP claim says that for every pair of neighbouring inputs ``D ~ D'`` and every set of
outputs ``S``, ``P[M(D) ∈ S] <= e^ε P[M(D') ∈ S]``. An audit picks a pair that stresses the
mechanism, runs it many times on each input and looks for a set ``S`` (a threshold test on a
scalar statistic of the output) on which the two output distributions differ by more than
``e^ε``. With ``n`` runs per input the false positive rate ``FPR = P[T(M(D')) >= t]`` and the
false negative rate ``FNR = P[T(M(D)) < t]`` are bounded above by one-sided Clopper–Pearson
bounds, each at level ``α/2``, so with confidence ``1 − α``

    ε >= ε_lb = max( ln((1 − FNR_ub) / FPR_ub), ln((1 − FPR_ub) / FNR_ub) )

(Kairouz, Oh & Viswanath 2015, Theorem 2.1 with δ = 0; the auditing recipe of Jagielski,
Ullman & Oprea 2020 and Nasr et al. 2021). The threshold ``t`` and the direction of the test
are chosen on a *separate* set of runs, so the evaluation runs see one test only and no
multiple-testing correction is needed. ``ε_lb`` exceeds the true ε of the pair with
probability at most ``α``; a claim below ``ε_lb`` is refuted at that confidence.

What is run
-----------
``mode="replay"`` (the dK family, node-DP, personalized DP, Hay): the real release function is
called once on ``D`` and once on ``D'`` with a :class:`ReplayBackend` wrapped around the noise
backend. The mechanism computes its statistic and its calibration (sensitivity, ε, per-entry
scales) itself and makes its one noise call; the replay backend passes it through to the real
backend and records it. The audit then repeats *that call* — the mechanism's own statistic
vector with the mechanism's own ``sensitivity``/``epsilon`` or scales — ``n`` times in one
batched call of the real backend (OpenDP by default). Everything after the noise call is
post-processing, which cannot increase ε, so the audited output is the raw noisy answer
vector; where the result exposes it (``.noisy``) the audit checks it is exactly what the noise
call returned. A mechanism that makes more than one random call (θ chosen privately, ST-dK
sampling, RPS) cannot be replayed and is refused.

``mode="direct"`` (randomized response, whose coin flips are not a backend call): the real
release function is run ``n`` times on each input.

The statistic is the log-likelihood-ratio shape of a Laplace release,
``T(y) = Σ_i w_i (|y_i − b_i| − |y_i − a_i|)`` with ``a``, ``b`` the exact statistic vectors of
``D``, ``D'`` (as the mechanism computed them) and ``w_i`` the inverse per-entry scales of the
intercepted call (uniform in direct mode). Any fixed statistic gives a valid bound; this one
is the Neyman–Pearson test when the calibration is right, so the bound approaches the pair's
privacy loss ``Σ |a_i − b_i| / s_i`` (reported as ``pair_epsilon``) as ``n`` grows.

References
----------
P. Kairouz, S. Oh, P. Viswanath, "The composition theorem for differential privacy", ICML 2015.
M. Jagielski, J. Ullman, A. Oprea, "Auditing differentially private machine learning: how
private is private SGD?", NeurIPS 2020. M. Nasr, S. Song, A. Thakurta, N. Papernot,
N. Carlini, "Adversary instantiation: lower bounds for differentially private machine
learning", IEEE S&P 2021. C. J. Clopper, E. S. Pearson, Biometrika 1934.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._progress import ProgressFn, log_progress
from .._validation import check_choice, check_epsilon, check_float, check_int
from ..errors import InvalidParameterError
from ..graph import BipartiteGraph, Graph
from ..privacy.noise import NoiseBackend, continuous_scale, dp_scale, get_backend
from ..privacy.release import Release

__all__ = [
    "AUDIT_MECHANISMS",
    "AuditTarget",
    "Candidate",
    "EmpiricalAudit",
    "ReplayBackend",
    "audit_mechanism",
    "audit_targets",
    "clique_pairs",
    "clopper_pearson_upper",
    "edge_list_pairs",
    "epsilon_lower_bound",
    "hub_pairs",
    "joined_star_pairs",
    "miscalibrated_dk1",
    "random_edge_pairs",
    "random_node_pairs",
]

FloatArray = npt.NDArray[np.float64]
#: A mechanism under audit: ``(input, backend) -> (raw noisy answers or None, Release)``.
Mechanism = Callable[[Any, NoiseBackend], tuple[Any, Release]]
_CHUNK = 2_000_000  # entries per batched backend call


# ---------------------------------------------------------------------- statistics
def clopper_pearson_upper(k: Any, n: int, alpha: float) -> FloatArray:
    """One-sided Clopper–Pearson upper bound(s) on a binomial rate at confidence ``1 − alpha``.

    Parameters
    ----------
    k : int or array of int
        Observed successes.
    n : int
        Trials (> 0).
    alpha : float
        Error probability of the bound, in ``(0, 1)``.

    Returns
    -------
    ndarray of float
        ``p`` such that ``P[Binomial(n, p) <= k] = alpha`` (``1`` where ``k == n``).
    """
    from scipy.stats import beta

    k_arr = np.atleast_1d(np.asarray(k, dtype=np.float64))
    out = np.ones(k_arr.shape, dtype=np.float64)
    inner = k_arr < n
    if inner.any():
        out[inner] = beta.ppf(1.0 - alpha, k_arr[inner] + 1.0, n - k_arr[inner])
    return out


def _eps_from_rates(fpr_ub: FloatArray, fnr_ub: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.log(np.clip(1.0 - fnr_ub, 0.0, None)) - np.log(fpr_ub)
        b = np.log(np.clip(1.0 - fpr_ub, 0.0, None)) - np.log(fnr_ub)
    out = np.fmax(a, b)
    return np.where(np.isfinite(out), np.maximum(out, 0.0), 0.0)


def epsilon_lower_bound(
    scores_d: Any, scores_d_prime: Any, *, threshold: float, confidence: float = 0.95,
) -> dict[str, Any]:
    """ε lower bound of the test "output came from ``D`` iff ``T >= threshold``".

    Parameters
    ----------
    scores_d, scores_d_prime : array of float
        The statistic on independent runs of the mechanism on ``D`` and on ``D'``.
    threshold : float
        Chosen beforehand (on other runs).
    confidence : float
        ``1 − α``; the FPR and FNR bounds get ``α/2`` each.

    Returns
    -------
    dict
        ``epsilon_lower_bound``, ``fpr_upper``, ``fnr_upper``, ``false_positives``,
        ``false_negatives``, ``n_d``, ``n_d_prime``.
    """
    conf = check_float(confidence, "confidence", "epsilon_lower_bound", low=0.5, high=1.0,
                       closed="left")
    sd = np.asarray(scores_d, dtype=np.float64)
    sp = np.asarray(scores_d_prime, dtype=np.float64)
    if sd.size == 0 or sp.size == 0:
        raise InvalidParameterError("epsilon_lower_bound needs runs on both inputs.")
    alpha = 1.0 - conf
    fn = int((sd < threshold).sum())
    fp = int((sp >= threshold).sum())
    fnr_ub = clopper_pearson_upper(fn, sd.size, alpha / 2)
    fpr_ub = clopper_pearson_upper(fp, sp.size, alpha / 2)
    return {"epsilon_lower_bound": float(_eps_from_rates(fpr_ub, fnr_ub)[0]),
            "fpr_upper": float(fpr_ub[0]), "fnr_upper": float(fnr_ub[0]),
            "false_positives": fp, "false_negatives": fn,
            "n_d": int(sd.size), "n_d_prime": int(sp.size)}


def _select_threshold(sd: FloatArray, sp: FloatArray, alpha: float) -> float:
    """The threshold whose bound is best on the selection runs (both test directions are
    evaluated by :func:`epsilon_lower_bound`'s two ratios)."""
    cand = np.unique(np.concatenate([sd, sp]))
    sd_sorted, sp_sorted = np.sort(sd), np.sort(sp)
    fn = np.searchsorted(sd_sorted, cand, side="left")  # D runs below t
    fp = sp.size - np.searchsorted(sp_sorted, cand, side="left")  # D' runs at or above t
    eps = _eps_from_rates(clopper_pearson_upper(fp, sp.size, alpha / 2),
                          clopper_pearson_upper(fn, sd.size, alpha / 2))
    return float(cand[int(np.argmax(eps))])


# ---------------------------------------------------------------------- replay backend
class ReplayBackend:
    """A noise backend that passes calls through to ``base`` and records them.

    After the mechanism has run, :meth:`draw` repeats its (single) noise call ``n`` times in
    batched calls of ``base``: the same statistic vector, the same ``sensitivity``/``epsilon``
    or per-entry scales, the same backend — only the randomness is fresh.
    """

    def __init__(self, base: NoiseBackend) -> None:
        self.base = base
        self.name = base.name
        self.secure = base.secure
        self.calls: list[tuple[str, npt.NDArray[Any], dict[str, Any], Any]] = []

    # -- recorded noise calls
    def discrete_laplace(self, counts: Any, *, sensitivity: float, epsilon: float) -> Any:
        out = self.base.discrete_laplace(counts, sensitivity=sensitivity, epsilon=epsilon)
        self.calls.append(("discrete_laplace", np.array(counts, copy=True),
                           {"sensitivity": sensitivity, "epsilon": epsilon}, out))
        return out

    def laplace(self, values: Any, *, sensitivity: float, epsilon: float) -> Any:
        out = self.base.laplace(values, sensitivity=sensitivity, epsilon=epsilon)
        self.calls.append(("laplace", np.array(values, copy=True),
                           {"sensitivity": sensitivity, "epsilon": epsilon}, out))
        return out

    def discrete_laplace_scales(self, counts: Any, scales: Any) -> Any:
        out = self.base.discrete_laplace_scales(counts, scales)
        self.calls.append(("discrete_laplace_scales", np.array(counts, copy=True),
                           {"scales": np.array(scales, dtype=np.float64, copy=True)}, out))
        return out

    # -- other randomness: recorded so that a replay can refuse
    def cauchy(self, values: Any, *, scale: float) -> Any:
        out = self.base.cauchy(values, scale=scale)
        self.calls.append(("cauchy", np.array(values, copy=True), {"scale": scale}, out))
        return out

    def uniform(self, size: int) -> Any:
        out = self.base.uniform(size)
        self.calls.append(("uniform", np.zeros(0), {"size": size}, out))
        return out

    def binomial(self, n: int, p: float) -> int:
        out = self.base.binomial(n, p)
        self.calls.append(("binomial", np.zeros(0), {"n": n, "p": p}, out))
        return out

    def integers(self, high: int, size: int) -> Any:
        out = self.base.integers(high, size)
        self.calls.append(("integers", np.zeros(0), {"high": high, "size": size}, out))
        return out

    # -- replay
    def _single(self, owner: str) -> tuple[str, npt.NDArray[Any], dict[str, Any], Any]:
        kinds = [c[0] for c in self.calls]
        if len(self.calls) != 1 or kinds[0] not in (
                "discrete_laplace", "laplace", "discrete_laplace_scales"):
            raise InvalidParameterError(
                f"{owner}: a replay audit needs a mechanism that makes exactly one Laplace "
                f"noise call; this one made {kinds or 'none'}. Audit it in direct mode.")
        return self.calls[0]

    @property
    def statistic(self) -> FloatArray:
        """The exact vector the mechanism noised (flattened)."""
        return np.asarray(self._single("ReplayBackend")[1], dtype=np.float64).ravel()

    @property
    def noised(self) -> FloatArray:
        """What the recorded call returned (the mechanism's raw noisy answers)."""
        return np.asarray(self._single("ReplayBackend")[3], dtype=np.float64).ravel()

    @property
    def sensitivity(self) -> float | None:
        kind, _, kw, _ = self._single("ReplayBackend")
        return None if kind == "discrete_laplace_scales" else float(kw["sensitivity"])

    def scales(self) -> FloatArray:
        """Per-entry noise scale of the recorded call (for the statistic's weights and the
        pair's privacy loss; the draws themselves never use it)."""
        kind, counts, kw, _ = self._single("ReplayBackend")
        size = np.asarray(counts).size
        if kind == "discrete_laplace_scales":
            return np.broadcast_to(np.asarray(kw["scales"], dtype=np.float64).ravel(),
                                   (size,)).copy()
        if kind == "discrete_laplace":
            return np.full(size, dp_scale(kw["sensitivity"], kw["epsilon"]))
        return np.full(size, continuous_scale(kw["sensitivity"], kw["epsilon"]))

    def draw(self, n: int) -> FloatArray:
        """``n`` fresh outputs of the recorded call, shape ``(n, size)``."""
        kind, counts, kw, _ = self._single("ReplayBackend.draw")
        flat = np.asarray(counts).ravel()
        size = max(flat.size, 1)
        rows = max(1, _CHUNK // size)
        parts = []
        for start in range(0, n, rows):
            m = min(rows, n - start)
            tiled = np.tile(flat, m)
            out: Any
            if kind == "discrete_laplace":
                out = self.base.discrete_laplace(tiled, sensitivity=kw["sensitivity"],
                                                 epsilon=kw["epsilon"])
            elif kind == "laplace":
                out = self.base.laplace(tiled, sensitivity=kw["sensitivity"],
                                        epsilon=kw["epsilon"])
            else:
                sc = np.broadcast_to(np.asarray(kw["scales"]).ravel(), flat.shape)
                out = self.base.discrete_laplace_scales(tiled, np.tile(sc, m))
            parts.append(np.asarray(out, dtype=np.float64).reshape(m, flat.size))
        return np.concatenate(parts) if parts else np.zeros((0, flat.size))


# ---------------------------------------------------------------------- targets
@dataclass(frozen=True)
class Candidate:
    """A neighbouring pair ``D ~ D'`` with a description."""

    D: Any
    D_prime: Any
    description: str


@dataclass(frozen=True)
class AuditTarget:
    """A DP mechanism under audit and the neighbouring pairs that stress it.

    Attributes
    ----------
    name : str
        Display name: the mechanism name of its Release plus its public setting (not ε,
        which every audit reports as ``claimed_epsilon``).
    command : str
        The CLI command the mechanism belongs to.
    neighbourhood : str
        The relation of the pairs (``"edge"``, ``"node"``, ``"personalized-edge"``).
    mechanism : callable
        ``(input, backend) -> (raw noisy answers or None, Release)``: the real release
        function with its public parameters bound.
    candidates : callable
        ``() -> list of Candidate``: worst-case pairs; in replay mode the pair with the
        largest privacy loss under the mechanism's own calibration is audited.
    worst_case : str
        Where the pairs come from (the sensitivity derivation they attain).
    mode : {"replay", "direct"}
        See the module docstring.
    truth : callable, optional
        Direct mode: ``input -> exact output vector`` (the centre of the test statistic).
    claim : {"epsilon", "epsilon_min"}
        Read the claimed ε from ``Release.epsilon``, or from ``epsilon_summary["min"]`` (the
        owner of the smallest ε under personalized DP).
    control : bool
        A deliberately mis-calibrated mechanism that the audit must catch.
    noise_source : callable, optional
        ``backend -> name`` of the randomness the mechanism really uses (direct mode);
        default the backend's name.
    """

    name: str
    command: str
    neighbourhood: str
    mechanism: Mechanism
    candidates: Callable[[], list[Candidate]]
    worst_case: str
    mode: str = "replay"
    truth: Callable[[Any], Any] | None = None
    claim: str = "epsilon"
    control: bool = False
    noise_source: Callable[[NoiseBackend], str] | None = None


@dataclass(frozen=True)
class EmpiricalAudit:
    """Outcome of :func:`audit_mechanism` (all fields JSON-able through :meth:`to_dict`)."""

    mechanism: str
    command: str
    neighbourhood: str
    claimed_epsilon: float
    empirical_epsilon_lower_bound: float
    confidence: float
    pair: str
    pair_epsilon: float | None
    sensitivity: float | None
    threshold: float
    fpr_upper: float
    fnr_upper: float
    false_positives: int
    false_negatives: int
    n_select: int
    n_eval: int
    backend: str
    mode: str
    control: bool
    seconds: float
    notes: list[str] = field(default_factory=list)

    @property
    def exceeds_claim(self) -> bool:
        """True when the lower bound refutes the claim (expected only for controls)."""
        return self.empirical_epsilon_lower_bound > self.claimed_epsilon * (1 + 1e-12)

    @property
    def pair_exceeds_claim(self) -> bool:
        """True when the audited pair's exact privacy loss under the mechanism's own
        calibration (``pair_epsilon``, replay mode) is above the claim: then the claim is
        false for that pair, with certainty — a sensitivity derivation that missed it."""
        return (self.pair_epsilon is not None and not self.control
                and self.pair_epsilon > self.claimed_epsilon * (1 + 1e-9))

    @property
    def ratio(self) -> float:
        """``empirical lower bound / claimed ε``."""
        return self.empirical_epsilon_lower_bound / self.claimed_epsilon

    def to_dict(self) -> dict[str, Any]:
        return {"mechanism": self.mechanism, "command": self.command,
                "neighbourhood": self.neighbourhood, "claimed_epsilon": self.claimed_epsilon,
                "empirical_epsilon_lower_bound": self.empirical_epsilon_lower_bound,
                "ratio": self.ratio, "exceeds_claim": self.exceeds_claim,
                "pair_exceeds_claim": self.pair_exceeds_claim,
                "confidence": self.confidence, "pair": self.pair,
                "pair_epsilon": self.pair_epsilon, "sensitivity": self.sensitivity,
                "threshold": self.threshold, "fpr_upper": self.fpr_upper,
                "fnr_upper": self.fnr_upper, "false_positives": self.false_positives,
                "false_negatives": self.false_negatives, "n_select": self.n_select,
                "n_eval": self.n_eval, "backend": self.backend, "mode": self.mode,
                "control": self.control, "seconds": self.seconds, "notes": list(self.notes)}


def _claimed(rel: Release, claim: str, owner: str) -> float:
    if rel.neighbourhood in ("none", "k-anonymity"):
        raise InvalidParameterError(
            f"{owner}: the release of {rel.mechanism!r} claims no differential privacy "
            f"(neighbourhood {rel.neighbourhood!r}); there is nothing to audit.")
    if claim == "epsilon_min":
        if rel.epsilon_summary is None:
            raise InvalidParameterError(f"{owner}: {rel.mechanism!r} has no epsilon_summary.")
        return float(rel.epsilon_summary["min"])
    if rel.epsilon is None:
        raise InvalidParameterError(f"{owner}: {rel.mechanism!r} states no epsilon.")
    return float(rel.epsilon)


def _llr(Y: FloatArray, a: FloatArray, b: FloatArray, w: FloatArray) -> FloatArray:
    """``Σ_i w_i (|y_i − b_i| − |y_i − a_i|)`` over the coordinates where ``a != b``."""
    diff = np.flatnonzero(a != b)
    if diff.size == 0:
        return np.zeros(Y.shape[0])
    Yd = Y[:, diff]
    return np.asarray(((np.abs(Yd - b[diff]) - np.abs(Yd - a[diff])) * w[diff]).sum(axis=1),
                      dtype=np.float64)


def audit_mechanism(
    target: AuditTarget,
    *,
    backend: NoiseBackend | None = None,
    n_select: int = 2_000,
    n_eval: int = 10_000,
    confidence: float = 0.95,
    progress: ProgressFn = log_progress,
) -> EmpiricalAudit:
    """Empirical ε lower bound of one mechanism on its worst-case pair.

    Parameters
    ----------
    target : AuditTarget
        The mechanism and its candidate pairs (see :func:`audit_targets`).
    backend : NoiseBackend, optional
        Where the noise comes from; default the secure OpenDP backend. Direct-mode
        randomized response draws its coins from ``os.urandom`` unless the backend is the
        seeded ``numpy-insecure`` one (then from its generator).
    n_select : int
        Runs per input used to choose the threshold (not used in the bound).
    n_eval : int
        Fresh runs per input for the Clopper–Pearson bounds.
    confidence : float
        ``1 − α`` of the bound (default 0.95).
    progress : ProgressFn
        Progress sink.

    Returns
    -------
    EmpiricalAudit

    Raises
    ------
    InvalidParameterError
        Bad parameters, a mechanism that claims no DP, or one that cannot be replayed.

    Notes
    -----
    Valid at confidence ``1 − α`` for the audited pair: the threshold is chosen on runs that
    are not used in the bound, and the two Clopper–Pearson bounds take ``α/2`` each.
    """
    owner = "audit_mechanism"
    n_select = check_int(n_select, "n_select", owner, low=10)
    n_eval = check_int(n_eval, "n_eval", owner, low=10)
    conf = check_float(confidence, "confidence", owner, low=0.5, high=1.0, closed="left")
    check_choice(target.mode, "mode", owner, ("replay", "direct"))
    check_choice(target.claim, "claim", owner, ("epsilon", "epsilon_min"))
    base = backend if backend is not None else get_backend("opendp")
    t0 = time.perf_counter()
    cands = target.candidates()
    if not cands:
        raise InvalidParameterError(f"{owner}: {target.name} has no candidate pairs.")
    total = n_select + n_eval
    notes: list[str] = []
    progress(f"audit {target.name}", 0, 3)
    if target.mode == "replay":
        best: tuple[float, Candidate, ReplayBackend, ReplayBackend, Release] | None = None
        for cand in cands:
            rd, rp = ReplayBackend(base), ReplayBackend(base)
            out_d, rel = target.mechanism(cand.D, rd)
            out_p, _ = target.mechanism(cand.D_prime, rp)
            for out, rb in ((out_d, rd), (out_p, rp)):
                if out is not None and not np.array_equal(
                        np.asarray(out, dtype=np.float64).ravel(), rb.noised):
                    raise InvalidParameterError(
                        f"{owner}: the raw output of {target.name} is not what its noise "
                        "call returned; the replay would audit the wrong vector.")
            a, b = rd.statistic, rp.statistic
            if a.shape != b.shape:
                raise InvalidParameterError(
                    f"{owner}: {target.name} noises vectors of different lengths on "
                    f"{cand.description}; the output domain must be public.")
            loss = float((np.abs(a - b) / rd.scales()).sum())
            if best is None or loss > best[0]:
                best = (loss, cand, rd, rp, rel)
        assert best is not None
        pair_eps, cand, rd, rp, rel = best
        progress(f"audit {target.name}", 1, 3)
        a, b, w = rd.statistic, rp.statistic, 1.0 / rd.scales()
        Yd, Yp = rd.draw(total), rp.draw(total)
        sens = rd.sensitivity
        pair_epsilon: float | None = pair_eps
    else:
        if target.truth is None:
            raise InvalidParameterError(f"{owner}: direct mode needs 'truth'.")
        truths = [(np.asarray(target.truth(c.D), dtype=np.float64).ravel(),
                   np.asarray(target.truth(c.D_prime), dtype=np.float64).ravel(), c)
                  for c in cands]
        a, b, cand = max(truths, key=lambda t: float(np.abs(t[0] - t[1]).sum()))
        w = np.ones(a.size)
        runs = []
        for x in (cand.D, cand.D_prime):
            rows = []
            for i in range(total):
                out, rel = target.mechanism(x, base)
                rows.append(np.asarray(out, dtype=np.float64).ravel())
                if i % 2000 == 0:
                    progress(f"audit {target.name}", 1, 3)
            runs.append(np.vstack(rows))
        Yd, Yp = runs
        sens = rel.sensitivity
        pair_epsilon = None
    claimed = _claimed(rel, target.claim, owner)
    progress(f"audit {target.name}", 2, 3)
    td, tp = _llr(Yd, a, b, w), _llr(Yp, a, b, w)
    thr = _select_threshold(td[:n_select], tp[:n_select], 1.0 - conf)
    res = epsilon_lower_bound(td[n_select:], tp[n_select:], threshold=thr, confidence=conf)
    progress(f"audit {target.name}", 3, 3)
    if target.control:
        notes.append("control: deliberately mis-calibrated (half the sensitivity); the audit "
                     "must find a lower bound above the claim")
    return EmpiricalAudit(
        mechanism=target.name, command=target.command, neighbourhood=target.neighbourhood,
        claimed_epsilon=claimed, empirical_epsilon_lower_bound=res["epsilon_lower_bound"],
        confidence=conf, pair=cand.description, pair_epsilon=pair_epsilon,
        sensitivity=None if sens is None else float(sens), threshold=thr,
        fpr_upper=res["fpr_upper"], fnr_upper=res["fnr_upper"],
        false_positives=res["false_positives"], false_negatives=res["false_negatives"],
        n_select=n_select, n_eval=n_eval,
        backend=target.noise_source(base) if target.noise_source else base.name,
        mode=target.mode, control=target.control, seconds=time.perf_counter() - t0,
        notes=notes)


# ---------------------------------------------------------------------- worst-case pairs
def _star_pair_graph(a: int, b: int, *, joined: bool) -> Graph:
    """Two stars (centres 0 and a+1, with a and b leaves), centres joined or not."""
    u = [0] * a + [a + 1] * b
    v = list(range(1, a + 1)) + list(range(a + 2, a + b + 2))
    if joined:
        u.append(0)
        v.append(a + 1)
    return Graph.from_edges(np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64),
                            n_nodes=a + b + 2)


def joined_star_pairs(h: int) -> list[Candidate]:
    """Edge neighbours: two stars with ``a <= b <= h`` leaves, with / without the edge joining
    their centres. ``a = b = h − 1`` attains the 2K bound ``4h − 3`` (dk/release.py); ``a = b``
    small attains the 1K bound 4 with the change on two bins (``−2``, ``+2``)."""
    return [Candidate(_star_pair_graph(a, b, joined=False), _star_pair_graph(a, b, joined=True),
                      f"joined stars: centres with {a} and {b} leaves, edge between centres")
            for a in range(h + 1) for b in range(a, h + 1)]


def _hub_graph(m: int, leaves: int) -> Graph:
    """Hub 0 with ``m`` neighbours, each with ``leaves`` private leaves."""
    u: list[int] = []
    v: list[int] = []
    nxt = m + 1
    for i in range(1, m + 1):
        u.append(0)
        v.append(i)
        for _ in range(leaves):
            u.append(i)
            v.append(nxt)
            nxt += 1
    return Graph.from_edges(np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64),
                            n_nodes=nxt)


def hub_pairs(theta: int) -> list[Candidate]:
    """Node neighbours: a hub with ``m <= θ + 1`` neighbours that have ``l <= θ`` leaves each,
    with / without the hub. The star (``l = 0``, ``m = θ``) attains the 1K bound ``2θ + 1``;
    ``l = θ − 1`` gives the 2K change ``2θ² − θ`` of the ``θ(2θ + 1)`` bound."""
    out = []
    for m in range(1, theta + 2):
        for leaves in range(theta + 1):
            G = _hub_graph(m, leaves)
            keep = np.ones(G.n_nodes, dtype=bool)
            keep[0] = False
            out.append(Candidate(G, G.subgraph(keep),
                                 f"hub with {m} neighbours of {leaves} leaves each, removed"))
    return out


def edge_list_pairs(theta: int, leaves: int = 100) -> list[Candidate]:
    """Node neighbours as an edge list holds them (docs/node_dp.md, "Node set"): removing a
    node also removes each neighbour whose only edge was theirs. A ``leaves``-leaf star and
    the empty file (the attack that moved a degree-0 bin by ``leaves + 1``), and the hubs of
    :func:`hub_pairs` with the hub removed from the file."""
    from ..privacy.audit import remove_node_from_edge_list

    centre = np.zeros(leaves, dtype=np.int64)
    S = Graph.from_edges(centre, np.arange(1, leaves + 1, dtype=np.int64))
    empty = Graph.from_edges(centre[:0], centre[:0], n_nodes=0)
    out = [Candidate(S, empty, f"star with {leaves} leaves and the empty file")]
    for m in range(1, theta + 2):
        for lv in (0, theta):
            G = _hub_graph(m, lv)
            out.append(Candidate(G, remove_node_from_edge_list(G, 0),
                                 f"hub with {m} neighbours of {lv} leaves each, removed from "
                                 "the edge list"))
    return out


#: Random pairs added to every edge / node audit, beside its derivation's worst cases.
RANDOM_PAIRS = 40


def _random_graph(rng: np.random.Generator, n: int, max_degree: int | None) -> Graph:
    """A random simple graph on ``n`` nodes: the pairs in random order, each kept with
    probability ``p ~ U(0.2, 0.9)`` while both ends are below ``max_degree``."""
    iu, ju = np.triu_indices(n, 1)
    order = rng.permutation(iu.size)
    p = rng.uniform(0.2, 0.9)
    deg = np.zeros(n, dtype=np.int64)
    u: list[int] = []
    v: list[int] = []
    for e in order.tolist():
        a, b = int(iu[e]), int(ju[e])
        if rng.random() < p and (max_degree is None or max(deg[a], deg[b]) < max_degree):
            u.append(a)
            v.append(b)
            deg[a] += 1
            deg[b] += 1
    return Graph.from_edges(np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64),
                            n_nodes=n)


def clique_pairs(h: int) -> list[Candidate]:
    """Edge neighbours: two disjoint ``(h + 1)``-cliques, with / without one edge between
    them. The edge lifts both ends to degree ``h + 1``: they leave the degree-``<= h``
    subgraph with ``C(h, 2)`` triangles each, the bound ``h(h − 1)`` of
    :func:`graphanon.synthetic.clustering.release_bounded_triangles`."""
    iu, ju = np.triu_indices(h + 1, 1)
    u = np.concatenate([iu, iu + h + 1])
    v = np.concatenate([ju, ju + h + 1])
    n = 2 * h + 2
    apart = Graph.from_edges(u, v, n_nodes=n)
    joined = Graph.from_edges(np.append(u, 0), np.append(v, h + 1), n_nodes=n)
    return [Candidate(joined, apart, f"two {h + 1}-cliques joined by one edge")]


def random_edge_pairs(h: int, n_pairs: int = RANDOM_PAIRS, seed: int = 0) -> list[Candidate]:
    """Edge neighbours no derivation names: random graphs on 3 to ``2h + 2`` nodes with
    degrees at most ``h``, each with one of its edges removed. They guard against a wrong
    derivation (the derivation's own worst cases cannot): the audit keeps whichever pair has
    the largest privacy loss. Fixed ``seed``: the pairs are test inputs, not noise."""
    rng = np.random.default_rng(seed)
    out: list[Candidate] = []
    while len(out) < n_pairs:
        n = int(rng.integers(3, 2 * h + 3))
        G = _random_graph(rng, n, h)
        eu, ev = G.edges()
        if not eu.size:
            continue
        drop = int(rng.integers(eu.size))
        keep = np.arange(eu.size) != drop
        D_prime = Graph.from_edges(eu[keep], ev[keep], n_nodes=n)
        out.append(Candidate(G, D_prime, f"random graph on {n} nodes with {eu.size} edges, "
                                         f"edge {int(eu[drop])}-{int(ev[drop])} removed"))
    return out


def random_node_pairs(theta: int, n_pairs: int = RANDOM_PAIRS, seed: int = 0
                      ) -> list[Candidate]:
    """Node neighbours no derivation names: random graphs on 3 to ``2θ + 4`` nodes (any
    degree: the projection bounds them), each with one node and its edges removed."""
    rng = np.random.default_rng(seed)
    out: list[Candidate] = []
    for _ in range(n_pairs):
        n = int(rng.integers(3, 2 * theta + 5))
        G = _random_graph(rng, n, None)
        x = int(rng.integers(n))
        keep = np.arange(n) != x
        out.append(Candidate(G, G.subgraph(keep), f"random graph on {n} nodes with "
                                                  f"{G.n_edges} edges, node {x} removed"))
    return out


def _rr_pairs(n_features: int, level: str) -> list[Candidate]:
    feats = np.array([f"f{j}" for j in range(n_features)], dtype=object)
    users = np.array(["u"], dtype=object)
    if level == "edge":
        D = BipartiteGraph.from_pairs(np.array(["u", "u"], dtype=object), feats[:2],
                                      all_users=users, all_features=feats)
        Dp = BipartiteGraph.from_pairs(np.array(["u"], dtype=object), feats[:1],
                                       all_users=users, all_features=feats)
        return [Candidate(D, Dp, "one cell of a 1 × 2 matrix flipped")]
    D = BipartiteGraph.from_pairs(np.repeat(users, n_features), feats, all_users=users,
                                  all_features=feats)
    Dp = BipartiteGraph.from_pairs(np.zeros(0, dtype=object), np.zeros(0, dtype=object),
                                   all_users=users, all_features=feats)
    return [Candidate(D, Dp, f"one user's whole row of {n_features} cells flipped")]


# ---------------------------------------------------------------------- the mechanisms
def miscalibrated_dk1(G: Graph, *, epsilon: float, max_degree: int,
                      backend: NoiseBackend) -> tuple[Any, Release]:
    """A deliberately broken control: the 1K histogram noised with **half** its sensitivity
    (2 instead of 4) while its record claims ε. Its true privacy loss is up to 2ε; the audit
    must catch it. Never use it for a release."""
    from ..dk.release import dk_query

    x = dk_query(G, d=1, h=max_degree)
    noisy = backend.discrete_laplace(x, sensitivity=2.0, epsilon=epsilon)
    rel = Release.create(mechanism="dk1-laplace-half-sensitivity", neighbourhood="edge",
                         epsilon=epsilon, sensitivity=4.0,
                         sensitivity_derivation="CONTROL: claims 4, noises with 2",
                         params={"max_degree": max_degree, "control": True},
                         backend=backend.name)
    return noisy, rel


def _rr_mechanism(epsilon: float, level: str) -> Mechanism:
    from ..anonymity.randomized_response import randomized_response
    from ..privacy.noise import NumpyInsecureBackend

    def run(B: BipartiteGraph, backend: NoiseBackend) -> tuple[Any, Release]:
        rng = backend.rng if isinstance(backend, NumpyInsecureBackend) else None
        res = randomized_response(B, epsilon=epsilon, level=level, users=B.user_ids,
                                  features=B.feature_ids, rng=rng)
        return res.graph.to_dense().ravel().astype(np.float64), res.release

    return run


def _rr_source(backend: NoiseBackend) -> str:
    from ..privacy.noise import NumpyInsecureBackend

    return "numpy-insecure" if isinstance(backend, NumpyInsecureBackend) else "os-urandom"


def _dense_truth(B: BipartiteGraph) -> Any:
    return B.to_dense().ravel().astype(np.float64)


#: Names accepted by :func:`audit_targets` (``mechanisms=``), in report order.
AUDIT_MECHANISMS = (
    "randomized-response-edge", "randomized-response-node", "dk1-laplace", "dk2-laplace",
    "dk2-mdav", "dk2-mpdc", "theta-dk1-ead", "theta-dk2-ead", "hay-constrained-inference",
    "pdp-min-dk1", "pdp-ll-dk1", "pdp-ag-dk1", "pdp-min-dk1-node",
    "private-partition", "community-degrees", "bounded-triangles",
    "control-dk1-half-sensitivity",
)


def audit_targets(
    epsilon: float,
    *,
    mechanisms: Sequence[str] = AUDIT_MECHANISMS,
    max_degree: int = 4,
    theta: int = 3,
    rr_features: int = 4,
    mpdc_tau: int = 2,
    mdav_k: int = 2,
) -> list[AuditTarget]:
    """The audit targets of graphanon's DP commands at one ε.

    Parameters
    ----------
    epsilon : float
        The ε every mechanism is run at (for personalized DP: the smallest preference).
    mechanisms : sequence of str
        A subset of :data:`AUDIT_MECHANISMS`.
    max_degree : int
        Public degree bound ``h`` of the edge-DP dK releases and of personalized DP. Small
        bounds make the worst-case pairs small graphs; the calibration code is the same.
    theta : int
        Public projection bound of the node-DP releases.
    rr_features : int
        Columns of the matrix of the node-level randomized-response pair.
    mpdc_tau : int
        MPDC box side of the microaggregated 2K release.
    mdav_k : int
        MDAV cluster size of the microaggregated 2K release.

    Returns
    -------
    list of AuditTarget
    """
    owner = "audit_targets"
    eps = check_epsilon(epsilon, "epsilon", owner)
    h = check_int(max_degree, "max_degree", owner, low=2, high=64)
    th = check_int(theta, "theta", owner, low=1, high=32)
    F = check_int(rr_features, "rr_features", owner, low=1, high=16)
    tau = check_int(mpdc_tau, "mpdc_tau", owner, low=0)
    mk = check_int(mdav_k, "mdav_k", owner, low=2)
    for name in mechanisms:
        check_choice(name, "mechanisms", owner, AUDIT_MECHANISMS)
    from ..dk.personalized import release_personalized
    from ..dk.preferences import from_pairs
    from ..dk.release import release_dk
    from ..nodedp.degree_sequences import hay_degree_sequence
    from ..nodedp.theta_dk import theta_dk_release

    post = np.random.default_rng(0)  # post-processing only (splitting cluster sums)

    def dk(d: int, micro: str = "none") -> Mechanism:
        def run(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
            kw: dict[str, Any] = ({"tau": tau} if micro == "mpdc" else
                                  {"k": mk} if micro == "mdav" else {})
            # the pair's node set is the public universe (edge neighbours share it)
            r = release_dk(G, d=d, epsilon=eps, max_degree=h, microaggregation=micro,
                           form="dense", nodes=G.node_ids, backend=backend, rng=post, **kw)
            return r.noisy, r.release
        return run

    def node(d: int) -> Mechanism:
        def run(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
            r = theta_dk_release(G, d=d, epsilon=eps, theta=th, key=0, backend=backend)
            return r.noisy, r.release
        return run

    def hay(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        r = hay_degree_sequence(G, epsilon=eps, nodes=G.node_ids, backend=backend)
        return None, r.release  # the raw noisy sequence is not exposed: the call's output is

    def pdp(method: str, **kw: Any) -> Mechanism:
        def run(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
            # node 0 (a centre of every pair) owns the smallest ε; everyone else is liberal
            prefs = from_pairs(G.node_ids, np.where(np.arange(G.n_nodes) == 0, eps, 4 * eps),
                               default=4 * eps)
            r = release_personalized(G, prefs, d=1, privacy="edge", method=method, theta=h,
                                     key=0, nodes=G.node_ids, backend=backend, rng=post, **kw)
            return r.noisy, r.release
        return run

    def pdp_node(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        # node-PDP: the preference table is public (here one ε for everyone), θ-projected
        r = release_personalized(G, from_pairs([], [], default=eps), d=1, privacy="node",
                                 method="min", theta=th, key=0, backend=backend, rng=post)
        return r.noisy, r.release

    def control(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        return miscalibrated_dk1(G, epsilon=eps, max_degree=h, backend=backend)

    def partition(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        from ..synthetic.communities import private_partition

        # super-node counts only (refinement draws uniforms: not replayable); super-nodes
        # of 2 consecutive nodes
        r = private_partition(G, epsilon=eps, nodes=G.node_ids, super_size=2, refine_share=0.0,
                              backend=backend, rng=post)
        return None, r.release

    def community_degrees(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        from ..synthetic.communities import release_community_degrees

        # a public partition: node parity (the joined stars' centres 0 and a+1 differ for
        # even a: an inter-community edge, the Δ = 3 case)
        r = release_community_degrees(G, np.arange(G.n_nodes) % 2, epsilon=eps,
                                      nodes=G.node_ids, backend=backend)
        return None, r.release

    def triangles(G: Graph, backend: NoiseBackend) -> tuple[Any, Release]:
        from ..synthetic.clustering import release_bounded_triangles

        r = release_bounded_triangles(G, epsilon=eps, max_degree=h, backend=backend)
        return None, r.release

    star = ("joined stars (the 1K bound 4 and the 2K bound 4h−3 of docs/dk.md) and "
            f"{RANDOM_PAIRS} random edge pairs")
    hubs = ("hubs, a star and the empty file, hubs removed from an edge list (the node bounds "
            "2θ+1 and θ(2θ+1), docs/node_dp.md) and "
            f"{RANDOM_PAIRS} random node pairs")

    def edge_pairs() -> list[Candidate]:
        return joined_star_pairs(h) + random_edge_pairs(h)

    def node_pairs() -> list[Candidate]:
        return hub_pairs(th) + edge_list_pairs(th) + random_node_pairs(th)

    table: dict[str, AuditTarget] = {
        "randomized-response-edge": AuditTarget(
            "randomized-response (edge)", "randomized-response --level edge",
            "edge", _rr_mechanism(eps, "edge"), lambda: _rr_pairs(2, "edge"),
            "one cell flipped", mode="direct", truth=_dense_truth, noise_source=_rr_source),
        "randomized-response-node": AuditTarget(
            f"randomized-response (node, |F|={F})",
            "randomized-response --level node", "node", _rr_mechanism(eps, "node"),
            lambda: _rr_pairs(F, "node"), "a whole row flipped", mode="direct",
            truth=_dense_truth, noise_source=_rr_source),
        "dk1-laplace": AuditTarget(
            f"dk1-laplace (h={h})", "release-dk --privacy edge --d 1", "edge", dk(1),
            edge_pairs, star),
        "dk2-laplace": AuditTarget(
            f"dk2-laplace (h={h})", "release-dk --privacy edge --d 2", "edge", dk(2),
            edge_pairs, star),
        "dk2-mdav": AuditTarget(
            f"dk2-mdav (h={h}, k={mk})",
            "release-dk --privacy edge --d 2 --microaggregation mdav", "edge",
            dk(2, "mdav"), edge_pairs, star),
        "dk2-mpdc": AuditTarget(
            f"dk2-mpdc (h={h}, τ={tau})",
            "release-dk --privacy edge --d 2 --microaggregation mpdc", "edge",
            dk(2, "mpdc"), edge_pairs, star),
        "theta-dk1-ead": AuditTarget(
            f"theta-dk1-ead (θ={th})", "release-dk --privacy node --d 1", "node", node(1),
            node_pairs, hubs),
        "theta-dk2-ead": AuditTarget(
            f"theta-dk2-ead (θ={th})", "release-dk --privacy node --d 2", "node", node(2),
            node_pairs, hubs),
        "hay-constrained-inference": AuditTarget(
            "hay-constrained-inference", "release-degrees --method hay", "edge", hay,
            edge_pairs, f"one edge raises two sorted degrees (joined stars and {RANDOM_PAIRS} "
                        "random edge pairs)"),
        "pdp-min-dk1": AuditTarget(
            f"pdp-min-dk1 (edge-PDP, h={h})",
            "release-personalized --privacy edge --method min --d 1", "personalized-edge",
            pdp("min"), lambda: joined_star_pairs(h),
            "an edge of the node with the smallest ε (joined stars)", claim="epsilon_min"),
        "pdp-ll-dk1": AuditTarget(
            f"pdp-ll-dk1 (edge-PDP, h={h})",
            "release-personalized --privacy edge --method ll --d 1", "personalized-edge",
            pdp("ll"), lambda: joined_star_pairs(h),
            "an edge of the node with the smallest ε (joined stars)", claim="epsilon_min"),
        "pdp-ag-dk1": AuditTarget(
            f"pdp-ag-dk1 (edge-PDP, h={h}, k=2)",
            "release-personalized --privacy edge --method ag --k 2 --d 1", "personalized-edge",
            pdp("ag", k=2), lambda: joined_star_pairs(h),
            "an edge of the node with the smallest ε (joined stars)", claim="epsilon_min"),
        "pdp-min-dk1-node": AuditTarget(
            f"pdp-min-dk1 (node-PDP, θ={th})",
            "release-personalized --privacy node --method min --d 1", "personalized-node",
            pdp_node, node_pairs, hubs, claim="epsilon_min"),
        "private-partition": AuditTarget(
            "private-partition (super-node counts, 2 nodes each)", "synthesize --privacy edge",
            "edge", partition, edge_pairs, f"one edge, one super-node cell ({star})"),
        "community-degrees": AuditTarget(
            "community-degrees (parity partition)", "synthesize --privacy edge", "edge",
            community_degrees, edge_pairs,
            f"an edge between communities: two d_out and one E_ij ({star})"),
        "bounded-triangles": AuditTarget(
            f"bounded-triangles (h={h})", "synthesize --privacy edge", "edge", triangles,
            lambda: clique_pairs(h) + random_edge_pairs(h),
            f"two (h+1)-cliques joined: both ends leave with C(h,2) triangles each, and "
            f"{RANDOM_PAIRS} random edge pairs"),
        "control-dk1-half-sensitivity": AuditTarget(
            f"CONTROL dk1 with half sensitivity (h={h})", "(none: a broken control)", "edge",
            control, lambda: joined_star_pairs(h), "joined stars", control=True),
    }
    return [table[name] for name in AUDIT_MECHANISMS if name in set(mechanisms)]
