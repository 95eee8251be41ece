"""Golden cases of producer queue selection: a fault-strategy trace, or the calls of a selector.

A line of ``golden/producer/<FAMILY>.jsonl`` (``schemas/golden-producer-case.schema.json``)
becomes a :class:`TraceCase` (``FAULT_STRATEGY``) or a :class:`SelectorCase` (``SELECTOR_HASH``,
``SELECTOR_RANDOM``): the inputs once, and Java's answers per group of releases.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_rmq_conformance.engine.golden.data import GoldenDataError, Run, check_runs

__all__ = ["TraceCase", "SelectorCase", "Answers", "parse_case"]


@dataclass(frozen=True)
class Answers:
    """Java's answers shared by a group of releases: one per step of a trace (``None`` where
    nothing is observed) with the publish list it built, or one per selector call."""

    runs: tuple[str, ...]
    answers: tuple[Any, ...]
    publish_list_runs: tuple[tuple[str, int], ...] = ()
    nondeterministic_step: int | None = None


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
            if len(group["steps"]) != len(data["steps"]):
                raise GoldenDataError(f"{where}: expect/{n} has {len(group['steps'])} step answers for {len(data['steps'])} steps")
            nondeterministic = group.get("nondeterministic")
            expect.append(
                Answers(
                    tuple(group["runs"]),
                    tuple(group["steps"]),
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
