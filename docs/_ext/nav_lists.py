"""Build each page's toctree from its plain Markdown list of links.

A code host shows a ```` ```{toctree} ```` block as code, so the index pages hold a plain list of
links instead, marked by an HTML comment (which a code host does not show) that may carry the
toctree's options, one a line:

    <!-- toctree
    :maxdepth: 1
    -->
    - [Run the suite in a tox matrix](tox-matrix.md): what it is for.
    - [Check a client in its own repository's CI](ci-workflow.md)

At ``source-read`` the list is the single source of a hidden toctree appended to the page, entry for
entry in its order: the site's navigation is the list's. Each item's first link must be a page of
the site (a relative ``.md`` path); anything else in the marked list is an error naming its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MARKER = re.compile(r"^<!-- toctree\b(?P<options>.*?)-->[ \t]*$", re.MULTILINE | re.DOTALL)
OPTION = re.compile(r"^:[\w-]+:(?:\s.*)?$")
ITEM = re.compile(r"^[-*] (?P<item>.*)$")
LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)\)")


class NavListError(ValueError):
    """A marked list that cannot become a toctree; ``line`` is 1-based, in the page's source."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


@dataclass
class NavList:
    line: int  # of the marker
    options: list[str] = field(default_factory=list)
    entries: list[str] = field(default_factory=list)  # paths relative to the page, without .md

    def toctree(self) -> str:
        return "\n".join(["```{toctree}", ":hidden:", *self.options, "", *self.entries, "```"])


def nav_lists(text: str) -> list[NavList]:
    """The marked lists of a page's source, in their order."""
    lines = text.split("\n")
    found = []
    for marker in MARKER.finditer(text):
        first = text.count("\n", 0, marker.start()) + 1
        nav = NavList(first)
        for option in marker.group("options").strip().splitlines():
            if not OPTION.match(option.strip()):
                raise NavListError(first, f"not a toctree option in the marker: {option.strip()!r}")
            nav.options.append(option.strip())
        index = text.count("\n", 0, marker.end()) + 1  # the 0-based line after the marker
        while index < len(lines) and lines[index].strip():
            line = lines[index]
            index += 1
            if line[:1].isspace():  # an item's wrapped text
                continue
            item = ITEM.match(line)
            link = LINK.match(item.group("item")) if item else None
            if link is None:
                raise NavListError(index, f"an item of the marked list starts with a link to a page: {line!r}")
            target = link.group("target")
            if "://" in target or "#" in target or not target.endswith(".md"):
                raise NavListError(index, f"the list links a page of the site, a relative .md path, not {target!r}")
            nav.entries.append(target[: -len(".md")])
        if not nav.entries:
            raise NavListError(first, "the toctree marker is not followed by a list of links")
        found.append(nav)
    return found


def with_toctrees(text: str) -> str:
    """The page's source with a hidden toctree for each marked list appended (line numbers kept)."""
    navs = nav_lists(text)
    if not navs:
        return text
    return "\n\n".join([text.rstrip("\n"), *(nav.toctree() for nav in navs)]) + "\n"


def _source_read(app: Any, docname: str, source: list[str]) -> None:
    from sphinx.util import logging

    try:
        source[0] = with_toctrees(source[0])
    except NavListError as error:
        logging.getLogger(__name__).warning(str(error), location=(docname, error.line))


def setup(app: Any) -> dict[str, Any]:
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
