"""The strategy under test on its own, with fake hooks: no pytest run, no golden replay."""

import re

import pytest
from nearby import Nearby

from pytest_rmq_conformance.engine.loading.subject import Subject
from pytest_rmq_conformance.engine.running.hangs import HangBudget
from pytest_rmq_conformance.engine.settings import Settings
from pytest_rmq_conformance.ports.allocation import (
    AllocateMessageQueueAveragely,
    AllocateMessageQueueByConfig,
    AllocateMessageQueueConsistentHash,
)


class NoTwin:
    name = "NO_TWIN"

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return []


def subject(spec, **hooks):
    return Subject(Settings(spec=spec, origin="test"), **hooks)


def test_a_hook_names_a_strategy_and_the_subject_finds_its_family():
    found = subject("mine", named=lambda: {"mine": AllocateMessageQueueConsistentHash})
    assert found.load_error is None
    assert (found.source.resolved.kind, found.source.resolved.where) == ("class", "pytest_rmq_strategies hook")
    assert (found.name, found.family) == ("CONSISTENT_HASH", "CONSISTENT_HASH")
    assert found.properties_origin == "Java's CONSISTENT_HASH at 5.5.0"
    assert not found.is_reference and found.fresh_instances


def test_the_build_hook_builds_each_case_and_none_leaves_it_to_the_factory():
    calls = []

    def build_hook(factory, keywords, case):
        calls.append((factory, keywords, case))
        return factory(virtual_node_cnt=keywords["virtual_node_cnt"] + 1) if case == "hooked" else None

    found = subject("mine", named=lambda: {"mine": AllocateMessageQueueConsistentHash}, build_hook=build_hook)
    assert found.build("CONSISTENT_HASH", {"virtualNodeCnt": 4}, "hooked").virtual_node_cnt == 5
    assert found.build("CONSISTENT_HASH", {"virtualNodeCnt": 4}, "plain").virtual_node_cnt == 4
    cases = [case for _, _, case in calls]
    assert cases[-2:] == ["hooked", "plain"]  # the probe came first, with no case
    assert all(factory is AllocateMessageQueueConsistentHash for factory, _, _ in calls)


def test_declared_properties_win_over_the_family_and_unknown_ones_fail_loading():
    declared = subject("mine", named=lambda: {"mine": NoTwin}, declare=lambda strategy, name: {"coverage"})
    assert declared.properties == {"coverage"}
    assert declared.properties_origin == "declared by the pytest_rmq_properties hook"
    defaults = subject("mine", named=lambda: {"mine": NoTwin})
    assert defaults.family is None and defaults.properties_origin == "the defaults for a strategy with no Java twin"
    unknown = subject("mine", named=lambda: {"mine": NoTwin}, declare=lambda strategy, name: {"fairness"})
    assert "fairness" in unknown.load_error


def test_loading_errors_are_kept_not_raised():
    assert "no such strategy" in subject("nothing-of-that-name").load_error
    assert "not a strategy class" in subject("mine", named=lambda: {"mine": object()}).load_error

    class Nameless(NoTwin):
        name = None

    assert "has no name" in subject("mine", named=lambda: {"mine": Nameless}).load_error

    class Refuses:
        def __init__(self, **keywords):
            raise RuntimeError("no")

    refused = subject("mine", named=lambda: {"mine": Refuses})
    assert "cannot build a strategy" in refused.load_error and "RuntimeError: no" in refused.load_error
    assert refused.name is None and refused.family is None

    def named():
        raise KeyError("hook broke")

    assert "KeyError" in subject("mine", named=named).load_error


def test_a_name_that_reads_the_configuration_is_probed_with_the_family_configuration():
    """Issue 34 item 5: built with no keywords, Nearby's name raises; the probe goes on to the
    nearby family's configuration and learns MACHINE_ROOM_NEARBY-AVG there."""
    found = subject("mine", named=lambda: {"mine": Nearby})
    assert found.load_error is None
    assert (found.name, found.family) == ("MACHINE_ROOM_NEARBY-AVG", "MACHINE_ROOM_NEARBY")
    assert found.properties_origin == "Java's MACHINE_ROOM_NEARBY at 5.5.0"
    assert found.build(None, {}).inner.name == "AVG"  # the probe's keywords, not none


def test_a_name_that_no_configuration_can_read_says_what_reading_it_raised():
    class NeverNamed(NoTwin):
        def __init__(self, **keywords):
            pass

        @property
        def name(self):
            return "X-" + self.missing

    error = subject("mine", named=lambda: {"mine": NeverNamed}).load_error
    assert "reading the strategy's name raised AttributeError: 'NeverNamed' object has no attribute 'missing'" in error
    assert re.search(r"\(at .*test_subject.py:\d+, in name\) \(built with no keywords\); [1-9]\d* other keyword set\(s\) built it", error)


