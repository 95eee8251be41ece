"""Which invariants a strategy claims, and checking them on one group.

Each property has a name. The Java strategies' real properties are built in
(:func:`java_properties`); a strategy with no Java twin declares its own in
an attribute ``rmq_properties`` (or the ``pytest_rmq_properties`` hook), by
default :data:`DEFAULT_PROPERTIES`::

    class StickyStrategy:
        name = "STICKY"
        rmq_properties = {"coverage", "no-double-assignment", "one-answer", "stable-on-leave"}

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pytest_rmq_conformance.engine.kinds import property_names
from pytest_rmq_conformance.kinds.allocation.family import get as family_record
from pytest_rmq_conformance.kinds.allocation.invariants import (
    Assignment,
    Violation,
    balance,
    coverage,
    no_double_assignment,
    only_from_mq_all,
    stability_on_join,
    stability_on_leave,
)
from pytest_rmq_conformance.kinds.allocation.scenarios import Event, Scenario
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.allocation.machine_room import broker_room

__all__ = [
    "PROPERTIES",
    "DEFAULT_PROPERTIES",
    "GROUP_PROPERTIES",
    "CHANGE_PROPERTIES",
    "java_properties",
    "parse_properties",
    "eligible_queues",
    "coverage_target",
    "check_group",
    "check_change",
    "claimed_by",
    "for_scenario",
]

#: every property the suite knows, with what it means
PROPERTIES = {
    "coverage": "every queue of mq_all is held by some client",
    "eligible-coverage": "exactly the queues of brokers `<room>@<name>` with a room in consumeridcs are held (MACHINE_ROOM)",
    "no-double-assignment": "no queue is held by two clients",
    "only-from-mq-all": "clients hold only queues of mq_all",
    "balance": "share sizes differ by at most one queue",
    "stable-on-leave": "when a client leaves, only the queues it held move",
    "stable-on-join": "when a client joins, only queues that move to it move",
    "one-answer": "the same inputs give the same answer whatever the instance, call order, repetition, "
    "list copies, process, hash seed or time, and the arguments are left as they were",
}
GROUP_PROPERTIES = ("coverage", "eligible-coverage", "no-double-assignment", "only-from-mq-all", "balance")
CHANGE_PROPERTIES = ("stable-on-leave", "stable-on-join")

#: what a strategy with no Java twin is held to unless it declares otherwise
DEFAULT_PROPERTIES: frozenset[str] = frozenset({"coverage", "no-double-assignment", "only-from-mq-all", "one-answer"})

def java_properties(family: str, version: str) -> frozenset[str]:
    """The properties the Java strategy ``family`` really has at release ``version``.

    Over a group as a rebalance forms it: distinct client ids, non-empty
    lists, at least one virtual node, a room for every name.
    """
    try:
        record = family_record(family)
    except ValueError:
        raise ValueError(f"no Java strategy family {family!r}") from None
    return record.properties(version)


def parse_properties(claimed: Any, where: str) -> frozenset[str]:
    """Validate a declaration (an iterable of property names); ``where`` names it in errors."""
    return property_names(claimed, where, PROPERTIES)


def eligible_queues(scenario: Scenario) -> tuple[MessageQueue, ...]:
    """MACHINE_ROOM's eligible queues: broker ``<room>@<name>`` (Java split) with ``room`` in consumeridcs."""
    rooms = set(scenario.params.get("consumeridcs") or ())
    return tuple(mq for mq in scenario.mq_all if broker_room(mq.broker_name) in rooms)


def coverage_target(names: Iterable[str], scenario: Scenario) -> tuple[MessageQueue, ...]:
    """The queues a strategy claiming ``names`` must hand out: the eligible ones when it claims
    only ``eligible-coverage``, else all of ``mq_all``."""
    names = set(names)
    if "eligible-coverage" in names and "coverage" not in names:
        return eligible_queues(scenario)
    return tuple(scenario.mq_all)


def check_group(names: Iterable[str], scenario: Scenario, assignment: Assignment) -> list[Violation]:
    """The violations of the group properties among ``names`` by ``assignment`` of ``scenario``."""
    names = set(names)
    found: list[Violation] = []
    if "coverage" in names:
        found += coverage(assignment, scenario.mq_all)
    if "eligible-coverage" in names:
        eligible = eligible_queues(scenario)
        found += coverage(assignment, eligible)
        allowed = set(eligible)
        for cid, queues in assignment.items():
            outside = tuple(mq for mq in queues if mq not in allowed)
            if outside:
                found.append(
                    Violation("ineligible", f"{cid} holds queue(s) of rooms outside consumeridcs: {outside[0]}", outside, (cid,))
                )
    if "no-double-assignment" in names:
        found += no_double_assignment(assignment)
    if "only-from-mq-all" in names:
        found += only_from_mq_all(assignment, scenario.mq_all)
    if "balance" in names:
        found += balance(assignment)
    return found


def check_change(names: Iterable[str], before: Assignment, after: Assignment, event: Event) -> list[Violation]:
    """The violations of the stability properties among ``names`` across one membership ``event``."""
    names = set(names)
    if event.kind == "join" and "stable-on-join" in names:
        return stability_on_join(before, after, event.client)
    if event.kind in ("leave", "crash") and "stable-on-leave" in names:
        return stability_on_leave(before, after, event.client)
    return []


def claimed_by(strategy: Any) -> Any | None:
    """What ``strategy`` (or its class) declares in ``rmq_properties``, if anything."""
    return getattr(strategy, "rmq_properties", None)


def for_scenario(names: frozenset[str], scenario: Scenario) -> frozenset[str]:
    """``names`` that can hold for ``scenario`` (a ring with no virtual node covers nothing:
    ``AllocationFamily.covers_nothing``)."""
    if scenario.strategy is not None and family_record(scenario.strategy).covers_nothing(scenario.params):
        return names - {"coverage"}
    return names

