"""Internal: the allocation sweep's evaluation of one scenario.

One strategy on one sweep scenario: every client's share before and after the change, judged
by the suite's own checks (:func:`~pytest_rmq_conformance.kinds.allocation.steps.check_step`, and the
differential with the reference port, :func:`~pytest_rmq_conformance.kinds.allocation.differential.differences`).

No pytest here: the Spark job calls this in its tasks, the plain runner in one process.

    >>> from pytest_rmq_conformance.pipeline.allocation.space import fixed_example
    >>> row = Evaluator("AVG").evaluate(fixed_example())
    >>> row["moved"], row["lower_bound"], row["own"], row["violation_count"]
    (8, 6, 6, 0)
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from pytest_rmq_conformance.engine.loading.subject import Subject
from pytest_rmq_conformance.engine.protocol.client import HarnessFault, HarnessGaveUp, Unsupported
from pytest_rmq_conformance.engine.running.hangs import Hang
from pytest_rmq_conformance.engine.running.timeouts import time_limits
from pytest_rmq_conformance.engine.settings import Settings
from pytest_rmq_conformance.javalang import java_sorted_strings
from pytest_rmq_conformance.kinds.allocation.calls import assign
from pytest_rmq_conformance.kinds.allocation.differential import differences
from pytest_rmq_conformance.kinds.allocation.invariants import Violation
from pytest_rmq_conformance.kinds.allocation.quick import read_queues
from pytest_rmq_conformance.kinds.allocation.scenarios import Plan, Scenario, default_params, java_ordered_queues
from pytest_rmq_conformance.kinds.allocation.steps import check_step
from pytest_rmq_conformance.pipeline.allocation.space import layout_of
from pytest_rmq_conformance.releases import DEFAULT_RELEASE

__all__ = ["Evaluator", "Prepared", "RESULT_FIELDS", "prepare", "sweep_entries"]

#: the columns of one result row (the Parquet schema the job writes)
RESULT_FIELDS = (
    ("scenario", "int64"),
    ("strategy", "string"),
    ("name", "string"),
    ("queues", "int32"),
    ("consumers", "int32"),
    ("topics", "int32"),
    ("brokers", "int32"),
    ("rooms", "bool"),
    ("event", "string"),
    ("violation_count", "int32"),
    ("violation_kinds", "list<string>"),
    ("violation_details", "list<string>"),
    ("moved", "int32"),
    ("lower_bound", "int32"),
    ("own", "int32"),
    ("imbalance", "int32"),
    ("calls", "int32"),
    ("seconds", "float64"),
    ("group", "string"),
)
DETAIL_LIMIT = 300


@dataclass(frozen=True)
class Prepared:
    """What evaluating a plan needs whatever the strategy, computed once for all the strategies
    of a sweep: the start group with its queues in Java order (the very tuple of the plan when
    they already are), the members after the event in Java order, and the layout."""

    plan: Plan
    start: Scenario
    after_members: tuple[str, ...]
    layout: tuple[int, int, bool]


#: the last plan prepared: the sweep evaluates each plan with every strategy in turn
_prepared: list[Prepared] = []


def prepare(plan: Plan) -> Prepared:
    """``plan`` prepared for its evaluations (kept for the next evaluator of the same plan).
    Raises ``ValueError`` where Java's sort of its queues would throw."""
    if _prepared and _prepared[0].plan is plan:
        return _prepared[0]
    (_, _), (_, after_members) = plan.groups()
    start = replace(plan.start, mq_all=java_ordered_queues(plan.start.mq_all))
    read_queues(start.mq_all)
    prepared = Prepared(plan, start, tuple(java_sorted_strings(after_members)), layout_of(plan))
    _prepared[:] = [prepared]
    return prepared


def sweep_entries(specs: Sequence[str], version: str, timeout: float | None) -> list[tuple[str, str | None]]:
    """``(spec, family)`` for each strategy swept: a harness serving several families is swept
    once per consumer allocation family (its producer families are not this sweep's), anything
    else once (family ``None``)."""
    from pytest_rmq_conformance.engine.kinds import get as family_record

    entries: list[tuple[str, str | None]] = []
    for spec in specs:
        evaluator = Evaluator(spec, version, timeout)
        served = evaluator.subject.families if evaluator.error is None and evaluator.subject.harness is not None else ()
        allocation = [family for family in served if family_record(family).kind == "allocation"]
        entries += [(spec, family) for family in allocation] if len(served) > 1 and allocation else [(spec, None)]
        evaluator.close()
    return entries


