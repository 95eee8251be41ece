"""The six Java families of consumer allocation, one :class:`~.family.AllocationFamily` record
each, registered when this module is imported (by the package, right after its kind).

A family is what the golden files call a ``strategy`` (``AVG``, ``CONSISTENT_HASH``, ...).
Adding one means registering one record::

    from pytest_rmq_conformance.engine import kinds
    from pytest_rmq_conformance.kinds.allocation.family import PARTITION, AllocationFamily
from pytest_rmq_conformance.kinds.allocation.family import get as family_record

    kinds.register_family(AllocationFamily(
        name="STICKY",
        build=lambda params, version, charset: StickyReference(),
        properties=lambda version: PARTITION | {"stable-on-leave"},
    ))

Hypothesis is imported only by the draw functions, when groups are drawn.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.javalang import normalize_charset
from pytest_rmq_conformance.kinds.allocation.family import PARTITION, AllocationFamily
from pytest_rmq_conformance.kinds.allocation.family import get as family_record
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.allocation.averagely import AllocateMessageQueueAveragely
from pytest_rmq_conformance.ports.allocation.averagely_by_circle import AllocateMessageQueueAveragelyByCircle
from pytest_rmq_conformance.ports.allocation.by_config import AllocateMessageQueueByConfig
from pytest_rmq_conformance.ports.allocation.consistent_hash import AllocateMessageQueueConsistentHash
from pytest_rmq_conformance.ports.allocation.machine_room import AllocateMessageQueueByMachineRoom, broker_room
from pytest_rmq_conformance.ports.allocation.machine_room_nearby import AllocateMachineRoomNearby
from pytest_rmq_conformance.ports.allocation.resolvers import MapMachineRoomResolver, SplitMachineRoomResolver
from pytest_rmq_conformance.releases import parse_release

__all__ = ["build_resolver"]

Params = Mapping[str, Any]
Keywords = dict[str, Any]


# -- helpers shared by the records -------------------------------------------


def _expect_keys(name: str, params: Params, allowed: set) -> None:
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ValueError(f"{name}: unknown parameter(s) {unknown}; expected some of {sorted(allowed)}")


def build_resolver(spec: Any):
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


#: the last list of triples made into queues, and those queues: every client of a group is built
#: from the same params (CONFIG's list may hold every queue of the group)
_last_queues: list[Any] = [None, ()]


def _queues(triples: list | None) -> list | None:
    """Golden ``[topic, brokerName, queueId]`` triples as a fresh list of (immutable) queues."""
    if triples is None:
        return None
    seen, queues = _last_queues
    if seen is not triples:  # held here, so no other list can take its id
        queues = tuple(MessageQueue.from_json(t) for t in triples)
        _last_queues[:] = [triples, queues]
    return list(queues)


def _plain(cls) -> Callable[[Params, str, str], Any]:
    def build(params: Params, version: str, charset: str):
        _expect_keys(cls.name, params, set())
        return cls(version=version)

    return build


# -- AVG, AVG_BY_CIRCLE ----------------------------------------------------

kinds.register_family(
    AllocationFamily(
        "AVG",
        _plain(AllocateMessageQueueAveragely),
        properties=lambda version: PARTITION | {"balance"},
        port=AllocateMessageQueueAveragely,
    )
)
kinds.register_family(
    AllocationFamily(
        "AVG_BY_CIRCLE",
        _plain(AllocateMessageQueueAveragelyByCircle),
        properties=lambda version: PARTITION | {"balance"},
        port=AllocateMessageQueueAveragelyByCircle,
    )
)


# -- CONSISTENT_HASH -----------------------------------------------------------


def _hash_build(params: Params, version: str, charset: str):
    _expect_keys("CONSISTENT_HASH", params, {"virtualNodeCnt"})
    return AllocateMessageQueueConsistentHash(params.get("virtualNodeCnt", 10), version=version, charset=charset)


def _hash_keywords(params: Params, version: str, charset: str) -> Keywords:
    keywords: Keywords = {"virtual_node_cnt": params.get("virtualNodeCnt", 10)}
    if charset != "UTF-8":  # only 4.x hashes in the JVM default charset
        keywords["charset"] = charset
    return keywords


def _hash_draw(draw, queues, adversarial: bool) -> dict[str, Any]:
    from pytest_rmq_conformance.kinds.allocation.draws import virtual_node_counts

    return {"virtualNodeCnt": draw(virtual_node_counts(adversarial))}


def _hash_explain(reference, group, mq: MessageQueue, holders: Sequence[str]) -> str | None:
    """Java's ring for the group: the queue's key, its hash and the virtual node it is routed to."""
    if not isinstance(reference, AllocateMessageQueueConsistentHash) or not group.cid_all:
        return None
    hit = reference.ring_hit(mq, group.cid_all)
    if hit is None:
        return None
    how = "MD5" if reference.custom_hash_function is None else "the custom hash"
    if hit.hash == hit.node_hash:
        where = f"exactly the hash of virtual node {hit.node!r}"
    else:
        where = f"the first virtual node at or after it is {hit.node!r} (hash {hit.node_hash})"
    yours = ", ".join(repr(cid) for cid in holders) if holders else "no client"
    return (
        f"ring: {mq.label()}: key {hit.key!r} hashes to {hit.hash} ({how}); {where}: "
        f"Java gives it to {hit.client!r}, yours to {yours}"
    )


kinds.register_family(
    AllocationFamily(
        "CONSISTENT_HASH",
        _hash_build,
        properties=lambda version: PARTITION | {"stable-on-leave", "stable-on-join"},
        keywords=_hash_keywords,
        params=lambda keywords: {"virtualNodeCnt": keywords["virtual_node_cnt"]},
        keyword_names=("virtual_node_cnt",),
        defaults={"virtual_node_cnt": 10},
        probe={"virtualNodeCnt": 10},
        default_params=lambda mq_all: {"virtualNodeCnt": 10},
        draw_params=_hash_draw,
        explain=_hash_explain,
        # Java refuses a negative count in its constructor, takes none at all, and any number more
        edge_params=({"virtualNodeCnt": -1}, {"virtualNodeCnt": 0}, {"virtualNodeCnt": 160}),
        hashes=True,
        covers_nothing=lambda params: params.get("virtualNodeCnt", 10) == 0,
        port=AllocateMessageQueueConsistentHash,
    )
)


# -- MACHINE_ROOM ------------------------------------------------------------


def _room_build(params: Params, version: str, charset: str):
    _expect_keys("MACHINE_ROOM", params, {"consumeridcs"})
    return AllocateMessageQueueByMachineRoom(params.get("consumeridcs"), version=version)


def _room_properties(version: str) -> frozenset[str]:
    if parse_release(version) < (4, 8, 0):  # blocks taken from mq_all: gaps, ineligible queues held
        return frozenset({"no-double-assignment", "only-from-mq-all", "balance", "one-answer"})
    return frozenset({"eligible-coverage", "no-double-assignment", "only-from-mq-all", "balance", "one-answer"})


def _room_params(keywords: Mapping[str, Any]) -> dict[str, Any]:
    idcs = keywords["consumeridcs"]
    return {"consumeridcs": None if idcs is None else sorted(idcs)}


def _room_draw(draw, queues, adversarial: bool) -> dict[str, Any]:
    from hypothesis import strategies as st

    used = sorted({mq.broker_name.split("@")[0] for mq in queues})
    if adversarial and draw(st.integers(0, 9)) == 9:
        return {"consumeridcs": None}
    # mostly the rooms the brokers name (odd separators included), sometimes others
    chosen = [room for room in used if draw(st.integers(0, 3)) < 3]
    chosen += draw(st.lists(st.sampled_from(["IDC1", "other"]), unique=True))
    return {"consumeridcs": sorted(set(chosen))}


kinds.register_family(
    AllocationFamily(
        "MACHINE_ROOM",
        _room_build,
        properties=_room_properties,
        keywords=lambda params, version, charset: {
            "consumeridcs": None if params.get("consumeridcs") is None else set(params["consumeridcs"])
        },
        params=_room_params,
        keyword_names=("consumeridcs",),
        probe={"consumeridcs": []},
        default_params=lambda mq_all: {
            "consumeridcs": sorted({room for mq in mq_all if (room := broker_room(mq.broker_name))})
        },
        draw_params=_room_draw,
        needs_rooms=True,
        port=AllocateMessageQueueByMachineRoom,
    )
)


# -- MACHINE_ROOM_NEARBY -----------------------------------------------------------


def _inner(params: Params) -> tuple[str, dict[str, Any]]:
    inner = params.get("inner")
    if not isinstance(inner, Mapping) or "strategy" not in inner:
        raise ValueError(f"MACHINE_ROOM_NEARBY: inner must be {{'strategy': ..., 'params': ...}}, not {inner!r}")
    return inner["strategy"], dict(inner.get("params") or {})


def _inner_port(params: Params, version: str, charset: str, *, own_charset_wins: bool):
    """The reference port of a nearby strategy's inner strategy, hashing in ``charset`` or, when
    ``own_charset_wins``, in a ``charset`` of the inner params themselves."""
    inner, inner_params = _inner(params)
    own = inner_params.pop("charset", charset)
    return kinds.get(inner).build(inner_params, version, normalize_charset(own if own_charset_wins else charset))


def _nearby_build(params: Params, version: str, charset: str):
    _expect_keys("MACHINE_ROOM_NEARBY", params, {"inner", "resolver"})
    inner = _inner_port(params, version, charset, own_charset_wins=True)
    return AllocateMachineRoomNearby(inner, build_resolver(params.get("resolver")), version=version)


def _nearby_keywords(params: Params, version: str, charset: str) -> Keywords:
    return {
        "allocate_message_queue_strategy": _inner_port(params, version, charset, own_charset_wins=False),
        "machine_room_resolver": build_resolver(params["resolver"]),
    }


def _nearby_covers_nothing(params: Params) -> bool:
    inner = params.get("inner") or {}
    name = inner.get("strategy")
    return name is not None and family_record(name).covers_nothing(inner.get("params") or {})


def _nearby_draw(draw, consumer_group: str, adversarial: bool):
    from pytest_rmq_conformance.kinds.allocation.draws import nearby_group

    return draw(nearby_group(consumer_group, adversarial))


kinds.register_family(
    AllocationFamily(
        "MACHINE_ROOM_NEARBY",
        _nearby_build,
        keywords=_nearby_keywords,
        params=lambda keywords: None,  # a resolver object has no golden description
        keyword_names=("allocate_message_queue_strategy", "machine_room_resolver"),
        probe={"inner": {"strategy": "AVG", "params": {}}, "resolver": {"kind": "split", "separator": "-"}},
        default_params=lambda mq_all: {
            "inner": {"strategy": "AVG", "params": {}},
            "resolver": {"kind": "split", "separator": "@"},
        },
        draw_group=_nearby_draw,
        needs_rooms=True,
        covers_nothing=_nearby_covers_nothing,
        name_prefix="MACHINE_ROOM_NEARBY-",
        port=AllocateMachineRoomNearby,
    )
)


# -- CONFIG --------------------------------------------------------------------


def _config_build(params: Params, version: str, charset: str):
    _expect_keys("CONFIG", params, {"messageQueueList"})
    return AllocateMessageQueueByConfig(_queues(params.get("messageQueueList")), version=version)


def _config_params(keywords: Mapping[str, Any]) -> dict[str, Any]:
    queues = keywords["message_queue_list"]
    return {"messageQueueList": None if queues is None else [mq.to_json() for mq in queues]}


def _config_draw(draw, queues, adversarial: bool) -> dict[str, Any]:
    from hypothesis import strategies as st

    if adversarial and draw(st.integers(0, 9)) == 9:
        return {"messageQueueList": None}
    chosen = draw(st.lists(st.sampled_from(queues), unique=True, max_size=min(len(queues), 16)))
    foreign = [MessageQueue("elsewhere", "broker-z", 0)] if draw(st.booleans()) else []
    return {"messageQueueList": [mq.to_json() for mq in chosen + foreign]}


kinds.register_family(
    AllocationFamily(
        "CONFIG",
        _config_build,
        # every client gets the configured list: double assignment by design; equal shares, and a
        # leaver's departure moves nothing else (trivially)
        properties=lambda version: frozenset({"one-answer", "balance", "stable-on-leave"}),
        keywords=lambda params, version, charset: {"message_queue_list": _queues(params.get("messageQueueList"))},
        params=_config_params,
        keyword_names=("message_queue_list",),
        probe={"messageQueueList": []},
        default_params=lambda mq_all: {"messageQueueList": [mq.to_json() for mq in mq_all]},
        draw_params=_config_draw,
        port=AllocateMessageQueueByConfig,
    )
)
