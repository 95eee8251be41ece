"""``ProcessQueue``: a client's cache of one queue's pulled messages, and its lifecycle flags.

Names and behaviour follow the Java class (4.9.8 and 5.3.3), in snake_case:

    >>> from pytest_rmq_conformance.processqueue import ManualClock
    >>> clock = ManualClock()
    >>> pq = ProcessQueue(clock)
    >>> pq.put_message([Message(0, b"x" * 10), Message(1, b"y" * 10)])
    True
    >>> pq.remove_message([Message(0, b"x" * 10)])  # the offset to commit: the lowest left
    1
    >>> clock.advance(120000); pq.is_pull_expired()
    120000
    False

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Mapping as _Mapping
from dataclasses import dataclass, field

from pytest_rmq_conformance.processqueue.clock import as_clock
from pytest_rmq_conformance.processqueue.config import ClientConfig, client_version

__all__ = ["Message", "ProcessQueue", "ProcessQueueInfo", "ConsumeLock", "fill", "PROPERTY_MAX_OFFSET", "PROPERTY_CONSUME_START_TIME"]

#: ``MessageConst.PROPERTY_MAX_OFFSET``: the queue's max offset when the message was pulled
PROPERTY_MAX_OFFSET = "MAX_OFFSET"
#: ``MessageConst.PROPERTY_CONSUME_START_TIME``: when the listener started on the message (ms)
PROPERTY_CONSUME_START_TIME = "CONSUME_START_TIME"
_CLEAN_BATCH = 16


@dataclass(eq=False)
class Message:
    """A pulled message (``MessageExt``): its queue offset, body and properties.

    ``body=None`` is a message without a body (5.3.3 counts it as 0 bytes).
    """

    queue_offset: int
    body: bytes | None = b""
    properties: dict[str, str] = field(default_factory=dict)
    reconsume_times: int = 0

    def get_property(self, name: str) -> str | None:
        return self.properties.get(name)

    def __repr__(self) -> str:
        size = "null" if self.body is None else len(self.body)
        return f"Message(offset={self.queue_offset}, body={size} B)"


class _OffsetTree(_Mapping):
    """A sorted map offset -> message (Java's ``TreeMap<Long, MessageExt>``); read it like a
    ``dict`` (``tree[offset]``, ``.get``, ``.items()``, iteration in offset order)."""

    def __init__(self) -> None:
        self._keys: list[int] = []
        self._values: dict[int, Message] = {}

    def put(self, offset: int, msg: Message) -> Message | None:
        old = self._values.get(offset)
        if old is None:
            bisect.insort(self._keys, offset)
        self._values[offset] = msg
        return old

    def remove(self, offset: int) -> Message | None:
        old = self._values.pop(offset, None)
        if old is not None:
            del self._keys[bisect.bisect_left(self._keys, offset)]
        return old

    def poll_first(self) -> Message | None:
        if not self._keys:
            return None
        return self._values.pop(self._keys.pop(0))

    def first_key(self) -> int:
        if not self._keys:
            raise LookupError("the map is empty")
        return self._keys[0]

    def last_key(self) -> int:
        if not self._keys:
            raise LookupError("the map is empty")
        return self._keys[-1]

    def first_value(self) -> Message:
        return self._values[self.first_key()]

    def values(self) -> list[Message]:  # type: ignore[override]  # a list, as Java's TreeMap.values() is read
        return [self._values[k] for k in self._keys]

    def clear(self) -> None:
        self._keys.clear()
        self._values.clear()

    def __contains__(self, offset: object) -> bool:
        return offset in self._values

    def __len__(self) -> int:
        return len(self._keys)

    def __getitem__(self, offset: int) -> Message:
        return self._values[offset]

    def __iter__(self) -> Iterator[int]:
        return iter(list(self._keys))

    def __repr__(self) -> str:
        return f"{{{', '.join(f'{k}: {self._values[k]!r}' for k in self._keys)}}}"

    def keys(self) -> list[int]:  # type: ignore[override]
        return list(self._keys)


class ConsumeLock:
    """``ProcessQueue.consumeLock``, held by a listener until a known time.

    In 4.9.8 it is exclusive; in 5.3.3 a read/write lock whose readers are the
    orderly listeners and whose writer is the queue's removal. Either way a
    removal gets it only once no listener holds it, so one model serves both.
    """

    def __init__(self) -> None:
        self.busy_until: float | None = None

    def lock(self) -> None:
        """A listener holds the lock until :meth:`unlock`."""
        self.busy_until = float("inf")

    def unlock(self) -> None:
        self.busy_until = None

    def hold_until(self, millis: int) -> None:
        """A listener holds the lock until ``millis``."""
        self.busy_until = max(millis, self.busy_until or millis)

    def release(self) -> None:
        self.busy_until = None

    def held(self, now: int) -> bool:
        return self.busy_until is not None and self.busy_until > now

    def try_lock(self, now: int, timeout: int) -> bool:
        """``tryLock(timeout)``: true if the holder lets go within ``timeout`` ms."""
        busy_until = self.busy_until
        return busy_until is None or busy_until <= now or busy_until - now <= timeout


class ProcessQueue:
    """One queue's pulled messages on one client (see module docs).

    ``clock`` is anything with ``now()`` in milliseconds; ``config`` holds the
    thresholds; ``version`` selects ``"4.9.8"`` or ``"5.3.3"`` behaviour (``"5.5.0"``'s ProcessQueue is 5.3.3's).
    """

    #: Java's defaults (the instance's own thresholds are in ``config``)
    REBALANCE_LOCK_MAX_LIVE_TIME = ClientConfig.rebalance_lock_max_live_time
    REBALANCE_LOCK_INTERVAL = ClientConfig.rebalance_lock_interval
    PULL_MAX_IDLE_TIME = ClientConfig.pull_max_idle_time

    def __init__(self, clock=None, config: ClientConfig = ClientConfig(), version: str = "5.3.3"):
        self.clock = as_clock(clock)
        self.config = config
        self.version = client_version(version)
        self.msg_tree_map = _OffsetTree()
        self.consuming_msg_orderly_tree_map = _OffsetTree()
        self.msg_count = 0
        self.msg_size = 0
        self.queue_offset_max = 0
        self.dropped = False
        self.locked = False
        self.consuming = False
        self.try_unlock_times = 0
        self.msg_acc_cnt = 0
        now = self.clock.now()
        self.last_pull_timestamp = now
        self.last_consume_timestamp = now
        self.last_lock_timestamp = now
        self.consume_lock = ConsumeLock()

    # -- predicates -------------------------------------------------------

    def is_pull_expired(self) -> bool:
        """More than ``pull_max_idle_time`` (120 s) since the last pull attempt (strict)."""
        return self.clock.now() - self.last_pull_timestamp > self.config.pull_max_idle_time

    def is_lock_expired(self) -> bool:
        """More than ``rebalance_lock_max_live_time`` (30 s) since the lock was granted (strict)."""
        return self.clock.now() - self.last_lock_timestamp > self.config.rebalance_lock_max_live_time

    def has_temp_message(self) -> bool:
        return len(self.msg_tree_map) > 0

    def contains_message(self, msg: Message) -> bool:
        """Whether the cache holds ``msg``'s offset (5.3.3 only)."""
        if self.version == "4.9.8":
            raise AttributeError("ProcessQueue.contains_message exists from 5.x on (not in 4.9.8)")
        return msg is not None and msg.queue_offset in self.msg_tree_map

    def get_max_span(self) -> int:
        """Highest cached offset minus the lowest (0 when nothing is cached)."""
        tree = self.msg_tree_map
        return tree.last_key() - tree.first_key() if len(tree) else 0

    @property
    def cached_msg_size_in_mib(self) -> int:
        """``msgSize`` in whole MiB, as the pull path compares it with its threshold."""
        return self.msg_size // (1024 * 1024)

    # -- the message cache ----------------------------------------------------

    def _body_size(self, msg: Message) -> int:
        if msg.body is None:
            if self.version == "4.9.8":
                raise TypeError(f"4.9.8 cannot size {msg!r} (NullPointerException in Java)")
            return 0
        return len(msg.body)

    def put_message(self, msgs: list[Message]) -> bool:
        """Cache pulled messages; true when the caller should dispatch the queue for consuming."""
        valid = 0
        for msg in msgs:
            if self.msg_tree_map.put(msg.queue_offset, msg) is None:
                valid += 1
                self.queue_offset_max = msg.queue_offset
                self.msg_size += self._body_size(msg)
        self.msg_count += valid
        dispatch = False
        if len(self.msg_tree_map) and not self.consuming:
            dispatch = self.consuming = True
        if msgs:
            last = msgs[-1]
            max_offset = last.get_property(PROPERTY_MAX_OFFSET)
            if max_offset is not None:
                accumulated = int(max_offset) - last.queue_offset
                if accumulated > 0:
                    self.msg_acc_cnt = accumulated
        return dispatch

    def remove_message(self, msgs: list[Message]) -> int:
        """Drop consumed messages; the offset to commit (lowest cached, or max + 1), -1 if empty."""
        self.last_consume_timestamp = self.clock.now()
        if not len(self.msg_tree_map):
            return -1
        result = self.queue_offset_max + 1
        removed = 0
        for msg in msgs:
            if self.msg_tree_map.remove(msg.queue_offset) is not None:
                removed += 1
                self.msg_size -= self._body_size(msg)
        self.msg_count -= removed
        if self.msg_count == 0:
            self.msg_size = 0
        if len(self.msg_tree_map):
            result = self.msg_tree_map.first_key()
        return result

    def take_messages(self, batch_size: int) -> list[Message]:
        """Orderly: move up to ``batch_size`` of the lowest cached messages to the consuming map."""
        self.last_consume_timestamp = self.clock.now()
        taken: list[Message] = []
        while len(taken) < batch_size and len(self.msg_tree_map):
            msg = self.msg_tree_map.poll_first()
            assert msg is not None  # the map is not empty
            taken.append(msg)
            self.consuming_msg_orderly_tree_map.put(msg.queue_offset, msg)
        if not taken:
            self.consuming = False
        return taken

    def commit(self) -> int:
        """Orderly: forget the taken messages; the offset to commit (highest taken + 1).

        With nothing taken Java's ``lastKey()`` throws and nothing catches it: so does this
        (``LookupError``).
        """
        consuming = self.consuming_msg_orderly_tree_map
        if not len(consuming):
            raise LookupError("ProcessQueue.commit() with nothing taken (NoSuchElementException in Java)")
        offset = consuming.last_key()
        self.msg_count -= len(consuming)
        if self.msg_count == 0:
            self.msg_size = 0
        else:
            for msg in consuming.values():
                self.msg_size -= self._body_size(msg)
        consuming.clear()
        return offset + 1

    def rollback(self) -> None:
        """Orderly: put every taken message back in the cache."""
        for msg in self.consuming_msg_orderly_tree_map.values():
            self.msg_tree_map.put(msg.queue_offset, msg)
        self.consuming_msg_orderly_tree_map.clear()

    def make_message_to_consume_again(self, msgs: list[Message]) -> None:
        """Orderly: put the given taken messages back in the cache."""
        for msg in msgs:
            self.consuming_msg_orderly_tree_map.remove(msg.queue_offset)
            self.msg_tree_map.put(msg.queue_offset, msg)

    def clear(self) -> None:
        """Empty both maps and zero the counters (the flags stay)."""
        self.msg_tree_map.clear()
        self.consuming_msg_orderly_tree_map.clear()
        self.msg_count = self.msg_size = self.queue_offset_max = 0

    def clean_expired_msg(
        self,
        send_message_back: Callable[[Message, int], object],
        consume_timeout_minutes: float = 15,
        consume_orderly: bool = False,
    ) -> list[Message]:
        """Send back cached messages whose listener started more than ``consume_timeout_minutes``
        ago (delay level 3) and remove them; returns those sent back.

        ``send_message_back(msg, delay_level)`` raising (or returning ``False``) means the send
        failed: the message stays. Orderly consumers never clean.
        """
        if consume_orderly:
            return []
        sent: list[Message] = []
        for _ in range(min(len(self.msg_tree_map), _CLEAN_BATCH)):
            if not len(self.msg_tree_map):
                break
            head = self.msg_tree_map.first_value()
            started = head.get_property(PROPERTY_CONSUME_START_TIME)
            if not started or self.clock.now() - int(started) <= consume_timeout_minutes * 60 * 1000:
                break
            try:
                if send_message_back(head, 3) is False:
                    continue
            except Exception:  # Java logs the failure and tries the head again
                continue
            sent.append(head)
            if len(self.msg_tree_map) and head.queue_offset == self.msg_tree_map.first_key():
                self.remove_message([head])
        return sent

    # -- Java's accessors, for code written against the Java class ----------------

    def get_msg_count(self) -> int:
        return self.msg_count

    def get_msg_size(self) -> int:
        return self.msg_size

    def is_dropped(self) -> bool:
        return self.dropped

    def set_dropped(self, dropped: bool) -> None:
        self.dropped = dropped

    def is_locked(self) -> bool:
        return self.locked

    def set_locked(self, locked: bool) -> None:
        self.locked = locked

    def is_consuming(self) -> bool:
        return self.consuming

    def get_last_pull_timestamp(self) -> int:
        return self.last_pull_timestamp

    def set_last_pull_timestamp(self, millis: int) -> None:
        self.last_pull_timestamp = millis

    def get_last_consume_timestamp(self) -> int:
        return self.last_consume_timestamp

    def set_last_consume_timestamp(self, millis: int) -> None:
        self.last_consume_timestamp = millis

    def get_last_lock_timestamp(self) -> int:
        return self.last_lock_timestamp

    def set_last_lock_timestamp(self, millis: int) -> None:
        self.last_lock_timestamp = millis

    def get_try_unlock_times(self) -> int:
        return self.try_unlock_times

    def inc_try_unlock_times(self) -> None:
        self.try_unlock_times += 1

    def get_msg_acc_cnt(self) -> int:
        return self.msg_acc_cnt

    def set_msg_acc_cnt(self, count: int) -> None:
        self.msg_acc_cnt = count

    def get_consume_lock(self) -> ConsumeLock:
        return self.consume_lock

    get_lock_consume = get_consume_lock  # 4.9.8's name

    def get_msg_tree_map(self) -> _OffsetTree:
        return self.msg_tree_map

    def get_consuming_msg_orderly_tree_map(self) -> _OffsetTree:
        return self.consuming_msg_orderly_tree_map

    def fill_process_queue_info(self) -> ProcessQueueInfo:
        """A snapshot for ``ProcessQueueInfo`` (``commit_offset`` is the caller's to fill)."""
        tree, consuming = self.msg_tree_map, self.consuming_msg_orderly_tree_map
        info = ProcessQueueInfo(
            cached_msg_size_in_mib=self.cached_msg_size_in_mib,
            locked=self.locked,
            try_unlock_times=self.try_unlock_times,
            last_lock_timestamp=self.last_lock_timestamp,
            droped=self.dropped,
            last_pull_timestamp=self.last_pull_timestamp,
            last_consume_timestamp=self.last_consume_timestamp,
        )
        if len(tree):
            info.cached_msg_min_offset, info.cached_msg_max_offset = tree.first_key(), tree.last_key()
            info.cached_msg_count = len(tree)
        if len(consuming):
            info.transaction_msg_min_offset, info.transaction_msg_max_offset = consuming.first_key(), consuming.last_key()
            info.transaction_msg_count = len(consuming)
        return info

    # -- inspection -----------------------------------------------------------

    def cached_offsets(self) -> list[int]:
        return self.msg_tree_map.keys()

    def consuming_offsets(self) -> list[int]:
        return self.consuming_msg_orderly_tree_map.keys()

    def __repr__(self) -> str:
        flags = [name for name in ("dropped", "locked", "consuming") if getattr(self, name)]
        return f"ProcessQueue(count={self.msg_count}, size={self.msg_size}, {'|'.join(flags) or 'idle'})"


@dataclass
class ProcessQueueInfo:
    """Java's ``ProcessQueueInfo`` (its field names, ``droped`` included)."""

    commit_offset: int = 0
    cached_msg_min_offset: int = 0
    cached_msg_max_offset: int = 0
    cached_msg_count: int = 0
    cached_msg_size_in_mib: int = 0
    transaction_msg_min_offset: int = 0
    transaction_msg_max_offset: int = 0
    transaction_msg_count: int = 0
    locked: bool = False
    try_unlock_times: int = 0
    last_lock_timestamp: int = 0
    droped: bool = False
    last_pull_timestamp: int = 0
    last_consume_timestamp: int = 0


def fill(pq: ProcessQueue, offsets: Iterable[int], body: bytes = b"", properties: Mapping[str, str] | None = None) -> list[Message]:
    """Put one message per offset into ``pq`` and return them (a test helper)."""
    msgs = [Message(offset, body, dict(properties or {})) for offset in offsets]
    pq.put_message(msgs)
    return msgs
