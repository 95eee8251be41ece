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

__all__ = ["CENTRAL", "Jars", "RecordError", "resolve", "resolve_many", "served"]

#: the repository whose listing ``served`` reads (Maven itself resolves through its own settings)
CENTRAL = "https://repo.maven.apache.org/maven2"

_COORDINATES = re.compile(r"^([\w.-]+):([\w.-]+):(\d[\w.-]*)$")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # a Maven that colours its log all the same
#: a pom whose only dependency is the artifact asked for
_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>rmq.conformance</groupId><artifactId>{name}</artifactId><version>0</version>
  <dependencies>
    <dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version></dependency>
  </dependencies>
</project>
"""


#: the reactor of one module per artifact that :func:`resolve_many` builds
_REACTOR = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>rmq.conformance</groupId><artifactId>reactor</artifactId><version>0</version><packaging>pom</packaging>
  <modules>{modules}</modules>
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
    return resolve_many([coordinates])[coordinates]


def resolve_many(coordinates: list[str]) -> dict[str, Jars]:
    """Each of ``coordinates`` resolved as :func:`resolve` does, by one Maven (a reactor of one
    module per artifact): one start for every release a manifest names."""
    parsed = {}
    for asked in coordinates:
        found = _COORDINATES.match(asked)
        if found is None:
            raise RecordError(f"{asked!r} is not Maven coordinates group:artifact:version (version a number)")
        parsed[asked] = found.groups()
    mvn = shutil.which("mvn")
    if mvn is None:
        raise RecordError("mvn (Apache Maven) is not on PATH: install it (Debian: apt-get install maven)")
    with tempfile.TemporaryDirectory(prefix="rmq-record-pom-") as project:
        root = Path(project)
        modules = []
        for n, (group, artifact, version) in enumerate(parsed.values()):
            module = root / f"m{n}"
            module.mkdir()
            (module / "pom.xml").write_text(
                _POM.format(group=escape(group), artifact=escape(artifact), version=escape(version), name=f"m{n}"),
                encoding="utf-8",
            )
            modules.append(module)
        (root / "pom.xml").write_text(
            _REACTOR.format(modules="".join(f"<module>{module.name}</module>" for module in modules)), encoding="utf-8"
        )
        done = subprocess.run(
            [
                mvn,
                "-q",
                "-B",
                "-U",  # a version refused before is asked again (Maven would answer from its cache of refusals)
                "-Dstyle.color=never",
                "-f",
                str(root / "pom.xml"),
                "dependency:build-classpath",
                "-Dmdep.includeScope=runtime",
                "-Dmdep.outputFile=classpath",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        listed = [
            (module / "classpath").read_text(encoding="utf-8").strip() if (module / "classpath").is_file() else None
            for module in modules
        ]
    if done.returncode != 0 or None in listed:
        said = [_ANSI.sub("", line) for line in (done.stdout + done.stderr).splitlines() if "ERROR" in line][:1]
        why = said[0].split(": ")[-1].removesuffix(" -> [Help 1]") if said else f"mvn exited {done.returncode}"
        failed = [asked for asked, text in zip(parsed, listed) if text is None] or list(parsed)
        group, artifact, _ = parsed[failed[0]]
        raise RecordError(
            f"Maven could not resolve {failed[0]}: {why} "
            f"(the versions served: https://repo.maven.apache.org/maven2/{group.replace('.', '/')}/{artifact}/)"
        )
    out = {}
    for asked, text in zip(parsed, listed):
        assert text is not None
        paths = tuple(sorted(Path(path) for path in text.split(os.pathsep)))
        out[asked] = Jars(asked, paths, {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in paths})
    return out


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
