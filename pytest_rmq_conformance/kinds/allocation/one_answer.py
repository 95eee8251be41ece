"""One answer everywhere: a strategy's answer depends on its inputs and configuration only.

Each check asks the same questions of a scenario in two ways that must not
matter and returns a :class:`~pytest_rmq_conformance.kinds.allocation.invariants.Violation`
per caller whose answers differ:

- ``repetition``: the same call, again, on the same instance;
- ``call-order``: one instance answering this group before and after
  another group of the same consumer group (one client instance serves all
  its topics, one after the other), callers in opposite orders;
- ``fresh-instance``: an instance that has answered other calls against a
  freshly built one;
- ``copies``: the same list objects for every call against per-call copies
  whose elements are equal but distinct objects;
- ``arguments``: calls on the original lists leave them as they were;
- ``process`` and ``time``: answers computed in subprocesses with other
  ``PYTHONHASHSEED`` values, or with the clock moved, against this
  process's (:mod:`~pytest_rmq_conformance.kinds.allocation.answerer`).

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from pytest_rmq_conformance.kinds.allocation.calls import ask
from pytest_rmq_conformance.kinds.allocation.invariants import Violation
from pytest_rmq_conformance.kinds.allocation.replay import answer_key
from pytest_rmq_conformance.kinds.allocation.scenarios import Scenario
from pytest_rmq_conformance.model import MessageQueue

__all__ = ["IN_PROCESS_CHECKS", "NOT_ACROSS_A_PIPE", "SUBPROCESS_CHECKS", "CHECKS", "neighbour", "in_process", "WorkerRun", "across_processes"]

IN_PROCESS_CHECKS = ("repetition", "call-order", "fresh-instance", "copies", "arguments")
#: the checks that cannot apply to a strategy in another process, and why
NOT_ACROSS_A_PIPE = {
    "copies": "list objects do not cross a pipe: the harness gets fresh lists on every call",
    "arguments": "list objects do not cross a pipe: the harness cannot modify the suite's lists",
    "time": "the clock is moved in Python processes only, not in a harness's",
}
SUBPROCESS_CHECKS = ("process", "time")
CHECKS = IN_PROCESS_CHECKS + SUBPROCESS_CHECKS

#: (PYTHONHASHSEED, clock offset in seconds) of the worker processes: the first is the baseline;
#: ``process`` compares other hash seeds with it, ``time`` other clocks (1 d 1 h 1 min 1 s later,
#: half a year and half a second later)
WORKERS = {"process": (("1", 0.0), ("2", 0.0), ("3", 0.0)), "time": (("1", 0.0), ("1", 90_061.0), ("1", 15_854_430.5))}

Builder = Callable[[Scenario], Any]


def neighbour(scenario: Scenario) -> Scenario:
    """Another group of the same consumer group and topics: one member and one queue fewer, one new member."""
    members = list(scenario.clients)
    newcomer = (members[0] if members else "10.0.0.9@1") + "~"
    members = members[:-1] + [newcomer] if len(members) > 1 else members + [newcomer]
    queues = scenario.mq_all[:-1] if len(scenario.mq_all) > 1 else scenario.mq_all
    return replace(scenario, mq_all=queues, cid_all=tuple(members), strangers=())


def _differences(
    check: str, first: dict[str, list], second: dict[str, list], how: str
) -> list[Violation]:
    found = []
    for caller, key in first.items():
        other = second.get(caller)
        if other is not None and other != key:
            found.append(
                Violation(
                    f"one-answer/{check}",
                    f"for {caller!r}: {how}: {_show(key)} against {_show(other)}",
                    clients=(caller,),
                )
            )
    return found


def _show(key: list) -> str:
    if key[0] == "queues":
        shown = ", ".join(str(MessageQueue.from_json(t)) for t in key[1][:3])
        more = f" and {len(key[1]) - 3} more" if len(key[1]) > 3 else ""
        return f"{len(key[1])} queue(s) [{shown}{more}]"
    return " ".join(str(part) for part in key)


def _fresh_copies(scenario: Scenario) -> tuple[list[MessageQueue], list[str]]:
    queues = [MessageQueue("".join(list(mq.topic)), "".join(list(mq.broker_name)), mq.queue_id) for mq in scenario.mq_all]
    return queues, ["".join(list(cid)) for cid in scenario.cid_all]


def in_process(
    check: str,
    build: Builder,
    scenario: Scenario,
    timeout: float | None,
    strict_order: bool,
    fresh: bool = True,
    restart: Callable[[], None] | None = None,
) -> list[Violation]:
    """Run the in-process ``check`` on ``scenario``. ``fresh`` says whether ``build``
    makes a new instance each time (``False`` for an instance spec); for a strategy behind a
    harness, ``restart`` replaces its process, which ``fresh-instance`` then compares with."""
    callers = scenario.callers
    other = neighbour(scenario)

    def keys(strategy, group: Scenario, order: Sequence[str], **lists) -> dict[str, list]:
        return {cid: answer_key(ask(strategy, group, cid, timeout, **lists), strict_order) for cid in order}

    if check == "repetition":
        strategy = build(scenario)
        first = keys(strategy, scenario, callers)
        keys(strategy, other, other.callers)
        again = keys(strategy, scenario, callers)
        return _differences(check, first, again, "first call, then the same call later on the same instance")
    if check == "call-order":
        one, two = build(scenario), build(scenario)
        before = keys(one, scenario, callers)
        keys(two, other, other.callers)
        after = keys(two, scenario, tuple(reversed(callers)))
        return _differences(check, before, after, "asked first, then asked after another group and in reverse order")
    if check == "fresh-instance":
        if not fresh:
            return []
        if restart is not None:  # a harness: a fresh process against the one that answered other calls
            used = build(scenario)
            keys(used, other, other.callers)
            used_keys = keys(used, scenario, callers)
            restart()
            fresh_keys = keys(build(scenario), scenario, callers)
            return _differences(check, fresh_keys, used_keys, "a fresh harness process, then one that answered other calls")
        used = build(scenario)
        keys(used, other, other.callers)
        keys(used, scenario, callers)
        fresh_keys = {cid: answer_key(ask(build(scenario), scenario, cid, timeout), strict_order) for cid in callers}
        used_keys = keys(used, scenario, callers)
        return _differences(check, fresh_keys, used_keys, "a fresh instance, then an instance that answered other calls")
    if check == "copies":
        strategy = build(scenario)
        shared_mq, shared_cid = list(scenario.mq_all), list(scenario.cid_all)
        shared = {}
        for cid in callers:
            answer = ask(strategy, scenario, cid, timeout, mq_all=shared_mq, cid_all=shared_cid, copy_lists=False)
            shared[cid] = answer_key(answer, strict_order)
            if answer.fault is not None:  # the shared lists are spoiled; the arguments check says so
                return []
        mq_copy, cid_copy = _fresh_copies(scenario)
        copied = {cid: answer_key(ask(build(scenario), scenario, cid, timeout, mq_all=mq_copy, cid_all=cid_copy), strict_order) for cid in callers}
        return _differences(check, shared, copied, "the same list objects for every call, then equal copies")
    if check == "arguments":
        strategy = build(scenario)
        found = []
        for cid in callers:
            mq_all, cid_all = list(scenario.mq_all), list(scenario.cid_all)
            answer = ask(strategy, scenario, cid, timeout, mq_all=mq_all, cid_all=cid_all, copy_lists=False)
            if (mq_all, cid_all) != (list(scenario.mq_all), list(scenario.cid_all)):
                found.append(Violation("one-answer/arguments", f"for {cid!r}: {answer.fault}", clients=(cid,)))
        return found
    raise ValueError(f"unknown check {check!r}; expected one of {', '.join(CHECKS)}")


# -- across processes --------------------------------------------------


class WorkerRun:
    """How to start a worker: the strategy spec it can resolve on its own, and the settings."""

    def __init__(self, spec: str, version: str, charset: str, timeout: float | None, strict_order: bool):
        self.spec, self.version, self.charset = spec, version, charset
        self.timeout, self.strict_order = timeout, strict_order

    def request(self, scenarios: Sequence[Scenario], clock_offset: float) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "version": self.version,
            "charset": self.charset,
            "timeout": self.timeout,
            "strictOrder": self.strict_order,
            "clockOffset": clock_offset,
            "sysPath": [p for p in sys.path if isinstance(p, str)],
            "scenarios": [s.to_json() for s in scenarios],
        }

    def limit(self, scenarios: Sequence[Scenario]) -> float:
        calls = sum(len(s.callers) for s in scenarios)
        return 60.0 + (self.timeout or 5.0) * min(calls, 20)


def _start(run: WorkerRun, scenarios: Sequence[Scenario], hash_seed: str, clock_offset: float) -> subprocess.Popen:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONIOENCODING": "utf-8"}
    with tempfile.TemporaryFile() as request:
        request.write(json.dumps(run.request(scenarios, clock_offset)).encode("utf-8"))
        request.seek(0)
        return subprocess.Popen(
            [sys.executable, "-m", "pytest_rmq_conformance.kinds.allocation.answerer"],
            stdin=request,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=os.getcwd(),
        )


def _collect(process: subprocess.Popen, limit: float, label: str) -> tuple[list | None, str | None]:
    """``(answers, None)`` or ``(None, why the worker gave none)``."""
    try:
        out, err = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return None, f"worker {label} did not finish within {limit:g} s and was killed"
    tail = err.decode("utf-8", "replace").strip().splitlines()[-5:]
    if process.returncode != 0:
        return None, f"worker {label} died with exit code {process.returncode}: " + " | ".join(tail)
    try:
        reply = json.loads(out.decode("utf-8"))
    except ValueError:
        return None, f"worker {label} wrote no readable answer: {out[:200]!r} " + " | ".join(tail)
    if "error" in reply:
        return None, f"worker {label}: {reply['error']}"
    return reply["answers"], None


def across_processes(
    check: str, run: WorkerRun, scenarios: Sequence[Scenario]
) -> tuple[list[tuple[int, Violation]], list[str]]:
    """Compare the answers of the ``check``'s worker processes with the first one's.

    Returns ``(scenario index, violation)`` pairs (the first differing
    scenario per worker) and the problems that kept a worker from answering
    (a worker that dies or overruns is reported, not raised).
    """
    workers = WORKERS[check]
    started = [(seed, offset, _start(run, scenarios, seed, offset)) for seed, offset in workers]
    results, problems = [], []
    for seed, offset, process in started:
        label = f"PYTHONHASHSEED={seed}, clock {offset:+g} s"
        answers, problem = _collect(process, run.limit(scenarios), label)
        if problem is not None:
            problems.append(problem)
        results.append((label, answers))
    base_label, base = results[0]
    found: list[tuple[int, Violation]] = []
    if base is None:
        return found, problems
    for label, answers in results[1:]:
        if answers is None:
            continue
        for index, (scenario, mine, theirs) in enumerate(zip(scenarios, base, answers)):
            differing = _differences(
                check,
                dict(zip(scenario.callers, mine)),
                dict(zip(scenario.callers, theirs)),
                f"group #{index} in a process with {base_label}, then with {label}",
            )
            if differing:
                found += [(index, violation) for violation in differing]
                break
    return found, problems
