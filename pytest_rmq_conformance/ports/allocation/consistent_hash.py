"""``AllocateMessageQueueConsistentHash`` (``CONSISTENT_HASH``): a hash ring of clients.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

from pytest_rmq_conformance.javalang import java_get_bytes, normalize_charset
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.allocation.base import AllocateMessageQueueStrategy, check_arguments
from pytest_rmq_conformance.releases import PORT_RELEASE

__all__ = ["AllocateMessageQueueConsistentHash", "HashRing", "RingHit", "md5_hash"]

HashFunction = Callable[[str], int]


@lru_cache(maxsize=1 << 16)
def md5_hash(key: str, charset: str = "UTF-8") -> int:
    """The default ring hash: the first four MD5 bytes of ``key``, big-endian, unsigned."""
    return int.from_bytes(hashlib.md5(java_get_bytes(key, charset)).digest()[:4], "big")


def _java_long(value: int) -> int:
    return (value + 2**63) % 2**64 - 2**63


class HashRing:
    """Java's ``ConsistentHashRouter`` over client ids: a sorted map from a
    64-bit key to a virtual node ``(client id, replica number)``.

    Clients are added in the order given; each adds ``virtual_node_cnt`` nodes
    keyed ``"<cid>-<k>"`` where ``k`` continues from the number of that id's
    nodes already on the ring. A key that is already taken is overwritten.
    ``hash_function`` must return Java ``long`` values.
    """

    def __init__(self, client_ids: Sequence[str], virtual_node_cnt: int, hash_function: HashFunction):
        self._hash = hash_function
        nodes: dict[int, tuple[str, int]] = {}
        on_ring: Counter = Counter()
        for cid in client_ids:
            first = on_ring[cid]
            for replica in range(first, first + virtual_node_cnt):
                key = hash_function(f"{cid}-{replica}")
                previous = nodes.get(key)
                if previous is not None:
                    on_ring[previous[0]] -= 1
                nodes[key] = (cid, replica)
                on_ring[cid] += 1
        self._keys = sorted(nodes)
        self._owners = [nodes[key][0] for key in self._keys]
        self._replicas = [nodes[key][1] for key in self._keys]
        self._queue_owners: dict[MessageQueue, str | None] = {}
        self._shares_of: tuple = ()
        self._shares: dict[str | None, list[MessageQueue]] = {}

    def route(self, object_key: str) -> str | None:
        """The client owning the first key ``>=`` the hash of ``object_key``, wrapping around."""
        if not self._keys:
            return None
        position = bisect_left(self._keys, self._hash(object_key))
        return self._owners[position % len(self._keys)]

    def owner(self, mq: MessageQueue) -> str | None:
        """:meth:`route` of the queue's Java text form, remembered: every client of a group routes every queue."""
        try:
            return self._queue_owners[mq]
        except KeyError:
            owner = self._queue_owners[mq] = self.route(str(mq))
            return owner

    def shares(self, mq_all: tuple) -> dict[str | None, list[MessageQueue]]:
        """Each client's queues of ``mq_all``, in its order; kept for the same tuple, which every
        client of the sweep's group is handed."""
        if self._shares_of is not mq_all:
            shares: dict[str | None, list[MessageQueue]] = {}
            for mq in mq_all:
                shares.setdefault(self.owner(mq), []).append(mq)
            self._shares_of, self._shares = mq_all, shares
        return self._shares

    def hit(self, object_key: str) -> RingHit | None:
        """Where ``object_key`` lands: its hash and the virtual node it is routed to (``None``: an empty ring)."""
        if not self._keys:
            return None
        hashed = self._hash(object_key)
        position = bisect_left(self._keys, hashed) % len(self._keys)
        return RingHit(object_key, hashed, self._keys[position], self._owners[position], self._replicas[position])


@dataclass(frozen=True)
class RingHit:
    """One key routed through a :class:`HashRing`: its hash, and the virtual node
    ``"<client>-<replica>"`` (whose own hash is ``node_hash``) that takes it."""

    key: str
    hash: int
    node_hash: int
    client: str
    replica: int

    @property
    def node(self) -> str:
        return f"{self.client}-{self.replica}"


