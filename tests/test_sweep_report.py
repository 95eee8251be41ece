"""The sweep report: Markdown and HTML from a summary, the plots, atomic writes, the missing-extra error;
and the binned churn the plot reads, computed on local Spark from rows checked by hand."""

import json
import os
import re
import sys

import pytest

from pytest_rmq_conformance.pipeline.allocation.report import (
    CHURN_PLOT,
    COST_PLOT,
    IMBALANCE_PLOT,
    render_html,
    render_markdown,
    write_report,
)
from pytest_rmq_conformance.pipeline.allocation.space import SweepSpace

pytestmark = pytest.mark.once

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
GROUP = json.dumps({"strategy": None, "mq_all": ["TopicTest@broker-a:0"], "event": ["leave", "10.0.0.2@1"]})


def _strategy(spec, moved_mean, violations=()):
    return {
        "spec": spec,
        "name": spec,
        "scenarios": 40,
        "calls": 1234,
        "failing_scenarios": sum(v["scenarios"] for v in violations),
        "violations": list(violations),
        "churn": {"mean": moved_mean, "p50": 8.0, "p99": 31.5, "max": 40, "lower_bound_mean": 6.25, "excess_mean": 4.5},
        "imbalance": {"mean": 0.375, "max": 1},
        "by_event": [{"event": "leave", "scenarios": 20, "moved_mean": moved_mean, "lower_bound_mean": 6.25}],
        "churn_by_consumers": [
            {"consumers": c, "event": e, "scenarios": 5, "moved_mean": moved_mean + c, "lower_bound_mean": c / 2}
            for c in (2, 4, 8, 16)
            for e in ("leave", "join")
        ],
        "churn_by_group_size": [
            {
                "event": e,
                "consumers_bin": c,
                "scenarios": 5,
                "excess_share": {"p25": moved_mean / 200, "p50": moved_mean / 100, "p75": moved_mean / 50},
            }
            for c in ([1, 3], [4, 6])
            for e in ("leave", "join")
        ],
        "imbalance_grid": [
            {"queues_bin": q, "consumers_bin": c, "scenarios": 3, "imbalance_mean": (q[0] + c[0]) / 100}
            for q in ([1, 32], [33, 64])
            for c in ([1, 3], [4, 6])
        ],
    }


@pytest.fixture
def summary():
    gap = {
        "kind": "gap",
        "scenarios": 2,
        "occurrences": 3,
        "examples": [
            {"scenario": 12, "detail": "1 queue(s) held by no client: <script>alert(1)</script>", "group": GROUP},
            {"scenario": 17, "detail": "2 queue(s) held by no client", "group": GROUP},
        ],
    }
    return {
        "tool": "pytest-rmq-conformance 0.1.0",
        "space": {
            "queues": [1, 256],
            "consumers": [1, 24],
            "events": ["leave", "join"],
            "seed": 0,
            "scenarios": 40,
            "layouts": True,
        },
        "reference_version": "5.3.3",
        "master": "local[2]",
        "partitions": 8,
        "elapsed_seconds": 12.345,
        "strategies": [_strategy("AVG", 10.5), _strategy("BROKEN", 3.0, [gap])],
        "cost": {
            "by_size": [
                {"spec": "AVG", "size_bin": [2, 3], "scenarios": 4, "seconds_p50": 0.0004, "seconds_mean": 0.0005},
                {"spec": "AVG", "size_bin": [4096, 8191], "scenarios": 9, "seconds_p50": 0.0125, "seconds_mean": 0.013},
                {"spec": "BROKEN", "size_bin": [4096, 8191], "scenarios": 9, "seconds_p50": 0.0311, "seconds_mean": 0.04},
            ]
        },
        "examples": [
            {
                "title": "24 queues, 4 clients, the second leaves",
                "rows": [
                    {"spec": "AVG", "name": "AVG", "moved": 8, "lower_bound": 6, "own": 6, "violations": []},
                    {"spec": "BROKEN", "name": "BROKEN", "moved": 6, "lower_bound": 6, "own": 6, "violations": ["gap"]},
                ],
            }
        ],
    }


