"""The consume services' handling of a listener's answer (spec section 3) and the section-6
invariants about offsets and dropped queues."""

import pytest

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.processqueue import (
    BROADCASTING,
    COMMIT,
    CONSUME_SUCCESS,
    PROPERTY_CONSUME_START_TIME,
    RECONSUME_LATER,
    ROLLBACK,
    SUCCESS,
    SUSPEND_CURRENT_QUEUE_A_MOMENT,
    Broker,
    ManualClock,
    OffsetStore,
    ProcessQueue,
    fill,
    process_consume_result_concurrently,
    process_consume_result_orderly,
)

MQ = MessageQueue("TopicTest", "broker-a", 0)
VERSIONS = ["4.9.8", "5.3.3"]


def setup(version="5.3.3", offsets=range(5)):
    clock = ManualClock()
    pq = ProcessQueue(clock, version=version)
    store = OffsetStore(Broker(clock), "group")
    return pq, store, fill(pq, offsets, b"abc")


@pytest.mark.parametrize("version", VERSIONS)
def test_concurrent_commit_offset_is_the_lowest_still_cached_and_only_rises(version):
    pq, store, msgs = setup(version)
    assert process_consume_result_concurrently(pq, MQ, msgs[2:4], CONSUME_SUCCESS, offset_store=store).offset == 0
    assert store.offset_table[MQ] == 0
    assert process_consume_result_concurrently(pq, MQ, msgs[:2], CONSUME_SUCCESS, offset_store=store).offset == 4
    assert store.offset_table[MQ] == 4
    store.update_offset(MQ, 2, True)  # increase only: a lower offset never wins
    assert store.offset_table[MQ] == 4
    assert process_consume_result_concurrently(pq, MQ, msgs[4:], CONSUME_SUCCESS, offset_store=store).offset == 5
    assert (pq.msg_count, pq.msg_size) == (0, 0)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("status", [RECONSUME_LATER, None])
def test_reconsume_later_sends_the_batch_back_and_still_moves_the_offset(version, status):
    pq, store, msgs = setup(version)
    sent = []
    result = process_consume_result_concurrently(
        pq, MQ, msgs[:2], status, offset_store=store, send_message_back=lambda m: sent.append(m.queue_offset) or True
    )
    assert sent == [0, 1] and result.offset == 2 and result.retry_locally == []


@pytest.mark.parametrize("version", VERSIONS)
def test_a_failed_send_back_stays_cached_and_is_retried_locally(version):
    pq, store, msgs = setup(version)

    def refuse(msg):
        raise ConnectionError("broker down")

    result = process_consume_result_concurrently(pq, MQ, msgs[:2], RECONSUME_LATER, offset_store=store, send_message_back=refuse)
    assert [m.queue_offset for m in result.retry_locally] == [0, 1]
    assert all(m.reconsume_times == 1 for m in result.retry_locally)
    assert result.offset == 0 and pq.cached_offsets() == [0, 1, 2, 3, 4]


def test_broadcasting_drops_failed_messages_without_sending_them_back():
    pq, store, msgs = setup()
    sent = []
    result = process_consume_result_concurrently(
        pq, MQ, msgs[:2], RECONSUME_LATER, offset_store=store, send_message_back=sent.append, message_model=BROADCASTING
    )
    assert sent == [] and result.offset == 2


@pytest.mark.parametrize("version", VERSIONS)
def test_a_dropped_queue_gets_no_offset_update(version):
    pq, store, msgs = setup(version)
    pq.dropped = True
    result = process_consume_result_concurrently(pq, MQ, msgs[:1], CONSUME_SUCCESS, offset_store=store)
    assert result.offset == 1 and not result.committed and MQ not in store.offset_table
    pq2, store2, _ = setup(version)
    pq2.take_messages(2)
    pq2.dropped = True
    orderly = process_consume_result_orderly(pq2, MQ, [], SUCCESS, offset_store=store2)
    assert orderly.commit_offset == 2 and not orderly.committed and MQ not in store2.offset_table


