"""How bad a divergence from Java is: the classes the matrix and the closing summary count.

``wrong-queues``
    Where Java answers with queues for a call a healthy client makes, the implementation answers
    with other queues, or with an exception or ``null`` instead: queues consumed twice or not at
    all, messages sent where Java would not send them.
``error-behaviour``
    Java throws or returns ``null`` where the implementation answers, or the reverse, for
    inputs a healthy client never passes (invalid arguments, a caller outside the group).
``fault``
    The implementation did not answer: it crashed, hung or wrote garbage.
``counter-drift``
    The same answer as Java, but the state the implementation keeps between calls (a
    round-robin counter, a fault table, a rewritten list entry) differs from Java's: a later
    answer will differ.

A kind classifies each divergence it finds (what a healthy call is depends on the kind); a
case takes the worst class of its divergences (:data:`SEVERITY`, worst first).

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["WRONG_QUEUES", "ERROR_BEHAVIOUR", "FAULT", "COUNTER_DRIFT", "SEVERITY", "LABELS", "worst"]

WRONG_QUEUES = "wrong-queues"
FAULT = "fault"
ERROR_BEHAVIOUR = "error-behaviour"
COUNTER_DRIFT = "counter-drift"
SEVERITY = (WRONG_QUEUES, FAULT, COUNTER_DRIFT, ERROR_BEHAVIOUR)
LABELS = {
    WRONG_QUEUES: "wrong queues",
    FAULT: "no answer (crash, hang, garbage)",
    COUNTER_DRIFT: "counter drift",
    ERROR_BEHAVIOUR: "error behaviour only",
}


def worst(classes: Iterable[str | None]) -> str | None:
    """The most severe of ``classes`` (``None`` for none)."""
    found = set(classes)
    return next((name for name in SEVERITY if name in found), None)
