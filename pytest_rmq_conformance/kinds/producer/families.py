"""The three Java families of producer queue selection, registered when this module is imported.

``FAULT_STRATEGY`` is built as ``factory(clock=...)`` (its configuration is set afterwards, as
Java's setters set it); ``SELECTOR_HASH`` takes no keyword; ``SELECTOR_RANDOM`` takes
``seed=``, the seed of its ``java.util.Random``.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.kinds.producer.properties import java_properties
from pytest_rmq_conformance.ports.producer import MQFaultStrategy, SelectMessageQueueByHash, SelectMessageQueueByRandom

__all__ = ["KIND"]

KIND = "producer"
Params = Mapping[str, Any]


class _StoppedClock:
    """The time of a fault strategy built without a trace (probing its name): always 0."""

    def now(self) -> int:
        return 0


def _clock(params: Params) -> dict[str, Any]:
    return {"clock": params.get("clock") or _StoppedClock()}


kinds.register_family(
    kinds.Family(
        name="FAULT_STRATEGY",
        kind=KIND,
        properties=lambda version: java_properties("FAULT_STRATEGY", version),
        build=lambda params, version, charset: MQFaultStrategy(version=version, **_clock(params)),
        keywords=lambda params, version, charset: _clock(params),
        params=lambda keywords: {},
        port=MQFaultStrategy,
        stateful=True,
    )
)
kinds.register_family(
    kinds.Family(
        name="SELECTOR_HASH",
        kind=KIND,
        properties=lambda version: java_properties("SELECTOR_HASH", version),
        build=lambda params, version, charset: SelectMessageQueueByHash(version=version),
        port=SelectMessageQueueByHash,
    )
)
kinds.register_family(
    kinds.Family(
        name="SELECTOR_RANDOM",
        kind=KIND,
        properties=lambda version: java_properties("SELECTOR_RANDOM", version),
        build=lambda params, version, charset: SelectMessageQueueByRandom(version=version, seed=params.get("seed", 0)),
        keywords=lambda params, version, charset: {"seed": params.get("seed", 0)},
        params=lambda keywords: {"seed": keywords["seed"]},
        keyword_names=("seed",),
        probe={"seed": 0},
        port=SelectMessageQueueByRandom,
        stateful=True,
    )
)
