"""``reference_strategy``: a reference port built from the golden files' own vocabulary."""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Optional

from pytest_rmq_conformance.javalang import normalize_charset
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.strategies.averagely import AllocateMessageQueueAveragely
from pytest_rmq_conformance.strategies.averagely_by_circle import AllocateMessageQueueAveragelyByCircle
from pytest_rmq_conformance.strategies.base import (
    DEFAULT_RELEASE,
    AllocateMessageQueueStrategy,
    parse_release,
)
from pytest_rmq_conformance.strategies.by_config import AllocateMessageQueueByConfig
from pytest_rmq_conformance.strategies.consistent_hash import AllocateMessageQueueConsistentHash
from pytest_rmq_conformance.strategies.machine_room import AllocateMessageQueueByMachineRoom
from pytest_rmq_conformance.strategies.machine_room_nearby import AllocateMachineRoomNearby
from pytest_rmq_conformance.strategies.resolvers import MapMachineRoomResolver, SplitMachineRoomResolver

__all__ = ["REFERENCE_CLASSES", "reference_strategy", "build_resolver"]

#: Java ``getName()`` -> the class that ports it (``MACHINE_ROOM_NEARBY`` wraps an inner one).
REFERENCE_CLASSES: Dict[str, type] = {
    "AVG": AllocateMessageQueueAveragely,
    "AVG_BY_CIRCLE": AllocateMessageQueueAveragelyByCircle,
    "CONSISTENT_HASH": AllocateMessageQueueConsistentHash,
    "MACHINE_ROOM": AllocateMessageQueueByMachineRoom,
    "MACHINE_ROOM_NEARBY": AllocateMachineRoomNearby,
    "CONFIG": AllocateMessageQueueByConfig,
}


def _expect_keys(name: str, params: Mapping[str, Any], allowed: set) -> None:
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ValueError(f"{name}: unknown parameter(s) {unknown}; expected some of {sorted(allowed)}")


def build_resolver(spec: Mapping[str, Any]):
    """A resolver from ``{"kind": "map", "brokerRoom": {...}, "consumerRoom": {...}}``
    or ``{"kind": "split", "separator": "-"}``."""
    if not isinstance(spec, Mapping):
        raise ValueError(f"resolver must be an object, not {spec!r}")
    kind = spec.get("kind")
    if kind == "map":
        _expect_keys("resolver", spec, {"kind", "brokerRoom", "consumerRoom"})
        return MapMachineRoomResolver(spec.get("brokerRoom") or {}, spec.get("consumerRoom") or {})
    if kind == "split":
        _expect_keys("resolver", spec, {"kind", "separator"})
        return SplitMachineRoomResolver(spec.get("separator", "-"))
    raise ValueError(f"resolver kind must be 'map' or 'split', not {kind!r}")


def _queues(triples: Optional[list]) -> Optional[list]:
    return None if triples is None else [MessageQueue.from_json(t) for t in triples]


def _consistent_hash(params, version, charset):
    _expect_keys("CONSISTENT_HASH", params, {"virtualNodeCnt"})
    return AllocateMessageQueueConsistentHash(params.get("virtualNodeCnt", 10), version=version, charset=charset)


def _machine_room(params, version, charset):
    _expect_keys("MACHINE_ROOM", params, {"consumeridcs"})
    return AllocateMessageQueueByMachineRoom(params.get("consumeridcs"), version=version)


def _nearby(params, version, charset):
    _expect_keys("MACHINE_ROOM_NEARBY", params, {"inner", "resolver"})
    inner = params.get("inner")
    if not isinstance(inner, Mapping) or "strategy" not in inner:
        raise ValueError(f"MACHINE_ROOM_NEARBY: inner must be {{'strategy': ..., 'params': ...}}, not {inner!r}")
    inner_params = dict(inner.get("params") or {})
    inner_params.setdefault("charset", charset)
    return AllocateMachineRoomNearby(
        reference_strategy(inner["strategy"], inner_params, version),
        build_resolver(params.get("resolver")),
        version=version,
    )


def _config(params, version, charset):
    _expect_keys("CONFIG", params, {"messageQueueList"})
    return AllocateMessageQueueByConfig(_queues(params.get("messageQueueList")), version=version)


def _plain(cls):
    def build(params, version, charset):
        _expect_keys(cls.name, params, set())
        return cls(version=version)

    return build


_BUILDERS: Dict[str, Callable[[Mapping[str, Any], str, str], AllocateMessageQueueStrategy]] = {
    "AVG": _plain(AllocateMessageQueueAveragely),
    "AVG_BY_CIRCLE": _plain(AllocateMessageQueueAveragelyByCircle),
    "CONSISTENT_HASH": _consistent_hash,
    "MACHINE_ROOM": _machine_room,
    "MACHINE_ROOM_NEARBY": _nearby,
    "CONFIG": _config,
}


def reference_strategy(
    name: str, params: Optional[Mapping[str, Any]] = None, version: str = DEFAULT_RELEASE
) -> AllocateMessageQueueStrategy:
    """Build the reference port of strategy ``name`` configured by ``params``,
    behaving like RocketMQ release ``version``.

    >>> reference_strategy("CONSISTENT_HASH", {"virtualNodeCnt": 10}).name
    'CONSISTENT_HASH'
    >>> reference_strategy("MACHINE_ROOM_NEARBY", {
    ...     "inner": {"strategy": "AVG", "params": {}},
    ...     "resolver": {"kind": "split", "separator": "-"}}, "4.9.8").name
    'MACHINE_ROOM_NEARBY-AVG'

    ``params`` may also hold ``"charset"``, the JVM default charset a 4.x
    consistent hash reads key bytes in (``"UTF-8"`` when absent; a nearby
    strategy hands it to its inner one; other strategies do not hash).
    Raises ``ValueError`` for an unknown name or parameter and wherever
    Java's constructor refuses.
    """
    parse_release(version)
    builder = _BUILDERS.get(name)
    if builder is None:
        raise ValueError(f"unknown strategy {name!r}; expected one of {sorted(_BUILDERS)}")
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise ValueError(f"{name}: params must be an object, not {params!r}")
    params = dict(params)
    charset = normalize_charset(params.pop("charset", "UTF-8"))
    return builder(params, version, charset)
