"""Demo step for adaptive anonymity: the three b-matching methods on Adult rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..anonymity.bmatching import adaptive_anonymize
from ..report import Section, Table

if TYPE_CHECKING:
    from ..demo import DemoContext

__all__ = ["step_bmatching"]


def step_bmatching(ctx: DemoContext) -> Section:
    """Demo: the three methods on 300 rows of the Adult sample with δ = 4 (a few seconds)."""
    B = ctx.bipartite
    rng = ctx.rng(8)
    rows = np.sort(rng.choice(B.n_users, size=min(300, B.n_users), replace=False))
    X = B.to_dense()[rows].astype(np.int32)
    keep = X.any(axis=0)
    X = X[:, keep]
    table, data = [], {}
    for method in ("b-matching", "symmetric-b-matching", "k-anonymity"):
        res = adaptive_anonymize(X, delta=4, rng=ctx.rng(80), method=method)
        s = res.summary()
        data[method] = s
        table.append([method, res.stars, round(res.utility, 4), s["verification"]["ok"],
                      round(res.seconds, 2)])
    return Section(
        title="Adaptive anonymity via b-matching",
        text=[
            f"{X.shape[0]} Adult rows × {X.shape[1]} attributes, δ = 4 for every user. "
            "Algorithm 1 (bipartite b-matching) and Algorithm 2 (symmetric, warm-started) of "
            "Choromanski, Jebara & Tang (NIPS 2013) against agglomerative k-anonymity (k = 4). "
            "Each output passes verify_adaptive_anonymity; the symmetric release carries "
            "Lemma 4.5's (δ_i − c) guarantee. Syntactic anonymity, not differential privacy.",
        ],
        tables=[Table(["method", "stars", "utility", "verified", "seconds"], table)],
        data=data,
    )
