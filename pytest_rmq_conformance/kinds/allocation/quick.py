"""A membership step judged at the speed of the calls it judges, when nothing is wrong.

:func:`quick_measures` names every queue of every share by the id of its object in ``mq_all``
(read at C speed; a queue equal to one of ``mq_all`` but another object is looked up by its
fields), and proves the claimed properties on those names. It returns the measures of the step
(moved, lower bound, own, imbalance) as :func:`~.steps.check_step` computes them, or ``None`` as
soon as a property may be broken, an item is not a queue of ``mq_all``, or the shape is one it
does not handle. Then :func:`~.steps.check_step` runs the checks of :mod:`~.invariants`, which
name what is wrong. A test holds the two equal on random assignments, broken ones included.

    >>> from pytest_rmq_conformance import MessageQueue
    >>> from pytest_rmq_conformance.kinds.allocation.scenarios import Event, Scenario
    >>> q = tuple(MessageQueue("T", "b", i) for i in range(4))
    >>> before_group, after_group = Scenario("AVG", {}, "g", q, ("a", "b")), Scenario("AVG", {}, "g", q, ("a",))
    >>> quick_measures({"coverage"}, Event("leave", "b"), before_group, {"a": q[:2], "b": q[2:]}, after_group, {"a": q})
    (2, 2, 2, 0)
    >>> quick_measures({"coverage"}, Event("leave", "b"), before_group, {"a": q[:2], "b": q[2:]}, after_group, {"a": q[1:]}) is None
    True

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from itertools import chain, compress, repeat
from operator import attrgetter, ne, sub
from typing import Any

from pytest_rmq_conformance.kinds.allocation.invariants import Assignment, share_groups
from pytest_rmq_conformance.kinds.allocation.properties import CHANGE_PROPERTIES, GROUP_PROPERTIES, for_scenario
from pytest_rmq_conformance.kinds.allocation.scenarios import Event, Scenario
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.allocation.machine_room import broker_room

__all__ = ["quick_measures", "read_queues"]

class _Queues:
    """One ``mq_all``, its queues named by the ids of its objects."""

    __slots__ = ("_by_value", "_distinct", "_eligible", "mq_all", "names", "order")

    def __init__(self, mq_all: Sequence[MessageQueue]):
        self.mq_all = mq_all  # held, so that no other object takes one of these ids
        self.order = list(map(id, mq_all))
        self.names = set(self.order)
        self._by_value: dict[tuple, int] | None = None
        self._distinct: bool | None = None
        self._eligible: dict[frozenset, frozenset[int]] = {}

    @property
    def by_value(self) -> dict[tuple, int]:
        """A queue's name by ``(topic, broker_name, queue_id)``: the fields its equality compares."""
        if self._by_value is None:
            self._by_value = dict(zip(map(_fields, self.mq_all), self.order))
        return self._by_value

    def distinct(self) -> bool:
        """Every queue of ``mq_all`` is a plain :class:`MessageQueue` (whose equality its fields
        say) and no two are equal: then a name is a queue."""
        if self._distinct is None:
            size = len(self.mq_all)
            self._distinct = len(self.names) == size and set(map(type, self.mq_all)) <= {MessageQueue} and len(self.by_value) == size
        return self._distinct

    def of(self, queues: Sequence[Any]) -> list[int] | None:
        """The names of ``queues``; ``None`` when one of them is not a queue of ``mq_all``."""
        found = list(map(id, queues))
        if self.names.issuperset(found):
            return found
        if set(map(type, queues)) - {MessageQueue}:
            return None  # equal to a queue is not enough (a subclass, a tuple): the full checks say so
        try:
            return list(map(self.by_value.__getitem__, map(_fields, queues)))
        except KeyError:
            return None

    def eligible(self, rooms: frozenset) -> frozenset[int]:
        """The names of the queues whose broker's room is one of ``rooms`` (MACHINE_ROOM)."""
        found = self._eligible.get(rooms)
        if found is None:
            room_of = {name: broker_room(name) for name in set(map(_broker_name, self.mq_all))}
            found = frozenset(name for name, mq in zip(self.order, self.mq_all) if room_of[mq.broker_name] in rooms)
            self._eligible[rooms] = found
        return found


_fields = attrgetter("topic", "broker_name", "queue_id")
_broker_name = attrgetter("broker_name")

#: the last few ``mq_all`` tuples read (each held, so no other object takes its id): the six
#: strategies of a scenario share its tuple
_recent: list[_Queues] = []


def _queues(mq_all: Sequence[MessageQueue]) -> _Queues:
    if type(mq_all) is not tuple:  # a list may change: read it afresh
        return _Queues(mq_all)
    for kept in _recent:
        if kept.mq_all is mq_all:
            return kept
    made = _Queues(mq_all)
    made.distinct()
    _recent.insert(0, made)
    del _recent[8:]
    return made


def read_queues(mq_all: Sequence[MessageQueue]) -> None:
    """Read the queues of ``mq_all`` now, for the steps of its groups that follow (the last few
    lists read are kept)."""
    _queues(mq_all)


class _Held:
    """One assignment by queue name: who holds each queue (a client id where every queue has at
    most one holder, else the frozenset of its holders), and each client's share size."""

    __slots__ = ("holders", "single", "sizes")

    def __init__(self, holders: dict[int, Any], single: bool, sizes: dict[str, int]):
        self.holders, self.single, self.sizes = holders, single, sizes

    def as_sets(self) -> dict[int, Any]:
        """The holders as frozensets, whatever the regime."""
        if not self.single:
            return self.holders
        alone = {cid: frozenset((cid,)) for cid in self.sizes}
        return dict(zip(self.holders, map(alone.__getitem__, self.holders.values())))


