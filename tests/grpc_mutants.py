"""Deliberately wrong balancers of the 5.x gRPC clients, one per way a port goes wrong; the
suite must reject each (tests/test_grpc.py names the check that catches it)."""

from __future__ import annotations

from pytest_rmq_conformance.javalang import java_get_bytes, java_int, sip_hash24
from pytest_rmq_conformance.ports.grpc import (
    AtomicIndex,
    MessageGroupBalancer,
    PublishingLoadBalancer,
    SubscriptionLoadBalancer,
)


class UnsignedModulo(MessageGroupBalancer):
    """Reads the hash as an unsigned 64-bit number before the modulo (Go's uint64, Rust's u64)."""

    def take_message_queue_by_message_group(self, group):
        queues = self.message_queues
        return queues[(sip_hash24(java_get_bytes(group, "UTF-8")) & (2**64 - 1)) % len(queues)]


class BigEndianHash(MessageGroupBalancer):
    """Reads the eight bytes of the hash in the wrong order."""

    def take_message_queue_by_message_group(self, group):
        queues = self.message_queues
        unsigned = sip_hash24(java_get_bytes(group, "UTF-8")) & (2**64 - 1)
        swapped = int.from_bytes(unsigned.to_bytes(8, "little"), "big", signed=True)
        return queues[swapped % len(queues)]


class CodePoints(MessageGroupBalancer):
    """Hashes the code points (UTF-32) instead of Java's UTF-8 bytes."""

    def take_message_queue_by_message_group(self, group):
        queues = self.message_queues
        return queues[sip_hash24(group.encode("utf-32-le", "surrogatepass")) % len(queues)]


class PassThroughSurrogates(MessageGroupBalancer):
    """Encodes a lone surrogate as its three UTF-8-like bytes, where Java writes ``?``."""

    def take_message_queue_by_message_group(self, group):
        queues = self.message_queues
        return queues[sip_hash24(group.encode("utf-8", "surrogatepass")) % len(queues)]


class TruncatedMod(MessageGroupBalancer):
    """Java's ``%`` with ``Math.abs``, where Java's client takes ``LongMath.mod``."""

    def take_message_queue_by_message_group(self, group):
        queues = self.message_queues
        value = sip_hash24(java_get_bytes(group, "UTF-8"))
        return queues[abs(value) % len(queues)]


class KeepsSlaves(PublishingLoadBalancer):
    """Keeps the writable queues of slave brokers too."""

    def __init__(self, route, index=None):
        super().__init__(route, index)
        self.message_queues = [mq for mq in route if mq.permission in ("WRITE", "READ_WRITE")]


class ExcludesByAddressSet(PublishingLoadBalancer):
    """Compares excluded endpoints by their addresses as a set, ignoring scheme and order."""

    def take_message_queues(self, excluded, count):
        loose = [frozenset(e.addresses) for e in excluded]
        return super().take_message_queues(_Loose(loose), count)


class _Loose:
    def __init__(self, addresses):
        self.addresses = addresses

    def __contains__(self, endpoints):
        return frozenset(endpoints.addresses) in self.addresses


class NoFallback(PublishingLoadBalancer):
    """Returns nothing when every broker is excluded, where Java takes them anyway."""

    def take_message_queues(self, excluded, count):
        queues = super().take_message_queues(excluded, count)
        return [mq for mq in queues if mq.broker.endpoints not in excluded]


class OneQueuePerCall(PublishingLoadBalancer):
    """Moves the index once per queue taken, where Java moves it once per call."""

    def take_message_queues(self, excluded, count):
        taken = super().take_message_queues(excluded, count)
        for _ in taken[1:]:
            self._index.get_and_increment()
        return taken


class NoIntWrap(SubscriptionLoadBalancer):
    """An index that grows past Integer.MAX_VALUE instead of wrapping to MIN_VALUE."""

    def take_message_queue(self):
        value = self._index.value
        self._index.value = value + 1
        return self.message_queues[value % len(self.message_queues)]


class IncrementFirst(SubscriptionLoadBalancer):
    """Increments, then reads (``incrementAndGet``): Java's answers one start index later."""

    def take_message_queue(self):
        self._index.get_and_increment()
        return self.message_queues[self._index.value % len(self.message_queues)]


class IncrementFirstDeclared(SubscriptionLoadBalancer):
    """Increments, then reads, keeping Java's counter less one exactly (past Java's wrap to -2^31,
    -2^31 - 1), and declares that offset: it differs from Java only in what it stores, and passes."""

    rmq_index_offset = -1

    def __init__(self, route, index=None):
        super().__init__(route, index if isinstance(index, AtomicIndex) else _JavasLessOne(0 if index is None else index))


class _JavasLessOne(AtomicIndex):
    """Java's ``AtomicInteger`` less one, as an exact number."""

    def __init__(self, value):
        self.value = java_int(value + 1) - 1

    def get_and_increment(self):
        self.value += 1  # incremented before use: the value Java uses now
        used = self.value
        self.value = java_int(used + 1) - 1
        return used


class NeverWraps(SubscriptionLoadBalancer):
    """A counter that never wraps (C++ ``size_t``, a Python int), incremented before use and
    declared one behind Java's: past 2^31 - 1 it equals Java's only modulo 2^32, and its next
    take differs (case 0130 ends on it)."""

    rmq_index_offset = -1

    def __init__(self, route, index=None):
        super().__init__(route, index if isinstance(index, AtomicIndex) else _Unbounded(0 if index is None else index))


