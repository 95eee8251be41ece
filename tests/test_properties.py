"""The reference ports have exactly the invariants the suite holds Java's strategies to.

Each claimed property holds on generated groups; for each property *not*
claimed, hypothesis finds a group where the port breaks it — so the table in
``properties.java_properties`` is neither too weak nor too strong.
"""

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings

from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.kinds.allocation.calls import assign
from pytest_rmq_conformance.kinds.allocation.draws import plans, scenarios
from pytest_rmq_conformance.kinds.allocation.properties import (
    CHANGE_PROPERTIES,
    DEFAULT_PROPERTIES,
    GROUP_PROPERTIES,
    check_change,
    check_group,
    for_scenario,
    java_properties,
    parse_properties,
)
from pytest_rmq_conformance.kinds.allocation.scenarios import java_ordered
from pytest_rmq_conformance.releases import RELEASES

pytestmark = pytest.mark.once

FAMILIES = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY", "CONFIG"]
# the first counterexample found is proof enough: no shrinking
SEARCH = settings(
    max_examples=1000,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


def builder(release):
    return lambda scenario: reference_strategy(scenario.strategy, scenario.params, release)


def group_violations(release, scenario, names):
    shares, problems = assign(builder(release), scenario, None)
    assert not problems, problems
    return check_group(for_scenario(frozenset(names), scenario), scenario, shares)


def change_violations(release, plan, names):
    instances, before, found = {}, None, []
    for event, members in plan.groups():
        if event is not None and event.kind == "crash":
            instances.pop(event.client, None)
        group = java_ordered(plan.start, members)
        shares, problems = assign(builder(release), group, None, instances)
        assert not problems, problems
        if event is not None:
            found += check_change(names, before, shares, event)
        before = shares
    return found


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("family", FAMILIES)
def test_claimed_group_properties_hold(family, release):
    claimed = java_properties(family, release) & set(GROUP_PROPERTIES)

    @settings(max_examples=60, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(scenarios(family))
    def check(scenario):
        assert group_violations(release, scenario, claimed) == []

    check()


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("family", FAMILIES)
def test_each_unclaimed_property_is_really_broken(family, release):
    claimed = java_properties(family, release)
    for prop in set(GROUP_PROPERTIES) - claimed:
        if prop == "eligible-coverage" and family != "MACHINE_ROOM":
            continue  # only meaningful with consumeridcs
        found = find(scenarios(family), lambda s, p=prop: bool(group_violations(release, s, {p})), settings=SEARCH)
        assert group_violations(release, found, {prop}), (family, release, prop, found)
    for prop in set(CHANGE_PROPERTIES) - claimed:
        found = find(plans(family), lambda plan, p=prop: bool(change_violations(release, plan, {p})), settings=SEARCH)
        assert change_violations(release, found, {prop})


@pytest.mark.parametrize("release", RELEASES)
def test_consistent_hashing_is_stable_through_joins_leaves_and_crashes(release):
    @settings(max_examples=60, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(plans("CONSISTENT_HASH"))
    def check(plan):
        assert change_violations(release, plan, set(CHANGE_PROPERTIES)) == []

    check()


def test_declarations_are_validated():
    assert parse_properties(["coverage", "balance"], "x") == {"coverage", "balance"}
    assert "one-answer" in DEFAULT_PROPERTIES and "balance" not in DEFAULT_PROPERTIES
    with pytest.raises(ValueError, match=r"Mine.rmq_properties names unknown propert\(ies\) \['fair'\]"):
        parse_properties({"fair"}, "Mine.rmq_properties")
    with pytest.raises(ValueError, match="must be a set of property names"):
        parse_properties("coverage", "Mine.rmq_properties")
