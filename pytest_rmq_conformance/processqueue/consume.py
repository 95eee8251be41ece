"""What the consume services do with a listener's answer (``processConsumeResult``).

Concurrent consumers remove the batch from the cache and commit the lowest
offset still cached (only ever upwards); messages the listener asked to see
again are sent back to the broker. Orderly consumers commit the taken batch
(highest taken + 1, overwriting) or put it back. Either way a dropped queue's
offset is never updated, and the caller skips a dropped queue altogether.

    >>> from pytest_rmq_conformance.model import MessageQueue
    >>> from pytest_rmq_conformance.processqueue import Broker, ManualClock, OffsetStore, ProcessQueue, fill
    >>> clock = ManualClock(); mq = MessageQueue("T", "broker-a", 0)
    >>> store = OffsetStore(Broker(clock), "group")
    >>> pq = ProcessQueue(clock); msgs = fill(pq, range(3))
    >>> process_consume_result_concurrently(pq, mq, msgs[1:], CONSUME_SUCCESS, offset_store=store).offset
    0
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, List, Optional

from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.processqueue.offset_store import OffsetStore
from pytest_rmq_conformance.processqueue.process_queue import Message, ProcessQueue
from pytest_rmq_conformance.processqueue.rebalance import BROADCASTING, CLUSTERING

__all__ = [
    "CONSUME_SUCCESS",
    "RECONSUME_LATER",
    "SUCCESS",
    "COMMIT",
    "ROLLBACK",
    "SUSPEND_CURRENT_QUEUE_A_MOMENT",
    "ConcurrentResult",
    "OrderlyResult",
    "process_consume_result_concurrently",
    "process_consume_result_orderly",
    "OrderlyRun",
    "consume_request_run_concurrently",
    "consume_request_run_orderly",
]

# ConsumeConcurrentlyStatus
CONSUME_SUCCESS = "CONSUME_SUCCESS"
RECONSUME_LATER = "RECONSUME_LATER"
# ConsumeOrderlyStatus
SUCCESS = "SUCCESS"
COMMIT = "COMMIT"
ROLLBACK = "ROLLBACK"
SUSPEND_CURRENT_QUEUE_A_MOMENT = "SUSPEND_CURRENT_QUEUE_A_MOMENT"

SEND_BACK_RETRY_DELAY = 5000  # a failed send-back is consumed again locally after 5 s
SUSPEND_CURRENT_QUEUE_TIME = 1000
INT_MAX = 2**31 - 1

SendBack = Callable[[Message], bool]


def _sent(send_message_back: Optional[SendBack], msg: Message) -> bool:
    if send_message_back is None:
        return True
    try:
        return bool(send_message_back(msg))
    except Exception:  # Java logs it and counts the send as failed
        return False


@dataclass
class ConcurrentResult:
    """``offset``: what ``remove_message`` returned (-1: nothing cached); ``sent_back``: messages
    handed to the broker to redeliver; ``retry_locally``: those whose send-back failed, to be
    consumed again after 5 s; ``committed``: whether the offset store was updated."""

    offset: int
    sent_back: List[Message] = field(default_factory=list)
    retry_locally: List[Message] = field(default_factory=list)
    committed: bool = False


def process_consume_result_concurrently(
    pq: ProcessQueue,
    mq: MessageQueue,
    msgs: List[Message],
    status: Optional[str],
    *,
    offset_store: OffsetStore,
    send_message_back: Optional[SendBack] = None,
    message_model: str = CLUSTERING,
    ack_index: int = INT_MAX,
) -> ConcurrentResult:
    """The concurrent service after a listener returned ``status`` for ``msgs`` (``None`` or an
    exception count as ``RECONSUME_LATER``). ``ack_index``: the last message acknowledged on
    success (the listener's context; all of them by default). The caller has checked that
    ``pq`` is not dropped. An empty batch changes nothing."""
    result = ConcurrentResult(-1)
    if not msgs:
        return result
    if status == CONSUME_SUCCESS:
        ack_index = min(ack_index, len(msgs) - 1)
    else:
        ack_index = -1
    msgs = list(msgs)
    if message_model == CLUSTERING:
        for msg in msgs[ack_index + 1 :]:
            if pq.version == "5.3.3" and not pq.contains_message(msg):
                continue  # already gone (sent back by clean_expired_msg): not again
            if _sent(send_message_back, msg):
                result.sent_back.append(msg)
            else:
                msg.reconsume_times += 1
                result.retry_locally.append(msg)
        msgs = [m for m in msgs if m not in result.retry_locally]
    elif message_model != BROADCASTING:
        raise ValueError(f"message_model must be {CLUSTERING} or {BROADCASTING}, not {message_model!r}")
    result.offset = pq.remove_message(msgs)
    if result.offset >= 0 and not pq.dropped:
        offset_store.update_offset(mq, result.offset, True)
        result.committed = True
    return result


@dataclass
class OrderlyResult:
    """``commit_offset``: what ``commit`` returned (-1: not committed); ``continue_consume``:
    whether the consume loop goes on; ``resubmit_after``: ms until the batch is tried again."""

    commit_offset: int = -1
    continue_consume: bool = True
    resubmit_after: Optional[int] = None
    committed: bool = False


def _suspend(msgs: List[Message], max_reconsume_times: int, send_message_back: Optional[SendBack]) -> bool:
    """``checkReconsumeTimes``: suspend unless every message is past its retries and went to the DLQ."""
    suspend = False
    for msg in msgs:
        if msg.reconsume_times >= max_reconsume_times:
            if not _sent(send_message_back, msg):
                suspend = True
                msg.reconsume_times += 1
        else:
            suspend = True
            msg.reconsume_times += 1
    return suspend


def process_consume_result_orderly(
    pq: ProcessQueue,
    mq: MessageQueue,
    msgs: List[Message],
    status: Optional[str],
    *,
    offset_store: OffsetStore,
    auto_commit: bool = True,
    max_reconsume_times: int = INT_MAX,
    send_message_back: Optional[SendBack] = None,
    suspend_time: int = SUSPEND_CURRENT_QUEUE_TIME,
) -> OrderlyResult:
    """The orderly service after a listener returned ``status`` for the taken ``msgs`` (``None``
    counts as ``SUSPEND_CURRENT_QUEUE_A_MOMENT``)."""
    status = status or SUSPEND_CURRENT_QUEUE_A_MOMENT
    result = OrderlyResult()

    def again() -> None:
        pq.make_message_to_consume_again(msgs)
        result.continue_consume, result.resubmit_after = False, suspend_time

    if auto_commit:
        if status in (SUCCESS, COMMIT, ROLLBACK):
            result.commit_offset = pq.commit()
        elif _suspend(msgs, max_reconsume_times, send_message_back):
            again()
        else:
            result.commit_offset = pq.commit()
    elif status == COMMIT:
        result.commit_offset = pq.commit()
    elif status == ROLLBACK:
        pq.rollback()
        result.continue_consume, result.resubmit_after = False, suspend_time
    elif status == SUSPEND_CURRENT_QUEUE_A_MOMENT and _suspend(msgs, max_reconsume_times, send_message_back):
        again()
    if result.commit_offset >= 0 and not pq.dropped:
        offset_store.update_offset(mq, result.commit_offset, False)
        result.committed = True
    return result


Listener = Callable[[List[Message]], Optional[str]]


def _listen(listener: Listener, msgs: List[Message], failed: str) -> str:
    try:
        status = listener(msgs)
    except Exception:
        return failed
    return status if status is not None else failed


def consume_request_run_concurrently(
    pq: ProcessQueue,
    mq: MessageQueue,
    msgs: List[Message],
    listener: Listener,
    *,
    offset_store: OffsetStore,
    send_message_back: Optional[SendBack] = None,
    message_model: str = CLUSTERING,
) -> Optional[ConcurrentResult]:
    """``ConsumeMessageConcurrentlyService.ConsumeRequest.run``: nothing on a dropped queue; the
    listener (an exception or ``None`` is ``RECONSUME_LATER``); if the queue was dropped
    meanwhile the result is discarded (``None``), else it is processed."""
    if pq.dropped:
        return None
    status = _listen(listener, msgs, RECONSUME_LATER)
    if pq.dropped:
        return None
    return process_consume_result_concurrently(
        pq, mq, msgs, status, offset_store=offset_store, send_message_back=send_message_back, message_model=message_model
    )


@dataclass
class OrderlyRun:
    """What one ``ConsumeMessageOrderlyService.ConsumeRequest.run`` did: the batches it passed
    to the listener, why it stopped, and when it asked to run again (ms, ``None``: not)."""

    batches: List[List[Message]] = field(default_factory=list)
    stopped: str = ""
    try_lock_after: Optional[int] = None
    resubmit_after: Optional[int] = None


def consume_request_run_orderly(
    pq: ProcessQueue,
    mq: MessageQueue,
    listener: Listener,
    *,
    offset_store: OffsetStore,
    message_model: str = CLUSTERING,
    batch_size: int = 1,
    auto_commit: bool = True,
    listener_time: int = 0,
    clock=None,
) -> OrderlyRun:
    """The orderly consume loop on one queue, with the listener taking ``listener_time`` ms of
    ``clock`` (a :class:`ManualClock`; default the queue's) per batch.

    A CLUSTERING queue is consumed only while ``locked`` and its lock is not expired: on entry
    otherwise it asks to lock again in 100 ms, inside the loop in 10 ms. After
    ``max_time_consume_continuously`` (60 s) it yields and resubmits in 10 ms.
    """
    clock = clock if clock is not None else pq.clock
    run = OrderlyRun()
    if pq.dropped:
        run.stopped = "dropped"
        return run
    clustering = message_model == CLUSTERING
    if clustering and (not pq.locked or pq.is_lock_expired()):
        run.stopped, run.try_lock_after = "not locked", 100
        return run
    started = clock.now()
    while True:
        if pq.dropped:
            run.stopped = "dropped"
            return run
        if clustering and (not pq.locked or pq.is_lock_expired()):
            run.stopped, run.try_lock_after = "lock lost", 10
            return run
        if clock.now() - started > pq.config.max_time_consume_continuously:
            run.stopped, run.resubmit_after = "consumed continuously too long", 10
            return run
        msgs = pq.take_messages(batch_size)
        if not msgs:
            run.stopped = "no messages"
            return run
        if pq.dropped:  # checked again under the consume lock: the taken batch is never committed
            run.stopped = "dropped"
            return run
        run.batches.append(msgs)
        status = _listen(listener, msgs, SUSPEND_CURRENT_QUEUE_A_MOMENT)
        if listener_time:
            clock.advance(listener_time)
        result = process_consume_result_orderly(pq, mq, msgs, status, offset_store=offset_store, auto_commit=auto_commit)
        if not result.continue_consume:
            run.stopped, run.resubmit_after = "suspended", result.resubmit_after
            return run