class _Unbounded(AtomicIndex):
    """A Python int, incremented before use."""

    def __init__(self, value):
        self.value = value

    def get_and_increment(self):
        self.value += 1
        return self.value


class Int32IncrementFirst(SubscriptionLoadBalancer):
    """Go's ``atomic.Int32.Inc()`` (C#'s ``Interlocked.Increment``): an int32 that increments,
    then reads, declared one behind Java's. Once Java's has wrapped to -2^31 it stores 2^31 - 1,
    a number Java's never holds, read back as 2^31; every take is Java's, so it passes."""

    rmq_index_offset = -1

    def __init__(self, route, index=None):
        super().__init__(route, index if isinstance(index, AtomicIndex) else _Int32(0 if index is None else index))


class Int32IncrementFirstPublishing(PublishingLoadBalancer):
    """The same int32 counter in a publishing balancer: it passes."""

    rmq_index_offset = -1

    def __init__(self, route, index=None):
        super().__init__(route, index if isinstance(index, AtomicIndex) else _Int32(0 if index is None else index))


class _Int32(AtomicIndex):
    """An int32, incremented before use, wrapping from 2^31 - 1 to -2^31."""

    def __init__(self, value):
        self.value = java_int(value)

    def get_and_increment(self):
        self.value = java_int(self.value + 1)
        return self.value


class WanderingOffset(SubscriptionLoadBalancer):
    """Starts wherever the route's length says: an offset that changes from case to case."""

    rmq_index_offset = 1

    def __init__(self, route, index=None):
        super().__init__(route, None if index is None else index + len(route) % 3)


class NoErrorWhenEmpty(SubscriptionLoadBalancer):
    """Builds a balancer with no queue where Java refuses the route."""

    def __init__(self, route, index=None):
        try:
            super().__init__(route, index)
        except ValueError:
            self.message_queues = []


class NewIndexOnUpdate(SubscriptionLoadBalancer):
    """An update starts a fresh index at 0, where Java's balancers share theirs."""

    def update(self, route):
        return type(self)(route, 0)


class CopiesQueues(SubscriptionLoadBalancer):
    """Answers with queues that are not the route's (nor equal to one)."""

    def take_message_queue(self):
        from dataclasses import replace

        return replace(super().take_message_queue(), topic="elsewhere")


class EqualCopies(SubscriptionLoadBalancer):
    """Answers an equal copy of the queue Java answers, not the route's own object: Java sees the
    value only, so it passes (routes with two alike entries too)."""

    def take_message_queue(self):
        from dataclasses import replace

        return replace(super().take_message_queue())


class ExcludedInAnotherOrder(PublishingLoadBalancer):
    """Reads the excluded endpoints as a list in reverse order: Java's is a ``HashSet``, whose
    order no answer depends on, so it passes."""

    def take_message_queues(self, excluded, count):
        return super().take_message_queues(list(excluded)[::-1], count)


class AddressesInAnyOrder(PublishingLoadBalancer):
    """Excludes a broker whose endpoints hold the excluded addresses in another order, where
    Java's ``Endpoints.equals`` reads the address list in order."""

    def take_message_queues(self, excluded, count):
        unordered = {(e.scheme, frozenset(e.addresses)) for e in excluded}
        return super().take_message_queues(_Unordered(unordered), count)


class _Unordered:
    def __init__(self, unordered):
        self.unordered = unordered

    def __contains__(self, endpoints):
        return (endpoints.scheme, frozenset(endpoints.addresses)) in self.unordered


class PythonHash(MessageGroupBalancer):
    """Python's ``hash()`` of the group: one answer per process (PYTHONHASHSEED)."""

    def take_message_queue_by_message_group(self, group):
        return self.message_queues[hash(group) % len(self.message_queues)]


# -- caught by the generated checks ----------------------------------------------------------


class OutOfRoute(MessageGroupBalancer):
    """Routes a group to a queue that is not the route's for a long group."""

    def take_message_queue_by_message_group(self, group):
        queue = super().take_message_queue_by_message_group(group)
        if len(group) > 8:
            from dataclasses import replace

            return replace(queue, queue_id=queue.queue_id + 1000)
        return queue


class Lopsided(MessageGroupBalancer):
    """Sends every group whose hash is even to the first queue: Java's hash, a skewed spread."""

    def take_message_queue_by_message_group(self, group):
        if sip_hash24(java_get_bytes(group, "UTF-8")) % 2 == 0:
            return self.message_queues[0]
        return super().take_message_queue_by_message_group(group)


class TwoPerBroker(PublishingLoadBalancer):
    """Takes the next queues in turn, whatever their broker."""

    def take_message_queues(self, excluded, count):
        start = self._index.get_and_increment()
        queues = self.message_queues
        return [queues[(start + i) % len(queues)] for i in range(min(max(count, 1), len(queues)))]


class IgnoresExcluded(PublishingLoadBalancer):
    """Takes as if nothing were excluded."""

    def take_message_queues(self, excluded, count):
        return super().take_message_queues(set(), count)


class TakesOne(PublishingLoadBalancer):
    """Answers one queue whatever the count."""

    def take_message_queues(self, excluded, count):
        return super().take_message_queues(excluded, count)[:1]


class SkipsTheFirst(SubscriptionLoadBalancer):
    """Never answers the first kept queue of a route of two or more."""

    def take_message_queue(self):
        queues = self.message_queues
        if len(queues) < 2:
            return super().take_message_queue()
        return queues[1 + (self._index.get_and_increment() % (len(queues) - 1))]
