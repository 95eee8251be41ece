"""Invariants of a group-wide assignment, as pure functions returning violations.

An assignment maps every distinct client of a group to the queues it
answered for one ``mq_all`` / ``cid_all``. The checks here know nothing of
pytest or Spark: the plugin and the sweep pipeline both call them.

    >>> from pytest_rmq_conformance import MessageQueue
    >>> a, b = MessageQueue("T", "b", 0), MessageQueue("T", "b", 1)
    >>> [v.kind for v in no_double_assignment({"c1": [a, b], "c2": [b]})]
    ['overlap']

Internal: import the public names from ``pytest_rmq_conformance``.
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
    "share_groups",
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


#: past this many distinct shares, clients are no longer grouped by share
_SHARE_GROUPS = 4


def share_groups(assignment: Assignment) -> list[tuple[Sequence[MessageQueue], list[str]]] | None:
    """The clients grouped by equal shares, in first-seen order, while there are few distinct
    ones (CONFIG hands everyone the same list); ``None`` past :data:`_SHARE_GROUPS`."""
    groups: list[tuple[Sequence[MessageQueue], list[str]]] = []
    for cid, queues in assignment.items():
        for share, cids in groups:
            if share is queues or share == queues:
                cids.append(cid)
                break
        else:
            if len(groups) == _SHARE_GROUPS:
                return None
            groups.append((queues, [cid]))
    return groups


def owners(assignment: Assignment) -> dict[MessageQueue, set[str]]:
    """Queue -> the clients holding it."""
    held: dict[MessageQueue, set[str]] = {}
    groups = share_groups(assignment)
    if groups is not None:
        for share, cids in groups:
            for mq in share:
                held.setdefault(mq, set()).update(cids)
        return held
    for cid, queues in assignment.items():
        for mq in queues:
            held.setdefault(mq, set()).add(cid)
    return held


#: the last few assignments' single-owner maps: a step's checks each ask for them
_single_owners: list[tuple[Assignment, tuple, dict[MessageQueue, str] | None]] = []


def single_owners(assignment: Assignment) -> dict[MessageQueue, str] | None:
    """Queue -> its holder, in :func:`owners`' order, when no queue is held by two clients
    (``None`` otherwise). Kept for the last few assignments, as long as they hold the same shares."""
    shares = tuple(assignment.values())  # kept with the entry: no other share can take their ids
    for kept, kept_shares, found in _single_owners:
        if kept is assignment and len(kept_shares) == len(shares) and all(a is b for a, b in zip(kept_shares, shares)):
            return found
    groups = share_groups(assignment)
    if groups is not None and any(len(cids) > 1 and share for share, cids in groups):
        result = None  # clients with the same queues
        _single_owners.insert(0, (assignment, shares, result))
        del _single_owners[4:]
        return result
    mapping: dict[MessageQueue, str] = {}
    distinct = 0
    for cid, queues in assignment.items():
        mine = dict.fromkeys(queues, cid)
        distinct += len(mine)
        mapping.update(mine)
    result = mapping if len(mapping) == distinct else None
    _single_owners.insert(0, (assignment, shares, result))
    del _single_owners[4:]
    return result


def _sample(queues: Sequence[MessageQueue], limit: int = 5) -> str:
    shown = ", ".join(str(mq) for mq in queues[:limit])
    return shown + (f" and {len(queues) - limit} more" if len(queues) > limit else "")


def coverage(assignment: Assignment, mq_all: Sequence[MessageQueue]) -> list[Violation]:
    """Every queue of ``mq_all`` is held by some client (pass the eligible queues
    for a strategy that covers only those)."""
    held = single_owners(assignment) or owners(assignment)
    gaps = tuple(mq for mq in dict.fromkeys(mq_all) if mq not in held)
    if not gaps:
        return []
    return [Violation("gap", f"{len(gaps)} queue(s) held by no client: {_sample(gaps)}", gaps)]


def no_double_assignment(assignment: Assignment) -> list[Violation]:
    """No queue is held by two clients (nor twice by one)."""
    violations = []
    for mq, holders in (() if single_owners(assignment) is not None else owners(assignment).items()):
        if len(holders) > 1:
            clients = tuple(sorted(holders))
            violations.append(Violation("overlap", f"{mq} is held by {len(clients)} clients: {clients}", (mq,), clients))
    for cid, queues in assignment.items():
        if len(set(queues)) == len(queues):
            continue
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
    groups = share_groups(assignment)
    if groups is not None:  # equal shares, equal sizes: each counted once
        sized = {id(share): len(set(share)) for share, _ in groups}
        sizes = {cid: sized[id(share)] for share, cids in groups for cid in cids}
        sizes = {cid: sizes[cid] for cid in assignment}  # the clients' order, for which is named first
    else:
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
    """Queue -> the clients holding it, as :func:`owners` orders them; clients with equal shares
    share one frozenset."""
    groups = share_groups(assignment)
    if groups is None:
        return {mq: frozenset(holders) for mq, holders in owners(assignment).items()}
    held: dict[MessageQueue, frozenset] = {}
    for share, cids in groups:
        group = dict.fromkeys(share, frozenset(cids))
        for mq in group.keys() & held.keys():
            group[mq] = held[mq] | group[mq]
        held.update(group)
    return held


def moved_queues(before: Assignment, after: Assignment) -> tuple[MessageQueue, ...]:
    """Queues whose set of holders changed (a queue gained, lost or changed owner)."""
    old_owner, new_owner = single_owners(before), single_owners(after)
    if old_owner is not None and new_owner is not None:
        return tuple(mq for mq in dict.fromkeys([*old_owner, *new_owner]) if old_owner.get(mq) != new_owner.get(mq))
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
    single = single_owners(after)
    if single is not None:
        disturbed = tuple(mq for mq in moved_queues(before, after) if single.get(mq) != joiner)
    else:
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
    kept = {cid: 0 for cid in clients}
    orphaned = 0
    single = single_owners(before)
    if single is not None:
        for mq in queues:
            holder = single.get(mq)
            if holder in kept:
                kept[holder] += 1
            else:
                orphaned += 1
    else:
        held = _owner_sets(before)
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
