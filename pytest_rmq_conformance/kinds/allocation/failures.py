"""How a failing allocation case reads, in words a strategy author can act on.

A failure names the case and release, sums up the inputs, shows per caller
what is missing and what is extra, and ends with one command line that
reruns just that case. :func:`reason_of` gives the key under which similar
failures are grouped.

Queues print as ``topic@broker: ids`` (grouped) or ``topic@broker@id``; a
name that is empty, holds ``@`` or a separator, or holds a character that
cannot be seen is quoted with repr-style escapes
(:func:`~pytest_rmq_conformance.model.shown_name`), so two different queues
never print alike.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence

from pytest_rmq_conformance.engine.generated.failures import format_generated as generated_report
from pytest_rmq_conformance.kinds.allocation.cases import GoldenCase
from pytest_rmq_conformance.kinds.allocation.replay import Mismatch
from pytest_rmq_conformance.model import MessageQueue, shown_name

__all__ = ["short_queues", "summarize_inputs", "format_mismatch", "format_outcome", "format_generated"]

MAX_CALLERS = 5  # callers shown in full per failing case
MAX_QUEUES = 24  # queue ids listed per topic/broker before "..."


def short_queues(queues: Iterable[MessageQueue], limit: int = MAX_QUEUES) -> str:
    """``TopicTest@broker-a: 0 1 2; TopicTest@broker-b: 5`` — queues grouped by topic and broker
    (names quoted where they must be: ``'a@b'@'': 0``)."""
    groups: OrderedDict[tuple, list[int]] = OrderedDict()
    for mq in queues:
        groups.setdefault((mq.topic, mq.broker_name), []).append(mq.queue_id)
    if not groups:
        return "(none)"
    parts = []
    for (topic, broker), ids in groups.items():
        shown = " ".join(str(i) for i in ids[:limit])
        more = f" ... (+{len(ids) - limit})" if len(ids) > limit else ""
        parts.append(f"{shown_name(topic)}@{shown_name(broker)}: {shown}{more}")
    return "; ".join(parts)


def _short_list(items: Sequence, limit: int = 6) -> str:
    shown = ", ".join(repr(item) for item in items[:limit])
    return f"[{shown}{', ...' if len(items) > limit else ''}]"


def summarize_inputs(case: GoldenCase) -> str:
    """The inputs in one or two lines: sizes, topics and brokers, the clients, the parameters."""
    if case.mq_all is None:
        queues = "mqAll null"
    else:
        topics = len({mq.topic for mq in case.mq_all})
        brokers = len({mq.broker_name for mq in case.mq_all})
        queues = f"{len(case.mq_all)} queues ({topics} topic(s), {brokers} broker(s))"
    if case.cid_all is None:
        clients = "cidAll null"
    else:
        distinct = len(set(case.cid_all))
        dup = f", {len(case.cid_all) - distinct} duplicate(s)" if distinct != len(case.cid_all) else ""
        clients = f"{len(case.cid_all)} clients{dup} {_short_list(case.cid_all)}"
    params = f"params {dict(case.params)}" if case.params else "no params"
    text = f"{queues}; {clients}; {params}"
    return text if len(text) <= 400 else text[:397] + "..."


def format_mismatch(mismatch: Mismatch) -> list[str]:
    expected = mismatch.expected
    lines = [f"currentCID={expected.current_cid!r}: {mismatch.problem}"]
    if mismatch.missing or mismatch.extra:
        lines.append(f"    missing: {short_queues(mismatch.missing)}")
        lines.append(f"    extra:   {short_queues(mismatch.extra)}")
    answer = mismatch.answer
    if expected.queues is not None and answer.queues is not None and not answer.fault and all(
        isinstance(mq, MessageQueue) for mq in answer.queues
    ):
        lines.append(f"    Java:    {short_queues(expected.queues)}")
        lines.append(f"    yours:   {short_queues(answer.queues)}")
    lines.extend(f"    {note}" for note in getattr(mismatch, "notes", ()))
    return lines


def format_outcome(
    case: GoldenCase, run: str, mismatches: Sequence[Mismatch], error: str | None, rerun: str
) -> str:
    """The whole report of one failing case."""
    tried = len(case.results_for(run))
    first = error if error is not None else (mismatches[0].problem if mismatches else "failed")
    lines = [f"{case.id} at RocketMQ {run}: {first}", f"  inputs ({case.category}): {summarize_inputs(case)}"]
    if error is not None:
        lines.append(f"  not replayed: {error}")
    else:
        lines.append(f"  {len(mismatches)} of {tried} caller(s) answered differently from Java:")
        for mismatch in mismatches[:MAX_CALLERS]:
            lines.extend("  " + line for line in format_mismatch(mismatch))
        if len(mismatches) > MAX_CALLERS:
            lines.append(f"  ... and {len(mismatches) - MAX_CALLERS} more caller(s)")
    lines.append(f"  rerun: {rerun}")
    return "\n".join(lines)


def format_generated(headline: str, details: Sequence[str], group, data: str) -> str:
    """The report of a generated group on which a check failed: what broke, the group in short,
    and the group as data (a scenario or a plan, as one line of JSON)."""
    return generated_report(headline, details, summarize_inputs(group), data)
