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
    "rmq_reference",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
# the generated reports and sweep outputs beside the site's pages are committed artefacts, not pages
exclude_patterns = [
    "_build",
    "clients.md",
    "clients-trend.md",
    "sweep/**",
    "group-sweep/**",
    "mixing/**",
]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

nitpicky = True
autodoc_member_order = "bysource"
autodoc_typehints = "description"

html_theme = "furo"
html_title = "pytest-rmq-conformance"
