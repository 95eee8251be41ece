"""Calling a strategy on a generated group: one answer per client, comparable as data.

Every call goes through :func:`~pytest_rmq_conformance.kinds.allocation.replay.call_strategy`
(copies of the lists, mutation check, per-call time limit). A call that
overruns the limit raises :class:`Hang`, a ``BaseException`` so that
hypothesis does not retry (and wait for) the same hang while shrinking.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pytest_rmq_conformance.engine.generated import budgets
from pytest_rmq_conformance.engine.running.hangs import Hang
from pytest_rmq_conformance.engine.running.nondeterminism import note_answer
from pytest_rmq_conformance.engine.running.timeouts import CallTimeout, StrategyFault, call_with_timeout
from pytest_rmq_conformance.kinds.allocation.failures import short_queues
from pytest_rmq_conformance.kinds.allocation.invariants import Violation
from pytest_rmq_conformance.kinds.allocation.replay import (
    Answer,
    answer_key,
    answer_problem,
    call_strategy,
    read_answer,
)
from pytest_rmq_conformance.kinds.allocation.scenarios import Scenario
from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues

__all__ = ["ask", "assign", "note_allocation", "TimedStrategy"]


def ask(
    strategy: Any,
    scenario: Scenario,
    caller: str | None,
    timeout: float | None,
    *,
    mq_all: Sequence[MessageQueue] | None = None,
    cid_all: Sequence[str] | None = None,
    copy_lists: bool = True,
) -> Answer:
    """``strategy``'s answer to ``caller`` in ``scenario`` (other list objects may be passed in;
    with ``copy_lists=False`` the strategy gets those very objects)."""
    budgets.check()
    mq_all = scenario.mq_all if mq_all is None else mq_all
    cid_all = scenario.cid_all if cid_all is None else cid_all
    answer = call_strategy(strategy, scenario.consumer_group, caller, mq_all, cid_all, timeout=timeout, copy_lists=copy_lists)
    if isinstance(answer.exception, CallTimeout):
        raise Hang(scenario, caller, timeout, "allocate()")
    note_allocation(strategy, scenario.consumer_group, caller, mq_all, cid_all, answer)
    return answer


Builder = Callable[[Scenario], Any]


def assign(
    build: Builder,
    scenario: Scenario,
    timeout: float | None,
    instances: dict[str, Any] | None = None,
    *,
    trusted: bool = False,
) -> tuple[dict[str, Sequence[MessageQueue]], list[Violation]]:
    """Every member's share of ``scenario``, each member with its own strategy instance.

    ``instances`` keeps the members' instances across calls (a client keeps
    its strategy from one rebalance to the next); a member without one gets
    ``build(scenario)``. Members whose call fails hold nothing and are
    reported as violations (kind ``exception``, ``wrong-type``, ``fault``,
    ``build``). A ``trusted`` strategy (a reference port, a function of its configuration) is
    built once for the group and asked with the scenario's own lists, unchecked and unrecorded:
    the sweep's evaluator judges the ports at the speed of their calls.
    """
    if trusted and instances is None:
        return _trusted_shares(build, scenario, timeout)
    instances = {} if instances is None else instances
    shares: dict[str, Sequence[MessageQueue]] = {}
    problems: list[Violation] = []
    for cid in scenario.clients:
        if cid not in instances:
            try:
                instances[cid] = build(scenario)
            except Exception as exc:  # the factory refused this configuration
                problems.append(_build_failed(exc, cid))
                shares[cid] = ()
                continue
    batched = _batched_answers(instances, scenario, [cid for cid in scenario.clients if cid not in shares])
    for cid in scenario.clients:
        if cid in shares:
            continue
        answer = batched[cid] if batched is not None else ask(instances[cid], scenario, cid, timeout)
        shares[cid] = _share(answer, cid, problems)
    return shares, problems


def _share(answer: Answer, cid: str, problems: list[Violation]) -> tuple[MessageQueue, ...]:
    """``cid``'s queues in ``answer``; nothing, with the problem added to ``problems``, when it is not a list of queues."""
    problem = answer_problem(answer)
    if problem is not None:
        problems.append(Violation(problem[0], f"for {cid!r}: {problem[1]}", clients=(cid,)))
        return ()
    return tuple(answer.queues or ())


def _build_failed(exc: Exception, cid: str) -> Violation:
    return Violation("build", f"building the strategy failed: {type(exc).__name__}: {exc}", clients=(cid,))


