"""A message-group mapping that moves only the groups a new queue takes: jump consistent hashing
(Lamping and Veach's algorithm) keyed by the same SipHash-2-4 of the group's UTF-8 bytes that
the Java client takes. To compare it with Java's ``hash mod K`` as the queue count changes:

    rmq-conformance sweep --groups 100000 --strategy jump:JumpGroupHash

A balancer of the group sweep is built as ``factory(route=, index=)`` and answers
``take_message_queue_by_message_group(group)`` with one of the route's own queue objects.
"""

from pytest_rmq_conformance import java_get_bytes, sip_hash24

__all__ = ["JumpGroupHash", "jump"]

_MASK = (1 << 64) - 1


def jump(key: int, buckets: int) -> int:
    """The bucket in ``range(buckets)`` of an unsigned 64-bit ``key``: growing ``buckets`` by one
    moves a key only into the new bucket."""
    bucket, candidate = -1, 0
    while candidate < buckets:
        bucket = candidate
        key = (key * 2862933555777941757 + 1) & _MASK
        candidate = int((bucket + 1) * ((1 << 31) / ((key >> 33) + 1)))
    return bucket


class JumpGroupHash:
    name = "JUMP_GROUP_HASH"

    def __init__(self, route, index=0):
        self.message_queues = list(route)

    def take_message_queue_by_message_group(self, group):
        key = sip_hash24(java_get_bytes(group, "UTF-8")) & _MASK
        return self.message_queues[jump(key, len(self.message_queues))]
