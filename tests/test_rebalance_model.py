"""RebalancePushImpl / RebalancePullImpl / RebalanceLitePullImpl models against
``spec/process-queue.md`` §2, §5 (RebalancePushImplTest, RebalanceLitePullImplTest) and §6."""

import pytest

from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.processqueue import (
    BROADCASTING,
    CONSUME_ACTIVELY,
    CONSUME_FROM_FIRST_OFFSET,
    CONSUME_FROM_LAST_OFFSET,
    CONSUME_FROM_TIMESTAMP,
    CONSUME_PASSIVELY,
    REBALANCE_KINDS,
    Broker,
    BrokerUnavailable,
    ClientConfig,
    ManualClock,
    Message,
    MQClientException,
    ProcessQueue,
    PullRequest,
    RebalanceLitePullImpl,
    RebalancePullImpl,
    RebalancePushImpl,
    Timers,
    fill,
)

VERSIONS = ["4.9.8", "5.3.3", "5.5.0"]
KINDS = ["push", "pull", "lite-pull"]
GROUP = "group"
T = "TopicTest"
RETRY = "%RETRY%group"


def queues(n, topic=T, broker="broker-a"):
    return [MessageQueue(topic, broker, i) for i in range(n)]


class Fixed:
    """A strategy that hands out a chosen set (all queues when ``result`` is None), or raises."""

    def __init__(self, result=None):
        self.result = result
        self.calls = []

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        self.calls.append((consumer_group, current_cid, list(mq_all), list(cid_all)))
        if isinstance(self.result, Exception):
            raise self.result
        return list(mq_all) if self.result is None else [mq for mq in mq_all if mq in self.result]


def make(kind="push", version="5.3.3", assigned=None, n=4, topic=T, client="c1", broker=None, strategy=None, **kwargs):
    clock = broker.clock if broker is not None else ManualClock(0)
    broker = broker if broker is not None else Broker(clock)
    broker.register(GROUP, client)
    strategy = strategy if strategy is not None else Fixed(assigned)
    impl = REBALANCE_KINDS[kind](GROUP, client, strategy, broker, clock=clock, version=version, **kwargs)
    if n:
        impl.subscribe(topic, queues(n, topic))
    return impl


def assign(impl, mqs):
    impl.allocate_message_queue_strategy.result = set(mqs)


def table_ids(impl, topic=T):
    return sorted(mq.queue_id for mq in impl.process_queue_table if mq.topic == topic)


def changed_calls(impl):
    """``message_queue_changed`` runs iff ``changed``: count them with a wrapper."""
    calls = []
    original = impl.message_queue_changed

    def spy(topic, mq_all, mq_divided):
        calls.append((topic, set(mq_all), set(mq_divided)))
        original(topic, mq_all, mq_divided)

    impl.message_queue_changed = spy
    return calls


# -- kinds ---------------------------------------------------------------------------------


def test_consume_types_push_is_passive_pull_and_lite_pull_are_active():
    assert RebalancePushImpl.CONSUME_TYPE == CONSUME_PASSIVELY
    assert RebalancePullImpl.CONSUME_TYPE == CONSUME_ACTIVELY
    assert RebalanceLitePullImpl.CONSUME_TYPE == CONSUME_ACTIVELY


@pytest.mark.parametrize("version", VERSIONS)
def test_reference_avg_strategy_splits_the_queues_between_two_clients(version):
    clock = ManualClock(0)
    broker = Broker(clock)
    broker.register(GROUP, "c2")
    c1 = make(broker=broker, strategy=reference_strategy("AVG", version=version), version=version)
    c2 = make(broker=broker, strategy=reference_strategy("AVG", version=version), version=version, client="c2")
    c1.do_rebalance()
    c2.do_rebalance()
    assert table_ids(c1) == [0, 1]
    assert table_ids(c2) == [2, 3]


# -- RebalancePushImplTest: per-queue thresholds ---------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("queue_attr,topic_attr", [
    ("pull_threshold_for_queue", "pull_threshold_for_topic"),
    ("pull_threshold_size_for_queue", "pull_threshold_size_for_topic"),
])
def test_queue_threshold_is_topic_threshold_divided_by_table_size(version, queue_attr, topic_attr):
    impl = make("push", version, assigned=set(queues(2)), **{queue_attr: 1024})
    two = set(queues(2))
    impl.do_rebalance()
    impl.message_queue_changed(T, two, two)
    assert getattr(impl, queue_attr) == 1024  # topic threshold -1: left alone
    setattr(impl, topic_attr, 1024)
    impl.do_rebalance()
    assert getattr(impl, queue_attr) == 1024  # nothing changed: not recomputed
    impl.message_queue_changed(T, two, two)
    assert getattr(impl, queue_attr) == 512
    assign(impl, queues(3))
    impl.do_rebalance()  # a queue added: changed, recomputed
    assert len(impl.process_queue_table) == 3
    assert getattr(impl, queue_attr) == 341


@pytest.mark.parametrize("version", VERSIONS)
def test_queue_threshold_counts_other_topics_and_zombies_and_is_at_least_1(version):
    clock = ManualClock(0)
    broker = Broker(clock)
    impl = make("push", version, broker=broker, pull_threshold_for_topic=1024, pull_threshold_size_for_topic=2)
    impl.subscribe("Other", queues(1, "Other"))
    impl.do_rebalance()
    assert len(impl.process_queue_table) == 5
    assert impl.pull_threshold_for_queue == 1024 // 5 == 204
    assert impl.pull_threshold_size_for_queue == 1  # 2 // 5 == 0 -> 1
    zombie = ProcessQueue(clock, version=version)
    zombie.dropped = True
    impl.process_queue_table[MessageQueue("Gone", "broker-a", 0)] = zombie
    impl.message_queue_changed(T, set(queues(4)), set(queues(4)))
    assert impl.pull_threshold_for_queue == 1024 // 6 == 170


@pytest.mark.parametrize("version", VERSIONS)
def test_message_queue_changed_sets_sub_version_and_sends_a_heartbeat(version):
    impl = make("push", version)
    impl.clock.advance(777)
    impl.do_rebalance()
    assert impl.subscription_inner[T] == 777
    assert impl.heartbeats == 1


@pytest.mark.parametrize("version,notified", [("4.9.8", False), ("5.3.3", True), ("5.5.0", True)])
def test_message_queue_listener_is_notified_on_change_only_in_5_3_3(version, notified):
    impl = make("push", version, assigned=set(queues(2)))
    seen = []
    impl.message_queue_listener = lambda topic, mq_all, mq_divided: seen.append((topic, mq_all, mq_divided))
    impl.do_rebalance()
    assert seen == ([(T, set(queues(4)), set(queues(2)))] if notified else [])


# -- computePullFromWhere ----------------------------------------------------------------------


