"""The sweep report's plots, drawn from ``summary.json`` data (never from the result rows).

:func:`draw` renders both as PNG bytes. It needs matplotlib (the ``sweep`` extra), imported only
there and on the non-interactive Agg backend.
"""

from __future__ import annotations

import io
import math
from typing import Any, Dict, List, Sequence, Tuple

__all__ = ["draw", "label", "span", "CHURN_PLOT", "IMBALANCE_PLOT"]

CHURN_PLOT = "churn_by_group_size.png"
IMBALANCE_PLOT = "imbalance_heatmap.png"
DPI = 110
LEGEND_COLUMNS = 5  # at most, in the churn plot's legend
ANNOTATE_LIMIT = 12  # bins per heat-map axis up to which each cell shows its value
_INSTALL_HINT = "the sweep report's plots need matplotlib: pip install 'pytest-rmq-conformance[sweep]'"

Bin = Tuple[int, int]


def label(entry: Dict[str, Any]) -> str:
    """A strategy's name, with its spec when that says something else."""
    name, spec = entry.get("name") or entry["spec"], entry["spec"]
    return name if name == spec else f"{name} ({spec})"


def span(pair: Sequence[int]) -> str:
    """An inclusive range as text: ``"3"`` or ``"1–13"``."""
    low, high = pair
    return str(low) if low == high else f"{low}–{high}"


def _figure_class():
    """matplotlib's ``Figure``, on the non-interactive Agg backend."""
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure


# ---------------------------------------------------------------- churn by consumers


def _events(summary: Dict[str, Any]) -> List[str]:
    """The space's events, then any others the strategies report, in order."""
    seen = [row["event"] for entry in summary["strategies"] for row in entry["churn_by_consumers"]]
    return list(dict.fromkeys([*summary["space"]["events"], *seen]))


def _pooled_lower_bound(summary: Dict[str, Any], event: str) -> Tuple[List[int], List[float]]:
    """The mean lower bound per group size for ``event``, weighted by scenarios over all strategies
    (their bounds differ where their starting shares do)."""
    totals: Dict[int, List[float]] = {}
    for entry in summary["strategies"]:
        for row in entry["churn_by_consumers"]:
            if row["event"] == event and row["lower_bound_mean"] is not None:
                total = totals.setdefault(row["consumers"], [0.0, 0])
                total[0] += row["lower_bound_mean"] * row["scenarios"]
                total[1] += row["scenarios"]
    xs = sorted(c for c, (_, n) in totals.items() if n)
    return xs, [totals[c][0] / totals[c][1] for c in xs]


def _churn_axes(ax, summary: Dict[str, Any], event: str) -> None:
    for index, entry in enumerate(summary["strategies"]):
        points = sorted(
            (r["consumers"], r["moved_mean"])
            for r in entry["churn_by_consumers"]
            if r["event"] == event and r["moved_mean"] is not None
        )
        if points:
            xs, ys = zip(*points)
            ax.plot(xs, ys, marker="o", markersize=3, color=f"C{index % 10}", label=label(entry))
    xs, ys = _pooled_lower_bound(summary, event)
    if xs:
        ax.plot(xs, ys, linestyle="--", color="black", linewidth=1.2, label="lower bound (mean over strategies)")
    else:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    ax.set_title(f"event: {event}")
    ax.set_xlabel("consumers")
    ax.set_ylabel("mean queues moved")
    ax.grid(alpha=0.3)


def _churn_figure(summary: Dict[str, Any]):
    """Mean queues moved against the number of consumers: a subplot per event, a line per strategy."""
    events = _events(summary) or ["(none)"]
    fig = _figure_class()(figsize=(4.8 * len(events), 4.4), layout="constrained")
    for ax, event in zip(fig.subplots(1, len(events), squeeze=False)[0], events):
        _churn_axes(ax, summary, event)
    handles: Dict[str, Any] = {}
    for ax in fig.axes:
        for handle, text in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(text, handle)
    if handles:
        rows = math.ceil(len(handles) / LEGEND_COLUMNS)
        fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncol=math.ceil(len(handles) / rows))
    return fig


