"""Models of the Java client's rebalance machinery, for tests of what a group does while it
rebalances: :class:`ProcessQueue`, :class:`RebalancePushImpl` and friends, the broker's lock
table, and :class:`GroupSimulation` (clients, membership events, time).

Behaviour follows RocketMQ 4.9.8 or 5.3.3 (``version=``); names are the Java
names in snake_case. Every model takes a clock with ``now()`` in milliseconds,
so tests move time by hand.
"""

from pytest_rmq_conformance.processqueue.broker import Broker, BrokerUnavailable, RebalanceLockManager
from pytest_rmq_conformance.processqueue.clock import ManualClock, SystemClock, Timers
from pytest_rmq_conformance.processqueue.config import CLIENT_VERSIONS, ClientConfig
from pytest_rmq_conformance.processqueue.consume import (
    COMMIT,
    CONSUME_SUCCESS,
    RECONSUME_LATER,
    ROLLBACK,
    SUCCESS,
    SUSPEND_CURRENT_QUEUE_A_MOMENT,
    OrderlyRun,
    consume_request_run_concurrently,
    consume_request_run_orderly,
    process_consume_result_concurrently,
    process_consume_result_orderly,
)
from pytest_rmq_conformance.processqueue.offset_store import (
    CONSUME_FROM_FIRST_OFFSET,
    CONSUME_FROM_LAST_OFFSET,
    CONSUME_FROM_TIMESTAMP,
    MEMORY_FIRST_THEN_STORE,
    READ_FROM_MEMORY,
    READ_FROM_STORE,
    OffsetStore,
)
from pytest_rmq_conformance.processqueue.process_queue import (
    PROPERTY_CONSUME_START_TIME,
    PROPERTY_MAX_OFFSET,
    Message,
    ProcessQueue,
    ProcessQueueInfo,
    fill,
)
from pytest_rmq_conformance.processqueue.pull import (
    PullDecision,
    lite_pull_result,
    lite_pull_task,
    process_pull_result,
    pull_exception_delay,
    pull_message,
)
from pytest_rmq_conformance.processqueue.simulation import (
    Consumption,
    Gap,
    GroupSimulation,
    MessageFlow,
    Overlap,
    Ownership,
)
from pytest_rmq_conformance.processqueue.rebalance import (
    BROADCASTING,
    CLUSTERING,
    CONSUME_ACTIVELY,
    CONSUME_PASSIVELY,
    REBALANCE_KINDS,
    MQClientException,
    PullRequest,
    RebalanceImpl,
    RebalanceLitePullImpl,
    RebalancePullImpl,
    RebalancePushImpl,
)

__all__ = [
    "Broker",
    "BrokerUnavailable",
    "RebalanceLockManager",
    "ManualClock",
    "SystemClock",
    "Timers",
    "CLIENT_VERSIONS",
    "ClientConfig",
    "OffsetStore",
    "READ_FROM_MEMORY",
    "READ_FROM_STORE",
    "MEMORY_FIRST_THEN_STORE",
    "CONSUME_FROM_FIRST_OFFSET",
    "CONSUME_FROM_LAST_OFFSET",
    "CONSUME_FROM_TIMESTAMP",
    "Message",
    "ProcessQueue",
    "fill",
    "PROPERTY_MAX_OFFSET",
    "PROPERTY_CONSUME_START_TIME",
    "BROADCASTING",
    "CLUSTERING",
    "CONSUME_ACTIVELY",
    "CONSUME_PASSIVELY",
    "REBALANCE_KINDS",
    "MQClientException",
    "PullRequest",
    "RebalanceImpl",
    "RebalancePushImpl",
    "RebalancePullImpl",
    "RebalanceLitePullImpl",
    "CONSUME_SUCCESS",
    "RECONSUME_LATER",
    "SUCCESS",
    "COMMIT",
    "ROLLBACK",
    "SUSPEND_CURRENT_QUEUE_A_MOMENT",
    "process_consume_result_concurrently",
    "process_consume_result_orderly",
    "OrderlyRun",
    "consume_request_run_concurrently",
    "consume_request_run_orderly",
    "ProcessQueueInfo",
    "PullDecision",
    "pull_exception_delay",
    "lite_pull_task",
    "lite_pull_result",
    "pull_message",
    "process_pull_result",
    "GroupSimulation",
    "MessageFlow",
    "Ownership",
    "Overlap",
    "Gap",
    "Consumption",
]
