"""The generated checks of producer selection: the reference port as Java's stand-in, the
invariants of spec §11, and the spread of a selector.

- :func:`reference_check`: a drawn trace (or selector calls) is played against the reference
  port first; its observations become the answers a golden case would carry, and the
  strategy under test is judged on them exactly as in the golden replay (in this process or
  through a harness, one request per trace). The failure is the first diverging step with the
  state table, shrunk to the shortest trace hypothesis finds.
- :func:`invariant_check`: a drawn trace played against the strategy alone, every claimed
  property checked at every step (:mod:`.invariants`).
- :func:`spread_check`: ``n * 60`` calls with distinct arguments, their positions counted and
  held to a chi-square bound (p < 1e-6, so that a fair selector fails once in a million runs);
  the selector is seeded with a seed drawn from the run's, printed in the report.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from hypothesis import reject
from hypothesis import strategies as st

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.generated.failures import format_generated
from pytest_rmq_conformance.engine.generated.statistics import SPREAD_ALPHA, chi_square_bound
from pytest_rmq_conformance.engine.kinds import GeneratedCheck
from pytest_rmq_conformance.engine.running.timeouts import time_limits
from pytest_rmq_conformance.kinds.producer.cases import Answers, SelectorCase, TraceCase
from pytest_rmq_conformance.kinds.producer.declared import latency_fault_tolerance, turns_latency_on
from pytest_rmq_conformance.kinds.producer.draws import fixed_selector_cases, fixed_traces, selector_cases, traces
from pytest_rmq_conformance.kinds.producer.invariants import selector_violations, trace_violations
from pytest_rmq_conformance.kinds.producer.properties import PROPERTIES, SELECTOR_PROPERTIES, TRACE_PROPERTIES
from pytest_rmq_conformance.kinds.producer.trace import Fault, observe_selector, observe_trace

__all__ = ["reference_check", "invariant_check", "spread_check", "shape_of"]

#: calls per queue in the spread check
_CALLS_PER_QUEUE = 60
_GENERATED = "generated"


def shape_of(subject: Any) -> str | None:
    """``"trace"`` for a fault strategy, ``"selector"`` for a selector, ``None`` for neither."""
    family = subject.family
    if family is not None:
        return "trace" if family == "FAULT_STRATEGY" else "selector"
    probed = None if subject.source is None else subject.source.probed
    if callable(getattr(probed, "select_one_message_queue", None)):
        return "trace"
    return "selector" if callable(getattr(probed, "select", None)) else None


def _data(case: TraceCase | SelectorCase) -> str:
    """The drawn case as one line of JSON, in the golden files' vocabulary."""
    fields: dict[str, Any]
    if isinstance(case, TraceCase):
        fields = {"params": case.params, "topic": case.topic, "route": case.route, "initial": case.initial, "steps": list(case.steps)}
    else:
        fields = {"params": case.params, "arg": case.arg, "queueCounts": list(case.queue_counts)}
    return json.dumps({"strategy": case.strategy, **fields}, ensure_ascii=True, sort_keys=False)


def _summary(case: TraceCase | SelectorCase) -> str:
    if isinstance(case, TraceCase):
        brokers = ",".join(f"{name}:{count}" for name, count, _ in case.route["queueDatas"])
        ops = " ".join(step["op"] for step in case.steps[:12]) + (" ..." if len(case.steps) > 12 else "")
        latency = "on" if case.params["sendLatencyFaultEnable"] else "off"
        return f"route {brokers or '(no queues)'}, latency {latency}, counter {case.initial['sendIndex']}, {len(case.steps)} steps: {ops}"
    return f"{case.strategy or 'selector'} {json.dumps(case.arg or case.params)}, n = {list(case.queue_counts)}"


# -- asking the strategy under test and the reference port -------------------------


def _build(subject: Any, case: TraceCase | SelectorCase, params: dict[str, Any]) -> Any:
    """The strategy under test for ``case``: a fault strategy with no Java twin is built as the
    contract says, ``factory(clock=...)``."""
    from pytest_rmq_conformance.engine.running.nondeterminism import note_built

    family = subject.family or ("FAULT_STRATEGY" if isinstance(case, TraceCase) else None)
    built = subject.build(family, params, case)

    note_built(built, case.strategy, case.params)
    return built


