"""Strategies that compute as Java does on their own and break a group they share with Java's."""

import zlib

from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely
from pytest_rmq_conformance.ports.producer.selectors import SelectMessageQueueByHash


class ReverseSorted(AllocateMessageQueueAveragely):
    """Java's averagely over the client ids sorted the other way: a partition on its own, not Java's."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return super().allocate(consumer_group, current_cid, mq_all, sorted(cid_all, reverse=True))


class RefusesOne(AllocateMessageQueueAveragely):
    """Java's averagely, but raises for a client whose id ends in ``@1001``."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if current_cid.endswith("@1001"):
            raise RuntimeError("no share for you")
        return super().allocate(consumer_group, current_cid, mq_all, cid_all)


class Crc32Selector(SelectMessageQueueByHash):
    """A hash selector with another hash: CRC-32 of the key's UTF-8 bytes."""

    def select(self, mqs, msg, arg):
        return mqs[zlib.crc32(str(arg).encode()) % len(mqs)]


class SameSelector(SelectMessageQueueByHash):
    """Java's hash selector as a user's class."""


class Averagely(AllocateMessageQueueAveragely):
    """Java's averagely as a user's class."""
