"""RocketMQ releases: the ones the golden vectors come from, and how a release string reads.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["RELEASES", "DEFAULT_RELEASE", "parse_release", "release_problem"]

#: The RocketMQ releases whose Java classes produced the golden vectors.
RELEASES: tuple[str, ...] = ("4.7.1", "4.9.8", "5.3.3")
DEFAULT_RELEASE = "5.3.3"

_RELEASE = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def parse_release(version: str) -> tuple[int, int, int]:
    """``"4.9.8"`` -> ``(4, 9, 8)``; ``ValueError`` for anything but a 4.x or 5.x release."""
    if not isinstance(version, str):
        raise ValueError(f"RocketMQ release must look like 4.9.8 or 5.3.3 (4.x or 5.x), not {version!r}")
    return _parse_release(version)


@lru_cache(maxsize=64)  # asked for every strategy built: once per golden call
def _parse_release(version: str) -> tuple[int, int, int]:
    match = _RELEASE.fullmatch(version)
    if match is None or int(match.group(1)) not in (4, 5):
        raise ValueError(
            f"RocketMQ release must look like 4.9.8 or 5.3.3 (4.x or 5.x), not {version!r}"
        )
    return (int(match.group(1)), int(match.group(2)), int(match.group(3)))


def release_problem(version: str, covered: Iterable[str]) -> str | None:
    """Why ``version`` cannot be judged, the one rule of every command that takes a release: it must
    read as a 4.x or 5.x release and be one of ``covered``, the releases golden vectors exist for;
    ``None`` when it is."""
    try:
        parse_release(version)
    except ValueError as exc:
        return str(exc)
    releases = sorted(set(covered), key=parse_release)
    if version not in releases:
        return f"no golden vectors for RocketMQ {version}: the golden data covers {', '.join(releases)}"
    return None
