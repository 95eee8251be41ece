"""Internal: the message-group sweep report's plots.

The message-group sweep report's plots, drawn from ``summary.json`` data (never from result rows).

:func:`draw` renders two PNGs: the skew (fullest queue over the mean) against the queue count,
beside what a uniform random spread of as many groups gives; and the share of groups that change
queue when the topic grows or shrinks by one queue, beside what a mapping that keeps every queue's share equal would move
(1/(K+1) of the groups to a new queue; a hash moves about that much only on average).
Every title says how many groups (n) stand behind each point. matplotlib (the ``sweep`` extra)
is imported only here, on Agg.
"""

from __future__ import annotations

from typing import Any

from pytest_rmq_conformance.pipeline.figures import MARKERS, figure_class, png_bytes

__all__ = ["draw", "skew_figure", "moved_figure", "random_skew", "SKEW_PLOT", "MOVED_PLOT"]

SKEW_PLOT = "groups_skew.png"
MOVED_PLOT = "groups_moved.png"
#: draws of a uniform random spread per queue count, for the skew's yardstick
RANDOM_DRAWS = 21
#: past this many queue slots in all, the yardstick is left out (its draws would take long)
RANDOM_BUDGET = 5_000_000


def random_skew(groups: int, counts: list[int], seed: int = 0) -> list[float] | None:
    """Per queue count, the median skew of :data:`RANDOM_DRAWS` uniform random spreads of
    ``groups`` groups (numpy's multinomial, seeded): what a perfect hash gives. ``None`` when
    the queue counts are too many to draw in a moment."""
    import numpy as np

    if sum(counts) * RANDOM_DRAWS > RANDOM_BUDGET:
        return None
    generator = np.random.default_rng(seed)
    medians = []
    for k in counts:
        draws = generator.multinomial(groups, np.full(k, 1 / k), size=RANDOM_DRAWS)
        medians.append(float(np.median(draws.max(axis=1))) / (groups / k))
    return medians


def _series(summary: dict[str, Any], key: str) -> list[tuple[int, str, list[int], list[float | None]]]:
    """Per mapping: its position, label, the queue counts and its ``key`` at each."""
    found = []
    for index, strategy in enumerate(summary["strategies"]):
        rows = [r for r in summary["rows"] if r["strategy"] == strategy["label"]]
        found.append((index, strategy["label"], [r["queues"] for r in rows], [r[key] for r in rows]))
    return found


def line_style(index: int) -> dict[str, Any]:
    """Java's mapping solid; a user's dashed with hollow markers, so a mapping equal to Java's still shows."""
    style: dict[str, Any] = {"color": f"C{index % 10}", "marker": MARKERS[index % len(MARKERS)], "markersize": 4,
                             "linewidth": 1.8}
    if index:
        style.update(linestyle="--", markerfacecolor="white")
    return style


def _n(summary: dict[str, Any]) -> str:
    return f"n = {summary['space']['groups']:,} groups at every queue count"


def skew_figure(summary: dict[str, Any]):
    """Skew against the queue count, per mapping, and a uniform random spread's median."""
    Figure = figure_class()
    fig = Figure(figsize=(8.5, 4.6), layout="constrained")
    ax = fig.subplots()
    counts = [r["queues"] for r in summary["rows"] if r["strategy"] == summary["strategies"][0]["label"]]
    yardstick = random_skew(summary["space"]["groups"], counts)
    if yardstick is not None:
        ax.plot(counts, yardstick, color="grey", linewidth=4, alpha=0.45, label="uniform random spread (median of 21 draws)")
    for index, label, ks, values in _series(summary, "skew"):
        ax.plot(ks, [float("nan") if v is None else v for v in values], label=label, **line_style(index))
    ax.axhline(1, color="black", linewidth=0.8)
    ax.set_xlabel("queues in the topic (K)")
    ax.set_ylabel("skew: groups on the fullest queue / mean\n(1 = perfectly even)")
    ax.set_title(f"How evenly message groups spread over the queues\n{_n(summary)}", fontsize=11)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def moved_figure(summary: dict[str, Any]):
    """Two panels, the topic growing to ``K + 1`` and shrinking to ``K - 1`` queues: per mapping,
    the share of groups that change queue, and what equal shares would move."""
    Figure = figure_class()
    fig = Figure(figsize=(11, 4.6), layout="constrained")
    panels = fig.subplots(1, 2, sharey=True)
    first = summary["strategies"][0]["label"]
    for ax, (direction, title) in zip(panels, (("up", "the topic grows from K to K + 1 queues"),
                                               ("down", "the topic shrinks from K to K - 1 queues"))):
        rows = [r for r in summary["rows"] if r["strategy"] == first and r[f"fewest_{direction}_share"] is not None]
        ax.plot([r["queues"] for r in rows], [100 * r[f"fewest_{direction}_share"] for r in rows], color="black",
                linestyle=":", linewidth=1.6, label="what equal shares would move")
        for index, label, ks, values in _series(summary, f"moved_{direction}_share"):
            points = [(k, 100 * v) for k, v in zip(ks, values) if v is not None]
            ax.plot([k for k, _ in points], [v for _, v in points], label=label, **line_style(index))
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("queues before the change (K)")
        ax.set_ylim(0, 102)
        ax.grid(alpha=0.3)
    panels[0].set_ylabel("groups that change queue, %\n(each loses its order across the change)")
    panels[0].legend(fontsize=8, loc="center right")
    fig.suptitle(f"Message groups that move when the queue count changes\n{_n(summary)}", fontsize=11)
    return fig


def draw(summary: dict[str, Any]) -> dict[str, bytes]:
    """Both plots as PNG bytes, by file name."""
    return {SKEW_PLOT: png_bytes(skew_figure(summary)), MOVED_PLOT: png_bytes(moved_figure(summary))}
