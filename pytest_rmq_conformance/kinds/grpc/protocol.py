"""The gRPC balancers over the harness protocol: one request per golden case, from both sides.

Declared in ``schemas/protocol-group-*.schema.json`` and ``protocol-balance-*``::

    {"cmd": "group", "id", "strategy": "GROUP_HASH", "groups": [g, ...], "queues": K}
        -> {"id", "answers": [{"index": i, "sipHash24"?: "-123"} | {"error", "message"}, ...]}
    {"cmd": "balance", "id", "strategy", "route", "index", "steps"}
        -> {"id", "filtered", "outcomes": [per step], "indexAfter"} | {"id", "error", "message"}

A balancer's answers depend on every step before, so a whole case travels in one request, and
when the index it reads back after the steps is not Java's, once more with the probe takes of
:mod:`.probes` after them (an update and a take each, played as any step: the harness does not
know them apart), and the harness answers in the observation vocabulary of :mod:`.play`, which compares. The suite's
side is :func:`ask`; the built-in harness's side is :func:`serve`.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from pytest_rmq_conformance.engine.protocol.client import Harness, quote
from pytest_rmq_conformance.engine.protocol.messages import problems
from pytest_rmq_conformance.javalang import java_int
from pytest_rmq_conformance.kinds.grpc.cases import BalancerCase, GroupCase
from pytest_rmq_conformance.kinds.grpc.play import Fault, observe
from pytest_rmq_conformance.kinds.grpc.probes import probe_steps

__all__ = ["ask", "ask_groups", "serve"]

#: what a harness's error stands for, as the observations name exceptions
_ERRORS = {"illegal-argument": "IllegalArgumentException", "other": "error"}


def _observed_error(item: Mapping[str, Any]) -> dict[str, Any]:
    return {"error": _ERRORS[item["error"]], "message": item["message"]}


def ask_groups(harness: Harness, groups: list[str], queues: int) -> list[dict[str, Any]]:
    """The harness's answers to ``takeMessageQueueByMessageGroup`` of each of ``groups`` over
    ``queues`` queues, as observations (``{"index", "sipHash24"?}`` or an error)."""
    answer = harness.request({"cmd": "group", "strategy": "GROUP_HASH", "groups": groups, "queues": queues}, calls=len(groups))
    wrong = problems("group-response", answer)
    if wrong:  # an answer of the wrong shape is the harness's fault, not a divergence to classify
        harness.fault_in_flight(f"answered group with what schemas/protocol-group-response.schema.json refuses, {wrong[0]}")
    answers = answer["answers"]
    if len(answers) != len(groups):
        harness.fault_in_flight(f"gave {len(answers)} answers for {len(groups)} groups: {quote(json.dumps(answer))[:200]}")
    return [_observed_error(item) if "error" in item else dict(item) for item in answers]


def ask(harness: Harness, case: Any, offset: int = 0, probe: bool = False) -> dict[str, Any]:
    """What the harness observed of ``case``, in :func:`~.play.observe`'s vocabulary (its index
    started at Java's plus ``offset``, and read back less it); with ``probe``, the probe takes of
    :mod:`.probes` after the steps too (the index then reads back after them)."""
    if isinstance(case, GroupCase):
        return ask_groups(harness, [case.group], case.queues)[0]
    probes = probe_steps(case.strategy) if probe else ()
    answer = harness.request(
        {"cmd": "balance", "strategy": case.strategy, "route": list(case.route), "index": java_int(case.index + offset),
         "steps": [*case.steps, *probes]},
        calls=len(case.steps) + len(probes) + 1,
    )
    wrong = problems("balance-response", answer)
    if wrong:
        harness.fault_in_flight(f"answered balance with what schemas/protocol-balance-response.schema.json refuses, {wrong[0]}")
    if "error" in answer:
        return _observed_error(answer)
    if len(answer["outcomes"]) != len(case.steps) + len(probes):
        harness.fault_in_flight(f"gave {len(answer['outcomes'])} outcomes for {len(case.steps) + len(probes)} steps")
    outcomes = [_observed_error(item) if "error" in item else item for item in answer["outcomes"]]
    # with probes, the index reads back after them: the probes judge it
    seen = {"filtered": answer["filtered"], "outcomes": outcomes[: len(case.steps)],
            "indexAfter": answer["indexAfter"] - offset, "offset": offset}
    return {**seen, "probes": outcomes[len(case.steps):]} if probe else seen


# -- the built-in harness's side -----------------------------------------------------


def _error_json(observed: Mapping[str, Any]) -> dict[str, Any]:
    raised = observed.get("raised")
    if isinstance(raised, ValueError):  # Java's IllegalArgumentException
        return {"error": "illegal-argument", "message": str(raised)}
    return {"error": "other", "message": f"{observed['error']}: {observed.get('message')}"}


def serve(request: Mapping[str, Any], build: Callable[[str, Mapping[str, Any]], Any]) -> dict[str, Any] | None:
    """The built-in harness's answer to a ``group`` or ``balance`` request (``None`` for another
    command), played with the balancers ``build(family, params)`` makes."""
    command = request.get("cmd")
    if command not in ("group", "balance"):
        return None
    strategy = request["strategy"]

    def make(route, index):
        return build(strategy, {"route": route, "index": index})

    try:
        if command == "group":
            answers = []
            for group in request["groups"]:
                case = GroupCase(id="harness", strategy=strategy, params={}, category="", flags=(), expect=(), group=group,
                                 queues=request["queues"])
                seen = observe(make, case)
                answers.append(_error_json(seen) if "error" in seen else {"index": seen["index"]})
            return {"answers": answers}
        seen = observe(make, BalancerCase(id="harness", strategy=strategy, params={}, category="", flags=(), expect=(),
                                          route=tuple(request["route"]), index=request["index"], steps=tuple(request["steps"])),
                       probe=False)
    except Fault as fault:  # what no answer stands for
        return {"error": "other", "message": str(fault)}
    if "outcomes" not in seen:
        return _error_json(seen)
    return {"filtered": seen["filtered"], "outcomes": [_error_json(o) if "error" in o else o for o in seen["outcomes"]],
            "indexAfter": seen["indexAfter"]}
