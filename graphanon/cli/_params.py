"""Click parameter types and the option groups several commands share (noise, ledger,
distributed run, public universes, pseudonyms)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from .._validation import EPSILON_RANGE
from ..errors import InvalidParameterError


class _Float(click.ParamType):  # type: ignore[type-arg]
    """A float option that refuses text a float cannot hold (``1e-400`` is not ε = 0.0,
    ``1e400`` not infinity): the error names what was typed, not what it rounded to."""

    name = "float"

    def __init__(self, bounds: tuple[float, float] | None = None) -> None:
        self.bounds = bounds

    def convert(self, value: Any, param: Any, ctx: Any) -> float:
        x = value if isinstance(value, float) else self._parse(value, param, ctx)
        if self.bounds is not None:  # refused while the arguments are read, before any input
            from .._validation import check_float

            try:
                check_float(x, "x", "<cli>", low=self.bounds[0], high=self.bounds[1])
            except InvalidParameterError as exc:
                opt = param.opts[0] if param is not None and param.opts else "the"
                raise InvalidParameterError(str(exc).replace(
                    "The 'x' parameter of <cli>", f"The {opt!r} option")) from None
        return x

    def _parse(self, value: Any, param: Any, ctx: Any) -> float:
        text = str(value).strip()
        try:
            x = float(text)
        except ValueError:
            self.fail(f"{value!r} is not a number.", param, ctx)
        mantissa = text.lower().split("e")[0]
        if (x == 0.0 and any(c in mantissa for c in "123456789")) or (
                x in (float("inf"), float("-inf")) and "inf" not in text.lower()):
            self.fail(f"{value!r} is beyond the range of a float (it would read as {x}).",
                      param, ctx)
        return x


#: The CLI's float options (``type=FLOAT``).
FLOAT = _Float()


#: A privacy parameter ε (:data:`graphanon._validation.EPSILON_RANGE`), checked as the
#: arguments are parsed: a bad ε is reported at once, not after reading the input.
EPSILON = _Float(EPSILON_RANGE)


#: Randomized response's total ε, which at node level is |F| times the per-cell ε (the
#: per-cell ε is checked against :data:`EPSILON_RANGE` by the mechanism).
RR_EPSILON = _Float((EPSILON_RANGE[0], 1e9))


FORMAT_CHOICE = click.Choice(
    ["edgelist", "csv", "tsv", "parquet", "graphml", "gml", "mtx", "mat"], case_sensitive=False
)


#: What --out-format offers: every format but MATLAB's, which graphanon reads only.
OUT_FORMAT_CHOICE = click.Choice(
    ["edgelist", "csv", "tsv", "parquet", "graphml", "gml", "mtx"], case_sensitive=False
)


#: ``--seed`` of a command whose only randomness is its DP noise (randomized response's
#: coin flips): refused with the secure default noise, which cannot be seeded.
SEED_OF_NOISE_ONLY = ("Seed of the coin flips, only with --noise numpy-insecure (recorded in "
                      "the release); refused with the default opendp noise, whose secure "
                      "coin flips cannot be seeded.")


def noise_options_seeding(seed_help: str) -> Callable[[Any], Any]:
    """:func:`noise_options` whose ``--seed`` help is ``seed_help``, for a command whose seed
    does something else than seeding sampling and post-processing
    (:data:`SEED_OF_NOISE_ONLY`): the help says what the option does."""
    return lambda func: noise_options(func, seed_help=seed_help)


def noise_options(func: Any, *, seed_help: str | None = None) -> Any:
    """Add ``--noise`` and ``--seed``: the one way every private command picks its noise."""
    func = click.option(
        "--seed",
        type=int,
        default=None,
        help=seed_help or "Seed for sampling and post-processing (recorded in the release). "
        "It seeds the DP noise only with --noise numpy-insecure.",
    )(func)
    return click.option(
        "--noise",
        type=click.Choice(["opendp", "numpy-insecure"]),
        default="opendp",
        show_default=True,
        help="opendp: secure noise (the default); numpy-insecure: seeded numpy noise, "
        "reproducible but NOT secure (research and tests only).",
    )(func)


def distributed_options(f: Any) -> Any:
    """``--scheduler ADDRESS`` / ``--cluster local:N``: run the command on a Dask cluster
    (optional extra ``graphanon[distributed]``; Dask is imported only when one is given)."""
    f = click.option("--cluster", default=None, metavar="local:N",
                     help="Run on a new local Dask cluster of N worker processes "
                          "(needs graphanon[distributed]).")(f)
    f = click.option("--scheduler", default=None, metavar="ADDRESS",
                     help="Run on the Dask cluster at ADDRESS (e.g. tcp://host:8786); INPUT "
                          "and the outputs must be on storage the workers share.")(f)
    return f


def ledger_options(f: Any) -> Any:
    """``--ledger FILE --dataset NAME [--budget EPS --budget-neighbourhood edge|node]``.

    Every DP command takes them: the release is charged to the dataset's budget in the JSON
    ledger after all its files were written and before any is put in place; a short budget
    exits 3 and leaves no output.
    """
    f = click.option("--budget-neighbourhood", type=click.Choice(["edge", "node"]),
                     default=None,
                     help="Relation the budget is stated for (first use; default: this "
                          "release's).")(f)
    f = click.option("--budget", "budget", type=FLOAT, default=None, metavar="EPSILON",
                     help="Total ε of the dataset, required the first time the ledger sees "
                          "it (then checked against the stored value).")(f)
    f = click.option("--dataset", default=None, metavar="NAME",
                     help="Stable name of the data in the ledger (never a content hash; "
                          "case and Unicode width do not matter).")(f)
    f = click.option("--ledger", "ledger", type=click.Path(dir_okay=False), default=None,
                     help="JSON privacy ledger to charge (graphanon-ledger/1; created, and "
                          "said so, by the first charge with --budget).")(f)
    return f


def nodes_option(f: Any) -> Any:
    """``--nodes FILE``: the public node universe of an edge-level release."""
    return click.option(
        "--nodes", "nodes_path", type=click.Path(dir_okay=False), default=None,
        help="PUBLIC node universe: one node id per line. Edge-DP treats the node set as "
             "public, but an edge list cannot say which nodes exist; without it the release "
             "uses nothing that depends on the node count.")(f)


def pseudonym_options(f: Any) -> Any:
    """``--keep-ids`` / ``--pseudonym-map FILE`` for outputs that list users."""
    f = click.option("--pseudonym-map", "pseudonym_map", type=click.Path(dir_okay=False),
                     default=None,
                     help="Also write the operator's id<TAB>pseudonym mapping here (never in "
                          "the folder of the published output).")(f)
    f = click.option("--keep-ids", is_flag=True,
                     help="Publish the real user ids instead of keyed pseudonyms (warns: the "
                          "output then names who is in it).")(f)
    return f
