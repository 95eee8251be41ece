"""Golden cases for the strategy under test: which apply at the selected release, and their outcomes.

:class:`GoldenCases` picks, from the shipped golden data and any extra
directories, the cases of the subject's family that have a run at the
selected release and charset (and, for an instance spec, its own
configuration), then replays each into a :class:`CaseOutcome`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.golden import GoldenCase, GoldenDataError, Run, load_golden
from pytest_rmq_conformance.engine.remote import Harness, HarnessFault, HarnessGaveUp, Unsupported
from pytest_rmq_conformance.engine.replay import Mismatch, compare_answers, replay_case
from pytest_rmq_conformance.engine.reports import reason_of
from pytest_rmq_conformance.engine.subject import Subject
from pytest_rmq_conformance.engine.timeouts import CallTimeout
from pytest_rmq_conformance.strategies import parse_release

__all__ = ["CaseOutcome", "GoldenCases"]


@dataclass(frozen=True)
class CaseOutcome:
    """How the strategy did on one golden case."""

    case: GoldenCase
    run: str
    strategy_name: str | None
    mismatches: tuple[Mismatch, ...] = ()
    error: str | None = None
    skipped: str | None = None  # not implemented by a harness, or not run once it was given up
    not_run: bool = False  # skipped because the harness was given up

    @property
    def passed(self) -> bool:
        return self.error is None and not self.mismatches and self.skipped is None

    @property
    def reason(self) -> str:
        return reason_of(self.mismatches, self.error)


class GoldenCases:
    """The golden cases that apply to ``subject``; ``extra_dirs`` returns more golden
    directories (validated in full), ``observe`` receives every outcome."""

    def __init__(
        self,
        subject: Subject,
        extra_dirs: Callable[[], Sequence[Path]] = tuple,
        observe: Callable[[CaseOutcome], None] = lambda outcome: None,
    ):
        self.subject = subject
        self._extra_dirs, self._observe = extra_dirs, observe
        self._cases: list[GoldenCase] | None = None
        self._runs: dict[str, Run] = {}
        self.note = ""

    def run_for(self, case: GoldenCase) -> str | None:
        """The run of ``case`` matching the selected release and charset, if it has one."""
        settings = self.subject.settings
        five = parse_release(settings.version) >= (5, 0, 0)
        for run_id in case.runs:
            run = self._runs[run_id]
            if run.rocketmq != settings.version:
                continue
            if run.default_charset == settings.charset or (five and run.default_charset == "UTF-8"):
                return run_id
        return None

    def cases(self) -> list[GoldenCase]:
        """The applicable cases, in file order.

        Raises :class:`GoldenDataError` for malformed golden data and
        ``LookupError`` when no golden data covers the selected release.
        """
        if self._cases is not None:
            return self._cases
        subject = self.subject
        served = subject.families if subject.load_error is None else ()
        if not served:
            self._cases = []
            return self._cases
        sets = [load_golden(strategies=served)]
        sets += [load_golden(directory, strategies=served) for directory in self._extra_dirs()]
        for golden in sets:
            self._runs.update(golden.runs)
        version = subject.settings.version
        releases = sorted({run.rocketmq for run in self._runs.values()}, key=parse_release)
        if version not in releases:
            raise LookupError(f"no golden vectors for RocketMQ {version}: the golden data covers {', '.join(releases)}")
        seen: dict[str, str] = {}
        cases: list[GoldenCase] = []
        total = 0  # cases with a run at this release, before the instance filter
        for golden in sets:
            for case in golden.cases:
                if case.id in seen:
                    raise GoldenDataError(f"{case.source}: duplicate case id, also at {seen[case.id]}")
                seen[case.id] = case.source
                if self.run_for(case) is not None:
                    total += 1
                    if subject.accepts(case.strategy, case.params):
                        cases.append(case)
        if len(cases) < total:
            self.note = (
                f"{total - len(cases)} of {total} cases need a configuration this instance does not have "
                "(pass a class or factory to run them all)"
            )
        self._cases = cases
        return cases

    def factory_for(self, case: GoldenCase, run_id: str) -> Callable[[], Any]:
        """A callable building a fresh strategy configured for ``case`` (a reference port
        reads key bytes in the run's charset)."""
        subject = self.subject
        charset = self._runs[run_id].default_charset if subject.is_reference else None
        return lambda: subject.build(case.strategy, case.params, case, charset=charset)

    def _ask_harness(self, harness: Harness, case: GoldenCase, run: str) -> CaseOutcome:
        """One request for every caller of ``case``; what the harness failed to do is the case's error."""
        expected = case.results_for(run)
        name = self.subject.name
        try:
            answers = harness.allocate(
                case.strategy, case.params, self.subject.settings.version, case.consumer_group, case.mq_all,
                case.cid_all, [result.current_cid for result in expected],
            )
        except Unsupported as exc:
            return CaseOutcome(case, run, name, skipped=f"not implemented: {exc}")
        except HarnessGaveUp as exc:
            return CaseOutcome(case, run, name, skipped=str(exc), not_run=True)
        except HarnessFault as exc:
            return CaseOutcome(case, run, name, error=str(exc))
        strict = self.subject.settings.strict_order
        return CaseOutcome(case, run, name, tuple(compare_answers(case, run, expected, answers, strict_order=strict)))

    def run_case(self, case: GoldenCase) -> CaseOutcome:
        """Replay ``case`` and report its outcome (also to ``observe``)."""
        run = self.run_for(case)
        assert run is not None, f"{case.id} has no run for {self.subject.settings.version}"
        subject = self.subject
        settings = subject.settings
        if subject.hangs.exhausted:
            outcome = CaseOutcome(case, run, subject.name, error=subject.hangs.refusal())
        elif subject.harness is not None:
            outcome = self._ask_harness(subject.harness, case, run)
        else:
            mismatches = replay_case(
                self.factory_for(case, run), case, run, strict_order=settings.strict_order, timeout=settings.timeout
            )
            for mismatch in mismatches:
                if isinstance(mismatch.answer.exception, CallTimeout):
                    subject.hangs.record()
            outcome = CaseOutcome(case, run, subject.name, tuple(mismatches))
        self._observe(outcome)
        return outcome

    def report(self, outcome: CaseOutcome) -> str:
        """The failure report of ``outcome``, ending with the line that reruns its case."""
        from pytest_rmq_conformance.engine.commands import rerun_command
        from pytest_rmq_conformance.engine.reports import format_outcome

        case = outcome.case
        rerun = rerun_command(self.subject.settings, case.id)
        return format_outcome(case, outcome.run, outcome.mismatches, outcome.error, rerun)
