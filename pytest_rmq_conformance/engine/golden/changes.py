"""Internal: what changed between releases, read from golden directories: per family, the releases
in order, the groups of neighbouring releases whose answers are identical on every case (its
behaviours), and each step between neighbours at which some answer changed (how many cases, the
first). A run of another JVM charset than UTF-8 stands beside its release and is left out; the
runs of a client outside RocketMQ (the 5.x Java client) follow that client's versions.
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_rmq_conformance.engine.golden.modelled import modelled_release
from pytest_rmq_conformance.engine.records import Run
from pytest_rmq_conformance.engine.runs import MANIFEST, read_cases, read_json
from pytest_rmq_conformance.releases import version_key

__all__ = ["Change", "History", "histories", "markdown"]



@dataclass(frozen=True)
class Change:
    """A step between neighbouring releases at which ``cases`` of the family's ``total`` cases
    answer otherwise (``first``: the first in file order, ``None`` when none does) and ``added``
    cases have answers after it only (``removed``: before it only), a release that could not be
    asked them (its classes lacked what they need)."""

    before: str
    after: str
    cases: int
    total: int
    first: str | None
    added: int = 0
    removed: int = 0


@dataclass(frozen=True)
class History:
    """One family across the releases that have its vectors (``releases``, oldest first), by the
    names its runs give them (``4.9.8``, ``rocketmq-client-java 5.2.0``)."""

    family: str
    releases: tuple[str, ...]
    runs: tuple[str, ...]  # the run id of each release
    behaviours: tuple[tuple[str, ...], ...]  # neighbouring releases with identical answers
    changes: tuple[Change, ...]
    cases: int
    #: per change, the categories of the cases that answer otherwise, with their counts
    categories: tuple[tuple[tuple[str, int], ...], ...] = ()
    #: per release, how many cases have its answers
    asked: tuple[int, ...] = ()


def _label(run: Run) -> str:
    return run.client or run.rocketmq


def _history(family: str, cases: Sequence[dict], runs: dict[str, Run]) -> History:
    used = [run for run in runs.values() if run.default_charset == "UTF-8" and any(
        run.id in group["runs"] for case in cases for group in case["expect"])]
    used.sort(key=lambda run: version_key(_label(run)))
    answers = [{run_id: index for index, group in enumerate(case["expect"]) for run_id in group["runs"]} for case in cases]
    behaviours: list[list[str]] = []
    changes = []
    categories: list[tuple[tuple[str, int], ...]] = []
    for before, after in zip([None, *used], used):
        if before is None:
            behaviours.append([_label(after)])
            continue
        both = [(case, where) for case, where in zip(cases, answers) if before.id in where and after.id in where]
        differ = [case["id"] for case, where in both if where[before.id] != where[after.id]]
        added = sum(after.id in where and before.id not in where for where in answers)
        removed = sum(before.id in where and after.id not in where for where in answers)
        if differ or added or removed:
            first = differ[0] if differ else None
            changes.append(Change(_label(before), _label(after), len(differ), len(cases), first, added, removed))
            moved = Counter(case["category"] for case, where in both if where[before.id] != where[after.id])
            categories.append(tuple(sorted(moved.items(), key=lambda item: (-item[1], item[0]))))
            behaviours.append([_label(after)])
        else:
            behaviours[-1].append(_label(after))
    return History(
        family,
        tuple(_label(run) for run in used),
        tuple(run.id for run in used),
        tuple(tuple(group) for group in behaviours),
        tuple(changes),
        len(cases),
        tuple(categories),
        tuple(sum(run.id in where for where in answers) for run in used),
    )


def histories(directories: Iterable[Path]) -> list[History]:
    """Every family of the golden ``directories``, in the order their files are listed."""
    out = []
    for directory in directories:
        manifest = read_json(directory / MANIFEST, "the golden manifest")
        runs = {run_id: Run.from_json(run_id, data) for run_id, data in manifest["runs"].items()}
        for name in manifest["files"]:
            cases = list(read_cases(directory / name))
            out.append(_history(name.removesuffix(".jsonl"), cases, runs))
    return out


def _rerun(history: History, change: Change, strategy: str | None = None) -> str:
    """The line that replays the first changed case with the reference port (or ``strategy``)
    at the later release."""
    run = history.runs[history.releases.index(change.after)]
    release = run.partition("+")[0]
    words = ["pytest", f"--rmq-strategy={strategy or history.family}", f"--rmq-reference-version={release}",
             "--rmq-checks=golden", f"--rmq-case={change.first}"]
    return " ".join(shlex.quote(word) for word in words)


def markdown(found: Sequence[History], command: str) -> str:
    """The page "What changed between releases" for ``found``, saying it was written by ``command``."""
    lines = [
        "# What changed between releases",
        "",
        "Per family, the releases whose Java classes answered its cases, and each step between",
        "neighbouring releases at which an answer changed: how many cases, their categories, and the",
        "first of them with the line that replays it with the reference port at the later release.",
        "An answer is all the vectors record of a case (for a trace, every step's queue, counters and",
        "fault table). Neighbouring releases that answer every case alike are one behaviour. Read the",
        "steps between your release and the one you upgrade to.",
        "",
        f"Written by `{command}` from the golden vectors.",
        "",
        "| family | cases | releases | behaviours | steps with changed answers |",
        "| --- | ---: | --- | ---: | ---: |",
    ]
    for history in found:
        span = history.releases[0] if len(history.releases) == 1 else f"{history.releases[0]} to {history.releases[-1]} ({len(history.releases)})"
        lines.append(f"| {history.family} | {history.cases:,} | {span} | {len(history.behaviours)} | {len(history.changes)} |")
    for history in found:
        if not history.changes:
            continue
        lines += ["", f"## {history.family}", ""]
        lines.append("Behaviours: " + "; ".join(", ".join(group) for group in history.behaviours) + ".")
        for change, categories in zip(history.changes, history.categories):
            lines += ["", f"### {change.before} to {change.after}", ""]
            if change.cases:
                share = f"{change.cases:,} of {change.total:,} cases answer otherwise"
                by = ", ".join(f"{category} {count:,}" for category, count in categories)
                lines.append(f"{share} (by category: {by}). The first, `{change.first}`, at {change.after}:")
                others = history.asked[history.releases.index(change.after)] - 1
                release = history.runs[history.releases.index(change.after)].partition("+")[0]
                if modelled_release(history.family, release) is not None:
                    lines += ["", "```console", f"$ {_rerun(history, change)}", "...", f"...1 passed, {others:,} deselected in ...", "```"]
                else:
                    lines += ["", f"The built-in port reproduces none of {change.after}'s answers here: replay it with a strategy of your own, `{_rerun(history, change, 'mypkg:MyStrategy')}`."]
            if change.added:
                lines.append(f"{change.added:,} cases have answers from {change.after} on ({change.before} could not be asked them).")
            if change.removed:
                lines.append(f"{change.removed:,} cases have no answers at {change.after}.")
    return "\n".join(lines) + "\n"
