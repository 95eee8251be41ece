"""``AllocateMachineRoomNearby`` (``MACHINE_ROOM_NEARBY-<inner>``): prefer your own room.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from pytest_rmq_conformance.javalang import java_string_key
from pytest_rmq_conformance.ports.allocation.base import (
    AllocateMessageQueueStrategy,
    MachineRoomResolver,
    check_arguments,
)
from pytest_rmq_conformance.releases import PORT_RELEASE

__all__ = ["AllocateMachineRoomNearby"]


#: the last tuples of queues and clients, the resolver's configuration, and their rooms (the
#: tuples held here, so that no others can take their ids)
_last_rooms: list = [None, None, None, None]


class AllocateMachineRoomNearby(AllocateMessageQueueStrategy):
    """Wraps an inner strategy: queues of the caller's room go to the clients
    of that room; queues of rooms without clients go to all clients, room by
    room in Java string order, appended after.

    A room that resolves to ``None`` or ``""`` raises ``ValueError``, brokers
    before consumers.
    """

    def __init__(
        self,
        allocate_message_queue_strategy,
        machine_room_resolver: MachineRoomResolver,
        *,
        version: str = PORT_RELEASE,
    ) -> None:
        super().__init__(version=version)
        if allocate_message_queue_strategy is None:
            raise ValueError("allocateMessageQueueStrategy is null")
        if machine_room_resolver is None:
            raise ValueError("machineRoomResolver is null")
        self.allocate_message_queue_strategy = allocate_message_queue_strategy
        self.machine_room_resolver = machine_room_resolver

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"MACHINE_ROOM_NEARBY-{self.allocate_message_queue_strategy.name}"

    def _settings(self) -> dict:
        return {
            "allocate_message_queue_strategy": self.allocate_message_queue_strategy,
            "machine_room_resolver": self.machine_room_resolver,
        }

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not check_arguments(current_cid, mq_all, cid_all):
            return []
        resolver = self.machine_room_resolver
        rooms = self._rooms(resolver, mq_all, cid_all)
        queues_by_room = {room: list(queues) for room, queues in rooms[0].items()}
        clients_by_room = rooms[1]

        inner = self.allocate_message_queue_strategy
        result: list = []
        own_room = resolver.consumer_deploy_in(current_cid)
        own_queues = queues_by_room.pop(own_room, None) if own_room else None  # no room: no queues of its own
        if own_room and own_queues:
            result.extend(inner.allocate(consumer_group, current_cid, own_queues, clients_by_room.get(own_room)))
        for room in sorted(queues_by_room, key=java_string_key):
            if room not in clients_by_room:
                result.extend(inner.allocate(consumer_group, current_cid, queues_by_room[room], cid_all))
        return result

    @staticmethod
    def _rooms(resolver, mq_all, cid_all) -> tuple[dict[str, list], dict[str, list[str]]]:
        """The queues and the clients of each room, in order: brokers resolved before consumers, as
        Java does. Kept for the same tuples and resolver configuration (every client of the sweep's
        group is handed the same tuples)."""
        key = getattr(resolver, "cache_key", None)
        key = key() if callable(key) and type(mq_all) is tuple and type(cid_all) is tuple else None
        memo = _last_rooms
        if key is not None and memo[0] is mq_all and memo[1] is cid_all and memo[2] == key:
            return memo[3]
        queues_by_room: dict[str, list] = {}
        for mq in mq_all:
            room = resolver.broker_deploy_in(mq)
            if not room:
                raise ValueError(f"Machine room is null for mq {mq}")
            queues_by_room.setdefault(room, []).append(mq)
        clients_by_room: dict[str, list[str]] = {}
        for cid in cid_all:
            room = resolver.consumer_deploy_in(cid)
            if not room:
                raise ValueError(f"Machine room is null for consumer id {cid}")
            clients_by_room.setdefault(room, []).append(cid)
        if key is not None:
            memo[:] = [mq_all, cid_all, key, (queues_by_room, clients_by_room)]
        return queues_by_room, clients_by_room
