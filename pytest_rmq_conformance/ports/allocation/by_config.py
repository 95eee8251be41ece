"""``AllocateMessageQueueByConfig`` (``CONFIG``): a fixed list for every caller.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.allocation.base import AllocateMessageQueueStrategy
from pytest_rmq_conformance.releases import PORT_RELEASE

__all__ = ["AllocateMessageQueueByConfig"]


class AllocateMessageQueueByConfig(AllocateMessageQueueStrategy):
    """Returns ``message_queue_list`` as configured, whoever asks and whatever
    the group looks like: no argument check, no filtering against ``mq_all``,
    and ``None`` when the list is ``None``.
    """

    name = "CONFIG"

    def __init__(
        self,
        message_queue_list: Sequence[MessageQueue] | None = None,
        *,
        version: str = PORT_RELEASE,
    ) -> None:
        super().__init__(version=version)
        self.message_queue_list = None if message_queue_list is None else list(message_queue_list)

    def _settings(self) -> dict:
        return {"message_queue_list": self.message_queue_list}

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if self.message_queue_list is None:
            return None
        return list(self.message_queue_list)
