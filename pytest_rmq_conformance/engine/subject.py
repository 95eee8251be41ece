"""The strategy under test: a spec resolved once, named, built per golden case or per group.

Data flows one way: :class:`Settings` and a spec become a :class:`Subject`;
it resolves the spec (:mod:`~pytest_rmq_conformance.engine.specs`), probes
the strategy's ``name`` to find its family, learns the properties it claims,
and builds a strategy for any case or generated group. Its
:class:`~pytest_rmq_conformance.engine.hangs.HangBudget` stops calling a
strategy that keeps overrunning the per-call limit. Hooks come in as plain
callables; nothing here imports pytest.
"""

from __future__ import annotations

import copy
import inspect
import os
import shlex
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.hangs import HangBudget
from pytest_rmq_conformance.engine.nondeterminism import note_built
from pytest_rmq_conformance.engine.properties import DEFAULT_PROPERTIES, claimed_by, parse_properties
from pytest_rmq_conformance.engine.remote import Harness, HarnessFault, Hello, RemoteStrategy
from pytest_rmq_conformance.engine.specs import EXEC, SpecError, StrategySource, probe_keywords, resolve_spec
from pytest_rmq_conformance.engine.timeouts import CallTimeout, StrategyExit, call_with_timeout
from pytest_rmq_conformance.engine.tracebacks import user_location
from pytest_rmq_conformance.strategies import DEFAULT_RELEASE, families, parse_release, reference_strategy
from pytest_rmq_conformance.strategies.families import Family

__all__ = ["Settings", "Subject", "DEFAULT_STRATEGY", "PROFILES", "profile_examples", "check_seconds"]

#: RocketMQ's own default strategy, used when the suite runs with no strategy chosen
DEFAULT_STRATEGY = "AVG"

#: how hard the generated checks look: examples per check; for the subprocess checks (``process``,
#: ``time``), batches of groups (hypothesis draws the simplest batch first, so one batch alone
#: would test only trivial groups)
PROFILES = {
    "quick": {"examples": 40, "batches": 3, "batch": 8},
    "thorough": {"examples": 1000, "batches": 12, "batch": 40},
}
#: seconds a generated check may spend drawing examples before it settles for those it tried
#: (``--rmq-check-time``), per profile
CHECK_TIME = {"quick": 60.0, "thorough": 900.0}


@dataclass(frozen=True)
class Settings:
    """The choices of one run, with where the strategy and release choices came from."""

    spec: str = DEFAULT_STRATEGY
    origin: str = "default"
    version: str = DEFAULT_RELEASE
    version_origin: str = "default"
    charset: str = "UTF-8"
    strict_order: bool = False
    timeout: float | None = 5.0
    max_hangs: int = 3
    max_restarts: int = 3  # of a harness process, after faults
    isolate: bool = False  # run a Python strategy through the built-in harness, in its own process
    profile: str = "quick"
    seed: int = 0
    examples: int | None = None  # overrides the profile's example count
    check_time: float | None = None  # overrides the profile's time for drawing examples, per check
    shrink_time: float = 5.0  # seconds a check may spend shrinking a failure
    search_path: tuple[str, ...] = ()  # folders a module:attribute spec's module is looked for in, if not installed


def profile_examples(settings: Settings) -> int:
    """Examples per generated check: ``--rmq-examples``, else the profile's."""
    return settings.examples if settings.examples is not None else PROFILES[settings.profile]["examples"]


def check_seconds(settings: Settings) -> float:
    """Seconds a generated check may spend drawing examples: ``--rmq-check-time``, else the profile's."""
    return settings.check_time if settings.check_time is not None else CHECK_TIME[settings.profile]