def test_markdown_headline_and_space(summary):
    text = render_markdown(summary)
    assert text.startswith("# ")
    assert "## Scenario space" in text
    assert "| Queues | 1–256 |" in text
    assert "| Elapsed | 12.35 s |" in text
    assert "| Master | local[2] (8 partitions) |" in text
    assert "### 24 queues, 4 clients, the second leaves" in text
    assert "| AVG | 8 | 6 | 6 | none |" in text
    assert "| BROKEN | 6 | 6 | 6 | gap |" in text


def test_markdown_strategy_numbers(summary):
    text = render_markdown(summary)
    assert "| AVG | 40 | 0 | 1234 | 10.50 | 8.00 | 31.50 | 40 | 6.25 | 4.50 | 0.38 | 1 |" in text
    assert "| BROKEN | 40 | 2 | 1234 | 3.00 |" in text
    assert "| Strategy | Scenarios | Failing scenarios | Calls | Queues moved: mean |" in text


def test_markdown_violations_and_plots(summary):
    text = render_markdown(summary)
    assert "#### gap (in 2 scenarios, 3 occurrences)" in text
    assert "Scenario 12: 1 queue(s) held by no client: \\<script>alert(1)\\</script>" in text
    assert "Scenario 17: 2 queue(s) held by no client" in text
    assert "<details><summary>group JSON</summary>" in text
    assert f"```json\n{GROUP}\n```" in text
    assert not re.search(r"(?<!\\)<script", text)  # only backslash-escaped, never raw HTML
    assert f"]({CHURN_PLOT})" in text and f"]({IMBALANCE_PLOT})" in text and f"]({COST_PLOT})" in text
    assert "The largest groups of this run (4096–8191 queues × consumers) took 31.1 ms a scenario with BROKEN" in text


def test_markdown_shows_at_most_three_examples(summary):
    kind = summary["strategies"][1]["violations"][0]
    kind["examples"] = [{"scenario": 100 + i, "detail": "d", "group": GROUP} for i in range(5)]
    text = render_markdown(summary)
    assert "Scenario 102: d" in text
    assert "Scenario 103" not in text


def test_markdown_without_violations_or_examples(summary):
    summary["strategies"] = [_strategy("AVG", 1.0)]
    summary["examples"] = []
    text = render_markdown(summary)
    assert "No strategy broke an invariant it claims." in text
    assert "Headline comparison" not in text


def test_html_is_escaped_and_links_the_plots(summary):
    page = render_html(summary)
    assert page.startswith("<!DOCTYPE html>")
    assert "<style>" in page
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert f'<img src="{CHURN_PLOT}"' in page
    assert f'<img src="{IMBALANCE_PLOT}"' in page
    assert f'<img src="{COST_PLOT}"' in page
    assert '<td class="l">AVG</td><td class="r">8</td><td class="r">6</td><td class="r">6</td>' in page
    assert "<details><summary>group JSON</summary><pre>{&quot;strategy&quot;: null" in page


