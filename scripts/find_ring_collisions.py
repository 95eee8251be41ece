"""Find 32-bit MD5 ring-key collisions for the consistent-hash generators.

A queue whose hash equals a virtual node's key sits exactly on the ring
entry (Java routes it there: the first key ``>=`` its hash), and two virtual
nodes with the same key replace each other. Random inputs essentially never
hit either; these pairs, found by a birthday search over ASCII keys (so they
collide in every charset), make the generators hit both. Prints the Python
literal kept in ``pytest_rmq_conformance/ring_collisions.py``.

    python scripts/find_ring_collisions.py
"""

from __future__ import annotations

import hashlib
from collections import defaultdict


def md5_32(key: str) -> int:
    return int.from_bytes(hashlib.md5(key.encode("ascii")).digest()[:4], "big")


def main(clients: int = 26_215, queues: int = 1 << 17, replicas: int = 10) -> None:
    nodes = defaultdict(list)
    for pid in range(clients):
        cid = f"10.0.0.1@{pid}"
        for k in range(replicas):
            nodes[md5_32(f"{cid}-{k}")].append((cid, k))
    on_node = []
    for q in range(queues):
        key = f"MessageQueue [topic=TopicTest, brokerName=broker-a, queueId={q}]"
        for cid, k in nodes.get(md5_32(key), ()):
            on_node.append(("TopicTest", "broker-a", q, cid, k))
    node_on_node = [tuple(pair[:2]) for pair in nodes.values() if len(pair) > 1]
    print("QUEUE_ON_NODE = (")
    for row in on_node:
        print(f"    {row!r},")
    print(")")
    print("NODE_ON_NODE = (")
    for (cid_a, k_a), (cid_b, k_b) in node_on_node:
        print(f"    (({cid_a!r}, {k_a}), ({cid_b!r}, {k_b})),")
    print(")")


if __name__ == "__main__":
    main()
