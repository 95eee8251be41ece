"""Regenerate docs/matrix-1280.png and docs/matrix-390.png: the compatibility matrix page, as a
desktop browser (1280 px) and a phone (390 px) show it.

It runs ``rmq-conformance matrix`` from a fresh output directory on four implementations that
between them show every common kind of cell: the AVG reference port (its other families "—"),
the example Node.js harness (pass, and "not implemented" for the families it does not serve), its
deliberately wrong ``off-by-one`` variant (wrong queues, with a rerun line) and the
``AvgNoArgumentCheck`` miniature of the tests (error behaviour only). Then headless Chromium
screenshots ``matrix.html`` at each width, and the PNG is cropped to the page's content.

Needs Node.js, Chromium (Debian: ``apt-get install chromium``) and Pillow (in the ``sweep``
extra). From the repository root::

    python scripts/matrix_screenshots.py            # writes docs/matrix-1280.png, docs/matrix-390.png
    python scripts/matrix_screenshots.py --keep out # and keeps the matrix it made in out/
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE = "exec:node examples/harness-node/harness.js"  # relative: the rerun lines read as a user's would
SPECS = ["AVG", NODE, f"{NODE} --broken=off-by-one", "miniatures:AvgNoArgumentCheck"]
WIDTHS = (1280, 390)
TALLEST = 4000  # px: the window's height before cropping to the content


def _matrix(out: Path) -> Path:
    """Run the matrix command as a user would; the page it wrote."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "tests"), os.environ.get("PYTHONPATH")]))}
    command = [
        sys.executable, "-c", "import sys; from pytest_rmq_conformance.cli import main; sys.exit(main(sys.argv[1:]))",
        "matrix", *SPECS, "--release", "5.3.3", "--examples", "5", "--out", str(out),
    ]
    subprocess.run(command, cwd=ROOT, env=env, check=True)
    return out / "matrix.html"


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("matrix_screenshots: no chromium on PATH (Debian: apt-get install chromium)")


def _screenshot(browser: str, page: Path, width: int, target: Path) -> None:
    """Screenshot ``page`` in a ``width`` px window, then crop it to its content and save it small."""
    from PIL import Image, ImageChops

    with tempfile.TemporaryDirectory() as profile:
        raw = Path(profile) / "raw.png"
        subprocess.run(
            [
                browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                f"--user-data-dir={profile}", "--hide-scrollbars", f"--window-size={width},{TALLEST}",
                f"--screenshot={raw}", page.as_uri(),
            ],
            check=True, capture_output=True,
        )
        with Image.open(raw) as shot:
            image = shot.convert("RGB")
    box = ImageChops.difference(image, Image.new("RGB", image.size, "white")).getbbox()
    if box is None:
        sys.exit(f"matrix_screenshots: {page} rendered blank at {width} px")
    image = image.crop((0, 0, width, min(image.height, box[3] + 24)))
    image.quantize(colors=256, dither=Image.Dither.NONE).save(target, optimize=True)
    print(f"{target.relative_to(ROOT)}: {image.width}x{image.height}, {target.stat().st_size // 1024} KB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, metavar="DIR", help="write the matrix to DIR (default: a temporary directory)")
    args = parser.parse_args()
    browser = _chromium()
    with tempfile.TemporaryDirectory() as scratch:
        out = args.keep or Path(scratch) / "matrix-out"
        if out.exists():
            shutil.rmtree(out)  # a fresh state: nothing left over from an earlier run
        page = _matrix(out)
        (ROOT / "docs").mkdir(exist_ok=True)
        for width in WIDTHS:
            _screenshot(browser, page, width, ROOT / "docs" / f"matrix-{width}.png")


if __name__ == "__main__":
    main()
