"""Internal: load and validate the golden vectors: what the Java strategies answered.

``golden/manifest.json`` names the runs (a RocketMQ release, and the JVM
default charset when it was not UTF-8) with their provenance;
``golden/<STRATEGY>.jsonl`` holds one case per line of family ``STRATEGY``, validated against
its kind's schema and parsed by its kind
(:meth:`~pytest_rmq_conformance.engine.records.Kind.parse_case`). See ``golden/README.md`` for
the format.
"""

from __future__ import annotations

import gc
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.records import Run
from pytest_rmq_conformance.engine.resources import golden_dir, schema_validator
from pytest_rmq_conformance.engine.runs import (
    MANIFEST,
    SAME_AS,
    GoldenDataError,
    aliases,
    compact_runs,
    expand_runs,
    expander,
    read_cases,
    read_json,
    run_id_for,
)

__all__ = [
    "MANIFEST",
    "GoldenDataError",
    "Run",
    "run_id_for",
    "Golden",
    "load_golden",
    "read_jsonl",
    "RawJSON",
    "loads_lazily",
    "loaded",
    "compact_json",
    "schema_problems",
    "check_runs",
    "write_golden",
    "shipped_dirs",
    "shipped_releases",
    "SAME_AS",
    "compact_runs",
    "expand_runs",
    "expander",
    "read_cases",
]



@dataclass(frozen=True)
class Golden:
    """The whole golden set: runs by id and cases in file order."""

    directory: Path
    runs: Mapping[str, Run]
    cases: tuple[Any, ...]  # each its kind's case: ``id``, ``strategy``, ``params``, ``runs``, ``source``

    def by_strategy(self, strategy: str) -> list[Any]:
        return [case for case in self.cases if case.strategy == strategy]

    def case(self, case_id: str) -> Any:
        for case in self.cases:
            if case.id == case_id:
                return case
        raise KeyError(case_id)


def schema_problems(name: str | Path, document: Any) -> list[str]:
    """Every way ``document`` breaks ``schemas/<name>.schema.json`` (or the schema file ``name``), as
    ``at <path>: <message>`` lines."""
    problems = []
    for error in sorted(schema_validator(name).iter_errors(document), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(part) for part in error.absolute_path) or "(top)"
        problems.append(f"at {where}: {error.message}")
    return problems


def _load_manifest(directory: Path, validate: bool) -> tuple[dict[str, Run], dict[str, Any]]:
    """The runs of a golden directory, and its manifest as read."""
    path = directory / MANIFEST
    manifest = read_json(path, "the golden manifest")
    problems = schema_problems("golden-manifest", manifest) if validate else []
    if problems:
        raise GoldenDataError(f"{path}: not a valid golden manifest: " + "; ".join(problems[:5]))
    try:
        runs = {run_id: Run.from_json(run_id, data) for run_id, data in manifest["runs"].items()}
        aliases(manifest, str(path))
    except (KeyError, TypeError, AttributeError) as exc:  # only unvalidated (shipped) data gets here
        raise GoldenDataError(f"{path}: not a valid golden manifest ({type(exc).__name__}: {exc})") from None
    return runs, manifest


@dataclass(frozen=True)
class RawJSON:
    """A value of a JSON document left as its text (``text[start:end]``) until :meth:`load`
    is asked: a golden line's part that a reader needs only now and then (a kind's
    ``lazy_keys``). Parsed whole, every case would keep it alive for the whole run; as text
    it is one string, which the garbage collector does not walk. ``length`` is the number
    of items of an array that was read through; ``None`` for another value, or for an array
    passed over by its length hint (see :func:`loads_lazily`)."""

    text: str = field(repr=False)
    start: int
    end: int
    length: int | None = None

    def load(self) -> Any:
        """The value, parsed anew on every call."""
        return _DECODER.raw_decode(self.text, self.start)[0]


