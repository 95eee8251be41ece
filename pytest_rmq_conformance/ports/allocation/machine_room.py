"""``AllocateMessageQueueByMachineRoom`` (``MACHINE_ROOM``): only queues of chosen rooms.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from pytest_rmq_conformance.javalang import java_split
from pytest_rmq_conformance.ports.allocation.base import AllocateMessageQueueStrategy, check_arguments
from pytest_rmq_conformance.releases import PORT_RELEASE

__all__ = ["AllocateMessageQueueByMachineRoom", "broker_room"]


#: the last tuple of queues, the rooms chosen, and its eligible queues (an immutable tuple, held
#: here, so that no other can take its id)
_last_eligible: list = [None, None, []]


class AllocateMessageQueueByMachineRoom(AllocateMessageQueueStrategy):
    """Shares the queues whose broker name is ``<room>@<name>`` with ``<room>``
    in ``consumeridcs``; the remainder goes one each to the first clients.

    Release differences: before 4.8.0 each client's block is taken from the
    unfiltered ``mq_all`` (a bug), and before 4.9.3 there is no argument check.
    A ``consumeridcs`` of ``None`` fails only once a ``<room>@<name>`` broker
    is met, as the Java class does.
    """

    name = "MACHINE_ROOM"

    def __init__(
        self,
        consumeridcs: Iterable[str] | None = None,
        *,
        version: str = PORT_RELEASE,
    ) -> None:
        super().__init__(version=version)
        self.consumeridcs = None if consumeridcs is None else frozenset(consumeridcs)

    def _settings(self) -> dict:
        idcs = self.consumeridcs
        return {"consumeridcs": None if idcs is None else sorted(idcs)}

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if self._release >= (4, 9, 3):
            if not check_arguments(current_cid, mq_all, cid_all):
                return []
        elif cid_all is None:
            raise TypeError("cidAll is null")
        if current_cid not in cid_all:
            return []
        index = cid_all.index(current_cid)
        if mq_all is None:
            raise TypeError("mqAll is null")
        eligible = self._eligible_queues(mq_all)
        c = len(cid_all)
        per_client, remainder = divmod(len(eligible), c)
        block_source = eligible if self._release >= (4, 8, 0) else mq_all
        result = list(block_source[index * per_client : index * per_client + per_client])
        if index < remainder:
            result.append(eligible[index + per_client * c])
        return result

    def _eligible_queues(self, mq_all) -> list:
        """The queues of ``mq_all`` in the chosen rooms; for a tuple (every client of the sweep's
        group is handed the same one) kept for the next client."""
        memo = _last_eligible
        if type(mq_all) is tuple and memo[0] is mq_all and memo[1] == self.consumeridcs:
            return memo[2]
        eligible = [mq for mq in mq_all if self._eligible(mq)]
        if type(mq_all) is tuple:
            memo[:] = [mq_all, self.consumeridcs, eligible]
        return eligible

    def _eligible(self, mq) -> bool:
        room = broker_room(mq.broker_name)
        if room is None:
            return False
        if self.consumeridcs is None:
            raise TypeError("consumeridcs is null")
        return room in self.consumeridcs


@lru_cache(maxsize=4096)  # a group has a few broker names, asked for every queue at every call
def broker_room(broker_name: str) -> str | None:
    """The room of a ``<room>@<name>`` broker (Java split: exactly two parts), else ``None``."""
    parts = java_split(broker_name, "@")
    return parts[0] if len(parts) == 2 else None
