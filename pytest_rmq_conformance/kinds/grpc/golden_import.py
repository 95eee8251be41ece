"""Build ``golden/grpc/`` from the Java vectors of the 5.x gRPC client's balancers.

The source holds ``GROUP_HASH.jsonl``, ``PUBLISH_ROUND_ROBIN.jsonl`` and
``SUBSCRIBE_ROUND_ROBIN.jsonl`` and the ``vector.schema.json`` every line follows (every line
naming the ``rocketmq-clients`` commit, Guava and JDK it was taken with), or, without one, the
lines of the project's own harness (``schemas/grpc-harness-record.schema.json``, naming the
``rocketmq-client-java`` version and its jars). The import validates
every line, checks that they all name one provenance (kept once, as the manifest's run),
refuses a repeated id or a repeated scenario, and writes each case as the suite's other golden
cases are written: its inputs, then Java's answers under the run that gave them. Importing the
same files twice gives the same bytes.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.golden.data import GoldenDataError, read_jsonl, write_golden
from pytest_rmq_conformance.releases import version_key

__all__ = ["FAMILIES", "SOURCE_SCHEMA", "RELEASE", "ImportReport", "import_vectors", "is_source"]

FAMILIES = ("GROUP_HASH", "PUBLISH_ROUND_ROBIN", "SUBSCRIBE_ROUND_ROBIN")
SOURCE_SCHEMA = "vector.schema.json"
#: the schema of the lines the project's harness records (``rmq-conformance golden record``), for
#: a folder without a schema of its own
RECORD_SCHEMA = "grpc-harness-record"
#: the RocketMQ release the 5.x clients' answers are filed under; they hold a case at every 5.x
#: release (:meth:`~pytest_rmq_conformance.engine.records.Run.answers_at`): the client is versioned
#: apart from RocketMQ's releases
RELEASE = "5.3.3"


@dataclass
class ImportReport:
    """What an import read and wrote."""

    cases: Counter = field(default_factory=Counter)  # per family
    duplicates: int = 0  # lines whose scenario an earlier line already holds
    run: str = ""
    lines: int = 0  # lines read, of every run

    def summary(self) -> str:
        families = ", ".join(f"{name}: {count}" for name, count in sorted(self.cases.items()))
        return (
            f"read {self.lines} gRPC balancer vectors of {self.run}\n"
            f"wrote {sum(self.cases.values())} cases ({families}); {self.duplicates} repeated scenario(s) left out"
        )


def is_source(source: Path) -> bool:
    """Whether ``source`` holds vectors of the gRPC clients' balancers."""
    return any((source / f"{family}.jsonl").is_file() for family in FAMILIES)


