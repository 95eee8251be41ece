"""``AllocateMessageQueueAveragelyByCircle`` (``AVG_BY_CIRCLE``): round-robin dealing.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from pytest_rmq_conformance.ports.allocation.base import AllocateMessageQueueStrategy, check_arguments

__all__ = ["AllocateMessageQueueAveragelyByCircle"]


class AllocateMessageQueueAveragelyByCircle(AllocateMessageQueueStrategy):
    """The client at position ``i`` of ``cid_all`` takes every queue at a list
    position ``p`` with ``p % len(cid_all) == i``.

    >>> from pytest_rmq_conformance import MessageQueue
    >>> mqs = [MessageQueue("T", "broker-a", q) for q in range(5)]
    >>> [mq.queue_id for mq in AllocateMessageQueueAveragelyByCircle().allocate("g", "b", mqs, ["a", "b"])]
    [1, 3]
    """

    name = "AVG_BY_CIRCLE"

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not check_arguments(current_cid, mq_all, cid_all):
            return []
        index = cid_all.index(current_cid)
        return [mq_all[p] for p in range(index, len(mq_all), len(cid_all))]
