"""Invariants on generated groups and traces: the properties the strategy claims (Java's, for a Java twin)."""

from typing import Any

import pytest

from pytest_rmq_conformance.engine.generated.domain import reference_body
from pytest_rmq_conformance.engine.generated.generation import PropertyFailure
from pytest_rmq_conformance.kinds.allocation.calls import assign
from pytest_rmq_conformance.kinds.allocation.failures import format_generated
from pytest_rmq_conformance.kinds.allocation.invariants import Assignment
from pytest_rmq_conformance.kinds.allocation.properties import (
    CHANGE_PROPERTIES,
    GROUP_PROPERTIES,
    PROPERTIES,
    check_group,
    for_scenario,
)
from pytest_rmq_conformance.kinds.allocation.scenarios import Scenario, java_ordered
from pytest_rmq_conformance.kinds.allocation.steps import check_members, check_step
from pytest_rmq_conformance.kinds.grpc.generated import invariant_check as balancer_check
from pytest_rmq_conformance.kinds.grpc.properties import PROPERTIES as _BALANCING
from pytest_rmq_conformance.kinds.producer.generated import invariant_check
from pytest_rmq_conformance.kinds.producer.properties import PROPERTIES as _SELECTION
from pytest_rmq_conformance.plugin.verdicts import run_generated

pytestmark = pytest.mark.rmq_check("invariants", kinds=("allocation",))
#: a producer's invariants (java-random is the golden replay's and the reference check's)
SELECTION_PROPERTIES = [name for name in _SELECTION if name != "java-random"]


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


def _group_check(conformance, prop):
    """``prop`` on every member's share of a scenario, for ``conformance`` (``None``: not claimed)."""
    if prop not in conformance.properties:
        return None
    timeout = conformance.settings.timeout

    def check(scenario):
        names = for_scenario(frozenset({prop}), scenario)
        shares, problems = assign(conformance.build_for, scenario, timeout)
        violations = problems + check_group(names, scenario, shares)
        if violations:
            _fail(conformance, f"breaks {prop} ({PROPERTIES[prop]})", violations, scenario, scenario.dumps())

    return check


@pytest.mark.parametrize("prop", GROUP_PROPERTIES)
def test_invariant_of_a_group(prop, rmq_conformance, rmq_groups, request):
    """Every member's share of one generated group, checked against ``prop``."""
    _claimed(rmq_conformance, rmq_groups, [prop])
    reference = reference_body(rmq_conformance, lambda subject: _group_check(subject, prop))
    run_generated(request, rmq_conformance, rmq_groups.scenarios(), _group_check(rmq_conformance, prop), reference=reference)


def _walk_check(conformance, claimed):
    """The claimed properties ``conformance`` shares with ``claimed`` along a plan (``None``: none)."""
    mine = set(claimed) & conformance.properties
    return (lambda plan: _walk(conformance, plan, mine)) if mine else None


def _walk(conformance, plan, claimed):
    """Run ``plan``: each client keeps its instance from one rebalance to the next (a crashed
    client that comes back is a new process with a new one). Fails on the first step that
    breaks one of the ``claimed`` properties."""
    timeout = conformance.settings.timeout
    instances: dict[str, Any] = {}
    before: Assignment | None = None
    before_group: Scenario | None = None
    for step, (event, members) in enumerate(plan.groups()):
        if event is not None and event.kind == "crash":
            instances.pop(event.client, None)
        group = java_ordered(plan.start, members)
        shares, problems = assign(conformance.build_for, group, timeout, instances)
        if event is None:
            violations = list(problems) + list(check_members(claimed, group, shares))
        else:
            assert before_group is not None and before is not None  # the first step is the starting group
            violations = list(problems) + list(check_step(claimed, event, before_group, before, group, shares).violations)
        if violations:
            where = "the starting group" if event is None else f"step {step} ({event})"
            broken = ", ".join(dict.fromkeys(v.kind for v in violations))
            _fail(conformance, f"breaks its invariants after {where} ({broken})", violations, group, plan.dumps())
        before, before_group = shares, group


@pytest.mark.parametrize("prop", CHANGE_PROPERTIES)
def test_invariant_across_a_change(prop, rmq_conformance, rmq_groups, request):
    """One group through joins, leaves and crashes, checked against ``prop`` at each change."""
    _claimed(rmq_conformance, rmq_groups, [prop])
    reference = reference_body(rmq_conformance, lambda subject: _walk_check(subject, {prop}))
    run_generated(request, rmq_conformance, rmq_groups.plans(), _walk_check(rmq_conformance, {prop}), reference=reference)


def test_membership_changes(rmq_conformance, rmq_groups, request):
    """Every claimed invariant after every join, leave and crash of a generated sequence."""
    claimed = _claimed(rmq_conformance, rmq_groups, GROUP_PROPERTIES + CHANGE_PROPERTIES)
    reference = reference_body(rmq_conformance, lambda subject: _walk_check(subject, claimed))
    run_generated(request, rmq_conformance, rmq_groups.plans(), _walk_check(rmq_conformance, claimed), reference=reference)


@pytest.mark.rmq_check("invariants", kinds=("producer",))
@pytest.mark.parametrize("prop", SELECTION_PROPERTIES)
def test_selection_invariant(prop, rmq_conformance, request):
    """A producer's selection on generated traces or selector calls, checked against ``prop``
    (spec §11; Java's properties at the release for a Java twin)."""
    if rmq_conformance.load_error is not None:
        pytest.skip(f"the strategy could not be loaded: {rmq_conformance.load_error}")
    check = invariant_check(rmq_conformance, prop)
    if isinstance(check, str):
        pytest.skip(check)
    reference = reference_body(rmq_conformance, lambda subject: invariant_check(subject, prop))
    run_generated(request, rmq_conformance, check.examples, check.body, explicit=check.explicit, reference=reference)


@pytest.mark.rmq_check("invariants", kinds=("grpc",))
@pytest.mark.parametrize("prop", list(_BALANCING))
def test_balancer_invariant(prop, rmq_conformance, request):
    """A gRPC client's balancer on generated groups, routes and takes, checked against ``prop``
    (every property of its shape for a Java twin)."""
    if rmq_conformance.load_error is not None:
        pytest.skip(f"the strategy could not be loaded: {rmq_conformance.load_error}")
    check = balancer_check(rmq_conformance, prop)
    if isinstance(check, str):
        pytest.skip(check)
    reference = reference_body(rmq_conformance, lambda subject: balancer_check(subject, prop))
    run_generated(request, rmq_conformance, check.examples, check.body, explicit=check.explicit, reference=reference)
