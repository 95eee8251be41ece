"""Regenerate every screenshot under docs/: each page as a desktop browser (1280 CSS px wide) and
a phone (390 CSS px) show it, in headless Chromium.

- ``docs/matrix-{1280,390}.png``: ``rmq-conformance matrix`` on four implementations that between
  them show every common kind of cell: the AVG reference port (its other families "—"), the
  example Node.js harness (pass, and "not implemented" for the families it does not serve), its
  deliberately wrong ``off-by-one`` variant (wrong queues, with a rerun line) and the
  ``AvgNoArgumentCheck`` miniature of the tests (error behaviour only);
- ``docs/producer-matrix-{1280,390}.png``: the producer families' matrix, the command of
  docs/how-to/compatibility-matrix.md: the two reference ports, the Node.js producer harness and
  three of its wrong variants;
- ``docs/site-tutorial-{1280,390}.png``: the site's consumer strategy tutorial;
- ``docs/clients-{1280,390}.png``: the site's report of the real clients (docs/clients.md).

Each page is laid out in a frame exactly as wide as the shot (headless Chromium keeps its window
500 px wide at least: a 390 px window would lay the page out 500 px wide) and drawn at ``SCALE``
device pixels per CSS px, so a shot is its width × ``SCALE`` pixels wide. A page with a height
for the width is cropped to it (the site's navigation runs the window's height; the producer matrix
runs long on a phone), the others to the page's content.

Needs Chromium (Debian: ``apt-get install chromium``) and Pillow (in the ``sweep`` extra); Node.js
for the matrices, the ``docs`` extra for the site. From the repository root::

    python scripts/screenshots.py                 # every shot
    python scripts/screenshots.py matrix clients  # those pages' shots only
    python scripts/screenshots.py --keep out      # and keep the matrices and the site made in out/
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
WIDTHS = (1280, 390)
#: device pixels per CSS px in every shot
SCALE = 1
TALLEST = 4000  # CSS px: the frame's height before a matrix shot is cropped to its content

NODE = "exec:node examples/harness-node/harness.js"  # relative: the rerun lines read as a user's would
PRODUCER_NODE = "node examples/producer-harness-node/harness.js"
MATRIX = ["AVG", NODE, f"{NODE} --broken=off-by-one", "miniatures:AvgNoArgumentCheck",
          "--release", "5.3.3", "--examples", "5"]  # fmt: skip
PRODUCER_MATRIX = [
    "FAULT_STRATEGY", "SELECTOR_HASH", f"exec:{PRODUCER_NODE}",
    *(f"exec:env RMQ_HARNESS_BROKEN={broken} {PRODUCER_NODE}"
      for broken in ("counter-extra-step", "python-modulo", "penalty-off-by-one")),
    "--release", "4.9.8", "--release", "5.3.3", "--examples", "10",
]  # fmt: skip


class Page(NamedTuple):
    """A page to shoot: how it is made (given a scratch folder, the HTML file) and the height of
    its shots in CSS px at each width (``None``: cropped to the page's content)."""

    make: Callable[[Path], Path]
    heights: dict[int, int | None]


def _matrix(arguments: list[str], name: str) -> Callable[[Path], Path]:
    def make(scratch: Path) -> Path:
        """Run the matrix command as a user would, from a fresh output folder; the page it wrote."""
        out = scratch / name
        if out.exists():
            shutil.rmtree(out)  # nothing left over from an earlier run
        paths = [str(ROOT / "tests"), os.environ.get("PYTHONPATH")]  # tests/ for the miniature
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
        command = [sys.executable, "-c", "import sys; from pytest_rmq_conformance.cli import main; sys.exit(main(sys.argv[1:]))",
                   "matrix", *arguments, "--out", str(out)]  # fmt: skip
        subprocess.run(command, cwd=ROOT, env=env, check=True)
        return out / "matrix.html"

    return make


def _site(page: str) -> Callable[[Path], Path]:
    def make(scratch: Path) -> Path:
        """The documentation site, built once per run (as ``tox -e docs`` builds it); the page's file."""
        site = scratch / "site"
        if not (site / ".built").exists():
            command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(DOCS), str(site)]
            subprocess.run(command, cwd=ROOT, check=True)
            (site / ".built").touch()
        return site / page

    return make


PAGES = {
    "matrix": Page(_matrix(MATRIX, "matrix"), {1280: None, 390: None}),
    "producer-matrix": Page(_matrix(PRODUCER_MATRIX, "producer-matrix"), {1280: None, 390: 1500}),
    "site-tutorial": Page(_site("tutorials/allocation-strategy.html"), {1280: 1100, 390: 1400}),
    "clients": Page(_site("clients.html"), {1280: 2000, 390: 2000}),
}
#: every shot the script writes, each under docs/
SHOTS = tuple(f"{name}-{width}.png" for name in PAGES for width in WIDTHS)


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("screenshots: no chromium on PATH (Debian: apt-get install chromium)")


def _screenshot(browser: str, page: Path, width: int, height: int | None, target: Path) -> None:
    """Lay ``page`` out in a frame ``width`` CSS px wide, shoot it, crop it and save it small."""
    from PIL import Image, ImageChops

    tall = height or TALLEST
    with tempfile.TemporaryDirectory() as profile:
        frame, raw = Path(profile) / "frame.html", Path(profile) / "raw.png"
        frame.write_text(
            '<!DOCTYPE html><html><body style="margin:0"><iframe scrolling="no" '
            f'style="display:block;border:0;width:{width}px;height:{tall}px" src="{page.as_uri()}"></iframe></body></html>',
            encoding="utf-8",
        )
        subprocess.run(
            [
                browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                f"--user-data-dir={profile}", "--hide-scrollbars", f"--force-device-scale-factor={SCALE}",
                f"--window-size={max(width, 500)},{tall}", "--virtual-time-budget=5000",
                f"--screenshot={raw}", frame.as_uri(),
            ],
            check=True, capture_output=True,
        )  # fmt: skip
        with Image.open(raw) as shot:
            image = shot.convert("RGB").crop((0, 0, width * SCALE, tall * SCALE))
    if height is None:
        box = ImageChops.difference(image, Image.new("RGB", image.size, "white")).getbbox()
        if box is None:
            sys.exit(f"screenshots: {page} rendered blank at {width} px")
        image = image.crop((0, 0, image.width, min(image.height, box[3] + 24 * SCALE)))
    image.quantize(colors=256, dither=Image.Dither.NONE).save(target, optimize=True)
    print(f"{target.relative_to(ROOT)}: {image.width}x{image.height}, {target.stat().st_size // 1024} KB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "pages", nargs="*", metavar="PAGE", help=f"the pages to shoot (default: all): {', '.join(PAGES)}"
    )
    parser.add_argument("--keep", type=Path, metavar="DIR", help="make the pages in DIR (default: a temporary folder)")
    args = parser.parse_args()
    if unknown := [name for name in args.pages if name not in PAGES]:
        parser.error(f"no page {', '.join(unknown)} (the pages: {', '.join(PAGES)})")
    browser = _chromium()
    with tempfile.TemporaryDirectory() as temporary:
        scratch = args.keep or Path(temporary)
        scratch.mkdir(parents=True, exist_ok=True)
        for name in args.pages or PAGES:
            page = PAGES[name]
            html = page.make(scratch)
            for width in WIDTHS:
                _screenshot(browser, html, width, page.heights[width], DOCS / f"{name}-{width}.png")


if __name__ == "__main__":
    main()
