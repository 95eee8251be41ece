"""The strategy under test against the golden vectors: load it once, replay case by case.

Data flows one way: settings and a spec become a :class:`Conformance`; it
resolves the spec (:mod:`~pytest_rmq_conformance.loading`), picks the golden
cases of the strategy's family, and turns each case into a
:class:`CaseOutcome`. Nothing here imports pytest; the plugin feeds it the
hooks as plain callables.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from pytest_rmq_conformance.golden import GoldenCase, GoldenDataError, Run, load_golden
from pytest_rmq_conformance.loading import (
    PROBE_PARAMS,
    SpecError,
    StrategySource,
    family_of,
    keywords_for,
    resolve_spec,
)
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.properties import DEFAULT_PROPERTIES, claimed_by, java_properties, parse_properties
from pytest_rmq_conformance.replay import Mismatch, replay_case
from pytest_rmq_conformance.scenarios import Scenario
from pytest_rmq_conformance.reporting import format_outcome, reason_of
from pytest_rmq_conformance.strategies import DEFAULT_RELEASE, parse_release, reference_strategy
from pytest_rmq_conformance.timeouts import CallTimeout, call_with_timeout

__all__ = ["Settings", "CaseOutcome", "Conformance", "DEFAULT_STRATEGY"]

#: RocketMQ's own default strategy, used when the suite runs with no strategy chosen
DEFAULT_STRATEGY = "AVG"


@dataclass(frozen=True)
class Settings:
    """The choices of one run, with where the strategy choice came from."""

    spec: str = DEFAULT_STRATEGY
    origin: str = "default"
    version: str = DEFAULT_RELEASE
    version_origin: str = "default"
    charset: str = "UTF-8"
    strict_order: bool = False
    timeout: Optional[float] = 5.0
    max_hangs: int = 3
    profile: str = "quick"
    seed: int = 0
    examples: Optional[int] = None  # overrides the profile's example count

    def _words(self) -> List[str]:
        words = ["pytest", f"--rmq-strategy={self.spec}", f"--rmq-reference-version={self.version}"]
        if self.charset != "UTF-8":
            words.append(f"--rmq-charset={self.charset}")
        if self.strict_order:
            words.append("--rmq-strict-order")
        return words

    def rerun(self, case_id: str) -> str:
        """One command line that reruns just ``case_id`` with these settings."""
        return " ".join(shlex.quote(word) for word in [*self._words(), f"--rmq-case={case_id}"])

    def replay(self, test: str) -> str:
        """One command line that replays the generated ``test`` (a path::name node) with this seed."""
        words = [*self._words(), f"--rmq-profile={self.profile}", f"--rmq-seed={self.seed}"]
        if self.examples is not None:
            words.append(f"--rmq-examples={self.examples}")
        return " ".join(shlex.quote(word) for word in [*words[:1], test, *words[1:]])


@dataclass(frozen=True)
class CaseOutcome:
    """How the strategy did on one golden case."""

    case: GoldenCase
    run: str
    strategy_name: Optional[str]
    mismatches: Tuple[Mismatch, ...] = ()
    error: Optional[str] = None

    @property
    def passed(self) -> bool:
        return self.error is None and not self.mismatches

    @property
    def reason(self) -> str:
        return reason_of(self.mismatches, self.error)


Builder = Callable[[Any, Dict[str, Any], Optional[GoldenCase]], Any]


def _as_set(items):
    return None if items is None else set(items)


@dataclass
class Conformance:
    """One strategy under test at one release.

    ``named`` returns the strategies hooks provide; ``build_hook`` may build a
    strategy for a case (``None`` to leave it to the factory); ``extra_dirs``
    returns more golden directories; ``observe`` receives every outcome;
    ``declare`` may return the properties a strategy claims (``None`` to
    leave it to its ``rmq_properties`` attribute or the defaults).
    """

    settings: Settings
    named: Callable[[], Mapping[str, Any]] = dict
    build_hook: Builder = lambda factory, keywords, case: None
    extra_dirs: Callable[[], Sequence[Path]] = tuple
    observe: Callable[[CaseOutcome], None] = lambda outcome: None
    declare: Callable[[Any, Optional[str]], Any] = lambda strategy, name: None
    custom_build: Callable[[], bool] = lambda: False
    _loaded: bool = field(default=False, init=False)
    _source: Optional[StrategySource] = field(default=None, init=False)
    _name: Optional[str] = field(default=None, init=False)
    _load_error: Optional[str] = field(default=None, init=False)
    _cases: Optional[List[GoldenCase]] = field(default=None, init=False)
    _runs: Dict[str, Run] = field(default_factory=dict, init=False)
    _golden_note: str = field(default="", init=False)
    _probe_keywords: Dict[str, Any] = field(default_factory=dict, init=False)
    _probe_strategy: Any = field(default=None, init=False)
    _properties: Tuple[frozenset, str] = field(default=(frozenset(), ""), init=False)
    hangs: int = field(default=0, init=False)

    # -- loading -------------------------------------------------------

    def load(self) -> None:
        """Resolve the spec and learn the strategy's ``name`` (once; errors are kept, not raised)."""
        if self._loaded:
            return
        self._loaded = True
        try:
            parse_release(self.settings.version)
            self._source = resolve_spec(self.settings.spec, self.named())
            self._name = self._probe_name()
            self._properties = self._declared_properties()
        except (SpecError, ValueError) as exc:
            self._load_error = str(exc)
        except Exception as exc:  # whatever user code raised while being looked at
            self._load_error = f"--rmq-strategy={self.settings.spec}: {type(exc).__name__}: {exc}"

    @property
    def source(self) -> Optional[StrategySource]:
        self.load()
        return self._source

    @property
    def load_error(self) -> Optional[str]:
        self.load()
        return self._load_error

    @property
    def name(self) -> Optional[str]:
        self.load()
        return self._name

    @property
    def family(self) -> Optional[str]:
        return family_of(self.name)

    def _build(self, keywords: Dict[str, Any], case: Optional[GoldenCase]) -> Any:
        source = self._source
        assert source is not None and source.kind in ("class", "factory")
        built = self.build_hook(source.target, keywords, case)
        return source.target(**keywords) if built is None else built

    def _probe_name(self) -> str:
        source = self._source
        assert source is not None
        if source.kind == "reference":
            self._probe_strategy = reference_strategy(source.target, dict(PROBE_PARAMS).get(source.target), self.settings.version)
            return self._probe_strategy.name
        if source.kind == "instance":
            strategy = source.target
        else:
            strategy, failures = None, []
            for family, params in PROBE_PARAMS:
                keywords = keywords_for(family, params, self.settings.version, self.settings.charset)
                try:
                    strategy = call_with_timeout(lambda: self._build(keywords, None), self.settings.timeout)
                    self._probe_keywords = keywords
                    break
                except (Exception, CallTimeout) as exc:
                    failures.append(f"{type(exc).__name__}: {exc}")
            if strategy is None:
                raise SpecError(
                    f"--rmq-strategy={self.settings.spec}: cannot build a strategy from {source.describe()}; "
                    f"tried no keywords, then each keyword set of the contract; the first attempt said {failures[0]}"
                )
        name = getattr(strategy, "name", None)
        if not isinstance(name, str) or not name:
            raise SpecError(
                f"--rmq-strategy={self.settings.spec}: the strategy has no name (got {name!r}); "
                "give it a str attribute `name`, Java's getName() (AVG, CONSISTENT_HASH, ...)"
            )
        if not callable(getattr(strategy, "allocate", None)):
            raise SpecError(f"--rmq-strategy={self.settings.spec}: the strategy {name} has no allocate() method")
        self._probe_strategy = strategy
        return name

    def _declared_properties(self) -> Tuple[frozenset, str]:
        strategy, name = self._probe_strategy, self._name
        claimed = self.declare(strategy, name)
        if claimed is not None:
            return parse_properties(claimed, "pytest_rmq_properties"), "declared by the pytest_rmq_properties hook"
        claimed = claimed_by(strategy)
        if claimed is not None:
            where = f"{type(strategy).__name__}.rmq_properties"
            return parse_properties(claimed, where), f"declared in {where}"
        family = family_of(name)
        if family is not None:
            return java_properties(family, self.settings.version), f"Java's {family} at {self.settings.version}"
        return DEFAULT_PROPERTIES, "the defaults for a strategy with no Java twin"

    @property
    def properties(self) -> frozenset:
        """The invariants the strategy is held to (see :mod:`~pytest_rmq_conformance.properties`)."""
        self.load()
        return self._properties[0]

    @property
    def properties_origin(self) -> str:
        self.load()
        return self._properties[1]

    # -- golden cases --------------------------------------------------

    def run_for(self, case: GoldenCase) -> Optional[str]:
        """The run of ``case`` matching the selected release and charset, if it has one."""
        settings = self.settings
        five = parse_release(settings.version) >= (5, 0, 0)
        for run_id in case.runs:
            run = self._runs[run_id]
            if run.rocketmq != settings.version:
                continue
            if run.default_charset == settings.charset or (five and run.default_charset == "UTF-8"):
                return run_id
        return None

    def golden_cases(self) -> List[GoldenCase]:
        """The golden cases that apply to the strategy at the selected release.

        Raises :class:`GoldenDataError` for malformed golden data and
        ``LookupError`` when no golden data covers the selected release.
        """
        if self._cases is not None:
            return self._cases
        family = self.family
        if self.load_error is not None or family is None:
            self._cases = []
            return self._cases
        sets = [load_golden(strategies=[family])]
        sets += [load_golden(directory, strategies=[family]) for directory in self.extra_dirs()]
        for golden in sets:
            self._runs.update(golden.runs)
        releases = sorted({run.rocketmq for run in self._runs.values()}, key=parse_release)
        if self.settings.version not in releases:
            raise LookupError(
                f"no golden vectors for RocketMQ {self.settings.version}: the golden data covers {', '.join(releases)}"
            )
        seen: Dict[str, str] = {}
        cases: List[GoldenCase] = []
        total = 0  # cases with a run at this release, before the instance filter
        for golden in sets:
            for case in golden.cases:
                if case.id in seen:
                    raise GoldenDataError(f"{case.source}: duplicate case id, also at {seen[case.id]}")
                seen[case.id] = case.source
                if self.run_for(case) is not None:
                    total += 1
                    if self._instance_accepts(case):
                        cases.append(case)
        if len(cases) < total:
            self._golden_note = (
                f"{total - len(cases)} of {total} cases need a configuration this instance does not have "
                "(pass a class or factory to run them all)"
            )
        self._cases = cases
        return cases

    def _instance_accepts(self, case: GoldenCase) -> bool:
        source = self._source
        if source is None or source.kind != "instance":
            return True
        strategy, params = source.target, case.params
        if case.strategy == "CONSISTENT_HASH":
            return getattr(strategy, "virtual_node_cnt", 10) == params.get("virtualNodeCnt", 10)
        if case.strategy == "MACHINE_ROOM":
            return hasattr(strategy, "consumeridcs") and _as_set(strategy.consumeridcs) == _as_set(
                params.get("consumeridcs")
            )
        if case.strategy == "CONFIG":
            wanted = params.get("messageQueueList")
            wanted = None if wanted is None else [MessageQueue.from_json(t) for t in wanted]
            configured = getattr(strategy, "message_queue_list", ())
            return configured == wanted or (configured is not None and wanted is not None and list(configured) == wanted)
        return case.strategy != "MACHINE_ROOM_NEARBY"

    @property
    def golden_note(self) -> str:
        return self._golden_note

    def factory_for(self, case: GoldenCase, run_id: str) -> Callable[[], Any]:
        """A callable building a fresh strategy configured for ``case``."""
        source = self.source
        assert source is not None
        settings = self.settings
        if source.kind == "reference":
            params = case.params_for(self._runs[run_id])
            return lambda: reference_strategy(case.strategy, params, settings.version)
        if source.kind == "instance":
            return lambda: source.target
        return lambda: self._build(
            keywords_for(case.strategy, case.params, settings.version, settings.charset), case
        )

    def run_case(self, case: GoldenCase) -> CaseOutcome:
        """Replay ``case`` and report its outcome (also to ``observe``)."""
        run = self.run_for(case)
        assert run is not None, f"{case.id} has no run for {self.settings.version}"
        settings = self.settings
        if self.hangs >= settings.max_hangs:
            outcome = CaseOutcome(
                case,
                run,
                self.name,
                error=f"the strategy already overran the per-call limit {self.hangs} times "
                f"(--rmq-max-hangs={settings.max_hangs}); not called again",
            )
        else:
            mismatches = replay_case(
                self.factory_for(case, run),
                case,
                run,
                strict_order=settings.strict_order,
                timeout=settings.timeout,
            )
            self.hangs += sum(isinstance(m.answer.exception, CallTimeout) for m in mismatches)
            outcome = CaseOutcome(case, run, self.name, tuple(mismatches))
        self.observe(outcome)
        return outcome

    def report(self, outcome: CaseOutcome) -> str:
        """The failure report of ``outcome``, ending with the line that reruns its case."""
        case = outcome.case
        return format_outcome(case, outcome.run, outcome.mismatches, outcome.error, self.settings.rerun(case.id))

    # -- generated scenarios ---------------------------------------------

    def fixed_params(self) -> Optional[Dict[str, Any]]:
        """For an instance of a Java family, the golden-vocabulary parameters of its configuration
        (every generated group must use them); ``None`` when they are free."""
        source = self.source
        if source is None or source.kind != "instance":
            return None
        strategy, family = source.target, self.family
        if family == "CONSISTENT_HASH":
            return {"virtualNodeCnt": getattr(strategy, "virtual_node_cnt", 10)}
        if family == "MACHINE_ROOM":
            idcs = getattr(strategy, "consumeridcs", None)
            return {"consumeridcs": None if idcs is None else sorted(idcs)}
        if family == "CONFIG":
            queues = getattr(strategy, "message_queue_list", None)
            return {"messageQueueList": None if queues is None else [mq.to_json() for mq in queues]}
        return {}

    @property
    def generation_problem(self) -> Optional[str]:
        """Why groups cannot be generated for this strategy, if they cannot."""
        source = self.source
        if source is not None and source.kind == "instance" and self.family == "MACHINE_ROOM_NEARBY":
            return (
                "an instance of MACHINE_ROOM_NEARBY carries a resolver object that generated groups cannot "
                "describe; pass its class or a factory to run the generated checks"
            )
        return None

    def build_for(self, scenario: Scenario) -> Any:
        """A strategy configured for ``scenario`` (fresh, except for an instance spec)."""
        source = self.source
        assert source is not None
        settings = self.settings
        if source.kind == "reference":
            return self.reference_for(scenario)
        if source.kind == "instance":
            return source.target
        if scenario.strategy is None:
            keywords = dict(self._probe_keywords)
        else:
            keywords = keywords_for(scenario.strategy, scenario.params, settings.version, settings.charset)
        return self._build(keywords, scenario)

    def reference_for(self, scenario: Scenario) -> Any:
        """The reference port of ``scenario``'s Java family (else the strategy's own) at the
        selected release and charset."""
        family = scenario.strategy or self.family
        assert family is not None
        params = {**scenario.params, "charset": self.settings.charset}
        return reference_strategy(family, params, self.settings.version)

    @property
    def fresh_instances(self) -> bool:
        source = self.source
        return source is not None and source.kind != "instance"

    def portable_spec(self) -> Optional[str]:
        """A spec another process can resolve without pytest's hooks, if there is one."""
        source = self.source
        if source is None:
            return None
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

    # -- for the report header -------------------------------------------

    def describe(self) -> List[str]:
        settings = self.settings
        lines = [f"strategy {settings.spec} ({settings.origin})"]
        if self.load_error is not None:
            lines.append(f"cannot load the strategy: {self.load_error}")
            return lines
        assert self.source is not None
        lines[0] += f": {self.source.describe()}, name {self.name}"
        order = "lists (strict order)" if settings.strict_order else "sets"
        limit = f"{settings.timeout:g} s per call" if settings.timeout else "no time limit"
        lines.append(
            f"RocketMQ {settings.version} ({settings.version_origin}), charset {settings.charset}, "
            f"answers compared as {order}, {limit}"
        )
        lines.append(f"invariants: {', '.join(sorted(self.properties)) or 'none'} ({self.properties_origin})")
        if self.family is None:
            lines.append(
                f"name {self.name!r} has no Java twin: the golden vectors and the reference do not apply, "
                "only the invariants"
            )
            return lines
        try:
            count = len(self.golden_cases())
        except (GoldenDataError, LookupError) as exc:
            lines.append(f"golden vectors unusable: {exc}")
        else:
            lines.append(f"golden vectors: {count} {self.family} cases" + (f"; {self.golden_note}" if self.golden_note else ""))
        return lines