def offsets_fixture(kind, version, consume_from_where=CONSUME_FROM_LAST_OFFSET, stored=None, topic=T):
    impl = make(kind, version, n=0, consume_from_where=consume_from_where, consume_timestamp=1234)
    mq = MessageQueue(topic, "broker-a", 0)
    impl.broker.append(mq, 12)  # max offset 12
    searched = []
    impl.broker.search_offset = lambda q, ts: searched.append(ts) or 7
    if stored is not None:
        impl.broker.update_consumer_offset(GROUP, mq, stored)
    return impl, mq, searched


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", ["push", "lite-pull"])
@pytest.mark.parametrize("where", [CONSUME_FROM_LAST_OFFSET, CONSUME_FROM_FIRST_OFFSET, CONSUME_FROM_TIMESTAMP])
def test_compute_pull_from_where_returns_a_stored_offset(version, kind, where):
    impl, mq, _ = offsets_fixture(kind, version, where, stored=0)
    assert impl.compute_pull_from_where(mq) == 0
    assert impl.compute_pull_from_where_with_exception(mq) == 0
    impl.broker.update_consumer_offset(GROUP, mq, 5)
    impl.offset_store.remove_offset(mq)
    assert impl.compute_pull_from_where(mq) == 5


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", ["push", "lite-pull"])
@pytest.mark.parametrize("where,normal,retry", [
    (CONSUME_FROM_LAST_OFFSET, 12, 0),
    (CONSUME_FROM_FIRST_OFFSET, 0, 0),
    (CONSUME_FROM_TIMESTAMP, 7, 12),
])
def test_compute_pull_from_where_without_stored_offset(version, kind, where, normal, retry):
    impl, mq, searched = offsets_fixture(kind, version, where)
    assert impl.compute_pull_from_where(mq) == normal
    assert impl.compute_pull_from_where_with_exception(mq) == normal
    retry_impl, retry_mq, _ = offsets_fixture(kind, version, where, topic=RETRY)
    assert retry_impl.compute_pull_from_where(retry_mq) == retry
    if where == CONSUME_FROM_TIMESTAMP:
        assert searched == [1234, 1234]  # search by the consume timestamp, never for retry topics


@pytest.mark.parametrize("version", VERSIONS)
def test_push_reads_the_start_offset_from_the_broker_not_memory(version):
    impl, mq, _ = offsets_fixture("push", version)
    impl.offset_store.update_offset(mq, 3, False)
    assert impl.compute_pull_from_where(mq) == 12


@pytest.mark.parametrize("version", VERSIONS)
def test_lite_pull_reads_the_start_offset_from_memory_first(version):
    impl, mq, _ = offsets_fixture("lite-pull", version)
    impl.offset_store.update_offset(mq, 3, False)
    assert impl.compute_pull_from_where(mq) == 3


@pytest.mark.parametrize("how", ["offset_errors", "fail"])
@pytest.mark.parametrize("where", [CONSUME_FROM_LAST_OFFSET, CONSUME_FROM_FIRST_OFFSET, CONSUME_FROM_TIMESTAMP])
def test_push_4_9_8_stored_minus_2_gives_minus_1(where, how):
    impl, mq, _ = offsets_fixture("push", "4.9.8", where)
    if how == "fail":
        impl.broker.fail("broker-a")
    else:
        impl.broker.offset_errors.add(mq)
    assert impl.offset_store.read_offset(mq, "READ_FROM_STORE") == -2
    assert impl.compute_pull_from_where_with_exception(mq) == -1
    assert impl.compute_pull_from_where(mq) == -1


@pytest.mark.parametrize("how", ["offset_errors", "fail"])
@pytest.mark.parametrize("where", [CONSUME_FROM_LAST_OFFSET, CONSUME_FROM_FIRST_OFFSET, CONSUME_FROM_TIMESTAMP])
def test_push_5_3_3_stored_minus_2_raises_and_the_wrapper_gives_minus_1(where, how):
    impl, mq, _ = offsets_fixture("push", "5.3.3", where)
    if how == "fail":
        impl.broker.fail("broker-a")
    else:
        impl.broker.offset_errors.add(mq)
    with pytest.raises(MQClientException):
        impl.compute_pull_from_where_with_exception(mq)
    assert impl.compute_pull_from_where(mq) == -1


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("where", [CONSUME_FROM_LAST_OFFSET, CONSUME_FROM_FIRST_OFFSET, CONSUME_FROM_TIMESTAMP])
def test_lite_pull_stored_minus_2_gives_minus_1_without_raising(version, where):
    impl, mq, _ = offsets_fixture("lite-pull", version, where)
    impl.broker.offset_errors.add(mq)
    assert impl.compute_pull_from_where_with_exception(mq) == -1
    assert impl.compute_pull_from_where(mq) == -1


@pytest.mark.parametrize("version", VERSIONS)
def test_max_offset_failure_raises_for_push_and_gives_minus_1_for_lite_pull(version):
    def broken(mq):
        raise BrokerUnavailable("no master")

    push, mq, _ = offsets_fixture("push", version)
    push.broker.max_offset = broken
    with pytest.raises(MQClientException):
        push.compute_pull_from_where_with_exception(mq)
    assert push.compute_pull_from_where(mq) == -1
    lite, mq, _ = offsets_fixture("lite-pull", version)
    lite.broker.max_offset = broken
    assert lite.compute_pull_from_where_with_exception(mq) == -1


@pytest.mark.parametrize("version", VERSIONS)
def test_pull_consumer_always_starts_at_0(version):
    impl, mq, _ = offsets_fixture("pull", version, stored=5)
    assert impl.compute_pull_from_where(mq) == 0
    impl.broker.offset_errors.add(mq)
    assert impl.compute_pull_from_where_with_exception(mq) == 0


# -- updateProcessQueueTableInRebalance: drop -------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_unassigned_queue_is_dropped_and_removed_with_changed_true(kind, version):
    impl = make(kind, version)
    impl.do_rebalance()
    old = dict(impl.process_queue_table)
    mq0 = queues(1)[0]
    impl.offset_store.update_offset(mq0, 9, False)
    changed = impl.update_process_queue_table_in_rebalance(T, set(queues(4)[1:]), False)
    assert changed is True
    assert table_ids(impl) == [1, 2, 3]
    assert old[mq0].dropped is True
    assert not any(pq.dropped for pq in impl.process_queue_table.values())
    # removal persisted and forgot the offset
    assert impl.broker.committed(GROUP, mq0) == 9
    assert mq0 not in impl.offset_store.offset_table


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_queues_of_other_topics_are_left_alone(kind, version):
    impl = make(kind, version)
    impl.subscribe("Other", queues(2, "Other"))
    impl.do_rebalance()
    assert impl.update_process_queue_table_in_rebalance(T, set(), False) is True
    assert table_ids(impl) == []
    assert table_ids(impl, "Other") == [0, 1]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_nothing_to_do_leaves_changed_false(kind, version):
    impl = make(kind, version)
    impl.do_rebalance()
    before = dict(impl.process_queue_table)
    assert impl.update_process_queue_table_in_rebalance(T, set(queues(4)), False) is False
    assert impl.process_queue_table == before


@pytest.mark.parametrize("version", VERSIONS)
def test_pull_expired_push_queue_gets_a_fresh_process_queue_in_the_same_rebalance(version):
    impl = make("push", version)
    impl.do_rebalance()
    old = dict(impl.process_queue_table)
    impl.clock.advance(120001)
    for mq in queues(4)[1:]:
        old[mq].last_pull_timestamp = impl.clock.now()
    mq0 = queues(1)[0]
    assert impl.update_process_queue_table_in_rebalance(T, set(queues(4)), False) is True
    assert old[mq0].dropped is True
    fresh = impl.process_queue_table[mq0]
    assert fresh is not old[mq0]
    assert fresh.dropped is False
    assert fresh.last_pull_timestamp == impl.clock.now()
    for mq in queues(4)[1:]:
        assert impl.process_queue_table[mq] is old[mq]


