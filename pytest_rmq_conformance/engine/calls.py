"""Calling a strategy on a generated group: one answer per client, comparable as data.

Every call goes through :func:`~pytest_rmq_conformance.engine.replay.call_strategy`
(copies of the lists, mutation check, per-call time limit). A call that
overruns the limit raises :class:`Hang`, a ``BaseException`` so that
hypothesis does not retry (and wait for) the same hang while shrinking.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pytest_rmq_conformance.engine import budgets
from pytest_rmq_conformance.engine.invariants import Violation
from pytest_rmq_conformance.engine.nondeterminism import note_answer
from pytest_rmq_conformance.engine.replay import Answer, answer_problem, call_strategy
from pytest_rmq_conformance.engine.scenarios import Scenario
from pytest_rmq_conformance.engine.timeouts import CallTimeout
from pytest_rmq_conformance.model import MessageQueue

__all__ = ["Hang", "ask", "assign"]


class Hang(BaseException):
    """A call that did not return within the per-call limit."""

    def __init__(self, scenario: Scenario, caller: str | None, limit: float | None, what: str = "allocate()"):
        super().__init__(f"{what} for {caller!r} did not return within {limit} s (--rmq-timeout)")
        self.scenario, self.caller, self.limit = scenario, caller, limit


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
        raise Hang(scenario, caller, timeout)
    note_answer(strategy, scenario.consumer_group, caller, mq_all, cid_all, answer)
    return answer


Builder = Callable[[Scenario], Any]


def assign(
    build: Builder,
    scenario: Scenario,
    timeout: float | None,
    instances: dict[str, Any] | None = None,
) -> tuple[dict[str, tuple[MessageQueue, ...]], list[Violation]]:
    """Every member's share of ``scenario``, each member with its own strategy instance.

    ``instances`` keeps the members' instances across calls (a client keeps
    its strategy from one rebalance to the next); a member without one gets
    ``build(scenario)``. Members whose call fails hold nothing and are
    reported as violations (kind ``exception``, ``wrong-type``, ``fault``,
    ``build``).
    """
    instances = {} if instances is None else instances
    shares: dict[str, tuple[MessageQueue, ...]] = {}
    problems: list[Violation] = []
    for cid in scenario.clients:
        if cid not in instances:
            try:
                instances[cid] = build(scenario)
            except Exception as exc:  # the factory refused this configuration
                problems.append(Violation("build", f"building the strategy failed: {type(exc).__name__}: {exc}", clients=(cid,)))
                shares[cid] = ()
                continue
    batched = _batched_answers(instances, scenario, [cid for cid in scenario.clients if cid not in shares])
    for cid in scenario.clients:
        if cid in shares:
            continue
        answer = batched[cid] if batched is not None else ask(instances[cid], scenario, cid, timeout)
        problem = answer_problem(answer)
        if problem is not None:
            problems.append(Violation(problem[0], f"for {cid!r}: {problem[1]}", clients=(cid,)))
            shares[cid] = ()
        else:
            shares[cid] = tuple(answer.queues or ())
    return shares, problems


def _batched_answers(instances: dict[str, Any], scenario: Scenario, callers: list[str]) -> dict[str, Answer] | None:
    """All ``callers``' answers in one harness request when every one of them is the same
    family of the same harness (a remote call per caller costs a round trip each), else ``None``."""
    from pytest_rmq_conformance.engine.remote import RemoteStrategy

    members = [instances[cid] for cid in callers]
    if not members or not all(type(m) is RemoteStrategy for m in members):
        return None
    budgets.check()
    first = members[0]
    if any((m.harness, m.name, m.params, m.release) != (first.harness, first.name, first.params, first.release) for m in members):
        return None
    answers = first.harness.allocate(first.name, first.params, first.release, scenario.consumer_group, scenario.mq_all, scenario.cid_all, callers)
    for member, cid, answer in zip(members, callers, answers):
        note_answer(member, scenario.consumer_group, cid, scenario.mq_all, scenario.cid_all, answer)
    return dict(zip(callers, answers))
