"""Helpers shared by the directives: reStructuredText parsed in place, inline text with ``code``."""

from __future__ import annotations

import re

from docutils import nodes
from docutils.parsers.rst import Directive, Parser
from sphinx.util.docutils import new_document

_SPECIAL = re.compile(r"([\\`*_|\[\]<>])")


def escape(text: str) -> str:
    """``text`` as reStructuredText that shows it verbatim."""
    return _SPECIAL.sub(r"\\\1", text)


def parse_rst(directive: Directive, text: str) -> list[nodes.Node]:
    """``text`` parsed as reStructuredText in the directive's document (MyST pages included: their
    directives' nested parse would read Markdown), with the build environment at hand."""
    document = directive.state.document
    source = document.current_source or document["source"]
    inner = new_document(source, document.settings)
    Parser().parse(text, inner)
    return list(inner.children)


def inline(text: str) -> list[nodes.Node]:
    """Plain text whose ```...``` spans (Markdown style, as the schemas write them) and command-line
    options (``--rmq-results``, which smart quotes would turn into a dash) are code."""
    parts = re.split(r"`([^`]+)`|(?<![\w-])(--[a-z][\w-]*)", text)
    out: list[nodes.Node] = []
    for index, part in enumerate(parts):
        if part:
            out.append(nodes.Text(part) if index % 3 == 0 else nodes.literal(part, part))
    return out


def paragraph(*children: nodes.Node | str) -> nodes.paragraph:
    para = nodes.paragraph()
    for child in children:
        para += nodes.Text(child) if isinstance(child, str) else child
    return para