@pytest.mark.parametrize("version", VERSIONS)
def test_pull_expired_push_queue_is_replaced_through_do_rebalance_with_changed(version):
    impl = make("push", version)
    impl.do_rebalance()
    calls = changed_calls(impl)
    old = impl.process_queue_table[queues(1)[0]]
    impl.clock.advance(120000)
    impl.do_rebalance()
    assert calls == []  # exactly 120000 ms: not expired
    assert impl.process_queue_table[queues(1)[0]] is old
    impl.clock.advance(1)
    impl.do_rebalance()
    assert len(calls) == 1
    assert all(pq.dropped is False for pq in impl.process_queue_table.values())
    assert old.dropped and impl.process_queue_table[queues(1)[0]] is not old


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", ["pull", "lite-pull"])
def test_pull_expiry_never_drops_an_assigned_lite_pull_or_pull_queue(kind, version):
    impl = make(kind, version)
    impl.do_rebalance()
    old = dict(impl.process_queue_table)
    impl.clock.advance(10 * 120001)
    assert impl.update_process_queue_table_in_rebalance(T, set(queues(4)), False) is False
    assert impl.process_queue_table == old
    assert not any(pq.dropped for pq in old.values())


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", ["pull", "lite-pull"])
def test_pull_expired_unassigned_lite_pull_queue_is_dropped_anyway(kind, version):
    impl = make(kind, version)
    impl.do_rebalance()
    old = impl.process_queue_table[queues(1)[0]]
    impl.clock.advance(120001)
    assert impl.update_process_queue_table_in_rebalance(T, set(queues(4)[1:]), False) is True
    assert old.dropped and queues(1)[0] not in impl.process_queue_table


# -- updateProcessQueueTableInRebalance: add --------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_added_process_queues_are_new_and_locked_for_every_consumer_type(kind, version):
    impl = make(kind, version)
    impl.do_rebalance()
    pqs = list(impl.process_queue_table.values())
    assert len(pqs) == 4 and len({id(pq) for pq in pqs}) == 4
    assert all(pq.locked and not pq.dropped for pq in pqs)
    assert all(pq.version == version for pq in pqs)
    assert impl.broker.locks.table == {}  # non-orderly: no broker lock asked


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", ["push", "lite-pull"])
def test_offset_below_zero_is_not_added_and_changed_stays_false(kind, version):
    impl = make(kind, version)
    mq0 = queues(1)[0]
    impl.broker.offset_errors.add(mq0)
    calls = changed_calls(impl)
    assert impl.update_process_queue_table_in_rebalance(T, {mq0}, False) is False
    assert impl.process_queue_table == {}
    assert impl.pull_requests == []
    impl.do_rebalance()
    assert table_ids(impl) == [1, 2, 3]
    assert len(calls) == 1


def test_4_9_8_skips_a_queue_whose_start_offset_throws():
    impl = make("push", "4.9.8")

    def broken(mq):
        raise BrokerUnavailable("no master")

    impl.broker.max_offset = broken
    assert impl.update_process_queue_table_in_rebalance(T, set(queues(4)), False) is False
    assert impl.process_queue_table == {}


@pytest.mark.parametrize("version", VERSIONS)
def test_dirty_memory_offset_is_removed_before_the_start_offset_is_read(version):
    impl = make("lite-pull", version, n=1)
    mq0 = queues(1)[0]
    impl.broker.update_consumer_offset(GROUP, mq0, 3)
    impl.offset_store.update_offset(mq0, 8, False)  # stale: would win with MEMORY_FIRST_THEN_STORE
    impl.do_rebalance()
    assert impl.offset_store.offset_table[mq0] == 3


def test_push_4_9_8_dispatches_pull_requests_immediately():
    impl = make("push", "4.9.8", n=2)
    impl.broker.update_consumer_offset(GROUP, queues(1)[0], 5)
    impl.clock.advance(1000)
    impl.do_rebalance()
    assert [(due, r.message_queue.queue_id, r.next_offset) for due, r in impl.pull_requests] == [(1000, 0, 5), (1000, 1, 0)]
    for _, request in impl.pull_requests:
        assert isinstance(request, PullRequest)
        assert request.consumer_group == GROUP
        assert request.process_queue is impl.process_queue_table[request.message_queue]


def test_push_5_3_3_dispatches_pull_requests_after_500_ms():
    impl = make("push", "5.3.3", n=2)
    impl.clock.advance(1000)
    impl.do_rebalance()
    assert sorted((due, r.message_queue.queue_id, r.next_offset) for due, r in impl.pull_requests) == [(1500, 0, 0), (1500, 1, 0)]


@pytest.mark.parametrize("version,delay", [("4.9.8", 0), ("5.3.3", 500), ("5.5.0", 500)])
def test_on_pull_requests_receives_the_requests_and_their_delay(version, delay):
    impl = make("push", version, n=2)
    handed = []
    impl.on_pull_requests = lambda requests, d: handed.append((sorted(r.message_queue.queue_id for r in requests), d))
    impl.do_rebalance()
    assert handed == [([0, 1], delay)]
    assert impl.pull_requests == []
    impl.do_rebalance()
    assert handed == [([0, 1], delay)]  # nothing new: nothing handed over


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", ["pull", "lite-pull"])
def test_lite_pull_and_pull_dispatch_nothing(kind, version):
    impl = make(kind, version)
    handed = []
    impl.on_pull_requests = lambda requests, d: handed.append(requests)
    impl.do_rebalance()
    assert len(impl.process_queue_table) == 4
    assert impl.pull_requests == [] and handed == []


# -- rebalanceByTopic and doRebalance --------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_allocate_gets_sorted_queues_and_client_ids(version):
    clock = ManualClock(0)
    broker = Broker(clock)
    for cid in ["c3", "c10", "c2"]:
        broker.register(GROUP, cid)
    impl = make("push", version, broker=broker, n=0)
    route = [MessageQueue(T, name, qid) for qid in (11, 2, 0, 7) for name in ("broker-c", "broker-a", "broker-b")]
    impl.subscribe(T, route)
    impl.do_rebalance()
    ((group, cid, mq_all, cid_all),) = impl.allocate_message_queue_strategy.calls
    assert (group, cid) == (GROUP, "c1")
    assert mq_all == [MessageQueue(T, name, qid) for name in ("broker-a", "broker-b", "broker-c") for qid in (0, 2, 7, 11)]
    assert cid_all == ["c1", "c10", "c2", "c3"]


@pytest.mark.parametrize("version,expected", [("4.9.8", None), ("5.3.3", True), ("5.5.0", True)])
@pytest.mark.parametrize("kind", KINDS)
def test_do_rebalance_returns_balanced_in_5_3_3_and_none_in_4_9_8(kind, version, expected):
    impl = make(kind, version)
    assert impl.do_rebalance() is expected
    assert impl.do_rebalance() is expected


@pytest.mark.parametrize("version,expected", [("4.9.8", None), ("5.3.3", False), ("5.5.0", False)])
def test_paused_push_consumer_skips_rebalancing(version, expected):
    impl = make("push", version)
    impl.paused = True
    assert impl.do_rebalance() is expected
    assert impl.process_queue_table == {}
    impl.paused = False
    impl.do_rebalance()
    assert len(impl.process_queue_table) == 4


