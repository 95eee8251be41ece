"""Hypothesis strategies for consumer groups: realistic and adversarial inputs.

``scenarios(family)`` draws a whole group (:class:`~.scenarios.Scenario`)
configured for a Java strategy family, or for a strategy with no Java twin
(``family=None``); ``plans(family)`` draws a group and a sequence of joins,
leaves and crashes. With ``adversarial=True`` the draws also hold what a
rebalance never passes but a port must still answer as Java does: duplicated
ids, an empty id among the members, callers outside the group, empty lists,
virtual-node counts of 0 and below (Java's constructor refuses a negative
one), unresolvable machine rooms, queue ids far enough apart that Java's
``compareTo`` (an int subtraction) overflows, so that a list in Java order is
in no consistent order at all.

What is drawn: client ids like ``IP@pid``, ``IP@instance``,
``IP@pid#hash`` and Unicode ids whose Java (UTF-16) order differs from
Python's; broker names with and without machine-room prefixes and with odd
separators (leading, doubled, trailing: ``IDC1@broker-a@``, which Java's
``split`` reads as two parts); retry and dead-letter topics; 1–1024 queues,
1–100 clients; queues and virtual nodes landing exactly on ring keys
(:mod:`~.ring_collisions`); lists in Java order, Python order or shuffled.

    >>> from hypothesis import given
    >>> @given(scenarios("AVG"))
    ... def test_every_queue_has_an_owner(scenario): ...

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import random
from dataclasses import replace
from functools import cache, lru_cache
from ipaddress import IPv4Address

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from pytest_rmq_conformance.javalang import INT_MAX, INT_MIN, java_sorted_strings
from pytest_rmq_conformance.kinds.allocation.family import get as family_record
from pytest_rmq_conformance.kinds.allocation.ring_collisions import NODE_ON_NODE, QUEUE_ON_NODE
from pytest_rmq_conformance.kinds.allocation.scenarios import Event, Plan, Scenario
from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues
from pytest_rmq_conformance.ports.allocation.consistent_hash import HashRing, md5_hash

__all__ = [
    "Groups",
    "nearby_group",
    "client_ids",
    "broker_names",
    "topics",
    "scenarios",
    "plans",
    "ring_trap_groups",
    "room_trap_groups",
    "order_trap_groups",
    "edge_config_groups",
    "OVERFLOWING",
    "ORDER_TRAPS",
]

MAX_QUEUES = 1024
MAX_CLIENTS = 100

#: characters whose Java order differs from Python's (BMP above the surrogates
#: against supplementary characters), Latin-1 and CJK letters, and separators
TRAPS = ["\ue000", "\uff21", "\ufb01", "\U0001f600", "\U00010400", "\U0002070e", "é", "ß", "中", "a", "Z", "0", "-", "@", "#"]
ROOMS = ["IDC1", "IDC2", "room-x", "hz", "sh", "ünï", "\U0001f600"]
INSTANCES = ["DEFAULT", "consumer-1", "c@t", "ünï", "order-service-consumer-instance-01", "payment_notification_consumer"]

# Strategies are built once, here or by a cached builder: a strategy made inside a draw is
# validated again at every draw, which cost as much as the drawing itself.
#: an IPv4 address as text, from one integer (``st.ip_addresses`` draws several times as often)
_ip = st.integers(0, 2**32 - 1).map(lambda n: str(IPv4Address(n)))
_unicode_text = st.text(
    alphabet=st.one_of(st.sampled_from(TRAPS), st.characters(exclude_categories=["Cs"])), min_size=1, max_size=8
)


@cache
def client_ids() -> st.SearchStrategy[str]:
    """``IP@pid``, ``IP@instance``, ``IP@pid#hash`` and Unicode ids."""
    return st.one_of(
        st.builds("{}@{}".format, _ip, st.integers(1, 4_194_304)),
        st.builds("{}@{}".format, _ip, st.one_of(st.sampled_from(INSTANCES), _unicode_text)),
        st.builds("{}@{}#{}".format, _ip, st.integers(1, 4_194_304), st.integers(0, 2**63 - 1)),
        _unicode_text,
    )


