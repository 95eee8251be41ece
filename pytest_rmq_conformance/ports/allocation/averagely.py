"""``AllocateMessageQueueAveragely`` (``AVG``): consecutive pages, the default strategy.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from pytest_rmq_conformance.ports.allocation.base import AllocateMessageQueueStrategy, check_arguments

__all__ = ["AllocateMessageQueueAveragely"]


class AllocateMessageQueueAveragely(AllocateMessageQueueStrategy):
    """Pages through ``mq_all`` in order; the first ``n % c`` clients take one more.

    >>> from pytest_rmq_conformance import MessageQueue
    >>> mqs = [MessageQueue("T", "broker-a", q) for q in range(5)]
    >>> [mq.queue_id for mq in AllocateMessageQueueAveragely().allocate("g", "b", mqs, ["a", "b"])]
    [3, 4]
    """

    name = "AVG"

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not check_arguments(current_cid, mq_all, cid_all):
            return []
        index = cid_all.index(current_cid)
        n, c = len(mq_all), len(cid_all)
        mod = n % c
        takes_extra = mod > 0 and index < mod
        if n <= c:
            size = 1
        else:
            size = n // c + 1 if takes_extra else n // c
        start = index * size if takes_extra else index * size + mod
        return [mq_all[(start + k) % n] for k in range(min(size, n - start))]