@pytest.mark.parametrize("version, sends", [("4.9.8", [0, 0]), ("5.3.3", [0])])
def test_double_send_back_of_an_expired_message_in_4_9_only(version, sends):
    """clean_expired_msg sends a message back and removes it; the listener then answers
    RECONSUME_LATER for it: 4.9.8 sends it back a second time, 5.3.3 sees it is gone."""
    pq, store, msgs = setup(version, offsets=[0])
    clock = pq.clock
    msgs[0].properties[PROPERTY_CONSUME_START_TIME] = "0"
    clock.advance(16 * 60 * 1000)
    sent = []
    back = lambda msg, *level: sent.append(msg.queue_offset) or True
    assert pq.clean_expired_msg(back) == msgs
    process_consume_result_concurrently(pq, MQ, msgs, RECONSUME_LATER, offset_store=store, send_message_back=back)
    assert sent == sends


@pytest.mark.parametrize("version", VERSIONS)
def test_orderly_commit_offset_is_the_last_taken_plus_one_and_overwrites(version):
    pq, store, _ = setup(version)
    store.update_offset(MQ, 100, False)
    taken = pq.take_messages(3)
    result = process_consume_result_orderly(pq, MQ, taken, SUCCESS, offset_store=store)
    assert (result.commit_offset, result.continue_consume) == (3, True)
    assert store.offset_table[MQ] == 3  # overwritten downwards
    assert pq.msg_count == len(pq.cached_offsets()) + len(pq.consuming_offsets()) == 2


@pytest.mark.parametrize("status", [SUCCESS, COMMIT, ROLLBACK])
def test_orderly_auto_commit_commits_success_commit_and_rollback(status):
    pq, store, _ = setup()
    taken = pq.take_messages(2)
    assert process_consume_result_orderly(pq, MQ, taken, status, offset_store=store).commit_offset == 2


@pytest.mark.parametrize("status", [SUSPEND_CURRENT_QUEUE_A_MOMENT, None])
def test_orderly_suspend_puts_the_batch_back_and_waits(status):
    pq, store, _ = setup()
    taken = pq.take_messages(2)
    result = process_consume_result_orderly(pq, MQ, taken, status, offset_store=store)
    assert (result.commit_offset, result.continue_consume, result.resubmit_after) == (-1, False, 1000)
    assert pq.cached_offsets() == [0, 1, 2, 3, 4] and pq.consuming_offsets() == []
    assert [m.reconsume_times for m in taken] == [1, 1]


def test_orderly_suspend_past_the_retries_goes_to_the_dlq_and_commits():
    pq, store, _ = setup()
    taken = pq.take_messages(1)
    result = process_consume_result_orderly(pq, MQ, taken, SUSPEND_CURRENT_QUEUE_A_MOMENT, offset_store=store, max_reconsume_times=0)
    assert result.commit_offset == 1 and result.continue_consume


def test_orderly_without_auto_commit():
    pq, store, _ = setup()
    taken = pq.take_messages(2)
    assert process_consume_result_orderly(pq, MQ, taken, SUCCESS, offset_store=store, auto_commit=False).commit_offset == -1
    assert pq.consuming_offsets() == [0, 1]
    rolled = process_consume_result_orderly(pq, MQ, taken, ROLLBACK, offset_store=store, auto_commit=False)
    assert (rolled.continue_consume, pq.consuming_offsets(), pq.cached_offsets()) == (False, [], [0, 1, 2, 3, 4])
    taken = pq.take_messages(2)
    assert process_consume_result_orderly(pq, MQ, taken, COMMIT, offset_store=store, auto_commit=False).commit_offset == 2


def test_an_empty_batch_changes_nothing():
    pq, store, _ = setup()
    result = process_consume_result_concurrently(pq, MQ, [], CONSUME_SUCCESS, offset_store=store)
    assert result.offset == -1 and MQ not in store.offset_table


