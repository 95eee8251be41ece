"""The strategy under test: a spec resolved once, named, built per golden case or per group.

Data flows one way: :class:`Settings` and a spec become a :class:`Subject`;
it resolves the spec (:mod:`~pytest_rmq_conformance.engine.loading.specs`), probes
the strategy's ``name`` to find its family, learns the properties it claims,
and builds a strategy for any case or generated group. Its
:class:`~pytest_rmq_conformance.engine.running.hangs.HangBudget` stops calling a
strategy that keeps overrunning the per-call limit. Hooks come in as plain
callables; nothing here imports pytest.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.kinds import Family, Kind
from pytest_rmq_conformance.engine.loading.sources import BuildHook, Declare, Source, open_source
from pytest_rmq_conformance.engine.loading.specs import SpecError, resolve_spec
from pytest_rmq_conformance.engine.running.hangs import HangBudget
from pytest_rmq_conformance.engine.running.timeouts import StrategyExit
from pytest_rmq_conformance.engine.settings import Settings
from pytest_rmq_conformance.releases import parse_release

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.protocol.client import Harness, Hello

__all__ = ["Subject"]

class Subject:
    """One strategy under test at one release.

    ``named`` returns the strategies hooks provide; ``build_hook`` may build a
    strategy for a case or group (``None`` to leave it to the factory);
    ``declare`` may return the properties a strategy claims (``None`` to
    leave it to its ``rmq_properties`` attribute, its family, or the
    defaults); ``custom_build`` says whether a build hook is installed.
    Loading errors are kept in :attr:`load_error`, never raised.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        named: Callable[[], Mapping[str, Any]] = dict,
        build_hook: BuildHook = lambda factory, keywords, case: None,
        declare: Declare = lambda strategy, name: None,
        custom_build: Callable[[], bool] = lambda: False,
        hangs: HangBudget | None = None,
    ):
        self.settings = settings
        self._named, self._build_hook, self._declare, self.custom_build = named, build_hook, declare, custom_build
        self.hangs = hangs if hangs is not None else HangBudget(settings.max_hangs)
        self._loaded = False
        self._source: Source | None = None
        self._name: str | None = None
        self._load_error: str | None = None
        self._properties: tuple[frozenset[str], str] = (frozenset(), "")
        self._only_family: str | None = None  # a view of a harness's families: this one
        self._references: dict[str, Subject] = {}  # reference_view()'s, by family

    # -- loading -------------------------------------------------------

    def load(self) -> None:
        """Resolve the spec and learn the strategy's ``name`` (once)."""
        if self._loaded:
            return
        self._loaded = True
        try:
            try:
                parse_release(self.settings.version)
            except ValueError as exc:
                raise SpecError(f"--rmq-reference-version={self.settings.version}: {exc}") from None
            resolved = resolve_spec(self.settings.spec, self._named(), [Path(p) for p in self.settings.search_path])
            self._source = open_source(resolved, self.settings, build_hook=self._build_hook, env=self.child_env)
            self._name = self._source.probe()
            self._check_name()
            self._check_strategy()
            self._properties = self._declared_properties()
        except (SpecError, ValueError) as exc:
            self._load_error = str(exc)
        except (Exception, StrategyExit) as exc:  # whatever user code raised while being looked at
            self._load_error = f"--rmq-strategy={self.settings.spec}: {type(exc).__name__}: {exc}"

    @property
    def source(self) -> Source | None:
        """Where the strategy comes from (``None`` if the spec did not load)."""
        self.load()
        return self._source

    @property
    def load_error(self) -> str | None:
        self.load()
        return self._load_error

    @property
    def name(self) -> str | None:
        self.load()
        return self._name

    @property
    def family_record(self) -> Family | None:
        """The Java family the strategy's name belongs to, or ``None`` without a Java twin (and for
        a harness serving several families, short of a :meth:`for_family` view)."""
        if self._only_family is not None:
            return kinds.get(self._only_family)
        if self.harness is not None:
            served = self.families
            return kinds.get(served[0]) if len(served) == 1 else None
        return kinds.family_of(self.name)

    @property
    def kind(self) -> Kind:
        """The kind of strategy under test: its family's (for a harness serving families of several
        kinds, short of a :meth:`for_family` view, the first one's); for a strategy with no Java
        twin, the kind whose method it has, else the first built-in kind."""
        family = self.family_record
        if family is None and self.harness is not None and self.families:
            family = kinds.get(self.families[0])
        if family is not None:
            return kinds.get_kind(family.kind)
        source = self.source
        probed = None if source is None else source.probed
        return kinds.kind_of_method(probed) or kinds.all_kinds()[0]

    @property
    def kinds(self) -> tuple[Kind, ...]:
        """Every kind the strategy under test is checked as (a harness may serve several)."""
        if self.harness is None or self._only_family is not None:
            return (self.kind,)
        found = {kinds.get(family).kind: None for family in self.families}
        return tuple(kinds.get_kind(name) for name in found) or (self.kind,)

    def _check_name(self) -> None:
        """A name, or a harness's family, that misses a family by a typo is a mistake, not a new
        family: the golden vectors would silently not apply. A strategy of a family of its own
        says so with ``rmq_new_family = True``."""
        source = self.source
        assert source is not None and self._name is not None
        spec = self.settings.spec
        if source.harness is not None:
            for served in source.harness.hello().strategies:
                near = kinds.near_family(served)
                if near is not None:
                    raise SpecError(f"--rmq-strategy={spec}: the harness's hello serves {served!r}, which is no family of "
                                    f"this suite; did you mean {near}?")
            return
        near = kinds.near_family(self._name) if isinstance(self._name, str) else None
        if near is not None and getattr(source.probed, "rmq_new_family", False) is not True:
            raise SpecError(
                f"--rmq-strategy={spec}: name {self._name!r} is no family of this suite; did you mean {near}? "
                f"(name = {near!r} checks it against Java's {near}; a family of its own says so with "
                "rmq_new_family = True)"
            )

    def _check_strategy(self) -> None:
        source = self.source
        assert source is not None and self._name is not None
        if source.probed is not None:
            self.kind.check_strategy(self.settings.spec, self._name, source.probed)
        family = self.family_record
        if source.instance is not None and family is not None and family.stateful:
            raise SpecError(
                f"--rmq-strategy={self.settings.spec}: an instance of {family.name} keeps its state (counters, fault "
                "table, random draws) from one case to the next; pass its class, or a factory the suite can call "
                "for every case"
            )

    @property
    def harness(self) -> Harness | None:
        """The process serving the strategy, for an ``exec:`` spec (or ``--rmq-isolate``)."""
        source = self.source
        return None if source is None else source.harness

    @property
    def hello(self) -> Hello | None:
        harness = self.harness
        return None if harness is None else harness.hello()

    @property
    def families(self) -> tuple[str, ...]:
        """The Java families checked: a harness's, in its hello's order, known ones only."""
        if self._only_family is not None:
            return (self._only_family,)
        hello = self.hello
        if hello is not None:
            known = set(kinds.names())
            return tuple(name for name in hello.strategies if name in known)
        record = kinds.family_of(self.name)
        return () if record is None else (record.name,)

    def for_family(self, family: str) -> Subject:
        """This subject held to one of its families (a harness serves several at once)."""
        self.load()
        view = copy.copy(self)
        view._only_family = family
        if self.harness is not None:
            view._name = family  # the harness itself is named in the header
            record = kinds.get(family)
            view._properties = (record.properties(self.settings.version), f"Java's {family} at {self.settings.version}")
        return view

    def child_env(self) -> dict[str, str]:
        """The environment of a Python process that must import the strategy as this one does:
        the search-path folders that resolved its module go on ``PYTHONPATH``."""
        env = dict(os.environ)
        found = [folder for folder in self.settings.search_path if folder in sys.path]
        if found:
            env["PYTHONPATH"] = os.pathsep.join([*found, *filter(None, [env.get("PYTHONPATH")])])
        return env

    @property
    def family(self) -> str | None:
        record = self.family_record
        return None if record is None else record.name

    @property
    def is_reference(self) -> bool:
        source = self.source
        return source is not None and source.reference

    def _declared_properties(self) -> tuple[frozenset[str], str]:
        source = self._source
        assert source is not None
        probed = source.probed
        said = self._declare(probed, self._name) if probed is not None else None
        if said is not None:
            return self.kind.parse_properties(said, "pytest_rmq_properties"), "declared by the pytest_rmq_properties hook"
        said = getattr(probed, "rmq_properties", None) if probed is not None and not source.reference else None
        if said is not None:
            where = f"{type(probed).__name__}.rmq_properties"
            return self.kind.parse_properties(said, where), f"declared in {where}"
        family = self.family_record
        if family is not None:
            return family.properties(self.settings.version), f"Java's {family.name} at {self.settings.version}"
        if self.harness is not None:
            return frozenset(), "per family (a harness serving several)"
        return self.kind.default_properties, "the defaults for a strategy with no Java twin"

    @property
    def properties(self) -> frozenset[str]:
        """The invariants the strategy is held to (see :mod:`~pytest_rmq_conformance.kinds.allocation.properties`)."""
        self.load()
        return self._properties[0]

    @property
    def properties_origin(self) -> str:
        self.load()
        return self._properties[1]

    # -- configurations --------------------------------------------------

    def fixed_params(self) -> dict[str, Any] | None:
        """For an instance of a Java family, the golden-vocabulary parameters of its configuration
        (every case and group must use them); ``None`` when they are free."""
        source, family = self.source, self.family_record
        if source is None or source.instance is None or family is None:
            return None
        return family.params_of(source.instance)

    def accepts(self, strategy: str, params: Mapping[str, Any]) -> bool:
        """Whether a case of ``strategy`` configured by ``params`` can be asked of the strategy:
        always for a class or factory, only its own configuration for an instance."""
        source, family = self.source, self.family_record
        if source is None or source.instance is None:
            return True
        if family is None or family.name != strategy:
            return False
        fixed = self.fixed_params()
        return fixed is not None and family.normalized(params, self.settings.version) == fixed

    @property
    def generation_problem(self) -> str | None:
        """Why groups cannot be generated for this strategy, if they cannot."""
        source, family = self.source, self.family_record
        if source is not None and source.instance is not None and family is not None and self.fixed_params() is None:
            return (
                f"an instance of {family.name} carries a configuration that generated groups cannot "
                "describe; pass its class or a factory to run the generated checks"
            )
        return None

    @property
    def fresh_instances(self) -> bool:
        """Whether every build makes a new object (not so for an instance spec)."""
        source = self.source
        return source is not None and source.instance is None

    # -- building ----------------------------------------------------------

    def build(self, strategy: str | None, params: Mapping[str, Any], case: Any = None, charset: str | None = None) -> Any:
        """A strategy configured by golden ``params`` of family ``strategy`` (``None``: the
        strategy's own, as probed); ``case`` is handed to the build hook."""
        source = self.source
        assert source is not None
        family = strategy if strategy is not None or source.harness is None else self.family
        return source.build(family, params, case, self.settings.charset if charset is None else charset)

    def build_for(self, scenario: Any) -> Any:
        """A strategy configured for ``scenario`` (fresh, except for an instance spec)."""
        from pytest_rmq_conformance.engine.running.nondeterminism import note_built

        built = self.build(scenario.strategy, scenario.params, scenario)
        note_built(built, scenario.strategy, scenario.params)
        return built

    def reference_for(self, scenario: Any) -> Any:
        """The reference port of ``scenario``'s family (else the strategy's own) at the
        selected release and charset."""
        family = scenario.strategy or self.family
        assert family is not None
        return kinds.reference_strategy(family, {**scenario.params, "charset": self.settings.charset}, self.settings.version)

    def reference_view(self) -> Subject | None:
        """The reference port of the strategy's family at the same release and charset, as a
        subject of its own (the strategy itself when it is the reference port); ``None`` without
        a Java twin."""
        if self.is_reference:
            return self
        family = self.family
        if family is None:
            return None
        found = self._references.get(family)
        if found is None:
            settings = replace(self.settings, spec=family, origin="the reference port", isolate=False, search_path=())
            found = self._references[family] = Subject(settings, hangs=self.hangs)
        return found

    def portable_spec(self) -> str | None:
        """A spec another process can resolve without pytest's hooks, if there is one."""
        source = self.source
        return None if source is None else source.portable_spec()
