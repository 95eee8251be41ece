"""Build ``golden/producer/`` from the Java producer-selection vectors.

The source holds ``<release>/<FAMILY>.jsonl`` (``FAULT_STRATEGY``, ``SELECTOR_HASH``,
``SELECTOR_RANDOM``) and the ``vector.schema.json`` every line follows, or, without one, the lines
of the project's own harness (``schemas/producer-harness-record.schema.json``). The releases hold the
same scenarios under the same ids; only the answers differ. The import validates every line
against that schema, checks that an id means the same inputs in every release, keeps the
inputs once and Java's answers once per group of releases that answered alike, and records
where each release's answers came from. Importing the same files twice gives the same bytes.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.golden.data import GoldenDataError, compact_json, read_jsonl, write_golden
from pytest_rmq_conformance.releases import parse_release

__all__ = ["FAMILIES", "SOURCE_SCHEMA", "ImportReport", "import_vectors", "is_source"]

FAMILIES = ("FAULT_STRATEGY", "SELECTOR_HASH", "SELECTOR_RANDOM")
#: the schema file the source folder carries for its lines, if it has one of its own
SOURCE_SCHEMA = "vector.schema.json"
#: the schema of the lines the project's harness records (``rmq-conformance golden record``)
RECORD_SCHEMA = "producer-harness-record"
#: the keys of a source line that hold Java's answers; every other key is an input
_ANSWER_KEYS = {"FAULT_STRATEGY": ("publishListRuns", "nondeterministic"), "SELECTOR_HASH": ("results",), "SELECTOR_RANDOM": ("results",)}
_STEP_ANSWERS = ("expect", "expectOneOf")


@dataclass
class ImportReport:
    """What an import read and wrote."""

    records: Counter = field(default_factory=Counter)  # per release
    cases: Counter = field(default_factory=Counter)  # per family
    groups: int = 0  # answer groups written (one per distinct answer set of a case)

    def summary(self) -> str:
        runs = ", ".join(f"{run}: {count}" for run, count in sorted(self.records.items()))
        families = ", ".join(f"{name}: {count}" for name, count in sorted(self.cases.items()))
        return (
            f"read {sum(self.records.values())} producer vectors ({runs})\n"
            f"wrote {sum(self.cases.values())} cases ({families}); {self.groups} answer groups"
        )


def is_source(source: Path) -> bool:
    """Whether ``source`` holds producer-selection vectors."""
    return any(path.stem in FAMILIES for path in source.glob("*/*.jsonl"))


def _split(family: str, record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A source line as (inputs, Java's answers)."""
    answers = {key: record[key] for key in _ANSWER_KEYS[family] if key in record}
    inputs = {key: value for key, value in record.items() if key not in _ANSWER_KEYS[family] and key != "reference"}
    if family == "FAULT_STRATEGY":
        steps = []
        answers["steps"] = []
        for step in record["steps"]:
            steps.append({key: value for key, value in step.items() if key not in _STEP_ANSWERS})
            answer = {key: step[key] for key in _STEP_ANSWERS if key in step}
            answers["steps"].append(answer or None)
        inputs["steps"] = steps
    elif family == "SELECTOR_HASH":
        answers["results"] = [_result(result) for result in record["results"]]
    else:
        answers["results"] = [_result(result) for result in record["results"]]
    return inputs, answers


def _result(result: dict[str, Any]) -> Any:
    """A selector call's answer: the index returned, or the exception thrown."""
    if "index" in result:
        return result["index"]
    return {"error": result["error"], "message": result.get("message")}


def _case(family: str, inputs: dict[str, Any], per_run: dict[str, dict[str, Any]]) -> dict[str, Any]:
    groups: dict[str, dict[str, Any]] = {}
    for run in sorted(per_run, key=parse_release):
        key = json.dumps(per_run[run], sort_keys=True)
        groups.setdefault(key, {"runs": [], **per_run[run]})["runs"].append(run)
    tags = inputs["tags"]
    case: dict[str, Any] = {"id": inputs["id"], "strategy": family, "category": tags[0], "flags": list(dict.fromkeys(tags[1:]))}
    if family == "FAULT_STRATEGY":
        case["params"] = inputs["config"]
        case.update({key: inputs[key] for key in ("topic", "route", "initial", "steps")})
    elif family == "SELECTOR_HASH":
        case["params"] = {}
        case.update({key: inputs[key] for key in ("arg", "argHashCode", "queueCounts")})
    else:
        case["params"] = {"seed": inputs["seed"]}
        case["queueCounts"] = inputs["queueCounts"]
    case["expect"] = [_group(family, group) for group in groups.values()]
    return case


