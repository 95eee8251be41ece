"""Strategies that fail inside a sweep's Spark tasks."""

import os
import time

from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely


class DiesOnce(AllocateMessageQueueAveragely):
    """Its Spark Python worker dies the first time it runs (the marker file in ``$RMQ_DIE_ONCE``
    remembers; the driver, ``$RMQ_DRIVER_PID``, never dies): Spark must retry the task."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        marker = os.environ.get("RMQ_DIE_ONCE")
        worker = os.environ.get("RMQ_DRIVER_PID") != str(os.getpid())
        if marker and worker and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(3)
        return super().allocate(consumer_group, current_cid, mq_all, cid_all)


class HangsOnBigGroups(AllocateMessageQueueAveragely):
    """Never answers for a group of more than five clients."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        while len(cid_all) > 5:
            time.sleep(0.01)
        return super().allocate(consumer_group, current_cid, mq_all, cid_all)
