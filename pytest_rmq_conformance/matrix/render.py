"""The compatibility matrix, written: ``matrix.json`` (validated by its schema), ``matrix.md``,
``matrix.html`` (one self-contained file: styles, badges and the copy buttons inline) and one
SVG badge per implementation.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.divergence import COUNTER_DRIFT, ERROR_BEHAVIOUR, FAULT, LABELS, WRONG_QUEUES
from pytest_rmq_conformance.engine.golden.data import schema_problems

__all__ = ["KINDS", "MatrixError", "write_matrix", "to_markdown", "to_html", "badge_svg", "slug", "first_divergences"]


@dataclass(frozen=True)
class Kind:
    """How one kind of cell looks: the mark that starts it, its name, its colour, what it means."""

    mark: str
    label: str
    colour: str  # the legend swatch and the badge
    meaning: str


KINDS = {  # a cell's impact, or its status when it has none; every cell starts with its kind's mark
    "pass": Kind("✓", "pass", "#2e7d32", "every golden case and every generated example (group, trace or selector calls) answered as Java does"),
    WRONG_QUEUES: Kind(
        "✗", LABELS[WRONG_QUEUES], "#c62828",
        "where Java answers a healthy call with queues (a member of cidAll asking for its share, a send "
        "picking its queue), the implementation gives others or an error: queues consumed twice or not at all, "
        "sends to another broker",
    ),
    FAULT: Kind("⊘", "no answer", "#6a1b9a", "the implementation crashed, hung or wrote garbage instead of answering"),
    COUNTER_DRIFT: Kind(
        "≈", "counter drift", "#f9a825",
        "the same queue as Java, but another round-robin counter, fault table or list entry kept: a later send goes elsewhere",
    ),
    ERROR_BEHAVIOUR: Kind(
        "!", LABELS[ERROR_BEHAVIOUR], "#ef6c00",
        "Java throws or returns null where the implementation answers, or the reverse, for calls a healthy "
        "client never makes (invalid inputs, a caller outside cidAll)",
    ),
    "not-implemented": Kind(
        "○", "not implemented", "#757575", "the harness does not serve this family: not in its hello, or it answered unsupported"
    ),
    "not-run": Kind("…", "not run", "#757575", ("cases that did not run: the harness kept failing and was given up, said it cannot make their calls "
                                       "(notRun), or its hello rules them out (no latency fault tolerance)")),
    "error": Kind("?", "error", "#424242", "the implementation did not load or the golden data could not be read (hover for why)"),
    "absent": Kind("—", "not its family", "#bdbdbd", "a Python strategy is one family: the other families' columns do not apply to it"),
}
ALWAYS = ("pass", WRONG_QUEUES, FAULT, ERROR_BEHAVIOUR, "not-implemented")  # in every legend; the others when used


class MatrixError(ValueError):
    """A matrix document that does not match ``schemas/matrix.schema.json``."""


def validate(doc: dict[str, Any]) -> None:
    problems = schema_problems("matrix", doc)
    if problems:
        raise MatrixError(f"matrix.json does not match schemas/matrix.schema.json {problems[0]}")


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "implementation"


def _kind(cell: dict[str, Any]) -> str:
    return cell["impact"] or cell["status"]


def _cell_text(cell: dict[str, Any]) -> str:
    """A cell in a few words, after its mark: pass, N of M cases differ: impact, not implemented;
    and the cases that did not run (the harness was given up, or did not make their calls), whatever else it says."""
    status = cell["status"]
    golden = cell["golden"]
    not_run = golden["notRun"]
    if status == "pass":
        return f"pass ({golden['passed']} cases)" if golden["cases"] else "pass"
    if status == "not-run" and not_run:
        return f"{not_run} of {golden['cases']} cases not run"
    if status == "differs":
        impact = KINDS[cell["impact"]].label
        split = [(count, KINDS[name].label) for name, count in golden["classes"].items() if count]
        if len(split) > 1:  # the severity split, worst first
            impact = ", ".join(f"{count} {label}" for count, label in split)
        text = f"{golden['differ']} of {golden['cases']} cases differ: {impact}" if golden["differ"] else f"generated examples differ: {impact}"
        return f"{text}; {KINDS['not-run'].mark} {not_run} not run" if not_run else text
    return "" if status == "absent" else KINDS[status].label


def _columns(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(family, release) of every column some implementation has a cell in."""
    rows = doc["implementations"]
    return [
        (family, release)
        for family in doc["families"]
        if any(cell["family"] == family and cell["status"] != "absent" for row in rows for cell in row["cells"])
        for release in doc["releases"]
    ]