@cache
def broker_names(separator: str = "@") -> st.SearchStrategy[str]:
    """Broker names with and without a room prefix, and with the separator leading, doubled or trailing."""
    room = st.sampled_from(ROOMS)
    name = st.sampled_from(["broker-a", "broker-b", "broker-c", "b", "中"])
    s = separator
    return st.one_of(
        name,
        st.builds(f"{{}}{s}{{}}".format, room, name),
        st.builds(f"{s}{{}}".format, name),
        st.builds(f"{{}}{s}".format, room),
        st.builds(f"{{}}{s}{s}{{}}".format, room, name),
        st.builds(f"{{}}{s}{s}".format, room),
        st.builds(f"{{}}{s}{{}}{s}".format, room, name),
        st.builds(f"{{}}{s}{{}}{s}{{}}".format, room, name, name),
        st.sampled_from([s, s + s]),
    )


@lru_cache(maxsize=256)  # consumer groups are drawn: a bounded cache
def topics(consumer_group: str = "group") -> st.SearchStrategy[str]:
    """Plain, retry, dead-letter and Unicode topics."""
    return st.one_of(
        st.sampled_from(["TopicTest", "topic_test", "a"]),
        st.just(f"%RETRY%{consumer_group}"),
        st.just(f"%DLQ%{consumer_group}"),
        _unicode_text,
    )


@cache
def _size(maximum: int) -> st.SearchStrategy[int]:
    # mostly small groups (fast, and where off-by-ones live), sometimes up to the maximum
    return st.one_of(st.integers(1, 8), st.integers(1, 32), st.integers(1, maximum))


#: ``first_id`` that spreads a pair's queue ids over both ends of Java's int range
OVERFLOWING = "overflowing"


def _queue_id(first_id: int | str, k: int) -> int:
    """The ``k``-th queue id of a (topic, broker) pair: ``first_id + k``, or for
    :data:`OVERFLOWING` ``INT_MIN, INT_MAX, INT_MIN + 1, INT_MAX - 1, ...``, ids whose
    ``compareTo`` (``this.queueId - o.queueId`` in int arithmetic) overflows: Java orders
    ``INT_MAX`` before ``INT_MIN``."""
    if first_id == OVERFLOWING:
        return INT_MIN + k // 2 if k % 2 == 0 else INT_MAX - k // 2
    assert isinstance(first_id, int)
    return first_id + k


@cache
def _unique_lists(items: st.SearchStrategy, least: int, most: int) -> st.SearchStrategy[list]:
    return st.lists(items, min_size=least, max_size=most, unique=True)


#: where a pair's queue ids start (adversarial draws): mostly 0, at Java's int limits, or spread
#: over both ends (``compareTo`` overflows)
_FIRST_IDS = st.sampled_from([0, 0, 0, 8, -3, INT_MIN, "up to INT_MAX", OVERFLOWING])


