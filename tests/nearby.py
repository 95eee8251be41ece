"""A nearby strategy as a client writes it: its ``name`` reads the inner strategy, which only a
configuration gives it, so the probe must reach the family's configuration to learn its name."""

from pytest_rmq_conformance.ports.allocation import AllocateMachineRoomNearby


class Nearby:
    """Java's ``AllocateMachineRoomNearby``, delegating to the built-in port."""

    def __init__(self, allocate_message_queue_strategy=None, machine_room_resolver=None):
        if allocate_message_queue_strategy is not None:
            self.inner = allocate_message_queue_strategy
        self.resolver = machine_room_resolver

    @property
    def name(self):
        return "MACHINE_ROOM_NEARBY-" + self.inner.name

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        port = AllocateMachineRoomNearby(self.inner, self.resolver, version=self.inner.version)
        return port.allocate(consumer_group, current_cid, mq_all, cid_all)