def test_an_instance_accepts_only_its_own_configuration():
    instance = AllocateMessageQueueByConfig([])
    found = subject("mine", named=lambda: {"mine": instance})
    assert found.source.resolved.kind == "instance" and not found.fresh_instances
    assert found.fixed_params() == {"messageQueueList": []}
    assert found.accepts("CONFIG", {"messageQueueList": []})
    assert not found.accepts("CONFIG", {"messageQueueList": [["t", "b", 0]]})
    assert not found.accepts("AVG", {})
    assert found.build("CONFIG", {"messageQueueList": [["t", "b", 0]]}) is instance
    assert found.generation_problem is None


def test_a_class_accepts_every_configuration_and_a_reference_builds_its_port():
    cls = subject("mine", named=lambda: {"mine": AllocateMessageQueueAveragely})
    assert cls.fixed_params() is None and cls.accepts("AVG", {}) and cls.accepts("CONFIG", {"messageQueueList": []})
    reference = subject("CONSISTENT_HASH")
    assert reference.is_reference and reference.portable_spec() == "CONSISTENT_HASH"
    assert reference.build(None, {"virtualNodeCnt": 7}).virtual_node_cnt == 7


def test_the_portable_spec_is_what_another_process_can_import():
    assert subject("pytest_rmq_conformance.ports.allocation:AllocateMessageQueueAveragely").portable_spec() == (
        "pytest_rmq_conformance.ports.allocation:AllocateMessageQueueAveragely"
    )
    hooked = subject("mine", named=lambda: {"mine": AllocateMessageQueueAveragely})
    assert hooked.portable_spec() == "pytest_rmq_conformance.ports.allocation.averagely:AllocateMessageQueueAveragely"
    assert subject("mine", named=lambda: {"mine": NoTwin()}).portable_spec() is None


def test_the_hang_budget_is_the_one_given():
    budget = HangBudget(1)
    found = Subject(Settings(), hangs=budget)
    assert found.hangs is budget and not found.hangs.exhausted
    budget.record()
    assert found.hangs.exhausted and "--rmq-max-hangs=1" in found.hangs.refusal()


@pytest.mark.parametrize("version", ["5.3.3", "4.7.1"])
def test_the_release_decides_the_family_properties(version):
    found = Subject(Settings(spec="MACHINE_ROOM", version=version))
    assert found.properties_origin == f"Java's MACHINE_ROOM at {version}"
    assert ("eligible-coverage" in found.properties) == (version != "4.7.1")


def _named(name, **attributes):
    return type("Named", (AllocateMessageQueueAveragely,), {"name": name, **attributes})


@pytest.mark.parametrize("typed, meant", [
    ("Avg", "AVG"), ("avg", "AVG"), ("AGV", "AVG"), ("consistent-hash", "CONSISTENT_HASH"),
    ("CONSISTENT_HAHS", "CONSISTENT_HASH"), ("MACHINE_ROM", "MACHINE_ROOM"), ("Selector_Hash", "SELECTOR_HASH"),
    ("GROUP-HASH", "GROUP_HASH"), ("FAULT_STRATEGYY", "FAULT_STRATEGY"),
])
def test_a_name_a_typo_away_from_a_family_is_a_usage_error_with_the_family_it_missed(typed, meant):
    """Else the golden vectors silently do not apply and only the invariants run."""
    found = subject("mine", named=lambda: {"mine": _named(typed)})
    assert found.load_error is not None
    assert f"name {typed!r} is no family of this suite; did you mean {meant}?" in found.load_error
    assert "rmq_new_family = True" in found.load_error


@pytest.mark.parametrize("name", ["STICKY", "JUMP_GROUP_HASH", "MY_FAULT_STRATEGY", "UNSTABLE_ON_LEAVE", "NO_TWIN"])
def test_a_name_far_from_every_family_is_a_strategy_of_its_own(name):
    found = subject("mine", named=lambda: {"mine": _named(name)})
    assert found.load_error is None and found.family is None


def test_a_strategy_that_says_it_is_a_new_family_keeps_its_name():
    found = subject("mine", named=lambda: {"mine": _named("AVGX", rmq_new_family=True)})
    assert found.load_error is None and (found.name, found.family) == ("AVGX", None)
    found = subject("mine", named=lambda: {"mine": _named("AVGX", rmq_new_family="yes")})  # True, plainly
    assert "did you mean AVG?" in found.load_error
