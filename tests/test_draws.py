"""What the generated checks draw, beyond the golden vectors: queue ids whose compareTo overflows,
negative virtual-node counts, an empty member id, broker names ending in the room separator; and
a constructor that raises on a drawn configuration."""

import pytest
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st

from pytest_rmq_conformance import MessageQueue, java_sorted_queues
from pytest_rmq_conformance.engine.generated.generation import check_examples
from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.engine.loading.subject import Subject
from pytest_rmq_conformance.engine.settings import Settings
from pytest_rmq_conformance.javalang import java_split
from pytest_rmq_conformance.kinds.allocation.draws import Groups, room_trap_groups, scenarios, virtual_node_counts
from pytest_rmq_conformance.kinds.allocation.scenarios import Scenario

FIRST = settings(
    max_examples=2000, phases=[Phase.generate], database=None, deadline=None, suppress_health_check=list(HealthCheck)
)


def first(strategy, condition):
    """The first drawn example meeting ``condition`` (hypothesis.errors.NoSuchExample if none)."""
    return find(strategy, condition, settings=FIRST)


def overflows(scenario):
    """Two queues of one topic and broker whose Java compareTo disagrees with their ids' order
    (``low.queueId - high.queueId`` overflows: the ids are more than ``2**31`` apart)."""
    ids = {}
    for mq in scenario.mq_all:
        ids.setdefault((mq.topic, mq.broker_name), []).append(mq.queue_id)
    for found in ids.values():
        low = MessageQueue("t", "b", min(found))
        high = MessageQueue("t", "b", max(found))
        if low.compare_to(high) > 0:
            return True
    return False


def test_adversarial_groups_hold_queue_ids_whose_compare_overflows():
    group = first(scenarios("AVG", adversarial=True), lambda s: len(s.mq_all) >= 2 and overflows(s))
    assert overflows(group)


def test_groups_in_java_order_keep_javas_overflowed_order():
    def java_ordered_overflow(s):
        ids_sorted = sorted(s.mq_all, key=lambda mq: (mq.topic.encode("utf-16-be"), mq.broker_name.encode("utf-16-be"), mq.queue_id))
        return overflows(s) and list(s.mq_all) == java_sorted_queues(s.mq_all) and list(s.mq_all) != ids_sorted

    group = first(scenarios("AVG_BY_CIRCLE", adversarial=True), java_ordered_overflow)
    assert list(group.mq_all) == java_sorted_queues(group.mq_all)


def test_adversarial_consistent_hash_groups_draw_negative_virtual_node_counts():
    group = first(scenarios("CONSISTENT_HASH", adversarial=True), lambda s: s.params["virtualNodeCnt"] < 0)
    with pytest.raises(ValueError, match="illegal virtualNodeCnt"):  # Java's IllegalArgumentException
        reference_strategy("CONSISTENT_HASH", group.params)


def test_realistic_groups_never_draw_a_negative_count():
    from hypothesis.errors import NoSuchExample

    with pytest.raises(NoSuchExample):
        find(virtual_node_counts(adversarial=False), lambda count: count < 1, settings=settings(FIRST, max_examples=300))
    assert first(virtual_node_counts(adversarial=True), lambda count: count < 0) < 0


@pytest.mark.parametrize("family", ["AVG", "CONSISTENT_HASH", "MACHINE_ROOM_NEARBY"])
def test_adversarial_groups_draw_an_empty_member_id(family):
    group = first(scenarios(family, adversarial=True), lambda s: "" in s.cid_all)
    assert "" in group.clients


def test_nearby_groups_draw_broker_names_ending_in_the_separator():
    def trailing(s):
        resolver = s.params["resolver"]
        return resolver["kind"] == "split" and any(
            mq.broker_name.endswith(resolver["separator"]) and len(java_split(mq.broker_name, resolver["separator"])) == 2
            for mq in s.mq_all
        )

    first(scenarios("MACHINE_ROOM_NEARBY"), trailing)  # realistic groups too, not only adversarial ones


@pytest.mark.parametrize("family", ["MACHINE_ROOM", "MACHINE_ROOM_NEARBY"])
def test_every_seed_sees_the_fixed_machine_room_groups(family):
    class Conformance:
        def __init__(self):
            self.family = family

        def fixed_params(self):
            return None

    explicit = Groups(Conformance()).explicit()
    (room_group,) = room_trap_groups(family)
    assert room_group in explicit
    brokers = {mq.broker_name for mq in room_group.mq_all}
    assert "IDC1@broker-a@" in brokers and "IDC2@" in brokers
    assert room_trap_groups("AVG") == []


# -- a constructor that raises on a drawn configuration ------------------------------------------


def subject(spec):
    """Budgets of the test's own, far beyond what these few draws need: a report read here is the
    shrunk one, however loaded the machine."""
    return Subject(Settings(spec=spec, seed=1, check_time=600, shrink_time=600))


def build_every_client(conformance):
    def body(scenario):
        for _ in scenario.clients:
            conformance.build_for(scenario)

    return body


def group(count):
    return Scenario("CONSISTENT_HASH", {"virtualNodeCnt": count}, "group", (MessageQueue("t", "b", 0),), ("a@1", "b@1"))


def test_a_constructor_raising_where_java_builds_is_one_clear_failure():
    conformance = subject("breakers:RefusesManyNodes")
    result = check_examples(conformance, st.sampled_from([group(3), group(16), group(17)]), build_every_client(conformance))
    assert result.cause == "property"
    lines = result.report.splitlines()
    assert lines[0] == "CONSISTENT_HASH could not be built for a generated configuration: RuntimeError: at most 15 virtual nodes, not 16"
    assert lines[1] == '  configuration: CONSISTENT_HASH, params {"virtualNodeCnt": 16}'
    assert lines[2].startswith("  raised at ") and "breakers.py:" in lines[2] and lines[2].endswith(", in __init__")
    assert lines[3] == "  Java's constructor accepts this configuration (the reference port is built for it)"
    assert any(line.startswith("  group as data: ") for line in lines)


def test_a_constructor_refusing_what_java_refuses_is_no_failure():
    conformance = subject("pytest_rmq_conformance.ports.allocation:AllocateMessageQueueConsistentHash")
    result = check_examples(conformance, st.sampled_from([group(3), group(-1)]), build_every_client(conformance))
    assert result.report is None, result.report


def test_an_error_that_is_not_the_constructors_still_raises():
    conformance = subject("breakers:RefusesManyNodes")

    def body(scenario):
        raise KeyError("an engine bug")

    with pytest.raises(KeyError):
        check_examples(conformance, st.just(group(3)), body)


def test_an_error_that_is_not_the_strategys_never_turns_into_a_pass_when_time_runs_out():
    import time

    # time to find the error, however loaded the machine; none to shrink it
    conformance = Subject(Settings(spec="AVG", seed=1, check_time=600, shrink_time=0.2))

    def body(number):
        time.sleep(0.05)  # slow enough that the time budget runs out while hypothesis shrinks
        if number > 3:
            raise KeyError("an engine bug")

    with pytest.raises(KeyError):
        check_examples(conformance, st.integers(0, 2**40), body, max_examples=100)
