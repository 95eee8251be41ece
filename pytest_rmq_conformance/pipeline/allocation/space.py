"""Internal: the allocation sweep's scenario space.

The sweep's scenario space: scenario ``i`` of a seed is the same on any machine and in any
partition, because it is drawn from its own generator seeded by ``(seed, i)``.

A scenario is a :class:`~pytest_rmq_conformance.kinds.allocation.scenarios.Plan`, as in the suite: a
group (queues and members in Java order, no strategy configuration yet) and one join,
leave or crash.

    >>> space = SweepSpace(queues=(24, 24), consumers=(4, 4), events=("leave",), seed=7)
    >>> plan = space.plan(0)
    >>> (len(plan.start.mq_all), len(plan.start.clients), plan.events[0].kind)
    (24, 4, 'leave')
    >>> plan == space.plan(0)
    True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter

from pytest_rmq_conformance.javalang import java_sorted_strings
from pytest_rmq_conformance.kinds.allocation.layouts import broker_names, queue_layout
from pytest_rmq_conformance.kinds.allocation.scenarios import Event, Plan, Scenario

__all__ = ["SweepSpace", "EVENTS", "fixed_example", "layout_of"]

EVENTS = ("leave", "join", "crash")


def layout_of(plan: Plan) -> tuple[int, int, bool]:
    """``(topics, brokers, rooms)`` of a plan's queues."""
    queues = plan.start.mq_all
    brokers = set(map(attrgetter("broker_name"), queues))
    return len(set(map(attrgetter("topic"), queues))), len(brokers), any("@" in name for name in brokers)


@dataclass(frozen=True)
class SweepSpace:
    """Queue and consumer counts (inclusive ranges), the events, the seed, and how many scenarios."""

    queues: tuple[int, int] = (1, 1024)
    consumers: tuple[int, int] = (1, 100)
    events: Sequence[str] = EVENTS
    seed: int = 0
    count: int = 10000
    layouts: bool = True

    def __post_init__(self) -> None:
        unknown = [e for e in self.events if e not in EVENTS]
        if unknown or not self.events:
            raise ValueError(f"events must be among {', '.join(EVENTS)}, not {', '.join(self.events) or 'none'}")

    def plan(self, index: int) -> Plan:
        """Scenario ``index``: a group and one membership change."""
        rng = random.Random(f"rmq-sweep:{self.seed}:{index}")
        queue_count = rng.randint(*self.queues)
        member_count = rng.randint(*self.consumers)
        topics = rng.choice((1, 1, 2, 3)) if self.layouts else 1
        brokers = rng.choice((1, 2, 2, 4)) if self.layouts else 1
        rooms = rng.random() < 0.5 if self.layouts else False
        mq_all = queue_layout(queue_count, [f"Topic{t}" for t in range(topics)], broker_names(brokers, rooms))
        members = [f"10.{index % 251}.{i // 250}.{i % 250}@{1000 + i}" for i in range(member_count)]
        kind = rng.choice(list(self.events))
        if kind != "join" and member_count < 2:
            kind = "join"  # a group of one has nobody left to serve it
        client = f"10.{index % 251}.9.{member_count}@{9000 + member_count}" if kind == "join" else rng.choice(members)
        start = Scenario(None, {}, "group", tuple(mq_all), tuple(java_sorted_strings(members)), id=f"sweep-{self.seed}-{index}")
        return Plan(start, (Event(kind, client),))

    def describe(self) -> dict:
        return {
            "queues": list(self.queues),
            "consumers": list(self.consumers),
            "events": list(self.events),
            "seed": self.seed,
            "scenarios": self.count,
            "layouts": self.layouts,
        }


def fixed_example(queues: int = 24, consumers: int = 4, leaver: int | None = 1) -> Plan:
    """The comparison the report leads with: ``queues`` on one broker (in machine room IDC1, so
    that every strategy serves them), ``consumers`` clients, the second one leaves (or, with
    ``leaver=None``, a new one joins)."""
    mq_all = queue_layout(queues, brokers=("IDC1@broker-a",))
    members = [f"10.0.0.{i}@1" for i in range(1, consumers + 1)]
    event = Event("join", f"10.0.0.{consumers + 1}@1") if leaver is None else Event("leave", members[leaver])
    return Plan(Scenario(None, {}, "group", tuple(mq_all), tuple(java_sorted_strings(members)), id="example"), (event,))
