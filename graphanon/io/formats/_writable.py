"""Which ids each output format can hold so that they read back equal: refused before writing."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._ids import ID_BLANKS, _arrow_text, trim_id_blanks
from ...errors import InvalidParameterError

#: Characters an id may not contain in each text format, and why.
_TEXT_RULES = {
    "edgelist": (r"[ \t\r\n]", "whitespace separates the two ids of an edge list line"),
    "tsv-raw": (r"[\t\r\n]", "tabs and newlines separate fields and lines"),
    # XML 1.0 has no control characters but tab and newline, and reads a carriage return as
    # a newline
    "graphml": (r"[\x00-\x08\x0b\x0c\x0e-\x1f\r\x{fffe}\x{ffff}]",
                "XML holds no control characters and reads a carriage return as a newline"),
    "gml": (r"\x00", "igraph's GML reader ends a string at a NUL character"),
}


#: Rules under which an id starting with '#' would read back as a comment line.
_COMMENT_RULES = frozenset({"edgelist", "tsv-raw"})


def _check_writable_ids(ids: np.ndarray[Any, Any], what: str, rule: str, fmt: str) -> Any:
    """The ids as text, if ``fmt`` can hold every one of them so that it reads back equal."""
    import pyarrow.compute as pc

    text = _arrow_text(ids)
    if ids.dtype != object:  # canonical integers: always writable
        return text
    pattern, why = _TEXT_RULES[rule]
    bad = pc.match_substring_regex(text, pattern)
    if rule in _COMMENT_RULES:
        bad = pc.or_(bad, pc.match_substring_regex(text, r"^[ \t]*#"))
    if pc.any(bad).as_py():
        x = text[int(pc.index(bad, True).as_py())].as_py()
        comment = rule in _COMMENT_RULES and x.lstrip(" \t").startswith("#")
        reason = "'#' starts a comment line" if comment else why
        instead = ".parquet or .csv" if rule in ("graphml", "gml") else ".parquet or .graphml"
        article = "an" if fmt[:1].lower() in "aeiou" else "a"
        raise InvalidParameterError(
            f"the {what} id {x!r} cannot be written to {article} {fmt} file ({reason}); "
            f"write {instead} instead, which hold any id.")
    return text


_FORMAT_NAMES = {"edgelist": "an edge list", "csv": "a CSV file", "tsv": "a TSV file",
                 "parquet": "a Parquet file", "graphml": "a GraphML file", "gml": "a GML file",
                 "mtx": "a Matrix Market file", "bipartite": "a user-feature file"}


def _refuse_blank_ends(ids: np.ndarray[Any, Any], what: str, fmt: str) -> None:
    """Every reader drops the spaces and tabs around an id (:func:`trim_id_blanks`), so an id
    that starts or ends with one (possible only through the library) would read back as
    another: refused for every format."""
    if ids.dtype != object or not ids.size:
        return
    import pyarrow.compute as pc

    text = _arrow_text(ids)
    bad = pc.match_substring_regex(text, f"^[{ID_BLANKS}]|[{ID_BLANKS}]$")
    if pc.any(bad).as_py():
        x = text[int(pc.index(bad, True).as_py())].as_py()
        raise InvalidParameterError(
            f"the {what} id {x!r} cannot be written to {_FORMAT_NAMES.get(fmt, fmt)}: every "
            "reader drops the "
            f"spaces and tabs around an id, so it would read back as {trim_id_blanks(x)!r}; "
            "strip the ids first.")
