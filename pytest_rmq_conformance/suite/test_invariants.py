"""Invariants on generated groups: the properties the strategy claims (Java's, for a Java twin)."""

import pytest

from pytest_rmq_conformance.calls import assign
from pytest_rmq_conformance.generated import PropertyFailure, run_generated
from pytest_rmq_conformance.groups import java_ordered
from pytest_rmq_conformance.properties import (
    CHANGE_PROPERTIES,
    GROUP_PROPERTIES,
    PROPERTIES,
    check_change,
    check_group,
    for_scenario,
)
from pytest_rmq_conformance.reporting import format_generated


def _claimed(rmq_conformance, rmq_groups, names):
    reason = rmq_groups.skip_reason()
    if reason is not None:
        pytest.skip(reason)
    claimed = set(names) & rmq_conformance.properties
    if not claimed:
        pytest.skip(f"{rmq_conformance.name} does not claim {' or '.join(names)} ({rmq_conformance.properties_origin})")
    return claimed


def _fail(conformance, headline, violations, group, data):
    details = [str(v) for v in violations]
    raise PropertyFailure(format_generated(f"{conformance.name} {headline}", details, group, data))


@pytest.mark.parametrize("prop", GROUP_PROPERTIES)
def test_invariant_of_a_group(prop, rmq_conformance, rmq_groups, request):
    """Every member's share of one generated group, checked against ``prop``."""
    _claimed(rmq_conformance, rmq_groups, [prop])
    timeout = rmq_conformance.settings.timeout

    def check(scenario):
        names = for_scenario(frozenset({prop}), scenario)
        shares, problems = assign(rmq_conformance.build_for, scenario, timeout)
        violations = problems + check_group(names, scenario, shares)
        if violations:
            _fail(rmq_conformance, f"breaks {prop} ({PROPERTIES[prop]})", violations, scenario, scenario.dumps())

    run_generated(request, rmq_conformance, rmq_groups.scenarios(), check)


def _walk(conformance, plan, names, change_names):
    """Run ``plan``: each client keeps its instance from one rebalance to the next (a crashed
    client that comes back is a new process with a new one). Fails on the first step that
    breaks one of ``names`` (group properties) or ``change_names`` (across the step)."""
    timeout = conformance.settings.timeout
    instances = {}
    before = None
    for step, (event, members) in enumerate(plan.groups()):
        if event is not None and event.kind == "crash":
            instances.pop(event.client, None)
        group = java_ordered(plan.start, members)
        shares, problems = assign(conformance.build_for, group, timeout, instances)
        violations = problems + check_group(for_scenario(names, group), group, shares)
        if event is not None and before is not None:
            violations += check_change(change_names, before, shares, event)
        if violations:
            where = "the starting group" if event is None else f"step {step} ({event})"
            broken = ", ".join(dict.fromkeys(v.kind for v in violations))
            _fail(conformance, f"breaks its invariants after {where} ({broken})", violations, group, plan.dumps())
        before = shares


@pytest.mark.parametrize("prop", CHANGE_PROPERTIES)
def test_invariant_across_a_change(prop, rmq_conformance, rmq_groups, request):
    """One group through joins, leaves and crashes, checked against ``prop`` at each change."""
    _claimed(rmq_conformance, rmq_groups, [prop])
    run_generated(
        request, rmq_conformance, rmq_groups.plans(), lambda plan: _walk(rmq_conformance, plan, frozenset(), {prop})
    )


def test_membership_changes(rmq_conformance, rmq_groups, request):
    """Every claimed invariant after every join, leave and crash of a generated sequence."""
    claimed = _claimed(rmq_conformance, rmq_groups, GROUP_PROPERTIES + CHANGE_PROPERTIES)
    group_names = frozenset(claimed) & set(GROUP_PROPERTIES)
    run_generated(
        request, rmq_conformance, rmq_groups.plans(), lambda plan: _walk(rmq_conformance, plan, group_names, claimed)
    )
