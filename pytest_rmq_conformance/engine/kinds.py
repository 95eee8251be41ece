"""Internal: the registry of the kinds of strategy under test and their families, the seam between the engine and what it checks.

A *kind* is one job a RocketMQ client computes alone and must compute as Java does: consumer
queue allocation today (:mod:`pytest_rmq_conformance.kinds.allocation`). Its :class:`Kind`
record owns everything that depends on the job: what a golden case is and how its lines
import, how one case is asked of a strategy (in this process or over the harness protocol),
how an answer is compared with Java's and how bad a difference is, and the differential on
generated inputs. A part of the suite that applies to some kinds only says so in its marker
(``pytest.mark.rmq_check("rebalance", kinds=("allocation",))``). The engine, the plugin and the matrix ask
the record and never branch on a kind's or a family's name.

A *family* is one Java strategy of a kind, named as golden files and Java's ``getName()`` name
it (``AVG``, ``CONSISTENT_HASH``, ...). Its :class:`Family` record says how to build the
reference port and how golden ``params`` become a factory's keywords and back.

A new kind is one package that registers its record and its families when imported::

    from pytest_rmq_conformance.engine import kinds

    kinds.register_kind(ROUND_ROBIN_KIND)          # a Kind
    kinds.register_family(kinds.Family("ROUND_ROBIN", kind="round-robin", build=...))

The built-in kinds are imported on the first look-up; a package can name its own module in the
entry-point group ``rmq_conformance.kinds``.

The records (:class:`Kind`, :class:`Family`, :class:`GeneratedCheck`) are defined in
:mod:`~pytest_rmq_conformance.engine.records`, below every engine module that types against
them, and re-exported here.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.records import Family, GeneratedCheck, Kind
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.engine.runs import modelled_release, not_modelled
from pytest_rmq_conformance.releases import DEFAULT_RELEASE, parse_release

__all__ = [
    "ENTRY_POINT_GROUP",
    "BUILT_IN",
    "Kind",
    "GeneratedCheck",
    "Family",
    "register_kind",
    "register_family",
    "unregister_family",
    "get_kind",
    "all_kinds",
    "kind_of",
    "kind_of_method",
    "get",
    "family_of",
    "near_family",
    "all_families",
    "names",
    "ports",
    "reference_strategy",
    "shipped_dirs",
    "property_names",
]

ENTRY_POINT_GROUP = "rmq_conformance.kinds"
#: the kinds that come with the suite, imported on the first look-up
BUILT_IN = ("pytest_rmq_conformance.kinds.allocation", "pytest_rmq_conformance.kinds.producer", "pytest_rmq_conformance.kinds.grpc")


_KINDS: dict[str, Kind] = {}
_FAMILIES: dict[str, Family] = {}
_loaded = False


def _load() -> None:
    """Import the built-in kinds and those the entry points name (once per process)."""
    global _loaded  # noqa: PLW0603 (kinds are found once per process)
    if _loaded:
        return
    _loaded = True
    for module in BUILT_IN:
        importlib.import_module(module)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            entry.load()
        except Exception as exc:  # a broken plugin package must not take the suite down silently
            raise ValueError(
                f"entry point {entry.name} = {entry.value} (group {ENTRY_POINT_GROUP}) cannot be loaded: "
                f"{type(exc).__name__}: {exc}"
            ) from exc


def register_kind(kind: Kind) -> Kind:
    """Add ``kind`` (replacing one of the same name); returns it."""
    _KINDS[kind.name] = kind
    _reorder()
    return kind


def register_family(family: Family) -> Family:
    """Add ``family`` (replacing one of the same name); returns it. Its kind must be registered by then."""
    if family.kind not in _KINDS:
        raise ValueError(f"family {family.name}: no kind {family.kind!r} is registered (known: {sorted(_KINDS)})")
    _FAMILIES[family.name] = family
    _reorder()
    return family


def unregister_family(name: str) -> None:
    """Remove the family called ``name``, if there is one (a test's registration, say)."""
    _FAMILIES.pop(name, None)


def _rank(kind: Kind) -> int:
    """Where a kind stands: the built-in ones in :data:`BUILT_IN`'s order (whichever a process
    imported first), then the others as they were registered."""
    module = type(kind).__module__
    return BUILT_IN.index(module) if module in BUILT_IN else len(BUILT_IN)


def _reorder() -> None:
    """Keep the registries in their listing order, once per registration: the kinds by
    :func:`_rank`, the families kind by kind, each kind's as registered."""
    ranked = sorted(_KINDS.values(), key=_rank)
    _KINDS.clear()
    _KINDS.update((kind.name, kind) for kind in ranked)
    order = {kind.name: at for at, kind in enumerate(ranked)}
    families = sorted(_FAMILIES.values(), key=lambda family: order.get(family.kind, len(order)))
    _FAMILIES.clear()
    _FAMILIES.update((family.name, family) for family in families)


def all_kinds() -> list[Kind]:
    """Every registered kind, the built-in ones first, in :data:`BUILT_IN`'s order."""
    _load()
    return list(_KINDS.values())


def get_kind(name: str) -> Kind:
    """The kind called ``name``; ``ValueError`` naming the known ones otherwise."""
    _load()
    try:
        return _KINDS[name]
    except KeyError:
        raise ValueError(f"unknown kind {name!r}; expected one of {sorted(_KINDS)}") from None


def kind_of(family: str) -> Kind:
    """The kind the family called ``family`` belongs to; ``ValueError`` for an unknown family."""
    return get_kind(get(family).kind)


def kind_of_method(strategy: Any) -> Kind | None:
    """The kind whose method ``strategy`` has (an instance spec), if any; a kind may name
    ``other_methods`` that mark its strategies too."""
    return next(
        (
            kind
            for kind in all_kinds()
            if any(callable(getattr(strategy, method, None)) for method in (kind.method, *getattr(kind, "other_methods", ())))
        ),
        None,
    )


def all_families() -> list[Family]:
    """Every registered family, kind by kind (:func:`all_kinds`' order), each kind's as registered."""
    _load()
    return list(_FAMILIES.values())


def names() -> list[str]:
    return [family.name for family in all_families()]


def get(name: str) -> Family:
    """The family called ``name``; ``ValueError`` naming the known ones otherwise."""
    if name not in _FAMILIES:
        _load()
    try:
        return _FAMILIES[name]
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}; expected one of {sorted(_FAMILIES)}") from None


