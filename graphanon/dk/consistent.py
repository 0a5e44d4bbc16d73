"""Post-processing of a noisy 2K table into a consistent, **graphical** joint degree matrix.

A noisy 2K release (:func:`graphanon.dk.release.release_dk`) clipped at 0 and rounded is in
general not the JDM of any simple graph: the stub count ``s_k = Σ_{l≠k} m(k, l) + 2 m(k, k)``
of a class need not be a multiple of ``k``, and a cell may hold more edges than its two
classes can (``m(k, l) <= n_k n_l``, ``m(k, k) <= n_k (n_k − 1) / 2``, with
``n_k = s_k / k``). The generator then caps the cells and loses edges (Reed98: 86–94 % of the
table realized). Stanton & Pinar (JEA 2012, Theorem 1) show that these three conditions are
also sufficient: a table meeting them is realized exactly by :func:`~graphanon.dk.generate.
generate_2k` (Gjoka et al.'s construction).

:func:`graphical_2k` finds such a table near the noisy one, in three post-processing steps
(no privacy cost: they read only released values and public parameters):

1. **Class sizes.** Integer ``n_k >= 0`` with ``Σ_k k n_k = 2 T`` — either given (a released
   degree sequence: :func:`class_sizes_from_sequence`, issue 36 part 2), or the rounding of
   the table's implied ``s_k / k`` (scaled to a released edge total ``T`` when there is one),
   rounded so that the stub total is exactly ``2 T`` (:func:`integer_class_sizes`). The
   degree sequence they imply is then made graphical (Erdős–Gallai) with the same stub total
   (:func:`graphical_class_sizes`): a JDM with these margins and capacities exists only if a
   simple graph has that degree sequence, and noise that piles stubs on a few high-degree
   nodes breaks it.
2. **Fit.** The symmetric matrix ``A`` (``A_kl = m(k, l)``, ``A_kk = 2 m(k, k)``) is fitted to
   the row sums ``r_k = k n_k`` under the capacities ``A_kl <= n_k n_l``,
   ``A_kk <= n_k (n_k − 1)`` by capped symmetric iterative proportional fitting
   (``A ← min(C, D A D)``, ``D = diag(√(r / rowsum A))``; Sinkhorn scaling of a symmetric
   matrix). A small share of mass (``prior``) proportional to ``r_k r_l`` is added first so
   that a class whose noisy cells are all 0 can still be fitted. This is the 2K analogue of
   Hay et al.'s constrained inference: the released cells are kept in shape, their margins
   made to agree with the 1K table.
3. **Integer rounding.** Cells are floored; the per-class stub residuals are filled by
   adding single edges to the cells with the largest fractional parts (and room); every
   class still off (missing stubs, or holding too many where the fit stopped short) is closed
   by a diagonal edge or an alternating path in the class graph (add, remove, add, … one
   edge per cell, found by breadth-first search), which changes only its two end classes.
   The class-size repair of :func:`~graphanon.dk.postprocess.postprocess_2k_sparse` and a
   capacity cap are a last resort (a few rounds) if a residual is left.

The result is reported (``info``): whether it is graphical, its total against ``T``, the
fitting error.

References
----------
I. Stanton, A. Pinar, "Constructing and sampling graphs with a prescribed joint degree
distribution", JEA 2012 (Theorem 1); A. Sala, X. Zhao, C. Wilson, H. Zheng, B. Y. Zhao,
"Sharing graphs using differentially private graph models", IMC 2011 (noisy dK-2 and its
post-processing); M. Hay, C. Li, G. Miklau, D. Jensen, ICDM 2009 (constrained inference);
``004_*.txt`` chapter 6.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InvalidParameterError
from .extract import DKDistribution

__all__ = [
    "class_sizes_from_sequence",
    "graphical_2k",
    "graphical_class_sizes",
    "integer_class_sizes",
    "interpolate_plateaus",
    "is_graphical_2k",
]

#: Most degree classes the dense fit handles (a class-by-class float matrix).
MAX_FIT_CLASSES = 2_000


def integer_class_sizes(real: Any, degrees: Any, stubs: int) -> npt.NDArray[np.int64]:
    """Non-negative integers ``n_k`` near ``real`` with ``Σ_k degrees[k] · n_k = stubs``.

    Rounds, then moves the stub total toward ``stubs`` one node at a time: adding a node to
    the class furthest below its real size among those whose degree fits the gap (removing
    from the one furthest above), or, when no degree fits, to the smallest class degree.
    ``stubs`` is made even first. If the exact total cannot be reached (e.g. no class of an
    odd degree for an odd gap), the nearest total found is kept.
    """
    x = np.clip(np.asarray(real, dtype=np.float64), 0.0, None)
    k = np.asarray(degrees, dtype=np.int64)
    stubs = int(stubs) - int(stubs) % 2
    n = np.rint(x).astype(np.int64)
    if k.size == 0:
        return n
    best, best_gap = n.copy(), abs(stubs - int((k * n).sum()))
    for _ in range(4 * k.size + 64):
        gap = stubs - int((k * n).sum())
        if abs(gap) < best_gap:
            best, best_gap = n.copy(), abs(gap)
        if gap == 0:
            break
        if gap > 0:
            fits = np.flatnonzero(k <= gap)
            c = (int(fits[np.argmax((x - n)[fits])]) if fits.size else int(np.argmin(k)))
            n[c] += 1
        else:
            have = np.flatnonzero(n > 0)
            if not have.size:
                break
            fits = have[k[have] <= -gap]
            c = (int(fits[np.argmax((n - x)[fits])]) if fits.size else
                 int(have[np.argmin(k[have])]))
            n[c] -= 1
    if int((k * best).sum()) % 2:  # an odd stub total has no table: one node more
        odd = np.flatnonzero(k % 2 == 1)
        if odd.size:
            best[int(odd[np.argmax((x - best)[odd])])] += 1
    return best


def interpolate_plateaus(seq: Any) -> npt.NDArray[np.int64]:
    """A sorted integer sequence with its runs of equal values (the plateaus isotonic
    regression leaves where noise crossed the order) replaced by the piecewise-linear
    interpolation through the runs' centres, rounded: the same shape, without the gaps in
    the histogram's support that the plateaus leave (post-processing)."""
    s = np.sort(np.asarray(seq, dtype=np.int64))
    if s.size < 2:
        return s
    starts = np.flatnonzero(np.concatenate([[True], s[1:] != s[:-1]]))
    if starts.size < 2:
        return s
    lengths = np.diff(np.concatenate([starts, [s.size]]))
    centres = starts + (lengths - 1) / 2.0
    out = np.interp(np.arange(s.size, dtype=np.float64), centres, s[starts].astype(np.float64))
    return np.rint(out).astype(np.int64)


