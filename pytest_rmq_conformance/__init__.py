"""pytest-rmq-conformance: do your RocketMQ client's load-balancing strategies compute what Java computes?

This package's top level is its public API: every name the README and the documentation import
comes from here (``from pytest_rmq_conformance import MessageQueue, reference_strategy``), and
``tests/test_public_api.py`` holds the list. Every module below it is internal and may move
between releases.

Names load from their modules on first use: the plugin joins every pytest run, and most runs
need none of them. Type checkers read the same names from the ``TYPE_CHECKING`` imports below,
which the tests hold equal to the table the names load from.
"""

from typing import TYPE_CHECKING

from pytest_rmq_conformance._version import __version__

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.golden.cases import (
        CaseOutcome,
        GoldenCases,
    )
    from pytest_rmq_conformance.engine.kinds import (
        Family,
        GeneratedCheck,
        Kind,
        get_kind,
        kind_of,
        reference_strategy,
        register_family,
        register_kind,
        unregister_family,
    )
    from pytest_rmq_conformance.engine.loading.subject import (
        Subject,
    )
    from pytest_rmq_conformance.javalang import (
        INT_MAX,
        INT_MIN,
        LONG_MAX,
        LONG_MIN,
        HashCodeOf,
        JavaConcurrentHashMap,
        JavaInteger,
        JavaLong,
        JavaRandom,
        guava_mod,
        java_abs,
        java_get_bytes,
        java_hash_code,
        java_int,
        java_list_get,
        java_long,
        java_rem,
        java_sort,
        java_sorted,
        java_sorted_strings,
        java_split,
        java_string_compare,
        java_string_hash,
        java_string_key,
        mask31,
        sip_hash24,
    )
    from pytest_rmq_conformance.kinds.allocation.calls import (
        assign,
    )
    from pytest_rmq_conformance.kinds.allocation.draws import (
        Groups,
    )
    from pytest_rmq_conformance.kinds.allocation.family import (
        PARTITION,
        AllocationFamily,
    )
    from pytest_rmq_conformance.kinds.allocation.scenarios import (
        Event,
        Plan,
        Scenario,
    )
    from pytest_rmq_conformance.model import (
        MessageQueue,
        java_sorted_queues,
    )
    from pytest_rmq_conformance.pipeline.producer.sim import (
        Measured,
    )
    from pytest_rmq_conformance.pipeline.producer.sim import (
        Scenario as ProducerScenario,
    )
    from pytest_rmq_conformance.pipeline.producer.sim import (
        simulate as simulate_producer,
    )
    from pytest_rmq_conformance.plugin import hookspecs as hookspecs
    from pytest_rmq_conformance.plugin.producer_fixtures import (
        FaultStrategies,
    )
    from pytest_rmq_conformance.plugin.state import (
        RunState,
        rmq_state,
    )
    from pytest_rmq_conformance.ports.allocation import (
        AllocateMachineRoomNearby,
        AllocateMessageQueueAveragely,
        AllocateMessageQueueAveragelyByCircle,
        AllocateMessageQueueByConfig,
        AllocateMessageQueueByMachineRoom,
        AllocateMessageQueueConsistentHash,
        AllocateMessageQueueStrategy,
        HashRing,
        MachineRoomResolver,
        MapMachineRoomResolver,
        SplitMachineRoomResolver,
        md5_hash,
    )
    from pytest_rmq_conformance.ports.grpc import (
        AtomicIndex,
        MessageGroupBalancer,
        PublishingLoadBalancer,
        SubscriptionLoadBalancer,
        message_group_index,
    )
    from pytest_rmq_conformance.ports.grpc import (
        Broker as GrpcBroker,
    )
    from pytest_rmq_conformance.ports.grpc import (
        Endpoints as GrpcEndpoints,
    )
    from pytest_rmq_conformance.ports.grpc import (
        MessageQueue as GrpcMessageQueue,
    )
    from pytest_rmq_conformance.ports.producer import (
        LatencyFaultToleranceImpl,
        MQFaultStrategy,
        SelectMessageQueueByHash,
        SelectMessageQueueByRandom,
        ThreadLocalIndex,
        TopicPublishInfo,
        topic_route_data_to_topic_publish_info,
    )
    from pytest_rmq_conformance.ports.producer.contract import (
        MASTER_ID,
        PERM_WRITE,
        BrokerData,
        Clock,
        Counter,
        Detecting,
        FaultItem,
        FaultStrategy,
        PublishInfo,
        QueueData,
        Selector,
        TopicRouteData,
    )
    from pytest_rmq_conformance.ports.producer.sending import (
        SendOutcome,
        SimulatedRoute,
    )
    from pytest_rmq_conformance.processqueue.broker import Broker as LockBroker
    from pytest_rmq_conformance.processqueue.broker import RebalanceLockManager
    from pytest_rmq_conformance.processqueue.clock import (
        ExampleClock,
        ManualClock,
    )
    from pytest_rmq_conformance.processqueue.config import ClientConfig
    from pytest_rmq_conformance.processqueue.group import GroupSimulation
    from pytest_rmq_conformance.processqueue.message_flow import Consumption, MessageFlow
    from pytest_rmq_conformance.processqueue.ownership import OwnershipLedger
    from pytest_rmq_conformance.processqueue.process_queue import Message, ProcessQueue
    from pytest_rmq_conformance.processqueue.rebalance import (
        PullRequest,
        RebalanceLitePullImpl,
        RebalancePullImpl,
        RebalancePushImpl,
    )
    from pytest_rmq_conformance.releases import (
        DEFAULT_RELEASE,
        PORT_RELEASE,
        RELEASES,
    )