def _held(assignment: Assignment, queues: _Queues) -> _Held | None:
    """``assignment`` by queue name; ``None`` when an item is not a queue of ``mq_all``, or
    when queues have several holders and the shares are too many to group."""
    groups = share_groups(assignment)
    if groups is None or all(len(cids) == 1 or not share for share, cids in groups):  # maybe one holder per queue
        shares = list(assignment.values())
        names = list(map(id, chain.from_iterable(shares)))
        flat = names if queues.names.issuperset(names) else queues.of(list(chain.from_iterable(shares)))
        if flat is None:
            return None
        sizes = list(map(len, shares))
        holders: dict[int, Any] = dict(zip(flat, chain.from_iterable(map(repeat, assignment, sizes))))
        if len(holders) == len(flat):
            return _Held(holders, True, dict(zip(assignment, sizes)))
        if groups is None:
            return None
    holders = {}
    share_sizes = {}
    for share, cids in groups:
        found = queues.of(share)
        if found is None:
            return None
        group = dict.fromkeys(found, frozenset(cids))
        for q in group.keys() & holders.keys():
            group[q] = holders[q] | group[q]
        holders.update(group)
        share_sizes.update(dict.fromkeys(cids, len(set(found))))
    return _Held(holders, False, {cid: share_sizes[cid] for cid in assignment})


def _members_hold(names: frozenset[str], group: Scenario, held: _Held, queues: _Queues) -> bool:
    """Whether ``held`` keeps every group property among ``names`` (those apply to ``group``)."""
    names = for_scenario(names, group)
    if "coverage" in names and len(held.holders) != len(queues.mq_all):
        return False
    if "eligible-coverage" in names:
        rooms = frozenset(group.params.get("consumeridcs") or ())
        if held.holders.keys() != queues.eligible(rooms):
            return False
    if "no-double-assignment" in names and not held.single:
        return False
    # only-from-mq-all holds: every item is a queue of mq_all
    return not ("balance" in names and held.sizes and max(held.sizes.values()) - min(held.sizes.values()) > 1)


def _lower_bound(before: _Held, after_clients: Sequence[str], target: Sequence[int], within: bool) -> int:
    """:func:`~.invariants.minimum_moves` by queue name (``within``: nothing is held outside
    ``target`` before the change)."""
    clients = list(dict.fromkeys(after_clients))
    if not clients:
        return 0
    if before.single and within:  # a queue stays with its holder: each stayer keeps its whole share
        kept = dict(zip(clients, map(before.sizes.get, clients, repeat(0))))
        orphaned = len(target) - sum(kept.values())
    else:
        kept = dict.fromkeys(clients, 0)
        orphaned = 0
        for holder, count in Counter(map(before.holders.get, target)).items():
            if before.single:
                staying = [holder] if holder in kept else []
            else:
                staying = [cid for cid in holder or () if cid in kept]
            if staying:
                kept[min(staying)] += count
            else:
                orphaned += count
    size, extra = divmod(len(target), len(clients))
    targets = [size + 1] * extra + [size] * (len(clients) - extra)
    current = sorted(kept.values(), reverse=True)
    return orphaned + sum(map(max, repeat(0), map(sub, current, targets)))


def quick_measures(
    claimed: AbstractSet[str],
    event: Event,
    before_group: Scenario,
    before: Assignment,
    after_group: Scenario,
    after: Assignment,
) -> tuple[int, int, int, int] | None:
    """``(moved, lower_bound, own, imbalance)`` of ``event``, as :func:`~.steps.check_step`
    measures them, when the group properties among ``claimed`` hold before and after it and its
    stability properties hold across it; ``None`` when that is not proven here."""
    queues = _queues(before_group.mq_all)
    if not queues.distinct():
        return None
    if after_group.mq_all is not before_group.mq_all:  # the same queues, maybe in another order
        order = queues.of(after_group.mq_all)
        if order is None or len(order) != len(queues.order) or len(set(order)) != len(order):
            return None
    old, new = _held(before, queues), _held(after, queues)
    if old is None or new is None:
        return None
    group_names = frozenset(claimed) & frozenset(GROUP_PROPERTIES)
    if not (_members_hold(group_names, before_group, old, queues) and _members_hold(group_names, after_group, new, queues)):
        return None
    old_holders, new_holders = (old.holders, new.holders) if old.single == new.single else (old.as_sets(), new.as_sets())
    everywhere = queues.order
    # moved: held after by someone else than before, or held before and no longer
    moved = set(compress(new_holders, map(ne, map(old_holders.get, new_holders), new_holders.values())))
    if not len(old_holders) == len(new_holders) == len(everywhere):
        moved.update(old_holders.keys() - new_holders.keys())
    changes = frozenset(claimed) & frozenset(CHANGE_PROPERTIES)
    if event.kind == "join" and "stable-on-join" in changes:
        alone = event.client if new_holders is new.holders and new.single else frozenset((event.client,))
        if moved and set(map(new_holders.get, moved)) != {alone}:
            return None
    if event.kind in ("leave", "crash") and "stable-on-leave" in changes and not moved <= set(queues.of(before.get(event.client, ())) or ()):
        return None
    if "eligible-coverage" in claimed and "coverage" not in claimed:
        eligible = queues.eligible(frozenset(before_group.params.get("consumeridcs") or ()))
        target: Sequence[int] = list(eligible)
        within = old.holders.keys() <= eligible
    else:
        target, within = everywhere, True
    held = before if event.kind != "join" else after
    sizes = list(map(len, map(after.get, after_group.clients, repeat(()))))
    return (
        len(moved),
        _lower_bound(old, after_group.clients, target, within),
        len(held.get(event.client, ())),
        max(sizes) - min(sizes) if sizes else 0,
    )
