"""``LatencyFaultToleranceImpl``: a producer's fault table, one item per broker name.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from pytest_rmq_conformance.javalang import JavaConcurrentHashMap, JavaRandom, java_long, java_rem
from pytest_rmq_conformance.ports.producer.contract import Clock, FaultItem
from pytest_rmq_conformance.ports.producer.counter import ThreadLocalIndex, producer_release
from pytest_rmq_conformance.releases import PORT_RELEASE

__all__ = ["LatencyFaultToleranceImpl", "DETECT_TIMEOUT", "DETECT_INTERVAL"]

#: 5.x ``ClientConfig`` defaults of the detector, in ms
DETECT_TIMEOUT = 200
DETECT_INTERVAL = 2000


class LatencyFaultToleranceImpl:
    """Java ``LatencyFaultToleranceImpl``: ``fault_item_table`` maps a broker name to its
    :class:`~pytest_rmq_conformance.ports.producer.contract.FaultItem` and iterates in Java's
    ``ConcurrentHashMap`` order. Items are immutable; an update puts a new one under the
    same key, which keeps the key's place.

    A broker is unavailable while ``now < start_timestamp`` (4.x: ``now - start_timestamp``
    as a long, so an overflowed timestamp keeps it out for good).
    """

    def __init__(
        self,
        *,
        clock: Clock,
        version: str = PORT_RELEASE,
        detect_timeout: int = DETECT_TIMEOUT,
        detect_interval: int = DETECT_INTERVAL,
    ) -> None:
        self.version = version
        self._release = producer_release(version)
        self.clock = clock
        self.fault_item_table: JavaConcurrentHashMap[FaultItem] = JavaConcurrentHashMap(16)
        self.which_item_worst = ThreadLocalIndex(version=version)  # 4.x's pickOneAtLeast counter
        self.detect_timeout = detect_timeout
        self.detect_interval = detect_interval

    def update_fault_item(self, name: str, current_latency: int, not_available_duration: int, reachable: bool = True) -> None:
        """Record a send's latency and penalty. 4.x always sets ``start_timestamp = now + d``;
        5.x only extends it (``d > 0`` and ``now + d`` later than it) and always sets ``reachable``."""
        now = self.clock.now()
        old = self.fault_item_table.get(name)  # a None name raises, as Java's get(null)
        until = java_long(now + not_available_duration)
        if self._release < (5, 0, 0):
            self.fault_item_table.put(name, FaultItem(name, current_latency, until))
            return
        item = FaultItem(name, current_latency, 0, reachable) if old is None else old
        start = until if not_available_duration > 0 and until > item.start_timestamp else item.start_timestamp
        if type(item) is FaultItem:  # replace(), written out: it is slow
            self.fault_item_table.put(name, FaultItem(item.name, current_latency, start, reachable, item.check_stamp))
        else:
            self.fault_item_table.put(name, replace(item, latency=current_latency, start_timestamp=start, reachable=reachable))

    def _available(self, item: FaultItem, now: int) -> bool:
        if self._release < (5, 0, 0):
            return java_long(now - item.start_timestamp) >= 0
        return now >= item.start_timestamp

    def is_available(self, name: str | None) -> bool:
        """No item, or its penalty is over."""
        item = self.fault_item_table.get(name)
        return item is None or self._available(item, self.clock.now())

    def is_reachable(self, name: str | None) -> bool:
        """5.x: no item, or its ``reachable`` flag."""
        item = self.fault_item_table.get(name)
        return item is None or item.reachable

    def remove(self, name: str | None) -> None:
        """Drop the item of ``name`` (``TypeError`` for ``None``, Java's NullPointerException)."""
        self.fault_item_table.remove(name)

    def pick_one_at_least(self, shuffle: JavaRandom | None = None) -> str | None:
        """A broker to fall back on, ``None`` with an empty table.

        4.x: all items, best first (available, then lower latency, then earlier
        ``start_timestamp``; a stable sort), then item ``whichItemWorst % (count // 2)``
        (item 0 for a single item). 4.7.1 first shuffles with ``shuffle`` (``Collections.shuffle``;
        ``None`` skips it), which only decides between equal items. 5.x: the first reachable
        item after the shuffle.
        """
        items = list(self.fault_item_table.values())
        if not items:
            return None
        if shuffle is not None and self._release != (4, 9, 8):
            shuffle.shuffle(items)
        if self._release >= (5, 0, 0):
            return next((item.name for item in items if item.reachable), None)
        now = self.clock.now()
        items.sort(key=lambda item: (not self._available(item, now), item.latency, item.start_timestamp))
        half = len(items) // 2
        if half <= 0:
            return items[0].name
        return items[java_rem(self.which_item_worst.increment_and_get(), half)].name

    def detect_by_one_round(
        self, resolve: Callable[[str], str | None], detect: Callable[[str, int], bool] | None
    ) -> None:
        """5.x: for every item due (``now >= check_stamp``), set the next ``check_stamp``; drop it
        if ``resolve(name)`` gives no address, else mark it reachable if ``detect(addr, timeout)``."""
        if self._release < (5, 0, 0):
            raise NotImplementedError(f"LatencyFaultToleranceImpl.detectByOneRound() is new in 5.x, not in {self.version}")
        for name, due in list(self.fault_item_table.items()):
            now = self.clock.now()
            if java_long(now - due.check_stamp) < 0:
                continue
            item = replace(due, check_stamp=java_long(now + self.detect_interval))
            self.fault_item_table.put(name, item)
            address = resolve(item.name)
            if address is None:
                self.fault_item_table.remove(name)
            elif detect is not None and detect(address, self.detect_timeout) and not item.reachable:
                self.fault_item_table.put(name, replace(item, reachable=True))

    def fault_items(self) -> list[FaultItem]:
        """The table's items in Java's iteration order."""
        return self.fault_item_table.value_list()

    def __repr__(self) -> str:
        return f"LatencyFaultToleranceImpl(version={self.version!r}, items={self.fault_items()!r})"