#: the public names, as type checkers and ``import *`` read them (the table below loads them)
__all__ = [
    "__version__",
    "AllocateMachineRoomNearby",
    "AllocateMessageQueueAveragely",
    "AllocateMessageQueueAveragelyByCircle",
    "AllocateMessageQueueByConfig",
    "AllocateMessageQueueByMachineRoom",
    "AllocateMessageQueueConsistentHash",
    "AllocateMessageQueueStrategy",
    "AllocationFamily",
    "assign",
    "AtomicIndex",
    "BrokerData",
    "CaseOutcome",
    "ClientConfig",
    "Clock",
    "Consumption",
    "Counter",
    "DEFAULT_RELEASE",
    "Detecting",
    "Event",
    "ExampleClock",
    "Family",
    "FaultItem",
    "FaultStrategies",
    "FaultStrategy",
    "GeneratedCheck",
    "get_kind",
    "GoldenCases",
    "Groups",
    "GroupSimulation",
    "GrpcBroker",
    "GrpcEndpoints",
    "GrpcMessageQueue",
    "guava_mod",
    "HashCodeOf",
    "HashRing",
    "hookspecs",
    "INT_MAX",
    "INT_MIN",
    "java_abs",
    "java_get_bytes",
    "java_hash_code",
    "java_int",
    "java_list_get",
    "java_long",
    "java_rem",
    "java_sort",
    "java_sorted",
    "java_sorted_queues",
    "java_sorted_strings",
    "java_split",
    "java_string_compare",
    "java_string_hash",
    "java_string_key",
    "JavaConcurrentHashMap",
    "JavaInteger",
    "JavaLong",
    "JavaRandom",
    "Kind",
    "kind_of",
    "LatencyFaultToleranceImpl",
    "LockBroker",
    "LONG_MAX",
    "LONG_MIN",
    "MachineRoomResolver",
    "ManualClock",
    "MapMachineRoomResolver",
    "mask31",
    "MASTER_ID",
    "md5_hash",
    "Measured",
    "Message",
    "message_group_index",
    "MessageFlow",
    "MessageGroupBalancer",
    "MessageQueue",
    "MQFaultStrategy",
    "OwnershipLedger",
    "PARTITION",
    "PERM_WRITE",
    "PORT_RELEASE",
    "Plan",
    "ProcessQueue",
    "ProducerScenario",
    "PublishInfo",
    "PublishingLoadBalancer",
    "PullRequest",
    "QueueData",
    "RebalanceLitePullImpl",
    "RebalanceLockManager",
    "RebalancePullImpl",
    "RebalancePushImpl",
    "reference_strategy",
    "register_family",
    "register_kind",
    "RELEASES",
    "rmq_state",
    "RunState",
    "Scenario",
    "SelectMessageQueueByHash",
    "SelectMessageQueueByRandom",
    "Selector",
    "SendOutcome",
    "simulate_producer",
    "SimulatedRoute",
    "sip_hash24",
    "SplitMachineRoomResolver",
    "Subject",
    "SubscriptionLoadBalancer",
    "ThreadLocalIndex",
    "topic_route_data_to_topic_publish_info",
    "TopicPublishInfo",
    "TopicRouteData",
    "unregister_family",
]

