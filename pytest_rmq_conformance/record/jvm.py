"""The JDK side of a record: the harness's sources compiled against a resolved class path, and a
harness run over scenarios, one JVM for them all, one JSON line in and one out per scenario.

Internal: the recorder has no public name yet.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.record.maven import RecordError

__all__ = ["SOURCES", "compile_sources", "run_harness", "tool"]

#: the harness's Java sources (the default package, one main class per kind)
SOURCES = Path(__file__).resolve().parent / "java"


def tool(name: str) -> str:
    """``javac`` or ``java`` from PATH; a :class:`RecordError` saying what to install without one."""
    found = shutil.which(name)
    if found is None:
        raise RecordError(
            f"{name} (a JDK, 8 or newer) is not on PATH: install one (Debian: apt-get install default-jdk)"
        )
    return found


def compile_sources(names: Sequence[str], classpath: Sequence[str], into: Path, against: str) -> Path:
    """``record/java/<name>.java`` for each of ``names``, compiled for Java 8 on ``classpath`` into
    ``into``; ``against`` names the artifact in the error when they do not compile."""
    into.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            tool("javac"),
            "-nowarn",
            "-encoding",
            "UTF-8",
            "--release",
            "8",
            "-cp",
            os.pathsep.join(classpath),
            "-d",
            str(into),
            *(str(SOURCES / f"{name}.java") for name in names),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RecordError(f"the harness does not compile against {against}:\n{done.stderr.strip()}")
    return into


def run_harness(
    main: str,
    classpath: Sequence[str],
    arguments: Sequence[str],
    scenarios: Iterable[Mapping[str, Any]],
    against: str,
    options: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The records ``main`` writes for ``scenarios`` (written to its stdin as JSON lines), one per
    scenario; a :class:`RecordError` with the end of its stderr when it stops early or fails.
    The release's own log files go to a folder removed afterwards."""
    asked = [json.dumps(scenario, ensure_ascii=True) + "\n" for scenario in scenarios]
    with tempfile.TemporaryDirectory(prefix="rmq-record-logs-") as logs:  # not ~/logs/rocketmqlogs
        done = subprocess.run(
            [tool("java"), f"-Drocketmq.client.logRoot={logs}", f"-Drocketmq.log.root={logs}", *options, "-cp", os.pathsep.join(classpath), main, *arguments],
            input="".join(asked),
            capture_output=True,
            text=True,
            encoding="ascii",
            check=False,
        )
    if done.returncode != 0:
        raise RecordError(f"the harness stopped ({against}, exit {done.returncode}): {done.stderr.strip()[-2000:]}")
    records = [json.loads(line) for line in done.stdout.splitlines()]
    if len(records) != len(asked):
        raise RecordError(f"the harness answered {len(records)} of {len(asked)} scenarios ({against})")
    return records
