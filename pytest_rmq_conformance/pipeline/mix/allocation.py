"""Internal: the consumer side of the mix sweep.

The consumer side of ``sweep --mix``: one client's allocation sharing a consumer group with
Java's reference of the same family.

Each scenario is the allocation sweep's (:class:`~.space.SweepSpace`: a group, its queues and
layout, one join, leave or crash). Every client of the scenario (the members before the event,
and a joiner) runs either the strategy under test (X) or Java's reference port; a *mix* says
which. Three mixes a scenario, drawn from ``(seed, scenario, mix)`` so they replay anywhere:
one X client, half of them (rounded down), all but one; a size already taken by an earlier mix
is not repeated, so a pool of two clients has one mix. Before and after the event each member
computes its own share with its own strategy, as the sweep's evaluator asks them (fresh
instances, the same time limits); a crash is a leave as the allocation sweep models it (the
crashed client is gone from ``cidAll``, its stale view is not modelled).

A member's answer does not depend on what the others run, so X and Java are each asked once per
step and every mix is put together from the two: exact, and the cost of two assignments.

Per mix and step, against the all-Java group of the same step: a queue is *double-taken* when
two or more members take it and more members take it than under Java (CONFIG's shared list is
Java's own); *orphaned* when nobody takes it and somebody does under Java (MACHINE_ROOM's
queues outside the rooms are Java's own). Java mixed with itself is zero by construction.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from pytest_rmq_conformance.engine.kinds import get as family_record
from pytest_rmq_conformance.engine.protocol.client import HarnessFault, HarnessGaveUp, Unsupported
from pytest_rmq_conformance.engine.running.hangs import Hang
from pytest_rmq_conformance.engine.running.timeouts import time_limits
from pytest_rmq_conformance.kinds.allocation.calls import assign
from pytest_rmq_conformance.kinds.allocation.scenarios import Plan, Scenario
from pytest_rmq_conformance.pipeline.allocation.evaluate import Evaluator, prepare
from pytest_rmq_conformance.pipeline.allocation.space import layout_of
from pytest_rmq_conformance.releases import DEFAULT_RELEASE

__all__ = ["MIXES", "MIX_FIELDS", "MixEvaluator", "mixes", "consumer_entries", "holders", "mix_costs"]

#: the mixes of a scenario, in order: how many of the pool's clients run the strategy under test
MIXES = ("one", "half", "all-but-one")
#: the columns of one result row: a strategy (and family) on one scenario, one mix
MIX_FIELDS = (
    ("scenario", "int64"),
    ("strategy", "string"),
    ("spec", "string"),
    ("family", "string"),
    ("queues", "int32"),
    ("consumers", "int32"),
    ("topics", "int32"),
    ("brokers", "int32"),
    ("rooms", "bool"),
    ("event", "string"),
    ("mix", "string"),
    ("pool", "int32"),
    ("x_clients", "list<string>"),
    ("double_before", "int32"),
    ("orphaned_before", "int32"),
    ("double_after", "int32"),
    ("orphaned_after", "int32"),
    ("java_double", "int32"),
    ("java_orphaned", "int32"),
    ("failed_calls", "int32"),
    ("error", "string"),
    ("group", "string"),
    ("seconds", "float64"),
)
DETAIL_LIMIT = 300


def mixes(pool: Sequence[str], seed: int, index: int) -> list[tuple[str, tuple[str, ...]]]:
    """``(mix, the clients running the strategy under test)`` for a scenario whose clients are ``pool``.

    >>> [(name, len(chosen)) for name, chosen in mixes([f"c{i}" for i in range(5)], 0, 3)]
    [('one', 1), ('half', 2), ('all-but-one', 4)]
    >>> [name for name, _ in mixes(["a", "b"], 0, 3)]
    ['one']
    """
    ordered = sorted(pool)
    sizes = {"one": 1, "half": len(ordered) // 2, "all-but-one": len(ordered) - 1}
    found: list[tuple[str, tuple[str, ...]]] = []
    taken: set[int] = set()
    for name in MIXES:
        size = sizes[name]
        if size < 1 or size in taken:
            continue
        taken.add(size)
        chosen = random.Random(f"rmq-mix:{seed}:{index}:{name}").sample(ordered, size)
        found.append((name, tuple(sorted(chosen))))
    return found


def holders(shares: dict[str, Sequence[Any]]) -> Counter:
    """How many members take each queue (a member naming a queue twice takes it once)."""
    counts: Counter = Counter()
    for share in shares.values():
        counts.update(set(share))
    return counts


def mix_costs(
    mq_all: Iterable[Any], java: dict[str, Sequence[Any]], mine: dict[str, Sequence[Any]], x_clients: Iterable[str]
) -> tuple[int, int]:
    """``(double-taken, orphaned)`` queues of the group where ``x_clients`` take ``mine``'s shares
    and the other members ``java``'s, counted against the all-Java group.

    >>> java = {"a": ["q0"], "b": ["q1"]}
    >>> mix_costs(["q0", "q1"], java, {"a": ["q1"], "b": ["q0"]}, ["a"])
    (1, 1)
    >>> mix_costs(["q0", "q1"], java, java, ["a", "b"])
    (0, 0)
    """
    base = holders(java)
    mixed = Counter(base)
    for cid in x_clients:
        if cid in java:
            mixed.subtract(set(java[cid]))
            mixed.update(set(mine.get(cid, ())))
    queues = set(mq_all)  # a queue outside the topic is a wrong answer, not a queue of the group to take twice
    double = sum(1 for q in queues if mixed[q] >= 2 and mixed[q] > base[q])
    orphaned = sum(1 for q in queues if mixed[q] <= 0 < base[q])
    return double, orphaned


def _java_costs(mq_all: Sequence[Any], java: dict[str, Sequence[Any]]) -> tuple[int, int]:
    """The all-Java group's own double-taken and untaken queues (context for the report)."""
    counts = holders(java)
    return sum(1 for n in counts.values() if n >= 2), sum(1 for q in set(mq_all) if counts[q] == 0)


