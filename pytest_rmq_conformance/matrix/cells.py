"""The compatibility matrix, computed: every implementation at every release through the
golden replay and the differential on generated examples, one cell per family × release.

:func:`build_matrix` returns the document ``matrix.json`` holds
(``schemas/matrix.schema.json``); nothing here imports pytest.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import datetime
import platform
from collections import Counter
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.divergence import FAULT, SEVERITY, worst
from pytest_rmq_conformance.engine.generated.generation import check_examples
from pytest_rmq_conformance.engine.golden.cases import GoldenCases
from pytest_rmq_conformance.engine.golden.data import GoldenDataError, load_golden
from pytest_rmq_conformance.engine.loading.subject import Subject
from pytest_rmq_conformance.engine.protocol.client import HarnessFault, HarnessGaveUp, Unsupported
from pytest_rmq_conformance.engine.rerun import replay_command, rerun_command, suite_node
from pytest_rmq_conformance.engine.settings import Settings
from pytest_rmq_conformance.releases import version_key

__all__ = ["CHECKS", "build_matrix", "golden_runs", "implementation_of", "load_problems"]

CHECKS = ("golden", "generated")
SUMMARY = 200  # characters of a divergence's one-line summary


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= SUMMARY else line[: SUMMARY - 1] + "…"


def _version_of(strategy: Any) -> str:
    module = getattr(type(strategy) if not isinstance(strategy, type) else strategy, "__module__", "") or ""
    top = module.split(".")[0]
    for dist in metadata.packages_distributions().get(top, []):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return "unknown"


def implementation_of(subject: Subject, clients: Sequence[str] = ()) -> dict[str, Any]:
    """Name, language and version: the hello of a harness, or what Python can tell of a strategy;
    a reference port's version is the RocketMQ release it follows, or the ``clients`` whose
    golden runs it follows there (the 5.x gRPC clients')."""
    hello = subject.hello
    if hello is not None:
        found = {"name": hello.name, "language": hello.language, "version": hello.version}
        if hello.homepage:
            found["homepage"] = hello.homepage
        return found
    source = subject.source
    if subject.is_reference:  # a port of the Java code of the release it runs at
        version = ", ".join(clients) or f"RocketMQ {subject.settings.version}"
        name = f"{subject.name} (reference port)"
    else:
        version = _version_of(source.resolved.target) if source is not None else "unknown"
        target = source.resolved.target if source is not None else None
        name = getattr(target, "__qualname__", None) or type(target).__qualname__ if target is not None else subject.settings.spec
    return {"name": name, "language": f"Python {platform.python_version()}", "version": version}


class _Cell:
    """What one family at one release came to, filled in as outcomes arrive."""

    def __init__(self, family: str, release: str):
        self.family, self.release = family, release
        self.cases = self.passed = self.not_implemented = self.not_run = 0
        self.not_run_reason = ""  # the first case's not run said why
        self.classes: Counter[str] = Counter()
        self.first: dict[str, Any] | None = None
        self.generated: dict[str, Any] = {"status": "not-run", "reason": "not asked for"}
        self.status: str | None = None  # set for cells decided without running: absent, not implemented, error
        self.reason = ""

    def golden(self, outcome, settings: Settings) -> str:
        """Count one case's outcome; what it came to: ``pass``, its divergence class,
        ``not-implemented`` or ``not-run``."""
        self.cases += 1
        if outcome.skipped is not None:
            if outcome.skipped.startswith("not implemented"):
                self.not_implemented += 1
                return "not-implemented"
            self.not_run += 1
            self.not_run_reason = self.not_run_reason or outcome.skipped.removeprefix("not run: ")
            return "not-run"
        found = outcome.divergence_class
        if found is None:
            self.passed += 1
            return "pass"
        self.classes[found] += 1
        if self.first is None:
            self.first = {
                "check": "golden",
                "case": outcome.case.id,
                "class": found,
                "summary": _one_line(outcome.error or str(outcome.mismatches[0])),
                "repro": rerun_command(settings, outcome.case.id),
            }
        return found

    def as_json(self) -> dict[str, Any]:
        generated = self.generated
        impact = worst([*self.classes, *([generated["class"]] if generated.get("class") else [])])
        status, reason = self.status, self.reason
        if status is None:
            if self.cases and self.not_implemented == self.cases:
                status, reason = "not-implemented", "the harness answered unsupported"
            elif impact is not None:
                status = "differs"
            elif self.not_run:
                status, reason = "not-run", f"{self.not_run} case(s) not run, the first: {self.not_run_reason}"
            else:
                status = "pass"
        first = self.first
        if first is None and generated.get("status") == "differs":
            first = {key: generated[key] for key in ("check", "case", "class", "summary", "repro")}
        cell: dict[str, Any] = {
            "family": self.family,
            "release": self.release,
            "status": status,
            "impact": impact,
            "golden": {
                "cases": self.cases,
                "passed": self.passed,
                "differ": sum(self.classes.values()),
                "classes": {name: self.classes[name] for name in SEVERITY},
                "notImplemented": self.not_implemented,
                "notRun": self.not_run,
            },
            "generated": generated,
            "firstDivergence": first,
        }
        if reason:
            cell["reason"] = reason
        return cell


def _generated(subject: Subject, name: str) -> dict[str, Any]:
    """The differential against the reference port on generated inputs, for one family."""
    if subject.is_reference:
        return {"status": "reference", "reason": "the reference port itself"}
    if subject.family is None:
        return {"status": "skipped", "reason": "no Java twin to compare with"}
    check = subject.kind.generated(subject)
    if isinstance(check, str):
        return {"status": "skipped", "reason": check}
    try:
        # not shrunk: the matrix needs the verdict, and the repro line replays (and shrinks) it under pytest
        result = check_examples(subject, check.examples, check.body, shrink=False, explicit=check.explicit)
    except Unsupported as exc:
        return {"status": "not-implemented", "reason": f"not implemented: {exc}"}
    except HarnessGaveUp as exc:
        return {"status": "not-run", "reason": str(exc)}
    if result.not_run is not None:  # out of time, or a starved generator: no verdict either way
        return {"status": "not-run", "reason": result.not_run}
    if result.report is None:
        return {"status": "pass"}
    return {
        "status": "differs",
        "check": "generated",
        "case": "a generated example",
        "class": check.classify() or FAULT,
        "summary": _one_line(result.report.splitlines()[0]),
        "repro": replay_command(subject.settings, suite_node("test_reference", name)),
    }


def _release_cells(spec: str, release: str, options: dict[str, Any]) -> tuple[dict[str, Any] | None, list[dict[str, Any]], str]:
    """The implementation's identity (``None`` if it did not load), its cells at ``release``, and
    what the release is shown as (``RocketMQ 5.3.3``, or the client whose runs its cases hold to)."""
    settings = Settings(spec=spec, origin="rmq-conformance matrix", version=release, **options["settings"])
    subject = Subject(settings)
    try:
        subject.load()  # a module spec may register a kind and families of its own
        cells = {family: _Cell(family, release) for family in kinds.names()}
        error = subject.load_error
        if error is not None:
            for cell in cells.values():
                cell.status, cell.reason = "error", _one_line(error)
            return None, [cell.as_json() for cell in cells.values()], f"RocketMQ {release}"
        golden = GoldenCases(subject)
        try:
            clients = golden.clients()
        except (GoldenDataError, LookupError):
            clients = []
        identity = implementation_of(subject, clients)
        served = subject.families
        for family, cell in cells.items():
            if family not in served:
                cell.status = "not-implemented" if subject.harness is not None else "absent"
                cell.reason = "not in the harness's hello" if subject.harness is not None else f"{subject.name} is one family"
        checks = options["checks"]
        if "golden" in checks:
            try:
                for case in golden.cases():
                    came_to = cells[case.strategy].golden(golden.run_case(case), settings)
                    options["on_case"](spec, release, case.strategy, case.id, came_to)
            except (GoldenDataError, LookupError) as exc:
                for family in served:
                    cells[family].status, cells[family].reason = "error", _one_line(str(exc))
        if "generated" in checks:
            several = len(served) > 1
            for family in served:
                view = subject.for_family(family) if subject.harness is not None else subject
                name = f"test_matches_reference[{family}]" if several else "test_matches_reference"
                try:
                    cells[family].generated = _generated(view, name)
                except HarnessFault as fault:  # the harness died where the check could not report it
                    cells[family].generated = {"status": "differs", "check": "generated", "case": "a generated example",
                                               "class": FAULT, "summary": _one_line(str(fault)), "repro": ""}
        return identity, [cell.as_json() for cell in cells.values()], golden.java_label()
    finally:
        harness = subject.harness if subject.load_error is None else None
        if harness is not None:
            harness.stop()


def _verdict(cells: Sequence[dict[str, Any]]) -> dict[str, Any]:
    ran = [cell for cell in cells if cell["status"] in ("pass", "differs")]
    passing = sum(1 for cell in ran if cell["status"] == "pass")
    impact = worst(cell["impact"] for cell in cells if cell["impact"])
    errors = sum(1 for cell in cells if cell["status"] == "error")
    if errors and not ran:
        status = "error"
    elif impact is not None:
        status = impact
    else:
        status = "pass" if ran else "not-run"
    return {"status": status, "cellsPassed": passing, "cellsRun": len(ran)}


def build_matrix(
    specs: Sequence[str],
    releases: Sequence[str],
    *,
    checks: Sequence[str] = CHECKS,
    seed: int = 0,
    examples: int | None = None,
    timeout: float | None = 5.0,
    isolate: bool = False,
    search_path: Sequence[str] = (),
    progress: Callable[[str], None] = lambda line: None,
    on_case: Callable[[str, str, str, str, str], None] = lambda spec, release, family, case, came_to: None,
) -> dict[str, Any]:
    """Run every spec (``--rmq-strategy`` syntax, ``exec:`` included) at every release; a
    ``module:attribute`` spec's module is looked for in ``search_path`` when it is not installed.
    ``on_case`` hears each golden case's outcome (spec, release, family, case id, and ``pass``,
    its divergence class, ``not-implemented`` or ``not-run``): the document keeps only counts."""
    options = {
        "checks": tuple(checks),
        "on_case": on_case,
        "settings": {"seed": seed, "examples": examples, "timeout": timeout, "isolate": isolate, "search_path": tuple(search_path)},
    }
    rows = []
    for spec in specs:
        identity: dict[str, Any] | None = None
        versions: list[str] = []
        cells: list[dict[str, Any]] = []
        for release in releases:
            found, release_cells, at = _release_cells(spec, release, options)
            identity = identity or found
            versions += [found["version"]] if found is not None and found["version"] not in versions else []
            cells.extend(release_cells)
            progress(_progress_line(spec, found or identity, at, release_cells))
        if identity is not None and len(versions) > 1:  # a reference port follows each release
            identity["version"] = _versions(versions)
        row = {"spec": spec, **(identity or {"name": spec, "language": "unknown", "version": "unknown"})}
        row["verdict"] = _verdict(cells)
        row["cells"] = cells
        rows.append(row)
    families = _asked_families(rows)
    for row in rows:
        row["cells"] = [cell for cell in row["cells"] if cell["family"] in families]
    return {
        "matrixVersion": 1,
        "tool": {"name": "pytest-rmq-conformance", "version": metadata.version("pytest-rmq-conformance")},
        "generatedAt": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "checks": list(checks),
        "seed": seed,
        "examples": examples,
        "releases": list(releases),
        "goldenRuns": golden_runs(releases, families),
        "families": families,
        "implementations": rows,
    }


def _asked_families(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The families of the kinds some implementation was checked on: a producer client needs no
    consumer columns, and the reverse (every family when nothing was checked)."""
    served = {cell["family"] for row in rows for cell in row["cells"] if cell["status"] not in ("absent", "not-implemented")}
    asked = {kinds.get(family).kind for family in served}
    return [family for family in kinds.names() if kinds.get(family).kind in asked] or kinds.names()


def load_problems(specs: Sequence[str], release: str, *, timeout: float | None, search_path: Sequence[str] = ()) -> list[str]:
    """Why each of ``specs`` that cannot be loaded (or whose harness never says hello) cannot."""
    problems = []
    for spec in specs:
        subject = Subject(Settings(spec=spec, origin="rmq-conformance matrix", version=release, timeout=timeout,
                                   search_path=tuple(search_path)))
        subject.load()
        if subject.load_error is not None:
            problems.append(subject.load_error.replace("--rmq-strategy=", "", 1))
        elif subject.harness is not None:
            subject.harness.stop()
    return problems


def golden_runs(releases: Sequence[str], families: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The Java runs behind the golden vectors of ``releases`` and ``families`` (default: those
    of the shipped ``golden/`` folder), as a case is held to them (of a client's versions answering
    at one release, the newest): release, commit or Maven coordinates, JDK, charset; a run of another
    client than RocketMQ's own (the 5.x gRPC clients) names it, and the families it recorded, under
    each release of its line it answers at."""
    own = {kind.name: kind.golden_dirs for kind in kinds.all_kinds()}
    shipped = [name for name in kinds.names() if not own[kinds.get(name).kind]]  # the families of golden/
    sets = [(load_golden(strategies=()), shipped)]
    sets += [(load_golden(directory, strategies=(), validate=False), [name for name in kinds.names() if kinds.get(name).kind == kind])
             for kind, directories in own.items() for directory in directories]
    wanted = set(shipped if families is None else families)
    order = {release: at for at, release in enumerate(releases)}
    # (release shown, run, families): a client's run answers at every release of its line
    found = [(release, run, names) for golden, names in sets if wanted & set(names) for run in golden.runs.values()
             for release in order if run.answers_at(release)]
    newest: dict[tuple[str, tuple[str, ...]], Any] = {}  # of a client's versions answering at one release, the newest
    for release, run, names in found:
        if run.client is not None:
            key = (release, tuple(names))
            if key not in newest or version_key(run.client) > version_key(newest[key].client):
                newest[key] = run
    found = [(release, run, names) for release, run, names in found if run.client is None or newest[(release, tuple(names))] is run]
    out: list[dict[str, Any]] = []
    for release, run, names in sorted(found, key=lambda item: (order[item[0]], item[1].id)):
        entry: dict[str, Any] = {"run": run.id, **{key: value for key, value in run.to_json().items() if key not in ("maven", "calls", "clock")}}
        entry["rocketmq"] = release  # the column's release (a client's run is filed under another of its line)
        if run.maven is not None:
            entry["maven"] = run.maven
        if run.client is not None:
            entry["families"] = names
        if entry not in out:
            out.append(entry)
    return out


def _versions(versions: Sequence[str]) -> str:
    """``RocketMQ 4.9.8, 5.3.3`` for the versions a reference port took, one per release."""
    prefix = "RocketMQ "
    if all(version.startswith(prefix) for version in versions):
        return prefix + ", ".join(version[len(prefix):] for version in versions)
    return ", ".join(versions)


def _progress_line(spec: str, identity: dict[str, Any] | None, at: str, cells: Sequence[dict[str, Any]]) -> str:
    """One line per implementation and release (``at``: the release as shown) as the matrix runs."""
    shown = identity is None or identity["version"] in (at, at.partition(", with ")[0])
    name = spec if identity is None else identity["name"] if shown else f"{identity['name']} {identity['version']}"
    parts = []
    for cell in cells:
        if cell["status"] == "absent":
            continue
        if cell["status"] == "differs":
            golden = cell["golden"]
            what = f"{golden['differ']} of {golden['cases']} differ" if golden["differ"] else "generated differs"
            parts.append(f"{cell['family']} {what} ({cell['impact']})")
        else:
            parts.append(f"{cell['family']} {cell['status']}")
    return f"{name} at {at}: " + ", ".join(parts)
