"""Internal: which runs a golden case's answers are: stored once per behaviour, read back per run.

Runs that answer every case of a family alike are one behaviour. A golden directory stores it
once: the case files name the newest run of each behaviour, and each other run's ``sameAs``
in the manifest names, per family, the run whose answers are its own too. :func:`compact_runs`
writes that form, :func:`expand_runs` and :func:`read_cases` read it back as the runs answered.

The built-in reference ports reproduce the releases of
:data:`~pytest_rmq_conformance.releases.RELEASES`, and through them every release whose answers
in a family are one of theirs (:func:`modelled_release`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.releases import RELEASES

__all__ = [
    "MANIFEST",
    "SAME_AS",
    "GoldenDataError",
    "NotModelled",
    "aliases",
    "answer_groups",
    "compact_runs",
    "expand_runs",
    "expander",
    "modelled_release",
    "not_modelled",
    "read_cases",
    "read_json",
    "run_id_for",
]

MANIFEST = "manifest.json"
#: a run's manifest key naming, per family, the run whose stored answers are its own too
SAME_AS = "sameAs"


class GoldenDataError(ValueError):
    """Golden data that is unreadable or breaks its schema; the message names the file, line and case."""


class NotModelled(ValueError):
    """A family at a release whose Java answers no reference port reproduces."""


def run_id_for(rocketmq: str, default_charset: str) -> str:
    """``"4.9.8"`` for a UTF-8 run, ``"4.9.8+ISO-8859-1"`` for another charset."""
    return rocketmq if default_charset == "UTF-8" else f"{rocketmq}+{default_charset}"


def read_json(path: Path, what: str) -> Any:
    """The JSON document at ``path``; :class:`GoldenDataError` naming it and ``what`` it is otherwise."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GoldenDataError(f"{path}: cannot read {what}: {exc}") from None


def aliases(manifest: Mapping[str, Any], where: str = MANIFEST) -> dict[str, dict[str, list[str]]]:
    """Per family, each run whose answers the case files store -> the runs whose answers they are too
    (the manifest's ``sameAs``); :class:`GoldenDataError` for a ``sameAs`` naming a run the manifest
    lacks or one that is itself another's."""
    runs = manifest["runs"]
    found: dict[str, dict[str, list[str]]] = {}
    for run_id, data in runs.items():
        for family, stored in data.get(SAME_AS, {}).items():
            if stored not in runs or family in runs[stored].get(SAME_AS, {}):
                raise GoldenDataError(
                    f"{where}: run {run_id!r} answers {family} as run {stored!r}, which "
                    + ("the manifest does not list" if stored not in runs else "stores no answers of its own there")
                )
            found.setdefault(family, {}).setdefault(stored, []).append(run_id)
    return found


