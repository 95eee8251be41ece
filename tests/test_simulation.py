"""GroupSimulation's own behaviour: schedules, records and bad input."""

import time

import pytest

from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.engine.running.timeouts import CallTimeout
from pytest_rmq_conformance.kinds.allocation.calls import TimedStrategy
from pytest_rmq_conformance.processqueue import GroupSimulation

A, B, C = "192.168.0.1@1000", "192.168.0.2@1001", "192.168.0.3@1002"


def avg():
    return reference_strategy("AVG")


def test_a_phase_moves_a_clients_periodic_run():
    sim = GroupSimulation(avg, queues=8, clients=[A, B], notify_delay={A: None}, phases={A: 7000})
    sim.advance(5000)
    sim.join(C)
    sim.advance(30000)
    (overlap,) = sim.overlaps()
    assert (overlap.start, overlap.end) == (5000, 27000)


def test_a_late_notification_delays_the_clients_rebalance():
    sim = GroupSimulation(avg, queues=8, clients=[A, B], notify_delay={A: 2500})
    sim.advance(5000)
    sim.join(C)
    sim.advance(30000)
    assert [(o.start, o.end) for o in sim.overlaps()] == [(5000, 7500)]


def test_a_crash_the_broker_notices_late_leaves_its_queues_unowned_until_then():
    sim = GroupSimulation(avg, queues=8, clients=[A, B])
    sim.advance(5000)
    sim.crash(A, detected_after=120000)
    sim.advance(200000)
    gaps = sim.gaps()
    assert len(gaps) == 4 and {(g.start, g.end) for g in gaps} == {(5000, 125000)}


def test_ownership_created_dropped_and_churn_per_client():
    sim = GroupSimulation(avg, queues=4, clients=[A, B])
    sim.advance(1000)
    sim.leave(B)
    assert sim.churn(since=1000) == sim.churn(since=1000, client=A) == 2
    assert [(at, cid) for at, cid, _ in sim.dropped] == [(1000, B), (1000, B)]
    spans = {mq.queue_id: [(o.client, o.start, o.end) for o in owned] for mq, owned in sim.ownership.items() if mq.broker_name == "broker-b"}
    assert spans == {0: [(B, 0, 1000), (A, 1000, None)], 1: [(B, 0, 1000), (A, 1000, None)]}
    assert sim.assignment() == {A: tuple(sim.mq_all)}


def test_a_joiner_gets_the_next_free_id_and_a_crashed_client_may_come_back():
    sim = GroupSimulation(avg, queues=4, clients=2)
    sim.advance(5000)  # 5.3.3 keeps 1 s between two runs of a client's rebalance
    newcomer = sim.join()
    assert newcomer not in sim.clients[:2] and len(sim.clients) == 3
    sim.advance(5000)
    sim.crash(newcomer)
    sim.advance(5000)
    sim.join(newcomer)  # a new process with the same id
    assert sim.settle() == 0 and newcomer in sim.clients


def test_bad_requests_say_what_is_wrong():
    sim = GroupSimulation(avg, queues=4, clients=[A, B])
    with pytest.raises(ValueError, match="already running"):
        sim.join(A)
    with pytest.raises(KeyError, match="no client 'nobody'"):
        sim.leave("nobody")
    sim.leave(B)
    with pytest.raises(ValueError, match="is not running"):
        sim.crash(B)
    with pytest.raises(ValueError, match="consumer must be one of"):
        GroupSimulation(avg, consumer="poll")
    with pytest.raises(ValueError, match="client ids must be distinct"):
        GroupSimulation(avg, clients=[A, A])
    with pytest.raises(TypeError, match="a strategy, a class or a factory"):
        GroupSimulation(42)


class Raises:
    name = "RAISES"

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if len(cid_all) > 2:
            raise RuntimeError("three is a crowd")
        return reference_strategy("AVG").allocate(consumer_group, current_cid, mq_all, cid_all)


def test_a_strategy_that_raises_leaves_the_table_alone_and_5_3_retries_every_second():
    sim = GroupSimulation(Raises, queues=4, clients=[A, B])
    sim.advance(1000)
    before = sim.assignment()
    sim.join(C)
    sim.advance(3000)
    assert sim.assignment()[A] == before[A] and sim.assignment()[C] == ()
    errors = sim.client(A).allocate_errors
    assert [at for at, _, _ in errors] == [1000, 2000, 3000, 4000]
    assert all(isinstance(exc, RuntimeError) for _, _, exc in errors)


class Hangs:
    name = "HANGS"

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        while True:
            time.sleep(0.01)


def test_a_strategy_that_hangs_is_cut_off():
    with pytest.raises(CallTimeout):  # the strategy never returns: only its limit ends the call
        GroupSimulation(lambda: TimedStrategy(Hangs(), 0.2), queues=2, clients=[A])


@pytest.mark.parametrize("version, settles_after", [("4.9.8", 0), ("5.3.3", 800)])
def test_5_3_keeps_a_second_between_two_rebalances_of_a_client(version, settles_after):
    sim = GroupSimulation(avg, queues=4, clients=[A, B], version=version)
    sim.advance(200)  # 200 ms after everyone's first rebalance
    sim.join(C)
    assert sim.settle(step=100) == settles_after
