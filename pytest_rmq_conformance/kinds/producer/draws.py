"""Hypothesis strategies for producer selection: fault-strategy traces and selector calls.

:func:`traces` draws a whole :class:`~.cases.TraceCase` with no answers: a route of one to
five brokers (masters and slaves, read-only and write-only queues, now and then an
``orderTopicConf``), the configuration (latency fault tolerance on or off, now and then
custom tables), a starting clock and counter (near ``Integer.MAX_VALUE`` too), and up to 40
steps: selects and retries, updates (isolating or not, reachable or not) with latencies on
and around the edges of the release's tables, clock moves that land on the end of a
penalty, counter sets, latency toggles, route refreshes and detector rounds. Within a trace
every update has its own latency, so no two fault items ever compare equal (4.7.1 breaks
such ties with an unseeded shuffle, which no port can reproduce).

Draws reach the boundaries where Java's behaviour turns: one route in three mixes in broker
names beyond ASCII (:data:`TRAP_BROKERS`, a name above the surrogates and one beyond the BMP
always among them: Java sorts them by UTF-16 code units, Python's ``str`` by code points); a
trace may carry up to two *penalty edges* (:func:`penalty_edges`: an update, the clock moved to
the penalty's last millisecond, selects, one millisecond more, selects again); counters start
near both ends of the int, ``whichItemWorst`` near its top. Draws reach them by chance; so that a
known class of bug is caught in every run, each is also a fixed trace (:func:`boundary_traces`,
asked first whatever the seed), and each boundary argument of the hash selector a fixed call
(:func:`fixed_selector_cases`).

:func:`selector_cases` draws the calls of one selector: an argument of every type the hash
selector reads (strings whose ``hashCode`` is ``Integer.MIN_VALUE`` among them) or a
``java.util.Random`` seed, and the list lengths asked in turn.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from pytest_rmq_conformance.javalang import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN
from pytest_rmq_conformance.kinds.producer.cases import SelectorCase, TraceCase
from pytest_rmq_conformance.kinds.producer.release import producer_release
from pytest_rmq_conformance.ports.producer.fault_strategy import ISOLATION_LATENCY, LATENCY_MAX, NOT_AVAILABLE_DURATION

__all__ = ["traces", "fixed_traces", "boundary_traces", "selector_cases", "fixed_selector_cases", "broker_names", "penalty_edges", "MIN_VALUE_STRINGS", "TRAP_BROKERS"]

#: strings whose Java ``hashCode()`` is ``Integer.MIN_VALUE``
MIN_VALUE_STRINGS = ("polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES")
_BROKERS = ("broker-a", "broker-b", "broker-c", "broker-d", "broker-e", "A", "B", "C")
_MAX_STEPS = 40
#: broker names whose Java order is not Python's: above the surrogates (U+E000..U+FFFF) against
#: beyond the BMP (a surrogate pair in Java), with Latin-1 and CJK between; none has the
#: separators of an ``orderTopicConf`` (``;`` and ``:``)
TRAP_BROKERS = ("b-\ue000", "b-\uff21", "\uff21", "b-\U0001f600", "b-\U00010400", "\U0001f600", "b-é", "b-中")
_ABOVE_SURROGATES = [name for name in TRAP_BROKERS if any("\ue000" <= c <= "\uffff" for c in name)]
_BEYOND_BMP = [name for name in TRAP_BROKERS if any(c > "\uffff" for c in name)]


# Strategies are built once, here or by a cached builder: one made inside a draw is validated
# again at every draw, which cost as much as the drawing itself.
_BOOLEANS = st.booleans()
_ONE_IN_THREE = st.integers(0, 2)
_PLAIN_NAMES = st.lists(st.sampled_from(_BROKERS), min_size=1, max_size=5, unique=True)
_ABOVE = st.sampled_from(_ABOVE_SURROGATES)
_BEYOND = st.sampled_from(_BEYOND_BMP)
_MORE_NAMES = st.lists(st.sampled_from(_BROKERS + TRAP_BROKERS), max_size=3, unique=True)


def _edges(version: str) -> list[int]:
    """Latencies on and next to every edge of the release's table."""
    major = producer_release(version)[0]
    return sorted({value + delta for value in LATENCY_MAX[major] for delta in (-1, 0, 1) if value + delta >= 0})


