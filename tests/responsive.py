"""What a report page needs to read at a phone's width, as a check the report tests share."""

from __future__ import annotations

import re


def _rule(css: str, selector: str) -> str:
    """The declarations of every rule whose selector list names ``selector``, joined."""
    found = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        if selector in (s.strip() for s in selectors.split(",")):
            found.append(body)
    return " ".join(found)


def responsive_problems(page: str) -> list[str]:
    """What ``page`` (an HTML report) lacks to read on a 390 px wide screen; empty when nothing."""
    problems = []
    head = page.split("</head>", 1)[0]
    if not re.search(r'<meta name="viewport" content="width=device-width[^"]*"', head):
        problems.append("no viewport meta (a phone lays the page out 980 px wide and shrinks it)")
    css = " ".join(re.findall(r"<style>(.*?)</style>", head, re.S))
    img = _rule(css, "img")
    if "max-width: 100%" not in img or "height: auto" not in img:
        problems.append(
            "a plot may be wider than the page or lose its aspect ratio (img: max-width: 100%; height: auto)"
        )
    if not re.search(r"overflow-wrap: (anywhere|break-word)", _rule(css, "h1")):
        problems.append("a long word in the title widens the page (h1: overflow-wrap)")
    if "overflow-x: auto" not in _rule(css, ".scroll"):
        problems.append("a wide table widens the page (.scroll: overflow-x: auto)")
    tables = page.count("<table")
    if tables != page.count('<div class="scroll"><table'):
        problems.append("a table is not in its own scrolling box")
    return problems
