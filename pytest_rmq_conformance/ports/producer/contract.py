"""The Python shape of a producer's queue selection, after the Java client's own split.

A producer picks one queue of a topic for every send. The Java client spreads that over three
objects, and so does this contract, so that a port can hand its own classes to the suite
through a thin adapter:

- a :class:`FaultStrategy` (Java ``MQFaultStrategy``) turns a route into a
  :class:`PublishInfo`, selects a queue of it for a send, and keeps the fault table that
  ``update_fault_item`` fills (Java ``LatencyFaultToleranceImpl``);
- a :class:`PublishInfo` (Java ``TopicPublishInfo``) holds the publish list and its
  round-robin :class:`Counter` (Java ``ThreadLocalIndex``);
- a :class:`Selector` (Java ``MessageQueueSelector``) picks the queue of an ordered or custom
  send from a copy of the publish list.

Time is the suite's: a fault strategy is built with ``clock=``, an object whose ``now()``
returns Java's ``currentTimeMillis`` (an ``int``), and reads the time through it only. The
counter is pinned by the suite through :meth:`Counter.pin`, as the Java harness pinned the
``ThreadLocal`` and the ``Random`` of every counter.

Java's exceptions are Python exceptions: ``IllegalArgumentException`` is ``ValueError``;
any other Java exception needs some exception.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pytest_rmq_conformance.model import MessageQueue

__all__ = [
    "Clock",
    "Counter",
    "PublishInfo",
    "FaultItem",
    "FaultStrategy",
    "Detecting",
    "Selector",
    "QueueData",
    "BrokerData",
    "TopicRouteData",
    "MASTER_ID",
    "PERM_WRITE",
]

#: the broker id of a master in ``BrokerData.broker_addrs``
MASTER_ID = 0
#: the write bit of ``QueueData.perm`` (Java ``PermName.PERM_WRITE``)
PERM_WRITE = 2


class Clock(Protocol):
    """The time a fault strategy sees, in whole milliseconds."""

    def now(self) -> int: ...


@dataclass(frozen=True)
class QueueData:
    """One broker's queues of a topic in a route (Java ``QueueData``)."""

    broker_name: str
    write_queue_nums: int
    perm: int = 6
    read_queue_nums: int | None = None  # Java's readQueueNums; the suite sets it to write_queue_nums


@dataclass(frozen=True)
class BrokerData:
    """One broker's addresses by broker id (Java ``BrokerData``); id 0 is the master."""

    broker_name: str
    broker_addrs: Mapping[int, str]


@dataclass(frozen=True)
class TopicRouteData:
    """A topic's route as the name server gives it (Java ``TopicRouteData``)."""

    queue_datas: Sequence[QueueData]
    broker_datas: Sequence[BrokerData]
    order_topic_conf: str | None = None


@dataclass(frozen=True)
class FaultItem:
    """One broker's entry of the fault table (Java ``FaultItem``): the latency of its last
    send, when it is available again (``start_timestamp``), and, from 5.x on, whether it is
    reachable and when the detector looks at it next."""

    name: str
    latency: int
    start_timestamp: int
    reachable: bool = True
    check_stamp: int = 0


@runtime_checkable
class Counter(Protocol):
    """A round-robin counter (Java ``ThreadLocalIndex``, on one thread)."""

    @property
    def stored(self) -> int | None:
        """The value stored after the last step (``None`` until the first one). Settable: a
        trace's ``set_index`` sets the ``ThreadLocal`` alone and keeps the ``Random``."""
        ...

    @stored.setter
    def stored(self, value: int | None) -> None: ...

    def pin(self, stored: int | None, seed: int) -> None:
        """Store ``stored`` (``None``: unset) and draw from ``java.util.Random(seed)`` from now on."""
        ...


@runtime_checkable
class PublishInfo(Protocol):
    """A topic's publish list and its counter (Java ``TopicPublishInfo``).

    ``queues`` is the list itself: an entry a strategy replaces stays replaced for later
    selections, until a new publish info comes with a new route.
    """

    queues: list[MessageQueue]
    send_which_queue: Counter

    def select_one_message_queue(self, last_broker_name: str | None = None) -> MessageQueue:
        """Java ``TopicPublishInfo.selectOneMessageQueue(lastBrokerName)``: round robin,
        avoiding ``last_broker_name`` when it can."""
        ...


@runtime_checkable
class FaultStrategy(Protocol):
    """A producer's queue selection with its fault table (Java ``MQFaultStrategy``).

    Built as ``factory(clock=...)``; ``send_latency_fault_enable``, ``latency_max`` and
    ``not_available_duration`` are settable, as Java's setters are. A 4.x port may also have
    ``which_item_worst``, the :class:`Counter` of ``pickOneAtLeast``, for the suite to pin and read.
    """

    send_latency_fault_enable: bool
    latency_max: list[int]
    not_available_duration: list[int]

    def publish_info(self, topic: str, route: TopicRouteData) -> PublishInfo:
        """A new publish info for ``route`` (Java ``MQClientInstance.topicRouteData2TopicPublishInfo``)."""
        ...

    def select_one_message_queue(
        self, info: PublishInfo, last_broker_name: str | None, reset_index: bool = False
    ) -> MessageQueue | None:
        """The queue of the next send; ``last_broker_name`` is the broker the previous attempt
        went to (``None`` on a first attempt). ``reset_index`` is 5.x's."""
        ...

    def update_fault_item(self, broker_name: str, latency: int, isolation: bool, reachable: bool = True) -> None:
        """Record how a send to ``broker_name`` went (``reachable`` is 5.x's)."""
        ...

    def fault_items(self) -> Sequence[FaultItem]:
        """The fault table, in the order the strategy iterates it."""
        ...


class Detecting(Protocol):
    """A 5.x fault strategy's detector round (Java ``LatencyFaultToleranceImpl.detectByOneRound``)."""

    def detect_by_one_round(self, resolve: Callable[[str], str | None], detect: Callable[[str, int], bool]) -> None:
        """Look at every item due: an unresolvable broker leaves the table, one that
        ``detect(address, timeout_ms)`` reaches becomes reachable."""
        ...


@runtime_checkable
class Selector(Protocol):
    """Java ``MessageQueueSelector``: ``select(mqs, msg, arg)`` returns one of ``mqs``.

    ``arg`` is the send's argument as the suite gives it: a ``str``, ``None``, or an object
    with ``java_hash_code()`` (:class:`~pytest_rmq_conformance.javalang.JavaInteger`,
    :class:`~pytest_rmq_conformance.javalang.JavaLong`, ...).
    """

    def select(self, mqs: Sequence[MessageQueue], msg: Any, arg: Any) -> MessageQueue: ...
