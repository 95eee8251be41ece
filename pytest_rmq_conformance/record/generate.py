"""The project's scenario generator: seeded scenarios for the Java harness to answer, beside the
shipped scenarios (``rmq-conformance golden record --generate N --seed S``, of each kind asked).

Consumer allocation: seeded consumer groups, drawn here.

Scenario ``i`` of seed ``s`` is drawn from ``random.Random("rmq-record:s:i")`` alone, so that a
seed always gives the same scenarios, each of them on its own, and a larger ``N`` only adds
scenarios. The families take turns (AVG, AVG_BY_CIRCLE, CONSISTENT_HASH, CONFIG, MACHINE_ROOM,
MACHINE_ROOM_NEARBY, AVG, ...). Each draws

- 1 to 48 queues over 1 to 3 topics and 1, 2 or 4 brokers (in machine rooms, ``IDC1@broker-a``,
  for the machine-room families and for a quarter of the others), handed over shuffled: Java's
  strategies sort nothing but what their code sorts, so the order reaches them as drawn;
- 1 to 12 clients ``IP@pid`` (``ROOM@IP@pid`` for the machine room nearby, some in a room
  without brokers), shuffled, one of them at times twice;
- the family's configuration: 1 to 200 virtual nodes; every queue, or a random part of them, for
  the configured list; a random part of the rooms, or one without brokers, for the machine room;
  AVG or AVG_BY_CIRCLE inside the machine room nearby, rooms read before the first ``@``.

The producer and gRPC kinds: the draws of their generated checks (``kinds/producer/draws.py``,
``kinds/grpc/draws.py``), taken by Hypothesis under seed ``S`` (the same seed gives the same
scenarios under the same Hypothesis), so that Java answers exactly what the suite's generated
checks ask of the reference ports. The families share the count, in this order: fault-strategy
traces (each drawn for 4.7.1, 4.9.8 or 5.3.3), the hash selector, the random selector; the
message-group hash (one scenario per group of a drawn batch), the publishing balancer, the
subscription balancer.

Internal: the recorder has no public name yet.
"""

from __future__ import annotations

import random
from typing import Any

from pytest_rmq_conformance.kinds.allocation.layouts import ROOMS, broker_names, queue_layout

__all__ = ["FAMILIES", "allocation", "producer", "grpc"]

FAMILIES = ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "CONFIG", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY")
_ROOMED = ("MACHINE_ROOM", "MACHINE_ROOM_NEARBY")


def _scenario_id(seed: int, family: str, index: int) -> str:
    return f"gen{seed}-{family}-{index:04d}"


def _scenario(seed: int, index: int) -> dict[str, Any]:
    rng = random.Random(f"rmq-record:{seed}:{index}")
    family = FAMILIES[index % len(FAMILIES)]
    queues, members = rng.randint(1, 48), rng.randint(1, 12)
    rooms = family in _ROOMED or rng.random() < 0.25
    topics = [f"Topic{t}" for t in range(rng.choice((1, 1, 2, 3)))]
    mq_all = [mq.to_json() for mq in queue_layout(queues, topics, broker_names(rng.choice((1, 2, 2, 4)), rooms))]
    subnet = f"10.{rng.randrange(256)}.{rng.randrange(256)}"
    cid_all = [f"{subnet}.{i + 1}@{rng.randrange(1, 65536)}" for i in range(members)]
    if family == "MACHINE_ROOM_NEARBY":
        cid_all = [f"{rng.choice((*ROOMS, 'IDC3'))}@{cid}" for cid in cid_all]
    if members > 1 and rng.random() < 0.1:
        cid_all.append(rng.choice(cid_all))
    if family == "CONSISTENT_HASH":
        params: dict[str, Any] = {"virtualNodeCnt": rng.randint(1, 200)}
    elif family == "CONFIG":
        params = {"messageQueueList": mq_all if rng.random() < 0.5 else rng.sample(mq_all, rng.randint(0, len(mq_all)))}
    elif family == "MACHINE_ROOM":
        seen = sorted({mq[1].split("@")[0] for mq in mq_all})
        params = {"consumeridcs": rng.sample(seen, rng.randint(1, len(seen))) if rng.random() < 0.8 else ["IDC3"]}
    elif family == "MACHINE_ROOM_NEARBY":
        inner = rng.choice(("AVG", "AVG_BY_CIRCLE"))
        params = {"inner": {"strategy": inner, "params": {}}, "resolver": {"kind": "split", "separator": "@"}}
    else:
        params = {}
    rng.shuffle(mq_all)
    rng.shuffle(cid_all)
    return {
        "id": _scenario_id(seed, family, index),
        "strategy": family,
        "params": params,
        "consumerGroup": f"group-{seed}",
        "mqAll": mq_all,
        "cidAll": cid_all,
        "tags": ["generated", f"seed={seed}", f"nq={queues}", f"nc={members}"],
    }


