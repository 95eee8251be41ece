"""Twins of the producer's reference port that differ from it only in what Java cannot observe:
each must pass where its observable counterpart in producer_breakers fails. ``TWINS`` maps a
name to (the release, the breaker that differs observably in the same place)."""

from __future__ import annotations

from pytest_rmq_conformance.javalang import INT_MAX, java_int
from pytest_rmq_conformance.ports.producer import MQFaultStrategy
from pytest_rmq_conformance.ports.producer.counter import ThreadLocalIndex


class QueueDatasInPythonOrder(MQFaultStrategy):
    """Builds the publish list in Java's order, and keeps the route's queue datas in Python's
    ``str`` order: only the list is read in order (a queue data is looked up by its name)."""

    def publish_info(self, topic, route):
        info = super().publish_info(topic, route)
        info.queue_datas.sort(key=lambda data: data.broker_name)
        return info


class _WideButRead(ThreadLocalIndex):
    """A counter kept as an unbounded int (a C ``size_t``), read back as Java's int."""

    def increment_and_get(self):
        if self._stored is None or self._stored < INT_MAX:
            return super().increment_and_get()
        self._stored += 1
        return self._stored & INT_MAX

    @property
    def stored(self):
        return None if self._stored is None else java_int(self._stored)

    @stored.setter
    def stored(self, value):
        self._stored = None if value is None else java_int(value)


class WideWorstIndex(MQFaultStrategy):
    """4.x's ``whichItemWorst`` past ``Integer.MAX_VALUE`` as an unbounded int, shown as Java's int:
    equal modulo 2**32 and the same picks (both read it masked to 31 bits)."""

    def __init__(self, *, clock=None, version="4.9.8"):
        super().__init__(clock=clock, version=version)
        self.latency_fault_tolerance.which_item_worst = _WideButRead(version=version)


TWINS = {
    "QueueDatasInPythonOrder": ("5.3.3", "PythonStrOrder"),
    "WideWorstIndex": ("4.9.8", "WorstIndexNoWrap"),
}
