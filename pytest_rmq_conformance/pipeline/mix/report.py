"""Internal: the mix sweep's report.

The mix sweep's report: ``summary.json`` as Markdown and a self-contained HTML page, with its
plots, rendered as :mod:`~pytest_rmq_conformance.pipeline.pages`. :func:`table_markdown` is the verdict table
alone, for other pages to embed (``clients/report.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_rmq_conformance.pipeline.pages import Block, Code, Heading, Image, Para, Table, markdown_of, write_pages

__all__ = ["write_mix_report", "verdict_lines", "table_markdown", "TITLE", "CONSUMER_PLOT", "SPLIT_PLOT"]

TITLE = "Mixing with Java"
MISSING = "–"
CONSUMER_PLOT = "mix_consumer.png"
SPLIT_PLOT = "mix_split.png"
VERDICT_HEADERS = ("Strategy", "Family", "Side", "Safe to mix with Java", "What breaks", "How often", "Worst case")
MIX_TITLES = {"one": "one client", "half": "half the clients", "all-but-one": "all but one client"}


def _pct(part: int, whole: int) -> str:
    return MISSING if not whole else f"{100 * part / whole:.1f} %"


def _breaks(v: dict[str, Any]) -> str:
    parts = []
    if v["double"]:
        parts.append(f"{v['double']:,} double-taken queues")
    if v["orphaned"]:
        parts.append(f"{v['orphaned']:,} orphaned queues")
    if v["split"]:
        parts.append(f"{v['split']:,} split {'message groups' if v['family'] == 'GROUP_HASH' else 'keys'}")
    if v["errors"]:
        parts.append(f"{v['errors']:,} without an answer")
    return ", ".join(parts) or "nothing"


def _often(v: dict[str, Any]) -> str:
    if v["side"] == "consumer":
        return (
            f"{_pct(v['failing'], v['n'])} of n = {v['n']:,} scenario mixes "
            f"({v['failing_scenarios']:,} of {v['scenarios']:,} scenarios)"
        )
    return f"{_pct(v['failing'], v['n'])} of n = {v['n']:,} names × queue counts ({v['failing_scenarios']} of {v['scenarios']} queue counts)"


def _verdict_row(v: dict[str, Any]) -> list[str]:
    worst = v["worst"] or (v["first_error"] if v["errors"] else None) or MISSING
    return [
        v.get("client") or v["spec"],
        v["family"] or MISSING,
        v["side"],
        "yes" if v["safe"] else "no",
        _breaks(v),
        _often(v) if not v["safe"] else f"0 of n = {v['n']:,}",
        worst,
    ]


def verdict_table(summary: dict[str, Any]) -> Table:
    return Table(VERDICT_HEADERS, [_verdict_row(v) for v in summary["verdicts"]], "lllllll")


def table_markdown(summary: dict[str, Any]) -> str:
    """The verdict table as Markdown: a row per strategy, family and side."""
    return markdown_of([verdict_table(summary)])


def verdict_lines(summary: dict[str, Any]) -> list[str]:
    """One line per verdict, for the command's output."""
    lines = []
    for v in summary["verdicts"]:
        name = v["strategy"]
        if v["safe"]:
            lines.append(f"{name}: safe to mix with Java ({v['side']} side, n = {v['n']:,})")
            continue
        lines.append(f"{name}: NOT safe to mix with Java ({v['side']} side): {_breaks(v)}, in {_often(v)}")
        if v["worst"]:
            lines.append(f"  worst: {v['worst']}")
        if v["replay"]:
            lines.append(f"  replay: {v['replay']}")
        if v["first_error"]:
            lines.append(f"  first error: {v['first_error']}")
    return lines


def _consumer_blocks(summary: dict[str, Any]) -> list[Block]:
    part = summary["consumer"]
    if part is None:
        return []
    space = part["space"]
    rows = [
        [
            r["strategy"],
            MIX_TITLES[r["mix"]],
            f"{r['mixes']:,}",
            _pct(r["failing"], r["mixes"]),
            _pct(r["with_double"], r["mixes"]),
            _pct(r["with_orphaned"], r["mixes"]),
            str(r["max_double"]),
            str(r["max_orphaned"]),
            str(r["errors"]),
            str(r["java_own"]),
        ]
        for r in part["rows"]
    ]
    return [
        Heading(2, "Consumer groups"),
        Para(
            f"Scenarios: the consumer sweep's, {space['scenarios']:,} of seed {space['seed']} ({space['queues'][0]}–{space['queues'][1]} "
            f"queues, {space['consumers'][0]}–{space['consumers'][1]} clients, events {', '.join(space['events'])}, Java's reference "
            f"at {space['reference_version']}). The clients of a scenario (its members and a joiner) run the strategy or Java's "
            "reference of its family; three mixes are drawn from the seed: one client runs the strategy, half of them, all but "
            "one (a size taken already is not repeated). Before and after the event every member computes its own share. "
            "Double-taken: a queue two or more members take, more than in the all-Java group; orphaned: a queue nobody takes "
            "that the all-Java group takes. A crash is a leave, as in the consumer sweep (no stale view)."
        ),
        Image("Share of scenario mixes with double-taken or orphaned queues, per strategy and mix", CONSUMER_PLOT),
        Table(
            (
                "Strategy",
                "Strategy run by",
                "Mixes (n)",
                "Failing",
                "With double-taken",
                "With orphaned",
                "Most double-taken",
                "Most orphaned",
                "Errors",
                "Java's own overlaps or gaps",
            ),
            rows,
            "llrrrrrrrr",
        ),
        Para(
            "Java's own overlaps or gaps: scenario mixes whose all-Java group itself shares or leaves queues (CONFIG gives "
            "every client its list, MACHINE_ROOM leaves queues outside the rooms): not counted against the strategy."
        ),
    ]


