"""One client of a simulated group: its id, its rebalance implementation and its schedule.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.processqueue.rebalance import RebalanceImpl

__all__ = ["Member"]


@dataclass
class Member:
    """One client process of the group and its rebalance service's state."""

    client_id: str
    impl: RebalanceImpl
    alive: bool = True
    due: int | None = None  # next rebalance run
    last_run: int | None = None
    stalled: set[MessageQueue] = field(default_factory=set)  # queues whose pull chain stopped
    seen_later: int = 0  # rebalance_later requests already scheduled
