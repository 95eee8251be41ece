"""The generated checks of the gRPC balancers: the reference port as Java's stand-in, and the
invariants of routing and round robin.

- :func:`reference_check`: drawn groups (or a drawn route, start index and steps) asked of the
  strategy and of the reference port; the port's answers stand for Java's, and the strategy is
  judged on them as on a golden case, shrunk to the smallest input hypothesis finds.
- :func:`invariant_check`: one property of :mod:`.properties` on drawn inputs, for any balancer
  (Java's every property, or those a balancer with no twin declares). ``one-answer`` asks each
  group of fresh balancers in this process and in other processes under other hash seeds (a
  harness: after a restart); ``spread`` counts ``60 * K`` distinct groups per queue against a
  chi-square bound (p < 1e-6).

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from hypothesis import reject
from hypothesis import strategies as st

from pytest_rmq_conformance.engine.divergence import FAULT, WRONG_QUEUES
from pytest_rmq_conformance.engine.generated.failures import format_generated
from pytest_rmq_conformance.engine.generated.statistics import SPREAD_ALPHA, chi_square, chi_square_bound
from pytest_rmq_conformance.engine.kinds import GeneratedCheck
from pytest_rmq_conformance.javalang import INT_MAX, java_get_bytes, java_int, sip_hash24
from pytest_rmq_conformance.kinds.grpc.cases import BalancerCase
from pytest_rmq_conformance.kinds.grpc.draws import (
    FIXED_GROUPS,
    GENERATED,
    GroupBatch,
    balancer_cases,
    fixed_cases,
    fixed_takes,
    group_batches,
    index_cases,
)
from pytest_rmq_conformance.kinds.grpc.failures import balancer_lines, group_lines
from pytest_rmq_conformance.kinds.grpc.play import Fault, compare, index_divergence, observe
from pytest_rmq_conformance.kinds.grpc.properties import PROPERTIES, properties_of_shape, shape_of_family
from pytest_rmq_conformance.ports.grpc.balancers import message_group_index

__all__ = ["reference_check", "invariant_check", "shape_of"]

#: groups per queue in the spread check
_GROUPS_PER_QUEUE = 60
#: the hash seeds of the other processes the one-answer check asks
HASH_SEEDS = ("0", "1", "4242")


def shape_of(subject: Any) -> str | None:
    """``group``, ``publish`` or ``subscribe`` (by family, else by the methods it has)."""
    if subject.family is not None:
        return shape_of_family(subject.family)
    probed = None if subject.source is None else subject.source.probed
    if callable(getattr(probed, "take_message_queues", None)):
        return "publish"
    if callable(getattr(probed, "take_message_queue", None)):
        return "subscribe"
    return "group" if callable(getattr(probed, "take_message_queue_by_message_group", None)) else None


def _family(subject: Any, shape: str) -> str:
    return subject.family or {"group": "GROUP_HASH", "publish": "PUBLISH_ROUND_ROBIN", "subscribe": "SUBSCRIBE_ROUND_ROBIN"}[shape]


def _offset(subject: Any, family: str) -> int:
    from pytest_rmq_conformance.kinds.grpc.golden import index_offset

    return index_offset(subject, family)


def _builder(subject: Any, family: str) -> Callable[[Sequence[Any], int], Any]:
    from pytest_rmq_conformance.engine.running.nondeterminism import note_built

    def build(route: Sequence[Any], index: int) -> Any:
        built = subject.build(family, {"route": route, "index": index})
        note_built(built, family, {})
        return built

    return build


def ask_groups(subject: Any, batch: GroupBatch) -> list[dict[str, Any]]:
    """The strategy's observation of each group of ``batch`` (a harness: one request)."""
    family = _family(subject, "group")
    if subject.harness is not None:
        from pytest_rmq_conformance.kinds.grpc.protocol import ask_groups as remote

        return remote(subject.harness, list(batch.groups), batch.queues)
    from pytest_rmq_conformance.kinds.grpc.cases import GroupCase

    build, timeout = _builder(subject, family), subject.settings.timeout
    out = []
    for group in batch.groups:
        case = GroupCase(id=GENERATED, strategy=family, params={}, category=GENERATED, flags=(), expect=(), group=group, queues=batch.queues)
        try:
            out.append(observe(build, case, 0, timeout))
        except Fault as fault:
            out.append({"error": "fault", "message": str(fault)})
    return out


