"""The load balancers of the 5.x gRPC Java client, ported: ``PublishingLoadBalancer`` (a
producer's queues: round robin over brokers, and FIFO message groups by SipHash) and
``SubscriptionLoadBalancer`` (a simple consumer's queue: round robin).

Each keeps, in route order, the queues of master brokers (id 0) that it may use (writable to
publish, readable to subscribe), and raises ``ValueError`` (Java's
``IllegalArgumentException``) when none is left. The index is Java's ``AtomicInteger``: random
in ``[0, Integer.MAX_VALUE)`` when none is given, shared with the balancers that
:meth:`~PublishingLoadBalancer.update` makes, and wrapping from ``MAX_VALUE`` to ``MIN_VALUE``.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence

from pytest_rmq_conformance.javalang import INT_MAX, guava_mod, java_get_bytes, java_int, sip_hash24
from pytest_rmq_conformance.ports.grpc.route import MASTER_BROKER_ID, Endpoints, MessageQueue, is_readable, is_writable

__all__ = ["AtomicIndex", "PublishingLoadBalancer", "MessageGroupBalancer", "SubscriptionLoadBalancer", "message_group_index"]


class AtomicIndex:
    """Java's ``AtomicInteger`` as the balancers use it."""

    __slots__ = ("value",)

    def __init__(self, value: int | None = None):
        self.value = java_int(random.randrange(INT_MAX) if value is None else value)

    def get_and_increment(self) -> int:
        value = self.value
        self.value = java_int(value + 1)
        return value


def message_group_index(group: str, count: int) -> int:
    """Where ``takeMessageQueueByMessageGroup`` sends ``group`` among ``count`` queues:
    ``LongMath.mod(sipHash24(group.getBytes(UTF_8)).asLong(), count)``."""
    return guava_mod(sip_hash24(java_get_bytes(group, "UTF-8")), count)


def _route_text(route: Sequence[MessageQueue]) -> str:
    """``TopicRouteData.toString()``, as Java's exception messages embed it."""
    return "TopicRouteData{messageQueueImpls=[" + ", ".join(f"{mq.broker.name}.{mq.topic}.{mq.queue_id}" for mq in route) + "]}"


class PublishingLoadBalancer:
    """``PublishingLoadBalancer(topicRouteData)``; ``index`` pins its ``AtomicInteger`` (the
    private constructor the golden vectors were taken with)."""

    name = "PUBLISH_ROUND_ROBIN"

    def __init__(self, route: Sequence[MessageQueue], index: int | AtomicIndex | None = None):
        self._index = index if isinstance(index, AtomicIndex) else AtomicIndex(index)
        self.message_queues = [mq for mq in route if is_writable(mq.permission) and mq.broker.id == MASTER_BROKER_ID]
        if not self.message_queues:
            raise ValueError(f"No writable message queue found, topiRouteData={_route_text(route)}")

    @property
    def index(self) -> int:
        """The index's current value."""
        return self._index.value

    def update(self, route: Sequence[MessageQueue]) -> PublishingLoadBalancer:
        """A balancer of ``route`` sharing this one's index."""
        return type(self)(route, self._index)

    def take_message_queue_by_message_group(self, group: str) -> MessageQueue:
        queues = self.message_queues
        return queues[message_group_index(group, len(queues))]

    def take_message_queues(self, excluded: Collection[Endpoints], count: int) -> list[MessageQueue]:
        """Up to ``count`` queues, one per broker name, round robin from the index, passing over
        brokers whose endpoints are ``excluded``; if that leaves none, the same scan again
        ignoring ``excluded``."""
        queues = self.message_queues
        n = len(queues)
        next_index = self._index.get_and_increment()
        candidates: list[MessageQueue] = []
        names: set[str] = set()
        for _ in range(n):
            mq = queues[guava_mod(next_index, n)]
            next_index = java_int(next_index + 1)
            if mq.broker.endpoints not in excluded and mq.broker.name not in names:
                names.add(mq.broker.name)
                candidates.append(mq)
            if len(candidates) >= count:
                return candidates
        if not candidates:  # every broker is excluded
            for _ in range(n):
                mq = queues[guava_mod(next_index, n)]
                next_index = java_int(next_index + 1)
                if mq.broker.name not in names:
                    names.add(mq.broker.name)
                    candidates.append(mq)
                if len(candidates) >= count:
                    break
        return candidates


class MessageGroupBalancer(PublishingLoadBalancer):
    """The same balancer, judged as ``GROUP_HASH`` (its message-group routing)."""

    name = "GROUP_HASH"


class SubscriptionLoadBalancer:
    """``SubscriptionLoadBalancer(topicRouteData)``; ``index`` pins its ``AtomicInteger``."""

    name = "SUBSCRIBE_ROUND_ROBIN"

    def __init__(self, route: Sequence[MessageQueue], index: int | AtomicIndex | None = None):
        self._index = index if isinstance(index, AtomicIndex) else AtomicIndex(index)
        self.message_queues = [mq for mq in route if is_readable(mq.permission) and mq.broker.id == MASTER_BROKER_ID]
        if not self.message_queues:
            raise ValueError(f"No readable message queue found, topiRouteData={_route_text(route)}")

    @property
    def index(self) -> int:
        return self._index.value

    def update(self, route: Sequence[MessageQueue]) -> SubscriptionLoadBalancer:
        return type(self)(route, self._index)

    def take_message_queue(self) -> MessageQueue:
        queues = self.message_queues
        return queues[guava_mod(self._index.get_and_increment(), len(queues))]
