"""``ThreadLocalIndex``: the round-robin counter of a publish list (and of 4.x's ``whichItemWorst``).

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import time

from pytest_rmq_conformance.javalang import INT_MAX, JavaRandom, java_abs, java_int, mask31
from pytest_rmq_conformance.releases import PORT_RELEASE, RELEASES, parse_release

__all__ = ["ThreadLocalIndex", "producer_release"]


def producer_release(version: str) -> tuple[int, int, int]:
    """``parse_release(version)`` for a release the producer ports reproduce (``RELEASES``);
    ``ValueError`` for any other, since the producer code changed between them at points
    the ports do not know (``reference_strategy`` asks them for the release among these whose
    answers a release gives)."""
    release = parse_release(version)
    if version not in RELEASES:
        raise ValueError(f"the producer ports reproduce RocketMQ {', '.join(RELEASES)}, not {version}")
    return release


class ThreadLocalIndex:
    """Java ``ThreadLocalIndex`` as one thread sees it: a stored ``int`` (``None`` until the
    first step) and a private ``java.util.Random`` that picks the first value.

    Every step returns the next value modulo 2**31, never negative:

    - 4.7.1 (``getAndIncrement``): a first value ``Math.abs(nextInt())`` and every stored
      value are clamped to ``[0, 2**31-1]`` (``Math.abs`` of ``INT_MIN`` becomes 0);
    - 4.9.8: starts at ``Math.abs(nextInt())``, the stored value wraps negative, the
      returned one is masked to 31 bits;
    - 5.3.3: starts at ``nextInt()`` itself, and ``reset()`` stores ``nextInt(INT_MAX)``.

    >>> index = ThreadLocalIndex(version="4.9.8")
    >>> index.pin(INT_MAX, seed=1)
    >>> index.increment_and_get(), index.stored
    (0, -2147483648)
    """

    def __init__(self, *, version: str = PORT_RELEASE, seed: int | None = None) -> None:
        self.version = version
        self._release = producer_release(version)
        self.random = JavaRandom(time.time_ns() if seed is None else seed)
        self._stored: int | None = None

    @property
    def stored(self) -> int | None:
        """The value stored after the last step (``None`` until the first one); settable, as the
        Java harness set the ``ThreadLocal``."""
        return self._stored

    @stored.setter
    def stored(self, value: int | None) -> None:
        self._stored = None if value is None else java_int(value)

    def pin(self, stored: int | None, seed: int | None = None) -> None:
        """Store ``stored`` (``None``: unset); with ``seed``, draw from ``Random(seed)`` from now on."""
        self.stored = stored
        if seed is not None:
            self.random = JavaRandom(seed)

    def increment_and_get(self) -> int:
        """One step: the next value (Java 4.7.1 ``getAndIncrement``, later ``incrementAndGet``)."""
        if self._release < (4, 9, 8):
            if self._stored is None:
                self._stored = max(java_abs(self.random.next_int()), 0)
            self._stored = max(java_abs(java_int(self._stored + 1)), 0)
            return self._stored
        start = self._stored
        if start is None:
            start = self.random.next_int()
            if self._release < (5, 0, 0):
                start = java_abs(start)
        self._stored = java_int(start + 1)
        return mask31(self._stored)

    #: 4.7.1's name for the same step: it increments before it returns
    get_and_increment = increment_and_get

    def reset(self) -> None:
        """5.x: a fresh random start, ``nextInt(INT_MAX)``. 4.x has no ``reset``."""
        if self._release < (5, 0, 0):
            raise NotImplementedError(f"ThreadLocalIndex.reset() is new in 5.x, not in {self.version}")
        self._stored = self.random.next_int(INT_MAX)  # Java's Math.abs and clamp change nothing here

    def __repr__(self) -> str:
        return f"ThreadLocalIndex(version={self.version!r}, stored={self._stored!r})"