@pytest.mark.parametrize("version,expected", [("4.9.8", None), ("5.3.3", False), ("5.5.0", False)])
@pytest.mark.parametrize("kind", KINDS)
def test_strategy_that_raises_leaves_the_table_unchanged(kind, version, expected):
    impl = make(kind, version, assigned=set(queues(2)))
    impl.do_rebalance()
    before = dict(impl.process_queue_table)
    impl.allocate_message_queue_strategy.result = RuntimeError("bad strategy")
    assert impl.do_rebalance() is expected
    assert impl.process_queue_table == before
    assert not any(pq.dropped for pq in before.values())
    assert len(impl.allocate_errors) == 1


@pytest.mark.parametrize("version,expected", [("4.9.8", None), ("5.3.3", False), ("5.5.0", False)])
def test_an_exception_in_one_topic_is_swallowed_and_unbalances_only_non_retry_topics(version, expected):
    impl = make("push", version, assigned=None)
    impl.subscribe(RETRY, queues(1, RETRY))
    original = impl.broker.find_consumer_id_list

    def failing_for(topic_that_fails):
        def find(topic, group):
            if topic == topic_that_fails:
                raise BrokerUnavailable("route lookup failed")
            return original(topic, group)
        return find

    impl.broker.find_consumer_id_list = failing_for(RETRY)
    assert impl.do_rebalance() is (None if version == "4.9.8" else True)
    assert table_ids(impl) == [0, 1, 2, 3]
    impl.broker.find_consumer_id_list = failing_for(T)
    assert impl.do_rebalance() is expected


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_clustering_without_consumer_ids_changes_nothing(kind, version):
    impl = make(kind, version)
    impl.do_rebalance()
    before = dict(impl.process_queue_table)
    impl.broker.unregister(GROUP, "c1")
    impl.allocate_message_queue_strategy.result = set()
    impl.do_rebalance()
    assert impl.process_queue_table == before
    assert not any(pq.dropped for pq in before.values())


@pytest.mark.parametrize("version", VERSIONS)
def test_missing_route_drops_nothing_and_5_3_3_calls_message_queue_changed_with_empty_sets(version):
    impl = make("push", version)
    impl.subscribe(RETRY, queues(1, RETRY))
    impl.do_rebalance()
    before = dict(impl.process_queue_table)
    calls = changed_calls(impl)
    impl.update_topic_route(T, None)
    impl.update_topic_route(RETRY, None)
    impl.do_rebalance()
    assert impl.process_queue_table == before
    assert not any(pq.dropped for pq in before.values())
    assert calls == ([(T, set(), set())] if version != "4.9.8" else [])


@pytest.mark.parametrize("version,balanced,told", [("4.9.8", None, []), ("5.3.3", False, []), ("5.5.0", True, [(T, set(), set())])])
def test_an_empty_route_keeps_the_table_5_3_3_counts_it_unbalanced_5_5_0_balanced_and_tells_the_listener(version, balanced, told):
    """RebalanceImpl.rebalanceByTopic: up to 5.4.0 the strategy refuses an empty mqAll (logged,
    the topic unbalanced); 5.5.0 stops at an empty route, as at a missing one."""
    impl = make("push", version, strategy=reference_strategy("AVG", {}, version))
    impl.subscribe(RETRY, queues(1, RETRY))
    impl.do_rebalance()
    before = dict(impl.process_queue_table)
    calls = changed_calls(impl)
    impl.update_topic_route(T, [])
    impl.update_topic_route(RETRY, [])
    assert impl.do_rebalance() is balanced
    assert impl.process_queue_table == before
    assert calls == told
    assert len(impl.allocate_errors) == (0 if version == "5.5.0" else 2)


@pytest.mark.parametrize("version,balanced", [("4.9.8", None), ("5.3.3", False), ("5.5.0", True)])
def test_an_empty_consumer_list_keeps_the_table_5_3_3_counts_it_unbalanced_5_5_0_balanced(version, balanced):
    impl = make("push", version, strategy=reference_strategy("AVG", {}, version))
    impl.do_rebalance()
    before = dict(impl.process_queue_table)
    impl.broker.find_consumer_id_list = lambda topic, group: []
    assert impl.do_rebalance() is balanced
    assert impl.process_queue_table == before
    assert len(impl.allocate_errors) == (0 if version == "5.5.0" else 1)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_broadcasting_targets_every_queue_of_the_topic(kind, version):
    clock = ManualClock(0)
    broker = Broker(clock)
    broker.register(GROUP, "c2")
    impl = make(kind, version, broker=broker, assigned=set(queues(1)), message_model=BROADCASTING)
    impl.do_rebalance()
    assert table_ids(impl) == [0, 1, 2, 3]
    assert impl.allocate_message_queue_strategy.calls == []
    impl.update_topic_route(T, queues(2))
    impl.do_rebalance()
    assert table_ids(impl) == [0, 1]


@pytest.mark.parametrize("version", VERSIONS)
def test_5_3_3_balanced_is_false_until_every_assigned_queue_has_a_live_process_queue(version):
    impl = make("push", version)
    impl.broker.offset_errors.add(queues(1)[0])
    result = impl.do_rebalance()
    assert table_ids(impl) == [1, 2, 3]
    assert result is (None if version == "4.9.8" else False)
    impl.broker.offset_errors.clear()
    assert impl.do_rebalance() is (None if version == "4.9.8" else True)


# -- orderly push: locks ----------------------------------------------------------------------


def orderly(version, n=1, **kwargs):
    return make("push", version, n=n, consume_orderly=True, **kwargs)


@pytest.mark.parametrize("version", VERSIONS)
def test_orderly_push_adds_a_queue_only_when_the_broker_grants_the_lock(version):
    impl = orderly(version)
    mq0 = queues(1)[0]
    impl.broker.lock_batch_mq(GROUP, "c2", [mq0])
    result = impl.do_rebalance()
    assert impl.process_queue_table == {}
    assert result is (None if version == "4.9.8" else False)
    impl.clock.advance(60000)  # the broker lock lives 60000 ms (strict)
    impl.do_rebalance()
    assert impl.process_queue_table == {}
    impl.clock.advance(1)
    impl.do_rebalance()
    assert mq0 in impl.process_queue_table
    assert impl.broker.locks.holder(GROUP, mq0) == "c1"


@pytest.mark.parametrize("version", VERSIONS)
def test_orderly_push_takes_the_broker_lock_when_adding(version):
    impl = orderly(version, n=2)
    impl.do_rebalance()
    assert table_ids(impl) == [0, 1]
    assert all(impl.broker.locks.holder(GROUP, mq) == "c1" for mq in queues(2))


@pytest.mark.parametrize("version,later", [("4.9.8", []), ("5.3.3", [500]), ("5.5.0", [500])])
def test_failed_lock_asks_for_rebalance_later_only_in_5_3_3(version, later):
    impl = orderly(version, n=2)
    impl.broker.lock_batch_mq(GROUP, "c2", queues(1))
    impl.do_rebalance()
    assert table_ids(impl) == [1]
    assert impl.rebalance_later_requests == later


@pytest.mark.parametrize("version", VERSIONS)
def test_do_rebalance_is_order_argument_overrides_consume_orderly(version):
    impl = make("push", version, n=1)
    impl.broker.lock_batch_mq(GROUP, "c2", queues(1))
    impl.do_rebalance(is_order=True)
    assert impl.process_queue_table == {}
    impl.do_rebalance()
    assert table_ids(impl) == [0]


