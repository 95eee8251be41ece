"""A toy second kind of strategy under test, registered in one place to show that a kind is one
folder and one record: nothing of the engine knows it.

``ROUND_ROBIN`` is a stateful selector, as a producer's queue selection is: built with a start
index, each ``next_queue(queues)`` returns ``queues[abs(index % len(queues))]`` and moves the
index on by one, in Java ``int`` arithmetic (it wraps from ``Integer.MAX_VALUE`` to
``Integer.MIN_VALUE``, and Java's ``%`` keeps the sign of the index). An empty list is refused
(``ValueError``, Java's ``IllegalArgumentException``). Its golden vectors
(``golden/ROUND_ROBIN.jsonl``) were worked out by hand; ``harness.py`` serves it over the
protocol with this folder's messages (``schemas/``). ``FloorMod``, ``NoWrap``, ``StartsOneLate`` and
``PicksFromEmpty`` are its deliberately wrong twins, each of which the suite must reject.

Importing this module registers the kind and its family; a package would name it in the
entry-point group ``rmq_conformance.kinds``.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.divergence import ERROR_BEHAVIOUR, FAULT, WRONG_QUEUES, worst
from pytest_rmq_conformance.engine.golden.cases import CaseOutcome
from pytest_rmq_conformance.engine.golden.data import GoldenDataError
from pytest_rmq_conformance.engine.loading.specs import SpecError
from pytest_rmq_conformance.engine.protocol.client import HarnessFault, HarnessGaveUp, Unsupported, quote
from pytest_rmq_conformance.engine.running.timeouts import CallTimeout, StrategyFault, call_with_timeout
from pytest_rmq_conformance.model import MessageQueue

HERE = Path(__file__).resolve().parent
FAMILY = "ROUND_ROBIN"
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


def _int(value: int) -> int:
    """``value`` wrapped to Java's 32-bit ``int``."""
    return (value - INT_MIN) % 2**32 + INT_MIN


def _java_rem(a: int, b: int) -> int:
    """Java's ``a % b``: the sign of ``a``."""
    rem = abs(a) % abs(b)
    return -rem if a < 0 else rem


class RoundRobin:
    """The reference: Java's ``Math.abs(index++ % size)``."""

    name = FAMILY

    def __init__(self, start: int = 0):
        self.start = start
        self.index = _int(start)

    def next_queue(self, queues: Sequence[MessageQueue]) -> MessageQueue:
        if not queues:
            raise ValueError("no queue to pick")
        position = abs(_java_rem(self.index, len(queues)))
        self.index = _int(self.index + 1)
        return queues[position]


class FloorMod(RoundRobin):
    """Takes Python's ``%`` (never negative) for Java's: differs once the index is negative."""

    def next_queue(self, queues):
        if not queues:
            raise ValueError("no queue to pick")
        position = self.index % len(queues)
        self.index = _int(self.index + 1)
        return queues[position]


class NoWrap(RoundRobin):
    """Counts in Python ints: past ``Integer.MAX_VALUE`` it never wraps."""

    def next_queue(self, queues):
        if not queues:
            raise ValueError("no queue to pick")
        position = abs(_java_rem(self.index, len(queues)))
        self.index += 1
        return queues[position]


class StartsOneLate(RoundRobin):
    """Moves the index before it picks."""

    def next_queue(self, queues):
        self.index = _int(self.index + 1)
        if not queues:
            raise ValueError("no queue to pick")
        return queues[abs(_java_rem(self.index, len(queues)))]


class PicksFromEmpty(RoundRobin):
    """Answers ``None`` where Java refuses an empty list."""

    def next_queue(self, queues):
        return None if not queues else super().next_queue(queues)


# -- cases, answers and their comparison -----------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A golden case, or a generated one (``runs`` empty): a start, a queue list, a number of calls."""

    id: str
    strategy: str
    params: Mapping[str, Any]
    queues: tuple[MessageQueue, ...]
    calls: int
    expect: Mapping[str, Any]  # run -> {"picks": [...]} or {"error": ...}
    source: str = ""

    @property
    def runs(self) -> tuple[str, ...]:
        return tuple(self.expect)

    def dumps(self) -> str:
        return json.dumps({"strategy": self.strategy, "params": dict(self.params), "queues": [mq.to_json() for mq in self.queues], "calls": self.calls})


@dataclass(frozen=True)
class Divergence:
    """One call answered otherwise than Java."""

    call: int
    problem: str
    impact: str
    raised: BaseException | None = None

    def __str__(self) -> str:
        return self.problem


