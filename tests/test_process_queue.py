"""ProcessQueue model against ``spec/process-queue.md`` §1, §5 (ProcessQueueTest) and §6.

Offsets are 0..n-1 and bodies 123 bytes, as in Java's ProcessQueueTest.
"""

import pytest

from pytest_rmq_conformance.processqueue import (
    PROPERTY_CONSUME_START_TIME,
    PROPERTY_MAX_OFFSET,
    ClientConfig,
    ManualClock,
    Message,
    ProcessQueue,
    fill,
)

VERSIONS = ["4.9.8", "5.3.3"]
BODY = b"\x00" * 123
MIB = 1024 * 1024


def messages(count, start=0, body=BODY, **properties):
    return [Message(offset, body, {k: str(v) for k, v in properties.items()}) for offset in range(start, start + count)]


def new_pq(version="5.3.3", start=1000, config=ClientConfig()):
    clock = ManualClock(start)
    return ProcessQueue(clock, config, version), clock


def assert_count_matches_maps(pq):
    """§6.11: msgCount equals tree size + consuming-map size."""
    assert pq.msg_count == len(pq.msg_tree_map) + len(pq.consuming_msg_orderly_tree_map)


# -- §5 ProcessQueueTest ----------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_cached_message_count_100_then_90_after_take_commit_then_89_after_removing_last(version):
    pq, _ = new_pq(version)
    pq.put_message(messages(100))
    assert pq.msg_count == 100
    pq.take_messages(10)
    pq.commit()
    assert pq.msg_count == 90
    assert_count_matches_maps(pq)
    last = pq.msg_tree_map.values()[-1]
    assert last.queue_offset == 99
    pq.remove_message([last])
    assert pq.msg_count == 89
    assert_count_matches_maps(pq)


@pytest.mark.parametrize("version", VERSIONS)
def test_cached_message_size_12300_then_11070_then_10947_bytes(version):
    pq, _ = new_pq(version)
    pq.put_message(messages(100))
    assert pq.msg_size == 12300
    pq.take_messages(10)
    pq.commit()
    assert pq.msg_size == 11070
    pq.remove_message([pq.msg_tree_map.values()[-1]])
    assert pq.msg_size == 10947


@pytest.mark.parametrize("version", VERSIONS)
def test_cached_size_in_mib_rounds_down_12_10_9_0_as_batches_are_committed(version):
    pq, _ = new_pq(version)
    pq.put_message(messages(102400))
    assert pq.msg_size == 102400 * 123 == 12595200  # 12.01 MiB
    assert pq.cached_msg_size_in_mib == 12
    steps = [(10000, 92400, 10), (10000, 82400, 9), (80000, 2400, 0)]  # 10.84, 9.67, 0.28 MiB
    for take, left, mib in steps:
        assert len(pq.take_messages(take)) == take
        pq.commit()
        assert pq.msg_count == left
        assert pq.msg_size == left * 123
        assert pq.msg_size / MIB > mib  # a fraction that must be rounded down
        assert pq.cached_msg_size_in_mib == mib


def test_cached_size_in_mib_is_zero_one_byte_below_a_mib():
    pq, _ = new_pq()
    pq.put_message(messages(8526))
    assert pq.msg_size == MIB + 122
    assert pq.cached_msg_size_in_mib == 1
    pq.remove_message([pq.msg_tree_map.first_value()])
    assert pq.msg_size == MIB - 1
    assert pq.cached_msg_size_in_mib == 0


def test_contains_message_true_for_a_put_message_and_false_otherwise_in_5_3_3():
    pq, _ = new_pq("5.3.3")
    message0, message1 = messages(2)
    pq.put_message([message0])
    assert pq.contains_message(message0) is True
    assert pq.contains_message(message1) is False


def test_contains_message_does_not_exist_in_4_9_8():
    pq, _ = new_pq("4.9.8")
    message0, = messages(1)
    pq.put_message([message0])
    with pytest.raises(AttributeError):
        pq.contains_message(message0)