def allocation(count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` consumer allocation scenarios of ``seed``, in the harness's input fields."""
    return [_scenario(seed, index) for index in range(count)]


def _drawn(strategy: Any, count: int, seed: int) -> list[Any]:
    """``count`` examples of the Hypothesis ``strategy``, drawn under ``seed`` (generation only:
    nothing fails, nothing shrinks; no example database)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as seeded

    found: list[Any] = []

    @seeded(seed)
    @settings(max_examples=count, database=None, phases=[Phase.generate], deadline=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(example: Any) -> None:
        found.append(example)

    while len(found) < count:  # Hypothesis may stop short of max_examples; draw again, onwards
        before = len(found)
        collect()
        if len(found) == before:
            break
        seed += 1
    return found[:count]


def _head(seed: int, family: str, index: int) -> dict[str, Any]:
    """The fields every producer and gRPC scenario starts with."""
    return {"id": _scenario_id(seed, family, index), "family": family, "tags": ["generated", f"seed={seed}"]}


def _turns(count: int, families: tuple[str, ...]) -> dict[str, int]:
    """How many of ``count`` scenarios each family gets (as even as can be, the first ones first)."""
    return {family: len(range(at, count, len(families))) for at, family in enumerate(families)}


def producer(count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` producer scenarios of ``seed``, in the harness's input fields."""
    from hypothesis import strategies as st

    from pytest_rmq_conformance.kinds.producer.draws import selector_cases, traces
    from pytest_rmq_conformance.releases import RELEASES

    wanted = _turns(count, ("FAULT_STRATEGY", "SELECTOR_HASH", "SELECTOR_RANDOM"))
    out: list[dict[str, Any]] = []
    for family, many in wanted.items():
        if not many:
            continue
        if family == "FAULT_STRATEGY":
            drawn = _drawn(st.sampled_from(RELEASES).flatmap(traces), many, seed)
        else:
            drawn = _drawn(selector_cases(family), many, seed)
        for index, case in enumerate(drawn):
            scenario = _head(seed, family, index)
            if family == "FAULT_STRATEGY":
                scenario |= {"topic": case.topic, "route": case.route, "config": dict(case.params), "initial": case.initial,
                             "steps": list(case.steps)}
            elif family == "SELECTOR_HASH":
                scenario |= {"arg": case.arg, "queueCounts": list(case.queue_counts)}
            else:
                scenario |= {"seed": case.params["seed"], "queueCounts": list(case.queue_counts)}
            out.append(scenario)
    return out


def grpc(count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` gRPC balancer scenarios of ``seed``, in the harness's input fields."""
    from pytest_rmq_conformance.kinds.grpc.draws import balancer_cases, group_batches

    wanted = _turns(count, ("GROUP_HASH", "PUBLISH_ROUND_ROBIN", "SUBSCRIBE_ROUND_ROBIN"))
    out: list[dict[str, Any]] = []
    for family, many in wanted.items():
        if not many:
            continue
        if family == "GROUP_HASH":
            groups = [(group, batch.queues) for batch in _drawn(group_batches(), many, seed) for group in batch.groups][:many]
            out += [_head(seed, family, index) | {"group": group, "queues": queues} for index, (group, queues) in enumerate(groups)]
            continue
        out += [_head(seed, family, index) | {"route": list(case.route), "index": case.index, "steps": list(case.steps)}
                for index, case in enumerate(_drawn(balancer_cases(family), many, seed))]
    return out
