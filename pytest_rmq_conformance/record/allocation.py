"""The consumer allocation asked of the real Java classes: ``record/java/AllocationHarness.java``
compiled against a rocketmq-client release and run over scenarios, one JVM for them all.

Internal: the recorder has no public name yet.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.record import scenario_file
from pytest_rmq_conformance.record.jvm import compile_sources, run_harness
from pytest_rmq_conformance.record.maven import Jars, RecordError

__all__ = ["INPUTS", "OTHER_CHARSET", "charset_scenarios", "read_scenarios", "record", "shipped_scenarios"]

#: a scenario's input fields (harness-record.schema.json's, without the answers)
INPUTS = ("id", "strategy", "params", "consumerGroup", "mqAll", "cidAll", "tags")

#: the other JVM default charset a 4.x release is asked under, by default (4.x's CONSISTENT_HASH
#: hashes a name's bytes in the default charset; 5.x in UTF-8 whatever it is)
OTHER_CHARSET = "ISO-8859-1"

MAIN = "AllocationHarness"
#: the harness's sources (record/java/), compiled against the release
SOURCES = (MAIN, "Json", "Records")


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


def charset_scenarios(scenarios: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The scenarios whose answers the default charset can change: CONSISTENT_HASH's with a name
    outside ASCII (an ASCII name has the same bytes in every charset a JVM defaults to)."""
    return [
        scenario for scenario in scenarios
        if scenario["strategy"] == "CONSISTENT_HASH" and not json.dumps(scenario, ensure_ascii=False).isascii()
    ]


def read_scenarios(path: Path) -> list[dict[str, Any]]:
    """A file of scenarios, one JSON object a line with the input fields (:data:`INPUTS`); the
    answer fields of a recorded line are ignored but for the currentCIDs of its ``results``."""
    return scenario_file.read(path, _inputs)


def _inputs(where: str, scenario: Any) -> dict[str, Any]:
    missing = [key for key in INPUTS if not isinstance(scenario, dict) or key not in scenario]
    if missing:
        raise RecordError(f"{where}: a scenario needs {', '.join(missing)} (see schemas/harness-record.schema.json)")
    callers = [{"currentCID": result.get("currentCID")} for result in scenario.get("results") or []]
    return {key: scenario[key] for key in INPUTS} | ({"results": callers} if callers else {})