def compact_json(value: Any) -> str:
    """``value`` as golden files write it: ASCII, no spaces. A value's text is the same alone
    as inside a document, which is what a length hint counts."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


#: the suffix of the key that gives a lazy array's length in characters as written
LENGTH_HINT = "Length"

_DECODER = json.JSONDecoder()
_scan: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
#: ``json.decoder.scanstring``: a string's value and end, from past its opening quote
_scanstring: Callable[[str, int], tuple[str, int]] = vars(json.decoder)["scanstring"]
_SPACE = re.compile(r"[ \t\n\r]*")


def _skip(text: str, at: int) -> int:
    """Past the JSON whitespace at ``at`` (golden files have none)."""
    if text[at:at + 1] not in _BLANK:
        return at
    space = _SPACE.match(text, at)
    return at if space is None else space.end()


_BLANK = frozenset(" \t\n\r")


def loads_lazily(text: str, lazy: Sequence[Sequence[str]]) -> Any:
    """``json.loads(text)``, except the values at the key paths ``lazy`` (``("expect", "*",
    "steps")``; ``*`` is any key or array item), which are :class:`RawJSON`. A lazy array
    whose object gives its length in characters before it (``"stepsLength": 1234`` for
    ``steps``) is passed over unread; one that does not end there is refused. ``ValueError``
    (``json.JSONDecodeError``) for text that is not one JSON value."""
    value, end = _lazy_value(text, _skip(text, 0), [tuple(path) for path in lazy], None)
    end = _skip(text, end)
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def _lazy_value(text: str, at: int, paths: list[tuple[str, ...]], hint: Any) -> tuple[Any, int]:
    """The value at ``at`` and its end, read as :func:`loads_lazily` reads it (``paths`` are
    the lazy paths from here on; ``hint``, the length its object gave for it)."""
    if () in paths:
        if type(hint) is int and text.startswith("[", at):  # passed over, as long as it ends where its hint says
            end = at + hint
            if hint < 2 or text[end - 1:end] != "]":
                raise json.JSONDecodeError(f"an array of {hint} characters, as its length hint says, does not end here", text, end)
            return RawJSON(text, at, end), end
        value, end = _decode(text, at)  # read through to find its end, then dropped
        return RawJSON(text, at, end, len(value) if isinstance(value, list) else None), end
    opener = text[at:at + 1]
    items: Any
    if opener == "{":
        closer, items = "}", {}
    elif opener == "[":
        closer, items = "]", []
    else:
        return _decode(text, at)
    heads = {path[0] for path in paths}
    at = _skip(text, at + 1)
    if text[at:at + 1] == closer:
        return items, at + 1
    while True:
        if opener == "{":
            if text[at:at + 1] != '"':
                raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, at)
            key, at = _scanstring(text, at + 1)
            if text[at:at + 1] != ":":
                at = _skip(text, at)
                if text[at:at + 1] != ":":
                    raise json.JSONDecodeError("Expecting ':' delimiter", text, at)
            at += 1
            if text[at:at + 1] in _BLANK:
                at = _skip(text, at)
            if key in heads or "*" in heads:
                inner = [path[1:] for path in paths if path[0] == key or path[0] == "*"]
                items[key], at = _lazy_value(text, at, inner, items.get(key + LENGTH_HINT))
            else:
                try:
                    items[key], at = _scan(text, at)
                except StopIteration as stop:
                    raise json.JSONDecodeError("Expecting value", text, stop.value) from None
        elif "*" in heads:
            item, at = _lazy_value(text, at, [path[1:] for path in paths if path[0] == "*"], None)
            items.append(item)
        else:
            item, at = _decode(text, at)
            items.append(item)
        after = text[at:at + 1]
        if after in _BLANK:
            at = _skip(text, at)
            after = text[at:at + 1]
        if after == ",":
            at += 1
            if text[at:at + 1] in _BLANK:
                at = _skip(text, at)
        elif after == closer:
            return items, at + 1
        else:
            raise json.JSONDecodeError(f"Expecting ',' delimiter or {closer!r}", text, at)


def _decode(text: str, at: int) -> tuple[Any, int]:
    """The JSON value at ``at`` and its end (``JSONDecodeError`` when there is none)."""
    try:
        return _scan(text, at)
    except StopIteration as stop:
        raise json.JSONDecodeError("Expecting value", text, stop.value) from None


def loaded(value: Any) -> Any:
    """``value`` with every :class:`RawJSON` in it parsed."""
    if isinstance(value, RawJSON):
        return value.load()
    if isinstance(value, dict):
        return {key: loaded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [loaded(item) for item in value]
    return value


def _check_lazily(line: str, lazy: Sequence[Sequence[str]], document: Any, where: str) -> None:
    """:class:`GoldenDataError` unless ``line`` read lazily (:func:`loads_lazily`, by its length
    hints) is ``document``, the line parsed."""
    try:
        same = loaded(loads_lazily(line, lazy)) == document
    except json.JSONDecodeError as exc:
        raise GoldenDataError(f"{where}: read as the suite reads shipped data (by its length hints), not JSON: {exc}") from None
    if not same:
        raise GoldenDataError(f"{where}: read as the suite reads shipped data (by its length hints), another document")


def read_jsonl(path: Path, schema: str | Path | None, lazy: Sequence[Sequence[str]] = ()) -> Iterator[tuple[str, dict[str, Any]]]:
    """The documents of a JSON-lines file, each checked against ``schemas/<schema>.schema.json`` or
    the schema file ``schema`` and, when ``lazy`` key paths are given, read lazily too and
    checked to be the same document (see :func:`loads_lazily`). Not checked when ``schema``
    is ``None``: then the values at the key paths ``lazy`` are left as :class:`RawJSON`.

    Yields ``(where, document)`` with ``where`` = ``"<path>:<line> (case <id>)"``;
    raises :class:`GoldenDataError` at the first unreadable or invalid line.
    """
    verify_lazy, lazy = (lazy, ()) if schema is not None else ((), lazy)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise GoldenDataError(f"{path}: cannot read: {exc}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = loads_lazily(line, lazy) if lazy else json.loads(line)
        except json.JSONDecodeError as exc:
            raise GoldenDataError(f"{where}: not JSON: {exc}") from None
        problems = [] if schema is None else schema_problems(schema, data)
        case_id = data.get("id") if isinstance(data, dict) else None
        where = f"{where} (case {case_id or '?'})"
        if problems:
            shown = schema if isinstance(schema, Path) else f"schemas/{schema}.schema.json"
            raise GoldenDataError(f"{where}: breaks {shown}: " + "; ".join(problems[:5]))
        if verify_lazy:
            _check_lazily(line, verify_lazy, data, where)
        yield where, data


def _iter_file(path: Path, runs: Mapping[str, Run], manifest: Mapping[str, Any], validate: bool) -> Iterator[Any]:
    try:
        kind = kinds.kind_of(path.stem)
    except ValueError:
        raise GoldenDataError(
            f"{path}: no registered family {path.stem!r} (a golden file is named after its family: "
            f"{', '.join(kinds.names())})"
        ) from None
    expand = expander(manifest, path.stem)
    for where, data in read_jsonl(path, kind.case_schema if validate else None, getattr(kind, "lazy_keys", ())):
        try:
            expected_file = f"{data['strategy']}.jsonl"
            if path.name != expected_file:
                raise GoldenDataError(f"{where}: a {data['strategy']} case belongs in {expected_file}")
            data["expect"] = expand(data["expect"])
            yield kind.parse_case(data, where, runs)
        except GoldenDataError:
            raise
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise GoldenDataError(
                f"{where}: malformed case ({type(exc).__name__}: {exc}); "
                f"`rmq-conformance golden check {path.parent}` names every problem"
            ) from None


def load_golden(
    directory: str | Path | None = None,
    strategies: Sequence[str] | None = None,
    *,
    validate: bool | None = None,
) -> Golden:
    """Read a golden directory (the shipped one, read once per process, by default).

    Every line of a given directory is validated against its schema. The
    shipped data was validated where it was built and is checked in CI
    (``rmq-conformance golden check``), so by default it is only parsed;
    ``validate=True`` validates it too. A directory given with ``validate=False``
    is shipped data too (a kind's own vectors): parsed once per process. ``strategies`` limits the read to
    those strategies' files. Raises :class:`GoldenDataError` naming the file,
    line and case of the first problem found.
    """
    wanted = None if strategies is None else tuple(sorted(set(strategies)))
    if directory is None:
        return _load_shipped(golden_dir(), wanted, bool(validate))
    if validate is False:  # data shipped with a package (a kind's own): read once per process
        return _load_shipped(Path(directory), wanted, False)
    return _load(Path(directory), wanted, True if validate is None else validate)


@lru_cache(maxsize=16)
def _load_shipped(directory: Path, strategies: tuple[str, ...] | None, validate: bool) -> Golden:
    """:func:`_load`, kept for the process. The cases live as long as the process and hold no
    cycle to collect: read with the cyclic collector paused, then moved out of its generations
    (``gc.freeze``), so that no later collection walks them again (tens of thousands of dicts and
    tuples; walking them was a sixth of a golden run)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        golden = _load(directory, strategies, validate)
    finally:
        if enabled:
            gc.enable()
    gc.freeze()
    return golden


def _load(directory: Path, strategies: tuple[str, ...] | None, validate: bool) -> Golden:
    if not directory.is_dir():
        raise GoldenDataError(f"{directory}: golden directory not found")
    runs, manifest = _load_manifest(directory, validate)
    cases: list[Any] = []
    ids: dict[str, str] = {}
    for path in sorted(directory.glob("*.jsonl")):
        if strategies is not None and path.stem not in strategies:
            continue
        for case in _iter_file(path, runs, manifest, validate):
            if case.id in ids:
                raise GoldenDataError(f"{case.source}: duplicate case id, first seen at {ids[case.id]}")
            ids[case.id] = case.source
            cases.append(case)
    return Golden(directory, runs, tuple(cases))


def check_runs(groups: Sequence[Mapping[str, Any]], where: str, runs: Mapping[str, Run]) -> None:
    """Every run the answer ``groups`` of a case name is in the manifest's ``runs``, and in one
    group only; ``GoldenDataError`` naming ``where`` otherwise."""
    seen: set[str] = set()
    for n, group in enumerate(groups):
        for run in group["runs"]:
            if run not in runs:
                raise GoldenDataError(f"{where}: expect/{n} names run {run!r}, not in {MANIFEST}")
            if run in seen:
                raise GoldenDataError(f"{where}: run {run!r} has two groups of answers")
            seen.add(run)


def write_golden(out: Path, manifest: Mapping[str, Any], files: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
    """Make ``out`` a golden directory of ``manifest`` and ``files`` (family -> its cases, in
    order, each group naming every run that answered it): stored once per behaviour
    (:func:`compact_runs`), written and read back aside first, so that a set that does not
    validate leaves ``out`` as it was; its case files of families no longer written are
    removed, its other files (a README) stay. The same input gives the same bytes."""
    manifest, files = compact_runs(manifest, files)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=f".{out.name}-import-") as staging:
        staged = Path(staging)
        (staged / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        for name, cases in files.items():
            text = "".join(compact_json(case) + "\n" for case in cases)
            (staged / f"{name}.jsonl").write_text(text, encoding="utf-8")
        load_golden(staged)  # every case validated and parsed, as every reader of a directory does
        for stale in out.glob("*.jsonl"):
            if not (staged / stale.name).exists():
                stale.unlink()
        for new in staged.iterdir():
            os.replace(new, out / new.name)


def shipped_dirs() -> list[Path]:
    """The shipped golden directories: ``golden/``, then each kind's own."""
    return kinds.shipped_dirs()


def shipped_releases() -> list[str]:
    """The releases the shipped golden vectors of every kind cover (read from their manifests alone)."""
    from pytest_rmq_conformance.releases import parse_release

    found = {run.rocketmq for directory in shipped_dirs() for run in load_golden(directory, strategies=()).runs.values()}
    return sorted(found, key=parse_release)
