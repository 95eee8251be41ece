"""Queue layouts: how the fixed cases and the sweep lay queues over topics and brokers.

Queue ``i`` goes to the ``i % n``-th (topic, broker) pair, with id ``i // n``;
the result is in Java order, as a rebalance passes it. Machine-room strategies
only serve brokers named ``<room>@<name>``: :func:`broker_names` gives those
when the family needs rooms (``Family.needs_rooms``).

    >>> [str(mq) for mq in queue_layout(3, brokers=broker_names(2, rooms=True))][:2]
    ['MessageQueue [topic=TopicTest, brokerName=IDC1@broker-a, queueId=0]', 'MessageQueue [topic=TopicTest, brokerName=IDC1@broker-a, queueId=1]']

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_rmq_conformance.kinds.allocation.family import get as family_record
from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues

__all__ = ["BROKERS", "ROOMS", "broker_names", "needs_rooms", "queue_layout", "client_ids"]

BROKERS = ("broker-a", "broker-b", "broker-c", "broker-d")
ROOMS = ("IDC1", "IDC2")


def needs_rooms(family: str | None) -> bool:
    """Whether strategies of ``family`` serve only brokers that name a machine room."""
    return family is not None and family_record(family).needs_rooms


def broker_names(count: int, rooms: bool = False) -> tuple[str, ...]:
    """The first ``count`` broker names, each in a room (``IDC1@broker-a``, ``IDC2@broker-b``, ...) when ``rooms``."""
    return tuple(f"{ROOMS[i % len(ROOMS)]}@{name}" if rooms else name for i, name in enumerate(BROKERS[:count]))


def queue_layout(
    count: int, topics: Sequence[str] = ("TopicTest",), brokers: Sequence[str] = BROKERS[:2]
) -> list[MessageQueue]:
    """``count`` queues spread over every (topic, broker) pair, ids 0, 1, ... per pair, in Java order."""
    pairs = [(topic, broker) for topic in topics for broker in brokers]
    return java_sorted_queues(
        MessageQueue(pairs[i % len(pairs)][0], pairs[i % len(pairs)][1], i // len(pairs)) for i in range(count)
    )


def client_ids(count: int, subnet: str = "192.168.0", first_pid: int = 1000) -> list[str]:
    """``count`` client ids shaped like Java's ``IP@pid``."""
    return [f"{subnet}.{i + 1}@{first_pid + i}" for i in range(count)]
