"""The failure scenarios of a rebalancing group, reproduced through the public fixtures.

Each test builds a group with ``rmq_group_simulation`` (or one client with
``rmq_rebalance``), provokes the scenario the way it happens in production, and
checks the harm it does with exact times and offsets.
"""

import pytest

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.processqueue.message_flow import MessageFlow

A, B, C = "192.168.0.1@1000", "192.168.0.2@1001", "192.168.0.3@1002"
FROM_FIRST = "CONSUME_FROM_FIRST_OFFSET"


def avg():
    return reference_strategy("AVG")


def queue(broker: str, queue_id: int) -> MessageQueue:
    return MessageQueue("TopicTest", broker, queue_id)


SLOW = queue("broker-b", 1)  # its listener spends 30 s on offset 10 (taken at about 2.2 s)


def busy_listener_group(rmq_group_simulation, version):
    """One orderly client A on 4 queues, a message every 200 ms on each; the listener takes
    50 ms, except 30 s on offset 10 of ``SLOW``."""
    flow = MessageFlow(
        produce_interval=200,
        consume_time=lambda mq, offset: 30000 if (mq, offset) == (SLOW, 10) else 50,
        consume_from_where=FROM_FIRST,
    )
    return rmq_group_simulation(avg, queues=4, clients=[A], orderly=True, version=version, flow=flow)


# -- two owners at once ---------------------------------------------------------------


@pytest.mark.parametrize("version", ["4.9.8", "5.3.3"])
def test_two_owners_until_a_client_that_missed_the_notification_rebalances(rmq_group_simulation, version):
    sim = rmq_group_simulation(avg, queues=8, clients=[A, B], notify_delay={A: None}, version=version)
    sim.advance(5000)
    sim.join(C)
    assert sim.settle() == 15000  # A's periodic run, 20 s after it started
    # AVG over a0..a3 b0..b3: A held a0..a3; with C, B takes a3 at once while A keeps it until 20 s
    overlaps = sim.overlaps()
    assert [(o.mq, o.start, o.end, set(o.clients)) for o in overlaps] == [(queue("broker-a", 3), 5000, 20000, {A, B})]


def test_no_two_owners_when_every_client_hears_of_the_change_at_once(rmq_group_simulation):
    sim = rmq_group_simulation(avg, queues=8, clients=[A, B], notify_delay=0)
    sim.advance(5000)
    sim.join(C)
    assert sim.settle() == 0
    assert sim.overlaps() == [] and sim.gaps(since=1) == []


def test_forced_unlock_lets_a_second_orderly_owner_consume_beside_a_running_listener(rmq_group_simulation):
    """5.3.3: a removal refused while a listener runs is forced 20 s after the last lock;
    the new owner then consumes while the old listener is still busy."""
    sim = busy_listener_group(rmq_group_simulation, "5.3.3")
    sim.advance(4100)
    sim.join(B)
    sim.advance(60000)
    pairs = sim.parallel_consumption()
    assert pairs, "the new owner should have consumed while A's listener still ran"
    assert {(a.client, b.client) for a, b in pairs} == {(A, B)}
    for old, new in pairs:
        assert (old.mq, old.offset) == (SLOW, 10) and old.end - old.start == 30000
        assert old.start < new.start < old.end


def test_4_9_keeps_the_busy_queue_as_a_zombie_so_no_second_orderly_owner(rmq_group_simulation):
    sim = busy_listener_group(rmq_group_simulation, "4.9.8")
    sim.advance(4100)
    sim.join(B)
    sim.advance(25000)  # A's lock_all at 21 s renewed the zombie's broker lock
    assert sim.client(A).process_queue_table[SLOW].dropped
    assert sim.broker.locks.holder("group", SLOW) == A
    assert SLOW not in sim.client(B).process_queue_table
    sim.advance(35000)
    assert sim.parallel_consumption() == []


# -- duplicate consumption ------------------------------------------------------------------


