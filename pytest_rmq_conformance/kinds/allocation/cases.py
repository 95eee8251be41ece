"""Golden cases of consumer allocation: one group's inputs, and Java's answer to each caller per run.

A line of ``golden/<STRATEGY>.jsonl`` (``schemas/golden-case.schema.json``) becomes a
:class:`GoldenCase`; see ``golden/README.md`` for the format.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from operator import itemgetter
from typing import Any

from pytest_rmq_conformance.engine.golden.data import GoldenDataError, Run, check_runs
from pytest_rmq_conformance.model import MessageQueue

__all__ = ["ILLEGAL_ARGUMENT", "JavaError", "Expected", "Expectation", "GoldenCase", "parse_case"]

ILLEGAL_ARGUMENT = "java.lang.IllegalArgumentException"

#: one :class:`MessageQueue` per distinct queue of the golden files, which cases share (a tenth
#: as many objects to build, and for the garbage collector to walk, as there are queues in mqAll)
_interned = lru_cache(maxsize=1 << 16, typed=True)(MessageQueue)


def _queue(triple: Any) -> MessageQueue:
    """The queue of a ``[topic, brokerName, queueId]`` triple."""
    if type(triple) is list and len(triple) == 3:
        try:
            return _interned(*triple)
        except TypeError:  # an unhashable field: said below
            pass
    return MessageQueue.from_json(triple)


@dataclass(frozen=True)
class JavaError:
    """A Java exception: its class name and ``getMessage()``."""

    error: str
    message: str | None

    @property
    def illegal_argument(self) -> bool:
        return self.error == ILLEGAL_ARGUMENT

    @property
    def short_name(self) -> str:
        return self.error.rsplit(".", 1)[-1]


@dataclass(frozen=True, slots=True)
class Expected:
    """What Java answered one caller: a list of queues, an exception, or ``null``."""

    current_cid: str | None
    queues: tuple[MessageQueue, ...] | None = None
    error: JavaError | None = None

    @property
    def kind(self) -> str:
        if self.queues is not None:
            return "queues"
        return "error" if self.error is not None else "null"


@dataclass(frozen=True)
class Expectation:
    """The answers shared by a group of runs."""

    runs: tuple[str, ...]
    results: tuple[Expected, ...]


SortOutcome = tuple[int, ...] | JavaError | None


@dataclass(frozen=True)
class GoldenCase:
    """One scenario: the inputs, and Java's answers per run."""

    id: str
    strategy: str
    params: Mapping[str, Any]
    consumer_group: str | None
    mq_all: tuple[MessageQueue, ...] | None
    cid_all: tuple[str, ...] | None
    category: str
    flags: tuple[str, ...]
    java_sorted_mq_all: SortOutcome
    java_sorted_cid_all: SortOutcome
    expect: tuple[Expectation, ...]
    source: str = field(default="", compare=False)

    @property
    def runs(self) -> tuple[str, ...]:
        return tuple(run for group in self.expect for run in group.runs)

    def results_for(self, run: str) -> tuple[Expected, ...]:
        for group in self.expect:
            if run in group.runs:
                return group.results
        raise KeyError(f"case {self.id} has no answers for run {run}")

    def params_for(self, run: Run) -> dict[str, Any]:
        """The case's ``params`` for ``reference_strategy``, with the run's charset when not UTF-8."""
        params = dict(self.params)
        if run.default_charset != "UTF-8":
            params["charset"] = run.default_charset
        return params



def _queue_ref(ref: Any, mq_all: tuple[MessageQueue, ...] | None, where: str) -> MessageQueue:
    if isinstance(ref, int):
        if mq_all is None or ref >= len(mq_all):
            size = "null" if mq_all is None else len(mq_all)
            raise GoldenDataError(f"{where}: queue index {ref} is outside mqAll (size {size})")
        return mq_all[ref]
    return _queue(ref)


def _sort_outcome(value: Any, size: int | None, where: str) -> SortOutcome:
    if value is None:
        return None
    if isinstance(value, dict):
        return JavaError(value["error"], value["message"])
    if size is None or sorted(value) != list(range(size)):
        raise GoldenDataError(f"{where}: is not a permutation of the input positions")
    return tuple(value)


def _queues_of(refs: Sequence[Any], mq_all: tuple[MessageQueue, ...] | None, place: Callable[[], str]) -> tuple[MessageQueue, ...]:
    """The queues an answer names: positions in mqAll (the usual case, read in one C call), or
    queues given in full; ``GoldenDataError`` (naming ``place()``) for a position outside mqAll."""
    if not refs:
        return ()
    if mq_all is not None:
        try:
            if min(refs) >= 0:
                picked = itemgetter(*refs)(mq_all)
                return picked if len(refs) > 1 else (picked,)
        except (TypeError, IndexError):  # queues given in full, or a position outside mqAll: said below
            pass
    where = place()
    return tuple(_queue_ref(ref, mq_all, where) for ref in refs)


def _place(where: str, group: int, result: int) -> str:
    return f"{where}: expect/{group}/results/{result}"


def _results(results: Sequence[Mapping[str, Any]], mq_all, where: str, group: int) -> tuple[Expected, ...]:
    """Java's answers to the callers of expectation group ``group`` of the case at ``where``."""
    out = []
    for index, data in enumerate(results):
        cid = data["currentCID"]
        if "queues" in data:
            out.append(Expected(cid, queues=_queues_of(data["queues"], mq_all, partial(_place, where, group, index))))
        elif "error" in data:
            out.append(Expected(cid, error=JavaError(data["error"], data["message"])))
        else:
            out.append(Expected(cid))
    return tuple(out)


def parse_case(data: Mapping[str, Any], where: str, runs: Mapping[str, Run]) -> GoldenCase:
    """A schema-valid case document as a :class:`GoldenCase`; ``GoldenDataError`` when
    it refers to unknown runs or to queues it does not have. ``where`` names it in errors."""
    mq_all = None if data["mqAll"] is None else tuple(map(_queue, data["mqAll"]))
    cid_all = None if data["cidAll"] is None else tuple(data["cidAll"])
    check_runs(data["expect"], where, runs)
    expect = []
    for n, group in enumerate(data["expect"]):
        expect.append(Expectation(tuple(group["runs"]), _results(group["results"], mq_all, where, n)))
    java_sorted = data["javaSorted"]
    return GoldenCase(
        id=data["id"],
        strategy=data["strategy"],
        params=data["params"],
        consumer_group=data["consumerGroup"],
        mq_all=mq_all,
        cid_all=cid_all,
        category=data["category"],
        flags=tuple(data["flags"]),
        java_sorted_mq_all=_sort_outcome(
            java_sorted["mqAll"], None if mq_all is None else len(mq_all), f"{where}: javaSorted/mqAll"
        ),
        java_sorted_cid_all=_sort_outcome(
            java_sorted["cidAll"], None if cid_all is None else len(cid_all), f"{where}: javaSorted/cidAll"
        ),
        expect=tuple(expect),
        source=where,
    )
