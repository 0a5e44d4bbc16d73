"""Render a graphanon HTML report in headless Chromium and save a full-page screenshot.

    python scripts/screenshot_report.py graphanon-out/operator/report.html --out report.png
    python scripts/screenshot_report.py --demo /tmp/demo --out report.png   # run the demo first

First checks the page with :func:`graphanon.reporting.broken_references` (exit 1 on a broken
reference), then opens it as ``file://`` with networking off (no ``http`` request can
succeed, so only what the file itself holds is shown) and writes a PNG of the whole page: the
window is made taller until the page's bottom is blank, then the blank margin is cut off.
Prints a small table (the page's size and the slices written with ``--slices``) and, with
``--json PATH``, writes it as JSON.

Without a Chromium binary (``chromium``, ``chromium-browser``, ``google-chrome``; or
``$CHROMIUM``) it prints why and exits 0 — the test suite never depends on a browser. On
Debian: ``apt-get install -y chromium``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars")


def find_browser() -> str | None:
    """The Chromium binary to use, or None."""
    env = os.environ.get("CHROMIUM")
    if env:
        return env if shutil.which(env) or Path(env).is_file() else None
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def shoot(browser: str, page: Path, png: Path, *, width: int, height: int,
          timeout: float) -> None:
    """One headless screenshot of ``page`` at ``width`` × ``height``."""
    with tempfile.TemporaryDirectory(prefix="graphanon-chromium-") as profile:
        cmd = [browser, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={png}",
               f"--window-size={width},{height}", page.resolve().as_uri()]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              check=False)
    if proc.returncode != 0 or not png.exists():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"{browser} failed (exit {proc.returncode}): " + " | ".join(tail))


def content_height(png: Path) -> tuple[int, bool]:
    """The height of the non-white part of the screenshot, and whether its last rows are
    blank (the page ended inside the window)."""
    from PIL import Image, ImageChops

    with Image.open(png) as im:
        rgb = im.convert("RGB")
    white = Image.new("RGB", rgb.size, (255, 255, 255))
    bbox = ImageChops.difference(rgb, white).getbbox()
    if bbox is None:
        return 0, True
    return bbox[3], bbox[3] < rgb.size[1] - 150


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("html", nargs="?", help="the report.html to render")
    ap.add_argument("--demo", metavar="DIR", help="run `graphanon demo --out DIR` first "
                    "and render DIR/operator/report.html")
    ap.add_argument("--seed", type=int, default=1, help="demo seed (with --demo)")
    ap.add_argument("--out", default="report.png", help="screenshot file (PNG)")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=8000, help="first window height; doubled "
                    "until the whole page fits")
    ap.add_argument("--max-height", type=int, default=64000)
    ap.add_argument("--slices", type=int, default=0, metavar="H",
                    help="also write OUT-1.png, OUT-2.png, ... of height H (for viewers "
                    "that shrink tall images)")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--json", metavar="PATH", help="write the summary as JSON")
    args = ap.parse_args(argv)

    if args.demo:
        from graphanon.demos.job import run_demo

        run_demo(args.demo, seed=args.seed, progress=lambda *a: None)
        page = Path(args.demo) / "operator" / "report.html"
    elif args.html:
        page = Path(args.html)
    else:
        ap.error("give a report.html or --demo DIR")
    if not page.is_file():
        print(f"error: {page} does not exist", file=sys.stderr)
        return 2

    from graphanon.reporting import broken_references

    problems = broken_references(page)
    if problems:
        print(f"{page}: {len(problems)} broken reference(s):", file=sys.stderr)
        for p in problems[:20]:
            print("  " + p, file=sys.stderr)
        return 1
    print(f"{page}: no broken references ({page.stat().st_size:,} bytes, self-contained)")

    browser = find_browser()
    if browser is None:
        print("skipped: no Chromium found (tried $CHROMIUM, " + ", ".join(BROWSERS) +
              "); on Debian: apt-get install -y chromium")
        return 0

    from PIL import Image

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    height = args.height
    while True:
        shoot(browser, page, out, width=args.width, height=height, timeout=args.timeout)
        used, complete = content_height(out)
        if complete or height >= args.max_height:
            break
        height = min(2 * height, args.max_height)
    if not complete:
        print(f"warning: the page is taller than --max-height {args.max_height}; "
              "the screenshot is cut", file=sys.stderr)
    keep = min(used + 40, height)
    with Image.open(out) as im:
        im.crop((0, 0, args.width, keep)).save(out)
    slices = []
    if args.slices > 0:
        with Image.open(out) as im:
            for i, top in enumerate(range(0, keep, args.slices), start=1):
                path = out.with_name(f"{out.stem}-{i}{out.suffix}")
                im.crop((0, top, args.width, min(top + args.slices, keep))).save(path)
                slices.append(str(path))
    summary = {"page": str(page), "browser": browser, "screenshot": str(out),
               "width": args.width, "height": keep, "complete": complete, "slices": slices}
    print(f"{'screenshot':<12} {out}\n{'size':<12} {args.width} x {keep} px"
          f"{'' if complete else ' (cut)'}\n{'browser':<12} {browser}")
    for s in slices:
        print(f"{'slice':<12} {s}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
