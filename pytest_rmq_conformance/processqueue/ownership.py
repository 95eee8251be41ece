"""The ownership ledger of a group: which client held which queue when, and what follows from
it (owners now, overlaps, gaps, churn).

A client holds a queue while a live (not dropped) ProcessQueue for it is in
its table; the ledger looks at a client's table when told and records what
changed since it last looked.

    >>> from pytest_rmq_conformance.model import MessageQueue
    >>> from pytest_rmq_conformance.processqueue import ManualClock, ProcessQueue
    >>> clock = ManualClock(); mq = MessageQueue("T", "broker-a", 0)
    >>> ledger = OwnershipLedger([mq], clock)
    >>> ledger.observe("c1", {mq: ProcessQueue(clock)}); clock.advance(500)
    500
    >>> ledger.observe("c1", {}, alive=False); ledger.observe("c2", {mq: ProcessQueue(clock)})
    >>> ledger.ownership[mq]
    [Ownership(client='c1', start=0, end=500), Ownership(client='c2', start=500, end=None)]

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pytest_rmq_conformance.kinds.allocation.invariants import coverage, no_double_assignment
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.processqueue.process_queue import ProcessQueue

__all__ = ["Ownership", "Overlap", "Gap", "OwnershipLedger"]


@dataclass
class Ownership:
    """``client`` held ``mq`` (a live ProcessQueue in its table) from ``start`` to ``end``."""

    client: str
    start: int
    end: int | None = None  # still held


@dataclass(frozen=True)
class Overlap:
    mq: MessageQueue
    start: int
    end: int
    clients: tuple[str, ...]


@dataclass(frozen=True)
class Gap:
    mq: MessageQueue
    start: int
    end: int


class OwnershipLedger:
    """Ownership intervals of ``mq_all`` on ``clock``; ``say(who, what)`` hears of each change.

    ``ownership``: queue -> its :class:`Ownership` intervals in order; ``created`` and
    ``dropped``: ``(time, client, queue)`` of every ownership that began or ended.
    """

    def __init__(self, mq_all: Sequence[MessageQueue], clock, say: Callable[[str, str], None] = lambda who, what: None):
        self.mq_all = tuple(mq_all)
        self.clock = clock
        self.say = say
        self.ownership: dict[MessageQueue, list[Ownership]] = {mq: [] for mq in self.mq_all}
        self.created: list[tuple[int, str, MessageQueue]] = []
        self.dropped: list[tuple[int, str, MessageQueue]] = []
        self._held: dict[str, dict[MessageQueue, ProcessQueue]] = {}

    def observe(self, client: str, table: Mapping[MessageQueue, ProcessQueue], alive: bool = True) -> None:
        """Record what changed in ``client``'s ProcessQueue table since last looked at (a client
        that is not ``alive`` holds nothing)."""
        now = self.clock.now()
        held = self._held.setdefault(client, {})
        live = {mq: pq for mq, pq in table.items() if not pq.dropped} if alive else {}
        for mq, pq in list(held.items()):
            if live.get(mq) is not pq:
                del held[mq]
                self.dropped.append((now, client, mq))
                self._close(mq, client, now)
        for mq, pq in live.items():
            if mq not in held:
                held[mq] = pq
                self.created.append((now, client, mq))
                self.ownership.setdefault(mq, []).append(Ownership(client, now))
                self.say(client, f"now holds {mq}")

    def _close(self, mq: MessageQueue, client: str, now: int) -> None:
        for interval in reversed(self.ownership.get(mq, [])):
            if interval.client == client and interval.end is None:
                interval.end = now
                self.say(client, f"no longer holds {mq}")
                return

    def owners(self) -> dict[MessageQueue, list[str]]:
        """Queue -> the clients holding it now."""
        return {mq: [i.client for i in spans if i.end is None] for mq, spans in self.ownership.items()}

    def assignment(self, clients: Sequence[str]) -> dict[str, tuple[MessageQueue, ...]]:
        """Each of ``clients`` (and anyone else holding a queue) -> the queues it holds now."""
        held: dict[str, list[MessageQueue]] = {cid: [] for cid in clients}
        for mq, cids in self.owners().items():
            for cid in cids:
                held.setdefault(cid, []).append(mq)
        return {cid: tuple(mqs) for cid, mqs in held.items()}

    def problems(self, clients: Sequence[str], queues: Sequence[MessageQueue] | None = None) -> list[str]:
        """What keeps exactly one owner per queue from holding now (``queues``: those that must be
        held, default all; no queue may have two owners)."""
        assignment = self.assignment(clients)
        target = self.mq_all if queues is None else queues
        return [str(v) for v in coverage(assignment, target) + no_double_assignment(assignment)]

    def _timeline(self, mq: MessageQueue, since: int, until: int) -> list[tuple[int, int, tuple[str, ...]]]:
        """``(start, end, holders)`` pieces covering ``since``..``until`` for ``mq``."""
        spans = self.ownership.get(mq, [])
        cuts = {since, until}
        for s in spans:
            cuts.update(t for t in (s.start, s.end) if t is not None and since < t < until)
        pieces = []
        edges = sorted(cuts)
        for start, end in itertools.pairwise(edges):
            holders = tuple(s.client for s in spans if s.start <= start and (s.end is None or s.end >= end))
            pieces.append((start, end, holders))
        return pieces

    def overlaps(self, since: int = 0, until: int | None = None) -> list[Overlap]:
        """Stretches of time when a queue had two owners or more."""
        until = self.clock.now() if until is None else until
        found = []
        for mq in self.ownership:
            for start, end, holders in self._timeline(mq, since, until):
                if len(holders) > 1:
                    found.append(Overlap(mq, start, end, holders))
        return found

    def gaps(self, since: int = 0, until: int | None = None) -> list[Gap]:
        """Stretches of time when a queue had no owner."""
        until = self.clock.now() if until is None else until
        found = []
        for mq in self.mq_all:
            for start, end, holders in self._timeline(mq, since, until):
                if not holders:
                    found.append(Gap(mq, start, end))
        return found

    def churn(self, since: int = 0, client: str | None = None) -> int:
        """ProcessQueues created (queue ownerships that moved) at or after ``since``."""
        return sum(1 for at, cid, _ in self.created if at >= since and (client is None or cid == client))
