"""The project's documentation as the tests read it: the README and every page of the site in docs/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def pages() -> list[Path]:
    """The README, then every Markdown page under docs/ (the built site excluded), in a stable order."""
    return [README, *sorted(path for path in DOCS.rglob("*.md") if "_build" not in path.relative_to(DOCS).parts)]


def documentation() -> str:
    """Every page's text, one after another: a marker is found wherever its page moved."""
    return "\n".join(path.read_text(encoding="utf-8") for path in pages())


def block_after(marker: str, language: str) -> str:
    """The first fenced block of ``language`` after ``marker`` in the documentation."""
    found = re.search(re.escape(marker) + rf".*?```{language}\n(.*?)```", documentation(), re.DOTALL)
    assert found is not None, f"the documentation lost its block after {marker!r}"
    return found.group(1)
