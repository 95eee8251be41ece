"""One golden case of producer selection asked of the strategy under test, and judged.

In this process, the strategy is built for the case (a fault strategy with the trace's clock)
and played through its steps or calls (:mod:`.trace`); behind a harness, the whole case goes in
one request (:mod:`.protocol`). Either way the first divergence from Java's answers for the run
is the case's outcome.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_rmq_conformance.engine.golden.cases import CaseOutcome
from pytest_rmq_conformance.engine.running.timeouts import CallTimeout
from pytest_rmq_conformance.kinds.producer.cases import TraceCase
from pytest_rmq_conformance.kinds.producer.trace import compare_selector, compare_trace, replay_selector, replay_trace

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.golden.data import Run
    from pytest_rmq_conformance.engine.loading.subject import Subject

__all__ = ["replay"]


def replay(subject: Subject, case: Any, run: Run) -> CaseOutcome:
    """Ask ``case`` of ``subject`` and compare its answers with Java's of ``run``."""
    harness = subject.harness
    timeout = subject.settings.timeout
    if harness is not None:
        from pytest_rmq_conformance.engine.protocol.client import HarnessFault, HarnessGaveUp, Unsupported
        from pytest_rmq_conformance.kinds.producer.protocol import select, trace

        try:
            if isinstance(case, TraceCase):
                publish, observations = trace(harness, case, subject.settings.version)
                mismatch = compare_trace(case, run.id, publish, observations)
            else:
                mismatch = compare_selector(case, run.id, select(harness, case, subject.settings.version))
        except Unsupported as exc:
            return CaseOutcome(case, run.id, subject.name, skipped=f"not implemented: {exc}")
        except HarnessGaveUp as exc:
            return CaseOutcome(case, run.id, subject.name, skipped=str(exc), not_run=True)
        except HarnessFault as exc:
            return CaseOutcome(case, run.id, subject.name, error=str(exc))
    elif isinstance(case, TraceCase):
        mismatch = replay_trace(lambda clock: subject.build(case.strategy, {**case.params, "clock": clock}, case), case, run.id, timeout)
    else:
        mismatch = replay_selector(lambda: subject.build(case.strategy, case.params, case), case, run.id, timeout)
    if mismatch is None:
        return CaseOutcome(case, run.id, subject.name)
    if isinstance(mismatch.raised, CallTimeout):
        subject.hangs.record()  # --rmq-max-hangs: a strategy that keeps hanging is given up
    return CaseOutcome(case, run.id, subject.name, (mismatch,), impact=mismatch.divergence_class)
