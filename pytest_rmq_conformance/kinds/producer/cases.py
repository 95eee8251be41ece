"""Golden cases of producer queue selection: a fault-strategy trace, or the calls of a selector.

A line of ``golden/producer/<FAMILY>.jsonl`` (``schemas/golden-producer-case.schema.json``)
becomes a :class:`TraceCase` (``FAULT_STRATEGY``) or a :class:`SelectorCase` (``SELECTOR_HASH``,
``SELECTOR_RANDOM``): the inputs once, and Java's answers per group of releases.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pytest_rmq_conformance.engine.golden.data import GoldenDataError, RawJSON, Run, check_runs

__all__ = ["TraceCase", "SelectorCase", "Answers", "StepAnswers", "NotRun", "parse_case"]


@dataclass(frozen=True)
class Answers:
    """Java's answers shared by a group of releases: one per step of a trace (``None`` where
    nothing is observed) with the publish list it built, or one per selector call.
    ``answers`` is a tuple, or a :class:`StepAnswers` that reads as one."""

    runs: tuple[str, ...]
    answers: Sequence[Any]
    publish_list_runs: tuple[tuple[str, int], ...] = ()
    nondeterministic_step: int | None = None


class StepAnswers(Sequence[Any]):
    """A trace's step answers as its golden line holds them (a :class:`RawJSON`), parsed when
    read: a sequence equal to the tuple of them. The answers parsed last are kept (reading
    them item by item parses them once), no others. ``GoldenDataError`` naming ``where`` if
    they are not ``count`` answers."""

    __slots__ = ("_count", "_end", "_start", "_text", "_where")
    #: the answers parsed last, and whose they are
    _last: ClassVar[tuple[StepAnswers, tuple[Any, ...]] | None] = None

    def __init__(self, raw: RawJSON, count: int, where: str):
        self._text, self._start, self._end = raw.text, raw.start, raw.end  # not the RawJSON: one object less per group
        self._count, self._where = count, where

    def decoded(self) -> tuple[Any, ...]:
        """The answers, parsed (or the ones parsed last, if they are these)."""
        last = StepAnswers._last
        if last is not None and last[0] is self:
            return last[1]
        try:
            value, end = _DECODER.raw_decode(self._text, self._start)
        except ValueError as exc:
            raise GoldenDataError(f"{self._where}: step answers that are not JSON: {exc}") from None
        if end != self._end or not isinstance(value, list) or len(value) != self._count:
            count = f"{len(value)} step answers" if isinstance(value, list) else "no array of step answers"
            raise GoldenDataError(f"{self._where}: {count} for {self._count} steps, or not where its length hint says")
        answers = tuple(value)
        StepAnswers._last = (self, answers)
        return answers

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):
        return self.decoded()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.decoded())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StepAnswers):
            return self is other or self.decoded() == other.decoded()
        if isinstance(other, tuple):
            return self.decoded() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.decoded())


_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class _Case:
    id: str
    strategy: str
    params: Mapping[str, Any]
    category: str
    flags: tuple[str, ...]
    expect: tuple[Answers, ...]
    source: str = field(default="", compare=False)

    @property
    def runs(self) -> tuple[str, ...]:
        return tuple(run for group in self.expect for run in group.runs)

    def answers_for(self, run: str) -> Answers:
        for group in self.expect:
            if run in group.runs:
                return group
        raise KeyError(f"{self.id} has no answers for run {run}")


@dataclass(frozen=True)
class TraceCase(_Case):
    """One producer sending on one thread: a route, a starting state and the steps taken."""

    topic: str = ""
    route: Mapping[str, Any] = field(default_factory=dict)
    initial: Mapping[str, Any] = field(default_factory=dict)
    steps: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class NotRun:
    """A selector call a harness did not make (``{"notRun": reason}``): never judged, never passed."""

    reason: str


@dataclass(frozen=True)
class SelectorCase(_Case):
    """One selector called once per queue count, in order (``arg`` for ``SELECTOR_HASH``)."""

    queue_counts: tuple[int, ...] = ()
    arg: Mapping[str, Any] | None = None
    arg_hash_code: int | None = None


def parse_case(data: Mapping[str, Any], where: str, runs: Mapping[str, Run]) -> TraceCase | SelectorCase:
    """A schema-valid case document as a case; ``GoldenDataError`` naming ``where`` when it
    names runs the manifest does not have, or answers that do not fit its inputs."""
    check_runs(data["expect"], where, runs)
    expect = []
    for n, group in enumerate(data["expect"]):
        if "steps" in group:
            steps = group["steps"]
            if isinstance(steps, RawJSON):  # shipped data, read lazily
                if steps.length is None and not steps.text.startswith("[", steps.start):
                    raise GoldenDataError(f"{where}: expect/{n}/steps is not an array")
                count = len(data["steps"]) if steps.length is None else steps.length  # passed over: counted when parsed
                answers: Sequence[Any] = StepAnswers(steps, count, f"{where} expect/{n}")
            else:
                answers = tuple(steps)
            if len(answers) != len(data["steps"]):
                raise GoldenDataError(f"{where}: expect/{n} has {len(answers)} step answers for {len(data['steps'])} steps")
            nondeterministic = group.get("nondeterministic")
            expect.append(
                Answers(
                    tuple(group["runs"]),
                    answers,
                    tuple((broker, count) for broker, count in group["publishListRuns"]),
                    None if nondeterministic is None else nondeterministic["step"],
                )
            )
        else:
            if len(group["results"]) != len(data["queueCounts"]):
                raise GoldenDataError(f"{where}: expect/{n} has {len(group['results'])} results for {len(data['queueCounts'])} calls")
            expect.append(Answers(tuple(group["runs"]), tuple(group["results"])))
    common = {
        "id": data["id"],
        "strategy": data["strategy"],
        "params": data["params"],
        "category": data["category"],
        "flags": tuple(data["flags"]),
        "expect": tuple(expect),
        "source": where,
    }
    if data["strategy"] == "FAULT_STRATEGY":
        return TraceCase(**common, topic=data["topic"], route=data["route"], initial=data["initial"], steps=tuple(data["steps"]))
    return SelectorCase(
        **common, queue_counts=tuple(data["queueCounts"]), arg=data.get("arg"), arg_hash_code=data.get("argHashCode")
    )


def publish_list(runs: Sequence[Sequence[Any]]) -> list[tuple[str, int]]:
    """The ``(brokerName, queueId)`` entries a publish list written as runs stands for."""
    return [(broker, queue_id) for broker, count in runs for queue_id in range(count)]
