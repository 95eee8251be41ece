"""Reference ports of the 5.x gRPC clients' load balancers (``apache/rocketmq-clients``, Java):
the route model (:mod:`.route`) and the publishing and subscription balancers (:mod:`.balancers`).

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from pytest_rmq_conformance.ports.grpc.balancers import (
    AtomicIndex,
    MessageGroupBalancer,
    PublishingLoadBalancer,
    SubscriptionLoadBalancer,
    message_group_index,
)
from pytest_rmq_conformance.ports.grpc.route import Broker, Endpoints, MessageQueue

__all__ = [
    "AtomicIndex",
    "Broker",
    "Endpoints",
    "MessageGroupBalancer",
    "MessageQueue",
    "PublishingLoadBalancer",
    "SubscriptionLoadBalancer",
    "message_group_index",
]
