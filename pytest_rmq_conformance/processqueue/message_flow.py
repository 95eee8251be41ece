"""Messages through a simulated group: produced to every queue, pulled along each ProcessQueue's
pull chain, and consumed by whoever holds the queue, concurrently or under the orderly loop
of :mod:`~pytest_rmq_conformance.processqueue.consume` (the listener takes time on the
group's timers), with every consumption recorded so duplicates show up.

    >>> from pytest_rmq_conformance.model import MessageQueue
    >>> mq = MessageQueue("T", "broker-a", 0)
    >>> first, again = Consumption("c1", mq, 7, 0, 100), Consumption("c2", mq, 7, 50, 150)
    >>> list(duplicates([first, again]))
    [(MessageQueue(topic='T', broker_name='broker-a', queue_id=0), 7)]
    >>> parallel_consumption([first, again]) == [(first, again)]
    True

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.processqueue.broker import Broker, BrokerUnavailable
from pytest_rmq_conformance.processqueue.clock import Timers
from pytest_rmq_conformance.processqueue.consume import (
    CONSUME_SUCCESS,
    SUCCESS,
    OrderlyLoop,
    process_consume_result_concurrently,
    resubmit_after_lock,
)
from pytest_rmq_conformance.processqueue.member import Member
from pytest_rmq_conformance.processqueue.offset_store import CONSUME_FROM_LAST_OFFSET
from pytest_rmq_conformance.processqueue.process_queue import PROPERTY_CONSUME_START_TIME, Message, ProcessQueue
from pytest_rmq_conformance.processqueue.pull import (
    DELAY_WHEN_EXCEPTION,
    FOUND,
    NO_NEW_MSG,
    process_pull_result,
    pull_message,
)
from pytest_rmq_conformance.processqueue.rebalance import PullRequest, RebalancePushImpl

__all__ = ["MessageFlow", "Consumption", "Traffic", "duplicates", "parallel_consumption"]


@dataclass(frozen=True)
class MessageFlow:
    """Messages produced to every queue and consumed by whoever holds it.

    ``produce_interval``: one message per queue every so many ms; ``consume_time``: how long the
    listener takes per message (ms, or a function of the queue and offset); ``poll_interval``:
    how soon an empty pull is retried; ``until``: the time production stops (``None``: never).
    """

    produce_interval: int = 1000
    consume_time: int | Callable[[MessageQueue, int], int] = 100
    poll_interval: int = 1000
    until: int | None = None
    consume_from_where: str = CONSUME_FROM_LAST_OFFSET

    def __post_init__(self) -> None:
        for name in ("produce_interval", "poll_interval"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1 ms, not {getattr(self, name)} (else it repeats at one instant)")

    def listener_time(self, mq: MessageQueue, offset: int) -> int:
        return self.consume_time(mq, offset) if callable(self.consume_time) else self.consume_time


@dataclass(frozen=True)
class Consumption:
    """The listener of ``client`` handled the message at ``offset`` of ``mq`` from ``start`` to ``end``."""

    client: str
    mq: MessageQueue
    offset: int
    start: int
    end: int


def duplicates(consumed: list[Consumption]) -> dict[tuple[MessageQueue, int], list[Consumption]]:
    """Messages consumed more than once: ``(queue, offset)`` -> every consumption."""
    seen: dict[tuple[MessageQueue, int], list[Consumption]] = {}
    for c in consumed:
        seen.setdefault((c.mq, c.offset), []).append(c)
    return {key: found for key, found in seen.items() if len(found) > 1}


def parallel_consumption(consumed: list[Consumption]) -> list[tuple[Consumption, Consumption]]:
    """Pairs of listeners of different clients running on the same queue at the same time."""
    by_queue: dict[MessageQueue, list[Consumption]] = {}
    for c in consumed:
        by_queue.setdefault(c.mq, []).append(c)
    pairs = []
    for found in by_queue.values():
        found.sort(key=lambda c: c.start)
        for i, a in enumerate(found):
            for b in found[i + 1 :]:
                if b.start >= a.end:
                    break
                if b.client != a.client:
                    pairs.append((a, b))
    return pairs


class Traffic:
    """``flow`` to ``mq_all`` on a group's ``broker`` and ``timers``: production (from
    :meth:`start` on), every member's pull chains and listeners; each consumption is appended
    to ``consumed``."""

    def __init__(
        self, flow: MessageFlow, mq_all: Sequence[MessageQueue], broker: Broker, timers: Timers, *, orderly: bool, message_model: str
    ):
        self.flow = flow
        self.mq_all = tuple(mq_all)
        self.broker = broker
        self.timers = timers
        self.clock = timers.clock
        self.orderly = orderly
        self.message_model = message_model
        self.consumed: list[Consumption] = []

    def start(self) -> None:
        """The producer's first message is due one ``produce_interval`` from now."""
        self.timers.schedule(self.flow.produce_interval, self._produce, "produce")

    def _produce(self) -> None:
        flow = self.flow
        if flow.until is not None and self.clock.now() > flow.until:
            return
        for mq in self.mq_all:
            self.broker.append(mq)
        self.timers.schedule(flow.produce_interval, self._produce, "produce")

    def pull_requests(self, member: Member, requests: list[PullRequest], delay: int) -> None:
        """``member``'s rebalance dispatched ``requests``: start their pull chains in ``delay`` ms."""
        for request in requests:
            self._pull_later(member, request, delay)

    def _pull_later(self, member: Member, request: PullRequest, delay: int) -> None:
        label = f"{member.client_id}: pull {request.message_queue}"
        self.timers.schedule(delay, lambda: self._pull(member, request), label)

    def _pull(self, member: Member, request: PullRequest) -> None:
        """One turn of a queue's pull chain (``pullMessage`` and its callback)."""
        pq, mq = request.process_queue, request.message_queue
        if not member.alive or mq in member.stalled:
            return
        impl = cast(RebalancePushImpl, member.impl)  # a message flow runs push consumers
        decision = pull_message(impl, request)
        if decision.action == "stop":
            return
        if decision.action == "retry":
            return self._pull_later(member, request, decision.delay)
        try:
            found = self.broker.pull(mq, request.next_offset)
        except BrokerUnavailable:
            return self._pull_later(member, request, DELAY_WHEN_EXCEPTION)
        if not found:
            process_pull_result(impl, request, NO_NEW_MSG)
            return self._pull_later(member, request, self.flow.poll_interval)
        dispatch = process_pull_result(impl, request, FOUND, found)
        if self.orderly:
            if dispatch:
                self._submit_orderly(member, mq, pq, 0)
        else:
            for msg in found:
                self._consume_concurrently(member, mq, pq, msg)
        self._pull_later(member, request, 0)

    def _consume_concurrently(self, member: Member, mq: MessageQueue, pq: ProcessQueue, msg: Message) -> None:
        if pq.dropped:
            return
        start = self.clock.now()
        msg.properties[PROPERTY_CONSUME_START_TIME] = str(start)

        def done() -> None:
            if not member.alive:
                return  # the process died with the message in hand
            self.consumed.append(Consumption(member.client_id, mq, msg.queue_offset, start, self.clock.now()))
            if pq.dropped:
                return  # a late result on a dropped queue is discarded
            process_consume_result_concurrently(
                pq, mq, [msg], CONSUME_SUCCESS, offset_store=member.impl.offset_store, message_model=self.message_model
            )

        self.timers.schedule(self.flow.listener_time(mq, msg.queue_offset), done, f"{member.client_id}: consume {mq}")

    def _submit_orderly(self, member: Member, mq: MessageQueue, pq: ProcessQueue, delay: int) -> None:
        """Submit a ``ConsumeRequest`` for ``mq`` to run ``delay`` ms from now."""

        def run() -> None:
            if not member.alive:
                return
            loop = OrderlyLoop(pq, mq, message_model=self.message_model, clock=self.clock)
            if loop.enter():
                self._orderly_turn(member, loop)
            else:
                self._after_orderly_run(member, loop)

        self.timers.schedule(delay, run, f"{member.client_id}: consume request {mq}")

    def _orderly_turn(self, member: Member, loop: OrderlyLoop) -> None:
        """One turn of the orderly loop: the listener takes its time on the timers."""
        taken = loop.take()
        if taken is None:
            return self._after_orderly_run(member, loop)
        mq, pq = loop.mq, loop.pq
        begin = self.clock.now()
        took = self.flow.listener_time(mq, taken[0].queue_offset)
        pq.consume_lock.hold_until(begin + took)

        def done() -> None:
            if not member.alive:
                return
            pq.consume_lock.release()
            self.consumed.append(Consumption(member.client_id, mq, taken[0].queue_offset, begin, self.clock.now()))
            if loop.finish(taken, SUCCESS, offset_store=member.impl.offset_store).continue_consume:
                self._orderly_turn(member, loop)
            else:
                self._after_orderly_run(member, loop)

        self.timers.schedule(took, done, f"{member.client_id}: consume {mq}")

    def _after_orderly_run(self, member: Member, loop: OrderlyLoop) -> None:
        """What the stopped request asked for: a lock attempt later, or to run again."""
        run, mq, pq = loop.run, loop.mq, loop.pq
        if run.try_lock_after is not None:

            def try_lock() -> None:  # tryLockLaterAndReconsume
                if member.alive:
                    self._submit_orderly(member, mq, pq, resubmit_after_lock(member.impl.lock(mq)))

            self.timers.schedule(run.try_lock_after, try_lock, f"{member.client_id}: lock {mq}")
        elif run.resubmit_after is not None:
            self._submit_orderly(member, mq, pq, run.resubmit_after)