def _group_blocks(summary: dict[str, Any]) -> list[Block]:
    part = summary["groups"]
    if part is None:
        return []
    space = part["space"]
    labels = list(dict.fromkeys(r["strategy"] for r in part["rows"]))
    by = {(r["strategy"], r["queues"]): r for r in part["rows"]}
    counts = sorted({r["queues"] for r in part["rows"]})
    shown = (
        counts
        if len(counts) <= 24
        else [k for k in counts if k <= 8 or k & (k - 1) == 0 or k in (counts[0], counts[-1])]
    )
    rows = [
        [
            str(k),
            *(_pct(by[label, k]["split"], by[label, k]["names"]) if (label, k) in by else MISSING for label in labels),
        ]
        for k in shown
    ]
    return [
        Heading(2, "Message groups and keys"),
        Para(
            f"{space['groups']:,} names {space['group_format']!r}, over K = {space['queues'][0]}..{space['queues'][1]} queues: two "
            "producers of one topic, one Java and one running the strategy, send the same names. GROUP_HASH: the 5.x "
            "clients' takeMessageQueueByMessageGroup (Java: SipHash-2-4 mod K); SELECTOR_HASH: the 4.x hash selector "
            "(Java: SelectMessageQueueByHash, abs(hashCode % K)). Split: a name the two send to different queues; its "
            "messages lose their order."
        ),
        Image("Share of names split between the Java producer's queue and the strategy's, per queue count", SPLIT_PLOT),
        Table(("K", *(f"{label}: split" for label in labels)), rows, "r" * (1 + len(labels))),
    ]


def _replay_blocks(summary: dict[str, Any]) -> list[Block]:
    blocks: list[Block] = []
    for v in summary["verdicts"]:
        if v["safe"]:
            continue
        text = f"{v['strategy']}: {v['worst'] or v['first_error'] or _breaks(v)}."
        if v["replay"]:
            text += f" Replay: {v['replay']}"
        blocks.append(Para(text))
        if v.get("group"):
            blocks.append(Code("the scenario's group, as configured for the strategy, and its event", v["group"]))
    return [Heading(2, "Worst cases"), *blocks] if blocks else []


def _run_para(summary: dict[str, Any]) -> Para:
    said = []
    for side, name in (("consumer", "consumer side"), ("groups", "producer side")):
        part = summary[side]
        if part is None:
            continue
        elapsed = "" if part["elapsed_seconds"] is None else f", {part['elapsed_seconds']:.1f} s"
        said.append(f"{name}: Spark master {part['master']}, {part['partitions']} partitions{elapsed}")
    return Para(
        "; ".join(said)
        + ". Every figure: summary.json"
        + (
            "; rows: results/ (Parquet)."
            if any(summary[s] is not None and summary[s]["elapsed_seconds"] is not None for s in ("consumer", "groups"))
            else "."
        )
    )


def _blocks(summary: dict[str, Any]) -> list[Block]:
    return [
        Heading(1, TITLE),
        Para(
            f"{summary['tool']}: can a client share a consumer group, or a FIFO message group, with Java clients? Safe to "
            "mix: no double-taken or orphaned queue and no split group or key in any scenario, mix or queue count swept, "
            "and an answer to every call."
        ),
        Heading(2, "The verdicts"),
        verdict_table(summary),
        *_consumer_blocks(summary),
        *_group_blocks(summary),
        *_replay_blocks(summary),
        Heading(2, "The run"),
        _run_para(summary),
    ]


def write_mix_report(summary: dict[str, Any], out_dir: Path) -> list[Path]:
    """Writes ``report.md``, ``report.html`` and the plots of the sides swept into ``out_dir``."""
    from pytest_rmq_conformance.pipeline.mix.plots import draw

    return write_pages(out_dir, _blocks(summary), TITLE, draw(summary))
