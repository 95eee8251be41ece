"""The site's pages as a browser lays them out (tests/browser.py): a table wider than its column
says that it scrolls, and the generated reports (``wide_pages`` in docs/conf.py, laid out by
docs/_ext/wide_tables) give their tables the width right of the navigation. Needs the ``docs``
extra and Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import CHROMIUM, layout
from conftest import DOCS, build_docs, missing

for _module in ("sphinx", "myst_parser", "furo"):
    pytest.importorskip(_module, reason=f"the docs extra is not installed ({_module}): pip install -e '.[docs]'")
if not (DOCS / "conf.py").is_file():  # an sdist holds the tests, not the documentation's sources
    pytest.skip(f"no documentation sources at {DOCS}", allow_module_level=True)

pytestmark = pytest.mark.once  # a browser's layout of one Sphinx build: one Python answers for all


@pytest.fixture(autouse=True)
def _chromium():
    if CHROMIUM is None:
        missing("needs chromium (Debian: apt-get install chromium; .ci/run installs it)")


def test_at_1280_px_the_clients_tables_fit_but_the_consumer_matrix_and_the_survey_which_say_they_scroll(site, tmp_path):
    """The consumer matrix has twelve columns of families and releases, the survey the files each
    verdict is read from: they scroll, under their hint and with their right edge faded. The
    showcase's last column and the producer matrix, cut in Furo's 46em column, fit."""
    desk = layout(site / "clients.html", 1280, tmp_path)
    assert not desk.scrolls
    assert len(desk.tables) > 8
    assert [(table.heading, table.cue) for table in desk.tables if table.scrolls] == [
        ("Consumer queue allocation", True),
        ("Every npm and PyPI package named for RocketMQ, and the Apache RocketMQ Go clients", True),
    ]


def test_at_390_px_the_clients_page_stays_in_the_window_and_each_wide_table_says_it_scrolls(site, tmp_path):
    phone = layout(site / "clients.html", 390, tmp_path)
    assert not phone.scrolls
    assert sum(table.scrolls for table in phone.tables) > 5
    assert [table.name for table in phone.tables if table.scrolls and not table.cue] == []


TABLE = "| " + " | ".join(f"column{n}_header" for n in range(8)) + " |\n" + "| --- " * 8 + "|\n"
TABLE += "| " + " | ".join(f"cell{n}_unbroken" for n in range(8)) + " |\n"


def _project(tmp_path: Path) -> Path:
    """A site of two pages with the same table of eight columns, each about 110 px at its
    narrowest: wider than Furo's 46em column, narrower than the room right of the navigation at 1280 px."""
    source = tmp_path / "source"
    source.mkdir()
    (source / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(DOCS / '_ext')!r})\n"
        'extensions = ["myst_parser", "wide_tables"]\n'
        'html_theme = "furo"\n'
        'wide_pages = ["report"]\n',
        encoding="utf-8",
    )
    (source / "index.md").write_text(
        "# Index\n\n```{toctree}\n:hidden:\n\ntext\nreport\n```\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n",
        encoding="utf-8",
    )
    (source / "text.md").write_text(f"# Text\n\n{TABLE}", encoding="utf-8")
    (source / "report.md").write_text(f"# Report\n\n## Its table\n\n{TABLE}", encoding="utf-8")
    status, warnings = build_docs(source, tmp_path / "html")
    assert (status, warnings) == (0, ""), warnings
    return tmp_path / "html"


def test_a_table_wider_than_the_text_column_scrolls_saying_so_and_a_wide_page_gives_it_the_room(tmp_path):
    html = _project(tmp_path)
    text = layout(html / "text.html", 1280, tmp_path)
    assert [(table.scrolls, table.cue) for table in text.tables] == [(True, True)]
    index = layout(html / "index.html", 1280, tmp_path)
    assert [(table.scrolls, table.cue) for table in index.tables] == [(False, False)]  # no hint where none is due
    report = layout(html / "report.html", 1280, tmp_path)
    assert [(table.heading, table.scrolls) for table in report.tables] == [("Its table", False)]
    assert not report.scrolls
