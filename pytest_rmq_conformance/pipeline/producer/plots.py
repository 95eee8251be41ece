"""Internal: the producer sweep report's plots.

The producer sweep report's plots, drawn from ``summary.json`` data (never from result rows).

:func:`draw` renders three PNGs: the share of sends whose first attempt went to the degraded
broker, the time until traffic returned to it after recovery, and each release's isolation table
beside the documented figures. matplotlib (the ``sweep`` extra) is imported only here, on Agg.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from pytest_rmq_conformance.pipeline.figures import figure_class, png_bytes, samples

__all__ = ["draw", "share_figure", "recovery_figure", "isolation_figure", "SHARE_PLOT", "RECOVERY_PLOT", "ISOLATION_PLOT",
           "PATTERN_TITLES", "groups_of", "label", "columns", "user_strategies", "is_reference"]

SHARE_PLOT = "producer_degraded_share.png"
RECOVERY_PLOT = "producer_recovery.png"
ISOLATION_PLOT = "producer_isolation.png"
PATTERN_TITLES = {
    "healthy": "healthy (control)",
    "slow": "one broker slow",
    "failing": "one broker failing",
    "flapping": "one broker flapping",
    "route-refresh": "failing, dropped from the route",
}
#: sendLatencyFaultEnable off / on: colour-blind-safe pair (Okabe-Ito), on also hatched
SETTING_STYLE = {
    False: {"color": "#E69F00", "label": "sendLatencyFaultEnable off"},
    True: {"color": "#0072B2", "label": "sendLatencyFaultEnable on", "hatch": "//"},
}
RELEASE_COLOURS = ("#D55E00", "#009E73", "#0072B2", "#CC79A7")
PANEL_WIDTH = 3.3
#: inches: a figure of one row of panels is at most this wide (three panels of three bars, so that a
#: panel stays legible on a narrow screen too)
MAX_WIDTH = 11.5
BAR = 0.38


def is_reference(entry: dict[str, Any]) -> bool:
    """Whether a group or configuration is a release's reference port (not a user's ``--strategy``)."""
    return entry.get("strategy", "reference") == "reference"


def label(entry: dict[str, Any]) -> str:
    """A group's or configuration's name in tables and plots: a reference port's release, or a user's spec."""
    return entry["release"] if is_reference(entry) else entry["strategy"]


def columns(summary: dict[str, Any]) -> list[str]:
    """Every configuration's :func:`label`, in order: the releases, then the user's strategies."""
    return list(dict.fromkeys(label(c) for c in summary["configurations"]))


def user_strategies(summary: dict[str, Any]) -> list[str]:
    """The ``--strategy`` specs swept beside the reference ports."""
    return [label(c) for c in summary["configurations"] if not is_reference(c) and c["latency_fault"]]


def groups_of(summary: dict[str, Any], pattern: str) -> dict[tuple[str, bool], dict[str, Any]]:
    """The pattern's groups by ``(label, latency_fault)``: a reference port's label is its release."""
    return {(label(g), g["latency_fault"]): g for g in summary["groups"] if g["pattern"] == pattern}


def _patterns(summary: dict[str, Any], exclude: Sequence[str] = ()) -> list[str]:
    present = {g["pattern"] for g in summary["groups"]}
    return [p for p in summary["space"]["patterns"] if p in present and p not in exclude]


def _errors(group: dict[str, Any] | None) -> str:
    """Under a bar's number: how many of its runs ended on an exception (their counts stop there)."""
    return f"\nerrors: {group['errors']}" if group and group["errors"] else ""


def _ticks(ax, names: list[str], summary: dict[str, Any]) -> None:
    """One tick per configuration; a long spec broken after its module."""
    ax.set_xlim(-0.7, len(names) - 0.3)  # room for the outer bars' labels
    long = any(len(name) > 10 for name in names)
    ax.set_xticks(range(len(names)), [name.replace(":", ":\n", 1) if len(name) > 10 else name for name in names],
                  **({"fontsize": 8} if long else {}))
    mine = user_strategies(summary)
    ax.set_xlabel("RocketMQ release" if not mine else "RocketMQ release, or your strategy")
    if mine and len(mine) < len(names):  # the reference ports on the left, yours on the right of a rule
        ax.axvline(len(names) - len(mine) - 0.5, color="grey", linestyle=":", linewidth=1)


