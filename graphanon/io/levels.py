"""Per-user anonymity levels δ_i for ``b-anonymize``: from a file, a table column or a
node property (issue 8: "constant, from a column / Neo4j property, or derived from degree").

Every reader returns one integer per user of the input, in the input's user order, and
refuses with a message naming the source, the user and the value (exit code 2): unknown
users, users without a level, levels that are not integers, below 1 or above n.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InputFormatError, InvalidParameterError
from ._pairs import iter_id_value_lines

__all__ = ["levels_from_values", "read_delta_file"]


def _as_level(value: Any, where: str, n: int) -> int:
    if isinstance(value, bool) or value is None:
        raise InvalidParameterError(f"{where}: δ must be an integer in [1, n={n}]; got {value!r}.")
    if isinstance(value, float) or isinstance(value, np.floating):
        if not math.isfinite(value) or not float(value).is_integer():
            raise InvalidParameterError(
                f"{where}: δ must be an integer in [1, n={n}]; got {value!r}.")
        value = int(value)
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise InvalidParameterError(
                f"{where}: δ must be an integer in [1, n={n}]; got {value!r}.") from None
    try:
        level = int(value)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{where}: δ must be an integer in [1, n={n}]; got {value!r}.") from None
    if level < 1:
        raise InvalidParameterError(f"{where}: δ={level} is below 1 (every user hides among "
                                    f"at least themselves).")
    if level > n:
        raise InvalidParameterError(f"{where}: δ={level} is larger than the number of users "
                                    f"n={n}.")
    return level


def levels_from_values(values: Sequence[Any] | npt.NDArray[Any], user_ids: Any, *,
                       source: str) -> npt.NDArray[np.int64]:
    """Validate one δ per user (aligned with ``user_ids``) from a column or a property.

    ``source`` names where they came from (``"column 'delta' of t.csv"``, ``"property
    'delta'"``) for the error messages; a missing value (None / NaN) is an error.
    """
    ids = list(np.asarray(user_ids).tolist())
    vals = list(np.asarray(values, dtype=object).tolist())
    if len(vals) != len(ids):
        raise InvalidParameterError(f"{source}: {len(vals)} values for {len(ids)} users.")
    n = len(ids)
    out = np.empty(n, dtype=np.int64)
    for i, (u, v) in enumerate(zip(ids, vals, strict=True)):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            raise InvalidParameterError(f"{source}: user {u!r} has no δ (missing value).")
        out[i] = _as_level(v, f"{source}, user {u!r}", n)
    return out


def read_delta_file(path: str | os.PathLike[str], user_ids: Any) -> npt.NDArray[np.int64]:
    """Parse ``user<TAB>delta`` lines (``#`` comments; a first line of two non-numbers is a header).

    Every user of ``user_ids`` needs exactly one line, and every line must name a user of
    the input (ids are compared as strings).

    Raises
    ------
    InputFormatError
        Missing file, malformed line, unknown or repeated user, a user without a level, or
        a level that is not an integer in ``[1, n]``; the message names the file and line.
    """
    p = Path(path)
    ids = [str(u) for u in np.asarray(user_ids).tolist()]
    pos = {u: i for i, u in enumerate(ids)}
    n = len(ids)
    out = np.zeros(n, dtype=np.int64)
    seen_line: dict[str, int] = {}
    for no, user, raw in iter_id_value_lines(p, what="user<TAB>delta"):
        if user not in pos:
            raise InputFormatError(f"{p}:{no}: user {user!r} is not in the input.",
                                   path=str(p), line=no)
        if user in seen_line:
            raise InputFormatError(
                f"{p}:{no}: user {user!r} already has a δ on line {seen_line[user]}.",
                path=str(p), line=no)
        try:
            out[pos[user]] = _as_level(raw, f"{p}:{no}: user {user!r}", n)
        except InvalidParameterError as exc:
            raise InputFormatError(str(exc), path=str(p), line=no) from None
        seen_line[user] = no
    missing = [u for u in ids if u not in seen_line]
    if missing:
        raise InputFormatError(
            f"{p}: no δ for user {missing[0]!r} ({len(missing)} of {n} users without one).",
            path=str(p))
    return out
