"""The client's consumer offsets (``RemoteBrokerOffsetStore``) and where a new queue starts.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Iterable

from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.processqueue.broker import Broker, BrokerUnavailable

__all__ = [
    "OffsetStore",
    "READ_FROM_MEMORY",
    "READ_FROM_STORE",
    "MEMORY_FIRST_THEN_STORE",
    "CONSUME_FROM_LAST_OFFSET",
    "CONSUME_FROM_FIRST_OFFSET",
    "CONSUME_FROM_TIMESTAMP",
    "RETRY_GROUP_TOPIC_PREFIX",
]

READ_FROM_MEMORY = "READ_FROM_MEMORY"
READ_FROM_STORE = "READ_FROM_STORE"
MEMORY_FIRST_THEN_STORE = "MEMORY_FIRST_THEN_STORE"
CONSUME_FROM_LAST_OFFSET = "CONSUME_FROM_LAST_OFFSET"
CONSUME_FROM_FIRST_OFFSET = "CONSUME_FROM_FIRST_OFFSET"
CONSUME_FROM_TIMESTAMP = "CONSUME_FROM_TIMESTAMP"
RETRY_GROUP_TOPIC_PREFIX = "%RETRY%"


class OffsetStore:
    """Offsets a client has consumed to, cached locally and persisted to the broker.

    ``read_offset`` answers -1 when the broker has none and -2 when the broker
    could not be asked, as Java's store does.
    """

    def __init__(self, broker: Broker, group: str):
        self.broker = broker
        self.group = group
        self.offset_table: dict[MessageQueue, int] = {}
        self.frozen: set = set()

    def update_offset(self, mq: MessageQueue, offset: int, increase_only: bool) -> None:
        """Set the local offset (with ``increase_only``, never lower it); ignored while frozen."""
        if mq in self.frozen:
            return
        current = self.offset_table.get(mq)
        if current is None or not increase_only or offset > current:
            self.offset_table[mq] = offset

    def read_offset(self, mq: MessageQueue, read_type: str) -> int:
        if read_type in (READ_FROM_MEMORY, MEMORY_FIRST_THEN_STORE) and mq in self.offset_table:
            return self.offset_table[mq]
        if read_type == READ_FROM_MEMORY:
            return -1
        try:
            offset = self.broker.query_consumer_offset(self.group, mq)
        except BrokerUnavailable:
            return -2
        if offset >= 0:
            self.update_offset(mq, offset, False)
        return offset

    def persist(self, mq: MessageQueue) -> None:
        if mq in self.offset_table:
            try:
                self.broker.update_consumer_offset(self.group, mq, self.offset_table[mq])
            except BrokerUnavailable:
                pass

    def persist_all(self, mqs: Iterable[MessageQueue]) -> None:
        for mq in mqs:
            self.persist(mq)

    def update_and_freeze_offset(self, mq: MessageQueue, offset: int) -> None:
        """5.3.3: set the offset and ignore later updates until :meth:`remove_offset`."""
        self.frozen.discard(mq)
        self.update_offset(mq, offset, False)
        self.frozen.add(mq)

    def remove_offset(self, mq: MessageQueue) -> None:
        self.offset_table.pop(mq, None)
        self.frozen.discard(mq)
