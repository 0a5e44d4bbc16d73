"""Job-file entry point for distributed steps.

Job keys (for ``graphanon run JOB.toml``; the job runner dispatches a step whose
table has ``scheduler`` or ``cluster`` here)::

    [[steps]]
    name = "smooth-k"
    input = "exports/users/"          # folder of Parquet parts (user, feature)
    out = "releases/users-k10/"       # folder of Parquet parts
    k = 10
    shard_size = 5000
    scheduler = "tcp://dask-scheduler:8786"   # or: cluster = "local:4"

    [[steps]]
    name = "dk"
    input = "exports/edges/"          # folder of Parquet parts (source, target)
    d = 2
    out = "stats/2k.tsv"
    cluster = "local:2"

The job's ``seed`` (if any) is passed as ``seed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._validation import check_int
from ..errors import InvalidParameterError
from ._engine import connect

__all__ = ["DISTRIBUTED_STEPS", "run_distributed_step"]

DISTRIBUTED_STEPS = ("smooth-k", "dk")
_SMOOTH_K_KEYS = {"k", "alpha", "restarts", "variant", "postprocess", "shard_size", "n_hashes",
                  "search", "n_partitions", "chunks_per_task", "clusters_out"}


def run_distributed_step(name: str, params: Mapping[str, Any], *, seed: int | None = None,
                         scheduler: str | None = None, cluster: str | None = None
                         ) -> dict[str, Any]:
    """Run the distributed step ``name`` ("smooth-k" or "dk") with the job's ``params``.

    ``scheduler`` / ``cluster`` override the keys of the same name in ``params``. Returns a
    JSON-able summary (for smooth-k the report fields of
    :class:`~graphanon.distributed.DistributedSmoothKResult`; for dk the table written).
    Raises :class:`~graphanon.errors.InvalidParameterError` for an unknown step or key and
    :class:`~graphanon.distributed.SchedulerUnavailableError` when the scheduler is unreachable.
    """
    p = dict(params)
    scheduler = scheduler or p.pop("scheduler", None)
    cluster = cluster or p.pop("cluster", None)
    p.pop("scheduler", None)
    p.pop("cluster", None)
    if name not in DISTRIBUTED_STEPS:
        raise InvalidParameterError(
            f"The distributed step must be one of {', '.join(DISTRIBUTED_STEPS)}. "
            f"Got {name!r} instead.")
    for key in ("input", "out"):
        if key not in p:
            raise InvalidParameterError(f"The distributed step {name!r} needs the key {key!r}.")
    src, out = str(p.pop("input")), str(p.pop("out"))
    if name == "smooth-k":
        unknown = sorted(set(p) - _SMOOTH_K_KEYS)
        if unknown:
            raise InvalidParameterError(
                f"Unknown key(s) {', '.join(unknown)} for the distributed step 'smooth-k'.")
        if "k" not in p:
            raise InvalidParameterError("The distributed step 'smooth-k' needs the key 'k'.")
        from ._engine import check_output_folder, check_parts
        from .smooth_k import check_smooth_k_args, smooth_k_distributed

        # checked before a cluster is started or a scheduler contacted
        check_smooth_k_args(rng=np.random.default_rng(seed),
                            **{key: v for key, v in p.items() if key != "clusters_out"})
        check_output_folder(out)
        if p.get("clusters_out") is not None:
            check_output_folder(str(p["clusters_out"]))
        check_parts(src, ("user", "feature"))

        with connect(scheduler=scheduler, cluster=cluster) as client:
            res = smooth_k_distributed(src, out, rng=np.random.default_rng(seed), client=client,
                                       **p)
        return {"seed": seed, **res.summary()}
    unknown = sorted(set(p) - {"d", "n_partitions"})
    if unknown or "d" not in p:
        raise InvalidParameterError(
            "The distributed step 'dk' takes the keys input, out, d and n_partitions.")
    from ..io.dk_tables import write_dk_table
    from ._engine import check_parts
    from .dk import dk_distributed

    check_int(p["d"], "d", "the distributed step 'dk'", low=1, high=3)
    if p.get("n_partitions") is not None:
        check_int(p["n_partitions"], "n_partitions", "the distributed step 'dk'", low=1)
    check_parts(src, ("source", "target"))

    with connect(scheduler=scheduler, cluster=cluster) as client:
        dist = dk_distributed(src, int(p["d"]), client=client,
                              n_partitions=p.get("n_partitions"))
    write_dk_table(dist, out)
    kind = getattr(dist, "kind", "3k")
    return {"out": out, "kind": kind, "n_tuples": dist.n_tuples, "seconds": dist.seconds}
