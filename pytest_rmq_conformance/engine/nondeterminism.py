"""Telling a nondeterministic strategy from a wrong one: the answers of a check, asked twice.

While a :func:`recording` is active, every answer the strategy under test
gives (strategies built by the subject are marked with :func:`note_built`)
is kept under its exact question: configuration, consumer group, caller and
both lists. :func:`first_difference` compares two recordings of the same
example and names the first call answered otherwise the second time.

    with recording() as first:
        body(example)
    with recording() as second:
        body(example)
    difference = first_difference(first, second)
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Recording", "Difference", "recording", "note_built", "note_answer", "first_difference"]

_active: ContextVar[Recording | None] = ContextVar("rmq_recording", default=None)

Question = tuple[str, Any, Any, Any, Any]


@dataclass
class Recording:
    """The calls of the strategy under test, in the order made: (question, answer). Kept as
    given; keys are computed only when two recordings are compared."""

    calls: list[tuple[Question, Any]] = field(default_factory=list)
    #: id -> (strategy, configuration) of every strategy built for the check; kept alive so ids stay unique
    built: dict[int, tuple[Any, str]] = field(default_factory=dict)

    def by_question(self) -> dict[Question, list[Any]]:
        """The answers per question, in the order they were given."""
        grouped: dict[Question, list[Any]] = {}
        for question, answer in self.calls:
            grouped.setdefault(question, []).append(answer)
        return grouped


@dataclass(frozen=True)
class Difference:
    """One call answered two ways, once in each recording."""

    caller: Any
    consumer_group: Any
    queues: int
    clients: int
    first: str
    second: str

    def lines(self) -> list[str]:
        return [
            f"for caller {self.caller!r} of consumer group {self.consumer_group!r} "
            f"({self.queues} queue(s), {self.clients} client id(s)), the very same call:",
            f"  first:  {self.first}",
            f"  replay: {self.second}",
        ]


@contextmanager
def recording() -> Iterator[Recording]:
    """Record the answers of the strategy under test until the block ends."""
    found = Recording()
    token = _active.set(found)
    try:
        yield found
    finally:
        _active.reset(token)


def note_built(strategy: Any, strategy_name: Any, params: Any) -> None:
    """Mark ``strategy`` as built by the strategy under test for ``params`` (outside a recording: nothing)."""
    found = _active.get()
    if found is not None:
        found.built[id(strategy)] = (strategy, json.dumps([strategy_name, params], sort_keys=True, default=str))


def note_answer(strategy: Any, consumer_group: Any, caller: Any, mq_all: Sequence | None, cid_all: Sequence | None, answer) -> None:
    """Keep ``answer`` (an :class:`~pytest_rmq_conformance.engine.replay.Answer`) when ``strategy`` is the strategy under test."""
    found = _active.get()
    entry = None if found is None else found.built.get(id(strategy))
    if found is None or entry is None or entry[0] is not strategy:
        return
    lists = (None if mq_all is None else tuple(mq_all), None if cid_all is None else tuple(cid_all))
    found.calls.append(((entry[1], consumer_group, caller, *lists), answer))


def first_difference(first: Recording, second: Recording) -> Difference | None:
    """The first question whose answer in ``second`` differs from the same call's in ``first``
    (the n-th time it was asked there: a strategy may keep state, as long as it keeps it the
    same way each time)."""
    from pytest_rmq_conformance.engine.replay import answer_key

    replayed = second.by_question()
    for question, answers in first.by_question().items():
        for answer, again in zip(answers, replayed.get(question, [])):
            if answer_key(answer) != answer_key(again):
                _, group, caller, mq_all, cid_all = question
                return Difference(caller, group, len(mq_all or ()), len(cid_all or ()), _show(answer), _show(again))
    return None


def _show(answer) -> str:
    from pytest_rmq_conformance.engine.reports import short_queues
    from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues

    if answer.queues is not None and all(type(mq) is MessageQueue for mq in answer.queues):
        return f"{len(answer.queues)} queue(s): {short_queues(java_sorted_queues(answer.queues))}"
    return answer.describe()