@pytest.mark.parametrize("version", VERSIONS)
def test_clean_expired_msg_sends_back_a_20_minute_old_message_with_delay_level_3_when_timeout_is_0(version):
    pq, clock = new_pq(version, start=10_000_000)
    msg = Message(0, BODY, {PROPERTY_CONSUME_START_TIME: str(clock.now() - 20 * 60 * 1000)})
    pq.put_message([msg])
    calls = []
    sent = pq.clean_expired_msg(lambda m, level: calls.append((m, level)), consume_timeout_minutes=0)
    assert calls == [(msg, 3)]
    assert sent == [msg]
    assert not pq.has_temp_message()
    assert pq.msg_count == 0


@pytest.mark.parametrize("version", VERSIONS)
def test_rollback_on_a_fresh_queue_leaves_consuming_map_empty_and_no_temp_message(version):
    pq, _ = new_pq(version)
    pq.msg_acc_cnt = 1
    pq.try_unlock_times += 1
    pq.rollback()
    assert len(pq.consuming_msg_orderly_tree_map) == 0
    assert pq.has_temp_message() is False


@pytest.mark.parametrize("version", VERSIONS)
def test_two_fresh_queues_created_in_the_same_millisecond_have_equal_timestamps(version):
    clock = ManualClock(5)
    first, second = ProcessQueue(clock, version=version), ProcessQueue(clock, version=version)
    assert first.last_pull_timestamp == second.last_pull_timestamp == 5
    assert first.msg_acc_cnt == second.msg_acc_cnt == 0
    assert first.try_unlock_times == second.try_unlock_times == 0


# -- §1 initial state and predicates ---------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_initial_state_is_empty_unflagged_and_stamped_with_creation_time(version):
    pq, clock = new_pq(version, start=4242)
    assert len(pq.msg_tree_map) == len(pq.consuming_msg_orderly_tree_map) == 0
    assert (pq.msg_count, pq.msg_size, pq.queue_offset_max) == (0, 0, 0)
    assert (pq.dropped, pq.locked, pq.consuming) == (False, False, False)
    assert (pq.try_unlock_times, pq.msg_acc_cnt) == (0, 0)
    assert pq.last_pull_timestamp == pq.last_consume_timestamp == pq.last_lock_timestamp == 4242
    assert pq.get_max_span() == 0
    assert not pq.is_pull_expired() and not pq.is_lock_expired()


@pytest.mark.parametrize("version", VERSIONS)
def test_pull_expiry_at_exactly_120000_ms_is_not_expired_and_one_more_ms_is(version):
    pq, clock = new_pq(version)
    clock.advance(120000)
    assert pq.is_pull_expired() is False
    clock.advance(1)
    assert pq.is_pull_expired() is True


@pytest.mark.parametrize("version", VERSIONS)
def test_pull_expiry_is_measured_from_the_last_pull_timestamp(version):
    pq, clock = new_pq(version)
    clock.advance(100000)
    pq.last_pull_timestamp = clock.now()
    clock.advance(120000)
    assert not pq.is_pull_expired()
    clock.advance(1)
    assert pq.is_pull_expired()


@pytest.mark.parametrize("version", VERSIONS)
def test_lock_expiry_at_exactly_30000_ms_is_not_expired_and_one_more_ms_is(version):
    pq, clock = new_pq(version)
    clock.advance(30000)
    assert pq.is_lock_expired() is False
    clock.advance(1)
    assert pq.is_lock_expired() is True
    pq.last_lock_timestamp = clock.now()
    assert pq.is_lock_expired() is False


@pytest.mark.parametrize("version", VERSIONS)
def test_expiry_thresholds_come_from_java_system_properties(version):
    config = ClientConfig.from_properties(
        {"rocketmq.client.pull.pullMaxIdleTime": "5000", "rocketmq.client.rebalance.lockMaxLiveTime": "700"}
    )
    assert (config.pull_max_idle_time, config.rebalance_lock_max_live_time) == (5000, 700)
    pq, clock = new_pq(version, config=config)
    clock.advance(700)
    assert not pq.is_lock_expired()
    clock.advance(1)
    assert pq.is_lock_expired()
    assert not pq.is_pull_expired()
    clock.advance(5000 - 701)
    assert not pq.is_pull_expired()
    clock.advance(1)
    assert pq.is_pull_expired()


