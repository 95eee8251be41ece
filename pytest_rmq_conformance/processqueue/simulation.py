"""A consumer group over time: clients that rebalance on their own schedules, join, leave and
crash, with what each queue's ownership looked like along the way.

Every client runs a :class:`~pytest_rmq_conformance.processqueue.RebalancePushImpl`
(or a pull / lite-pull one) with its own instance of the strategy, against one
shared :class:`~pytest_rmq_conformance.processqueue.Broker`. A client rebalances
when it starts, every 20 s (5.3.3: after 1 s while unbalanced), and when the
broker tells it the group changed (after its ``notify_delay``; ``None`` loses the
notification). Orderly clients renew their locks every 20 s. With a
:class:`MessageFlow`, messages are produced, pulled and consumed, so duplicate
consumption shows up.

    >>> from pytest_rmq_conformance.strategies import reference_strategy
    >>> sim = GroupSimulation(lambda: reference_strategy("AVG"), queues=24, clients=4)
    >>> sim.advance(5000)
    5000
    >>> sim.leave(sim.clients[1]); sim.advance(1000)
    6000
    >>> sim.problems(), sim.churn(since=5000)
    ([], 8)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Set, Tuple, Union

from pytest_rmq_conformance.invariants import coverage, no_double_assignment
from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues
from pytest_rmq_conformance.processqueue.broker import Broker, BrokerUnavailable
from pytest_rmq_conformance.processqueue.clock import ManualClock, Timers
from pytest_rmq_conformance.processqueue.config import ClientConfig, client_version
from pytest_rmq_conformance.processqueue.consume import (
    CONSUME_SUCCESS,
    SUCCESS,
    process_consume_result_concurrently,
    process_consume_result_orderly,
)
from pytest_rmq_conformance.processqueue.offset_store import CONSUME_FROM_LAST_OFFSET
from pytest_rmq_conformance.processqueue.process_queue import PROPERTY_CONSUME_START_TIME, Message, ProcessQueue
from pytest_rmq_conformance.processqueue.pull import (
    DELAY_WHEN_EXCEPTION,
    FOUND,
    NO_NEW_MSG,
    process_pull_result,
    pull_message,
)
from pytest_rmq_conformance.processqueue.rebalance import (
    CLUSTERING,
    REBALANCE_KINDS,
    PullRequest,
    RebalanceImpl,
)

__all__ = [
    "GroupSimulation",
    "MessageFlow",
    "Ownership",
    "Overlap",
    "Gap",
    "Consumption",
    "default_queues",
    "default_clients",
]


@dataclass(frozen=True)
class MessageFlow:
    """Messages produced to every queue and consumed by whoever holds it.

    ``produce_interval``: one message per queue every so many ms; ``consume_time``: how long the
    listener takes per message (ms, or a function of the queue and offset); ``poll_interval``:
    how soon an empty pull is retried; ``until``: the time production stops (``None``: never).
    """

    produce_interval: int = 1000
    consume_time: Union[int, Callable[[MessageQueue, int], int]] = 100
    poll_interval: int = 1000
    until: Optional[int] = None
    consume_from_where: str = CONSUME_FROM_LAST_OFFSET

    def __post_init__(self) -> None:
        for name in ("produce_interval", "poll_interval"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1 ms, not {getattr(self, name)} (else it repeats at one instant)")

    def listener_time(self, mq: MessageQueue, offset: int) -> int:
        return self.consume_time(mq, offset) if callable(self.consume_time) else self.consume_time


@dataclass
class Ownership:
    """``client`` held ``mq`` (a live ProcessQueue in its table) from ``start`` to ``end``."""

    client: str
    start: int
    end: Optional[int] = None  # still held


@dataclass(frozen=True)
class Overlap:
    mq: MessageQueue
    start: int
    end: int
    clients: Tuple[str, ...]


@dataclass(frozen=True)
class Gap:
    mq: MessageQueue
    start: int
    end: int


@dataclass(frozen=True)
class Consumption:
    """The listener of ``client`` handled the message at ``offset`` of ``mq`` from ``start`` to ``end``."""

    client: str
    mq: MessageQueue
    offset: int
    start: int
    end: int


#: ms a run of the rebalance service takes at least: Java's thread spends time in its RPCs, so
#: even with a zero interval (``rebalance_min_interval=0`` while unbalanced) it never runs
#: twice at one instant, and simulated time moves on
RUN_TIME = 1


def default_queues(count: int, topic: str = "TopicTest", brokers: Sequence[str] = ("broker-a", "broker-b")) -> List[MessageQueue]:
    """``count`` queues spread over ``brokers`` (ids 0, 1, … per broker), in Java order."""
    return java_sorted_queues(MessageQueue(topic, brokers[i % len(brokers)], i // len(brokers)) for i in range(count))


def default_clients(count: int) -> List[str]:
    """Client ids shaped like Java's ``IP@pid``."""
    return [f"192.168.0.{i + 1}@{1000 + i}" for i in range(count)]


