"""Each invariant holds where Java's behaviour has it, and catches an assignment built to break it."""

import pytest

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.kinds.allocation.invariants import (
    balance,
    coverage,
    group_assignment,
    minimum_moves,
    moved_queues,
    no_double_assignment,
    only_from_mq_all,
    stability_on_join,
    stability_on_leave,
)

MQS = [MessageQueue("TopicTest", "broker-a", q) for q in range(24)]
CIDS = [f"10.0.0.{i}@1" for i in range(1, 5)]


def assign(name, cids, params=None, mqs=MQS):
    strategy = reference_strategy(name, params or {})
    return group_assignment(lambda cid: strategy.allocate("g", cid, list(mqs), list(cids)), cids)


@pytest.mark.parametrize("name", ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"])
def test_reference_assignments_cover_without_overlap(name):
    assignment = assign(name, CIDS)
    assert coverage(assignment, MQS) == []
    assert no_double_assignment(assignment) == []
    assert only_from_mq_all(assignment, MQS) == []


@pytest.mark.parametrize("name", ["AVG", "AVG_BY_CIRCLE"])
def test_averaging_strategies_are_balanced(name):
    assert balance(assign(name, CIDS, mqs=MQS[:23])) == []


def test_gap_is_caught():
    assignment = {"a": MQS[:10], "b": MQS[11:]}
    (violation,) = coverage(assignment, MQS)
    assert violation.kind == "gap" and violation.queues == (MQS[10],)


def test_overlap_is_caught_and_config_double_assigns_by_design():
    (violation,) = no_double_assignment({"a": MQS[:13], "b": MQS[12:]})
    assert violation.kind == "overlap" and violation.clients == ("a", "b")
    config = assign("CONFIG", CIDS, {"messageQueueList": [["TopicTest", "broker-a", 0]]})
    assert len(no_double_assignment(config)) == 1
    assert no_double_assignment({"a": [MQS[0], MQS[0]]})[0].detail.endswith("twice")


def test_foreign_queue_is_caught():
    stranger = MessageQueue("Other", "broker-z", 0)
    (violation,) = only_from_mq_all({"a": MQS + [stranger]}, MQS)
    assert violation.kind == "foreign" and violation.queues == (stranger,)


def test_imbalance_is_caught_and_consistent_hash_is_not_balanced():
    (violation,) = balance({"a": MQS[:14], "b": MQS[14:]})
    assert violation.kind == "imbalance" and "a holds 14 queues, b 10" in violation.detail
    assert balance(assign("CONSISTENT_HASH", CIDS, {"virtualNodeCnt": 1}))


def test_machine_room_covers_exactly_the_eligible_queues():
    mqs = [MessageQueue("T", f"{room}@b", q) for room in ("r1", "r2") for q in range(6)]
    assignment = assign("MACHINE_ROOM", CIDS, {"consumeridcs": ["r1"]}, mqs)
    eligible = mqs[:6]
    assert coverage(assignment, eligible) == [] and no_double_assignment(assignment) == []
    assert coverage(assignment, mqs)[0].queues == tuple(mqs[6:])


def test_the_spec_example_24_queues_4_clients_the_second_leaves():
    survivors = [CIDS[0]] + CIDS[2:]
    avg_before, avg_after = assign("AVG", CIDS), assign("AVG", survivors)
    assert len(moved_queues(avg_before, avg_after)) == 8
    assert minimum_moves(avg_before, survivors, MQS) == 6
    assert [v.kind for v in stability_on_leave(avg_before, avg_after, CIDS[1])] == ["moved-on-leave"]

    ch_before, ch_after = assign("CONSISTENT_HASH", CIDS), assign("CONSISTENT_HASH", survivors)
    assert set(moved_queues(ch_before, ch_after)) == set(ch_before[CIDS[1]])
    assert stability_on_leave(ch_before, ch_after, CIDS[1]) == []


def test_join_stability():
    joined = CIDS + ["10.0.0.9@1"]
    ch_before, ch_after = assign("CONSISTENT_HASH", CIDS), assign("CONSISTENT_HASH", joined)
    assert stability_on_join(ch_before, ch_after, joined[-1]) == []
    assert set(moved_queues(ch_before, ch_after)) == set(ch_after[joined[-1]])
    avg_before, avg_after = assign("AVG", CIDS), assign("AVG", joined)
    assert stability_on_join(avg_before, avg_after, joined[-1])[0].kind == "moved-on-join"
    # 24 queues, 4 -> 5 clients: the newcomer needs at least 4, so at least 4 move
    assert minimum_moves(avg_before, joined, MQS) == 4


def test_minimum_moves_counts_orphans_and_surplus():
    before = {"a": MQS[:20], "b": MQS[20:22]}  # MQS[22:] held by nobody
    assert minimum_moves(before, ["a", "b"], MQS) == 2 + 8  # 2 orphans, a gives 8 away
    assert minimum_moves(before, [], MQS) == 0
    assert minimum_moves({"a": MQS}, ["a"], MQS) == 0