def test_client_config_defaults_and_property_names():
    config = ClientConfig()
    assert config.rebalance_lock_max_live_time == 30000
    assert config.rebalance_lock_interval == 20000
    assert config.pull_max_idle_time == 120000
    assert config.unlock_delay_time_mills == 20000
    assert config.max_time_consume_continuously == 60000
    assert (config.rebalance_wait_interval, config.rebalance_min_interval) == (20000, 1000)
    assert config.broker_lock_max_live_time == 60000
    # §6.14: lock renewal (20 s) < client lock life (30 s) < broker lock life (60 s)
    assert config.rebalance_lock_interval < config.rebalance_lock_max_live_time < config.broker_lock_max_live_time
    every = ClientConfig.from_properties({
        "rocketmq.client.rebalance.lockMaxLiveTime": "1",
        "rocketmq.client.rebalance.lockInterval": "2",
        "rocketmq.client.pull.pullMaxIdleTime": "3",
        "rocketmq.client.unlockDelayTimeMills": "4",
        "rocketmq.client.maxTimeConsumeContinuously": "5",
        "rocketmq.client.rebalance.waitInterval": "6",
        "rocketmq.client.rebalance.minInterval": "7",
        "rocketmq.broker.rebalance.lockMaxLiveTime": "8",
    })
    assert (
        every.rebalance_lock_max_live_time, every.rebalance_lock_interval, every.pull_max_idle_time,
        every.unlock_delay_time_mills, every.max_time_consume_continuously, every.rebalance_wait_interval,
        every.rebalance_min_interval, every.broker_lock_max_live_time,
    ) == (1, 2, 3, 4, 5, 6, 7, 8)


def test_client_config_refuses_unknown_properties_and_non_numbers():
    with pytest.raises(ValueError):
        ClientConfig.from_properties({"rocketmq.client.pullMaxIdleTime": "5000"})
    with pytest.raises(ValueError):
        ClientConfig.from_properties({"rocketmq.client.pull.pullMaxIdleTime": "5s"})


@pytest.mark.parametrize("version", VERSIONS)
def test_has_temp_message_reflects_the_tree_only(version):
    pq, _ = new_pq(version)
    assert not pq.has_temp_message()
    fill(pq, range(3), BODY)
    assert pq.has_temp_message()
    pq.take_messages(3)
    assert not pq.has_temp_message()
    assert pq.msg_count == 3


# -- putMessage ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_put_message_replaces_an_existing_key_without_counting_it(version):
    pq, _ = new_pq(version)
    first = Message(5, b"x" * 10)
    second = Message(5, b"y" * 20)
    pq.put_message([first])
    pq.put_message([second])
    assert pq.msg_count == 1
    assert pq.msg_size == 10
    assert pq.msg_tree_map.first_value() is second
    assert_count_matches_maps(pq)


@pytest.mark.parametrize("version", VERSIONS)
def test_queue_offset_max_is_the_last_inserted_offset_not_the_maximum(version):
    pq, _ = new_pq(version)
    pq.put_message([Message(1, BODY), Message(9, BODY)])
    assert pq.queue_offset_max == 9
    pq.put_message([Message(4, BODY)])
    assert pq.queue_offset_max == 4
    pq.put_message([Message(9, BODY)])  # an existing key does not update it
    assert pq.queue_offset_max == 4
    pq.put_message([Message(7, BODY), Message(3, BODY)])
    assert pq.queue_offset_max == 3


@pytest.mark.parametrize("version", VERSIONS)
def test_put_message_asks_for_dispatch_only_when_not_already_consuming(version):
    pq, _ = new_pq(version)
    assert pq.put_message([]) is False  # empty tree: no dispatch
    assert pq.consuming is False
    assert pq.put_message(messages(2)) is True
    assert pq.consuming is True
    assert pq.put_message(messages(2, start=2)) is False
    assert pq.consuming is True
    # taking from an empty tree clears ``consuming``; the next put dispatches again
    pq.take_messages(10)
    assert pq.consuming is True
    assert pq.take_messages(10) == []
    assert pq.consuming is False
    assert pq.put_message(messages(1, start=4)) is True


