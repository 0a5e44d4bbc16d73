"""Parameter validation with one message format.

Public functions validate once, at the boundary, and raise
:class:`~graphanon.errors.InvalidParameterError` with a message of the form::

    The 'k' parameter of smooth_k_anonymity must be an int in [2, 100]. Got 1 instead.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection
from typing import Any

from .errors import InvalidParameterError

__all__ = [
    "EPSILON_RANGE",
    "check_choice",
    "check_cluster_size",
    "check_degree_bound",
    "check_epsilon",
    "check_float",
    "check_int",
    "check_probability",
    "fail",
]


def fail(name: str, owner: str, expected: str, got: Any) -> InvalidParameterError:
    """Build the canonical error for parameter ``name`` of ``owner``."""
    return InvalidParameterError(
        f"The {name!r} parameter of {owner} must be {expected}. Got {got!r} instead."
    )


def check_type(value: Any, types: type | tuple[type, ...], name: str, owner: str,
               expected: str) -> Any:
    """``value`` if it is an instance of ``types``, else the canonical error (``expected``
    describes the type: ``"a numpy.random.Generator"``)."""
    if not isinstance(value, types):
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} must be {expected}. Got "
            f"{type(value).__name__} instead.")
    return value


def check_path_arg(value: Any, name: str, owner: str) -> Any:
    """A path argument: ``str`` or ``os.PathLike``."""
    import os

    return check_type(value, (str, os.PathLike), name, owner, "a path (str or os.PathLike)")


def _bound(x: float) -> str:
    """An interval end: an int in full (2147483646, not 2.14748e+09), a float compactly."""
    return str(x) if isinstance(x, int) else f"{x:g}"


def _interval(low: float | None, high: float | None, closed: str) -> str:
    lo = "-inf" if low is None else _bound(low)
    hi = "inf" if high is None else _bound(high)
    left = "[" if closed in ("both", "left") and low is not None else "("
    right = "]" if closed in ("both", "right") and high is not None else ")"
    return f"{left}{lo}, {hi}{right}"


def check_int(
    value: Any,
    name: str,
    owner: str,
    *,
    low: int | None = None,
    high: int | None = None,
) -> int:
    """Return ``value`` as an ``int`` if it is an integer in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise fail(name, owner, f"an int in {_interval(low, high, 'both')}", value)
    ivalue = int(value)
    if (low is not None and ivalue < low) or (high is not None and ivalue > high):
        raise fail(name, owner, f"an int in {_interval(low, high, 'both')}", value)
    return ivalue


def check_float(
    value: Any,
    name: str,
    owner: str,
    *,
    low: float | None = None,
    high: float | None = None,
    closed: str = "both",
) -> float:
    """Return ``value`` as a finite ``float`` inside the interval.

    ``closed`` is one of ``"both"``, ``"left"``, ``"right"``, ``"neither"``.
    """
    expected = f"a finite float in {_interval(low, high, closed)}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise fail(name, owner, expected, value)
    fvalue = float(value)
    if not math.isfinite(fvalue):
        raise fail(name, owner, expected, value)
    if low is not None and (fvalue < low or (fvalue == low and closed in ("right", "neither"))):
        raise fail(name, owner, expected, value)
    if high is not None and (fvalue > high or (fvalue == high and closed in ("left", "neither"))):
        raise fail(name, owner, expected, value)
    return fvalue


#: How deeply a structured input (a job or suite TOML file, a ledger or report JSON file)
#: may nest its arrays and tables: far beyond any real one, and far below the depth at which
#: a parser (or the code walking the result) would exceed Python's recursion limit.
MAX_NESTING = 64


def nesting_depth(value: Any) -> int:
    """How deeply ``value`` nests lists and dicts (a scalar: 0), counted without recursion."""
    depth, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = (item.values() if isinstance(item, dict)
                    else item if isinstance(item, list) else None)
        if children is None:
            continue
        depth = max(depth, level)
        if level <= MAX_NESTING:  # deeper is refused anyway: no need to walk it all
            stack.extend((c, level + 1) for c in children)
    return depth