def consumer_entries(
    specs: Sequence[str], version: str, timeout: float | None
) -> tuple[list[tuple[str, str | None]], list[str]]:
    """``(spec, family)`` for each consumer strategy mixed (a harness once per allocation family
    it serves), and why a spec cannot be mixed: it does not load, or serves no allocation family."""
    entries: list[tuple[str, str | None]] = []
    problems: list[str] = []
    for spec in dict.fromkeys(specs):
        evaluator = Evaluator(spec, version, timeout)
        try:
            if evaluator.error is not None:
                problems.append(evaluator.error.replace(f"--rmq-strategy={spec}", f"--strategy {spec}", 1))
                continue
            subject = evaluator.subject
            served = [f for f in subject.families if family_record(f).kind == "allocation"]
            if subject.harness is not None:
                if not served:
                    problems.append(
                        f"--strategy {spec}: the harness serves {', '.join(subject.families) or 'nothing'}, "
                        "no consumer allocation family to mix (--mix --groups mixes GROUP_HASH and SELECTOR_HASH)"
                    )
                entries += (
                    [(spec, family) for family in served]
                    if len(subject.families) > 1
                    else [(spec, None)] * bool(served)
                )
            elif subject.family is None or subject.kind.name != "allocation":
                problems.append(
                    f"--strategy {spec}: {subject.name!r} has no Java allocation family to mix with; "
                    "its name must be one of Java's (AVG, AVG_BY_CIRCLE, CONSISTENT_HASH, ...)"
                )
            else:
                entries.append((spec, None))
        finally:
            evaluator.close()
    return entries, problems


