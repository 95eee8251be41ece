"""What the consume services do: ``ConsumeRequest.run`` and ``processConsumeResult``.

Concurrent consumers remove the batch from the cache and commit the lowest
offset still cached (only ever upwards); messages the listener asked to see
again are sent back to the broker. Orderly consumers commit the taken batch
(highest taken + 1, overwriting) or put it back. Either way a dropped queue's
offset is never updated, and the caller skips a dropped queue altogether.
The orderly consume loop's rules (a live lock, relock after 100 ms or 10 ms,
the 60 s cut-off) are :class:`OrderlyLoop`'s alone; the group simulation runs it too.

    >>> from pytest_rmq_conformance.model import MessageQueue
    >>> from pytest_rmq_conformance.processqueue import Broker, ManualClock, OffsetStore, ProcessQueue, fill
    >>> clock = ManualClock(); mq = MessageQueue("T", "broker-a", 0)
    >>> store = OffsetStore(Broker(clock), "group")
    >>> pq = ProcessQueue(clock); msgs = fill(pq, range(3))
    >>> process_consume_result_concurrently(pq, mq, msgs[1:], CONSUME_SUCCESS, offset_store=store).offset
    0

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

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
    "OrderlyLoop",
    "lock_lost",
    "resubmit_after_lock",
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


def _sent(send_message_back: SendBack | None, msg: Message) -> bool:
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
    sent_back: list[Message] = field(default_factory=list)
    retry_locally: list[Message] = field(default_factory=list)
    committed: bool = False


def process_consume_result_concurrently(
    pq: ProcessQueue,
    mq: MessageQueue,
    msgs: list[Message],
    status: str | None,
    *,
    offset_store: OffsetStore,
    send_message_back: SendBack | None = None,
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
            if pq.version != "4.9.8" and not pq.contains_message(msg):
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
    resubmit_after: int | None = None
    committed: bool = False


def _suspend(msgs: list[Message], max_reconsume_times: int, send_message_back: SendBack | None) -> bool:
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
    msgs: list[Message],
    status: str | None,
    *,
    offset_store: OffsetStore,
    auto_commit: bool = True,
    max_reconsume_times: int = INT_MAX,
    send_message_back: SendBack | None = None,
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


Listener = Callable[[list[Message]], str | None]


def _listen(listener: Listener, msgs: list[Message], failed: str) -> str:
    try:
        status = listener(msgs)
    except Exception:
        return failed
    return status if status is not None else failed


def consume_request_run_concurrently(
    pq: ProcessQueue,
    mq: MessageQueue,
    msgs: list[Message],
    listener: Listener,
    *,
    offset_store: OffsetStore,
    send_message_back: SendBack | None = None,
    message_model: str = CLUSTERING,
) -> ConcurrentResult | None:
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


# ConsumeMessageOrderlyService's delays, in ms
TRY_LOCK_ON_ENTRY = 100  # run() found no live lock: tryLockLaterAndReconsume(100)
TRY_LOCK_IN_LOOP = 10  # the lock was lost inside the loop: tryLockLaterAndReconsume(10)
RESUBMIT_AFTER_CONTINUOUS = 10  # consumed longer than max_time_consume_continuously
RESUBMIT_WHEN_LOCKED = 10  # tryLockLaterAndReconsume: the broker granted the lock
RESUBMIT_WHEN_NOT_LOCKED = 3000  # ... or refused it


def lock_lost(pq: ProcessQueue, message_model: str = CLUSTERING) -> bool:
    """Whether a CLUSTERING orderly consumer may not consume ``pq``: not ``locked``, or the lock
    is older than ``rebalance_lock_max_live_time`` (BROADCASTING needs no lock)."""
    return message_model == CLUSTERING and (not pq.locked or pq.is_lock_expired())


def resubmit_after_lock(locked: bool) -> int:
    """``tryLockLaterAndReconsume``: ms until the request runs again once ``lock(mq)`` answered."""
    return RESUBMIT_WHEN_LOCKED if locked else RESUBMIT_WHEN_NOT_LOCKED


@dataclass
class OrderlyRun:
    """What one ``ConsumeMessageOrderlyService.ConsumeRequest.run`` did: the batches it passed
    to the listener, why it stopped, and when it asked to run again (ms, ``None``: not)."""

    batches: list[list[Message]] = field(default_factory=list)
    stopped: str = ""
    try_lock_after: int | None = None
    resubmit_after: int | None = None


class OrderlyLoop:
    """The rules of one ``ConsumeRequest.run`` on ``pq``, a turn at a time, for callers that let
    the listener's time pass their own way (:func:`consume_request_run_orderly` at once, a
    :class:`~pytest_rmq_conformance.processqueue.GroupSimulation` on its timers).

    :meth:`enter`, then :meth:`take` a batch, hand it to the listener and :meth:`finish` it,
    for as long as both say so; :attr:`run` records the batches and why the loop stopped.
    """

    def __init__(self, pq: ProcessQueue, mq: MessageQueue, *, message_model: str = CLUSTERING, batch_size: int = 1, clock=None):
        self.pq, self.mq = pq, mq
        self.message_model = message_model
        self.batch_size = batch_size
        self.clock = clock if clock is not None else pq.clock
        self.started: int | None = None
        self.run = OrderlyRun()

    def _stop(self, why: str, *, try_lock_after: int | None = None, resubmit_after: int | None = None) -> None:
        self.run.stopped, self.run.try_lock_after, self.run.resubmit_after = why, try_lock_after, resubmit_after

    def enter(self) -> bool:
        """Whether the loop starts: not on a dropped queue; a CLUSTERING queue without a live
        lock asks to lock again in 100 ms instead."""
        if self.pq.dropped:
            self._stop("dropped")
        elif lock_lost(self.pq, self.message_model):
            self._stop("not locked", try_lock_after=TRY_LOCK_ON_ENTRY)
        else:
            self.started = self.clock.now()
            return True
        return False

    def take(self) -> list[Message] | None:
        """The next batch for the listener, or ``None`` when the loop stops: the queue was
        dropped, the lock lost (lock again in 10 ms), 60 s passed since :meth:`enter`
        (resubmit in 10 ms), or nothing is cached."""
        pq = self.pq
        assert self.started is not None, "enter() first"
        if pq.dropped:
            self._stop("dropped")
        elif lock_lost(pq, self.message_model):
            self._stop("lock lost", try_lock_after=TRY_LOCK_IN_LOOP)
        elif self.clock.now() - self.started > pq.config.max_time_consume_continuously:
            self._stop("consumed continuously too long", resubmit_after=RESUBMIT_AFTER_CONTINUOUS)
        else:
            msgs = pq.take_messages(self.batch_size)
            if not msgs:
                self._stop("no messages")
            elif pq.dropped:  # checked again under the consume lock: the taken batch is never committed
                self._stop("dropped")
            else:
                self.run.batches.append(msgs)
                return msgs
        return None

    def finish(self, msgs: list[Message], status: str | None, *, offset_store: OffsetStore, **options) -> OrderlyResult:
        """``processConsumeResult`` for the listener's ``status`` (``options`` as for
        :func:`process_consume_result_orderly`); the loop stops if the batch is suspended."""
        result = process_consume_result_orderly(self.pq, self.mq, msgs, status, offset_store=offset_store, **options)
        if not result.continue_consume:
            self._stop("suspended", resubmit_after=result.resubmit_after)
        return result


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
    """The orderly consume loop (:class:`OrderlyLoop`) on one queue, run at once, with the
    listener taking ``listener_time`` ms of ``clock`` (a :class:`ManualClock`; default the
    queue's) per batch.

    A CLUSTERING queue is consumed only while ``locked`` and its lock is not expired: on entry
    otherwise it asks to lock again in 100 ms, inside the loop in 10 ms. After
    ``max_time_consume_continuously`` (60 s) it yields and resubmits in 10 ms.
    """
    loop = OrderlyLoop(pq, mq, message_model=message_model, batch_size=batch_size, clock=clock)
    if loop.enter():
        while True:
            msgs = loop.take()
            if msgs is None:
                break
            status = _listen(listener, msgs, SUSPEND_CURRENT_QUEUE_A_MOMENT)
            if listener_time:
                loop.clock.advance(listener_time)
            if not loop.finish(msgs, status, offset_store=offset_store, auto_commit=auto_commit).continue_consume:
                break
    return loop.run
