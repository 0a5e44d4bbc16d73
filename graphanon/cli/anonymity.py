"""``graphanon smooth-k``, ``graphanon mondrian``, ``graphanon bipartite-from-table``."""

from __future__ import annotations

import time
from typing import Any

import click

from ..anonymity.mondrian import MONDRIAN
from ..anonymity.smooth_k import SMOOTH_K
from ..errors import GraphAnonError, InvalidParameterError
from ._console import echo, progress_bar, wall_seconds
from ._inputs import load_bipartite, refuse_skip_bad_rows
from ._outputs import bound, outside_published, pseudonymized, write_json
from ._params import distributed_options, pseudonym_options
from ._privacy import make_rng
from ._spec import options_from

__all__ = ["COMMANDS"]


class VerificationFailed(GraphAnonError):
    """A release did not pass verify_smooth_k (a bug: nothing is written)."""


def _verify_or_fail(original: Any, anonymized: Any, k: int) -> dict[str, Any]:
    from ..anonymity import verify_smooth_k

    rep = verify_smooth_k(original, anonymized, k)
    if not rep.ok:
        raise VerificationFailed(
            "the release failed verify_smooth_k, nothing was written: "
            + "; ".join(rep.violations[:3])
        )
    return rep.to_dict()


def k_anonymity_release(mechanism: str, *, k: int, params: dict[str, Any], seed: int | None,
                        fingerprint: str) -> dict[str, Any]:
    """The Release record of a syntactic (k-anonymity family) release, as a dict."""
    from ..privacy.release import Release

    return Release.k_anonymity(mechanism, k=k, params=params, seed=seed,
                               source_fingerprint=fingerprint).to_dict()


#: Fields of an anonymity result's summary() that are public: the parameters, and what
#: anyone can count in the published output. Everything else (the input's users and features
#: — suppressed rows and features included —, utility against the input, cluster statistics,
#: timings) goes under "not_private".
_PUBLIC_SUMMARY = frozenset({"k", "variant", "postprocess", "alpha", "restarts", "shard_size",
                             "split", "n_edges_out", "engine", "n_workers", "n_parts"})


def _report(release: dict[str, Any], summary: dict[str, Any], check: dict[str, Any],
            **extra: Any) -> dict[str, Any]:
    from ..privacy.release import NOT_PRIVATE_NOTE

    public = {k: v for k, v in summary.items() if k in _PUBLIC_SUMMARY}
    private = {k: v for k, v in summary.items() if k not in _PUBLIC_SUMMARY}
    return {"release": release, **public, **extra,
            "not_private": {"note": NOT_PRIVATE_NOTE, **private, "verify_smooth_k": check}}


def _write_release(B: Any, out: str, report: str, payload: dict[str, Any],
                   clusters_path: str | None, clusters: Any, *, keep_ids: bool,
                   pseudonym_map: str | None) -> None:
    from ..io.files import write_bipartite
    from ..privacy.publish import published_view
    from ..privacy.release import Release

    release = Release.from_dict(payload["release"])
    published = published_view(pseudonymized(B, release_id=release.release_id,
                                              keep_ids=keep_ids, out=out,
                                              pseudonym_map=pseudonym_map), release)
    bound(payload, release, published)
    payload["user_ids"] = ("real (--keep-ids)" if keep_ids
                           else "keyed per-release pseudonyms")
    if clusters_path:
        import numpy as np
        import pyarrow as pa
        import pyarrow.csv as pacsv

        from ..io._atomic import atomic_path

        with atomic_path(clusters_path) as tmp:
            pacsv.write_csv(pa.table({"user": np.asarray(B.user_ids).tolist(),
                                      "cluster": np.asarray(clusters)}), tmp,
                            pacsv.WriteOptions(delimiter="\t", quoting_style="none"))
    write_bipartite(published, out)
    write_json(report, payload)


@click.command("smooth-k")
@click.argument("input_path", metavar="INPUT", type=click.Path())
@options_from(SMOOTH_K)  # --k ... --jobs: declared with the function
@click.option("--seed", type=int, default=None, help="Random seed (recorded in the report).")
@click.option("--out", required=True, type=click.Path(),
              help="Output user<TAB>feature list (a folder of Parquet parts with --scheduler "
                   "or --cluster).")