@lru_cache(maxsize=256)  # a composite, so that the shrinker can cut the queues' draws as a block
@st.composite
def _queues(draw, consumer_group: str, brokers: st.SearchStrategy[str], adversarial: bool) -> list[MessageQueue]:
    total = draw(_size(MAX_QUEUES))
    topic_names = draw(_unique_lists(topics(consumer_group), 1, 3))
    broker_list = draw(_unique_lists(brokers, 1, 4))
    pairs = [(t, b) for t in topic_names for b in broker_list][:total]
    per_pair = -(-total // len(pairs))
    first_id: int | str = draw(_FIRST_IDS) if adversarial else 0
    if first_id == "up to INT_MAX":
        first_id = INT_MAX + 1 - per_pair
    queues = []
    for index in range(total):
        topic, broker = pairs[index % len(pairs)]
        queues.append(MessageQueue(topic, broker, _queue_id(first_id, index // len(pairs))))
    return queues


_ORDERS = st.sampled_from(["java", "java", "given", "python", "shuffled"])
_SHUFFLE_SEEDS = st.integers(0, 2**16)
_ONE_IN_FIVE = st.integers(0, 4)


def _order(draw, items: list, strings: bool) -> list:
    how = draw(_ORDERS)
    if how == "java":
        if strings:
            return java_sorted_strings(items)
        try:
            return java_sorted_queues(items)
        except ValueError:  # Java's sort throws on these ids: no client ever passes them sorted
            return list(items)
    if how == "python":
        return sorted(items, key=str) if not strings else sorted(items)
    if how == "shuffled":
        items = list(items)
        random.Random(draw(_SHUFFLE_SEEDS)).shuffle(items)
    return list(items)


def _members(draw, ids: st.SearchStrategy[str], adversarial: bool) -> list[str]:
    count = draw(_size(MAX_CLIENTS))
    members = draw(_unique_lists(ids, count, count))
    if adversarial and "" not in members and draw(_ONE_IN_FIVE) == 4:  # an empty id: Java counts it
        members.insert(draw(st.integers(0, len(members))), "")
    if adversarial and draw(_ONE_IN_FIVE) == 4:  # duplicated ids
        members += draw(st.lists(st.sampled_from(members), min_size=1, max_size=3))
    return members


_INNERS = st.sampled_from(["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"])


def _inner_params(draw, adversarial: bool):
    inner = draw(_INNERS)
    if inner != "CONSISTENT_HASH":
        return {"strategy": inner, "params": {}}
    return {"strategy": inner, "params": {"virtualNodeCnt": draw(virtual_node_counts(adversarial, 12))}}


@cache
def virtual_node_counts(adversarial: bool, most: int = 20) -> st.SearchStrategy[int]:
    """Virtual-node counts: 10 (Java's default) and 1 to ``most``; adversarial, also 0 and, now
    and then, a negative count, which Java's constructor refuses (IllegalArgumentException)."""
    counts = st.one_of(st.just(10), st.integers(0 if adversarial else 1, most))
    if not adversarial:
        return counts
    return st.integers(0, 9).flatmap(lambda roll: st.integers(INT_MIN, -1) if roll == 9 else counts)


@cache
def _rooms_without(separator: str) -> st.SearchStrategy[str]:
    return st.sampled_from([r for r in ROOMS if separator not in r])


@cache
def _split_brokers(separator: str, adversarial: bool) -> st.SearchStrategy[str]:
    """Broker names a split resolver reads a room from; the separator may also end the name
    (``IDC1@broker-a@``: Java's split drops the empty tail); adversarial, any broker name."""
    room_names, plain = _rooms_without(separator), st.sampled_from(["broker-a", "b", "中"])
    brokers = st.one_of(
        st.builds(f"{{}}{separator}{{}}".format, room_names, plain),
        st.builds(f"{{}}{separator}{{}}{separator}".format, room_names, plain),
    )
    return st.one_of(brokers, broker_names(separator)) if adversarial else brokers


@cache
def _split_client_ids(separator: str) -> st.SearchStrategy[str]:
    """Client ids a split resolver reads a room from."""
    return st.builds(f"{{}}{separator}{{}}".format, _rooms_without(separator), client_ids())


_RESOLVERS = st.sampled_from(["split", "map"])
_SEPARATORS = st.sampled_from(["-", "@", "_"])
_ROOMS = st.sampled_from(ROOMS)
_ONE_IN_SIX = st.integers(0, 5)


@lru_cache(maxsize=256)  # consumer groups are drawn: a bounded cache
@st.composite
def nearby_group(draw, consumer_group: str, adversarial: bool) -> Scenario:
    """A MACHINE_ROOM_NEARBY group: rooms through a split resolver (names carry them) or a map resolver."""
    kind = draw(_RESOLVERS)
    if kind == "split":
        separator = draw(_SEPARATORS)
        queues = draw(_queues(consumer_group, _split_brokers(separator, adversarial), adversarial))
        members = _members(draw, _split_client_ids(separator), adversarial)
        resolver = {"kind": "split", "separator": separator}
    else:
        queues = draw(_queues(consumer_group, broker_names("@"), adversarial))
        members = _members(draw, client_ids(), adversarial)
        broker_room = {mq.broker_name: draw(_ROOMS) for mq in queues}
        consumer_room = {cid: draw(_ROOMS) for cid in members}
        if adversarial and draw(_ONE_IN_SIX) == 5:  # a name without a room
            consumer_room.pop(members[0], None)
        resolver = {"kind": "map", "brokerRoom": broker_room, "consumerRoom": consumer_room}
    params = {"inner": _inner_params(draw, adversarial), "resolver": resolver}
    return Scenario(
        "MACHINE_ROOM_NEARBY",
        params,
        consumer_group,
        tuple(_order(draw, queues, False)),
        tuple(_order(draw, members, True)),
    )


_NODES_ON_NODES = st.sampled_from(NODE_ON_NODE)
_QUEUES_ON_NODES = st.sampled_from(QUEUE_ON_NODE)


def _ring_traps(draw, scenario: Scenario) -> Scenario:
    """Add a queue sitting exactly on a virtual node's key (with enough virtual nodes for that
    node to exist), or two virtual nodes sharing one key."""
    mq_all, cid_all, params = list(scenario.mq_all), list(scenario.cid_all), dict(scenario.params)
    if draw(_BOOLEANS):
        (cid_a, _), (cid_b, _) = draw(_NODES_ON_NODES)
        cid_all += [cid_a, cid_b] if draw(_BOOLEANS) else [cid_b, cid_a]
    else:
        topic, broker, queue_id, cid, replica = draw(_QUEUES_ON_NODES)
        trap = MessageQueue(topic, broker, queue_id)
        if len(mq_all) >= MAX_QUEUES:
            mq_all[draw(st.integers(0, len(mq_all) - 1))] = trap
        else:
            mq_all.insert(draw(st.integers(0, len(mq_all))), trap)
        cid_all.insert(draw(st.integers(0, len(cid_all))), cid)
        if "virtualNodeCnt" in params:
            params["virtualNodeCnt"] = max(params["virtualNodeCnt"], replica + 1)
    return replace(scenario, params=params, mq_all=tuple(dict.fromkeys(mq_all)), cid_all=tuple(cid_all))


def ring_trap_groups(family: str) -> list[Scenario]:
    """Fixed groups, one per known ring-key collision, for a family that hashes queues onto a
    ring (none for others): every check that takes them sees each collision whatever the seed.

    A queue sitting on a node comes with eight other clients, so that the node after it is
    almost always another client's (a port routing there answers otherwise); two nodes on one
    key come with queues Java routes to that key (a port keeping the first node answers otherwise).
    """
    record = family_record(family)
    if not record.hashes:
        return []
    others = [f"10.0.0.2@{n}" for n in range(8)]
    groups = []
    for topic, broker, queue_id, cid, replica in QUEUE_ON_NODE:
        around = tuple(MessageQueue(topic, broker, queue_id + n) for n in range(-2, 3))
        params = dict(record.default_params(around))
        if "virtualNodeCnt" in params:
            params["virtualNodeCnt"] = max(params["virtualNodeCnt"], replica + 1)
        groups.append(Scenario(family, params, "group", around, tuple(java_sorted_strings([*others, cid]))))
    for (cid_a, replica_a), (cid_b, replica_b) in NODE_ON_NODE:
        members = (*others[:2], cid_a, cid_b)  # the pair's later node wins the key
        nodes = max(10, replica_a + 1, replica_b + 1)
        queues = _queues_routed_to(md5_hash(f"{cid_a}-{replica_a}"), members, nodes)
        params = dict(record.default_params(queues))
        if "virtualNodeCnt" in params:
            params["virtualNodeCnt"] = nodes
        groups.append(Scenario(family, params, "group", queues, members))
    return groups


def edge_config_groups(family: str) -> list[Scenario]:
    """One plain group per edge configuration of ``family`` (its record's ``edge_params``), so
    that every seed asks a configuration Java refuses or takes only just: a port that builds
    where Java throws, or throws where Java builds, is caught whatever the draws."""
    queues = tuple(MessageQueue("TopicTest", "broker-a", q) for q in range(8))
    clients = tuple(java_sorted_strings(f"10.0.0.{n}@{n}" for n in range(1, 4)))
    return [Scenario(family, dict(params), "group", queues, clients) for params in family_record(family).edge_params]


#: names Java (UTF-16 code units) orders unlike Python (code points): above the surrogates against
#: beyond the BMP, with Latin-1, CJK and ASCII between
ORDER_TRAPS = ("b-\ue000", "b-\U0001f600", "\uff21", "\U0001f600", "b-\U00010400", "b-\ufb01", "b-é", "b-中", "broker-a")


def order_trap_groups(family: str) -> list[Scenario]:
    """Fixed groups, asked whatever the seed, at the boundaries the draws aim at: client ids,
    broker names, a topic and a consumer group that Java orders unlike Python, in Java's order
    (for a family that needs machine rooms, each name in room IDC1 or IDC2); and queue ids at
    both ends of Java's int, near one end (in order) and spread over both, where ``compareTo``
    overflows (given as drawn: Java's sort may throw on them)."""
    record = family_record(family)
    room = (lambda n, name: f"IDC{1 + n % 2}@{name}") if record.needs_rooms else (lambda n, name: name)
    brokers = [room(n, name) for n, name in enumerate(ORDER_TRAPS)]
    clients = tuple(java_sorted_strings(room(n, f"10.0.0.1@{name}") for n, name in enumerate(ORDER_TRAPS)))
    unicode = tuple(java_sorted_queues(MessageQueue(topic, broker, q) for topic in ("TopicTest", "t-\U0001f600")
                                       for broker in brokers for q in range(2)))
    groups = [Scenario(family, dict(record.default_params(unicode)), "g-\uff21\U0001f600", unicode, clients)]
    few = clients[:3]
    for ids in ([INT_MAX - 3 + q for q in range(4)], [INT_MIN + q for q in range(4)], [_queue_id(OVERFLOWING, q) for q in range(6)]):
        queues = [MessageQueue("TopicTest", broker, queue_id) for broker in brokers[:2] for queue_id in ids]
        try:
            queues = java_sorted_queues(queues)
        except ValueError:  # Java's sort throws on these ids: no client passes them sorted
            pass
        groups.append(Scenario(family, dict(record.default_params(queues)), "group", tuple(queues), few))
    return groups


def room_trap_groups(family: str) -> list[Scenario]:
    """A fixed group for a family whose brokers need machine rooms (none for others), so that
    every seed sees broker names ending in the separator: ``IDC1@broker-a@`` is in room IDC1
    (Java's ``split`` drops the empty tail: two parts) and ``IDC2@`` names no room for
    MACHINE_ROOM (one part), where Python's ``str.split`` gives three and two parts."""
    record = family_record(family)
    if not record.needs_rooms:
        return []
    brokers = ("IDC1@broker-a@", "IDC2@", "IDC1@broker-b", "IDC2@broker-c@")
    queues = tuple(java_sorted_queues(MessageQueue("TopicTest", broker, q) for broker in brokers for q in range(3)))
    clients = tuple(java_sorted_strings(f"IDC{1 + n % 2}@10.0.0.{n}@{n}" for n in range(1, 5)))
    return [Scenario(family, dict(record.default_params(queues)), "group", queues, clients)]


@cache
def _queues_routed_to(key: int, members: tuple[str, ...], nodes: int) -> tuple[MessageQueue, ...]:
    """Eight queues, two of which Java's MD5 ring of ``members`` routes to the node at ``key``."""
    keys = HashRing(members, nodes, md5_hash)._keys
    before = keys[keys.index(key) - 1]
    hit: list[MessageQueue] = []
    plain: list[MessageQueue] = []
    for queue_id in range(100_000):
        mq = MessageQueue("TopicTest", "broker-a", queue_id)
        h = md5_hash(str(mq))
        on_arc = before < h <= key if before < key else (h > before or h <= key)
        (hit if on_arc else plain).append(mq)
        if len(hit) >= 2 and len(plain) >= 6:
            break
    return tuple(java_sorted_queues(hit[:2] + plain[:6]))


def _joiners(draw, start: Scenario) -> st.SearchStrategy[str]:
    """Ids a new member may have: for a split resolver, one that names a room."""
    resolver = start.params.get("resolver") or {}
    if resolver.get("kind") == "split":
        return _split_client_ids(resolver["separator"])
    return client_ids()


_CONSUMER_GROUPS = st.one_of(st.sampled_from(["group", "CID_JODIE_1", "please_rename_unique_group_name"]), _unicode_text)
_PLAIN_BROKERS = st.sampled_from(["broker-a", "broker-b", "broker-c", "IDC1@broker-a"])
_BOOLEANS = st.booleans()
_STRANGERS = st.lists(st.one_of(client_ids(), st.just("")), max_size=2)
_ONE_IN_TWENTY = st.integers(0, 19)


@st.composite
def scenarios(draw, family: str | None = None, adversarial: bool = False) -> Scenario:
    """A group configured for ``family`` (``None``: no Java twin, no parameters).

    Without ``adversarial`` the group is one a rebalance produces: distinct
    members, non-empty lists, every member asked, a configuration that Java
    accepts (at least one virtual node, rooms for every name).
    """
    consumer_group = draw(_CONSUMER_GROUPS)
    record = None if family is None else family_record(family)
    if record is not None and record.draw_group is not None:
        scenario = record.draw_group(draw, consumer_group, adversarial)
    else:
        rooms = record is not None and record.needs_rooms
        brokers = broker_names("@") if rooms or adversarial else _PLAIN_BROKERS
        queues = draw(_queues(consumer_group, brokers, adversarial))
        members = _members(draw, client_ids(), adversarial)
        params = record.draw_params(draw, queues, adversarial) if record is not None else {}
        scenario = Scenario(
            family, params, consumer_group, tuple(_order(draw, queues, False)), tuple(_order(draw, members, True))
        )
        if (record is None or record.hashes) and draw(_BOOLEANS):
            scenario = _ring_traps(draw, scenario)
    if adversarial:
        strangers = draw(_STRANGERS)
        empty = draw(_ONE_IN_TWENTY)
        mq_all = () if empty == 18 else scenario.mq_all
        cid_all = () if empty == 19 else scenario.cid_all
        scenario = replace(scenario, mq_all=mq_all, cid_all=cid_all, strangers=tuple(strangers))
    return scenario


@st.composite
def plans(draw, family: str | None = None, max_events: int = 6) -> Plan:
    """A realistic group, then joins, graceful leaves and crashes (never emptying the group)."""
    start = draw(scenarios(family))
    members = list(start.clients)
    joiners = _joiners(draw, start)
    gone: list[str] = []
    events = []
    for _ in range(draw(st.integers(1, max_events))):
        kinds = ["join"] + (["leave", "crash"] if len(members) > 1 else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "join":
            fresh = st.one_of(joiners, st.sampled_from(gone)) if gone else joiners
            client = draw(fresh.filter(lambda cid: cid not in members))
            members.append(client)
            if client in gone:
                gone.remove(client)
        else:
            client = draw(st.sampled_from(members))
            members.remove(client)
            gone.append(client)
        events.append(Event(kind, client))
    resolver = start.params.get("resolver") or {}
    if resolver.get("kind") == "map":  # every joiner needs a room too
        rooms = dict(resolver["consumerRoom"])
        for event in events:
            rooms.setdefault(event.client, draw(st.sampled_from(ROOMS)))
        start = replace(start, params={**start.params, "resolver": {**resolver, "consumerRoom": rooms}})
    return Plan(start, tuple(events))


class Groups:
    """Hypothesis strategies of groups for the strategy under test: its Java family's
    parameters (an instance's own configuration), or none for a strategy with no Java twin.

    Example::

        from hypothesis import given

        def test_no_client_is_left_empty(rmq_groups, rmq_conformance):
            @given(rmq_groups.scenarios())
            def check(scenario):
                strategy = rmq_conformance.build_for(scenario)
                ...
            check()
    """

    def __init__(self, subject):
        self.subject = subject  # the strategy under test

    def _fixed(self, drawn):
        fixed = self.subject.fixed_params()
        return drawn if fixed is None else drawn.map(lambda s: replace(s, params=fixed))

    def scenarios(self, adversarial: bool = False) -> SearchStrategy:
        return self._fixed(scenarios(self.subject.family, adversarial))

    def explicit(self) -> list:
        """Fixed groups every seed must see (:func:`~.draws.ring_trap_groups`,
        :func:`~.draws.room_trap_groups`, :func:`~.draws.order_trap_groups`,
        :func:`~.draws.edge_config_groups`), for checks that compare with the reference."""
        family, fixed = self.subject.family, self.subject.fixed_params()
        if family is None:
            return []
        groups = ring_trap_groups(family) + room_trap_groups(family) + order_trap_groups(family)
        if fixed is None:  # an instance keeps its own configuration: no edges to ask
            groups += edge_config_groups(family)
        return groups if fixed is None else [replace(group, params=fixed) for group in groups]

    def plans(self) -> SearchStrategy:
        drawn = plans(self.subject.family)
        fixed = self.subject.fixed_params()
        if fixed is None:
            return drawn
        return drawn.map(lambda plan: replace(plan, start=replace(plan.start, params=fixed)))

    def skip_reason(self) -> str | None:
        """Why the generated checks cannot run (the strategy does not load, or cannot be generated for)."""
        if self.subject.load_error is not None:
            return f"the strategy could not be loaded: {self.subject.load_error}"
        return self.subject.generation_problem