class MixEvaluator(Evaluator):
    """Mixes the strategy ``spec`` (held to ``family`` for a harness serving several) with Java's
    reference port of its family on sweep scenarios."""

    def __init__(
        self, spec: str, version: str = DEFAULT_RELEASE, timeout: float | None = 2.0, family: str | None = None
    ):
        super().__init__(spec, version, timeout, family)
        self.plain_spec = spec

    def _shares(self, group: Scenario, reference: bool) -> tuple[dict[str, Sequence[Any]], list[Any]]:
        subject = self.subject
        build = subject.reference_for if reference else subject.build_for
        return assign(build, group, self.timeout, trusted=reference or subject.is_reference)

    def rows(self, plan: Plan, index: int, seed: int) -> list[dict[str, Any]]:
        """One result row per mix of scenario ``index`` (``plan``) of ``seed``."""
        started = time.perf_counter()
        (_, before_members), (_, after_members) = plan.groups()
        pool = sorted(set(before_members) | set(after_members))
        chosen = mixes(pool, seed, index)
        common: dict[str, Any] = {
            "scenario": index,
            "strategy": self.spec,
            "spec": self.plain_spec,
            "family": self.subject.family if self.error is None else None,
            "queues": len(plan.start.mq_all),
            "consumers": len(plan.start.clients),
            "event": plan.events[0].kind,
            "pool": len(pool),
        }
        counts: dict[str, tuple[int, ...]] = {}
        error: str | None = self.error
        failed: dict[str, int] = {}
        prepared = None
        java_costs = (0, 0)
        if error is None:
            try:
                with time_limits():
                    prepared = prepare(plan)
                    before_group = self._configured(prepared.start)
                    after_group = replace(before_group, cid_all=prepared.after_members)
                    steps = []
                    problems: list[Any] = []
                    for group in (before_group, after_group):
                        java, java_problems = self._shares(group, reference=True)
                        mine, mine_problems = self._shares(group, reference=False)
                        if java_problems:
                            raise RuntimeError(f"Java's reference port failed: {java_problems[0].detail}")
                        problems += mine_problems
                        steps.append((group.mq_all, java, mine))
                    doubles, orphans = zip(*(_java_costs(mq_all, java) for mq_all, java, _ in steps))
                    java_costs = (sum(doubles), sum(orphans))
                    for name, x_clients in chosen:
                        per_step = [mix_costs(mq_all, java, mine, x_clients) for mq_all, java, mine in steps]
                        counts[name] = (*per_step[0], *per_step[1])
                        mine_failed = [p for p in problems if set(p.clients) & set(x_clients)]
                        failed[name] = len(mine_failed)
                        if mine_failed and error is None:
                            error = f"{mine_failed[0].kind}: {mine_failed[0].detail}"
            except Hang as hang:
                error = f"hang: {hang}"
            except HarnessFault as fault:
                error = f"harness-fault: {fault}"
            except (HarnessGaveUp, Unsupported) as exc:
                error = f"not-run: {exc}"
            except Exception as exc:
                error = f"error: {type(exc).__name__}: {exc}"
        common.update(zip(("topics", "brokers", "rooms"), layout_of(plan) if prepared is None else prepared.layout))
        seconds = (time.perf_counter() - started) / max(1, len(chosen))
        rows = []
        for name, x_clients in chosen:
            found = counts.get(name)
            row_error = error if found is None or failed.get(name) else None
            costs = found or (0, 0, 0, 0)
            row = {
                **common,
                "mix": name,
                "x_clients": list(x_clients),
                "double_before": costs[0],
                "orphaned_before": costs[1],
                "double_after": costs[2],
                "orphaned_after": costs[3],
                "java_double": java_costs[0],
                "java_orphaned": java_costs[1],
                "failed_calls": failed.get(name, 0),
                "error": None if row_error is None else row_error[:DETAIL_LIMIT],
                "seconds": seconds,
            }
            bad = any(costs) or row_error is not None
            row["group"] = self._group_json(plan.start if prepared is None else prepared.start, plan) if bad else ""
            rows.append(row)
        return rows