@st.composite
def broker_names(draw) -> list[str]:
    """One to five distinct broker names: the plain ones, or (one route in three) a name above
    the surrogates, one beyond the BMP and up to three more of any kind, in any order."""
    if draw(_ONE_IN_THREE) != 0:
        return draw(_PLAIN_NAMES)
    names = [draw(_ABOVE), draw(_BEYOND)]
    more = draw(_MORE_NAMES)
    return draw(st.permutations(list(dict.fromkeys(names + more))))


_NAMES = broker_names()
_PERMS = {True: st.sampled_from([6, 6, 6, 7, 2, 4]), False: st.just(6)}
_QUEUE_COUNTS = {True: st.integers(0, 4), False: st.integers(1, 4)}
_BROKER_IDS = {True: st.sampled_from([[0], [0], [0, 1], [1]]), False: st.sampled_from([[0], [0, 1]])}
_ONE_IN_TEN = st.integers(0, 9)
_CONF_QUEUES = st.integers(1, 4)


@st.composite
def _route(draw, odd: bool) -> dict[str, Any]:
    """A route of one to five brokers; ``odd`` ones also have brokers with no queue, no
    master, no write permission, and an ``orderTopicConf``."""
    names = draw(_NAMES)
    queue_datas = [[name, draw(_QUEUE_COUNTS[odd]), draw(_PERMS[odd])] for name in names]
    broker_datas = [[name, draw(_BROKER_IDS[odd])] for name in names]
    conf = None
    if odd and draw(_ONE_IN_TEN) == 0:
        conf = ";".join(f"{name}:{draw(_CONF_QUEUES)}" for name in names)
    return {"queueDatas": queue_datas, "brokerDatas": broker_datas, "orderTopicConf": conf}


_ODD_ROUTE = _route(True)


@cache
def _counter(version: str) -> SearchStrategy[int | None]:
    return st.one_of(st.none(), st.integers(0, 1000), st.integers(INT_MAX - 50, INT_MAX), _near_int_min(version))


@cache
def _near_int_min(version: str) -> SearchStrategy[int]:
    """Stored counters Java reaches past the int's end (4.9.8 wraps to ``Integer.MIN_VALUE``)
    or starts at (5.x's ``nextInt()``): the bottom of the int and just below zero. 4.7.1 stores
    ``Math.abs`` of its values, never a negative one: there, more values near the top."""
    if producer_release(version) < (4, 9, 8):
        return st.integers(INT_MAX - 5, INT_MAX)
    return st.integers(INT_MIN, INT_MIN + 50) | st.integers(-50, -1)


@cache
def _worst_index() -> SearchStrategy[int | None]:
    """4.x's ``whichItemWorst``: unset, small, or a few fallbacks short of the int's end."""
    return st.one_of(st.none(), st.integers(0, 10), st.integers(INT_MAX - 3, INT_MAX))


_OPS = st.sampled_from(["select"] * 6 + ["tp_select", "update", "update", "update", "advance", "advance", "set_index", "set_latency", "route", "detect"])
_SEEDS = st.integers(0, 99)


@cache
def _latencies(version: str) -> SearchStrategy[int]:
    return st.one_of(st.sampled_from(_edges(version)), st.integers(0, 20000))


@cache
def _moves(version: str) -> SearchStrategy[int]:
    """Clock moves: onto a penalty's end, a millisecond short of it, or anywhere."""
    major = producer_release(version)[0]
    penalties = sorted(set(NOT_AVAILABLE_DURATION[major]) | {ISOLATION_LATENCY[major], 1000, 10000, 100000})
    return st.one_of(st.sampled_from(penalties), st.sampled_from(penalties).map(lambda p: max(p - 1, 0)), st.integers(0, 700_000))


@cache
def _index_values(version: str) -> SearchStrategy[int]:
    return st.integers(0, 1000) | st.integers(INT_MAX - 5, INT_MAX) | _near_int_min(version)