def check_nesting(value: Any) -> Any:
    """``value``, or ``ValueError`` if it nests deeper than :data:`MAX_NESTING` levels."""
    if nesting_depth(value) > MAX_NESTING:
        raise ValueError(f"it nests arrays or tables more than {MAX_NESTING} levels deep")
    return value


def loads_json(text: str) -> Any:
    """:func:`json.loads`, but an object that holds a key twice is an error (``ValueError``):
    the standard module keeps the last value silently, so a ledger with a second
    ``"datasets"`` would hide every charge of the first. Nesting deeper than
    :data:`MAX_NESTING` levels is an error too (``ValueError``), not a ``RecursionError``."""
    import json

    def unique(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise ValueError(f"the key {key!r} appears twice in one JSON object")
            out[key] = value
        return out

    try:
        return check_nesting(json.loads(text, object_pairs_hook=unique))
    except RecursionError:
        raise ValueError(
            f"it nests arrays or tables more than {MAX_NESTING} levels deep") from None


#: The ε every mechanism accepts. Below 1e-6 the noise scale is astronomically large (and
#: floating point breaks down near 1e-300); above 100 a guarantee of e^100 means nothing, and
#: probabilities like e^-ε underflow in floating point.
EPSILON_RANGE = (1e-6, 1e2)


def check_epsilon(value: Any, name: str, owner: str) -> float:
    """A privacy parameter ε: a finite float in :data:`EPSILON_RANGE`."""
    return check_float(value, name, owner, low=EPSILON_RANGE[0], high=EPSILON_RANGE[1])


#: Largest public degree domain a dense release may allocate: 1K cells (h + 1) and 2K cells
#: (h (h + 1) / 2). Larger bounds would need more memory than any release is worth.
MAX_1K_CELLS = 100_000_000
MAX_2K_CELLS = 20_000_000


def check_degree_bound(value: Any, name: str, owner: str, *, d: int = 1) -> int:
    """A public degree bound (h, θ, Λ): an int >= 1 whose dK domain fits in memory."""
    h = check_int(value, name, owner, low=1, high=2**31 - 2)
    cells = h + 1 if d == 1 else h * (h + 1) // 2
    limit = MAX_1K_CELLS if d == 1 else MAX_2K_CELLS
    if cells > limit:
        raise fail(name, owner, f"a degree bound whose {d}K domain has at most {limit} cells "
                   f"(this one has {cells})", value)
    return h


def check_probability(value: Any, name: str, owner: str) -> float:
    """A float in [0, 1]."""
    return check_float(value, name, owner, low=0.0, high=1.0)


def check_choice(value: Any, name: str, owner: str, choices: Collection[str]) -> str:
    """``value`` must be one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise fail(name, owner, f"one of {options}", value)
    return value


def check_cluster_size(k: Any, owner: str, *, cells: int, mechanism: str,
                       plain: str) -> int:
    """``k`` of a microaggregation over ``cells`` public domain cells, in ``[2, cells - 1]``.

    ``k = 1`` aggregates nothing (the mechanism would be ``plain``); ``k >= cells`` puts the
    whole domain in one cluster (a noisy total). Either would be a different mechanism under
    this one's name, so both are refused with the reason.
    """
    if k is None:
        raise InvalidParameterError(f"The 'k' parameter of {owner} is required for {mechanism}.")
    size = check_int(k, "k", owner, low=1)
    if not 2 <= size < cells:
        raise InvalidParameterError(
            f"The 'k' parameter of {owner} must be an int in [2, {cells - 1}] for {mechanism} "
            f"over the {cells} cells of the domain. Got {size}: "
            + (f"k = 1 aggregates nothing (that is {plain})." if size < 2 else
               "one cluster would hold the whole domain (a noisy total)."))
    return size
