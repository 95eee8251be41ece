"""A consumer group over time: its membership (clients that start, leave and crash, as the
broker sees them) and each client's schedule (the rebalance service, lock renewal, offset
persistence) on one set of timers.

Every client runs a :class:`~pytest_rmq_conformance.processqueue.RebalancePushImpl`
(or a pull / lite-pull one) with its own instance of the strategy, against one
shared :class:`~pytest_rmq_conformance.processqueue.Broker`. A client rebalances
when it starts, every 20 s (5.3.3: after 1 s while unbalanced), and when the
broker tells it the group changed (after its ``notify_delay``; ``None`` loses the
notification). Orderly clients renew their locks every 20 s. What each client
held when is kept in an :class:`~pytest_rmq_conformance.processqueue.ownership.OwnershipLedger`;
with a :class:`~pytest_rmq_conformance.processqueue.MessageFlow`, messages move too.

    >>> from pytest_rmq_conformance.engine.kinds import reference_strategy
    >>> sim = GroupSimulation(lambda: reference_strategy("AVG"), queues=4, clients=2)
    >>> sim.join()
    '192.168.0.3@1002'
    >>> sim.settle(step=100)  # the others ran at 0, and 5.3.3 keeps 1 s between two runs
    1000
    >>> sorted(len(held) for held in sim.assignment().values())
    [1, 1, 2]

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues
from pytest_rmq_conformance.processqueue.broker import Broker
from pytest_rmq_conformance.processqueue.clock import ManualClock, Timers
from pytest_rmq_conformance.processqueue.config import ClientConfig, client_version
from pytest_rmq_conformance.processqueue.member import Member
from pytest_rmq_conformance.processqueue.message_flow import (
    Consumption,
    MessageFlow,
    Traffic,
    duplicates,
    parallel_consumption,
)
from pytest_rmq_conformance.processqueue.offset_store import CONSUME_FROM_LAST_OFFSET
from pytest_rmq_conformance.processqueue.ownership import Gap, Overlap, Ownership, OwnershipLedger
from pytest_rmq_conformance.processqueue.rebalance import CLUSTERING, REBALANCE_KINDS, PullRequest, RebalanceImpl

__all__ = ["GroupSimulation", "Member", "default_queues", "default_clients", "RUN_TIME"]

#: ms a run of the rebalance service takes at least: Java's thread spends time in its RPCs, so
#: even with a zero interval (``rebalance_min_interval=0`` while unbalanced) it never runs
#: twice at one instant, and simulated time moves on
RUN_TIME = 1


def default_queues(count: int, topic: str = "TopicTest", brokers: Sequence[str] = ("broker-a", "broker-b")) -> list[MessageQueue]:
    """``count`` queues spread over ``brokers`` (ids 0, 1, … per broker), in Java order."""
    return java_sorted_queues(MessageQueue(topic, brokers[i % len(brokers)], i // len(brokers)) for i in range(count))


def default_clients(count: int) -> list[str]:
    """Client ids shaped like Java's ``IP@pid``."""
    return [f"192.168.0.{i + 1}@{1000 + i}" for i in range(count)]


