"""Invariants of a group-wide assignment, as pure functions returning violations.

An assignment maps every distinct client of a group to the queues it
answered for one ``mq_all`` / ``cid_all``. The checks here know nothing of
pytest or Spark: the plugin and the sweep pipeline both call them.

    >>> from pytest_rmq_conformance import MessageQueue
    >>> a, b = MessageQueue("T", "b", 0), MessageQueue("T", "b", 1)
    >>> [v.kind for v in no_double_assignment({"c1": [a, b], "c2": [b]})]
    ['overlap']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from pytest_rmq_conformance.model import MessageQueue

__all__ = [
    "Assignment",
    "Violation",
    "group_assignment",
    "owners",
    "coverage",
    "no_double_assignment",
    "only_from_mq_all",
    "balance",
    "moved_queues",
    "stability_on_leave",
    "stability_on_join",
    "minimum_moves",
]

Assignment = Mapping[str, Sequence[MessageQueue]]


@dataclass(frozen=True)
class Violation:
    """One broken invariant: its ``kind``, a sentence, and the queues and clients involved."""

    kind: str
    detail: str
    queues: tuple[MessageQueue, ...] = ()
    clients: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


def group_assignment(
    allocate: Callable[[str], Iterable[MessageQueue] | None], cid_all: Sequence[str]
) -> dict[str, tuple[MessageQueue, ...]]:
    """Every distinct client's answer, in first-seen order (``None`` counts as no queues)."""
    return {cid: tuple(allocate(cid) or ()) for cid in dict.fromkeys(cid_all)}


def owners(assignment: Assignment) -> dict[MessageQueue, set[str]]:
    """Queue -> the clients holding it."""
    held: dict[MessageQueue, set[str]] = {}
    for cid, queues in assignment.items():
        for mq in queues:
            held.setdefault(mq, set()).add(cid)
    return held


def _sample(queues: Sequence[MessageQueue], limit: int = 5) -> str:
    shown = ", ".join(str(mq) for mq in queues[:limit])
    return shown + (f" and {len(queues) - limit} more" if len(queues) > limit else "")


def coverage(assignment: Assignment, mq_all: Sequence[MessageQueue]) -> list[Violation]:
    """Every queue of ``mq_all`` is held by some client (pass the eligible queues
    for a strategy that covers only those)."""
    held = owners(assignment)
    gaps = tuple(mq for mq in dict.fromkeys(mq_all) if mq not in held)
    if not gaps:
        return []
    return [Violation("gap", f"{len(gaps)} queue(s) held by no client: {_sample(gaps)}", gaps)]


def no_double_assignment(assignment: Assignment) -> list[Violation]:
    """No queue is held by two clients (nor twice by one)."""
    violations = []
    for mq, holders in owners(assignment).items():
        if len(holders) > 1:
            clients = tuple(sorted(holders))
            violations.append(Violation("overlap", f"{mq} is held by {len(clients)} clients: {clients}", (mq,), clients))
    for cid, queues in assignment.items():
        repeated = tuple(mq for mq, times in Counter(queues).items() if times > 1)
        if repeated:
            violations.append(Violation("overlap", f"{cid} holds {_sample(repeated)} twice", repeated, (cid,)))
    return violations


def only_from_mq_all(assignment: Assignment, mq_all: Sequence[MessageQueue]) -> list[Violation]:
    """Clients hold only queues of ``mq_all``."""
    known = set(mq_all)
    violations = []
    for cid, queues in assignment.items():
        foreign = tuple(mq for mq in queues if mq not in known)
        if foreign:
            violations.append(Violation("foreign", f"{cid} holds queue(s) not in mq_all: {_sample(foreign)}", foreign, (cid,)))
    return violations


def balance(assignment: Assignment, tolerance: int = 1) -> list[Violation]:
    """The largest share exceeds the smallest by at most ``tolerance`` queues."""
    if not assignment:
        return []
    sizes = {cid: len(set(queues)) for cid, queues in assignment.items()}
    largest, smallest = max(sizes, key=sizes.__getitem__), min(sizes, key=sizes.__getitem__)
    spread = sizes[largest] - sizes[smallest]
    if spread <= tolerance:
        return []
    return [
        Violation(
            "imbalance",
            f"{largest} holds {sizes[largest]} queues, {smallest} {sizes[smallest]} (allowed difference {tolerance})",
            clients=(largest, smallest),
        )
    ]


def _owner_sets(assignment: Assignment) -> dict[MessageQueue, frozenset]:
    return {mq: frozenset(holders) for mq, holders in owners(assignment).items()}


def moved_queues(before: Assignment, after: Assignment) -> tuple[MessageQueue, ...]:
    """Queues whose set of holders changed (a queue gained, lost or changed owner)."""
    old, new = _owner_sets(before), _owner_sets(after)
    return tuple(mq for mq in dict.fromkeys([*old, *new]) if old.get(mq, frozenset()) != new.get(mq, frozenset()))


def stability_on_leave(before: Assignment, after: Assignment, leaver: str) -> list[Violation]:
    """After ``leaver`` leaves, only the queues it held may move."""
    held = set(before.get(leaver, ()))
    disturbed = tuple(mq for mq in moved_queues(before, after) if mq not in held)
    if not disturbed:
        return []
    return [
        Violation(
            "moved-on-leave",
            f"{len(disturbed)} queue(s) not held by the leaving {leaver} moved: {_sample(disturbed)}",
            disturbed,
            (leaver,),
        )
    ]


def stability_on_join(before: Assignment, after: Assignment, joiner: str) -> list[Violation]:
    """After ``joiner`` joins, only queues that move to it may move."""
    new = _owner_sets(after)
    disturbed = tuple(mq for mq in moved_queues(before, after) if new.get(mq) != frozenset({joiner}))
    if not disturbed:
        return []
    return [
        Violation(
            "moved-on-join",
            f"{len(disturbed)} queue(s) moved elsewhere than to the joining {joiner}: {_sample(disturbed)}",
            disturbed,
            (joiner,),
        )
    ]


def minimum_moves(before: Assignment, after_clients: Sequence[str], mq_all: Sequence[MessageQueue]) -> int:
    """The fewest queue moves that reach a balanced assignment of ``mq_all`` to
    ``after_clients`` from ``before``: a lower bound to report churn against.

    Queues whose holder is gone (or that had none) must move; a client keeping
    more than its balanced share must give the surplus away. Shares are
    matched largest to largest, which is optimal.
    """
    clients = list(dict.fromkeys(after_clients))
    queues = list(dict.fromkeys(mq_all))
    if not clients:
        return 0
    held = _owner_sets(before)
    kept = {cid: 0 for cid in clients}
    orphaned = 0
    for mq in queues:
        staying = [cid for cid in held.get(mq, ()) if cid in kept]
        if staying:
            kept[min(staying)] += 1
        else:
            orphaned += 1
    size, extra = divmod(len(queues), len(clients))
    targets = [size + 1] * extra + [size] * (len(clients) - extra)
    current = sorted(kept.values(), reverse=True)
    return orphaned + sum(max(0, have - want) for have, want in zip(current, targets))
