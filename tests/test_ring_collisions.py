"""The ring-key collisions the consistent-hash generators draw from really collide."""

import pytest

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.kinds.allocation.draws import ring_trap_groups
from pytest_rmq_conformance.kinds.allocation.ring_collisions import NODE_ON_NODE, QUEUE_ON_NODE
from pytest_rmq_conformance.ports.allocation.consistent_hash import HashRing, md5_hash

CHARSETS = ["UTF-8", "ISO-8859-1"]


@pytest.mark.parametrize("charset", CHARSETS)
@pytest.mark.parametrize("topic, broker, queue_id, cid, replica", QUEUE_ON_NODE)
def test_each_queue_hashes_onto_its_virtual_node(topic, broker, queue_id, cid, replica, charset):
    queue = str(MessageQueue(topic, broker, queue_id))
    assert md5_hash(queue, charset) == md5_hash(f"{cid}-{replica}", charset)


@pytest.mark.parametrize("topic, broker, queue_id, cid, replica", QUEUE_ON_NODE)
def test_java_routes_such_a_queue_to_that_very_node(topic, broker, queue_id, cid, replica):
    """First key ``>=`` the hash: the node the queue sits on, not the next one (a ``>`` port's)."""
    others = [f"10.0.0.2@{n}" for n in range(8)]
    ring = HashRing([*others, cid], replica + 1, md5_hash)
    assert ring.route(str(MessageQueue(topic, broker, queue_id))) == cid


@pytest.mark.parametrize("charset", CHARSETS)
@pytest.mark.parametrize("first, second", NODE_ON_NODE)
def test_each_pair_of_virtual_nodes_shares_one_key(first, second, charset):
    (cid_a, k_a), (cid_b, k_b) = first, second
    assert cid_a != cid_b
    assert md5_hash(f"{cid_a}-{k_a}", charset) == md5_hash(f"{cid_b}-{k_b}", charset)


def test_every_fixed_ring_group_holds_its_collision():
    groups = ring_trap_groups("CONSISTENT_HASH")
    assert len(groups) == len(QUEUE_ON_NODE) + len(NODE_ON_NODE)
    for group, (topic, broker, queue_id, cid, replica) in zip(groups, QUEUE_ON_NODE):
        assert MessageQueue(topic, broker, queue_id) in group.mq_all and cid in group.cid_all
        assert group.params["virtualNodeCnt"] > replica
    assert ring_trap_groups("AVG") == []


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_port_routing_past_the_key_is_caught_whatever_the_seed(suite, seed):
    """The differential asks the fixed ring groups first, so one generated example is enough."""
    result = suite.runpytest(
        "-p", "no:cacheprovider", "--rmq-strategy=breakers:RingAfterKey", "--rmq-checks=reference",
        "--rmq-examples=1", f"--rmq-seed={seed}",
    )
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*differs from the reference port*", "*group as data:*TopicTest*", "FAILED *test_matches_reference*"])