def family_of(strategy_name: Any) -> Family | None:
    """The family a strategy's ``name`` belongs to, or ``None`` for a strategy with no Java twin."""
    if not isinstance(strategy_name, str):
        return None
    return next((family for family in all_families() if family.matches(strategy_name)), None)


def near_family(strategy_name: str) -> str | None:
    """The family ``strategy_name`` misses by a typo, if any: the same name in other case or with
    other separators (``Avg``, ``consistent-hash``), or one or two letters off (one for names of
    five letters or fewer): ``AGV``, ``CONSISTENT_HAHS``. ``None`` for a family's own name."""
    if family_of(strategy_name) is not None:
        return None
    typed = re.sub(r"[\s.\-]+", "_", strategy_name.strip()).upper()
    best = None
    for family in names():
        distance = _edits(typed, family)
        if distance <= (1 if len(family) <= 5 else 2) and (best is None or distance < best[0]):
            best = (distance, family)
    return None if best is None else best[1]


def _edits(a: str, b: str) -> int:
    """Edits (insert, delete, replace, swap two neighbours) from ``a`` to ``b``."""
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            row.append(min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y)))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def ports(kind: str | None = None) -> dict[str, type]:
    """Java ``getName()`` -> the class that ports it, for every family (of ``kind``) with a port."""
    return {
        family.name: family.port
        for family in all_families()
        if family.port is not None and (kind is None or family.kind == kind)
    }


def shipped_dirs() -> list[Path]:
    """The shipped golden directories: ``golden/``, then each kind's own."""
    return [golden_dir(), *(directory for kind in all_kinds() for directory in kind.golden_dirs)]


def reference_strategy(name: str, params: Mapping[str, Any] | None = None, version: str = DEFAULT_RELEASE) -> Any:
    """The reference port of family ``name`` configured by golden ``params``, behaving like
    RocketMQ release ``version`` (as the release of ``RELEASES`` whose answers in the family are
    ``version``'s in the shipped vectors; :class:`~pytest_rmq_conformance.engine.runs.NotModelled`,
    a ``ValueError``, where none's are).

    >>> reference_strategy("CONSISTENT_HASH", {"virtualNodeCnt": 10}).name
    'CONSISTENT_HASH'
    >>> reference_strategy("MACHINE_ROOM_NEARBY", {
    ...     "inner": {"strategy": "AVG", "params": {}},
    ...     "resolver": {"kind": "split", "separator": "-"}}, "4.9.8").name
    'MACHINE_ROOM_NEARBY-AVG'

    ``params`` may also hold ``"charset"``, the JVM default charset a 4.x
    consistent hash reads key bytes in (``"UTF-8"`` when absent). Raises
    ``ValueError`` for an unknown name or parameter and wherever Java's
    constructor refuses.
    """
    from pytest_rmq_conformance.javalang import normalize_charset

    parse_release(version)
    family = get(name)
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise ValueError(f"{name}: params must be an object, not {params!r}")
    params = dict(params)
    charset = normalize_charset(params.pop("charset", "UTF-8"))
    modelled = modelled_release(family.name, version, charset, tuple(shipped_dirs()))
    if modelled is None:
        raise not_modelled(family.name, version)
    return family.build(params, modelled, charset)


def property_names(claimed: Any, where: str, known: Mapping[str, str]) -> frozenset[str]:
    """A strategy's declaration of properties (an iterable of names among ``known``), checked;
    ``ValueError`` naming ``where`` otherwise."""
    if isinstance(claimed, str) or not isinstance(claimed, Iterable):
        raise ValueError(f"{where} must be a set of property names, not {claimed!r}")
    names = frozenset(claimed)
    unknown = sorted(str(name) for name in names - set(known))
    if unknown:
        raise ValueError(f"{where} names unknown propert(ies) {unknown}; known: {', '.join(known)}")
    return names