def class_sizes_from_sequence(seq: Any, h: int, *, total: int | None = None,
                              interpolate: bool = True) -> npt.NDArray[np.int64]:
    """Class sizes ``n_0..n_h`` of a (released) degree sequence, degrees top-coded at ``h``.

    ``n_k = #{v : seq_v = k}`` for ``k < h``; the top class ``h`` holds the stubs the lower
    classes leave of ``2 T`` (``T = total``, a released edge total, or half the sequence's
    degree sum): ``n_h ≈ (2T − Σ_{k<h} k n_k) / h`` — at least the sequence's own count of
    degrees ``>= h`` when ``total`` is not given — so top-coding does not lose edges; then the
    stub total is made exactly ``2T`` (:func:`integer_class_sizes`). ``n_0`` is not used.
    With ``interpolate`` the sequence's plateaus are first interpolated
    (:func:`interpolate_plateaus`); the total ``2T`` is the sequence's own degree sum.
    """
    s = np.asarray(seq, dtype=np.int64)
    two_t = int(s.sum()) if total is None else 2 * int(total)
    if interpolate:
        s = interpolate_plateaus(s)
    n = np.bincount(np.minimum(s, h), minlength=h + 1).astype(np.float64)[:h + 1]
    n[0] = 0.0
    k = np.arange(h + 1, dtype=np.int64)
    low = float((k[:h] * n[:h]).sum())
    top = max(0.0, (two_t - low) / h)
    n[h] = top if total is not None else max(n[h], top)
    out = integer_class_sizes(n[1:], k[1:], two_t)
    return np.concatenate([[0], out]).astype(np.int64)


