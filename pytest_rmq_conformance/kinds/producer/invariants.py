"""The invariants of spec §11, judged on what a strategy was seen to do.

A fault strategy's properties are read off one played trace: :func:`trace_violations` walks
the steps with the state the observations tell (clock, latency switch, publish list, stored
counter, fault table) and names every step that breaks a claimed property. A selector's are
read off its answers to generated calls (:func:`selector_violations`). Neither asks Java:
they hold for a strategy with no Java twin as for the ports, release by release
(:mod:`.properties`).

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_rmq_conformance.javalang import INT_MAX, java_int, java_list_get, java_long, mask31
from pytest_rmq_conformance.kinds.producer.cases import SelectorCase, TraceCase
from pytest_rmq_conformance.kinds.producer.release import producer_release
from pytest_rmq_conformance.kinds.producer.trace import ObservedState
from pytest_rmq_conformance.ports.producer.fault_strategy import ISOLATION_LATENCY, LATENCY_MAX, NOT_AVAILABLE_DURATION

__all__ = ["Violation", "trace_violations", "selector_violations", "penalty"]


@dataclass(frozen=True)
class Violation:
    """One step (or call) that breaks ``prop``."""

    index: int
    prop: str
    problem: str

    def __str__(self) -> str:
        return f"step {self.index}: {self.prop}: {self.problem}"


def penalty(params: Mapping[str, Any], version: str, latency: int) -> int | None:
    """How long a broker is unavailable after a send of ``latency`` ms, by the tables ``params``
    set (the release's defaults where ``null``); ``None`` where Java's lookup throws."""
    major = producer_release(version)[0]
    limits = params.get("latencyMax") or LATENCY_MAX[major]
    durations = params.get("notAvailableDuration") or NOT_AVAILABLE_DURATION[major]
    for i in range(len(limits) - 1, -1, -1):
        if latency >= limits[i]:
            try:
                return java_list_get(list(durations), i)
            except IndexError:
                return None
    return 0


def _shown(queue: Any) -> str:
    return "null" if queue is None else f"{queue[0]}/{queue[1]}"


def _select(walk: ObservedState, step: Mapping[str, Any], got: Mapping[str, Any], claimed: frozenset[str]) -> list[tuple[str, str]]:
    """(property, problem) for a select or tp_select the state ``walk`` was in before."""
    found: list[tuple[str, str]] = []
    before = list(walk.queues)
    if not before or got.get("raised") is not None:
        return found
    queue, last = got.get("queue"), step.get("lastBroker")
    brokers = {broker for broker, _ in before}
    latency_on = walk.latency and step["op"] == "select"
    if queue is None:
        return [("listed-queue", f"returned no queue from a list of {len(before)}")] if "listed-queue" in claimed else []
    broker = queue[0]
    after = list(before)
    for position, name, queue_id in got.get("listMutated") or ():
        if 0 <= position < len(after):
            after[position] = (name, queue_id)
    listed = tuple(queue) in set(before) | set(after)
    if "listed-queue" in claimed and not listed and not 0 <= queue[1] < walk.write_queue_nums.get(broker, 0):
        found.append(("listed-queue", f"returned {_shown(queue)}: no entry of the publish list {before}, "
                      f"nor a queue id below the writeQueueNums of {broker} in the route ({walk.write_queue_nums.get(broker)})"))
    # Java's walk over the list runs a counter that jumps where it passes the end of the int (4.x
    # masks it positive, Math.abs keeps MIN_VALUE negative): there it may visit one position twice
    # and miss another, every available broker or every other one, so the avoidance properties
    # hold for Java only clear of that end
    clear = _clear_of_the_end(walk, step, got, len(before))
    if not latency_on and last is not None and clear and "avoids-last-broker" in claimed and len(brokers) >= 2 and broker == last:
        found.append(("avoids-last-broker", f"returned {_shown(queue)} of the last broker {last} while the list has {sorted(brokers - {last})}"))
    if not latency_on and last is None:
        stored = got.get("storedIndexAfter")
        if "round-robin" in claimed:
            if type(stored) is not int:
                found.append(("round-robin", f"left the counter at {stored!r}, not an int"))
            else:
                want = mask31(stored) % len(before)
                if tuple(queue) != before[want]:  # by value: an equal copy sends where the entry does
                    found.append(("round-robin", f"returned {_shown(queue)} with the counter at {stored}: "
                                  f"position {want} ({_shown(before[want])}) is counter mod {len(before)}"))
                if walk.counter is not None and mask31(stored) != mask31(java_int(walk.counter + 1)):
                    found.append(("round-robin", f"moved the counter from {walk.counter} to {stored}: one select is one step"))
    if latency_on and clear:
        available = {b for b in brokers if walk.available(b)}
        if last is None and "avoids-penalised" in claimed and available and broker not in available:
            found.append(("avoids-penalised", f"returned {_shown(queue)} of {broker}, penalised until "
                          f"{walk.table[broker]['startTimestamp']} (now {walk.clock}), while {sorted(available)} are available"))
        others = available - {last}
        if last is not None and "avoids-penalised-on-retry" in claimed and others and broker not in available:
            found.append(("avoids-penalised-on-retry", f"retry after {last} returned {_shown(queue)} of {broker}, penalised until "
                          f"{walk.table[broker]['startTimestamp']} (now {walk.clock}), while {sorted(others)} are available"))
        reachable = {b for b in brokers - {last} if walk.reachable(b)}
        if "reachability" in claimed and not others and reachable and broker not in reachable:
            found.append(("reachability", f"returned {_shown(queue)} of {broker} while no broker besides {last} is available "
                          f"and {sorted(reachable)} are reachable"))
    return found


def _clear_of_the_end(walk: ObservedState, step: Mapping[str, Any], got: Mapping[str, Any], n: int) -> bool:
    """Whether a select's walk (at most ``2n + 1`` counter steps) stays clear of the int's end:
    from the counter before it, or, where it started afresh (no counter yet, 5.x's reset), back
    from the counter it left."""
    reset = walk.latency and step["op"] == "select" and bool(step.get("resetIndex"))
    if walk.counter is not None and not reset:
        return mask31(walk.counter) <= INT_MAX - 2 * n - 1
    after = got.get("storedIndexAfter")
    return type(after) is int and 2 * n + 1 <= mask31(after) <= INT_MAX - 2 * n - 1


def _update(walk: ObservedState, case: TraceCase, version: str, step: Mapping[str, Any], got: Mapping[str, Any], claimed: frozenset[str]) -> list[tuple[str, str]]:
    """(property, problem) for an update the state ``walk`` was in before."""
    if got.get("raised") is not None:
        return []
    broker, item, old = step["broker"], got.get("item"), walk.table.get(step["broker"])
    if not walk.latency:
        if "inert-when-disabled" in claimed and item != old:
            return [("inert-when-disabled", f"with latency off, update({broker}, {step['latency']}) changed its fault item from {old} to {item}")]
        return []
    prop = "isolation" if step["isolation"] else "penalty-boundaries"
    checks = {prop, "monotonic-penalty"} & claimed
    if not checks:
        return []
    major = producer_release(version)[0]
    priced = ISOLATION_LATENCY[major] if step["isolation"] else step["latency"]
    duration = penalty(case.params, version, priced)
    if not isinstance(item, Mapping):
        return [(sorted(checks)[0], f"update({broker}, {step['latency']}) left no fault item for it")]
    found = []
    start = item.get("startTimestamp")
    previous = 0 if old is None else old["startTimestamp"]
    if "monotonic-penalty" in checks and type(start) is int and start < previous:
        found.append(("monotonic-penalty", f"update({broker}, {step['latency']}) moved startTimestamp back from {previous} to {start}"))
    if prop in checks and duration is not None:
        until = java_long(walk.clock + duration)
        want = until if major < 5 else (until if duration > 0 and until > previous else previous)
        if item.get("latency") != step["latency"]:
            found.append((prop, f"update({broker}, {step['latency']}) stored latency {item.get('latency')!r}, the measured {step['latency']}"))
        if start != want:
            rule = "now + d" if major < 5 else "now + d when later than its current end"
            priced_as = f"priced at {priced} ms (isolation)" if step["isolation"] else f"{priced} ms"
            found.append((prop, f"update({broker}, {step['latency']}) at {walk.clock} set startTimestamp {start!r}; "
                          f"{priced_as} costs d = {duration} ms, so {rule} = {want}"))
    return found


def trace_violations(case: TraceCase, version: str, publish: Sequence[Sequence[Any]], observations: Sequence[Any], claimed: frozenset[str]) -> list[Violation]:
    """Every step of a played trace that breaks one of the ``claimed`` properties at ``version``."""
    walk = ObservedState(case, publish)
    found: list[Violation] = []
    for index, (step, observed) in enumerate(zip(case.steps, observations)):
        got = observed if isinstance(observed, Mapping) else {}
        if step["op"] in ("select", "tp_select"):
            problems = _select(walk, step, got, claimed)
        elif step["op"] == "update":
            problems = _update(walk, case, version, step, got, claimed)
        else:
            problems = []
        found.extend(Violation(index, prop, problem) for prop, problem in problems)
        walk.observe(step, got)
    return found


def selector_violations(case: SelectorCase, answers: Sequence[Any], claimed: frozenset[str]) -> list[Violation]:
    """Every call of a selector case whose answer (a position, ``None`` or an exception) breaks
    ``total`` or ``same-key-same-queue``. A null argument and the empty list are outside
    ``total`` (spec §11 invariant 11): Java's ``arg.hashCode()`` and ``% 0`` throw there."""
    found: list[Violation] = []
    first: dict[int, Any] = {}
    null_arg = isinstance(case.arg, Mapping) and case.arg.get("type") == "null"
    for index, (count, got) in enumerate(zip(case.queue_counts, answers)):
        raised = isinstance(got, BaseException)
        if "total" in claimed and count > 0 and not null_arg and (raised or got is None):
            shown = f"raised {type(got).__name__}: {got}" if raised else "returned a queue that is not an element of the list"
            found.append(Violation(index, "total", f"n={count}: {shown}"))
        if "same-key-same-queue" in claimed and count > 0 and not raised:
            if count in first and first[count] != got:
                found.append(Violation(index, "same-key-same-queue", f"n={count}: position {got}, but {first[count]} for the same argument before"))
            first.setdefault(count, got)
    return found