def test_a_slow_message_makes_the_new_owner_consume_everything_after_it_again(rmq_group_simulation):
    """The commit offset is the lowest message still in flight: the queue moves, the new owner
    starts there and consumes again what the old owner already handled."""
    moved = queue("broker-b", 0)
    flow = MessageFlow(
        produce_interval=500,
        consume_time=lambda mq, offset: 15000 if (mq, offset) == (moved, 3) else 50,
        consume_from_where=FROM_FIRST,
    )
    sim = rmq_group_simulation(avg, queues=4, clients=[A], flow=flow)
    sim.advance(10000)
    sim.join(B)  # AVG: b0 and b1 go to B
    sim.advance(30000)
    duplicates = sim.duplicates()
    assert {mq for mq, _ in duplicates} == {moved}
    # every message A handled from the slow one on comes back to B; none before it
    handled_by_a = sorted(c.offset for c in sim.consumed if c.client == A and c.mq == moved and c.offset >= 3)
    assert sorted(offset for _, offset in duplicates) == handled_by_a
    assert len(handled_by_a) >= 10
    for found in duplicates.values():
        assert sorted(c.client for c in found) == [A, B]


def test_a_crash_loses_the_offsets_consumed_since_the_last_persist(rmq_group_simulation):
    flow = MessageFlow(produce_interval=1000, consume_time=10, consume_from_where=FROM_FIRST)
    sim = rmq_group_simulation(avg, queues=4, clients=[A, B], flow=flow)
    sim.advance(13500)  # offsets persisted every 5 s from 10 s on: last at 10 s
    sim.crash(A)
    sim.advance(10000)
    duplicates = sim.duplicates()
    assert {mq for mq, _ in duplicates} == {queue("broker-a", 0), queue("broker-a", 1)}  # A's share
    for found in duplicates.values():
        first, again = found
        assert (first.client, again.client) == (A, B)
        assert first.start >= 10000, "only what A consumed after its last persist comes back"


def test_an_orderly_message_finishing_after_the_drop_is_not_committed(rmq_group_simulation):
    flow = MessageFlow(produce_interval=100, consume_time=300, consume_from_where=FROM_FIRST)
    sim = rmq_group_simulation(avg, queues=4, clients=[A], orderly=True, version="5.3.3", flow=flow)
    sim.advance(10000)
    sim.join(B)
    sim.advance(5000)
    duplicates = sim.duplicates()
    assert len(duplicates) == 2  # the message in A's listener on each queue that moved
    assert all([c.client for c in found] == [A, B] for found in duplicates.values())


# -- stalls behind the old owner's lock ------------------------------------------------------------


@pytest.mark.parametrize("version, stall", [("4.9.8", 40000), ("5.3.3", 1000)])
def test_a_new_orderly_owner_waits_for_the_old_owners_unlock(rmq_group_simulation, version, stall):
    """4.9.8 delays the unlock 20 s when messages are cached (and the new owner, refused, tries
    again only at its next periodic run); 5.3.3 unlocks at once and retries after 1 s."""
    flow = MessageFlow(produce_interval=100, consume_time=300, consume_from_where=FROM_FIRST)
    sim = rmq_group_simulation(avg, queues=4, clients=[A], orderly=True, version=version, flow=flow)
    sim.advance(10000)
    sim.join(B)
    sim.advance(60000)
    gaps = sim.gaps(since=10000)
    assert {g.mq for g in gaps} == {queue("broker-b", 0), queue("broker-b", 1)}
    assert {g.end - g.start for g in gaps} == {stall}


def test_a_crashed_orderly_owner_blocks_its_queues_until_the_broker_lock_expires(rmq_group_simulation):
    flow = MessageFlow(produce_interval=500, consume_time=50)
    sim = rmq_group_simulation(avg, queues=4, clients=[A, B], orderly=True, flow=flow)
    sim.advance(10000)
    sim.crash(A)  # its locks were last renewed at 1 s
    sim.advance(90000)
    gaps = sim.gaps(since=10000)
    assert {g.mq for g in gaps} == {queue("broker-a", 0), queue("broker-a", 1)}
    # the broker frees the lock 60 s after the last renewal (strictly after 61 s); B retries every second
    assert {(g.start, g.end) for g in gaps} == {(10000, 62000)}


