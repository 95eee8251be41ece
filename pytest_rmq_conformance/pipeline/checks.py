"""Internal: checks every sweep mode makes of its input and output.

A ``MIN:MAX`` range argument, and a summary against its JSON schema.
"""

from __future__ import annotations

from typing import Any

from pytest_rmq_conformance.engine.golden.data import schema_problems

__all__ = ["parse_range", "validate_summary", "SummaryError"]


def parse_range(text: str, name: str, low: int, high: int) -> tuple[int, int]:
    """``"MIN:MAX"`` (or one number) as a checked pair."""
    parts = text.split(":")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise ValueError(f"{name} must be MIN:MAX or a number, not {text!r}") from None
    if len(values) == 1:
        values *= 2
    if len(values) != 2 or not low <= values[0] <= values[1] <= high:
        raise ValueError(f"{name} must be MIN:MAX with {low} <= MIN <= MAX <= {high}, not {text!r}")
    return values[0], values[1]


class SummaryError(ValueError):
    """A summary that does not match its schema, ``schemas/<name>.schema.json``."""


def validate_summary(summary: dict[str, Any], schema: str = "sweep-summary") -> None:
    """:class:`SummaryError` unless ``summary`` matches ``schemas/<schema>.schema.json``."""
    problems = schema_problems(schema, summary)
    if problems:
        raise SummaryError(f"summary.json does not match its schema {problems[0]}")
