"""pytest-rmq-conformance: do your RocketMQ client's load-balancing strategies compute what Java computes?

This package's top level is its public API: every name the README and the documentation import
comes from here (``from pytest_rmq_conformance import MessageQueue, reference_strategy``), and
``tests/test_public_api.py`` holds the list. Every module below it is internal and may move
between releases.

Names load from their modules on first use: the plugin joins every pytest run, and most runs
need none of them.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_P = "pytest_rmq_conformance"

#: module -> the public names it holds (a pair renames: ``(public name, name in the module)``;
#: an empty name in the module is the module itself)
_MODULES: dict[str, list[str | tuple[str, str]]] = {
    # queues, Java's order and the registry of kinds and families
    f"{_P}.model": ["MessageQueue", "java_sorted_queues"],
    f"{_P}.releases": ["RELEASES", "DEFAULT_RELEASE"],
    f"{_P}.engine.kinds": [
        "reference_strategy",
        "register_kind",
        "register_family",
        "unregister_family",
        "get_kind",
        "kind_of",
        "Kind",
        "Family",
        "GeneratedCheck",
    ],
    f"{_P}.kinds.allocation.family": ["AllocationFamily", "PARTITION"],
    # the Java helpers a port needs: 32- and 64-bit arithmetic, string order and hashes, Random
    f"{_P}.javalang": [
        "INT_MIN",
        "INT_MAX",
        "LONG_MIN",
        "LONG_MAX",
        "java_int",
        "java_long",
        "java_abs",
        "java_rem",
        "mask31",
        "java_string_compare",
        "java_string_key",
        "java_sorted_strings",
        "java_sort",
        "java_sorted",
        "java_split",
        "java_get_bytes",
        "java_list_get",
        "java_string_hash",
        "java_hash_code",
        "guava_mod",
        "sip_hash24",
        "JavaInteger",
        "JavaLong",
        "JavaRandom",
        "JavaConcurrentHashMap",
    ],
    # the consumer side's reference ports
    f"{_P}.strategies": [
        "AllocateMessageQueueStrategy",
        "AllocateMessageQueueAveragely",
        "AllocateMessageQueueAveragelyByCircle",
        "AllocateMessageQueueConsistentHash",
        "AllocateMessageQueueByMachineRoom",
        "AllocateMachineRoomNearby",
        "AllocateMessageQueueByConfig",
        "MachineRoomResolver",
        "MapMachineRoomResolver",
        "SplitMachineRoomResolver",
        "HashRing",
        "md5_hash",
    ],
    # the producer side: the shapes a strategy implements, and the reference ports
    f"{_P}.producer.contract": [
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
    ],
    f"{_P}.producer": [
        "MQFaultStrategy",
        "TopicPublishInfo",
        "ThreadLocalIndex",
        "LatencyFaultToleranceImpl",
        "SelectMessageQueueByHash",
        "SelectMessageQueueByRandom",
        "topic_route_data_to_topic_publish_info",
    ],
    # the 5.x gRPC clients' route types (prefixed: the 4.x names above mean other things) and balancers
    f"{_P}.grpc": [
        ("GrpcEndpoints", "Endpoints"),
        ("GrpcBroker", "Broker"),
        ("GrpcMessageQueue", "MessageQueue"),
        "AtomicIndex",
        "MessageGroupBalancer",
        "PublishingLoadBalancer",
        "SubscriptionLoadBalancer",
        "message_group_index",
    ],
    # what the fixtures hand a test
    f"{_P}.engine.loading.subject": ["Subject"],
    f"{_P}.engine.golden.cases": ["GoldenCases", "CaseOutcome"],
    f"{_P}.kinds.allocation.groups": ["Groups"],
    f"{_P}.kinds.allocation.scenarios": ["Scenario", "Plan", "Event"],
    f"{_P}.kinds.allocation.calls": ["assign"],
    f"{_P}.plugin.producer_fixtures": ["FaultStrategies"],
    f"{_P}.producer.sending": ["SimulatedRoute", "SendOutcome"],
    f"{_P}.processqueue.clock": ["ExampleClock", "ManualClock"],
    f"{_P}.processqueue": [
        "ClientConfig",
        "Message",
        "ProcessQueue",
        "RebalancePushImpl",
        "RebalancePullImpl",
        "RebalanceLitePullImpl",
        "PullRequest",
        ("LockBroker", "Broker"),
        "RebalanceLockManager",
        "GroupSimulation",
        "OwnershipLedger",
        "MessageFlow",
        "Consumption",
    ],
    # the hooks a conftest.py or plugin implements (pluggy specs, documented with examples)
    f"{_P}.plugin.hookspecs": [("hookspecs", "")],
}

def _homes() -> dict[str, tuple[str, str]]:
    """Public name -> (module, name in the module)."""
    pairs = ((module, entry if isinstance(entry, tuple) else (entry, entry)) for module, names in _MODULES.items() for entry in names)
    return {public: (module, inner) for module, (public, inner) in pairs}


_HOME = _homes()

__all__ = ["__version__"]
__all__ += list(_HOME)


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, inner = home
    value = importlib.import_module(module)
    if inner:
        value = getattr(value, inner)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