@pytest.mark.parametrize("version,needs_lock", [("4.9.8", True), ("5.3.3", False), ("5.5.0", False)])
def test_orderly_broadcasting_needs_the_lock_only_in_4_9_8(version, needs_lock):
    impl = orderly(version, message_model=BROADCASTING)
    impl.broker.lock_batch_mq(GROUP, "c2", queues(1))
    impl.do_rebalance()
    assert (impl.process_queue_table == {}) is needs_lock
    assert impl.broker.locks.holder(GROUP, queues(1)[0]) == "c2"
    assert impl.rebalance_later_requests == []


@pytest.mark.parametrize("version", VERSIONS)
def test_a_granted_lock_followed_by_an_offset_failure_leaves_the_broker_lock_held(version):
    impl = orderly(version)
    mq0 = queues(1)[0]
    impl.broker.offset_errors.add(mq0)
    impl.do_rebalance()
    assert impl.process_queue_table == {}
    assert impl.broker.locks.holder(GROUP, mq0) == "c1"
    impl.clock.advance(60001)
    assert impl.broker.locks.holder(GROUP, mq0) is None  # never renewed


# -- orderly push: removal (zombies, unlock) ----------------------------------------------------


def orderly_owning(version, **kwargs):
    """c1 owns queue 0 orderly (CLUSTERING); returns (impl, mq0, pq)."""
    impl = orderly(version, **kwargs)
    impl.do_rebalance()
    mq0 = queues(1)[0]
    return impl, mq0, impl.process_queue_table[mq0]


@pytest.mark.parametrize("version,wait", [("4.9.8", 1000), ("5.3.3", 500), ("5.5.0", 500)])
def test_orderly_removal_fails_while_the_consume_lock_is_held_leaving_a_zombie(version, wait):
    impl, mq0, pq = orderly_owning(version)
    calls = changed_calls(impl)
    pq.consume_lock.hold_until(impl.clock.now() + wait + 1)
    assign(impl, set())
    impl.do_rebalance()
    assert impl.process_queue_table == {mq0: pq}
    assert pq.dropped is True
    assert pq.try_unlock_times == 1
    assert calls == []  # changed stays false
    assert impl.broker.locks.holder(GROUP, mq0) == "c1"
    assert pq.locked is True
    impl.do_rebalance()
    assert pq.try_unlock_times == 2


@pytest.mark.parametrize("version,wait", [("4.9.8", 1000), ("5.3.3", 500), ("5.5.0", 500)])
def test_orderly_removal_succeeds_when_the_consume_lock_is_freed_in_time(version, wait):
    impl, mq0, pq = orderly_owning(version)
    pq.consume_lock.hold_until(impl.clock.now() + wait)
    assign(impl, set())
    impl.do_rebalance()
    assert impl.process_queue_table == {}
    assert pq.dropped is True and pq.try_unlock_times == 0
    assert impl.broker.locks.holder(GROUP, mq0) is None


@pytest.mark.parametrize("version,memory_kept", [("4.9.8", False), ("5.3.3", True), ("5.5.0", True)])
def test_failed_orderly_removal_persists_and_4_9_8_still_forgets_the_offset(version, memory_kept):
    impl, mq0, pq = orderly_owning(version)
    impl.offset_store.update_offset(mq0, 42, False)
    pq.consume_lock.hold_until(10**9)
    assign(impl, set())
    impl.do_rebalance()
    assert impl.broker.committed(GROUP, mq0) == 42
    assert (mq0 in impl.offset_store.offset_table) is memory_kept


@pytest.mark.parametrize("version", VERSIONS)
def test_zombie_blocks_re_adding_its_queue(version):
    impl, mq0, pq = orderly_owning(version)
    pq.consume_lock.hold_until(10**9)
    assign(impl, set())
    impl.do_rebalance()
    assign(impl, {mq0})
    result = impl.do_rebalance()
    assert impl.process_queue_table[mq0] is pq and pq.dropped
    assert result is (None if version == "4.9.8" else False)


def test_4_9_8_orderly_removal_delays_the_unlock_20_s_when_messages_are_cached():
    impl, mq0, pq = orderly_owning("4.9.8")
    fill(pq, range(3), b"m")
    assign(impl, set())
    impl.do_rebalance()
    assert impl.process_queue_table == {}
    assert impl.timers.pending() == [(20000, f"unlock {mq0}")]
    assert impl.broker.locks.holder(GROUP, mq0) == "c1"
    impl.timers.advance(19999)
    assert impl.broker.locks.holder(GROUP, mq0) == "c1"
    impl.timers.advance(1)
    assert impl.broker.locks.holder(GROUP, mq0) is None
    assert pq.locked is True  # 4.9.8 never clears it


def test_4_9_8_orderly_removal_unlocks_at_once_when_nothing_is_cached():
    impl, mq0, pq = orderly_owning("4.9.8")
    assign(impl, set())
    impl.do_rebalance()
    assert impl.timers.pending() == []
    assert impl.broker.locks.holder(GROUP, mq0) is None
    assert pq.locked is True


def test_4_9_8_unlock_delay_follows_the_java_property():
    config = ClientConfig.from_properties({"rocketmq.client.unlockDelayTimeMills": "5000"})
    impl, mq0, pq = orderly_owning("4.9.8", config=config)
    fill(pq, range(1), b"m")
    assign(impl, set())
    impl.do_rebalance()
    assert impl.timers.pending() == [(5000, f"unlock {mq0}")]


def test_5_3_3_orderly_removal_clears_locked_and_unlocks_at_once_even_with_cached_messages():
    impl, mq0, pq = orderly_owning("5.3.3")
    fill(pq, range(3), b"m")
    assign(impl, set())
    impl.do_rebalance()
    assert impl.process_queue_table == {}
    assert pq.locked is False
    assert impl.timers.pending() == []
    assert impl.broker.locks.holder(GROUP, mq0) is None


def test_5_3_3_forces_the_unlock_20_s_after_the_last_lock():
    impl, mq0, pq = orderly_owning("5.3.3")
    pq.consume_lock.hold_until(10**9)
    assign(impl, set())
    impl.clock.set(pq.last_lock_timestamp + 20000)
    impl.do_rebalance()
    assert impl.process_queue_table == {mq0: pq}  # exactly 20000 ms: not forced
    assert pq.try_unlock_times == 1
    impl.clock.advance(1)
    impl.do_rebalance()
    assert impl.process_queue_table == {}
    assert pq.locked is False
    assert impl.broker.locks.holder(GROUP, mq0) is None
    assert pq.try_unlock_times == 1


def test_5_3_3_force_unlock_counts_from_the_last_lock_renewal():
    impl, mq0, pq = orderly_owning("5.3.3")
    pq.consume_lock.hold_until(10**9)
    impl.clock.advance(15000)
    impl.lock_all()
    assert pq.last_lock_timestamp == 15000
    assign(impl, set())
    impl.clock.set(35000)
    impl.do_rebalance()
    assert mq0 in impl.process_queue_table
    impl.clock.advance(1)
    impl.do_rebalance()
    assert impl.process_queue_table == {}


