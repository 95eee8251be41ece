"""Deliberately wrong producer selections, one mistake each, that the golden traces must reject.

Each is the reference port with one thing changed, the way a port goes wrong: Python's ``%``
for Java's, Python's ``abs`` where Java's leaves ``Integer.MIN_VALUE`` negative, a counter
that steps once too often, a penalty that ends a millisecond early. ``BREAKERS`` maps a name to
(the family, the release whose vectors catch it, the divergence class they report).
"""

from __future__ import annotations

from pytest_rmq_conformance.javalang import INT_MAX, java_hash_code, java_int
from pytest_rmq_conformance.ports.producer import MQFaultStrategy, SelectMessageQueueByHash
from pytest_rmq_conformance.ports.producer.counter import ThreadLocalIndex
from pytest_rmq_conformance.ports.producer.latency import LatencyFaultToleranceImpl


class PythonModulo(SelectMessageQueueByHash):
    """``hash % n`` in Python: a negative hash lands on ``n - |h| % n``."""

    def select(self, mqs, msg, arg):
        return mqs[java_hash_code(arg) % len(mqs)]


class PlainAbs(SelectMessageQueueByHash):
    """4.7.1 with Python's ``abs``: ``Integer.MIN_VALUE`` gets a queue where Java throws."""

    def __init__(self, *, version="4.7.1"):
        super().__init__(version=version)

    def select(self, mqs, msg, arg):
        return mqs[abs(java_hash_code(arg)) % len(mqs)]


class _DoubleStep(ThreadLocalIndex):
    def increment_and_get(self):
        super().increment_and_get()
        return super().increment_and_get()


class CounterTooFar(MQFaultStrategy):
    """Every counter step advances the stored value twice."""

    def publish_info(self, topic, route):
        info = super().publish_info(topic, route)
        info.send_which_queue = _DoubleStep(version=self.version)
        return info


class _EarlyRelease(LatencyFaultToleranceImpl):
    def _available(self, item, now):
        return super()._available(item, now + 1)


class PenaltyOffByOne(MQFaultStrategy):
    """A penalised broker is available again one millisecond before Java's."""

    def __init__(self, *, clock=None, version="5.3.3"):
        super().__init__(clock=clock, version=version)
        self.latency_fault_tolerance = _EarlyRelease(clock=self.clock, version=version)


class EarlyDivide(MQFaultStrategy):
    """An empty publish list raises before the counter moves (Java steps it, then divides by zero)."""

    def select_one_message_queue(self, info, last_broker_name, reset_index=False):
        if not info.queues:
            raise ZeroDivisionError("/ by zero")
        return super().select_one_message_queue(info, last_broker_name, reset_index)


class DictItems(MQFaultStrategy):
    """Lists its fault table as plain dicts: what no answer stands for."""

    def fault_items(self):
        return [{"name": item.name} for item in super().fault_items()]


class PythonStrOrder(MQFaultStrategy):
    """Orders the route's brokers by Python's ``str`` order (code points), not Java's UTF-16
    code units: wrong where a name beyond the BMP meets one above the surrogates."""

    def publish_info(self, topic, route):
        info = super().publish_info(topic, route)
        if not info.order_topic:
            info.queues.sort(key=lambda mq: mq.broker_name)  # stable: queue ids stay in order
        return info


class _LateRelease(LatencyFaultToleranceImpl):
    def _available(self, item, now):
        return super()._available(item, now - 1)


class PenaltyOneMsLate(MQFaultStrategy):
    """A penalised broker is available again one millisecond after Java's."""

    def __init__(self, *, clock=None, version="5.3.3"):
        super().__init__(clock=clock, version=version)
        self.latency_fault_tolerance = _LateRelease(clock=self.clock, version=version)


class _NoWrap(ThreadLocalIndex):
    """A counter that never wraps (a Python int, a C ``size_t``), masked to 31 bits when read."""

    def increment_and_get(self):
        if self._stored is None or self._stored < INT_MAX:
            return super().increment_and_get()
        self._stored += 1
        return self._stored & INT_MAX


class WorstIndexNoWrap(MQFaultStrategy):
    """4.x's ``whichItemWorst`` counter runs past ``Integer.MAX_VALUE`` instead of wrapping."""

    def __init__(self, *, clock=None, version="4.9.8"):
        super().__init__(clock=clock, version=version)
        self.latency_fault_tolerance.which_item_worst = _NoWrap(version=version)


class _Unbounded(ThreadLocalIndex):
    """A counter kept as an unbounded int and read as is (a C ``size_t``, which never goes
    negative, so no mask seemed needed); its stored value shown as Java's int, so that only
    the picks it leads to tell it apart."""

    def increment_and_get(self):
        if self._stored is None or self._stored < INT_MAX:
            return super().increment_and_get()
        self._stored += 1
        return self._stored

    @property
    def stored(self):
        return None if self._stored is None else java_int(self._stored)

    @stored.setter
    def stored(self, value):
        self._stored = None if value is None else java_int(value)


class WorstIndexUnmasked(MQFaultStrategy):
    """4.x's ``whichItemWorst`` past ``Integer.MAX_VALUE`` as an unbounded int read as is: 2**31
    where Java reads 0, another fallback broker where half the fault table (3 of 6 or 7
    penalised brokers) does not divide 2**31."""

    def __init__(self, *, clock=None, version="4.9.8"):
        super().__init__(clock=clock, version=version)
        self.latency_fault_tolerance.which_item_worst = _Unbounded(version=version)


BREAKERS = {
    "PythonModulo": ("SELECTOR_HASH", "5.3.3", "wrong-queues"),
    "PlainAbs": ("SELECTOR_HASH", "4.7.1", "error-behaviour"),
    "CounterTooFar": ("FAULT_STRATEGY", "4.9.8", "counter-drift"),
    "PenaltyOffByOne": ("FAULT_STRATEGY", "5.3.3", "wrong-queues"),
    "EarlyDivide": ("FAULT_STRATEGY", "5.3.3", "counter-drift"),
    "DictItems": ("FAULT_STRATEGY", "4.9.8", "fault"),
}

#: breakers the generated differential alone must catch: (release, a seed that shows it)
GENERATED_BREAKERS = {
    "PythonStrOrder": ("5.3.3", 1),
    "PenaltyOneMsLate": ("5.3.3", 1),
    "PenaltyOffByOne": ("5.3.3", 1),
    "WorstIndexNoWrap": ("4.9.8", 1),
    "WorstIndexUnmasked": ("4.9.8", 1),
}
