"""Fixtures for users' own tests of a producer's send and retry logic (registered by the plugin):
a route over brokers a test makes slow or unreachable, and the fault strategy under test, both
on the shared ``rmq_clock``.

Both are session-scoped factories, safe inside ``@given``. The plugin imports this module in
every pytest run, so it imports the producer models only inside the fixtures.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_rmq_conformance.ports.producer.contract import FaultStrategy
    from pytest_rmq_conformance.ports.producer.sending import SimulatedRoute

__all__ = ["FaultStrategies", "rmq_route", "rmq_fault_strategy"]

_FAMILY = "FAULT_STRATEGY"


def _port_release(version: str) -> str:
    """The release the producer ports reproduce ``version`` as (5.5.0 as 5.3.3); a test at a
    release they reproduce as none is skipped, saying why."""
    from pytest_rmq_conformance.engine.runs import NotModelled
    from pytest_rmq_conformance.kinds.producer.release import port_release

    try:
        return port_release(version)
    except NotModelled as exc:
        pytest.skip(str(exc))


class FaultStrategies:
    """Builds the fault strategy under test: the ``--rmq-strategy`` one when it is of the
    ``FAULT_STRATEGY`` family, else the reference ``MQFaultStrategy`` at
    ``--rmq-reference-version``; each call a new one, on ``rmq_clock`` unless given ``clock=``.

    ``under_test`` says which; ``version`` is the release; :meth:`reference` builds the
    reference port whatever is under test, as the release it reproduces the selected one as
    (a test at a release it reproduces as none is skipped).
    """

    def __init__(self, conformance: Any, clock: Any):
        self._conformance = conformance
        self._clock = clock

    @property
    def version(self) -> str:
        """The Java client release (``--rmq-reference-version``)."""
        return str(self._conformance.settings.version)

    @property
    def under_test(self) -> str:
        """``"FAULT_STRATEGY 5.3.3 (reference port)"`` or ``"<--rmq-strategy> (FAULT_STRATEGY)"``."""
        if self._own() is None:
            return f"{_FAMILY} {self.version} (reference port)"
        return f"{self._conformance.settings.spec} ({_FAMILY})"

    def _own(self) -> Any:
        """The subject, when the strategy under test is a fault strategy built here; ``None``
        for the reference port. A strategy that cannot serve these fixtures fails the test."""
        subject = self._conformance
        problem = getattr(subject, "load_error", None)
        if problem is not None:
            pytest.fail(f"the strategy under test could not be loaded: {problem}", pytrace=False)
        if subject.harness is not None:
            if _FAMILY in subject.families:
                pytest.fail(
                    f"--rmq-strategy={subject.settings.spec}: a harness (an exec: strategy, or --rmq-isolate) "
                    "answers whole golden traces, never one call at a time, so rmq_fault_strategy cannot drive it; "
                    "run a Python strategy in this process, or use rmq_fault_strategy.reference()",
                    pytrace=False,
                )
            return None
        return None if subject.family != _FAMILY or subject.is_reference else subject

    def __call__(
        self,
        *,
        send_latency_fault_enable: bool = False,
        latency_max: Sequence[int] | None = None,
        not_available_duration: Sequence[int] | None = None,
        clock: Any = None,
        seed: int | None = 0,
    ) -> FaultStrategy:
        """A new fault strategy under test, configured as Java's setters would
        (``send_latency_fault_enable`` is off by default, as in Java; the tables default to the
        release's); a 4.x ``which_item_worst`` counter is pinned to ``seed`` (``None``: random)."""
        subject = self._own()
        clock = self._clock if clock is None else clock
        if subject is None:
            from pytest_rmq_conformance.ports.producer.fault_strategy import MQFaultStrategy

            strategy: Any = MQFaultStrategy(clock=clock, version=_port_release(self.version))
        else:
            strategy = subject.build(_FAMILY, {"clock": clock})
        return _configured(strategy, send_latency_fault_enable, latency_max, not_available_duration, seed)

    def reference(
        self,
        *,
        version: str | None = None,
        send_latency_fault_enable: bool = False,
        latency_max: Sequence[int] | None = None,
        not_available_duration: Sequence[int] | None = None,
        clock: Any = None,
        seed: int | None = 0,
    ) -> FaultStrategy:
        """A new reference ``MQFaultStrategy`` at ``version`` (default the selected release)."""
        from pytest_rmq_conformance.ports.producer.fault_strategy import MQFaultStrategy

        strategy = MQFaultStrategy(clock=self._clock if clock is None else clock, version=_port_release(version or self.version))
        return _configured(strategy, send_latency_fault_enable, latency_max, not_available_duration, seed)

    def __repr__(self) -> str:
        try:
            return f"<rmq_fault_strategy: {self.under_test}>"
        except pytest.fail.Exception:  # a strategy these fixtures cannot drive: said when it is built
            return f"<rmq_fault_strategy: --rmq-strategy={self._conformance.settings.spec}>"


def _configured(
    strategy: Any, enable: bool, latency_max: Sequence[int] | None, durations: Sequence[int] | None, seed: int | None
) -> Any:
    strategy.send_latency_fault_enable = bool(enable)
    worst = getattr(strategy, "which_item_worst", None)
    if worst is not None and seed is not None:
        worst.pin(None, seed)
    if latency_max is not None:
        strategy.latency_max = list(latency_max)
    if durations is not None:
        strategy.not_available_duration = list(durations)
    return strategy


@pytest.fixture(scope="session")
def rmq_fault_strategy(rmq_conformance, rmq_clock) -> FaultStrategies:
    """A factory of the fault strategy under test, on ``rmq_clock``: the ``--rmq-strategy``
    one when it is a ``FAULT_STRATEGY`` (built as ``factory(clock=...)``), else the reference
    ``MQFaultStrategy`` at ``--rmq-reference-version``. Keywords:
    ``send_latency_fault_enable`` (off, as in Java), ``latency_max``,
    ``not_available_duration``, ``clock``, ``seed`` (of 4.x's ``which_item_worst``; ``None``:
    random, as in Java). ``.reference(version=...)`` builds the reference
    port whatever is under test; ``.under_test`` and ``.version`` say what runs. Read the
    fault table with ``strategy.fault_items()`` (or ``rmq_route``'s ``fault_table`` and
    ``unavailable``).

    Example::

        def test_a_fast_send_leaves_no_penalty(rmq_fault_strategy, rmq_clock):
            strategy = rmq_fault_strategy(send_latency_fault_enable=True)
            strategy.update_fault_item("broker-a", 40, False, True)
            (item,) = strategy.fault_items()
            assert (item.name, item.latency) == ("broker-a", 40)
            assert item.start_timestamp <= rmq_clock.now()   # available at once
    """
    return FaultStrategies(rmq_conformance, rmq_clock)


@pytest.fixture(scope="session")
def rmq_route(rmq_conformance, rmq_clock):
    """A factory of :class:`~pytest_rmq_conformance.ports.producer.sending.SimulatedRoute`:
    ``rmq_route(brokers={"broker-a": 4, "broker-b": 4}, topic="TopicTest", latency=1,
    latencies=None, version=None, clock=None, seed=0)`` is a topic's route (``.route``, a
    ``TopicRouteData``) over simulated brokers answering in ``latency`` ms (those named in
    ``latencies``, a dict, in their own) on ``rmq_clock``, following the send loop
    of ``--rmq-reference-version`` (as the release the ports reproduce it as), its publish infos' counters seeded with ``seed`` (``None``:
    random, as in Java). Make a broker ``.slow(name, ms=)``, ``.down(name)``,
    ``.error(name, code=)`` or ``.healthy(name)``; ``.send(strategy)`` sends one message as
    Java's ``sendDefaultImpl`` does (up to 3 attempts, the last broker avoided, latency
    measured on the clock, ``update_fault_item`` after each attempt, isolation on failure)
    and returns a ``SendOutcome`` (``status``, ``ok``, ``queue``, ``brokers``,
    ``attempts``); ``.unavailable(strategy)`` names the brokers its fault table keeps out.

    Example::

        def test_a_down_broker_is_retried_elsewhere_then_avoided(rmq_route, rmq_fault_strategy):
            route = rmq_route({"broker-a": 4, "broker-b": 4})
            strategy = rmq_fault_strategy(send_latency_fault_enable=True)
            route.down("broker-b")
            sends = [route.send(strategy) for _ in range(4)]
            assert all(sent.ok and sent.queue.broker_name == "broker-a" for sent in sends)
            assert route.unavailable(strategy) == {"broker-b"}
            assert [sent.brokers for sent in sends].count(["broker-b", "broker-a"]) <= 1
    """
    from pytest_rmq_conformance.ports.producer.sending import SimulatedRoute

    def make(
        brokers: Mapping[str, int] | None = None,
        *,
        topic: str = "TopicTest",
        latency: int = 1,
        latencies: Mapping[str, int] | None = None,
        version: str | None = None,
        clock: Any = None,
        seed: int | None = 0,
    ) -> SimulatedRoute:
        return SimulatedRoute(
            {"broker-a": 4, "broker-b": 4} if brokers is None else brokers,
            clock=rmq_clock if clock is None else clock,
            version=_port_release(version or rmq_conformance.settings.version),
            topic=topic,
            latency=latency,
            latencies=latencies,
            seed=seed,
        )

    return make
