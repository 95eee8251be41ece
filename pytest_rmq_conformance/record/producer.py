"""The producer selection asked of the real Java classes: ``record/java/ProducerHarness.java``
compiled against a rocketmq-client release and run over scenarios, one JVM for them all, with
the release's fault table on the recording's clock (``ClockPatch.java`` redirects its calls of
``System.currentTimeMillis()`` with ASM, the one change made to a release's classes).

Internal: the recorder has no public name yet.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.kinds.producer.golden_import import FAMILIES
from pytest_rmq_conformance.record import scenario_file
from pytest_rmq_conformance.record.jvm import compile_sources, run_harness, tool
from pytest_rmq_conformance.record.maven import Jars, RecordError, resolve

__all__ = ["ASM", "INPUTS", "read_scenarios", "record", "shipped_scenarios"]

#: a scenario's input fields per family (those of the harness records, without the answers)
INPUTS = {
    "FAULT_STRATEGY": ("id", "family", "tags", "topic", "route", "config", "initial", "steps"),
    "SELECTOR_HASH": ("id", "family", "tags", "arg", "queueCounts"),
    "SELECTOR_RANDOM": ("id", "family", "tags", "seed", "queueCounts"),
}
#: the bytecode library ClockPatch rewrites the clock calls with
ASM = "org.ow2.asm:asm:9.7.1"
MAIN = "ProducerHarness"
SOURCES = (MAIN, "Json", "Records", "RecordClock", "ClockPatch")
#: Collections' Random (pickOneAtLeast's shuffle) is replaced, so the harness opens java.util
JVM_OPTIONS = ("--add-opens", "java.base/java.util=ALL-UNNAMED", "-Dfile.encoding=UTF-8")


def record(jars: Jars, release: str, scenarios: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Java's harness record for each scenario (its input fields; answers on a step are ignored)."""
    asm = resolve(ASM)
    with tempfile.TemporaryDirectory(prefix="rmq-record-classes-") as scratch:
        classes = str(compile_sources(SOURCES, [*jars.classpath, *asm.classpath], Path(scratch) / "classes", jars.coordinates))
        patched = Path(scratch) / "patched"
        done = subprocess.run(
            [tool("java"), "-cp", os.pathsep.join([classes, *asm.classpath, *jars.classpath]), "ClockPatch", str(patched)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RecordError(f"the clock of {jars.coordinates} cannot be set: {done.stderr.strip()[-1000:]}")
        clock = (
            f"LatencyFaultToleranceImpl's {done.stdout.strip()} calls of System.currentTimeMillis() "
            f"read the scenario's clock (rewritten by {ASM})"
        )
        records = run_harness(
            MAIN, [str(patched), classes, *jars.classpath], [release], scenarios, jars.coordinates, JVM_OPTIONS
        )
    for found in records:
        found["reference"]["clock"] = clock
    return records


def _inputs(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """A scenario's input fields, the answers of its steps left out."""
    out = {key: scenario[key] for key in INPUTS[scenario["family"]]}
    if "steps" in out:
        out["steps"] = [{key: value for key, value in step.items() if key not in ("expect", "expectOneOf")} for step in out["steps"]]
    return out


def shipped_scenarios() -> list[dict[str, Any]]:
    """The scenarios of the shipped producer vectors (``golden/producer/``), as harness inputs."""
    out = []
    for path in sorted((golden_dir() / "producer").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            scenario = {"id": case["id"], "family": case["strategy"], "tags": [case["category"], *case["flags"]]}
            if case["strategy"] == "FAULT_STRATEGY":
                scenario |= {key: case[key] for key in ("topic", "route")} | {"config": case["params"]}
                scenario |= {key: case[key] for key in ("initial", "steps")}
            elif case["strategy"] == "SELECTOR_HASH":
                scenario |= {"arg": case["arg"], "queueCounts": case["queueCounts"]}
            else:
                scenario |= {"seed": case["params"]["seed"], "queueCounts": case["queueCounts"]}
            out.append(scenario)
    return out


def read_scenarios(path: Path) -> list[dict[str, Any]]:
    """A file of producer scenarios, one JSON object a line with a family's input fields
    (:data:`INPUTS`); the answers of a recorded line are ignored."""
    return scenario_file.read(
        path,
        lambda where, scenario: _inputs(
            scenario_file.family_inputs(where, scenario, INPUTS, "producer", FAMILIES, "producer-harness-record")
        ),
    )