# --------------------------------------------------------------- imbalance heat map


def _bins(summary: Dict[str, Any], key: str) -> List[Bin]:
    return sorted({tuple(row[key]) for entry in summary["strategies"] for row in entry["imbalance_grid"]})


def _grid(entry: Dict[str, Any], xbins: List[Bin], ybins: List[Bin]):
    """The strategy's mean imbalance as a consumers × queues array (NaN where it has none)."""
    import numpy

    grid = numpy.full((len(ybins), len(xbins)), numpy.nan)
    for row in entry["imbalance_grid"]:
        if row["imbalance_mean"] is not None:
            y, x = ybins.index(tuple(row["consumers_bin"])), xbins.index(tuple(row["queues_bin"]))
            grid[y, x] = row["imbalance_mean"]
    return grid


def _annotate(ax, image, grid) -> None:
    """Writes each cell's value on it, dark on bright cells and light on dark ones."""
    for y, row in enumerate(grid):
        for x, value in enumerate(row):
            if not math.isnan(value):
                color = "black" if image.norm(value) > 0.6 else "white"
                ax.text(x, y, f"{value:.1f}", ha="center", va="center", fontsize=7, color=color)


def _heatmap_axes(ax, entry: Dict[str, Any], grid, bins: Tuple[List[Bin], ...], **style):
    """One strategy's heat map, with bin labels; returns the image for the colorbar."""
    xbins, ybins = bins
    image = ax.imshow(grid, origin="lower", aspect="auto", **style)
    if max(len(xbins), len(ybins)) <= ANNOTATE_LIMIT:
        _annotate(ax, image, grid)
    ax.set_title(label(entry), fontsize=10)
    ax.set_xticks(range(len(xbins)), [span(b) for b in xbins], rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(ybins)), [span(b) for b in ybins], fontsize=8)
    ax.set_xlabel("queues")
    ax.set_ylabel("consumers")
    return image


def _imbalance_figure(summary: Dict[str, Any]):
    """A heat map per strategy of mean imbalance over queue-count × consumer-count bins, on one scale."""
    Figure = _figure_class()
    from matplotlib import colormaps

    strategies, bins = summary["strategies"], (_bins(summary, "queues_bin"), _bins(summary, "consumers_bin"))
    if not (strategies and all(bins)):
        fig = Figure(figsize=(5, 3), layout="constrained")
        fig.subplots().text(0.5, 0.5, "no imbalance data", ha="center", va="center")
        return fig
    means = [r["imbalance_mean"] for e in strategies for r in e["imbalance_grid"] if r["imbalance_mean"] is not None]
    top = max(means, default=0) or 1
    ncols = min(3, len(strategies))
    nrows = math.ceil(len(strategies) / ncols)
    fig = Figure(figsize=(4.6 * ncols + 1.2, 4.2 * nrows), layout="constrained")
    axes = list(fig.subplots(nrows, ncols, squeeze=False).flat)
    cmap = colormaps["viridis"].with_extremes(bad="#e8e8e8")
    for ax, entry in zip(axes, strategies):
        image = _heatmap_axes(ax, entry, _grid(entry, *bins), bins, cmap=cmap, vmin=0, vmax=top)
    for ax in axes[len(strategies) :]:
        ax.set_axis_off()
    fig.colorbar(image, ax=axes[: len(strategies)], label="mean imbalance (largest − smallest share)")
    return fig


# ------------------------------------------------------------------------ drawing


def _png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


def draw(summary: Dict[str, Any]) -> Dict[str, bytes]:
    """Both plots as PNG bytes, by file name. Raises :class:`ImportError` (naming the ``sweep``
    extra) when matplotlib is missing."""
    return {CHURN_PLOT: _png(_churn_figure(summary)), IMBALANCE_PLOT: _png(_imbalance_figure(summary))}
