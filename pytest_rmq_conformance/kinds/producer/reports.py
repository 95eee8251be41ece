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
    """The trace table: the last :data:`_ROWS` steps played before the divergence, and it. Each
    column is as wide as its widest cell, up to :data:`_WIDEST` (a longer cell ends in ``…``)."""
    shown = rows[-(_ROWS + 1):]
    cells = [
        (str(row.index), str(row.clock), str(row.counter), _listed(row.queues),
         ",".join(f"{b}:{lat}>{start}" for b, lat, start in row.table) or "-", _step(row.step), _queue(row.java), _queue(row.answer))
        for row in shown
    ]
    header = ("step", "clock", "counter", "list", "fault table", "op", "Java", "strategy")
    widths = [min(_WIDEST, max(len(cell) for cell in column)) for column in zip(header, *cells)]
    right = (True, True, True, False, False, False, False, False)

    def line(row: tuple[str, ...]) -> str:
        parts = [_fit(cell, width, align) for cell, width, align in zip(row, widths, right)]
        return ("    " + "  ".join(parts)).rstrip()

    lines = [line(header)]
    if len(rows) > len(shown):
        lines.append(f"    ... {len(rows) - len(shown)} earlier step(s) agreed")
    lines += [line(row) for row in cells]
    return lines


def _listed(queues) -> str:
    """A publish list, its runs of one broker's consecutive queue ids written ``A/0-9``."""
    runs: list[list[Any]] = []  # [broker, first id, last id]
    for broker, queue_id in queues:
        if runs and runs[-1][0] == broker and runs[-1][2] + 1 == queue_id:
            runs[-1][2] = queue_id
        else:
            runs.append([broker, queue_id, queue_id])
    return ",".join(f"{b}/{first}" if first == last else f"{b}/{first}-{last}" for b, first, last in runs) or "-"


#: the widest a column of the trace table grows
_WIDEST = 60


def _fit(cell: str, width: int, right: bool) -> str:
    if len(cell) > width:
        cell = cell[:width - 1] + "…"
    return cell.rjust(width) if right else cell.ljust(width)


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