def ask_balancer(subject: Any, case: BalancerCase) -> dict[str, Any]:
    """The strategy's observation of ``case`` (a harness: one request); a fault as ``{"fault"}``."""
    offset = _offset(subject, case.strategy)
    if subject.harness is not None:
        from pytest_rmq_conformance.kinds.grpc.protocol import ask

        return ask(subject.harness, case, offset)
    try:
        return observe(_builder(subject, case.strategy), case, offset, subject.settings.timeout)
    except Fault as fault:
        return {"fault": str(fault)}


def _probes_of(subject: Any, case: BalancerCase) -> Any:
    """How to ask a harness for ``case`` again with the probe takes after its steps (``None`` in
    this process: :func:`observe` plays them at once)."""
    if subject.harness is None:
        return None
    from pytest_rmq_conformance.kinds.grpc.protocol import ask

    offset = _offset(subject, case.strategy)
    return lambda: ask(subject.harness, case, offset, probe=True).get("probes")


def _java_group(group: str, queues: int) -> dict[str, Any]:
    """What Java computes for ``group`` (from the reference port), as a golden answer."""
    data = java_get_bytes(group, "UTF-8")
    return {"index": message_group_index(group, queues), "sipHash24": str(sip_hash24(data)), "utf8Length": len(data),
            **({"utf8": data.hex()} if len(data) <= 256 else {})}


def _batch_data(batch: GroupBatch) -> str:
    return json.dumps({"groups": list(batch.groups), "queues": batch.queues}, ensure_ascii=True)


def _case_data(case: BalancerCase) -> str:
    return json.dumps({"strategy": case.strategy, "route": list(case.route), "index": case.index, "steps": list(case.steps)}, ensure_ascii=True)


def _case_summary(case: BalancerCase) -> str:
    ops = " ".join(step["op"] for step in case.steps)
    return f"{len(case.route)} queues, index {case.index}, {len(case.steps)} steps: {ops}"


def with_reference_answers(case: BalancerCase) -> BalancerCase:
    """``case`` carrying the reference port's observations as Java's answers, for the run ``generated``."""
    from pytest_rmq_conformance.kinds.grpc.families import PORTS

    port = PORTS[case.strategy]
    seen = observe(lambda route, index: port(route=route, index=index), case, probe=False)
    if "error" in seen:
        java: dict[str, Any] = {"runs": [GENERATED], "error": "java.lang.IllegalArgumentException", "message": seen["message"]}
    else:
        steps = [{"error": "java.lang.IllegalArgumentException", "message": o["message"]} if "error" in o else o for o in seen["outcomes"]]
        java = {"runs": [GENERATED], "filtered": seen["filtered"], "steps": steps, "indexAfter": seen["indexAfter"]}
    return replace(case, expect=(java,))