def play(subject: Any, case: TraceCase | SelectorCase) -> tuple[list[Any], list[Any], str | None]:
    """``case`` asked of the strategy under test: the publish list it built (traces), its
    observations, one per step or call, and the fault that ended them early, if one did."""
    harness, version = subject.harness, subject.settings.version
    seen: list[Any] = []
    if harness is not None:  # a harness that faults ends the check (HarnessFault)
        from pytest_rmq_conformance.kinds.producer.protocol import select, trace

        if isinstance(case, SelectorCase):
            return [], select(harness, case, version), None
        listed, answered = trace(harness, case, version)
        seen.extend(answered)
        return list(listed), seen, None
    timeout = subject.settings.timeout
    built: list[Any] = []
    with time_limits():
        try:
            if isinstance(case, SelectorCase):
                return [], observe_selector(lambda: _build(subject, case, dict(case.params)), case, timeout), None
            publish, observations = observe_trace(lambda clock: _build(subject, case, {**case.params, "clock": clock}), case, timeout)
            built.extend(publish)
            seen.extend(observations)
            return built, seen, None
        except Fault as fault:
            return built, seen, fault.problem


def _java_error(raised: BaseException) -> dict[str, Any]:
    name = "java.lang.IllegalArgumentException" if isinstance(raised, ValueError) else f"java.lang.{type(raised).__name__}"
    return {"error": name, "message": str(raised)}


def _answer(step: Any, got: Any) -> Any:
    """The reference port's observation of ``step`` as a golden step answer."""
    if got is None:
        return None
    op, raised = step["op"], got.get("raised")
    if op == "route":
        return {"expect": {"publishListRuns": _runs(got["publishListRuns"])}}
    if op == "update":
        return {"expect": {"item": got["item"], **(_java_error(raised) if raised is not None else {})}}
    if op == "detect":
        return {"expect": {"tableAfter": got["tableAfter"]}}
    expect: dict[str, Any] = _java_error(raised) if raised is not None else {"queue": got["queue"], "listIndex": got["listIndex"]}
    expect["storedIndexAfter"] = got["storedIndexAfter"]
    for key in ("worstIndexAfter", "tableAfter"):
        if got.get(key) is not None:
            expect[key] = got[key]
    if got.get("listMutated"):
        expect["listMutated"] = got["listMutated"]
    return {"expect": expect}


