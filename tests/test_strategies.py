"""The reference ports on hand-made cases: the spec's rules, release and charset switches."""

import pytest

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.ports.allocation import (
    AllocateMachineRoomNearby,
    AllocateMessageQueueAveragely,
    AllocateMessageQueueAveragelyByCircle,
    AllocateMessageQueueByConfig,
    AllocateMessageQueueByMachineRoom,
    AllocateMessageQueueConsistentHash,
    HashRing,
    MapMachineRoomResolver,
    SplitMachineRoomResolver,
    md5_hash,
)


def queues(n, broker="broker-a", topic="TopicTest"):
    return [MessageQueue(topic, broker, q) for q in range(n)]


def ids(result):
    return [mq.queue_id for mq in result]


@pytest.mark.parametrize(
    "clients, shares",
    [
        (1, [list(range(16))]),
        (2, [list(range(8)), list(range(8, 16))]),
        (3, [list(range(6)), list(range(6, 11)), list(range(11, 16))]),
    ],
)
def test_avg_published_example(clients, shares):
    cids = [f"c{i}" for i in range(clients)]
    strategy = AllocateMessageQueueAveragely()
    assert [ids(strategy.allocate("g", cid, queues(16), cids)) for cid in cids] == shares


def test_avg_more_clients_than_queues_and_duplicates():
    strategy = AllocateMessageQueueAveragely()
    assert [ids(strategy.allocate("g", c, queues(2), ["a", "b", "c"])) for c in "abc"] == [[0], [1], []]
    # a duplicated id computes its first position's share; the second position's goes to nobody
    assert ids(strategy.allocate("g", "a", queues(3), ["a", "b", "a"])) == [0]


def test_by_circle_deals_round_robin():
    strategy = AllocateMessageQueueAveragelyByCircle()
    assert [ids(strategy.allocate("g", c, queues(7), ["a", "b", "c"])) for c in "abc"] == [[0, 3, 6], [1, 4], [2, 5]]


@pytest.mark.parametrize(
    "strategy",
    [
        AllocateMessageQueueAveragely(),
        AllocateMessageQueueAveragelyByCircle(),
        AllocateMessageQueueConsistentHash(),
        AllocateMessageQueueByMachineRoom({"r"}),
        AllocateMachineRoomNearby(AllocateMessageQueueAveragely(), SplitMachineRoomResolver("-")),
    ],
    ids=lambda s: s.name,
)
def test_common_argument_check(strategy):
    mqs = queues(2)
    for cid, mq_all, cid_all, message in [
        (None, mqs, ["a"], "currentCID is empty"),
        ("", mqs, ["a"], "currentCID is empty"),
        ("a", None, ["a"], "mqAll is null or mqAll empty"),
        ("a", [], ["a"], "mqAll is null or mqAll empty"),
        ("a", mqs, None, "cidAll is null or cidAll empty"),
        ("a", mqs, [], "cidAll is null or cidAll empty"),
    ]:
        with pytest.raises(ValueError, match=message):
            strategy.allocate("g", cid, mq_all, cid_all)
    assert strategy.allocate("g", "stranger", mqs, ["a-x"]) == []


def test_config_returns_its_list_to_anyone():
    configured = [MessageQueue("t", "elsewhere", 9), MessageQueue("t", "elsewhere", 9)]
    strategy = AllocateMessageQueueByConfig(configured)
    assert strategy.allocate("g", None, None, None) == configured
    assert AllocateMessageQueueByConfig(None).allocate("g", "a", queues(1), ["a"]) is None
    assert strategy.name == "CONFIG"


def test_consistent_hash_default_hash_is_md5_prefix():
    # the crafted collision of the golden collision-A cases
    assert md5_hash("10.0.115.42@DEFAULT-0") == md5_hash("10.0.131.202@DEFAULT-0") == 0xA51D5E84


def test_consistent_hash_later_node_wins_a_collision():
    strategy = AllocateMessageQueueConsistentHash(1)
    cids = ["10.0.115.42@DEFAULT", "10.0.131.202@DEFAULT"]
    assert strategy.allocate("g", cids[1], queues(8), cids) == queues(8)
    assert strategy.allocate("g", cids[0], queues(8), cids) == []