@dataclass
class _Client:
    client_id: str
    impl: RebalanceImpl
    alive: bool = True
    due: Optional[int] = None  # next rebalance run
    last_run: Optional[int] = None
    held: Dict[MessageQueue, ProcessQueue] = field(default_factory=dict)
    stalled: Set[MessageQueue] = field(default_factory=set)
    seen_later: int = 0


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
        queues: Union[int, Sequence[MessageQueue]] = 24,
        clients: Union[int, Sequence[str]] = 4,
        consumer_group: str = "group",
        version: str = "5.3.3",
        config: ClientConfig = ClientConfig(),
        consumer: str = "push",
        orderly: bool = False,
        message_model: str = CLUSTERING,
        notify_delay: Union[None, int, Mapping[str, Optional[int]]] = 0,
        phases: Optional[Mapping[str, int]] = None,
        flow: Optional[MessageFlow] = None,
        clock: Optional[ManualClock] = None,
    ):
        if consumer not in REBALANCE_KINDS:
            raise ValueError(f"consumer must be one of {', '.join(REBALANCE_KINDS)}, not {consumer!r}")
        if orderly and consumer != "push":
            raise ValueError("only a push consumer consumes orderly")
        self.make_strategy = _strategy_maker(strategy)
        self.mq_all: Tuple[MessageQueue, ...] = tuple(default_queues(queues) if isinstance(queues, int) else queues)
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
        self._clients: Dict[str, _Client] = {}
        self.ownership: Dict[MessageQueue, List[Ownership]] = {mq: [] for mq in self.mq_all}
        self.created: List[Tuple[int, str, MessageQueue]] = []
        self.dropped: List[Tuple[int, str, MessageQueue]] = []
        self.consumed: List[Consumption] = []
        self.log: List[str] = []
        for cid in initial:
            self._start(cid, announce=False)
        if flow is not None:
            self.timers.schedule(flow.produce_interval, self._produce, "produce")
        for cid in initial:
            self._rebalance(cid)

    # -- who is in the group ---------------------------------------------------

    @property
    def clients(self) -> List[str]:
        """Running clients, in the order they started."""
        return [cid for cid, c in self._clients.items() if c.alive]

    def client(self, client_id: str) -> RebalanceImpl:
        """The rebalance model of ``client_id`` (its ``process_queue_table`` and all)."""
        return self._get(client_id).impl

    def _get(self, client_id: str) -> _Client:
        try:
            return self._clients[client_id]
        except KeyError:
            raise KeyError(f"no client {client_id!r}; clients: {', '.join(self._clients)}") from None

    def _say(self, who: str, what: str) -> None:
        self.log.append(f"{self.clock.now():>9} ms  {who}: {what}")

    # -- membership events ---------------------------------------------------------

    def join(self, client_id: Optional[str] = None) -> str:
        """A new client starts (its id by default the next ``IP@pid``); returns its id."""
        if client_id is None:
            taken = set(self._clients)
            client_id = next(c for c in default_clients(len(taken) + 1 + len(taken)) if c not in taken)
        if client_id in self._clients and self._clients[client_id].alive:
            raise ValueError(f"client {client_id!r} is already running")
        self._start(client_id, announce=True)
        self._rebalance(client_id)
        self.timers.run_due()  # clients told without delay rebalance at this very moment
        return client_id

    def leave(self, client_id: str) -> None:
        """Graceful shutdown: orderly locks released, offsets persisted, unregistered, queues dropped."""
        client = self._live(client_id)
        impl = client.impl
        if self.orderly and self.message_model == CLUSTERING:
            impl.unlock_all()
        impl.offset_store.persist_all(list(impl.process_queue_table))
        self.broker.unregister(self.consumer_group, client_id)
        impl.destroy()
        impl.running = client.alive = False
        self._observe(client)
        self._say(client_id, "left")
        self._notify_all()
        self.timers.run_due()

    def crash(self, client_id: str, detected_after: int = 0) -> None:
        """The process dies: nothing persisted or unlocked. The broker notices after
        ``detected_after`` ms (0: the connection closed with it; 120000: a host that vanished)."""
        client = self._live(client_id)
        client.impl.running = client.alive = False
        for pq in client.impl.process_queue_table.values():
            pq.consume_lock.release()
        self._observe(client)
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

    def set_route(self, topic: str, queues: Optional[Sequence[MessageQueue]]) -> None:
        """Every client's route for ``topic`` becomes ``queues`` (``None``: no route)."""
        for client in self._clients.values():
            client.impl.update_topic_route(topic, None if queues is None else list(queues))

    def _live(self, client_id: str) -> _Client:
        client = self._get(client_id)
        if not client.alive:
            raise ValueError(f"client {client_id!r} is not running")
        return client

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
        client = _Client(client_id, impl)
        self._clients[client_id] = client
        for topic in self.topics:
            impl.subscribe(topic, [mq for mq in self.mq_all if mq.topic == topic])
        impl.on_pull_requests = lambda requests, delay, c=client: self._pull_requests(c, requests, delay)
        self.broker.register(self.consumer_group, client_id)
        self._say(client_id, "started")
        if self.orderly and self.message_model == CLUSTERING:
            self._every(client, 1000, self.config.rebalance_lock_interval, lambda: client.impl.lock_all(), "lock_all")
        interval = self.config.persist_consumer_offset_interval
        self._every(client, 10000, interval, lambda: impl.offset_store.persist_all(list(impl.process_queue_table)), "persist_all")
        if announce:
            self._notify_all(but=client_id)

    def _every(self, client: _Client, first: int, period: int, action: Callable[[], None], what: str) -> None:
        """``scheduleAtFixedRate``, which refuses a period that is not positive."""
        if period < 1:
            raise ValueError(f"{what} every {period} ms: a fixed-rate task needs a positive period")
        label = f"{client.client_id}: {what}"

        def tick() -> None:
            if client.alive and self._clients.get(client.client_id) is client:
                action()
                self._observe(client)
                self.timers.schedule(period, tick, label)

        self.timers.schedule(first, tick, label)

    def _notify_all(self, but: Optional[str] = None) -> None:
        """The broker tells every member the group changed (NOTIFY_CONSUMER_IDS_CHANGED)."""
        for cid, client in self._clients.items():
            if not client.alive or cid == but:
                continue
            delay = self.notify_delay.get(cid, 0) if isinstance(self.notify_delay, Mapping) else self.notify_delay
            if delay is not None:
                self._wake(client, delay)

    # -- rebalance service ------------------------------------------------------------

    def _wake(self, client: _Client, delay: int) -> None:
        at = self.clock.now() + delay
        if self.version == "5.3.3" and client.last_run is not None:
            at = max(at, client.last_run + self.config.rebalance_min_interval)
        self._arm(client, at)

    def _arm(self, client: _Client, at: int) -> None:
        if client.due is not None and client.due <= at:
            return
        client.due = at

        def run() -> None:
            if client.alive and client.due == at and self._clients.get(client.client_id) is client:
                self._rebalance(client.client_id)

        self.timers.schedule(at - self.clock.now(), run, f"{client.client_id}: rebalance")

    def _rebalance(self, client_id: str) -> None:
        client = self._clients[client_id]
        impl = client.impl
        client.due = None
        for mq, pq in impl.process_queue_table.items():  # pulls keep the timestamp fresh
            if self.flow is None and mq not in client.stalled and not pq.dropped and self.consumer == "push":
                pq.last_pull_timestamp = self.clock.now()
        balanced = impl.do_rebalance() if self.consumer == "push" else impl.do_rebalance(False)
        client.last_run = self.clock.now()
        self._observe(client)
        for delay in impl.rebalance_later_requests[client.seen_later :]:
            self._wake(client, delay)
        client.seen_later = len(impl.rebalance_later_requests)
        wait = self.config.rebalance_wait_interval
        if self.version == "5.3.3" and balanced is False:
            wait = self.config.rebalance_min_interval
        first = self.phases.pop(client_id, 0)
        self._arm(client, self.clock.now() + max(wait, RUN_TIME) + first)

    # -- what ownership looked like ------------------------------------------------------

    def _observe(self, client: _Client) -> None:
        """Record what changed in ``client``'s table since last looked at."""
        now, cid = self.clock.now(), client.client_id
        table = client.impl.process_queue_table
        live = {mq: pq for mq, pq in table.items() if not pq.dropped} if client.alive else {}
        for mq, pq in list(client.held.items()):
            if live.get(mq) is not pq:
                del client.held[mq]
                self.dropped.append((now, cid, mq))
                self._close(mq, cid, now)
        for mq, pq in live.items():
            if mq not in client.held:
                client.held[mq] = pq
                self.created.append((now, cid, mq))
                self.ownership.setdefault(mq, []).append(Ownership(cid, now))
                self._say(cid, f"now holds {mq}")

    def _close(self, mq: MessageQueue, cid: str, now: int) -> None:
        for interval in reversed(self.ownership.get(mq, [])):
            if interval.client == cid and interval.end is None:
                interval.end = now
                self._say(cid, f"no longer holds {mq}")
                return

    def owners(self) -> Dict[MessageQueue, List[str]]:
        """Queue -> the clients holding it now."""
        return {mq: [i.client for i in spans if i.end is None] for mq, spans in self.ownership.items()}

    def assignment(self) -> Dict[str, Tuple[MessageQueue, ...]]:
        """Running client -> the queues it holds now (in ``mq_all``'s order)."""
        held: Dict[str, List[MessageQueue]] = {cid: [] for cid in self.clients}
        for mq, cids in self.owners().items():
            for cid in cids:
                held.setdefault(cid, []).append(mq)
        return {cid: tuple(mqs) for cid, mqs in held.items()}

    def problems(self, queues: Optional[Sequence[MessageQueue]] = None) -> List[str]:
        """What keeps the group from exactly one owner per queue right now (empty: converged);
        ``queues``: the ones that must be held (default all; no queue may have two owners)."""
        assignment = self.assignment()
        target = self.mq_all if queues is None else queues
        return [str(v) for v in coverage(assignment, target) + no_double_assignment(assignment)]

    def settle(self, limit: int = 300000, step: int = 1000, queues: Optional[Sequence[MessageQueue]] = None) -> Optional[int]:
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

    def _timeline(self, mq: MessageQueue, since: int, until: int) -> List[Tuple[int, int, Tuple[str, ...]]]:
        """``(start, end, holders)`` pieces covering ``since``..``until`` for ``mq``."""
        spans = self.ownership.get(mq, [])
        cuts = {since, until}
        for s in spans:
            cuts.update(t for t in (s.start, s.end) if t is not None and since < t < until)
        pieces = []
        edges = sorted(cuts)
        for start, end in zip(edges, edges[1:]):
            holders = tuple(s.client for s in spans if s.start <= start and (s.end is None or s.end >= end))
            pieces.append((start, end, holders))
        return pieces

    def overlaps(self, since: int = 0, until: Optional[int] = None) -> List[Overlap]:
        """Stretches of time when a queue had two owners or more."""
        until = self.clock.now() if until is None else until
        found = []
        for mq in self.ownership:
            for start, end, holders in self._timeline(mq, since, until):
                if len(holders) > 1:
                    found.append(Overlap(mq, start, end, holders))
        return found

    def gaps(self, since: int = 0, until: Optional[int] = None) -> List[Gap]:
        """Stretches of time when a queue had no owner."""
        until = self.clock.now() if until is None else until
        found = []
        for mq in self.mq_all:
            for start, end, holders in self._timeline(mq, since, until):
                if not holders:
                    found.append(Gap(mq, start, end))
        return found

    def churn(self, since: int = 0, client: Optional[str] = None) -> int:
        """ProcessQueues created (queue ownerships that moved) at or after ``since``."""
        return sum(1 for at, cid, _ in self.created if at >= since and (client is None or cid == client))

    def duplicates(self) -> Dict[Tuple[MessageQueue, int], List[Consumption]]:
        """Messages consumed more than once: ``(queue, offset)`` -> every consumption."""
        seen: Dict[Tuple[MessageQueue, int], List[Consumption]] = {}
        for c in self.consumed:
            seen.setdefault((c.mq, c.offset), []).append(c)
        return {key: found for key, found in seen.items() if len(found) > 1}

    def parallel_consumption(self) -> List[Tuple[Consumption, Consumption]]:
        """Pairs of listeners of different clients running on the same queue at the same time."""
        by_queue: Dict[MessageQueue, List[Consumption]] = {}
        for c in self.consumed:
            by_queue.setdefault(c.mq, []).append(c)
        pairs = []
        for found in by_queue.values():
            found.sort(key=lambda c: c.start)
            for i, a in enumerate(found):
                for b in found[i + 1 :]:
                    if b.start >= a.end:
                        break
                    if b.client != a.client:
                        pairs.append((a, b))
        return pairs

    # -- time ---------------------------------------------------------------------------------

    def advance(self, millis: int) -> int:
        """Let ``millis`` pass, running everything due on the way; the new time."""
        return self.timers.advance(millis)

    def now(self) -> int:
        return self.clock.now()

    # -- message flow -------------------------------------------------------------------------

    def _produce(self) -> None:
        flow = self.flow
        assert flow is not None
        if flow.until is not None and self.clock.now() > flow.until:
            return
        for mq in self.mq_all:
            self.broker.append(mq)
        self.timers.schedule(flow.produce_interval, self._produce, "produce")

    def _pull_requests(self, client: _Client, requests: List[PullRequest], delay: int) -> None:
        if self.flow is None:
            return  # no messages: pulls only keep the timestamps fresh, which rebalances do here
        for request in requests:
            self.timers.schedule(delay, lambda r=request: self._pull(client, r), f"{client.client_id}: pull {request.message_queue}")

    def _pull(self, client: _Client, request: PullRequest) -> None:
        """One turn of a queue's pull chain (``pullMessage`` and its callback)."""
        pq, mq = request.process_queue, request.message_queue
        if not client.alive or mq in client.stalled:
            return
        decision = pull_message(client.impl, request)
        if decision.action == "stop":
            return
        again = lambda delay: self.timers.schedule(delay, lambda: self._pull(client, request), f"{client.client_id}: pull {mq}")  # noqa: E731
        if decision.action == "retry":
            return again(decision.delay)
        assert self.flow is not None
        try:
            found = self.broker.pull(mq, request.next_offset)
        except BrokerUnavailable:
            return again(DELAY_WHEN_EXCEPTION)
        if not found:
            process_pull_result(client.impl, request, NO_NEW_MSG)
            return again(self.flow.poll_interval)
        dispatch = process_pull_result(client.impl, request, FOUND, found)
        if self.orderly:
            if dispatch:
                self._orderly_run(client, mq, pq, 0)
        else:
            for msg in found:
                self._consume_concurrently(client, mq, pq, msg)
        again(0)

    def _consume_concurrently(self, client: _Client, mq: MessageQueue, pq: ProcessQueue, msg: Message) -> None:
        flow = self.flow
        assert flow is not None
        if pq.dropped:
            return
        start = self.clock.now()
        msg.properties[PROPERTY_CONSUME_START_TIME] = str(start)

        def done() -> None:
            if not client.alive:
                return  # the process died with the message in hand
            self.consumed.append(Consumption(client.client_id, mq, msg.queue_offset, start, self.clock.now()))
            if pq.dropped:
                return  # a late result on a dropped queue is discarded
            process_consume_result_concurrently(
                pq, mq, [msg], CONSUME_SUCCESS, offset_store=client.impl.offset_store, message_model=self.message_model
            )

        self.timers.schedule(flow.listener_time(mq, msg.queue_offset), done, f"{client.client_id}: consume {mq}")

    def _orderly_run(self, client: _Client, mq: MessageQueue, pq: ProcessQueue, delay: int) -> None:
        """Submit a ``ConsumeRequest`` for ``mq`` to run ``delay`` ms from now."""
        self.timers.schedule(delay, lambda: self._orderly_enter(client, mq, pq), f"{client.client_id}: consume request {mq}")

    def _clustering_lock_lost(self, pq: ProcessQueue) -> bool:
        return self.message_model == CLUSTERING and (not pq.locked or pq.is_lock_expired())

    def _orderly_enter(self, client: _Client, mq: MessageQueue, pq: ProcessQueue) -> None:
        """``ConsumeRequest.run`` on entry: consume only under a live lock, else lock in 100 ms."""
        if pq.dropped or not client.alive:
            return
        if self._clustering_lock_lost(pq):
            return self._try_lock_later_and_reconsume(client, mq, pq, 100)
        self._orderly_step(client, mq, pq, self.clock.now())

    def _orderly_step(self, client: _Client, mq: MessageQueue, pq: ProcessQueue, started: int) -> None:
        """One turn of the consume loop that began at ``started`` (the listener takes time)."""
        flow = self.flow
        assert flow is not None
        if pq.dropped or not client.alive:
            return
        if self._clustering_lock_lost(pq):
            return self._try_lock_later_and_reconsume(client, mq, pq, 10)
        if self.clock.now() - started > self.config.max_time_consume_continuously:
            return self._orderly_run(client, mq, pq, 10)
        taken = pq.take_messages(1)
        if not taken:
            return
        begin = self.clock.now()
        took = flow.listener_time(mq, taken[0].queue_offset)
        pq.consume_lock.hold_until(begin + took)

        def done() -> None:
            if not client.alive:
                return
            pq.consume_lock.release()
            self.consumed.append(Consumption(client.client_id, mq, taken[0].queue_offset, begin, self.clock.now()))
            result = process_consume_result_orderly(pq, mq, taken, SUCCESS, offset_store=client.impl.offset_store)
            if result.continue_consume:
                self._orderly_step(client, mq, pq, started)
            elif result.resubmit_after is not None:
                self._orderly_run(client, mq, pq, result.resubmit_after)

        self.timers.schedule(took, done, f"{client.client_id}: consume {mq}")

    def _try_lock_later_and_reconsume(self, client: _Client, mq: MessageQueue, pq: ProcessQueue, delay: int) -> None:
        def attempt() -> None:
            if not client.alive:
                return
            locked = client.impl.lock(mq)
            self._orderly_run(client, mq, pq, 10 if locked else 3000)

        self.timers.schedule(delay, attempt, f"{client.client_id}: lock {mq}")


def _strategy_maker(strategy: Any) -> Callable[[], Any]:
    if isinstance(strategy, type):
        return strategy
    if hasattr(strategy, "allocate"):
        return lambda: strategy
    if callable(strategy):
        return strategy
    raise TypeError(f"a strategy, a class or a factory is needed, not {strategy!r}")