def _runs(queues: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """A publish list as the runs ``[broker, n]`` the golden files write it in."""
    runs: list[list[Any]] = []
    for broker, queue_id in queues:
        if runs and runs[-1][0] == broker and runs[-1][1] == queue_id:
            runs[-1][1] += 1
        elif queue_id == 0:
            runs.append([broker, 1])
        else:
            raise ValueError(f"the reference port built a publish list that is not in runs: {list(queues)}")
    return runs


def with_reference_answers(case: TraceCase | SelectorCase, version: str) -> TraceCase | SelectorCase:
    """``case`` carrying the reference port's answers at ``version`` as Java's, for the run
    ``generated`` (a trace's answers name ``version`` too: what Java observes depends on it);
    an input the port cannot be asked does not count (hypothesis ``reject``)."""
    try:
        with time_limits():
            if isinstance(case, SelectorCase):
                port = lambda: kinds.reference_strategy(case.strategy, dict(case.params), version)
                found = observe_selector(port, case)
                results = tuple(_java_error(a) if isinstance(a, BaseException) else a for a in found)
                return replace(case, expect=(Answers((_GENERATED,), results),))
            publish, observations = observe_trace(lambda clock: kinds.reference_strategy("FAULT_STRATEGY", {"clock": clock}, version), case)
            answers = tuple(_answer(step, got) for step, got in zip(case.steps, observations))
    except Fault:
        reject()
    runs = tuple((broker, count) for broker, count in _runs(publish))
    return replace(case, expect=(Answers((_GENERATED, version), answers, runs),))  # the release: what Java observes


# -- the checks ----------------------------------------------------------------------


def _examples(subject: Any, shape: str) -> Any:
    version = subject.settings.version
    if shape == "trace":
        return traces(version, latency=latency_fault_tolerance(subject))
    return selector_cases(subject.family or "SELECTOR_HASH")


def _fixed(subject: Any, shape: str) -> list[TraceCase] | list[SelectorCase]:
    """The fixed traces or selector calls every seed asks first (traces: those that never turn
    latency on, for a strategy without latency fault tolerance)."""
    if shape != "trace":
        return fixed_selector_cases(subject.family or "SELECTOR_HASH")
    fixed = fixed_traces(subject.settings.version)
    return fixed if latency_fault_tolerance(subject) else [case for case in fixed if not turns_latency_on(case)]


def reference_check(subject: Any) -> GeneratedCheck | str:
    """The strategy under test against the reference port of its family on drawn traces or
    selector calls; or why it cannot run."""
    from pytest_rmq_conformance.engine.generated.generation import PropertyFailure
    from pytest_rmq_conformance.engine.protocol.client import HarnessFault, HarnessGaveUp, Unsupported
    from pytest_rmq_conformance.kinds.producer.failures import format_rows, selector_lines
    from pytest_rmq_conformance.kinds.producer.golden import CALLS_NOT_RUN, judge

    shape = shape_of(subject)
    if shape is None:
        return f"{subject.name} has neither select_one_message_queue() nor select()"
    if subject.family == "SELECTOR_RANDOM" and "java-random" not in subject.properties:
        return f"{subject.name} does not claim java-random ({subject.properties_origin}): judged by the spread check instead"
    version = subject.settings.version
    found: list[Any] = []

    def body(drawn: TraceCase | SelectorCase) -> None:
        outcome = judge(subject, with_reference_answers(drawn, version), _GENERATED)
        if outcome.passed:
            return
        if outcome.not_run and (outcome.skipped or "").startswith(CALLS_NOT_RUN):
            reject()  # calls the harness did not make, the others as the port: the example does not count
        if outcome.not_run:
            raise HarnessGaveUp(outcome.skipped)
        if outcome.skipped is not None:
            raise Unsupported(outcome.skipped)
        if outcome.error is not None:
            raise HarnessFault(outcome.error)
        found[:] = [outcome]
        mismatch = outcome.mismatches[0]
        where = "the publish list of the route" if mismatch.index < 0 else f"{'step' if shape == 'trace' else 'call'} {mismatch.index}"
        headline = f"{subject.name} differs from the reference port of RocketMQ {version} on a generated {shape}, at {where}: {mismatch.problem}"
        shown = format_rows(mismatch.rows) if shape == "trace" else selector_lines(drawn, mismatch)
        details = [*shown, "(Java: the reference port, which answers every golden vector as Java did)"]
        raise PropertyFailure(format_generated(headline, details, _summary(drawn), _data(drawn), noun=shape))

    def classify() -> str | None:
        return found[0].divergence_class if found else None

    return GeneratedCheck(_examples(subject, shape), body, explicit=_fixed(subject, shape), classify=classify)


def invariant_check(subject: Any, prop: str) -> GeneratedCheck | str:
    """Property ``prop`` of spec §11 on drawn traces or selector calls; or why it does not apply."""
    from pytest_rmq_conformance.engine.generated.generation import PropertyFailure

    shape = shape_of(subject)
    if shape is None:
        return f"{subject.name} has neither select_one_message_queue() nor select()"
    wanted = {**(TRACE_PROPERTIES if shape == "trace" else SELECTOR_PROPERTIES), "one-answer": PROPERTIES["one-answer"]}
    if prop not in wanted:
        return f"{prop} is a property of {'selectors' if shape == 'trace' else 'fault strategies'}; {subject.name} is not one"
    if prop not in subject.properties:
        return f"{subject.name} does not claim {prop} ({subject.properties_origin})"
    if prop == "spread":
        return spread_check(subject)
    if prop == "java-random":
        return "java-random is judged by the golden replay and the reference check"
    if prop == "one-answer":
        return _one_answer_check(subject, shape)
    version, claimed = subject.settings.version, frozenset({prop})

    def body(case: TraceCase | SelectorCase) -> None:
        publish, observations, fault = play(subject, case)
        if isinstance(case, TraceCase):
            violations = trace_violations(case, version, publish, observations, claimed)
        else:
            violations = selector_violations(case, observations, claimed)
        details = [str(v) for v in violations]
        if fault is not None:
            details.append(f"step {len(observations)}: the trace stopped: {fault}")
        if details:
            headline = f"{subject.name} breaks {prop} ({wanted[prop]})"
            raise PropertyFailure(format_generated(headline, details, _summary(case), _data(case), noun=shape))

    return GeneratedCheck(_examples(subject, shape), body, explicit=_fixed(subject, shape))


def _key(observed: Any) -> Any:
    """An observation as data that compares equal when two are the same (an exception by its type and message)."""
    if isinstance(observed, BaseException):
        return (type(observed).__name__, str(observed))
    if isinstance(observed, dict):
        return {key: _key(value) for key, value in observed.items()}
    if isinstance(observed, (list, tuple)):
        return [_key(value) for value in observed]
    return observed


def _one_answer_check(subject: Any, shape: str) -> GeneratedCheck:
    """``one-answer``: a case asked twice, each time of a freshly built strategy, gets the same answers."""
    from pytest_rmq_conformance.engine.generated.generation import PropertyFailure

    def body(case: TraceCase | SelectorCase) -> None:
        first, again = play(subject, case), play(subject, case)
        if _key(first) == _key(again):
            return
        index = next((i for i, (a, b) in enumerate(zip(first[1], again[1])) if _key(a) != _key(b)), min(len(first[1]), len(again[1])))
        unit = "step" if shape == "trace" else "call"
        shown = [f"{unit} {index}: first {_key(first[1][index]) if index < len(first[1]) else first[2]!r:.200}",
                 f"{unit} {index}: again {_key(again[1][index]) if index < len(again[1]) else again[2]!r:.200}"]
        if first[0] != again[0]:
            shown.insert(0, f"publish list {first[0]}, then {again[0]}")
        headline = f"{subject.name} breaks one-answer ({PROPERTIES['one-answer']})"
        raise PropertyFailure(format_generated(headline, shown, _summary(case), _data(case), noun=shape))

    return GeneratedCheck(_examples(subject, shape), body)


def spread_check(subject: Any) -> GeneratedCheck:
    """``spread``: answers to distinct arguments counted per position of the list, held to
    :func:`chi_square_bound`; the selector is built with a drawn ``seed``, printed."""
    from pytest_rmq_conformance.engine.generated.generation import PropertyFailure

    family = subject.family

    def body(drawn: tuple[int, int]) -> None:
        count, seed = drawn
        calls = count * _CALLS_PER_QUEUE
        params = {"seed": seed} if family == "SELECTOR_RANDOM" else {}
        case = SelectorCase(
            id=_GENERATED, strategy=family or "", params=params, category=_GENERATED, flags=(), expect=(),
            queue_counts=(count,) * calls, arg=None,
        )
        if family != "SELECTOR_RANDOM":  # a hash selector spreads keys: one call per distinct key
            counts = [0] * count
            for n in range(calls):
                _, answers, fault = play(subject, replace(case, queue_counts=(count,), arg={"type": "string", "value": f"order-{seed}-{n}"}))
                if fault is None and answers and isinstance(answers[0], int) and 0 <= answers[0] < count:
                    counts[answers[0]] += 1
        else:
            _, answers, fault = play(subject, case)
            counts = [sum(1 for a in answers if a == position) for position in range(count)]
        outside = calls - sum(counts)
        expected = calls / count
        statistic = sum((seen - expected) ** 2 / expected for seen in counts)
        bound = chi_square_bound(count)
        if outside or statistic > bound:
            headline = f"{subject.name} breaks spread ({SELECTOR_PROPERTIES['spread']})"
            details = [
                f"{calls} calls over a list of {count}: counts per position {counts}" + (f", {outside} answers outside the list" if outside else ""),
                f"chi-square {statistic:.1f} > {bound:.1f}, the bound a fair selector exceeds with chance {SPREAD_ALPHA:g}",
                f"selector seed {seed} (params {json.dumps(params)})",
            ]
            raise PropertyFailure(format_generated(headline, details, f"n = {count}, {calls} calls, seed {seed}", json.dumps({"n": count, "seed": seed}), noun="calls"))

    return GeneratedCheck(st.tuples(st.sampled_from([2, 3, 5, 8, 16]), st.integers(0, 2**31 - 1)), body)
