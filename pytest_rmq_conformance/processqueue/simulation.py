"""The group simulation's public names, where they were first imported from.

A :class:`GroupSimulation` is three modules: :mod:`.group` (membership and each
client's schedule), :mod:`.ownership` (the ledger of who held which queue when)
and :mod:`.message_flow` (messages produced, pulled and consumed).

    >>> from pytest_rmq_conformance.strategies import reference_strategy
    >>> sim = GroupSimulation(lambda: reference_strategy("AVG"), queues=24, clients=4)
    >>> sim.advance(5000)
    5000
    >>> sim.leave(sim.clients[1]); sim.advance(1000)
    6000
    >>> sim.problems(), sim.churn(since=5000)
    ([], 8)
"""

from pytest_rmq_conformance.processqueue.group import GroupSimulation, default_clients, default_queues
from pytest_rmq_conformance.processqueue.message_flow import Consumption, MessageFlow
from pytest_rmq_conformance.processqueue.ownership import Gap, Overlap, Ownership

__all__ = [
    "GroupSimulation",
    "MessageFlow",
    "Ownership",
    "Overlap",
    "Gap",
    "Consumption",
    "default_queues",
    "default_clients",
]