def _run_of(reference: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The manifest's run for a line's ``reference``: its id and provenance. A version of
    ``rocketmq-client-java`` that Maven Central served (``golden record``) is named by its version,
    a commit of ``rocketmq-clients`` by the commit's first eight digits."""
    if "maven" in reference:
        version = reference["client"].removeprefix("rocketmq-client-java ")
        return f"{RELEASE}+java-{version}", {
            "rocketmq": RELEASE,
            "jdk": reference["jdk"],
            "fileEncoding": reference["fileEncoding"],
            "defaultCharset": reference["defaultCharset"],
            "client": reference["client"],
            "calls": reference["calls"],
            "maven": reference["maven"],
        }
    commit = reference["commit"]
    return f"{RELEASE}+java-{commit[:8]}", {
        "rocketmq": RELEASE,
        "commit": commit,
        "jdk": f"{reference['jdk']}, Guava: {reference['guava']}",
        "fileEncoding": "UTF-8",
        "defaultCharset": "UTF-8",
        "client": f"rocketmq-clients Java {commit[:8]}",
    }


def _case(record: dict[str, Any], run: str) -> dict[str, Any]:
    family, tags = record["family"], record["tags"]
    case: dict[str, Any] = {"id": record["id"], "strategy": family, "category": tags[0],
                            "flags": list(dict.fromkeys(tags[1:])), "params": {}}
    expect = record["expect"]
    if family == "GROUP_HASH":
        case.update(group=record["group"], queues=record["queues"])
    else:
        case.update(route=record["route"], index=record["index"], steps=record["steps"])
    case["expect"] = [{"runs": [run], **expect}]
    return case


def _scenario(case: dict[str, Any]) -> str:
    """What a case asks, without its name: two cases asking the same are one."""
    return json.dumps({key: value for key, value in case.items() if key not in ("id", "category", "flags", "expect")}, sort_keys=True)


def _read_run(folder: Path, schema: str | Path, report: ImportReport, prefix: str) -> tuple[str, dict[str, Any], dict[str, list[dict[str, Any]]], list[dict[str, Any]]]:
    """One run's files in ``folder``: its id and provenance, its cases by family (a repeated
    scenario left out) and the source entries (paths under ``prefix``)."""
    runs: dict[str, dict[str, Any]] = {}
    sources: list[dict[str, Any]] = []
    by_family: dict[str, list[dict[str, Any]]] = {}
    ids: dict[str, str] = {}
    for path in [folder / f"{family}.jsonl" for family in FAMILIES if (folder / f"{family}.jsonl").is_file()]:
        lines = 0
        scenarios: dict[str, int] = {}
        for where, record in read_jsonl(path, schema):
            lines += 1
            report.lines += 1
            if record["family"] != path.stem:
                raise GoldenDataError(f"{where}: a {record['family']} vector in {path.name}")
            run, provenance = _run_of(record["reference"])
            if runs.setdefault(run, provenance) != provenance or len(runs) > 1:
                raise GoldenDataError(f"{where}: provenance {record['reference']} differs from the other lines'")
            if record["id"] in ids:
                raise GoldenDataError(f"{where}: id {record['id']} already at {ids[record['id']]}")
            ids[record["id"]] = where
            case = _case(record, run)
            scenario = _scenario(case)
            if scenario in scenarios:
                if case["expect"] != by_family[path.stem][scenarios[scenario]]["expect"]:
                    raise GoldenDataError(f"{where}: the same scenario as an earlier line, with other answers")
                report.duplicates += 1
                continue
            scenarios[scenario] = len(by_family.setdefault(path.stem, []))
            by_family[path.stem].append(case)
        sources.append({"path": prefix + path.name, "run": next(iter(runs), ""), "lines": lines,
                        "sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
    (run, provenance), = runs.items()
    return run, provenance, by_family, sources


def import_vectors(source: os.PathLike, out: os.PathLike) -> ImportReport:
    """Convert the vectors in ``source`` into the golden directory ``out`` (its ``manifest.json``
    and case files are replaced; the new set is validated aside first, so a failed import leaves
    ``out`` as it was). ``source`` holds one run's files, or a folder of them per version
    (``<version>/<FAMILY>.jsonl``): a case then keeps one answer per group of versions that
    answered alike, and must ask the same in each."""
    source, out = Path(source), Path(out)
    if not source.is_dir():
        raise GoldenDataError(f"{source}: not a directory")
    schema: str | Path = source / SOURCE_SCHEMA
    if not Path(schema).is_file():
        schema = RECORD_SCHEMA
    if any((source / f"{family}.jsonl").is_file() for family in FAMILIES):
        folders = [(source, "")]
    else:
        folders = [(folder, f"{folder.name}/") for folder in sorted(source.iterdir()) if is_source(folder)]
    if not folders:
        raise GoldenDataError(f"{source}: none of {', '.join(f + '.jsonl' for f in FAMILIES)}, nor a folder of them per version")
    report = ImportReport()
    read = [_read_run(folder, schema, report, prefix) for folder, prefix in folders]
    read.sort(key=lambda found: version_key(found[0].partition("+java-")[2]))
    runs = {run: provenance for run, provenance, _, _ in read}
    if len(runs) < len(read):
        raise GoldenDataError(f"{source}: two folders hold the same run")
    by_family: dict[str, list[dict[str, Any]]] = {}
    for family in FAMILIES:
        per_run = [(run, {case["id"]: case for case in cases.get(family, ())}) for run, _, cases, _ in read]
        fullest = max((found for _, found in per_run), key=len)
        order = list(fullest) + [case for _, found in per_run for case in found if case not in fullest]
        merged = []
        for case_id in dict.fromkeys(order):
            asked = None
            groups: dict[str, dict[str, Any]] = {}
            for run, found in per_run:
                if case_id not in found:
                    continue
                case = found[case_id]
                inputs = {key: value for key, value in case.items() if key != "expect"}
                if asked is not None and inputs != asked:
                    raise GoldenDataError(f"{source}: {case_id} asks otherwise in {run} than in another version")
                asked = inputs
                answer = {key: value for key, value in case["expect"][0].items() if key != "runs"}
                groups.setdefault(json.dumps(answer, sort_keys=True), {"runs": [], **answer})["runs"].append(run)
            assert asked is not None
            merged.append({**asked, "expect": [{"runs": group.pop("runs"), **group} for group in groups.values()]})
        if merged:
            by_family[family] = merged
            report.cases[family] = len(merged)
    report.run = ", ".join(runs)
    manifest = {
        "format": 1,
        "runs": runs,
        "files": {f"{name}.jsonl": len(cases) for name, cases in sorted(by_family.items())},
        "sources": [entry for _, _, _, entries in read for entry in entries],
    }
    write_golden(out, manifest, by_family)
    return report
