"""Hypothesis strategies for the gRPC balancers' generated checks: message groups, routes,
start indexes and steps, in the golden files' vocabulary (so that a drawn case is played and
compared exactly as a golden one).

Groups include lone surrogates, non-BMP characters and every SipHash block boundary; routes
mix masters and slaves, permissions and schemes, and endpoints that two brokers share; indexes
sit near both ends of Java's int; excluded endpoints include near misses (the same addresses
under another scheme, or in another order).

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from pytest_rmq_conformance.javalang import INT_MAX, INT_MIN
from pytest_rmq_conformance.kinds.grpc.cases import BalancerCase

__all__ = ["GroupBatch", "group_batches", "balancer_cases", "index_cases", "fixed_cases", "fixed_takes", "FIXED_GROUPS", "GENERATED"]

GENERATED = "generated"


@dataclass(frozen=True)
class GroupBatch:
    """Message groups routed over a route of ``queues`` queues."""

    groups: tuple[str, ...]
    queues: int


#: groups every seed asks first: the empty group; every length in bytes next to SipHash's block
#: edges (7, 8, 9, 15, 16 and 17 UTF-8 bytes) in ASCII, in two- three- and four-byte characters
#: and across them; lone surrogates (Java writes each as ``?``, one byte: ``"a" * 15 + "\ud800"``
#: is 16 bytes in Java, 18 for a port that passes surrogates through), a surrogate pair, NUL
FIXED_GROUPS = (
    "", "a" * 7, "a" * 8, "a" * 9, "a" * 15, "a" * 16, "a" * 17, "order-1", "\ud800", "\ud83d\ude00", "\x00", "\udc00\ud800",
    "é" * 4, "é" * 8, "a" + "é" * 8, "中" * 5, "a" + "中" * 5, "\U0001f600" * 4, "a" * 7 + "\U0001f600" * 2, "a" * 15 + "\ud800",
    "a" * 6 + "\ud800" * 3, "\udfff" * 16,
)

_TEXT = st.text(st.characters(exclude_categories=()), max_size=40)  # surrogates (Cs) included
_GROUPS = st.one_of(_TEXT, st.builds(lambda n: f"order-{n}", st.integers(0, 10**6)), st.sampled_from(FIXED_GROUPS))
_QUEUE_COUNTS = st.one_of(st.integers(1, 64), st.sampled_from([96, 100, 127, 128, 129, 255, 256, 257, 1000, 1024, 4096]))


def group_batches() -> st.SearchStrategy[GroupBatch]:
    return st.builds(GroupBatch, st.lists(_GROUPS, min_size=1, max_size=12).map(tuple), _QUEUE_COUNTS)


_HOSTS = ("10.0.0.1", "10.0.0.2", "10.0.1.1", "fd00::1", "broker.example")
_PORTS = (8081, 10911)


@st.composite
def _endpoints(draw: Any) -> dict[str, Any]:
    scheme = draw(st.sampled_from(("IPv4", "IPv4", "IPv6", "DOMAIN_NAME")))
    # a domain name has one address: Java's Endpoints refuses more ("Multiple addresses not allowed in domain schema")
    most = 1 if scheme == "DOMAIN_NAME" else 2
    addresses = draw(st.lists(st.tuples(st.sampled_from(_HOSTS), st.sampled_from(_PORTS)), min_size=1, max_size=most, unique=True))
    return {"scheme": scheme, "addresses": [list(a) for a in addresses]}


_PERMISSIONS = st.sampled_from(("READ_WRITE", "READ_WRITE", "READ_WRITE", "WRITE", "READ", "NONE"))


@st.composite
def routes(draw: Any) -> list[dict[str, Any]]:
    """A route: one to four broker names, each a master (id 0) and maybe a slave, with their
    queues in broker order, interleaved or shuffled."""
    names = draw(st.lists(st.sampled_from(("broker-a", "broker-b", "broker-c", "broker-d")), min_size=1, max_size=4, unique=True))
    pool = draw(st.lists(_endpoints(), min_size=1, max_size=4))  # brokers may share endpoints
    queues: list[dict[str, Any]] = []
    for name in names:
        ids = [0] + ([draw(st.integers(1, 3))] if draw(st.booleans()) else [])
        for broker_id in ids:
            broker = {"name": name, "id": broker_id, "endpoints": draw(st.sampled_from(pool))}
            count = draw(st.integers(1, 4))
            queues.extend({"queueId": queue_id, "permission": draw(_PERMISSIONS), "broker": broker} for queue_id in range(count))
    order = draw(st.sampled_from(("broker", "interleaved", "shuffled")))
    if order == "interleaved":
        queues.sort(key=lambda q: (q["queueId"], names.index(q["broker"]["name"]), q["broker"]["id"]))
    elif order == "shuffled":
        queues = draw(st.permutations(queues))
    return list(queues)


_INDEXES = st.one_of(
    st.integers(INT_MIN, INT_MAX), st.integers(INT_MAX - 11, INT_MAX), st.integers(INT_MIN, INT_MIN + 11), st.integers(-12, 12)
)


def _near_miss(endpoints: dict[str, Any]) -> dict[str, Any]:
    """The same addresses under another scheme, or in the other order."""
    addresses = endpoints["addresses"]
    if len(addresses) > 1:
        return {"scheme": endpoints["scheme"], "addresses": list(reversed(addresses))}
    other = "IPv6" if endpoints["scheme"] == "IPv4" else "IPv4"
    return {"scheme": other, "addresses": addresses}


@st.composite
def _steps(draw: Any, route: list[dict[str, Any]], publishing: bool) -> list[dict[str, Any]]:
    brokers = [q["broker"]["endpoints"] for q in route]
    steps = []
    for _ in range(draw(st.integers(1, 8))):
        op = draw(st.sampled_from(("take", "take", "take", "group", "update") if publishing else ("take", "take", "take", "update")))
        if op == "take" and publishing:
            excluded = draw(st.lists(st.sampled_from(brokers), max_size=3))
            if excluded and draw(st.booleans()):
                excluded.append(_near_miss(excluded[0]))
            steps.append({"op": "take", "excluded": excluded, "count": draw(st.sampled_from((-1, 0, 1, 1, 2, 3, 100)))})
        elif op == "take":
            steps.append({"op": "take"})
        elif op == "group":
            steps.append({"op": "group", "group": draw(_GROUPS)})
        else:
            steps.append({"op": "update", "route": draw(routes())})
    return steps


@st.composite
def balancer_cases(draw: Any, family: str) -> BalancerCase:
    """A route, a start index and steps for a balancer of ``family``."""
    route = draw(routes())
    steps = draw(_steps(route, family != "SUBSCRIBE_ROUND_ROBIN"))
    return BalancerCase(id=GENERATED, strategy=family, params={}, category=GENERATED, flags=(), expect=(),
                        route=tuple(route), index=draw(_INDEXES), steps=tuple(steps))


@st.composite
def index_cases(draw: Any, family: str, near_the_end: bool) -> BalancerCase:
    """A route and as many plain takes as its balancer keeps queues, plus three (one queue per
    take, nothing excluded): across the end of Java's int when ``near_the_end``, else clear of it."""
    route = draw(routes())
    kept = sum(1 for q in route if q["broker"]["id"] == 0 and q["permission"] in (
        ("WRITE", "READ_WRITE") if family != "SUBSCRIBE_ROUND_ROBIN" else ("READ", "READ_WRITE")))
    take = {"op": "take", "excluded": [], "count": 1} if family != "SUBSCRIBE_ROUND_ROBIN" else {"op": "take"}
    steps = max(kept, 1) + 3
    if near_the_end:
        index = draw(st.integers(INT_MAX - steps + 1, INT_MAX))
    else:  # the takes stay clear of the int's end, where Java's IntMath.mod skips queues
        index = draw(st.one_of(st.integers(INT_MIN, INT_MAX - steps), st.integers(INT_MIN, INT_MIN + 11), st.integers(-12, 12)))
    return BalancerCase(id=GENERATED, strategy=family, params={}, category=GENERATED, flags=(), expect=(),
                        route=tuple(route), index=index, steps=(take,) * steps)