def reference_check(subject: Any) -> GeneratedCheck | str:
    """The strategy against the reference port of its family on drawn inputs; or why it cannot run."""
    from pytest_rmq_conformance.engine.generated.generation import PropertyFailure

    shape = shape_of(subject)
    if shape is None:
        return f"{subject.name} has none of take_message_queue_by_message_group(), take_message_queues(), take_message_queue()"
    found: list[str] = []
    if shape == "group":

        def group_body(batch: GroupBatch) -> None:
            for group, got in zip(batch.groups, ask_groups(subject, batch)):
                java = _java_group(group, batch.queues)
                if got.get("index") == java["index"] and "error" not in got:
                    continue
                found[:] = [FAULT if got.get("error") == "fault" else WRONG_QUEUES]
                shown = f"raised {got['error']}: {got.get('message')}" if "error" in got else f"queue {got.get('index')}"
                headline = f"{subject.name} differs from the reference port on a generated group: {shown}, Java's queue {java['index']}"
                details = [line.strip() for line in group_lines(group, batch.queues, java, got)]
                raise PropertyFailure(format_generated(headline, details, f"{len(batch.groups)} groups over {batch.queues} queues",
                                                       _batch_data(batch), noun="groups"))

        fixed = (GroupBatch(FIXED_GROUPS, 3), GroupBatch(FIXED_GROUPS, 65536))
        return GeneratedCheck(group_batches(), group_body, explicit=fixed, classify=lambda: found[0] if found else None)
    family = _family(subject, shape)

    def balancer_body(drawn: BalancerCase) -> None:
        case = with_reference_answers(drawn)
        seen = ask_balancer(subject, case)
        if "fault" in seen:
            found[:] = [FAULT]
            raise PropertyFailure(format_generated(f"{subject.name} did not answer a generated case: {seen['fault']}", [],
                                                   _case_summary(case), _case_data(case), noun="case"))
        mismatch = compare(case, GENERATED, seen)
        if mismatch is None:
            return
        found[:] = [mismatch.divergence_class]
        headline = f"{subject.name} differs from the reference port on a generated case: {mismatch.problem}"
        details = [line.strip() for line in balancer_lines(case, case.expect[0], mismatch)]
        raise PropertyFailure(format_generated(headline, details, _case_summary(case), _case_data(case), noun="case"))

    return GeneratedCheck(balancer_cases(family), balancer_body, explicit=fixed_cases(family), classify=lambda: found[0] if found else None)


# -- invariants ------------------------------------------------------------------------


def invariant_check(subject: Any, prop: str) -> GeneratedCheck | str:
    """Property ``prop`` on drawn inputs; or why it does not apply."""
    shape = shape_of(subject)
    if shape is None:
        return f"{subject.name} has none of take_message_queue_by_message_group(), take_message_queues(), take_message_queue()"
    wanted = properties_of_shape(shape)
    if prop not in wanted:
        return f"{prop} is not a property of a {shape} balancer"
    if prop not in subject.properties:
        return f"{subject.name} does not claim {prop} ({subject.properties_origin})"
    if prop == "spread":
        return _spread_check(subject)
    if prop == "one-answer":
        return _one_answer_check(subject)
    if prop == "in-range":
        return _in_range_check(subject)
    family = _family(subject, shape)
    if prop == "covers-queues":
        return _round_robin_check(subject, family, prop, index_cases(family, near_the_end=False))
    if prop == "index-wraps":
        return _round_robin_check(subject, family, prop, index_cases(family, near_the_end=True))
    return _take_check(subject, family, prop)


def _failure(subject: Any, prop: str, details: list[str], summary: str, data: str, noun: str) -> BaseException:
    from pytest_rmq_conformance.engine.generated.generation import PropertyFailure

    return PropertyFailure(format_generated(f"{subject.name} breaks {prop} ({PROPERTIES[prop]})", details, summary, data, noun=noun))


def _in_range_check(subject: Any) -> GeneratedCheck:
    def body(batch: GroupBatch) -> None:
        bad = [f"group {group!r:.60}: {got}" for group, got in zip(batch.groups, ask_groups(subject, batch))
               if "error" in got or not (type(got.get("index")) is int and 0 <= got["index"] < batch.queues)]
        if bad:
            raise _failure(subject, "in-range", bad, f"{len(batch.groups)} groups over {batch.queues} queues", _batch_data(batch), "groups")

    return GeneratedCheck(group_batches(), body)


