"""Internal: the message-group sweep's report.

The message-group sweep's report: ``summary.json`` as Markdown and a self-contained HTML page, with
its two plots (:mod:`.plots`), rendered as :mod:`~pytest_rmq_conformance.pipeline.pages`."""

from __future__ import annotations

from pathlib import Path
from statistics import mean, median
from typing import Any

from pytest_rmq_conformance.pipeline.message_groups.plots import MOVED_PLOT, SKEW_PLOT, draw
from pytest_rmq_conformance.pipeline.pages import (
    Block,
    Heading,
    Image,
    Para,
    Table,
    write_pages,
)

__all__ = ["write_group_report", "answer", "mapping_sentences", "TITLE"]

TITLE = "Message-group routing sweep"
MISSING = "–"
#: past this many queue counts, the table shows a selection (the first 16, powers of two, the ends)
TABLE_ROWS = 64


def _pct(value: float | None) -> str:
    return MISSING if value is None else f"{100 * value:.1f} %"


def _rows(summary: dict[str, Any], label: str) -> list[dict[str, Any]]:
    return [r for r in summary["rows"] if r["strategy"] == label]


def _mean_of(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in rows if r[key] is not None]
    return mean(values) if values else None


def _sentence(summary: dict[str, Any], label: str) -> str:
    rows = _rows(summary, label)
    skews = [r for r in rows if r["skew"] is not None]
    if not skews:
        return f"{label} answered no group with a queue (see the errors below)."
    worst = max(skews, key=lambda r: r["skew"])
    text = (f"{label}: the fullest queue holds a median {median(r['skew'] for r in skews):.3f}× the mean "
            f"(at most {worst['skew']:.3f}×, at K = {worst['queues']}). Adding a queue moves {_pct(_mean_of(rows, 'moved_up_share'))} "
            f"of the groups on average (equal shares would move {_pct(_mean_of(rows, 'fewest_up_share'))})")
    down = _mean_of(rows, "moved_down_share")
    if down is not None:
        text += f"; removing the last moves {_pct(down)} (equal shares: {_pct(_mean_of(rows, 'fewest_down_share'))})"
    return text + "."


def mapping_sentences(summary: dict[str, Any]) -> list[str]:
    """Per mapping: the median and largest skew, and the mean share of groups moved by one queue more or less."""
    return [_sentence(summary, s["label"]) for s in summary["strategies"]]


def answer(summary: dict[str, Any]) -> list[str]:
    """The report's lead: one sentence per mapping, then what each group that moves costs."""
    return [
        *mapping_sentences(summary),
        "Each group that changes queue loses its order across the change: a consumer may take its next "
        "message from the new queue before the last ones of the old queue are consumed.",
    ]


def _selected(counts: list[int]) -> list[int]:
    if len(counts) <= TABLE_ROWS:
        return counts
    return [k for k in counts if k <= 16 or k & (k - 1) == 0 or k in (counts[0], counts[-1])]


def _table(summary: dict[str, Any]) -> Table:
    labels = [s["label"] for s in summary["strategies"]]
    by = {(r["strategy"], r["queues"]): r for r in summary["rows"]}
    counts = [r["queues"] for r in _rows(summary, labels[0])]
    headers = ["K"]
    for label in labels:
        headers += [f"{label}: skew", f"{label}: moved to K+1", f"{label}: moved to K−1"]
    headers += ["equal shares to K+1", "equal shares to K−1"]
    rows = []
    for k in _selected(counts):
        cells = [str(k)]
        for label in labels:
            r = by[label, k]
            cells += [MISSING if r["skew"] is None else f"{r['skew']:.3f}", _pct(r["moved_up_share"]), _pct(r["moved_down_share"])]
        first = by[labels[0], k]
        rows.append([*cells, _pct(first["fewest_up_share"]), _pct(first["fewest_down_share"])])
    return Table(headers, rows, "r" * len(headers))


def _error_blocks(summary: dict[str, Any]) -> list[Block]:
    blocks: list[Block] = []
    for s in summary["strategies"]:
        rows = _rows(summary, s["label"])
        errors = sum(r["errors"] for r in rows)
        if errors:
            first = next(r for r in rows if r["first_error"])
            blocks.append(Para(f"{s['label']}: {errors:,} group mappings had no answer; at K = {first['queues']}: {first['first_error']}"))
    return [Heading(2, "Errors"), *blocks] if blocks else []


def _blocks(summary: dict[str, Any]) -> list[Block]:
    space = summary["space"]
    low, high = space["queues"]
    others = [s["label"] for s in summary["strategies"][1:]]
    return [
        Heading(1, TITLE),
        Para(
            f"{summary['tool']}: {space['groups']:,} message groups named {space['group_format']!r} mapped to a topic of K = "
            f"{low}..{high} queues by the 5.x Java client's takeMessageQueueByMessageGroup (SipHash-2-4 of the group's "
            f"UTF-8 bytes, modulo K)" + "".join(f" and by {label}" for label in others) + "."
        ),
        Heading(2, "The answer"),
        *(Para(text) for text in answer(summary)),
        Image("Skew of groups per queue against the queue count, per mapping, beside a uniform random spread", SKEW_PLOT),
        Image("Share of groups that change queue when the topic grows or shrinks by one queue, per mapping", MOVED_PLOT),
        Heading(2, "Per queue count"),
        Para("Skew: groups on the fullest queue over the mean. Moved: the groups that change queue when the topic "
             "grows to K + 1 or shrinks to K − 1 queues (the last queue removed), of those answered at both counts."),
        _table(summary),
        *_error_blocks(summary),
        Heading(2, "The run"),
        Para(f"Spark master {summary['master']}, {summary['partitions']} partitions, {summary['elapsed_seconds']:.1f} s. "
             "Groups per queue, per mapping and queue count: results/ (Parquet); every figure: summary.json."),
    ]


def write_group_report(summary: dict[str, Any], out_dir: Path) -> list[Path]:
    """Writes ``report.md``, ``report.html`` and the two plots into ``out_dir``; everything is
    rendered before anything is written."""
    return write_pages(out_dir, _blocks(summary), TITLE, draw(summary))
