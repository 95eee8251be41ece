"""Twins of the fault-strategy port, in pairs, one pair per rule of what Java can observe.

Each twin differs from the port in one thing: one of a pair in something Java cannot observe,
so it must pass every trace; the other in something it can, so it must fail, with the classes
named. ``TWINS`` maps a name (``@release`` where a twin is judged apart at one) to (the releases
it is replayed at, the divergence classes its failures come in: none for a twin that passes).

- table order: Java's map order is read by 4.9.8's ``pickOneAtLeast`` only;
- value, not identity: a queue sends by its topic, broker and id; 4.7.1's rewrite of the
  shared list is seen through the list's contents;
- the counter by the picks it leads to: how a port holds it and the number it stores are its
  own; the values its steps return are Java's (:func:`~pytest_rmq_conformance.kinds.producer.drift.takes_alike`).
"""

from __future__ import annotations

from pytest_rmq_conformance.javalang import INT_MAX, java_int, java_string_key
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.producer import MQFaultStrategy
from pytest_rmq_conformance.ports.producer.counter import ThreadLocalIndex


class _ByName:
    """A fault table that iterates by broker name, as a client's sorted map might."""

    def __init__(self):
        self._items = {}

    def get(self, key):
        if key is None:
            raise TypeError("no null keys")
        return self._items.get(key)

    def put(self, key, value):
        old = self.get(key)
        self._items[key] = value
        return old

    def remove(self, key):
        if key is None:
            raise TypeError("no null keys")
        return self._items.pop(key, None)

    def keys(self):
        return sorted(self._items, key=java_string_key)

    def items(self):
        return [(key, self._items[key]) for key in self.keys()]

    def values(self):
        return [self._items[key] for key in self.keys()]

    value_list = values


class SortedTable(MQFaultStrategy):
    """The port with its fault table kept in broker-name order, read in that order everywhere."""

    def __init__(self, *, clock=None, version="5.3.3"):
        super().__init__(clock=clock, version=version)
        self.latency_fault_tolerance.fault_item_table = _ByName()


class EqualCopy(MQFaultStrategy):
    """Answers an equal copy of the queue it picked, not the list's own object."""

    def select_one_message_queue(self, info, last_broker_name, reset_index=False):
        mq = super().select_one_message_queue(info, last_broker_name, reset_index)
        return None if mq is None else MessageQueue(mq.topic, mq.broker_name, mq.queue_id)


class KeepsTheList(MQFaultStrategy):
    """4.7.1's fallback answering the queue it wrote, without writing it into the shared list."""

    def select_one_message_queue(self, info, last_broker_name, reset_index=False):
        listed = list(info.queues)
        mq = super().select_one_message_queue(info, last_broker_name, reset_index)
        info.queues[:] = listed
        return mq


class _Unbounded(ThreadLocalIndex):
    """4.9.8's and 5.3.3's counter held as a Python int that never wraps; it stores Java's int
    and steps as Java's does (the low 31 bits)."""

    def __init__(self, *, version):
        super().__init__(version=version)
        self.value = None

    @property
    def stored(self):
        return None if self.value is None else java_int(self.value)

    @stored.setter
    def stored(self, value):
        self.value = value

    def increment_and_get(self):
        if self.value is None:
            self.value = self.random.next_int()
            if self.version != "5.3.3":
                self.value = abs(java_int(self.value))
        self.value += 1
        return self.value & INT_MAX

    def reset(self):
        self.value = self.random.next_int(INT_MAX)


class UnboundedCounter(MQFaultStrategy):
    """The port with :class:`_Unbounded` counters."""

    def publish_info(self, topic, route):
        info = super().publish_info(topic, route)
        info.send_which_queue = _Unbounded(version=self.version)
        return info


class _Raw(_Unbounded):
    """:class:`_Unbounded` storing its Python int as it is: past the int's end, no Java int."""

    @property
    def stored(self):
        return self.value

    @stored.setter
    def stored(self, value):
        self.value = value


class RawCounter(MQFaultStrategy):
    """The port with :class:`_Raw` counters: Java's picks, another stored value past the wrap
    (2^31 where Java's int has wrapped to -2^31): no later pick can tell, so it passes."""

    def publish_info(self, topic, route):
        info = super().publish_info(topic, route)
        info.send_which_queue = _Raw(version=self.version)
        return info


class _SizeT(_Raw):
    """:class:`_Raw` picking with its whole number, as a ``size_t`` (unsigned 64 bits) would:
    past the int's end its steps return 2^31, 2^31 + 1, ... where Java's return 0, 1, ..."""

    def increment_and_get(self):
        super().increment_and_get()
        return self.value & (2**64 - 1)


class SizeTCounter(MQFaultStrategy):
    """The port with :class:`_SizeT` counters: stored as :class:`RawCounter` stores, but its
    picks past the wrap are not Java's (on a list whose length does not divide 2^31)."""

    def publish_info(self, topic, route):
        info = super().publish_info(topic, route)
        info.send_which_queue = _SizeT(version=self.version)
        return info


class _HalfTurn(ThreadLocalIndex):
    """A counter pinned half a turn of the int (2^31) from the value it is given."""

    def pin(self, stored, seed=None):
        super().pin(None if stored is None else java_int(stored + 2**31), seed)


class HalfTurnCounter(MQFaultStrategy):
    """Counters pinned 2^31 from Java's: another int, the same low 31 bits, so every later step
    returns Java's value at 4.9.8 and 5.3.3 (4.7.1 returns the stored int itself: there, another
    queue or another counter)."""

    def publish_info(self, topic, route):
        info = super().publish_info(topic, route)
        info.send_which_queue = _HalfTurn(version=self.version)
        return info


class _Offset(ThreadLocalIndex):
    """A counter pinned ``offset`` past the value it is given."""

    def __init__(self, *, version, offset):
        super().__init__(version=version)
        self.offset = offset

    def pin(self, stored, seed=None):
        super().pin(None if stored is None else java_int(stored + self.offset), seed)


class OffsetCounter(MQFaultStrategy):
    """Counters pinned one list length past Java's: the same picks on that list up to the wrap,
    another int, and other picks on another list length."""

    def publish_info(self, topic, route):
        info = super().publish_info(topic, route)
        info.send_which_queue = _Offset(version=self.version, offset=len(info.queues))
        return info


TWINS = {
    "SortedTable": (("4.7.1", "5.3.3"), set()),
    # the order itself is state (counter drift); where a tie of pickOneAtLeast reads it, another queue
    "SortedTable@4.9.8": (("4.9.8",), {"counter-drift", "wrong-queues"}),
    "EqualCopy": (("4.7.1", "4.9.8", "5.3.3"), set()),
    "KeepsTheList": (("4.7.1",), {"counter-drift"}),
    "UnboundedCounter": (("4.9.8", "5.3.3"), set()),
    # another number past the wrap (no Java int), the same picks: judged by the picks, it passes
    "RawCounter": (("4.9.8", "5.3.3"), set()),
    "HalfTurnCounter": (("4.9.8", "5.3.3"), set()),
    "HalfTurnCounter@4.7.1": (("4.7.1",), {"counter-drift", "wrong-queues"}),
    # its picks past the wrap are not Java's: another queue, or (a trace that ends there) not Java's picks
    "SizeTCounter@4.9.8": (("4.9.8",), {"wrong-queues"}),
    "SizeTCounter": (("5.3.3",), {"counter-drift", "wrong-queues"}),
    # other picks only where a trace passes the int's end (the near-wrap traces): there, wrong queues
    "OffsetCounter": (("4.7.1", "4.9.8", "5.3.3"), {"counter-drift", "wrong-queues"}),
}
