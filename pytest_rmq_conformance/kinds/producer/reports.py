"""Failure reports of producer selection: the first diverging step, and the trace up to it.

For a fault-strategy trace the report is a table, one row per step played: the clock, the
stored counter, the publish list and the fault table before the step, the step, what Java
answered and what the strategy answered; the last row is the step that diverged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["format_outcome", "format_rows"]

#: rows of the trace shown before the diverging step
_ROWS = 12


def _step(step: Mapping[str, Any]) -> str:
    """A step in a few characters: ``select(B, reset)``, ``update(B 600 iso)``, ``advance(+29999)``."""
    op = step["op"]
    if op in ("select", "tp_select"):
        last = step["lastBroker"] if step["lastBroker"] is not None else "-"
        return f"{op}({last}{', reset' if step.get('resetIndex') else ''})"
    if op == "update":
        flags = (" iso" if step["isolation"] else "") + ("" if step["reachable"] else " unreachable")
        return f"update({step['broker']} {step['latency']}{flags})"
    if op == "advance":
        return f"advance(+{step['ms']})"
    if op == "set_index":
        return f"set_index({step['value']})"
    if op == "set_latency":
        return f"set_latency({step['enable']})"
    return op


def _queue(answer: Any) -> str:
    if answer is None:
        return "-"
    if not isinstance(answer, Mapping):
        return str(answer)
    if "expectOneOf" in answer:
        return " | ".join(_queue({"expect": one}) for one in answer["expectOneOf"])
    value = answer.get("expect", answer)
    if value.get("raised") is not None:
        return f"raised {type(value['raised']).__name__}"
    if "error" in value:
        return f"threw {value['error'].rsplit('.', 1)[-1]}"
    if "queue" in value:
        queue = value["queue"]
        shown = "null" if queue is None else f"{queue[0]}/{queue[1]}"
        return f"{shown} @{value.get('listIndex')} idx={value.get('storedIndexAfter')}"
    if "item" in value:
        item = value["item"]
        return "no item" if item is None else f"lat={item['latency']} until={item['startTimestamp']}"
    if "publishListRuns" in value:
        return f"{len(value['publishListRuns'])} brokers"
    if "tableAfter" in value:
        return f"table {sorted(value['tableAfter'] or {})}"
    return "-"


def format_rows(rows) -> list[str]:
    """The trace table: the last :data:`_ROWS` steps played before the divergence, and it."""
    lines = [f"    {'step':>4}  {'clock':>13}  {'counter':>11}  {'list':<28}  {'fault table':<26}  {'op':<24}  {'Java':<24}  strategy"]
    shown = rows[-(_ROWS + 1):]
    if len(rows) > len(shown):
        lines.append(f"    ... {len(rows) - len(shown)} earlier step(s) agreed")
    for row in shown:
        listed = ",".join(f"{b}/{q}" for b, q in row.queues)
        table = ",".join(f"{b}:{lat}>{start}" for b, lat, start in row.table) or "-"
        lines.append(
            f"    {row.index:>4}  {row.clock:>13}  {row.counter!s:>11}  {listed[:28]:<28}  {table[:26]:<26}  "
            f"{_step(row.step)[:24]:<24}  {_queue(row.java)[:24]:<24}  {_queue(row.answer)}"
        )
    return lines


def format_outcome(outcome: Any, rerun: str) -> str:
    """The failure report of ``outcome``, ending with ``rerun``."""
    case = outcome.case
    head = f"{case.id} ({case.strategy}, RocketMQ {outcome.run}): "
    if outcome.error is not None:
        return f"{head}{outcome.error}\n  rerun: {rerun}"
    mismatch = outcome.mismatches[0]
    where = "the publish list of the route" if mismatch.index < 0 else f"step {mismatch.index}"
    if case.strategy != "FAULT_STRATEGY":
        where = f"call {mismatch.index}"
    lines = [f"{head}first divergence at {where}: {mismatch.problem}"]
    if mismatch.rows:
        lines += format_rows(mismatch.rows)
    lines.append(f"  rerun: {rerun}")
    return "\n".join(lines)
