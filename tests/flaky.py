"""Strategies whose answers depend on something besides their inputs, and slow ones.

Each answers every golden vector as Java does most of the time, so a run
can only catch them by asking again: the suite must call them
nondeterministic, quickly, and show two answers to one call.
"""

from __future__ import annotations

import itertools
import random
import time

from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely

_random = random.Random(20261125)  # answers hang on the calls made before, never on the inputs; seeded so that a test of them repeats
_calls = itertools.count()


class OneInFifty(AllocateMessageQueueAveragely):
    """Shuffles its client list on about one call in fifty, as a client iterating a hash set might."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if cid_all and _random.randrange(50) == 0:
            cid_all = list(cid_all)
            _random.shuffle(cid_all)
        return super().allocate(consumer_group, current_cid, mq_all, cid_all)


class EverySeventhCall(AllocateMessageQueueAveragely):
    """Answers with its clients reversed on every seventh call of the process (state shared by all instances)."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if cid_all and next(_calls) % 7 == 6:
            cid_all = list(reversed(cid_all))
        return super().allocate(consumer_group, current_cid, mq_all, cid_all)


class Sluggish(AllocateMessageQueueAveragely):
    """Correct, and takes 20 ms per call."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        time.sleep(0.02)
        return super().allocate(consumer_group, current_cid, mq_all, cid_all)


class SluggishOverlaps(Sluggish):
    """Wrong the same way every time (the first queue goes to every client), and slow: shrinking takes long."""

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        mine = super().allocate(consumer_group, current_cid, mq_all, cid_all)
        return mine if not mq_all or mq_all[0] in mine else [mq_all[0], *mine]
