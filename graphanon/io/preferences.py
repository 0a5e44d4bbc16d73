"""Read a privacy-preference table: ``node<TAB>epsilon`` lines (``#`` comments, optional header)."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputFormatError
from ..privacy.preferences import Preferences, from_pairs

__all__ = ["read_preferences"]


def read_preferences(path: str | Path, *, default: float | None = None) -> Preferences:
    """Parse ``node<TAB>epsilon`` lines into :class:`~graphanon.privacy.preferences.Preferences`.

    A first line whose second field is not a number is a header. Raises
    :class:`~graphanon.errors.InputFormatError` naming the file and line on bad input.
    """
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputFormatError(f"Cannot read the preference file {p}: {exc.strerror}.") from None
    ids: list[str] = []
    eps: list[float] = []
    for no, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        parts = s.split("\t") if "\t" in s else s.split()
        if len(parts) != 2:
            raise InputFormatError(
                f"{p}:{no}: expected 'node<TAB>epsilon', got {len(parts)} fields.")
        try:
            e = float(parts[1])
        except ValueError:
            if not ids:
                continue  # header
            raise InputFormatError(f"{p}:{no}: epsilon {parts[1]!r} is not a number.") from None
        if not (e > 0 and e < float("inf")):
            raise InputFormatError(f"{p}:{no}: epsilon must be a finite float > 0. Got {e}.")
        ids.append(parts[0])
        eps.append(e)
    if not ids:
        raise InputFormatError(f"The preference file {p} lists no node.")
    if len(set(ids)) != len(ids):
        raise InputFormatError(f"The preference file {p} lists a node twice.")
    return from_pairs(ids, eps, default=default, source=str(p))
