"""Producer selection over the harness protocol: one request per golden case, from both sides.

Declared in ``schemas/protocol-trace-*.schema.json`` and ``protocol-select-*``::

    {"cmd": "trace", "id", "strategy": "FAULT_STRATEGY", "params", "release", "topic", "route",
     "initial", "steps"}
        -> {"id", "publishList": [[broker, queueId], ...], "outcomes": [per step: null | {...}]}
    {"cmd": "select", "id", "strategy", "params", "release", "arg", "queueCounts"}
        -> {"id", "answers": [{"index": i} | {"error": "illegal-argument" | "other", "message"} | {"notRun": reason}, ...]}

A whole trace travels in one request, since a fault strategy's answers depend on every step
before; the harness reports what it observed after each step, in the golden files'
vocabulary, and the suite compares (:func:`~.trace.compare_trace`). The suite's side is
:func:`trace` and :func:`select`; the built-in harness's side is :func:`serve`.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from pytest_rmq_conformance.engine.protocol.client import Harness, HarnessError, quote
from pytest_rmq_conformance.engine.protocol.messages import problems
from pytest_rmq_conformance.kinds.producer.cases import NotRun, SelectorCase, TraceCase
from pytest_rmq_conformance.kinds.producer.trace import Fault, observe_selector, observe_trace

__all__ = ["trace", "probe", "select", "serve"]


def _raised(harness: Harness, item: Mapping[str, Any], where: str) -> BaseException:
    if item.get("error") == "illegal-argument":
        return ValueError(item.get("message"))
    if item.get("error") == "other":
        return HarnessError(item.get("message"))
    harness.fault_in_flight(f"gave {where} an error {item.get('error')!r}, not illegal-argument or other")


def _list(harness: Harness, value: Any, where: str) -> list[tuple[str, int]]:
    if not isinstance(value, list) or not all(
        isinstance(q, list) and len(q) == 2 and isinstance(q[0], str) and type(q[1]) is int for q in value
    ):
        harness.fault_in_flight(f"gave {where} as {quote(json.dumps(value))}, not a list of [brokerName, queueId]")
    return [(broker, queue_id) for broker, queue_id in value]


def _items(harness: Harness, answer: Mapping[str, Any], key: str, count: int, unit: str) -> list[Any]:
    """``answer[key]``, a list of one item per step or call asked; a fault otherwise."""
    items = answer.get(key)
    if not isinstance(items, list) or len(items) != count:
        got = f"{len(items)} {key}" if isinstance(items, list) else f"no {key}"
        harness.fault_in_flight(f"gave {got} for {count} {unit}(s): {quote(json.dumps(answer))[:200]}")
    return items


# -- the suite's side --------------------------------------------------------------


def trace(harness: Harness, case: TraceCase, release: str, more: Sequence[Mapping[str, Any]] = ()) -> tuple[list[tuple[str, int]], Iterator[Any]]:
    """The publish list the harness built and its observations, one per step (an error
    outcome as the exception it stands for), ``more`` steps played after the case's own;
    :class:`Unsupported` or :class:`HarnessFault` raised."""
    steps = [*case.steps, *more]
    answer = harness.request(
        {
            "cmd": "trace",
            "strategy": case.strategy,
            "params": dict(case.params),
            "release": release,
            "topic": case.topic,
            "route": case.route,
            "initial": case.initial,
            "steps": steps,
        },
        calls=len(steps),
    )
    outcomes = _items(harness, answer, "outcomes", len(steps), "step")
    wrong = problems("trace-response", answer)
    if wrong:  # an answer of the wrong shape is the harness's fault, not a divergence to classify
        harness.fault_in_flight(f"answered trace with what schemas/protocol-trace-response.schema.json refuses, {wrong[0]}")
    publish = _list(harness, answer.get("publishList"), "publishList")

    def observations() -> Iterator[Any]:
        for index, (step, outcome) in enumerate(zip(steps, outcomes)):
            where = f"outcome {index} ({step['op']})"
            if isinstance(outcome, dict) and "error" in outcome:
                yield {"raised": _raised(harness, outcome, where), "queue": None, "item": None}
            elif step["op"] == "route" and isinstance(outcome, dict):
                yield {"publishListRuns": tuple(_list(harness, outcome.get("publishList"), where))}
            elif outcome is None or isinstance(outcome, dict):
                yield {"raised": None, **(outcome or {})}
            else:
                harness.fault_in_flight(f"gave {where} as {quote(json.dumps(outcome))}, not an object or null")

    return publish, observations()


def probe(harness: Harness, case: TraceCase, release: str) -> Callable[[Sequence[Mapping[str, Any]]], list[Any]]:
    """What asks the harness for further steps after ``case``'s: the trace again, with them
    after its own (a trace is one request), and their observations."""

    def ask(more: Sequence[Mapping[str, Any]]) -> list[Any]:
        return list(trace(harness, case, release, more)[1])[len(case.steps):]

    return ask


def select(harness: Harness, case: SelectorCase, release: str) -> list[Any]:
    """The harness selector's answer to every call of ``case``: a position in the list given
    (``None``: not an element), the exception an error stands for, or :class:`NotRun`."""
    answer = harness.request(
        {
            "cmd": "select",
            "strategy": case.strategy,
            "params": dict(case.params),
            "release": release,
            "arg": case.arg,
            "queueCounts": list(case.queue_counts),
        },
        calls=len(case.queue_counts),
    )
    answers = _items(harness, answer, "answers", len(case.queue_counts), "call")
    wrong = problems("select-response", answer)
    if wrong:
        harness.fault_in_flight(f"answered select with what schemas/protocol-select-response.schema.json refuses, {wrong[0]}")
    out: list[Any] = []
    for index, item in enumerate(answers):
        if isinstance(item, dict) and set(item) == {"index"} and (item["index"] is None or type(item["index"]) is int):
            out.append(item["index"])
        elif isinstance(item, dict) and "error" in item:
            out.append(_raised(harness, item, f"answer {index}"))
        elif isinstance(item, dict) and set(item) == {"notRun"} and isinstance(item["notRun"], str) and item["notRun"]:
            out.append(NotRun(item["notRun"]))
        else:
            harness.fault_in_flight(f"gave answer {index} as {quote(json.dumps(item))}, not {{index}}, {{error}} or {{notRun}}")
    return out


# -- the built-in harness's side -----------------------------------------------------


def _error_json(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, ValueError):  # Java's IllegalArgumentException
        return {"error": "illegal-argument", "message": str(exc)}
    return {"error": "other", "message": f"{type(exc).__name__}: {exc}"}


def _outcome_json(step: Mapping[str, Any], got: Any) -> Any:
    if got is None:
        return None
    if got.get("raised") is not None:
        return _error_json(got["raised"])
    op = step["op"]
    if op == "route":
        return {"publishList": [list(q) for q in got["publishListRuns"]]}
    if op == "update":
        return {"item": got["item"]}
    if op == "detect":
        return {"tableAfter": got["tableAfter"]}
    out = {key: got[key] for key in ("queue", "listIndex", "storedIndexAfter")}
    if got.get("worstIndexAfter") is not None:
        out["worstIndexAfter"] = got["worstIndexAfter"]
    if got.get("listMutated"):
        out["listMutated"] = got["listMutated"]
    if got.get("tableAfter") is not None:
        out["tableAfter"] = got["tableAfter"]
    return out


def _serve_trace(request: Mapping[str, Any], build: Callable[[str, Mapping[str, Any]], Any]) -> dict[str, Any]:
    case = TraceCase(
        id="harness", strategy=request["strategy"], params=request["params"], category="", flags=(), expect=(),
        topic=request["topic"], route=request["route"], initial=request["initial"], steps=tuple(request["steps"]),
    )
    outcomes: list[Any] = [None] * len(case.steps)
    publish: Sequence[Sequence[Any]] = []
    done = 0
    try:
        publish, observations = observe_trace(lambda clock: build(case.strategy, {**case.params, "clock": clock}), case, timeout=None)
        for step, got in zip(case.steps, observations):
            outcomes[done] = _outcome_json(step, got)
            done += 1
    except Fault as fault:  # what no answer stands for ends the trace: said at the step it happened
        outcomes[min(done, len(outcomes) - 1)] = {"error": "other", "message": fault.problem}
    return {"publishList": [list(q) for q in publish], "outcomes": outcomes}


def _serve_select(request: Mapping[str, Any], build: Callable[[str, Mapping[str, Any]], Any]) -> dict[str, Any]:
    case = SelectorCase(
        id="harness", strategy=request["strategy"], params=request["params"], category="", flags=(), expect=(),
        queue_counts=tuple(request["queueCounts"]), arg=request["arg"],
    )
    try:
        answers = observe_selector(lambda: build(case.strategy, case.params), case, timeout=None)
    except Fault as fault:  # the selector could not be built, or gave what no answer stands for
        return {"answers": [{"error": "other", "message": fault.problem}] * len(case.queue_counts)}
    return {"answers": [_error_json(a) if isinstance(a, BaseException) else {"index": a} for a in answers]}


def serve(request: Mapping[str, Any], build: Callable[[str, Mapping[str, Any]], Any]) -> dict[str, Any] | None:
    """The built-in harness's answer to a ``trace`` or ``select`` request (``None`` for another
    command), played with the strategy ``build(family, params)`` makes."""
    command = request.get("cmd")
    if command == "trace":
        return _serve_trace(request, build)
    if command == "select":
        return _serve_select(request, build)
    return None

