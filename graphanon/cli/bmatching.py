"""``graphanon b-anonymize``: adaptive anonymity via b-matching (glue only)."""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..anonymity.bmatching import B_ANONYMIZE
from ..errors import DataDependentFeaturesWarning, GraphAnonError, InvalidParameterError
from ._console import echo, progress_bar
from ._inputs import load_bipartite, load_graph
from ._outputs import write_json
from ._privacy import make_rng
from ._spec import options_from, spec_values

if TYPE_CHECKING:  # pragma: no cover
    from ..graph import BipartiteGraph

__all__ = ["COMMANDS", "b_anonymize"]

#: Fields of the result's summary() that are public: the mechanism and its parameters. The
#: input's size, the stars and utility against the input, the δ statistics (read off the data
#: with --delta-from-degree or --delta-column), iterations, timings and the verification go
#: under "not_private".
_PUBLIC_SUMMARY = ("mechanism", "method", "privacy_model", "neighbourhood",
                   "differentially_private", "solver", "exact_solver", "candidates",
                   "reweighting_epsilon", "guarantee")


def _load_input(path: str, preset: str | None, table: bool,
                delta_column: str | None) -> tuple[BipartiteGraph, Any]:
    """The input as a bipartite graph, and the δ column's values per user (or None)."""
    from ..io.tables import (
        PRESETS,
        _first_per_id,
        preset_column_names,
        read_table,
        table_to_bipartite,
    )

    is_table = preset is not None or table or Path(path).suffix.lower() == ".csv"
    if not is_table:
        if delta_column is not None:
            raise InvalidParameterError(
                "--delta-column needs a table INPUT (--table, --preset or a *.csv file); for a "
                "user<TAB>attribute list use --delta-file.")
        return load_bipartite(path), None
    if preset is not None:
        spec = PRESETS[preset]
        t = read_table(path, column_names=preset_column_names(path, spec),
                       delimiter=spec.delimiter, na_values=spec.na_values)
        id_column, dropna, split = spec.id_column, spec.dropna, spec.split
        if id_column is not None:
            t = _first_per_id(t, id_column)
        cols = [c for c in t.column_names if c != id_column and c != "income"]
    else:
        t = read_table(path)
        id_column, dropna, split = None, False, {}
        cols = list(t.column_names)
    if delta_column is not None:
        if delta_column not in t.column_names:
            raise InvalidParameterError(
                f"The '--delta-column' option names an unknown column {delta_column!r}; "
                f"columns are {', '.join(t.column_names)}.")
        if delta_column == id_column:
            raise InvalidParameterError("--delta-column cannot be the id column.")
        cols = [c for c in cols if c != delta_column]  # a level is not a released attribute
    if dropna:  # drop incomplete rows here, so that the δ column stays aligned
        import pyarrow.compute as pc

        mask = None
        for c in cols + ([id_column] if id_column else []):
            valid = pc.is_valid(t.column(c))
            mask = valid if mask is None else pc.and_(mask, valid)
        if mask is not None:
            t = t.filter(mask)
    # b-anonymity is a syntactic guarantee over the encoded table (the paper's encoding: a
    # numeric column becomes "c>median", docs/bmatching.md); not the input of a DP release,
    # so the warning is not for this user. The attribute is named "c>median", never with the
    # median's value: the released rows are published, the data's median is not
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataDependentFeaturesWarning)
        B = table_to_bipartite(t, columns=cols, id_column=id_column, binarize="median",
                               dropna=False, split=split, median_in_names=False)
    if B.n_edges == 0:  # as bipartite-from-table: k-anonymity of nothing is no release
        raise InvalidParameterError(
            f"{path!r} yields no user–attribute pair (no data rows, or every cell missing); "
            "nothing to anonymize.")
    if delta_column is None:
        return B, None
    values = t.column(delta_column).to_pylist()
    row_ids = t.column(id_column).to_pylist() if id_column else list(range(t.num_rows))
    by_id = dict(zip(row_ids, values, strict=True))
    return B, [by_id[u] for u in B.user_ids.tolist()]


def _old_method_flags(method: str | None, symmetric: bool, baseline: str | None) -> str | None:
    """``--method`` from the flags it replaced (``--symmetric``, ``--baseline k-anonymity``;
    removed in 0.3.0), with a warning; two different choices are refused."""
    for flag, given, chosen in (("--symmetric", symmetric, "symmetric-b-matching"),
                                ("--baseline", baseline, "k-anonymity")):
        if not given:
            continue
        ctx = click.get_current_context()
        source = ctx.get_parameter_source("method")
        if source is not click.core.ParameterSource.DEFAULT and method != chosen:
            raise InvalidParameterError(
                f"The options {flag!r} and '--method {method}' choose different methods; "
                "give '--method' only.")
        method = chosen
        was = f"{flag} {baseline}" if flag == "--baseline" else flag
        click.echo(f"graphanon: warning: {was} is now --method {chosen} (the old option is "
                   "removed in 0.3.0).", err=True)
    return method


@click.command("b-anonymize")
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False))
@click.option("--delta", type=int, help="The same anonymity level δ for every user.")
@click.option("--delta-file", type=click.Path(dir_okay=False),
              help="Per-user levels: lines 'user<TAB>delta'.")
@click.option("--delta-column",
              help="Per-user levels from this column of a table INPUT (--table / --preset / "
                   "*.csv); the column is not released.")
