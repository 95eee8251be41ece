"""The reference ports of the six Java allocation strategies.

Each class is named like its Java original and has ``name`` (Java
``getName()``) and ``allocate(consumer_group, current_cid, mq_all, cid_all)``;
Java's IllegalArgumentException is ``ValueError``. The keyword ``version``
selects the RocketMQ release reproduced (``pytest_rmq_conformance.releases.RELEASES``).

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from pytest_rmq_conformance.ports.allocation.averagely import AllocateMessageQueueAveragely
from pytest_rmq_conformance.ports.allocation.averagely_by_circle import AllocateMessageQueueAveragelyByCircle
from pytest_rmq_conformance.ports.allocation.base import (
    AllocateMessageQueueStrategy,
    MachineRoomResolver,
    check_arguments,
)
from pytest_rmq_conformance.ports.allocation.by_config import AllocateMessageQueueByConfig
from pytest_rmq_conformance.ports.allocation.consistent_hash import (
    AllocateMessageQueueConsistentHash,
    HashRing,
    md5_hash,
)
from pytest_rmq_conformance.ports.allocation.machine_room import AllocateMessageQueueByMachineRoom
from pytest_rmq_conformance.ports.allocation.machine_room_nearby import AllocateMachineRoomNearby
from pytest_rmq_conformance.ports.allocation.resolvers import MapMachineRoomResolver, SplitMachineRoomResolver

__all__ = [
    "AllocateMessageQueueAveragely",
    "AllocateMessageQueueAveragelyByCircle",
    "AllocateMessageQueueConsistentHash",
    "AllocateMessageQueueByMachineRoom",
    "AllocateMachineRoomNearby",
    "AllocateMessageQueueByConfig",
    "AllocateMessageQueueStrategy",
    "MachineRoomResolver",
    "MapMachineRoomResolver",
    "SplitMachineRoomResolver",
    "HashRing",
    "md5_hash",
    "check_arguments",
]
