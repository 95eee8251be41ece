"""Producer queue selection: every send picks one queue of the topic's publish list, through
the fault strategy (``MQFaultStrategy``) or a ``MessageQueueSelector``.

:data:`KIND` is its record (:class:`~pytest_rmq_conformance.engine.kinds.Kind`), registered with
its three families when this package is imported: ``FAULT_STRATEGY`` (a trace of selects,
fault updates, clock moves and route refreshes), ``SELECTOR_HASH`` and ``SELECTOR_RANDOM``. The
Python contract a strategy meets is :mod:`pytest_rmq_conformance.ports.producer.contract`; the
reference ports are :mod:`pytest_rmq_conformance.ports.producer`. Golden cases are :mod:`.cases`,
their replay :mod:`.trace` and :mod:`.golden`, how a failure reads :mod:`.failures`.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.loading.specs import SpecError

__all__ = ["KIND", "ProducerSelection"]

#: what each family's strategy object must have
_METHODS = {
    "FAULT_STRATEGY": ("publish_info", "select_one_message_queue", "update_fault_item", "fault_items"),
    "SELECTOR_HASH": ("select",),
    "SELECTOR_RANDOM": ("select",),
}


class ProducerSelection:
    """The :class:`~pytest_rmq_conformance.engine.kinds.Kind` record of producer queue selection."""

    name = "producer"
    method = "select"
    #: a fault strategy is an instance of this kind too
    other_methods = ("select_one_message_queue",)
    case_schema: str | Path | None = "golden-producer-case"
    schema_dirs: tuple[Path, ...] = ()
    #: parts of a shipped golden line kept as text until used: a trace's answers per group of
    #: releases (a run replays one group; parsed at load, all groups would stay alive, some
    #: 90,000 objects that every full garbage collection walks)
    lazy_keys = (("expect", "*", "steps"),)
    #: how answers are compared, for the report header (``--rmq-strict-order`` is allocation's)
    compared = "step by step, up to the first divergence (a selector's calls each, the case classed by the worst)"

    @property
    def golden_dirs(self) -> tuple[Path, ...]:
        from pytest_rmq_conformance.engine.resources import golden_dir

        return (golden_dir() / "producer",)

    @property
    def default_properties(self) -> frozenset[str]:
        from pytest_rmq_conformance.kinds.producer.properties import DEFAULT_PROPERTIES

        return DEFAULT_PROPERTIES

    def parse_properties(self, claimed: Any, where: str) -> frozenset[str]:
        from pytest_rmq_conformance.kinds.producer.properties import parse_properties

        return parse_properties(claimed, where)

    def parse_case(self, data: Mapping[str, Any], where: str, runs: Mapping[str, Any]) -> Any:
        from pytest_rmq_conformance.kinds.producer.cases import parse_case

        return parse_case(data, where, runs)

    def check_strategy(self, spec: str, name: str, strategy: Any) -> None:
        """A strategy of a producer family must have that family's methods, and declare its
        latency fault tolerance, if it does, as a bool."""
        from pytest_rmq_conformance.kinds.producer.declared import LATENCY_ATTRIBUTE

        missing = [method for method in _METHODS.get(name, ()) if not callable(getattr(strategy, method, None))]
        if missing:
            raise SpecError(f"--rmq-strategy={spec}: the {name} strategy has no {', '.join(m + '()' for m in missing)}")
        declared = getattr(strategy, LATENCY_ATTRIBUTE, True)
        if type(declared) is not bool:
            raise SpecError(f"--rmq-strategy={spec}: {LATENCY_ATTRIBUTE} is {declared!r}, not True or False")

    def hello_fields(self, strategy: Any) -> dict[str, Any]:
        """A fault strategy without latency fault tolerance says so in the built-in harness's hello."""
        from pytest_rmq_conformance.kinds.producer.declared import HELLO_FIELD, LATENCY_ATTRIBUTE

        return {HELLO_FIELD: False} if getattr(strategy, LATENCY_ATTRIBUTE, True) is False else {}

    def hello_problem(self, declared: Mapping[str, Any]) -> str | None:
        """A harness's ``latencyFaultTolerance`` must be true or false."""
        from pytest_rmq_conformance.kinds.producer.declared import HELLO_FIELD

        if not isinstance(declared.get(HELLO_FIELD, True), bool):
            return f"gave a {HELLO_FIELD} that is not true or false"
        return None

    def replay(self, subject: Any, case: Any, run: Any) -> Any:
        from pytest_rmq_conformance.kinds.producer.golden import replay

        return replay(subject, case, run)

    def report(self, outcome: Any, rerun: str) -> str:
        from pytest_rmq_conformance.kinds.producer.failures import format_outcome

        return format_outcome(outcome, rerun)

    def divergence(self, outcome: Any) -> str:
        return outcome.error if outcome.error is not None else outcome.mismatches[0].problem

    def describe_example(self, example: Any) -> str:
        return repr(example)

    def generated(self, subject: Any) -> kinds.GeneratedCheck | str:
        from pytest_rmq_conformance.kinds.producer.generated import reference_check

        return reference_check(subject)

    def remote(self, harness: Any, family: str, params: Mapping[str, Any], release: str) -> Any:
        raise SpecError(f"{family}: a harness is asked a whole golden case per request, never one call at a time")

    def serve(self, request: Mapping[str, Any], build: Callable[[str, Mapping[str, Any]], Any]) -> dict[str, Any] | None:
        from pytest_rmq_conformance.kinds.producer.protocol import serve

        return serve(request, build)

    def import_golden(self, source: Path, out: Path) -> str | None:
        """The Java producer vectors (``<release>/<FAMILY>.jsonl`` and their ``vector.schema.json``)
        become ``out/producer/``."""
        from pytest_rmq_conformance.kinds.producer.golden_import import import_vectors, is_source

        if not is_source(source):
            return None
        return import_vectors(source, out / "producer").summary() + f"\nwritten to {out / 'producer'}"


KIND = kinds.register_kind(ProducerSelection())

from pytest_rmq_conformance.kinds.producer import families  # noqa: E402,F401 (its records need the kind registered)