def test_consistent_hash_duplicate_ids_continue_replica_numbers():
    keys = []
    HashRing(["a", "b", "a"], 2, lambda key: keys.append(key) or len(keys))
    assert keys == ["a-0", "a-1", "b-0", "b-1", "a-2", "a-3"]


def test_consistent_hash_routes_to_first_key_at_or_above_and_wraps():
    table = {"a-0": 100, "b-0": 200}
    ring = HashRing(["a", "b"], 1, lambda key: table[key] if key in table else int(key))
    assert [ring.route(str(h)) for h in (50, 100, 101, 200, 201)] == ["a", "a", "b", "b", "a"]


def test_consistent_hash_custom_function_object_or_callable():
    class Constant:
        def hash(self, key):
            return 7

    for custom in (Constant(), lambda key: 7):
        strategy = AllocateMessageQueueConsistentHash(3, custom)
        # every key collides: the last node of the last client owns the ring
        assert strategy.allocate("g", "b", queues(4), ["a", "b"]) == queues(4)


def test_consistent_hash_zero_virtual_nodes_gives_nothing():
    assert AllocateMessageQueueConsistentHash(0).allocate("g", "a", queues(4), ["a"]) == []


@pytest.mark.parametrize("bad", [-1, 1.5, "10", None])
def test_consistent_hash_rejects_bad_virtual_node_counts(bad):
    with pytest.raises(ValueError):
        AllocateMessageQueueConsistentHash(bad)


def test_charset_only_matters_before_5():
    cids = ["c-\u4e2d", "c-\u65e5"]  # identical keys once each character becomes '?'
    latin1 = AllocateMessageQueueConsistentHash(10, version="4.9.8", charset="ISO-8859-1")
    utf8 = AllocateMessageQueueConsistentHash(10, version="4.9.8")
    assert latin1.allocate("g", cids[0], queues(16), cids) == []
    assert latin1.allocate("g", cids[1], queues(16), cids) == queues(16)
    assert utf8.allocate("g", cids[0], queues(16), cids) != []
    five = AllocateMessageQueueConsistentHash(10, version="5.3.3", charset="ISO-8859-1")
    assert five.allocate("g", cids[0], queues(16), cids) == utf8.allocate("g", cids[0], queues(16), cids)


def test_machine_room_eligibility_uses_java_split():
    mqs = [MessageQueue("t", name, 0) for name in ["r@a", "r@", "@b", "r@b@c", "nosep", "x@y"]]
    strategy = AllocateMessageQueueByMachineRoom({"r", ""})
    assert [mq.broker_name for mq in strategy.allocate("g", "c", mqs, ["c"])] == ["r@a", "@b"]


def test_machine_room_remainder_goes_to_the_first_clients():
    mqs = [MessageQueue("t", "r@b", q) for q in range(5)]
    strategy = AllocateMessageQueueByMachineRoom({"r"})
    assert [ids(strategy.allocate("g", c, mqs, ["a", "b"])) for c in "ab"] == [[0, 1, 4], [2, 3]]


def test_machine_room_null_idcs_fails_only_on_a_room_shaped_broker():
    strategy = AllocateMessageQueueByMachineRoom(None)
    assert strategy.allocate("g", "a", [MessageQueue("t", "plain", 0)], ["a"]) == []
    with pytest.raises(TypeError):
        strategy.allocate("g", "a", [MessageQueue("t", "r@b", 0)], ["a"])


def test_machine_room_4_7_1_takes_blocks_from_the_unfiltered_list():
    mqs = [MessageQueue("t", "other@b", 0), MessageQueue("t", "r@b", 0), MessageQueue("t", "r@b", 1)]
    old = AllocateMessageQueueByMachineRoom({"r"}, version="4.7.1")
    new = AllocateMessageQueueByMachineRoom({"r"}, version="4.9.8")
    assert old.allocate("g", "a", mqs, ["a", "b"]) == [mqs[0]]
    assert new.allocate("g", "a", mqs, ["a", "b"]) == [mqs[1]]
    # and 4.7.1 has no argument check
    assert old.allocate("g", "", mqs, ["a"]) == []
    with pytest.raises(TypeError):
        old.allocate("g", "a", mqs, None)
    with pytest.raises(ValueError):
        new.allocate("g", "", mqs, ["a"])


