"""Every screenshot under docs/ is made by scripts/screenshots.py, shown by a page that says so,
and as wide as its name says: ``NAME-1280.png`` 1280 CSS px, ``NAME-390.png`` 390 (times the
script's device scale factor). The plots of the sweep reports (docs/sweep/, docs/mixing/,
docs/group-sweep/: a folder with its report.md) are charts, made by the sweeps."""

from __future__ import annotations

import functools
import re
import struct
from pathlib import Path

import pytest
from conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SCRIPT = ROOT / "scripts" / "screenshots.py"
if not (DOCS / "conf.py").is_file():  # an sdist holds the tests, not the documentation and its scripts
    pytest.skip(f"no documentation sources at {DOCS}", allow_module_level=True)

IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+\.png)\)")


@functools.cache
def _script():
    return load_script(SCRIPT, "screenshots")


def _sources(pattern: str) -> list[Path]:
    """The files under docs/ matching ``pattern``, a site built into docs/_build (``tox -e docs``) aside."""
    return sorted(path for path in DOCS.rglob(pattern) if "_build" not in path.relative_to(DOCS).parts)


def _screenshots() -> list[Path]:
    """The PNGs under docs/ outside a report's folder."""
    return [png for png in _sources("*.png") if not (png.parent / "report.md").is_file()]


def _shown() -> dict[Path, list[Path]]:
    """Each image the pages show, with the pages that show it."""
    shown: dict[Path, list[Path]] = {}
    for page in _sources("*.md"):
        for target in IMAGE.findall(page.read_text(encoding="utf-8")):
            shown.setdefault((page.parent / target).resolve(), []).append(page)
    return shown


def _width(png: Path) -> int:
    """The width in the PNG's header (its IHDR chunk, right after the signature)."""
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", png
    return struct.unpack(">I", head[16:20])[0]


SCREENSHOTS = [png.relative_to(DOCS).as_posix() for png in _screenshots()]


def test_every_screenshot_the_script_makes_is_under_docs():
    made = _script().SHOTS
    assert len(made) == len(set(made)) >= 8
    assert sorted(made) == SCREENSHOTS


@pytest.mark.parametrize("name", SCREENSHOTS)
def test_each_screenshot_under_docs_is_made_by_the_script(name):
    assert name in _script().SHOTS


@pytest.mark.parametrize("name", SCREENSHOTS)
def test_each_screenshot_is_shown_by_a_page_that_names_the_script(name):
    pages = _shown().get((DOCS / name).resolve(), [])
    assert pages, f"no page shows docs/{name} (![...](.../{name}))"
    assert all("scripts/screenshots.py" in page.read_text(encoding="utf-8") for page in pages), pages


@pytest.mark.parametrize("name", SCREENSHOTS)
def test_each_screenshot_is_as_wide_as_its_name_says(name):
    width = int(re.fullmatch(r".+-(\d+)\.png", name)[1])
    assert width in _script().WIDTHS
    assert _width(DOCS / name) == width * _script().SCALE
