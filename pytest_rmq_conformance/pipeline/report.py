"""The sweep report: ``summary.json`` as Markdown and a self-contained HTML page, with two plots.

:func:`render_markdown` and :func:`render_html` are pure and render the same content;
:func:`write_report` also draws the plots (needs matplotlib, the ``sweep`` extra) and writes
every file atomically.
"""

from __future__ import annotations

import html
import io
import math
import os
import re
import secrets
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Sequence, Tuple, Union

__all__ = ["write_report", "render_markdown", "render_html", "CHURN_PLOT", "IMBALANCE_PLOT"]

CHURN_PLOT = "churn_by_group_size.png"
IMBALANCE_PLOT = "imbalance_heatmap.png"
EXAMPLES_SHOWN = 3
MISSING = "–"
LEGEND_COLUMNS = 5  # at most, in the churn plot's legend
ANNOTATE_LIMIT = 12  # bins per heat-map axis up to which each cell shows its value
STRATEGY_HEADERS = (
    "Strategy", "Scenarios", "Failing", "Calls", "Churn mean", "Churn p50", "Churn p99", "Churn max",
    "Lower bound mean", "Excess mean", "Imbalance mean", "Imbalance max",
)  # fmt: skip
_MD_SPECIAL = "\\`*|<"
_INSTALL_HINT = "the sweep report's plots need matplotlib: pip install 'pytest-rmq-conformance[sweep]'"


class Heading(NamedTuple):
    level: int
    text: str


class Para(NamedTuple):
    text: str


class Table(NamedTuple):
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]
    align: str  # one letter a column: "l" or "r"


class Code(NamedTuple):
    summary: str
    text: str


class Image(NamedTuple):
    alt: str
    src: str


Block = Union[Heading, Para, Table, Code, Image]


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


def _mean(value: Any) -> str:
    """A mean: always 2 decimals, even when it came out whole."""
    return MISSING if value is None else f"{float(value):.2f}"


def _range(pair: Sequence[int]) -> str:
    low, high = pair
    return _fmt(low) if low == high else f"{_fmt(low)}–{_fmt(high)}"


def _label(entry: Dict[str, Any]) -> str:
    """A strategy's name, with its spec when that says something else."""
    name, spec = entry.get("name") or entry["spec"], entry["spec"]
    return name if name == spec else f"{name} ({spec})"


def _space_blocks(summary: Dict[str, Any]) -> List[Block]:
    space = summary["space"]
    rows = [
        ("Queues", _range(space["queues"])),
        ("Consumers", _range(space["consumers"])),
        ("Events", ", ".join(space["events"])),
        ("Seed", _fmt(space["seed"])),
        ("Scenarios", _fmt(space["scenarios"])),
        ("Varied layouts", _fmt(space["layouts"])),
        ("Reference release", _fmt(summary["reference_version"])),
        ("Master", f"{summary['master']} ({_fmt(summary['partitions'])} partitions)"),
        ("Elapsed", f"{_fmt(summary['elapsed_seconds'])} s"),
    ]
    return [Heading(2, "Scenario space"), Table(("Setting", "Value"), rows, "ll")]


def _example_blocks(summary: Dict[str, Any]) -> List[Block]:
    if not summary["examples"]:
        return []
    blocks: List[Block] = [
        Heading(2, "Headline comparison"),
        Para(
            "Moved: queues whose holder changed. Lower bound: the fewest moves that reach a balanced "
            "assignment. Own: the queues the leaving client held (for a join, what the new one gets)."
        ),
    ]
    headers = ("Strategy", "Moved", "Lower bound", "Own", "Violations")
    for example in summary["examples"]:
        rows = [
            (_label(r), _fmt(r["moved"]), _fmt(r["lower_bound"]), _fmt(r["own"]), ", ".join(r["violations"]) or "none")
            for r in example["rows"]
        ]
        blocks += [Heading(3, example["title"]), Table(headers, rows, "lrrrl")]
    return blocks