def graphical_class_sizes(sizes: Any) -> tuple[npt.NDArray[np.int64], int]:
    """Class sizes ``n_0..n_h`` whose degree sequence is graphical (Erdős–Gallai), with the
    same stub total: while it is not, every node of the top class loses one degree and as
    many nodes of degree 1 are added (noise that puts too many stubs on too few high-degree
    nodes is moved to the tail). A JDM with these row sums and capacities exists exactly when
    some simple graph has this degree sequence, so the fit below can reach its margins.
    Returns the sizes and the number of nodes moved."""
    from .generate import is_graphical

    n = np.asarray(sizes, dtype=np.int64).copy()
    moved = 0
    degs = np.arange(n.size, dtype=np.int64)
    while True:
        top = int(np.flatnonzero(n)[-1]) if n[1:].any() else 0
        if top <= 1 or is_graphical(np.repeat(degs, n)):
            return n, moved
        c = int(n[top])
        n[top] = 0
        n[top - 1] += c
        n[1] += c
        moved += c


def is_graphical_2k(dist: DKDistribution) -> bool:
    """Whether a 2K table meets Stanton & Pinar's conditions (realizable exactly)."""
    from .generate import jdd_feasible

    if not dist.counts.size:
        return True
    f = jdd_feasible(dist.degrees, np.asarray(dist.counts, dtype=np.int64))
    return bool(f["divisible"] and f["capacity_ok"])


