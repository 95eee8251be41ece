"""Clocks in milliseconds: a manual one for tests and simulations, one that starts over for every
test and hypothesis example, the wall clock, and delayed calls on a manual clock.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import heapq
import os
import sys
import time
from typing import Any

__all__ = ["ManualClock", "ExampleClock", "SystemClock", "Timers", "NoProgress", "as_clock"]


class ManualClock:
    """Time that moves only when told to, in whole milliseconds (Java's ``currentTimeMillis``).

    Every operation reads the time through :meth:`now`, so a subclass that changes what
    ``now()`` sees (as :class:`ExampleClock` does) changes ``advance`` and ``set`` with it.

    >>> clock = ManualClock(1000)
    >>> clock.advance(120000)
    121000
    >>> clock.set(150000)
    150000
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
        self._now = self.now() + int(millis)
        return self._now

    def set(self, millis: int) -> int:
        """Jump to ``millis``, which may not be earlier than now."""
        now = self.now()
        if millis < now:
            raise ValueError(f"a clock does not go backwards (set to {millis} ms at {now} ms)")
        return self.advance(int(millis) - now)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(now={self.now()})"


def _current_example() -> tuple[str, Any]:
    """The running test's id and hypothesis build context: one changes whenever a new test or
    a new hypothesis example starts."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    control = sys.modules.get("hypothesis.control")  # no hypothesis imported: no example running
    try:
        context = control.current_build_context() if control is not None else None
    except Exception:  # hypothesis raises outside an example
        context = None
    return test, context


class ExampleClock(ManualClock):
    """A :class:`ManualClock` back at its start whenever a new test or hypothesis example reads
    it (through ``now``, so ``advance``, ``set`` and every model reading it see the same time)."""

    def __init__(self, start: int = 0):
        super().__init__(start)
        self._example = _current_example()

    def now(self) -> int:
        example = _current_example()
        if example[0] != self._example[0] or example[1] is not self._example[1]:
            self._example = example  # keeps the context alive, so `is` cannot be fooled
            self._now = self.start
        return self._now


class SystemClock:
    """The wall clock, for models used outside tests."""

    def now(self) -> int:
        return time.time_ns() // 1_000_000


class NoProgress(RuntimeError):
    """Scheduled calls kept running at one instant: a loop that does not let time move on."""


class Timers:
    """Delayed calls on a :class:`ManualClock`: what Java's scheduled executors do.

    A call that runs more than ``max_runs_per_instant`` times at one instant raises
    :class:`NoProgress` naming its label and the time, so :meth:`advance` always returns.

    >>> clock = ManualClock(); timers = Timers(clock); fired = []
    >>> timers.schedule(20000, lambda: fired.append(clock.now()), "unlock")
    >>> timers.advance(30000); fired
    30000
    [20000]
    """

    max_runs_per_instant = 100_000

    def __init__(self, clock: ManualClock):
        self.clock = clock
        self._queue: list = []
        self._seq = 0
        self._instant: int | None = None
        self._runs: dict = {}

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
            _, _, label, action = heapq.heappop(self._queue)
            self._run(label, action)
            ran += 1
        return ran

    def advance(self, millis: int) -> int:
        """Move the clock ``millis`` forward, stopping at each due call to run it; the new time."""
        if millis < 0:
            raise ValueError(f"a clock does not go backwards (advance by {millis} ms)")
        end = self.clock.now() + int(millis)
        while self._queue and self._queue[0][0] <= end:
            due, _, label, action = heapq.heappop(self._queue)
            self.clock.set(max(due, self.clock.now()))
            self._run(label, action)
        return self.clock.set(max(end, self.clock.now()))  # a call may have moved the clock past the end

    def _run(self, label: str, action) -> None:
        now = self.clock.now()
        if now != self._instant:
            self._instant, self._runs = now, {}
        runs = self._runs[label] = self._runs.get(label, 0) + 1
        if runs > self.max_runs_per_instant:
            raise NoProgress(f"{label or 'a call'} ran {runs - 1} times at {now} ms without time moving on")
        action()


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