class GroupSimulation:
    """``strategy``: a class or a zero-argument factory (one instance per client), or an object
    with ``allocate`` shared by every client.

    ``queues``/``clients``: counts or the very queues / client ids; ``consumer``: ``"push"``,
    ``"pull"`` or ``"lite-pull"``; ``orderly``: an orderly push consumer; ``notify_delay``: ms
    from a membership change to each client's rebalance (a number, or per client; ``None``
    loses the notification); ``phases``: per client, ms added to its first periodic run;
    ``flow``: a :class:`MessageFlow` to move messages (off by default: ownership only).
    """

    def __init__(
        self,
        strategy: Any,
        *,
        queues: int | Sequence[MessageQueue] = 24,
        clients: int | Sequence[str] = 4,
        consumer_group: str = "group",
        version: str = "5.3.3",
        config: ClientConfig = ClientConfig(),
        consumer: str = "push",
        orderly: bool = False,
        message_model: str = CLUSTERING,
        notify_delay: int | Mapping[str, int | None] | None = 0,
        phases: Mapping[str, int] | None = None,
        flow: MessageFlow | None = None,
        clock: ManualClock | None = None,
    ):
        if consumer not in REBALANCE_KINDS:
            raise ValueError(f"consumer must be one of {', '.join(REBALANCE_KINDS)}, not {consumer!r}")
        if orderly and consumer != "push":
            raise ValueError("only a push consumer consumes orderly")
        self.make_strategy = _strategy_maker(strategy)
        self.mq_all: tuple[MessageQueue, ...] = tuple(default_queues(queues) if isinstance(queues, int) else queues)
        initial = default_clients(clients) if isinstance(clients, int) else list(clients)
        if len(set(initial)) != len(initial):
            raise ValueError("client ids must be distinct")
        self.topics = sorted({mq.topic for mq in self.mq_all})
        self.consumer_group = consumer_group
        self.version = client_version(version)
        self.config = config
        self.consumer = consumer
        self.orderly = orderly
        self.message_model = message_model
        self.notify_delay = notify_delay
        self.phases = dict(phases or {})
        self.flow = flow
        self.clock = clock if clock is not None else ManualClock()
        self.timers = Timers(self.clock)
        self.broker = Broker(self.clock, config)
        self.log: list[str] = []
        self.ledger = OwnershipLedger(self.mq_all, self.clock, self._say)
        self.traffic = (
            Traffic(flow, self.mq_all, self.broker, self.timers, orderly=orderly, message_model=message_model) if flow is not None else None
        )
        self._members: dict[str, Member] = {}
        for cid in initial:
            self._start(cid, announce=False)
        if self.traffic is not None:
            self.traffic.start()
        for cid in initial:
            self._rebalance(cid)

    # -- who is in the group ---------------------------------------------------

    @property
    def clients(self) -> list[str]:
        """Running clients, in the order they started."""
        return [cid for cid, m in self._members.items() if m.alive]

    def client(self, client_id: str) -> RebalanceImpl:
        """The rebalance model of ``client_id`` (its ``process_queue_table`` and all)."""
        return self._get(client_id).impl

    def _get(self, client_id: str) -> Member:
        try:
            return self._members[client_id]
        except KeyError:
            raise KeyError(f"no client {client_id!r}; clients: {', '.join(self._members)}") from None

    def _live(self, client_id: str) -> Member:
        member = self._get(client_id)
        if not member.alive:
            raise ValueError(f"client {client_id!r} is not running")
        return member

    def _current(self, member: Member) -> bool:
        """Whether ``member`` is running and not replaced by a new process with its id."""
        return member.alive and self._members.get(member.client_id) is member

    def _say(self, who: str, what: str) -> None:
        self.log.append(f"{self.clock.now():>9} ms  {who}: {what}")

    def _observe(self, member: Member) -> None:
        self.ledger.observe(member.client_id, member.impl.process_queue_table, member.alive)

    # -- membership events ---------------------------------------------------------

    def join(self, client_id: str | None = None) -> str:
        """A new client starts (its id by default the next ``IP@pid``); returns its id."""
        if client_id is None:
            taken = set(self._members)
            client_id = next(c for c in default_clients(len(taken) + 1 + len(taken)) if c not in taken)
        if client_id in self._members and self._members[client_id].alive:
            raise ValueError(f"client {client_id!r} is already running")
        self._start(client_id, announce=True)
        self._rebalance(client_id)
        self.timers.run_due()  # clients told without delay rebalance at this very moment
        return client_id

    def leave(self, client_id: str) -> None:
        """Graceful shutdown: orderly locks released, offsets persisted, unregistered, queues dropped."""
        member = self._live(client_id)
        impl = member.impl
        if self.orderly and self.message_model == CLUSTERING:
            impl.unlock_all()
        impl.offset_store.persist_all(list(impl.process_queue_table))
        self.broker.unregister(self.consumer_group, client_id)
        impl.destroy()
        impl.running = member.alive = False
        self._observe(member)
        self._say(client_id, "left")
        self._notify_all()
        self.timers.run_due()

    def crash(self, client_id: str, detected_after: int = 0) -> None:
        """The process dies: nothing persisted or unlocked. The broker notices after
        ``detected_after`` ms (0: the connection closed with it; 120000: a host that vanished)."""
        member = self._live(client_id)
        member.impl.running = member.alive = False
        for pq in member.impl.process_queue_table.values():
            pq.consume_lock.release()
        self._observe(member)
        self._say(client_id, "crashed")

        def detected() -> None:
            self.broker.unregister(self.consumer_group, client_id)
            self._say("broker", f"{client_id} is gone")
            self._notify_all()

        self.timers.schedule(detected_after, detected, f"broker: detect that {client_id} is gone")
        self.timers.run_due()

    def stall_pulls(self, client_id: str, mq: MessageQueue) -> None:
        """``client_id``'s pull chain for ``mq`` stops (a lost pull request): the queue will
        become pull-expired after 120 s."""
        self._get(client_id).stalled.add(mq)

    def set_route(self, topic: str, queues: Sequence[MessageQueue] | None) -> None:
        """Every client's route for ``topic`` becomes ``queues`` (``None``: no route)."""
        for member in self._members.values():
            member.impl.update_topic_route(topic, None if queues is None else list(queues))

    def _start(self, client_id: str, announce: bool) -> None:
        kind = REBALANCE_KINDS[self.consumer]
        impl = kind(
            self.consumer_group,
            client_id,
            self.make_strategy(),
            self.broker,
            clock=self.clock,
            timers=self.timers,
            version=self.version,
            config=self.config,
            message_model=self.message_model,
            consume_orderly=self.orderly,
            consume_from_where=self.flow.consume_from_where if self.flow else CONSUME_FROM_LAST_OFFSET,
        )
        member = Member(client_id, impl)
        self._members[client_id] = member
        for topic in self.topics:
            impl.subscribe(topic, [mq for mq in self.mq_all if mq.topic == topic])
        impl.on_pull_requests = lambda requests, delay: self._pull_requests(member, requests, delay)
        self.broker.register(self.consumer_group, client_id)
        self._say(client_id, "started")
        if self.orderly and self.message_model == CLUSTERING:
            self._every(member, 1000, self.config.rebalance_lock_interval, impl.lock_all, "lock_all")
        interval = self.config.persist_consumer_offset_interval
        self._every(member, 10000, interval, lambda: impl.offset_store.persist_all(list(impl.process_queue_table)), "persist_all")
        if announce:
            self._notify_all(but=client_id)

    def _pull_requests(self, member: Member, requests: list[PullRequest], delay: int) -> None:
        if self.traffic is not None:  # without messages pulls only keep the timestamps fresh, which rebalances do here
            self.traffic.pull_requests(member, requests, delay)

    def _every(self, member: Member, first: int, period: int, action: Callable[[], None], what: str) -> None:
        """``scheduleAtFixedRate``, which refuses a period that is not positive."""
        if period < 1:
            raise ValueError(f"{what} every {period} ms: a fixed-rate task needs a positive period")
        label = f"{member.client_id}: {what}"

        def tick() -> None:
            if self._current(member):
                action()
                self._observe(member)
                self.timers.schedule(period, tick, label)

        self.timers.schedule(first, tick, label)

    def _notify_all(self, but: str | None = None) -> None:
        """The broker tells every member the group changed (NOTIFY_CONSUMER_IDS_CHANGED)."""
        for cid, member in self._members.items():
            if not member.alive or cid == but:
                continue
            delay = self.notify_delay.get(cid, 0) if isinstance(self.notify_delay, Mapping) else self.notify_delay
            if delay is not None:
                self._wake(member, delay)

    # -- rebalance service ------------------------------------------------------------

    def _wake(self, member: Member, delay: int) -> None:
        at = self.clock.now() + delay
        if self.version != "4.9.8" and member.last_run is not None:
            at = max(at, member.last_run + self.config.rebalance_min_interval)
        self._arm(member, at)

    def _arm(self, member: Member, at: int) -> None:
        if member.due is not None and member.due <= at:
            return
        member.due = at

        def run() -> None:
            if member.due == at and self._current(member):
                self._rebalance(member.client_id)

        self.timers.schedule(at - self.clock.now(), run, f"{member.client_id}: rebalance")

    def _rebalance(self, client_id: str) -> None:
        member = self._members[client_id]
        impl = member.impl
        member.due = None
        for mq, pq in impl.process_queue_table.items():  # pulls keep the timestamp fresh
            if self.flow is None and mq not in member.stalled and not pq.dropped and self.consumer == "push":
                pq.last_pull_timestamp = self.clock.now()
        balanced = impl.do_rebalance() if self.consumer == "push" else impl.do_rebalance(False)
        member.last_run = self.clock.now()
        self._observe(member)
        for delay in impl.rebalance_later_requests[member.seen_later :]:
            self._wake(member, delay)
        member.seen_later = len(impl.rebalance_later_requests)
        wait = self.config.rebalance_wait_interval
        if self.version != "4.9.8" and balanced is False:
            wait = self.config.rebalance_min_interval
        first = self.phases.pop(client_id, 0)
        self._arm(member, self.clock.now() + max(wait, RUN_TIME) + first)

    # -- time ---------------------------------------------------------------------------------

    def advance(self, millis: int) -> int:
        """Let ``millis`` pass, running everything due on the way; the new time."""
        return self.timers.advance(millis)

    def now(self) -> int:
        return self.clock.now()

    def settle(self, limit: int = 300000, step: int = 1000, queues: Sequence[MessageQueue] | None = None) -> int | None:
        """Advance until :meth:`problems` is empty (checked every ``step`` ms); how long that took,
        or ``None`` if it did not happen within ``limit`` ms."""
        if step < 1:
            raise ValueError(f"settle checks every step ms, which must be at least 1, not {step}")
        start = self.clock.now()
        while True:
            if not self.problems(queues):
                return self.clock.now() - start
            if self.clock.now() - start >= limit:
                return None
            self.advance(step)

    # -- the records ----------------------------------------------------------------------------

    @property
    def ownership(self) -> dict[MessageQueue, list[Ownership]]:
        """Queue -> who held it when (see :class:`OwnershipLedger`)."""
        return self.ledger.ownership

    @property
    def created(self) -> list[tuple[int, str, MessageQueue]]:
        return self.ledger.created

    @property
    def dropped(self) -> list[tuple[int, str, MessageQueue]]:
        return self.ledger.dropped

    @property
    def consumed(self) -> list[Consumption]:
        """Every message a listener handled (none without a ``flow``)."""
        return self.traffic.consumed if self.traffic is not None else []

    def owners(self) -> dict[MessageQueue, list[str]]:
        """Queue -> the clients holding it now."""
        return self.ledger.owners()

    def assignment(self) -> dict[str, tuple[MessageQueue, ...]]:
        """Running client -> the queues it holds now (in ``mq_all``'s order)."""
        return self.ledger.assignment(self.clients)

    def problems(self, queues: Sequence[MessageQueue] | None = None) -> list[str]:
        """What keeps the group from exactly one owner per queue right now (empty: converged);
        ``queues``: the ones that must be held (default all; no queue may have two owners)."""
        return self.ledger.problems(self.clients, queues)

    def overlaps(self, since: int = 0, until: int | None = None) -> list[Overlap]:
        """Stretches of time when a queue had two owners or more."""
        return self.ledger.overlaps(since, until)

    def gaps(self, since: int = 0, until: int | None = None) -> list[Gap]:
        """Stretches of time when a queue had no owner."""
        return self.ledger.gaps(since, until)

    def churn(self, since: int = 0, client: str | None = None) -> int:
        """ProcessQueues created (queue ownerships that moved) at or after ``since``."""
        return self.ledger.churn(since, client)

    def duplicates(self) -> dict[tuple[MessageQueue, int], list[Consumption]]:
        """Messages consumed more than once: ``(queue, offset)`` -> every consumption."""
        return duplicates(self.consumed)

    def parallel_consumption(self) -> list[tuple[Consumption, Consumption]]:
        """Pairs of listeners of different clients running on the same queue at the same time."""
        return parallel_consumption(self.consumed)


def _strategy_maker(strategy: Any) -> Callable[[], Any]:
    if isinstance(strategy, type):
        return strategy
    if hasattr(strategy, "allocate"):
        return lambda: strategy
    if callable(strategy):
        return strategy
    raise TypeError(f"a strategy, a class or a factory is needed, not {strategy!r}")
