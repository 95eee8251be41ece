"""Inputs that land exactly on consistent-hash ring keys (found by ``scripts/find_ring_collisions.py``).

The default ring hash keeps 32 bits of MD5, so keys collide, but random
inputs almost never do. Each entry of ``QUEUE_ON_NODE`` is a queue
``(topic, broker, queue id)`` whose text form hashes to the same value as
the virtual node ``"<client>-<k>"``: Java routes it to that very node
(first key ``>=`` the hash), a port comparing with ``>`` to the next one.
Each pair of ``NODE_ON_NODE`` is two virtual nodes with one key: the one put
on the ring later replaces the other. All keys are ASCII, so they collide
under every charset.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

QUEUE_ON_NODE = (
    ('TopicTest', 'broker-a', 11237, '10.0.0.1@19846', 7),
    ('TopicTest', 'broker-a', 37103, '10.0.0.1@7014', 8),
    ('TopicTest', 'broker-a', 57433, '10.0.0.1@23537', 5),
    ('TopicTest', 'broker-a', 65786, '10.0.0.1@14054', 7),
    ('TopicTest', 'broker-a', 81090, '10.0.0.1@22301', 7),
    ('TopicTest', 'broker-a', 100837, '10.0.0.1@9922', 4),
    ('TopicTest', 'broker-a', 109319, '10.0.0.1@17662', 1),
)
NODE_ON_NODE = (
    (('10.0.0.1@3551', 9), ('10.0.0.1@12898', 7)),
    (('10.0.0.1@4657', 7), ('10.0.0.1@8833', 2)),
    (('10.0.0.1@7463', 9), ('10.0.0.1@21416', 1)),
    (('10.0.0.1@10848', 4), ('10.0.0.1@15734', 9)),
    (('10.0.0.1@10927', 2), ('10.0.0.1@24063', 1)),
    (('10.0.0.1@16446', 1), ('10.0.0.1@24730', 0)),
)
