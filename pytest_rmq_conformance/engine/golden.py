"""Load and validate the golden vectors: what the Java strategies answered.

``golden/manifest.json`` names the runs (a RocketMQ release, and the JVM
default charset when it was not UTF-8) with their provenance;
``golden/<STRATEGY>.jsonl`` holds one case per line, validated against
``schemas/golden-case.schema.json``. See ``golden/README.md`` for the format.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.resources import golden_dir, schema_validator
from pytest_rmq_conformance.model import MessageQueue

__all__ = [
    "ILLEGAL_ARGUMENT",
    "GoldenDataError",
    "Run",
    "JavaError",
    "Expected",
    "Expectation",
    "GoldenCase",
    "Golden",
    "load_golden",
    "parse_case",
    "read_jsonl",
    "schema_problems",
]

ILLEGAL_ARGUMENT = "java.lang.IllegalArgumentException"
MANIFEST = "manifest.json"


class GoldenDataError(ValueError):
    """Golden data that is unreadable or breaks its schema; the message names the file, line and case."""


@dataclass(frozen=True)
class Run:
    """One run of the Java harness: a release under one JVM default charset."""

    id: str
    rocketmq: str
    commit: str
    jdk: str
    file_encoding: str
    default_charset: str

    @classmethod
    def from_json(cls, run_id: str, data: Mapping[str, str]) -> Run:
        return cls(
            run_id,
            data["rocketmq"],
            data["commit"],
            data["jdk"],
            data["fileEncoding"],
            data["defaultCharset"],
        )

    def to_json(self) -> dict[str, str]:
        return {
            "rocketmq": self.rocketmq,
            "commit": self.commit,
            "jdk": self.jdk,
            "fileEncoding": self.file_encoding,
            "defaultCharset": self.default_charset,
        }


def run_id_for(rocketmq: str, default_charset: str) -> str:
    """``"4.9.8"`` for a UTF-8 run, ``"4.9.8+ISO-8859-1"`` for another charset."""
    return rocketmq if default_charset == "UTF-8" else f"{rocketmq}+{default_charset}"


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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Golden:
    """The whole golden set: runs by id and cases in file order."""

    directory: Path
    runs: Mapping[str, Run]
    cases: tuple[GoldenCase, ...]

    def by_strategy(self, strategy: str) -> list[GoldenCase]:
        return [case for case in self.cases if case.strategy == strategy]

    def case(self, case_id: str) -> GoldenCase:
        for case in self.cases:
            if case.id == case_id:
                return case
        raise KeyError(case_id)


def schema_problems(name: str, document: Any) -> list[str]:
    """Every way ``document`` breaks ``schemas/<name>.schema.json``, as ``at <path>: <message>`` lines."""
    problems = []
    for error in sorted(schema_validator(name).iter_errors(document), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(part) for part in error.absolute_path) or "(top)"
        problems.append(f"at {where}: {error.message}")
    return problems


def _queue_ref(ref: Any, mq_all: tuple[MessageQueue, ...] | None, where: str) -> MessageQueue:
    if isinstance(ref, int):
        if mq_all is None or ref >= len(mq_all):
            size = "null" if mq_all is None else len(mq_all)
            raise GoldenDataError(f"{where}: queue index {ref} is outside mqAll (size {size})")
        return mq_all[ref]
    return MessageQueue.from_json(ref)


def _sort_outcome(value: Any, size: int | None, where: str) -> SortOutcome:
    if value is None:
        return None
    if isinstance(value, dict):
        return JavaError(value["error"], value["message"])
    if size is None or sorted(value) != list(range(size)):
        raise GoldenDataError(f"{where}: is not a permutation of the input positions")
    return tuple(value)


def _expected(data: Mapping[str, Any], mq_all, where: str) -> Expected:
    cid = data["currentCID"]
    if "queues" in data:
        return Expected(cid, queues=tuple(_queue_ref(ref, mq_all, where) for ref in data["queues"]))
    if "error" in data:
        return Expected(cid, error=JavaError(data["error"], data["message"]))
    return Expected(cid)


def parse_case(data: Mapping[str, Any], where: str, runs: Mapping[str, Run]) -> GoldenCase:
    """A schema-valid case document as a :class:`GoldenCase`; ``GoldenDataError`` when
    it refers to unknown runs or to queues it does not have. ``where`` names it in errors."""
    mq_all = None if data["mqAll"] is None else tuple(MessageQueue.from_json(t) for t in data["mqAll"])
    cid_all = None if data["cidAll"] is None else tuple(data["cidAll"])
    seen: set = set()
    expect = []
    for n, group in enumerate(data["expect"]):
        for run in group["runs"]:
            if run not in runs:
                raise GoldenDataError(f"{where}: expect/{n} names run {run!r}, not in {MANIFEST}")
            if run in seen:
                raise GoldenDataError(f"{where}: run {run!r} has two groups of answers")
            seen.add(run)
        results = tuple(
            _expected(result, mq_all, f"{where}: expect/{n}/results/{i}")
            for i, result in enumerate(group["results"])
        )
        expect.append(Expectation(tuple(group["runs"]), results))
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


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GoldenDataError(f"{path}: cannot read {what}: {exc}") from None


def _load_manifest(directory: Path, validate: bool) -> dict[str, Run]:
    path = directory / MANIFEST
    manifest = _read_json(path, "the golden manifest")
    problems = schema_problems("golden-manifest", manifest) if validate else []
    if problems:
        raise GoldenDataError(f"{path}: not a valid golden manifest: " + "; ".join(problems[:5]))
    try:
        return {run_id: Run.from_json(run_id, data) for run_id, data in manifest["runs"].items()}
    except (KeyError, TypeError, AttributeError) as exc:  # only unvalidated (shipped) data gets here
        raise GoldenDataError(f"{path}: not a valid golden manifest ({type(exc).__name__}: {exc})") from None


def read_jsonl(path: Path, schema: str | None) -> Iterator[tuple[str, dict[str, Any]]]:
    """The documents of a JSON-lines file, each checked against ``schemas/<schema>.schema.json``
    (not checked when ``schema`` is ``None``).

    Yields ``(where, document)`` with ``where`` = ``"<path>:<line> (case <id>)"``;
    raises :class:`GoldenDataError` at the first unreadable or invalid line.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise GoldenDataError(f"{path}: cannot read: {exc}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise GoldenDataError(f"{where}: not JSON: {exc}") from None
        problems = [] if schema is None else schema_problems(schema, data)
        case_id = data.get("id") if isinstance(data, dict) else None
        where = f"{where} (case {case_id or '?'})"
        if problems:
            raise GoldenDataError(f"{where}: breaks schemas/{schema}.schema.json: " + "; ".join(problems[:5]))
        yield where, data


def _iter_file(path: Path, runs: Mapping[str, Run], validate: bool) -> Iterator[GoldenCase]:
    for where, data in read_jsonl(path, "golden-case" if validate else None):
        try:
            expected_file = f"{data['strategy']}.jsonl"
            if path.name != expected_file:
                raise GoldenDataError(f"{where}: a {data['strategy']} case belongs in {expected_file}")
            yield parse_case(data, where, runs)
        except GoldenDataError:
            raise
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise GoldenDataError(
                f"{where}: malformed case ({type(exc).__name__}: {exc}); "
                f"`rmq-conformance golden check {path.parent}` names every problem"
            ) from None


def load_golden(
    directory: str | Path | None = None,
    strategies: Sequence[str] | None = None,
    *,
    validate: bool | None = None,
) -> Golden:
    """Read a golden directory (the shipped one, read once per process, by default).

    Every line of a given directory is validated against its schema. The
    shipped data was validated where it was built and is checked in CI
    (``rmq-conformance golden check``), so by default it is only parsed;
    ``validate=True`` validates it too. ``strategies`` limits the read to
    those strategies' files. Raises :class:`GoldenDataError` naming the file,
    line and case of the first problem found.
    """
    wanted = None if strategies is None else tuple(sorted(set(strategies)))
    if directory is None:
        return _load_shipped(wanted, bool(validate))
    return _load(Path(directory), wanted, True if validate is None else validate)


@lru_cache(maxsize=8)
def _load_shipped(strategies: tuple[str, ...] | None, validate: bool) -> Golden:
    return _load(golden_dir(), strategies, validate)


def _load(directory: Path, strategies: tuple[str, ...] | None, validate: bool) -> Golden:
    if not directory.is_dir():
        raise GoldenDataError(f"{directory}: golden directory not found")
    runs = _load_manifest(directory, validate)
    cases: list[GoldenCase] = []
    ids: dict[str, str] = {}
    for path in sorted(directory.glob("*.jsonl")):
        if strategies is not None and path.stem not in strategies:
            continue
        for case in _iter_file(path, runs, validate):
            if case.id in ids:
                raise GoldenDataError(f"{case.source}: duplicate case id, first seen at {ids[case.id]}")
            ids[case.id] = case.source
            cases.append(case)
    return Golden(directory, runs, tuple(cases))