@pytest.mark.parametrize("version", VERSIONS)
def test_put_message_of_an_existing_key_still_dispatches_an_idle_queue(version):
    pq, _ = new_pq(version)
    pq.put_message(messages(1))
    pq.consuming = False
    assert pq.put_message(messages(1)) is True


@pytest.mark.parametrize("version", VERSIONS)
def test_msg_acc_cnt_from_max_offset_of_the_last_message_only_when_positive(version):
    pq, _ = new_pq(version)
    pq.put_message(messages(10, **{PROPERTY_MAX_OFFSET: 150}))
    assert pq.msg_acc_cnt == 150 - 9
    pq.put_message(messages(1, start=10, **{PROPERTY_MAX_OFFSET: 10}))  # 10 - 10 = 0: kept
    assert pq.msg_acc_cnt == 141
    pq.put_message(messages(1, start=11, **{PROPERTY_MAX_OFFSET: 5}))  # negative: kept
    assert pq.msg_acc_cnt == 141
    pq.put_message([Message(12, BODY, {PROPERTY_MAX_OFFSET: "100"}), Message(13, BODY)])  # last has none
    assert pq.msg_acc_cnt == 141
    pq.put_message([Message(14, BODY), Message(15, BODY, {PROPERTY_MAX_OFFSET: "20"})])
    assert pq.msg_acc_cnt == 5


def test_null_body_counts_0_bytes_in_5_3_3():
    pq, _ = new_pq("5.3.3")
    assert pq.put_message([Message(0, None), Message(1, b"abc")]) is True
    assert (pq.msg_count, pq.msg_size) == (2, 3)
    assert pq.remove_message([Message(0, None)]) == 1
    assert (pq.msg_count, pq.msg_size) == (1, 3)


def test_null_body_raises_type_error_in_4_9_8():
    pq, _ = new_pq("4.9.8")
    with pytest.raises(TypeError):
        pq.put_message([Message(0, None)])


# -- removeMessage -----------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_remove_message_on_an_empty_tree_returns_minus_1_and_only_stamps_consume_time(version):
    pq, clock = new_pq(version)
    clock.advance(500)
    assert pq.remove_message(messages(1)) == -1
    assert pq.last_consume_timestamp == clock.now()
    assert (pq.msg_count, pq.msg_size) == (0, 0)
    # also when everything cached has been taken by the orderly consumer
    fill(pq, range(3), BODY)
    pq.take_messages(3)
    clock.advance(10)
    assert pq.remove_message(messages(3)) == -1
    assert (pq.msg_count, pq.msg_size) == (3, 369)
    assert pq.last_consume_timestamp == clock.now()


@pytest.mark.parametrize("version", VERSIONS)
def test_remove_message_returns_the_lowest_remaining_key(version):
    pq, clock = new_pq(version)
    msgs = fill(pq, range(10), BODY)
    clock.advance(7)
    assert pq.remove_message([msgs[0], msgs[1], msgs[5]]) == 2
    assert pq.last_consume_timestamp == clock.now()
    assert pq.remove_message([msgs[9]]) == 2
    assert (pq.msg_count, pq.msg_size) == (6, 6 * 123)
    assert_count_matches_maps(pq)


@pytest.mark.parametrize("version", VERSIONS)
def test_remove_message_of_everything_returns_queue_offset_max_plus_1(version):
    pq, _ = new_pq(version)
    msgs = [Message(5, BODY), Message(3, BODY)]
    pq.put_message(msgs)
    assert pq.queue_offset_max == 3  # last inserted
    assert pq.remove_message(msgs) == 4  # not 6: queue_offset_max + 1
    assert (pq.msg_count, pq.msg_size) == (0, 0)


@pytest.mark.parametrize("version", VERSIONS)
def test_remove_message_ignores_absent_offsets(version):
    pq, _ = new_pq(version)
    fill(pq, [2, 4], BODY)
    assert pq.remove_message([Message(3, BODY), Message(99, BODY)]) == 2
    assert (pq.msg_count, pq.msg_size) == (2, 246)


