"""The broker side a rebalance talks to: consumer lists, offsets, messages and queue locks.

One :class:`Broker` stands for every broker of the topics (its state is kept
per queue); :meth:`Broker.fail` makes calls to one broker name fail, as when
its master is down.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pytest_rmq_conformance.javalang import java_sorted_strings
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.processqueue.clock import ManualClock, as_clock
from pytest_rmq_conformance.processqueue.config import ClientConfig
from pytest_rmq_conformance.processqueue.process_queue import PROPERTY_MAX_OFFSET, Message

__all__ = ["Broker", "BrokerUnavailable", "LockEntry", "RebalanceLockManager"]


class BrokerUnavailable(Exception):
    """The call did not reach the broker (no master, timeout, connection refused)."""


@dataclass
class LockEntry:
    client_id: str
    last_update_timestamp: int


class RebalanceLockManager:
    """The broker's queue lock table: one holder per (group, queue), expiring after
    ``broker_lock_max_live_time`` (60 s, strict ``>``) without renewal."""

    def __init__(self, clock, max_live_time: int = 60000):
        self.clock = clock
        self.max_live_time = max_live_time
        self.table: dict[tuple[str, MessageQueue], LockEntry] = {}

    def _expired(self, entry: LockEntry) -> bool:
        return self.clock.now() - entry.last_update_timestamp > self.max_live_time

    def is_locked(self, group: str, mq: MessageQueue, client_id: str) -> bool:
        """Held by ``client_id`` and not expired (which renews it)."""
        entry = self.table.get((group, mq))
        if entry is None or entry.client_id != client_id or self._expired(entry):
            return False
        entry.last_update_timestamp = self.clock.now()
        return True

    def holder(self, group: str, mq: MessageQueue) -> str | None:
        """The client holding a live lock on ``mq``, if any (no renewal)."""
        entry = self.table.get((group, mq))
        return None if entry is None or self._expired(entry) else entry.client_id

    def try_lock_batch(self, group: str, mqs: Iterable[MessageQueue], client_id: str) -> set[MessageQueue]:
        """Grant (or renew) every queue that is free, expired or already ``client_id``'s."""
        granted = set()
        for mq in mqs:
            if self.is_locked(group, mq, client_id):
                granted.add(mq)
                continue
            entry = self.table.get((group, mq))
            if entry is None or self._expired(entry):
                self.table[(group, mq)] = LockEntry(client_id, self.clock.now())
                granted.add(mq)
        return granted

    def try_lock(self, group: str, mq: MessageQueue, client_id: str) -> bool:
        """One queue: granted if free, expired or already ``client_id``'s."""
        return mq in self.try_lock_batch(group, [mq], client_id)

    def is_lock_all_expired(self, group: str) -> bool:
        """Every lock of ``group`` has expired (or there are none)."""
        return all(self._expired(entry) for (g, _), entry in self.table.items() if g == group)

    def unlock_batch(self, group: str, mqs: Iterable[MessageQueue], client_id: str) -> None:
        """Release the queues ``client_id`` holds; an unlock from anyone else is ignored."""
        for mq in mqs:
            entry = self.table.get((group, mq))
            if entry is not None and entry.client_id == client_id:
                del self.table[(group, mq)]


