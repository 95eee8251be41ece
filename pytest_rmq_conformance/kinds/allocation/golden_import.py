"""Build ``golden/`` from the output of the Java reference harness.

The harness writes ``<release>/<STRATEGY>[.<variant>].jsonl`` (one scenario
per line, see ``schemas/harness-record.schema.json``). The import validates
every line, checks that a case id means the same inputs in every run, turns
queues in answers and sorted lists into positions in ``mqAll``, merges the
runs that answered a case identically, and records where each run came from.
The output is deterministic: importing the same files twice gives the same
bytes.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.golden.data import GoldenDataError, read_jsonl, run_id_for, write_golden
from pytest_rmq_conformance.releases import parse_release

__all__ = ["ImportReport", "import_harness", "is_source"]

_INPUT_KEYS = ("id", "strategy", "params", "consumerGroup", "mqAll", "cidAll", "tags", "javaSorted")


@dataclass
class ImportReport:
    """What an import read and wrote."""

    records: Counter = field(default_factory=Counter)  # per run id
    cases: Counter = field(default_factory=Counter)  # per strategy
    groups: int = 0  # answer groups written (one per distinct answer set of a case)
    merged_runs: int = 0  # (case, run) pairs stored in a group shared with another run

    def summary(self) -> str:
        runs = ", ".join(f"{run}: {count}" for run, count in sorted(self.records.items()))
        strategies = ", ".join(f"{name}: {count}" for name, count in sorted(self.cases.items()))
        total = sum(self.records.values())
        return (
            f"read {total} harness records ({runs})\n"
            f"wrote {sum(self.cases.values())} cases ({strategies})\n"
            f"{self.groups} answer groups; {self.merged_runs} of {total} records share their group with another run"
        )


def is_source(source: Path) -> bool:
    """Whether ``source`` holds the allocation harness's files (named after allocation families)."""
    from pytest_rmq_conformance.kinds.allocation.family import KIND

    names = {family.name for family in kinds.all_families() if family.kind == KIND}
    return any(path.name.split(".")[0] in names for path in source.glob("*/*.jsonl"))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _positions(sorted_items: Sequence[Any], items: Sequence[Any], where: str) -> list[int]:
    """Where each element of ``sorted_items`` stands in ``items`` (equal elements in turn)."""
    free: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        free.setdefault(json.dumps(item), []).append(index)
    out = []
    for item in sorted_items:
        slots = free.get(json.dumps(item))
        if not slots:
            raise GoldenDataError(f"{where}: sorted list holds {item!r}, which the input does not (as often)")
        out.append(slots.pop(0))
    return out


def _sorted_positions(value: Any, items: Sequence[Any] | None, where: str) -> Any:
    if value is None or isinstance(value, dict):
        return value
    if items is None:
        raise GoldenDataError(f"{where}: a sorted list of a null input")
    if len(value) != len(items):
        raise GoldenDataError(f"{where}: sorted list has {len(value)} items, the input {len(items)}")
    return _positions(value, items, where)


def _convert_results(results: Sequence[dict[str, Any]], mq_all: Sequence[Any] | None) -> list[dict[str, Any]]:
    first_position: dict[str, int] = {}
    for index, triple in enumerate(mq_all or ()):
        first_position.setdefault(json.dumps(triple), index)
    converted = []
    for result in results:
        if "queues" in result:
            queues = [first_position.get(json.dumps(t), t) for t in result["queues"]]
            converted.append({"currentCID": result["currentCID"], "queues": queues})
        else:
            converted.append(dict(result))
    return converted


def _run_order(run_id: str) -> tuple[tuple[int, int, int], str]:
    release, _, charset = run_id.partition("+")
    return (parse_release(release), charset)