def test_nearby_prefers_own_room_then_shares_rooms_without_clients():
    mqs = [MessageQueue("t", b, q) for b in ("hz-b", "bj-b", "sh-b") for q in range(2)]
    cids = ["hz-1", "hz-2", "bj-1"]
    strategy = AllocateMachineRoomNearby(AllocateMessageQueueAveragely(), SplitMachineRoomResolver("-"))
    assert strategy.name == "MACHINE_ROOM_NEARBY-AVG"
    got = {c: [(mq.broker_name, mq.queue_id) for mq in strategy.allocate("g", c, mqs, cids)] for c in cids}
    assert got == {
        "hz-1": [("hz-b", 0), ("sh-b", 0)],
        "hz-2": [("hz-b", 1), ("sh-b", 1)],
        "bj-1": [("bj-b", 0), ("bj-b", 1)],
    }


def test_nearby_rooms_without_clients_go_in_java_string_order():
    emoji, fullwidth = "\U0001F600", "\uFF21"
    mqs = [MessageQueue("t", fullwidth, 0), MessageQueue("t", emoji, 0)]
    resolver = MapMachineRoomResolver({fullwidth: fullwidth, emoji: emoji}, {"c": "home"})
    strategy = AllocateMachineRoomNearby(AllocateMessageQueueAveragely(), resolver)
    assert [mq.broker_name for mq in strategy.allocate("g", "c", mqs, ["c"])] == [emoji, fullwidth]


def test_nearby_null_rooms():
    resolver = MapMachineRoomResolver({"b": "r"}, {"c": "r"})
    strategy = AllocateMachineRoomNearby(AllocateMessageQueueAveragely(), resolver)
    with pytest.raises(ValueError, match=r"Machine room is null for mq MessageQueue \[topic=t, brokerName=x"):
        strategy.allocate("g", "c", [MessageQueue("t", "x", 0)], ["c"])
    with pytest.raises(ValueError, match="Machine room is null for consumer id d"):
        strategy.allocate("g", "c", [MessageQueue("t", "b", 0)], ["c", "d"])
    split = AllocateMachineRoomNearby(AllocateMessageQueueAveragely(), SplitMachineRoomResolver("-"))
    with pytest.raises(IndexError):
        split.allocate("g", "c", [MessageQueue("t", "--", 0)], ["c"])


def test_reference_strategy_speaks_the_golden_vocabulary():
    assert reference_strategy("AVG").name == "AVG"
    assert reference_strategy("CONSISTENT_HASH", {"virtualNodeCnt": 3}).virtual_node_cnt == 3
    assert reference_strategy("MACHINE_ROOM", {"consumeridcs": ["r"]}).consumeridcs == {"r"}
    config = reference_strategy("CONFIG", {"messageQueueList": [["t", "b", 1]]})
    assert config.allocate("g", "a", None, None) == [MessageQueue("t", "b", 1)]
    nearby = reference_strategy(
        "MACHINE_ROOM_NEARBY",
        {
            "inner": {"strategy": "CONSISTENT_HASH", "params": {"virtualNodeCnt": 5}},
            "resolver": {"kind": "map", "brokerRoom": {"b": "r"}, "consumerRoom": {"c": "r"}},
        },
        version="4.9.8",
    )
    assert nearby.name == "MACHINE_ROOM_NEARBY-CONSISTENT_HASH"
    assert nearby.allocate_message_queue_strategy.version == "4.9.8"
    latin1 = reference_strategy("CONSISTENT_HASH", {"virtualNodeCnt": 10, "charset": "ISO-8859-1"}, "4.9.8")
    assert latin1.hash_charset == "ISO-8859-1"
    inner_latin1 = reference_strategy(
        "MACHINE_ROOM_NEARBY",
        {"inner": {"strategy": "CONSISTENT_HASH", "params": {}}, "resolver": {"kind": "split"}, "charset": "ISO-8859-1"},
        "4.7.1",
    )
    assert inner_latin1.allocate_message_queue_strategy.hash_charset == "ISO-8859-1"


