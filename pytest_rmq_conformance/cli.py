"""``rmq-conformance``: the command line of pytest-rmq-conformance.

    rmq-conformance replay                      replay the consumer allocation vectors against the reference ports
    rmq-conformance golden check [DIR]          validate a golden directory (default: every kind's shipped vectors)
    rmq-conformance golden import SRC --out DIR build a golden directory from Java harness output
    rmq-conformance golden record --release R [--client-java V] --out DIR
                                                ask rocketmq-client R (allocation, producer) and
                                                rocketmq-client-java V (gRPC) from Maven Central
    rmq-conformance golden record --every-release --out DIR
                                                ask every version Maven Central serves
    rmq-conformance golden provenance [DIR...]  check each recorded jar's SHA-256 against Maven's
    rmq-conformance golden releases             list the versions Maven Central serves
    rmq-conformance golden changes [DIR ...]    per family, the releases at which Java's answers changed
    rmq-conformance sweep --out DIR             invariants and churn over many scenarios, on Spark
    rmq-conformance sweep --producer --out DIR  producer fault tolerance under broker faults, on Spark
    rmq-conformance sweep --groups N --out DIR  message-group routing: skew, and groups moved as queues change
    rmq-conformance sweep --mix --strategy SPEC what sharing a consumer group (--groups N: a message group) with Java costs
    rmq-conformance matrix [SPEC ...]           a compatibility matrix: implementations x family x release

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import json
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.golden.data import GoldenDataError, load_golden
from pytest_rmq_conformance.engine.kinds import all_kinds, names, ports, reference_strategy
from pytest_rmq_conformance.kinds.allocation.replay import replay_case
from pytest_rmq_conformance.pipeline.errors import SweepError
from pytest_rmq_conformance.record.maven import RecordError
from pytest_rmq_conformance.releases import DEFAULT_RELEASE, RELEASES, parse_release, release_problem, resolve_line

__all__ = ["main", "parser"]

#: the line that writes docs/releases.md, as the page says
PAGE_COMMAND = "rmq-conformance golden changes --out docs/releases.md"
#: the kinds golden record asks (record/recorders.py holds each one's artifact and harness)
RECORDERS_KINDS = ("allocation", "grpc", "producer")
#: the kind the replay, sweep and matrix commands cover
ALLOCATION = "allocation"


def _release_problems(option: str, releases: Sequence[str], covered: Iterable[str]) -> list[str]:
    """Why each of ``releases`` (given as ``option``) cannot be judged: the rule ``pytest`` holds
    ``--rmq-reference-version`` to (:func:`~pytest_rmq_conformance.releases.release_problem`)."""
    covered = list(covered)
    return [f"{option} {release}: {problem}" for release in releases if (problem := release_problem(release, covered)) is not None]


def _shipped_releases() -> list[str]:
    """The releases the shipped golden vectors cover (read from the manifest alone)."""
    return sorted({run.rocketmq for run in load_golden(strategies=()).runs.values()}, key=parse_release)


def _lines(option: str, versions: Sequence[str], covered: Iterable[str]) -> list[str]:
    """``versions`` with each release line (``4.9``) made the newest release of ``covered`` in it,
    saying so in one line each (``--release 4.9: RocketMQ 4.9.8, the newest 4.9 release ...``)."""
    covered = list(covered)
    out = []
    for version in versions:
        release, said = resolve_line(version, covered)
        if said is not None:
            print(f"{option} {version}: RocketMQ {release}, {said}")
        out.append(release)
    return out


def _replay(args: argparse.Namespace) -> int:
    golden = load_golden(args.golden)
    args.release = _lines("--release", args.release or (), (run.rocketmq for run in golden.runs.values()))
    problems = _release_problems("--release", args.release, (run.rocketmq for run in golden.runs.values()))
    if problems:
        print(f"rmq-conformance replay: error: {'; '.join(problems)}", file=sys.stderr)
        return 2
    from pytest_rmq_conformance.engine.golden.modelled import modelled_release

    covered = {run.rocketmq for run in golden.runs.values()}
    chosen = args.release or [release for release in RELEASES if release in covered] or covered
    runs = [run for run in golden.runs.values() if run.rocketmq in chosen]
    strategies = args.strategy or sorted(ports(ALLOCATION))
    unmodelled: dict[tuple[str, str], int] = {}
    calls: Counter = Counter()
    failed: Counter = Counter()
    cases: Counter = Counter()
    failed_cases: Counter = Counter()
    examples: list[str] = []
    for case in golden.cases:
        if case.strategy not in strategies:
            continue
        for run in runs:
            if run.id not in case.runs:
                continue
            if modelled_release(case.strategy, run.rocketmq, run.default_charset) is None:
                unmodelled[(run.id, case.strategy)] = unmodelled.get((run.id, case.strategy), 0) + 1
                continue
            params = case.params_for(run)
            mismatches = replay_case(partial(reference_strategy, case.strategy, params, run.rocketmq), case, run.id)
            key = (run.id, case.strategy)
            cases[key] += 1
            calls[key] += len(case.results_for(run.id))
            failed[key] += len(mismatches)
            failed_cases[key] += bool(mismatches)
            examples.extend(str(m) for m in mismatches[: max(0, 5 - len(examples))])
    print(f"golden vectors: {golden.directory}")
    print(f"{'run':<18} {'strategy':<20} {'cases':>6}  {'cases differing':>15}  {'calls':>7}  {'calls differing':>15}")
    for key in sorted(cases):
        print(f"{key[0]:<18} {key[1]:<20} {cases[key]:>6}  {failed_cases[key]:>15}  {calls[key]:>7}  {failed[key]:>15}")
    total_calls, total_failed = sum(calls.values()), sum(failed.values())
    print(
        f"{'total':<39} {sum(cases.values()):>6}  {sum(failed_cases.values()):>15}  {total_calls:>7}  {total_failed:>15}"
    )
    for line in examples:
        print(f"  differs: {line}")
    for (run_id, strategy), count in sorted(unmodelled.items()):
        print(f"not replayed: {strategy} at {run_id} ({count} cases): Java's answers there are none of the releases the ports reproduce ({', '.join(RELEASES)})")
    if not cases:
        others = sorted({case.strategy for case in golden.cases} - set(ports(ALLOCATION)))
        why = (f": {golden.directory} holds {', '.join(others)}, which replay does not cover "
               f"(pytest --rmq-strategy={others[0]} --rmq-checks=golden replays a family's reference port)") if others else ""
        print(f"nothing replayed: no case matches the selection{why}", file=sys.stderr)
        return 2
    if not total_failed:
        print("the reference ports reproduce every answer")
    else:
        print(f"{total_failed} of {total_calls} calls answer differently, in {sum(failed_cases.values())} cases")
    return 1 if total_failed else 0


def _golden_check(args: argparse.Namespace) -> int:
    """Validate ``args.directory``, or, without one, the shipped vectors of every kind."""
    shipped = [None, *(directory for kind in all_kinds() for directory in kind.golden_dirs)]
    for directory in [args.directory] if args.directory is not None else shipped:
        golden = load_golden(directory, validate=True)
        per_run = Counter(run for case in golden.cases for run in case.runs)
        families = ", ".join(dict.fromkeys(case.strategy for case in golden.cases))
        print(f"{golden.directory}: {len(golden.cases)} valid cases" + (f" of {families}" if families else ""))
        for run, count in sorted(per_run.items()):
            print(f"  {run}: {count} cases")
    return 0


def _golden_import(args: argparse.Namespace) -> int:
    if not args.source.is_dir():
        raise GoldenDataError(f"{args.source}: not a directory")
    summaries = [summary for kind in all_kinds() if (summary := kind.import_golden(args.source, args.out)) is not None]
    if not summaries:
        raise GoldenDataError(
            f"{args.source}: no golden vectors of any kind here (<release>/<FAMILY>.jsonl, FAMILY one of {', '.join(names())})"
        )
    print("\n".join(summaries))
    print(f"golden directory written: {args.out}")
    return 0


_VERSION = re.compile(r"\d+\.\d+\.\d+")


def _recorded_kind(path: Path) -> str:
    """The kind of a scenario file, by its first line: a producer or gRPC scenario names its
    ``family``, an allocation scenario its ``strategy``."""
    from pytest_rmq_conformance.record import grpc

    try:
        first = next((line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()), "{}")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read the scenarios: {exc}") from None
    try:
        family = json.loads(first).get("family")
    except (json.JSONDecodeError, AttributeError):
        return "allocation"  # its reader names what is wrong with the line
    return "allocation" if family is None else "grpc" if family in grpc.INPUTS else "producer"


def _record_plan(args: argparse.Namespace) -> dict[str, list[str]]:
    """The versions to ask, by kind: ``--kind``, the kind of ``--scenarios``, or every kind of the
    versions named (``--every-release``: every version Maven Central serves); a
    :class:`RecordError` for a kind whose version is not named or a version that is not one."""
    from pytest_rmq_conformance.record.recorders import RECORDERS
    from pytest_rmq_conformance.record.served import client_java_versions, release_of, rocketmq_releases

    if args.every_release and (args.release or args.client_java):
        raise RecordError("--every-release asks every version Maven Central serves: leave out --release and --client-java")
    if not (args.every_release or args.release or args.client_java):
        raise RecordError("name what to ask: --release R (rocketmq-client) and/or --client-java V (rocketmq-client-java), or --every-release")
    if args.release is not None:
        try:
            parse_release(release_of(args.release))
        except ValueError as exc:
            raise RecordError(f"--release {args.release}: {exc}") from None
    if args.client_java is not None and not _VERSION.fullmatch(args.client_java):
        raise RecordError(f"--client-java {args.client_java}: a rocketmq-client-java version looks like 5.2.0")
    if args.generate is not None:
        if args.scenarios is not None:
            raise RecordError("--generate draws the scenarios to ask: leave out --scenarios")
        if args.generate < 1:
            raise RecordError(f"--generate {args.generate}: draw at least one scenario")
    if args.kind is not None:
        chosen = [args.kind]
    elif args.scenarios is not None:
        chosen = [_recorded_kind(args.scenarios)]
    elif args.every_release:
        chosen = list(RECORDERS)
    else:
        chosen = [kind for kind, recorder in RECORDERS.items() if (args.client_java if recorder.option == "--client-java" else args.release)]
    plan = {}
    for kind in chosen:
        recorder = RECORDERS[kind]
        java = recorder.option == "--client-java"
        if args.every_release:
            plan[kind] = list((client_java_versions() if java else rocketmq_releases()).recorded)
            continue
        version = args.client_java if java else args.release
        if version is None:
            client = "rocketmq-client-java" if java else "rocketmq-client"
            raise RecordError(f"the {kind} kind is asked of {client}: name its version with {recorder.option}")
        plan[kind] = [version]
    return plan


def _charsets(
    args: argparse.Namespace, kind: str, version: str, scenarios: list[dict[str, Any]]
) -> list[tuple[str, list[dict[str, Any]], bool]]:
    """What to ask ``version`` under which JVM default charset: ``--charset``'s (UTF-8 unless
    given); for the shipped allocation scenarios and a 4.x release, also those whose answers
    the charset can change under the other charset the shipped vectors hold, as a run of its
    own (not required: a release without CONSISTENT_HASH answers none)."""
    from pytest_rmq_conformance.record import allocation
    from pytest_rmq_conformance.record.served import release_of

    asked = [(args.charset or "UTF-8", scenarios, True)]
    shipped = args.scenarios is None and args.generate is None and args.charset is None
    if kind == "allocation" and shipped and parse_release(release_of(version)) < (5, 0, 0):
        asked.append((allocation.OTHER_CHARSET, allocation.charset_scenarios(scenarios), False))
    return asked


def _golden_record(args: argparse.Namespace) -> int:
    import shutil
    import tempfile

    from pytest_rmq_conformance.record.recorders import RECORDERS

    plan = _record_plan(args)
    with tempfile.TemporaryDirectory(prefix="rmq-record-golden-") as staging:
        for kind, versions in plan.items():  # every version asked before anything is written to --out
            recorder = RECORDERS[kind]
            if args.generate is not None:
                from pytest_rmq_conformance.record import generate

                scenarios = getattr(generate, kind)(args.generate, args.seed)
            elif args.scenarios:
                scenarios = recorder.module.read_scenarios(args.scenarios)
            else:
                scenarios = recorder.module.shipped_scenarios()
            source = Path(staging) / "asked" / kind
            for version in versions:
                for charset, chosen, required in _charsets(args, kind, version, scenarios):
                    started = time.monotonic()
                    asked = recorder.ask(version, chosen, source, charset, required=required)
                    under = f" under {charset}" if kind == "allocation" else ""
                    print(
                        f"{kind}: {asked.coordinates} ({asked.jars} jars) answered {asked.records} scenarios{under} "
                        f"in {time.monotonic() - started:.1f} s"
                        + (f"; left out, as it lacks what they need: {asked.lacking}" if asked.lacking else ""),
                        flush=True,  # a line per version, as it comes (every release takes minutes)
                    )
            print(recorder.write(source, Path(staging) / "golden"))
        shutil.copytree(Path(staging) / "golden", args.out, dirs_exist_ok=True)
    print(f"golden directory written: {args.out}")
    return 0


def _golden_releases(args: argparse.Namespace) -> int:
    from pytest_rmq_conformance.record.served import client_java_versions, rocketmq_releases

    for name, served in (("rocketmq-client", rocketmq_releases()), ("rocketmq-client-java", client_java_versions())):
        print(f"{name}: {len(served.recorded)} versions: {', '.join(served.recorded)}")
        if served.left_out:
            print(f"  left out (pre-releases): {', '.join(served.left_out)}")
    return 0


def _golden_changes(args: argparse.Namespace) -> int:
    from pytest_rmq_conformance.engine.golden.changes import histories, markdown
    from pytest_rmq_conformance.engine.golden.data import shipped_dirs

    found = histories(args.directory or shipped_dirs())
    if args.out is not None:
        args.out.write_text(markdown(found, PAGE_COMMAND), encoding="utf-8")
        print(f"written: {args.out}")
        return 0
    for history in found:
        span = history.releases[0] if len(history.releases) == 1 else f"{history.releases[0]} .. {history.releases[-1]}"
        print(f"{history.family}: {history.cases} cases at {len(history.releases)} releases ({span}), {len(history.behaviours)} behaviour(s)")
        for change in history.changes:
            said = [f"{change.cases} of {change.total} cases answer otherwise, the first {change.first}"] if change.cases else []
            said += [f"{change.added} cases asked from here on"] if change.added else []
            said += [f"{change.removed} cases no longer asked"] if change.removed else []
            print(f"  {change.before} -> {change.after}: {'; '.join(said)}")
    return 0


def _golden_provenance(args: argparse.Namespace) -> int:
    from pytest_rmq_conformance.engine.golden.data import shipped_dirs
    from pytest_rmq_conformance.record.maven import resolve_many

    recorded: dict[str, tuple[list[str], dict[str, str]]] = {}  # coordinates -> (run ids, jar digests as recorded)
    for directory in args.directory or shipped_dirs():
        for run in load_golden(directory, strategies=(), validate=bool(args.directory)).runs.values():
            if run.maven is not None:
                names, _ = recorded.setdefault(run.maven, ([], dict(run.jars)))
                if run.id not in names:  # a release's run in the allocation and the producer folders alike
                    names.append(run.id)
    if not recorded:
        print("no run names Maven coordinates")
        return 0
    resolved = resolve_many(list(recorded))
    differ = 0
    for coordinates, (names, jars) in recorded.items():
        now = resolved[coordinates].sha256
        changed = sorted(name for name in jars.keys() | now.keys() if jars.get(name) != now.get(name))
        differ += bool(changed)
        said = f"{len(jars)} jars as recorded" if not changed else f"differ: {', '.join(changed)}"
        print(f"{coordinates} ({', '.join(names)}): {said}")
    print(f"{len(recorded) - differ} of {len(recorded)} artifacts as recorded")
    return 1 if differ else 0


def _sweep_specs(args: argparse.Namespace) -> list[str]:
    """The six reference strategies (unless ``--no-references``), then each ``--strategy``, once."""
    references = [] if args.no_references else sorted(ports(ALLOCATION))
    return list(dict.fromkeys([*references, *(args.strategy or ())]))


def _importable_here() -> None:
    """Modules in the current directory import, as under ``python -m``: here and in the Python
    workers Spark starts on this machine (a cluster's workers need the strategy installed)."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))


def _checked_specs(args: argparse.Namespace, load_problem: Callable[[str], str | None]) -> tuple[list[str], list[str]]:
    """The ``--strategy`` specs, once each, importable from the current directory, and why any does not load."""
    specs = list(dict.fromkeys(args.strategy or ()))
    _importable_here()
    return specs, [problem for spec in specs if (problem := load_problem(spec)) is not None]


def _load_problems(specs: Sequence[str], version: str, timeout: float | None) -> list[str]:
    """Why each of ``specs`` that does not load does not (checked before Spark starts)."""
    from pytest_rmq_conformance.pipeline.allocation.evaluate import Evaluator

    problems = []
    for spec in specs:
        evaluator = Evaluator(spec, version, timeout)
        if evaluator.error is not None:
            problems.append(evaluator.error.replace(f"--rmq-strategy={spec}", f"--strategy {spec}", 1))
        evaluator.close()
    return problems


SWEEP_COLUMNS = ("strategy", "scenarios", "failing scenarios", "calls", "queues moved: mean", "p99", "max", "lower bound: mean")


def _sweep_row(entry: dict) -> tuple[str, ...]:
    from pytest_rmq_conformance.pipeline.allocation.plots import label

    churn = entry["churn"]
    counts = (entry["scenarios"], entry["failing_scenarios"], entry["calls"])
    moved = (_number(churn["mean"]), _number(churn["p99"]), str(churn["max"]), _number(churn["lower_bound_mean"]))
    return (label(entry), *map(str, counts), *moved)


def _sweep_table(summary: dict) -> list[str]:
    """Per strategy: scenarios, failing scenarios, calls, queues moved; then each kind of violation
    with the scenarios it was found in."""
    from pytest_rmq_conformance.pipeline.allocation.plots import label

    entries = summary["strategies"]
    lines = [SWEEP_COLUMNS, *map(_sweep_row, entries)]
    widths = [max(map(len, column)) for column in zip(*lines)]
    table = ["  ".join([line[0].ljust(widths[0]), *map(str.rjust, line[1:], widths[1:])]) for line in lines]
    table.append(
        "queues moved: per scenario, the queues whose holder changed; lower bound: the fewest moves "
        "that reach a balanced group (a strategy that does not balance may move fewer)"
    )
    table += [
        f"{label(entry)}: {kind['kind']} in {kind['scenarios']} of {entry['scenarios']} scenarios "
        f"({kind['occurrences']} occurrences)"
        for entry in entries
        for kind in entry["violations"]
    ]
    return table


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _sweep_error(message: str) -> int:
    print(f"rmq-conformance sweep: error: {message}", file=sys.stderr)
    return 2


#: the options of some sweeps only: attribute -> (flag, the modes it applies to)
MODE_OPTIONS = {
    "no_references": ("--no-references", ("allocation",)),
    "consumers": ("--consumers", ("allocation", "mix")),
    "events": ("--events", ("allocation", "mix")),
    "reference_version": ("--reference-version", ("allocation", "mix")),
    "timeout": ("--timeout", ("allocation", "groups", "mix", "mix-groups")),
    "scenarios": ("--scenarios", ("allocation", "producer", "mix")),
    "seed": ("--seed", ("allocation", "producer", "mix")),
    "brokers": ("--brokers", ("producer",)),
    "patterns": ("--patterns", ("producer",)),
    "group_format": ("--group-format", ("groups", "mix-groups")),
}
MODE_NAMES = {
    "allocation": "the allocation sweep (without --producer or --groups)",
    "producer": "the producer sweep (--producer)",
    "groups": "the group sweep (--groups)",
    "mix": "the consumer side of the mix sweep (--mix)",
    "mix-groups": "the producer side of the mix sweep (--mix --groups)",
}


def _sweep(args: argparse.Namespace) -> int:
    if args.producer and args.groups is not None:
        return _sweep_error("--producer and --groups are two different sweeps: choose one")
    if args.mix and args.producer:
        return _sweep_error("--mix --producer: the producer side of --mix is --mix --groups N (two producers of the same "
                            "message groups or keys, one Java)")
    if args.mix:
        mode = "mix-groups" if args.groups is not None else "mix"
    else:
        mode = "producer" if args.producer else "groups" if args.groups is not None else "allocation"
    given = [flag for attribute, (flag, modes) in MODE_OPTIONS.items()
             if mode not in modes and getattr(args, attribute) not in (None, False)]
    if given:
        return _sweep_error(f"{', '.join(given)} does not apply to {MODE_NAMES[mode]}")
    problem = _common_problem(args)
    if problem is not None:
        return _sweep_error(problem)
    handlers = {"producer": _producer_sweep, "groups": _group_sweep, "allocation": _allocation_sweep, "mix": _mix_sweep,
                "mix-groups": _mix_groups_sweep}
    return handlers[mode](args)


def _common_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the options every sweep takes, before anything starts."""
    from pytest_rmq_conformance.pipeline.masters import url_problem

    if args.scenarios is not None and args.scenarios < 1:
        return f"--scenarios must be 1 or more, not {args.scenarios}"
    if args.partitions is not None and args.partitions < 1:
        return f"--partitions must be 1 or more, not {args.partitions}"
    if args.timeout is not None and args.timeout < 0:
        return f"--timeout must be 0 (no limit) or more seconds, not {args.timeout}"
    if args.out.exists() and not args.out.is_dir():
        return f"--out {args.out}: a file is there, not a directory"
    return _unwritable(args.out) or url_problem(args.master)


def _unwritable(out: Path) -> str | None:
    """Why the sweep could not stage its outputs beside ``out`` (it creates ``out``'s parent, as the sweep would)."""
    import tempfile

    existing = next((folder for folder in out.absolute().parents if folder.exists()), None)
    if existing is not None and not existing.is_dir():
        return f"--out {out}: {existing} is a file, not a directory"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryDirectory(prefix=f".{out.name}.probe-", dir=out.parent).cleanup()
    except OSError as exc:
        return f"--out {out}: cannot write there ({exc.strerror or type(exc).__name__}: {exc.filename or out.parent})"
    return None


def _spark_problem(master: str) -> int | None:
    """Why Spark cannot start, checked last, once the options and strategies are known good: a
    standalone master nobody answers at (exit 3), or the sweep extra missing (exit 2); one line each."""
    from pytest_rmq_conformance.pipeline.masters import unreachable

    problem = unreachable(master)
    if problem is not None:
        print(f"rmq-conformance sweep: error: {problem}", file=sys.stderr)
        return 3
    missing = sweep_extra_problem()
    return None if missing is None else _sweep_error(missing)


#: the modules of the sweep extra (pyproject.toml's ``sweep``), and the Python its PySpark needs
SWEEP_MODULES = ("pyspark", "pyarrow", "pandas", "numpy", "matplotlib")
SWEEP_PYTHON = (3, 11)
#: how the sweep extra is installed, from a clone (the package is on no index yet)
SWEEP_EXTRA = "pip install '.[sweep]' in a clone of pytest-rmq-conformance"


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a broken install, or a module blocked in sys.modules
        return False


def sweep_extra_problem(python: tuple[int, ...] = sys.version_info[:3]) -> str | None:
    """Why the sweep cannot run here, in one line naming the extra and the Python it needs:
    a module of the sweep extra is missing (on Python 3.10 the extra installs without PySpark)."""
    missing = [name for name in SWEEP_MODULES if not _importable(name)]
    if not missing:
        return None
    newer = ".".join(map(str, SWEEP_PYTHON))
    needs = f"the sweep needs the sweep extra on Python {newer} or newer"
    if python[:2] < SWEEP_PYTHON:
        this = ".".join(map(str, python[:2]))
        return f"{needs} (this is Python {this}, where the extra installs without PySpark): with Python {newer}+, {SWEEP_EXTRA}"
    return f"{needs} ({', '.join(missing)} not installed): {SWEEP_EXTRA}"


def _timeout(args: argparse.Namespace) -> float | None:
    """A harness request's timeout in seconds: 2 unless --timeout says; 0 means none."""
    return (2.0 if args.timeout is None else args.timeout) or None


def _allocation_space(args: argparse.Namespace, version: str):
    """The consumer sweeps' space (the allocation sweep's and the mix's), after checking the
    reference version; a ValueError names the option at fault."""
    from pytest_rmq_conformance.pipeline.allocation.space import SweepSpace
    from pytest_rmq_conformance.pipeline.checks import parse_range

    problems = _release_problems("--reference-version", [version], _shipped_releases())
    if problems:
        raise ValueError(problems[0])
    space = SweepSpace(
        queues=parse_range(args.queues or "1:1024", "--queues", 1, 100000),
        consumers=parse_range(args.consumers or "1:100", "--consumers", 1, 10000),
        events=tuple(e.strip() for e in (args.events or "leave,join,crash").split(",") if e.strip()),
        seed=args.seed or 0,
        count=1000 if args.scenarios is None else args.scenarios,
    )
    return space


def _group_space(args: argparse.Namespace):
    """The message groups' space (the message-group sweep's and the mix's producer side); a ValueError names
    the option at fault."""
    from pytest_rmq_conformance.pipeline.checks import parse_range
    from pytest_rmq_conformance.pipeline.message_groups.space import GroupSpace

    return GroupSpace(
        groups=args.groups,
        queues=parse_range(args.queues or "1:64", "--queues", 1, 65536),
        name_format=args.group_format or GroupSpace.name_format,
    )


def _allocation_sweep(args: argparse.Namespace) -> int:
    error = _sweep_error
    (version,) = _lines("--reference-version", [args.reference_version or DEFAULT_RELEASE], _shipped_releases())
    if args.no_references and not args.strategy:
        return error("--no-references leaves nothing to sweep: name a strategy with --strategy SPEC")
    try:
        space = _allocation_space(args, version)
    except ValueError as exc:
        return error(str(exc))
    from pytest_rmq_conformance.pipeline.allocation.job import run_sweep
    _importable_here()
    timeout = _timeout(args)
    problems = _load_problems(args.strategy or (), version, timeout)
    if problems:
        return error("; ".join(problems))
    unreachable = _spark_problem(args.master)
    if unreachable is not None:
        return unreachable
    summary = run_sweep(
        _sweep_specs(args),
        space,
        args.out,
        version=version,
        master=args.master,
        partitions=args.partitions,
        timeout=timeout,
        progress=not args.quiet,
    )
    print("\n".join(_sweep_table(summary)))
    print(f"report: {args.out / 'report.html'}")
    return 0


PRODUCER_COLUMNS = ("fault pattern", "release", "latency fault", "first attempt to degraded", "failed", "attempts/message",
                    "back after recovery: median", "never back")


def _producer_table(summary: dict) -> list[str]:
    """Per fault pattern, release (or user's strategy) and setting: the share to the degraded
    broker, failures, attempts, and the time until it got sends again; then the runs a user's
    strategy ended on an exception."""
    from pytest_rmq_conformance.pipeline.producer.plots import label, user_strategies

    mine = user_strategies(summary)
    lines = [PRODUCER_COLUMNS if not mine else (PRODUCER_COLUMNS[0], "release or strategy", *PRODUCER_COLUMNS[2:])]
    for g in summary["groups"]:
        back = g["returned_after_ms"]["p50"]
        lines.append((
            g["pattern"], label(g), "on" if g["latency_fault"] else "off",
            "–" if g["degraded_share"] is None else f"{100 * g['degraded_share']:.1f} %",
            "–" if g["failed_share"] is None else f"{100 * g['failed_share']:.1f} %",
            _number(g["attempts_per_message"]),
            "–" if back is None else f"{back / 1000:.1f} s",
            str(g["never_returned"]),
        ))  # fmt: skip
    widths = [max(map(len, column)) for column in zip(*lines)]
    table = ["  ".join([*(c.ljust(w) for c, w in zip(line[:3], widths)), *map(str.rjust, line[3:], widths[3:])]) for line in lines]
    table.append(
        "over the sends due while the fault lasted: first attempts that went to the degraded broker, messages failed "
        "after 3 attempts; then the time from recovery until the degraded broker got sends again"
    )
    for spec in mine:
        groups = [g for g in summary["groups"] if label(g) == spec]
        errors = sum(g["errors"] for g in groups)
        if errors:
            first = next((e for e in summary["errors"] if label(e) == spec), None)
            table.append(
                f"{spec}: {errors} of {sum(g['scenarios'] for g in groups)} scenario runs ended on an exception"
                + (f", the first: scenario {first['scenario']}, {'on' if first['latency_fault'] else 'off'}: {first['error']}"
                   if first else "")
            )
    if mine:
        releases = {c["release"] for c in summary["configurations"] if label(c) in mine}
        table.append(f"{', '.join(mine)}: played through the send loop of {', '.join(sorted(releases))}")
    return table


def _producer_sweep(args: argparse.Namespace) -> int:
    from pytest_rmq_conformance.pipeline.checks import parse_range
    from pytest_rmq_conformance.pipeline.producer.space import ProducerSpace, parse_patterns

    try:
        space = ProducerSpace(
            brokers=parse_range(args.brokers or "2:4", "--brokers", 2, 1000),
            queues=parse_range(args.queues or "1:8", "--queues", 1, 1024),
            patterns=parse_patterns(args.patterns) if args.patterns is not None else ProducerSpace.patterns,
            seed=args.seed or 0,
            count=500 if args.scenarios is None else args.scenarios,
        )
    except ValueError as exc:
        return _sweep_error(str(exc))
    from pytest_rmq_conformance.pipeline.producer.job import run_producer_sweep
    from pytest_rmq_conformance.pipeline.producer.strategies import load_problem

    specs, problems = _checked_specs(args, load_problem)
    if problems:
        return _sweep_error("; ".join(problems))
    unreachable = _spark_problem(args.master)
    if unreachable is not None:
        return unreachable
    summary = run_producer_sweep(
        space, args.out, strategies=specs, master=args.master, partitions=args.partitions, progress=not args.quiet
    )
    print("\n".join(_producer_table(summary)))
    print(f"report: {args.out / 'report.html'}")
    return 0


def _group_sweep(args: argparse.Namespace) -> int:
    try:
        space = _group_space(args)
    except ValueError as exc:
        return _sweep_error(str(exc))
    from pytest_rmq_conformance.pipeline.message_groups.job import run_group_sweep
    from pytest_rmq_conformance.pipeline.message_groups.mappers import load_problem

    specs, problems = _checked_specs(args, load_problem)
    if problems:
        return _sweep_error("; ".join(problems))
    timeout = _timeout(args)
    unreachable = _spark_problem(args.master)
    if unreachable is not None:
        return unreachable
    summary = run_group_sweep(
        space, args.out, strategies=specs, master=args.master, partitions=args.partitions, timeout=timeout,
        progress=not args.quiet,
    )
    from pytest_rmq_conformance.pipeline.message_groups.report import mapping_sentences

    print("\n".join(mapping_sentences(summary)))
    print(f"report: {args.out / 'report.html'}")
    return 0


def _mix_sweep(args: argparse.Namespace) -> int:
    (version,) = _lines("--reference-version", [args.reference_version or DEFAULT_RELEASE], _shipped_releases())
    if not args.strategy:
        return _sweep_error("--mix needs a strategy to mix with Java's: --strategy SPEC (repeatable)")
    try:
        space = _allocation_space(args, version)
    except ValueError as exc:
        return _sweep_error(str(exc))
    from pytest_rmq_conformance.pipeline.mix.allocation import consumer_entries
    from pytest_rmq_conformance.pipeline.mix.job import run_mix_sweep
    from pytest_rmq_conformance.pipeline.mix.report import verdict_lines

    _importable_here()
    timeout = _timeout(args)
    entries, problems = consumer_entries(args.strategy, version, timeout)
    if problems:
        return _sweep_error("; ".join(problems))
    unreachable = _spark_problem(args.master)
    if unreachable is not None:
        return unreachable
    summary = run_mix_sweep(entries, space, args.out, version=version, master=args.master, partitions=args.partitions,
                            timeout=timeout, progress=not args.quiet)
    print("\n".join(verdict_lines(summary)))
    print(f"report: {args.out / 'report.html'}")
    return 0


def _mix_groups_sweep(args: argparse.Namespace) -> int:
    if not args.strategy:
        return _sweep_error("--mix needs a strategy to mix with Java's: --strategy SPEC (repeatable)")
    try:
        space = _group_space(args)
    except ValueError as exc:
        return _sweep_error(str(exc))
    from pytest_rmq_conformance.pipeline.mix.job import run_mix_groups_sweep
    from pytest_rmq_conformance.pipeline.mix.message_groups import group_entries
    from pytest_rmq_conformance.pipeline.mix.report import verdict_lines

    _importable_here()
    entries, problems = group_entries(list(dict.fromkeys(args.strategy)))
    if problems:
        return _sweep_error("; ".join(problems))
    timeout = _timeout(args)
    unreachable = _spark_problem(args.master)
    if unreachable is not None:
        return unreachable
    summary = run_mix_groups_sweep(entries, space, args.out, master=args.master, partitions=args.partitions, timeout=timeout,
                                   progress=not args.quiet)
    print("\n".join(verdict_lines(summary)))
    print(f"report: {args.out / 'report.html'}")
    return 0


def _matrix(args: argparse.Namespace) -> int:
    from pytest_rmq_conformance.matrix.cells import CHECKS, build_matrix, load_problems
    from pytest_rmq_conformance.matrix.render import write_matrix

    shipped = _shipped_releases()
    releases = _lines("--release", args.release, shipped) if args.release else [release for release in RELEASES if release in shipped]
    checks = [part.strip() for part in args.checks.split(",") if part.strip()]
    problems = _release_problems("--release", releases, shipped)
    problems += [f"--checks {c}: not one of {', '.join(CHECKS)}" for c in checks if c not in CHECKS]
    if args.examples is not None and args.examples < 1:
        problems.append("--examples must be at least 1")
    if problems or not checks:
        print(f"rmq-conformance matrix: error: {'; '.join(problems) or '--checks is empty'}", file=sys.stderr)
        return 2
    specs = args.specs or sorted(ports(ALLOCATION))
    here = (os.getcwd(),)  # a module:attribute spec's module may sit in the current directory
    problems = load_problems(specs, releases[0], timeout=args.timeout or None, search_path=here)
    if problems:
        print(f"rmq-conformance matrix: error: {'; '.join(problems)}", file=sys.stderr)
        return 2
    say = (lambda line: None) if args.quiet else (lambda line: print(line, flush=True))
    doc = build_matrix(
        specs, releases, checks=checks, seed=args.seed, examples=args.examples, timeout=args.timeout or None,
        isolate=args.isolate, search_path=here, progress=say,
    )
    written = write_matrix(doc, args.out)
    for row in doc["implementations"]:
        verdict = row["verdict"]
        print(f"{row['name']} {row['version']} ({row['language']}): {verdict['status']}, "
              f"{verdict['cellsPassed']} of {verdict['cellsRun']} cells pass")
    print(f"matrix: {written['html']} ({written['md'].name}, {written['json'].name}, badges/)")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rmq-conformance",
        description="Conformance of RocketMQ queue-allocation strategies with the Java client.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    replay = commands.add_parser(
        "replay",
        help="replay the consumer allocation vectors against the built-in reference ports",
        description="Replay every golden vector of consumer allocation (what the Java strategies "
        f"{', '.join(sorted(ports(ALLOCATION)))} answered) against the reference ports and print, per run "
        "and strategy, how many cases and how many calls (one per caller a case tries) answer "
        "differently. The producer and gRPC vectors are replayed by pytest: "
        "pytest --rmq-strategy=FAMILY --rmq-checks=golden with a family's name runs its reference port.",
    )
    replay.add_argument(
        "--release",
        action="append",
        help="this RocketMQ release (repeatable; default: the releases the ports reproduce, "
        f"{', '.join(RELEASES)}, or every release of a --golden directory that has none of them)",
    )
    replay.add_argument(
        "--strategy", action="append", choices=sorted(ports(ALLOCATION)), help="only this strategy (repeatable)"
    )
    replay.add_argument("--golden", type=Path, help="a golden directory other than the shipped one")
    replay.set_defaults(handler=_replay)

    golden = commands.add_parser("golden", help="check or rebuild golden data")
    golden_commands = golden.add_subparsers(dest="golden_command", required=True, metavar="ACTION")
    check = golden_commands.add_parser(
        "check", help="validate a golden directory against its schemas (default: the shipped vectors of every kind)"
    )
    check.add_argument(
        "directory", nargs="?", type=Path,
        help="default: every kind's shipped golden data (consumer allocation, producer, gRPC)",
    )
    check.set_defaults(handler=_golden_check)
    build = golden_commands.add_parser(
        "import",
        help="build a golden directory from Java harness output",
        description="Read <release>/<STRATEGY>[.<variant>].jsonl files written by the Java reference "
        "harness, validate them, and write a de-duplicated golden directory with its manifest.",
    )
    build.add_argument("source", type=Path, help="folder holding one sub-folder per release")
    build.add_argument("--out", type=Path, required=True, help="golden directory to (re)write")
    build.set_defaults(handler=_golden_import)
    record = golden_commands.add_parser(
        "record",
        help="ask RocketMQ's own classes, from Maven Central, and write their answers as a golden directory",
        description="Resolve org.apache.rocketmq:rocketmq-client:RELEASE (consumer allocation, producer selection) "
        "and/or org.apache.rocketmq:rocketmq-client-java:VERSION (the 5.x gRPC balancers) with Maven (downloads "
        "cached in ~/.m2), compile the project's Java harness against it, ask it every scenario (default: those of "
        "the shipped vectors of each kind), and import the answers into DIR (the producer's into DIR/producer, the "
        "gRPC balancers' into DIR/grpc), each run's provenance naming the coordinates, each jar's SHA-256 and, "
        "where a version's API decides, the methods called. --every-release asks every version Maven Central "
        "serves, one JVM each, and keeps one answer per group of versions that answered alike. Needs mvn and a JDK.",
    )
    record.add_argument("--release", help="a rocketmq-client release Maven Central serves, such as 5.3.3 (4.0.0 and 4.1.0 are its -incubating ones)")
    record.add_argument("--client-java", help="a rocketmq-client-java version Maven Central serves, such as 5.2.0")
    record.add_argument("--every-release", action="store_true", help="every rocketmq-client release and rocketmq-client-java version Maven Central serves (rmq-conformance golden releases lists them)")
    record.add_argument("--out", type=Path, required=True, help="golden directory to write (left as it was on any error)")
    record.add_argument(
        "--kind", choices=sorted(RECORDERS_KINDS),
        help="record one kind (default: every kind of the versions named, or the kind of --scenarios)",
    )
    record.add_argument(
        "--scenarios", type=Path,
        help="JSON lines of your own scenarios, of one kind: allocation (id, strategy, params, consumerGroup, mqAll, "
        "cidAll, tags), producer or gRPC (id, family, tags and the family's inputs, see "
        "schemas/producer-harness-record.schema.json and schemas/grpc-harness-record.schema.json); a recorded "
        "line's answers are ignored (but for the currentCIDs of an allocation line's results)",
    )
    record.add_argument(
        "--generate", type=int, metavar="N",
        help="ask N scenarios of each kind of the project's generator instead (record/generate.py: seeded; consumer "
        "groups of each family in turn, and the producer and gRPC draws of the generated checks; their ids "
        "gen<SEED>-<FAMILY>-<nnnn>)",
    )
    record.add_argument("--seed", type=int, default=0, help="the generator's seed (default 0)")
    record.add_argument(
        "--charset",
        help="the JVM's default charset of the allocation kind (4.x's CONSISTENT_HASH hashes a name's bytes in it; default "
        "UTF-8, and, for the shipped scenarios of a 4.x release, ISO-8859-1 too for those with a name outside ASCII)",
    )
    record.set_defaults(handler=_golden_record)
    releases = golden_commands.add_parser(
        "releases",
        help="list the rocketmq-client releases and rocketmq-client-java versions Maven Central serves",
        description="Read Maven Central's listing of org.apache.rocketmq:rocketmq-client and rocketmq-client-java: "
        "the versions golden record --every-release asks, and the pre-releases it leaves out.",
    )
    releases.set_defaults(handler=_golden_releases)
    changes = golden_commands.add_parser(
        "changes",
        help="what changed between releases: per family, the releases at which Java's answers changed",
        description="Read golden directories (default: the shipped vectors of every kind) and print, per family, "
        "the releases its vectors cover, how many behaviours they show (neighbouring releases that answer every "
        "case alike are one), and each step between neighbouring releases at which answers changed: how many "
        "cases and the first.",
    )
    changes.add_argument("directory", type=Path, nargs="*", help="golden directories (each with its manifest.json)")
    changes.add_argument("--out", type=Path, help="write the page What changed between releases (Markdown) here instead")
    changes.set_defaults(handler=_golden_changes)
    provenance = golden_commands.add_parser(
        "provenance",
        help="check every recorded run's jars: each one's SHA-256 against the manifest's",
        description="Resolve the Maven coordinates of every run a manifest names (default: the shipped vectors of "
        "every kind; one Maven for them all, downloads kept in ~/.m2) and compare the SHA-256 of each jar on its "
        "class path with the one the manifest recorded. Exit 1 when one differs or is missing.",
    )
    provenance.add_argument("directory", type=Path, nargs="*", help="golden directories (each with its manifest.json)")
    provenance.set_defaults(handler=_golden_provenance)

    sweep = commands.add_parser(
        "sweep",
        help="check invariants and measure churn over many generated scenarios, on Spark (--producer: producer fault tolerance)",
        description="Draw SCENARIOS groups from the queue and consumer ranges (layouts of brokers and "
        "topics included), apply one membership change to each, and evaluate the six reference strategies and each --strategy on "
        "Spark: each client's share before and after, the invariants it claims, the difference "
        "from the Java reference port, the queues moved against the fewest a balanced group needs, "
        "and the imbalance. With --producer, instead play a producer's sends against a route with one "
        "degraded broker (slow, failing, flapping, or failing and dropped from the route; and a healthy "
        "control) under the fault strategy of RocketMQ 4.7.1, 4.9.8 and 5.3.3 with sendLatencyFaultEnable "
        "off and on, and each --strategy (a fault strategy): the share of sends that go to the degraded broker, retries, failures, and the time until "
        "it gets traffic after recovery. Writes DIR/results (Parquet), "
        "DIR/summary.json, DIR/report.md, DIR/report.html and the plots. Needs the sweep extra "
        "(PySpark, on Python 3.11 or newer) and Java 17: pip install '.[sweep]' in a clone of this project "
        "(once it is released on PyPI: pip install 'pytest-rmq-conformance[sweep]').",
    )
    sweep.add_argument(
        "--producer", action="store_true",
        help="sweep producer queue selection under broker faults instead of consumer allocation",
    )
    sweep.add_argument(
        "--mix", action="store_true",
        help="what mixing a strategy with Java costs: on the allocation sweep's scenarios, one, half or all but one of a "
        "consumer group's clients run each --strategy, the rest Java's reference of its family; counts the queues two "
        "clients take (double-taken) or nobody takes (orphaned) against the all-Java group, before and after the event. "
        "With --groups N: one Java producer and one of each --strategy (GROUP_HASH or SELECTOR_HASH) send the same N "
        "message groups or keys; counts those sent to different queues, at each queue count of --queues. Reports, per "
        "strategy and family, whether it is safe to mix with Java (only the --strategy specs are mixed: name one at least)",
    )
    sweep.add_argument(
        "--strategy", action="append", metavar="SPEC",
        help="a strategy as --rmq-strategy names it, swept beside the six reference strategies (repeatable); "
        "module:attribute imports from the current directory too; with --producer, a fault strategy "
        "(FAULT_STRATEGY, built as factory(clock=...)) swept beside the three releases' (not an exec: harness)",
    )
    sweep.add_argument(
        "--no-references", action="store_true",
        help="sweep only the --strategy specs, not the six reference strategies",
    )
    sweep.add_argument(
        "--queues", metavar="MIN:MAX",
        help="queues per group (default 1:1024); with --producer, queues per broker (default 1:8)",
    )
    sweep.add_argument("--consumers", metavar="MIN:MAX", help="clients per group (default 1:100)")
    sweep.add_argument("--events", help="membership changes drawn (default leave,join,crash)")
    sweep.add_argument("--brokers", metavar="MIN:MAX", help="--producer: brokers in the route (default 2:4)")
    sweep.add_argument(
        "--patterns", metavar="LIST",
        help="--producer: fault patterns, taking turns (default healthy,slow,failing,flapping,route-refresh)",
    )
    sweep.add_argument(
        "--groups", type=int, metavar="N",
        help="sweep message-group routing instead: N FIFO message groups mapped to every queue count of --queues "
        "(default 1:64) by the 5.x clients' takeMessageQueueByMessageGroup and by each --strategy (a balancer "
        "built as factory(route=, index=), or an exec: harness serving GROUP_HASH)",
    )
    sweep.add_argument(
        "--group-format", metavar="FORMAT",
        help="--groups: the groups' names, {i} standing for the index (default order-{i})",
    )
    sweep.add_argument("--scenarios", type=int, help="how many scenarios (default 1000; with --producer 500)")
    sweep.add_argument("--seed", type=int, help="the seed the scenarios are drawn from (default 0)")
    sweep.add_argument("--reference-version", help=f"RocketMQ release of the reference ports (default {DEFAULT_RELEASE}, the newest recorded)")
    sweep.add_argument("--master", default="local[*]", help="Spark master (default local[*]; e.g. spark://host:7077)")
    sweep.add_argument("--partitions", type=int, help="Spark partitions of the scenarios (default 4 per core)")
    sweep.add_argument("--timeout", type=float, help="seconds one strategy call (allocate, or a group's take) may take (default 2)")
    sweep.add_argument("--out", type=Path, default=Path("sweep-out"), metavar="DIR", help="output directory (default sweep-out)")
    sweep.add_argument("--quiet", action="store_true", help="no progress lines")
    sweep.set_defaults(handler=_sweep)

    matrix = commands.add_parser(
        "matrix",
        help="a compatibility matrix of implementations, families and releases",
        description="Run each implementation (a spec as --rmq-strategy names it: a reference name, "
        "module:attribute, an entry point, or exec:COMMAND for a harness in any language) at each release "
        "through the golden replay and the differential on generated groups. Writes DIR/matrix.json "
        "(schemas/matrix.schema.json), DIR/matrix.md, DIR/matrix.html and DIR/badges/<name>.svg. Every "
        "divergent case is classified: wrong queues (a member of cidAll gets queues other than Java's), "
        "no answer (crash, hang, garbage), or error behaviour only (invalid inputs, non-members).",
    )
    matrix.add_argument("specs", nargs="*", metavar="SPEC", help="implementations (default: the six reference ports)")
    matrix.add_argument(
        "--release",
        action="append",
        help=f"a RocketMQ release the golden data covers (repeatable; default: those the reference ports reproduce, {', '.join(RELEASES)})",
    )
    matrix.add_argument("--checks", default="golden,generated", help="golden, generated or both (default both)")
    matrix.add_argument("--examples", type=int, default=20, help="generated examples (groups, traces, selector calls) per family and release (default 20)")
    matrix.add_argument("--seed", type=int, default=0, help="the seed of the generated groups (default 0)")
    matrix.add_argument("--timeout", type=float, default=5.0, help="seconds one allocate() call may take (default 5)")
    matrix.add_argument("--isolate", action="store_true", help="run Python strategies through the built-in harness")
    matrix.add_argument("--out", type=Path, default=Path("matrix-out"), metavar="DIR", help="output directory (default matrix-out)")
    matrix.add_argument("--quiet", action="store_true", help="no progress lines")
    matrix.set_defaults(handler=_matrix)
    for sub in (*commands.choices.values(), *golden_commands.choices.values()):
        sub.set_defaults(command_parser=sub)  # an unknown option is told with its command's usage
    return parser


def parser() -> argparse.ArgumentParser:
    """The ``rmq-conformance`` console script's argument parser (the documentation renders it)."""
    return _parser()


#: what a stray option may have meant, for the sweep (its modes are flags, not a --mode)
SWEEP_MODES = "the sweep's modes are flags: --producer, --groups N, --mix (with --groups N for producers)"


def _unrecognized(args: argparse.Namespace, extra: list[str]) -> None:
    """Exit 2 with the command's own usage and what it did not recognise, and a hint where there is one."""
    sub: argparse.ArgumentParser = args.command_parser
    known = [option for action in sub._actions for option in action.option_strings]
    hints = []
    for word in (arg.split("=", 1)[0] for arg in extra if arg.startswith("--")):
        if word == "--mode" and args.command == "sweep":
            hints.append(SWEEP_MODES)
        elif close := difflib.get_close_matches(word, known, n=1):
            hints.append(f"did you mean {close[0]}?")
    sub.error(f"unrecognized arguments: {' '.join(extra)}" + "".join(f"; {hint}" for hint in hints))


def main(argv: Sequence[str] | None = None) -> int:
    args, extra = _parser().parse_known_args(argv)
    if extra:
        _unrecognized(args, extra)
    try:
        status = args.handler(args)
        sys.stdout.flush()
        return status
    except (GoldenDataError, RecordError) as exc:
        print(f"rmq-conformance: error: {exc}", file=sys.stderr)
        return 2
    except SweepError as exc:
        print(f"rmq-conformance {args.command}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        # the reader went away (`rmq-conformance replay | head`): stop quietly, as a shell tool does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
