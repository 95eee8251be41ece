"""A simulated route and send loop, for tests of a producer's send and retry logic.

:class:`SimulatedRoute` is a topic's route over brokers a test can make slow, unreachable or
answer with an error code; :meth:`SimulatedRoute.send` sends one message through a fault
strategy as the Java client's synchronous ``DefaultMQProducerImpl.sendDefaultImpl`` does
(``shared/spec/producer-selection.md`` §7.1):

- up to ``1 + retries`` attempts; each selects with the previous attempt's broker as
  ``last_broker_name`` (5.x: ``reset_index`` from the second attempt on);
- an attempt's latency is what the clock moved while it ran: the clock advances by the
  broker's latency; a reply (or failure) that would come later than what is left of
  ``timeout`` fails as a ``RemotingTimeoutException`` once the deadline has passed (1 ms
  after it), so the send then stops with :data:`TIMEOUT`, as Java's usually does;
- after every attempt ``update_fault_item(broker, latency, isolation, reachable)``, with the
  isolation and reachability Java passes for that outcome and release;
- before an attempt, a send whose ``timeout`` has run out stops (``TIMEOUT``, no update).

Time is a manual clock's (``now()`` and ``advance(ms)``, whole milliseconds): the fixtures'
``rmq_clock``. Nothing here touches a network.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.producer.contract import (
    MASTER_ID,
    BrokerData,
    FaultItem,
    FaultStrategy,
    PublishInfo,
    QueueData,
    TopicRouteData,
)
from pytest_rmq_conformance.releases import PORT_RELEASE, parse_release

__all__ = [
    "ManualTime",
    "Attempt",
    "SendOutcome",
    "SimulatedRoute",
    "RETRY_RESPONSE_CODES",
    "SEND_OK",
    "FAILED",
    "TIMEOUT",
    "BROKER_ERROR",
    "NO_QUEUE",
]

#: outcomes of a send: a broker stored the message
SEND_OK = "SEND_OK"
#: every attempt failed (Java: MQClientException "Send [n] times, still failed")
FAILED = "FAILED"
#: the send's timeout ran out before an attempt (Java: RemotingTooMuchRequestException "sendDefaultImpl call timeout")
TIMEOUT = "TIMEOUT"
#: a broker answered a response code the producer does not retry (Java rethrows the MQBrokerException)
BROKER_ERROR = "BROKER_ERROR"
#: the strategy selected no queue (Java ends the loop and fails the send)
NO_QUEUE = "NO_QUEUE"

#: the broker response codes a synchronous send retries, by major version (Java ``retryResponseCodes``):
#: SYSTEM_ERROR, SERVICE_NOT_AVAILABLE, NO_PERMISSION, TOPIC_NOT_EXIST, NO_BUYER_ID, NOT_IN_CURRENT_UNIT;
#: 5.x adds SYSTEM_BUSY and GO_AWAY
RETRY_RESPONSE_CODES = {4: frozenset({1, 14, 16, 17, 204, 205}), 5: frozenset({1, 14, 16, 17, 204, 205, 2, 1500})}

_UP, _DOWN, _ERROR = "up", "down", "error"
_CONNECT, _TIMEOUT, _NOT_EXIST = "RemotingConnectException", "RemotingTimeoutException", "MQClientException"


class ManualTime(Protocol):
    """A clock a send can move: ``now()`` and ``advance(ms)``, in whole milliseconds."""

    def now(self) -> int: ...

    def advance(self, millis: int) -> Any: ...


@dataclass(frozen=True, slots=True)
class Attempt:
    """One attempt of a send: the queue selected, when it started, how long it took, and what
    went wrong (``error`` is ``None`` when the broker stored the message), with the
    ``isolation`` and ``reachable`` it was recorded with."""

    queue: MessageQueue
    started: int
    latency: int
    error: str | None
    isolation: bool
    reachable: bool

    @property
    def broker(self) -> str:
        return self.queue.broker_name

    @property
    def ok(self) -> bool:
        return self.error is None

    def __str__(self) -> str:
        where = f"{self.queue.broker_name}/{self.queue.queue_id}"
        return f"{where} ok {self.latency} ms" if self.ok else f"{where} {self.error} after {self.latency} ms"


@dataclass(frozen=True, slots=True)
class SendOutcome:
    """What one send did: its ``attempts`` in order and its ``status`` (:data:`SEND_OK`,
    :data:`FAILED`, :data:`TIMEOUT`, :data:`BROKER_ERROR` or :data:`NO_QUEUE`)."""

    attempts: tuple[Attempt, ...]
    status: str
    started: int
    ended: int

    @property
    def ok(self) -> bool:
        return self.status == SEND_OK

    @property
    def queue(self) -> MessageQueue | None:
        """The queue that stored the message, ``None`` if none did."""
        return self.attempts[-1].queue if self.ok else None

    @property
    def brokers(self) -> list[str]:
        """The broker of every attempt, in order (Java's ``brokersSent``)."""
        return [attempt.broker for attempt in self.attempts]

    @property
    def cost(self) -> int:
        """Milliseconds from the first attempt to the end of the send."""
        return self.ended - self.started

    def __str__(self) -> str:
        return f"{self.status} after {self.cost} ms: " + ("; ".join(map(str, self.attempts)) or "no attempt")


@dataclass
class _Broker:
    name: str
    queues: int
    state: str
    latency: int
    healthy: int
    code: int | None = None


def _millis(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} is a whole number of milliseconds, not {value!r}")
    if value < 0:
        raise ValueError(f"{what} cannot be negative ({value} ms)")
    return value


class SimulatedRoute:
    """A topic's route (``route``, a :class:`TopicRouteData`) over simulated brokers, each
    with ``brokers[name]`` write queues and a master, all healthy and answering in
    ``latency`` ms (``latencies[name]`` for a broker named there: its own healthy latency).

    A test changes how a broker answers; every call replaces what the broker did before:
    :meth:`slow` (stores after ``ms``), :meth:`down` (unreachable: the connection fails
    after ``ms``), :meth:`error` (answers a broker response ``code``), :meth:`healthy`
    (stores after its healthy latency again).
    ``version`` is the Java client release whose send loop :meth:`send` follows. The publish
    infos it makes have their counter's ``java.util.Random`` seeded with ``seed`` (``None``:
    from the time, as in Java), so that sends are repeatable.

    >>> from pytest_rmq_conformance import ManualClock, MQFaultStrategy
    >>> clock = ManualClock()
    >>> route = SimulatedRoute({"broker-a": 2, "broker-b": 2}, clock=clock, version="5.3.3")
    >>> strategy = MQFaultStrategy(clock=clock, version="5.3.3")
    >>> strategy.send_latency_fault_enable = True
    >>> route.down("broker-a")
    >>> info = route.publish_info(strategy)
    >>> info.send_which_queue.pin(-1, seed=0)  # the first send picks broker-a/0
    >>> sent = route.send(strategy, info)
    >>> sent.status, sent.brokers
    ('SEND_OK', ['broker-a', 'broker-b'])
    >>> route.unavailable(strategy), route.fault_table(strategy)["broker-a"].start_timestamp
    ({'broker-a'}, 10000)
    """

    def __init__(
        self,
        brokers: Mapping[str, int],
        *,
        clock: ManualTime,
        version: str = PORT_RELEASE,
        topic: str = "TopicTest",
        latency: int = 1,
        latencies: Mapping[str, int] | None = None,
        seed: int | None = 0,
    ) -> None:
        if not callable(getattr(clock, "now", None)) or not callable(getattr(clock, "advance", None)):
            raise TypeError(f"a simulated route needs a clock with now() and advance(ms), such as rmq_clock, not {clock!r}")
        self._release = parse_release(version)
        if not isinstance(topic, str) or not topic:
            raise ValueError(f"the topic is a non-empty string, not {topic!r}")
        if not isinstance(brokers, Mapping) or not brokers:
            raise ValueError(f"brokers maps each broker name to its number of write queues, e.g. {{'broker-a': 4}}; got {brokers!r}")
        self.clock = clock
        self.version = version
        self.topic = topic
        self.latency = _millis(latency, "the latency of a healthy broker")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise TypeError(f"seed is an int (or None), not {seed!r}")
        self.seed = seed
        self._brokers: dict[str, _Broker] = {}
        for name, queues in brokers.items():
            if not isinstance(name, str) or not name:
                raise ValueError(f"a broker name is a non-empty string, not {name!r}")
            if isinstance(queues, bool) or not isinstance(queues, int) or queues < 1:
                raise ValueError(f"broker {name!r} needs a positive number of write queues, not {queues!r}")
            self._brokers[name] = _Broker(name, queues, _UP, self.latency, self.latency)
        for name, ms in (latencies or {}).items():
            broker = self._broker(name)
            broker.latency = broker.healthy = _millis(ms, f"the latency of {name!r}")
        self.route = TopicRouteData(
            queue_datas=tuple(QueueData(b.name, b.queues, read_queue_nums=b.queues) for b in self._brokers.values()),
            broker_datas=tuple(BrokerData(b.name, {MASTER_ID: self.address(b.name)}) for b in self._brokers.values()),
        )
        self._infos: dict[int, tuple[FaultStrategy, PublishInfo]] = {}

    # -- the brokers ------------------------------------------------------

    @property
    def brokers(self) -> list[str]:
        """The broker names, in the order given."""
        return list(self._brokers)

    def _broker(self, name: str) -> _Broker:
        broker = self._brokers.get(name) if isinstance(name, str) else None
        if broker is None:
            raise ValueError(f"no broker {name!r} in this route (it has {', '.join(self._brokers)})")
        return broker

    def address(self, name: str) -> str:
        """The master address the route gives ``name`` (a label; nothing connects to it)."""
        return f"{name}:10911"

    def slow(self, name: str, ms: int) -> None:
        """``name`` stores every message after ``ms`` milliseconds."""
        broker = self._broker(name)
        broker.state, broker.latency, broker.code = _UP, _millis(ms, f"the latency of {name!r}"), None

    def down(self, name: str, ms: int = 0) -> None:
        """``name`` is unreachable: connecting fails after ``ms`` milliseconds (a refused
        connection at once; a connect timeout later), a ``RemotingException``."""
        broker = self._broker(name)
        broker.state, broker.latency, broker.code = _DOWN, _millis(ms, f"the time {name!r} takes to fail"), None

    def error(self, name: str, code: int, ms: int | None = None) -> None:
        """``name`` answers every send with the broker response ``code`` (an
        ``MQBrokerException``; e.g. 14 SERVICE_NOT_AVAILABLE, 2 SYSTEM_BUSY, 25
        SUBSCRIPTION_NOT_EXIST), after ``ms`` (default: the broker's healthy latency)."""
        broker = self._broker(name)
        if isinstance(code, bool) or not isinstance(code, int):
            raise TypeError(f"a broker response code is an int, not {code!r}")
        latency = broker.healthy if ms is None else _millis(ms, f"the latency of {name!r}")
        broker.state, broker.latency, broker.code = _ERROR, latency, code

    def healthy(self, name: str | None = None) -> None:
        """``name`` (every broker, without a name) stores again after its healthy latency (the
        route's ``latency``, or its own in ``latencies``)."""
        for broker in self._brokers.values() if name is None else [self._broker(name)]:
            broker.state, broker.latency, broker.code = _UP, broker.healthy, None

    def state(self, name: str) -> str:
        """How ``name`` answers now: ``"up 1 ms"``, ``"down after 0 ms"``, ``"error 14 after 1 ms"``."""
        broker = self._broker(name)
        if broker.state == _UP:
            return f"up {broker.latency} ms"
        if broker.state == _DOWN:
            return f"down after {broker.latency} ms"
        return f"error {broker.code} after {broker.latency} ms"

    # -- a strategy's view ----------------------------------------------------

    def publish_info(self, strategy: FaultStrategy) -> PublishInfo:
        """``strategy``'s publish info of this route, made on first use (its counter pinned to
        ``seed``) and kept for its later sends, as the Java producer keeps one per topic."""
        kept = self._infos.get(id(strategy))
        if kept is None:
            info = strategy.publish_info(self.topic, self.route)
            if self.seed is not None:
                info.send_which_queue.pin(None, self.seed)
            kept = self._infos[id(strategy)] = (strategy, info)
        return kept[1]

    def fault_table(self, strategy: FaultStrategy) -> dict[str, FaultItem]:
        """``strategy.fault_items()`` by broker name, in the strategy's order."""
        table = {}
        for item in strategy.fault_items():
            if not all(hasattr(item, field) for field in ("name", "latency", "start_timestamp")):
                raise TypeError(f"fault_items() gave {item!r:.80}, not a FaultItem")
            table[item.name] = item
        return table

    def unavailable(self, strategy: FaultStrategy) -> set[str]:
        """The brokers ``strategy``'s fault table keeps out now (``now < start_timestamp``)."""
        now = self.clock.now()
        return {name for name, item in self.fault_table(strategy).items() if now < item.start_timestamp}

    def detect(self, strategy: Any) -> None:
        """One round of a 5.x strategy's detector (``detect_by_one_round``): a broker of the
        route resolves to its address, and is reached unless it is down."""
        detect = getattr(strategy, "detect_by_one_round", None)
        if detect is None:
            raise TypeError(f"{type(strategy).__name__} has no detect_by_one_round (5.x's detector)")
        addresses = {self.address(name): broker for name, broker in self._brokers.items()}
        detect(
            lambda name: self.address(name) if name in self._brokers else None,
            lambda address, timeout: address in addresses and addresses[address].state != _DOWN,
        )

    # -- sending ------------------------------------------------------------

    def send(
        self,
        strategy: FaultStrategy,
        info: PublishInfo | None = None,
        *,
        retries: int = 2,
        timeout: int = 3000,
        start_detector_enable: bool = False,
        retry_response_codes: Iterable[int] | None = None,
    ) -> SendOutcome:
        """Send one message through ``strategy`` as a synchronous ``send(msg)`` does: up to
        ``1 + retries`` attempts (Java ``retryTimesWhenSendFailed``, default 2; pass 0 for an
        async or oneway send's single attempt) within ``timeout`` ms (``sendMsgTimeout``).
        ``info`` defaults to :meth:`publish_info`. ``start_detector_enable`` (5.x) makes a
        ``RemotingException`` mark the broker unreachable; ``retry_response_codes`` replaces
        :data:`RETRY_RESPONSE_CODES` of the release.

        Every attempt's fault update goes to ``strategy``; an exception from the strategy
        propagates, as it does out of Java's ``send``.
        """
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(f"retries is a count of further attempts (0 or more), not {retries!r}")
        timeout = _millis(timeout, "the send timeout")
        codes = RETRY_RESPONSE_CODES[self._release[0]] if retry_response_codes is None else frozenset(retry_response_codes)
        fifth = self._release >= (5, 0, 0)
        info = self.publish_info(strategy) if info is None else info
        now = self.clock.now
        first = now()
        attempts: list[Attempt] = []
        status = FAILED
        for times in range(1 + retries):
            last = attempts[-1].broker if attempts else None
            queue = strategy.select_one_message_queue(info, last, fifth and times > 0)
            if queue is None:
                status = NO_QUEUE
                break
            if not isinstance(queue, MessageQueue):
                raise TypeError(f"select_one_message_queue returned {queue!r:.80}, not a MessageQueue or None")
            started = now()
            if timeout < started - first:
                status = TIMEOUT
                break
            error, isolation, reachable = self._attempt(queue, timeout - (started - first), start_detector_enable)
            attempt = Attempt(queue, started, now() - started, error, isolation, reachable)
            attempts.append(attempt)
            strategy.update_fault_item(queue.broker_name, attempt.latency, isolation, reachable)
            if error is None:
                status = SEND_OK
                break
            if error.startswith("MQBrokerException") and self._brokers[queue.broker_name].code not in codes:
                status = BROKER_ERROR
                break
        return SendOutcome(tuple(attempts), status, first, now())

    def _attempt(self, queue: MessageQueue, left: int, start_detector_enable: bool) -> tuple[str | None, bool, bool]:
        """Run one attempt on the clock: ``(error, isolation, reachable)`` as Java records it."""
        fifth = self._release >= (5, 0, 0)
        broker = self._brokers.get(queue.broker_name)
        if broker is None:  # Java: MQClientException "The broker[...] not exist", before any request
            return _NOT_EXIST, not fifth, True
        if broker.latency > left:  # the wait for the reply ends once the deadline has passed
            self.clock.advance(left + 1)
            return _TIMEOUT, True, not (fifth and start_detector_enable)
        self.clock.advance(broker.latency)
        if broker.state == _DOWN:
            return _CONNECT, True, not (fifth and start_detector_enable)
        if broker.state == _ERROR:
            return f"MQBrokerException({broker.code})", True, not fifth
        return None, False, True

    def __repr__(self) -> str:
        brokers = ", ".join(f"{name}: {b.queues} queues {self.state(name)}" for name, b in self._brokers.items())
        return f"SimulatedRoute({self.topic!r}, version={self.version!r}, {brokers})"
