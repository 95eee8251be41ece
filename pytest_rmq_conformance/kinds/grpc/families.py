"""The three Java families of the 5.x gRPC clients' balancers, registered when imported.

Each is built as ``factory(route=..., index=...)``: ``route`` a list of
:class:`~pytest_rmq_conformance.ports.grpc.route.MessageQueue`, ``index`` the value its round-robin
index starts at (Java's ``AtomicInteger``, random in production). ``GROUP_HASH`` is the
publishing balancer judged on its message-group routing.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.kinds.grpc.properties import java_properties
from pytest_rmq_conformance.ports.grpc import MessageGroupBalancer, PublishingLoadBalancer, SubscriptionLoadBalancer

__all__ = ["KIND", "PORTS"]

KIND = "grpc"
Params = Mapping[str, Any]
PORTS = {"GROUP_HASH": MessageGroupBalancer, "PUBLISH_ROUND_ROBIN": PublishingLoadBalancer, "SUBSCRIBE_ROUND_ROBIN": SubscriptionLoadBalancer}


def _probe() -> dict[str, Any]:
    """A route of one writable and readable queue of a master, to build a balancer before any case."""
    from pytest_rmq_conformance.kinds.grpc.play import group_route

    return {"route": group_route(1), "index": 0}


def _keywords(params: Params) -> dict[str, Any]:
    if "route" not in params:  # probing: no case yet
        return _probe()
    return {"route": params["route"], "index": params["index"]}


def _java_properties(family: str) -> Any:
    return lambda version: java_properties(family)


def _builder(port: type) -> Any:
    return lambda params, version, charset: port(**_keywords(params))


for _name, _port in PORTS.items():
    kinds.register_family(
        kinds.Family(
            name=_name,
            kind=KIND,
            build=_builder(_port),
            keywords=lambda params, version, charset: _keywords(params),
            params=lambda keywords: {},
            port=_port,
            properties=_java_properties(_name),
            stateful=True,
        )
    )
