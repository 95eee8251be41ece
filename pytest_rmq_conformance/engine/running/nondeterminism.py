"""Telling a nondeterministic strategy from a wrong one: the answers of a check, asked twice.

While a :func:`recording` is active, every answer the strategy under test
gives (strategies built by the subject are marked with :func:`note_built`)
is kept under its exact question (:func:`note_answer`: the kind says what a question is, and
how its answers compare and print). :func:`first_difference` compares two recordings of the
same example and names the first call answered otherwise the second time.

    with recording() as first:
        body(example)
    with recording() as second:
        body(example)
    difference = first_difference(first, second)

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["Answers", "Recording", "Difference", "recording", "note_built", "note_answer", "first_difference"]

_active: ContextVar[Recording | None] = ContextVar("rmq_recording", default=None)


class Answers(Protocol):
    """How a kind's answers compare and print, for :func:`note_answer`."""

    def key(self, answer: Any) -> Any:
        """``answer`` as data that compares equal exactly when two answers are the same."""
        ...

    def show(self, answer: Any) -> str:
        """``answer`` in a few words."""
        ...

    def asked(self, question: Any) -> str:
        """The call that ``question`` is, in a few words (``for caller 'c1' of consumer group ...``)."""
        ...


@dataclass
class Recording:
    """The calls of the strategy under test, in the order made: (question, answer, how it reads).
    Kept as given; keys are computed only when two recordings are compared."""

    calls: list[tuple[tuple[str, Hashable], Any, Answers]] = field(default_factory=list)
    #: id -> (strategy, configuration) of every strategy built for the check; kept alive so ids stay unique
    built: dict[int, tuple[Any, str]] = field(default_factory=dict)

    def by_question(self) -> dict[tuple[str, Hashable], list[tuple[Any, Answers]]]:
        """The answers per question, in the order they were given."""
        grouped: dict[tuple[str, Hashable], list[tuple[Any, Answers]]] = {}
        for question, answer, answers in self.calls:
            grouped.setdefault(question, []).append((answer, answers))
        return grouped


@dataclass(frozen=True)
class Difference:
    """One call answered two ways, once in each recording."""

    asked: str
    first: str
    second: str

    def lines(self) -> list[str]:
        return [f"{self.asked}, the very same call:", f"  first:  {self.first}", f"  replay: {self.second}"]


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


def note_answer(strategy: Any, question: Hashable, answer: Any, answers: Answers) -> None:
    """Keep ``answer`` to ``question`` when ``strategy`` is the strategy under test (outside a
    recording, or for another strategy: nothing)."""
    found = _active.get()
    entry = None if found is None else found.built.get(id(strategy))
    if found is None or entry is None or entry[0] is not strategy:
        return
    found.calls.append(((entry[1], question), answer, answers))


def first_difference(first: Recording, second: Recording) -> Difference | None:
    """The first question whose answer in ``second`` differs from the same call's in ``first``
    (the n-th time it was asked there: a strategy may keep state, as long as it keeps it the
    same way each time)."""
    replayed = second.by_question()
    for question, given in first.by_question().items():
        for (answer, answers), (again, _) in zip(given, replayed.get(question, [])):
            if answers.key(answer) != answers.key(again):
                return Difference(answers.asked(question[1]), answers.show(answer), answers.show(again))
    return None
