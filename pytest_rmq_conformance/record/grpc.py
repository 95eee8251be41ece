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
from pytest_rmq_conformance.record import scenario_file
from pytest_rmq_conformance.record.jvm import compile_sources, run_harness
from pytest_rmq_conformance.record.maven import Jars

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
SOURCES = (MAIN, "Json", "Records")


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
    return scenario_file.read(
        path, lambda where, scenario: scenario_file.family_inputs(where, scenario, INPUTS, "gRPC", FAMILIES, "grpc-harness-record")
    )
