"""A 5.x gRPC client's view of a topic's route: endpoints, brokers and message queues.

Ports of ``route/Endpoints``, ``route/Broker``, ``route/MessageQueueImpl``, ``route/Permission``
and ``route/TopicRouteData`` of ``apache/rocketmq-clients`` (Java), as far as the balancers use
them: a route is a list of :class:`MessageQueue`; two endpoints are equal when their scheme and
their address list, in order, are.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "PERMISSIONS",
    "SCHEMES",
    "MASTER_BROKER_ID",
    "Endpoints",
    "Broker",
    "MessageQueue",
    "is_readable",
    "is_writable",
    "route_from_json",
    "endpoints_from_json",
    "route_to_json",
    "endpoints_to_json",
]

#: ``apache.rocketmq.v2.Permission`` values a route carries
PERMISSIONS = ("NONE", "READ", "WRITE", "READ_WRITE")
#: ``apache.rocketmq.v2.AddressScheme`` values
SCHEMES = ("IPv4", "IPv6", "DOMAIN_NAME")
#: ``Utilities.MASTER_BROKER_ID``: the balancers keep the queues of master brokers only
MASTER_BROKER_ID = 0


def is_writable(permission: str) -> bool:
    """``Permission.isWritable()``: ``WRITE`` or ``READ_WRITE``."""
    return permission in ("WRITE", "READ_WRITE")


def is_readable(permission: str) -> bool:
    """``Permission.isReadable()``: ``READ`` or ``READ_WRITE``."""
    return permission in ("READ", "READ_WRITE")


@dataclass(frozen=True)
class Endpoints:
    """Where a broker listens: a scheme and ``(host, port)`` addresses, in order. Hashable and
    equal as Java's ``Endpoints.equals`` (scheme and address list, in order)."""

    scheme: str
    addresses: tuple[tuple[str, int], ...]

    def __str__(self) -> str:
        return f"{self.scheme}:" + ",".join(f"{host}:{port}" for host, port in self.addresses)


@dataclass(frozen=True)
class Broker:
    """A broker of the route: its name, its id (0 is the master) and its endpoints."""

    name: str
    id: int
    endpoints: Endpoints


@dataclass(frozen=True, eq=False)
class MessageQueue:
    """One queue of the route, as ``MessageQueueImpl``. Identity is kept apart from value here (the
    balancers hold the very objects of the route, and two entries may be alike); the suite compares
    answers by value, as Java's ``equals`` does (``kinds.grpc.play``)."""

    topic: str
    broker: Broker
    queue_id: int
    permission: str

    def __repr__(self) -> str:
        return f"MessageQueue({self.topic}/{self.broker.name}#{self.broker.id}/{self.queue_id} {self.permission})"


def endpoints_from_json(data: Mapping[str, Any]) -> Endpoints:
    """``{"scheme", "addresses": [[host, port], ...]}`` as :class:`Endpoints`."""
    return Endpoints(data["scheme"], tuple((host, port) for host, port in data["addresses"]))


def endpoints_to_json(endpoints: Endpoints) -> dict[str, Any]:
    return {"scheme": endpoints.scheme, "addresses": [[host, port] for host, port in endpoints.addresses]}


def route_from_json(queues: Iterable[Mapping[str, Any]], topic: str = "TopicTest") -> list[MessageQueue]:
    """A golden route (``[{"queueId", "permission", "broker": {"name", "id", "endpoints"}}]``) as
    a list of fresh :class:`MessageQueue`."""
    return [
        MessageQueue(topic, Broker(q["broker"]["name"], q["broker"]["id"], endpoints_from_json(q["broker"]["endpoints"])),
                     q["queueId"], q["permission"])
        for q in queues
    ]


def route_to_json(queues: Sequence[MessageQueue]) -> list[dict[str, Any]]:
    """The other way: what the protocol and the golden files hold."""
    return [
        {"queueId": q.queue_id, "permission": q.permission,
         "broker": {"name": q.broker.name, "id": q.broker.id, "endpoints": endpoints_to_json(q.broker.endpoints)}}
        for q in queues
    ]
