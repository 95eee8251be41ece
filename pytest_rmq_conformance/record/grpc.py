"""The 5.x gRPC balancers asked of the real Java classes: ``record/java/GrpcHarness.java`` compiled
against a ``rocketmq-client-java`` version from Maven Central and run over scenarios, one JVM for
them all.

Internal: the recorder has no public name yet.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.kinds.grpc.golden_import import FAMILIES
from pytest_rmq_conformance.record.jvm import compile_sources, run_harness
from pytest_rmq_conformance.record.maven import Jars, RecordError

__all__ = ["ARTIFACT", "INPUTS", "read_scenarios", "record", "shipped_scenarios"]

#: the 5.x Java client whose balancers are the gRPC kind's reference
ARTIFACT = "org.apache.rocketmq:rocketmq-client-java"
#: a scenario's input fields per family (those of the harness records, without the answers)
INPUTS = {
    "GROUP_HASH": ("id", "family", "tags", "group", "queues"),
    "PUBLISH_ROUND_ROBIN": ("id", "family", "tags", "route", "index", "steps"),
    "SUBSCRIBE_ROUND_ROBIN": ("id", "family", "tags", "route", "index", "steps"),
}
MAIN = "GrpcHarness"
SOURCES = (MAIN, "Json")


def record(jars: Jars, version: str, scenarios: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Java's harness record for each scenario (its input fields; an ``expect`` is ignored)."""
    with tempfile.TemporaryDirectory(prefix="rmq-record-classes-") as classes:
        compile_sources(SOURCES, jars.classpath, Path(classes), jars.coordinates)
        return run_harness(
            MAIN, [classes, *jars.classpath], [version], scenarios, jars.coordinates, ["-Dfile.encoding=UTF-8"]
        )


def shipped_scenarios() -> list[dict[str, Any]]:
    """The scenarios of the shipped gRPC vectors (``golden/grpc/``), as harness inputs."""
    out = []
    for path in sorted((golden_dir() / "grpc").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            scenario = {"id": case["id"], "family": case["strategy"], "tags": [case["category"], *case["flags"]]}
            out.append(scenario | {key: case[key] for key in INPUTS[case["strategy"]][3:]})
    return out


def read_scenarios(path: Path) -> list[dict[str, Any]]:
    """A file of gRPC balancer scenarios, one JSON object a line with a family's input fields
    (:data:`INPUTS`); the ``expect`` of a recorded line is ignored."""
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
        family = scenario.get("family") if isinstance(scenario, dict) else None
        if family not in INPUTS:
            raise RecordError(f"{path}:{number}: a gRPC scenario needs a family, one of {', '.join(FAMILIES)}")
        missing = [key for key in INPUTS[family] if key not in scenario]
        if missing:
            raise RecordError(
                f"{path}:{number}: a {family} scenario needs {', '.join(missing)} "
                "(see schemas/grpc-harness-record.schema.json)"
            )
        out.append({key: scenario[key] for key in INPUTS[family]})
    if not out:
        raise RecordError(f"{path}: no scenarios in it")
    return out