def _capacity(n: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Capacities in ``A`` units: ``n_k n_l`` off the diagonal, ``n_k (n_k − 1)`` on it."""
    C = np.outer(n, n)
    np.fill_diagonal(C, n * (n - 1))
    return np.maximum(C, 0.0)


def _ipf(A: npt.NDArray[np.float64], r: npt.NDArray[np.float64], C: npt.NDArray[np.float64],
         iterations: int, tol: float) -> tuple[npt.NDArray[np.float64], int, float]:
    """Capped symmetric Sinkhorn scaling of ``A`` to row sums ``r``."""
    A = np.minimum(A, C)
    err, it = float("inf"), 0
    for it in range(1, iterations + 1):  # noqa: B007 (reported)
        rs = A.sum(axis=1)
        f = np.where(rs > 0, np.sqrt(np.divide(r, rs, out=np.zeros_like(r), where=rs > 0)),
                     0.0)
        A = np.minimum(A * f[:, None] * f[None, :], C)
        err = float(np.abs(A.sum(axis=1) - r).max()) if r.size else 0.0
        if err < tol:
            break
    return A, it, err


def _round(A: npt.NDArray[np.float64], r: npt.NDArray[np.int64], cap: npt.NDArray[np.int64]
           ) -> npt.NDArray[np.int64]:
    """Integer upper-triangular ``m`` (``m_kk`` in edges) near ``A`` with stubs near ``r``."""
    nc = r.size
    iu, ju = np.triu_indices(nc)
    diag = iu == ju
    want = np.where(diag, A[iu, ju] / 2.0, A[iu, ju])
    m = np.minimum(np.floor(want + 1e-9).astype(np.int64), cap)
    stubs = (np.bincount(iu, weights=m, minlength=nc) + np.bincount(ju, weights=m, minlength=nc))
    R = r - np.rint(stubs).astype(np.int64)
    frac = want - m
    # 1. the largest fractional parts first, where both classes still miss stubs
    for t in np.argsort(-frac, kind="stable"):
        if frac[t] <= 1e-9:
            break
        i, j = int(iu[t]), int(ju[t])
        if m[t] >= cap[t]:
            continue
        if i == j:
            if R[i] >= 2:
                m[t] += 1
                R[i] -= 2
        elif R[i] >= 1 and R[j] >= 1:
            m[t] += 1
            R[i] -= 1
            R[j] -= 1
    # 2. classes still off (missing stubs, or with too many where the fit did not converge):
    #    a direct edge added / removed, a path ±(i, a) ∓(a, b) ±(b, j) that changes no
    #    other class, or an edge moved from a class with too many to one that misses some
    M = np.zeros((nc, nc), dtype=np.int64)
    M[iu, ju] = m
    M[ju, iu] = m
    Cap = np.zeros((nc, nc), dtype=np.int64)
    Cap[iu, ju] = cap
    Cap[ju, iu] = cap
    for _ in range(int(np.abs(R).sum()) + 1):
        if not R.any() or not _augment(M, Cap, R):
            break
    return M[iu, ju]


def _bump(M: npt.NDArray[np.int64], x: int, y: int, d: int) -> None:
    M[x, y] += d
    if x != y:
        M[y, x] += d


def _alternating_path(avail: dict[int, npt.NDArray[np.int64]], i: int, s: int,
                      ends: npt.NDArray[np.bool_], last: int) -> list[int] | None:
    """Shortest path ``i = v0, v1, ..., vt`` in the class graph whose steps alternately add
    (``s``) and remove (``−s``) one edge of the cell ``(v_{r−1}, v_r)`` where it can (room,
    or an edge to remove; no diagonal cells), ending at a class of ``ends`` with a step of
    sign ``last``. Inner classes keep their stubs (one added, one removed)."""
    nc = ends.size
    ops = (s, -s)
    prev = [np.full(nc, -1, dtype=np.int64), np.full(nc, -1, dtype=np.int64)]
    seen = [np.zeros(nc, dtype=bool), np.zeros(nc, dtype=bool)]
    frontier, parity = np.array([i]), 0  # parity: index of the next step's sign in ops
    seen[0][i] = True
    for _ in range(2 * nc + 2):
        op = ops[parity]
        nxt = 1 - parity
        ok = avail[op][frontier] > 0
        ok[np.arange(frontier.size), frontier] = False
        rows, cols = np.nonzero(ok & ~seen[nxt][None, :])
        if not cols.size:
            return None
        cols, first = np.unique(cols, return_index=True)
        prev[nxt][cols] = frontier[rows[first]]
        seen[nxt][cols] = True
        if op == last:
            hit = cols[ends[cols]]
            if hit.size:
                path, v, par = [int(hit[0])], int(hit[0]), nxt
                while not (v == i and par == 0):
                    v = int(prev[par][v])
                    par = 1 - par
                    path.append(v)
                return path[::-1]
        frontier, parity = cols, nxt
    return None


def _augment(M: npt.NDArray[np.int64], Cap: npt.NDArray[np.int64],
             R: npt.NDArray[np.int64]) -> bool:
    """One step toward ``R = 0`` (stubs each class still misses; negative: has too many):
    a diagonal edge where one class misses (or has) two, else an alternating path that
    changes only its two end classes; False if none is found."""
    i = int(np.argmax(np.abs(R)))
    s = 1 if R[i] > 0 else -1
    avail = {1: Cap - M, -1: M.copy()}  # room to add an edge / an edge to remove
    if abs(R[i]) >= 2 and avail[s][i, i] > 0:
        M[i, i] += s
        R[i] -= 2 * s
        return True
    same = np.sign(R) == s
    if abs(R[i]) < 2:
        same[i] = False
    for ends, last in ((same, s), (np.sign(R) == -s, -s)):
        if not ends.any():
            continue
        path = _alternating_path(avail, i, s, ends, last)
        if path is None:
            continue
        trial = M.copy()
        sign = s
        for x, y in itertools.pairwise(path):
            _bump(trial, x, y, sign)
            sign = -sign
        if (trial < 0).any() or (trial > Cap).any():  # a cell used twice beyond its room
            continue
        M[...] = trial
        j = path[-1]
        R[i] -= s
        R[j] -= last
        return True
    return False


def graphical_2k(values: Any, h: int, *, target: int | None = None,
                 class_sizes: Any = None, prior: float = 0.01, iterations: int = 2000,
                 tol: float = 0.05, rounds: int = 20
                 ) -> tuple[DKDistribution, dict[str, Any]]:
    """A graphical 2K table near a noisy one (post-processing; see the module docstring).

    Parameters
    ----------
    values
        One (noisy) value per public domain cell ``(i, j)``, ``1 <= i <= j <= h``, in
        :func:`~graphanon.dk.extract.domain_cells` order; negatives count as 0.
    h
        The public degree bound.
    target
        A released edge total ``T``: the result's class sizes have ``Σ k n_k = 2T`` (and its
        total is ``T`` up to the last repair's few edges).
    class_sizes
        Released class sizes ``n_0..n_h`` (e.g. :func:`class_sizes_from_sequence` of Hay's
        degree sequence); the table is fitted to the row sums ``k n_k``. Without it the
        sizes are read off the table (``s_k / k``).
    prior
        Share of the table's mass spread ∝ ``r_k r_l`` before the fit (default 1 %).
    iterations, tol
        Limit and tolerance (stubs per class) of the proportional fit.
    rounds
        Rounds of class-size repair and capacity capping after the rounding.

    Returns
    -------
    (DKDistribution, dict)
        The table and ``info``: ``graphical``, ``total``, ``target_stubs``,
        ``fit_iterations``, ``fit_error``, ``repair_rounds``.
    """
    from .postprocess import cell_coordinates, postprocess_2k_sparse

    x = np.clip(np.asarray(values, dtype=np.float64), 0.0, None)
    if x.size != h * (h + 1) // 2:
        raise InvalidParameterError(
            f"The 'values' parameter of graphical_2k needs one value per domain cell "
            f"({h * (h + 1) // 2} for h = {h}). Got {x.size}.")
    nzc = np.flatnonzero(x)
    ij = cell_coordinates(nzc, h) if nzc.size else np.zeros((0, 2), dtype=np.int64)
    vals = x[nzc]
    s_real = (np.bincount(ij[:, 0], weights=vals, minlength=h + 1)
              + np.bincount(ij[:, 1], weights=vals, minlength=h + 1))
    deg_all = np.arange(h + 1, dtype=np.int64)
    if class_sizes is not None:
        n_full = np.asarray(class_sizes, dtype=np.int64)
        if n_full.shape != (h + 1,) or (n_full < 0).any():
            raise InvalidParameterError(
                f"The 'class_sizes' parameter of graphical_2k needs h + 1 = {h + 1} "
                "non-negative counts (degrees 0..h).")
        n_full = n_full.copy()
        n_full[0] = 0
    else:
        real = s_real / np.maximum(deg_all, 1)
        real[0] = 0.0
        two_t = int(np.rint(s_real.sum())) if target is None else 2 * int(target)
        if target is not None and s_real.sum() > 0:
            real = real * (two_t / s_real.sum())
        n_full = np.concatenate([[0], integer_class_sizes(real[1:], deg_all[1:], two_t)])
    n_full, moved = graphical_class_sizes(n_full)
    present = np.flatnonzero(n_full > 0)
    info: dict[str, Any] = {"target_stubs": int((deg_all * n_full).sum()),
                            "nodes_lowered": moved}
    if present.size > MAX_FIT_CLASSES:
        raise InvalidParameterError(
            f"graphical_2k: {present.size} degree classes (> {MAX_FIT_CLASSES}); pass a "
            "smaller max_degree.")
    nc = present.size
    cls = np.full(h + 1, -1, dtype=np.int64)
    cls[present] = np.arange(nc)
    n = n_full[present].astype(np.float64)
    r = (present * n_full[present]).astype(np.int64)
    A = np.zeros((nc, nc), dtype=np.float64)
    if nc:
        a, b = cls[ij[:, 0]], cls[ij[:, 1]]
        ok = (a >= 0) & (b >= 0)
        a, b, v = a[ok], b[ok], vals[ok]
        same = a == b
        np.add.at(A, (a[~same], b[~same]), v[~same])
        np.add.at(A, (b[~same], a[~same]), v[~same])
        np.add.at(A, (a[same], a[same]), 2.0 * v[same])
    C = _capacity(n)
    if nc:
        mass = max(float(A.sum()), float(r.sum()))
        P = np.outer(r, r).astype(np.float64) * (C > 0)
        if P.sum() > 0:
            A = A + prior * mass * P / P.sum()
    A, it, err = _ipf(A, r.astype(np.float64), C, iterations, tol)
    info.update(fit_iterations=it, fit_error=err)
    iu, ju = np.triu_indices(nc)
    cap_a = np.where(iu == ju, (n * (n - 1) / 2)[iu], (n[iu] * n[ju])).astype(np.int64)
    m = _round(A, r, cap_a) if nc else np.zeros(0, dtype=np.int64)
    # to the domain (k, l), then class-size repair and capacity caps until both hold
    ki, kj = present[iu], present[ju]
    keep = m > 0
    ki, kj, m = ki[keep], kj[keep], m[keep]
    from .extract import cell_index
    from .generate import jdd_feasible

    dist = DKDistribution("joint_degree", np.stack([ki, kj], axis=1), m)
    total_t = int(target) if target is not None else info["target_stubs"] // 2
    done = 0
    for done in range(1, rounds + 1):  # noqa: B007 (reported)
        cells = cell_index(dist.degrees[:, 0], dist.degrees[:, 1], h)
        order = np.argsort(cells)
        dist = postprocess_2k_sparse(cells[order], np.asarray(dist.counts)[order], h,
                                     target=total_t)
        if not dist.counts.size:
            break
        f = jdd_feasible(dist.degrees, dist.counts)
        if f["capacity_ok"]:
            break
        capped = np.minimum(dist.counts, f["capacity"])
        keep = capped > 0
        dist = DKDistribution("joint_degree", dist.degrees[keep], capped[keep])
    info.update(repair_rounds=done, graphical=is_graphical_2k(dist), total=dist.total)
    return dist, info
