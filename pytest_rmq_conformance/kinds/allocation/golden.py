"""One golden case of consumer allocation asked of the strategy under test, and judged.

In this process, every caller gets a fresh strategy built for the case (as the Java harness
built one per call) and fresh copies of the lists; behind a harness, the case's callers go in
one ``allocate`` request. Either way the answers are compared with Java's for the run.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_rmq_conformance.engine.golden.cases import CaseOutcome
from pytest_rmq_conformance.engine.running.timeouts import CallTimeout
from pytest_rmq_conformance.kinds.allocation.cases import GoldenCase
from pytest_rmq_conformance.kinds.allocation.replay import Mismatch, compare_answers, impact_of, replay_case

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.golden.data import Run
    from pytest_rmq_conformance.engine.loading.subject import Subject

__all__ = ["replay"]


def replay(subject: Subject, case: GoldenCase, run: Run) -> CaseOutcome:
    """Ask ``case`` of ``subject`` and compare its answers with Java's of ``run``."""
    settings = subject.settings
    name = subject.name
    harness = subject.harness
    if harness is not None:
        from pytest_rmq_conformance.engine.protocol.client import HarnessFault, HarnessGaveUp, Unsupported
        from pytest_rmq_conformance.kinds.allocation.protocol import allocate

        expected = case.results_for(run.id)
        try:
            answers = allocate(
                harness, case.strategy, case.params, settings.version, case.consumer_group, case.mq_all,
                case.cid_all, [result.current_cid for result in expected],
            )
        except Unsupported as exc:
            return CaseOutcome(case, run.id, name, skipped=f"not implemented: {exc}")
        except HarnessGaveUp as exc:
            return CaseOutcome(case, run.id, name, skipped=str(exc), not_run=True)
        except HarnessFault as exc:
            return CaseOutcome(case, run.id, name, error=str(exc))
        mismatches = compare_answers(case, run.id, expected, answers, strict_order=settings.strict_order)
    else:
        # a reference port reads key bytes in the run's charset; a strategy of the user's, in the run's option
        charset = run.default_charset if subject.is_reference else None
        mismatches = replay_case(
            lambda: subject.build(case.strategy, case.params, case, charset=charset),
            case,
            run.id,
            strict_order=settings.strict_order,
            timeout=settings.timeout,
        )
        for mismatch in mismatches:
            if isinstance(mismatch.answer.exception, CallTimeout):
                subject.hangs.record()
    return _outcome(case, run.id, name, mismatches)


def _outcome(case: GoldenCase, run: str, name: str | None, mismatches: list[Mismatch]) -> CaseOutcome:
    return CaseOutcome(case, run, name, tuple(mismatches), impact=impact_of(mismatches, case.cid_all))
