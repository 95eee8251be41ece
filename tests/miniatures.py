"""Deliberately wrong strategies: each is a plausible port with one mistake.

The suite must reject every one of them; a check that none of these fails
would be a check that proves nothing. Each entry maps a name to the golden
strategy family it imitates and a builder ``(params, version) -> strategy``.
"""

from __future__ import annotations

import functools
import hashlib
from bisect import bisect_left

from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.ports.allocation import (
    AllocateMachineRoomNearby,
    AllocateMessageQueueAveragely,
    AllocateMessageQueueAveragelyByCircle,
    AllocateMessageQueueByConfig,
    AllocateMessageQueueByMachineRoom,
    AllocateMessageQueueConsistentHash,
    check_arguments,
    md5_hash,
)
from pytest_rmq_conformance.ports.allocation.consistent_hash import HashRing


class AvgRemainderToLast(AllocateMessageQueueAveragely):
    """Gives the extra queues to the last clients instead of the first."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not check_arguments(current_cid, mq_all, cid_all):
            return []
        n, c = len(mq_all), len(cid_all)
        index = c - 1 - cid_all.index(current_cid)
        size, mod = divmod(n, c)
        start = index * size + min(index, mod)
        share = mq_all[start : start + size + (1 if index < mod else 0)]
        return list(share)


class AvgSortsClientsPythonStyle(AllocateMessageQueueAveragely):
    """Sorts the client ids itself, in Python's code-point order."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return super().allocate(consumer_group, current_cid, mq_all, None if cid_all is None else sorted(cid_all))


class AvgNoArgumentCheck(AllocateMessageQueueAveragely):
    """Returns nothing instead of raising for an empty caller or list."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not current_cid or not mq_all or not cid_all:
            return []
        return super().allocate(consumer_group, current_cid, mq_all, cid_all)


class AvgWrongErrorType(AllocateMessageQueueAveragely):
    """Raises TypeError where Java raises IllegalArgumentException."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        try:
            return super().allocate(consumer_group, current_cid, mq_all, cid_all)
        except ValueError as exc:
            raise TypeError(str(exc)) from None


class AvgReturnsTuples(AllocateMessageQueueAveragely):
    """Returns (topic, broker, id) tuples instead of MessageQueue objects."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        result = super().allocate(consumer_group, current_cid, mq_all, cid_all)
        return [(mq.topic, mq.broker_name, mq.queue_id) for mq in result]


class CircleStartsAtOne(AllocateMessageQueueAveragelyByCircle):
    """Counts client positions from one."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not check_arguments(current_cid, mq_all, cid_all):
            return []
        index = (cid_all.index(current_cid) + 1) % len(cid_all)
        return [mq_all[p] for p in range(index, len(mq_all), len(cid_all))]


@functools.cache  # a ring asks the same keys on every call
def _last_four_md5_bytes(key: str) -> int:
    return int.from_bytes(hashlib.md5(key.encode("utf-8")).digest()[-4:], "big")


class HashLastFourBytes(AllocateMessageQueueConsistentHash):
    """Reads the last four MD5 bytes instead of the first four."""

    def __init__(self, virtual_node_cnt=10, **kwargs):
        super().__init__(
            virtual_node_cnt,
            _last_four_md5_bytes,
            **kwargs,
        )


class HashKeyWithHash(AllocateMessageQueueConsistentHash):
    """Keys virtual nodes ``<cid>#<k>`` instead of ``<cid>-<k>``."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not check_arguments(current_cid, mq_all, cid_all):
            return []
        ring = sorted(
            (md5_hash(f"{cid}#{k}"), cid) for cid in dict.fromkeys(cid_all) for k in range(self.virtual_node_cnt)
        )
        if not ring:
            return []
        keys = [key for key, _ in ring]
        return [mq for mq in mq_all if ring[bisect_left(keys, md5_hash(str(mq))) % len(ring)][1] == current_cid]


class HashRestartsReplicas(AllocateMessageQueueConsistentHash):
    """Numbers a duplicated client's virtual nodes from zero again."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not check_arguments(current_cid, mq_all, cid_all):
            return []
        return super().allocate(consumer_group, current_cid, mq_all, list(dict.fromkeys(cid_all)))


class HashIgnoresCharset(AllocateMessageQueueConsistentHash):
    """Always hashes UTF-8, whatever the 4.x default charset."""

    def __init__(self, virtual_node_cnt=10, **kwargs):
        kwargs["charset"] = "UTF-8"
        super().__init__(virtual_node_cnt, **kwargs)


