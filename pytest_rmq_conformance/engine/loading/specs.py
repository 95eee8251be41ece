"""Internal: ``--rmq-strategy`` specs, from a string to a source of strategy objects.

A spec is, in this order of precedence:

1. a built-in reference name: ``AVG``, ``AVG_BY_CIRCLE``, ``CONSISTENT_HASH``,
   ``MACHINE_ROOM``, ``MACHINE_ROOM_NEARBY``, ``CONFIG`` (the reference port
   of the selected release);
2. a name given by a ``pytest_rmq_strategies`` hook;
3. a name registered in the entry-point group ``rmq_conformance.strategies``;
4. ``exec:COMMAND``: a harness process speaking the JSON-lines protocol
   (:mod:`~pytest_rmq_conformance.engine.protocol.client`), COMMAND split like a shell line;
5. ``module:attribute`` (the attribute may be dotted). An installed module wins;
   one that is not installed is looked for in the search path the run gives
   (the directory pytest was started in, then its rootdir), as ``python -m
   pytest`` would find it.

What it names is a class or a factory, called with the golden case's
parameters as its family's keywords (``Family.keywords``), an instance, used as
it is, or (from a hook or an entry point too) a string ``"exec:COMMAND"``.
:mod:`~pytest_rmq_conformance.engine.loading.sources` turns each kind into a source.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine import kinds

__all__ = [
    "ENTRY_POINT_GROUP",
    "BuildHook",
    "Declare",
    "SpecError",
    "Resolved",
    "resolve_spec",
    "probe_keywords",
    "did_you_mean",
]

ENTRY_POINT_GROUP = "rmq_conformance.strategies"
EXEC = "exec:"

#: ``build_hook(factory, keywords, case)``: a strategy, or ``None`` to call ``factory(**keywords)``
BuildHook = Callable[[Any, dict[str, Any], Any], Any]
#: ``declare(strategy, name)``: the properties a hook says the strategy claims, or ``None``
Declare = Callable[[Any, "str | None"], Any]


class SpecError(Exception):
    """A ``--rmq-strategy`` spec that names nothing usable."""


@dataclass(frozen=True)
class Resolved:
    """What a spec resolved to.

    ``kind`` is ``"reference"`` (``target`` is the reference name),
    ``"class"``, ``"factory"``, ``"instance"`` or ``"harness"`` (``target`` is
    the command); ``where`` says how it was found, for the report header.
    """

    spec: str
    kind: str
    target: Any
    where: str

    def describe(self) -> str:
        if self.kind == "reference":
            return f"built-in reference port {kinds.ports()[self.target].__name__}"
        if self.kind == "harness":
            return f"harness {self.target} ({self.where})"
        name = getattr(self.target, "__qualname__", None) or type(self.target).__qualname__
        module = getattr(self.target, "__module__", None) or type(self.target).__module__
        found = getattr(sys.modules.get(module), "__file__", None)
        return f"{self.kind} {module}.{name} ({self.where})" + (f" from {found}" if found else "")


def _classify(spec: str, obj: Any, where: str) -> Resolved:
    if isinstance(obj, str) and obj.startswith(EXEC):
        command = obj[len(EXEC) :].strip()
        if not command:
            raise SpecError(f"--rmq-strategy={spec}: {where} gives {obj!r}, an exec: spec with no command")
        problem = _program_problem(command)
        if problem is not None:
            raise SpecError(f"--rmq-strategy={spec}: {problem}")
        return Resolved(spec, "harness", command, where)
    if inspect.isclass(obj):
        return Resolved(spec, "class", obj, where)
    if kinds.kind_of_method(obj) is not None:
        return Resolved(spec, "instance", obj, where)
    if callable(obj):
        return Resolved(spec, "factory", obj, where)
    raise SpecError(
        f"--rmq-strategy={spec}: {where} gives {type(obj).__name__} {obj!r:.60}, which is not a strategy "
        f"class, a factory, or an object with one of the methods {', '.join(sorted(f'{kind.method}()' for kind in kinds.all_kinds()))}"
    )


#: what runs a script of each suffix, for a hint (``exec:node h.js``)
_RUNNERS = {".js": "node", ".mjs": "node", ".cjs": "node", ".py": "python", ".sh": "bash", ".rb": "ruby", ".go": "go run"}


def _program_problem(command: str) -> str | None:
    """Why an ``exec:`` command's program cannot start, with what to write instead: a file of the
    current folder named without ``./`` (the program is looked up on ``PATH``, as a shell does), a
    folder, or a file without its execute bit. ``None`` when it looks startable, or when there is
    no better advice than the error starting it gives."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return None  # unbalanced quotes: the harness says so when it starts
    if not argv:
        return None
    program, args = argv[0], argv[1:]
    path = Path(program)
    runner = _RUNNERS.get(path.suffix)

    def written(*words: str) -> str:
        return f"{EXEC}{shlex.join([*words, *args])}"

    def run_it(named: str) -> str:
        return written(*runner.split(), named) if runner else f"{written('<interpreter>', named)} (the program that runs it)"

    if "/" not in program and shutil.which(program) is not None:
        return None  # on PATH: what a shell would run
    if path.is_dir():
        try:
            inside = sorted(entry.name for entry in path.iterdir() if entry.is_file() and os.access(entry, os.X_OK))
        except OSError:  # a folder it may not read
            inside = []
        local = program if "/" in program else f"./{program}"
        chosen = f"{local.rstrip('/')}/{inside[0]}" if inside else f"{local.rstrip('/')}/PROGRAM"
        found = f" (it holds {', '.join(inside[:3])})" if inside else " (it holds no executable file yet: build it first)"
        return f"{program} is a folder, not a program{found}: name the harness program in it, {written(chosen)}"
    if "/" not in program:
        if not path.is_file():
            return None  # nowhere: starting it says so
        looks = f"exec: looks {program} up on PATH, as a shell does, not in the current folder"
        if os.access(path, os.X_OK):
            return f"{looks}: write {written(f'./{program}')}, or {run_it(program)}"
        return f"{looks}: write {run_it(program)}, or chmod +x {program} and write {written(f'./{program}')}"
    if path.is_file() and not os.access(path, os.X_OK):
        return f"{program} is not executable: chmod +x {program} (a script needs its #! line too), or write {run_it(program)}"
    return None