def _spread_check(subject: Any) -> GeneratedCheck:
    def body(drawn: tuple[int, int]) -> None:
        queues, seed = drawn
        batch = GroupBatch(tuple(f"order-{seed}-{n}" for n in range(queues * _GROUPS_PER_QUEUE)), queues)
        counts = [0] * queues
        for got in ask_groups(subject, batch):
            if type(got.get("index")) is int and 0 <= got["index"] < queues:
                counts[got["index"]] += 1
        outside = len(batch.groups) - sum(counts)
        statistic, bound = chi_square(counts), chi_square_bound(queues)
        if outside or statistic > bound:
            details = [f"{len(batch.groups)} groups order-{seed}-0 .. over {queues} queues: counts per queue {counts}"
                       + (f", {outside} answers outside the route" if outside else ""),
                       f"chi-square {statistic:.1f} > {bound:.1f}, the bound a fair spread exceeds with chance {SPREAD_ALPHA:g}"]
            raise _failure(subject, "spread", details, f"K = {queues}, groups order-{seed}-<n>", json.dumps({"queues": queues, "seed": seed}), "groups")

    return GeneratedCheck(st.tuples(st.sampled_from([2, 3, 5, 8, 16]), st.integers(0, 2**31 - 1)), body)


def _other_processes(subject: Any, batch: GroupBatch) -> list[tuple[str, list[dict[str, Any]]]]:
    """The answers of other processes to ``batch``: a harness restarted, or Python's built-in
    harness under each of :data:`HASH_SEEDS` (started once per spec, ended with this process).
    Empty when no other process can be started."""
    from pytest_rmq_conformance.kinds.grpc.protocol import ask_groups as remote

    harness = subject.harness
    if harness is not None:
        harness.restart()
        return [("the harness restarted", remote(harness, list(batch.groups), batch.queues))]
    spec = subject.portable_spec()
    if spec is None:
        return []
    return [(f"another process, PYTHONHASHSEED={seed}", remote(worker, list(batch.groups), batch.queues))
            for seed, worker in _workers(spec, subject.settings.timeout)]


_WORKERS: dict[str, list[tuple[str, Any]]] = {}


def _workers(spec: str, timeout: float | None) -> list[tuple[str, Any]]:
    """Built-in harness processes serving ``spec``, one per hash seed, kept for the run."""
    if spec not in _WORKERS:
        import atexit

        from pytest_rmq_conformance.engine.protocol.client import Harness

        command = shlex.join([sys.executable, "-m", "pytest_rmq_conformance.harness", spec])
        _WORKERS[spec] = [(seed, Harness(command, timeout=timeout, env={**os.environ, "PYTHONHASHSEED": seed})) for seed in HASH_SEEDS]
        for _, worker in _WORKERS[spec]:
            atexit.register(worker.stop)
    return _WORKERS[spec]


def _one_answer_check(subject: Any) -> GeneratedCheck:
    def body(batch: GroupBatch) -> None:
        first = ask_groups(subject, batch)
        others = [("a fresh balancer", ask_groups(subject, batch)), *_other_processes(subject, batch)]
        for label, answers in others:
            for group, a, b in zip(batch.groups, first, answers):
                if a.get("index") != b.get("index") or ("error" in a) != ("error" in b):
                    details = [f"group {group!r:.60} over {batch.queues} queues: queue {a.get('index')} here, queue {b.get('index')} from {label}"]
                    raise _failure(subject, "one-answer", details, f"{len(batch.groups)} groups over {batch.queues} queues", _batch_data(batch), "groups")

    return GeneratedCheck(group_batches(), body, explicit=(GroupBatch(FIXED_GROUPS, 7),))


def _kept(case: BalancerCase, route: Sequence[Mapping[str, Any]]) -> list[int]:
    """The positions Java's filter keeps in ``route`` (writable or readable, master)."""
    allowed = ("WRITE", "READ_WRITE") if case.strategy != "SUBSCRIBE_ROUND_ROBIN" else ("READ", "READ_WRITE")
    return [p for p, q in enumerate(route) if q["broker"]["id"] == 0 and q["permission"] in allowed]