class HashPythonStr(AllocateMessageQueueConsistentHash):
    """Hashes Python's repr of the queue instead of Java's toString."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not check_arguments(current_cid, mq_all, cid_all):
            return []
        ring = HashRing(cid_all, self.virtual_node_cnt, self._hash)
        return [mq for mq in mq_all if ring.route(repr(mq)) == current_cid]


class RoomPythonSplit(AllocateMessageQueueByMachineRoom):
    """Uses str.split, which keeps trailing empty strings (``"a@"`` has two parts)."""

    def _eligible(self, mq):
        parts = mq.broker_name.split("@")
        return len(parts) == 2 and parts[0] in (self.consumeridcs or ())


class RoomRemainderFromWrongEnd(AllocateMessageQueueByMachineRoom):
    """Hands the remainder to the last clients."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        result = super().allocate(consumer_group, current_cid, mq_all, cid_all)
        if not result or cid_all is None or current_cid not in cid_all:
            return result
        eligible = [mq for mq in mq_all if self._eligible(mq)]
        per, rem = divmod(len(eligible), len(cid_all))
        index = cid_all.index(current_cid)
        block = eligible[index * per : index * per + per]
        if len(cid_all) - 1 - index < rem:
            block.append(eligible[per * len(cid_all) + (len(cid_all) - 1 - index)])
        return block


class NearbyPythonRoomOrder(AllocateMachineRoomNearby):
    """Walks the rooms without clients in Python's code-point order."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not check_arguments(current_cid, mq_all, cid_all):
            return []
        resolver, inner = self.machine_room_resolver, self.allocate_message_queue_strategy
        by_room, clients = {}, {}
        for mq in mq_all:
            room = resolver.broker_deploy_in(mq)
            if not room:
                raise ValueError(f"Machine room is null for mq {mq}")
            by_room.setdefault(room, []).append(mq)
        for cid in cid_all:
            room = resolver.consumer_deploy_in(cid)
            if not room:
                raise ValueError(f"Machine room is null for consumer id {cid}")
            clients.setdefault(room, []).append(cid)
        own = resolver.consumer_deploy_in(current_cid)
        result = list(inner.allocate(consumer_group, current_cid, by_room.pop(own, []), clients.get(own))) if by_room.get(own) else []
        for room in sorted(by_room):
            if room not in clients:
                result.extend(inner.allocate(consumer_group, current_cid, by_room[room], cid_all))
        return result


class NearbyOwnRoomLast(AllocateMachineRoomNearby):
    """Appends the caller's own room after the shared rooms (order differs; sets agree)."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        result = super().allocate(consumer_group, current_cid, mq_all, cid_all)
        own = self.machine_room_resolver.consumer_deploy_in(current_cid) if result else None
        mine = [mq for mq in result if self.machine_room_resolver.broker_deploy_in(mq) == own]
        return [mq for mq in result if mq not in mine] + mine


class ConfigFiltersByMqAll(AllocateMessageQueueByConfig):
    """Drops configured queues that are not in mq_all."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        result = super().allocate(consumer_group, current_cid, mq_all, cid_all)
        if result is None:
            return None
        return [mq for mq in result if mq_all and mq in mq_all]


def _subclass_builder(cls):
    """Build ``cls`` the way reference_strategy builds its parent from golden params."""

    def build(params, version):
        reference = reference_strategy(FAMILY[cls], params, version)
        if isinstance(reference, AllocateMachineRoomNearby):
            return cls(reference.allocate_message_queue_strategy, reference.machine_room_resolver, version=version)
        if isinstance(reference, AllocateMessageQueueConsistentHash):
            return cls(reference.virtual_node_cnt, version=version, charset=reference.charset)
        if isinstance(reference, AllocateMessageQueueByMachineRoom):
            return cls(reference.consumeridcs, version=version)
        if isinstance(reference, AllocateMessageQueueByConfig):
            return cls(reference.message_queue_list, version=version)
        return cls(version=version)

    return build


FAMILY = {
    AvgRemainderToLast: "AVG",
    AvgSortsClientsPythonStyle: "AVG",
    AvgNoArgumentCheck: "AVG",
    AvgWrongErrorType: "AVG",
    AvgReturnsTuples: "AVG",
    CircleStartsAtOne: "AVG_BY_CIRCLE",
    HashLastFourBytes: "CONSISTENT_HASH",
    HashKeyWithHash: "CONSISTENT_HASH",
    HashRestartsReplicas: "CONSISTENT_HASH",
    HashIgnoresCharset: "CONSISTENT_HASH",
    HashPythonStr: "CONSISTENT_HASH",
    RoomPythonSplit: "MACHINE_ROOM",
    RoomRemainderFromWrongEnd: "MACHINE_ROOM",
    NearbyPythonRoomOrder: "MACHINE_ROOM_NEARBY",
    NearbyOwnRoomLast: "MACHINE_ROOM_NEARBY",
    ConfigFiltersByMqAll: "CONFIG",
}

#: name -> (golden strategy family, builder(params, version))
MINIATURES = {cls.__name__: (family, _subclass_builder(cls)) for cls, family in FAMILY.items()}

#: miniatures whose answers hold the right queues in the wrong order: only strict order sees them
#: (the rebalance uses answers as sets, so these mistakes are harmless in a real group)
ORDER_ONLY = {"NearbyOwnRoomLast", "NearbyPythonRoomOrder"}

#: plugin options under which each miniature's mistake can show (default options otherwise)
PLUGIN_ARGS = {
    **{name: ["--rmq-strict-order"] for name in ORDER_ONLY},
    "HashIgnoresCharset": ["--rmq-reference-version=4.9.8", "--rmq-charset=ISO-8859-1"],
}
