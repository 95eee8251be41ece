"""One golden case of producer selection asked of the strategy under test, and judged.

In this process, the strategy is built for the case (a fault strategy with the trace's clock)
and played through its steps or calls (:mod:`.trace`); behind a harness, the whole case goes in
one request (:mod:`.protocol`). Either way the first divergence from Java's answers for the run
is the case's outcome.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pytest_rmq_conformance.engine.golden.cases import CaseOutcome
from pytest_rmq_conformance.engine.running.timeouts import CallTimeout
from pytest_rmq_conformance.kinds.producer.cases import NotRun, SelectorCase, TraceCase
from pytest_rmq_conformance.kinds.producer.declared import latency_fault_tolerance, turns_latency_on, without_latency
from pytest_rmq_conformance.kinds.producer.trace import compare_selector, compare_trace, replay_selector, replay_trace

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.golden.data import Run
    from pytest_rmq_conformance.engine.loading.subject import Subject

__all__ = ["replay", "judge", "calls_not_run", "CALLS_NOT_RUN"]

#: how the reason of a case whose calls a harness did not all make begins
CALLS_NOT_RUN = "not run: call"


def replay(subject: Subject, case: Any, run: Run) -> CaseOutcome:
    """Ask ``case`` of ``subject`` and compare its answers with Java's of ``run``; a
    ``SELECTOR_RANDOM`` case only of a strategy that claims ``java-random``, a trace that turns
    latency on only of one that has latency fault tolerance."""
    if isinstance(case, TraceCase) and turns_latency_on(case) and not latency_fault_tolerance(subject):
        return CaseOutcome(case, run.id, subject.name, skipped=without_latency(subject), waived=True)
    if case.strategy == "SELECTOR_RANDOM":
        held = subject.for_family(case.strategy) if subject.harness is not None else subject  # a harness: per family
        if "java-random" not in held.properties:
            why = f"{subject.name} does not claim java-random ({held.properties_origin}): judged by the spread check"
            return CaseOutcome(case, run.id, subject.name, skipped=why, waived=True)
    return judge(subject, case, run.id)


def calls_not_run(case: SelectorCase, answers: Sequence[Any]) -> str | None:
    """Why ``case`` is not run, when a harness answered some of its calls ``notRun`` and the
    others as Java did (``None``: it made every call)."""
    unmade = [(index, count, got.reason) for index, (count, got) in enumerate(zip(case.queue_counts, answers)) if isinstance(got, NotRun)]
    if not unmade:
        return None
    calls = ", ".join(f"{index} (n={count})" for index, count, _ in unmade)
    reasons = "; ".join(dict.fromkeys(reason for _, _, reason in unmade))
    agreed = f"; the other {len(answers) - len(unmade)} agree with Java" if len(unmade) < len(answers) else ""
    return f"{CALLS_NOT_RUN}{'s' if len(unmade) > 1 else ''} {calls} of {len(answers)}, answered notRun by the harness: {reasons}{agreed}"


def judge(subject: Subject, case: Any, run: str) -> CaseOutcome:
    """Ask ``case`` of ``subject`` and compare its answers with those ``case`` holds for ``run``
    (Java's, or the reference port's for a generated case)."""
    harness = subject.harness
    timeout = subject.settings.timeout
    if harness is not None:
        from pytest_rmq_conformance.engine.protocol.client import HarnessFault, HarnessGaveUp, Unsupported
        from pytest_rmq_conformance.kinds.producer.protocol import probe, select, trace

        try:
            if isinstance(case, TraceCase):
                publish, observations = trace(harness, case, subject.settings.version)
                mismatch = compare_trace(case, run, publish, observations, probe(harness, case, subject.settings.version))
            else:
                answers = select(harness, case, subject.settings.version)
                mismatch = compare_selector(case, run, answers)
                unmade = None if mismatch is not None else calls_not_run(case, answers)
                if unmade is not None:
                    return CaseOutcome(case, run, subject.name, skipped=unmade, not_run=True, declined=True)
        except Unsupported as exc:
            return CaseOutcome(case, run, subject.name, skipped=f"not implemented: {exc}")
        except HarnessGaveUp as exc:
            return CaseOutcome(case, run, subject.name, skipped=str(exc), not_run=True)
        except HarnessFault as exc:
            return CaseOutcome(case, run, subject.name, error=str(exc))
    elif isinstance(case, TraceCase):
        mismatch = replay_trace(lambda clock: subject.build(case.strategy, {**case.params, "clock": clock}, case), case, run, timeout)
    else:
        mismatch = replay_selector(lambda: subject.build(case.strategy, dict(case.params), case), case, run, timeout)
    if mismatch is None:
        return CaseOutcome(case, run, subject.name)
    if isinstance(mismatch.raised, CallTimeout):
        subject.hangs.record()  # --rmq-max-hangs: a strategy that keeps hanging is given up
    return CaseOutcome(case, run, subject.name, (mismatch,), impact=mismatch.divergence_class)