def _strategy_row(entry: Dict[str, Any]) -> Tuple[str, ...]:
    churn, imbalance = entry["churn"], entry["imbalance"]
    return (
        _label(entry),
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


def _strategy_blocks(summary: Dict[str, Any]) -> List[Block]:
    rows = [_strategy_row(entry) for entry in summary["strategies"]]
    return [
        Heading(2, "Strategies"),
        Para(
            "Churn: queues moved by the event. Excess: churn above the lower bound. "
            "Imbalance: largest minus smallest share after the event."
        ),
        Table(STRATEGY_HEADERS, rows, "l" + "r" * (len(STRATEGY_HEADERS) - 1)),
    ]


def _kind_blocks(kind: Dict[str, Any]) -> List[Block]:
    blocks: List[Block] = [Heading(4, f"{kind['kind']} ({_fmt(kind['count'])})")]
    for example in kind["examples"][:EXAMPLES_SHOWN]:
        blocks.append(Para(f"Scenario {_fmt(example['scenario'])}: {example['detail']}"))
        if example["group"]:
            blocks.append(Code("group JSON", example["group"]))
    return blocks


def _violation_blocks(summary: Dict[str, Any]) -> List[Block]:
    blocks: List[Block] = [Heading(2, "Violations")]
    failing = [entry for entry in summary["strategies"] if entry["violations"]]
    if not failing:
        return blocks + [Para("No strategy broke an invariant it claims.")]
    for entry in failing:
        blocks.append(Heading(3, _label(entry)))
        for kind in entry["violations"]:
            blocks += _kind_blocks(kind)
    return blocks


def _blocks(summary: Dict[str, Any]) -> List[Block]:
    """The report's content, for either renderer."""
    intro = [
        Heading(1, "Allocation strategy sweep"),
        Para(f"{summary['tool']}: {len(summary['strategies'])} strategies on the scenarios below."),
    ]
    plots = [
        Heading(2, "Plots"),
        Image("Mean queues moved against the number of consumers, by event", CHURN_PLOT),
        Image("Mean imbalance by queue count and consumer count, by strategy", IMBALANCE_PLOT),
    ]
    return (
        intro
        + _space_blocks(summary)
        + _example_blocks(summary)
        + _strategy_blocks(summary)
        + _violation_blocks(summary)
        + plots
    )


# ---------------------------------------------------------------- Markdown


def _md_text(text: str) -> str:
    """One line of Markdown text: specials backslash-escaped (so no raw HTML gets through)."""
    text = " ".join(str(text).split())
    return "".join("\\" + c if c in _MD_SPECIAL else c for c in text)


def _md_table(table: Table) -> str:
    rule = ["---:" if a == "r" else ":---" for a in table.align]
    lines = [table.headers, rule, *table.rows]
    return "\n".join("| " + " | ".join(map(_md_text, cells)) + " |" for cells in lines)


def _md_code(code: Code) -> str:
    longest = max(map(len, re.findall("`+", code.text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"<details><summary>{html.escape(code.summary)}</summary>\n\n{fence}json\n{code.text}\n{fence}\n\n</details>"


def _md_block(block: Block) -> str:
    if isinstance(block, Heading):
        return "#" * block.level + " " + _md_text(block.text)
    if isinstance(block, Para):
        return _md_text(block.text)
    if isinstance(block, Table):
        return _md_table(block)
    if isinstance(block, Code):
        return _md_code(block)
    return f"![{_md_text(block.alt)}]({block.src})"


def render_markdown(summary: Dict[str, Any]) -> str:
    """The report as Markdown."""
    return "\n\n".join(_md_block(block) for block in _blocks(summary)) + "\n"


# -------------------------------------------------------------------- HTML

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #222; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; }
th { background: #f0f0f0; }
td.r, th.r { text-align: right; font-variant-numeric: tabular-nums; }
td.l, th.l { text-align: left; }
details { margin: 0 0 1rem 1rem; }
pre { background: #f6f6f6; padding: 0.5rem; white-space: pre-wrap; word-break: break-all; }
img { max-width: 100%; display: block; margin: 1rem 0; }
"""


def _html_row(cells: Sequence[str], align: str, tag: str) -> str:
    return "<tr>" + "".join(f'<{tag} class="{a}">{html.escape(c)}</{tag}>' for c, a in zip(cells, align)) + "</tr>"


def _html_table(table: Table) -> str:
    head = _html_row(table.headers, table.align, "th")
    body = "\n".join(_html_row(row, table.align, "td") for row in table.rows)
    return f'<div class="scroll"><table>\n<thead>{head}</thead>\n<tbody>\n{body}\n</tbody>\n</table></div>'


def _html_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"<h{block.level}>{html.escape(block.text)}</h{block.level}>"
    if isinstance(block, Para):
        return f"<p>{html.escape(block.text)}</p>"
    if isinstance(block, Table):
        return _html_table(block)
    if isinstance(block, Code):
        return f"<details><summary>{html.escape(block.summary)}</summary><pre>{html.escape(block.text)}</pre></details>"
    return f'<img src="{html.escape(block.src)}" alt="{html.escape(block.alt)}">'


def render_html(summary: Dict[str, Any]) -> str:
    """The report as one self-contained HTML page (the plots are relative links)."""
    body = "\n".join(_html_block(block) for block in _blocks(summary))
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>Allocation strategy sweep</title>\n<style>{_CSS}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )


# ------------------------------------------------------------------- plots


def _figure_class():
    """matplotlib's ``Figure``, on the non-interactive Agg backend."""
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure


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
            ax.plot(xs, ys, marker="o", markersize=3, color=f"C{index % 10}", label=_label(entry))
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
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    if handles:
        rows = math.ceil(len(handles) / LEGEND_COLUMNS)
        fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncol=math.ceil(len(handles) / rows))
    return fig


def _bins(summary: Dict[str, Any], key: str) -> List[Tuple[int, int]]:
    return sorted({tuple(row[key]) for entry in summary["strategies"] for row in entry["imbalance_grid"]})


def _grid(entry: Dict[str, Any], xbins: List[Tuple[int, int]], ybins: List[Tuple[int, int]]):
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


def _heatmap_axes(ax, entry: Dict[str, Any], grid, bins: Tuple[List[Tuple[int, int]], ...], **style):
    """One strategy's heat map, with bin labels; returns the image for the colorbar."""
    xbins, ybins = bins
    image = ax.imshow(grid, origin="lower", aspect="auto", **style)
    if max(len(xbins), len(ybins)) <= ANNOTATE_LIMIT:
        _annotate(ax, image, grid)
    ax.set_title(_label(entry), fontsize=10)
    ax.set_xticks(range(len(xbins)), [_range(b) for b in xbins], rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(ybins)), [_range(b) for b in ybins], fontsize=8)
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


# ------------------------------------------------------------------ writing


def _png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def _write_atomic(path: Path, data: bytes) -> Path:
    """Writes ``path`` through a temporary file beside it, so it is never left half written."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        with open(temporary, "xb") as stream:  # the umask's permissions, unlike mkstemp's 0600
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def write_report(summary: Dict[str, Any], out_dir: Path) -> List[Path]:
    """Writes ``report.md``, ``report.html`` and the two plots into ``out_dir``; returns their paths.

    Everything is rendered before anything is written. Raises :class:`ImportError` (naming the
    ``sweep`` extra) when matplotlib is missing."""
    files = {
        CHURN_PLOT: _png(_churn_figure(summary)),
        IMBALANCE_PLOT: _png(_imbalance_figure(summary)),
        "report.md": render_markdown(summary).encode("utf-8"),
        "report.html": render_html(summary).encode("utf-8"),
    }
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return [_write_atomic(out_dir / name, data) for name, data in files.items()]
