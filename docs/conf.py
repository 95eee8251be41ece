"""Sphinx configuration of pytest-rmq-conformance's documentation site (``tox -e docs``)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

project = "pytest-rmq-conformance"
author = "the pytest-rmq-conformance developers"
copyright = "2026, the pytest-rmq-conformance developers"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinxarg.ext",
    "html_anchors",
    "nav_lists",
    "rmq_reference",
    "wide_tables",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
# mixing/table.md is the mixing table that docs/clients.md and the README embed, not a page
exclude_patterns = ["_build", "mixing/table.md"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# links between pages resolve in the standard domain only (sphinx-argparse's domain answers none)
myst_ref_domains = ["std"]

nitpicky = True
autodoc_member_order = "bysource"
autodoc_typehints = "description"

html_theme = "furo"
html_title = "pytest-rmq-conformance"
# the generated reports: their tables get the width right of the navigation (docs/_ext/wide_tables/)
wide_pages = ["clients", "clients-trend", "sweep/report", "group-sweep/report", "mixing/report"]
