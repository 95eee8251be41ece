"""Golden cases of the 5.x gRPC clients' balancers.

A line of ``golden/grpc/<FAMILY>.jsonl`` (``schemas/golden-grpc-case.schema.json``) becomes a
:class:`GroupCase` (``GROUP_HASH``: a message group and a queue count) or a
:class:`BalancerCase` (``PUBLISH_ROUND_ROBIN``, ``SUBSCRIBE_ROUND_ROBIN``: a route, the index the
balancer starts at, and the steps taken on it), with Java's answers per run.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_rmq_conformance.engine.golden.data import GoldenDataError, Run, check_runs

__all__ = ["GroupCase", "BalancerCase", "parse_case"]


@dataclass(frozen=True)
class _Case:
    id: str
    strategy: str
    params: Mapping[str, Any]
    category: str
    flags: tuple[str, ...]
    expect: tuple[Mapping[str, Any], ...]  # per group of runs: {"runs": [...], answers...}
    source: str = field(default="", compare=False)

    @property
    def runs(self) -> tuple[str, ...]:
        return tuple(run for group in self.expect for run in group["runs"])

    def answers_for(self, run: str) -> Mapping[str, Any]:
        """Java's answers of ``run``."""
        for group in self.expect:
            if run in group["runs"]:
                return group
        raise KeyError(f"{self.id} has no answers for run {run}")


@dataclass(frozen=True)
class GroupCase(_Case):
    """``takeMessageQueueByMessageGroup(group)`` on a route of ``queues`` writable queues of one
    master broker (ids 0..queues-1, so a position is a queue id)."""

    group: str = ""
    queues: int = 1


@dataclass(frozen=True)
class BalancerCase(_Case):
    """One balancer built on ``route`` with its index at ``index``, then ``steps`` in order."""

    route: tuple[Mapping[str, Any], ...] = ()
    index: int = 0
    steps: tuple[Mapping[str, Any], ...] = ()


def parse_case(data: Mapping[str, Any], where: str, runs: Mapping[str, Run]) -> GroupCase | BalancerCase:
    """A schema-valid case document as a case; ``GoldenDataError`` naming ``where`` when it
    names runs the manifest does not have, or answers that do not fit its steps."""
    check_runs(data["expect"], where, runs)
    common = {
        "id": data["id"],
        "strategy": data["strategy"],
        "params": data["params"],
        "category": data["category"],
        "flags": tuple(data["flags"]),
        "expect": tuple(data["expect"]),
        "source": where,
    }
    if data["strategy"] == "GROUP_HASH":
        for n, group in enumerate(data["expect"]):
            if not 0 <= group["index"] < data["queues"]:
                raise GoldenDataError(f"{where}: expect/{n} answers queue {group['index']} of {data['queues']}")
        return GroupCase(**common, group=data["group"], queues=data["queues"])
    for n, group in enumerate(data["expect"]):
        if "steps" in group and len(group["steps"]) != len(data["steps"]):
            raise GoldenDataError(f"{where}: expect/{n} has {len(group['steps'])} step answers for {len(data['steps'])} steps")
    return BalancerCase(**common, route=tuple(data["route"]), index=data["index"], steps=tuple(data["steps"]))
