"""The hang budget: after so many calls over the per-call limit, a strategy is not called again.

The count is per run. Under pytest-xdist every worker process records its
hangs in one shared file (one byte per hang, appended), so the budget holds
across processes; without a file it is kept in memory.

    >>> budget = HangBudget(2)
    >>> budget.record(); budget.exhausted
    False
    >>> budget.record(); budget.exhausted
    True

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["Hang", "HangBudget"]


class Hang(BaseException):
    """A call that did not return within the per-call limit, on ``example`` (a generated input).

    A ``BaseException``, so that hypothesis does not retry (and wait for) the same hang while
    shrinking.
    """

    def __init__(self, example: Any, caller: Any, limit: float | None, what: str):
        super().__init__(f"{what} for {caller!r} did not return within {limit} s (--rmq-timeout)")
        self.example, self.caller, self.limit = example, caller, limit


class HangBudget:
    """``limit`` hangs per run; ``path`` shares the count between processes."""

    def __init__(self, limit: int, path: str | Path | None = None):
        self.limit = limit
        self.path: Path | None = None if path is None else Path(path)
        self._spent = 0

    @property
    def spent(self) -> int:
        if self.path is None:
            return self._spent
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def record(self) -> None:
        """Count one call that overran the limit."""
        if self.path is None:
            self._spent += 1
            return
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(descriptor, b"h")
        finally:
            os.close(descriptor)

    @property
    def exhausted(self) -> bool:
        return self.spent >= self.limit

    def refusal(self) -> str:
        """Why the strategy is not called again."""
        return (
            f"the strategy already overran the per-call limit {self.spent} times "
            f"(--rmq-max-hangs={self.limit}); not called again"
        )