@pytest.mark.parametrize(
    "name, params, version, message",
    [
        ("NOPE", {}, "5.3.3", "unknown strategy"),
        ("AVG", {"virtualNodeCnt": 1}, "5.3.3", "unknown parameter"),
        ("CONSISTENT_HASH", {"virtualNodeCnt": -1}, "5.3.3", "illegal virtualNodeCnt"),
        ("CONSISTENT_HASH", {"charset": "klingon"}, "4.9.8", "unknown charset"),
        ("AVG", {}, "3.0.0", "RocketMQ release"),
        ("AVG", {}, "latest", "RocketMQ release"),
        ("MACHINE_ROOM_NEARBY", {"inner": None, "resolver": {"kind": "split"}}, "5.3.3", "inner"),
        ("MACHINE_ROOM_NEARBY", {"inner": {"strategy": "AVG"}, "resolver": {"kind": "dns"}}, "5.3.3", "resolver kind"),
        ("CONFIG", {"messageQueueList": [["t", "b"]]}, "5.3.3", "queueId"),
        ("AVG", [1], "5.3.3", "params must be an object"),
    ],
)
def test_reference_strategy_rejects_what_it_cannot_build(name, params, version, message):
    with pytest.raises(ValueError, match=message):
        reference_strategy(name, params, version)


def test_nearby_constructor_rejects_missing_parts():
    with pytest.raises(ValueError):
        AllocateMachineRoomNearby(None, SplitMachineRoomResolver())
    with pytest.raises(ValueError):
        AllocateMachineRoomNearby(AllocateMessageQueueAveragely(), None)


def test_strategies_do_not_modify_their_arguments():
    mqs, cids = queues(10), ["b", "a", "c", "a"]
    before = (list(mqs), list(cids))
    for name, params in [
        ("AVG", {}),
        ("AVG_BY_CIRCLE", {}),
        ("CONSISTENT_HASH", {"virtualNodeCnt": 10}),
        ("MACHINE_ROOM", {"consumeridcs": ["broker"]}),
        ("MACHINE_ROOM_NEARBY", {"inner": {"strategy": "AVG"}, "resolver": {"kind": "split"}}),
    ]:
        for cid in set(cids):
            reference_strategy(name, params).allocate("g", cid, mqs, cids)
    assert (mqs, cids) == before


def test_repr_names_the_configuration():
    assert repr(AllocateMessageQueueConsistentHash(5, version="4.9.8")) == (
        "AllocateMessageQueueConsistentHash(virtual_node_cnt=5, version='4.9.8')"
    )


@pytest.mark.parametrize("family", ["CONSISTENT_HASH", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY", "AVG", "CONFIG"])
def test_a_port_handed_the_same_tuples_by_every_client_answers_as_with_fresh_lists(family):
    """The sweep hands every client of a group the same tuples, and the ports keep what depends
    only on them (rings' shares, eligible queues, rooms): each answer is the one fresh lists get."""
    from pytest_rmq_conformance.kinds.allocation.scenarios import default_params, java_ordered
    from pytest_rmq_conformance.pipeline.allocation.space import SweepSpace

    space = SweepSpace(queues=(1, 40), consumers=(1, 9), seed=11, count=40)
    for index in range(space.count):
        plan = space.plan(index)
        (_, _), (_, after_members) = plan.groups()
        before = plan.start
        for group in (before, java_ordered(before, after_members)):
            params = {**default_params(family, group.mq_all), "charset": "UTF-8"}
            mq_all, cid_all = tuple(group.mq_all), tuple(group.cid_all)
            for _ in range(2):  # asked again: what was kept is used
                for cid in group.clients:
                    kept = reference_strategy(family, params, "5.3.3").allocate("g", cid, mq_all, cid_all)
                    fresh = reference_strategy(family, params, "5.3.3").allocate("g", cid, list(mq_all), list(cid_all))
                    assert kept == fresh, (index, family, cid)
