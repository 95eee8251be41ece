"""Internal: the allocation sweep on Spark.

Scenario ids as a DataFrame, evaluated partition by partition through Arrow (``mapInArrow``),
per-scenario results as Parquet, per-strategy aggregates as ``summary.json``, and the report;
what Spark's JVM prints goes to ``spark.log`` beside them. The session, staging and publishing
are :mod:`~pytest_rmq_conformance.pipeline.spark`'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.pipeline.allocation.evaluate import RESULT_FIELDS, Evaluator, sweep_entries
from pytest_rmq_conformance.pipeline.allocation.space import SweepSpace, fixed_example
from pytest_rmq_conformance.pipeline.allocation.summary import summarize
from pytest_rmq_conformance.pipeline.checks import validate_summary
from pytest_rmq_conformance.pipeline.spark import (
    Say,
    arrow_schema,
    partitions_for,
    publish,
    run_batches,
    say_to_stderr,
    spark_ddl,
    staged,
    write_json,
)
from pytest_rmq_conformance.releases import DEFAULT_RELEASE

__all__ = ["run_sweep", "evaluate_batches", "evaluator_batches", "entry_labels", "EXAMPLES"]

#: the comparisons the report leads with: (title, queues, consumers, which client leaves or None to join)
EXAMPLES = [
    ("24 queues, 4 clients, the second leaves", 24, 4, 1),
    ("24 queues, 4 clients, a fifth joins", 24, 4, None),
]


def evaluator_batches(
    space: SweepSpace,
    fields: Sequence[tuple[str, str]],
    open_evaluators: Callable[[], list[Any]],
    rows: Callable[[Any, Any, int], Iterable[dict[str, Any]]],
):
    """A ``mapInArrow`` function over scenario ids: each task opens its evaluators once, adds
    ``rows(evaluator, plan, index)`` of every evaluator for each scenario of its batches, one
    Arrow batch of ``fields`` per batch in, and closes the evaluators whatever happens."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        schema = arrow_schema(fields)
        evaluators = open_evaluators()
        try:
            for batch in batches:
                found: list[dict[str, Any]] = []
                for index in batch.column(0).to_pylist():
                    plan = space.plan(index)
                    for evaluator in evaluators:
                        found.extend(rows(evaluator, plan, index))
                yield pa.RecordBatch.from_pylist(found, schema=schema)
        finally:
            for evaluator in evaluators:
                evaluator.close()

    return run


def evaluate_batches(entries: Sequence[tuple[str, str | None]], space: SweepSpace, version: str, timeout: float | None):
    """The ``mapInArrow`` function: batches of scenario ids in, batches of result rows out."""
    return evaluator_batches(
        space,
        RESULT_FIELDS,
        lambda: [Evaluator(spec, version, timeout, family) for spec, family in entries],
        lambda evaluator, plan, index: [evaluator.evaluate(plan, index)],
    )


def entry_labels(entries: Sequence[tuple[str, str | None]]) -> list[str]:
    """A strategy's name in the summaries: its spec, with the family it was bound to."""
    return [spec if family is None else f"{spec} [{family}]" for spec, family in entries]


def run_sweep(
    specs: Sequence[str],
    space: SweepSpace,
    out: Path,
    *,
    version: str = DEFAULT_RELEASE,
    master: str = "local[*]",
    partitions: int | None = None,
    timeout: float | None = 2.0,
    report: bool = True,
    progress: bool = True,
    say: Say = say_to_stderr,
    spark=None,
) -> dict[str, Any]:
    """Evaluate ``space`` for every spec on Spark and write ``out/results/`` (Parquet),
    ``out/summary.json`` and, with ``report``, ``out/report.md``, ``out/report.html`` and the
    plots. Returns the summary."""
    started = time.perf_counter()
    out = Path(out)
    with staged(out, master, spark) as (staging, session):
        entries = sweep_entries(specs, version, timeout)
        labels = entry_labels(entries)
        parts = partitions_for(session, partitions)
        say(
            f"rmq-conformance sweep: {space.count} scenarios x {len(labels)} strategies on {master}, {parts} partitions"
        )
        batches = evaluate_batches(entries, space, version, timeout)
        stored = run_batches(
            session, space.count, parts, batches, spark_ddl(RESULT_FIELDS), staging / "results", progress, say
        )
        summary = summarize(
            stored,
            specs=labels,
            space=space,
            version=version,
            master=master,
            partitions=parts,
            examples=_examples(entries, version, timeout),
        )
        summary["elapsed_seconds"] = round(time.perf_counter() - started, 2)
        validate_summary(summary)
        write_json(staging / "summary.json", summary)
        if report:
            from pytest_rmq_conformance.pipeline.allocation.report import write_report

            write_report(summary, staging)
        publish(staging, out)
    say(f"rmq-conformance sweep: wrote {out} in {summary['elapsed_seconds']:.1f} s")
    return summary


def _examples(entries: Sequence[tuple[str, str | None]], version: str, timeout: float | None) -> list[dict[str, Any]]:
    """The fixed comparisons, evaluated on the driver (they are a handful of calls)."""
    evaluators = [Evaluator(spec, version, timeout, family) for spec, family in entries]
    examples = []
    for title, queues, consumers, leaver in EXAMPLES:
        plan = fixed_example(queues, consumers, leaver)
        rows = []
        for evaluator in evaluators:
            row = evaluator.evaluate(plan)
            rows.append(
                {
                    "spec": evaluator.spec,
                    "name": row["name"],
                    "moved": row["moved"],
                    "lower_bound": row["lower_bound"],
                    "own": row["own"],
                    "violations": sorted(set(row["violation_kinds"])),
                }
            )
        examples.append({"title": title, "rows": rows})
    for evaluator in evaluators:
        evaluator.close()
    return examples
