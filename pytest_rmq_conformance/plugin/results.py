"""``--rmq-results=FILE``: one JSON line per test outcome, written and flushed the moment it is known.

A run killed part-way keeps every line written before the kill. Each line
follows ``schemas/results.schema.json``: the test and its golden case, the
verdict, the cause, the first divergence and the command that reruns it,
taken from the ``user_properties`` the suite records (see
:mod:`~pytest_rmq_conformance.plugin.verdicts`). Under xdist the controller
writes, as the workers' reports arrive.

    {"resultsVersion": 1, "test": "…/test_golden.py::test_golden[AVG-0007]", "check": "golden",
     "case": "AVG-0007", "verdict": "failed", "cause": "1 missing and 1 extra queue(s)", ...}

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

__all__ = ["ResultsFile"]

_XDIST_HEADER = re.compile(r"^\[gw\d+\] ")


class ResultsFile:
    """The plugin that writes the lines (registered by ``pytest_configure`` when the option is given)."""

    def __init__(self, config, path: str):
        self.config = config
        self.path = Path(config.invocation_params.dir, path)
        try:
            self.file = self.path.open("w", encoding="utf-8")
        except OSError as exc:
            raise pytest.UsageError(f"--rmq-results={path}: cannot write the file: {exc}") from None
        self._settings: Any = None

    @property
    def settings(self):
        if self._settings is None:
            from pytest_rmq_conformance.plugin.options import settings_from
            from pytest_rmq_conformance.plugin.state import SEED

            self._settings = settings_from(self.config, self.config.stash[SEED])
        return self._settings

    def pytest_runtest_logreport(self, report) -> None:
        if report.when == "call" or (report.when == "setup" and not report.passed) or (report.when == "teardown" and report.failed):
            self.file.write(json.dumps(self.line(report), ensure_ascii=False) + "\n")
            self.file.flush()

    def pytest_unconfigure(self, config) -> None:
        self.file.close()

    def line(self, report) -> dict[str, Any]:
        """The results line of ``report``."""
        data = dict(report.user_properties)
        verdict = _verdict(report)
        settings = self.settings
        cause = data.get("rmq_cause")
        if cause is None and verdict != "passed":
            cause = _first_line(report)
        return {
            "resultsVersion": 1,
            "test": report.nodeid,
            "check": data.get("rmq_check"),
            "case": data.get("rmq_case"),
            "verdict": verdict,
            "cause": cause,
            "kind": None if verdict == "not-run" else data.get("rmq_class"),
            "divergence": data.get("rmq_divergence"),
            "rerun": data.get("rmq_rerun") or self._rerun(report, data),
            "shrinking": data.get("rmq_shrinking"),
            "note": data.get("rmq_note"),
            "report": report.longreprtext or None if report.failed else None,
            "duration": round(max(report.duration, 0.0), 6),
            "strategy": settings.spec,
            "release": settings.version,
            "seed": settings.seed,
        }

    def _rerun(self, report, data: dict) -> str:
        from pytest_rmq_conformance.engine.rerun import replay_command, rerun_command, suite_node

        if data.get("rmq_case") is not None and data.get("rmq_check") in ("golden", "sort"):
            return rerun_command(self.settings, data["rmq_case"], check=data["rmq_check"])
        if data.get("rmq_check") is not None:
            path, _, name = report.nodeid.partition("::")
            return replay_command(self.settings, suite_node(Path(path).stem, name))
        return f"pytest {report.nodeid}"


def _verdict(report) -> str:
    if report.skipped and dict(report.user_properties).get("rmq_class") == "not-run":
        return "not-run"
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    if report.when != "call" and report.failed:
        return "error"
    return report.outcome


def _first_line(report) -> str | None:
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    lines = [line for line in report.longreprtext.splitlines() if line.strip() and not _XDIST_HEADER.match(line)]
    return lines[0].strip()[:500] if lines else None