def test_4_9_8_never_forces_the_unlock():
    impl, mq0, pq = orderly_owning("4.9.8")
    pq.consume_lock.hold_until(10**9)
    assign(impl, set())
    impl.clock.advance(10 * 60000)
    impl.do_rebalance()
    assert impl.process_queue_table == {mq0: pq}


@pytest.mark.parametrize("version", VERSIONS)
def test_pull_expired_orderly_queue_with_busy_consume_lock_stays_a_zombie(version):
    impl, mq0, pq = orderly_owning(version)
    pq.consume_lock.hold_until(10**9)
    impl.clock.advance(120001)
    impl.lock_all()  # keep the 5.3.3 force condition false: last lock is now
    impl.do_rebalance()
    assert impl.process_queue_table == {mq0: pq}
    assert pq.dropped is True


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("setup", ["concurrent", "broadcasting"])
def test_push_removal_always_succeeds_when_not_orderly_clustering(version, setup):
    kwargs = {"consume_orderly": True, "message_model": BROADCASTING} if setup == "broadcasting" else {}
    impl = make("push", version, n=1, **kwargs)
    impl.do_rebalance()
    mq0 = queues(1)[0]
    pq = impl.process_queue_table[mq0]
    pq.consume_lock.hold_until(10**9)
    fill(pq, range(2), b"m")
    assert impl.update_process_queue_table_in_rebalance(T, set(), False) is True
    assert impl.process_queue_table == {}
    assert pq.dropped is True
    assert impl.timers.pending() == []


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", ["pull", "lite-pull"])
def test_lite_pull_and_pull_removal_always_succeeds(kind, version):
    impl = make(kind, version, n=1)
    impl.do_rebalance()
    pq = impl.process_queue_table[queues(1)[0]]
    pq.consume_lock.hold_until(10**9)
    assert impl.update_process_queue_table_in_rebalance(T, set(), True) is True
    assert impl.process_queue_table == {}


# -- lock / lockAll / unlock / unlockAll --------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_lock_grant_marks_the_process_queue_locked_now(version):
    impl = make("push", version, n=1)
    impl.do_rebalance()
    mq0 = queues(1)[0]
    pq = impl.process_queue_table[mq0]
    pq.locked = False
    impl.clock.advance(5000)
    assert impl.lock(mq0) is True
    assert pq.locked is True and pq.last_lock_timestamp == 5000
    assert impl.broker.locks.holder(GROUP, mq0) == "c1"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("how", ["refused", "rpc-failure"])
def test_lock_failure_does_not_clear_locked(version, how):
    impl = make("push", version, n=1)
    impl.do_rebalance()
    mq0 = queues(1)[0]
    pq = impl.process_queue_table[mq0]
    assert pq.locked is True
    if how == "refused":
        impl.broker.lock_batch_mq(GROUP, "c2", [mq0])
    else:
        impl.broker.fail("broker-a")
    impl.clock.advance(5000)
    assert impl.lock(mq0) is False
    assert pq.locked is True and pq.last_lock_timestamp == 0


@pytest.mark.parametrize("version", VERSIONS)
def test_lock_of_a_queue_without_process_queue_only_answers(version):
    impl = make("push", version, n=1)
    assert impl.lock(queues(1)[0]) is True
    assert impl.process_queue_table == {}


@pytest.mark.parametrize("version", VERSIONS)
def test_lock_all_renews_granted_and_clears_refused(version):
    impl, mq0, pq = orderly_owning(version)
    impl.update_topic_route(T, queues(2))
    assign(impl, queues(2))
    impl.do_rebalance()
    mq1 = queues(2)[1]
    pq1 = impl.process_queue_table[mq1]
    impl.clock.advance(61000)  # both broker locks expired; c2 takes queue 1
    impl.broker.lock_batch_mq(GROUP, "c2", [mq1])
    impl.lock_all()
    assert (pq.locked, pq.last_lock_timestamp) == (True, 61000)
    assert pq1.locked is False and pq1.last_lock_timestamp == 0
    assert impl.broker.locks.holder(GROUP, mq0) == "c1"
    assert impl.broker.locks.holder(GROUP, mq1) == "c2"


@pytest.mark.parametrize("version", VERSIONS)
def test_lock_all_rpc_failure_changes_nothing_and_the_lock_ages_to_expiry(version):
    impl, mq0, pq = orderly_owning(version)
    impl.broker.fail("broker-a")
    impl.clock.advance(20000)
    impl.lock_all()
    assert (pq.locked, pq.last_lock_timestamp) == (True, 0)
    impl.clock.advance(10000)
    impl.lock_all()
    assert not pq.is_lock_expired()
    impl.clock.advance(1)
    assert pq.is_lock_expired() and pq.locked is True


@pytest.mark.parametrize("version", VERSIONS)
def test_lock_all_sends_one_batch_per_broker_and_a_failing_broker_spares_the_others(version):
    clock = ManualClock(0)
    broker = Broker(clock)
    impl = make("push", version, broker=broker, n=0, consume_orderly=True)
    a, b = MessageQueue(T, "broker-a", 0), MessageQueue(T, "broker-b", 0)
    impl.subscribe(T, [a, b])
    impl.do_rebalance()
    batches = []
    original = broker.lock_batch_mq
    broker.lock_batch_mq = lambda group, cid, mqs: batches.append(sorted(str(mq) for mq in mqs)) or original(group, cid, mqs)
    broker.fail("broker-a")
    clock.advance(1000)
    impl.lock_all()
    assert batches == [[str(a)], [str(b)]]
    assert impl.process_queue_table[a].last_lock_timestamp == 0
    assert impl.process_queue_table[b].last_lock_timestamp == 1000


def test_5_3_3_lock_all_skips_dropped_queues():
    impl, mq0, pq = orderly_owning("5.3.3")
    pq.consume_lock.hold_until(10**9)
    assign(impl, set())
    impl.clock.advance(10000)
    impl.do_rebalance()  # zombie (not forced: 10 s since the last lock)
    assert impl.process_queue_table == {mq0: pq} and pq.dropped
    impl.clock.advance(5000)
    impl.lock_all()
    assert pq.last_lock_timestamp == 0
    assert impl.broker.locks.table[(GROUP, mq0)].last_update_timestamp == 0
    impl.clock.set(60001)
    assert impl.broker.locks.holder(GROUP, mq0) is None


def test_4_9_8_lock_all_renews_zombies_so_the_broker_lock_never_expires():
    impl, mq0, pq = orderly_owning("4.9.8")
    pq.consume_lock.hold_until(10**9)
    assign(impl, set())
    impl.do_rebalance()
    assert impl.process_queue_table == {mq0: pq} and pq.dropped
    for _ in range(6):  # 120 s of renewals every 20 s
        impl.clock.advance(20000)
        impl.lock_all()
    assert pq.last_lock_timestamp == 120000
    assert impl.broker.locks.holder(GROUP, mq0) == "c1"
    other = orderly("4.9.8", client="c2", broker=impl.broker, n=0)
    other.subscribe(T, queues(1))
    other.do_rebalance()
    assert other.process_queue_table == {}


@pytest.mark.parametrize("version", VERSIONS)
def test_unlock_only_sends_the_rpc(version):
    impl, mq0, pq = orderly_owning(version)
    impl.unlock(mq0)
    assert impl.broker.locks.holder(GROUP, mq0) is None
    assert pq.locked is True


