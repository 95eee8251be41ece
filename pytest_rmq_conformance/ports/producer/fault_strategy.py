"""``MQFaultStrategy`` (``FAULT_STRATEGY``): which queue a producer sends to, with latency fault tolerance.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pytest_rmq_conformance.javalang import JavaRandom, java_list_get, java_rem
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.producer.contract import Clock, FaultItem, TopicRouteData
from pytest_rmq_conformance.ports.producer.counter import ThreadLocalIndex, producer_release
from pytest_rmq_conformance.ports.producer.latency import LatencyFaultToleranceImpl
from pytest_rmq_conformance.ports.producer.publish_info import TopicPublishInfo, topic_route_data_to_topic_publish_info
from pytest_rmq_conformance.releases import PORT_RELEASE

__all__ = ["MQFaultStrategy", "SystemClock", "LATENCY_MAX", "NOT_AVAILABLE_DURATION", "ISOLATION_LATENCY", "SHUFFLE_SEED"]

#: the default tables by major version: ``latencyMax[i]`` ms of latency cost ``notAvailableDuration[i]`` ms
LATENCY_MAX = {4: (50, 100, 550, 1000, 2000, 3000, 15000), 5: (50, 100, 550, 1800, 3000, 5000, 15000)}
NOT_AVAILABLE_DURATION = {4: (0, 0, 30000, 60000, 120000, 180000, 600000), 5: (0, 0, 2000, 5000, 6000, 10000, 30000)}
#: the latency an isolating update is priced at, by major version
ISOLATION_LATENCY = {4: 30000, 5: 10000}
#: the default seed of the Random that stands in for ``Collections``' static one (4.7.1 ties)
SHUFFLE_SEED = 0

# What Java's ``catch (Exception e)`` in the 4.x selection catches, as Python raises it.
_JAVA_EXCEPTIONS = (ArithmeticError, LookupError, TypeError, ValueError)


class SystemClock:
    """``System.currentTimeMillis()``."""

    def now(self) -> int:
        return time.time_ns() // 1_000_000


class MQFaultStrategy:
    """Java ``MQFaultStrategy`` with its ``LatencyFaultToleranceImpl`` (``latency_fault_tolerance``).

    With ``send_latency_fault_enable`` off (the default) it is the publish list's round robin
    that avoids the last broker. On:

    - 4.7.1 walks a local copy of the counter for an available queue of the *same* broker as
      last time (any broker on a first attempt); failing that it takes a broker from
      ``pickOneAtLeast`` and rewrites the next list entry to it (``info.queues[pos]`` is
      replaced, and stays so until a new publish info);
    - 4.9.8 walks the same way for any available queue, and in the fallback returns a new
      queue of the picked broker (writable ones only), leaving the list alone;
    - 5.3.3 probes with a counter step each: pass A available and not the last broker, pass B
      reachable and not the last broker, pass C anything. ``reset_index`` first restarts
      the counter at random.

    ``shuffle_random`` stands in for the static Random of ``Collections.shuffle`` (4.7.1
    ties); ``which_item_worst`` is 4.x's fallback counter.
    """

    name = "FAULT_STRATEGY"

    def __init__(self, *, clock: Clock | None = None, version: str = PORT_RELEASE) -> None:
        self.version = version
        self._release = producer_release(version)
        self.clock: Clock = SystemClock() if clock is None else clock
        self.latency_fault_tolerance = LatencyFaultToleranceImpl(clock=self.clock, version=version)
        self.send_latency_fault_enable = False
        self.latency_max = list(LATENCY_MAX[self._release[0]])
        self.not_available_duration = list(NOT_AVAILABLE_DURATION[self._release[0]])
        self.shuffle_random = JavaRandom(SHUFFLE_SEED)

    @property
    def which_item_worst(self) -> ThreadLocalIndex:
        """4.x: the counter ``pickOneAtLeast`` picks among the better half with."""
        return self.latency_fault_tolerance.which_item_worst

    def publish_info(self, topic: str, route: TopicRouteData) -> TopicPublishInfo:
        """A new publish info for ``route``, with a new counter."""
        return topic_route_data_to_topic_publish_info(topic, route, version=self.version)

    def select_one_message_queue(
        self, info: TopicPublishInfo, last_broker_name: str | None, reset_index: bool = False
    ) -> MessageQueue | None:
        """The queue of the next send attempt (``reset_index`` is 5.x's, ignored by 4.x)."""
        if self._release >= (5, 0, 0):
            return self._select_5x(info, last_broker_name, reset_index)
        if not self.send_latency_fault_enable:
            return info.select_one_message_queue(last_broker_name)
        tolerance = self.latency_fault_tolerance
        try:
            for pos in info.walk(info.send_which_queue.increment_and_get()):
                mq = info.queues[pos]
                if tolerance.is_available(mq.broker_name) and (
                    self._release >= (4, 9, 8) or last_broker_name is None or mq.broker_name == last_broker_name
                ):
                    return mq
            not_best = tolerance.pick_one_at_least(self.shuffle_random)
            write_queue_nums = info.get_queue_id_by_broker(not_best)
            if write_queue_nums > 0:
                pos = info.next_position()
                mq = info.queues[pos]
                if not_best is None:
                    return mq
                queue_id = java_rem(info.send_which_queue.increment_and_get(), write_queue_nums)
                mq = MessageQueue(mq.topic, not_best, queue_id)
                if self._release < (4, 9, 8):
                    info.queues[pos] = mq  # Java sets broker and queue id on the shared list entry
                return mq
            tolerance.remove(not_best)  # None: Java's NullPointerException, caught below
        except _JAVA_EXCEPTIONS:
            pass  # Java logs it and falls back
        return info.queues[info.next_position()]

    def _select_5x(self, info: TopicPublishInfo, last_broker_name: str | None, reset_index: bool) -> MessageQueue | None:
        def other_broker(mq: MessageQueue) -> bool:
            return last_broker_name is None or mq.broker_name != last_broker_name

        tolerance = self.latency_fault_tolerance
        if self.send_latency_fault_enable:
            if reset_index:
                info.reset_index()
            passes: list[tuple[Callable[[MessageQueue], bool], ...]] = [
                (lambda mq: tolerance.is_available(mq.broker_name), other_broker),
                (lambda mq: tolerance.is_reachable(mq.broker_name), other_broker),
            ]
        else:
            passes = [(other_broker,)]
        for filters in passes:
            mq = info.select_one_message_queue_filtered(*filters)
            if mq is not None:
                return mq
        return info.queues[info.next_position()]

    def compute_not_available_duration(self, current_latency: int) -> int:
        """The penalty of the highest ``latency_max`` step ``current_latency`` reaches, 0 below
        the first; ``IndexError`` if ``not_available_duration`` is shorter than needed."""
        for i in range(len(self.latency_max) - 1, -1, -1):
            if current_latency >= self.latency_max[i]:
                return java_list_get(self.not_available_duration, i)
        return 0

    def update_fault_item(self, broker_name: str, latency: int, isolation: bool, reachable: bool = True) -> None:
        """Record how a send went; nothing while latency fault tolerance is off. ``isolation``
        prices the penalty at 30 s (4.x) / 10 s (5.x) of latency; ``reachable`` is 5.x's."""
        if not self.send_latency_fault_enable:
            return
        priced = ISOLATION_LATENCY[self._release[0]] if isolation else latency
        duration = self.compute_not_available_duration(priced)
        self.latency_fault_tolerance.update_fault_item(broker_name, latency, duration, reachable)

    def fault_items(self) -> list[FaultItem]:
        """The fault table in Java's iteration order."""
        return self.latency_fault_tolerance.fault_items()

    def detect_by_one_round(
        self, resolve: Callable[[str], str | None], detect: Callable[[str, int], bool] | None
    ) -> None:
        """5.x: one detector round over the fault table. 4.x has no detector: nothing happens."""
        if self._release >= (5, 0, 0):
            self.latency_fault_tolerance.detect_by_one_round(resolve, detect)

    def __repr__(self) -> str:
        return f"MQFaultStrategy(version={self.version!r}, send_latency_fault_enable={self.send_latency_fault_enable})"
