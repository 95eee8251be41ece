"""The push consumer's pull path (spec section 4), step by step."""

import pytest

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.processqueue import (
    Broker,
    ManualClock,
    Message,
    ProcessQueue,
    PullRequest,
    RebalancePushImpl,
    fill,
)
from pytest_rmq_conformance.processqueue.pull import (
    FOUND,
    NO_MATCHED_MSG,
    NO_NEW_MSG,
    OFFSET_ILLEGAL,
    PullDecision,
    process_pull_result,
    pull_message,
)

MQ = MessageQueue("TopicTest", "broker-a", 0)
VERSIONS = ["4.9.8", "5.3.3"]


def consumer(version="5.3.3", orderly=False):
    clock = ManualClock(1000)
    impl = RebalancePushImpl("group", "c1", None, Broker(clock), version=version, consume_orderly=orderly)
    impl.subscribe("TopicTest", [MQ])
    pq = ProcessQueue(clock, version=version)
    impl.process_queue_table[MQ] = pq
    return impl, PullRequest("group", MQ, pq, 0), clock


@pytest.mark.parametrize("version", VERSIONS)
def test_a_dropped_queue_ends_its_chain_without_touching_the_timestamp(version):
    impl, request, clock = consumer(version)
    request.process_queue.dropped = True
    clock.advance(500)
    assert pull_message(impl, request).action == "stop"
    assert request.process_queue.last_pull_timestamp == 1000


@pytest.mark.parametrize(
    "setup, delay",
    [
        (lambda impl, pq: {"running": False}, 3000),
        (lambda impl, pq: {"paused": True}, 1000),
        (lambda impl, pq: fill(pq, range(1001)) and {}, 50),
        (lambda impl, pq: fill(pq, range(2), b"x" * (60 * 1024 * 1024)) and {}, 50),
        (lambda impl, pq: fill(pq, [0, 2001]) and {}, 50),
        (lambda impl, pq: impl.unsubscribe("TopicTest") or {}, 3000),
    ],
    ids=["not-running", "paused", "count-over-1000", "size-over-100-mib", "span-over-2000", "no-subscription"],
)
def test_every_retry_still_refreshes_the_pull_timestamp(setup, delay):
    impl, request, clock = consumer()
    keywords = setup(impl, request.process_queue)
    clock.advance(700)
    decision = pull_message(impl, request, **keywords)
    assert (decision.action, decision.delay) == ("retry", delay)
    assert request.process_queue.last_pull_timestamp == 1700


def test_the_thresholds_are_strict():
    impl, request, _ = consumer()
    fill(request.process_queue, range(1000))
    assert pull_message(impl, request).action == "pull"
    impl2, request2, _ = consumer()
    fill(request2.process_queue, [0, 2000])
    assert pull_message(impl2, request2).action == "pull"


def test_an_orderly_consumer_does_not_check_the_span_but_needs_the_lock():
    impl, request, _ = consumer(orderly=True)
    fill(request.process_queue, [0, 5000])
    assert pull_message(impl, request) == PullDecision("retry", 3000, "the orderly queue is not locked")
    request.process_queue.locked = True
    impl.broker.offsets[("group", MQ)] = 42
    assert pull_message(impl, request).action == "pull"
    assert (request.previously_locked, request.next_offset) == (True, 42)
    impl.broker.offsets[("group", MQ)] = 7  # read only on the first pull after locking
    pull_message(impl, request)
    assert request.next_offset == 42


def test_an_orderly_first_pull_retries_when_the_offset_cannot_be_read():
    impl, request, _ = consumer(orderly=True)
    request.process_queue.locked = True
    impl.broker.offset_errors.add(MQ)
    assert pull_message(impl, request).delay == 3000 and not request.previously_locked


def test_found_caches_the_messages_even_on_a_dropped_queue():
    impl, request, _ = consumer()
    request.process_queue.dropped = True
    assert process_pull_result(impl, request, FOUND, [Message(0, b"a"), Message(1, b"b")]) is True
    assert request.process_queue.msg_count == 2 and request.next_offset == 2


@pytest.mark.parametrize("status", [NO_NEW_MSG, NO_MATCHED_MSG])
def test_no_new_messages_commit_the_next_offset_only_with_nothing_cached(status):
    impl, request, _ = consumer()
    process_pull_result(impl, request, status, next_begin_offset=5)
    assert impl.offset_store.offset_table[MQ] == 5
    fill(request.process_queue, [5])
    process_pull_result(impl, request, status, next_begin_offset=9)
    assert impl.offset_store.offset_table[MQ] == 5