def _per_bar(groups: Iterable[dict[str, Any]], key: str, what: str) -> str:
    """The samples behind each bar of a panel: ``"n = 1,200 sends a bar"`` (a range where bars differ)."""
    counts = sorted({int(g[key]) for g in groups}) or [0]
    low, high = counts[0], counts[-1]
    return f"{samples(low, what)} a bar" if low == high else f"n = {low:,}–{high:,} {what} a bar"


def _total(summary: dict[str, Any], patterns: Sequence[str], key: str, what: str) -> str:
    """The samples behind a whole figure: its patterns' groups summed."""
    return samples(sum(int(g[key]) for g in summary["groups"] if g["pattern"] in patterns), what)


def _empty(text: str):
    fig = figure_class()(figsize=(5, 3), layout="constrained")
    ax = fig.subplots()
    ax.text(0.5, 0.5, text, ha="center", va="center")
    ax.set_axis_off()
    return fig


def _panels(count: int, height: float = 4.4, sharey: bool = False, bars: int = 3):
    """One panel per fault pattern, in one row while it is at most :data:`MAX_WIDTH` inches wide
    (wider panels, for more configurations, wrap onto more rows); the y label on each row's first."""
    width = PANEL_WIDTH * max(1.0, bars / 3)
    per_row = max(1, min(count, int((MAX_WIDTH - 0.8) // width)))
    rows = -(-count // per_row)
    fig = figure_class()(figsize=(max(6.0, width * per_row + 0.8), height * rows), layout="constrained")
    grid = fig.subplots(rows, per_row, squeeze=False, sharey=sharey)
    axes = [ax for row in grid for ax in row]
    for ax in axes[count:]:
        ax.set_visible(False)
    return fig, axes[:count], [row[0] for row in grid]


def _legend_below(fig, axes) -> None:
    handles: dict[str, Any] = {}
    for ax in axes:
        for handle, text in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(text, handle)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncol=min(3, len(handles)))


# ----------------------------------------------------------- share to the degraded broker


def _share_axes(ax, summary: dict[str, Any], pattern: str, releases: list[str]) -> None:
    groups = groups_of(summary, pattern)
    for offset, on in ((-BAR / 2, False), (BAR / 2, True)):
        style = SETTING_STYLE[on]
        picked = [groups.get((r, on)) for r in releases]
        xs = [i + offset for i in range(len(releases))]
        values = [100 * g["degraded_share"] if g and g["degraded_share"] is not None else math.nan for g in picked]
        bars = ax.bar(xs, values, BAR, edgecolor="black", linewidth=0.6, **style)
        ax.bar_label(bars, ["" if math.isnan(v) else f"{v:.1f}" + _errors(g) for v, g in zip(values, picked)],
                     fontsize=7, padding=2)
        uniform = [(x, 100 * g["uniform_share"]) for x, g in zip(xs, picked) if g and g["uniform_share"] is not None]
        ax.hlines([u for _, u in uniform], [x - BAR / 2 for x, _ in uniform], [x + BAR / 2 for x, _ in uniform],
                  color="black", linestyle="--", linewidth=1.2, label="round robin's share (1 / brokers)")
    _ticks(ax, releases, summary)
    ax.set_title(f"{PATTERN_TITLES.get(pattern, pattern)}\n{_per_bar(groups.values(), 'sends', 'sends')}", fontsize=10)
    ax.grid(axis="y", alpha=0.3)


def share_figure(summary: dict[str, Any]):
    """Per fault pattern, the share (%) of sends during the fault whose first attempt went to the
    degraded broker, per release (and user's strategy), with sendLatencyFaultEnable off and on."""
    patterns, releases = _patterns(summary), columns(summary)
    if not patterns:
        return _empty("no producer results")
    fig, axes, firsts = _panels(len(patterns), sharey=True, bars=len(releases))
    for ax, pattern in zip(axes, patterns):
        _share_axes(ax, summary, pattern, releases)
    room = 1.2 if any(g["errors"] for g in summary["groups"]) else 1.1  # above the tallest bar, for its labels
    axes[0].set_ylim(0, axes[0].get_ylim()[1] * room)
    for ax in firsts:
        ax.set_ylabel("sends whose first attempt went to\nthe degraded broker (% of sends during the fault)")
    fig.suptitle(
        "Does sendLatencyFaultEnable keep sends away from the degraded broker? (lower is better)\n"
        f"{_total(summary, patterns, 'sends', 'sends during the fault')} in "
        f"{sum(g['scenarios'] for g in summary['groups'] if g['pattern'] in patterns):,} scenario runs"
    )
    _legend_below(fig, axes)
    return fig


# ------------------------------------------------------------- time until traffic returns


def _recovery_axes(ax, summary: dict[str, Any], pattern: str, releases: list[str]) -> None:
    groups = groups_of(summary, pattern)
    for offset, on in ((-BAR / 2, False), (BAR / 2, True)):
        style = SETTING_STYLE[on]
        xs = [i + offset for i in range(len(releases))]
        picked = [groups.get((r, on)) for r in releases]
        medians = [math.nan if not g or g["returned_after_ms"]["p50"] is None else g["returned_after_ms"]["p50"] / 1000
                   for g in picked]
        highs = [math.nan if not g or g["returned_after_ms"]["max"] is None else g["returned_after_ms"]["max"] / 1000
                 for g in picked]
        ax.bar(xs, medians, BAR, edgecolor="black", linewidth=0.6, **style)
        ax.scatter(xs, highs, marker="_", s=140, linewidths=2, color="black", zorder=3, label="slowest scenario (max)")
        for x, g, median, high in zip(xs, picked, medians, highs):
            never = g["never_returned"] if g else 0
            text = "" if math.isnan(median) else _seconds(median)
            text += f"\nnever: {never}" if never else ""
            text += _errors(g)
            top = max((v for v in (median, high) if not math.isnan(v)), default=0.0)
            ax.annotate(text, (x, top), textcoords="offset points", xytext=(0, 5), ha="center", va="bottom", fontsize=7)
    ax.set_yscale("symlog", linthresh=1, linscale=0.6)
    _ticks(ax, releases, summary)
    ax.set_title(f"{PATTERN_TITLES.get(pattern, pattern)}\n{_per_bar(groups.values(), 'scenarios', 'scenarios')}", fontsize=10)
    ax.grid(axis="y", alpha=0.3)


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 100 else f"{value:.0f} s"


def recovery_figure(summary: dict[str, Any]):
    """Per fault pattern, the median time (s) from recovery until an attempt reached the
    degraded broker again (bar) and the slowest scenario's (mark), off and on, per release (and
    user's strategy)."""
    patterns, releases = _patterns(summary, exclude=("healthy",)), columns(summary)
    if not patterns:
        return _empty("no fault patterns swept")
    fig, axes, firsts = _panels(len(patterns), bars=len(releases))
    top = max((g["returned_after_ms"]["max"] or 0 for g in summary["groups"]), default=0) / 1000
    for ax, pattern in zip(axes, patterns):
        _recovery_axes(ax, summary, pattern, releases)
        ax.set_ylim(0, max(10.0, top) * 4)  # room for the labels above the tallest mark
    for ax in firsts:
        ax.set_ylabel("until traffic returns (s; log scale above 1 s)\nbar and number: median; mark: slowest")
    fig.suptitle(
        "After the broker recovers, how long until it gets sends again? (lower is better)\n"
        f"{_total(summary, patterns, 'scenarios', 'scenario runs')}, of which "
        f"{sum(g['returned'] for g in summary['groups'] if g['pattern'] in patterns):,} saw the broker get sends again"
    )
    _legend_below(fig, axes)
    return fig


# ------------------------------------------------------------------ isolation tables


def _same_tables(summary: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Releases with identical tables drawn once: ``("4.7.1, 4.9.8", entry)``."""
    seen: dict[str, tuple[list[str], dict[str, Any]]] = {}
    for entry in summary["isolation"]["releases"]:
        key = repr((entry["steps"], entry["failed_send"]))
        seen.setdefault(key, ([], entry))[0].append(entry["release"])
    return [(", ".join(names), entry) for names, entry in seen.values()]


def isolation_figure(summary: dict[str, Any]):
    """Each release's isolation (s) against a send's latency (ms), as its port computes it, with
    what a failed send costs and the documented figures."""
    tables = _same_tables(summary)
    if not tables:
        return _empty("no isolation tables")
    fig = figure_class()(figsize=(8.2, 5.0), layout="constrained")
    ax = fig.subplots()
    steps = [s["latency_ms"] for _, entry in tables for s in entry["steps"]]
    low, high = 10, max(steps) * 3
    for index, (names, entry) in enumerate(tables):
        colour = RELEASE_COLOURS[index % len(RELEASE_COLOURS)]
        xs = [low] + [s["latency_ms"] for s in entry["steps"]] + [high]
        ys = [0] + [s["isolation_ms"] / 1000 for s in entry["steps"]]
        ys.append(ys[-1])
        ax.step(xs, ys, where="post", color=colour, linewidth=2, label=f"{names}: a send that took that long")
        failed = entry["failed_send"]
        ax.scatter([failed["priced_at_ms"]], [failed["isolation_ms"] / 1000], marker="X", s=90, color=colour,
                   edgecolor="black", zorder=4, label=f"{names}: a failed send (priced at {failed['priced_at_ms']:,} ms)")
        ax.annotate(f"failed send: {failed['isolation_ms'] / 1000:g} s", (failed["priced_at_ms"], failed["isolation_ms"] / 1000),
                    textcoords="offset points", xytext=(0, 9), ha="center", fontsize=8, color=colour)
    documented = summary["isolation"]["documentation"]["steps"]
    ax.scatter([d["latency_ms"] for d in documented], [d["isolation_ms"] / 1000 for d in documented], marker="o", s=70,
               facecolor="white", edgecolor="black", linewidth=1.5, zorder=5, label="RocketMQ documentation")
    for d in documented:
        ax.annotate(f"docs: {d['latency_ms']:,} ms → {d['isolation_ms'] / 1000:g} s", (d["latency_ms"], d["isolation_ms"] / 1000),
                    textcoords="offset points", xytext=(-10, 10), ha="right", fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1, linscale=0.5)
    ax.set_xlim(low, high)
    tallest = max(s["isolation_ms"] for _, entry in tables for s in [*entry["steps"], entry["failed_send"]]) / 1000
    ax.set_ylim(0, max(10.0, tallest) * 4)  # room for the labels above the tallest step
    ax.set_xlabel("latency of the last send to the broker (ms, log scale)")
    ax.set_ylabel("the broker is kept out for (s)\nlog scale above 1 s")
    ax.grid(alpha=0.3, which="both")
    releases = len(summary["isolation"]["releases"])
    ax.set_title(
        "Isolation after a send: each release's tables against the documentation\n"
        f"{samples(releases, 'releases')}: computed by each port, not sampled",
        fontsize=10,
    )
    ax.legend(loc="upper left", fontsize=8)
    return fig


def draw(summary: dict[str, Any]) -> dict[str, bytes]:
    """The three plots as PNG bytes, by file name."""
    return {
        SHARE_PLOT: png_bytes(share_figure(summary)),
        RECOVERY_PLOT: png_bytes(recovery_figure(summary)),
        ISOLATION_PLOT: png_bytes(isolation_figure(summary)),
    }
