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

The pairs come from :mod:`graphanon.evaluate.pairs`, the targets (graphanon's DP commands,
:func:`audit_targets`) from :mod:`graphanon.evaluate.targets`; this module re-exports their
public names.

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
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._progress import ProgressFn, log_progress
from .._validation import check_choice, check_float, check_int
from ..errors import InvalidParameterError
from ..privacy.noise import NoiseBackend, continuous_scale, dp_scale, get_backend
from ..privacy.release import Release
from .pairs import RANDOM_PAIRS as RANDOM_PAIRS
from .pairs import (
    Candidate,
    clique_pairs,
    edge_list_pairs,
    hub_pairs,
    joined_star_pairs,
    random_edge_pairs,
    random_node_pairs,
)
from .targets import AUDIT_MECHANISMS, AuditTarget, audit_targets, miscalibrated_dk1
from .targets import Mechanism as Mechanism

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


# ---------------------------------------------------------------------- results
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
