"""Deliberately wrong strategies that only the generated checks can expose.

Each breaks one property. Those with a Java twin's name answer every golden
vector as Java did (the tests prove it), so only generated groups show the
mistake. ``BREAKERS`` maps a name to the suite test that must fail for it.
"""

from __future__ import annotations

import time
from bisect import bisect_right

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.ports.allocation import (
    AllocateMessageQueueAveragely,
    AllocateMessageQueueByMachineRoom,
    AllocateMessageQueueConsistentHash,
    check_arguments,
)
from pytest_rmq_conformance.ports.allocation.consistent_hash import HashRing, _md5_ring


def share(mq_all, clients, cid):
    """RocketMQ's averaging over ``clients`` in the order given."""
    n, c = len(mq_all), len(clients)
    index = clients.index(cid)
    size, extra = divmod(n, c)
    start = index * size + min(index, extra)
    return list(mq_all[start : start + size + (1 if index < extra else 0)])


class Splitter:
    """A correct strategy with no Java twin (the base of the no-twin breakers)."""

    name = "SPLITTER"

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if current_cid not in cid_all:
            return []
        return share(mq_all, list(dict.fromkeys(cid_all)), current_cid)


# -- one group invariant each ----------------------------------------------------


class Gaps(Splitter):
    """Never hands out the last queue."""

    name = "GAPS"

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return [mq for mq in super().allocate(consumer_group, current_cid, mq_all, cid_all) if mq != mq_all[-1]]


class Overlaps(Splitter):
    """Every client also takes the first queue."""

    name = "OVERLAPS"

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        mine = super().allocate(consumer_group, current_cid, mq_all, cid_all)
        return mine + ([mq_all[0]] if mq_all[0] not in mine else [])


class Foreign(Splitter):
    """The first client also holds a queue that does not exist."""

    name = "FOREIGN"

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        mine = super().allocate(consumer_group, current_cid, mq_all, cid_all)
        if current_cid == cid_all[0]:
            mine.append(MessageQueue(mq_all[0].topic, mq_all[0].broker_name, -99))
        return mine


class Unbalanced(Splitter):
    """Claims balance; the first client takes half of the queues."""

    name = "UNBALANCED"
    rmq_properties = {"coverage", "no-double-assignment", "balance"}

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        clients = list(dict.fromkeys(cid_all))
        if len(clients) == 1:
            return list(mq_all)
        half = (len(mq_all) + 1) // 2
        if current_cid == clients[0]:
            return list(mq_all[:half])
        return share(mq_all[half:], clients[1:], current_cid)


class IgnoresRooms(Splitter):
    """Claims MACHINE_ROOM's coverage of eligible queues, yet hands out every queue."""

    name = "IGNORES_ROOMS"
    rmq_properties = {"eligible-coverage", "no-double-assignment"}


class UnstableOnLeave(Splitter):
    """Claims stability when a client leaves; averaging moves other queues too."""

    name = "UNSTABLE_ON_LEAVE"
    rmq_properties = {"coverage", "no-double-assignment", "stable-on-leave"}


class UnstableOnJoin(Splitter):
    """Claims stability when a client joins; averaging moves queues between old members."""

    name = "UNSTABLE_ON_JOIN"
    rmq_properties = {"coverage", "no-double-assignment", "stable-on-join"}


# -- one answer everywhere -------------------------------------------------------


class CountsCalls(AllocateMessageQueueAveragely):
    """Rotates the clients by the number of calls this instance has answered."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.calls = 0

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not check_arguments(current_cid, mq_all, cid_all):
            return []
        self.calls += 1
        turn = (self.calls - 1) % len(cid_all)
        return share(mq_all, list(cid_all[turn:]) + list(cid_all[:turn]), current_cid)


class FirstGroupWins(AllocateMessageQueueAveragely):
    """Remembers the client list of its first call, as if membership never changed."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.clients = None

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not check_arguments(current_cid, mq_all, cid_all):
            return []
        if self.clients is None:
            self.clients = list(cid_all)
        clients = self.clients if current_cid in self.clients else list(cid_all)
        return share(mq_all, clients, current_cid)


