"""A Maven artifact and its runtime dependencies as jar files, resolved by ``mvn`` (downloads
cached in ``~/.m2``, outside any clone), with the SHA-256 of each: the provenance of a record.

Internal: the recorder has no public name yet.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree
from xml.sax.saxutils import escape

__all__ = ["CENTRAL", "Jars", "RecordError", "resolve", "served"]

#: the repository whose listing ``served`` reads (Maven itself resolves through its own settings)
CENTRAL = "https://repo.maven.apache.org/maven2"

_COORDINATES = re.compile(r"^([\w.-]+):([\w.-]+):(\d[\w.-]*)$")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # a Maven that colours its log all the same
#: a pom whose only dependency is the artifact asked for
_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>rmq.conformance</groupId><artifactId>record</artifactId><version>0</version>
  <dependencies>
    <dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version></dependency>
  </dependencies>
</project>
"""


class RecordError(ValueError):
    """What stops a record: no JDK or Maven, an artifact Maven does not serve, a harness that fails."""


@dataclass(frozen=True)
class Jars:
    """``coordinates`` resolved: the ``paths`` of its jars where Maven keeps them, ``sha256`` each
    one's digest by name."""

    coordinates: str
    paths: tuple[Path, ...]
    sha256: dict[str, str]

    @property
    def classpath(self) -> list[str]:
        """The jars as class path entries."""
        return [str(path) for path in self.paths]


def resolve(coordinates: str) -> Jars:
    """``group:artifact:version`` and its runtime dependencies, as the jars of Maven's own
    repository (``~/.m2``: nothing is copied)."""
    found = _COORDINATES.match(coordinates)
    if found is None:
        raise RecordError(f"{coordinates!r} is not Maven coordinates group:artifact:version (version a number)")
    mvn = shutil.which("mvn")
    if mvn is None:
        raise RecordError("mvn (Apache Maven) is not on PATH: install it (Debian: apt-get install maven)")
    group, artifact, version = found.groups()
    with tempfile.TemporaryDirectory(prefix="rmq-record-pom-") as project:
        pom = Path(project) / "pom.xml"
        pom.write_text(
            _POM.format(group=escape(group), artifact=escape(artifact), version=escape(version)), encoding="utf-8"
        )
        listed = Path(project) / "classpath"
        done = subprocess.run(
            [
                mvn,
                "-q",
                "-B",
                "-U",  # a version refused before is asked again (Maven would answer from its cache of refusals)
                "-Dstyle.color=never",
                "-f",
                str(pom),
                "dependency:build-classpath",
                "-Dmdep.includeScope=runtime",
                f"-Dmdep.outputFile={listed}",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        text = listed.read_text(encoding="utf-8").strip() if done.returncode == 0 else ""
    if done.returncode != 0:
        said = [_ANSI.sub("", line) for line in (done.stdout + done.stderr).splitlines() if "ERROR" in line][:1]
        why = said[0].split(": ")[-1].removesuffix(" -> [Help 1]") if said else f"mvn exited {done.returncode}"
        raise RecordError(
            f"Maven could not resolve {coordinates}: {why} "
            f"(the versions served: https://repo.maven.apache.org/maven2/{group.replace('.', '/')}/{artifact}/)"
        )
    paths = tuple(sorted(Path(path) for path in text.split(os.pathsep)))
    return Jars(coordinates, paths, {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in paths})


def served(group: str, artifact: str, timeout: float = 30.0) -> list[str]:
    """Every version of ``group:artifact`` that Maven Central lists (its ``maven-metadata.xml``),
    oldest first as listed."""
    url = f"{CENTRAL}/{group.replace('.', '/')}/{artifact}/maven-metadata.xml"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            listing = ElementTree.fromstring(answer.read())
    except (OSError, ElementTree.ParseError) as exc:
        raise RecordError(f"cannot read what Maven Central serves of {group}:{artifact} ({url}): {exc}") from None
    return [version.text.strip() for version in listing.iterfind("./versioning/versions/version") if version.text]
