"""The 5.x gRPC clients' load balancers as a kind of strategy under test (``grpc``).

``GROUP_HASH`` (a FIFO message group to a queue, by SipHash-2-4), ``PUBLISH_ROUND_ROBIN`` (a
producer's queues, round robin over brokers, passing over excluded endpoints) and
``SUBSCRIBE_ROUND_ROBIN`` (a simple consumer's queue), as ``apache/rocketmq-clients``' Java
classes answered them. The reference ports are in :mod:`pytest_rmq_conformance.ports.grpc`.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.loading.specs import SpecError

__all__ = ["KIND", "GrpcBalancers"]

#: what each family's balancer must have
_METHODS = {
    "GROUP_HASH": ("take_message_queue_by_message_group",),
    "PUBLISH_ROUND_ROBIN": ("take_message_queues", "take_message_queue_by_message_group", "update"),
    "SUBSCRIBE_ROUND_ROBIN": ("take_message_queue", "update"),
}


class GrpcBalancers:
    """The :class:`~pytest_rmq_conformance.engine.kinds.Kind` record of the gRPC clients' balancers."""

    name = "grpc"
    method = "take_message_queue_by_message_group"
    #: a subscription balancer is one of its strategies too
    other_methods = ("take_message_queue", "take_message_queues")
    case_schema: str | Path | None = "golden-grpc-case"
    schema_dirs: tuple[Path, ...] = ()
    compared = "call by call, up to the first divergence"

    @property
    def golden_dirs(self) -> tuple[Path, ...]:
        from pytest_rmq_conformance.engine.resources import golden_dir

        return (golden_dir() / "grpc",)

    def hello_fields(self, strategy: Any) -> dict[str, Any]:
        """A balancer that declares an index offset (``rmq_index_offset``) says so in the
        built-in harness's hello, as ``indexOffsets`` of its family."""
        from pytest_rmq_conformance.kinds.grpc.golden import HELLO_FIELD, OFFSET_ATTRIBUTE

        family = kinds.family_of(getattr(strategy, "name", None))
        offset = getattr(strategy, OFFSET_ATTRIBUTE, 0)
        return {HELLO_FIELD: {family.name: offset}} if family is not None and type(offset) is int and offset else {}

    def hello_problem(self, declared: Mapping[str, Any]) -> str | None:
        """A harness's ``indexOffsets`` must be ``{family: integer}``."""
        from pytest_rmq_conformance.kinds.grpc.golden import HELLO_FIELD

        offsets = declared.get(HELLO_FIELD, {})
        if not isinstance(offsets, dict) or not all(isinstance(k, str) and type(v) is int for k, v in offsets.items()):
            return f"gave {HELLO_FIELD} that are not {{family: integer}}"
        return None

    @property
    def default_properties(self) -> frozenset[str]:
        from pytest_rmq_conformance.kinds.grpc.properties import DEFAULT_PROPERTIES

        return DEFAULT_PROPERTIES

    def parse_properties(self, claimed: Any, where: str) -> frozenset[str]:
        from pytest_rmq_conformance.kinds.grpc.properties import parse_properties

        return parse_properties(claimed, where)

    def parse_case(self, data: Mapping[str, Any], where: str, runs: Mapping[str, Any]) -> Any:
        from pytest_rmq_conformance.kinds.grpc.cases import parse_case

        return parse_case(data, where, runs)

    def check_strategy(self, spec: str, name: str, strategy: Any) -> None:
        """A balancer of a gRPC family must have that family's methods, and say its index offset as an int."""
        missing = [method for method in _METHODS.get(name, ()) if not callable(getattr(strategy, method, None))]
        if missing:
            raise SpecError(f"--rmq-strategy={spec}: the {name} balancer has no {', '.join(m + '()' for m in missing)}")
        offset = getattr(strategy, "rmq_index_offset", 0)
        if type(offset) is not int:
            raise SpecError(f"--rmq-strategy={spec}: rmq_index_offset is {offset!r}, not an int")

    def replay(self, subject: Any, case: Any, run: Any) -> Any:
        from pytest_rmq_conformance.kinds.grpc.golden import replay

        return replay(subject, case, run)

    def report(self, outcome: Any, rerun: str) -> str:
        from pytest_rmq_conformance.kinds.grpc.failures import format_outcome

        return format_outcome(outcome, rerun)

    def divergence(self, outcome: Any) -> str:
        return outcome.error if outcome.error is not None else outcome.mismatches[0].problem

    def describe_example(self, example: Any) -> str:
        return repr(example)

    def generated(self, subject: Any) -> kinds.GeneratedCheck | str:
        from pytest_rmq_conformance.kinds.grpc.generated import reference_check

        return reference_check(subject)

    def remote(self, harness: Any, family: str, params: Mapping[str, Any], release: str) -> Any:
        raise SpecError(f"{family}: a harness is asked a whole golden case per request, never one call at a time")

    def serve(self, request: Mapping[str, Any], build: Callable[[str, Mapping[str, Any]], Any]) -> dict[str, Any] | None:
        from pytest_rmq_conformance.kinds.grpc.protocol import serve

        return serve(request, build)

    def import_golden(self, source: Path, out: Path) -> str | None:
        """The Java vectors of the gRPC balancers (``GROUP_HASH.jsonl``, ... and their
        ``vector.schema.json``) become ``out/grpc/``."""
        from pytest_rmq_conformance.kinds.grpc.golden_import import import_vectors, is_source

        if not is_source(source):
            return None
        return import_vectors(source, out / "grpc").summary() + f"\nwritten to {out / 'grpc'}"


KIND = kinds.register_kind(GrpcBalancers())

from pytest_rmq_conformance.kinds.grpc import families  # noqa: E402,F401 (its records need the kind registered)
