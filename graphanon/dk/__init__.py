"""dK-series: extraction, edge-DP release through dK-microaggregation, synthetic dK-graphs."""

from .extract import (
    DK3Distribution,
    DKDistribution,
    degree_distribution,
    dk_distribution,
    joint_degree_distribution,
    three_k_distribution,
)

__all__ = [
    "DK3Distribution",
    "DKDistribution",
    "degree_distribution",
    "dk_distribution",
    "joint_degree_distribution",
    "three_k_distribution",
]
