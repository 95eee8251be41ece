"""The sweep's scenario space: scenario ``i`` of a seed is the same on any machine and in any
partition, because it is drawn from its own generator seeded by ``(seed, i)``.

    >>> space = SweepSpace(queues=(24, 24), consumers=(4, 4), events=("leave",), seed=7)
    >>> drawn = space.scenario(0)
    >>> (len(drawn.mq_all), len(drawn.members), drawn.event)
    (24, 4, 'leave')
    >>> drawn == space.scenario(0)
    True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from pytest_rmq_conformance.javalang import java_sorted_strings
from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues

__all__ = ["SweepSpace", "Drawn", "parse_range", "EVENTS"]

EVENTS = ("leave", "join", "crash")
BROKERS = ("broker-a", "broker-b", "broker-c", "broker-d")
ROOMS = ("IDC1", "IDC2")


def parse_range(text: str, name: str, low: int, high: int) -> Tuple[int, int]:
    """``"MIN:MAX"`` (or one number) as a checked pair."""
    parts = text.split(":")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise ValueError(f"{name} must be MIN:MAX or a number, not {text!r}") from None
    if len(values) == 1:
        values *= 2
    if len(values) != 2 or not low <= values[0] <= values[1] <= high:
        raise ValueError(f"{name} must be MIN:MAX with {low} <= MIN <= MAX <= {high}, not {text!r}")
    return values[0], values[1]


@dataclass(frozen=True)
class Drawn:
    """One scenario: a group (queues in Java order, members), a layout, and one membership change."""

    index: int
    topics: int
    brokers: int
    rooms: bool
    mq_all: Tuple[MessageQueue, ...]
    members: Tuple[str, ...]
    event: str
    client: str

    @property
    def after(self) -> Tuple[str, ...]:
        """The members once the event happened, in Java order."""
        if self.event == "join":
            return tuple(java_sorted_strings(self.members + (self.client,)))
        return tuple(m for m in self.members if m != self.client)


@dataclass(frozen=True)
class SweepSpace:
    """Queue and consumer counts (inclusive ranges), the events, the seed, and how many scenarios."""

    queues: Tuple[int, int] = (1, 1024)
    consumers: Tuple[int, int] = (1, 100)
    events: Sequence[str] = EVENTS
    seed: int = 0
    count: int = 10000
    layouts: bool = True

    def __post_init__(self) -> None:
        unknown = [e for e in self.events if e not in EVENTS]
        if unknown or not self.events:
            raise ValueError(f"events must be among {', '.join(EVENTS)}, not {', '.join(self.events) or 'none'}")

    def scenario(self, index: int) -> Drawn:
        rng = random.Random(f"rmq-sweep:{self.seed}:{index}")
        queue_count = rng.randint(*self.queues)
        member_count = rng.randint(*self.consumers)
        topics = rng.choice((1, 1, 2, 3)) if self.layouts else 1
        brokers = rng.choice((1, 2, 2, 4)) if self.layouts else 1
        rooms = rng.random() < 0.5 if self.layouts else False
        names = [f"{ROOMS[i % len(ROOMS)]}@{b}" if rooms else b for i, b in enumerate(BROKERS[:brokers])]
        pairs = [(f"Topic{t}", b) for t in range(topics) for b in names]
        mq_all = [MessageQueue(pairs[i % len(pairs)][0], pairs[i % len(pairs)][1], i // len(pairs)) for i in range(queue_count)]
        members = [f"10.{index % 251}.{i // 250}.{i % 250}@{1000 + i}" for i in range(member_count)]
        event = rng.choice(list(self.events))
        if event != "join" and member_count < 2:
            event = "join"  # a group of one has nobody left to serve it
        client = f"10.{index % 251}.9.{member_count}@{9000 + member_count}" if event == "join" else rng.choice(members)
        return Drawn(
            index,
            topics,
            brokers,
            rooms,
            tuple(java_sorted_queues(mq_all)),
            tuple(java_sorted_strings(members)),
            event,
            client,
        )

    def describe(self) -> dict:
        return {
            "queues": list(self.queues),
            "consumers": list(self.consumers),
            "events": list(self.events),
            "seed": self.seed,
            "scenarios": self.count,
            "layouts": self.layouts,
        }


def fixed_example(queues: int = 24, consumers: int = 4, leaver: Optional[int] = 1) -> Drawn:
    """The comparison the report leads with: ``queues`` on one broker (in machine room IDC1, so
    that every strategy serves them), ``consumers`` clients, the second one leaves (or, with
    ``leaver=None``, a new one joins)."""
    mq_all = java_sorted_queues(MessageQueue("TopicTest", "IDC1@broker-a", q) for q in range(queues))
    members: List[str] = [f"10.0.0.{i}@1" for i in range(1, consumers + 1)]
    event, client = ("join", f"10.0.0.{consumers + 1}@1") if leaver is None else ("leave", members[leaver])
    return Drawn(-1, 1, 1, False, tuple(mq_all), tuple(java_sorted_strings(members)), event, client)
