"""Internal: the allocation sweep's report, ``summary.json`` as Markdown and an HTML page, with three plots.

:func:`render_markdown` and :func:`render_html` are pure and render the same content;
:func:`write_report` also draws the plots (:mod:`~pytest_rmq_conformance.pipeline.allocation.plots`,
which needs matplotlib, the ``sweep`` extra) and writes every file atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_rmq_conformance.pipeline.allocation.plots import CHURN_PLOT, COST_PLOT, IMBALANCE_PLOT, draw, label
from pytest_rmq_conformance.pipeline.pages import (
    Block,
    Code,
    Heading,
    Image,
    Para,
    Table,
    html_of,
    markdown_of,
    span,
    write_pages,
)

__all__ = [
    "write_report",
    "render_markdown",
    "render_html",
    "CHURN_PLOT",
    "IMBALANCE_PLOT",
    "COST_PLOT",
]

TITLE = "Allocation strategy sweep"
EXAMPLES_SHOWN = 3
MISSING = "–"
STRATEGY_HEADERS = (
    "Strategy", "Scenarios", "Failing scenarios", "Calls", "Queues moved: mean", "Queues moved: p50",
    "Queues moved: p99", "Queues moved: max", "Lower bound (queues): mean", "Excess (queues): mean",
    "Imbalance (queues): mean", "Imbalance (queues): max",
)  # fmt: skip
EXAMPLE_HEADERS = ("Strategy", "Queues moved", "Lower bound (queues)", "Own queues", "Violations")
KIND_HEADERS = ("Violation", "Scenarios", "Occurrences")


# ----------------------------------------------------------------- content


def _fmt(value: Any) -> str:
    """Integers as integers, other numbers to 2 decimals, booleans as yes/no."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _counted(number: int, one: str, many: str | None = None) -> str:
    """``"1 scenario"``, ``"2 scenarios"``."""
    return f"{number} {one if number == 1 else many or one + 's'}"


def _mean(value: Any) -> str:
    """A mean: always 2 decimals, even when it came out whole."""
    return MISSING if value is None else f"{float(value):.2f}"


def _space_blocks(summary: dict[str, Any]) -> list[Block]:
    space = summary["space"]
    rows = [
        ("Queues", span(space["queues"])),
        ("Consumers", span(space["consumers"])),
        ("Events", ", ".join(space["events"])),
        ("Seed", _fmt(space["seed"])),
        ("Scenarios", _fmt(space["scenarios"])),
        ("Varied layouts", _fmt(space["layouts"])),
        ("Reference release", _fmt(summary["reference_version"])),
        ("Master", f"{summary['master']} ({_fmt(summary['partitions'])} partitions)"),
        ("Elapsed", f"{_fmt(summary['elapsed_seconds'])} s"),
    ]
    return [Heading(2, "Scenario space"), Table(("Setting", "Value"), rows, "ll")]


def _example_blocks(summary: dict[str, Any]) -> list[Block]:
    if not summary["examples"]:
        return []
    blocks: list[Block] = [
        Heading(2, "Headline comparison"),
        Para(
            "Queues moved: queues whose holder changed. Lower bound: the fewest moves that reach a balanced "
            "assignment. Own queues: the queues the leaving client held (for a join, what the new one gets)."
        ),
    ]
    headers = EXAMPLE_HEADERS
    for example in summary["examples"]:
        rows = [
            (label(r), _fmt(r["moved"]), _fmt(r["lower_bound"]), _fmt(r["own"]), ", ".join(r["violations"]) or "none")
            for r in example["rows"]
        ]
        blocks += [Heading(3, example["title"]), Table(headers, rows, "lrrrl")]
    return blocks


def _strategy_row(entry: dict[str, Any]) -> tuple[str, ...]:
    churn, imbalance = entry["churn"], entry["imbalance"]
    return (
        label(entry),
        _fmt(entry["scenarios"]),
        _fmt(entry["failing_scenarios"]),
        _fmt(entry["calls"]),
        _mean(churn["mean"]),
        _mean(churn["p50"]),
        _mean(churn["p99"]),
        _fmt(churn["max"]),
        _mean(churn["lower_bound_mean"]),
        _mean(churn["excess_mean"]),
        _mean(imbalance["mean"]),
        _fmt(imbalance["max"]),
    )


def _strategy_blocks(summary: dict[str, Any]) -> list[Block]:
    rows = [_strategy_row(entry) for entry in summary["strategies"]]
    return [
        Heading(2, "Strategies"),
        Para(
            "Scenarios: groups evaluated, one membership change each; failing scenarios: those with at least "
            "one violation. Calls: allocate() calls made, those of the comparison with the reference port "
            "included. Per scenario: queues moved by the event (queues whose holder changed); lower bound: "
            "the fewest moves that reach a balanced group (a strategy that does not balance may move fewer, "
            "and its excess is then negative); excess: queues moved minus the lower bound; "
            "imbalance: the largest minus the smallest number of queues a client holds after the event "
            "(0 is perfectly balanced, lower is better; 1 is the best possible when the queues do not divide "
            "evenly)."
        ),
        Table(STRATEGY_HEADERS, rows, "l" + "r" * (len(STRATEGY_HEADERS) - 1)),
    ]


