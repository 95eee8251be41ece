"""How a failing producer-selection case reads: the first diverging step, and the trace up to it.

For a fault-strategy trace the report is a table, one row per step played: the clock, the
stored counter, the publish list and the fault table before the step, the step, what Java
answered and what the strategy answered; the last row is the step that diverged. A selector
case is classed by its worst call: the report names that call, shows the argument as Java
hashed it (the string escaped, its UTF-16 code units, Java's ``hashCode()``) or the
``Random``'s seed, and lists every call that differs.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pytest_rmq_conformance.engine.divergence import LABELS
from pytest_rmq_conformance.javalang import INT_MIN, java_hash_code
from pytest_rmq_conformance.kinds.producer.trace import selector_arg
from pytest_rmq_conformance.model import shown_name

__all__ = ["format_outcome", "format_rows", "selector_lines", "shown_argument"]

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
    if case.strategy != "FAULT_STRATEGY":
        return "\n".join([f"{head}{_worst_call(mismatch)}", *selector_lines(case, mismatch), f"  rerun: {rerun}"])
    where = "the publish list of the route" if mismatch.index < 0 else f"step {mismatch.index}"
    lines = [f"{head}first divergence at {where}: {mismatch.problem}"]
    if mismatch.rows:
        lines += format_rows(mismatch.rows)
    lines.append(f"  rerun: {rerun}")
    return "\n".join(lines)


# -- selectors -----------------------------------------------------------------------

#: differing calls of a selector case listed
_CALLS = 12
#: the characters of a string argument shown, and its UTF-16 code units
_SHOWN_CHARS = 120
_SHOWN_UNITS = 24


def _worst_call(mismatch: Any) -> str:
    """The headline of a selector case: the call that decided its class."""
    return f"worst divergence at call {mismatch.index} ({LABELS.get(mismatch.divergence_class, mismatch.divergence_class)}): {mismatch.problem}"


def shown_argument(arg: Mapping[str, Any] | None, hash_code: int | None) -> str:
    """A selector's argument as Java hashed it: its Java type and value (a string quoted, its
    invisible characters escaped as in :func:`~pytest_rmq_conformance.model.shown_name`, with
    its UTF-16 code units where it is not ASCII) and ``hashCode()``: Java's when the vector
    holds it (``hash_code``), else the reference port's."""
    if arg is None or arg["type"] == "null":
        return "null (Java's arg.hashCode() throws NullPointerException)"
    kind, value = arg["type"], arg.get("value")
    if kind == "hashCode":
        return f"an object whose hashCode() returns {value}{_min_value(value)}"
    if kind == "string":
        shown = _string(arg["value"])
    else:
        shown = {"integer": f"Integer {value}", "long": f"Long {value}"}.get(kind, f"{kind} {value!r}")
    whose = "Java's"
    if hash_code is None:
        whose, hash_code = "the reference port's", java_hash_code(selector_arg(arg))
    return f"{shown}, {whose} hashCode() = {hash_code}{_min_value(hash_code)}"


def _string(whole: str) -> str:
    """A ``String`` argument: quoted and escaped, its length in UTF-16 code units (Java hashes
    those), and the units themselves where it is not ASCII."""
    text = whole[:_SHOWN_CHARS]
    quoted = shown_name(text)
    quoted = quoted if quoted.startswith("'") else f"'{quoted}'"
    count = len(whole.encode("utf-16-be", "surrogatepass")) // 2
    shown = f"String {quoted}{'…' if len(whole) > len(text) else ''} ({count} UTF-16 code unit{'' if count == 1 else 's'}"
    if not text.isascii():
        units = text.encode("utf-16-be", "surrogatepass")
        shown += ": " + " ".join(units[i:i + 2].hex() for i in range(0, min(len(units), 2 * _SHOWN_UNITS), 2))
        shown += " …" if len(units) > 2 * _SHOWN_UNITS else ""
    return shown + ")"


def _min_value(hash_code: Any) -> str:
    return " (Integer.MIN_VALUE: Math.abs leaves it negative)" if hash_code == INT_MIN else ""


def selector_lines(case: Any, mismatch: Any) -> list[str]:
    """The lines under a selector case's headline: its argument (or its parameters, for a
    selector that reads none) and the calls that differ, the one that decided the class marked."""
    if case.arg is not None:
        lines = [f"    argument: {shown_argument(case.arg, case.arg_hash_code)}"]
    else:
        lines = [f"    params: {json.dumps(dict(case.params), sort_keys=True)}"] if case.params else []
    calls = getattr(mismatch, "calls", ())
    if len(calls) > 1:
        lines.append(f"    {len(calls)} of {len(case.queue_counts)} calls differ (the case takes the worst):")
        for index, divergence_class, problem in calls[:_CALLS]:
            mark = ">" if index == mismatch.index else " "
            lines.append(f"    {mark} call {index}: {problem} [{LABELS.get(divergence_class, divergence_class)}]")
        if len(calls) > _CALLS:
            lines.append(f"      ... {len(calls) - _CALLS} more")
    return lines
