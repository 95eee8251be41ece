"""Differential checks: the strategy against the reference port on a generated group.

The reference ports reproduce every golden vector, so on inputs the golden
files lack they stand in for Java: a caller whose answer differs from the
port's is a :class:`~pytest_rmq_conformance.engine.replay.Mismatch`, compared as in
the golden replay (sets by default, exceptions by kind).
"""

from __future__ import annotations

from typing import Any

from pytest_rmq_conformance.engine.calls import ask
from pytest_rmq_conformance.engine.golden import ILLEGAL_ARGUMENT, Expected, JavaError
from pytest_rmq_conformance.engine.replay import Answer, Mismatch, compare_answer
from pytest_rmq_conformance.engine.scenarios import Scenario

__all__ = ["expected_from", "differences"]


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
    (called once each; a factory that raises answers every caller with its
    exception, as a refusing Java constructor would).
    """
    try:
        strategy = strategy_for(scenario)
    except Exception as exc:
        strategy = _Raising(exc)
    try:
        reference = reference_for(scenario)
    except Exception as exc:
        reference = _Raising(exc)
    found = []
    for caller in scenario.callers:
        expected = expected_from(caller, ask(reference, scenario, caller, None))
        answer = ask(strategy, scenario, caller, timeout)
        verdict = compare_answer(expected, answer, strict_order=strict_order, mq_all=scenario.mq_all)
        if verdict is not None:
            problem, missing, extra = verdict
            found.append(Mismatch(scenario.id, "generated", expected, answer, problem, missing, extra))
    return found


class _Raising:
    """Stands in for a strategy whose construction raised: every call raises the same."""

    def __init__(self, exc: Exception):
        self.exc = exc

    def allocate(self, *args):
        raise self.exc
