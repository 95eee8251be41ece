"""How bad a divergence from Java is: the classes the matrix and the closing summary count.

``wrong-queues``
    A member of ``cidAll``, for whom Java answered with queues, gets other
    queues, or an exception or ``null`` instead. This has production impact:
    queues are consumed twice or not at all.
``error-behaviour``
    Java throws or returns ``null`` where the implementation answers, or the
    reverse, for invalid inputs or for a caller outside ``cidAll``. A client
    never asks that in a healthy group.
``fault``
    The implementation did not answer: it crashed, hung or wrote garbage.

A case takes the worst class of its callers (:data:`SEVERITY`, worst first).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pytest_rmq_conformance.engine.replay import Mismatch

__all__ = ["WRONG_QUEUES", "ERROR_BEHAVIOUR", "FAULT", "SEVERITY", "LABELS", "classify", "worst", "of_outcome"]

WRONG_QUEUES = "wrong-queues"
FAULT = "fault"
ERROR_BEHAVIOUR = "error-behaviour"
SEVERITY = (WRONG_QUEUES, FAULT, ERROR_BEHAVIOUR)
LABELS = {WRONG_QUEUES: "wrong queues", FAULT: "no answer (crash, hang, garbage)", ERROR_BEHAVIOUR: "error behaviour only"}


def classify(mismatch: Mismatch, cid_all: Sequence[str] | None) -> str:
    """The class of one caller's divergence in a group whose members are ``cid_all``."""
    if mismatch.answer.fault is not None:
        return FAULT
    caller = mismatch.expected.current_cid
    member = caller is not None and cid_all is not None and caller in cid_all
    return WRONG_QUEUES if member and mismatch.expected.kind == "queues" else ERROR_BEHAVIOUR


def worst(classes: Iterable[str]) -> str | None:
    """The most severe of ``classes`` (``None`` for none)."""
    found = set(classes)
    return next((name for name in SEVERITY if name in found), None)


def of_outcome(outcome) -> str | None:
    """The class of a golden :class:`~pytest_rmq_conformance.engine.cases.CaseOutcome`; ``None`` if it passed or did not run."""
    if outcome.skipped is not None or outcome.passed:
        return None
    if outcome.error is not None:
        return FAULT
    return worst(classify(m, outcome.case.cid_all) for m in outcome.mismatches)
