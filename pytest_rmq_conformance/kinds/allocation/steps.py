"""One membership step, checked and measured: the suite's membership walk, its churn cases
and the sweep all judge a join, leave or crash with :func:`check_step`.

*Moved* has one meaning everywhere: the queues whose set of holders changed
(:func:`~pytest_rmq_conformance.kinds.allocation.invariants.moved_queues`).

    >>> from pytest_rmq_conformance import MessageQueue
    >>> from pytest_rmq_conformance.kinds.allocation.scenarios import Event, Scenario
    >>> q = [MessageQueue("T", "b", i) for i in range(4)]
    >>> before_group = Scenario("AVG", {}, "g", tuple(q), ("a", "b"))
    >>> after_group = Scenario("AVG", {}, "g", tuple(q), ("a",))
    >>> step = check_step({"coverage"}, Event("leave", "b"), before_group, {"a": q[:2], "b": q[2:]}, after_group, {"a": q})
    >>> step.violations, step.moved, step.lower_bound, step.own, step.imbalance
    ((), 2, 2, 2, 0)

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from pytest_rmq_conformance.kinds.allocation.invariants import Assignment, Violation, minimum_moves, moved_queues
from pytest_rmq_conformance.kinds.allocation.properties import (
    CHANGE_PROPERTIES,
    GROUP_PROPERTIES,
    check_change,
    check_group,
    coverage_target,
    for_scenario,
)
from pytest_rmq_conformance.kinds.allocation.quick import quick_measures
from pytest_rmq_conformance.kinds.allocation.scenarios import Event, Scenario

__all__ = ["Step", "check_members", "check_step"]


@dataclass(frozen=True)
class Step:
    """What one membership change did."""

    violations: tuple[Violation, ...]
    moved: int  # queues whose holders changed
    lower_bound: int  # the fewest moves that reach a balanced group
    own: int  # the queues the leaver held, or the joiner got
    imbalance: int  # the largest share minus the smallest, after the change


def check_members(claimed: AbstractSet[str], group: Scenario, shares: Assignment) -> tuple[Violation, ...]:
    """The group properties among ``claimed`` that ``shares`` of ``group`` break."""
    names = for_scenario(frozenset(claimed) & frozenset(GROUP_PROPERTIES), group)
    return tuple(check_group(names, group, shares))


def check_step(
    claimed: AbstractSet[str],
    event: Event,
    before_group: Scenario,
    before: Assignment,
    after_group: Scenario,
    after: Assignment,
    *,
    members_before: bool = False,
    quick: bool = True,
) -> Step:
    """Judge ``event``: the group properties among ``claimed`` after it (and before it, first,
    with ``members_before``), the stability properties among ``claimed`` across it, and how many
    queues moved against the lower bound.

    When :func:`~.quick.quick_measures` proves every property, its measures are the step's;
    else (and always with ``quick=False``) the checks of :mod:`~.invariants` run, and name what
    is wrong.
    """
    measured = quick_measures(claimed, event, before_group, before, after_group, after) if quick else None
    if measured is not None:
        return Step((), *measured)
    violations = check_members(claimed, before_group, before) if members_before else ()
    violations += check_members(claimed, after_group, after)
    violations += tuple(check_change(frozenset(claimed) & frozenset(CHANGE_PROPERTIES), before, after, event))
    target = coverage_target(claimed, before_group)
    held = before if event.kind != "join" else after
    sizes = [len(after.get(cid, ())) for cid in after_group.clients]
    return Step(
        violations,
        moved=len(moved_queues(before, after)),
        lower_bound=minimum_moves(before, after_group.clients, target),
        own=len(held.get(event.client, ())),
        imbalance=max(sizes) - min(sizes) if sizes else 0,
    )
