"""The consumer allocation asked of the real Java classes: ``record/java/AllocationHarness.java``
compiled against a rocketmq-client release and run over scenarios, one JVM for them all.

Internal: the recorder has no public name yet.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.record.maven import Jars, RecordError

__all__ = ["SOURCES", "compile_harness", "record"]

SOURCES = Path(__file__).resolve().parent / "java"
MAIN = "AllocationHarness"


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise RecordError(
            f"{name} (a JDK, 8 or newer) is not on PATH: install one (Debian: apt-get install default-jdk)"
        )
    return found


def compile_harness(jars: Jars, into: Path) -> Path:
    """The harness's classes, compiled for Java 8 against ``jars``, in ``into``."""
    into.mkdir(parents=True, exist_ok=True)
    sources = sorted(str(path) for path in SOURCES.glob("*.java"))
    done = subprocess.run(
        [
            _tool("javac"),
            "-nowarn",
            "-encoding",
            "UTF-8",
            "--release",
            "8",
            "-cp",
            jars.classpath,
            "-d",
            str(into),
            *sources,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RecordError(f"the harness does not compile against {jars.coordinates}:\n{done.stderr.strip()}")
    return into


def record(
    jars: Jars, release: str, scenarios: Iterable[Mapping[str, Any]], charset: str = "UTF-8"
) -> list[dict[str, Any]]:
    """Java's harness record for each scenario (its input fields; a ``results`` field names the
    currentCIDs to try), under the JVM default ``charset`` (CONSISTENT_HASH's ``getBytes()``)."""
    lines = "".join(json.dumps(scenario, ensure_ascii=True) + "\n" for scenario in scenarios)
    with tempfile.TemporaryDirectory(prefix="rmq-record-classes-") as classes:
        compile_harness(jars, Path(classes))
        done = subprocess.run(
            [_tool("java"), f"-Dfile.encoding={charset}", "-cp", f"{classes}:{jars.classpath}", MAIN, release],
            input=lines,
            capture_output=True,
            text=True,
            encoding="ascii",
            check=False,
        )
    if done.returncode != 0:
        raise RecordError(
            f"the harness stopped ({jars.coordinates}, exit {done.returncode}): {done.stderr.strip()[-2000:]}"
        )
    records = [json.loads(line) for line in done.stdout.splitlines()]
    if len(records) != lines.count("\n"):
        raise RecordError(
            f"the harness answered {len(records)} of {lines.count(chr(10))} scenarios ({jars.coordinates})"
        )
    return records