@lru_cache(maxsize=32)
def _md5_ring(client_ids: tuple[str, ...], virtual_node_cnt: int, charset: str) -> HashRing:
    # The default ring depends on nothing but these arguments, and a group's
    # clients all build the same one: keep the last few.
    return HashRing(client_ids, virtual_node_cnt, partial(md5_hash, charset=charset))


class AllocateMessageQueueConsistentHash(AllocateMessageQueueStrategy):
    """Routes every queue (its Java text form) through a ring of the clients'
    virtual nodes and keeps the caller's queues, in ``mq_all`` order.

    ``custom_hash_function`` replaces the MD5 hash: a callable ``str -> int``
    or an object with a ``hash(str) -> int`` method (Java's ``HashFunction``).
    Releases before 5.0 hashed the bytes of the JVM's default ``charset``;
    5.x always hashes UTF-8, so ``charset`` matters only for 4.x.
    """

    name = "CONSISTENT_HASH"

    def __init__(
        self,
        virtual_node_cnt: int = 10,
        custom_hash_function: HashFunction | object | None = None,
        *,
        version: str = PORT_RELEASE,
        charset: str = "UTF-8",
    ) -> None:
        super().__init__(version=version)
        if not isinstance(virtual_node_cnt, int) or isinstance(virtual_node_cnt, bool):
            raise ValueError(f"illegal virtualNodeCnt :{virtual_node_cnt!r}")
        if virtual_node_cnt < 0:
            raise ValueError(f"illegal virtualNodeCnt :{virtual_node_cnt}")
        self.virtual_node_cnt = virtual_node_cnt
        self.custom_hash_function = custom_hash_function
        self.charset = normalize_charset(charset)
        self._hash = self._hash_function()

    def _hash_function(self) -> HashFunction:
        custom = self.custom_hash_function
        if custom is not None:
            method = getattr(custom, "hash", None)
            function = method if callable(method) else custom
            if not callable(function):
                raise ValueError(f"custom_hash_function must be callable or have hash(), not {custom!r}")
            return lambda key: _java_long(function(key))
        return partial(md5_hash, charset=self.hash_charset)

    @property
    def hash_charset(self) -> str:
        """The charset whose bytes the MD5 hash reads: UTF-8 from 5.0 on."""
        return "UTF-8" if self._release >= (5, 0, 0) else self.charset

    def _settings(self) -> dict:
        settings: dict = {"virtual_node_cnt": self.virtual_node_cnt}
        if self.custom_hash_function is not None:
            settings["custom_hash_function"] = self.custom_hash_function
        if self.charset != "UTF-8":
            settings["charset"] = self.charset
        return settings

    def allocate(self, consumer_group, current_cid, mq_all, cid_all) -> list[MessageQueue]:
        if not check_arguments(current_cid, mq_all, cid_all):
            return []
        if self.custom_hash_function is None:  # a pure hash: the ring and where each queue lands are kept
            ring = _md5_ring(tuple(cid_all), self.virtual_node_cnt, self.hash_charset)
            if type(mq_all) is tuple:
                return list(ring.shares(mq_all).get(current_cid, ()))
            return [mq for mq in mq_all if ring.owner(mq) == current_cid]
        ring = HashRing(cid_all, self.virtual_node_cnt, self._hash)  # a custom hash is asked on every call, as Java does
        return [mq for mq in mq_all if ring.route(str(mq)) == current_cid]

    def ring_hit(self, mq: MessageQueue, cid_all: Sequence[str]) -> RingHit | None:
        """Where this strategy's ring over ``cid_all`` routes ``mq`` (its Java text form):
        the key's hash and the virtual node that takes it (``None``: no node on the ring)."""
        if self.custom_hash_function is None:
            ring = _md5_ring(tuple(cid_all), self.virtual_node_cnt, self.hash_charset)
        else:
            ring = HashRing(cid_all, self.virtual_node_cnt, self._hash)
        return ring.hit(str(mq))