def _round_robin_check(subject: Any, family: str, prop: str, examples: Any) -> GeneratedCheck:
    def body(case: BalancerCase) -> None:
        seen = ask_balancer(subject, case)
        kept = _kept(case, case.route)
        if "fault" in seen or "error" in seen:
            if not kept and "error" in seen:
                return  # nothing to keep: Java refuses the route too
            raise _failure(subject, prop, [str(seen.get("fault") or seen.get("message"))], _case_summary(case), _case_data(case), "case")
        answers = [o.get("queue", (o.get("queues") or [None])[0]) for o in seen["outcomes"]]
        details = []
        if prop == "covers-queues":
            first = answers[: len(kept)]
            if sorted(a for a in first if a is not None) != kept:
                details.append(f"{len(kept)} successive takes answered positions {first}; the kept queues are {kept}")
        else:
            wanted = java_int(case.index + len(case.steps))
            drift = index_divergence(case.strategy, wanted, seen, _probes_of(subject, case))
            if drift is not None:  # judged by the takes it leads to (.probes), not by the number stored
                details.append(f"index {case.index} + {len(case.steps)} takes: Java's int gives {wanted}; "
                               + (drift[0] or f"the balancer's reads back {seen['indexAfter']}"))
            stray = [a for a in answers if a not in kept]
            if stray:
                details.append(f"takes across the end of the int answered {answers}, not all among the kept queues {kept}")
        if details:
            raise _failure(subject, prop, details, _case_summary(case), _case_data(case), "case")

    return GeneratedCheck(examples, body)


def _take_check(subject: Any, family: str, prop: str) -> GeneratedCheck:
    def body(case: BalancerCase) -> None:
        seen = ask_balancer(subject, case)
        if "fault" in seen or "error" in seen or "outcomes" not in seen:
            reject()  # a route the balancer refuses: nothing to take from (the reference check judges that)
        route: list[Mapping[str, Any]] = list(case.route)
        details = []
        at = case.index  # Java's index before each step: a take moves it once
        for index, (step, outcome) in enumerate(zip(case.steps, seen["outcomes"])):
            if step["op"] == "update" and "filtered" in outcome:
                route = list(step["route"])
            if step["op"] != "take":
                continue
            kept, start, at = _kept(case, route), at, java_int(at + 1)
            if "queues" not in outcome:
                continue
            if prop != "one-per-broker" and start > INT_MAX - 2 * len(kept):
                continue  # the scan crosses the int's end, where Java's IntMath.mod skips queues too
            taken = outcome["queues"]
            names = [route[p]["broker"]["name"] if p is not None and p < len(route) else None for p in taken]
            excluded = [json.dumps(e, sort_keys=True) for e in step["excluded"]]
            allowed = {route[p]["broker"]["name"] for p in kept if json.dumps(route[p]["broker"]["endpoints"], sort_keys=True) not in excluded}
            if prop == "one-per-broker" and len(set(names)) != len(names):
                details.append(f"step {index}: take answered {taken}, brokers {names}")
            elif prop == "avoids-excluded" and allowed and any(
                    p is None or json.dumps(route[p]["broker"]["endpoints"], sort_keys=True) in excluded for p in taken):
                details.append(f"step {index}: take answered {taken} (brokers {names}), an excluded one among them, while {sorted(allowed)} were not excluded")
            elif prop == "takes-enough" and step["count"] >= 1:
                usable = allowed or {route[p]["broker"]["name"] for p in kept}
                if len(taken) != min(step["count"], len(usable)):
                    details.append(f"step {index}: take of {step['count']} answered {len(taken)} queue(s) {taken}; "
                                   f"{len(usable)} broker name(s) {sorted(usable)} could be used")
        if details:
            raise _failure(subject, prop, details, _case_summary(case), _case_data(case), "case")

    return GeneratedCheck(balancer_cases(family), body, explicit=fixed_takes(family))