def _group(family: str, group: dict[str, Any]) -> dict[str, Any]:
    """A group of answers as written: its runs first; a trace's step answers last, after their
    length in characters (``stepsLength``), which lets a reader pass over the answers of the
    releases it does not replay."""
    runs = group.pop("runs")
    if family != "FAULT_STRATEGY":
        return {"runs": runs, **group}
    steps = group.pop("steps")
    return {"runs": runs, **group, "stepsLength": len(compact_json(steps)), "steps": steps}


def _read(source: Path) -> tuple[dict[str, dict[str, str]], list[dict[str, Any]], dict[str, dict[str, Any]]]:
    schema: str | Path = source / SOURCE_SCHEMA
    if not Path(schema).is_file():
        schema = RECORD_SCHEMA
    runs: dict[str, dict[str, str]] = {}
    sources: list[dict[str, Any]] = []
    cases: dict[str, dict[str, Any]] = {}  # id -> {"family", "inputs", "answers": {run: answers}}
    files = sorted(path for path in source.glob("*/*.jsonl") if path.stem in FAMILIES)
    for path in files:
        release = path.parent.name
        lines = 0
        for where, record in read_jsonl(path, schema):
            lines += 1
            reference = record["reference"]
            if reference["rocketmq"] != release:
                raise GoldenDataError(f"{where}: reference.rocketmq {reference['rocketmq']} but the file is under {release}/")
            provenance = {**reference, "fileEncoding": "UTF-8", "defaultCharset": "UTF-8"}
            if runs.setdefault(release, provenance) != provenance:
                raise GoldenDataError(f"{where}: provenance {reference} differs from {release}'s other files")
            if record["family"] != path.stem:
                raise GoldenDataError(f"{where}: a {record['family']} vector in {path.name}")
            try:
                inputs, answers = _split(path.stem, record)
            except (KeyError, TypeError, AttributeError) as exc:  # a line its folder's schema let through
                raise GoldenDataError(f"{where}: not a {path.stem} vector ({type(exc).__name__}: {exc})") from None
            seen = cases.setdefault(record["id"], {"family": path.stem, "inputs": inputs, "answers": {}})
            if seen["inputs"] != inputs:
                raise GoldenDataError(f"{where}: the inputs differ from the same id in another release")
            if release in seen["answers"]:
                raise GoldenDataError(f"{where}: the id appears twice in {release}")
            seen["answers"][release] = answers
        sources.append({"path": path.relative_to(source).as_posix(), "run": release, "lines": lines, "sha256": _sha256(path)})
    if not files:
        raise GoldenDataError(f"{source}: no <release>/<FAMILY>.jsonl files of {', '.join(FAMILIES)}")
    return runs, sources, cases


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def import_vectors(source: os.PathLike, out: os.PathLike) -> ImportReport:
    """Convert the vectors under ``source`` into the golden directory ``out`` (its
    ``manifest.json`` and ``<FAMILY>.jsonl`` are replaced; the new set is written and validated
    aside first, so a failed import leaves ``out`` as it was)."""
    source, out = Path(source), Path(out)
    if not source.is_dir():
        raise GoldenDataError(f"{source}: not a directory")
    runs, sources, read = _read(source)
    report = ImportReport()
    by_family: dict[str, list[dict[str, Any]]] = {}
    for case_id in sorted(read):
        entry = read[case_id]
        releases = sorted(entry["answers"], key=parse_release)
        if releases != sorted(runs, key=parse_release):
            raise GoldenDataError(f"{source}: {case_id} has answers for {', '.join(releases)} only")
        try:
            case = _case(entry["family"], entry["inputs"], entry["answers"])
        except (KeyError, TypeError, IndexError) as exc:
            raise GoldenDataError(f"{source}: {case_id} is not a {entry['family']} vector ({type(exc).__name__}: {exc})") from None
        by_family.setdefault(entry["family"], []).append(case)
        report.cases[entry["family"]] += 1
        report.groups += len(case["expect"])
        for release in releases:
            report.records[release] += 1
    manifest = {
        "format": 1,
        "runs": {run: runs[run] for run in sorted(runs, key=parse_release)},
        "files": {f"{name}.jsonl": len(cases) for name, cases in sorted(by_family.items())},
        "sources": sources,
    }
    write_golden(out, manifest, by_family)
    return report