def _read_source(source: Path) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]], dict[str, dict[str, dict]]]:
    runs: dict[str, dict[str, Any]] = {}
    sources: list[dict[str, Any]] = []
    records: dict[str, dict[str, dict]] = {}  # case id -> run id -> record
    files = sorted(p for p in source.glob("*/*.jsonl") if p.is_file())
    if not files:
        raise GoldenDataError(f"{source}: no <release>/<STRATEGY>.jsonl harness files found")
    for path in files:
        relative = path.relative_to(source).as_posix()
        file_run: str | None = None
        lines = 0
        for where, record in read_jsonl(path, "harness-record"):
            lines += 1
            reference = record["reference"]
            if reference["rocketmq"] != path.parent.name:
                raise GoldenDataError(
                    f"{where}: reference.rocketmq {reference['rocketmq']} but the file is under {path.parent.name}/"
                )
            run = run_id_for(reference["rocketmq"], reference["defaultCharset"])
            if runs.setdefault(run, reference) != reference:
                raise GoldenDataError(f"{where}: provenance {reference} differs from run {run}'s {runs[run]}")
            if file_run is not None and run != file_run:
                raise GoldenDataError(f"{where}: run {run} in a file of run {file_run}")
            file_run = run
            per_run = records.setdefault(record["id"], {})
            if run in per_run:
                raise GoldenDataError(f"{where}: case appears twice in run {run}")
            if per_run:
                first = next(iter(per_run.values()))
                for key in _INPUT_KEYS:
                    if record[key] != first[key]:
                        raise GoldenDataError(f"{where}: {key} differs from the same case in another run")
            per_run[run] = record
        sources.append({"path": relative, "run": file_run or "", "lines": lines, "sha256": _sha256(path)})
    return runs, sources, records


def _case(case_id: str, per_run: dict[str, dict[str, Any]], report: ImportReport) -> dict[str, Any]:
    first = next(iter(per_run.values()))
    where = f"case {case_id}"
    groups: dict[str, dict[str, Any]] = {}
    for run in sorted(per_run, key=_run_order):
        results = _convert_results(per_run[run]["results"], first["mqAll"])
        key = json.dumps(results)
        if key in groups:
            groups[key]["runs"].append(run)
        else:
            groups[key] = {"runs": [run], "results": results}
        report.records[run] += 1
    report.groups += len(groups)
    report.merged_runs += sum(len(g["runs"]) for g in groups.values() if len(g["runs"]) > 1)
    tags = first["tags"]
    return {
        "id": case_id,
        "strategy": first["strategy"],
        "params": first["params"],
        "consumerGroup": first["consumerGroup"],
        "mqAll": first["mqAll"],
        "cidAll": first["cidAll"],
        "category": tags[0],
        "flags": list(dict.fromkeys(tags[1:])),
        "javaSorted": {
            "mqAll": _sorted_positions(first["javaSorted"]["mqAll"], first["mqAll"], f"{where}: javaSorted.mqAll"),
            "cidAll": _sorted_positions(first["javaSorted"]["cidAll"], first["cidAll"], f"{where}: javaSorted.cidAll"),
        },
        "expect": list(groups.values()),
    }


def import_harness(source: os.PathLike, out: os.PathLike) -> ImportReport:
    """Convert the harness files under ``source`` into a golden directory at ``out``.

    Only ``manifest.json`` and ``*.jsonl`` in ``out`` are replaced (other
    files, such as its README, stay). The new set is written and validated
    aside first, so a failed import leaves ``out`` as it was.
    """
    source, out = Path(source), Path(out)
    if not source.is_dir():
        raise GoldenDataError(f"{source}: not a directory")
    runs, sources, records = _read_source(source)
    report = ImportReport()
    by_strategy: dict[str, list[dict[str, Any]]] = {}
    for case_id in sorted(records):
        case = _case(case_id, records[case_id], report)
        by_strategy.setdefault(case["strategy"], []).append(case)
        report.cases[case["strategy"]] += 1
    manifest = {
        "format": 1,
        "runs": {run: runs[run] for run in sorted(runs, key=_run_order)},
        "files": {f"{name}.jsonl": len(cases) for name, cases in sorted(by_strategy.items())},
        "sources": sources,
    }
    write_golden(out, manifest, by_strategy)
    return report
