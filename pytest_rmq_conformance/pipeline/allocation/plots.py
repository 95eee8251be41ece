"""Internal: the allocation sweep report's plots, drawn from ``summary.json`` data (never from the result rows).

:func:`draw` renders both as PNG bytes. It needs matplotlib (the ``sweep`` extra), imported only
there and on the non-interactive Agg backend.
"""

from __future__ import annotations

import math
from typing import Any

from pytest_rmq_conformance.engine.kinds import ports
from pytest_rmq_conformance.pipeline.allocation.summary import bins_of
from pytest_rmq_conformance.pipeline.figures import MARKERS, figure_class, png_bytes
from pytest_rmq_conformance.pipeline.pages import span

__all__ = [
    "draw", "churn_figure", "imbalance_figure", "cost_figure", "label",
    "CHURN_PLOT", "IMBALANCE_PLOT", "COST_PLOT", "IMBALANCE_LABEL",
]

CHURN_PLOT = "churn_by_group_size.png"
IMBALANCE_PLOT = "imbalance_heatmap.png"
COST_PLOT = "cost_by_group_size.png"
PANEL_WIDTH = 3.6  # inches, of a churn panel
LEGEND_COLUMNS = 4  # at most, in the churn plot's legend
COLORMAP = "viridis"  # perceptually uniform and colour-blind safe
IMBALANCE_LABEL = (
    "mean imbalance: largest − smallest share, in queues; log scale above 1\n(0 = perfectly balanced, lower is better)"
)
COLOUR_TICKS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
EVENT_TITLES = {"leave": "a consumer leaves", "join": "a consumer joins", "crash": "a consumer crashes"}

Bin = tuple[int, int]


def label(entry: dict[str, Any]) -> str:
    """A strategy's name, with its spec when that says something else."""
    name, spec = entry.get("name") or entry["spec"], entry["spec"]
    return name if name == spec else f"{name} ({spec})"


# ------------------------------------------------------------ churn by group size


def _events(summary: dict[str, Any]) -> list[str]:
    """The space's events, then any others the strategies report, in order."""
    seen = [row["event"] for entry in summary["strategies"] for row in entry["churn_by_group_size"]]
    return list(dict.fromkeys([*summary["space"]["events"], *seen]))


def _axis(summary: dict[str, Any], rows: str, key: str, space_key: str) -> list[Bin]:
    """The bins along one axis: every bin of the space's range, so that empty ones show (n=0), and
    any other bin the rows name."""
    named = {tuple(row[key]) for entry in summary["strategies"] for row in entry[rows]}
    if not named:
        return []
    return sorted(named | set(bins_of(*summary["space"][space_key])))


def _size_bins(summary: dict[str, Any]) -> list[Bin]:
    return _axis(summary, "churn_by_group_size", "consumers_bin", "consumers")


def _quartiles(entry: dict[str, Any], event: str, bins: list[Bin]) -> list[list[float]]:
    """The strategy's 25th, 50th and 75th percentile excess share per bin (NaN where it has none)."""
    rows = {tuple(r["consumers_bin"]): r["excess_share"] for r in entry["churn_by_group_size"] if r["event"] == event}
    return [[rows[b][key] if b in rows else math.nan for b in bins] for key in ("p25", "p50", "p75")]


def _counts(summary: dict[str, Any], event: str, bins: list[Bin]) -> list[str]:
    """Per bin, ``n=`` the scenarios behind it (a range where strategies answered different numbers)."""
    seen: dict[Bin, list[int]] = {b: [] for b in bins}
    for entry in summary["strategies"]:
        for row in entry["churn_by_group_size"]:
            if row["event"] == event:
                seen[tuple(row["consumers_bin"])].append(row["scenarios"])
    return [f"n={span((min(n), max(n)))}" if n else "n=0" for n in seen.values()]


def _churn_axes(ax, summary: dict[str, Any], event: str, bins: list[Bin]) -> None:
    xs = range(len(bins))
    ax.axhline(0, color="black", linestyle="--", linewidth=1.2, label="lower bound: fewest moves to a balanced group")
    for index, entry in enumerate(summary["strategies"]):
        low, median, high = _quartiles(entry, event, bins)
        if all(math.isnan(m) for m in median):
            continue
        color, marker = f"C{index % 10}", MARKERS[index % len(MARKERS)]
        ax.fill_between(xs, low, high, color=color, alpha=0.18, linewidth=0)
        # a strategy of the user's: dashed, hollow markers, so that a reference it matches still shows
        style = {} if entry["spec"] in ports() else {"linestyle": "--", "markerfacecolor": "white"}
        ax.plot(xs, median, marker=marker, markersize=5, linewidth=2, color=color, label=label(entry), **style)
    ax.set_title(EVENT_TITLES.get(event, event))
    ticks = [f"{span(b)}\n{n}" for b, n in zip(bins, _counts(summary, event, bins))]
    ax.set_xticks(xs, ticks, fontsize=7)
    ax.set_xlabel("consumers before the event\n(n: scenarios in the bin)")
    ax.grid(alpha=0.3)


