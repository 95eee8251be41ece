"""One strategy on one drawn scenario: every client's share before and after the change, the
invariants the strategy claims, the differential with the reference port, churn and balance.

The functions the plugin's checks use (:func:`~pytest_rmq_conformance.calls.assign`,
:mod:`~pytest_rmq_conformance.properties`, :mod:`~pytest_rmq_conformance.invariants`), with no
pytest: the Spark job calls this in its tasks, the plain runner in one process.

    >>> from pytest_rmq_conformance.pipeline.space import fixed_example
    >>> row = Evaluator("AVG").evaluate(fixed_example())
    >>> row["moved"], row["lower_bound"], row["own"], row["violation_count"]
    (8, 6, 6, 0)
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any, Dict, List, Optional

from pytest_rmq_conformance.calls import Hang, assign
from pytest_rmq_conformance.conformance import Conformance, Settings
from pytest_rmq_conformance.invariants import Violation, minimum_moves, moved_queues
from pytest_rmq_conformance.pipeline.space import Drawn
from pytest_rmq_conformance.properties import CHANGE_PROPERTIES, check_change, check_group, coverage_target, for_scenario
from pytest_rmq_conformance.scenarios import Event, Scenario, default_params
from pytest_rmq_conformance.strategies import DEFAULT_RELEASE

__all__ = ["Evaluator", "RESULT_FIELDS"]

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


class Evaluator:
    """Evaluates scenarios for the strategy ``spec`` (anything ``--rmq-strategy`` accepts)
    at reference release ``version``; each ``allocate`` call is cut off after ``timeout`` s."""

    def __init__(self, spec: str, version: str = DEFAULT_RELEASE, timeout: Optional[float] = 2.0):
        self.spec = spec
        self.conformance = Conformance(Settings(spec=spec, origin="--strategy", version=version, timeout=timeout))
        self.conformance.load()
        self.error = self.conformance.load_error
        self.timeout = timeout

    @property
    def name(self) -> str:
        return self.conformance.name or self.spec

    def _scenario(self, drawn: Drawn) -> Scenario:
        conformance = self.conformance
        family = conformance.family
        params = conformance.fixed_params() or default_params(family, drawn.mq_all)
        return Scenario(family, params, "group", drawn.mq_all, drawn.members)

    def evaluate(self, drawn: Drawn) -> Dict[str, Any]:
        started = time.perf_counter()
        row: Dict[str, Any] = {
            "scenario": drawn.index,
            "strategy": self.spec,
            "name": self.name,
            "queues": len(drawn.mq_all),
            "consumers": len(drawn.members),
            "topics": drawn.topics,
            "brokers": drawn.brokers,
            "rooms": drawn.rooms,
            "event": drawn.event,
            "moved": 0,
            "lower_bound": 0,
            "own": 0,
            "imbalance": 0,
            "calls": 0,
        }
        violations: List[Violation] = []
        if self.error is not None:
            violations.append(Violation("load", self.error))
        else:
            try:
                violations += self._check(drawn, row)
            except Hang as hang:
                violations.append(Violation("hang", str(hang)))
            except Exception as exc:  # a strategy or factory failing in a way assign does not catch
                violations.append(Violation("error", f"{type(exc).__name__}: {exc}"))
        row["violation_count"] = len(violations)
        row["violation_kinds"] = [v.kind for v in violations]
        row["violation_details"] = [v.detail[:DETAIL_LIMIT] for v in violations]
        row["group"] = self._group_json(drawn) if violations else ""
        row["seconds"] = time.perf_counter() - started
        return row

    def _check(self, drawn: Drawn, row: Dict[str, Any]) -> List[Violation]:
        conformance = self.conformance
        claimed = conformance.properties
        before_group = self._scenario(drawn)
        after_group = replace(before_group, cid_all=drawn.after)
        before, problems = assign(conformance.build_for, before_group, self.timeout)
        after, after_problems = assign(conformance.build_for, after_group, self.timeout)
        row["calls"] = len(before) + len(after)
        found = problems + after_problems
        found += check_group(for_scenario(claimed, before_group), before_group, before)
        found += check_group(for_scenario(claimed, after_group), after_group, after)
        found += check_change(claimed & set(CHANGE_PROPERTIES), before, after, Event(drawn.event, drawn.client))
        if conformance.family is not None and conformance.source.kind != "reference":
            found += self._differential(before_group, before) + self._differential(after_group, after)
            row["calls"] *= 2
        target = coverage_target(claimed, before_group)
        row["moved"] = len(moved_queues(before, after))
        row["lower_bound"] = minimum_moves(before, drawn.after, target)
        held = before if drawn.event != "join" else after
        row["own"] = len(held.get(drawn.client, ()))
        sizes = [len(after.get(cid, ())) for cid in drawn.after]
        row["imbalance"] = max(sizes) - min(sizes) if sizes else 0
        return found

    def _differential(self, group: Scenario, shares) -> List[Violation]:
        expected, _ = assign(self.conformance.reference_for, group, self.timeout)
        found = []
        for cid in group.clients:
            mine, java = set(shares.get(cid, ())), set(expected.get(cid, ()))
            if mine != java:
                found.append(
                    Violation(
                        "differs-from-reference",
                        f"{cid}: {len(mine - java)} queue(s) Java does not give, {len(java - mine)} missing",
                        tuple(sorted(mine ^ java)),
                        (cid,),
                    )
                )
        return found

    def _group_json(self, drawn: Drawn) -> str:
        data = self._scenario(drawn).to_json() if self.error is None else {}
        data["event"] = [drawn.event, drawn.client]
        return json.dumps(data, ensure_ascii=False)
