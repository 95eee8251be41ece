"""What Maven Central serves of the two Java clients the golden data is asked of, by the names the
suite gives their releases.

RocketMQ's first two releases were made during its incubation at Apache and carry it in their
Maven version (``4.0.0-incubating``, ``4.1.0-incubating``); the suite names them ``4.0.0`` and
``4.1.0``, as every other release. Versions with another qualifier (``5.0.0-ALPHA``,
``5.0.0-PREVIEW``) are pre-releases and are not recorded.

Internal: the recorder has no public name yet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_rmq_conformance.record.maven import served
from pytest_rmq_conformance.releases import parse_release

__all__ = ["CLIENT", "CLIENT_JAVA", "INCUBATING", "Served", "client_java_versions", "maven_version", "release_of", "rocketmq_releases"]

CLIENT = ("org.apache.rocketmq", "rocketmq-client")
CLIENT_JAVA = ("org.apache.rocketmq", "rocketmq-client-java")
INCUBATING = "-incubating"
_RELEASE = re.compile(r"\d+\.\d+\.\d+")


def release_of(version: str) -> str:
    """The suite's name of a rocketmq-client Maven version: ``4.0.0-incubating`` -> ``4.0.0``."""
    return version.removesuffix(INCUBATING)


def maven_version(release: str) -> str:
    """The Maven version of a release: ``4.0.0`` and ``4.1.0`` -> ``4.x.0-incubating``; any other
    as it is (a version given with its suffix stays as given)."""
    return f"{release}{INCUBATING}" if _RELEASE.fullmatch(release) and parse_release(release) < (4, 2, 0) else release


@dataclass(frozen=True)
class Served:
    """The versions of an artifact that are recorded (by the suite's names, oldest first) and
    those left out (pre-releases, by their Maven versions)."""

    recorded: tuple[str, ...]
    left_out: tuple[str, ...]


def rocketmq_releases() -> Served:
    """Every rocketmq-client release Maven Central lists, pre-releases left out."""
    versions = served(*CLIENT)
    kept = [version for version in versions if _RELEASE.fullmatch(release_of(version))]
    return Served(
        tuple(sorted((release_of(version) for version in kept), key=parse_release)),
        tuple(version for version in versions if version not in kept),
    )


def client_java_versions() -> Served:
    """Every rocketmq-client-java version Maven Central lists, pre-releases left out."""
    versions = served(*CLIENT_JAVA)
    kept = [version for version in versions if _RELEASE.fullmatch(version)]
    return Served(tuple(sorted(kept, key=_numbers)), tuple(version for version in versions if version not in kept))


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))
