"""Every code block of the README and the documentation site runs as the page says, and shows
what the page shows (tests/docs_blocks.py says how each kind of block is run)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from docs_blocks import blocks, matches, run_page
from docs_pages import ROOT, pages

PAGES = pages()


def reader_env() -> dict[str, str]:
    """A reader's shell: this environment's Python and console scripts first on PATH, no test
    runner's variables (tox's among them: an inner `tox` would take the outer one's work folder
    from TOX_WORK_DIR), a terminal 80 columns wide."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "RMQ_", "COV_", "HYPOTHESIS", "TOX_", "VIRTUAL_ENV"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "80"
    env["PYSPARK_PYTHON"] = sys.executable
    env["RMQ_DOCS_PYTHON"] = sys.executable
    return env


@pytest.mark.heavy
@pytest.mark.once
@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_block_of_the_page_runs_as_shown(page, tmp_path):
    outcome = run_page(page, ROOT, tmp_path, reader_env())
    print("\n".join(["ran:", *outcome.ran, "left out:", *outcome.skipped]))
    assert not outcome.problems, "\n\n".join(outcome.problems)


def test_every_block_says_what_it_is():
    unlabelled = [block.where for page in PAGES for block in blocks(page, ROOT) if not block.language]
    assert not unlabelled, f"blocks without a language: {unlabelled}"


def test_dots_stand_for_lines_and_text_and_nothing_else():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert matches(["4... passed in ..."], ["415 passed in 3.1s"])
    assert not matches(["a", "d"], ["a", "b", "d"])
    assert not matches(["415 passed"], ["414 passed"])
    assert not matches(["a", "..."], ["b"])
    assert not matches(["x... passed"], ["y 1 passed"])


def test_a_page_that_shows_other_output_or_another_exit_status_fails(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# A page\n\n```python\n# hello.py\nprint('hello')\n```\n\n"
        "```console\n$ python hello.py\nhello\n$ python hello.py\ngoodbye\n$ python -c 'raise SystemExit(3)'\n```\n\n"
        "```console exit=3\n$ python -c 'raise SystemExit(3)'\n```\n\n"
        "<!-- docs-test: skip it needs a broker -->\n```console\n$ false\n```\n\n"
        "```\nunlabelled\n```\n",
        encoding="utf-8",
    )
    work = tmp_path / "work"
    work.mkdir()
    outcome = run_page(page, tmp_path, work, reader_env())
    assert len(outcome.problems) == 3, outcome.problems
    assert "page.md:11: `python hello.py` printed what the page does not show" in outcome.problems[0]
    assert "page.md:13: `python -c 'raise SystemExit(3)'` exited 3, the page expects 0" in outcome.problems[1]
    assert "a block without a language" in outcome.problems[2]
    assert outcome.skipped == ["page.md:21 (console): it needs a broker"]
    assert any("`python hello.py`" in ran for ran in outcome.ran)
    assert any("SystemExit(3)" in ran for ran in outcome.ran)