class Broker:
    """Consumer registrations, committed offsets, message logs and the lock table.

    >>> broker = Broker(ManualClock())
    >>> mq = MessageQueue("T", "broker-a", 0)
    >>> broker.register("group", "c1"); broker.find_consumer_id_list("T", "group")
    ['c1']
    >>> _ = broker.append(mq, 3); broker.max_offset(mq)
    3
    """

    def __init__(self, clock=None, config: ClientConfig = ClientConfig()):
        self.clock = as_clock(clock) if clock is not None else ManualClock()
        self.locks = RebalanceLockManager(self.clock, config.broker_lock_max_live_time)
        self.consumers: dict[str, list[str]] = {}
        self.offsets: dict[tuple[str, MessageQueue], int] = {}
        self.logs: dict[MessageQueue, list[Message]] = {}
        self.down: set[str] = set()
        self.locks_down: set[str] = set()
        self.offset_errors: set[MessageQueue] = set()

    # -- availability -----------------------------------------------------

    def fail(self, broker_name: str, down: bool = True) -> None:
        """Make every call to ``broker_name`` fail (or work again with ``down=False``)."""
        (self.down.add if down else self.down.discard)(broker_name)

    def fail_locks(self, broker_name: str, failing: bool = True) -> None:
        """Make only the lock and unlock calls to ``broker_name`` fail (its master is gone,
        pulls still reach a slave)."""
        (self.locks_down.add if failing else self.locks_down.discard)(broker_name)

    def _reach(self, mq: MessageQueue, locking: bool = False) -> None:
        if mq.broker_name in self.down or (locking and mq.broker_name in self.locks_down):
            raise BrokerUnavailable(f"broker {mq.broker_name} is unavailable")

    # -- consumer group membership -------------------------------------------

    def register(self, group: str, client_id: str) -> None:
        members = self.consumers.setdefault(group, [])
        if client_id not in members:
            members.append(client_id)

    def unregister(self, group: str, client_id: str) -> None:
        members = self.consumers.get(group, [])
        if client_id in members:
            members.remove(client_id)

    def find_consumer_id_list(self, topic: str, group: str) -> list[str] | None:
        """The group's registered client ids (``None`` when the group is unknown)."""
        members = self.consumers.get(group)
        return None if not members else java_sorted_strings(members)

    # -- offsets ---------------------------------------------------------------

    def query_consumer_offset(self, group: str, mq: MessageQueue) -> int:
        """The committed offset; -1 when none; raises when the broker cannot answer."""
        self._reach(mq)
        if mq in self.offset_errors:
            raise BrokerUnavailable(f"querying the offset of {mq} failed")
        return self.offsets.get((group, mq), -1)

    def update_consumer_offset(self, group: str, mq: MessageQueue, offset: int) -> None:
        self._reach(mq)
        self.offsets[(group, mq)] = offset

    def committed(self, group: str, mq: MessageQueue) -> int:
        return self.offsets.get((group, mq), -1)

    # -- messages --------------------------------------------------------------

    def append(self, mq: MessageQueue, count: int = 1, body: bytes = b"m") -> list[Message]:
        """Produce ``count`` messages to ``mq``."""
        log = self.logs.setdefault(mq, [])
        new = [Message(len(log) + i, body) for i in range(count)]
        log.extend(new)
        return new

    def max_offset(self, mq: MessageQueue) -> int:
        self._reach(mq)
        return len(self.logs.get(mq, ()))

    def search_offset(self, mq: MessageQueue, timestamp: int) -> int:
        """The first offset stored at or after ``timestamp`` (here: none are timed, so 0)."""
        self._reach(mq)
        return 0

    def pull(self, mq: MessageQueue, offset: int, max_nums: int = 32) -> list[Message]:
        """Copies of the messages from ``offset`` on (each carries the queue's max offset)."""
        self._reach(mq)
        log = self.logs.get(mq, [])
        top = str(len(log))
        return [
            Message(m.queue_offset, m.body, {**m.properties, PROPERTY_MAX_OFFSET: top})
            for m in log[max(offset, 0) : max(offset, 0) + max_nums]
        ]

    # -- locks -------------------------------------------------------------------

    def lock_batch_mq(self, group: str, client_id: str, mqs: Iterable[MessageQueue]) -> set[MessageQueue]:
        mqs = list(mqs)
        for mq in mqs:
            self._reach(mq, locking=True)
        return self.locks.try_lock_batch(group, mqs, client_id)

    def unlock_batch_mq(self, group: str, client_id: str, mqs: Iterable[MessageQueue]) -> None:
        mqs = list(mqs)
        for mq in mqs:
            self._reach(mq, locking=True)
        self.locks.unlock_batch(group, mqs, client_id)
