"""Read a privacy-preference table: ``node<TAB>epsilon`` lines (``#`` comments, optional header)."""

from __future__ import annotations

from pathlib import Path

from .._validation import EPSILON_RANGE
from ..dk.preferences import Preferences, from_pairs
from ..errors import InputFormatError
from ._pairs import iter_id_value_lines

__all__ = ["read_preferences"]


def read_preferences(path: str | Path, *, default: float | None = None) -> Preferences:
    """Parse ``node<TAB>epsilon`` lines into :class:`~graphanon.dk.preferences.Preferences`.

    A first line whose two fields are not numbers is a header. Raises
    :class:`~graphanon.errors.InputFormatError` naming the file and line on bad input.
    """
    p = Path(path)
    ids: list[str] = []
    eps: list[float] = []
    seen: dict[str, int] = {}
    for no, node, raw in iter_id_value_lines(p, what="node<TAB>epsilon"):
        if node in seen:
            raise InputFormatError(
                f"{p}:{no}: node {node!r} is listed again (first on line {seen[node]}); a "
                "preference file gives each node one ε.", path=str(p), line=no)
        seen[node] = no
        try:
            e = float(raw)
        except ValueError:
            raise InputFormatError(f"{p}:{no}: epsilon {raw!r} is not a number.",
                                   path=str(p), line=no) from None
        lo, hi = EPSILON_RANGE
        if not lo <= e <= hi:
            raise InputFormatError(
                f"{p}:{no}: epsilon must be a float in [{lo:g}, {hi:g}]. Got {e}.",
                path=str(p), line=no)
        ids.append(node)
        eps.append(e)
    if not ids:
        raise InputFormatError(f"The preference file {p} lists no node.")
    # the record names public things only: "file" and the table's keyed digest, not the path
    return from_pairs(ids, eps, default=default, source="file")