def test_offset_illegal_removes_the_queue_after_10_s_in_4_9():
    impl, request, clock = consumer("4.9.8")
    pq = request.process_queue
    process_pull_result(impl, request, OFFSET_ILLEGAL, next_begin_offset=30)
    assert pq.dropped and MQ in impl.process_queue_table
    impl.timers.advance(9999)
    assert MQ in impl.process_queue_table
    impl.timers.advance(1)
    assert MQ not in impl.process_queue_table and impl.broker.committed("group", MQ) == 30


def test_offset_illegal_removes_the_queue_at_once_and_rebalances_in_5_3():
    impl, request, _ = consumer("5.3.3")
    process_pull_result(impl, request, OFFSET_ILLEGAL, next_begin_offset=30)
    assert MQ not in impl.process_queue_table and impl.broker.committed("group", MQ) == 30
    assert impl.rebalance_later_requests == [0]


def test_the_consumers_own_pause_and_running_flags_count():
    impl, request, _ = consumer()
    impl.paused = True
    assert pull_message(impl, request).delay == 1000
    impl.paused, impl.running = False, False
    assert pull_message(impl, request).delay == 3000


def test_an_empty_found_caches_nothing_and_does_not_dispatch():
    impl, request, _ = consumer()
    pq = request.process_queue
    fill(pq, [0, 1])
    pq.take_messages(2)
    pq.take_messages(2)  # nothing left: consuming is cleared
    pq.rollback()
    assert not pq.consuming and pq.has_temp_message()
    assert process_pull_result(impl, request, FOUND, [], next_begin_offset=2) is False
    assert not pq.consuming and request.next_offset == 2


def test_a_failed_pull_retries_after_20_ms_on_broker_flow_control_else_3_s():
    from pytest_rmq_conformance.processqueue.pull import FLOW_CONTROL, pull_exception_delay

    assert (pull_exception_delay(FLOW_CONTROL), pull_exception_delay("SYSTEM_ERROR"), pull_exception_delay()) == (20, 3000, 3000)


def test_5_3_freezes_the_offset_of_an_illegal_queue_until_it_is_removed():
    impl, request, _ = consumer("5.3.3", orderly=True)
    request.process_queue.consume_lock.lock()  # orderly removal fails: the offset stays, frozen
    process_pull_result(impl, request, OFFSET_ILLEGAL, next_begin_offset=30)
    store = impl.offset_store
    assert store.offset_table[MQ] == 30
    process_pull_result(impl, request, NO_NEW_MSG, next_begin_offset=40)  # a late callback
    assert store.offset_table[MQ] == 30
    store.remove_offset(MQ)
    store.update_offset(MQ, 41, True)
    assert store.offset_table[MQ] == 41


def test_an_orderly_4_9_first_pull_goes_on_with_minus_one_when_the_offset_read_fails():
    impl, request, _ = consumer("4.9.8", orderly=True)
    request.process_queue.locked = True
    impl.broker.offset_errors.add(MQ)
    assert pull_message(impl, request).action == "pull"
    assert (request.previously_locked, request.next_offset) == (True, -1)


@pytest.mark.parametrize("version, refreshed", [("4.9.8", False), ("5.3.3", True)])
def test_lite_pull_tasks(version, refreshed):
    from pytest_rmq_conformance.processqueue import RebalanceLitePullImpl
    from pytest_rmq_conformance.processqueue.pull import lite_pull_result, lite_pull_task

    clock = ManualClock(1000)
    impl = RebalanceLitePullImpl("group", "c1", None, Broker(clock), version=version)
    pq = ProcessQueue(clock, version=version)
    clock.advance(500)
    assert lite_pull_task(impl, MQ, pq) is True
    assert (pq.last_pull_timestamp == 1500) is refreshed
    assert not lite_pull_task(impl, MQ, pq, cancelled=True) and not lite_pull_task(impl, MQ, None)
    assert [m.queue_offset for m in lite_pull_result(pq, [Message(0, b"a")])] == [0]
    pq.dropped = True
    assert not lite_pull_task(impl, MQ, pq)
    assert lite_pull_result(pq, [Message(1, b"b")]) == [] and pq.msg_count == 1