@click.option("--delta-from-degree", "degree_graph", type=click.Path(dir_okay=False),
              help="Graph whose node ids are the users: δ_i = δ − (F − ⌊ln f_i⌋) "
                   "(paper section 5), with --delta-max as δ.")
@click.option("--delta-max", type=int, help="δ of the best-connected users (--delta-from-degree).")
@options_from(B_ANONYMIZE)  # --method, --candidates, --max-iter, --time-limit: declared with
# the function (graphanon.anonymity.bmatching); the δ sources above are the users' own levels
@click.option("--symmetric", "old_symmetric", is_flag=True, default=False, hidden=True,
              help="Old form of --method symmetric-b-matching (removed in 0.3.0).")
@click.option("--baseline", "old_baseline", type=click.Choice(["k-anonymity"]), hidden=True,
              help="Old form of --method k-anonymity (removed in 0.3.0).")
@click.option("--preset", type=click.Choice(["adult", "playstore"]),
              help="INPUT is a known table (numeric columns split at the median).")
@click.option("--table", is_flag=True,
              help="INPUT is a CSV table with a header (default for *.csv).")
@click.option("--seed", type=int,
              help="Seed of the algorithm's random choices (recorded). The release "
                   "permutation always comes from the OS CSPRNG and is never reproducible.")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False),
              help="Released cells: 'row<TAB>attribute<TAB>1' or '...<TAB>*'.")
@click.option("--report", "report_path", required=True, type=click.Path(dir_okay=False),
              help="JSON report: the release record, the parameters and the output's cell "
                   "counts; under not_private the input's size, stars, utility, δ "
                   "statistics, seconds and the verification.")
def b_anonymize(
    input_path: str, delta: int | None, delta_file: str | None, delta_column: str | None,
    degree_graph: str | None,
    delta_max: int | None, method: str | None, candidates: int | None, max_iter: int | None,
    time_limit: float | None, old_symmetric: bool, old_baseline: str | None,
    preset: str | None, table: bool, seed: int | None, out_path: str, report_path: str,
) -> None:
    """Mask cells of INPUT so that every user i hides among ≥ δ_i others (b-matching).

    INPUT is a 'user<TAB>attribute' list (binary data) or a table. The rows are released
    in a random order; the key (which released row is whose) is not written.
    """
    from ..anonymity.bmatching import adaptive_anonymize, delta_from_degree
    from ..io.levels import levels_from_values, read_delta_file
    from ..io.masked import MaskedRelease, write_masked
    from ..privacy.release import NOT_PRIVATE_NOTE

    t0 = time.perf_counter()
    chosen = [o for o, v in (("--delta", delta), ("--delta-file", delta_file),
                             ("--delta-column", delta_column),
                             ("--delta-from-degree", degree_graph)) if v is not None]
    if len(chosen) != 1:
        raise InvalidParameterError(
            "give exactly one of --delta, --delta-file, --delta-column, --delta-from-degree "
            f"(got {', '.join(chosen) or 'none'})."
        )
    if (degree_graph is None) != (delta_max is None):
        raise InvalidParameterError("--delta-from-degree and --delta-max go together.")
    method = _old_method_flags(method, old_symmetric, old_baseline)
    options = spec_values(B_ANONYMIZE, {"method": method, "candidates": candidates,
                                        "max_iter": max_iter, "time_limit": time_limit})
    rng, seed = make_rng(seed)
    B, column = _load_input(input_path, preset, table, delta_column)
    levels: Any
    if delta is not None:
        levels = delta
    elif delta_file is not None:
        levels = read_delta_file(delta_file, B.user_ids)
    elif delta_column is not None:
        levels = levels_from_values(column, B.user_ids,
                                    source=f"column {delta_column!r} of {input_path}")
    else:
        from ..anonymity._align import index_in

        G = load_graph(degree_graph)  # type: ignore[arg-type]
        idx = index_in(B.user_ids, G.node_ids)  # one hash join, no object-array sort
        if idx.size and idx.min() < 0:
            raise InvalidParameterError(
                f"unknown node id {B.user_ids[idx < 0][:1].tolist()[0]!r}: every user must be a "
                f"node of {degree_graph!r}.")
        levels = delta_from_degree(G.degrees[idx], delta=delta_max)  # type: ignore[arg-type]
    if options["method"] == "k-anonymity":
        res = adaptive_anonymize(B, delta=levels, rng=rng, **options)
    else:
        with progress_bar() as progress:
            res = adaptive_anonymize(B, delta=levels, rng=rng, progress=progress, **options)
    ver = res.verification
    if ver is None or not ver.ok:  # pragma: no cover - the library raises first
        raise GraphAnonError("the release failed verify_adaptive_anonymity; nothing was written.")
    cells = MaskedRelease.from_result(res)
    write_masked(cells, out_path)
    summary = res.summary()
    public = {k: summary.pop(k) for k in _PUBLIC_SUMMARY}
    from ..privacy.publish import bind

    release = bind(res.release(source_fingerprint=B.content_hash, seed=seed), cells)
    write_json(report_path, {
        "release": release.to_dict(),
        **public, "seed": seed, "cells_written": cells.n_cells, "masked_cells": cells.n_masked,
        "not_private": {"note": NOT_PRIVATE_NOTE, **summary, "input": input_path,
                        "seconds_total": time.perf_counter() - t0}})
    echo(f"{options['method']}: n={res.n} d={res.d} stars={res.stars} utility={res.utility:.4f} "
         f"verification={'ok' if ver and ver.ok else 'FAILED'} -> {out_path}")


COMMANDS = [b_anonymize]