def _cells(row: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(cell["family"], cell["release"]): cell for cell in row["cells"]}


def first_divergences(doc: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """``(row, cell, firstDivergence)`` of every shown cell that has one, rows then columns: the
    ``n``-th is the page's ``#dn``."""
    columns = _columns(doc)
    found = []
    for row in doc["implementations"]:
        cells = _cells(row)
        found += [(row, cells[col], cells[col]["firstDivergence"]) for col in columns if cells[col].get("firstDivergence")]
    return found


def _numbers(doc: dict[str, Any]) -> dict[int, int]:
    """Each diverging cell's number on the page, by the cell's identity."""
    return {id(cell): number for number, (_, cell, _) in enumerate(first_divergences(doc), 1)}


def _legend(doc: dict[str, Any], columns: list[tuple[str, str]]) -> list[str]:
    """The kinds the legend explains: the usual ones, and any other a shown cell has."""
    used = {_kind(_cells(row)[col]) for row in doc["implementations"] for col in columns}
    if any(_cells(row)[col]["golden"]["notRun"] for row in doc["implementations"] for col in columns):
        used.add("not-run")
    used |= {name for row in doc["implementations"] for col in columns for name, count in _cells(row)[col]["golden"]["classes"].items() if count}
    return [kind for kind in KINDS if kind in ALWAYS or kind in used]


def _verdict_text(verdict: dict[str, Any]) -> str:
    status = verdict["status"]
    if status == "pass":
        return f"pass {verdict['cellsPassed']}/{verdict['cellsRun']}"
    if status in KINDS:
        return KINDS[status].label
    return status.replace("-", " ")


def _compared_with(doc: dict[str, Any]) -> str:
    """What the cells compare against, in words: the Java client of each release, the reference ports."""
    parts = []
    if "golden" in doc["checks"]:
        parts.append(f"the golden vectors of {_golden_sources(doc)}")
    if "generated" in doc["checks"]:
        count = f"{doc['examples']} " if doc["examples"] else ""
        parts.append(f"the reference port of the same release on {count}generated examples per family (seed {doc['seed']})")
    return "Compared with " + ", and with ".join(parts) + "."


def _golden_sources(doc: dict[str, Any]) -> str:
    """Whose answers the golden vectors hold: the Java client of each release, and each client
    outside RocketMQ's own by name (``rocketmq-client-java 5.2.0``)."""
    runs = doc["goldenRuns"]
    own = [release for release in doc["releases"] if not any(run["rocketmq"] == release and run.get("client") for run in runs)
           or any(run["rocketmq"] == release and not run.get("client") for run in runs)]
    columns = (_run_for(doc, family, release) for family in doc["families"] for release in doc["releases"])
    clients = list(dict.fromkeys(run["client"] for run in columns if run is not None and run.get("client")))
    sources = [f"the Java client of {', '.join(f'RocketMQ {release}' for release in own)}"] if own else []
    return " and ".join(sources + clients)


def _runs_text(doc: dict[str, Any]) -> list[str]:
    """One line per golden run: the release (or the client), where its Java classes came from (the
    Maven coordinates, or the commit built), the JDK and charset."""
    return [
        (f"{run['client']} (RocketMQ {run['rocketmq']}, {', '.join(run.get('families', []))})" if run.get("client") else f"RocketMQ {run['rocketmq']}")
        + f" {_source(run)}, {run['jdk']}"
        + ("" if run["defaultCharset"] == "UTF-8" else f", default charset {run['defaultCharset']}")
        for run in doc["goldenRuns"]
    ]


def _source(run: dict[str, Any]) -> str:
    """Where a run's Java classes came from: ``from org.apache.rocketmq:rocketmq-client:5.3.3``, or ``at commit 29d90a4ff9``."""
    return f"from {run['maven']}" if run.get("maven") else f"at commit {run['commit'][:10]}"


def _run_for(doc: dict[str, Any], family: str, release: str) -> dict[str, Any] | None:
    """The golden run a column is compared with: a client's run that recorded ``family`` (of
    several versions, the newest, as the suite holds a case to), else the release's run (UTF-8)."""
    runs = [run for run in doc["goldenRuns"] if run["rocketmq"] == release]
    own = [run for run in runs if run.get("client") and family in run.get("families", ())]
    plain = [run for run in runs if not run.get("client") and run["defaultCharset"] == "UTF-8"]
    return (own or plain or [None])[-1]


def column_label(doc: dict[str, Any], family: str, release: str) -> str:
    """What a column compares with: ``RocketMQ 5.3.3``, or the client whose run recorded the
    family's vectors (``rocketmq-client-java 5.2.0``)."""
    run = _run_for(doc, family, release)
    return run["client"] if run is not None and run.get("client") else f"RocketMQ {release}"


def to_markdown(doc: dict[str, Any]) -> str:
    columns = _columns(doc)
    lines = [
        "# RocketMQ client compatibility matrix",
        "",
        _compared_with(doc),
        "",
        *(f"- golden run: {line}" for line in _runs_text(doc)),
        f"- made by pytest-rmq-conformance {doc['tool']['version']} at {doc['generatedAt']}",
        "",
        "| implementation | language | version | verdict | "
        + " | ".join(f"{family} {column_label(doc, family, release)}" for family, release in columns) + " |",
        "| --- | --- | --- | --- | " + " | ".join("---" for _ in columns) + " |",
    ]
    numbers = _numbers(doc)
    for row in doc["implementations"]:
        cells = _cells(row)
        texts = []
        for col in columns:
            cell = cells[col]
            text = f"{KINDS[_kind(cell)].mark} {_cell_text(cell)}".rstrip()
            if id(cell) in numbers:
                text += f" ([#{numbers[id(cell)]}](#d{numbers[id(cell)]}))"
            texts.append(text)
        name = row["name"] + (f" ([home]({row['homepage']}))" if row.get("homepage") else "")
        lines.append(f"| {name} | {row['language']} | {row['version']} | {_verdict_text(row['verdict'])} | " + " | ".join(texts) + " |")
    lines += ["", "| mark | meaning |", "| --- | --- |"]
    lines += [f"| {KINDS[kind].mark} **{KINDS[kind].label}** | {KINDS[kind].meaning} |" for kind in _legend(doc, columns)]
    if numbers:
        lines += ["", "## First divergence of each cell", ""]
        for number, (row, cell, first) in enumerate(first_divergences(doc), 1):
            lines += [
                f'<a id="d{number}"></a>{number}. **{row["name"]}**, {cell["family"]} at {column_label(doc, cell["family"], cell["release"])} '
                f"({first['check']}, {first['case']}, {KINDS[first['class']].label}): {first['summary']}",
                "",
                f"   `{first['repro']}`" if first["repro"] else "",
                "",
            ]
    return "\n".join(lines).rstrip() + "\n"


_STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5rem; color: #212121; overflow-wrap: anywhere; }
h1 { font-size: 1.4rem; margin: 0 0 .4rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .5rem; }
p { margin: .3rem 0; }
p.meta, ul.runs { color: #616161; font-size: .88rem; }
ul.runs { margin: .2rem 0 1rem; padding-left: 1.2rem; }
.scroll { overflow-x: auto; max-width: 100%; border: 1px solid #e0e0e0; }
table { border-collapse: collapse; font-size: .9rem; overflow-wrap: normal; }
th, td { border: 1px solid #e0e0e0; padding: .4rem .55rem; vertical-align: top; text-align: left; }
thead th { background: #f5f5f5; font-weight: 600; white-space: nowrap; }
thead th.family { text-align: center; }
.who { position: sticky; left: 0; z-index: 1; background: #fff; min-width: 11rem; max-width: 15rem; overflow-wrap: break-word; }
thead .who { background: #f5f5f5; }
.who small { display: block; color: #616161; }
.who code { font-size: .78rem; word-break: break-all; }
td.verdict svg { display: block; }
td.verdict .chip { display: none; }
td.cell { min-width: 9.5rem; }
td.cell a { display: block; margin-top: .2rem; font-weight: normal; }
.mark { display: inline-block; min-width: 1.1em; font-weight: 700; }
.chip .mark { display: inline; }
.pass { background: #e8f5e9; color: #1b5e20; }
.wrong-queues { background: #ffebee; color: #b71c1c; font-weight: 600; }
.fault { background: #f3e5f5; color: #4a148c; font-weight: 600; }
.error-behaviour { background: #fff3e0; color: #bf360c; }
.counter-drift { background: #fffde7; color: #8d6e00; }
.not-implemented, .not-run, .absent, .error { background: #fafafa; color: #757575; }
.chip { display: inline-block; padding: 0 .45em; border: 1px solid #e0e0e0; border-radius: 3px; white-space: nowrap; }
ul.legend { list-style: none; padding: 0; }
ul.legend li { margin: .4rem 0; }
ol.divergences { padding-left: 1.6rem; }
ol.divergences li { margin-bottom: 1rem; }
.rerun { display: flex; gap: .4rem; align-items: flex-start; margin-top: .3rem; }
.rerun pre { flex: 1 1 auto; min-width: 0; margin: 0; padding: .45rem .6rem; overflow-x: auto; white-space: pre;
  background: #f5f5f5; border: 1px solid #e0e0e0; border-radius: 4px; }
.rerun code { font: .84rem/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; white-space: pre;
  -webkit-user-select: all; user-select: all; }
button.copy { flex: none; font: inherit; font-size: .85rem; padding: .4rem .7rem; border: 1px solid #bdbdbd;
  border-radius: 4px; background: #fff; cursor: pointer; }
@media (max-width: 600px) {
  body { margin: .8rem; }
  h1 { font-size: 1.25rem; }
  .who { min-width: 7rem; max-width: 8.5rem; overflow-wrap: anywhere; }
  .who code { font-size: .72rem; }
  td.verdict svg { display: none; }
  td.verdict .chip { display: inline-block; white-space: normal; }
  td.cell { min-width: 7.5rem; }
}
"""

_COPY = """
document.querySelectorAll("button.copy").forEach(function (button) {
  button.hidden = false;
  button.addEventListener("click", function () {
    var code = button.parentNode.querySelector("code");
    var done = function () {
      button.textContent = "copied";
      setTimeout(function () { button.textContent = "copy"; }, 1500);
    };
    window.getSelection().selectAllChildren(code);
    if (navigator.clipboard) {
      navigator.clipboard.writeText(code.textContent).then(done, function () { if (document.execCommand("copy")) done(); });
    } else if (document.execCommand("copy")) {
      done();
    }
  });
});
"""


def _rerun(command: str) -> str:
    """A command on one line that scrolls rather than wraps: click selects it all, the button copies it."""
    return (
        f'<div class="rerun"><pre><code>{html.escape(command)}</code></pre>'
        '<button type="button" class="copy" hidden>copy</button></div>'
    )


def _verdict_html(row: dict[str, Any]) -> str:
    """The badge, and the same verdict as a chip that narrow screens show instead."""
    status = row["verdict"]["status"]
    kind = KINDS.get(status)
    mark = f'<span class="mark">{html.escape(kind.mark)}</span>&nbsp;' if kind else ""
    text = html.escape(_verdict_text(row["verdict"])).replace("pass ", "pass&nbsp;")  # "pass 3/3" on one line
    chip = f'<span class="chip {html.escape(status)}">{mark}{text}</span>'
    return badge_svg(row).strip() + chip


def to_html(doc: dict[str, Any]) -> str:
    """The matrix as one self-contained page: no file, script or font is loaded from elsewhere."""
    esc = html.escape
    columns = _columns(doc)
    releases = doc["releases"]
    families = list(dict.fromkeys(family for family, _ in columns))
    head = ['<tr><th class="who" rowspan=2>implementation</th><th rowspan=2>verdict</th>']
    head += [f'<th class="family" colspan={len(releases)}>{esc(family)}</th>' for family in families]
    head.append("</tr><tr>")
    for family, release in columns:
        run = _run_for(doc, family, release)
        title = f' title="golden vectors of the Java client {esc(_source(run))}"' if run else ""
        head.append(f"<th{title}>{esc(column_label(doc, family, release))}</th>")
    head.append("</tr>")
    body, numbers = [], _numbers(doc)
    for row in doc["implementations"]:
        cells = _cells(row)
        name = esc(row["name"])
        if row.get("homepage"):
            name = f'<a href="{esc(row["homepage"])}">{name}</a>'
        parts = [
            f'<tr><td class="who">{name}<small>{esc(row["language"])} · {esc(row["version"])}</small>'
            f'<small><code>{esc(row["spec"])}</code></small></td><td class="verdict">{_verdict_html(row)}</td>'
        ]
        for col in columns:
            cell = cells[col]
            kind = KINDS[_kind(cell)]
            text = f'<span class="mark" title="{esc(kind.label)}">{esc(kind.mark)}</span> {esc(_cell_text(cell))}'.rstrip()
            if id(cell) in numbers:
                text += f'<a href="#d{numbers[id(cell)]}">first divergence #{numbers[id(cell)]}</a>'
            elif cell.get("reason") and cell["status"] != "absent":
                text = f'<span title="{esc(cell["reason"])}">{text}</span>'
            parts.append(f'<td class="cell {esc(_kind(cell))}">{text}</td>')
        body.append("".join(parts) + "</tr>")
    legend = "".join(
        f'<li><span class="chip {kind}"><span class="mark">{esc(KINDS[kind].mark)}</span> {esc(KINDS[kind].label)}</span> '
        f"{esc(KINDS[kind].meaning)}</li>"
        for kind in _legend(doc, columns)
    )
    found = "".join(
        f'<li id="d{number}"><p><b>{esc(row["name"])}</b>, {esc(cell["family"])} at {esc(column_label(doc, cell["family"], cell["release"]))}: '
        f'<span class="chip {esc(first["class"])}"><span class="mark">{esc(KINDS[first["class"]].mark)}</span> '
        f'{esc(KINDS[first["class"]].label)}</span> in {esc(first["check"])} {esc(first["case"])}</p>'
        f"<p>{esc(first['summary'])}</p>"
        + (_rerun(first["repro"]) if first["repro"] else "")
        + "</li>"
        for number, (row, cell, first) in enumerate(first_divergences(doc), 1)
    )
    runs_list = "".join(f"<li>golden run: {esc(line)}</li>" for line in _runs_text(doc))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>RocketMQ client compatibility matrix</title>"
        f"<style>{_STYLE}</style></head><body>"
        "<h1>RocketMQ client compatibility matrix</h1>"
        f"<p>{esc(_compared_with(doc))}</p>"
        f'<ul class="runs">{runs_list}</ul>'
        f'<div class="scroll"><table><thead>{"".join(head)}</thead><tbody>{"".join(body)}</tbody></table></div>'
        f'<h2>Legend</h2><ul class="legend">{legend}</ul>'
        + (
            '<h2>First divergence of each cell</h2><p class="meta">Each line reruns the check under pytest; '
            "click it to select it whole.</p>"
            f'<ol class="divergences">{found}</ol>'
            if numbers else ""
        )
        + f'<p class="meta">Made by pytest-rmq-conformance {esc(doc["tool"]["version"])} at {esc(doc["generatedAt"])}.</p>'
        + (f"<script>{_COPY}</script>" if numbers else "")
        + "</body></html>\n"
    )


def badge_svg(row: dict[str, Any]) -> str:
    """A flat badge: "rocketmq client" | the implementation's verdict."""
    verdict = row["verdict"]
    label, value = "rocketmq client", _verdict_text(verdict)
    colour = KINDS[verdict["status"]].colour if verdict["status"] in KINDS else "#757575"
    left, right = 7 * len(label) + 12, 7 * len(value) + 12
    width = left + right
    esc = html.escape
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
        f'aria-label="{esc(label)}: {esc(value)}"><title>{esc(row["name"])}: {esc(value)}</title>'
        f'<rect width="{left}" height="20" fill="#555"/><rect x="{left}" width="{right}" height="20" fill="{colour}"/>'
        '<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">'
        f'<text x="{left / 2}" y="14">{esc(label)}</text><text x="{left + right / 2}" y="14">{esc(value)}</text>'
        "</g></svg>\n"
    )


def write_matrix(doc: dict[str, Any], out: Path) -> dict[str, Path]:
    """Validate ``doc`` and write it with its renderings under ``out``; the paths written."""
    validate(doc)
    out.mkdir(parents=True, exist_ok=True)
    (out / "badges").mkdir(exist_ok=True)
    written = {"json": out / "matrix.json", "md": out / "matrix.md", "html": out / "matrix.html"}
    taken = [slug(row["name"]) for row in doc["implementations"]]
    used: set[str] = set()
    for row, slugged in zip(doc["implementations"], taken):
        # two implementations of one name (mystrat:Averagely, other:Averagely): their specs tell them apart
        name = slug(row["spec"].replace(":", ".")) if taken.count(slugged) > 1 else slugged
        while name in used:
            name += "-"
        used.add(name)
        path = out / "badges" / f"{name}.svg"
        path.write_text(badge_svg(row), encoding="utf-8")
        written[f"badge:{row['spec']}"] = path
    written["json"].write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written["md"].write_text(to_markdown(doc), encoding="utf-8")
    written["html"].write_text(to_html(doc), encoding="utf-8")
    return written