def churn_figure(summary: dict[str, Any]):
    """Queues moved beyond the lower bound, as a share of the queues, against group size: a panel
    per event, per strategy the median line and the interquartile band over the bin's scenarios."""
    Figure = figure_class()
    from matplotlib.ticker import PercentFormatter

    events, bins = _events(summary), _size_bins(summary)
    if not bins:
        fig = Figure(figsize=(5, 3), layout="constrained")
        fig.subplots().text(0.5, 0.5, "no churn data", ha="center", va="center")
        return fig
    fig = Figure(figsize=(max(6.0, PANEL_WIDTH * len(events) + 0.6), 4.8), layout="constrained")
    axes = fig.subplots(1, len(events), sharey=True, squeeze=False)[0]
    for ax, event in zip(axes, events):
        _churn_axes(ax, summary, event, bins)
    axes[0].set_ylabel("queues moved beyond the lower bound\n(% of all queues)")
    axes[0].yaxis.set_major_formatter(PercentFormatter(xmax=1))
    fig.suptitle("Queues moved beyond the lower bound, by group size\nline: median; band: 25th to 75th percentile")
    handles: dict[str, Any] = {}
    for ax in axes:
        for handle, text in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(text, handle)
    _legend_below(fig, handles)
    return fig


def _legend_below(fig, handles: dict[str, Any]) -> None:
    """The legend under the panels, in the most columns (up to ``LEGEND_COLUMNS``, rows balanced)
    that fit the figure's width."""
    for columns in range(min(LEGEND_COLUMNS, len(handles)), 0, -1):
        ncol = math.ceil(len(handles) / math.ceil(len(handles) / columns))
        legend = fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncol=ncol)
        if columns == 1 or legend.get_window_extent().width <= fig.bbox.width:
            return
        legend.remove()


# --------------------------------------------------------------- imbalance heat map


def _bins(summary: dict[str, Any], key: str) -> list[Bin]:
    return _axis(summary, "imbalance_grid", f"{key}_bin", key)


def _grid(entry: dict[str, Any], xbins: list[Bin], ybins: list[Bin]):
    """The strategy's mean imbalance and scenario count, each a consumers × queues array (mean
    NaN where it has none)."""
    import numpy

    means = numpy.full((len(ybins), len(xbins)), numpy.nan)
    counts = numpy.zeros((len(ybins), len(xbins)), dtype=int)
    for row in entry["imbalance_grid"]:
        y, x = ybins.index(tuple(row["consumers_bin"])), xbins.index(tuple(row["queues_bin"]))
        counts[y, x] = row["scenarios"]
        if row["imbalance_mean"] is not None:
            means[y, x] = row["imbalance_mean"]
    return means, counts


def _annotate(ax, image, means, counts) -> None:
    """Writes on each cell its mean and ``n=`` its scenarios, dark on bright cells and light on dark ones."""
    for y, row in enumerate(means):
        for x, value in enumerate(row):
            if math.isnan(value):
                ax.text(x, y, f"n={counts[y][x]}", ha="center", va="center", fontsize=6, color="#555555")
            else:
                color = "black" if image.norm(value) > 0.6 else "white"
                ax.text(x, y, f"{value:.1f}\nn={counts[y][x]}", ha="center", va="center", fontsize=6, color=color)


def _heatmap_axes(ax, entry: dict[str, Any], bins: tuple[list[Bin], list[Bin]], **style):
    """One strategy's heat map, with bin labels and every cell's value and n; returns the image
    for the colour bar."""
    xbins, ybins = bins
    means, counts = _grid(entry, xbins, ybins)
    image = ax.imshow(means, origin="lower", aspect="auto", **style)
    _annotate(ax, image, means, counts)
    ax.set_title(label(entry), fontsize=10)
    ax.set_xticks(range(len(xbins)), [span(b) for b in xbins], rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(ybins)), [span(b) for b in ybins], fontsize=8)
    ax.set_xlabel("queues")
    ax.set_ylabel("consumers")
    return image