def test_write_report(summary, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "report"
    written = write_report(summary, out)
    names = {"report.md", "report.html", CHURN_PLOT, IMBALANCE_PLOT, COST_PLOT}
    assert {path.name for path in written} == names
    assert {path.name for path in out.iterdir()} == names  # no temporary file left behind
    for name in (CHURN_PLOT, IMBALANCE_PLOT, COST_PLOT):
        data = (out / name).read_bytes()
        assert data.startswith(PNG_MAGIC)
        assert len(data) > 10_000
    assert (out / "report.md").read_text(encoding="utf-8") == render_markdown(summary)
    assert (out / "report.html").read_text(encoding="utf-8") == render_html(summary)


def test_write_report_with_empty_summary(summary, tmp_path):
    pytest.importorskip("matplotlib")
    summary["strategies"] = []
    summary["examples"] = []
    written = write_report(summary, tmp_path)
    assert all(path.read_bytes() for path in written)


def test_null_means(summary, tmp_path):
    pytest.importorskip("matplotlib")
    entry = summary["strategies"][0]
    entry["churn"]["mean"] = None
    entry["churn_by_consumers"][0].update(moved_mean=None, lower_bound_mean=None)
    entry["imbalance_grid"][0]["imbalance_mean"] = None
    assert "| AVG | 40 | 0 | 1234 | – | 8.00 |" in render_markdown(summary)
    assert len(write_report(summary, tmp_path)) == 5


def test_write_report_without_matplotlib(summary, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"the sweep extra: pip install '\.\[sweep\]' in a clone"):
        write_report(summary, tmp_path / "report")
    assert not (tmp_path / "report").exists()


def test_churn_plot_with_bins_some_strategies_lack(summary, tmp_path):
    pytest.importorskip("matplotlib")
    summary["strategies"][0]["churn_by_group_size"] = summary["strategies"][0]["churn_by_group_size"][:1]
    summary["strategies"][1]["churn_by_group_size"] = []  # e.g. a strategy that failed to load
    write_report(summary, tmp_path)
    assert (tmp_path / CHURN_PLOT).read_bytes().startswith(PNG_MAGIC)


# -- what the tables and plots count --------------------------------------------------------


def test_every_column_says_what_it_counts(summary):
    """Scenarios, failing scenarios, calls and queues, never a bare "Failing" or "Churn"; a kind of
    violation counts the scenarios it was found in apart from its occurrences."""
    text = render_markdown(summary)
    assert (
        "| Strategy | Scenarios | Failing scenarios | Calls | Queues moved: mean | Queues moved: p50 | Queues moved: p99 "
        "| Queues moved: max | Lower bound (queues): mean | Excess (queues): mean | Imbalance (queues): mean "
        "| Imbalance (queues): max |"
    ) in text
    assert "| Strategy | Queues moved | Lower bound (queues) | Own queues | Violations |" in text
    assert "| Violation | Scenarios | Occurrences |\n| :--- | ---: | ---: |\n| gap | 2 | 3 |" in text
    assert "<th class=\"r\">Failing scenarios</th>" in render_html(summary)


def _tick_labels(ax):
    return [tick.get_text() for tick in ax.get_xticklabels()]


def test_the_churn_plot_shows_n_under_every_bin(summary):
    pytest.importorskip("matplotlib")
    from pytest_rmq_conformance.pipeline.allocation.plots import churn_figure

    summary["strategies"][1]["churn_by_group_size"][0]["scenarios"] = 3  # BROKEN answered fewer in one bin
    leave, join = churn_figure(summary).axes[:2]
    # the space's 8 bins of 3 consumers; the data fill two, the others show they are empty
    assert _tick_labels(leave)[:3] == ["1–3\nn=3–5", "4–6\nn=5", "7–9\nn=0"]
    assert _tick_labels(join)[:3] == ["1–3\nn=5", "4–6\nn=5", "7–9\nn=0"]
    assert len(_tick_labels(leave)) == 8 and "n: scenarios in the bin" in leave.get_xlabel()


def test_a_strategy_that_matches_a_reference_still_shows_in_the_churn_plot(summary):
    """The user's strategy is dashed with hollow markers over the references' solid lines."""
    pytest.importorskip("matplotlib")
    from pytest_rmq_conformance.pipeline.allocation.plots import churn_figure

    summary["strategies"][1]["churn_by_group_size"] = summary["strategies"][0]["churn_by_group_size"]
    leave = churn_figure(summary).axes[0]
    styles = {line.get_label(): (line.get_linestyle(), line.get_markerfacecolor()) for line in leave.get_lines()}
    assert styles["AVG"][0] == "-" and styles["BROKEN"] == ("--", "white")


def test_the_heat_map_shows_n_in_every_cell_and_says_which_end_is_best(summary):
    pytest.importorskip("matplotlib")
    from pytest_rmq_conformance.pipeline.allocation.plots import imbalance_figure

    summary["strategies"][0]["imbalance_grid"][0]["scenarios"] = 7
    fig = imbalance_figure(summary)
    avg, broken, colour_bar = fig.axes
    texts = [text.get_text() for text in avg.texts]
    assert texts[:2] == ["0.0\nn=7", "0.3\nn=3"]  # consumers 1–3: queues 1–32 (mean 0.02), 33–64 (0.34)
    assert texts.count("n=0") == 8 * 8 - 4  # the empty cells of the space's 8 x 8 bins say so
    assert colour_bar.get_ylabel().endswith("(0 = perfectly balanced, lower is better)")
    (image,) = avg.images
    assert image.get_cmap().name in {"viridis", "cividis"}
    assert [t.get_text() for t in broken.texts][:2] == ["0.0\nn=3", "0.3\nn=3"]


def test_the_cost_plot_puts_each_bin_at_its_middle_on_log_axes(summary):
    pytest.importorskip("matplotlib")
    from pytest_rmq_conformance.pipeline.allocation.plots import cost_figure

    (ax,) = cost_figure(summary).axes
    avg, broken = ax.get_lines()
    assert list(avg.get_xdata()) == pytest.approx([(2 * 3) ** 0.5, (4096 * 8191) ** 0.5])
    assert list(avg.get_ydata()) == pytest.approx([0.4, 12.5])  # milliseconds
    assert broken.get_label() == "BROKEN" and broken.get_linestyle() == "--"
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert [tick.get_text() for tick in ax.get_xticklabels()] == ["$2^{1}$\nn=4", "$2^{12}$\nn=9"]  # each bin's n
    assert "median" in ax.get_ylabel() and "22 scenario evaluations" in ax.figure.get_suptitle()


# -- churn by group size, aggregated on local Spark ------------------------------------------

ROW_SCHEMA = (
    "scenario long, strategy string, name string, queues int, consumers int, event string, violation_count int, "
    "violation_kinds array<string>, violation_details array<string>, moved int, lower_bound int, own int, "
    "imbalance int, calls int, `group` string, seconds double"
)


def _row(scenario, strategy, queues, consumers, event, moved, lower_bound, calls=8, seconds=0.01):
    return (scenario, strategy, strategy, queues, consumers, event, 0, [], [], moved, lower_bound, 0, 0, calls, "", seconds)


@pytest.fixture(scope="module")
def spark():
    if sys.version_info < (3, 11):
        pytest.skip("the sweep runs on PySpark, which needs Python 3.11+")
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_churn_by_group_size_is_each_bins_quartiles_of_the_excess_share(spark, tmp_path):
    """16 consumers in 8 bins of 2. Excess share = (moved - lower_bound) / queues; the p-th
    percentile of n sorted values sits at rank p * (n - 1), interpolated between neighbours."""
    from pytest_rmq_conformance.pipeline.allocation.summary import summarize
    from pytest_rmq_conformance.pipeline.checks import validate_summary

    rows = [
        # bin 3–4, leave: shares 0.2, 0.0, 0.4, 0.1 -> sorted 0, 0.1, 0.2, 0.4
        _row(0, "AVG", queues=10, consumers=3, event="leave", moved=3, lower_bound=1),
        _row(1, "AVG", queues=10, consumers=4, event="leave", moved=1, lower_bound=1),
        _row(2, "AVG", queues=20, consumers=3, event="leave", moved=10, lower_bound=2),
        _row(3, "AVG", queues=10, consumers=4, event="leave", moved=2, lower_bound=1),
        _row(4, "AVG", queues=10, consumers=4, event="leave", moved=0, lower_bound=0, calls=0),  # hung: not measured
        # bin 9–10, join: shares -0.25, 0.5, 0.0 -> sorted -0.25, 0, 0.5
        _row(5, "AVG", queues=4, consumers=9, event="join", moved=0, lower_bound=1),
        _row(6, "AVG", queues=8, consumers=10, event="join", moved=6, lower_bound=2),
        _row(7, "AVG", queues=5, consumers=10, event="join", moved=2, lower_bound=2),
        # bin 15–16, crash: moved none of the 7 queues a balanced group would move
        _row(8, "CH", queues=7, consumers=16, event="crash", moved=0, lower_bound=7),
    ]
    space = SweepSpace(queues=(1, 40), consumers=(1, 16), count=9)
    summary = summarize(
        spark.createDataFrame(rows, ROW_SCHEMA), specs=["AVG", "CH"], space=space, version="5.3.3",
        master="local[1]", partitions=1, examples=[],
    )  # fmt: skip
    validate_summary(summary)
    avg, ch = summary["strategies"]
    assert avg["churn_by_group_size"] == [
        # ranks 0.5, 1, 1.5 of 3 values: -0.25 + 0.5 * 0.25, 0, 0 + 0.5 * 0.5
        {"event": "join", "consumers_bin": [9, 10], "scenarios": 3, "excess_share": {"p25": -0.125, "p50": 0.0, "p75": 0.25}},
        # ranks 0.75, 1.5, 2.25 of 4 values: 0 + 0.75 * 0.1, 0.1 + 0.5 * 0.1, 0.2 + 0.25 * 0.2
        {"event": "leave", "consumers_bin": [3, 4], "scenarios": 4, "excess_share": {"p25": 0.075, "p50": 0.15, "p75": 0.25}},
    ]
    assert ch["churn_by_group_size"] == [
        {"event": "crash", "consumers_bin": [15, 16], "scenarios": 1, "excess_share": {"p25": -1.0, "p50": -1.0, "p75": -1.0}}
    ]
    assert avg["churn"]["max"] == 10 and avg["scenarios"] == 8  # the other figures still count every row
    pytest.importorskip("matplotlib")
    write_report(summary, tmp_path)
    assert (tmp_path / CHURN_PLOT).read_bytes().startswith(PNG_MAGIC)


def test_cost_is_binned_by_queues_times_consumers_between_powers_of_two(spark):
    from pytest_rmq_conformance.pipeline.allocation.summary import summarize
    from pytest_rmq_conformance.pipeline.checks import validate_summary

    rows = [
        _row(0, "AVG", queues=1, consumers=1, event="join", moved=0, lower_bound=0, seconds=0.5),  # 1: [1, 1]
        _row(1, "AVG", queues=2, consumers=2, event="join", moved=0, lower_bound=0, seconds=1.0),  # 4: [4, 7]
        _row(2, "AVG", queues=7, consumers=1, event="join", moved=0, lower_bound=0, seconds=3.0),  # 7: [4, 7]
        _row(3, "AVG", queues=8, consumers=1, event="join", moved=0, lower_bound=0, seconds=2.0),  # 8: [8, 15]
        _row(4, "AVG", queues=64, consumers=64, event="join", moved=0, lower_bound=0, seconds=4.0, calls=0),  # not measured
    ]
    space = SweepSpace(queues=(1, 64), consumers=(1, 64), count=5)
    summary = summarize(
        spark.createDataFrame(rows, ROW_SCHEMA), specs=["AVG"], space=space, version="5.3.3",
        master="local[1]", partitions=1, examples=[],
    )  # fmt: skip
    validate_summary(summary)
    assert summary["cost"]["by_size"] == [
        {"spec": "AVG", "size_bin": [1, 1], "scenarios": 1, "seconds_p50": 0.5, "seconds_mean": 0.5},
        {"spec": "AVG", "size_bin": [4, 7], "scenarios": 2, "seconds_p50": 2.0, "seconds_mean": 2.0},
        {"spec": "AVG", "size_bin": [8, 15], "scenarios": 1, "seconds_p50": 2.0, "seconds_mean": 2.0},
    ]


def test_a_kind_of_violation_counts_its_scenarios_apart_from_its_occurrences(spark):
    """Scenario 3 has a gap before and after the change: 2 occurrences, 1 scenario; its examples
    are its first scenarios, each once."""
    from pytest_rmq_conformance.pipeline.allocation.summary import summarize
    from pytest_rmq_conformance.pipeline.checks import validate_summary

    def failing(scenario, details):
        row = list(_row(scenario, "GAPS", queues=8, consumers=2, event="leave", moved=4, lower_bound=4))
        row[6:9] = [len(details), ["gap"] * len(details), details]
        return tuple(row)

    rows = [
        failing(3, ["1 queue(s) held by no client (after)", "1 queue(s) held by no client (before)"]),
        _row(4, "GAPS", queues=8, consumers=2, event="leave", moved=4, lower_bound=4),
        failing(7, ["2 queue(s) held by no client"]),
        failing(9, ["1 queue(s) held by no client", "3 queue(s) held by no client"]),
        failing(12, ["1 queue(s) held by no client"]),
    ]
    summary = summarize(
        spark.createDataFrame(rows, ROW_SCHEMA), specs=["GAPS"], space=SweepSpace(queues=(1, 8), consumers=(1, 2)),
        version="5.3.3", master="local[1]", partitions=1, examples=[],
    )  # fmt: skip
    validate_summary(summary)
    (entry,) = summary["strategies"]
    assert entry["failing_scenarios"] == 4
    (gap,) = entry["violations"]
    assert (gap["kind"], gap["scenarios"], gap["occurrences"]) == ("gap", 4, 6)
    assert [(e["scenario"], e["detail"]) for e in gap["examples"]] == [
        (3, "1 queue(s) held by no client (after)"),
        (7, "2 queue(s) held by no client"),
        (9, "1 queue(s) held by no client"),
    ]
    assert "#### gap (in 4 scenarios, 6 occurrences)" in render_markdown(summary)