@click.option("--report", "report_path", required=True, type=click.Path(dir_okay=False),
              help="JSON report.")
@click.option("--clusters", "clusters_path", type=click.Path(), default=None,
              help="Also write the PRIVATE user<TAB>cluster assignment here (operator "
                   "material: refused in the folder of --out).")
@pseudonym_options
@distributed_options
def smooth_k(input_path: str, k: int, variant: str, postprocess: str, alpha: float,
             restarts: int, shard_size: int | None, n_jobs: int, seed: int | None, out: str,
             report_path: str, clusters_path: str | None, keep_ids: bool,
             pseudonym_map: str | None, scheduler: str | None,
             cluster: str | None) -> None:
    """Smooth-k-anonymize the user<TAB>feature list INPUT.

    Every released feature set is shared by at least K users, and in each class a feature
    is released only if most members had it. The release is checked with verify_smooth_k
    before anything is written. Users appear in OUT under keyed per-release pseudonyms
    unless --keep-ids.
    """
    from ..anonymity import smooth_k_anonymity

    rng, seed = make_rng(seed)
    if clusters_path:  # real id -> cluster gives each user's published row
        outside_published("--clusters", clusters_path, out, "the user-to-cluster list",
                          folders=bool(scheduler or cluster))
    if scheduler or cluster:
        from ._distributed import smooth_k_on_cluster

        if keep_ids or pseudonym_map:
            raise InvalidParameterError(
                "--keep-ids / --pseudonym-map are not available with --scheduler/--cluster: "
                "the distributed release is written by the workers with pseudonymous ids.")

        smooth_k_on_cluster(input_path, k=k, rng=rng, seed=seed, alpha=alpha, restarts=restarts,
                            variant=variant, postprocess=postprocess, shard_size=shard_size,
                            out=out, report_path=report_path, clusters_path=clusters_path,
                            scheduler=scheduler, cluster=cluster, n_jobs=n_jobs)
        return
    B = load_bipartite(input_path)
    with progress_bar() as progress:
        res = smooth_k_anonymity(B, k=k, rng=rng, alpha=alpha, restarts=restarts,
                                 variant=variant, postprocess=postprocess,
                                 shard_size=shard_size, n_jobs=n_jobs, progress=progress)
    check = _verify_or_fail(B, res.anonymized, k)
    release = k_anonymity_release(
        "smooth-k-anonymity" if variant == "smooth" else "k-anonymity-suppression", k=k,
        params={"variant": variant, "alpha": alpha, "restarts": restarts,
                "postprocess": postprocess, "shard_size": shard_size, "select": res.select,
                "refine": res.refine, "fallback": res.fallback},
        seed=seed, fingerprint=B.content_hash)
    payload = _report(release, res.summary(), check, input=input_path, seed=seed)
    payload["not_private"]["n_edges_in"] = B.n_edges
    _write_release(res.anonymized, out, report_path, payload, clusters_path, res.clusters,
                   keep_ids=keep_ids, pseudonym_map=pseudonym_map)
    echo(f"smooth-k ({variant}) k={k}: jaccard {res.jaccard:.4f}, suppressed "
         f"{res.suppressed:.4f}, created {res.created:.4f}, {res.n_clusters} clusters "
         f"(min size {res.min_cluster_size}) in {wall_seconds():.1f} s -> {out}")


@click.command("mondrian")
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False))
@options_from(MONDRIAN)  # --k, --split: declared with the function
@click.option("--out", required=True, type=click.Path(dir_okay=False),
              help="Output user<TAB>feature list.")
@click.option("--report", "report_path", required=True, type=click.Path(dir_okay=False),
              help="JSON report.")
