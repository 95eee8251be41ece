"""``AllocateMachineRoomNearby`` (``MACHINE_ROOM_NEARBY-<inner>``): prefer your own room."""

from __future__ import annotations

from pytest_rmq_conformance.javalang import java_string_key
from pytest_rmq_conformance.releases import DEFAULT_RELEASE
from pytest_rmq_conformance.strategies.base import AllocateMessageQueueStrategy, MachineRoomResolver, check_arguments

__all__ = ["AllocateMachineRoomNearby"]


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
        version: str = DEFAULT_RELEASE,
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