_P = "pytest_rmq_conformance"

#: module -> the public names it holds (a pair renames: ``(public name, name in the module)``;
#: an empty name in the module is the module itself)
_MODULES: dict[str, list[str | tuple[str, str]]] = {
    # queues, Java's order and the registry of kinds and families
    f"{_P}.model": ["MessageQueue", "java_sorted_queues"],
    f"{_P}.releases": ["RELEASES", "PORT_RELEASE", "DEFAULT_RELEASE"],
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
        "HashCodeOf",
    ],
    # the consumer side's reference ports
    f"{_P}.ports.allocation": [
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
    f"{_P}.ports.producer.contract": [
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
    f"{_P}.ports.producer": [
        "MQFaultStrategy",
        "TopicPublishInfo",
        "ThreadLocalIndex",
        "LatencyFaultToleranceImpl",
        "SelectMessageQueueByHash",
        "SelectMessageQueueByRandom",
        "topic_route_data_to_topic_publish_info",
    ],
    # the 5.x gRPC clients' route types (prefixed: the 4.x names above mean other things) and balancers
    f"{_P}.ports.grpc": [
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
    f"{_P}.kinds.allocation.draws": ["Groups"],
    f"{_P}.kinds.allocation.scenarios": ["Scenario", "Plan", "Event"],
    f"{_P}.kinds.allocation.calls": ["assign"],
    f"{_P}.plugin.producer_fixtures": ["FaultStrategies"],
    f"{_P}.ports.producer.sending": ["SimulatedRoute", "SendOutcome"],
    f"{_P}.processqueue.clock": ["ExampleClock", "ManualClock"],
    f"{_P}.processqueue.config": ["ClientConfig"],
    f"{_P}.processqueue.process_queue": ["Message", "ProcessQueue"],
    f"{_P}.processqueue.rebalance": ["RebalancePushImpl", "RebalancePullImpl", "RebalanceLitePullImpl", "PullRequest"],
    f"{_P}.processqueue.broker": [("LockBroker", "Broker"), "RebalanceLockManager"],
    f"{_P}.processqueue.group": ["GroupSimulation"],
    f"{_P}.processqueue.ownership": ["OwnershipLedger"],
    f"{_P}.processqueue.message_flow": ["MessageFlow", "Consumption"],
    # a producer's send stream: the producer sweep's simulation, to play a fault strategy through in a notebook
    f"{_P}.pipeline.producer.sim": [("simulate_producer", "simulate"), ("ProducerScenario", "Scenario"), "Measured"],
    # what a plugin reaches of the run: its state, and the hooks a conftest.py or plugin implements (pluggy specs, documented with examples)
    f"{_P}.plugin.state": ["rmq_state", "RunState"],
    f"{_P}.plugin.hookspecs": [("hookspecs", "")],
}

def _homes() -> dict[str, tuple[str, str]]:
    """Public name -> (module, name in the module)."""
    pairs = ((module, entry if isinstance(entry, tuple) else (entry, entry)) for module, names in _MODULES.items() for entry in names)
    return {public: (module, inner) for module, (public, inner) in pairs}


_HOME = _homes()



def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    module, inner = home
    value = import_module(module)
    if inner:
        value = getattr(value, inner)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names and the module's own dunders: not the helpers of this file, nor the
    modules below it that an import made attributes."""
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})


del TYPE_CHECKING
