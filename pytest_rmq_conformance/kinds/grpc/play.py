"""A golden case of the gRPC balancers played against a strategy in this process, and any
case's observations compared with Java's answers.

A balancer answers with the route's own queue objects; the observations write each as its
position in the current route (by identity, else the first equal entry), as the vectors and the
harness protocol do; answers are compared as values (Java's ``MessageQueueImpl.equals``: two
alike entries are one queue to Java). One observation format serves both sides: a ``GROUP_HASH`` case observes
``{"index"}``, a balancer case ``{"filtered" | "error", "outcomes": [...], "indexAfter", "probes"?}``, an
outcome being ``{"queues"}``, ``{"queue"}``, ``{"filtered"}`` or ``{"error", "message"}``.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from itertools import count
from typing import Any

from pytest_rmq_conformance.engine.divergence import COUNTER_DRIFT, ERROR_BEHAVIOUR, FAULT, WRONG_QUEUES
from pytest_rmq_conformance.engine.running.timeouts import (
    Fault,
    answer_of,
    time_limits,
)
from pytest_rmq_conformance.javalang import guava_mod, java_int
from pytest_rmq_conformance.kinds.grpc.cases import BalancerCase, GroupCase
from pytest_rmq_conformance.kinds.grpc.probes import SIZES, java_probes, probe_route, probe_steps
from pytest_rmq_conformance.ports.grpc.route import (
    Broker,
    Endpoints,
    MessageQueue,
    endpoints_from_json,
    route_from_json,
)

__all__ = ["Mismatch", "Fault", "group_route", "position_in", "observe", "compare", "index_divergence", "counter_drift", "replay"]


@dataclass(frozen=True)
class Mismatch:
    """The first divergence of a case: at ``step`` (-1: the constructor's filter; ``len(steps)``:
    the index left after the steps), in one line, how bad, and what the strategy raised."""

    case_id: str
    run: str
    step: int
    problem: str
    divergence_class: str
    raised: BaseException | None = field(default=None, compare=False)
    observed: Mapping[str, Any] | None = field(default=None, compare=False)

    def __str__(self) -> str:
        where = "the constructor" if self.step < 0 else f"step {self.step}"
        return f"{self.case_id} @ {self.run}, {where}: {self.problem}"


def group_route(queues: int) -> list[Any]:
    """The route of a ``GROUP_HASH`` case: ``queues`` writable queues, ids 0.., of one master (a
    fresh list; the queues, immutable, are made once per count)."""
    return list(_group_queues(queues))


@lru_cache(maxsize=128)  # the vectors ask 79 counts, in turn, for each group
def _group_queues(queues: int) -> tuple[Any, ...]:
    broker = Broker("broker-a", 0, Endpoints("IPv4", (("10.0.0.1", 8081),)))
    return tuple(MessageQueue("TopicTest", broker, i, "READ_WRITE") for i in range(queues))


def _invoke(obj: Any, method: str, *args: Any) -> Any:
    """``obj.method(*args)``, the method looked up inside the limited call too."""
    return getattr(obj, method)(*args)


def position_in(route: Sequence[Any], queue: Any) -> int | None:
    """Where ``queue`` stands in ``route``: by identity, else the first entry equal to it as Java's
    ``MessageQueueImpl.equals`` has it (topic, broker, queue id, permission; ``None``: not there)."""
    for position, entry in enumerate(route):
        if entry is queue:
            return position
    value = _value(queue)
    return next((position for position, entry in enumerate(route) if _value(entry) == value), None)


def _value(queue: Any) -> Any:
    """What Java can tell of a queue: its value, not which object it is."""
    return (queue.topic, queue.broker, queue.queue_id, queue.permission) if isinstance(queue, MessageQueue) else queue


def _firsts(route: Sequence[Mapping[str, Any]]) -> list[int]:
    """For each position of a golden route, the first position holding an equal queue."""
    return [route.index(entry) for entry in route]


def _as_values(positions: Any, firsts: Sequence[int]) -> Any:
    """Positions (one or a list) with every queue named by its first equal entry in the route."""
    if isinstance(positions, list):
        return [_as_values(p, firsts) for p in positions]
    return firsts[positions] if type(positions) is int and 0 <= positions < len(firsts) else positions


def _positions(route: Sequence[Any], queues: Any, what: str) -> list[int | None]:
    if isinstance(queues, (str, bytes, Mapping)) or not hasattr(queues, "__iter__"):
        raise Fault(f"{what} returned {type(queues).__name__} {queues!r:.60}, not a list of the route's queues")
    return [position_in(route, queue) for queue in queues]


def _error(exc: BaseException) -> dict[str, Any]:
    return {"error": type(exc).__name__, "message": str(exc), "raised": exc}


def observe(build: Callable[[Sequence[Any], int], Any], case: Any, offset: int = 0, timeout: float | None = None,
            probe: bool = True) -> dict[str, Any]:
    """Play ``case`` against the balancers ``build(route, index)`` makes; what was observed.
    ``offset``: how the strategy's index relates to Java's (its index = Java's + offset): it is
    started at Java's start + offset, and its index after the steps read back less it. After a
    balancer case's steps, the probe takes of :mod:`.probes` (``probe``), observed as ``probes``."""
    with time_limits():
        if isinstance(case, GroupCase):
            route = group_route(case.queues)
            balancer, raised = answer_of(lambda: build(route, 0), timeout, "building the balancer")
            if raised is not None:
                raise Fault(f"the balancer could not be built: {type(raised).__name__}: {raised}")
            queue, raised = answer_of(lambda: balancer.take_message_queue_by_message_group(case.group), timeout,
                                  "take_message_queue_by_message_group")
            return _error(raised) if raised is not None else {"index": position_in(route, queue)}
        return _observe_balancer(build, case, offset, timeout, probe)


def _observe_balancer(build: Callable[[Sequence[Any], int], Any], case: BalancerCase, offset: int, timeout: float | None,
                      probe: bool) -> dict[str, Any]:
    route: Sequence[Any] = route_from_json(case.route)
    balancer, raised = answer_of(lambda: build(route, java_int(case.index + offset)), timeout, "building the balancer")
    if raised is not None:
        return _error(raised)
    seen: dict[str, Any] = {"filtered": _filtered(balancer, route, timeout)}
    balancer, route, seen["outcomes"] = _play(balancer, route, case.strategy, case.steps, timeout)
    index, raised = answer_of(lambda: balancer.index, timeout, "index")
    if raised is not None or type(index) is not int:
        raise Fault(f"the balancer's index is {type(index).__name__} {index!r:.40}, not an int" if raised is None
                    else f"reading the balancer's index raised {type(raised).__name__}: {raised}")
    seen["indexAfter"] = index - offset  # after the steps: Java's exactly passes, else the probes judge it
    seen["offset"] = offset
    if probe and callable(getattr(balancer, "update", None)):  # no update(): the index is compared as a number
        seen["probes"] = _play(balancer, route, case.strategy, probe_steps(case.strategy), timeout)[2]
    return seen


def _filtered(balancer: Any, route: Sequence[Any], timeout: float | None) -> list[int | None]:
    queues, raised = answer_of(lambda: list(balancer.message_queues), timeout, "message_queues")
    if raised is not None:
        raise Fault(f"message_queues raised {type(raised).__name__}: {raised}")
    return _positions(route, queues, "message_queues")


def _play(balancer: Any, route: Sequence[Any], strategy: str, steps: Sequence[Mapping[str, Any]],
          timeout: float | None) -> tuple[Any, Sequence[Any], list[dict[str, Any]]]:
    """``steps`` taken in turn from ``balancer`` on ``route``: the balancer and route they leave,
    and an outcome per step."""
    outcomes: list[dict[str, Any]] = []
    publishing = strategy != "SUBSCRIBE_ROUND_ROBIN"
    for step in steps:
        op = step["op"]
        if op == "update":
            new_route = probe_route(step) or route_from_json(step["route"])
            updated, raised = answer_of(partial(_invoke, balancer, "update", new_route), timeout, "update")
            if raised is not None:
                outcomes.append(_error(raised))
                continue
            balancer, route = updated, new_route
            outcomes.append({"filtered": _filtered(balancer, route, timeout)})
        elif op == "group":
            queue, raised = answer_of(partial(_invoke, balancer, "take_message_queue_by_message_group", step["group"]), timeout,
                                  "take_message_queue_by_message_group")
            outcomes.append(_error(raised) if raised is not None else {"queue": position_in(route, queue)})
        elif publishing:
            excluded = {endpoints_from_json(e) for e in step["excluded"]}
            queues, raised = answer_of(partial(_invoke, balancer, "take_message_queues", excluded, step["count"]), timeout,
                                   "take_message_queues")
            outcomes.append(_error(raised) if raised is not None else {"queues": _positions(route, queues, "take_message_queues")})
        else:
            queue, raised = answer_of(partial(_invoke, balancer, "take_message_queue"), timeout, "take_message_queue")
            outcomes.append(_error(raised) if raised is not None else {"queue": position_in(route, queue)})
    return balancer, route, outcomes


def _shown(answer: Mapping[str, Any]) -> str:
    if "error" in answer:
        return f"raised {answer['error'].rsplit('.', 1)[-1]}"
    if "queues" in answer:
        return f"queues {answer['queues']}"
    if "queue" in answer:
        return f"queue {answer['queue']}"
    if "filtered" in answer:
        return f"filtered {answer['filtered']}"
    return repr(answer)


def _differs(java: Mapping[str, Any], got: Mapping[str, Any], firsts: Sequence[int]) -> str | None:
    """How ``got`` differs from Java's ``java`` (a class of divergence), ``None`` if it does not;
    queues are compared as values (``firsts``: :func:`_firsts` of the route they stand in)."""
    if "error" in java or "error" in got:
        return None if ("error" in java) == ("error" in got) else ERROR_BEHAVIOUR
    key = next(iter(java))
    return None if _as_values(got.get(key, _MISSING), firsts) == _as_values(java[key], firsts) else WRONG_QUEUES


_MISSING = object()


def compare(case: Any, run: str, seen: Mapping[str, Any], probes: Callable[[], list[Any] | None] | None = None) -> Mismatch | None:
    """The first divergence of ``seen`` (:func:`observe`'s, or a harness's answer) from Java's
    answers of ``run``, or ``None``; ``probes`` asks for the probe takes when ``seen`` lacks them
    (a harness is asked again, with the probes after the steps, only when its index is not Java's)."""
    java = case.answers_for(run)
    raised = seen.get("raised")
    if isinstance(case, GroupCase):
        if "error" in seen:
            return Mismatch(case.id, run, 0, f"Java chose queue {java['index']}, but the balancer raised {seen['error']}: {seen.get('message')}",
                            WRONG_QUEUES, raised, seen)
        if seen.get("index") != java["index"]:
            got = "a queue not in the route" if seen.get("index") is None else f"queue {seen['index']}"
            return Mismatch(case.id, run, 0, f"{got}, Java's queue {java['index']}", WRONG_QUEUES, None, seen)
        return None
    if "error" in java or "error" in seen:
        if ("error" in java) != ("error" in seen):
            problem = (f"Java's constructor threw {java['error'].rsplit('.', 1)[-1]}; the balancer was built" if "error" in java
                       else f"the constructor raised {seen['error']}: {seen.get('message')}; Java's kept queues {java['filtered']}")
            return Mismatch(case.id, run, -1, problem, ERROR_BEHAVIOUR, raised, seen)
        return None
    firsts = _firsts(case.route)
    if _as_values(seen["filtered"], firsts) != _as_values(java["filtered"], firsts):
        return Mismatch(case.id, run, -1, f"filtered {seen['filtered']}, Java's {java['filtered']}", WRONG_QUEUES, None, seen)
    for index, (step, want, got) in enumerate(zip(case.steps, java["steps"], seen["outcomes"])):
        if step["op"] == "update" and "filtered" in want:  # later positions are in the new route
            firsts = _firsts(step["route"])
        differs = _differs(want, got, firsts)
        if differs is not None:
            return Mismatch(case.id, run, index, f"{step['op']}: {_shown(got)}, Java's {_shown(want)}", differs, got.get("raised"), seen)
    if len(seen["outcomes"]) != len(case.steps):
        return Mismatch(case.id, run, len(seen["outcomes"]), f"{len(seen['outcomes'])} outcomes for {len(case.steps)} steps", FAULT, None, seen)
    return _index_problem(case, run, java, seen, probes)


def _index_problem(case: BalancerCase, run: str, java: Mapping[str, Any], seen: Mapping[str, Any],
                   probes: Callable[[], list[Any] | None] | None) -> Mismatch | None:
    """How the index the steps left differs from Java's ``java["indexAfter"]`` (``None``: as
    far as any later take can tell, it does not): :func:`index_divergence`."""
    found = index_divergence(case.strategy, java["indexAfter"], seen, probes)
    if found is None:
        return None
    problem, divergence_class, raised = found
    if problem is None:
        problem = counter_drift(java, seen["indexAfter"], seen.get("offset", 0))
    return Mismatch(case.id, run, len(case.steps), problem, divergence_class, raised, seen)


def index_divergence(family: str, want: int, seen: Mapping[str, Any],
                     probes: Callable[[], list[Any] | None] | None = None) -> tuple[str | None, str, BaseException | None] | None:
    """(problem, class, raised) when the index that ``seen``'s steps left is not Java's ``want``
    as far as a later take can tell; ``None`` when it is.

    The number read back after the steps, Java's ``int`` exactly, passes. Any other number is
    judged by the probe takes of :mod:`.probes` (``seen["probes"]``, or ``probes()`` asks for
    them): equal takes pass, whatever number the balancer stores; the first take that differs
    is the divergence. The probes judge the counter only: a balancer that cannot be probed (no
    ``update()``, or an update to a probe route it answers unlike Java) is judged by its number
    (problem ``None``: :func:`counter_drift` says it), as the probes were never asked."""
    if seen["indexAfter"] == want:
        return None
    found = seen.get("probes")
    if found is None and probes is not None:
        found = probes()
    steps = probe_steps(family)
    if found is None or len(found) != len(steps):
        return None, COUNTER_DRIFT, None
    javas = java_probes(family, want)
    if any(step["op"] == "update" and _differs(java, got, range(SIZES[k // 2])) is not None
           for k, (step, java, got) in enumerate(zip(steps, javas, found))):
        return None, COUNTER_DRIFT, None  # the probe routes themselves are not taken as Java's: no verdict from them
    for k, (java, got) in enumerate(zip(javas, found)):
        differs = _differs(java, got, range(SIZES[k // 2]))
        if differs is not None:
            problem = (f"probe {k // 2 + 1} of {len(SIZES)} after the steps, the take on {SIZES[k // 2]} queues: {_shown(got)}, "
                       f"Java's {_shown(java)}; " + _index_note(want, seen["indexAfter"], seen.get("offset", 0)))
            return problem, COUNTER_DRIFT if differs == WRONG_QUEUES else differs, got.get("raised")
    return None


def _index_note(want: int, index: int, offset: int) -> str:
    """The index read back after the steps (``want``: Java's), shown beside a probe's divergence."""
    own = f" (its {index + offset} less its offset {offset})" if offset else ""
    return f"after the steps the index reads back {index}{own}, Java's {want}"


def counter_drift(java: Mapping[str, Any], index: int, offset: int = 0) -> str:
    """Why the counter of a balancer that cannot be probed, read back after the steps as
    ``index`` (its own less ``offset``), is not Java's int, and when that shows: the next take
    on the route the case ends on, and the first number of kept queues on which the two part."""
    want = java["indexAfter"]
    own = f" (its {index + offset} less its offset {offset})" if offset else ""
    if java_int(index) != index:
        how = f"beyond the int range{' (equal modulo 2^32 only)' if java_int(index) == want else ''}"
    else:
        how = "a different int"
    kept = java["filtered"]
    for step in java["steps"]:
        kept = step.get("filtered", kept)
    n = len(kept)
    mine, javas = kept[guava_mod(index, n)], kept[guava_mod(want, n)]
    part = next(length for length in count(2) if (index - want) % length)
    if mine == javas:
        when = f"the next take on this route ({n} kept) agrees (queue {javas}); they first part on a route of {part} kept queues"
    else:
        when = f"the next take on this route ({n} kept) starts at queue {mine}, not {javas}"
        when += f", and they first part on a route of {part} kept queues" if part < n else ""
    return f"index {index} after the steps{own}, Java's {want}: {how}; {when}"


def replay(build: Callable[[Sequence[Any], int], Any], case: Any, run: str, offset: int = 0, timeout: float | None = None) -> Mismatch | None:
    """Play ``case`` in this process and compare; a :class:`Fault` becomes a ``fault`` mismatch."""
    try:
        return compare(case, run, observe(build, case, offset, timeout))
    except Fault as fault:
        return Mismatch(case.id, run, 0, str(fault), FAULT, fault.raised)
