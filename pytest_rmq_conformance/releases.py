"""RocketMQ releases: the ones the golden vectors come from, and how a release string reads.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["RELEASES", "PORT_RELEASE", "DEFAULT_RELEASE", "is_line", "parse_release", "release_problem", "resolve_line", "version_key"]

#: The RocketMQ releases the reference ports reproduce; every other recorded release is
#: reproduced as the one of these whose answers it gives (``engine.runs.modelled_release``).
RELEASES: tuple[str, ...] = ("4.7.1", "4.9.8", "5.3.3")
#: The release a reference port behaves as unless given ``version=``: the newest it reproduces.
PORT_RELEASE = RELEASES[-1]
#: The release the suite judges against unless told (``--rmq-reference-version``): the newest
#: ``golden/`` records (tests/test_golden_behaviours.py holds it there).
DEFAULT_RELEASE = "5.5.0"

_RELEASE = re.compile(r"(\d+)\.(\d+)\.(\d+)")
_LINE = re.compile(r"(\d+)\.(\d+)")
_VERSION = re.compile(r"\d+(?:\.\d+)+")


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


def is_line(version: str) -> bool:
    """Whether ``version`` names a release line, such as ``4.9``."""
    return isinstance(version, str) and _LINE.fullmatch(version) is not None


def resolve_line(version: str, covered: Iterable[str]) -> tuple[str, str | None]:
    """A release line (``4.9``, ``5.3``) as the newest of ``covered`` in it, with the words saying
    which (``the newest 4.9 release the golden data covers``); any other version, or a line none
    of ``covered`` is in, as it is, with ``None``."""
    if not is_line(version):
        return version, None
    found = sorted((release for release in set(covered) if release.startswith(f"{version}.")), key=parse_release)
    if not found:
        return version, None
    return found[-1], f"the newest {version} release the golden data covers"


def release_problem(version: str, covered: Iterable[str]) -> str | None:
    """Why ``version`` cannot be judged, the one rule of every command that takes a release: it must
    read as a 4.x or 5.x release and be one of ``covered``, the releases golden vectors exist for;
    ``None`` when it is."""
    releases = sorted(set(covered), key=parse_release)
    if is_line(version):
        return f"no golden vectors for a RocketMQ {version} release: the golden data covers {', '.join(releases)}"
    try:
        parse_release(version)
    except ValueError as exc:
        return str(exc)
    if version not in releases:
        return f"no golden vectors for RocketMQ {version}: the golden data covers {', '.join(releases)}"
    return None


def version_key(text: str) -> tuple[int, ...]:
    """The numbers of the last dotted version in ``text``, to sort by: a release, a client
    (``rocketmq-client-java 5.2.0``) or a run filed under a release (``5.3.3+java-5.0.2``);
    ``()`` when it has none.

    >>> version_key("rocketmq-client-java 5.2.0"), version_key("5.3.3+java-5.0.2"), version_key("4.9.8")
    ((5, 2, 0), (5, 0, 2), (4, 9, 8))
    """
    found = _VERSION.findall(text)
    return tuple(int(part) for part in found[-1].split(".")) if found else ()
