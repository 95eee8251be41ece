"""Where an exception of strategy code came from: the frames of the user's code, not the suite's.

The suite's own frames (this package, and the standard library's threading
that runs a call with a time limit) lead into every call of a strategy; a
report shows what lies past them.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import traceback
from pathlib import Path

__all__ = ["PACKAGE_DIR", "is_suite_path", "user_location"]

PACKAGE_DIR = Path(__file__).resolve().parents[2]


def is_suite_path(path: str | Path) -> bool:
    """Whether ``path`` is a source file of this package (not of the strategy under test)."""
    try:
        Path(path).resolve().relative_to(PACKAGE_DIR)
    except (ValueError, OSError):
        return False
    return True


def user_location(exc: BaseException) -> str | None:
    """``file:line, in function`` of the innermost frame outside this package that ``exc`` went
    through, or ``None`` when it never left the package (a reference port raised)."""
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__) if not is_suite_path(frame.filename)]
    if not frames:
        return None
    frame = frames[-1]
    return f"{frame.filename}:{frame.lineno}, in {frame.name}"
