"""The report of the real clients: docs/clients.md, docs/clients.html and docs/clients.json, from
the suite's golden replay of each client behind its harness, one table per kind.

    python clients/report.py [--out docs]

Run from the repository's root, with the clients installed (``tox -e clients`` does both).
``versions.toml`` is the one list: each client's harness, its pinned version, the kinds it is
judged on and the RocketMQ releases it is judged at. The report refuses a client whose harness
says another version than the pinned one, and carries no clock time, so it changes only when a
version, the suite or the golden data does.
"""

from __future__ import annotations

import argparse
import html as html_module
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import tomllib

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.matrix.cells import _verdict, build_matrix, golden_runs
from pytest_rmq_conformance.matrix.render import _columns, first_divergences, to_html, to_markdown, validate
from pytest_rmq_conformance.pipeline.mix.report import verdict_table

HERE = Path(__file__).resolve().parent


def _sibling(name: str) -> Any:
    """``clients/<name>.py``, however this file was loaded (as a script, or by path in the tests)."""
    spec = importlib.util.spec_from_file_location(f"clients_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mixing = _sibling("mixing")
survey = _sibling("survey")
causes_numbers = _sibling("causes")
TITLE = "The real clients"
#: each kind's table's heading, in the report's order
KIND_TITLES = {
    "grpc": "The 5.x gRPC clients' balancers",
    "allocation": "Consumer queue allocation",
    "producer": "Producer queue selection",
}
#: seconds per call, unless a client's ``timeout`` says otherwise: the report runs beside the whole
#: test run in CI, and a 5 s limit on a loaded machine turned a slow answer into a hang (and the
#: hang budget, the rest of the cases into not run)
TIMEOUT = 60.0
NO_CLOCK = " at 1970-01-01T00:00:00+00:00"
#: the mixing sweep's summary (``python clients/mixing.py`` writes it)
MIX_SUMMARY = HERE.parent / "docs" / "mixing" / "summary.json"


def load_clients(path: Path = HERE / "versions.toml") -> dict[str, dict[str, Any]]:
    """The clients of ``versions.toml``, each checked for the keys the report needs. A table's key
    is the name the report shows; ``package`` is the registry's name when it differs."""
    clients = tomllib.loads(path.read_text(encoding="utf-8"))
    for name, entry in clients.items():
        for key, kind in (("harness", str), ("pinned", str), ("kinds", list), ("releases", list)):
            if not isinstance(entry.get(key), kind) or not entry[key]:
                raise SystemExit(f"{path}: [{name}] needs {key} ({kind.__name__}, not empty)")
        unknown = [kind for kind in entry["kinds"] if kind not in KIND_TITLES]
        if unknown:
            raise SystemExit(f"{path}: [{name}] kinds {unknown}: the report knows {list(KIND_TITLES)}")
    return clients


def _run(clients: dict[str, dict[str, Any]]) -> list[dict[str, Any]] | None:
    """One matrix per set of releases (and time limit), its rows checked against the pins (``None``: refused)."""
    groups: dict[tuple[tuple[str, ...], float], list[str]] = {}
    for name, entry in clients.items():
        groups.setdefault((tuple(entry["releases"]), float(entry.get("timeout", TIMEOUT))), []).append(name)
    docs = []
    for (releases, timeout), names in groups.items():
        doc = build_matrix(
            [clients[name]["harness"] for name in names],
            list(releases),
            checks=["golden"],
            timeout=timeout,
            progress=lambda line: print(line, file=sys.stderr),
        )
        for row, name in zip(doc["implementations"], names, strict=True):
            pinned, package = clients[name]["pinned"], clients[name].get("package", name)
            if row["name"] != package or row["version"] != pinned:
                print(
                    f"clients/report.py: {row['spec']} says {row['name']} {row['version']}, not {package} {pinned} as "
                    "clients/versions.toml pins: install the pinned clients (tox -e clients)",
                    file=sys.stderr,
                )
                return None
            row["name"] = name  # the table's key: two registries may hold a package of one name
            row["kinds"] = clients[name]["kinds"]
        docs.append(doc)
    return docs


def _tables(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One matrix document per kind: its families' cells of the clients judged on it."""
    tables = []
    for kind in KIND_TITLES:
        for doc in docs:
            rows = [row for row in doc["implementations"] if kind in row["kinds"]]
            if not rows:
                continue
            families = [family for family in doc["families"] if kinds.get(family).kind == kind]
            table = {**doc, "kind": kind, "families": families, "goldenRuns": golden_runs(doc["releases"], families)}
            table["implementations"] = []
            for row in rows:
                cells = [cell for cell in row["cells"] if cell["family"] in families]
                kept = {key: value for key, value in row.items() if key not in ("kinds", "cells", "verdict")}
                table["implementations"].append({**kept, "verdict": _verdict(cells), "cells": cells})
            table["generatedAt"] = NO_CLOCK.removeprefix(
                " at "
            )  # no clock time: the report changes only with what it reports
            validate({key: value for key, value in table.items() if key != "kind"})
            tables.append(table)
    return tables


def _anchored(text: str, kind: str, first: bool) -> str:
    """The first table keeps its anchors (#d1, ...: the README links them); the others' get the kind."""
    if first:
        return text
    text = re.sub(r'id="d(\d+)"', rf'id="{kind}-d\1"', text)
    return re.sub(
        r'href="#d(\d+)"|\(#d(\d+)\)', lambda m: f'href="#{kind}-d{m[1]}"' if m[1] else f"(#{kind}-d{m[2]})", text
    )


#: the showcase's columns: each kind's cell, in this order
SHOWCASE_KINDS = ("allocation", "producer", "grpc")
MIXING = "mixing-with-java"


def _first_divergences(tables: list[dict[str, Any]]) -> dict[tuple[str, str, str, str], str]:
    """``(kind, client, family, release)`` to the anchor of its first divergence in docs/clients.md:
    the renderer's number, with the kind before it after the first table (``_anchored``)."""
    anchors = {}
    for at, table in enumerate(tables):
        prefix = "" if at == 0 else f"{table['kind']}-"
        for number, (row, cell, _) in enumerate(first_divergences(table), 1):
            anchors[(table["kind"], row["name"], cell["family"], cell["release"])] = f"{prefix}d{number}"
    return anchors


SORT = "rebalance-sort"
SORT_TITLE = "The rebalance sort"
SORT_INTRO = (
    "Before it allocates, a client sorts the topic's queues and the group's client ids; the order decides every "
    "share. Each allocation client's sort at its newest release (`--rmq-checks=sort`, seed 0): the golden "
    "cases' lists, then generated lists, the first three with queue ids at both ends of Java's int, where "
    "`MessageQueue.compareTo` overflows."
)
SORT_HEADERS = ("client", "version", "release", "golden lists", "generated lists", "first difference")


def sort_checks(clients: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The rebalance sort (``--rmq-checks=sort``, seed 0) of each allocation client whose harness
    serves it, at its newest release: the golden cases' lists, then the generated ones (first the
    three fixed lists of queue ids at both ends of Java's int, which decide it whatever the seed)."""
    rows = []
    for name, entry in clients.items():
        if "allocation" not in entry["kinds"]:
            continue
        release = entry["releases"][-1]
        with tempfile.TemporaryDirectory() as folder:
            results = Path(folder) / "results.jsonl"
            command = [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:randomly",
                f"--rmq-strategy={entry['harness']}",
                f"--rmq-reference-version={release}",
                "--rmq-checks=sort",
                "--rmq-seed=0",
                f"--rmq-timeout={TIMEOUT:g}",
                f"--rmq-results={results}",
            ]
            subprocess.run(command, cwd=HERE.parent, capture_output=True, check=False)
            lines = (
                [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
                if results.exists()
                else []
            )
        if not lines or all(line["verdict"] == "skipped" for line in lines):
            continue  # its hello says it does not sort
        golden = [line for line in lines if line["case"] is not None]
        generated = [line for line in lines if line["case"] is None]
        failed = [line for line in golden + generated if line["verdict"] not in ("passed", "skipped")]
        rows.append(
            {
                "client": name,
                "version": entry["pinned"],
                "release": release,
                "golden": {"lists": len(golden), "differ": sum(line["verdict"] != "passed" for line in golden)},
                "generated": {"passed": all(line["verdict"] == "passed" for line in generated)},
                "first": None
                if not failed
                else {"divergence": failed[0]["divergence"] or failed[0]["cause"], "rerun": failed[0]["rerun"]},
            }
        )
    return rows


def _sort_text(row: dict[str, Any]) -> str:
    golden = row["golden"]
    listed = (
        f"✓ {golden['lists']} golden" if not golden["differ"] else f"✗ {golden['differ']} of {golden['lists']} golden"
    )
    return f"sort {listed}, {'✓' if row['generated']['passed'] else '✗'} generated"


def sort_markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        f'<a id="{SORT}"></a>\n## {SORT_TITLE}\n',
        SORT_INTRO + "\n",
        "| " + " | ".join(SORT_HEADERS) + " |",
        "| " + " | ".join("---" for _ in SORT_HEADERS) + " |",
    ]
    for row in rows:
        first = row["first"]
        shown = "—" if first is None else f"{first['divergence']}<br>`{first['rerun']}`"
        lines.append("| " + " | ".join(_sort_cells(row)) + f" | {shown} |")
    return "\n".join(lines) + "\n"


def _sort_cells(row: dict[str, Any]) -> list[str]:
    """A sort row's cells but the first difference, as plain text."""
    golden = row["golden"]
    return [
        row["client"],
        row["version"],
        row["release"],
        f"{golden['lists'] - golden['differ']} of {golden['lists']} agree",
        "agree" if row["generated"]["passed"] else "differ",
    ]


def _family_text(cell: dict[str, Any]) -> str:
    golden = cell["golden"]
    run = golden["cases"] - golden["notRun"] - golden["notImplemented"]
    if run == 0:  # every case answered notRun: nothing was judged, nothing passed
        return f"not run ({golden['notRun']})"
    return f"✓ {run}" if golden["differ"] == 0 else f"✗ {golden['differ']} of {run}"


#: the showcase's header, in both formats
SHOWCASE_HEADERS = (
    "client",
    "version",
    "consumer allocation",
    "producer selection",
    "5.x gRPC balancers",
    "mixed with Java",
)


def showcase_rows(
    tables: list[dict[str, Any]], mix: dict[str, Any], sorts: Sequence[dict[str, Any]] = ()
) -> list[dict[str, Any]]:
    """The showcase as data, for :func:`showcase` and :func:`html` alike: per client its name,
    homepage, version and, in ``SHOWCASE_KINDS`` order then the mixing column, a list of
    ``(text, anchor)`` each (``anchor`` an id of the report, or ``None``)."""
    anchors = _first_divergences(tables)
    mixed: dict[str, list[dict[str, Any]]] = {}
    for verdict in mix.get("verdicts", []):
        mixed.setdefault(verdict["client"].rsplit(" ", 1)[0], []).append(verdict)
    names: list[str] = []
    for table in tables:
        names += [row["name"] for row in table["implementations"] if row["name"] not in names]
    rows = []
    for name in names:
        columns: list[list[tuple[str, str | None]]] = []
        version, home = "", ""
        for kind in SHOWCASE_KINDS:
            parts: list[tuple[str, str | None]] = []
            for table in (table for table in tables if table["kind"] == kind):
                for row in (row for row in table["implementations"] if row["name"] == name):
                    version, home = row["version"], row.get("homepage", "")
                    release = table["releases"][-1]
                    for cell in row["cells"]:
                        if cell["release"] != release or cell["status"] in ("absent", "not-implemented"):
                            continue
                        parts.append(
                            (
                                f"{cell['family']} {_family_text(cell)}",
                                anchors.get((kind, name, cell["family"], release)),
                            )
                        )
            if kind == "allocation":
                parts += [(_sort_text(row), SORT) for row in sorts if row["client"] == name]
            columns.append(parts)
        columns.append(
            [
                (f"{verdict['family']} {'safe' if verdict['safe'] else f'unsafe: {_mix_cost(verdict)}'}", MIXING)
                for verdict in mixed.get(name, [])
            ]
        )
        rows.append({"name": name, "homepage": home, "version": version, "columns": columns})
    return rows


def showcase(
    tables: list[dict[str, Any]], mix: dict[str, Any], sorts: Sequence[dict[str, Any]] = (), link: str = ""
) -> str:
    """The one table of the README: every judged client by kind, each family's golden count at the
    client's newest release linking to its first divergence, and its cost mixed with Java linking
    to the mixing table. ``link`` is where docs/clients.md is from the page the table is on."""
    lines = ["| " + " | ".join(SHOWCASE_HEADERS) + " |", "| " + " | ".join("---" for _ in SHOWCASE_HEADERS) + " |"]
    for row in showcase_rows(tables, mix, sorts):
        texts = [
            "<br>".join(f"[{text}]({link}#{anchor})" if anchor else text for text, anchor in parts) or "—"
            for parts in row["columns"]
        ]
        shown = f"[{row['name']}]({row['homepage']})" if row["homepage"] else row["name"]
        lines.append(f"| {shown} | {row['version']} | " + " | ".join(texts) + " |")
    return "\n".join(lines) + "\n"


def write_readme_table(readme: Path, table: str) -> None:
    """Put ``table`` between the README's ``<!-- clients:start ... -->`` and ``<!-- clients:end -->``."""
    text = readme.read_text(encoding="utf-8")
    found = re.search(r"(<!-- clients:start[^>]*-->\n).*?(<!-- clients:end -->)", text, flags=re.S)
    if found is None:
        raise SystemExit(f"{readme}: no <!-- clients:start --> / <!-- clients:end --> markers to put the table between")
    readme.write_text(text[: found.start()] + found[1] + table + found[2] + text[found.end() :], encoding="utf-8")


def _mix_cost(verdict: dict[str, Any]) -> str:
    share = 100.0 * verdict["failing"] / verdict["n"] if verdict["n"] else 0.0
    if verdict["side"] == "producer":
        return f"{share:.1f} % of names split"
    return f"{share:.1f} % of mixes lose or double a queue"


INTRO = (
    "Each client judged at its newest release against the golden vectors (✓ cases that agree, ✗ cases that "
    "differ, of those run), and what mixing it with Java clients costs. The tables below give each release, "
    "the first divergence of each cell with its rerun line, and why each client differs."
)
MIXING_TITLE = "Mixing with Java"
#: the mixing section's prose; ``{report}`` is the link to the whole mixing report
MIXING_INTRO = (
    "From `rmq-conformance sweep --mix` on `local[2]` (`python clients/mixing.py`; the whole report, with its "
    "plots, is {report}). Safe: no queue taken twice or by nobody, and no message group or key sent to two "
    "queues, in any scenario swept."
)


def unmixed_text(listed: dict[str, dict[str, Any]]) -> str:
    """The clients ``versions.toml`` leaves out of the mixing (``unmixed``), each with its reason."""
    found = [f"{name} {entry['pinned']} ({entry['unmixed']})" for name, entry in listed.items() if entry.get("unmixed")]
    return f"Not mixed: {'; '.join(found)}." if found else ""


def causes_text(data: dict[str, Any], template: Path = HERE / "causes.md") -> str:
    """clients/causes.md with its numbers written from ``data`` (the report's JSON: clients/causes.py)."""
    return causes_numbers.fill(template.read_text(encoding="utf-8"), data)


def _stamped(table: dict[str, Any]) -> dict[str, Any]:
    """``table`` with the no-clock stamp the renderers want: the committed JSON holds none, and the
    report can be made again from it alone."""
    return {"generatedAt": NO_CLOCK.removeprefix(" at "), **table}


#: said under a kind's heading: how its clients are driven where the golden cases alone do not say
KIND_NOTES = {"producer": "**The counter rule.** {rule}"}


def _kind_note(kind: str, rule: str) -> str:
    return KIND_NOTES[kind].format(rule=rule) if kind in KIND_NOTES else ""


def markdown(
    tables: list[dict[str, Any]], causes: str, mix: dict[str, Any], sorts: list[dict[str, Any]], rule: str
) -> str:
    """The report's Markdown; ``causes`` is clients/causes.md filled in (:func:`causes_text`), ``rule``
    the counter rule of clients/node/counter.js."""
    parts = [f"# {TITLE}\n", INTRO + "\n", showcase(tables, mix, sorts)]
    for at, table in enumerate(tables):
        text = to_markdown(_stamped(table)).replace(NO_CLOCK, "")
        note = _kind_note(table["kind"], rule)
        heading = f"## {KIND_TITLES[table['kind']]}" + (f"\n\n{note}" if note else "")
        text = text.replace("# RocketMQ client compatibility matrix", heading, 1)
        text = text.replace("\n## First divergence of each cell", "\n### First divergence of each cell")
        parts.append(_anchored(text, table["kind"], at == 0))
    parts.append(sort_markdown(sorts))
    parts.append(f'<a id="{MIXING}"></a>\n## {MIXING_TITLE}\n')
    parts.append(MIXING_INTRO.format(report="[mixing/report.md](mixing/report.md)") + "\n")
    parts.append(mixing.table_markdown(mix))
    if unmixed := unmixed_text(load_clients()):
        parts.append(unmixed + "\n")
    return "\n".join(parts) + "\n" + causes + "\n" + survey.to_markdown()


# -- HTML ------------------------------------------------------------------------------------------

#: the page's own rules, after the matrix page's: every table fits 1280 px (the gRPC one's count
#: cells in a smaller font, its headers wrapping, the verdict as a chip rather than a badge), and
#: below that each table scrolls sideways in its own box, the page itself never
PAGE_STYLE = """
html { -webkit-text-size-adjust: 100%; }
body { max-width: 90rem; }
h1, h2, h3 { overflow-wrap: anywhere; }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
code { font: .86em/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
.scroll { margin: .5rem 0 1rem; }
thead th { white-space: normal; }
td.verdict svg { display: none; }
td.verdict .chip { display: inline-block; white-space: normal; }
.who { min-width: 9rem; max-width: 12rem; }
td.cell { min-width: 5.5rem; font-size: .84rem; }
table.text td { min-width: 6rem; }
table.text td.wide { min-width: 14rem; }
table.sort td.wide { min-width: 20rem; }
.dense table { font-size: .8rem; }
.dense th, .dense td { padding: .3rem .35rem; }
.dense thead th { font-size: .74rem; }
.dense td.cell { min-width: 0; font-size: .78rem; }
.dense td.cell.not-implemented { font-size: 0; text-align: center; }
.dense td.cell.not-implemented .mark { font-size: .9rem; }
.dense .who { min-width: 7.5rem; }
.scroll.overflows { box-shadow: inset -14px 0 10px -10px rgba(0, 0, 0, .35); }
table.survey td { overflow-wrap: anywhere; }
table.survey td:nth-child(5) { min-width: 10rem; }
table.survey td:nth-child(7) { min-width: 16rem; }
td.r, th.r { text-align: right; font-variant-numeric: tabular-nums; }
td .part { display: block; }
td .part + .part { margin-top: .25rem; }
code.rerun { display: block; margin-top: .3rem; overflow-wrap: anywhere; -webkit-user-select: all; user-select: all; }
.causes li { margin: .3rem 0; }
p.hint { color: #616161; font-size: .8rem; margin: .6rem 0 -.3rem; }
@media (max-width: 600px) {
  .who { min-width: 7rem; max-width: 8.5rem; }
  td.cell { min-width: 7rem; }
  table.showcase .part { white-space: nowrap; }
}
"""
#: a matrix of more columns than this is set closer (the consumer allocation's six families at two releases)
DENSE = 8
#: said above every table box while its table is wider than it (``MARK_OVERFLOW``)
HINT = '<p class="hint" hidden>The table scrolls sideways →</p>'
#: shows a box's hint, and its right edge's shadow, while its table is wider than the box
MARK_OVERFLOW = """
function markOverflow() {
  document.querySelectorAll("div.scroll").forEach(function (box) {
    var wider = box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle("overflows", wider);
    var hint = box.previousElementSibling;
    if (hint && hint.classList.contains("hint")) hint.hidden = !wider;
  });
}
window.addEventListener("resize", markOverflow);
markOverflow();
"""


def _scroll(table: str) -> str:
    """A table in a box of its own that scrolls sideways, with its hint for narrow screens."""
    return f'{HINT}<div class="scroll">{table}</div>'


def _slug(heading: str) -> str:
    """The id GitHub gives a Markdown heading: lower case, no punctuation but ``-`` and ``_``, spaces as ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


_CODE = re.compile(r"(`+)(.+?)\1", flags=re.S)
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def _inline(text: str, where: str) -> str:
    """Markdown inline text as HTML: `code`, **bold** (which may hold code), [links](url); everything
    else escaped. A mark it does not render is refused, naming ``where``."""
    if "\0" in text:
        raise SystemExit(f"{where}: a NUL character")
    codes = [found[2] for found in _CODE.finditer(text)]
    plain = _CODE.sub("\0", text)
    if "`" in plain:
        raise SystemExit(f"{where}: a ` opens a code span that does not close")
    if "*" in _BOLD.sub("", plain):
        raise SystemExit(f"{where}: the HTML renders **bold**, not *emphasis* or a lone *")
    if re.search(r"<[A-Za-z/!?]", plain):
        raise SystemExit(f"{where}: raw HTML is not rendered: write it in `code`")
    escaped = html_module.escape(plain, quote=False)
    escaped = _BOLD.sub(r"<strong>\1</strong>", escaped)
    escaped = _LINK.sub(lambda m: f'<a href="{html_module.escape(m[2])}">{m[1]}</a>', escaped)
    spans = iter(codes)
    return re.sub("\0", lambda _: f"<code>{html_module.escape(next(spans))}</code>", escaped)


def prose_html(text: str, source: str) -> str:
    """The limited Markdown of ``clients/causes.md`` as HTML: headings (with GitHub's ids), paragraphs,
    ``- `` lists (continued by indented lines), and the inline marks of :func:`_inline`. Anything else
    (tables, quotes, numbered lists, raw HTML, code blocks) is refused with its line, rather than shown
    otherwise than the Markdown shows it."""
    blocks: list[str] = []
    para: list[str] = []
    items: list[list[str]] = []
    start = 0

    def flush() -> None:
        where = f"{source}:{start}"
        if para:
            blocks.append(f"<p>{_inline(' '.join(para), where)}</p>")
            para.clear()
        if items:
            blocks.append("<ul>" + "".join(f"<li>{_inline(' '.join(item), where)}</li>" for item in items) + "</ul>")
            items.clear()

    for number, line in enumerate(text.splitlines(), 1):
        where = f"{source}:{number}"
        heading = re.match(r"(#{1,6}) (.+)", line)
        if not line.strip():
            flush()
        elif heading:
            flush()
            level, title = len(heading[1]), heading[2].strip()
            blocks.append(f'<h{level} id="{_slug(title)}">{_inline(title, where)}</h{level}>')
        elif line.startswith("- "):
            if para:
                flush()
            start = start if items else number
            items.append([line[2:].strip()])
        elif items and line.startswith("  ") and not para:
            items[-1].append(line.strip())
        elif re.match(r"\s{4,}|[|>]|<|\d+[.)] |[*+] |```|~~~", line):
            raise SystemExit(
                f"{where}: the HTML page renders headings, paragraphs, '- ' lists, `code`, **bold** and [links](url) "
                f"only: {line.strip()[:40]!r}"
            )
        else:
            if items:
                flush()
            start = start if para else number
            para.append(line.strip())
    flush()
    return "\n".join(blocks)


def _showcase_html(tables: list[dict[str, Any]], mix: dict[str, Any], sorts: Sequence[dict[str, Any]]) -> str:
    esc = html_module.escape
    body = []
    for row in showcase_rows(tables, mix, sorts):
        name = esc(row["name"])
        cells = [f'<a href="{esc(row["homepage"])}">{name}</a>' if row["homepage"] else name, esc(row["version"])]
        for parts in row["columns"]:
            links = [
                f'<a class="part" href="#{esc(anchor)}">{esc(text)}</a>'
                if anchor
                else f'<span class="part">{esc(text)}</span>'
                for text, anchor in parts
            ]
            cells.append("".join(links) or "—")
        body.append(
            f'<tr><td class="who">{cells[0]}</td>' + "".join(f"<td>{cell}</td>" for cell in cells[1:]) + "</tr>"
        )
    head = '<th class="who">' + esc(SHOWCASE_HEADERS[0]) + "</th>"
    head += "".join(f"<th>{esc(header)}</th>" for header in SHOWCASE_HEADERS[1:])
    return _scroll(f'<table class="text showcase"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>')


def _md_inline(text: str) -> str:
    """The report's own one-line Markdown prose (`code` and [links](url)) as HTML."""
    return _inline(text, "clients/report.py")


def _sort_html(rows: list[dict[str, Any]]) -> str:
    esc = html_module.escape
    body = []
    for row in rows:
        first = row["first"]
        shown = "—" if first is None else f'{esc(first["divergence"])}<code class="rerun">{esc(first["rerun"])}</code>'
        cells = "".join(f"<td>{esc(cell)}</td>" for cell in _sort_cells(row))
        body.append(f'<tr>{cells}<td class="wide">{shown}</td></tr>')
    head = "".join(f"<th>{esc(header)}</th>" for header in SORT_HEADERS)
    return (
        f'<section id="{SORT}"><h2>{esc(SORT_TITLE)}</h2><p>{_md_inline(SORT_INTRO)}</p>'
        + _scroll(f'<table class="text sort"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>')
        + "</section>"
    )


def _mixing_html(mix: dict[str, Any]) -> str:
    """The mixing section, its table from the same rows as the Markdown's (``verdict_table``)."""
    esc = html_module.escape
    table = verdict_table(mix)
    wide = {"What breaks", "How often", "Worst case"}
    head = "".join(f'<th class="{a}">{esc(h)}</th>' for h, a in zip(table.headers, table.align, strict=True))
    body = "".join(
        "<tr>"
        + "".join(
            # a family's name may wrap at its "_", as in the matrices (CONSISTENT_HASH is wider than its column)
            f'<td class="{a}{" wide" if h in wide else ""}">{esc(c).replace("_", "_<wbr>")}</td>'
            for h, c, a in zip(table.headers, row, table.align, strict=True)
        )
        + "</tr>"
        for row in table.rows
    )
    intro = _md_inline(MIXING_INTRO.format(report="[mixing/report.html](mixing/report.html)"))
    return (
        f'<section id="{MIXING}"><h2>{esc(MIXING_TITLE)}</h2><p>{intro}</p>'
        + _scroll(f'<table class="text mixing"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>')
        + (f"<p>{_md_inline(unmixed)}</p>" if (unmixed := unmixed_text(load_clients())) else "")
        + "</section>"
    )


def _kind_html(table: dict[str, Any], page: str, first: bool, rule: str) -> str:
    """A kind's matrix page as a section of the report: its title an ``h2`` with GitHub's id, the
    matrix's headings one level down, long family names free to wrap at ``_``."""
    body = page.split("<body>", 1)[1].rsplit("</body>", 1)[0]
    body = re.sub(r"<script>.*?</script>", "", body, flags=re.S).replace("<h2>", "<h3>").replace("</h2>", "</h3>")
    title = KIND_TITLES[table["kind"]]
    note = _kind_note(table["kind"], rule)
    body = body.replace(
        "<h1>RocketMQ client compatibility matrix</h1>",
        f'<h2 id="{_slug(title)}">{html_module.escape(title)}</h2>' + (f"<p>{_md_inline(note)}</p>" if note else ""),
    )
    body = re.sub(
        r'(<th class="family"[^>]*>)([^<]*)(</th>)', lambda m: m[1] + m[2].replace("_", "_<wbr>") + m[3], body
    )
    dense = " dense" if len(_columns(table)) > DENSE else ""
    body = body.replace('<div class="scroll">', f'{HINT}<div class="scroll{dense}">')
    return _anchored(body, table["kind"], first)


class _Layout(HTMLParser):
    """What :func:`html_problems` reads of a page: its viewport, its ids, each table's enclosing element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.viewport = False
        self.ids: list[str] = []
        self.open: list[tuple[str, str]] = []  # (tag, class) of the elements around the parser
        self.tables: list[str] = []  # each table's parent, as tag.class

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.append(found["id"] or "")
        if tag == "meta" and found.get("name") == "viewport":
            self.viewport = "width=device-width" in (found.get("content") or "")
        if tag == "table":
            parent = self.open[-1] if self.open else ("", "")
            self.tables.append(f"{parent[0]}.{parent[1]}")
        if tag not in _VOID:
            self.open.append((tag, found.get("class") or ""))

    def handle_endtag(self, tag: str) -> None:
        while self.open:
            if self.open.pop()[0] == tag:
                break


_VOID = {"meta", "br", "wbr", "img", "input", "link", "hr", "col", "source"}


def html_problems(page: str) -> list[str]:
    """What keeps ``page`` from reading on a phone: no viewport meta (the phone lays it out 980 px
    wide), a table outside a ``div.scroll`` box of its own (it widens the page instead of scrolling
    alone), an id given twice (a link lands on the first)."""
    layout = _Layout()
    layout.feed(page)
    problems = [] if layout.viewport else ['no <meta name="viewport" content="width=device-width, ...">']
    problems += [
        f'table {at + 1} is inside {parent!r}, not a <div class="scroll"> box of its own'
        for at, parent in enumerate(layout.tables)
        if parent.split(".", 1)[0] != "div" or "scroll" not in parent.split(".", 1)[1].split()
    ]
    seen: set[str] = set()
    for name in layout.ids:
        if name in seen:
            problems.append(f"id {name!r} is given twice")
        seen.add(name)
    return problems


def html(
    tables: list[dict[str, Any]],
    causes: str,
    mix: dict[str, Any],
    sorts: list[dict[str, Any]],
    rule: str,
    source: str = "clients/causes.md",
) -> str:
    """The report as one self-contained page, the Markdown's sections in its order and with its anchors:
    the showcase, a table per kind, the rebalance sort, mixing with Java, why they differ, the survey."""
    pages = [to_html(_stamped(table)).replace(NO_CLOCK, "") for table in tables]
    head = (
        pages[0]
        .split("<body>", 1)[0]
        .replace("<title>RocketMQ client compatibility matrix</title>", f"<title>{TITLE}</title>")
        .replace("</head>", f"<style>{PAGE_STYLE}</style></head>")
    )
    scripts = [found[0] for page in pages for found in [re.search(r"<script>.*?</script>", page, flags=re.S)] if found]
    parts = [
        f"<h1>{html_module.escape(TITLE)}</h1>",
        f"<p>{html_module.escape(INTRO)}</p>",
        _showcase_html(tables, mix, sorts),
        *(_kind_html(table, page, at == 0, rule) for at, (table, page) in enumerate(zip(tables, pages, strict=True))),
        _sort_html(sorts),
        _mixing_html(mix),
        f'<section class="causes">{prose_html(causes, source)}</section>',
        survey.to_html().replace('<div class="scroll">', f'{HINT}<div class="scroll">'),  # its boxes' hints too
    ]
    script = (scripts[0] if scripts else "") + f"<script>{MARK_OVERFLOW}</script>"
    return f"{head}<body>{''.join(parts)}{script}</body></html>\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    parser.add_argument(
        "--readme",
        type=Path,
        help="also rewrite the clients table of this README and its paragraph above (between its clients: and survey: markers)",
    )
    args = parser.parse_args(argv)
    clients = load_clients()
    docs = _run(clients)
    if docs is None:
        return 1
    tables = _tables(docs)
    args.out.mkdir(parents=True, exist_ok=True)
    mix = json.loads(MIX_SUMMARY.read_text(encoding="utf-8"))
    sorts = sort_checks(clients)
    shown = [{key: value for key, value in table.items() if key != "generatedAt"} for table in tables]
    data = {
        "title": TITLE,
        "tables": shown,
        "sort": sorts,
        "counterRule": causes_numbers.counter_rule(),
        "evidence": causes_numbers.evidence(clients, tables),
    }
    causes = causes_text(data)
    rule = data["counterRule"]
    (args.out / "clients.md").write_text(markdown(tables, causes, mix, sorts, rule), encoding="utf-8")
    page = html(tables, causes, mix, sorts, rule)
    problems = html_problems(page)
    if problems:
        raise SystemExit(
            f"clients/report.py: {args.out / 'clients.html'} would not read on a phone: {'; '.join(problems)}"
        )
    (args.out / "clients.html").write_text(page, encoding="utf-8")
    (args.out / "clients.json").write_text(
        json.dumps(data, indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    if args.readme is not None:
        write_readme_table(args.readme, showcase(tables, mix, sorts, link="docs/clients.md"))
        survey.write_readme(args.readme)
    print(f"written: {args.out / 'clients.md'}, {args.out / 'clients.html'}, {args.out / 'clients.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
