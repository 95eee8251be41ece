"""Consumer allocation over the harness protocol: its two requests, from both sides.

Declared in ``schemas/protocol-allocate-*.schema.json`` and ``protocol-sort-*``::

    {"cmd": "allocate", "id", "strategy", "params", "release", "consumerGroup", "mqAll", "cidAll", "callers"}
        -> {"id", "answers": [{"queues": [[topic, broker, id], ...]} | {"null": true}
                              | {"error": "illegal-argument" | "other", "message"}, ...]}
    {"cmd": "sort", "id", "mqAll", "cidAll"} -> {"id", "mqAll": [...] | null | error, "cidAll": ...}

The suite's side (:func:`allocate`, :func:`sort`, :class:`RemoteStrategy`) sends them through a
:class:`~pytest_rmq_conformance.engine.protocol.client.Harness` and reads the answers into
:class:`~pytest_rmq_conformance.kinds.allocation.replay.Answer` values; the built-in harness's
side (:func:`serve`) answers them with Python strategies.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pytest_rmq_conformance.engine.protocol.client import Harness, HarnessError, quote
from pytest_rmq_conformance.javalang import java_sorted_strings
from pytest_rmq_conformance.kinds.allocation.replay import Answer, answer_problem, call_strategy
from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues

__all__ = ["queue_to_json", "allocate", "sort", "RemoteStrategy", "serve"]


def queue_to_json(mq: MessageQueue) -> list:
    """A queue as the protocol writes it: ``[topic, brokerName, queueId]``."""
    return [mq.topic, mq.broker_name, mq.queue_id]


def _lists(mq_all: Sequence[MessageQueue] | None, cid_all: Sequence[str] | None) -> dict[str, Any]:
    return {
        "mqAll": None if mq_all is None else [queue_to_json(mq) for mq in mq_all],
        "cidAll": None if cid_all is None else list(cid_all),
    }


# -- the suite's side --------------------------------------------------------------


def allocate(
    harness: Harness,
    strategy: str,
    params: Mapping[str, Any],
    release: str,
    consumer_group: str | None,
    mq_all: Sequence[MessageQueue] | None,
    cid_all: Sequence[str] | None,
    callers: Sequence[str | None],
) -> list[Answer]:
    """One :class:`Answer` per caller: ``ValueError`` for ``illegal-argument``,
    :class:`HarnessError` for ``other``; :class:`Unsupported` or :class:`HarnessFault` raised."""
    answer = harness.request(
        {
            "cmd": "allocate",
            "strategy": strategy,
            "params": dict(params),
            "release": release,
            "consumerGroup": consumer_group,
            **_lists(mq_all, cid_all),
            "callers": list(callers),
        },
        calls=len(callers),
    )
    answers = answer.get("answers")
    if not isinstance(answers, list) or len(answers) != len(callers):
        got = f"{len(answers)} answers" if isinstance(answers, list) else "no answers"
        harness.fault_in_flight(f"gave {got} for {len(callers)} caller(s): {quote(json.dumps(answer))}")
    return [_answer(harness, item, index) for index, item in enumerate(answers)]


def sort(harness: Harness, mq_all: Sequence[MessageQueue] | None, cid_all: Sequence[str] | None) -> tuple[Any, Any]:
    """The implementation's sort of both lists: each a list, ``None``, or a :class:`HarnessError`
    / ``ValueError`` (``illegal-argument``) for a sort that threw."""
    answer = harness.request({"cmd": "sort", **_lists(mq_all, cid_all)}, calls=2)
    if "mqAll" not in answer or "cidAll" not in answer:
        harness.fault_in_flight(f"answered sort without mqAll and cidAll: {quote(json.dumps(answer))}")
    return (
        _sorted(harness, answer["mqAll"], "mqAll", queues=True),
        _sorted(harness, answer["cidAll"], "cidAll", queues=False),
    )


def _queues(harness: Harness, items: Any, where: str) -> tuple[MessageQueue, ...]:
    if not isinstance(items, list):
        harness.fault_in_flight(f"gave {where} that is not a list: {quote(json.dumps(items))}")
    out = []
    for item in items:
        if (
            not isinstance(item, list)
            or len(item) != 3
            or not isinstance(item[0], str)
            or not isinstance(item[1], str)
            or not isinstance(item[2], int)
            or isinstance(item[2], bool)
        ):
            harness.fault_in_flight(f"gave {where} with {quote(json.dumps(item))}, not [topic, brokerName, queueId]")
        out.append(MessageQueue(item[0], item[1], item[2]))
    return tuple(out)


def _error(harness: Harness, item: Mapping[str, Any], where: str) -> Exception:
    message = item.get("message")
    if item.get("error") == "illegal-argument":
        return ValueError(message)
    if item.get("error") == "other":
        return HarnessError(message)
    harness.fault_in_flight(f"gave {where} an error {item.get('error')!r}, not illegal-argument or other")


def _answer(harness: Harness, item: Any, index: int) -> Answer:
    where = f"answer {index}"
    if isinstance(item, dict) and set(item) == {"queues"}:
        return Answer(queues=_queues(harness, item["queues"], f"{where} queues"))
    if isinstance(item, dict) and item == {"null": True}:
        return Answer(returned_none=True)
    if isinstance(item, dict) and "error" in item:
        return Answer(exception=_error(harness, item, where))
    harness.fault_in_flight(f"gave {where} as {quote(json.dumps(item))}, not {{queues}}, {{null}} or {{error}}")


def _sorted(harness: Harness, value: Any, name: str, *, queues: bool) -> Any:
    if value is None:
        return None
    if isinstance(value, dict) and "error" in value:
        return _error(harness, value, f"sorted {name}")
    if queues:
        return list(_queues(harness, value, f"sorted {name}"))
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        harness.fault_in_flight(f"gave sorted {name} as {quote(json.dumps(value))}, not a list of strings")
    return list(value)


class RemoteStrategy:
    """One strategy family of a harness, configured by golden ``params`` at ``release``, called
    like a Python strategy (one caller per request; :func:`allocate` batches callers)."""

    def __init__(self, harness: Harness, family: str, params: Mapping[str, Any], release: str):
        self.harness, self.name, self.params, self.release = harness, family, dict(params), release

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        (answer,) = allocate(self.harness, self.name, self.params, self.release, consumer_group, mq_all, cid_all, [current_cid])
        if answer.exception is not None:
            raise answer.exception
        return None if answer.returned_none else list(answer.queues or ())

    def __repr__(self) -> str:
        return f"RemoteStrategy({self.harness.command!r}, {self.name}, {self.params})"


# -- the built-in harness's side -----------------------------------------------------


def _error_json(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, ValueError):  # Java's IllegalArgumentException
        return {"error": "illegal-argument", "message": str(exc)}
    return {"error": "other", "message": f"{type(exc).__name__}: {exc}"}


def _from_json(items: Sequence[Any] | None) -> list[MessageQueue] | None:
    return None if items is None else [MessageQueue(topic, broker, queue_id) for topic, broker, queue_id in items]


def _answer_json(answer: Answer) -> dict[str, Any]:
    """What :func:`~.replay.call_strategy` captured, as the protocol writes an answer."""
    if answer.exception is not None and answer.fault is None and answer.wrong_type is None:
        return _error_json(answer.exception)
    problem = answer_problem(answer)
    if problem is not None:
        return {"error": "other", "message": problem[1]}
    if answer.returned_none:
        return {"null": True}
    return {"queues": [queue_to_json(mq) for mq in answer.queues or ()]}


def _sorted_json(items: Any, order: Callable[[], list]) -> Any:
    """``order()`` as an answer: ``None`` for a ``None`` list, an error where Java's sort throws
    ("Comparison method violates its general contract!")."""
    if items is None:
        return None
    try:
        return order()
    except ValueError as exc:
        return _error_json(exc)


def _serve_allocate(request: Mapping[str, Any], build: Callable[[str, Mapping[str, Any]], Any]) -> dict[str, Any]:
    family = request["strategy"]
    mq_all, cid_all = _from_json(request["mqAll"]), request["cidAll"]
    answers = []
    for caller in request["callers"]:
        try:
            strategy = build(family, request["params"])
        except Exception as exc:  # Java built a strategy per call too: a refusing constructor is that call's answer
            answers.append(_error_json(exc))
            continue
        answers.append(_answer_json(call_strategy(strategy, request["consumerGroup"], caller, mq_all, cid_all)))
    return {"answers": answers}


def _serve_sort(request: Mapping[str, Any]) -> dict[str, Any]:
    mq_all, cid_all = _from_json(request["mqAll"]), request["cidAll"]
    return {
        "mqAll": _sorted_json(mq_all, lambda: [queue_to_json(mq) for mq in java_sorted_queues(mq_all or ())]),
        "cidAll": _sorted_json(cid_all, lambda: java_sorted_strings(cid_all)),
    }


def serve(request: Mapping[str, Any], build: Callable[[str, Mapping[str, Any]], Any]) -> dict[str, Any] | None:
    """The built-in harness's answer to an ``allocate`` or ``sort`` request (``None`` for another
    command); ``build(family, params)`` makes a fresh strategy for every caller, as the golden
    replay does."""
    command = request.get("cmd")
    if command == "allocate":
        return _serve_allocate(request, build)
    if command == "sort":
        return _serve_sort(request)
    return None
