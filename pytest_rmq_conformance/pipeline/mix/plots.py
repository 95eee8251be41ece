"""Internal: the mix sweep report's plots.

The mix sweep report's plots, drawn from ``summary.json`` data: per strategy and mix, the share
of scenario mixes with double-taken and with orphaned queues (consumer side); per strategy, the
share of names split between Java's queue and the strategy's at each queue count (producer side).
Every bar and title says its n. matplotlib is imported only here, on Agg."""

from __future__ import annotations

from typing import Any

from pytest_rmq_conformance.pipeline.figures import figure_class, png_bytes
from pytest_rmq_conformance.pipeline.message_groups.plots import line_style

__all__ = ["draw", "consumer_figure", "split_figure"]

CONSUMER_PLOT = "mix_consumer.png"
SPLIT_PLOT = "mix_split.png"
MIX_TITLES = {"one": "one client runs it", "half": "half run it", "all-but-one": "all but one run it"}


def consumer_figure(summary: dict[str, Any]):
    """Two panels (double-taken, orphaned): a group of bars per strategy, one bar per mix, n on each."""
    Figure = figure_class()
    rows = summary["consumer"]["rows"]
    labels = list(dict.fromkeys(r["strategy"] for r in rows))
    mixes = [m for m in MIX_TITLES if any(r["mix"] == m for r in rows)]
    by = {(r["strategy"], r["mix"]): r for r in rows}
    height = max(3.6, 1.2 + 0.45 * len(labels) * len(mixes))
    fig = Figure(figsize=(11, height), layout="constrained")
    panels = fig.subplots(1, 2, sharey=True)
    bar = 0.8 / max(1, len(mixes))
    for ax, (key, title) in zip(
        panels,
        (
            ("with_double", "scenario mixes with double-taken queues"),
            ("with_orphaned", "scenario mixes with orphaned queues"),
        ),
    ):
        for j, mix in enumerate(mixes):
            ys, widths, ns = [], [], []
            for i, label in enumerate(labels):
                row = by.get((label, mix))
                if row is None or not row["mixes"]:
                    continue
                ys.append(i + (j - (len(mixes) - 1) / 2) * bar)
                widths.append(100 * row[key] / row["mixes"])
                ns.append(row["mixes"])
            ax.barh(ys, widths, height=bar * 0.9, color=f"C{j}", label=MIX_TITLES[mix])
            for y, width, n in zip(ys, widths, ns):
                ax.text(width + 1, y, f"{width:.1f} % of n = {n:,}", va="center", fontsize=7)
        ax.set_xlim(0, 125)
        ax.set_xticks([0, 20, 40, 60, 80, 100])
        ax.set_xlabel("% of scenario mixes")  # what n counts is said in the title: one line per panel fits
        ax.set_title(title, fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    panels[0].set_yticks(range(len(labels)), [_short(label) for label in labels], fontsize=8)
    panels[0].invert_yaxis()
    handles, names = panels[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncols=len(mixes), fontsize=8)
    space = summary["consumer"]["space"]
    fig.suptitle(
        f"Clients of a strategy sharing a consumer group with Java's, against the all-Java group\n"
        f"{space['scenarios']:,} scenarios of seed {space['seed']}, before and after one "
        f"{'/'.join(space['events'])} (n: the scenario mixes of that strategy and mix)",
        fontsize=11,
    )
    return fig


def _short(label: str, width: int = 46) -> str:
    return label if len(label) <= width else "…" + label[-(width - 1) :]


def split_figure(summary: dict[str, Any]):
    """The share of names split at each queue count, a line per strategy and family."""
    Figure = figure_class()
    part = summary["groups"]
    fig = Figure(figsize=(9, 4.8), layout="constrained")
    ax = fig.subplots()
    labels = list(dict.fromkeys(r["strategy"] for r in part["rows"]))
    for index, label in enumerate(labels):
        rows = [r for r in part["rows"] if r["strategy"] == label and r["split_share"] is not None]
        ax.plot(
            [r["queues"] for r in rows],
            [100 * r["split_share"] for r in rows],
            label=_short(label, 60),
            **line_style(index + 1),
        )
    low, high = part["space"]["queues"]
    if high > low:
        ks = list(range(max(2, low), high + 1))
        ax.plot(
            ks,
            [100 * (1 - 1 / k) for k in ks],
            color="grey",
            linewidth=3,
            alpha=0.4,
            label="two unrelated hashes: 1 − 1/K",
        )
    ax.set_ylim(-2, 102)
    ax.set_xlabel("queues in the topic (K)")
    ax.set_ylabel("names sent to two queues, %\n(0 = safe to mix with Java)")
    ax.set_title(
        f"A Java producer and one of the strategy sending the same names\n"
        f"n = {part['space']['groups']:,} names at every queue count",
        fontsize=11,
    )
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def draw(summary: dict[str, Any]) -> dict[str, bytes]:
    """The plots of the sides swept, as PNG bytes by file name."""
    plots = {}
    if summary["consumer"] is not None and summary["consumer"]["rows"]:
        plots[CONSUMER_PLOT] = png_bytes(consumer_figure(summary))
    if summary["groups"] is not None and summary["groups"]["rows"]:
        plots[SPLIT_PLOT] = png_bytes(split_figure(summary))
    return plots
