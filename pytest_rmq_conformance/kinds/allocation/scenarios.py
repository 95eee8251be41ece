"""Generated scenarios: one group's inputs, as data that prints and reloads.

A :class:`Scenario` is what every client of a group passes to ``allocate``
(the consumer group, ``mq_all`` and ``cid_all``) plus the configuration of
the strategy, in the golden files' vocabulary (``strategy`` names the Java
family whose ``params`` apply, or is ``None`` for a strategy with no Java
twin). It has the ``strategy``/``params``/``id`` attributes of a
:class:`~pytest_rmq_conformance.engine.golden.data.GoldenCase`, so builders and hooks
treat both alike. A :class:`Plan` is a group that changes membership step by
step.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_rmq_conformance.javalang import java_sorted_strings
from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues

__all__ = ["Scenario", "Event", "Plan", "EVENT_KINDS", "default_params", "java_ordered", "java_ordered_queues"]

#: membership events: a new client joins, a member leaves gracefully, a member crashes
#: (it is gone from ``cid_all``; if it comes back it is a new process, with a fresh instance)
EVENT_KINDS = ("join", "leave", "crash")


@dataclass(frozen=True)
class Scenario:
    """One group's inputs and the strategy configuration they are meant for."""

    strategy: str | None
    params: Mapping[str, Any]
    consumer_group: str
    mq_all: tuple[MessageQueue, ...]
    cid_all: tuple[str, ...]
    #: callers asked besides the members (e.g. a client that is not in ``cid_all``)
    strangers: tuple[str, ...] = ()
    id: str = field(default="generated", compare=False)

    @property
    def clients(self) -> tuple[str, ...]:
        """The distinct members, in first-seen order."""
        return tuple(dict.fromkeys(self.cid_all))

    @property
    def callers(self) -> tuple[str, ...]:
        """Everyone whose answer is compared: the members, then the strangers."""
        return tuple(dict.fromkeys(self.cid_all + self.strangers))

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "strategy": self.strategy,
            "params": dict(self.params),
            "consumerGroup": self.consumer_group,
            "mqAll": [mq.to_json() for mq in self.mq_all],
            "cidAll": list(self.cid_all),
        }
        if self.strangers:
            data["strangers"] = list(self.strangers)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Scenario:
        return cls(
            data.get("strategy"),
            dict(data.get("params") or {}),
            data["consumerGroup"],
            tuple(MessageQueue.from_json(t) for t in data["mqAll"]),
            tuple(data["cidAll"]),
            tuple(data.get("strangers", ())),
        )

    def dumps(self) -> str:
        """One line of JSON (non-ASCII kept readable)."""
        return json.dumps(self.to_json(), ensure_ascii=False)


@dataclass(frozen=True)
class Event:
    """One membership change: ``kind`` is one of :data:`EVENT_KINDS`."""

    kind: str
    client: str

    def __str__(self) -> str:
        return f"{self.kind} {self.client}"


@dataclass(frozen=True)
class Plan:
    """A group and the membership changes it goes through, in order."""

    start: Scenario
    events: tuple[Event, ...]

    def groups(self) -> list[tuple[Event | None, tuple[str, ...]]]:
        """``(event, members after it)`` for the start (event ``None``) and each event."""
        members = list(self.start.clients)
        steps: list[tuple[Event | None, tuple[str, ...]]] = [(None, tuple(members))]
        for event in self.events:
            if event.kind == "join":
                members.append(event.client)
            else:
                members.remove(event.client)
            steps.append((event, tuple(members)))
        return steps

    def to_json(self) -> dict[str, Any]:
        return {"start": self.start.to_json(), "events": [[e.kind, e.client] for e in self.events]}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)


def default_params(family: str | None, mq_all: Sequence[MessageQueue]) -> dict[str, Any]:
    """A configuration of ``family`` (golden vocabulary) that suits ``mq_all`` (see
    :attr:`~pytest_rmq_conformance.kinds.allocation.family.AllocationFamily.default_params`)."""
    if family is None:
        return {}
    from pytest_rmq_conformance.kinds.allocation.family import get as family_record

    return family_record(family).default_params(mq_all)


def java_ordered(scenario: Scenario, members: Sequence[str]) -> Scenario:
    """``scenario`` with ``members`` as ``cid_all``, both lists in Java order, as a rebalance passes them."""
    return Scenario(
        scenario.strategy,
        scenario.params,
        scenario.consumer_group,
        java_ordered_queues(scenario.mq_all),
        tuple(java_sorted_strings(members)),
    )


#: the last queue tuple put in Java order, and that order: a sweep's strategies order the same tuple
_last_ordered: list[Any] = [None, ()]


def java_ordered_queues(mq_all: Sequence[MessageQueue]) -> tuple[MessageQueue, ...]:
    """``mq_all`` in Java order as a tuple: ``mq_all`` itself when it is a tuple already in that
    order (the last one ordered is kept)."""
    seen, ordered = _last_ordered
    if seen is not mq_all or type(mq_all) is not tuple:  # a tuple is held here, so no other takes its id
        ordered = tuple(java_sorted_queues(mq_all))
        if type(mq_all) is tuple and ordered == mq_all:
            ordered = mq_all  # already in Java order: the same tuple
        _last_ordered[:] = [mq_all, ordered]
    return ordered
