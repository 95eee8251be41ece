"""The project's scenario generator: seeded consumer groups for the Java harness to answer, beside
the shipped scenarios (``rmq-conformance golden record --generate N --seed S``).

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

Internal: the recorder has no public name yet.
"""

from __future__ import annotations

import random
from typing import Any

from pytest_rmq_conformance.kinds.allocation.layouts import ROOMS, broker_names, queue_layout

__all__ = ["FAMILIES", "allocation"]

FAMILIES = ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "CONFIG", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY")
_ROOMED = ("MACHINE_ROOM", "MACHINE_ROOM_NEARBY")


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
        "id": f"gen{seed}-{family}-{index:04d}",
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