@pytest.mark.parametrize("version", VERSIONS)
def test_remove_message_zeroes_size_when_count_reaches_zero(version):
    pq, _ = new_pq(version)
    pq.put_message([Message(0, b"x" * 10)])
    # removed through a copy without body: the byte count would stay 10, but count 0 resets it
    assert pq.remove_message([Message(0, b"")]) == 1
    assert (pq.msg_count, pq.msg_size) == (0, 0)


# -- takeMessages, commit, rollback ---------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_take_messages_moves_the_lowest_entries_without_changing_counts(version):
    pq, clock = new_pq(version)
    fill(pq, [7, 3, 5, 1], BODY)
    clock.advance(3)
    taken = pq.take_messages(3)
    assert [m.queue_offset for m in taken] == [1, 3, 5]
    assert pq.consuming_offsets() == [1, 3, 5]
    assert pq.cached_offsets() == [7]
    assert (pq.msg_count, pq.msg_size) == (4, 4 * 123)
    assert pq.last_consume_timestamp == clock.now()
    assert [m.queue_offset for m in pq.take_messages(5)] == [7]
    assert pq.consuming is True  # something was moved
    assert_count_matches_maps(pq)


@pytest.mark.parametrize("version", VERSIONS)
def test_commit_returns_highest_taken_plus_1_and_subtracts_the_taken(version):
    pq, _ = new_pq(version)
    fill(pq, range(10), BODY)
    pq.take_messages(4)
    assert pq.commit() == 4
    assert (pq.msg_count, pq.msg_size) == (6, 6 * 123)
    assert len(pq.consuming_msg_orderly_tree_map) == 0
    pq.take_messages(6)
    assert pq.commit() == 10
    assert (pq.msg_count, pq.msg_size) == (0, 0)


@pytest.mark.parametrize("version", VERSIONS)
def test_commit_zeroes_size_when_count_reaches_zero(version):
    pq, _ = new_pq(version)
    pq.put_message([Message(0, b"x" * 10)])
    pq.consuming_msg_orderly_tree_map.put(0, Message(0, b""))  # a body the size never saw
    pq.msg_tree_map.remove(0)
    assert pq.commit() == 1
    assert (pq.msg_count, pq.msg_size) == (0, 0)


@pytest.mark.parametrize("version", VERSIONS)
def test_commit_with_nothing_taken_raises_lookup_error(version):
    pq, _ = new_pq(version)
    with pytest.raises(LookupError):
        pq.commit()
    fill(pq, range(2), BODY)
    with pytest.raises(LookupError):
        pq.commit()
    assert (pq.msg_count, pq.msg_size) == (2, 246)


@pytest.mark.parametrize("version", VERSIONS)
def test_rollback_moves_every_taken_message_back_without_changing_counts(version):
    pq, _ = new_pq(version)
    fill(pq, range(5), BODY)
    pq.take_messages(3)
    pq.rollback()
    assert pq.cached_offsets() == [0, 1, 2, 3, 4]
    assert pq.consuming_offsets() == []
    assert (pq.msg_count, pq.msg_size) == (5, 5 * 123)
    assert_count_matches_maps(pq)


@pytest.mark.parametrize("version", VERSIONS)
def test_make_message_to_consume_again_moves_only_the_given_messages_back(version):
    pq, _ = new_pq(version)
    fill(pq, range(5), BODY)
    taken = pq.take_messages(3)
    pq.make_message_to_consume_again([taken[1]])
    assert pq.cached_offsets() == [1, 3, 4]
    assert pq.consuming_offsets() == [0, 2]
    assert (pq.msg_count, pq.msg_size) == (5, 5 * 123)
    assert_count_matches_maps(pq)
    assert pq.commit() == 3


@pytest.mark.parametrize("version", VERSIONS)
def test_clear_empties_maps_and_counters_but_keeps_flags(version):
    pq, _ = new_pq(version)
    fill(pq, range(5), BODY)
    pq.take_messages(2)
    pq.dropped = pq.locked = True
    assert pq.consuming is True
    pq.clear()
    assert pq.cached_offsets() == [] and pq.consuming_offsets() == []
    assert (pq.msg_count, pq.msg_size, pq.queue_offset_max) == (0, 0, 0)
    assert (pq.dropped, pq.locked, pq.consuming) == (True, True, True)


