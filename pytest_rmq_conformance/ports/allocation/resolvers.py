"""Machine-room resolvers for ``AllocateMachineRoomNearby``, as the golden files describe them.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Mapping

from pytest_rmq_conformance.javalang import java_split
from pytest_rmq_conformance.model import MessageQueue

__all__ = ["MapMachineRoomResolver", "SplitMachineRoomResolver"]


class MapMachineRoomResolver:
    """Looks rooms up in two tables; a name missing from its table has no room (``None``)."""

    def __init__(self, broker_room: Mapping[str, str], consumer_room: Mapping[str, str]):
        self.broker_room = dict(broker_room)
        self.consumer_room = dict(consumer_room)

    def broker_deploy_in(self, mq: MessageQueue) -> str | None:
        return self.broker_room.get(mq.broker_name)

    def consumer_deploy_in(self, cid: str) -> str | None:
        return self.consumer_room.get(cid)

    def cache_key(self) -> tuple:
        """What its answers depend on: two resolvers with equal keys resolve alike."""
        return ("map", tuple(self.broker_room.items()), tuple(self.consumer_room.items()))

    def __repr__(self) -> str:
        return f"MapMachineRoomResolver(broker_room={self.broker_room!r}, consumer_room={self.consumer_room!r})"


class SplitMachineRoomResolver:
    """The room is the part of a name before the first ``separator``:
    ``name.split(separator)[0]`` with Java's ``String.split`` (a regex).

    A name made only of separators splits into nothing, and the lookup then
    raises ``IndexError`` as Java's ArrayIndexOutOfBoundsException does.
    """

    def __init__(self, separator: str = "-"):
        if not isinstance(separator, str) or not separator:
            raise ValueError(f"separator must be a non-empty string, not {separator!r}")
        self.separator = separator

    def _room(self, name: str) -> str:
        parts = java_split(name, self.separator)
        if not parts:
            raise IndexError("Index 0 out of bounds for length 0")
        return parts[0]

    def broker_deploy_in(self, mq: MessageQueue) -> str:
        return self._room(mq.broker_name)

    def consumer_deploy_in(self, cid: str) -> str:
        return self._room(cid)

    def cache_key(self) -> tuple:
        """What its answers depend on: two resolvers with equal keys resolve alike."""
        return ("split", self.separator)

    def __repr__(self) -> str:
        return f"SplitMachineRoomResolver(separator={self.separator!r})"