def _trusted_shares(build: Builder, scenario: Scenario, timeout: float | None) -> tuple[dict[str, Sequence[MessageQueue]], list[Violation]]:
    """A reference port's shares: one port for the group, asked by every member with the
    scenario's own lists; a list it returns is taken as its queues. The calls share one time
    limit, ``timeout`` per member."""
    try:
        port = build(scenario)
    except Exception as exc:
        return dict.fromkeys(scenario.clients, ()), [_build_failed(exc, cid) for cid in scenario.clients]
    allocate, group, mq_all, cid_all, clients = port.allocate, scenario.consumer_group, scenario.mq_all, scenario.cid_all, scenario.clients
    results: dict[str, Any] = {}
    raised: dict[str, Exception] = {}

    def ask_all() -> None:
        for cid in clients:
            try:
                results[cid] = allocate(group, cid, mq_all, cid_all)
            except Exception as exc:
                raised[cid] = exc

    limit = timeout * len(clients) if timeout else timeout
    try:
        call_with_timeout(ask_all, limit)
    except CallTimeout:
        caller = next((cid for cid in clients if cid not in results and cid not in raised), None)
        raise Hang(scenario, caller, limit, "allocate()") from None
    shares: dict[str, Sequence[MessageQueue]] = {}
    problems: list[Violation] = []
    for cid in clients:
        result = results.get(cid)
        if type(result) is list:
            shares[cid] = result  # a port's answer is a fresh list nobody else holds
            continue
        shares[cid] = _share(Answer(exception=raised[cid]) if cid in raised else read_answer(result, mq_all), cid, problems)
    return shares, problems


def _batched_answers(instances: dict[str, Any], scenario: Scenario, callers: list[str]) -> dict[str, Answer] | None:
    """All ``callers``' answers in one harness request when every one of them is the same
    family of the same harness (a remote call per caller costs a round trip each), else ``None``."""
    from pytest_rmq_conformance.kinds.allocation.protocol import RemoteStrategy, allocate

    members = [instances[cid] for cid in callers]
    if not members or not all(type(m) is RemoteStrategy for m in members):
        return None
    budgets.check()
    first = members[0]
    if any((m.harness, m.name, m.params, m.release) != (first.harness, first.name, first.params, first.release) for m in members):
        return None
    answers = allocate(first.harness, first.name, first.params, first.release, scenario.consumer_group, scenario.mq_all, scenario.cid_all, callers)
    for member, cid, answer in zip(members, callers, answers):
        note_allocation(member, scenario.consumer_group, cid, scenario.mq_all, scenario.cid_all, answer)
    return dict(zip(callers, answers))


class _Allocations:
    """How allocate() answers compare and print in a nondeterminism recording."""

    @staticmethod
    def key(answer: Answer) -> list:
        return answer_key(answer)

    @staticmethod
    def show(answer: Answer) -> str:
        if answer.queues is not None and all(type(mq) is MessageQueue for mq in answer.queues):
            return f"{len(answer.queues)} queue(s): {short_queues(java_sorted_queues(answer.queues))}"
        return answer.describe()

    @staticmethod
    def asked(question: Any) -> str:
        group, caller, mq_all, cid_all = question
        return (
            f"for caller {caller!r} of consumer group {group!r} "
            f"({len(mq_all or ())} queue(s), {len(cid_all or ())} client id(s))"
        )


def note_allocation(strategy: Any, consumer_group: Any, caller: Any, mq_all: Sequence | None, cid_all: Sequence | None, answer: Answer) -> None:
    """Keep ``answer`` in the active nondeterminism recording, if ``strategy`` is the strategy under test."""
    question = (consumer_group, caller, None if mq_all is None else tuple(mq_all), None if cid_all is None else tuple(cid_all))
    note_answer(strategy, question, answer, _Allocations)


class TimedStrategy:
    """``strategy`` whose ``allocate`` is cut off after ``timeout`` seconds (raising
    :class:`~pytest_rmq_conformance.engine.running.timeouts.CallTimeout`, which no rebalance swallows),
    respects a generated check's deadline and is noted for its nondeterminism replay: the
    strategy under test as a rebalance model's clients call it."""

    def __init__(self, strategy: Any, timeout: float | None):
        self.strategy = strategy
        self.timeout = timeout
        self.name = getattr(strategy, "name", type(strategy).__name__)

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        budgets.check()
        try:
            result = call_with_timeout(
                lambda: self.strategy.allocate(consumer_group, current_cid, mq_all, cid_all), self.timeout
            )
        except Exception as exc:
            note_allocation(self.strategy, consumer_group, current_cid, mq_all, cid_all, Answer(exception=exc))
            raise
        answer = read_answer(result, mq_all)
        note_allocation(self.strategy, consumer_group, current_cid, mq_all, cid_all, answer)
        if answer.fault is not None:  # an answer no client could use: the check stops here
            raise StrategyFault(f"for {current_cid!r}: {answer.fault}")
        return None if answer.returned_none else (result if answer.queues is None else list(answer.queues))