def _kind_blocks(kind: dict[str, Any]) -> list[Block]:
    counted = f"in {_counted(kind['scenarios'], 'scenario')}, {_counted(kind['occurrences'], 'occurrence')}"
    blocks: list[Block] = [Heading(4, f"{kind['kind']} ({counted})")]
    for example in kind["examples"][:EXAMPLES_SHOWN]:
        blocks.append(Para(f"Scenario {_fmt(example['scenario'])}: {example['detail']}"))
        if example["group"]:
            blocks.append(Code("group JSON", example["group"]))
    return blocks


def _violation_blocks(summary: dict[str, Any]) -> list[Block]:
    blocks: list[Block] = [Heading(2, "Violations")]
    failing = [entry for entry in summary["strategies"] if entry["violations"]]
    if not failing:
        return blocks + [Para("No strategy broke an invariant it claims.")]
    blocks.append(
        Para(
            "Per strategy and kind: the scenarios it was found in, and its occurrences, each time the check "
            "failed (once per call for an answer that differs from the reference port's or raises, once per "
            "group state for a gap); then its first scenarios."
        )
    )
    for entry in failing:
        rows = [(kind["kind"], _fmt(kind["scenarios"]), _fmt(kind["occurrences"])) for kind in entry["violations"]]
        blocks += [Heading(3, label(entry)), Table(KIND_HEADERS, rows, "lrr")]
        for kind in entry["violations"]:
            blocks += _kind_blocks(kind)
    return blocks


def _cost_sentence(summary: dict[str, Any]) -> str:
    """How long the largest groups of the run took, for the costliest strategy there."""
    rows = summary.get("cost", {}).get("by_size", [])
    if not rows:
        return "No scenario was timed."
    top = max(r["size_bin"][0] for r in rows)
    costliest = max((r for r in rows if r["size_bin"][0] == top), key=lambda r: r["seconds_p50"])
    names = {entry["spec"]: label(entry) for entry in summary["strategies"]}
    return (
        f"The largest groups of this run ({span(costliest['size_bin'])} queues × consumers) took "
        f"{costliest['seconds_p50'] * 1000:.3g} ms a scenario with {names.get(costliest['spec'], costliest['spec'])}, "
        f"the costliest there (median of {_counted(costliest['scenarios'], 'scenario')})."
    )


def _blocks(summary: dict[str, Any]) -> list[Block]:
    """The report's content, for either renderer."""
    intro: list[Block] = [
        Heading(1, "Allocation strategy sweep"),
        Para(f"{summary['tool']}: {_counted(len(summary['strategies']), 'strategy', 'strategies')} on the scenarios below."),
    ]
    plots: list[Block] = [
        Heading(2, "Plots"),
        Para(
            "Churn by group size: the queues a strategy moved beyond the lower bound, as a share of all "
            "queues, over the scenarios in each consumer-count bin; the line is the median, the band the "
            "middle half (25th to 75th percentile). 0 % means as few moves as a balanced group needs; "
            "below 0, the strategy moved fewer because it does not balance. Under each bin, n: its scenarios."
        ),
        Image("Queues moved beyond the lower bound, as a share of the queues, by group size and event", CHURN_PLOT),
        Para(
            "Imbalance by queue count and consumer count: per strategy, each cell's mean imbalance after the "
            "event and n, its scenarios; 0 (dark) is perfectly balanced, lower is better."
        ),
        Image("Mean imbalance by queue count and consumer count, by strategy", IMBALANCE_PLOT),
        Para(
            "Cost by group size: the median time of a scenario (every call before and after the event, and "
            "the checks) against queues × consumers, per strategy, on the machine of this run. "
            + _cost_sentence(summary)
        ),
        Image("Milliseconds per scenario by queues × consumers, by strategy", COST_PLOT),
    ]
    return (
        intro
        + _space_blocks(summary)
        + _example_blocks(summary)
        + _strategy_blocks(summary)
        + _violation_blocks(summary)
        + plots
    )


def render_markdown(summary: dict[str, Any]) -> str:
    """The report as Markdown."""
    return markdown_of(_blocks(summary))


def render_html(summary: dict[str, Any]) -> str:
    """The report as one self-contained HTML page (the plots are relative links)."""
    return html_of(_blocks(summary), TITLE)


def write_report(summary: dict[str, Any], out_dir: Path) -> list[Path]:
    """Writes ``report.md``, ``report.html`` and the plots into ``out_dir``; returns their paths.

    Everything is rendered before anything is written. Raises :class:`ImportError` (naming the
    ``sweep`` extra) when matplotlib is missing."""
    return write_pages(out_dir, _blocks(summary), TITLE, draw(summary))