def _ask_in_process(build: Callable[[], Any], case: Case, timeout: float | None) -> list[Any]:
    """What each call returned or raised (a timeout or fault ends the list)."""
    try:
        strategy = build()
    except Exception as exc:
        return [exc]
    answers: list[Any] = []
    for _ in range(case.calls):
        try:
            answers.append(call_with_timeout(lambda: strategy.next_queue(list(case.queues)), timeout))
        except (CallTimeout, StrategyFault) as stop:
            answers.append(stop)
            break
        except Exception as exc:
            answers.append(exc)
    return answers


def _compare(expected: Mapping[str, Any], queues: Sequence[MessageQueue], answers: Sequence[Any]) -> list[Divergence]:
    if "error" in expected:
        first = answers[0] if answers else None
        if isinstance(first, ValueError):
            return []
        return [Divergence(1, f"Java threw IllegalArgumentException({expected['error']['message']!r}); yours gave {first!r}", ERROR_BEHAVIOUR)]
    for call, (position, answer) in enumerate(zip(expected["picks"], answers), start=1):
        if isinstance(answer, (CallTimeout, StrategyFault)):
            return [Divergence(call, f"call {call}: {answer}", FAULT)]
        if isinstance(answer, BaseException):
            return [Divergence(call, f"call {call}: Java picks {queues[position].label()}, yours raised {type(answer).__name__}: {answer}", WRONG_QUEUES, answer)]
        if type(answer) is not MessageQueue or answer != queues[position]:
            shown = answer.label() if isinstance(answer, MessageQueue) else repr(answer)
            return [Divergence(call, f"call {call}: Java picks {queues[position].label()}, yours {shown}", WRONG_QUEUES)]
    if len(answers) < len(expected["picks"]):
        return [Divergence(len(answers) + 1, f"call {len(answers) + 1}: no answer", FAULT)]
    return []


def _queues(items: Sequence[Any]) -> tuple[MessageQueue, ...]:
    return tuple(MessageQueue.from_json(item) for item in items)


# -- the kind's record ---------------------------------------------------------------------------


