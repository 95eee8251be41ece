"""Internal: the producer sweep's simulated send stream.

A producer's send stream against a fault strategy, on a simulated clock.

One :class:`Scenario` is a route of ``brokers`` × ``queues`` and a fault on one of its brokers
(the *degraded* one) from ``onset`` to ``recovery``. :func:`simulate` plays it as one sending
thread does: a send is due every ``interval`` ms (later if the previous one is still busy);
before each, the brokers of a :class:`~pytest_rmq_conformance.ports.producer.sending.SimulatedRoute`
are set as the fault's timeline has them when the send starts (the degraded one slow, down or
healthy), and the send goes through that route's ``send``, the one simulation of
``DefaultMQProducerImpl.sendDefaultImpl`` (spec §7.1) the ``rmq_route`` fixture uses too:
up to :data:`ATTEMPTS` attempts within :data:`SEND_TIMEOUT`, each retry with the broker just
tried (5.x: and ``reset_index``), ``update_fault_item`` after every attempt with its latency,
``isolation=True`` on a refused connection (with the default ``startDetectorEnable=false``,
5.3.3 passes ``reachable=True`` either way). No pytest, no Spark: pure and deterministic.

    >>> scenario = Scenario(0, "failing", brokers=3, queues=2, degraded=1, onset=5_000, duration=30_000)
    >>> off = simulate(reference_factory("4.9.8"), scenario, latency_fault=False)
    >>> on = simulate(reference_factory("4.9.8"), scenario, latency_fault=True)
    >>> off.sends, off.degraded_share, on.first_to_degraded  # off: 1 / ((3 - 1) * 2); on: its first failure
    (300, 0.25, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pytest_rmq_conformance.ports.producer.contract import BrokerData, FaultStrategy, QueueData, TopicRouteData
from pytest_rmq_conformance.ports.producer.fault_strategy import NOT_AVAILABLE_DURATION, MQFaultStrategy
from pytest_rmq_conformance.ports.producer.sending import SimulatedRoute
from pytest_rmq_conformance.processqueue.clock import ManualClock
from pytest_rmq_conformance.releases import PORT_RELEASE

__all__ = [
    "Scenario",
    "Measured",
    "SimulatedClock",
    "simulate",
    "reference_factory",
    "PATTERNS",
    "ATTEMPTS",
    "SEND_TIMEOUT",
    "ROUTE_POLL",
    "START",
    "TOPIC",
]

#: the fault patterns: a control, then one broker slow, failing, flapping, failing and dropped from the route
PATTERNS = ("healthy", "slow", "failing", "flapping", "route-refresh")
#: sync sends: 1 + ``retryTimesWhenSendFailed`` (default 2)
ATTEMPTS = 3
#: ``DefaultMQProducer.sendMsgTimeout`` (ms): no further attempt once a send has taken longer
SEND_TIMEOUT = 3000
#: ``ClientConfig.pollNameServerInterval`` (ms): how often the producer asks for the route
ROUTE_POLL = 30000
#: the simulated ``currentTimeMillis`` when a scenario starts (2023-11-14)
START = 1_700_000_000_000
TOPIC = "SweepTopic"
#: the longest penalty of any release's default table: after it, any isolated broker is free again
LONGEST_PENALTY = max(max(durations) for durations in NOT_AVAILABLE_DURATION.values())

#: builds a fault strategy (the contract's :class:`FaultStrategy`) as ``factory(clock=...)``
Factory = Callable[..., Any]


def reference_factory(release: str) -> Factory:
    """The reference port of ``release``, built as ``factory(clock=...)``."""
    return partial(MQFaultStrategy, version=release)


class SimulatedClock(ManualClock):
    """The time the strategy sees, from :data:`START`: moved by the simulation and its sends only."""

    def __init__(self, now: int = START) -> None:
        super().__init__(now)


def broker_name(index: int) -> str:
    """``broker-a``, ``broker-b``, ... (``broker-aa`` past ``z``)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(97 + rest) + letters
    return f"broker-{letters}"


