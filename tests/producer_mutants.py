"""Deliberately wrong producer selections, one per generated check: each claims the property it
breaks (or is a Java twin that leaves Java on inputs the golden files lack), and the suite must
reject it with that check.

``MUTANTS`` maps a name to (the suite test that must fail, the release it runs at). Some are
Java's own ports at a release where Java does not have the property: the properties are
release by release, and the check tells them apart.
"""

from __future__ import annotations

import random

from pytest_rmq_conformance.javalang import java_hash_code
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.producer import MQFaultStrategy, SelectMessageQueueByHash
from pytest_rmq_conformance.ports.producer.counter import ThreadLocalIndex
from pytest_rmq_conformance.ports.producer.fault_strategy import LATENCY_MAX, NOT_AVAILABLE_DURATION
from pytest_rmq_conformance.ports.producer.latency import LatencyFaultToleranceImpl


class _NoTwin(MQFaultStrategy):
    """The 5.3.3 port under a name of its own, claiming one property."""

    name = "MY_FAULT_STRATEGY"
    release = "5.3.3"

    def __init__(self, *, clock=None):
        super().__init__(clock=clock, version=self.release)


class SkipsAQueue(_NoTwin):
    """Round robin that takes the entry after the counter's."""

    rmq_properties = {"round-robin"}

    def select_one_message_queue(self, info, last_broker_name, reset_index=False):
        mq = super().select_one_message_queue(info, last_broker_name, reset_index)
        return info.queues[(info.queues.index(mq) + 1) % len(info.queues)] if mq in info.queues else mq


class SticksToLastBroker(_NoTwin):
    """A retry with latency off goes wherever the counter points, the last broker too."""

    rmq_properties = {"avoids-last-broker"}

    def select_one_message_queue(self, info, last_broker_name, reset_index=False):
        return super().select_one_message_queue(info, None if not self.send_latency_fault_enable else last_broker_name, reset_index)


class IgnoresPenalties(_NoTwin):
    """Latency fault tolerance that records faults and never looks at them."""

    rmq_properties = {"avoids-penalised"}

    def select_one_message_queue(self, info, last_broker_name, reset_index=False):
        return info.select_one_message_queue(last_broker_name)


class Retries471(MQFaultStrategy):
    """Java 4.7.1: a retry walks for the last broker itself, and falls back to a penalised one."""

    name = "FAULT_STRATEGY_471"
    rmq_properties = {"avoids-penalised-on-retry"}

    def __init__(self, *, clock=None):
        super().__init__(clock=clock, version="4.7.1")


class SkipsReachability(_NoTwin):
    """5.3.3 without its second pass: past the available brokers, any broker at all."""

    rmq_properties = {"reachability"}

    def select_one_message_queue(self, info, last_broker_name, reset_index=False):
        if not self.send_latency_fault_enable:
            return super().select_one_message_queue(info, last_broker_name, reset_index)
        tolerance = self.latency_fault_tolerance
        found = info.select_one_message_queue_filtered(
            lambda mq: tolerance.is_available(mq.broker_name), lambda mq: last_broker_name is None or mq.broker_name != last_broker_name
        )
        return found if found is not None else info.queues[info.next_position()]


class OldTables(_NoTwin):
    """5.3.3 priced by the 4.x tables."""

    rmq_properties = {"penalty-boundaries"}

    def __init__(self, *, clock=None):
        super().__init__(clock=clock)
        self.latency_max, self.not_available_duration = list(LATENCY_MAX[4]), list(NOT_AVAILABLE_DURATION[4])


class IsolatesByLatency(_NoTwin):
    """An isolating update priced at its measured latency."""

    rmq_properties = {"isolation"}

    def update_fault_item(self, broker_name, latency, isolation, reachable=True):
        super().update_fault_item(broker_name, latency, False, reachable)


class _LastUpdateWins(LatencyFaultToleranceImpl):
    def update_fault_item(self, name, current_latency, not_available_duration, reachable=True):
        super().update_fault_item(name, current_latency, not_available_duration, reachable)
        item = self.fault_item_table.get(name)
        self.fault_item_table.put(name, type(item)(name, current_latency, self.clock.now() + not_available_duration, reachable, item.check_stamp))


class LastUpdateWins(_NoTwin):
    """4.x's rule at 5.3.3: a quick success ends a long penalty early."""

    rmq_properties = {"monotonic-penalty"}

    def __init__(self, *, clock=None):
        super().__init__(clock=clock)
        self.latency_fault_tolerance = _LastUpdateWins(clock=self.clock, version=self.release)


class RecordsWhenOff(_NoTwin):
    """Fills the fault table with latency fault tolerance off."""

    rmq_properties = {"inert-when-disabled"}

    def update_fault_item(self, broker_name, latency, isolation, reachable=True):
        enabled = self.send_latency_fault_enable
        self.send_latency_fault_enable = True
        try:
            super().update_fault_item(broker_name, latency, isolation, reachable)
        finally:
            self.send_latency_fault_enable = enabled


