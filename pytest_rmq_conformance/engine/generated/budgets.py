"""The time a generated check may take: a deadline the calls of the strategy under test respect.

Hypothesis decides when to draw and when to shrink; the suite decides how
long. While a :func:`deadline` is set, :func:`check` (called before every
call of the strategy under test) raises :class:`OutOfTime` once it has
passed, which ends the check wherever it is: the example in flight is not
finished, and the check reports what it found until then.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["OutOfTime", "deadline", "check"]

_deadline: ContextVar[tuple[float, str] | None] = ContextVar("rmq_deadline", default=None)


class OutOfTime(BaseException):
    """A check's time ran out (a ``BaseException``: neither strategy code nor hypothesis may swallow it)."""

    def __init__(self, phase: str):
        super().__init__(f"the {phase} time ran out")
        self.phase = phase


@contextmanager
def deadline(seconds: float | None, phase: str) -> Iterator[None]:
    """Within the block, :func:`check` raises :class:`OutOfTime` ``seconds`` from now (``None``: never)."""
    token = _deadline.set(None if seconds is None else (time.monotonic() + seconds, phase))
    try:
        yield
    finally:
        _deadline.reset(token)


def check() -> None:
    """Raise :class:`OutOfTime` when the current deadline has passed."""
    current = _deadline.get()
    if current is not None and time.monotonic() > current[0]:
        raise OutOfTime(current[1])