#: ``module.attribute``: a spec that meant ``module:attribute``
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")


def _colon_hint(spec: str) -> str:
    """For ``my_allocation.Averagely`` (no ``:``): the spec meant, ``my_allocation:Averagely``."""
    if not _DOTTED.fullmatch(spec):
        return ""
    module, _, attribute = spec.rpartition(".")
    if attribute == "py":
        return f"; a strategy in {spec} is named module:attribute: {module}:NAME (NAME its class or factory)"
    return f"; did you mean {module}:{attribute}? (a module's strategy is named module:attribute)"


def _file_hint(spec: str, module_name: str, attribute: str) -> str | None:
    """For a module named by its file (``my_allocation.py:A``, ``./my_allocation.py:A``): the spec meant."""
    if not (module_name.endswith(".py") or "/" in module_name or "\\" in module_name or module_name.startswith(".")):
        return None
    path = Path(module_name.replace("\\", "/"))
    parts = [part for part in (path.with_suffix("") if path.suffix == ".py" else path).parts if part != "."]
    if path.is_absolute() or not parts or not all(part.isidentifier() for part in parts):
        return (
            f"--rmq-strategy={spec}: name a module, not a file: {path.stem}:{attribute}, from the folder that "
            f"holds {path.name} (a module is looked for where pytest starts, its rootdir, and what is installed)"
        )
    return f"--rmq-strategy={spec}: name the module, not its file: {'.'.join(parts)}:{attribute}"


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` (did you mean X?)`` for the candidates closest to ``word`` whatever their case (``avg``
    gets ``AVG``), or ``""`` for none; never ``word`` itself."""
    by_folded: dict[str, list[str]] = {}
    for candidate in sorted(set(candidates) - {word}):
        by_folded.setdefault(candidate.casefold(), []).append(candidate)
    folded = difflib.get_close_matches(word.casefold(), list(by_folded), n=3, cutoff=0.6)
    close = [candidate for key in folded for candidate in by_folded[key]][:3]
    if not close:
        return ""
    return f" (did you mean {' or '.join(close)}?)"


def _local_modules(search: Sequence[Path]) -> set[str]:
    """Names a ``module:`` spec could mean in the search path: its modules and packages."""
    names: set[str] = set()
    for folder in search:
        try:
            entries = list(folder.iterdir())
        except OSError:
            continue
        names.update(entry.stem for entry in entries if entry.suffix == ".py" or (entry / "__init__.py").is_file())
    return names


def _import_module(spec: str, module_name: str, search: Sequence[Path]) -> Any:
    """``module_name``, installed first, else from the first folder of ``search`` that holds it
    (that folder then joins ``sys.path``, last, so that installed modules keep winning)."""
    top = module_name.partition(".")[0]
    for folder in [None, *search]:
        if folder is not None:
            if not (folder / f"{top}.py").is_file() and not (folder / top).is_dir():
                continue
            if str(folder) not in sys.path:
                sys.path.append(str(folder))
            importlib.invalidate_caches()
        try:
            return importlib.import_module(module_name)
        except Exception as exc:  # any import-time failure of user code
            missing = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
            if folder is None and missing is not None and (missing == module_name or module_name.startswith(missing + ".")):
                continue  # the module itself is not installed: look in the search path
            raise SpecError(f"--rmq-strategy={spec}: cannot import {module_name}: {type(exc).__name__}: {exc}") from exc
    hint = did_you_mean(top, _local_modules(search or [Path.cwd()]))
    where = f"not installed, nor in {', '.join(str(folder) for folder in search)}" if search else "not on sys.path"
    raise SpecError(f"--rmq-strategy={spec}: no module named {module_name!r}{hint}: it is {where}")


def _import_attribute(spec: str, search: Sequence[Path]) -> Any:
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise SpecError(f"--rmq-strategy={spec}: expected module:attribute")
    try:
        obj = _import_module(spec, module_name, search)
    except SpecError as exc:
        hint = _file_hint(spec, module_name, attribute)
        if hint is None:
            raise
        raise SpecError(hint) from exc
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            names = [name for name in dir(obj) if not name.startswith("_")]
            raise SpecError(
                f"--rmq-strategy={spec}: {module_name} has no attribute {attribute}{did_you_mean(part, names)}"
            ) from None
        except Exception as exc:  # a module __getattr__ or a descriptor of user code
            raise SpecError(f"--rmq-strategy={spec}: reading {attribute} raised {type(exc).__name__}: {exc}") from exc
    return obj


def _entry_point(spec: str) -> Any | None:
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name == spec:
            try:
                return entry.load()
            except Exception as exc:
                raise SpecError(
                    f"--rmq-strategy={spec}: entry point {entry.value} (group {ENTRY_POINT_GROUP}) "
                    f"cannot be loaded: {type(exc).__name__}: {exc}"
                ) from exc
    return None


def resolve_spec(spec: str, named: Mapping[str, Any] | None = None, search: Sequence[Path] = ()) -> Resolved:
    """Resolve ``spec``; ``named`` holds what ``pytest_rmq_strategies`` hooks provided, ``search``
    the folders a module that is not installed is looked for in."""
    spec = spec.strip()
    if spec in kinds.ports():
        return Resolved(spec, "reference", spec, "built-in")
    if named and spec in named:
        return _classify(spec, named[spec], "pytest_rmq_strategies hook")
    if spec.startswith(EXEC):
        return _classify(spec, spec, "exec")
    found = _entry_point(spec)
    if found is not None:
        return _classify(spec, found, f"entry point in {ENTRY_POINT_GROUP}")
    if ":" in spec:
        return _classify(spec, _import_attribute(spec, search), spec)
    known = set(kinds.ports()) | set(named or ()) | {e.name for e in entry_points(group=ENTRY_POINT_GROUP)}
    colon = _colon_hint(spec)
    if colon:
        raise SpecError(f"--rmq-strategy={spec}: no such strategy{colon}")
    raise SpecError(
        f"--rmq-strategy={spec}: no such strategy{did_you_mean(spec, known)}; give module:attribute, "
        f"exec:COMMAND or one of {', '.join(sorted(known))}"
    )


def probe_keywords(version: str, charset: str) -> list[dict[str, Any]]:
    """Keyword sets tried, in turn, to build a strategy whose ``name`` is wanted before any
    case is known: no keywords first, then each family's probe configuration."""
    tried: list[dict[str, Any]] = []
    for family in kinds.all_families():
        keywords = family.keywords(family.probe, version, charset)
        if keywords not in tried:
            tried.append(keywords)
    return tried
