"""Internal: the records the engine and the kinds of strategy exchange, in a module below the rest of the engine.

A kind registers a :class:`Kind` record and its :class:`Family` records with the registry
(:mod:`pytest_rmq_conformance.engine.kinds`, which re-exports them); the engine hands a kind a
golden :class:`Run`, the subject under test (seen as a :class:`SubjectLike`) or a harness (a
:class:`HarnessLike`), and takes back a :class:`CaseOutcome` or a :class:`GeneratedCheck`.
Nothing here imports the rest of the engine but its settings, hang budget and divergence
classes, so every engine module may import this one without a circle.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from pytest_rmq_conformance.engine.divergence import FAULT

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.running.hangs import HangBudget
    from pytest_rmq_conformance.engine.settings import Settings

__all__ = [
    "Params",
    "Run",
    "CaseOutcome",
    "reason_of",
    "HarnessLike",
    "SubjectLike",
    "GeneratedCheck",
    "Kind",
    "Family",
]

Params = Mapping[str, Any]


@dataclass(frozen=True)
class Run:
    """One run of the Java harness: a release under one JVM default charset (for a kind of a
    client outside RocketMQ's own, the client's Java classes, filed under a release)."""

    id: str
    rocketmq: str
    #: the git commit compiled for the run, or None where Maven Central's jars answered (``maven``)
    commit: str | None
    jdk: str
    file_encoding: str
    default_charset: str
    #: the client whose classes answered, where it is not RocketMQ's own (``rocketmq-client-java 5.2.0``)
    client: str | None = None
    #: the Maven coordinates that answered (``rmq-conformance golden record``), and each jar's SHA-256
    maven: str | None = None
    jars: tuple[tuple[str, str], ...] = ()
    #: the release's methods the harness called, and how it set the clock (the producer kind)
    calls: tuple[str, ...] = ()
    clock: str | None = None

    @classmethod
    def from_json(cls, run_id: str, data: Mapping[str, Any]) -> Run:
        maven = data.get("maven") or {}
        return cls(
            run_id,
            data["rocketmq"],
            data.get("commit"),
            data["jdk"],
            data["fileEncoding"],
            data["defaultCharset"],
            data.get("client"),
            maven.get("coordinates"),
            tuple(sorted(maven.get("jars", {}).items())),
            tuple(data.get("calls", ())),
            data.get("clock"),
        )

    def answers_at(self, version: str) -> bool:
        """Whether the run holds a case at RocketMQ ``version``: its own release, or, for a client
        versioned apart from RocketMQ's releases (the 5.x gRPC client), every release of the major
        line it is filed under.

        >>> run = Run("5.3.3+java-5.2.0", "5.3.3", None, "jdk", "UTF-8", "UTF-8", "rocketmq-client-java 5.2.0")
        >>> run.answers_at("5.5.0"), run.answers_at("4.9.8")
        (True, False)
        """
        if self.client is not None:
            return version.partition(".")[0] == self.rocketmq.partition(".")[0]
        return version == self.rocketmq

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rocketmq": self.rocketmq}
        if self.commit is not None:
            out["commit"] = self.commit
        out |= {"jdk": self.jdk, "fileEncoding": self.file_encoding, "defaultCharset": self.default_charset}
        if self.client is not None:
            out["client"] = self.client
        if self.calls:
            out["calls"] = list(self.calls)
        if self.clock is not None:
            out["clock"] = self.clock
        if self.maven is not None:
            out["maven"] = {"coordinates": self.maven, "jars": dict(self.jars)}
        return out


#: what differs from one failure of a cause to the next: quoted text, a queue as ``broker/queueId``
#: (a producer's and a balancer's way of naming one), a number
_VOLATILE = re.compile(r"'[^']*'|\"[^\"]*\"|[^\s,;:'\"/()\[\]]+/-?\d+|\d+")


def reason_of(problems: Sequence[Any], error: str | None) -> str:
    """A short key shared by failures with the same cause: the first ``problem`` of ``problems``
    (or ``error``) with numbers, queues and quoted text blanked."""
    text = error if error is not None else (problems[0].problem if problems else "failed")
    return _VOLATILE.sub("…", text)


@dataclass(frozen=True)
class CaseOutcome:
    """How the strategy did on one golden case.

    ``mismatches`` are the kind's divergences from Java, in the order found, each with a
    one-line ``problem``; ``impact`` is how bad the worst of them is
    (:mod:`~pytest_rmq_conformance.engine.divergence`), set by the kind; ``error`` says why the
    case could not be asked at all.
    """

    case: Any
    run: str
    strategy_name: str | None
    mismatches: tuple[Any, ...] = ()
    error: str | None = None
    skipped: str | None = None  # not implemented by a harness, or not run once it was given up
    not_run: bool = False  # skipped because the harness was given up, or did not make some of its calls
    declined: bool = False  # not run because the harness answered calls notRun: a limit it declares
    waived: bool = False  # skipped because the strategy declares it is not held to this case (no latency, not Java's random)
    impact: str | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and not self.mismatches and self.skipped is None

    @property
    def reason(self) -> str:
        return reason_of(self.mismatches, self.error)

    @property
    def divergence_class(self) -> str | None:
        """How bad this outcome is: ``None`` when it passed or did not run, :data:`FAULT` when
        the case could not be asked, else the kind's ``impact``."""
        if self.skipped is not None or self.passed:
            return None
        return FAULT if self.error is not None else self.impact


class HarnessLike(Protocol):
    """What a kind asks of a harness (:class:`~pytest_rmq_conformance.engine.protocol.client.Harness`):
    requests, and giving the process up over a wrong answer."""

    command: str

    def request(self, fields: Mapping[str, Any], calls: int = 1) -> dict:
        """Send the request ``fields`` and return the answer to it."""
        ...

    def fault_in_flight(self, what: str) -> NoReturn:
        """Give the process up over the answer just read (``what`` is wrong with it)."""
        ...


class SubjectLike(Protocol):
    """What a kind reads of the strategy under test
    (:class:`~pytest_rmq_conformance.engine.loading.subject.Subject`, which a kind's own modules
    may import and use whole)."""

    settings: Settings
    hangs: HangBudget

    @property
    def name(self) -> str | None:
        """The strategy's ``name`` (``None`` if the spec did not load)."""
        ...

    @property
    def family(self) -> str | None:
        """The Java family it is held to, or ``None`` without a Java twin."""
        ...

    @property
    def harness(self) -> HarnessLike | None:
        """The process serving the strategy, for an ``exec:`` spec (or ``--rmq-isolate``)."""
        ...

    @property
    def is_reference(self) -> bool:
        """Whether the strategy is the reference port itself."""
        ...

    def build(
        self, strategy: str | None, params: Mapping[str, Any], case: Any = None, charset: str | None = None
    ) -> Any:
        """A strategy configured by golden ``params`` of family ``strategy`` (``None``: its own)."""
        ...


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
    says of a strategy it serves, as a harness of another language declares it),
    ``hello_problem(declared)`` (what is wrong with the fields a harness's hello declares beyond
    the protocol's own, as one line, or ``None``; the kind reads them from the hello's
    ``declared``)."""

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

    def replay(self, subject: SubjectLike, case: Any, run: Run) -> CaseOutcome:
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

    def generated(self, subject: SubjectLike) -> GeneratedCheck | str:
        """The differential on generated inputs against the reference port, or why it cannot run."""
        ...

    def remote(self, harness: HarnessLike, family: str, params: Params, release: str) -> Any:
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
