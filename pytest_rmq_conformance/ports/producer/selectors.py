"""The built-in ``MessageQueueSelector``s: ``SELECTOR_HASH`` and ``SELECTOR_RANDOM``.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from pytest_rmq_conformance.javalang import JavaRandom, java_abs, java_hash_code, java_list_get, java_rem
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.producer.counter import producer_release
from pytest_rmq_conformance.releases import PORT_RELEASE

__all__ = ["SelectMessageQueueByHash", "SelectMessageQueueByRandom"]


class SelectMessageQueueByHash:
    """Java ``SelectMessageQueueByHash``: the queue at ``|arg.hashCode()| % n``.

    ``arg`` is a ``str`` or has ``java_hash_code()``; ``None`` raises ``TypeError`` (Java's
    NullPointerException), an empty list ``ZeroDivisionError``. 4.7.1 takes ``Math.abs`` of the
    hash first, which leaves ``INT_MIN`` negative: ``IndexError`` unless ``n`` divides 2**31.
    Later releases take the remainder first and never fail.

    >>> mqs = [MessageQueue("TopicTest", "broker-a", q) for q in range(10)]
    >>> SelectMessageQueueByHash(version="4.9.8").select(mqs, None, "polygenelubricants").queue_id
    8
    """

    name = "SELECTOR_HASH"

    def __init__(self, *, version: str = PORT_RELEASE) -> None:
        self.version = version
        self._release = producer_release(version)

    def select(self, mqs: Sequence[MessageQueue], msg: Any, arg: Any) -> MessageQueue:
        value = java_hash_code(arg)
        if self._release < (4, 9, 8):
            value = java_rem(java_abs(value), len(mqs))
        else:
            value = java_rem(value, len(mqs))
            if value < 0:
                value = java_abs(value)
        return java_list_get(mqs, value)

    def __repr__(self) -> str:
        return f"SelectMessageQueueByHash(version={self.version!r})"


class SelectMessageQueueByRandom:
    """Java ``SelectMessageQueueByRandom`` (the same in every release): ``mqs[random.nextInt(n)]``
    with a ``java.util.Random`` seeded with ``seed`` (Java: the construction millisecond);
    ``ValueError`` ("bound must be positive") for an empty list.

    >>> mqs = [MessageQueue("TopicTest", "broker-a", q) for q in range(5)]
    >>> selector = SelectMessageQueueByRandom(seed=0)
    >>> [selector.select(mqs, None, None).queue_id for _ in range(3)]
    [0, 3, 4]
    """

    name = "SELECTOR_RANDOM"

    def __init__(self, *, version: str = PORT_RELEASE, seed: int | None = None) -> None:
        self.version = version
        self._release = producer_release(version)
        self.random = JavaRandom(time.time_ns() // 1_000_000 if seed is None else seed)

    def select(self, mqs: Sequence[MessageQueue], msg: Any, arg: Any) -> MessageQueue:
        return java_list_get(mqs, self.random.next_int(len(mqs)))

    def __repr__(self) -> str:
        return f"SelectMessageQueueByRandom(version={self.version!r})"
