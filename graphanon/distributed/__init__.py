"""graphanon's heavy jobs on a Dask cluster (optional extra ``graphanon[distributed]``).

* :func:`smooth_k_distributed`: smooth-k-anonymity of a partitioned Parquet user × feature
  list, identical to the single-machine sharded run for the same seed and shard size;
* :func:`dk_distributed`: exact 1K / 2K / 3K tables of a partitioned Parquet edge list;
* :func:`connect`: a client to a scheduler address or a ``local:N`` cluster;
* :func:`run_distributed_step`: the entry point for job files.

Importing this package imports Dask; nothing else in graphanon does.
"""

from __future__ import annotations

from ._engine import (
    ReleaseVerificationError,
    SchedulerUnavailableError,
    connect,
    list_parts,
    parse_cluster,
)
from .dk import dk_distributed
from .smooth_k import DistributedSmoothKResult, smooth_k_distributed
from .steps import run_distributed_step

__all__ = [
    "DistributedSmoothKResult",
    "ReleaseVerificationError",
    "SchedulerUnavailableError",
    "connect",
    "dk_distributed",
    "list_parts",
    "parse_cluster",
    "run_distributed_step",
    "smooth_k_distributed",
]