class RoundRobinKind:
    """The :class:`~pytest_rmq_conformance.engine.kinds.Kind` record of the toy kind."""

    name = "round-robin"
    method = "next_queue"
    case_schema: str | Path | None = HERE / "schemas" / "golden-case.schema.json"
    schema_dirs = (HERE / "schemas",)
    golden_dirs = (HERE / "golden",)
    default_properties: frozenset[str] = frozenset()

    def parse_properties(self, claimed: Any, where: str) -> frozenset[str]:
        if claimed:
            raise ValueError(f"{where}: a round-robin selector claims no properties")
        return frozenset()

    def parse_case(self, data: Mapping[str, Any], where: str, runs: Mapping[str, Any]) -> Case:
        expect = {}
        queues = _queues(data["queues"])
        for group in data["expect"]:
            for run in group["runs"]:
                if run not in runs:
                    raise GoldenDataError(f"{where}: names run {run!r}, not in the manifest")
                if any(not 0 <= pick < len(queues) for pick in group.get("picks", ())):
                    raise GoldenDataError(f"{where}: a pick lies outside its {len(queues)} queue(s)")
                expect[run] = {key: group[key] for key in ("picks", "error") if key in group}
        return Case(data["id"], data["strategy"], data["params"], queues, data["calls"], expect, where)

    def check_strategy(self, spec: str, name: str, strategy: Any) -> None:
        method = getattr(strategy, "next_queue", None)
        if not callable(method):
            raise SpecError(f"--rmq-strategy={spec}: the strategy {name} has no next_queue() method")
        try:
            inspect.signature(method).bind([])
        except TypeError as exc:
            raise SpecError(f"--rmq-strategy={spec}: {name}.next_queue cannot be called as next_queue(queues): {exc}") from None

    def replay(self, subject: Any, case: Case, run: Any) -> CaseOutcome:
        settings = subject.settings
        if subject.harness is not None:
            try:
                answers = _ask_harness(subject.harness, case.strategy, case.params, settings.version, case.queues, case.calls)
            except Unsupported as exc:
                return CaseOutcome(case, run.id, subject.name, skipped=f"not implemented: {exc}")
            except HarnessGaveUp as exc:
                return CaseOutcome(case, run.id, subject.name, skipped=str(exc), not_run=True)
            except HarnessFault as exc:
                return CaseOutcome(case, run.id, subject.name, error=str(exc))
        else:
            answers = _ask_in_process(lambda: subject.build(case.strategy, case.params, case), case, settings.timeout)
            if any(isinstance(answer, CallTimeout) for answer in answers):
                subject.hangs.record()
        found = _compare(case.expect[run.id], case.queues, answers)
        return CaseOutcome(case, run.id, subject.name, tuple(found), impact=worst(d.impact for d in found))

    def report(self, outcome: CaseOutcome, rerun: str) -> str:
        case = outcome.case
        first = outcome.error or outcome.mismatches[0].problem
        return "\n".join(
            [
                f"{case.id} at RocketMQ {outcome.run}: {first}",
                f"  inputs: {self.describe_example(case)}",
                f"  rerun: {rerun}",
            ]
        )

    def divergence(self, outcome: CaseOutcome) -> str:
        return outcome.error or outcome.mismatches[0].problem

    def describe_example(self, example: Case) -> str:
        return f"start {example.params.get('start', 0)}, {len(example.queues)} queue(s), {example.calls} call(s)"

    def generated(self, subject: Any) -> kinds.GeneratedCheck | str:
        from hypothesis import strategies as st

        from pytest_rmq_conformance.engine.generated.failures import format_generated
        from pytest_rmq_conformance.engine.generated.generation import PropertyFailure

        starts = st.one_of(st.integers(INT_MIN, INT_MAX), st.sampled_from([INT_MAX - 2, INT_MAX, INT_MIN, -1, 0]))
        queue_lists = st.integers(1, 6).map(lambda n: tuple(MessageQueue("T", "broker-a", i) for i in range(n)))
        examples = st.builds(lambda start, queues, calls: Case("generated", FAMILY, {"start": start}, queues, calls, {}), starts, queue_lists, st.integers(1, 8))
        edge = Case("generated", FAMILY, {"start": INT_MAX - 1}, _queues([["T", "broker-a", 0], ["T", "broker-a", 1], ["T", "broker-a", 2]]), 4, {})
        found: list[Divergence] = []

        def body(example: Case) -> None:
            reference = _ask_in_process(lambda: subject.reference_for(example), example, None)
            expected = {"picks": [example.queues.index(answer) for answer in reference]}
            answers = _ask_in_process(lambda: subject.build_for(example), example, subject.settings.timeout)
            found[:] = _compare(expected, example.queues, answers)
            if found:
                headline = f"{subject.name} differs from the reference on a generated selection: {found[0].problem}"
                raise PropertyFailure(format_generated(headline, [], self.describe_example(example), example.dumps()))

        return kinds.GeneratedCheck(examples, body, [edge], lambda: worst(d.impact for d in found))

    def remote(self, harness: Any, family: str, params: Mapping[str, Any], release: str) -> Any:
        return _RemoteSelector(harness, family, params, release)

    def serve(self, request: Mapping[str, Any], build: Callable[[str, Mapping[str, Any]], Any]) -> dict[str, Any] | None:
        if request.get("cmd") != "next-queue":
            return None
        strategy = build(request["strategy"], request["params"])
        queues = list(_queues(request["queues"]))
        picks = []
        for _ in range(request["calls"]):
            try:
                picks.append(strategy.next_queue(list(queues)).to_json())
            except ValueError as exc:
                return {"error": {"error": "illegal-argument", "message": str(exc)}}
        return {"picks": picks}


def _ask_harness(harness: Any, family: str, params: Mapping[str, Any], release: str, queues: Sequence[MessageQueue], calls: int) -> list[Any]:
    """One ``next-queue`` request: what each call picked (or the error the selector threw)."""
    answer = harness.request(
        {"cmd": "next-queue", "strategy": family, "params": dict(params), "release": release,
         "queues": [mq.to_json() for mq in queues], "calls": calls},
        calls=calls,
    )
    if "error" in answer:
        error = answer["error"]
        return [ValueError(error.get("message")) if error.get("error") == "illegal-argument" else RuntimeError(error.get("message"))]
    picks = answer.get("picks")
    if not isinstance(picks, list) or len(picks) != calls:
        harness.fault_in_flight(f"answered next-queue without {calls} picks: {quote(json.dumps(answer))}")
    return list(_queues(picks))


class _RemoteSelector:
    """A selector behind a harness: each call is one request (the harness keeps the state)."""

    def __init__(self, harness: Any, family: str, params: Mapping[str, Any], release: str):
        self.harness, self.name, self.params, self.release = harness, family, dict(params), release
        self.calls = 0

    def next_queue(self, queues):
        # the harness builds afresh per request: ask for every call so far, keep the last
        self.calls += 1
        (*_, last) = _ask_harness(self.harness, self.name, self.params, self.release, queues, self.calls)
        if isinstance(last, BaseException):
            raise last
        return last


KIND = kinds.register_kind(RoundRobinKind())
kinds.register_family(
    kinds.Family(
        FAMILY,
        build=lambda params, version, charset: RoundRobin(params.get("start", 0)),
        kind=KIND.name,
        keywords=lambda params, version, charset: {"start": params.get("start", 0)},
        params=lambda keywords: {"start": keywords["start"]},
        keyword_names=("start",),
        port=RoundRobin,
    )
)