def imbalance_figure(summary: dict[str, Any]):
    """A heat map per strategy of mean imbalance over queue-count × consumer-count bins, on one
    colour-blind-safe scale whose bar says which end is best; each cell shows its n."""
    Figure = figure_class()
    from matplotlib import colormaps
    from matplotlib.colors import SymLogNorm

    strategies, bins = summary["strategies"], (_bins(summary, "queues"), _bins(summary, "consumers"))
    if not (strategies and all(bins)):
        fig = Figure(figsize=(5, 3), layout="constrained")
        fig.subplots().text(0.5, 0.5, "no imbalance data", ha="center", va="center")
        return fig
    means = [r["imbalance_mean"] for e in strategies for r in e["imbalance_grid"] if r["imbalance_mean"] is not None]
    top = max(means, default=0) or 1
    ncols = min(3, len(strategies))
    nrows = math.ceil(len(strategies) / ncols)
    fig = Figure(figsize=(4.6 * ncols + 1.2, 4.2 * nrows + 0.6), layout="constrained")
    axes = list(fig.subplots(nrows, ncols, squeeze=False).flat)
    cmap = colormaps[COLORMAP].with_extremes(bad="#e8e8e8")
    norm = SymLogNorm(linthresh=1, linscale=1, vmin=0, vmax=top, base=10)  # 0, 1, 2 and 100 all told apart
    for ax, entry in zip(axes, strategies):
        image = _heatmap_axes(ax, entry, bins, cmap=cmap, norm=norm)
    for ax in axes[len(strategies) :]:
        ax.set_axis_off()
    ticks = [tick for tick in COLOUR_TICKS if tick <= top]
    fig.colorbar(image, ax=axes[: len(strategies)], label=IMBALANCE_LABEL, aspect=40, ticks=ticks, format="{x:g}")
    fig.suptitle("Mean imbalance after the event, by queues and consumers\nin each cell: the mean and n, its scenarios")
    return fig


# ------------------------------------------------------------------- cost by size


def cost_figure(summary: dict[str, Any]):
    """Seconds per scenario (median, log scale) against queues × consumers (log scale), a line
    per strategy: how the cost of a scenario grows, before a large run is launched."""
    Figure = figure_class()
    from matplotlib.ticker import LogLocator, NullFormatter, NullLocator, StrMethodFormatter

    rows = summary.get("cost", {}).get("by_size", [])
    if not rows:
        fig = Figure(figsize=(5, 3), layout="constrained")
        fig.subplots().text(0.5, 0.5, "no cost data", ha="center", va="center")
        return fig
    fig = Figure(figsize=(7.2, 4.8), layout="constrained")
    ax = fig.subplots()
    for index, entry in enumerate(summary["strategies"]):
        mine = sorted((r for r in rows if r["spec"] == entry["spec"]), key=lambda r: r["size_bin"])
        if not mine:
            continue
        xs = [math.sqrt(r["size_bin"][0] * r["size_bin"][1]) for r in mine]  # the bin's middle, on the log axis
        style = {} if entry["spec"] in ports() else {"linestyle": "--", "markerfacecolor": "white"}
        ax.plot(xs, [r["seconds_p50"] * 1000 for r in mine], marker=MARKERS[index % len(MARKERS)], markersize=5,
                linewidth=2, color=f"C{index % 10}", label=label(entry), **style)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    counts: dict[int, int] = {}
    for r in rows:  # a bin's n: the most scenarios a strategy answered in it
        counts[r["size_bin"][0]] = max(counts.get(r["size_bin"][0], 0), r["scenarios"])
    ax.set_xticks([math.sqrt(low * (2 * low - 1)) for low in sorted(counts)],
                  [f"$2^{{{low.bit_length() - 1}}}$\nn={counts[low]}" for low in sorted(counts)], fontsize=7)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("queues × consumers of the scenario's group, from 2^k to 2^(k+1) − 1\n(n: scenarios in the bin)")
    ax.set_ylabel("milliseconds per scenario, median\n(its calls and checks)")
    ax.grid(alpha=0.3, which="both")
    scenarios = sum(r["scenarios"] for r in rows)
    fig.suptitle(f"Cost of a scenario by group size ({scenarios} scenario evaluations)\nlower is cheaper; on this run's machine")
    handles = dict(zip(*reversed(ax.get_legend_handles_labels())))
    _legend_below(fig, handles)
    return fig


# ------------------------------------------------------------------------ drawing


def draw(summary: dict[str, Any]) -> dict[str, bytes]:
    """The plots as PNG bytes, by file name. Raises :class:`ImportError` (naming the ``sweep``
    extra) when matplotlib is missing."""
    return {
        CHURN_PLOT: png_bytes(churn_figure(summary)),
        IMBALANCE_PLOT: png_bytes(imbalance_figure(summary)),
        COST_PLOT: png_bytes(cost_figure(summary)),
    }