# -- zombies ------------------------------------------------------------------------------------------


def test_a_zombie_blocks_its_queue_when_it_comes_back_until_pull_expiry(rmq_group_simulation):
    """4.9.8 orderly: the queue moves away while a listener holds the consume lock, so removal
    fails and a dropped ProcessQueue stays; the queue comes back and nobody consumes it until
    the zombie is pull-expired (120 s after its last pull) and replaced."""
    sim = busy_listener_group(rmq_group_simulation, "4.9.8")
    sim.advance(4100)
    sim.join(B)
    sim.advance(2000)
    zombie = sim.client(A).process_queue_table[SLOW]
    assert zombie.dropped and zombie.try_unlock_times == 1
    sim.leave(B)
    sim.advance(200000)
    (gap,) = [g for g in sim.gaps(since=4100) if g.mq == SLOW]
    assert (gap.start, gap.end) == (4100, 126100)
    assert sim.client(A).process_queue_table[SLOW] is not zombie


def test_a_lite_pull_zombie_after_the_route_vanished_never_expires(rmq_rebalance, rmq_clock):
    """5.3.3: a missing route clears the assigned queues (dropping their shared ProcessQueues)
    but not the table; when the route returns the dropped queue blocks the add step for good."""
    mqs = [queue("broker-a", i) for i in range(2)]
    impl = rmq_rebalance("lite-pull", version="5.3.3")
    impl.broker.register("group", impl.client_id)
    impl.subscribe("TopicTest", mqs)
    impl.do_rebalance()
    before = dict(impl.process_queue_table)
    impl.update_topic_route("TopicTest", None)
    impl.do_rebalance()
    impl.update_topic_route("TopicTest", mqs)
    for _ in range(60):
        rmq_clock.advance(20000)
        impl.do_rebalance()
    assert impl.process_queue_table == before
    assert all(pq.dropped for pq in impl.process_queue_table.values())


# -- orderly consumption needs a live lock ------------------------------------------------------------


def test_orderly_consumption_stops_once_the_lock_is_30_s_old(rmq_group_simulation):
    """The lock renewal (every 20 s) fails while the broker is unreachable; the listener runs
    only while ``locked`` and not older than 30 s, then the queue waits."""
    flow = MessageFlow(produce_interval=100, consume_time=10, consume_from_where=FROM_FIRST)
    sim = rmq_group_simulation(avg, queues=[queue("broker-a", 0)], clients=[A], orderly=True, flow=flow)
    sim.advance(2000)
    pq = sim.client(A).process_queue_table[queue("broker-a", 0)]
    assert pq.last_lock_timestamp == 1000  # the first lock_all
    sim.broker.fail_locks("broker-a")  # renewals fail; pulls go on
    sim.advance(60000)
    last = max(c.start for c in sim.consumed)
    assert 30000 < last <= 1000 + 30000, "consumption must go on under the lock and stop once it is older than 30 s"
    assert not pq.dropped and pq.is_lock_expired() and pq.msg_count > 0


def test_a_crashed_4_9_owner_blocks_its_moved_queue_until_the_broker_lock_expires(rmq_group_simulation):
    """The unlock 4.9.8 delays by 20 s never comes from a process that died meanwhile."""
    flow = MessageFlow(produce_interval=100, consume_time=300, consume_from_where=FROM_FIRST)
    sim = rmq_group_simulation(avg, queues=2, clients=[A], orderly=True, version="4.9.8", flow=flow)
    sim.advance(10000)
    sim.join(B)  # b0 moves to B; A's unlock of it is due at 30 s
    sim.advance(5000)
    sim.crash(A)
    sim.advance(120000)
    (gap,) = [g for g in sim.gaps(since=10000) if g.mq == queue("broker-b", 0)]
    # A's lock was last renewed at 1 s, so the broker frees it after 61 s; B rebalanced when told
    # of the crash (15 s), then every 20 s (4.9.8 does not retry sooner): 35, 55, 75 s
    assert (gap.start, gap.end) == (10000, 75000)
