"""Which invariants a producer's selection claims (spec §11), and whose they are.

Each property has a name. The Java families' real properties per release are built in
(:func:`java_properties`); a strategy with no Java twin declares its own in an attribute
``rmq_properties`` (or the ``pytest_rmq_properties`` hook), by default
:data:`DEFAULT_PROPERTIES`::

    class StickySelector:
        name = "STICKY_BY_KEY"
        rmq_properties = {"total", "same-key-same-queue", "one-answer"}

Fault-strategy properties are judged on generated traces, selector properties on generated
calls (:mod:`.invariants`); a property of the other shape does not apply and is skipped.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from typing import Any

from pytest_rmq_conformance.engine.golden.modelled import NotModelled
from pytest_rmq_conformance.engine.kinds import property_names
from pytest_rmq_conformance.kinds.producer.release import producer_release

__all__ = [
    "PROPERTIES",
    "TRACE_PROPERTIES",
    "SELECTOR_PROPERTIES",
    "DEFAULT_PROPERTIES",
    "java_properties",
    "parse_properties",
]

#: fault-strategy properties, judged on the steps of a generated trace
TRACE_PROPERTIES = {
    "listed-queue": "a select returns an entry of the publish list (as it was, or as the call rewrote it), "
    "or a queue of a broker of the route below its writeQueueNums",
    "round-robin": "latency off, first attempt: the queue at position counter mod n, the counter one step on",
    "avoids-last-broker": "latency off, a retry never returns the last broker while the list has another "
    "(the counter clear of the int's end)",
    "avoids-penalised": "latency on, first attempt: an available broker whenever the list has one (the counter clear of the int's end)",
    "avoids-penalised-on-retry": "latency on, retry: an available broker whenever the list has one besides the last "
    "(the counter clear of the int's end)",
    "reachability": "latency on: with no available broker besides the last, a reachable one besides the last if any "
    "(the counter clear of the int's end)",
    "penalty-boundaries": "an update prices its latency by the release's tables: unavailable until now + d",
    "isolation": "an isolating update keeps the measured latency and prices the release's isolation latency",
    "monotonic-penalty": "an update never ends a penalty early: startTimestamp never decreases",
    "inert-when-disabled": "latency off: an update leaves the fault table as it was",
}
#: selector properties, judged on generated calls
SELECTOR_PROPERTIES = {
    "total": "a queue of the list for every non-null argument and n >= 1 (Java throws for a null argument and the empty list: "
    "outside it)",
    "same-key-same-queue": "the same argument and list length always give the same queue (per-key order)",
    "spread": "answers to distinct arguments spread evenly over the list (chi-square bound, seeded)",
    "java-random": "the same draws as java.util.Random seeded with the seed given (golden replay is exact)",
}
#: every property the suite knows, with what it means
PROPERTIES = {
    **TRACE_PROPERTIES,
    **SELECTOR_PROPERTIES,
    "one-answer": "a trace or call sequence asked again of a fresh strategy gets the same answers",
}

#: what a producer strategy with no Java twin is held to unless it declares otherwise
DEFAULT_PROPERTIES: frozenset[str] = frozenset(
    {"one-answer", "listed-queue", "avoids-last-broker", "avoids-penalised", "inert-when-disabled", "total", "spread"}
)

_FAULT_STRATEGY = frozenset(
    {
        "one-answer",
        "listed-queue",
        "round-robin",
        "avoids-last-broker",
        "avoids-penalised",
        "penalty-boundaries",
        "isolation",
        "inert-when-disabled",
    }
)


def java_properties(family: str, version: str) -> frozenset[str]:
    """The properties Java's ``family`` has at release ``version``.

    4.7.1's retry walks for the last broker itself and its fallback may pick a penalised one;
    4.9.8 takes any available broker on a retry; 5.3.3 adds reachability and only extends a
    penalty. 4.7.1's hash selector throws for a hash of ``Integer.MIN_VALUE``.
    """
    try:
        release = producer_release(version, family)
    except NotModelled:  # no port models Java there: nothing is claimed for it, its golden vectors judge
        return frozenset()
    if family == "FAULT_STRATEGY":
        found = set(_FAULT_STRATEGY)
        if release >= (4, 9, 8):
            found.add("avoids-penalised-on-retry")
        if release >= (5, 0, 0):
            found |= {"reachability", "monotonic-penalty"}
        return frozenset(found)
    if family == "SELECTOR_HASH":
        return frozenset({"one-answer", "same-key-same-queue", "spread"} | ({"total"} if release >= (4, 9, 8) else set()))
    if family == "SELECTOR_RANDOM":
        return frozenset({"one-answer", "total", "spread", "java-random"})
    raise ValueError(f"no Java producer family {family!r}")


def parse_properties(claimed: Any, where: str) -> frozenset[str]:
    """Validate a declaration (an iterable of property names); ``where`` names it in errors."""
    return property_names(claimed, where, PROPERTIES)
