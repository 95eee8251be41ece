"""One recorder per kind: which artifact it asks, its harness, where its answers land in a golden
directory and which import reads them. A record asks versions one at a time into a folder of
harness output (``<version>/<FAMILY>.jsonl``, each line's provenance naming the coordinates and
each jar's SHA-256), then imports the folder once: many versions give one golden directory whose
cases keep one answer per group of versions that answered alike.

    recorder = RECORDERS["producer"]
    asked = recorder.ask("4.9.8", recorder.module.shipped_scenarios(), source)
    summary = recorder.write(source, out)

Internal: the recorder has no public name yet.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from pytest_rmq_conformance.engine.golden.data import GoldenDataError
from pytest_rmq_conformance.record import allocation, grpc, producer
from pytest_rmq_conformance.record.maven import RecordError, resolve
from pytest_rmq_conformance.record.served import CLIENT, CLIENT_JAVA, maven_version, release_of

__all__ = ["RECORDERS", "Asked", "Recorder"]


@dataclass(frozen=True)
class Asked:
    """What one version answered: its coordinates, how many jars, how many scenarios answered,
    and a line counting those it could not (``12 CONSISTENT_HASH: this release has no ...``)."""

    coordinates: str
    jars: int
    records: int
    lacking: str


def _import(kind: str) -> Callable[[Path, Path], str]:
    def run(source: Path, out: Path) -> str:
        if kind == "allocation":
            from pytest_rmq_conformance.kinds.allocation.golden_import import import_harness

            return import_harness(source, out).summary()
        if kind == "producer":
            from pytest_rmq_conformance.kinds.producer.golden_import import import_vectors

            return import_vectors(source, out).summary()
        from pytest_rmq_conformance.kinds.grpc.golden_import import import_vectors as import_grpc

        return import_grpc(source, out).summary()

    return run


@dataclass(frozen=True)
class Recorder:
    """A kind as recorded: ``folder`` is where it lands in a golden directory, ``artifact`` the
    Maven group and artifact it asks, ``family`` the record field naming the family."""

    kind: str
    folder: str
    artifact: tuple[str, str]
    family: str
    module: ModuleType

    @property
    def option(self) -> str:
        """The command line option that names the version to ask."""
        return "--client-java" if self.artifact == CLIENT_JAVA else "--release"

    def run_name(self, version: str) -> str:
        """The folder (and, for rocketmq-client, the release) a version's answers are filed under."""
        return release_of(version) if self.artifact == CLIENT else version

    def ask(
        self, version: str, scenarios: list[dict[str, Any]], source: Path, charset: str = "UTF-8", *, required: bool = True
    ) -> Asked:
        """``scenarios`` asked of ``version`` (resolved from Maven Central), written as harness
        output into ``source/<version>/``; a :class:`RecordError` when nothing could answer, unless
        not ``required`` (the scenarios a release may lack every family of)."""
        name = self.run_name(version)
        maven = maven_version(version) if self.artifact == CLIENT else version
        jars = resolve(f"{self.artifact[0]}:{self.artifact[1]}:{maven}")
        extra = {"charset": charset} if self.kind == "allocation" else {}
        records = self.module.record(jars, name, scenarios, **extra)
        kept = [found for found in records if "unsupported" not in found]
        lacking = Counter(f"{found[self.family]}: {found['unsupported']}" for found in records if "unsupported" in found)
        said = "; ".join(f"{count} {what}" for what, count in sorted(lacking.items()))
        if not kept and required:
            raise RecordError(f"{jars.coordinates} answers none of the scenarios asked: {said}")
        folder = source / name
        folder.mkdir(parents=True, exist_ok=True)
        suffix = "" if charset.upper() == "UTF-8" else f".{charset}"
        provenance = {"coordinates": jars.coordinates, "jars": jars.sha256}
        by_family: dict[str, list[str]] = {}
        for found in kept:
            found["reference"] = found["reference"] | {"maven": provenance}
            by_family.setdefault(found[self.family], []).append(json.dumps(found, ensure_ascii=True) + "\n")
        for family, lines in by_family.items():
            (folder / f"{family}{suffix}.jsonl").write_text("".join(lines), encoding="ascii")
        return Asked(jars.coordinates, len(jars.sha256), len(kept), said)

    def write(self, source: Path, out: Path) -> str:
        """The harness output under ``source`` imported into ``out``'s folder of this kind (left as
        it was when the import fails); the import's summary."""
        try:
            return _import(self.kind)(source, out / self.folder)
        except GoldenDataError as exc:
            raise RecordError(f"the recorded answers do not import: {exc}") from None


RECORDERS = {
    "allocation": Recorder("allocation", ".", CLIENT, "strategy", allocation),
    "producer": Recorder("producer", "producer", CLIENT, "family", producer),
    "grpc": Recorder("grpc", "grpc", CLIENT_JAVA, "family", grpc),
}