class Evaluator:
    """Evaluates scenarios for the strategy ``spec`` (anything ``--rmq-strategy`` accepts)
    at reference release ``version``; each ``allocate`` call is cut off after ``timeout`` s.
    ``family`` holds a harness serving several families to one of them."""

    def __init__(self, spec: str, version: str = DEFAULT_RELEASE, timeout: float | None = 2.0, family: str | None = None):
        self.spec = spec if family is None else f"{spec} [{family}]"
        subject = Subject(Settings(spec=spec, origin="--strategy", version=version, timeout=timeout))
        self.error = subject.load_error
        self.subject = subject.for_family(family) if family is not None and self.error is None else subject
        self.timeout = timeout

    @property
    def name(self) -> str:
        hello = self.subject.hello if self.error is None else None
        if hello is not None:
            families = self.subject.families
            return hello.name + (f" {families[0]}" if len(families) == 1 else "")
        return self.subject.name or self.spec

    def close(self) -> None:
        """Stop the harness process, if the strategy has one."""
        harness = self.subject.harness if self.error is None else None
        if harness is not None:
            harness.stop()

    def _configured(self, group: Scenario) -> Scenario:
        """``group`` configured for the strategy: an instance's own params, else its family's defaults."""
        family = self.subject.family
        params = self.subject.fixed_params() or default_params(family, group.mq_all)
        return replace(group, strategy=family, params=params)

    def evaluate(self, plan: Plan, index: int = -1) -> dict[str, Any]:
        """The result row of scenario ``index``, ``plan``."""
        started = time.perf_counter()
        row: dict[str, Any] = {
            "scenario": index,
            "strategy": self.spec,
            "name": self.name,
            "queues": len(plan.start.mq_all),
            "consumers": len(plan.start.clients),
            "topics": 0,  # the layout, below: the plan's preparation reads it
            "brokers": 0,
            "rooms": False,
            "event": plan.events[0].kind,
            "moved": 0,
            "lower_bound": 0,
            "own": 0,
            "imbalance": 0,
            "calls": 0,
        }
        violations: list[Violation] = []
        prepared: Prepared | None = None
        if self.error is not None:
            violations.append(Violation("load", self.error))
        else:
            try:
                with time_limits():  # one timer for the calls of the whole scenario, each still limited
                    prepared = prepare(plan)
                    violations += self._check(prepared, row)
            except Hang as hang:
                violations.append(Violation("hang", str(hang)))
            except HarnessFault as fault:  # the harness died, hung or wrote garbage; the next call restarts it
                violations.append(Violation("harness-fault", str(fault)))
            except HarnessGaveUp as exc:
                violations.append(Violation("not-run", str(exc)))
            except Unsupported as exc:
                violations.append(Violation("not-implemented", str(exc)))
            except Exception as exc:  # a strategy or factory failing in a way assign does not catch
                violations.append(Violation("error", f"{type(exc).__name__}: {exc}"))
        row.update(zip(("topics", "brokers", "rooms"), layout_of(plan) if prepared is None else prepared.layout))
        row["violation_count"] = len(violations)
        row["violation_kinds"] = [v.kind for v in violations]
        row["violation_details"] = [v.detail[:DETAIL_LIMIT] for v in violations]
        row["group"] = self._group_json(plan.start if prepared is None else prepared.start, plan) if violations else ""
        row["seconds"] = time.perf_counter() - started
        return row

    def _check(self, prepared: Prepared, row: dict[str, Any]) -> list[Violation]:
        subject = self.subject
        claimed = subject.properties
        event = prepared.plan.events[0]
        before_group = self._configured(prepared.start)
        after_group = Scenario(before_group.strategy, before_group.params, before_group.consumer_group, before_group.mq_all, prepared.after_members)
        trusted = subject.is_reference  # a reference port: asked without the copies that guard against a user's strategy
        before, problems = assign(subject.build_for, before_group, self.timeout, trusted=trusted)
        after, after_problems = assign(subject.build_for, after_group, self.timeout, trusted=trusted)
        row["calls"] = len(before) + len(after)
        step = check_step(claimed, event, before_group, before, after_group, after, members_before=True)
        found = problems + after_problems + list(step.violations)
        if subject.family is not None and not subject.is_reference:
            for group in (before_group, after_group):
                found += self._differential(group)
            row["calls"] *= 2
        row.update(moved=step.moved, lower_bound=step.lower_bound, own=step.own, imbalance=step.imbalance)
        return found

    def _differential(self, group: Scenario) -> list[Violation]:
        """The callers whose answers differ from the reference port's, compared as the suite's
        ``test_matches_reference`` compares them (sets, exceptions by kind)."""
        subject = self.subject
        mismatches = differences(subject.build_for, subject.reference_for, group, timeout=self.timeout)
        return [
            Violation(
                "differs-from-reference",
                f"{m.expected.current_cid}: {m.problem}",
                tuple(sorted(set(m.missing) | set(m.extra))),
                (m.expected.current_cid,) if m.expected.current_cid is not None else (),
            )
            for m in mismatches
        ]

    def _group_json(self, start: Scenario, plan: Plan) -> str:
        """The group as evaluated (``start``, configured), with the plan's event."""
        data = self._configured(start).to_json() if self.error is None else {}
        event = plan.events[0]
        data["event"] = [event.kind, event.client]
        return json.dumps(data, ensure_ascii=False)
