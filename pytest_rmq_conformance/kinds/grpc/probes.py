"""The probe takes that judge a balancer's index after a case's steps by what it leads to.

Java never reads its ``AtomicInteger`` except through a take, so the index a balancer keeps is
judged by the takes it leads to, not by the number it stores: an index that reads back as
Java's after the steps passes, and for any other number the balancer (a harness: asked the
case again with these steps after its own) is updated to a probe route of ``n`` queues (one master broker, all ``READ_WRITE``; an update
shares the index, as Java's does) and takes one queue, for each ``n`` of :data:`SIZES` in
turn; the reference port does the same from Java's index after the steps. Equal answers pass,
whatever either side stores (a harness whose ``int`` increments before it reads, and so
stores ``2^31 - 1`` where Java has wrapped to ``-2^31``, stores a number Java never holds and
takes Java's queues).

Why these sizes. A take on ``n`` queues answers ``IntMath.mod(i, n)`` of the value ``i`` it
reads, and probe ``k`` reads Java's ``int(J + k)``. Say the balancer reads ``J + k + d``
instead (a counter that moves once per take, ``d`` its distance from Java's, ``d = 0`` for
every twin). While neither side wraps, probe ``k`` on ``n_k`` queues agrees iff ``n_k``
divides ``d``, so all agree iff ``L = lcm(SIZES)`` divides ``d``. ``L`` is
58,605,338,025 > 2^35, so no ``d`` with ``0 < |d| < L`` passes: not two Java ints
(``|d| < 2^32``), not a counter that never wraps one wrap past Java's (``d = ±2^32``, a Python
int, a ``size_t``), not an unsigned reading of a negative start (``2^32``, ``2^64``: no odd
``n`` divides a power of two). When one side wraps during the probes, ``d`` moves by ``2^32``
there, and every size is odd, so a counter equal to Java's before the wrap and not after it is
caught by the first probe past it. Equal probes thus mean the balancer's next read is Java's
next read, exactly, and a counter that moves once per take stays on Java's reads from there
until Java's ``int`` wraps; whether it wraps where Java's does is judged by the takes that
cross the end of the ``int`` (cases and draws near ``2^31 - 1`` take across it), not by
guessing from a stored number.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

__all__ = ["SIZES", "probe_steps", "probe_route", "java_probes"]

#: the probe routes' queue counts, in the order taken: odd, their lcm above 2^35
SIZES = (13, 17, 19, 23, 25, 27, 29, 31)

_BROKER = {"name": "broker-probe", "id": 0, "endpoints": {"scheme": "IPv4", "addresses": [["10.9.9.9", 8081]]}}


@cache
def _route(queues: int) -> tuple[Mapping[str, Any], ...]:
    return tuple({"queueId": i, "permission": "READ_WRITE", "broker": _BROKER} for i in range(queues))


@cache
def _queues(queues: int) -> tuple[Any, ...]:
    from pytest_rmq_conformance.ports.grpc.route import route_from_json

    return tuple(route_from_json(_route(queues)))


def probe_route(step: Mapping[str, Any]) -> list[Any] | None:
    """The queues of a probe step's route, made once (``None``: not a probe's route)."""
    route = step.get("route")
    n = len(route) if isinstance(route, list) else 0
    return list(_queues(n)) if n in SIZES and route == list(_route(n)) else None


def _take(family: str) -> Mapping[str, Any]:
    return {"op": "take"} if family == "SUBSCRIBE_ROUND_ROBIN" else {"op": "take", "excluded": [], "count": 1}


@lru_cache(maxsize=4)
def probe_steps(family: str) -> tuple[Mapping[str, Any], ...]:
    """The steps played after a case's own: per size, an update to its probe route and one take
    (in the golden files' vocabulary, so a harness plays them as any step)."""
    take = _take(family)
    return tuple(step for n in SIZES for step in ({"op": "update", "route": list(_route(n))}, take))


def java_probes(family: str, index_after: int) -> list[Mapping[str, Any]]:
    """The reference port's outcomes of :func:`probe_steps` from Java's index ``index_after``
    (one per step: the update's filter, then the take's queue)."""
    from pytest_rmq_conformance.ports.grpc import AtomicIndex, PublishingLoadBalancer, SubscriptionLoadBalancer

    subscribing = family == "SUBSCRIBE_ROUND_ROBIN"
    index, port = AtomicIndex(index_after), SubscriptionLoadBalancer if subscribing else PublishingLoadBalancer
    out: list[Mapping[str, Any]] = []
    for n in SIZES:
        route = list(_queues(n))
        balancer: Any = port(route=route, index=index)
        out.append({"filtered": list(range(n))})
        if subscribing:
            out.append({"queue": route.index(balancer.take_message_queue())})
        else:
            out.append({"queues": [route.index(q) for q in balancer.take_message_queues(set(), 1)]})
    return out
