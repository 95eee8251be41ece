"""The fixtures of consumer allocation (registered by the plugin): hypothesis strategies of
groups drawn for the strategy under test, and the models of what a group does while it
rebalances, on a manual clock (``rmq_clock``, which the producer fixtures share).

Every fixture is session-scoped and hands out fresh objects, so it is safe
inside ``@given``: :func:`rmq_clock` goes back to its start at every new test
and every new hypothesis example, and the factories build new models on
each call.

The plugin imports this module in every pytest run, so it imports the models
only inside the fixtures.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_rmq_conformance.model import MessageQueue
    from pytest_rmq_conformance.processqueue.clock import ExampleClock
    from pytest_rmq_conformance.processqueue.config import ClientConfig
    from pytest_rmq_conformance.processqueue.group import GroupSimulation
    from pytest_rmq_conformance.processqueue.process_queue import ProcessQueue
    from pytest_rmq_conformance.processqueue.rebalance import RebalanceImpl

__all__ = [
    "rmq_groups",
    "rmq_client_version",
    "rmq_clock",
    "rmq_process_queue",
    "rmq_rebalance",
    "rmq_group_simulation",
]


@pytest.fixture(scope="session")
def rmq_groups(rmq_conformance):
    """Hypothesis strategies of consumer groups configured for the strategy under test.

    ``rmq_groups.scenarios(adversarial=False)`` draws a
    :class:`~pytest_rmq_conformance.kinds.allocation.scenarios.Scenario`, ``rmq_groups.plans()``
    a group with joins, leaves and crashes; build the strategy for one with
    ``rmq_conformance.build_for(scenario)``. Example::

        from hypothesis import given
        from pytest_rmq_conformance import assign

        def test_every_client_gets_something(rmq_groups, rmq_conformance):
            @given(rmq_groups.scenarios())
            def check(scenario):
                shares, problems = assign(rmq_conformance.build_for, scenario, timeout=5)
                if len(scenario.mq_all) >= len(scenario.clients):
                    assert all(shares.values()), shares

            check()
    """
    from pytest_rmq_conformance.kinds.allocation.draws import Groups

    return Groups(rmq_conformance)


@pytest.fixture(scope="session")
def rmq_client_version(rmq_conformance) -> str:
    """The Java client release the models follow ``--rmq-reference-version`` as: 4.9.8, 5.3.3 or
    5.5.0 (4.7.1 as 4.9.8, 5.4.0 as 5.3.3). A test that asks for it is skipped at a release the
    models do not follow."""
    from pytest_rmq_conformance.processqueue.config import client_version

    try:
        return client_version(rmq_conformance.settings.version)
    except ValueError as exc:
        pytest.skip(f"the rebalance and ProcessQueue models do not follow RocketMQ {rmq_conformance.settings.version}: {exc}")


@pytest.fixture(scope="session")
def rmq_clock() -> ExampleClock:
    """A manual clock in milliseconds, back at 0 for every test and every hypothesis example.

    Example::

        def test_pull_expiry(rmq_clock, rmq_process_queue):
            pq = rmq_process_queue()
            rmq_clock.advance(120000)
            assert not pq.is_pull_expired()
            rmq_clock.advance(1)
            assert pq.is_pull_expired()
    """
    from pytest_rmq_conformance.processqueue.clock import ExampleClock

    return ExampleClock()


@pytest.fixture(scope="session")
def rmq_process_queue(rmq_clock, rmq_client_version):
    """A factory of :class:`~pytest_rmq_conformance.processqueue.ProcessQueue`, on ``rmq_clock``
    and the selected client release unless told otherwise (``clock=``, ``version=``, ``config=``).

    Example::

        from pytest_rmq_conformance import Message

        def test_commit_offset_is_the_lowest_in_flight(rmq_process_queue):
            pq = rmq_process_queue(version="4.9.8")
            msgs = [Message(offset, b"x") for offset in range(3)]
            pq.put_message(msgs)
            assert pq.remove_message([msgs[1]]) == 0
    """
    from pytest_rmq_conformance.processqueue.config import ClientConfig
    from pytest_rmq_conformance.processqueue.process_queue import ProcessQueue

    def make(clock=None, version: str | None = None, config: ClientConfig | None = None) -> ProcessQueue:
        return ProcessQueue(clock or rmq_clock, config or ClientConfig(), version or rmq_client_version)

    return make


@pytest.fixture(scope="session")
def rmq_rebalance(rmq_clock, rmq_client_version):
    """A factory of one client's rebalance model (``RebalancePushImpl`` and friends): ``kind``
    ``"push"`` (default), ``"pull"`` or ``"lite-pull"``, a ``strategy`` (default the reference
    AVG), and the constructor's keywords (``consume_orderly``, ``message_model``, ``version``,
    ``config``, ...). It gets a new :class:`Broker` on ``rmq_clock`` unless given ``broker=``
    (share one between clients), is registered there as a member of the group (unless
    ``register=False``), and has its own ``timers`` (run them with ``impl.timers.advance(ms)``,
    which also moves the clock).

    Example::

        from pytest_rmq_conformance import MessageQueue

        def test_orderly_add_needs_the_lock(rmq_rebalance):
            queues = [MessageQueue("T", "broker-a", i) for i in range(2)]
            first = rmq_rebalance(client_id="c1", consume_orderly=True)
            first.broker.lock_batch_mq("group", "someone-else", queues[:1])
            first.subscribe("T", queues)
            first.do_rebalance()
            assert set(first.process_queue_table) == set(queues[1:])
    """
    from pytest_rmq_conformance.processqueue.broker import Broker
    from pytest_rmq_conformance.processqueue.clock import Timers
    from pytest_rmq_conformance.processqueue.config import ClientConfig
    from pytest_rmq_conformance.processqueue.rebalance import REBALANCE_KINDS

    def make(
        kind: str = "push",
        *,
        strategy: Any = None,
        client_id: str = "192.168.0.1@1000",
        consumer_group: str = "group",
        broker: Any = None,
        register: bool = True,
        **keywords: Any,
    ) -> RebalanceImpl:
        if kind not in REBALANCE_KINDS:
            raise ValueError(f"kind must be one of {', '.join(REBALANCE_KINDS)}, not {kind!r}")
        if strategy is None:
            from pytest_rmq_conformance.engine.kinds import reference_strategy

            strategy = reference_strategy("AVG")
        config = keywords.get("config", ClientConfig())
        broker = broker if broker is not None else Broker(rmq_clock, config)
        keywords.setdefault("version", rmq_client_version)
        clock = keywords.pop("clock", None) or broker.clock
        keywords.setdefault("timers", Timers(clock))
        impl = REBALANCE_KINDS[kind](consumer_group, client_id, strategy, broker, clock=clock, **keywords)
        if register:
            broker.register(consumer_group, client_id)
        return impl

    return make


@pytest.fixture(scope="session")
def rmq_group_simulation(rmq_conformance, rmq_client_version):
    """A factory of :class:`~pytest_rmq_conformance.processqueue.GroupSimulation` running the
    ``--rmq-strategy`` strategy (one instance per client, configured for the group with
    ``params=`` in the golden files' vocabulary, or a default for its Java family), or any
    ``strategy=`` (a class, a zero-argument factory, or a shared instance). Other keywords go to
    :class:`GroupSimulation` (``queues``, ``clients``, ``orderly``, ``notify_delay``, ``flow``…).

    Example::

        def test_a_leave_moves_few_queues(rmq_group_simulation):
            sim = rmq_group_simulation(queues=24, clients=4)
            sim.advance(5000)
            since = sim.now()
            sim.leave(sim.clients[1])
            assert sim.settle() is not None      # one owner per queue again
            print("queues moved:", sim.churn(since=since))
    """
    from pytest_rmq_conformance.kinds.allocation.calls import TimedStrategy
    from pytest_rmq_conformance.kinds.allocation.layouts import broker_names, needs_rooms
    from pytest_rmq_conformance.kinds.allocation.scenarios import Scenario, default_params
    from pytest_rmq_conformance.processqueue.group import GroupSimulation, default_clients, default_queues

    def make(
        strategy: Any = None,
        *,
        queues: int | Sequence[MessageQueue] = 24,
        clients: int | Sequence[str] = 4,
        params: dict[str, Any] | None = None,
        consumer_group: str = "group",
        **keywords: Any,
    ) -> GroupSimulation:
        keywords.setdefault("version", rmq_client_version)
        if strategy is None:
            conformance = rmq_conformance
            problem = getattr(conformance, "load_error", None)  # kept by today's implementation only
            if problem is not None:
                pytest.fail(f"the strategy under test could not be loaded: {problem}", pytrace=False)
            family = conformance.family
            if isinstance(queues, int):
                queues = default_queues(queues, brokers=broker_names(2, rooms=needs_rooms(family)))
            members = default_clients(clients) if isinstance(clients, int) else list(clients)
            scenario = Scenario(
                family,
                params if params is not None else default_params(family, queues),
                consumer_group,
                tuple(queues),
                tuple(members),
            )
            timeout = conformance.settings.timeout
            strategy = lambda: TimedStrategy(conformance.build_for(scenario), timeout)
            clients = members
        return GroupSimulation(strategy, queues=queues, clients=clients, consumer_group=consumer_group, **keywords)

    return make
