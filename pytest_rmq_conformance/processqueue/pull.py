"""The push consumer's pull path (``DefaultMQPushConsumerImpl.pullMessage``) for one request.

:func:`pull_message` runs the checks made before a pull is sent and says what
happens to the request; :func:`process_pull_result` applies the broker's
answer. Both work on a :class:`~pytest_rmq_conformance.processqueue.RebalancePushImpl`
(its table, offsets and flow thresholds).

    >>> from pytest_rmq_conformance import MessageQueue
    >>> from pytest_rmq_conformance.processqueue import Broker, ManualClock, ProcessQueue, PullRequest, RebalancePushImpl
    >>> clock = ManualClock(); impl = RebalancePushImpl("g", "c1", None, Broker(clock))
    >>> mq = MessageQueue("T", "broker-a", 0); pq = ProcessQueue(clock)
    >>> impl.subscribe("T", [mq]); clock.advance(5000)
    5000
    >>> pull_message(impl, PullRequest("g", mq, pq, 0))
    PullDecision(action='pull', delay=0, reason='')
    >>> pq.last_pull_timestamp
    5000

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.processqueue.process_queue import Message, ProcessQueue
from pytest_rmq_conformance.processqueue.rebalance import (
    MQClientException,
    PullRequest,
    RebalanceImpl,
    RebalancePushImpl,
)

__all__ = [
    "PullDecision",
    "pull_message",
    "process_pull_result",
    "FOUND",
    "NO_NEW_MSG",
    "NO_MATCHED_MSG",
    "OFFSET_ILLEGAL",
    "FLOW_CONTROL",
    "pull_exception_delay",
    "lite_pull_task",
    "lite_pull_result",
    "DELAY_WHEN_EXCEPTION",
    "DELAY_WHEN_SUSPEND",
    "DELAY_WHEN_FLOW_CONTROL",
]

FOUND = "FOUND"
FLOW_CONTROL = "FLOW_CONTROL"
NO_NEW_MSG = "NO_NEW_MSG"
NO_MATCHED_MSG = "NO_MATCHED_MSG"
OFFSET_ILLEGAL = "OFFSET_ILLEGAL"

DELAY_WHEN_EXCEPTION = 3000
DELAY_WHEN_SUSPEND = 1000
DELAY_WHEN_FLOW_CONTROL = 50
DELAY_WHEN_BROKER_FLOW_CONTROL = 20
CONSUME_CONCURRENTLY_MAX_SPAN = 2000
OFFSET_ILLEGAL_REMOVE_DELAY = 10000  # 4.9.8 waits this long before removing the queue


@dataclass(frozen=True)
class PullDecision:
    """``action``: ``"stop"`` (the request chain ends for good), ``"retry"`` (the request is
    enqueued again after ``delay`` ms) or ``"pull"`` (the pull is sent to the broker)."""

    action: str
    delay: int = 0
    reason: str = ""


def pull_message(
    impl: RebalancePushImpl,
    request: PullRequest,
    *,
    running: bool | None = None,
    paused: bool | None = None,
) -> PullDecision:
    """The checks before a pull, in Java's order. Every attempt on a live queue refreshes
    ``last_pull_timestamp``, so a pull-expired queue is one whose chain has stopped.
    ``running``/``paused`` default to the consumer's ``impl.running``/``impl.paused``."""
    pq, mq = request.process_queue, request.message_queue
    running = impl.running if running is None else running
    paused = impl.paused if paused is None else paused
    if pq.dropped:
        return PullDecision("stop", reason="the queue was dropped")
    pq.last_pull_timestamp = impl.clock.now()
    if not running:
        return PullDecision("retry", DELAY_WHEN_EXCEPTION, "the consumer is not running")
    if paused:
        return PullDecision("retry", DELAY_WHEN_SUSPEND, "the consumer is paused")
    if pq.msg_count > impl.pull_threshold_for_queue:
        return PullDecision("retry", DELAY_WHEN_FLOW_CONTROL, "too many cached messages")
    if pq.cached_msg_size_in_mib > impl.pull_threshold_size_for_queue:
        return PullDecision("retry", DELAY_WHEN_FLOW_CONTROL, "too many cached MiB")
    if not impl.consume_orderly:
        if pq.get_max_span() > CONSUME_CONCURRENTLY_MAX_SPAN:
            return PullDecision("retry", DELAY_WHEN_FLOW_CONTROL, "the cached span is too wide")
    else:
        if not pq.locked:
            return PullDecision("retry", DELAY_WHEN_EXCEPTION, "the orderly queue is not locked")
        if not request.previously_locked:
            try:  # 5.3.3 throws for any offset < 0; 4.9.8 goes on with -1 (derived)
                offset = impl.compute_pull_from_where_with_exception(mq)
            except MQClientException:
                return PullDecision("retry", DELAY_WHEN_EXCEPTION, "the start offset could not be read")
            request.previously_locked = True
            request.next_offset = offset
    if mq.topic not in impl.subscription_inner:
        return PullDecision("retry", DELAY_WHEN_EXCEPTION, "no subscription for the topic")
    return PullDecision("pull")


