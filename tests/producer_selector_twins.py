"""Twins of the selector ports: what Java can observe of a ``MessageQueueSelector``, rule by rule.

``sendSelectImpl`` (spec §7.3) hands the selector a fresh copy of the publish list and the
message, and sends to the queue it returns, or fails the send when it throws or returns null.
So Java observes, per call:

- the queue returned, by value (topic, broker name, queue id), never its identity;
- the list as given to that call, and nothing the selector does to the copy afterwards;
- whether it throws; which exception and its message only as the cause of the
  ``MQClientException`` (the suite asks for an exception, ``ValueError`` for an
  ``IllegalArgumentException``);
- for ``SELECTOR_RANDOM``, one ``nextInt(n)`` of the ``java.util.Random`` seeded as given, per call.

Each rule has a twin that differs from the port only in what Java cannot observe (it must
pass every golden case) and one or more that differ in what it can (they must fail, with the
class given). ``TWINS`` maps a name to (rule, family, release, class; ``None``: must pass).
``FirstQueue`` is issue 34's selector of item 9: a case is classed by its worst call.
"""

from __future__ import annotations

from pytest_rmq_conformance.javalang import INT_MIN, JavaRandom, java_hash_code
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.producer import SelectMessageQueueByHash, SelectMessageQueueByRandom

BY_VALUE = "the queue returned, by value"
LIST_COPY = "the list of each call, a copy"
THROWS = "throws where Java throws, any exception"
DRAWS = "java.util.Random's nextInt(n), one per call"


class EqualCopy(SelectMessageQueueByHash):
    """Returns an equal new ``MessageQueue``, not the list's own object."""

    def select(self, mqs, msg, arg):
        mq = super().select(mqs, msg, arg)
        return MessageQueue(mq.topic, mq.broker_name, mq.queue_id)


class OtherBroker(SelectMessageQueueByHash):
    """Returns Java's queue id on another broker."""

    def select(self, mqs, msg, arg):
        mq = super().select(mqs, msg, arg)
        return MessageQueue(mq.topic, mq.broker_name + "-2", mq.queue_id)


class ReversesTheList(SelectMessageQueueByHash):
    """Reverses the list it was given once it has chosen (a list past 65,536 queues is read-only)."""

    def select(self, mqs, msg, arg):
        mq = super().select(mqs, msg, arg)
        if isinstance(mqs, list):
            mqs.reverse()
        return mq


class KeepsTheFirstList(SelectMessageQueueByHash):
    """Answers every call from the list of its first."""

    def __init__(self, *, version="5.3.3"):
        super().__init__(version=version)
        self.kept = None

    def select(self, mqs, msg, arg):
        if self.kept is None:
            self.kept = list(mqs)
        return super().select(self.kept or mqs, msg, arg)


class OwnExceptions(SelectMessageQueueByHash):
    """Raises its own exceptions, with its own messages, where Java throws."""

    def select(self, mqs, msg, arg):
        if arg is None:
            raise RuntimeError("a key is required")
        if not mqs:
            raise LookupError("no queue to send to")
        return super().select(mqs, msg, arg)


class AnswersTheEmptyList(SelectMessageQueueByHash):
    """Returns null for the empty list, where Java throws ``ArithmeticException``."""

    def select(self, mqs, msg, arg):
        return super().select(mqs, msg, arg) if mqs else None


class RefusesMinValue(SelectMessageQueueByHash):
    """Raises for a hash of ``Integer.MIN_VALUE``, where 4.9.8 and later answer."""

    def select(self, mqs, msg, arg):
        if java_hash_code(arg) == INT_MIN:
            raise OverflowError("Math.abs(Integer.MIN_VALUE)")
        return super().select(mqs, msg, arg)


class LateRandom(SelectMessageQueueByRandom):
    """Seeds its ``java.util.Random`` at its first call instead of its construction."""

    def __init__(self, *, version="5.3.3", seed=None):
        super().__init__(version=version, seed=seed)
        self.seed, self.random = seed, None

    def select(self, mqs, msg, arg):
        if self.random is None:
            self.random = JavaRandom(self.seed)
        return super().select(mqs, msg, arg)


class ModuloDraw(SelectMessageQueueByRandom):
    """Draws ``next(31) % n``: Java's ``nextInt(n)`` takes the high bits for a power of two and redraws near the top."""

    def select(self, mqs, msg, arg):
        return mqs[self.random.next(31) % len(mqs)]


class FirstQueue:
    """Issue 34, item 9: the first queue for every argument, null for the empty list."""

    name = "SELECTOR_HASH"

    def __init__(self, *, version="5.3.3"):
        self.version = version

    def select(self, mqs, msg, arg):
        return mqs[0] if mqs else None


TWINS = {
    "EqualCopy": (BY_VALUE, "SELECTOR_HASH", "4.9.8", None),
    "OtherBroker": (BY_VALUE, "SELECTOR_HASH", "4.9.8", "wrong-queues"),
    "ReversesTheList": (LIST_COPY, "SELECTOR_HASH", "4.9.8", None),
    "KeepsTheFirstList": (LIST_COPY, "SELECTOR_HASH", "4.9.8", "wrong-queues"),
    "OwnExceptions": (THROWS, "SELECTOR_HASH", "4.9.8", None),
    "AnswersTheEmptyList": (THROWS, "SELECTOR_HASH", "4.9.8", "error-behaviour"),
    "RefusesMinValue": (THROWS, "SELECTOR_HASH", "4.9.8", "wrong-queues"),
    "LateRandom": (DRAWS, "SELECTOR_RANDOM", "5.3.3", None),
    "ModuloDraw": (DRAWS, "SELECTOR_RANDOM", "5.3.3", "wrong-queues"),
}
