"""Write the parameter tables of ``docs/`` from the mechanisms' specs (issue 37).

Every registry row with a ``spec`` has a table between ``<!-- params:NAME -->`` and
``<!-- /params:NAME -->`` in the page its spec names (``Spec.doc``). Run after changing a
``Param``::

    python scripts/param_docs.py          # rewrite the tables
    python scripts/param_docs.py --check  # exit 1 when a table is stale (tests do the same)
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from graphanon import registry
from graphanon.params import Spec, render_block

ROOT = Path(__file__).resolve().parent.parent


def load_spec(target: str) -> Spec:
    module, _, attr = target.partition(":")
    spec = getattr(importlib.import_module(module), attr)
    assert isinstance(spec, Spec), target
    return spec


def rendered() -> dict[Path, str]:
    """Every docs page that holds a table: its text with the tables regenerated."""
    pages: dict[Path, str] = {}
    for name, target in registry.specs().items():
        spec = load_spec(target)
        page = ROOT / spec.doc
        text = pages.get(page) or page.read_text(encoding="utf-8")
        pages[page] = render_block(text, name, spec)
    return pages


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail on a stale table, write nothing")
    args = ap.parse_args(argv)
    stale = []
    for page, text in rendered().items():
        if page.read_text(encoding="utf-8") != text:
            stale.append(page.relative_to(ROOT))
            if not args.check:
                page.write_text(text, encoding="utf-8")
    if stale and args.check:
        print("stale parameter tables: " + ", ".join(map(str, stale)), file=sys.stderr)
        return 1
    print(("rewrote " + ", ".join(map(str, stale))) if stale else "all tables current")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