@lru_cache(maxsize=256)
def _one_of_brokers(brokers: tuple[str, ...]) -> SearchStrategy[str]:
    return st.sampled_from(brokers)


@lru_cache(maxsize=256)
def _last_brokers(brokers: tuple[str, ...]) -> SearchStrategy[str | None]:
    return st.one_of(st.none(), st.sampled_from(brokers))


@lru_cache(maxsize=256)
def _address_of(name: str) -> SearchStrategy[str | None]:
    return st.sampled_from([f"{name}:10911", None])


@st.composite
def _step(draw, version: str, brokers: tuple[str, ...]) -> dict[str, Any]:
    """One step of a trace (an update's latency is made distinct afterwards)."""
    major = producer_release(version)[0]
    op = draw(_OPS)
    if op in ("select", "tp_select"):
        last = draw(_last_brokers(brokers))
        if op == "tp_select":
            return {"op": op, "lastBroker": last}
        return {"op": op, "lastBroker": last, "resetIndex": draw(_BOOLEANS) if major >= 5 else False}
    if op == "update":
        latency = draw(_latencies(version))
        return {"op": op, "broker": draw(_one_of_brokers(brokers)), "latency": latency, "isolation": draw(_BOOLEANS), "reachable": draw(_BOOLEANS)}
    if op == "advance":
        return {"op": op, "ms": draw(_moves(version))}
    if op == "set_index":
        return {"op": op, "value": draw(_index_values(version))}
    if op == "set_latency":
        return {"op": op, "enable": draw(_BOOLEANS)}
    if op == "route":
        return {"op": op, "route": draw(_ODD_ROUTE), "sendIndex": draw(_counter(version)), "sendIndexSeed": draw(_SEEDS)}
    resolve = {name: draw(_address_of(name)) for name in brokers}
    return {"op": op, "resolve": resolve, "reachableAddrs": [addr for addr in resolve.values() if addr is not None and draw(_BOOLEANS)]}


