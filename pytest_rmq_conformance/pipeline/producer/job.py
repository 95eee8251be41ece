"""Internal: the producer sweep on Spark.

The producer sweep on Spark: scenario ids as a DataFrame, each played under every
configuration (each release's reference port and each ``--strategy`` × ``sendLatencyFaultEnable``,
:mod:`~pytest_rmq_conformance.pipeline.producer.strategies`) in ``mapInArrow``, one row per scenario and
configuration as Parquet, the aggregates as ``summary.json``, the report and its plots.

The session, the staging folder and the atomic publication are the allocation sweep's
(:mod:`~pytest_rmq_conformance.pipeline.spark`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.pipeline.producer.sim import Factory, simulate
from pytest_rmq_conformance.pipeline.producer.space import ProducerSpace
from pytest_rmq_conformance.pipeline.producer.strategies import Configuration, configurations, factory_of
from pytest_rmq_conformance.pipeline.producer.summary import summarize, validate_summary
from pytest_rmq_conformance.pipeline.spark import (
    Progress,
    Say,
    arrow_schema,
    partitions_for,
    publish,
    say_to_stderr,
    spark_ddl,
    staged,
    write_json,
)

__all__ = ["run_producer_sweep", "scenario_rows", "PRODUCER_FIELDS"]

#: the columns of one result row: a scenario under one configuration
PRODUCER_FIELDS = (
    ("scenario", "int64"),
    ("strategy", "string"),
    ("release", "string"),
    ("latency_fault", "bool"),
    ("pattern", "string"),
    ("brokers", "int32"),
    ("queues", "int32"),
    ("degraded", "string"),
    ("onset_ms", "int64"),
    ("recovery_ms", "int64"),
    ("sends", "int32"),
    ("first_to_degraded", "int32"),
    ("failed", "int32"),
    ("attempts", "int32"),
    ("latency_ms", "int64"),
    ("returned_after_ms", "int64"),
    ("total_sends", "int32"),
    ("lost_from_list", "bool"),
    ("error", "string"),
    ("seconds", "float64"),
)


def scenario_rows(
    space: ProducerSpace, index: int, configs: Sequence[Configuration] | None = None,
    factories: dict[Configuration, Factory] | None = None,
) -> list[dict[str, Any]]:
    """Scenario ``index`` played under every configuration (default: the reference ports'):
    one row each. ``factories`` keeps the factory of each configuration across calls."""
    scenario = space.scenario(index)
    factories = {} if factories is None else factories
    rows = []
    for config in configurations() if configs is None else configs:
        started = time.perf_counter()
        factory = factories.get(config)
        if factory is None:
            factory = factories[config] = factory_of(config)
        measured = simulate(factory, scenario, config.latency_fault, release=config.release)
        rows.append(
            {
                "scenario": index,
                **config.as_dict(),
                "pattern": scenario.pattern,
                "brokers": scenario.brokers,
                "queues": scenario.queues,
                "degraded": scenario.degraded_name,
                "onset_ms": scenario.onset,
                "recovery_ms": scenario.recovery,
                **measured.as_row(),
                "seconds": time.perf_counter() - started,
            }
        )
    return rows


def play_batches(space: ProducerSpace, configs: Sequence[Configuration]):
    """The ``mapInArrow`` function: batches of scenario ids in, batches of result rows out."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        schema = arrow_schema(PRODUCER_FIELDS)
        factories: dict[Configuration, Factory] = {}  # a user's strategy is loaded once per task
        for batch in batches:
            rows = [row for index in batch.column(0).to_pylist() for row in scenario_rows(space, index, configs, factories)]
            yield pa.RecordBatch.from_pylist(rows, schema=schema)

    return run


def run_producer_sweep(
    space: ProducerSpace,
    out: Path,
    *,
    strategies: Sequence[str] = (),
    master: str = "local[*]",
    partitions: int | None = None,
    report: bool = True,
    progress: bool = True,
    say: Say = say_to_stderr,
    spark=None,
) -> dict[str, Any]:
    """Play ``space`` under every configuration (the reference ports and each of ``strategies``,
    fault strategy specs), off and on, on Spark and write ``out/results/`` (Parquet),
    ``out/summary.json`` and, with ``report``, ``out/report.md``, ``out/report.html`` and the
    plots. Returns the summary."""
    started = time.perf_counter()
    out = Path(out)
    configs = configurations(strategies)
    with staged(out, master, spark) as (staging, session):
        parts = partitions_for(session, partitions)
        say(
            f"rmq-conformance sweep --producer: {space.count} scenarios x {len(configs)} configurations "
            f"on {master}, {parts} partitions"
        )
        ids = session.range(0, space.count, numPartitions=parts)
        results = ids.mapInArrow(play_batches(space, configs), spark_ddl(PRODUCER_FIELDS))
        with Progress(session, parts, progress, say):
            results.write.mode("overwrite").parquet(str(staging / "results"))
        summary = summarize(
            session.read.parquet(str(staging / "results")), space=space, configs=configs, master=master, partitions=parts
        )
        summary["elapsed_seconds"] = round(time.perf_counter() - started, 2)
        validate_summary(summary)
        write_json(staging / "summary.json", summary)
        if report:
            from pytest_rmq_conformance.pipeline.producer.report import write_producer_report

            write_producer_report(summary, staging)
        publish(staging, out)
    say(f"rmq-conformance sweep --producer: wrote {out} in {summary['elapsed_seconds']:.1f} s")
    return summary