class InventsQueues(_NoTwin):
    """Returns a queue id its broker does not have."""

    rmq_properties = {"listed-queue"}

    def select_one_message_queue(self, info, last_broker_name, reset_index=False):
        mq = super().select_one_message_queue(info, last_broker_name, reset_index)
        return None if mq is None else MessageQueue(mq.topic, mq.broker_name, mq.queue_id + 64)


class _TimeSeeded(ThreadLocalIndex):
    def pin(self, stored, seed=None):
        super().pin(stored, None)  # keeps the Random it made from the time


class UnpinnedCounter(_NoTwin):
    """Ignores the counter's seed: a trace with no stored counter starts anywhere."""

    rmq_properties = {"one-answer"}

    def publish_info(self, topic, route):
        info = super().publish_info(topic, route)
        info.send_which_queue = _TimeSeeded(version=self.version)
        return info


class Hash471(SelectMessageQueueByHash):
    """Java 4.7.1's hash selector, which throws for a hash of ``Integer.MIN_VALUE``."""

    name = "MY_HASH"
    rmq_properties = {"total"}

    def __init__(self):
        super().__init__(version="4.7.1")


class RotatesKeys(SelectMessageQueueByHash):
    """The same key on the next queue each call: per-key order lost."""

    name = "MY_HASH"
    rmq_properties = {"same-key-same-queue"}

    def __init__(self):
        super().__init__()
        self.calls = 0

    def select(self, mqs, msg, arg):
        self.calls += 1
        return mqs[(java_hash_code(arg) + self.calls) % len(mqs)]


class FirstHalf(SelectMessageQueueByHash):
    """Spreads keys over the first half of the list only."""

    name = "MY_HASH"
    rmq_properties = {"spread"}

    def select(self, mqs, msg, arg):
        return mqs[(java_hash_code(arg) & 0x7FFFFFFF) % max(len(mqs) // 2, 1)]


class PythonRandom:
    """A random selector on Python's ``random``: fair, but not Java's draws."""

    name = "SELECTOR_RANDOM"

    def __init__(self, seed=0):
        self.random = random.Random(seed)

    def select(self, mqs, msg, arg):
        if not mqs:
            raise ValueError("bound must be positive")
        return mqs[self.random.randrange(len(mqs))]


class FairButNotJava(PythonRandom):
    """:class:`PythonRandom` saying so: judged by spread instead of Java's draws."""

    rmq_properties = {"total", "spread", "one-answer"}


class UnfairRandom(FairButNotJava):
    """Picks the first queue half the time."""

    def select(self, mqs, msg, arg):
        return mqs[0] if self.random.random() < 0.5 else super().select(mqs, msg, arg)


class OddCounter(MQFaultStrategy):
    """A Java twin whose counter steps twice after a stored value of 3 mod 7 (the reference check
    must find it on drawn traces, as the golden ones do)."""

    def publish_info(self, topic, route):
        info = super().publish_info(topic, route)
        info.send_which_queue = _OddStep(version=self.version)
        return info


class _OddStep(ThreadLocalIndex):
    def increment_and_get(self):
        value = super().increment_and_get()
        return super().increment_and_get() if self.stored is not None and self.stored % 7 == 3 else value


MUTANTS = {
    "SkipsAQueue": ("test_selection_invariant[round-robin]", "5.3.3"),
    "SticksToLastBroker": ("test_selection_invariant[avoids-last-broker]", "5.3.3"),
    "IgnoresPenalties": ("test_selection_invariant[avoids-penalised]", "5.3.3"),
    "Retries471": ("test_selection_invariant[avoids-penalised-on-retry]", "4.7.1"),
    "SkipsReachability": ("test_selection_invariant[reachability]", "5.3.3"),
    "OldTables": ("test_selection_invariant[penalty-boundaries]", "5.3.3"),
    "IsolatesByLatency": ("test_selection_invariant[isolation]", "5.3.3"),
    "LastUpdateWins": ("test_selection_invariant[monotonic-penalty]", "5.3.3"),
    "RecordsWhenOff": ("test_selection_invariant[inert-when-disabled]", "5.3.3"),
    "InventsQueues": ("test_selection_invariant[listed-queue]", "5.3.3"),
    "UnpinnedCounter": ("test_selection_invariant[one-answer]", "5.3.3"),
    "Hash471": ("test_selection_invariant[total]", "4.7.1"),
    "RotatesKeys": ("test_selection_invariant[same-key-same-queue]", "5.3.3"),
    "FirstHalf": ("test_selection_invariant[spread]", "5.3.3"),
    "UnfairRandom": ("test_selection_invariant[spread]", "5.3.3"),
    "OddCounter": ("test_matches_reference", "5.3.3"),
}
