"""Kinds of strategy under test and their families: the seam between the engine and what it checks.

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
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pytest_rmq_conformance.releases import DEFAULT_RELEASE, parse_release

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.golden.cases import CaseOutcome
    from pytest_rmq_conformance.engine.golden.data import Run
    from pytest_rmq_conformance.engine.loading.subject import Subject
    from pytest_rmq_conformance.engine.protocol.client import Harness

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
    "all_families",
    "names",
    "ports",
    "reference_strategy",
    "property_names",
]

ENTRY_POINT_GROUP = "rmq_conformance.kinds"
#: the kinds that come with the suite, imported on the first look-up
BUILT_IN = ("pytest_rmq_conformance.kinds.allocation", "pytest_rmq_conformance.kinds.producer", "pytest_rmq_conformance.kinds.grpc")

Params = Mapping[str, Any]


@dataclass(frozen=True)
class GeneratedCheck:
    """A check on generated inputs, as a kind gives it: ``examples`` (a hypothesis strategy),
    ``body(example)`` raising :class:`~pytest_rmq_conformance.engine.generated.generation.PropertyFailure`
    where the strategy fails, ``explicit`` examples every seed asks first, and ``classify()``:
    how bad the failure ``body`` last raised is (:mod:`~pytest_rmq_conformance.engine.divergence`)."""

    examples: Any
    body: Callable[[Any], None]
    explicit: Sequence[Any] = ()
    classify: Callable[[], str | None] = lambda: None


class Kind(Protocol):
    """What the engine asks of a kind of strategy under test.

    Optional attributes: ``compared`` (how its answers are compared, for the report header;
    by default as sets or lists, per ``--rmq-strict-order``), ``other_methods`` (more methods
    that make an object one of its strategies), ``lazy_keys`` (parts of a golden line kept as
    text until a case replays them), ``hello_fields(strategy)`` (what the built-in harness's hello
    says of a strategy it serves, as a harness of another language declares it)."""

    #: short name, used in records and protocol messages (``allocation``)
    name: str
    #: the method a strategy object of this kind has (``allocate``); an object that has it is an instance spec
    method: str
    #: the JSON schema (``schemas/<name>.schema.json`` or a path) of one golden line, or ``None``
    case_schema: str | Path | None
    #: folders holding ``protocol-<message>.schema.json`` for its messages, besides the shipped ``schemas/``
    schema_dirs: tuple[Path, ...]

    @property
    def golden_dirs(self) -> tuple[Path, ...]:
        """Golden directories of its own (a ``manifest.json`` and a ``<FAMILY>.jsonl`` per
        family), read besides the shipped ``golden/`` whenever one of its strategies is under test."""
        ...

    @property
    def default_properties(self) -> frozenset[str]:
        """The properties a strategy with no Java twin is held to unless it declares its own."""
        ...

    def parse_properties(self, claimed: Any, where: str) -> frozenset[str]:
        """The property names a strategy declares (``rmq_properties``, or the
        ``pytest_rmq_properties`` hook), checked; ``ValueError`` naming ``where`` otherwise."""
        ...

    def parse_case(self, data: Mapping[str, Any], where: str, runs: Mapping[str, Run]) -> Any:
        """One golden line, schema-valid, as a case: it has ``id``, ``strategy`` (its family),
        ``params``, ``runs`` and ``source``; ``GoldenDataError`` naming ``where`` otherwise."""
        ...

    def check_strategy(self, spec: str, name: str, strategy: Any) -> None:
        """Refuse, once at load, a strategy that cannot be called as this kind's strategies are
        (``SpecError``, naming ``spec``)."""
        ...

    def replay(self, subject: Subject, case: Any, run: Run) -> CaseOutcome:
        """Ask ``case`` of the subject (its source: in this process or a harness), compare with
        Java's answers of ``run``, and say how it went."""
        ...

    def report(self, outcome: CaseOutcome, rerun: str) -> str:
        """The failure report of ``outcome``, ending with ``rerun``."""
        ...

    def divergence(self, outcome: CaseOutcome) -> str:
        """The first divergence of a failed ``outcome``, in one line."""
        ...

    def describe_example(self, example: Any) -> str:
        """A generated input in one line, for reports."""
        ...

    def generated(self, subject: Subject) -> GeneratedCheck | str:
        """The differential on generated inputs against the reference port, or why it cannot run."""
        ...

    def remote(self, harness: Harness, family: str, params: Params, release: str) -> Any:
        """A strategy object whose calls are requests to ``harness``."""
        ...

    def serve(self, request: Mapping[str, Any], build: Callable[[str, Params], Any]) -> dict[str, Any] | None:
        """The built-in harness's answer to ``request`` (``build(family, params)`` makes a Python
        strategy), or ``None`` when the request is not one of this kind's."""
        ...

    def import_golden(self, source: Path, out: Path) -> str | None:
        """Build this kind's golden files under the golden directory ``out`` from the Java
        vectors in ``source`` and say what was written, or ``None`` when ``source`` holds none
        of this kind's vectors (``GoldenDataError`` for bad ones)."""
        ...


