"""How a generated example on which a check failed reads, whatever the kind.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Sequence
from itertools import groupby
from typing import Any

__all__ = ["MAX_DETAILS", "format_generated", "build_failure_lines"]

#: detail lines a report shows before it counts the rest
MAX_DETAILS = 15


def format_generated(headline: str, details: Sequence[str], summary: str, data: str, noun: str = "group") -> str:
    """What broke (a detail repeated word for word in a row is shown once, with its count), the
    example in short (``summary``), and the example as data (one line of JSON that replays it);
    ``noun`` says what an example is (a consumer ``group``, a ``trace``)."""
    lines = [headline]
    runs = [(line, len(list(repeats))) for line, repeats in groupby(details)]
    details = [f"{line} ({times} times)" if times > 1 else line for line, times in runs]
    lines.extend(f"  {line}" for line in details[:MAX_DETAILS])
    if len(details) > MAX_DETAILS:
        lines.append(f"  ... and {len(details) - MAX_DETAILS} more")
    lines.append(f"  {noun}: {summary}")
    lines.append(f"  {noun} as data: {data}")
    return "\n".join(lines)


def build_failure_lines(exc: BaseException, example: Any) -> list[str]:
    """The configuration a strategy was being built for when ``exc`` was raised (``example`` has
    its family as ``strategy`` and its ``params``), and where it was raised (the innermost frame)."""
    params = json.dumps(dict(example.params), ensure_ascii=False, sort_keys=True, default=repr)
    family = example.strategy if example.strategy is not None else "its own configuration (no Java family)"
    lines = [f"configuration: {family}, params {params}"]
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1]
        lines.append(f"raised at {_shown_path(last.filename)}:{last.lineno}, in {last.name}")
    return lines


def _shown_path(path: str) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive
        return path
    return path if relative.startswith("..") else relative
