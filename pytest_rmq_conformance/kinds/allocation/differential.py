"""Differential checks: the strategy against the reference port on a generated group.

The reference ports reproduce every golden vector, so on inputs the golden
files lack they stand in for Java: a caller whose answer differs from the
port's is a :class:`~pytest_rmq_conformance.kinds.allocation.replay.Mismatch`, compared as in
the golden replay (sets by default, exceptions by kind).

A mismatch may carry ``notes``, lines the report prints under it: why Java
places a differing queue where it does (the family record's ``explain``: for
consistent hashing, the queue's key, its hash and the ring node it hits),
or, when the strategy could not be built at all for a configuration Java's
constructor accepts, that configuration and where the constructor raised (one
failure for the group, not one per caller).

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from pytest_rmq_conformance.engine.divergence import worst
from pytest_rmq_conformance.engine.generated.failures import build_failure_lines
from pytest_rmq_conformance.engine.kinds import GeneratedCheck
from pytest_rmq_conformance.kinds.allocation.calls import ask
from pytest_rmq_conformance.kinds.allocation.cases import ILLEGAL_ARGUMENT, Expected, JavaError
from pytest_rmq_conformance.kinds.allocation.replay import Answer, Mismatch, classify, compare_answer
from pytest_rmq_conformance.kinds.allocation.scenarios import Scenario

__all__ = ["ExplainedMismatch", "expected_from", "differences", "reference_check"]

#: differing queues explained per caller
MAX_EXPLAINED = 2


@dataclass(frozen=True)
class ExplainedMismatch(Mismatch):
    """A :class:`Mismatch` with lines the report prints under it."""

    notes: tuple[str, ...] = ()


def expected_from(caller: str | None, answer: Answer) -> Expected:
    """The reference port's ``answer`` in the form of a golden expectation."""
    if answer.exception is not None:
        exc = answer.exception
        error = ILLEGAL_ARGUMENT if isinstance(exc, ValueError) else f"java.lang.{type(exc).__name__}"
        return Expected(caller, error=JavaError(error, str(exc)))
    if answer.returned_none:
        return Expected(caller)
    return Expected(caller, queues=tuple(answer.queues or ()))


def differences(
    strategy_for: Any,
    reference_for: Any,
    scenario: Scenario,
    *,
    timeout: float | None,
    strict_order: bool = False,
) -> list[Mismatch]:
    """Every caller of ``scenario`` whose answer differs from the reference port's.

    ``strategy_for`` and ``reference_for`` build a strategy for the scenario
    (called once each). A factory that raises answers every caller with its
    exception, as a refusing Java constructor would; when the reference builds
    and the strategy does not, that is one mismatch (the first caller's) naming
    the configuration and the exception.
    """
    try:
        strategy = strategy_for(scenario)
    except Exception as exc:
        strategy = _Raising(exc)
    try:
        reference = reference_for(scenario)
    except Exception as exc:
        reference = _Raising(exc)
    callers = scenario.callers
    if isinstance(strategy, _Raising) and not isinstance(reference, _Raising) and callers:
        return _unbuilt(strategy.exc, reference, scenario, timeout)
    found = []
    answers: dict[str | None, Answer] = {}
    for caller in callers:
        expected = expected_from(caller, ask(reference, scenario, caller, None))
        answer = answers[caller] = ask(strategy, scenario, caller, timeout)
        verdict = compare_answer(expected, answer, strict_order=strict_order, mq_all=scenario.mq_all)
        if verdict is not None:
            problem, missing, extra = verdict
            found.append(Mismatch(scenario.id, "generated", expected, answer, problem, missing, extra))
    return [_explained(m, reference, scenario, answers) for m in found]


def _explained(mismatch: Mismatch, reference: Any, scenario: Scenario, answers: dict[str | None, Answer]) -> Mismatch:
    """``mismatch`` with the family's explanation of its first differing queues, if it has one."""
    from pytest_rmq_conformance.kinds.allocation.family import get as family_record

    record = None if scenario.strategy is None else family_record(scenario.strategy)
    if record is None or record.explain is None or isinstance(reference, _Raising):
        return mismatch
    notes = []
    for mq in [*mismatch.missing, *mismatch.extra][:MAX_EXPLAINED]:
        holders = [cid for cid, answer in answers.items() if cid is not None and mq in (answer.queues or ())]
        note = record.explain(reference, scenario, mq, holders)
        if note is not None:
            notes.append(note)
    if not notes:
        return mismatch
    return ExplainedMismatch(**{f.name: getattr(mismatch, f.name) for f in fields(mismatch)}, notes=tuple(notes))


def _unbuilt(exc: Exception, reference: Any, scenario: Scenario, timeout: float | None) -> list[Mismatch]:
    caller = scenario.callers[0]
    expected = expected_from(caller, ask(reference, scenario, caller, None))
    problem = (
        f"the strategy could not be built for this configuration ({type(exc).__name__}: {exc}), "
        "which Java's constructor accepts"
    )
    notes = (*build_failure_lines(exc, scenario), "(one report for the group: every caller fails alike)")
    return [ExplainedMismatch(scenario.id, "generated", expected, Answer(exception=exc), problem, notes=notes)]


class _Raising:
    """Stands in for a strategy whose construction raised: every call raises the same."""

    def __init__(self, exc: Exception):
        self.exc = exc

    def allocate(self, *args):
        raise self.exc


def reference_check(subject: Any) -> GeneratedCheck | str:
    """The strategy under test against the reference port on generated groups, adversarial ones
    included, and on the fixed groups every seed asks; or why it cannot run."""
    from pytest_rmq_conformance.engine.generated.generation import PropertyFailure
    from pytest_rmq_conformance.kinds.allocation.draws import Groups
    from pytest_rmq_conformance.kinds.allocation.failures import format_generated, format_mismatch

    groups = Groups(subject)
    reason = groups.skip_reason()
    if reason is not None:
        return reason
    settings = subject.settings
    found: list[tuple[Mismatch, Scenario]] = []

    def body(scenario: Scenario) -> None:
        mismatches = differences(
            subject.build_for, subject.reference_for, scenario, timeout=settings.timeout, strict_order=settings.strict_order
        )
        if mismatches:
            found[:] = [(mismatch, scenario) for mismatch in mismatches]
            details = [line for mismatch in mismatches for line in format_mismatch(mismatch)]
            headline = (
                f"{subject.name} differs from the reference port of RocketMQ {settings.version} "
                f"on a generated group: {mismatches[0].problem}"
            )
            raise PropertyFailure(format_generated(headline, details, scenario, scenario.dumps()))

    def classify_found() -> str | None:
        return worst(classify(mismatch, scenario.cid_all) for mismatch, scenario in found)

    return GeneratedCheck(groups.scenarios(adversarial=True), body, groups.explicit(), classify_found)
