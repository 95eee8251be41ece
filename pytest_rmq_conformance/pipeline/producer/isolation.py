"""Internal: each release's broker isolation times.

How long each release isolates a broker, as its reference port computes it, beside what the
RocketMQ documentation states.

    >>> [row["isolation_ms"] for row in effective_table("4.9.8") if row["latency_ms"] == 550]
    [30000]
    >>> [row["isolation_ms"] for row in effective_table("5.3.3") if row["latency_ms"] == 550]
    [2000]
"""

from __future__ import annotations

from typing import Any

from pytest_rmq_conformance.ports.producer.counter import producer_release
from pytest_rmq_conformance.ports.producer.fault_strategy import ISOLATION_LATENCY, LATENCY_MAX, MQFaultStrategy
from pytest_rmq_conformance.releases import RELEASES

__all__ = ["effective_table", "isolation_tables", "DOCUMENTED", "DOCUMENTATION_SOURCE"]

#: what RocketMQ's design documentation states (Producer load balancing): latency ms -> back-off ms
DOCUMENTED = ((550, 3000), (1000, 60000))
DOCUMENTATION_SOURCE = (
    'RocketMQ design documentation, "Producer Load Balancing" (docs/en/Design_LoadBlancing.md, '
    "docs/cn/design.md §4.1): \"if the latency of the last request exceeds 550 Lms, it will evade "
    '3000 Lms; if it exceeds 1000L, it will evade 60000 L". Later revisions of both pages say 30000 for 550 ms, '
    "which is what 4.x does"
)


def thresholds() -> list[int]:
    """Every latency at which some release's default table steps, and the documented ones."""
    return sorted({*(step for table in LATENCY_MAX.values() for step in table), *(ms for ms, _ in DOCUMENTED)})


def effective_table(release: str) -> list[dict[str, int]]:
    """``[{"latency_ms", "isolation_ms"}, ...]``: at each of :func:`thresholds`, how long the
    release's port keeps a broker out after a send that took that long."""
    strategy = MQFaultStrategy(version=release)
    return [{"latency_ms": ms, "isolation_ms": strategy.compute_not_available_duration(ms)} for ms in thresholds()]


def isolation_tables() -> dict[str, Any]:
    """Per release its effective table and what a failed send (``isolation=true``) costs; the
    documented figures with their source."""
    releases = []
    for release in RELEASES:
        priced = ISOLATION_LATENCY[producer_release(release)[0]]
        strategy = MQFaultStrategy(version=release)
        releases.append(
            {
                "release": release,
                "steps": effective_table(release),
                "failed_send": {"priced_at_ms": priced, "isolation_ms": strategy.compute_not_available_duration(priced)},
            }
        )
    documented = [{"latency_ms": ms, "isolation_ms": isolation} for ms, isolation in DOCUMENTED]
    return {"releases": releases, "documentation": {"source": DOCUMENTATION_SOURCE, "steps": documented}}
