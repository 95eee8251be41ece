"""The reference ports of the Java producer's queue selection, per release.

``MQFaultStrategy`` (``FAULT_STRATEGY``) with its ``TopicPublishInfo``, ``ThreadLocalIndex`` and
``LatencyFaultToleranceImpl``, and the selectors ``SelectMessageQueueByHash``
(``SELECTOR_HASH``) and ``SelectMessageQueueByRandom`` (``SELECTOR_RANDOM``). Each class is
named like its Java original and takes ``version=`` (one of
``pytest_rmq_conformance.releases.RELEASES``); the fault strategy also takes ``clock=``.
The shapes they implement are in :mod:`pytest_rmq_conformance.ports.producer.contract`.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from pytest_rmq_conformance.ports.producer.contract import (
    BrokerData,
    Clock,
    Counter,
    FaultItem,
    FaultStrategy,
    PublishInfo,
    QueueData,
    Selector,
    TopicRouteData,
)
from pytest_rmq_conformance.ports.producer.counter import ThreadLocalIndex, producer_release
from pytest_rmq_conformance.ports.producer.fault_strategy import MQFaultStrategy, SystemClock
from pytest_rmq_conformance.ports.producer.latency import LatencyFaultToleranceImpl
from pytest_rmq_conformance.ports.producer.publish_info import TopicPublishInfo, topic_route_data_to_topic_publish_info
from pytest_rmq_conformance.ports.producer.selectors import SelectMessageQueueByHash, SelectMessageQueueByRandom

__all__ = [
    "MQFaultStrategy",
    "TopicPublishInfo",
    "ThreadLocalIndex",
    "LatencyFaultToleranceImpl",
    "SelectMessageQueueByHash",
    "SelectMessageQueueByRandom",
    "topic_route_data_to_topic_publish_info",
    "producer_release",
    "SystemClock",
    "Clock",
    "Counter",
    "PublishInfo",
    "FaultStrategy",
    "Selector",
    "FaultItem",
    "QueueData",
    "BrokerData",
    "TopicRouteData",
]
