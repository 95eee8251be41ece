"""The compatibility matrix, written: ``matrix.json`` (validated by its schema), ``matrix.md``,
``matrix.html`` and one SVG badge per implementation."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.divergence import ERROR_BEHAVIOUR, FAULT, LABELS, WRONG_QUEUES
from pytest_rmq_conformance.engine.golden import schema_problems

__all__ = ["MatrixError", "write_matrix", "to_markdown", "to_html", "badge_svg", "slug"]

COLOURS = {  # status or impact -> (background, text) in the page; badge colour
    "pass": "#2e7d32",
    WRONG_QUEUES: "#c62828",
    FAULT: "#6a1b9a",
    ERROR_BEHAVIOUR: "#ef6c00",
    "not-implemented": "#757575",
    "not-run": "#757575",
    "error": "#424242",
}


class MatrixError(ValueError):
    """A matrix document that does not match ``schemas/matrix.schema.json``."""


def validate(doc: dict[str, Any]) -> None:
    problems = schema_problems("matrix", doc)
    if problems:
        raise MatrixError(f"matrix.json does not match schemas/matrix.schema.json {problems[0]}")


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "implementation"


def _cell_text(cell: dict[str, Any]) -> str:
    """A cell in a few words: pass, N of M cases differ (impact), not implemented."""
    status = cell["status"]
    golden = cell["golden"]
    if status == "pass":
        return f"pass ({golden['passed']} cases)" if golden["cases"] else "pass"
    if status == "differs":
        impact = LABELS[cell["impact"]]
        if golden["differ"]:
            return f"{golden['differ']} of {golden['cases']} cases differ: {impact}"
        return f"generated groups differ: {impact}"
    return {"not-implemented": "not implemented", "absent": "—", "not-run": "not run", "error": "error"}[status]


def _columns(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return [(family, release) for family in doc["families"] for release in doc["releases"]]


def _cells(row: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(cell["family"], cell["release"]): cell for cell in row["cells"]}


def _verdict_text(verdict: dict[str, Any]) -> str:
    status = verdict["status"]
    if status == "pass":
        return f"pass {verdict['cellsPassed']}/{verdict['cellsRun']}"
    if status in LABELS:
        return LABELS[status] if status != FAULT else "no answer"
    return status.replace("-", " ")


def to_markdown(doc: dict[str, Any]) -> str:
    columns = [col for col in _columns(doc) if any(_cells(row)[col]["status"] != "absent" for row in doc["implementations"])]
    lines = [
        "# RocketMQ allocation compatibility matrix",
        "",
        f"pytest-rmq-conformance {doc['tool']['version']}, {doc['generatedAt']}; checks: {', '.join(doc['checks'])}; "
        f"seed {doc['seed']}.",
        "",
        "**wrong queues**: a member of `cidAll` gets queues other than Java's (production impact). "
        "**error behaviour only**: Java throws or returns null where the implementation answers, or the reverse, "
        "for invalid inputs or non-members. **no answer**: it crashed, hung or wrote garbage.",
        "",
        "| implementation | language | version | verdict | " + " | ".join(f"{f} {r}" for f, r in columns) + " |",
        "| --- | --- | --- | --- | " + " | ".join("---" for _ in columns) + " |",
    ]
    divergences = []
    for row in doc["implementations"]:
        cells = _cells(row)
        texts = []
        for col in columns:
            cell = cells[col]
            text = _cell_text(cell)
            first = cell.get("firstDivergence")
            if first is not None:
                divergences.append((row, cell, first))
                text += f" [¹{len(divergences)}](#d{len(divergences)})"
            texts.append(text)
        name = row["name"] + (f" ([home]({row['homepage']}))" if row.get("homepage") else "")
        lines.append(f"| {name} | {row['language']} | {row['version']} | {_verdict_text(row['verdict'])} | " + " | ".join(texts) + " |")
    if divergences:
        lines += ["", "## First divergence of each cell", ""]
        for number, (row, cell, first) in enumerate(divergences, 1):
            lines += [
                f'<a id="d{number}"></a>{number}. **{row["name"]}**, {cell["family"]} at {cell["release"]} '
                f"({first['check']}, {first['case']}, {LABELS[first['class']]}): {first['summary']}",
                "",
                f"   `{first['repro']}`" if first["repro"] else "",
                "",
            ]
    return "\n".join(lines).rstrip() + "\n"


_STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #212121; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; }
p.meta { color: #616161; margin-top: 0; }
table { border-collapse: collapse; }
th, td { border: 1px solid #e0e0e0; padding: 0.35em 0.5em; vertical-align: top; }
th { background: #f5f5f5; font-weight: 600; }
th.family { text-align: center; }
td.who { white-space: nowrap; }
td.who small { color: #616161; display: block; }
td.cell { min-width: 7.5em; font-size: 0.9em; }
td.pass { background: #e8f5e9; color: #1b5e20; }
td.wrong-queues { background: #ffebee; color: #b71c1c; font-weight: 600; }
td.fault { background: #f3e5f5; color: #4a148c; font-weight: 600; }
td.error-behaviour { background: #fff3e0; color: #e65100; }
td.not-implemented, td.not-run, td.absent, td.error { background: #fafafa; color: #9e9e9e; }
td.cell details { margin-top: 0.3em; font-weight: normal; color: #424242; }
td.cell summary { cursor: pointer; }
code { font-size: 0.85em; word-break: break-all; }
ul.legend li span { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.4em; vertical-align: middle; }
"""


