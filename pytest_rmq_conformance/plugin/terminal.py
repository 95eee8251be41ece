"""Terminal reporting on the process that reports (the controller under xdist): failing
golden cases grouped by cause, and the churn table of the rebalance checks."""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Any

import pytest

__all__ = ["FailureGroups", "ChurnReport", "GROUP_SHOWN"]

GROUP_SHOWN = 3  # failures shown in full per cause; the rest get a one-line report


class FailureGroups:
    """Groups failing cases by cause, shows the first few of each cause in full and the
    rest in one line each, with the command that reruns them."""

    def __init__(self):
        self.groups: OrderedDict[str, list[str]] = OrderedDict()
        self.classes: Counter[str] = Counter()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report):
        data = dict(report.user_properties)
        reason = data.get("rmq_reason")
        if reason is None or not report.failed:
            return
        if data.get("rmq_class"):
            self.classes[data["rmq_class"]] += 1
        members = self.groups.setdefault(reason, [])
        members.append(report.head_line or report.nodeid)
        if len(members) > GROUP_SHOWN:
            first = (report.longreprtext.splitlines() or [""])[0]
            report.longrepr = f"{first}\n  same cause as {members[0]}, shown above; rerun: {data.get('rmq_rerun', '')}"

    def pytest_terminal_summary(self, terminalreporter):
        if not self.groups:
            return
        total = sum(len(members) for members in self.groups.values())
        terminalreporter.section("rmq-conformance: failing golden cases by cause")
        for reason, members in sorted(self.groups.items(), key=lambda item: -len(item[1])):
            examples = ", ".join(members[:GROUP_SHOWN]) + (", ..." if len(members) > GROUP_SHOWN else "")
            terminalreporter.write_line(f"{len(members):5d} x {reason}")
            terminalreporter.write_line(f"        e.g. {examples}")
        terminalreporter.write_line(f"{total} failing case(s) in {len(self.groups)} group(s)")
        if self.classes:
            from pytest_rmq_conformance.engine.divergence import LABELS, SEVERITY

            counts = ", ".join(f"{self.classes[name]} {LABELS[name]}" for name in SEVERITY if self.classes[name])
            terminalreporter.write_line(f"by impact: {counts}")
            if set(self.classes) == {SEVERITY[-1]}:
                terminalreporter.write_line(
                    "only error behaviour differs: every member of cidAll gets Java's queues wherever Java answered with queues"
                )


class ChurnReport:
    """The churn ``test_rebalance_churn`` measured, as a table."""

    def __init__(self):
        self.rows: list[dict[str, Any]] = []

    def pytest_runtest_logreport(self, report):
        row = dict(report.user_properties).get("rmq_churn")
        if row is not None and report.when == "call":
            self.rows.append(row)

    def pytest_terminal_summary(self, terminalreporter):
        if not self.rows:
            return
        write = terminalreporter.write_line
        terminalreporter.section("rmq-conformance: rebalance churn (queues moved by one change)")
        write(f"{'change':<24} {'strategy':<28} {'moved':>5} {'lower bound':>11} {'own':>4} {'rebuilt':>7}")
        for row in sorted(self.rows, key=lambda r: (r["case"], r["strategy"])):
            write(
                f"{row['case']:<24} {row['strategy']:<28} {row['moved']:>5} {row['lower_bound']:>11} "
                f"{row['own']:>4} {row['rebuilt']:>7}"
            )
        write(
            "moved: queues whose owner changed; lower bound: the fewest moves that reach a balanced group "
            "(an unbalanced strategy may move fewer); own: the queues the leaver held (or the joiner got); "
            "rebuilt: ProcessQueues the clients created for the change"
        )
