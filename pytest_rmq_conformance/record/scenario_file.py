"""A user's scenario file (``golden record --scenarios FILE``): one JSON object a line, each taken
by its kind's reader; every problem names the file and line.

Internal: the recorder has no public name yet.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.record.maven import RecordError

__all__ = ["family_inputs", "read"]


def read(path: Path, take: Callable[[str, Any], dict[str, Any]]) -> list[dict[str, Any]]:
    """``take(where, scenario)`` of every line of ``path`` that is not blank (``where`` is
    ``path:line``); a :class:`RecordError` for a file it cannot read, a line that is not JSON, or
    no scenario at all."""
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
        out.append(take(f"{path}:{number}", scenario))
    if not out:
        raise RecordError(f"{path}: no scenarios in it")
    return out


def family_inputs(
    where: str, scenario: Any, inputs: Mapping[str, Sequence[str]], kind: str, families: Sequence[str], schema: str
) -> dict[str, Any]:
    """The input fields (``inputs`` of its ``family``) of a producer or gRPC ``scenario``; a
    :class:`RecordError` naming ``where`` for a family that is not one of ``families`` or a
    missing field (see ``schemas/<schema>.schema.json``)."""
    family = scenario.get("family") if isinstance(scenario, dict) else None
    if not isinstance(family, str) or family not in inputs:
        raise RecordError(f"{where}: a {kind} scenario needs a family, one of {', '.join(families)}")
    missing = [key for key in inputs[family] if key not in scenario]
    if missing:
        raise RecordError(f"{where}: a {family} scenario needs {', '.join(missing)} (see schemas/{schema}.schema.json)")
    return {key: scenario[key] for key in inputs[family]}