#: ``build_hook(factory, keywords, case)``: a strategy, or ``None`` to call ``factory(**keywords)``
BuildHook = Callable[[Any, dict[str, Any], Any], Any]


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
        declare: Callable[[Any, str | None], Any] = lambda strategy, name: None,
        custom_build: Callable[[], bool] = lambda: False,
        hangs: HangBudget | None = None,
    ):
        self.settings = settings
        self._named, self._build_hook, self._declare, self.custom_build = named, build_hook, declare, custom_build
        self.hangs = hangs if hangs is not None else HangBudget(settings.max_hangs)
        self._loaded = False
        self._source: StrategySource | None = None
        self._name: str | None = None
        self._load_error: str | None = None
        self._probe_keywords: dict[str, Any] = {}
        self._probe_strategy: Any = None
        self._properties: tuple[frozenset[str], str] = (frozenset(), "")
        self._harness: Harness | None = None
        self._only_family: str | None = None  # a view of a harness's families: this one

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
            self._source = resolve_spec(self.settings.spec, self._named(), [Path(p) for p in self.settings.search_path])
            if self.settings.isolate and self._source.kind != "harness":
                self._source = self._isolated(self._source)
            self._name = self._probe_name()
            self._properties = self._declared_properties()
        except (SpecError, ValueError) as exc:
            self._load_error = str(exc)
        except HarnessFault as exc:
            self._load_error = f"--rmq-strategy={self.settings.spec}: the harness never said hello: {exc}"
        except (Exception, StrategyExit) as exc:  # whatever user code raised while being looked at
            self._load_error = f"--rmq-strategy={self.settings.spec}: {type(exc).__name__}: {exc}"

    @property
    def source(self) -> StrategySource | None:
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
            return families.get(self._only_family)
        if self.harness is not None:
            served = self.families
            return families.get(served[0]) if len(served) == 1 else None
        return families.family_of(self.name)

    @property
    def harness(self) -> Harness | None:
        """The process serving the strategy, for an ``exec:`` spec (or ``--rmq-isolate``)."""
        self.load()
        return self._harness

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
            known = set(families.names())
            return tuple(name for name in hello.strategies if name in known)
        record = families.family_of(self.name)
        return () if record is None else (record.name,)

    def for_family(self, family: str) -> Subject:
        """This subject held to one of its families (a harness serves several at once)."""
        self.load()
        view = copy.copy(self)
        view._only_family = family
        if self._harness is not None:
            view._name = family  # the harness itself is named in the header
            record = families.get(family)
            view._properties = (record.properties(self.settings.version), f"Java's {family} at {self.settings.version}")
        return view

    def _isolated(self, source: StrategySource) -> StrategySource:
        """``--rmq-isolate``: the same spec, served by the built-in harness in a process of its own."""
        spec = self.portable_spec_of(source)
        if spec is None:
            raise SpecError(
                f"--rmq-strategy={self.settings.spec} --rmq-isolate: another process cannot import this strategy; "
                "name it as module:attribute or an entry point"
            )
        command = shlex.join([sys.executable, "-m", "pytest_rmq_conformance.harness", spec])
        return StrategySource(source.spec, "harness", command, f"{source.where}, isolated")

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
        return source is not None and source.kind == "reference"

    def _call_factory(self, keywords: dict[str, Any], case: Any) -> Any:
        source = self._source
        assert source is not None and source.kind in ("class", "factory")
        built = self._build_hook(source.target, keywords, case)
        return source.target(**keywords) if built is None else built

    def _probe_name(self) -> str:
        source = self._source
        assert source is not None
        settings = self.settings
        if source.kind == "harness":
            self._harness = Harness(
                source.target,
                timeout=settings.timeout,
                max_restarts=settings.max_restarts,
                cwd=os.getcwd(),
                env=self.child_env(),
            )
            return self._harness.hello().name
        if source.kind == "reference":
            family = families.get(source.target)
            self._probe_strategy = reference_strategy(family.name, family.probe, settings.version)
            return self._probe_strategy.name
        if source.kind == "instance":
            strategy = source.target
        else:
            strategy, failures = None, []
            for keywords in probe_keywords(settings.version, settings.charset):
                try:
                    strategy = call_with_timeout(partial(self._call_factory, keywords, None), settings.timeout)
                    self._probe_keywords = keywords
                    break
                except (Exception, CallTimeout, StrategyExit) as exc:
                    where = user_location(exc)
                    failures.append(f"{type(exc).__name__}: {exc}" + (f" (at {where})" if where else ""))
            if strategy is None:
                raise SpecError(
                    f"--rmq-strategy={settings.spec}: cannot build a strategy from {source.describe()}; "
                    f"tried no keywords, then each keyword set of the contract; the first attempt said {failures[0]}"
                )
        try:
            name = getattr(strategy, "name", None)
        except Exception as exc:
            raise SpecError(
                f"--rmq-strategy={settings.spec}: reading the strategy's name raised {type(exc).__name__}: {exc}; "
                "`name` must be a str attribute, Java's getName() (AVG, CONSISTENT_HASH, ...)"
            ) from None
        if not isinstance(name, str) or not name:
            raise SpecError(
                f"--rmq-strategy={settings.spec}: the strategy has no name (got {name!r}); "
                "give it a str attribute `name`, Java's getName() (AVG, CONSISTENT_HASH, ...)"
            )
        allocate = getattr(strategy, "allocate", None)
        if not callable(allocate):
            raise SpecError(f"--rmq-strategy={settings.spec}: the strategy {name} has no allocate() method")
        _check_signature(settings.spec, name, allocate)
        self._probe_strategy = strategy
        return name

    def _declared_properties(self) -> tuple[frozenset[str], str]:
        if self._harness is not None:
            family = self.family_record
            if family is None:
                return frozenset(), "per family (a harness serving several)"
            return family.properties(self.settings.version), f"Java's {family.name} at {self.settings.version}"
        strategy, name = self._probe_strategy, self._name
        claimed = self._declare(strategy, name)
        if claimed is not None:
            return parse_properties(claimed, "pytest_rmq_properties"), "declared by the pytest_rmq_properties hook"
        claimed = claimed_by(strategy)
        if claimed is not None:
            where = f"{type(strategy).__name__}.rmq_properties"
            return parse_properties(claimed, where), f"declared in {where}"
        family = self.family_record
        if family is not None:
            return family.properties(self.settings.version), f"Java's {family.name} at {self.settings.version}"
        return DEFAULT_PROPERTIES, "the defaults for a strategy with no Java twin"

    @property
    def properties(self) -> frozenset[str]:
        """The invariants the strategy is held to (see :mod:`~pytest_rmq_conformance.engine.properties`)."""
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
        if source is None or source.kind != "instance" or family is None:
            return None
        return family.params_of(source.target)

    def accepts(self, strategy: str, params: Mapping[str, Any]) -> bool:
        """Whether a case of ``strategy`` configured by ``params`` can be asked of the strategy:
        always for a class or factory, only its own configuration for an instance."""
        source, family = self.source, self.family_record
        if source is None or source.kind != "instance":
            return True
        if family is None or family.name != strategy:
            return False
        fixed = self.fixed_params()
        return fixed is not None and family.normalized(params, self.settings.version) == fixed

    @property
    def generation_problem(self) -> str | None:
        """Why groups cannot be generated for this strategy, if they cannot."""
        source, family = self.source, self.family_record
        if source is not None and source.kind == "instance" and family is not None and self.fixed_params() is None:
            return (
                f"an instance of {family.name} carries a configuration that generated groups cannot "
                "describe; pass its class or a factory to run the generated checks"
            )
        return None

    @property
    def fresh_instances(self) -> bool:
        """Whether every build makes a new object (not so for an instance spec)."""
        source = self.source
        return source is not None and source.kind != "instance"

    # -- building ----------------------------------------------------------

    def build(self, strategy: str | None, params: Mapping[str, Any], case: Any = None, charset: str | None = None) -> Any:
        """A strategy configured by golden ``params`` of family ``strategy`` (``None``: the
        strategy's own, as probed); ``case`` is handed to the build hook."""
        source = self.source
        assert source is not None
        settings = self.settings
        charset = settings.charset if charset is None else charset
        if source.kind == "reference":
            return reference_strategy(strategy or source.target, {**params, "charset": charset}, settings.version)
        if self._harness is not None:
            family = strategy or self.family
            assert family is not None
            return RemoteStrategy(self._harness, family, params, settings.version)
        if source.kind == "instance":
            return source.target
        if strategy is None:
            keywords = dict(self._probe_keywords)
        else:
            keywords = families.get(strategy).keywords(params, settings.version, charset)
        return self._call_factory(keywords, case)

    def build_for(self, scenario: Any) -> Any:
        """A strategy configured for ``scenario`` (fresh, except for an instance spec)."""
        built = self.build(scenario.strategy, scenario.params, scenario)
        note_built(built, scenario.strategy, scenario.params)
        return built

    def reference_for(self, scenario: Any) -> Any:
        """The reference port of ``scenario``'s family (else the strategy's own) at the
        selected release and charset."""
        family = scenario.strategy or self.family
        assert family is not None
        return reference_strategy(family, {**scenario.params, "charset": self.settings.charset}, self.settings.version)

    def portable_spec(self) -> str | None:
        """A spec another process can resolve without pytest's hooks, if there is one."""
        source = self.source
        if source is not None and source.kind == "harness":
            return f"{EXEC}{source.target}"
        return None if source is None else self.portable_spec_of(source)

    @staticmethod
    def portable_spec_of(source: StrategySource) -> str | None:
        if source.kind == "reference" or source.where == source.spec or source.where.startswith("entry point"):
            return source.spec
        if source.kind == "instance":  # an object a hook made: nothing to import it by
            return None
        module, qualname = getattr(source.target, "__module__", None), getattr(source.target, "__qualname__", None)
        if not module or not qualname or "<" in qualname:
            return None
        spec = f"{module}:{qualname}"
        try:
            found = resolve_spec(spec)
        except SpecError:
            return None
        return spec if found.target is source.target else None


def _check_signature(spec: str, name: str, allocate: Any) -> None:
    """Refuse, once at load, an ``allocate`` that cannot take the four arguments every call passes."""
    try:
        signature = inspect.signature(allocate)
    except (TypeError, ValueError):  # a builtin or C callable without a readable signature: the calls will tell
        return
    try:
        signature.bind("consumer_group", "current_cid", [], [])
    except TypeError as exc:
        raise SpecError(
            f"--rmq-strategy={spec}: {name}.allocate{signature} cannot be called as "
            f"allocate(consumer_group, current_cid, mq_all, cid_all): {exc}"
        ) from None
