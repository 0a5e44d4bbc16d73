"""Private synthetic graphs: the recommended pipeline and its parts (issue 36).

``synthesize(G, epsilon=..., neighbourhood="edge"|"node", nodes=...)`` runs the recommended
pipeline, splits ε across its parts as its record states and returns the synthetic graph with
one Release record. Each part is usable alone:

- :mod:`.communities` — a private community partition over the public node set, with per-node
  degrees, community edge counts and the edge total (edge-DP, node ids kept);
- :mod:`.clustering` — a degree-bounded triangle statistic (edge-DP) that fixes the
  generator's clustering;
- :mod:`.bter` — the generator: BTER affinity blocks inside communities, Chung–Lu for the
  excess degree and the inter-community edges;
- :mod:`.pipeline` — :func:`synthesize`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SyntheticRelease", "synthesize"]


def __getattr__(name: str) -> Any:  # lazy: importing the package stays cheap
    if name in __all__:
        from . import pipeline

        return getattr(pipeline, name)
    raise AttributeError(name)