@pytest.mark.parametrize("version", VERSIONS)
def test_unlock_all_releases_and_clears_locked(version):
    impl = orderly(version, n=3)
    impl.do_rebalance()
    impl.unlock_all()
    assert all(not pq.locked for pq in impl.process_queue_table.values())
    assert impl.broker.locks.table == {}


@pytest.mark.parametrize("version", VERSIONS)
def test_unlock_all_with_the_broker_down_changes_nothing(version):
    impl = orderly(version, n=2)
    impl.do_rebalance()
    impl.broker.fail("broker-a")
    impl.unlock_all()
    assert all(pq.locked for pq in impl.process_queue_table.values())
    impl.broker.fail("broker-a", down=False)
    assert all(impl.broker.locks.holder(GROUP, mq) == "c1" for mq in queues(2))


# -- broker lock table ----------------------------------------------------------------------------


def test_broker_refuses_a_live_lock_held_by_another_client():
    clock = ManualClock(0)
    broker = Broker(clock)
    mq = queues(1)[0]
    assert broker.lock_batch_mq(GROUP, "c1", [mq]) == {mq}
    clock.advance(60000)
    assert broker.lock_batch_mq(GROUP, "c2", [mq]) == set()
    assert broker.locks.holder(GROUP, mq) == "c1"


def test_broker_lets_another_client_take_over_a_lock_older_than_60000_ms():
    clock = ManualClock(0)
    broker = Broker(clock)
    mq = queues(1)[0]
    broker.lock_batch_mq(GROUP, "c1", [mq])
    clock.advance(60001)
    assert broker.locks.holder(GROUP, mq) is None
    assert broker.lock_batch_mq(GROUP, "c2", [mq]) == {mq}
    assert broker.locks.holder(GROUP, mq) == "c2"
    assert broker.lock_batch_mq(GROUP, "c1", [mq]) == set()


def test_broker_renews_the_holders_lock():
    clock = ManualClock(0)
    broker = Broker(clock)
    mq = queues(1)[0]
    broker.lock_batch_mq(GROUP, "c1", [mq])
    clock.advance(50000)
    assert broker.lock_batch_mq(GROUP, "c1", [mq]) == {mq}
    clock.advance(50000)
    assert broker.lock_batch_mq(GROUP, "c2", [mq]) == set()


def test_broker_grants_part_of_a_batch():
    clock = ManualClock(0)
    broker = Broker(clock)
    a, b = queues(2)
    broker.lock_batch_mq(GROUP, "c2", [a])
    assert broker.lock_batch_mq(GROUP, "c1", [a, b]) == {b}


def test_broker_ignores_an_unlock_from_a_non_holder():
    clock = ManualClock(0)
    broker = Broker(clock)
    mq = queues(1)[0]
    broker.lock_batch_mq(GROUP, "c1", [mq])
    broker.unlock_batch_mq(GROUP, "c2", [mq])
    assert broker.locks.holder(GROUP, mq) == "c1"
    broker.unlock_batch_mq(GROUP, "c1", [mq])
    assert broker.locks.holder(GROUP, mq) is None


def test_broker_locks_are_per_group():
    clock = ManualClock(0)
    broker = Broker(clock)
    mq = queues(1)[0]
    broker.lock_batch_mq("g1", "c1", [mq])
    assert broker.lock_batch_mq("g2", "c2", [mq]) == {mq}


def test_broker_lock_life_follows_the_java_property():
    clock = ManualClock(0)
    config = ClientConfig.from_properties({"rocketmq.broker.rebalance.lockMaxLiveTime": "1000"})
    broker = Broker(clock, config)
    mq = queues(1)[0]
    broker.lock_batch_mq(GROUP, "c1", [mq])
    clock.advance(1000)
    assert broker.lock_batch_mq(GROUP, "c2", [mq]) == set()
    clock.advance(1)
    assert broker.lock_batch_mq(GROUP, "c2", [mq]) == {mq}


def test_broker_down_fails_lock_calls():
    broker = Broker(ManualClock(0))
    broker.fail("broker-a")
    with pytest.raises(BrokerUnavailable):
        broker.lock_batch_mq(GROUP, "c1", queues(1))


# -- other drops -------------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_truncate_removes_unsubscribed_topics_without_persisting_or_unlocking(kind, version):
    impl = make(kind, version, n=2)
    impl.subscribe("Other", queues(1, "Other"))
    impl.do_rebalance()
    mq0 = queues(1)[0]
    impl.broker.lock_batch_mq(GROUP, "c1", [mq0])
    impl.offset_store.update_offset(mq0, 9, False)
    old = dict(impl.process_queue_table)
    impl.unsubscribe(T)
    impl.do_rebalance()
    assert set(impl.process_queue_table) == {MessageQueue("Other", "broker-a", 0)}
    assert all(old[mq].dropped for mq in queues(2))
    assert impl.broker.committed(GROUP, mq0) == -1
    assert impl.offset_store.offset_table[mq0] == 9
    assert impl.broker.locks.holder(GROUP, mq0) == "c1"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_truncate_message_queue_not_my_topic_direct(kind, version):
    impl = make(kind, version, n=2)
    impl.do_rebalance()
    old = dict(impl.process_queue_table)
    impl.unsubscribe(T)
    impl.truncate_message_queue_not_my_topic()
    assert impl.process_queue_table == {}
    assert all(pq.dropped for pq in old.values())


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_remove_process_queue_removes_drops_and_persists(kind, version):
    impl = make(kind, version, n=2)
    impl.do_rebalance()
    mq0 = queues(1)[0]
    pq = impl.process_queue_table[mq0]
    impl.offset_store.update_offset(mq0, 9, False)
    impl.remove_process_queue(mq0)
    assert mq0 not in impl.process_queue_table and pq.dropped
    assert impl.broker.committed(GROUP, mq0) == 9
    assert mq0 not in impl.offset_store.offset_table
    impl.remove_process_queue(mq0)  # absent: nothing happens


@pytest.mark.parametrize("version", VERSIONS)
def test_remove_process_queue_ignores_a_failed_orderly_removal(version):
    impl, mq0, pq = orderly_owning(version)
    pq.consume_lock.hold_until(10**9)
    impl.remove_process_queue(mq0)
    assert impl.process_queue_table == {}
    assert pq.dropped and pq.try_unlock_times == 1
    assert impl.broker.locks.holder(GROUP, mq0) == "c1"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_destroy_drops_every_process_queue_and_clears_the_table(kind, version):
    impl = make(kind, version)
    impl.do_rebalance()
    old = list(impl.process_queue_table.values())
    impl.destroy()
    assert impl.process_queue_table == {}
    assert len(old) == 4 and all(pq.dropped for pq in old)


# -- lite pull: AssignedMessageQueue ------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_lite_pull_assigned_queues_share_the_rebalancer_process_queues(version):
    impl = make("lite-pull", version, assigned=set(queues(2)))
    impl.do_rebalance()
    assert set(impl.assigned_message_queue) == set(queues(2))
    for mq, pq in impl.assigned_message_queue.items():
        assert pq is impl.process_queue_table[mq]
    assign(impl, queues(4)[1:3])
    impl.do_rebalance()
    assert set(impl.assigned_message_queue) == set(queues(4)[1:3])
    assert table_ids(impl) == [1, 2]


