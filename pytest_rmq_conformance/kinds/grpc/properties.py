"""Which invariants a gRPC balancer claims, and whose they are.

The Java families have every property of their shape (:func:`java_properties`); a balancer
with no Java twin declares its own in ``rmq_properties`` (or the ``pytest_rmq_properties``
hook), by default :data:`DEFAULT_PROPERTIES`::

    class StickyGroups:
        name = "STICKY_GROUPS"
        rmq_properties = {"one-answer", "spread"}

Group properties are judged on generated groups, round-robin properties on generated routes
and takes (:mod:`.invariants`); a property of another shape does not apply and is skipped.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from typing import Any

from pytest_rmq_conformance.engine.kinds import property_names

__all__ = ["PROPERTIES", "GROUP_PROPERTIES", "ROUND_ROBIN_PROPERTIES", "TAKE_PROPERTIES", "DEFAULT_PROPERTIES",
           "java_properties", "parse_properties", "shape_of_family"]

#: a message group's routing, judged on generated groups
GROUP_PROPERTIES = {
    "one-answer": "a group goes to one queue in every process, whatever its hash seed, and from every fresh balancer",
    "in-range": "every group goes to a queue of the route",
    "spread": "distinct groups spread evenly over the queues (chi-square bound)",
}
#: round robin (publishing and subscribing), judged on generated routes and takes
ROUND_ROBIN_PROPERTIES = {
    "covers-queues": "as many successive takes of one queue as there are queues kept answer each kept queue once "
    "(clear of the int's end, where Java's IntMath.mod skips)",
    "index-wraps": "the index moves one step per take and wraps from 2^31-1 to -2^31, as Java's int",
}
#: takeMessageQueues(excluded, count), judged on generated takes
TAKE_PROPERTIES = {
    "one-per-broker": "a take never answers two queues of one broker name",
    "avoids-excluded": "a take never answers an excluded broker while a kept queue's broker is not excluded "
    "(clear of the int's end)",
    "takes-enough": "a take of count >= 1 answers min(count, broker names it may use) queues, never none "
    "(clear of the int's end)",
}
PROPERTIES = {**GROUP_PROPERTIES, **ROUND_ROBIN_PROPERTIES, **TAKE_PROPERTIES}
DEFAULT_PROPERTIES: frozenset[str] = frozenset(PROPERTIES)

_SHAPES = {"GROUP_HASH": "group", "PUBLISH_ROUND_ROBIN": "publish", "SUBSCRIBE_ROUND_ROBIN": "subscribe"}


def shape_of_family(family: str) -> str:
    """``group``, ``publish`` or ``subscribe``."""
    return _SHAPES[family]


def properties_of_shape(shape: str) -> dict[str, str]:
    """The properties that apply to balancers of ``shape``."""
    if shape == "group":
        return GROUP_PROPERTIES
    if shape == "publish":
        return {**ROUND_ROBIN_PROPERTIES, **TAKE_PROPERTIES}
    return ROUND_ROBIN_PROPERTIES


def java_properties(family: str) -> frozenset[str]:
    """The properties Java's ``family`` has: every property of its shape."""
    return frozenset(properties_of_shape(shape_of_family(family)))


def parse_properties(claimed: Any, where: str) -> frozenset[str]:
    """Validate a declaration (an iterable of property names); ``where`` names it in errors."""
    return property_names(claimed, where, PROPERTIES)