def fixed_cases(family: str) -> tuple[BalancerCase, ...]:
    """Cases every seed asks first: a route of three kept queues (so that a wrap of the int
    changes the queue: 2**32 is no multiple of 3), a slave and a read- or write-only queue, and
    takes from both ends of the int (``Integer.MAX_VALUE - 1``, ``MAX_VALUE``, ``MIN_VALUE``,
    -1) across them; for a publisher, counts of 1 to 3 and an excluded broker, then a message
    group from :data:`FIXED_GROUPS` asked between the takes."""
    def broker(name: str, broker_id: int, host: str) -> dict[str, Any]:
        return {"name": name, "id": broker_id, "endpoints": {"scheme": "IPv4", "addresses": [[host, 8081]]}}

    a, b, c = broker("broker-a", 0, "10.0.0.1"), broker("broker-b", 0, "10.0.0.2"), broker("broker-c", 0, "10.0.1.1")
    slave = broker("broker-a", 1, "10.0.0.3")
    route = ({"queueId": 0, "permission": "READ_WRITE", "broker": a}, {"queueId": 0, "permission": "READ_WRITE", "broker": slave},
             {"queueId": 0, "permission": "READ_WRITE", "broker": b}, {"queueId": 1, "permission": "READ" if family != "SUBSCRIBE_ROUND_ROBIN" else "WRITE", "broker": b},
             {"queueId": 0, "permission": "READ_WRITE", "broker": c})
    if family == "SUBSCRIBE_ROUND_ROBIN":
        steps: tuple[dict[str, Any], ...] = ({"op": "take"},) * 5
    else:
        steps = ({"op": "take", "excluded": [], "count": 1}, {"op": "take", "excluded": [a["endpoints"]], "count": 2},
                 {"op": "group", "group": "a" * 16}, {"op": "take", "excluded": [], "count": 3}, {"op": "take", "excluded": [], "count": 1})
    return tuple(BalancerCase(id=GENERATED, strategy=family, params={}, category=GENERATED, flags=(), expect=(),
                              route=route, index=index, steps=steps) for index in (INT_MAX - 1, INT_MAX, INT_MIN, -1))


def fixed_takes(family: str) -> tuple[BalancerCase, ...]:
    """Takes every seed asks first: two brokers of two queues each, the first one's endpoints
    excluded, then nothing excluded, with counts 1, 2 and 3."""
    a = {"name": "broker-a", "id": 0, "endpoints": {"scheme": "IPv4", "addresses": [["10.0.0.1", 8081]]}}
    b = {"name": "broker-b", "id": 0, "endpoints": {"scheme": "IPv4", "addresses": [["10.0.0.2", 8081]]}}
    route = tuple({"queueId": i, "permission": "READ_WRITE", "broker": broker} for broker in (a, b) for i in range(2))
    steps = tuple({"op": "take", "excluded": excluded, "count": count}
                  for excluded in ([a["endpoints"]], []) for count in (1, 2, 3))
    return tuple(BalancerCase(id=GENERATED, strategy=family, params={}, category=GENERATED, flags=(), expect=(),
                              route=route, index=index, steps=steps) for index in (0, 1))
