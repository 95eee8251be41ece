"""Consumer queue allocation: every client of a consumer group computes its own share of a
topic's queues, alone, with the same strategy (``AllocateMessageQueueStrategy``).

:data:`KIND` is its record (:class:`~pytest_rmq_conformance.engine.kinds.Kind`), registered
when this package is imported, with its six Java families (:mod:`.families`). What the record
answers lives in the modules beside it: golden cases (:mod:`.cases`) and their replay
(:mod:`.golden`, :mod:`.replay`), how a failure reads (:mod:`.failures`), the harness messages
(:mod:`.protocol`), generated groups (:mod:`.draws`, :mod:`.scenarios`) and the checks on
them (:mod:`.differential`, :mod:`.invariants`, :mod:`.properties`, :mod:`.one_answer`,
:mod:`.steps`). They are imported when a record method first needs them.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.loading.specs import SpecError

__all__ = ["KIND", "ConsumerAllocation", "families"]


class ConsumerAllocation:
    """The :class:`~pytest_rmq_conformance.engine.kinds.Kind` record of consumer allocation."""

    name = "allocation"
    method = "allocate"
    case_schema: str | Path | None = "golden-case"
    schema_dirs: tuple[Path, ...] = ()
    golden_dirs: tuple[Path, ...] = ()  # its vectors are the shipped golden/

    @property
    def default_properties(self) -> frozenset[str]:
        from pytest_rmq_conformance.kinds.allocation.properties import DEFAULT_PROPERTIES

        return DEFAULT_PROPERTIES

    def parse_properties(self, claimed: Any, where: str) -> frozenset[str]:
        from pytest_rmq_conformance.kinds.allocation.properties import parse_properties

        return parse_properties(claimed, where)

    def parse_case(self, data: Mapping[str, Any], where: str, runs: Mapping[str, Any]) -> Any:
        from pytest_rmq_conformance.kinds.allocation.cases import parse_case

        return parse_case(data, where, runs)

    def check_strategy(self, spec: str, name: str, strategy: Any) -> None:
        """``allocate`` must take the four arguments every call passes."""
        allocate = getattr(strategy, "allocate", None)
        if not callable(allocate):
            raise SpecError(f"--rmq-strategy={spec}: the strategy {name} has no allocate() method")
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

    def replay(self, subject: Any, case: Any, run: Any) -> Any:
        from pytest_rmq_conformance.kinds.allocation.golden import replay

        return replay(subject, case, run)

    def report(self, outcome: Any, rerun: str) -> str:
        from pytest_rmq_conformance.kinds.allocation.failures import format_outcome

        return format_outcome(outcome.case, outcome.run, outcome.mismatches, outcome.error, rerun)

    def divergence(self, outcome: Any) -> str:
        from pytest_rmq_conformance.kinds.allocation.failures import format_mismatch

        if outcome.error is not None:
            return outcome.error
        return " ".join(line.strip() for line in format_mismatch(outcome.mismatches[0])[:3])

    def describe_example(self, example: Any) -> str:
        from pytest_rmq_conformance.kinds.allocation.failures import summarize_inputs

        return summarize_inputs(example)

    def generated(self, subject: Any) -> kinds.GeneratedCheck | str:
        from pytest_rmq_conformance.kinds.allocation.differential import reference_check

        return reference_check(subject)

    def remote(self, harness: Any, family: str, params: Mapping[str, Any], release: str) -> Any:
        from pytest_rmq_conformance.kinds.allocation.protocol import RemoteStrategy

        return RemoteStrategy(harness, family, params, release)

    def serve(self, request: Mapping[str, Any], build: Callable[[str, Mapping[str, Any]], Any]) -> dict[str, Any] | None:
        from pytest_rmq_conformance.kinds.allocation.protocol import serve

        return serve(request, build)

    def import_golden(self, source: Path, out: Path) -> str | None:
        """The Java allocation harness's ``<release>/<STRATEGY>.jsonl`` files become ``out``'s
        manifest and case files."""
        from pytest_rmq_conformance.kinds.allocation.golden_import import import_harness, is_source

        if not is_source(source):
            return None
        return import_harness(source, out).summary()


KIND = kinds.register_kind(ConsumerAllocation())

from pytest_rmq_conformance.kinds.allocation import families  # noqa: E402 (its records need the kind registered)