@pytest.mark.parametrize("version", VERSIONS)
def test_get_max_span_is_highest_minus_lowest_cached_key(version):
    pq, _ = new_pq(version)
    assert pq.get_max_span() == 0
    fill(pq, [10, 3, 7], BODY)
    assert pq.get_max_span() == 7
    pq.take_messages(1)  # only the tree counts
    assert pq.get_max_span() == 3
    pq.take_messages(2)
    assert pq.get_max_span() == 0


# -- cleanExpiredMsg --------------------------------------------------------------------


def started_at(offset, when):
    return Message(offset, BODY, {PROPERTY_CONSUME_START_TIME: str(when)})


@pytest.mark.parametrize("version", VERSIONS)
def test_clean_expired_msg_checks_at_most_16_heads_per_run(version):
    pq, clock = new_pq(version, start=0)
    pq.put_message([started_at(i, 0) for i in range(20)])
    clock.advance(15 * 60 * 1000 + 1)
    calls = []
    sent = pq.clean_expired_msg(lambda m, level: calls.append((m.queue_offset, level)))
    assert calls == [(i, 3) for i in range(16)]
    assert [m.queue_offset for m in sent] == list(range(16))
    assert pq.cached_offsets() == [16, 17, 18, 19]
    assert pq.msg_count == 4
    assert len(pq.clean_expired_msg(lambda m, level: None)) == 4
    assert pq.msg_count == 0


@pytest.mark.parametrize("version", VERSIONS)
def test_clean_expired_msg_is_strict_about_the_timeout(version):
    pq, clock = new_pq(version, start=0)
    pq.put_message([started_at(0, 0)])
    clock.advance(15 * 60 * 1000)
    calls = []
    assert pq.clean_expired_msg(lambda m, level: calls.append(m)) == []
    assert calls == []
    clock.advance(1)
    assert len(pq.clean_expired_msg(lambda m, level: calls.append(m))) == 1
    assert not pq.has_temp_message()


@pytest.mark.parametrize("version", VERSIONS)
def test_clean_expired_msg_uses_the_consume_timeout_in_minutes(version):
    pq, clock = new_pq(version, start=0)
    pq.put_message([started_at(0, 0)])
    clock.advance(2 * 60 * 1000)
    assert pq.clean_expired_msg(lambda m, level: None, consume_timeout_minutes=2) == []
    assert len(pq.clean_expired_msg(lambda m, level: None, consume_timeout_minutes=1)) == 1


@pytest.mark.parametrize("version", VERSIONS)
def test_clean_expired_msg_stops_at_a_fresh_or_unstarted_head(version):
    pq, clock = new_pq(version, start=0)
    pq.put_message([started_at(0, 10**7), started_at(1, 0)])
    clock.set(10**7 + 1)
    calls = []
    assert pq.clean_expired_msg(lambda m, level: calls.append(m)) == []
    unstarted, _ = new_pq(version, start=10**8)
    unstarted.put_message([Message(0, BODY), started_at(1, 0)])
    assert unstarted.clean_expired_msg(lambda m, level: calls.append(m)) == []
    assert calls == []
    assert unstarted.msg_count == 2


@pytest.mark.parametrize("version", VERSIONS)
def test_clean_expired_msg_failed_send_back_leaves_the_message(version):
    pq, clock = new_pq(version, start=0)
    pq.put_message([started_at(i, 0) for i in range(3)])
    clock.advance(16 * 60 * 1000)
    calls = []

    def failing(msg, level):
        calls.append(msg.queue_offset)
        raise RuntimeError("broker refused the send-back")

    assert pq.clean_expired_msg(failing) == []
    assert calls == [0, 0, 0]  # min(size, 16) tries, each on the head
    assert pq.cached_offsets() == [0, 1, 2]
    assert (pq.msg_count, pq.msg_size) == (3, 369)


