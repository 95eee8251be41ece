"""A GroupSimulation always moves simulated time forward: zero intervals make a client retry
every millisecond instead of spinning at one instant, and settings that would spin are refused."""

import pytest

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.processqueue import ClientConfig, GroupSimulation, MessageFlow

A, B, C = "192.168.0.1@1000", "192.168.0.2@1001", "192.168.0.3@1002"
NO_MIN_INTERVAL = ClientConfig.from_properties({"rocketmq.client.rebalance.minInterval": "0"})


def avg():
    return reference_strategy("AVG")


def test_an_orderly_crash_with_no_minimum_interval_retries_every_millisecond():
    """5.3.3: B cannot lock the crashed A's queues until the broker frees them (strictly after
    60 s from A's last renewal at 1 s) and stays unbalanced meanwhile; with ``minInterval=0``
    it tries again every millisecond (a run takes at least 1 ms), so it gets them at 61001 ms
    (62000 ms with the default 1 s)."""
    sim = GroupSimulation(avg, queues=4, clients=[A, B], orderly=True, version="5.3.3", config=NO_MIN_INTERVAL)
    sim.advance(10000)
    sim.crash(A)
    assert sim.settle() == 52000  # checked every second: 62 s on the clock
    gaps = sim.gaps(since=10000)
    assert {g.mq for g in gaps} == {MessageQueue("TopicTest", "broker-a", i) for i in range(2)}
    assert {(g.start, g.end) for g in gaps} == {(10000, 61001)}
    assert sim.advance(38000) == 100000 and sim.problems() == []


def test_a_4_9_client_with_no_wait_interval_rebalances_every_millisecond():
    """A never hears of C's join, but its next periodic run is 1 ms later."""
    config = ClientConfig().with_(rebalance_wait_interval=0)
    sim = GroupSimulation(avg, queues=8, clients=[A, B], version="4.9.8", notify_delay={A: None}, config=config)
    sim.advance(5000)
    sim.join(C)
    assert sim.advance(1000) == 6000
    assert [(o.start, o.end) for o in sim.overlaps()] == [(5000, 5001)]
    assert (6001, f"{A}: rebalance") in sim.timers.pending()


@pytest.mark.parametrize(
    "keywords, message",
    [
        ({"orderly": True, "config": ClientConfig().with_(rebalance_lock_interval=0)}, "lock_all every 0 ms"),
        ({"config": ClientConfig().with_(persist_consumer_offset_interval=0)}, "persist_all every 0 ms"),
    ],
)
def test_a_fixed_rate_task_needs_a_positive_period(keywords, message):
    """Java's ``scheduleAtFixedRate`` refuses such a period too."""
    with pytest.raises(ValueError, match=message):
        GroupSimulation(avg, queues=2, clients=[A], **keywords)


@pytest.mark.parametrize("name", ["produce_interval", "poll_interval"])
def test_a_message_flow_refuses_intervals_that_would_repeat_at_one_instant(name):
    with pytest.raises(ValueError, match=f"{name} must be at least 1 ms, not 0"):
        MessageFlow(**{name: 0})


def test_settle_needs_a_step_that_moves_time():
    sim = GroupSimulation(avg, queues=2, clients=[A])
    with pytest.raises(ValueError, match="at least 1"):
        sim.settle(step=0)
