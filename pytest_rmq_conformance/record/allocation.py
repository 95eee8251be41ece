"""The consumer allocation asked of the real Java classes: ``record/java/AllocationHarness.java``
compiled against a rocketmq-client release and run over scenarios, one JVM for them all.

Internal: the recorder has no public name yet.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.golden.data import GoldenDataError
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.kinds.allocation.golden_import import import_harness
from pytest_rmq_conformance.record.jvm import compile_sources, run_harness
from pytest_rmq_conformance.record.maven import Jars, RecordError, resolve

__all__ = ["INPUTS", "answered", "read_scenarios", "record", "record_release", "shipped_scenarios"]

#: a scenario's input fields (harness-record.schema.json's, without the answers)
INPUTS = ("id", "strategy", "params", "consumerGroup", "mqAll", "cidAll", "tags")

MAIN = "AllocationHarness"
#: the harness's sources (record/java/), compiled against the release
SOURCES = (MAIN, "Json")


def record(
    jars: Jars, release: str, scenarios: Iterable[Mapping[str, Any]], charset: str = "UTF-8"
) -> list[dict[str, Any]]:
    """Java's harness record for each scenario (its input fields; a ``results`` field names the
    currentCIDs to try), under the JVM default ``charset`` (CONSISTENT_HASH's ``getBytes()``); a
    scenario of a strategy the release lacks has ``unsupported`` instead (:func:`answered`)."""
    with tempfile.TemporaryDirectory(prefix="rmq-record-classes-") as classes:
        compile_sources(SOURCES, jars.classpath, Path(classes), jars.coordinates)
        return run_harness(
            MAIN, [classes, *jars.classpath], [release], scenarios, jars.coordinates, [f"-Dfile.encoding={charset}"]
        )


def shipped_scenarios() -> list[dict[str, Any]]:
    """The scenarios of the shipped allocation vectors, each with the currentCIDs its calls try
    (as ``results`` of ``currentCID`` alone): the same for every release they hold."""
    out = []
    for path in sorted(golden_dir().glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            callers = [{"currentCID": result["currentCID"]} for result in case["expect"][0]["results"]]
            out.append(
                {key: case[key] for key in INPUTS[:-1]}
                | {"tags": [case["category"], *case["flags"]], "results": callers}
            )
    return out


def read_scenarios(path: Path) -> list[dict[str, Any]]:
    """A file of scenarios, one JSON object a line with the input fields (:data:`INPUTS`); the
    answer fields of a recorded line are ignored but for the currentCIDs of its ``results``."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read the scenarios: {exc}") from None
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            scenario = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path}:{number}: not a JSON object: {exc}") from None
        missing = [key for key in INPUTS if not isinstance(scenario, dict) or key not in scenario]
        if missing:
            raise RecordError(
                f"{path}:{number}: a scenario needs {', '.join(missing)} (see schemas/harness-record.schema.json)"
            )
        callers = [{"currentCID": result.get("currentCID")} for result in scenario.get("results") or []]
        out.append({key: scenario[key] for key in INPUTS} | ({"results": callers} if callers else {}))
    if not out:
        raise RecordError(f"{path}: no scenarios in it")
    return out


def record_release(release: str, scenarios: list[dict[str, Any]], out: Path, charset: str = "UTF-8") -> dict[str, Any]:
    """``scenarios`` asked of ``rocketmq-client:<release>`` from Maven Central, imported into the
    golden directory ``out`` (written only when every step succeeded); each run's provenance
    names the coordinates and each jar's SHA-256. Returns the import's summary and the figures."""
    jars = resolve(f"org.apache.rocketmq:rocketmq-client:{release}")
    records, lacking = answered(record(jars, release, scenarios, charset))
    if not records:
        raise RecordError(f"{jars.coordinates} has none of the strategies asked: {lacking}")
    provenance = {"coordinates": jars.coordinates, "jars": jars.sha256}
    with tempfile.TemporaryDirectory(prefix="rmq-record-") as scratch:
        harness = Path(scratch) / release
        harness.mkdir(parents=True)
        suffix = "" if charset.upper() == "UTF-8" else f".{charset}"
        by_family: dict[str, list[str]] = {}
        for found in records:
            found["reference"] = found["reference"] | {"maven": provenance}
            by_family.setdefault(found["strategy"], []).append(json.dumps(found, ensure_ascii=True) + "\n")
        for family, lines in by_family.items():
            (harness / f"{family}{suffix}.jsonl").write_text("".join(lines), encoding="ascii")
        try:
            report = import_harness(harness.parent, out)
        except GoldenDataError as exc:
            raise RecordError(f"the recorded answers do not import: {exc}") from None
    summary = report.summary() + (f"\nleft out, as the release lacks their strategy: {lacking}" if lacking else "")
    return {"coordinates": jars.coordinates, "jars": len(jars.sha256), "records": len(records), "summary": summary}


def answered(records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """The records that have answers, and a line counting the others by what the release lacks
    (``12 CONSISTENT_HASH: this release has no AllocateMessageQueueConsistentHash``; empty when none)."""
    lacking = Counter(f"{found['strategy']}: {found['unsupported']}" for found in records if "unsupported" in found)
    kept = [found for found in records if "unsupported" not in found]
    return kept, "; ".join(f"{count} {what}" for what, count in sorted(lacking.items()))