def _distinct_latencies(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``steps`` with every update's latency made unique (moved up past those taken before)."""
    taken: set[int] = set()
    for step in steps:
        if step["op"] == "update":
            while step["latency"] in taken:
                step["latency"] += 1
            taken.add(step["latency"])
    return steps


_ONE_IN_EIGHT = st.integers(0, 7)
_CLOCKS = st.sampled_from([0, 1_000_000, 1_700_000_000_000])


@lru_cache(maxsize=256)
def _steps(version: str, brokers: tuple[str, ...]) -> SearchStrategy[list[dict[str, Any]]]:
    return st.lists(_step(version, brokers), min_size=8, max_size=_MAX_STEPS)


@lru_cache(maxsize=256)
def _edge_lists(version: str, brokers: tuple[str, ...]) -> SearchStrategy[list[list[dict[str, Any]]]]:
    return st.lists(penalty_edges(version, brokers), max_size=2)


@st.composite
def traces(draw, version: str, latency: bool = True) -> TraceCase:
    """One fault-strategy trace at ``version`` (its answers to be asked of a strategy); with
    ``latency`` false, one that never turns latency fault tolerance on."""
    route = draw(_ODD_ROUTE)
    brokers = (*(name for name, _, _ in route["queueDatas"]), "broker-x")  # one broker outside the route
    custom = draw(_ONE_IN_EIGHT) == 0
    params = {
        "sendLatencyFaultEnable": draw(_BOOLEANS) and latency,
        "latencyMax": [0, 100, 500] if custom else None,
        "notAvailableDuration": [1000, 10000, 100000] if custom else None,
    }
    initial = {
        "clockMs": draw(_CLOCKS),
        "sendIndex": draw(_counter(version)),
        "sendIndexSeed": draw(_SEEDS),
        "worstIndex": draw(_worst_index()),
        "worstIndexSeed": draw(_SEEDS),
    }
    steps = draw(_steps(version, brokers))
    edges = draw(_edge_lists(version, brokers))
    places = [draw(st.integers(0, len(steps))) for _ in edges]
    for at, edge in sorted(zip(places, edges), key=lambda pair: -pair[0]):  # from the end: none splits another
        steps[at:at] = edge
    steps = _distinct_latencies(steps)
    _land_on_edges(params, version, edges)
    if not latency:
        steps = [{**step, "enable": False} if step["op"] == "set_latency" else step for step in steps]
    return TraceCase(
        id="generated", strategy="FAULT_STRATEGY", params=params, category="generated", flags=(), expect=(),
        topic="TopicTest", route=route, initial=initial, steps=tuple(steps),
    )


_ANY_LATENCY = st.integers(0, 20000)
_ONE_TO_FOUR = st.integers(1, 4)


@cache
def _penalised(version: str) -> SearchStrategy[int]:
    """Latencies the release's default tables penalise: on their edges, or any up to 20 s."""
    least = LATENCY_MAX[producer_release(version)[0]][2]
    return st.sampled_from([edge for edge in _edges(version) if edge >= least]) | st.integers(least, 20000)


@st.composite
def penalty_edges(draw, version: str, brokers: Sequence[str]) -> list[dict[str, Any]]:
    """An update that penalises one of ``brokers`` (now and then the others isolated first), the clock moved to the penalty's last
    millisecond, one to four selects, the clock moved one millisecond (the first free one),
    and as many selects again. The first move is set by :func:`_land_on_edges` once the
    update's latency is final (latencies are made distinct after drawing)."""
    brokers = tuple(brokers)
    latency = draw(_penalised(version))
    broker = draw(_one_of_brokers(brokers))
    update = {"op": "update", "broker": broker, "latency": latency, "isolation": draw(_BOOLEANS), "reachable": True}
    # half the time every other broker is isolated first: the edge is then where the walk finds
    # its first available broker (before it, 4.x falls back on pickOneAtLeast)
    others = [_update(other, draw(_ANY_LATENCY), isolation=True) for other in brokers if other != broker] if draw(_BOOLEANS) else []
    selects = [{"op": "select", "lastBroker": draw(_last_brokers(brokers)), "resetIndex": False} for _ in range(draw(_ONE_TO_FOUR))]
    return [*others, update, {"op": "advance", "ms": 0}, *selects, {"op": "advance", "ms": 1}, *(dict(select) for select in selects)]


def _land_on_edges(params: dict[str, Any], version: str, edges: list[list[dict[str, Any]]]) -> None:
    """Each edge's first clock move set to its penalty less one millisecond, by the tables of ``params``."""
    from pytest_rmq_conformance.kinds.producer.invariants import penalty

    major = producer_release(version)[0]
    for edge in edges:
        at = next(i for i, step in enumerate(edge) if step["op"] == "advance")
        update, advance = edge[at - 1], edge[at]
        priced = ISOLATION_LATENCY[major] if update["isolation"] else update["latency"]
        advance["ms"] = max((penalty(params, version, priced) or 0) - 1, 0)


def _plain_route(brokers: Sequence[str]) -> dict[str, Any]:
    """A route of ``brokers``, two writable queues each on a master, in the order given."""
    return {"queueDatas": [[b, 2, 6] for b in brokers], "brokerDatas": [[b, [0]] for b in brokers], "orderTopicConf": None}


def _fixed(name: str, latency_on: bool, steps: list[dict[str, Any]], *, brokers: Sequence[str] = "ABC",
           send_index: int = 10, worst_index: int = 0) -> TraceCase:
    """A trace over ``brokers`` (A, B and C) of two queues each, the counter at ``send_index`` (10)."""
    route = _plain_route(brokers)
    initial = {"clockMs": 1_000_000, "sendIndex": send_index, "sendIndexSeed": 1, "worstIndex": worst_index, "worstIndexSeed": 1}
    params = {"sendLatencyFaultEnable": latency_on, "latencyMax": None, "notAvailableDuration": None}
    return TraceCase(
        id=f"fixed-{name}", strategy="FAULT_STRATEGY", params=params, category="fixed", flags=(), expect=(),
        topic="TopicTest", route=route, initial=initial, steps=tuple(steps),
    )


def _select(last: str | None = None, times: int = 4) -> list[dict[str, Any]]:
    return [{"op": "select", "lastBroker": last, "resetIndex": False}] * times


def _update(broker: str, latency: int, isolation: bool = False, reachable: bool = True) -> dict[str, Any]:
    return {"op": "update", "broker": broker, "latency": latency, "isolation": isolation, "reachable": reachable}


def fixed_traces(version: str) -> list[TraceCase]:
    """Traces every seed asks first: the situation each property of spec §11 is about, met
    head-on (a retry after a failure, every broker but one penalised, a quick success after a
    long penalty, ...), and each boundary the draws aim at (:func:`boundary_traces`), so that a
    strategy breaking one is caught whatever the draws."""
    return [
        _fixed("retry", False, _select("A") + [{"op": "tp_select", "lastBroker": "B"}] * 3 + [_update("A", 700)]),
        _fixed("penalised", True, [_update("A", 600), *_select(), _update("B", 601), *_select()]),
        _fixed("retry-penalised", True, [_update("A", 602), _update("B", 603), *_select("A"), *_select("B")]),
        _fixed("unreachable", True, [_update("A", 604, reachable=False), _update("B", 605), _update("C", 606, reachable=False),
                                     *_select(None, 6), *_select("B", 3)]),
        _fixed("penalty-kept", True, [_update("A", 16000), _update("B", 10, isolation=True), _update("A", 11),
                                      {"op": "advance", "ms": 1999}, _update("B", 12), *_select()]),
        *boundary_traces(version),
    ]


def boundary_traces(version: str) -> list[TraceCase]:
    """One trace per boundary the draws aim at, asked whatever the seed: routes whose broker
    names Java orders unlike Python (the first route and a refreshed one, ``TRAP_BROKERS`` in
    an order that is neither Java's nor Python's), a penalty's last and first millisecond (by
    latency and by isolation, alone and with every other broker isolated first), the send
    counter across the top of the int and (4.9.8 on, where Java reaches it) from its bottom,
    and 4.x's ``whichItemWorst`` across the top, with six brokers penalised (it picks among
    half of them, three: 2**31, a counter that did not wrap, picks otherwise)."""
    major = producer_release(version)[0]
    trap = [*TRAP_BROKERS[3:], *TRAP_BROKERS[:3]]  # beyond the BMP first: sorted by neither order
    refreshed = _plain_route(["broker-a", "b-\U00010400", "b-\uff21", "\uff21", "b-\ue000"])
    traces = [
        _fixed("unicode-route", False, [*_select(None, 6), {"op": "route", "route": refreshed, "sendIndex": 3, "sendIndexSeed": 1},
                                        *_select(None, 6)], brokers=trap),
    ]
    least = LATENCY_MAX[major][2]  # the first latency the release's tables penalise
    for name, update, isolated in (("latency", _update("A", least), False), ("isolation", _update("A", 20, isolation=True), False),
                                   ("latency-alone", _update("A", least + 1), True)):
        priced = ISOLATION_LATENCY[major] if update["isolation"] else update["latency"]
        last = NOT_AVAILABLE_DURATION[major][_table_row(LATENCY_MAX[major], priced)] - 1
        # the others isolated a millisecond apart: no two fault items compare equal (see traces)
        others = [_update("B", 30, isolation=True), {"op": "advance", "ms": 1}, _update("C", 31, isolation=True)] if isolated else []
        steps = [*others, update, {"op": "advance", "ms": last}, *_select(None, 6), {"op": "advance", "ms": 1}, *_select(None, 6)]
        traces.append(_fixed(f"penalty-edge-{name}", True, steps))
    traces.append(_fixed("counter-top", False, [*_select(None, 4), *_select("A", 2), {"op": "set_index", "value": INT_MAX},
                                                *_select(None, 3)], send_index=INT_MAX - 2))
    if producer_release(version) >= (4, 9, 8):
        traces.append(_fixed("counter-bottom", False, [*_select(None, 4), {"op": "set_index", "value": -1}, *_select(None, 3)],
                             send_index=INT_MIN))
    if major == 4:
        worst = [_update(broker, 16000 + n) for n, broker in enumerate("ABCDEF")]
        traces.append(_fixed("worst-top", True, [*worst, *_select(None, 6)], brokers="ABCDEF", worst_index=INT_MAX - 2))
    return traces


def _table_row(limits: Sequence[int], latency: int) -> int:
    """The row of a release's tables ``latency`` falls in (the last limit it reaches)."""
    return max(i for i, limit in enumerate(limits) if latency >= limit)


@cache
def _hash_args() -> SearchStrategy[dict[str, Any] | None]:
    strings = st.one_of(st.sampled_from(MIN_VALUE_STRINGS), st.text(max_size=12), st.from_regex(r"order-[0-9]{1,6}", fullmatch=True))
    return st.one_of(
        strings.map(lambda text: {"type": "string", "value": text}),
        st.sampled_from([INT_MIN, INT_MAX, 0, -1]).map(lambda n: {"type": "integer", "value": n}) | st.integers(INT_MIN, INT_MAX).map(lambda n: {"type": "integer", "value": n}),
        st.sampled_from([LONG_MIN, LONG_MAX, 2**31]).map(lambda n: {"type": "long", "value": n}) | st.integers(LONG_MIN, LONG_MAX).map(lambda n: {"type": "long", "value": n}),
        st.integers(INT_MIN, INT_MAX).map(lambda n: {"type": "hashCode", "value": n}),
        st.just({"type": "null"}),
    )


#: the arguments of :func:`fixed_selector_cases`: the hash selector's every boundary
_FIXED_ARGS: tuple[dict[str, Any], ...] = (
    *({"type": "string", "value": text} for text in (*MIN_VALUE_STRINGS, "", "\U0001f600", "\uff21")),
    *({"type": "integer", "value": n} for n in (INT_MIN, INT_MAX, 0, -1)),
    *({"type": "long", "value": n} for n in (LONG_MIN, LONG_MAX, 2**31, -(2**31) - 1)),
    *({"type": "hashCode", "value": n} for n in (INT_MIN, INT_MAX, -1)),
    {"type": "null"},
)
_FIXED_COUNTS = (1, 2, 3, 7, 16, 1024)


def fixed_selector_cases(family: str) -> list[SelectorCase]:
    """Selector calls every seed asks first: for the hash selector, each argument at a boundary
    the draws aim at (strings whose ``hashCode`` is ``Integer.MIN_VALUE``, both ends of the int
    and the long, a ``hashCode`` of ``Integer.MIN_VALUE``, null); for the random selector, seeds
    at both ends of the long. Each over the list lengths the draws favour."""
    def case(params: dict[str, Any], arg: dict[str, Any] | None) -> SelectorCase:
        return SelectorCase(id="fixed", strategy=family, params=params, category="fixed", flags=(), expect=(),
                            queue_counts=_FIXED_COUNTS, arg=arg)

    if family == "SELECTOR_RANDOM":
        return [case({"seed": seed}, None) for seed in (LONG_MIN, LONG_MAX, 0, -1)]
    return [case({}, dict(arg)) for arg in _FIXED_ARGS]


_QUEUE_COUNT_LISTS = {
    adversarial: st.lists(st.integers(0 if adversarial else 1, 64) | st.sampled_from([1, 2, 3, 7, 16, 1024]), min_size=1, max_size=12)
    for adversarial in (True, False)
}
_RANDOM_SEEDS = st.integers(LONG_MIN, LONG_MAX) | st.integers(0, 100)


@st.composite
def selector_cases(draw, family: str, adversarial: bool = True) -> SelectorCase:
    """The calls of one selector of ``family`` (``SELECTOR_HASH``'s argument, ``SELECTOR_RANDOM``'s
    seed), each with a list of the length drawn; ``n = 0`` only when ``adversarial``."""
    counts = draw(_QUEUE_COUNT_LISTS[adversarial])
    if family == "SELECTOR_RANDOM":
        params: dict[str, Any] = {"seed": draw(_RANDOM_SEEDS)}
        arg = None
    else:
        params, arg = {}, draw(_hash_args())
    return SelectorCase(
        id="generated", strategy=family, params=params, category="generated", flags=(), expect=(), queue_counts=tuple(counts), arg=arg,
    )