def test_5_3_3_lite_pull_route_loss_makes_a_zombie_that_never_expires():
    impl = make("lite-pull", "5.3.3", n=2)
    impl.do_rebalance()
    old = dict(impl.process_queue_table)
    impl.update_topic_route(T, None)
    assert impl.do_rebalance() is True
    assert impl.assigned_message_queue == {}
    assert impl.process_queue_table == old  # still in the table ...
    assert all(pq.dropped for pq in old.values())  # ... but dropped: zombies
    impl.update_topic_route(T, queues(2))
    for _ in range(3):
        impl.clock.advance(120001)
        assert impl.do_rebalance() is False  # never balanced again
        assert impl.process_queue_table == old
        assert all(impl.process_queue_table[mq] is old[mq] for mq in old)


def test_4_9_8_lite_pull_route_loss_changes_nothing():
    impl = make("lite-pull", "4.9.8", n=2)
    impl.do_rebalance()
    old = dict(impl.process_queue_table)
    impl.update_topic_route(T, None)
    impl.do_rebalance()
    assert set(impl.assigned_message_queue) == set(queues(2))
    assert not any(pq.dropped for pq in old.values())


# -- §6.1 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_dropped_never_returns_to_false_and_a_reacquired_queue_gets_a_new_process_queue(kind, version):
    impl = make(kind, version, n=1)
    mq0 = queues(1)[0]
    seen = []
    for _ in range(3):
        assign(impl, {mq0})
        impl.do_rebalance()
        seen.append(impl.process_queue_table[mq0])
        assign(impl, set())
        impl.do_rebalance()
        assert mq0 not in impl.process_queue_table
    assert len({id(pq) for pq in seen}) == 3
    assert all(pq.dropped for pq in seen)


def test_timers_run_the_delayed_unlock_only_when_advanced():
    clock = ManualClock(0)
    timers = Timers(clock)
    broker = Broker(clock)
    impl = make("push", "4.9.8", broker=broker, n=1, consume_orderly=True, timers=timers)
    impl.do_rebalance()
    fill(impl.process_queue_table[queues(1)[0]], range(1), b"m")
    assign(impl, set())
    impl.do_rebalance()
    clock.advance(30000)  # moving the clock alone runs nothing
    assert broker.locks.table != {}
    assert timers.run_due() == 1
    assert broker.locks.table == {}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_consume_timestamp_acc_count_and_unlock_tries_decide_nothing(kind, version):
    impl = make(kind, version, n=2)
    impl.do_rebalance()
    before = dict(impl.process_queue_table)
    impl.clock.advance(60000)
    for pq in before.values():
        pq.last_pull_timestamp = impl.clock.now()
        pq.last_consume_timestamp = -10**9
        pq.msg_acc_cnt = 10**6
        pq.try_unlock_times = 99
    assert impl.update_process_queue_table_in_rebalance(T, set(queues(2)), False) is False
    assert impl.process_queue_table == before
    assert not any(pq.dropped for pq in before.values())


def test_broker_try_lock_and_all_expired():
    clock = ManualClock()
    broker = Broker(clock)
    mq = MessageQueue("T", "broker-a", 0)
    locks = broker.locks
    assert locks.is_lock_all_expired("g")
    assert locks.try_lock("g", mq, "c1") and not locks.try_lock("g", mq, "c2")
    assert not locks.is_lock_all_expired("g")
    clock.advance(60000)
    assert not locks.is_lock_all_expired("g") and not locks.try_lock("g", mq, "c2")
    clock.advance(1)
    assert locks.is_lock_all_expired("g") and locks.try_lock("g", mq, "c2")


def test_5_3_broadcasting_without_a_route_notifies_only_for_non_retry_topics():
    clock = ManualClock()
    impl = RebalancePushImpl("g", "c1", reference_strategy("AVG"), Broker(clock), message_model="BROADCASTING")
    impl.subscribe("%RETRY%g", None)
    impl.do_rebalance()
    assert impl.heartbeats == 0
    impl.subscribe("T", None)
    impl.do_rebalance()
    assert impl.heartbeats == 1


def test_5_3_a_raising_message_queue_listener_does_not_unbalance_the_rebalance():
    clock = ManualClock()
    broker = Broker(clock)
    broker.register("g", "c1")
    impl = RebalancePushImpl("g", "c1", reference_strategy("AVG"), broker)

    def listener(topic, mq_all, mq_divided):
        raise RuntimeError("user code")

    impl.message_queue_listener = listener
    impl.subscribe("T", [MessageQueue("T", "broker-a", 0)])
    assert impl.do_rebalance() is True
    assert [type(exc) for _, _, exc in impl.listener_errors] == [RuntimeError]


def test_try_remove_order_message_queue_is_forced_20_s_after_the_last_lock():
    clock = ManualClock()
    broker = Broker(clock)
    mq = MessageQueue("T", "broker-a", 0)
    impl = RebalancePushImpl("g", "c1", reference_strategy("AVG"), broker, consume_orderly=True)
    pq = ProcessQueue(clock)
    pq.locked, pq.dropped = True, True
    pq.consume_lock.lock()  # a listener holds it for good
    assert not impl.try_remove_order_message_queue(mq, pq) and pq.try_unlock_times == 1
    clock.advance(20000)
    assert not impl.try_remove_order_message_queue(mq, pq)  # exactly 20 s: not yet
    clock.advance(1)
    assert impl.try_remove_order_message_queue(mq, pq) and not pq.locked
    pq.consume_lock.unlock()
    assert not pq.consume_lock.held(clock.now())


@pytest.mark.parametrize("version", VERSIONS)
def test_reset_offset_drops_clears_then_removes_after_10_s(version):
    clock = ManualClock()
    broker = Broker(clock)
    broker.register("g", "c1")
    mqs = [MessageQueue("T", "broker-a", i) for i in range(2)]
    impl = RebalancePushImpl("g", "c1", reference_strategy("AVG"), broker, version=version)
    impl.subscribe("T", mqs)
    impl.do_rebalance()
    old = impl.process_queue_table[mqs[0]]
    old.put_message([Message(5, b"x")])
    impl.reset_offset("T", {mqs[0]: 3})
    assert old.dropped and old.msg_count == 0 and impl.paused
    assert impl.do_rebalance() is (False if version != "4.9.8" else None)  # paused: skipped
    assert impl.process_queue_table[mqs[0]] is old
    impl.timers.advance(10000)
    assert mqs[0] not in impl.process_queue_table and not impl.paused
    assert broker.committed("g", mqs[0]) == 3
    impl.do_rebalance()
    assert impl.process_queue_table[mqs[0]] is not old
    assert impl.pull_requests[-1][1].next_offset == 3


def test_a_stopped_4_9_client_never_sends_its_delayed_unlock():
    clock = ManualClock()
    broker = Broker(clock)
    mq = MessageQueue("T", "broker-a", 0)
    impl = RebalancePushImpl("g", "c1", reference_strategy("AVG"), broker, version="4.9.8", consume_orderly=True)
    broker.lock_batch_mq("g", "c1", [mq])
    pq = ProcessQueue(clock, version="4.9.8")
    pq.put_message([Message(0, b"x")])
    pq.dropped = True
    assert impl.remove_unnecessary_message_queue(mq, pq)
    impl.running = False  # the process died before the unlock was due
    impl.timers.advance(20000)
    assert broker.locks.holder("g", mq) == "c1"