def expand_runs(manifest: Mapping[str, Any], family: str, groups: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A case's answer ``groups`` as stored (each naming the runs whose answers the files store)
    with every run that shares a stored run's answers in ``family`` (``sameAs``) named beside it,
    in the manifest's order of runs: the groups as the runs answered them."""
    return expander(manifest, family)(groups)


def expander(manifest: Mapping[str, Any], family: str) -> Callable[[Sequence[Mapping[str, Any]]], list[dict[str, Any]]]:
    """:func:`expand_runs` of ``family``, the manifest read once for every case of a file."""
    same = aliases(manifest).get(family, {})
    if not same:
        return lambda groups: [dict(group) for group in groups]
    order = {run_id: n for n, run_id in enumerate(manifest["runs"])}

    def expand(groups: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for group in groups:
            named = [run for stored in group["runs"] for run in (stored, *same.get(stored, ()))]
            out.append({**group, "runs": sorted(named, key=lambda run: order.get(run, len(order)))})
        return out

    return expand


def answer_groups(cases: Sequence[Mapping[str, Any]]) -> dict[str, tuple[int | None, ...]]:
    """Each run that answered some of ``cases`` (each naming every run in its groups) -> the group
    of each case its answer is in (``None`` where it gave none): two runs are one behaviour when
    theirs are equal."""
    answered: dict[str, list[int | None]] = {}
    for n, case in enumerate(cases):
        for index, group in enumerate(case["expect"]):
            for run in group["runs"]:
                answered.setdefault(run, [None] * len(cases))[n] = index
    return {run: tuple(seen) for run, seen in answered.items()}


def compact_runs(
    manifest: Mapping[str, Any], files: Mapping[str, Sequence[Mapping[str, Any]]]
) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    """``manifest`` and ``files`` (family -> cases whose groups name every run) stored once per
    behaviour: per family, runs that answered every case alike (the same group of each case, or
    none) are one behaviour, whose last run in the manifest's order (the newest release) keeps
    its answers in the files; each other run of it names that run in its ``sameAs``. The inverse
    of :func:`expand_runs`; a manifest's ``sameAs`` given is replaced."""
    runs = {run_id: {key: value for key, value in data.items() if key != SAME_AS} for run_id, data in manifest["runs"].items()}
    compacted: dict[str, list[dict[str, Any]]] = {}
    for family, cases in files.items():
        answered = answer_groups(cases)
        behaviours: dict[tuple[int | None, ...], list[str]] = {}
        for run_id in runs:  # in the manifest's order: a behaviour's last run is its newest
            if run_id in answered:
                behaviours.setdefault(answered[run_id], []).append(run_id)
        stored_as = {run_id: members[-1] for members in behaviours.values() for run_id in members[:-1]}
        for run_id, stored in stored_as.items():
            runs[run_id][SAME_AS] = dict(sorted({**runs[run_id].get(SAME_AS, {}), family: stored}.items()))
        compacted[family] = [
            {**case, "expect": [{**group, "runs": [run for run in group["runs"] if run not in stored_as]} for group in case["expect"]]}
            for case in cases
        ]
    return {**manifest, "runs": runs}, compacted


def read_cases(path: Path) -> Iterator[dict[str, Any]]:
    """The cases of a golden file as JSON, each group naming every run that answered it (the
    manifest beside the file read for ``sameAs``): for a reader of the lines themselves."""
    expand = expander(read_json(path.parent / MANIFEST, "the golden manifest"), path.stem)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            case = json.loads(line)
            case["expect"] = expand(case["expect"])
            yield case


@cache
def _behaviours(path: Path) -> dict[str, tuple[int | None, ...]]:
    """Each run of the golden file ``path`` -> the group of each case its answer is in (``None``
    where it gave none)."""
    return answer_groups(list(read_cases(path))) if path.is_file() else {}


@lru_cache(maxsize=256)  # asked for every port built
def modelled_release(family: str, version: str, charset: str, directories: tuple[Path, ...]) -> str | None:
    """The release of :data:`RELEASES` the reference port of ``family`` reproduces ``version``
    as, under the JVM default ``charset``, by the family's cases in the golden ``directories``:
    ``version`` itself when it is one, or when no case of the family was answered at
    ``version`` (nothing says otherwise); else the newest whose run answers as ``version``'s in
    every case (the run of that charset where a release has one, else its UTF-8 run); ``None``
    when none's does."""
    if version in RELEASES:
        return version
    found = [directory / f"{family}.jsonl" for directory in directories if (directory / f"{family}.jsonl").is_file()]
    behaviours = _behaviours(found[0]) if found else {}

    def answers(release: str) -> tuple[int | None, ...] | None:
        return behaviours.get(run_id_for(release, charset), behaviours.get(release))

    own = answers(version)
    if own is None:
        return version
    return next((release for release in reversed(RELEASES) if answers(release) == own), None)


def not_modelled(family: str, version: str) -> NotModelled:
    """The error of a family whose answers at ``version`` no port reproduces."""
    return NotModelled(
        f"the built-in {family} port reproduces RocketMQ {', '.join(RELEASES)}, and Java's {family} at {version} "
        f"answers as none of them (docs/releases.md shows where it changed): the golden vectors of {version} "
        "judge a strategy of your own (--rmq-strategy), not the built-in one"
    )
