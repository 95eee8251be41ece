"""Every sweep report's HTML page reads at a phone's width: the shared stylesheet, and the check
of it (tests/responsive.py) shown to reject the faults it looks for."""

import json
from pathlib import Path

import pytest
from responsive import responsive_problems

from pytest_rmq_conformance.pipeline.pages import CSS, VIEWPORT, Heading, Image, Para, Table, html_of

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = [
    Heading(1, "Producer sweep: does sendLatencyFaultEnable help?"),
    Para("text"),
    Table(("a", "b"), [("1", "2")], "lr"),
    Image("a plot", "plot.png"),
]


def test_the_shared_page_has_every_responsive_rule():
    page = html_of(BLOCKS, "title")
    assert responsive_problems(page) == []
    assert '<a class="plot" href="plot.png"><img src="plot.png" alt="a plot"></a>' in page  # full size a tap away


@pytest.mark.parametrize(
    ("fault", "says"),
    [
        (lambda page: page.replace(VIEWPORT, ""), "no viewport meta"),
        (
            lambda page: page.replace("img { display: block; max-width: 100%;", "img { display: block;"),
            "max-width: 100%",
        ),
        (lambda page: page.replace("height: auto", "height: 300px"), "height: auto"),
        (lambda page: page.replace("h1, h2, h3, p, summary { overflow-wrap: anywhere; }", ""), "h1: overflow-wrap"),
        (lambda page: page.replace(".scroll { overflow-x: auto;", ".scroll {"), ".scroll: overflow-x: auto"),
        (lambda page: page.replace('<div class="scroll"><table>', "<div><table>"), "its own scrolling box"),
    ],
)
def test_the_check_rejects_a_page_without_a_rule(fault, says):
    page = fault(html_of(BLOCKS, "title"))
    assert page != html_of(BLOCKS, "title")
    assert any(says in problem for problem in responsive_problems(page)), responsive_problems(page)


def test_the_stylesheet_is_one_for_every_mode():
    assert CSS.count("img {") == 1 and "@media (max-width: 40rem)" in CSS


def _allocation(summary, out):
    from pytest_rmq_conformance.pipeline.allocation.report import render_html

    return render_html(summary)


def _groups(summary, out):
    from pytest_rmq_conformance.pipeline.message_groups.report import write_group_report

    write_group_report(summary, out)
    return (out / "report.html").read_text(encoding="utf-8")


def _mix(summary, out):
    from pytest_rmq_conformance.pipeline.mix.report import write_mix_report

    write_mix_report(summary, out)
    return (out / "report.html").read_text(encoding="utf-8")


@pytest.mark.once
@pytest.mark.parametrize(("render", "example"), [(_allocation, "sweep"), (_groups, "group-sweep"), (_mix, "mixing")])
def test_every_modes_page_reads_on_a_phone(render, example, tmp_path):
    """The committed example summaries, rendered by today's code."""
    if render is not _allocation:
        pytest.importorskip("matplotlib")
    summary = json.loads((ROOT / "docs" / example / "summary.json").read_text(encoding="utf-8"))
    page = render(summary, tmp_path)
    assert responsive_problems(page) == []
    assert page.count("<img ") == page.count('<a class="plot"') >= 1


def test_a_long_cell_keeps_a_readable_width_so_its_table_scrolls_instead():
    long = "K = 57 queues: 4,931 of 5,000 names split (98.6 %), the first order-0 on Java's queue 2"
    page = html_of([Table(("what", "worst case"), [("short", long)], "ll")], "title")
    assert '<td class="l">short</td><td class="l wide">K = 57 queues: 4,931' in page
    assert "td.wide { min-width:" in CSS
