"""The Java client's tunables (system properties) and the releases the models follow.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

__all__ = ["ClientConfig", "CLIENT_VERSIONS", "ALIASES", "client_version"]

#: releases whose client behaviour the models reproduce: 4.9.8 and 5.3.3 as the Java classes
#: behave (docs/explanation/process-queue.md), and 5.5.0, whose modelled methods are 5.3.3's but
#: for ``RebalanceImpl.rebalanceByTopic``: an empty route or consumer list ends a clustering
#: rebalance there as balanced (an empty route, outside a retry topic, tells the listener first)
CLIENT_VERSIONS = ("4.9.8", "5.3.3", "5.5.0")

#: releases the models follow as another: the lines' newest, 4.7.1 as 4.9.8 (its classes differ,
#: but not in what the fixtures drive), and 5.4.0, whose modelled methods are 5.3.3's (it
#: changed only ``sendMessageBackAsNormalMessage`` and the lite pull consumer's ``subscriptions``)
ALIASES = {"4.9": "4.9.8", "5.3": "5.3.3", "5.4": "5.3.3", "5.5": "5.5.0", "4.7.1": "4.9.8", "5.4.0": "5.3.3"}


def client_version(version: str) -> str:
    """``version`` checked, as the release the models follow it as (:data:`ALIASES`)."""
    version = ALIASES.get(version, version)
    if version not in CLIENT_VERSIONS:
        raise ValueError(f"unknown client version {version!r}; expected one of {', '.join(CLIENT_VERSIONS)}")
    return version


@dataclass(frozen=True)
class ClientConfig:
    """Thresholds in milliseconds; each field carries the system property Java reads it from.

    >>> ClientConfig.from_properties({"rocketmq.client.pull.pullMaxIdleTime": "5000"}).pull_max_idle_time
    5000
    """

    rebalance_lock_max_live_time: int = 30000
    rebalance_lock_interval: int = 20000
    pull_max_idle_time: int = 120000
    unlock_delay_time_mills: int = 20000
    max_time_consume_continuously: int = 60000
    rebalance_wait_interval: int = 20000
    rebalance_min_interval: int = 1000
    broker_lock_max_live_time: int = 60000
    #: ``DefaultMQPushConsumer.persistConsumerOffsetInterval`` (a setter, not a property)
    persist_consumer_offset_interval: int = 5000

    PROPERTIES = {
        "rocketmq.client.rebalance.lockMaxLiveTime": "rebalance_lock_max_live_time",
        "rocketmq.client.rebalance.lockInterval": "rebalance_lock_interval",
        "rocketmq.client.pull.pullMaxIdleTime": "pull_max_idle_time",
        "rocketmq.client.unlockDelayTimeMills": "unlock_delay_time_mills",
        "rocketmq.client.maxTimeConsumeContinuously": "max_time_consume_continuously",
        "rocketmq.client.rebalance.waitInterval": "rebalance_wait_interval",
        "rocketmq.client.rebalance.minInterval": "rebalance_min_interval",
        "rocketmq.broker.rebalance.lockMaxLiveTime": "broker_lock_max_live_time",
    }

    @classmethod
    def from_properties(cls, properties: Mapping[str, str]) -> ClientConfig:
        """A config from Java system properties (unknown ``rocketmq.`` names are refused)."""
        values = {}
        for key, value in properties.items():
            name = cls.PROPERTIES.get(key)
            if name is None:
                raise ValueError(f"unknown property {key!r}; known: {', '.join(sorted(cls.PROPERTIES))}")
            try:
                values[name] = int(value)
            except (TypeError, ValueError):
                raise ValueError(f"property {key}={value!r} is not a whole number of milliseconds") from None
        return cls(**values)

    def with_(self, **changes: int) -> ClientConfig:
        known = {f.name for f in fields(self)}
        unknown = set(changes) - known
        if unknown:
            raise ValueError(f"unknown setting(s) {', '.join(sorted(unknown))}")
        return replace(self, **changes)
