"""How a failed gRPC-balancer case reads: the first divergence and what led to it.

A ``GROUP_HASH`` failure shows the group (escaped), its UTF-8 bytes as Java encodes them, the
64-bit SipHash Java computed and the queue it chose; a balancer failure shows the route, the
start index and every step up to the first that diverges, with Java's answer and the
strategy's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_rmq_conformance.kinds.grpc.cases import GroupCase

__all__ = ["format_outcome", "group_lines", "balancer_lines"]

_ROWS = 12


def _route(route) -> str:
    parts = []
    for position, q in enumerate(route):
        broker = q["broker"]
        role = "" if broker["id"] == 0 else f"#{broker['id']}"
        parts.append(f"{position}:{broker['name']}{role}/{q['queueId']}({q['permission']})")
    return " ".join(parts)


def _step(step) -> str:
    op = step["op"]
    if op == "take" and "count" in step:
        excluded = ", ".join(f"{e['scheme']}:" + ",".join(f"{h}:{p}" for h, p in e["addresses"]) for e in step["excluded"])
        return f"take_message_queues(excluded=[{excluded}], count={step['count']})"
    if op == "take":
        return "take_message_queue()"
    if op == "group":
        return f"take_message_queue_by_message_group({step['group']!r})"
    return f"update({len(step['route'])} queues)"


def _answer(answer) -> str:
    if answer is None:
        return "-"
    if "error" in answer:
        return f"raised {answer['error'].rsplit('.', 1)[-1]}"
    key = next(k for k in ("queues", "queue", "filtered") if k in answer)
    return f"{key} {answer[key]}"


def group_lines(group: str, queues: int, java: Mapping[str, Any], observed: Mapping[str, Any] | None) -> list[str]:
    """A group's case: the group, its bytes as Java encodes them, Java's hash and queue, and the
    hash the implementation says it computed, when it says."""
    utf8 = java.get("utf8")
    shown = f"{utf8[:96]}{'…' if len(utf8) > 96 else ''}" if utf8 is not None else "(longer than 256 bytes)"
    lines = [
        f"    group {group!r:.120} ({len(group)} characters), {queues} queues",
        f"    UTF-8 as Java encodes it ({java['utf8Length']} bytes): {shown}",
        f"    Java: sipHash24 = {java['sipHash24']}, LongMath.mod(hash, {queues}) = queue {java['index']}",
    ]
    implied = (observed or {}).get("sipHash24")
    if implied is not None:
        lines.append(f"    the implementation's hash: {implied}")
    return lines


def balancer_lines(case: Any, java: Mapping[str, Any], mismatch: Any) -> list[str]:
    """A balancer's case: the route, the start index, and the steps up to the first that differs."""
    if "error" in java:
        return [f"    route: {_route(case.route)}", f"    index at start: {case.index}; Java's constructor threw"]
    lines = [f"    route: {_route(case.route)}", f"    index at start: {case.index}; Java kept {java['filtered']}"]
    outcomes = (mismatch.observed or {}).get("outcomes", [])
    last = min(mismatch.step, len(case.steps) - 1)
    first = max(0, last - _ROWS + 1)
    if first:
        lines.append(f"    ... {first} earlier step(s) agreed")
    for index in range(first, last + 1):
        got = outcomes[index] if index < len(outcomes) else None
        lines.append(f"    {index:>4}  {_step(case.steps[index]):<60.60}  Java {_answer(java['steps'][index]):<22}  strategy {_answer(got)}")
    return lines


def format_outcome(outcome: Any, rerun: str) -> str:
    """The failure report of ``outcome``, ending with ``rerun``."""
    case = outcome.case
    head = f"{case.id} ({case.strategy}, {outcome.run}): "
    if outcome.error is not None:
        return f"{head}{outcome.error}\n  rerun: {rerun}"
    mismatch = outcome.mismatches[0]
    java = case.answers_for(outcome.run)
    lines = [f"{head}{mismatch.problem}"]
    if isinstance(case, GroupCase):
        lines += group_lines(case.group, case.queues, java, mismatch.observed)
    else:
        lines += balancer_lines(case, java, mismatch)
    lines.append(f"  rerun: {rerun}")
    return "\n".join(lines)
