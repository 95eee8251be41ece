"""A page laid out by headless Chromium at a given CSS width, and what its tables do there: the
layout tests of tests/test_clients_report.py (the report's own page) and tests/test_docs_layout.py
(the site's pages). The callers skip, or fail where RMQ_REQUIRE_TOOLS is set, when ``CHROMIUM`` is
None."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class Table(NamedTuple):
    name: str  # table1, table2, ... in the page's order
    heading: str  # the h2 it comes under ("" before the first)
    scrolls: bool  # wider than its box, which then scrolls sideways
    cue: bool  # a visible "... scrolls sideways" line right above its box, and its box's edge drawn (shadow or fade)


class Layout(NamedTuple):
    scrolls: bool  # the page itself is wider than the window
    tables: list[Table]


#: run in the frame once the page has loaded: the page's width against the window, and each table's box
MEASURE = """
var doc = document.getElementById("page").contentDocument;
var h2s = Array.from(doc.querySelectorAll("h2"));
function heading(table) {
  var before = h2s.filter(function (h) { return h.compareDocumentPosition(table) & Node.DOCUMENT_POSITION_FOLLOWING; });
  if (!before.length) return "";
  var title = before[before.length - 1].cloneNode(true);
  title.querySelectorAll(".headerlink").forEach(function (link) { link.remove(); });
  return title.textContent.trim();
}
var tables = Array.from(doc.querySelectorAll("table")).map(function (table, at) {
  var box = table.parentElement, style = doc.defaultView.getComputedStyle(box), hint = box.previousElementSibling;
  var edge = [style.maskImage, style.webkitMaskImage, style.boxShadow].some(function (v) { return v && v !== "none"; });
  var said = !!hint && hint.getClientRects().length > 0 && /scrolls sideways/.test(hint.textContent);
  return {name: "table" + (at + 1), heading: heading(table), scrolls: box.scrollWidth > box.clientWidth + 1, cue: said && edge};
});
var root = doc.documentElement;
document.getElementById("out").textContent = JSON.stringify({scrolls: root.scrollWidth > root.clientWidth + 1, tables: tables});
"""


def layout(page: Path, width: int, tmp_path: Path) -> Layout:
    """``page`` laid out ``width`` CSS px wide. Headless Chromium keeps a window 500 px wide at least,
    so the page is laid out in a frame of ``width``, which reads it (file pages may read each
    other with ``--allow-file-access-from-files``) once its scripts have run."""
    frame = tmp_path / f"frame-{width}.html"
    frame.write_text(
        '<!DOCTYPE html><body style="margin:0"><pre id="out"></pre>'
        f'<iframe id="page" src="{page.resolve().as_uri()}" style="border:0;width:{width}px;height:900px"></iframe>'
        '<script>document.getElementById("page").addEventListener("load", function () { setTimeout(function () {'
        f"{MEASURE}}}, 0); }});</script></body>",
        encoding="utf-8",
    )
    command = [CHROMIUM or "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--allow-file-access-from-files",
               f"--user-data-dir={tmp_path / f'profile-{width}'}", "--window-size=1400,1000",
               "--virtual-time-budget=10000", "--dump-dom", frame.as_uri()]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    found = re.search(r'<pre id="out">(\{.*?\})</pre>', done.stdout, flags=re.S)
    assert found, f"chromium measured nothing: {done.stderr[-500:]}"
    measured = json.loads(html.unescape(found[1]))
    return Layout(measured["scrolls"], [Table(**table) for table in measured["tables"]])
