"""Terminal reporting on the process that reports (the controller under xdist): failing
golden cases grouped by cause, and the churn table of the rebalance checks.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Any

import pytest

__all__ = ["FailureGroups", "ChurnReport", "GROUP_SHOWN"]

GROUP_SHOWN = 3  # failures shown in full per cause; the rest get a one-line report
MANY = 20  # past this many failures of one cause, only the first GROUP_SHOWN are shown at all; the rest are counted


class FailureGroups:
    """Groups failing cases by cause and counts the tests not run (the harness was given up).

    The first few failures of each cause are shown in full, the rest in one line each; of a
    cause with more than :data:`MANY` failures, the rest are only counted. The summary comes
    last, after pytest's own short summary, where no per-case output can hide it.
    """

    def __init__(self):
        self.groups: OrderedDict[str, list[Any]] = OrderedDict()
        self.classes: Counter[str] = Counter()
        self.not_run: list[str] = []
        self.not_run_reason: str | None = None
        self.checks: list[str] = []  # failed checks beyond the golden vectors (they have no golden cause)
        self.suite_faults: list[tuple[str, int]] = []  # (check, draws left out): the reference port fails them

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report):
        data = dict(report.user_properties)
        if data.get("rmq_suite_faults") and report.when == "call":
            self.suite_faults.append((report.nodeid.rpartition("::")[2], data["rmq_suite_faults"]))
        if report.skipped and data.get("rmq_class") == "not-run":
            self.not_run.append(report.nodeid)
            self.not_run_reason = self.not_run_reason or data.get("rmq_cause")
            return
        reason = data.get("rmq_reason")
        if report.failed and reason is None and "rmq_rerun" in data:
            self.checks.append(report.nodeid.rpartition("::")[2])
        if reason is None or not report.failed:
            return
        if data.get("rmq_class"):
            self.classes[data["rmq_class"]] += 1
        self.groups.setdefault(reason, []).append(report)

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter):
        """The terminal's view only: the reports themselves stay whole, for ``--junitxml``,
        ``--rmq-results`` and every other plugin that shows one case alone."""
        failed = terminalreporter.stats.get("failed", [])
        kept = list(failed)
        hidden = {id(report) for members in self.groups.values() if len(members) > MANY for report in members[GROUP_SHOWN:]}
        failed[:] = [report for report in kept if id(report) not in hidden]
        whole = {id(report): (report, report.longrepr) for members in self.groups.values() for report in members[GROUP_SHOWN:]}
        for report, _ in whole.values():
            report.longrepr = _one_line(report, self.groups[dict(report.user_properties)["rmq_reason"]][0])
        try:
            yield
        finally:
            failed[:] = kept
            for report, longrepr in whole.values():
                report.longrepr = longrepr
            self._summary(terminalreporter)

    def _summary(self, terminalreporter) -> None:
        if not self.groups and not self.not_run and not self.checks and not self.suite_faults:
            return
        write = terminalreporter.write_line
        terminalreporter.section("rmq-conformance: summary")
        total = sum(len(members) for members in self.groups.values())
        for reason, members in sorted(self.groups.items(), key=lambda item: -len(item[1])):
            labels = [_label(report) for report in members[:GROUP_SHOWN]]
            write(f"{len(members):5d} x {reason}")
            more = f", and {len(members) - GROUP_SHOWN} more" if len(members) > GROUP_SHOWN else ""
            counted = " (not shown; --rmq-results=FILE lists every one)" if len(members) > MANY else ""
            write(f"        e.g. {', '.join(labels)}{more}{counted}")
        if self.groups:
            write(f"{total} failing case(s) in {len(self.groups)} group(s)")
        from pytest_rmq_conformance.engine.divergence import LABELS, SEVERITY

        if self.checks:
            shown = ", ".join(self.checks[:GROUP_SHOWN]) + (f", and {len(self.checks) - GROUP_SHOWN} more" if len(self.checks) > GROUP_SHOWN else "")
            write(f"{len(self.checks)} check(s) beyond the golden vectors failed: {shown} (each report above ends with its replay line)")
        if self.suite_faults:
            left_out = sum(count for _, count in self.suite_faults)
            named = ", ".join(f"{check} ({count})" for check, count in self.suite_faults[:GROUP_SHOWN])
            more = f", and {len(self.suite_faults) - GROUP_SHOWN} more" if len(self.suite_faults) > GROUP_SHOWN else ""
            write(f"suite fault(s): the reference port fails {left_out} draw(s) of {named}{more}: left out, not held "
                  "against the strategy (RmqSuiteFaultWarning names each property, draw and seed)")
        counts = [f"{self.classes[name]} {LABELS[name]}" for name in SEVERITY if self.classes[name]]
        if self.not_run:
            counts.append(f"{len(self.not_run)} not run")
        if counts:
            write(f"by impact: {', '.join(counts)}")
        if set(self.classes) == {SEVERITY[-1]}:
            write("only error behaviour differs: wherever Java answered a healthy call with queues, the same queues came back")
        if self.not_run:
            first, last = (self.not_run[0].rpartition("::")[2], self.not_run[-1].rpartition("::")[2])
            span = first if len(self.not_run) == 1 else f"{first} ... {last}"
            why = (self.not_run_reason or "").removeprefix("not run: ")
            write(f"not run: {len(self.not_run)} test(s), {span}: {why}")


def _label(report) -> str:
    return report.head_line or report.nodeid


def _one_line(report, first_of_cause) -> str:
    """What the terminal shows of a failure past the first :data:`GROUP_SHOWN` of its cause."""
    first = (report.longreprtext.splitlines() or [""])[0]
    first = first.removesuffix("; its stderr ended with:")  # the lines it announces are not shown
    rerun = dict(report.user_properties).get("rmq_rerun", "")
    return f"{first}\n  same cause as {_label(first_of_cause)}, shown above; rerun: {rerun}"


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
