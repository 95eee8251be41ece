"""``--rmq-strategy`` specs: from a string to a source of strategy objects.

A spec is, in this order of precedence:

1. a built-in reference name: ``AVG``, ``AVG_BY_CIRCLE``, ``CONSISTENT_HASH``,
   ``MACHINE_ROOM``, ``MACHINE_ROOM_NEARBY``, ``CONFIG`` (the reference port
   of the selected release);
2. a name given by a ``pytest_rmq_strategies`` hook;
3. a name registered in the entry-point group ``rmq_conformance.strategies``;
4. ``exec:COMMAND``: a harness process speaking the JSON-lines protocol
   (:mod:`~pytest_rmq_conformance.engine.remote`), COMMAND split like a shell line;
5. ``module:attribute`` (the attribute may be dotted).

What it names is a class or a factory, called with the golden case's
parameters as keywords (:func:`keywords_for`), an instance, used as it is, or
(from a hook or an entry point too) a string ``"exec:COMMAND"``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from pytest_rmq_conformance.strategies import REFERENCE_CLASSES, families

__all__ = [
    "ENTRY_POINT_GROUP",
    "SpecError",
    "StrategySource",
    "resolve_spec",
    "keywords_for",
    "family_of",
    "probe_keywords",
]

ENTRY_POINT_GROUP = "rmq_conformance.strategies"
EXEC = "exec:"


class SpecError(Exception):
    """A ``--rmq-strategy`` spec that names nothing usable."""


@dataclass(frozen=True)
class StrategySource:
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
            return f"built-in reference port {REFERENCE_CLASSES[self.target].__name__}"
        if self.kind == "harness":
            return f"harness {self.target} ({self.where})"
        name = getattr(self.target, "__qualname__", None) or type(self.target).__qualname__
        module = getattr(self.target, "__module__", None) or type(self.target).__module__
        return f"{self.kind} {module}.{name} ({self.where})"


def _classify(spec: str, obj: Any, where: str) -> StrategySource:
    if isinstance(obj, str) and obj.startswith(EXEC):
        command = obj[len(EXEC) :].strip()
        if not command:
            raise SpecError(f"--rmq-strategy={spec}: {where} gives {obj!r}, an exec: spec with no command")
        return StrategySource(spec, "harness", command, where)
    if inspect.isclass(obj):
        return StrategySource(spec, "class", obj, where)
    if callable(getattr(obj, "allocate", None)):
        return StrategySource(spec, "instance", obj, where)
    if callable(obj):
        return StrategySource(spec, "factory", obj, where)
    raise SpecError(
        f"--rmq-strategy={spec}: {where} gives {type(obj).__name__} {obj!r:.60}, which is not a strategy "
        "class, a factory, or an object with an allocate() method"
    )


def _import_attribute(spec: str) -> Any:
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise SpecError(f"--rmq-strategy={spec}: expected module:attribute")
    try:
        obj = importlib.import_module(module_name)
    except Exception as exc:  # any import-time failure of user code
        raise SpecError(f"--rmq-strategy={spec}: cannot import {module_name}: {type(exc).__name__}: {exc}") from exc
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SpecError(f"--rmq-strategy={spec}: {module_name} has no attribute {attribute}") from None
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


def resolve_spec(spec: str, named: Mapping[str, Any] | None = None) -> StrategySource:
    """Resolve ``spec``; ``named`` holds what ``pytest_rmq_strategies`` hooks provided."""
    spec = spec.strip()
    if spec in REFERENCE_CLASSES:
        return StrategySource(spec, "reference", spec, "built-in")
    if named and spec in named:
        return _classify(spec, named[spec], "pytest_rmq_strategies hook")
    if spec.startswith(EXEC):
        return _classify(spec, spec, "exec")
    found = _entry_point(spec)
    if found is not None:
        return _classify(spec, found, f"entry point in {ENTRY_POINT_GROUP}")
    if ":" in spec:
        return _classify(spec, _import_attribute(spec), spec)
    known = sorted(set(REFERENCE_CLASSES) | set(named or ()) | {e.name for e in entry_points(group=ENTRY_POINT_GROUP)})
    raise SpecError(
        f"--rmq-strategy={spec}: no such strategy; give module:attribute, exec:COMMAND or one of {', '.join(known)}"
    )


def family_of(name: Any) -> str | None:
    """The golden family a strategy ``name`` belongs to, or ``None`` without a Java twin.

    ``"MACHINE_ROOM_NEARBY-AVG"`` belongs to ``MACHINE_ROOM_NEARBY``.
    """
    family = families.family_of(name)
    return None if family is None else family.name


def keywords_for(family: str, params: Mapping[str, Any], version: str, charset: str = "UTF-8") -> dict[str, Any]:
    """The keyword contract: golden ``params`` as the keywords a factory is called with.

    ``virtual_node_cnt``; ``consumeridcs`` (a set or ``None``);
    ``message_queue_list`` (``MessageQueue`` objects or ``None``);
    ``allocate_message_queue_strategy`` (the reference port of the case's
    inner strategy) and ``machine_room_resolver``. ``charset`` is passed to
    consistent hashing only when it is not UTF-8.
    """
    return families.get(family).keywords(params, version, charset)


def probe_keywords(version: str, charset: str) -> list[dict[str, Any]]:
    """Keyword sets tried, in turn, to build a strategy whose ``name`` is wanted before any
    case is known: no keywords first, then each family's probe configuration."""
    tried: list[dict[str, Any]] = []
    for family in families.all_families():
        keywords = family.keywords(family.probe, version, charset)
        if keywords not in tried:
            tried.append(keywords)
    return tried
