"""Sphinx extension: tables wider than their column say so, and report pages give them the room.

On every page, a table wider than the text column scrolls in its box (Furo's ``.table-wrapper``);
``static/wide-tables.js`` then puts "The table scrolls sideways →" above it, fades its right edge
while columns are hidden there and keeps its first column in view (``static/wide-tables.css``).

The pages named in ``wide_pages`` (conf.py: the generated reports) also get
``static/wide-page.css``: from 63em, where Furo shows the navigation beside the text, the content
takes all the width right of the navigation, the table of contents stays behind its button (where
Furo puts it below 82em), the prose keeps its reading width and the tables take the rest; and the
headings of their tables may wrap after an ``_`` (``SELECTOR_<wbr>RANDOM``), so that a matrix of
families is as narrow as its cells.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

STATIC = Path(__file__).parent / "static"


def _static(app: Sphinx) -> None:
    if app.builder.format == "html":
        app.config.html_static_path = [*app.config.html_static_path, str(STATIC)]
        app.add_css_file("wide-tables.css")
        app.add_js_file("wide-tables.js")


def _wide_page(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Called for each page as it is written: a CSS file added now is added to this page alone."""
    if pagename in app.config.wide_pages:
        app.add_css_file("wide-page.css")


def _breakable_headings(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """In the table headings of a wide page, a ``<wbr>`` after each ``_`` of a word."""
    if docname not in app.config.wide_pages or app.builder.format != "html":
        return
    for head in doctree.findall(nodes.thead):
        for text in list(head.findall(nodes.Text)):
            if "_" not in text or isinstance(text.parent, nodes.literal):
                continue
            pieces = text.astext().split("_")
            parts: list[nodes.Node] = []
            for at, piece in enumerate(pieces):
                last = at == len(pieces) - 1
                parts.append(nodes.Text(piece if last else piece + "_"))
                if not last:
                    parts.append(nodes.raw("", "<wbr>", format="html"))
            text.parent.replace(text, parts)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("wide_pages", [], "html", [list])
    app.connect("builder-inited", _static)
    app.connect("doctree-resolved", _breakable_headings)
    app.connect("html-page-context", _wide_page)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