def to_html(doc: dict[str, Any], badges: dict[str, str] | None = None) -> str:
    esc = html.escape
    releases, fams = doc["releases"], doc["families"]
    shown = [f for f in fams if any(_cells(row)[(f, r)]["status"] != "absent" for row in doc["implementations"] for r in releases)]
    head = ["<tr><th rowspan=2>implementation</th><th rowspan=2>verdict</th>"]
    head += [f'<th class="family" colspan={len(releases)}>{esc(f)}</th>' for f in shown]
    head += ["</tr><tr>"] + [f"<th>{esc(r)}</th>" for _ in shown for r in releases] + ["</tr>"]
    body = []
    for row in doc["implementations"]:
        cells = _cells(row)
        name = esc(row["name"])
        if row.get("homepage"):
            name = f'<a href="{esc(row["homepage"])}">{name}</a>'
        badge = (badges or {}).get(row["spec"])
        verdict = f'<img alt="{esc(_verdict_text(row["verdict"]))}" src="{esc(badge)}">' if badge else esc(_verdict_text(row["verdict"]))
        parts = [
            f'<tr><td class="who">{name}<small>{esc(row["language"])} · {esc(row["version"])}</small>'
            f'<small><code>{esc(row["spec"])}</code></small></td><td>{verdict}</td>'
        ]
        for family in shown:
            for release in releases:
                cell = cells[(family, release)]
                kind = cell["impact"] or cell["status"]
                text = esc(_cell_text(cell))
                first = cell.get("firstDivergence")
                if first is not None:
                    text += (
                        f"<details><summary>first: {esc(first['case'])}</summary>{esc(first['summary'])}"
                        + (f"<br><code>{esc(first['repro'])}</code>" if first["repro"] else "")
                        + "</details>"
                    )
                elif cell.get("reason") and cell["status"] not in ("absent",):
                    text = f'<span title="{esc(cell["reason"])}">{text}</span>'
                parts.append(f'<td class="cell {esc(kind)}">{text}</td>')
        body.append("".join(parts) + "</tr>")
    legend = "".join(
        f'<li><span style="background:{COLOURS[name]}"></span><b>{esc(LABELS.get(name, name))}</b>: {esc(text)}</li>'
        for name, text in (
            ("pass", "every golden case and every generated group answered as Java does"),
            (WRONG_QUEUES, "a member of cidAll gets queues other than Java's: queues consumed twice or not at all"),
            (FAULT, "the implementation crashed, hung or wrote garbage instead of answering"),
            (ERROR_BEHAVIOUR, "Java throws or returns null where the implementation answers, or the reverse, "
             "for invalid inputs or non-members; a healthy group never asks that"),
            ("not-implemented", "the implementation does not serve this family"),
        )
    )
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        "<title>RocketMQ allocation compatibility matrix</title>"
        f"<style>{_STYLE}</style></head><body>"
        "<h1>RocketMQ allocation compatibility matrix</h1>"
        f'<p class="meta">pytest-rmq-conformance {esc(doc["tool"]["version"])} · {esc(doc["generatedAt"])} · '
        f'checks: {esc(", ".join(doc["checks"]))} (golden vectors of the Java client; differential against '
        f'the reference ports on generated groups) · seed {doc["seed"]}</p>'
        f"<table><thead>{''.join(head)}</thead><tbody>{''.join(body)}</tbody></table>"
        f'<ul class="legend">{legend}</ul></body></html>\n'
    )


def badge_svg(row: dict[str, Any]) -> str:
    """A flat badge: "rocketmq allocation" | the implementation's verdict."""
    verdict = row["verdict"]
    label, value = "rocketmq allocation", _verdict_text(verdict)
    colour = COLOURS.get(verdict["status"], "#757575")
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
    badges = {}
    used: set[str] = set()
    for row in doc["implementations"]:
        name = slug(row["name"])
        while name in used:
            name += "-"
        used.add(name)
        path = out / "badges" / f"{name}.svg"
        path.write_text(badge_svg(row), encoding="utf-8")
        badges[row["spec"]] = f"badges/{name}.svg"
        written[f"badge:{row['spec']}"] = path
    written["json"].write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written["md"].write_text(to_markdown(doc), encoding="utf-8")
    written["html"].write_text(to_html(doc, badges), encoding="utf-8")
    return written
