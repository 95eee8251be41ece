"""How a failed gRPC-balancer case reads: the first divergence and what led to it.

A ``GROUP_HASH`` failure shows the group (escaped), its UTF-8 bytes as Java encodes them, the
64-bit SipHash Java computed and the queue it chose; a balancer failure shows the route, the
start index and every step up to the first that diverges, with Java's answer and the
strategy's.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_rmq_conformance.kinds.grpc.cases import GroupCase

__all__ = ["format_outcome", "group_lines", "balancer_lines"]

_ROWS = 12
#: the width of the step column; a longer step wraps onto the next lines, whole
_STEP = 60


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _endpoints(e) -> str:
    return f"{e['scheme']}:" + ",".join(_address(h, p) for h, p in e["addresses"])


def _broker(q) -> str:
    broker = q["broker"]
    return broker["name"] + ("" if broker["id"] == 0 else f"#{broker['id']}")


def _route(route) -> str:
    return " ".join(f"{position}:{_broker(q)}/{q['queueId']}({q['permission']})" for position, q in enumerate(route))


def _endpoint_lines(case) -> list[str]:
    """Each broker's endpoints (scheme and addresses, in order), over the case's routes; a name
    that stands for several lists its queues' positions beside each."""
    routes = [("route", case.route)] + [(f"step {i}", step["route"]) for i, step in enumerate(case.steps) if step["op"] == "update"]
    seen: dict[str, dict[str, list[str]]] = {}
    for where, route in routes:
        for position, q in enumerate(route):
            seen.setdefault(_broker(q), {}).setdefault(_endpoints(q["broker"]["endpoints"]), []).append(f"{where}:{position}")
    parts = []
    for name, endpoints in seen.items():
        for shown, positions in endpoints.items():
            parts.append(f"{name} {shown}" + (f" ({', '.join(positions)})" if len(endpoints) > 1 else ""))
    return _wrap("endpoints: " + "; ".join(parts), 110, "    ", "      ")


def _wrap(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken before a space or after a comma
    where one is near, else anywhere: the lines, joined, are ``text``."""
    lines = []
    while len(text) > width:
        cut = max(text.rfind(" ", 1, width), text.rfind(",", 0, width - 1) + 1)
        cut = cut if cut > width // 2 else width
        lines.append(text[:cut])
        text = text[cut:]
    lines.append(text)
    return [(first if i == 0 else rest) + line for i, line in enumerate(lines)]


def _step(step) -> str:
    op = step["op"]
    if op == "take" and "count" in step:
        excluded = ", ".join(_endpoints(e) for e in step["excluded"])
        return f"take_message_queues(excluded=[{excluded}], count={step['count']})"
    if op == "take":
        return "take_message_queue()"
    if op == "group":
        return f"take_message_queue_by_message_group({step['group']!r})"
    return f"update([{_route(step['route'])}])"


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
    lines = _wrap(f"route: {_route(case.route)}", 110, "    ", "      ") + _endpoint_lines(case)
    if "error" in java:
        return [*lines, f"    index at start: {case.index}; Java's constructor threw"]
    lines.append(f"    index at start: {case.index}; Java kept {java['filtered']}")
    outcomes = (mismatch.observed or {}).get("outcomes", [])
    last = min(mismatch.step, len(case.steps) - 1)
    first = max(0, last - _ROWS + 1)
    if first:
        lines.append(f"    ... {first} earlier step(s) agreed")
    for index in range(first, last + 1):
        got = outcomes[index] if index < len(outcomes) else None
        step = _wrap(_step(case.steps[index]), _STEP)
        lines.append(f"    {index:>4}  {step[0]:<{_STEP}}  Java {_answer(java['steps'][index]):<22}  strategy {_answer(got)}")
        lines += [f"          {more}" for more in step[1:]]
    return lines


def format_outcome(outcome: Any, rerun: str) -> str:
    """The failure report of ``outcome``, ending with ``rerun``."""
    from pytest_rmq_conformance.kinds.grpc.golden import run_label

    case = outcome.case
    head = f"{case.id} ({case.strategy}, {run_label(outcome.run)}): "
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
