"""Glue from the ``smooth-k`` / ``dk`` commands to :mod:`graphanon.distributed` (imported only
when ``--scheduler`` or ``--cluster`` is given)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ._console import echo, progress_bar, wall_seconds
from ._outputs import write_json

__all__ = ["dk_on_cluster", "smooth_k_on_cluster"]


def _target(scheduler: str | None, cluster: str | None) -> dict[str, Any]:
    """The connect() arguments, checked without connecting (a cluster spec is parsed, a
    scheduler address must at least name a host)."""
    from ..distributed import parse_cluster

    if scheduler and cluster:
        raise InvalidParameterError("Give either --scheduler or --cluster, not both.")
    if cluster is not None:
        parse_cluster(cluster)
    if scheduler is not None and not str(scheduler).strip():
        raise InvalidParameterError("The '--scheduler' option must be a Dask scheduler "
                                    "address such as tcp://host:8786. Got '' instead.")
    return {"scheduler": scheduler, "cluster": cluster}


def smooth_k_on_cluster(input_path: str, *, k: int, rng: np.random.Generator, seed: int,
                        alpha: float, restarts: int, variant: str, postprocess: str,
                        shard_size: int | None, out: str, report_path: str,
                        clusters_path: str | None, scheduler: str | None,
                        cluster: str | None, n_jobs: int = 1) -> None:
    from ..distributed import connect, smooth_k_distributed
    from ..distributed._engine import check_output_folder, check_parts
    from ..distributed.smooth_k import check_smooth_k_args

    # everything is checked before a cluster is started or a scheduler contacted
    target = _target(scheduler, cluster)
    if n_jobs != 1:
        raise InvalidParameterError(
            "The '--jobs' option applies to the single-machine run; on a cluster the "
            "workers run the chunks (size the cluster instead).")
    check_smooth_k_args(k=k, rng=rng, alpha=alpha, restarts=restarts, variant=variant,
                        postprocess=postprocess, shard_size=shard_size)
    check_output_folder(out)
    if clusters_path is not None:
        check_output_folder(clusters_path)
    check_parts(input_path, ("user", "feature"))
    from ..privacy.pseudonyms import scope_key
    from .anonymity import k_anonymity_release

    # the record first: its release id scopes the pseudonyms the workers write
    release = k_anonymity_release(
        "smooth-k-anonymity" if variant == "smooth" else "k-anonymity-suppression", k=k,
        params={"variant": variant, "alpha": alpha, "restarts": restarts,
                "postprocess": postprocess, "shard_size": shard_size, "engine": "dask"},
        seed=seed, fingerprint="")
    with connect(**target) as client, progress_bar() as progress:
        res = smooth_k_distributed(input_path, out, k=k, rng=rng, client=client, alpha=alpha,
                                   restarts=restarts, variant=variant,
                                   postprocess=postprocess, shard_size=shard_size,
                                   clusters_out=clusters_path,
                                   pseudonym_key=scope_key(release["release_id"]),
                                   progress=progress)
    from .anonymity import _report

    payload = _report(release, res.summary(),
                      {"ok": True, "checked": "per chunk on the workers"},
                      input=input_path, seed=seed, **target,
                      user_ids="keyed per-release pseudonyms (written by the workers)")
    write_json(report_path, payload)
    echo(f"smooth-k ({variant}) k={k} on {res.n_workers} Dask workers: jaccard "
         f"{res.jaccard:.4f}, suppressed {res.suppressed:.4f}, created {res.created:.4f}, "
         f"{res.n_clusters} clusters (min size {res.min_cluster_size}) in "
         f"{wall_seconds():.1f} s -> {out}/ ({len(res.parts)} parts)")


def dk_on_cluster(input_path: str, d: int, *, scheduler: str | None,
                  cluster: str | None) -> Any:
    from ..distributed import connect, dk_distributed
    from ..distributed._engine import check_parts

    target = _target(scheduler, cluster)
    check_parts(input_path, ("source", "target"))
    with connect(**target) as client:
        return dk_distributed(input_path, d, client=client)
