"""Twins of the AVG reference port, one pair per rule of what Java's rebalance can observe of an
``allocate`` answer (DESIGN.md, "What Java can observe"): each ``*_UNOBSERVED`` twin differs from
the port only where Java cannot see it, and must pass; each ``*_OBSERVED`` twin differs where Java
can, and must fail with the class given in ``OBSERVED``."""

from __future__ import annotations

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely


class Reversed(AllocateMessageQueueAveragely):
    """Order: the rebalance puts the answer in a set, so another order is the same answer."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return list(reversed(super().allocate(consumer_group, current_cid, mq_all, cid_all)))


class Copies(AllocateMessageQueueAveragely):
    """Value: MessageQueue.equals compares fields, so an equal copy is the same queue."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return [MessageQueue(mq.topic, mq.broker_name, mq.queue_id) for mq in super().allocate(consumer_group, current_cid, mq_all, cid_all)]


class NoneForNothing(AllocateMessageQueueAveragely):
    """Empty: the rebalance reads null and an empty list alike (no queues for this client)."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return super().allocate(consumer_group, current_cid, mq_all, cid_all) or None


class OwnIllegalArgument(AllocateMessageQueueAveragely):
    """Errors: Java's IllegalArgumentException is any ValueError, whatever its message."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        try:
            return super().allocate(consumer_group, current_cid, mq_all, cid_all)
        except ValueError:
            raise ValueError("refused") from None


class Shifted(AllocateMessageQueueAveragely):
    """Value, observed: a member's share moved by one queue where it has one."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        share = super().allocate(consumer_group, current_cid, mq_all, cid_all)
        if not share or len(share) == len(mq_all):
            return share
        start = mq_all.index(share[0])
        return list(mq_all[(start + 1) % len(mq_all) :] + mq_all[: (start + 1) % len(mq_all)])[: len(share)]


class Subclassed(AllocateMessageQueueAveragely):
    """Value, observed: MessageQueue.equals compares classes, so a subclass is another queue."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return [_Other(mq.topic, mq.broker_name, mq.queue_id) for mq in super().allocate(consumer_group, current_cid, mq_all, cid_all)]


class _Other(MessageQueue):
    __slots__ = ()


class WrongError(AllocateMessageQueueAveragely):
    """Errors, observed: where Java throws IllegalArgumentException, a TypeError is another answer."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        try:
            return super().allocate(consumer_group, current_cid, mq_all, cid_all)
        except ValueError as exc:
            raise TypeError(str(exc)) from None


UNOBSERVED = ("Reversed", "Copies", "NoneForNothing", "OwnIllegalArgument")
OBSERVED = {"Shifted": "wrong-queues", "Subclassed": "wrong-queues", "WrongError": "error-behaviour"}