@pseudonym_options
def mondrian_cmd(input_path: str, k: int, split: str, out: str, report_path: str,
                 keep_ids: bool, pseudonym_map: str | None) -> None:
    """Strict Mondrian k-anonymity by suppression of the user<TAB>feature list INPUT.

    Users appear in OUT under keyed per-release pseudonyms unless --keep-ids.
    """
    from ..anonymity import mondrian

    B = load_bipartite(input_path)
    res = mondrian(B, k=k, split=split)
    check = _verify_or_fail(B, res.anonymized, k)
    release = k_anonymity_release("mondrian", k=k, params={"split": split}, seed=None,
                                  fingerprint=B.content_hash)
    payload = _report(release, res.summary(), check, input=input_path)
    payload["not_private"]["n_edges_in"] = B.n_edges
    _write_release(res.anonymized, out, report_path, payload, None, None, keep_ids=keep_ids,
                   pseudonym_map=pseudonym_map)
    echo(f"mondrian k={k}: jaccard {res.jaccard:.4f}, suppressed {res.suppressed:.4f}, "
         f"{res.n_clusters} partitions in {wall_seconds():.1f} s -> {out}")


@click.command("bipartite-from-table")
@click.argument("csv_path", metavar="CSV", type=click.Path(dir_okay=False))
@click.option("--preset", type=click.Choice(["adult", "playstore"]), default=None,
              help="A known table (UCI Adult, Google Play) with the paper's columns.")
@click.option("--id-column", default=None, help="Column of user ids (default: row number).")
@click.option("--columns", default=None,
              help="Comma-separated feature columns (default: all but the id column).")
@click.option("--binarize", type=click.Choice(["none", "median", "quantile"]), default=None,
              help="Numeric columns: one-hot values (none, the default), an above-median "
                   "flag, or quantile bins. median and quantile cut at points computed from "
                   "the data (a warning): not for the input of a DP release.")
@click.option("--split", "splits", multiple=True, metavar="COL=SEP",
              help="Multi-valued column, e.g. 'Genres=;' (repeatable).")
@click.option("--dropna", is_flag=True, help="Drop rows with a missing value.")
@click.option("--no-header", is_flag=True, help="The CSV has no header (columns c0, c1, ...).")
@click.option("--out", required=True, type=click.Path(dir_okay=False),
              help="Output user<TAB>feature list.")
def bipartite_from_table(csv_path: str, preset: str | None, id_column: str | None,
                         columns: str | None, binarize: str | None,
                         splits: tuple[str, ...],
                         dropna: bool, no_header: bool, out: str) -> None:
    """Turn the table CSV into a user<TAB>feature list (categorical values one-hot)."""
    from ..io.files import write_bipartite
    from ..io.tables import load_preset, read_table, table_to_bipartite

    t0 = time.perf_counter()
    refuse_skip_bad_rows(f"the table {csv_path!r}")
    if preset:
        given = [opt for opt, value in (("--id-column", id_column), ("--columns", columns),
                                        ("--binarize", binarize), ("--split", splits),
                                        ("--dropna", dropna), ("--no-header", no_header))
                 if value]
        if given:
            raise InvalidParameterError(
                f"The option(s) {', '.join(given)} do not apply with --preset {preset}: the "
                "preset fixes the table's columns and their encoding.")
        B = load_preset(csv_path, preset)
    else:
        split = {}
        for s in splits:
            if "=" not in s or not s.split("=", 1)[1]:
                raise InvalidParameterError(
                    f"The '--split' option must look like COL=SEP. Got {s!r} instead.")
            col, sep = s.split("=", 1)
            split[col] = sep
        names = None
        if no_header:
            with open(csv_path, encoding="utf-8", errors="replace") as fh:
                first = fh.readline()
            names = [f"c{i}" for i in range(first.count(",") + 1)]
        table = read_table(csv_path, column_names=names)
        cols = [c.strip() for c in columns.split(",")] if columns else None
        B = table_to_bipartite(table, columns=cols, id_column=id_column,
                               binarize=None if binarize in (None, "none") else binarize,
                               dropna=dropna, split=split)
    if B.n_edges == 0:
        raise InvalidParameterError(
            f"{csv_path!r} yields no user–feature pair (no data rows, or every row dropped); "
            "nothing to write.")
    write_bipartite(B, out)
    echo(f"{B.n_users} users, {B.n_features} features, {B.n_edges} edges "
         f"({time.perf_counter() - t0:.2f} s) -> {out}")


COMMANDS = [smooth_k, mondrian_cmd, bipartite_from_table]
