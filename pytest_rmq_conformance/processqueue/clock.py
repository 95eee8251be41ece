"""Clocks in milliseconds: a manual one for tests and simulations, and the wall clock."""

from __future__ import annotations

import heapq
import time

__all__ = ["ManualClock", "SystemClock", "Timers", "as_clock"]


class ManualClock:
    """Time that moves only when told to, in whole milliseconds (Java's ``currentTimeMillis``).

    >>> clock = ManualClock(1000)
    >>> clock.advance(120000)
    121000
    >>> clock.now()
    121000
    """

    def __init__(self, start: int = 0):
        self.start = int(start)
        self._now = self.start

    def now(self) -> int:
        return self._now

    def advance(self, millis: int) -> int:
        """Move forward by ``millis`` (never backwards) and return the new time."""
        if millis < 0:
            raise ValueError(f"a clock does not go backwards (advance by {millis} ms)")
        self._now += int(millis)
        return self._now

    def set(self, millis: int) -> int:
        """Jump to ``millis``, which may not be earlier than now."""
        return self.advance(int(millis) - self._now)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(now={self._now})"


class SystemClock:
    """The wall clock, for models used outside tests."""

    def now(self) -> int:
        return time.time_ns() // 1_000_000


class Timers:
    """Delayed calls on a :class:`ManualClock`: what Java's scheduled executors do.

    >>> clock = ManualClock(); timers = Timers(clock); fired = []
    >>> timers.schedule(20000, lambda: fired.append(clock.now()), "unlock")
    >>> timers.advance(30000); fired
    30000
    [20000]
    """

    def __init__(self, clock: ManualClock):
        self.clock = clock
        self._queue: list = []
        self._seq = 0

    def schedule(self, delay: int, action, label: str = "") -> None:
        """Run ``action()`` ``delay`` ms from now (calls due at the same time run in order)."""
        self._seq += 1
        heapq.heappush(self._queue, (self.clock.now() + max(0, int(delay)), self._seq, label, action))

    def pending(self) -> list:
        """``(due, label)`` of every call not yet run, soonest first."""
        return [(due, label) for due, _, label, _ in sorted(self._queue)]

    def run_due(self) -> int:
        """Run the calls due by now (including those they schedule for now)."""
        ran = 0
        while self._queue and self._queue[0][0] <= self.clock.now():
            _, _, _, action = heapq.heappop(self._queue)
            action()
            ran += 1
        return ran

    def advance(self, millis: int) -> int:
        """Move the clock ``millis`` forward, stopping at each due call to run it."""
        end = self.clock.now() + int(millis)
        if millis < 0:
            raise ValueError(f"a clock does not go backwards (advance by {millis} ms)")
        while self._queue and self._queue[0][0] <= end:
            due, _, _, action = heapq.heappop(self._queue)
            self.clock.set(max(due, self.clock.now()))
            action()
        self.clock.set(end)
        return end


class _CallableClock:
    def __init__(self, read):
        self.read = read

    def now(self) -> int:
        return int(self.read())


def as_clock(clock):
    """``clock`` as something with ``now()``: a clock object, a function returning milliseconds,
    or ``None`` for the wall clock."""
    if clock is None:
        return SystemClock()
    if hasattr(clock, "now"):
        return clock
    if callable(clock):
        return _CallableClock(clock)
    raise TypeError(f"a clock needs now() or must be a function returning milliseconds, not {clock!r}")