def process_pull_result(
    impl: RebalancePushImpl,
    request: PullRequest,
    status: str,
    messages: list[Message] | None = None,
    next_begin_offset: int | None = None,
) -> bool | None:
    """Apply the broker's answer (the callback does not look at ``dropped``).

    ``FOUND``: cache the messages (returns ``put_message``'s dispatch flag) and move the
    request on; ``NO_NEW_MSG``/``NO_MATCHED_MSG``: with nothing cached, commit
    ``next_begin_offset`` (increase only); ``OFFSET_ILLEGAL``: drop the queue and, after 10 s in
    4.9.8 (scheduled on ``impl.timers``) or at once in 5.3.3, persist the offset and remove it.
    """
    pq, mq = request.process_queue, request.message_queue
    if next_begin_offset is None:
        next_begin_offset = messages[-1].queue_offset + 1 if messages else request.next_offset
    if status == FOUND:
        request.next_offset = next_begin_offset
        if not messages:
            return False  # nothing found after filtering: pulled again at once, nothing cached
        return pq.put_message(list(messages))
    if status in (NO_NEW_MSG, NO_MATCHED_MSG):
        request.next_offset = next_begin_offset
        if pq.msg_count == 0:
            impl.offset_store.update_offset(mq, next_begin_offset, True)
        return None
    if status == OFFSET_ILLEGAL:
        request.next_offset = next_begin_offset
        pq.dropped = True

        def remove() -> None:
            impl.offset_store.update_offset(mq, request.next_offset, False)
            impl.offset_store.persist(mq)
            impl.remove_process_queue(mq)

        if impl.version == "4.9.8":
            impl.timers.schedule(OFFSET_ILLEGAL_REMOVE_DELAY, remove, f"offset illegal {mq}")
        else:
            impl.offset_store.update_and_freeze_offset(mq, request.next_offset)
            impl.offset_store.persist(mq)
            impl.remove_process_queue(mq)
            impl.rebalance_immediately()
        return None
    raise ValueError(f"unknown pull status {status!r}")


def pull_exception_delay(response_code: str | None = None) -> int:
    """When a failed pull is retried: 20 ms after the broker's ``FLOW_CONTROL``, else 3 s."""
    return DELAY_WHEN_BROKER_FLOW_CONTROL if response_code == FLOW_CONTROL else DELAY_WHEN_EXCEPTION


def lite_pull_task(impl: RebalanceImpl, mq: MessageQueue, pq: ProcessQueue | None, cancelled: bool = False) -> bool:
    """One turn of lite pull's ``PullTaskImpl``: whether it pulls. It stops for a cancelled task
    or a missing or dropped queue; only 5.3.3 refreshes ``last_pull_timestamp``."""
    if cancelled or pq is None or pq.dropped:
        return False
    if impl.version != "4.9.8":
        pq.last_pull_timestamp = impl.clock.now()
    return True


def lite_pull_result(pq: ProcessQueue, messages: list[Message]) -> list[Message]:
    """What lite pull keeps of a pull's messages for ``poll``: nothing once the queue was dropped."""
    if pq is None or pq.dropped:
        return []
    pq.put_message(list(messages))
    return list(messages)
