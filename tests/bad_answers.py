"""Strategies whose answers are odd in form: each must get a clear verdict, and none may
crash or stall the run. Each answers as Java's AVG would, apart from its oddity."""

from __future__ import annotations

import sys

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely


class Generator(AllocateMessageQueueAveragely):
    """A one-shot iterable: read once, as Java's rebalance reads the List, it is accepted."""

    def allocate(self, *args):
        return (mq for mq in super().allocate(*args))


class HoldsNone(AllocateMessageQueueAveragely):
    def allocate(self, *args):
        return [*super().allocate(*args), None]


class Twice(AllocateMessageQueueAveragely):
    """Lists its first queue twice."""

    def allocate(self, *args):
        mine = super().allocate(*args)
        return mine + mine[:1]


class MyQueue(MessageQueue):
    __slots__ = ()


class Subclassed(AllocateMessageQueueAveragely):
    def allocate(self, *args):
        return [MyQueue(mq.topic, mq.broker_name, mq.queue_id) for mq in super().allocate(*args)]


class OtherTopic(AllocateMessageQueueAveragely):
    def allocate(self, *args):
        return [*super().allocate(*args), MessageQueue("SomeOtherTopic", "broker-a", 0)]


# one queue a million times: built in milliseconds by every process that imports this module
# (each in-process run, each worker of the subprocess checks), as long as any answer
MILLION = [MessageQueue("T", "b", 0)] * 10**6


class Million(AllocateMessageQueueAveragely):
    def allocate(self, *args):
        return MILLION


class NameRaises(AllocateMessageQueueAveragely):
    @property
    def name(self):
        raise RuntimeError("no name today")


class Exits(AllocateMessageQueueAveragely):
    def allocate(self, *args):
        sys.exit(3)


class Chatty(AllocateMessageQueueAveragely):
    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        print("allocating for", current_cid)
        print("and to stderr", file=sys.stderr)
        return super().allocate(consumer_group, current_cid, mq_all, cid_all)