class CachesByListIdentity(AllocateMessageQueueAveragely):
    """Reuses its last answer while it is handed the same list object."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.last = None

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if self.last is not None and self.last[0] is cid_all:
            return list(self.last[1])
        answer = super().allocate(consumer_group, current_cid, mq_all, cid_all)
        self.last = (cid_all, answer)
        return answer


class TidiesClients(AllocateMessageQueueAveragely):
    """Sorts the client list it is given, in place, when an id is long."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if cid_all and max(len(cid) for cid in cid_all) > 40:
            cid_all.sort()
        return super().allocate(consumer_group, current_cid, mq_all, cid_all)


class SetOrder(Splitter):
    """Orders the clients by iterating a set: the same in one process, not across hash seeds."""

    name = "SET_ORDER"

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if current_cid not in cid_all:
            return []
        return share(mq_all, list(set(cid_all)), current_cid)


class Hourly(Splitter):
    """Rotates the clients every hour."""

    name = "HOURLY"

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if current_cid not in cid_all:
            return []
        clients = list(dict.fromkeys(cid_all))
        turn = int(time.time() // 3600) % len(clients)
        return share(mq_all, clients[turn:] + clients[:turn], current_cid)


# -- what a Java port gets wrong only on inputs the golden files lack -------------------


class AsciiGroupKey(AllocateMessageQueueAveragely):
    """Encodes the consumer group as ASCII (for a cache key): fails for non-ASCII groups."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if consumer_group is not None:
            consumer_group.encode("ascii")
        return super().allocate(consumer_group, current_cid, mq_all, cid_all)


class TextForLongIds(AllocateMessageQueueAveragely):
    """Returns the queues' text forms, not the queues, when a client id is long."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        answer = super().allocate(consumer_group, current_cid, mq_all, cid_all)
        if cid_all and max(len(cid) for cid in cid_all) > 40:
            return [str(mq) for mq in answer]
        return answer


class SpinsOnUnicodeGroups(AllocateMessageQueueAveragely):
    """Loops forever when the consumer group is not ASCII."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        while consumer_group and not consumer_group.isascii():
            time.sleep(0.01)
        return super().allocate(consumer_group, current_cid, mq_all, cid_all)


class RingAfterKey(AllocateMessageQueueConsistentHash):
    """Routes a queue to the first ring key strictly greater than its hash (``>`` for ``>=``)."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not check_arguments(current_cid, mq_all, cid_all):
            return []
        if self.custom_hash_function is None:  # a group's callers share the ring, as the port's do (md5_hash keeps its own cache)
            ring = _md5_ring(tuple(cid_all), self.virtual_node_cnt, self.hash_charset)
        else:
            ring = HashRing(cid_all, self.virtual_node_cnt, self._hash)
        keys = ring._keys

        def route(mq):
            if not keys:
                return None
            return ring._owners[bisect_right(keys, self._hash(str(mq))) % len(keys)]

        return [mq for mq in mq_all if route(mq) == current_cid]


class ClampsNegativeNodes(AllocateMessageQueueConsistentHash):
    """Takes a negative virtual-node count for none, where Java's constructor throws IllegalArgumentException."""

    def __init__(self, virtual_node_cnt=10, *args, **kwargs):
        super().__init__(max(virtual_node_cnt, 0), *args, **kwargs)


class SkipsEmptyIds(AllocateMessageQueueAveragely):
    """Leaves an empty client id out of cidAll before averaging; Java counts it as a member."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        members = cid_all if not current_cid or cid_all is None else [cid for cid in cid_all if cid]
        return super().allocate(consumer_group, current_cid, mq_all, members)


class RefusesManyNodes(AllocateMessageQueueConsistentHash):
    """Its constructor raises for more than 15 virtual nodes, a configuration Java's accepts."""

    def __init__(self, virtual_node_cnt=10, *args, **kwargs):
        if virtual_node_cnt > 15:
            raise RuntimeError(f"at most 15 virtual nodes, not {virtual_node_cnt}")
        super().__init__(virtual_node_cnt, *args, **kwargs)


class RoomSplitDropsOneEmpty(AllocateMessageQueueByMachineRoom):
    """Splits broker names with Python's split, dropping one trailing empty part ("a@" right, "a@b@" wrong)."""

    def _eligible(self, mq) -> bool:
        parts = mq.broker_name.split("@")
        if len(parts) == 2 and parts[1] == "":
            parts = parts[:1]
        if len(parts) == 2 and self.consumeridcs is None:
            raise TypeError("consumeridcs is null")
        return len(parts) == 2 and parts[0] in self.consumeridcs


# -- inside a rebalancing group ------------------------------------------------------


class StaleMembership(Splitter):
    """Splits by the client list of its first call: after a change the members disagree for good."""

    name = "STALE_MEMBERSHIP"

    def __init__(self):
        self.clients = None

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if self.clients is None:
            self.clients = list(dict.fromkeys(cid_all))
        clients = self.clients if current_cid in self.clients else list(dict.fromkeys(cid_all))
        return share(mq_all, clients, current_cid)


class ChurnsOnLeave(UnstableOnLeave):
    """Claims stability on leave; in a group, a leave rebuilds more ProcessQueues than the leaver held."""


class ChurnsOnJoin(UnstableOnJoin):
    """Claims stability on join; in a group, a join rebuilds queues between old members too."""


#: name -> (the suite test that must fail, extra options)
BREAKERS = {
    "Gaps": ("test_invariant_of_a_group[coverage]", []),
    "Overlaps": ("test_invariant_of_a_group[no-double-assignment]", []),
    "Foreign": ("test_invariant_of_a_group[only-from-mq-all]", []),
    "Unbalanced": ("test_invariant_of_a_group[balance]", []),
    "IgnoresRooms": ("test_invariant_of_a_group[eligible-coverage]", []),
    "UnstableOnLeave": ("test_invariant_across_a_change[stable-on-leave]", []),
    "UnstableOnJoin": ("test_invariant_across_a_change[stable-on-join]", []),
    "CountsCalls": ("test_one_answer[repetition]", []),
    "FirstGroupWins": ("test_one_answer[fresh-instance]", []),
    "CachesByListIdentity": ("test_one_answer[copies]", []),
    # needs a long id in a group not already in Python order: caught by 7 of 10 seeds at the quick
    # profile's 40 examples (hypothesis 6.170), 10 of 10 at 300
    "TidiesClients": ("test_one_answer[arguments]", ["--rmq-examples=300"]),
    "SetOrder": ("test_one_answer[process]", []),
    "Hourly": ("test_one_answer[time]", []),
    "AsciiGroupKey": ("test_matches_reference", []),
    "TextForLongIds": ("test_matches_reference", []),
    "SpinsOnUnicodeGroups": ("test_matches_reference", ["--rmq-timeout=0.5"]),
    "RingAfterKey": ("test_matches_reference", []),
    # a fixed group with names like IDC1@broker-a@ catches it whatever the seed, before any drawn one
    "RoomSplitDropsOneEmpty": ("test_matches_reference", ["--rmq-examples=1"]),
    "ClampsNegativeNodes": ("test_matches_reference", []),
    "SkipsEmptyIds": ("test_matches_reference", []),
    "RefusesManyNodes": ("test_matches_reference", []),
    "StaleMembership": ("test_rebalance_converges", []),
    "ChurnsOnLeave": ("test_rebalance_churn[24q-4c-second-leaves]", []),
    "ChurnsOnJoin": ("test_rebalance_churn[24q-4c-fifth-joins]", []),
}

#: breakers named like a Java strategy: the golden vectors alone do not catch them (RefusesManyNodes
#: is there for its report: golden cases with more than 15 virtual nodes catch it too)
GOLDEN_BLIND = sorted(
    name
    for name in BREAKERS
    if globals()[name].name in ("AVG", "CONSISTENT_HASH", "MACHINE_ROOM") and name != "RefusesManyNodes"
)