def test_a_partial_ack_sends_back_the_messages_after_the_ack_index():
    pq, store, msgs = setup()
    sent = []
    result = process_consume_result_concurrently(
        pq, MQ, msgs[:4], CONSUME_SUCCESS, offset_store=store, ack_index=1, send_message_back=lambda m: sent.append(m.queue_offset) or True
    )
    assert sent == [2, 3] and result.offset == 4


def test_a_concurrent_request_on_a_dropped_queue_or_dropped_meanwhile_is_not_processed():
    from pytest_rmq_conformance.processqueue.consume import consume_request_run_concurrently

    pq, store, msgs = setup()
    calls = []

    def listener(batch):
        calls.append(batch)
        pq.dropped = True
        return CONSUME_SUCCESS

    assert consume_request_run_concurrently(pq, MQ, msgs[:1], listener, offset_store=store) is None
    assert len(calls) == 1 and pq.msg_count == 5 and MQ not in store.offset_table
    assert consume_request_run_concurrently(pq, MQ, msgs[:1], listener, offset_store=store) is None
    assert len(calls) == 1  # a dropped queue is not consumed at all


def test_a_concurrent_listener_that_raises_counts_as_reconsume_later():
    from pytest_rmq_conformance.processqueue.consume import consume_request_run_concurrently

    pq, store, msgs = setup()
    sent = []

    def listener(batch):
        raise RuntimeError("boom")

    result = consume_request_run_concurrently(
        pq, MQ, msgs[:2], listener, offset_store=store, send_message_back=lambda m: sent.append(m) or True
    )
    assert [m.queue_offset for m in sent] == [0, 1] and result.offset == 2


def test_the_orderly_loop_consumes_only_under_a_live_lock():
    from pytest_rmq_conformance.processqueue.consume import consume_request_run_orderly

    pq, store, _ = setup()
    ok = lambda batch: SUCCESS
    assert consume_request_run_orderly(pq, MQ, ok, offset_store=store).try_lock_after == 100  # not locked
    pq.locked = True
    pq.clock.advance(30001)  # locked, but the lock is older than 30 s
    assert consume_request_run_orderly(pq, MQ, ok, offset_store=store).stopped == "not locked"
    pq.last_lock_timestamp = pq.clock.now()
    run = consume_request_run_orderly(pq, MQ, ok, offset_store=store, batch_size=2)
    assert [[m.queue_offset for m in b] for b in run.batches] == [[0, 1], [2, 3], [4]] and run.stopped == "no messages"
    assert store.offset_table[MQ] == 5


def test_the_orderly_loop_stops_when_the_lock_expires_inside_it_and_after_60_s():
    from pytest_rmq_conformance.processqueue.consume import consume_request_run_orderly

    pq, store, _ = setup(offsets=range(100))
    pq.locked = True
    run = consume_request_run_orderly(pq, MQ, lambda b: SUCCESS, offset_store=store, listener_time=10000)
    assert (len(run.batches), run.stopped, run.try_lock_after) == (4, "lock lost", 10)  # 30 s lock, 10 s a batch
    pq.last_lock_timestamp = pq.clock.now()
    pq.config = pq.config.with_(rebalance_lock_max_live_time=10**9)
    run = consume_request_run_orderly(pq, MQ, lambda b: SUCCESS, offset_store=store, listener_time=10000)
    assert (len(run.batches), run.stopped, run.resubmit_after) == (7, "consumed continuously too long", 10)


def test_the_orderly_loop_never_commits_a_batch_taken_when_the_queue_is_dropped_meanwhile():
    from pytest_rmq_conformance.processqueue.consume import consume_request_run_orderly

    pq, store, _ = setup()
    pq.locked = True

    def listener(batch):
        pq.dropped = True
        return SUCCESS

    run = consume_request_run_orderly(pq, MQ, listener, offset_store=store)
    assert len(run.batches) == 1 and run.stopped == "dropped" and MQ not in store.offset_table
