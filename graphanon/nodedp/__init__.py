"""Node-DP: degree-bounding projections, θ-dKε releases, private degree sequences.

Under node neighbourhood one node appears or disappears with all its edges, so every
statistic is first made degree-bounded by a public θ:

- :mod:`.projection` — θ-bounded projections (edge addition, the secure default;
  Stable-Edge-Removal and truncation for comparison) in a stable keyed-hash order
  (``004_*.txt`` chapter 7, Algorithms 5–6).
- :mod:`.theta_dk` — the θ-dKε 1K / 2K release over the EAD projection
  (:func:`theta_dk_release`, node sensitivities ``2θ + 1`` and ``θ(2θ + 1)``).
- :mod:`.degree_sequences` — the node-DP degree sequence by Recursive Partitioning and
  Summarization (``002_*.txt``, :func:`rps_degree_sequence`), with the Laplace (node-DP) and
  Hay et al. (edge-DP) baselines.
"""

from .degree_sequences import (
    DegreeSequenceRelease,
    degree_sequence_metrics,
    hay_degree_sequence,
    laplace_degree_sequence,
    rps_degree_sequence,
)
from .projection import Projection, edge_addition, project
from .theta_dk import NodeDKRelease, node_sensitivity, select_theta, theta_dk_release

__all__ = [
    "DegreeSequenceRelease",
    "NodeDKRelease",
    "Projection",
    "degree_sequence_metrics",
    "edge_addition",
    "hay_degree_sequence",
    "laplace_degree_sequence",
    "node_sensitivity",
    "project",
    "rps_degree_sequence",
    "select_theta",
    "theta_dk_release",
]
