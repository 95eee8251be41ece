"""Internal: the pages every sweep report is written as.

A report is a list of blocks (:class:`Heading`, :class:`Para`, :class:`Table`, :class:`Code`,
:class:`Image`), rendered alike as Markdown (:func:`markdown_of`) and as one self-contained HTML
page (:func:`html_of`) whose stylesheet reads on a phone as on a desktop: the title wraps, plots
take the page's width, wide tables scroll in their own box. :func:`write_pages` writes both and
the plots, each atomically.
"""

from __future__ import annotations

import html
import os
import re
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

__all__ = [
    "Heading",
    "Para",
    "Table",
    "Code",
    "Image",
    "Block",
    "markdown_of",
    "html_of",
    "write_atomic",
    "write_pages",
    "span",
    "CSS",
    "VIEWPORT",
    "WIDE_CELL",
]

_MD_SPECIAL = "\\`*|<"


class Heading(NamedTuple):
    level: int
    text: str


class Para(NamedTuple):
    text: str


class Table(NamedTuple):
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]
    align: str  # one letter a column: "l" or "r"


class Code(NamedTuple):
    summary: str
    text: str


class Image(NamedTuple):
    alt: str
    src: str


Block = Heading | Para | Table | Code | Image


def span(pair: Sequence[int]) -> str:
    """An inclusive range as text: ``"3"`` or ``"1–13"``."""
    low, high = pair
    return str(low) if low == high else f"{low}–{high}"


# ---------------------------------------------------------------- Markdown


def _md_text(text: str) -> str:
    """One line of Markdown text: specials backslash-escaped (so no raw HTML gets through)."""
    text = " ".join(str(text).split())
    return "".join("\\" + c if c in _MD_SPECIAL else c for c in text)


def _md_table(table: Table) -> str:
    rule = ["---:" if a == "r" else ":---" for a in table.align]
    lines = [table.headers, rule, *table.rows]
    return "\n".join("| " + " | ".join(map(_md_text, cells)) + " |" for cells in lines)


def _md_code(code: Code) -> str:
    longest = max(map(len, re.findall("`+", code.text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"<details><summary>{html.escape(code.summary)}</summary>\n\n{fence}json\n{code.text}\n{fence}\n\n</details>"


def _md_block(block: Block) -> str:
    if isinstance(block, Heading):
        return "#" * block.level + " " + _md_text(block.text)
    if isinstance(block, Para):
        return _md_text(block.text)
    if isinstance(block, Table):
        return _md_table(block)
    if isinstance(block, Code):
        return _md_code(block)
    return f"![{_md_text(block.alt)}]({block.src})"


def markdown_of(blocks: Sequence[Block]) -> str:
    """``blocks`` as Markdown."""
    return "\n\n".join(_md_block(block) for block in blocks) + "\n"


# -------------------------------------------------------------------- HTML

#: lets a phone lay the page out at its own width instead of a desktop's, scaled down
VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'
#: one stylesheet for every report: long words (a title's ``sendLatencyFaultEnable``) wrap instead of
#: widening the page, a plot is never wider than the page and keeps its aspect ratio (it links to itself at
#: full size), a wide table scrolls sideways in its own box
CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #222; }
h1, h2, h3, p, summary { overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; }
th { background: #f0f0f0; }
td.r, th.r { text-align: right; font-variant-numeric: tabular-nums; }
td.l, th.l { text-align: left; }
td.wide { min-width: 18rem; }
details { margin: 0 0 1rem 1rem; }
pre { background: #f6f6f6; padding: 0.5rem; white-space: pre-wrap; word-break: break-all; }
a.plot { display: block; margin: 1rem 0; }
img { display: block; max-width: 100%; height: auto; }
@media (max-width: 40rem) {
  body { margin: 1rem auto; padding: 0 0.75rem; }
  h1 { font-size: 1.5rem; }
  h2 { font-size: 1.25rem; }
  details { margin-left: 0; }
}
"""


#: a cell longer than this many characters is kept at least ``td.wide``'s width, so that on a narrow
#: screen its table scrolls instead of squeezing it into a column one word wide
WIDE_CELL = 60


def _html_row(cells: Sequence[str], align: str, tag: str) -> str:
    def cell(text: str, a: str) -> str:
        kind = f"{a} wide" if len(text) > WIDE_CELL else a
        return f'<{tag} class="{kind}">{html.escape(text)}</{tag}>'

    return "<tr>" + "".join(cell(c, a) for c, a in zip(cells, align)) + "</tr>"


def _html_table(table: Table) -> str:
    head = _html_row(table.headers, table.align, "th")
    body = "\n".join(_html_row(row, table.align, "td") for row in table.rows)
    return f'<div class="scroll"><table>\n<thead>{head}</thead>\n<tbody>\n{body}\n</tbody>\n</table></div>'


def _html_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"<h{block.level}>{html.escape(block.text)}</h{block.level}>"
    if isinstance(block, Para):
        return f"<p>{html.escape(block.text)}</p>"
    if isinstance(block, Table):
        return _html_table(block)
    if isinstance(block, Code):
        return f"<details><summary>{html.escape(block.summary)}</summary><pre>{html.escape(block.text)}</pre></details>"
    src = html.escape(block.src)
    return f'<a class="plot" href="{src}"><img src="{src}" alt="{html.escape(block.alt)}"></a>'


def html_of(blocks: Sequence[Block], title: str) -> str:
    """``blocks`` as one self-contained HTML page titled ``title`` that reads at a phone's width
    (:data:`VIEWPORT`, :data:`CSS`); images are relative links, each a link to itself at full size."""
    body = "\n".join(_html_block(block) for block in blocks)
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n{VIEWPORT}\n'
        f"<title>{html.escape(title)}</title>\n<style>{CSS}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )


# ------------------------------------------------------------------ writing


def write_atomic(path: Path, data: bytes) -> Path:
    """Writes ``path`` through a temporary file beside it, so it is never left half written."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        with open(temporary, "xb") as stream:  # the umask's permissions, unlike mkstemp's 0600
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def write_pages(out_dir: Path, blocks: Sequence[Block], title: str, plots: dict[str, bytes]) -> list[Path]:
    """Writes ``report.md``, ``report.html`` (``blocks`` under ``title``) and ``plots`` (PNG bytes
    by file name) into ``out_dir``, each atomically; returns their paths."""
    files = {
        **plots,
        "report.md": markdown_of(blocks).encode("utf-8"),
        "report.html": html_of(blocks, title).encode("utf-8"),
    }
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return [write_atomic(out_dir / name, data) for name, data in files.items()]
