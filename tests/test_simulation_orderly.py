"""The group simulation's orderly consumers follow the one orderly consume loop of
``processqueue.consume`` (:class:`OrderlyLoop`), with the listener's time on the timers."""

import itertools

import pytest

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.processqueue import ClientConfig, GroupSimulation, MessageFlow, consume

A = "192.168.0.1@1000"
MQ = MessageQueue("TopicTest", "broker-a", 0)


def busy_queue(max_time_consume_continuously=5000):
    """One orderly client on one queue that always has a backlog: a message every 100 ms, 1 s
    of listener per message, from 500 ms on (5.3.3 dispatches pulls after 500 ms)."""
    flow = MessageFlow(produce_interval=100, consume_time=1000, consume_from_where="CONSUME_FROM_FIRST_OFFSET")
    config = ClientConfig().with_(max_time_consume_continuously=max_time_consume_continuously)
    sim = GroupSimulation(lambda: reference_strategy("AVG"), queues=[MQ], clients=[A], orderly=True, flow=flow, config=config)
    sim.advance(20000)
    starts = [c.start for c in sim.consumed]
    return [b - a for a, b in itertools.pairwise(starts)]


def test_the_loop_yields_after_max_time_consume_continuously_and_resubmits_in_10_ms():
    # six batches: the check after the sixth sees 6000 > 5000 ms, and the request runs again 10 ms later
    assert busy_queue() == ([1000] * 5 + [1010]) * 3


def test_the_simulation_takes_the_delays_from_the_consume_module(monkeypatch):
    monkeypatch.setattr(consume, "RESUBMIT_AFTER_CONTINUOUS", 250)
    assert busy_queue()[:6] == [1000] * 5 + [1250]


@pytest.mark.parametrize("version, stopped", [("4.9.8", 32000), ("5.3.3", 31500)])
def test_a_lock_lost_inside_the_loop_is_tried_again_after_10_ms_then_on_entry_after_100_ms(monkeypatch, version, stopped):
    """The broker refuses every lock from 2 s on, so the lock granted at 1 s expires after 31 s:
    the loop stops at its first turn after that and tries to lock 10 ms later; refused, the
    request runs again after 3 s, finds no live lock and tries 100 ms later, and so on."""
    flow = MessageFlow(produce_interval=100, consume_time=1000, consume_from_where="CONSUME_FROM_FIRST_OFFSET")
    sim = GroupSimulation(lambda: reference_strategy("AVG"), queues=[MQ], clients=[A], orderly=True, flow=flow, version=version)
    impl, attempts = sim.client(A), []
    lock = impl.lock
    monkeypatch.setattr(impl, "lock", lambda mq: attempts.append(sim.now()) or lock(mq))
    sim.advance(2000)
    sim.broker.fail_locks("broker-a")
    sim.advance(45000)
    assert max(c.end for c in sim.consumed) == stopped
    assert attempts == [stopped + 10 + i * 3100 for i in range(5)]
