"""What the run judged against Java, and the exit status that says so.

A run that exits 0 must have checked something: the plugin counts, on the
process that reports (the controller under xdist), the suite's tests of one
golden case (``golden`` and ``sort``: the two parts Java answered) and which
of them reached a verdict. The run fails, with one line saying why, when

- golden cases were asked and none was judged (every one skipped: a harness
  that implements nothing, a skip file that lists them all), or
- a test *did not run* for the suite's own reasons (a generated check out of
  time, a harness given up): never a pass.

A case the strategy waives by what it declares (a producer without latency
fault tolerance, a random selector that does not claim Java's draws) is not
counted as asked. A harness that answers some calls ``notRun`` (a list longer
than its client can build) declares a limit; those cases are counted, but they
do not turn the run red on their own.

A family some of whose cases were judged and none of the others' (a harness
that serves ``AVG`` and answers ``unsupported`` to every ``CONSISTENT_HASH``
case) is named in the summary, and the run keeps the exit status it has.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections import Counter

import pytest

__all__ = ["Judged"]


class Judged:
    """Counts the golden cases asked and judged, per family, and the tests that did not run."""

    def __init__(self):
        self.asked: Counter[str] = Counter()  # less the cases the strategy waives (rmq_waived)
        self.judged: Counter[str] = Counter()
        self.why_not: dict[str, str] = {}  # family: the first reason one of its cases was not judged
        self.not_run: list[str] = []  # node ids of tests not run for the suite's own reasons
        self.failed_run = False  # this plugin turned an exit status 0 into 1

    def pytest_runtest_logreport(self, report) -> None:
        data = dict(report.user_properties)
        if data.get("rmq_class") == "not-run" and report.skipped and not data.get("rmq_declined"):
            self.not_run.append(report.nodeid)
        family = data.get("rmq_family")
        if family is None or data.get("rmq_check") not in ("golden", "sort"):
            return
        if report.when == "setup":
            self.asked[family] += 1
        if data.get("rmq_waived"):  # set by the call, after the setup counted it
            if report.when == "call":
                self.asked[family] -= 1
            return
        if (report.when == "call" and not report.skipped) or hasattr(report, "wasxfail"):
            self.judged[family] += 1
        elif report.skipped and family not in self.why_not:
            self.why_not[family] = _skip_reason(report)

    def unjudged_families(self) -> list[str]:
        """Families whose golden cases were asked and none judged."""
        return [family for family, count in self.asked.items() if count and not self.judged[family]]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session) -> None:
        if session.exitstatus != pytest.ExitCode.OK:
            return
        if (sum(self.asked.values()) and not sum(self.judged.values())) or self.not_run:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
            self.failed_run = True

    def pytest_terminal_summary(self, terminalreporter) -> None:
        write = terminalreporter.write_line
        asked = sum(self.asked.values())
        if asked and not sum(self.judged.values()):
            reasons = "; ".join(dict.fromkeys(self.why_not.values()))
            write(f"rmq-conformance: no golden case was judged against Java: all {asked} asked were skipped ({reasons}); "
                  "the run fails", red=True, bold=True)
        elif self.unjudged_families():
            for family in self.unjudged_families():
                write(f"rmq-conformance: no {family} case was judged against Java: all {self.asked[family]} skipped "
                      f"({self.why_not.get(family, 'deselected')})", yellow=True)
        if self.not_run and self.failed_run:
            write(f"rmq-conformance: {len(self.not_run)} test(s) did not run (summary above): a run whose checks did not "
                  "run is not green", red=True, bold=True)


def _skip_reason(report) -> str:
    if isinstance(report.longrepr, tuple):
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return report.longreprtext.strip().splitlines()[0] if report.longreprtext.strip() else "skipped"