@dataclass(frozen=True)
class Family:
    """What the suite knows of one Java strategy.

    - ``name``: the golden name (the ``strategy`` of golden cases, Java's ``getName()``);
    - ``kind``: the name of the :class:`Kind` it belongs to;
    - ``build(params, version, charset)``: the reference port configured by golden ``params``;
    - ``keywords(params, version, charset)``: golden ``params`` as the keywords a factory takes;
    - ``params(keywords)``: the other way, from the keyword values an instance carries as
      attributes (named ``keyword_names``); ``None`` when they cannot be described as params;
    - ``defaults``: attribute values assumed when an instance lacks the attribute;
    - ``probe``: params to build with while probing a strategy's name, before any case;
    - ``properties(version)``: the properties Java's strategy has at that release;
    - ``name_prefix``: strategy names starting with it belong to the family too;
    - ``port``: the class of the reference port (its name is a spec too);
    - ``stateful``: its strategies keep state between calls that a case starts afresh (an
      instance spec, one object for every case, is refused).
    """

    name: str
    build: Callable[[Params, str, str], Any]
    kind: str = ""
    properties: Callable[[str], frozenset[str]] = lambda version: frozenset()
    keywords: Callable[[Params, str, str], dict[str, Any]] = lambda params, version, charset: {}
    params: Callable[[Mapping[str, Any]], dict[str, Any] | None] = lambda keywords: {}
    keyword_names: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    probe: Params = field(default_factory=dict)
    name_prefix: str | None = None
    port: type | None = None
    stateful: bool = False

    def matches(self, strategy_name: str) -> bool:
        """Whether a strategy called ``strategy_name`` belongs to this family."""
        if strategy_name == self.name:
            return True
        return self.name_prefix is not None and strategy_name.startswith(self.name_prefix)

    def params_of(self, instance: Any) -> dict[str, Any] | None:
        """The golden params describing ``instance``'s configuration, or ``None`` when it
        lacks an attribute or carries what params cannot describe."""
        keywords = {}
        for keyword in self.keyword_names:
            if hasattr(instance, keyword):
                keywords[keyword] = getattr(instance, keyword)
            elif keyword in self.defaults:
                keywords[keyword] = self.defaults[keyword]
            else:
                return None
        return self.params(keywords)

    def normalized(self, params: Params, version: str) -> dict[str, Any] | None:
        """``params`` sent through the keywords and back, for comparing configurations."""
        return self.params(self.keywords(params, version, "UTF-8"))


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


def ports(kind: str | None = None) -> dict[str, type]:
    """Java ``getName()`` -> the class that ports it, for every family (of ``kind``) with a port."""
    return {
        family.name: family.port
        for family in all_families()
        if family.port is not None and (kind is None or family.kind == kind)
    }


def reference_strategy(name: str, params: Mapping[str, Any] | None = None, version: str = DEFAULT_RELEASE) -> Any:
    """The reference port of family ``name`` configured by golden ``params``, behaving like
    RocketMQ release ``version``.

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
    return family.build(params, version, charset)


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