@dataclass(frozen=True)
class Scenario:
    """A route and a fault. Times are ms from the start; ``latencies`` are the healthy brokers'
    answer times (below ``latencyMax[0]``, so never a penalty); ``slow_latency`` is what the slow
    broker takes, ``fail_latency`` what a refused connection costs. ``flap_period``: flapping
    fails for that long, then works for that long, and so on. ``drop_at``: route-refresh's name
    server drops the failing broker then; the producer sees it again at the first route poll
    after recovery. ``seed`` pins the publish lists' counters (and 4.x's ``whichItemWorst``)."""

    index: int
    pattern: str
    brokers: int
    queues: int
    degraded: int
    onset: int
    duration: int
    interval: int = 100
    slow_latency: int = 600
    fail_latency: int = 3
    flap_period: int = 5000
    drop_at: int | None = None
    latencies: tuple[int, ...] = ()
    seed: int = 0

    def __post_init__(self) -> None:
        if self.pattern not in PATTERNS:
            raise ValueError(f"pattern must be one of {', '.join(PATTERNS)}, not {self.pattern!r}")
        if not 0 <= self.degraded < self.brokers:
            raise ValueError(f"degraded broker {self.degraded} is not one of the {self.brokers} brokers")

    @property
    def recovery(self) -> int:
        return self.onset + self.duration

    @property
    def horizon(self) -> int:
        """When the run stops at the latest: the longest penalty after recovery, and a route poll."""
        return self.recovery + LONGEST_PENALTY + ROUTE_POLL

    @property
    def degraded_name(self) -> str:
        return broker_name(self.degraded)

    def base_latency(self, name: str) -> int:
        """A healthy answer's time on broker ``name``."""
        index = [broker_name(b) for b in range(self.brokers)].index(name)
        return self.latencies[index] if index < len(self.latencies) else 5

    def fault_at(self, at: int) -> str | None:
        """How the degraded broker answers a send that starts ``at`` ms: ``"slow"``, ``"down"``,
        or ``None`` (as healthy as the others)."""
        if self.pattern == "healthy" or not self.onset <= at < self.recovery:
            return None
        if self.pattern == "slow":
            return "slow"
        if self.pattern == "flapping" and ((at - self.onset) // self.flap_period) % 2:
            return None
        return "down"

    def set_brokers(self, route: SimulatedRoute, fault: str | None) -> None:
        """The brokers of ``route`` as :meth:`fault_at` has them: the degraded one slow
        (``slow_latency``), down (a refused connection after ``fail_latency``) or healthy."""
        if fault == "slow":
            route.slow(self.degraded_name, self.slow_latency)
        elif fault == "down":
            route.down(self.degraded_name, self.fail_latency)
        else:
            route.healthy(self.degraded_name)

    def route_changes(self) -> list[tuple[int, tuple[int, ...]]]:
        """``(at, brokers in the route)`` after the first route: route-refresh drops the failing
        broker at ``drop_at`` and lists it again at the first poll after recovery."""
        if self.pattern != "route-refresh" or self.drop_at is None:
            return []
        everyone = tuple(range(self.brokers))
        back = -(-self.recovery // ROUTE_POLL) * ROUTE_POLL
        return [(self.drop_at, tuple(b for b in everyone if b != self.degraded)), (back, everyone)]

    def route(self, brokers: tuple[int, ...]) -> TopicRouteData:
        names = [broker_name(b) for b in brokers]
        return TopicRouteData(
            queue_datas=[QueueData(name, self.queues) for name in names],
            broker_datas=[BrokerData(name, {0: f"10.0.0.{b + 1}:10911"}) for b, name in zip(brokers, names)],
        )


@dataclass
class Measured:
    """What a scenario showed under one configuration. ``sends``, ``first_to_degraded``,
    ``failed``, ``attempts`` and ``latency`` count the sends due while the fault lasted
    (``onset`` to ``recovery``); ``returned_after``: ms from recovery until an attempt reached the
    degraded broker again (``None`` if none did before the run stopped); ``lost_from_list``: when
    the run stopped, the route listed the degraded broker but the publish list held no queue of
    it (4.7.1 rewrites list entries to another broker, until the next route); ``error``: what
    the strategy raised, if it did (the run stops there)."""

    sends: int = 0
    first_to_degraded: int = 0
    failed: int = 0
    attempts: int = 0
    latency: int = 0
    returned_after: int | None = None
    total_sends: int = 0
    lost_from_list: bool = False
    error: str = ""
    trace: list[tuple[int, tuple[str, ...], bool]] = field(default_factory=list, repr=False)

    @property
    def degraded_share(self) -> float:
        return self.first_to_degraded / self.sends if self.sends else 0.0

    def as_row(self) -> dict[str, Any]:
        return {
            "sends": self.sends,
            "first_to_degraded": self.first_to_degraded,
            "failed": self.failed,
            "attempts": self.attempts,
            "latency_ms": self.latency,
            "returned_after_ms": self.returned_after,
            "total_sends": self.total_sends,
            "lost_from_list": self.lost_from_list,
            "error": self.error,
        }


def _new_info(strategy: FaultStrategy, scenario: Scenario, brokers: tuple[int, ...], generation: int):
    info = strategy.publish_info(TOPIC, scenario.route(brokers))
    info.send_which_queue.pin(None, scenario.seed + generation)
    return info


def simulate(factory: Factory, scenario: Scenario, latency_fault: bool, *, trace: bool = False,
             release: str | None = None) -> Measured:
    """Play ``scenario`` against a strategy from ``factory`` with ``sendLatencyFaultEnable`` set
    to ``latency_fault``, through the send loop of ``release`` (default: a reference port's own
    release, :data:`PORT_RELEASE` for any other strategy). With ``trace``, ``Measured.trace``
    lists every send as ``(start ms, brokers tried, failed)``."""
    clock = SimulatedClock()
    measured = Measured()
    try:
        _play(factory, clock, scenario, latency_fault, measured, trace, release)
    except Exception as exc:  # a strategy that raises: recorded, the run ends there
        measured.error = f"at {clock.now() - START} ms: {type(exc).__name__}: {exc}"[:300]
    return measured


def _own_release(strategy: Any) -> str:
    """A reference port's release; :data:`PORT_RELEASE` for any other strategy."""
    return strategy.version if isinstance(strategy, MQFaultStrategy) else PORT_RELEASE


def _play(factory: Factory, clock: SimulatedClock, scenario: Scenario, latency_fault: bool, measured: Measured,
          trace: bool, release: str | None) -> None:
    strategy = factory(clock=clock)
    strategy.send_latency_fault_enable = latency_fault
    worst = getattr(strategy, "which_item_worst", None)
    if worst is not None:
        worst.pin(None, scenario.seed ^ 0x5EED)
    names = [broker_name(b) for b in range(scenario.brokers)]
    route = SimulatedRoute(
        dict.fromkeys(names, scenario.queues), clock=clock, version=release or _own_release(strategy), topic=TOPIC,
        latencies={name: scenario.base_latency(name) for name in names}, seed=scenario.seed,
    )
    routed = tuple(range(scenario.brokers))
    info = _new_info(strategy, scenario, routed, 0)
    changes = scenario.route_changes()
    degraded = scenario.degraded_name
    due, busy_until, generation, fault = 0, 0, 0, None
    while True:
        start = max(due, busy_until)
        if start >= scenario.horizon or (start >= scenario.recovery and measured.returned_after is not None):
            listed = {mq.broker_name for mq in info.queues}
            measured.lost_from_list = scenario.degraded in routed and degraded not in listed
            return
        due += scenario.interval
        while changes and changes[0][0] <= start:
            generation += 1
            routed = changes.pop(0)[1]
            info = _new_info(strategy, scenario, routed, generation)
        clock.set(START + start)
        if scenario.fault_at(start) != fault:
            fault = scenario.fault_at(start)
            scenario.set_brokers(route, fault)
        sent = route.send(strategy, info, retries=ATTEMPTS - 1, timeout=SEND_TIMEOUT)
        tried = [(attempt.broker, attempt.started - START) for attempt in sent.attempts]
        failed = not sent.ok
        busy_until = sent.ended - START
        measured.total_sends += 1
        if scenario.onset <= start < scenario.recovery:
            measured.sends += 1
            measured.first_to_degraded += bool(tried) and tried[0][0] == degraded
            measured.failed += failed
            measured.attempts += len(tried)
            measured.latency += busy_until - start
        if measured.returned_after is None:
            back = [at for name, at in tried if name == degraded and at >= scenario.recovery]
            if back:
                measured.returned_after = back[0] - scenario.recovery
        if trace:
            measured.trace.append((start, tuple(name for name, _ in tried), failed))
