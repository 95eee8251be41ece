"""The differential's reports: a consistent-hash mismatch explained by Java's ring, and a strategy
that cannot be built reported once, with its configuration."""

from dataclasses import replace

import pytest
from breakers import RefusesManyNodes, RingAfterKey, SkipsEmptyIds

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.kinds.allocation.differential import differences
from pytest_rmq_conformance.kinds.allocation.draws import ring_trap_groups
from pytest_rmq_conformance.kinds.allocation.failures import format_mismatch
from pytest_rmq_conformance.kinds.allocation.scenarios import Scenario
from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueConsistentHash, md5_hash
from pytest_rmq_conformance.ports.allocation.consistent_hash import HashRing


def reference_for(scenario):
    return reference_strategy(scenario.strategy, scenario.params)


def built(cls):
    return lambda scenario: cls(scenario.params.get("virtualNodeCnt", 10)) if scenario.params else cls()


def report(mismatches):
    return [line for m in mismatches for line in format_mismatch(m)]


def test_a_queue_on_a_ring_key_is_explained_by_the_node_it_hits():
    group = ring_trap_groups("CONSISTENT_HASH")[0]  # a queue whose hash is exactly a node's
    mismatches = differences(built(RingAfterKey), reference_for, group, timeout=None)
    assert mismatches
    (mq,) = mismatches[0].missing
    key = str(mq)
    ring = HashRing(group.cid_all, group.params["virtualNodeCnt"], md5_hash)
    hit = ring.hit(key)
    assert hit is not None and hit.hash == md5_hash(key) == hit.node_hash
    theirs = [cid for cid in group.cid_all if mq in RingAfterKey(group.params["virtualNodeCnt"]).allocate("group", cid, list(group.mq_all), list(group.cid_all))]
    ring_lines = [line.strip() for line in report(mismatches) if line.strip().startswith("ring:")]
    assert ring_lines[0] == (
        f"ring: {mq.label()}: key {key!r} hashes to {hit.hash} (MD5); exactly the hash of virtual node "
        f"{hit.node!r}: Java gives it to {hit.client!r}, yours to {theirs[0]!r}"
    )


class FirstTakesAll(AllocateMessageQueueConsistentHash):
    """Every queue to the first client (a ring that never got built)."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return list(mq_all) if current_cid == cid_all[0] else []


def test_a_queue_between_nodes_names_the_first_node_after_its_hash():
    mq_all = tuple(MessageQueue("TopicTest", "broker-a", q) for q in range(6))
    group = Scenario("CONSISTENT_HASH", {"virtualNodeCnt": 3}, "group", mq_all, ("10.0.0.1@1", "10.0.0.2@2", "10.0.0.3@3"))
    mismatches = differences(built(FirstTakesAll), reference_for, group, timeout=None)
    ring = HashRing(group.cid_all, 3, md5_hash)
    explained = 0
    for mismatch in mismatches:
        if not mismatch.missing:
            continue
        mq = mismatch.missing[0]
        hit = ring.hit(str(mq))
        assert hit.hash < hit.node_hash or hit.node_hash == ring._keys[0]  # between nodes (or wrapping around)
        assert f"    ring: {mq.label()}: key {str(mq)!r} hashes to {md5_hash(str(mq))} (MD5); the first virtual node at or after it is {hit.node!r} (hash {hit.node_hash}): Java gives it to {hit.client!r}, yours to '10.0.0.1@1'" in format_mismatch(mismatch)
        explained += 1
    assert explained


def test_families_without_an_explanation_add_nothing():
    group = Scenario("AVG", {}, "group", tuple(MessageQueue("t", "b", q) for q in range(4)), ("", "a@1", "b@1"))
    mismatches = differences(lambda s: SkipsEmptyIds(), reference_for, group, timeout=None)
    assert mismatches and not any(getattr(m, "notes", ()) for m in mismatches)


def test_a_constructor_refusing_what_java_accepts_is_one_failure_naming_the_configuration():
    group = replace(ring_trap_groups("CONSISTENT_HASH")[0], params={"virtualNodeCnt": 16})
    mismatches = differences(built(RefusesManyNodes), reference_for, group, timeout=None)
    assert len(mismatches) == 1  # not one per caller
    assert mismatches[0].problem == (
        "the strategy could not be built for this configuration (RuntimeError: at most 15 virtual nodes, not 16), "
        "which Java's constructor accepts"
    )
    lines = [line.strip() for line in format_mismatch(mismatches[0])]
    assert 'configuration: CONSISTENT_HASH, params {"virtualNodeCnt": 16}' in lines
    assert any(line.startswith("raised at ") and "breakers.py:" in line and line.endswith(", in __init__") for line in lines)


@pytest.mark.parametrize("count", [-1, -(2**31)])
def test_a_constructor_refusing_what_java_refuses_agrees_with_java(count):
    group = replace(ring_trap_groups("CONSISTENT_HASH")[0], params={"virtualNodeCnt": count})
    with pytest.raises(ValueError, match="illegal virtualNodeCnt"):
        reference_for(group)
    assert differences(built(AllocateMessageQueueConsistentHash), reference_for, group, timeout=None) == []