@pytest.mark.parametrize("version", VERSIONS)
def test_clean_expired_msg_removes_only_if_the_message_is_still_the_head(version):
    pq, clock = new_pq(version, start=0)
    pq.put_message([started_at(5, 0), started_at(6, 0)])
    clock.advance(16 * 60 * 1000)
    calls = []

    def lower_offset_arrives(msg, level):
        calls.append(msg.queue_offset)
        pq.put_message([started_at(1, clock.now())])  # a fresh, lower message becomes the head

    sent = pq.clean_expired_msg(lower_offset_arrives)
    assert calls == [5]
    assert [m.queue_offset for m in sent] == [5]
    assert pq.cached_offsets() == [1, 5, 6]  # 5 was sent back but is no longer the head: kept
    assert pq.msg_count == 3


@pytest.mark.parametrize("version", VERSIONS)
def test_clean_expired_msg_never_runs_for_orderly_consumers(version):
    pq, clock = new_pq(version, start=0)
    pq.put_message([started_at(0, 0)])
    clock.advance(60 * 60 * 1000)
    calls = []
    assert pq.clean_expired_msg(lambda m, level: calls.append(m), consume_orderly=True) == []
    assert calls == []
    assert pq.msg_count == 1


def test_unknown_client_version_is_refused():
    with pytest.raises(ValueError):
        ProcessQueue(ManualClock(), version="4.8.0")


def test_java_accessors_and_a_function_as_the_clock():
    now = [5000]
    pq = ProcessQueue(lambda: now[0])
    assert pq.get_last_pull_timestamp() == pq.get_last_lock_timestamp() == pq.get_last_consume_timestamp() == 5000
    pq.set_dropped(True)
    pq.set_locked(True)
    pq.inc_try_unlock_times()
    assert (pq.is_dropped(), pq.is_locked(), pq.get_try_unlock_times()) == (True, True, 1)
    pq.put_message([Message(7, b"abcd")])
    assert (pq.get_msg_count(), pq.get_msg_size(), pq.is_consuming()) == (1, 4, True)
    now[0] += 120001
    assert pq.is_pull_expired()
    pq.set_last_pull_timestamp(now[0])
    assert not pq.is_pull_expired()


def test_the_caches_read_like_maps_and_fill_process_queue_info():
    clock = ManualClock(7)
    pq = ProcessQueue(clock)
    pq.put_message([Message(o, b"x" * 10) for o in (5, 3, 9, 4)])
    tree = pq.get_msg_tree_map()
    assert list(tree) == [3, 4, 5, 9] and tree[5].queue_offset == 5 and tree.get(8) is None and 9 in tree
    pq.take_messages(2)
    assert dict(pq.get_consuming_msg_orderly_tree_map()).keys() == {3, 4}
    info = pq.fill_process_queue_info()
    assert (info.cached_msg_min_offset, info.cached_msg_max_offset, info.cached_msg_count) == (5, 9, 2)
    assert (info.transaction_msg_min_offset, info.transaction_msg_max_offset, info.transaction_msg_count) == (3, 4, 2)
    assert (info.locked, info.droped, info.last_pull_timestamp, info.cached_msg_size_in_mib) == (False, False, 7, 0)


def test_java_constants_and_the_consume_lock():
    assert (ProcessQueue.PULL_MAX_IDLE_TIME, ProcessQueue.REBALANCE_LOCK_MAX_LIVE_TIME, ProcessQueue.REBALANCE_LOCK_INTERVAL) == (
        120000,
        30000,
        20000,
    )
    pq = ProcessQueue(ManualClock())
    lock = pq.get_lock_consume()
    lock.lock()
    assert lock.held(10**12) and not lock.try_lock(0, 1000)
    lock.unlock()
    assert lock.try_lock(0, 0)


def test_clean_expired_msg_counts_a_false_send_back_as_failed():
    clock = ManualClock()
    pq = ProcessQueue(clock)
    pq.put_message([Message(0, b"x", {PROPERTY_CONSUME_START_TIME: "0"})])
    clock.advance(15 * 60 * 1000 + 1)
    assert pq.clean_expired_msg(lambda msg, level: False) == []
    assert pq.cached_offsets() == [0]
