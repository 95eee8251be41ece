"""The sweep report: Markdown and HTML from a summary, the plots, atomic writes, the missing-extra error."""

import json
import re
import sys

import pytest

from pytest_rmq_conformance.pipeline.report import (
    CHURN_PLOT,
    IMBALANCE_PLOT,
    render_html,
    render_markdown,
    write_report,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
GROUP = json.dumps({"strategy": None, "mq_all": ["TopicTest@broker-a:0"], "event": ["leave", "10.0.0.2@1"]})


def _strategy(spec, moved_mean, violations=()):
    return {
        "spec": spec,
        "name": spec,
        "scenarios": 40,
        "calls": 1234,
        "failing_scenarios": sum(v["count"] for v in violations),
        "violations": list(violations),
        "churn": {"mean": moved_mean, "p50": 8.0, "p99": 31.5, "max": 40, "lower_bound_mean": 6.25, "excess_mean": 4.5},
        "imbalance": {"mean": 0.375, "max": 1},
        "by_event": [{"event": "leave", "scenarios": 20, "moved_mean": moved_mean, "lower_bound_mean": 6.25}],
        "churn_by_consumers": [
            {"consumers": c, "event": e, "scenarios": 5, "moved_mean": moved_mean + c, "lower_bound_mean": c / 2}
            for c in (2, 4, 8, 16)
            for e in ("leave", "join")
        ],
        "imbalance_grid": [
            {"queues_bin": q, "consumers_bin": c, "scenarios": 3, "imbalance_mean": (q[0] + c[0]) / 100}
            for q in ([1, 128], [129, 256])
            for c in ([1, 12], [13, 24])
        ],
    }


@pytest.fixture
def summary():
    gap = {
        "kind": "gap",
        "count": 2,
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
    assert "| Strategy | Scenarios | Failing |" in text


def test_markdown_violations_and_plots(summary):
    text = render_markdown(summary)
    assert "#### gap (2)" in text
    assert "Scenario 12: 1 queue(s) held by no client: \\<script>alert(1)\\</script>" in text
    assert "Scenario 17: 2 queue(s) held by no client" in text
    assert "<details><summary>group JSON</summary>" in text
    assert f"```json\n{GROUP}\n```" in text
    assert not re.search(r"(?<!\\)<script", text)  # only backslash-escaped, never raw HTML
    assert f"]({CHURN_PLOT})" in text and f"]({IMBALANCE_PLOT})" in text


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
    assert '<td class="l">AVG</td><td class="r">8</td><td class="r">6</td><td class="r">6</td>' in page
    assert "<details><summary>group JSON</summary><pre>{&quot;strategy&quot;: null" in page


def test_write_report(summary, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "report"
    written = write_report(summary, out)
    names = {"report.md", "report.html", CHURN_PLOT, IMBALANCE_PLOT}
    assert {path.name for path in written} == names
    assert {path.name for path in out.iterdir()} == names  # no temporary file left behind
    for name in (CHURN_PLOT, IMBALANCE_PLOT):
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
    assert len(write_report(summary, tmp_path)) == 4


def test_write_report_without_matplotlib(summary, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install 'pytest-rmq-conformance\[sweep\]'"):
        write_report(summary, tmp_path / "report")
    assert not (tmp_path / "report").exists()
