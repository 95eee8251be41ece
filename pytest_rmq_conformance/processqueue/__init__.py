"""Models of the Java client's rebalance machinery, for tests of what a group does while it
rebalances: :class:`ProcessQueue`, :class:`RebalancePushImpl` and friends, the broker's lock
table, and :class:`GroupSimulation` (clients, membership events, time).

Behaviour follows RocketMQ 4.9.8 or 5.3.3 (``version=``); names are the Java
names in snake_case. Every model takes a clock with ``now()`` in milliseconds,
so tests move time by hand.

Names are imported from their modules on first use: a fixture of the plugin's
(:mod:`pytest_rmq_conformance.plugin.allocation_fixtures`) loads the models it hands out, and
no others. Nothing here imports pytest.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import importlib
from typing import Any

#: module (in this package) -> the public names it holds
_MODULES: dict[str, list[str]] = {
    "broker": ["Broker", "BrokerUnavailable", "RebalanceLockManager"],
    "clock": ["ManualClock", "SystemClock", "Timers", "NoProgress"],
    "config": ["CLIENT_VERSIONS", "ClientConfig"],
    "offset_store": [
        "OffsetStore",
        "READ_FROM_MEMORY",
        "READ_FROM_STORE",
        "MEMORY_FIRST_THEN_STORE",
        "CONSUME_FROM_FIRST_OFFSET",
        "CONSUME_FROM_LAST_OFFSET",
        "CONSUME_FROM_TIMESTAMP",
    ],
    "process_queue": ["Message", "ProcessQueue", "fill", "PROPERTY_MAX_OFFSET", "PROPERTY_CONSUME_START_TIME", "ProcessQueueInfo"],
    "rebalance": [
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
    ],
    "consume": [
        "CONSUME_SUCCESS",
        "RECONSUME_LATER",
        "SUCCESS",
        "COMMIT",
        "ROLLBACK",
        "SUSPEND_CURRENT_QUEUE_A_MOMENT",
        "process_consume_result_concurrently",
        "process_consume_result_orderly",
        "OrderlyRun",
        "OrderlyLoop",
        "consume_request_run_concurrently",
        "consume_request_run_orderly",
    ],
    "pull": ["PullDecision", "pull_exception_delay", "lite_pull_task", "lite_pull_result", "pull_message", "process_pull_result"],
    "group": ["GroupSimulation", "default_queues", "default_clients"],
    "ownership": ["Ownership", "Overlap", "Gap", "OwnershipLedger"],
    "message_flow": ["MessageFlow", "Consumption"],
}

_HOME = {name: module for module, names in _MODULES.items() for name in names}

__all__ = list(_HOME)


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
