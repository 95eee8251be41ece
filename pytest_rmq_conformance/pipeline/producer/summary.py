"""Internal: the producer sweep's ``summary.json``.

Per fault pattern, configuration (a release's reference port or a user's strategy) and
``sendLatencyFaultEnable`` setting, the aggregates of a producer
sweep's results, computed by Spark, as ``summary.json``.

Every figure is exact and independent of partitioning: shares are sums of integer counts over
the sends due while a fault lasted, pooled over the scenarios (``first_to_degraded / sends``),
so that each send weighs the same; times until traffic returns are exact percentiles over the
scenarios where it did return, and ``never_returned`` counts the others; ``lost_from_list``
counts the scenarios that ended with the degraded broker routed but absent from the publish list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_rmq_conformance._version import __version__
from pytest_rmq_conformance.pipeline.producer.isolation import isolation_tables
from pytest_rmq_conformance.pipeline.producer.space import ProducerSpace
from pytest_rmq_conformance.pipeline.producer.strategies import Configuration, configurations

__all__ = ["summarize", "validate_summary", "ERRORS_SHOWN"]

ERRORS_SHOWN = 5
PERCENTILES = (0.5, 0.9)


def validate_summary(summary: dict[str, Any]) -> None:
    from pytest_rmq_conformance.pipeline.checks import validate_summary as validate

    validate(summary, "sweep-producer-summary")


def _share(part: int, whole: int) -> float | None:
    return None if not whole else round(part / whole, 4)


def _round(value: Any) -> float | None:
    return None if value is None else round(float(value), 4)


def _group(row: Any) -> dict[str, Any]:
    sends = int(row["sends"] or 0)
    p50, p90 = row["percentiles"] or (None, None)
    return {
        "pattern": row["pattern"],
        "strategy": row["strategy"],
        "release": row["release"],
        "latency_fault": row["latency_fault"],
        "scenarios": row["scenarios"],
        "sends": sends,
        "first_to_degraded": int(row["first_to_degraded"] or 0),
        "failed": int(row["failed"] or 0),
        "attempts": int(row["attempts"] or 0),
        "latency_ms": int(row["latency_ms"] or 0),
        "degraded_share": _share(int(row["first_to_degraded"] or 0), sends),
        "uniform_share": _round(row["uniform"] / sends) if sends else None,
        "failed_share": _share(int(row["failed"] or 0), sends),
        "attempts_per_message": _share(int(row["attempts"] or 0), sends),
        "latency_per_message_ms": _share(int(row["latency_ms"] or 0), sends),
        "returned": row["returned"],
        "never_returned": row["scenarios"] - row["returned"],
        "returned_after_ms": {"p50": _round(p50), "p90": _round(p90), "max": row["returned_max"]},
        "lost_from_list": int(row["lost_from_list"] or 0),
        "errors": row["errors"],
    }


def summarize(
    df, *, space: ProducerSpace, master: str, partitions: int, configs: Sequence[Configuration] | None = None
) -> dict[str, Any]:
    """The summary of the results DataFrame ``df`` (one row per scenario and configuration of
    ``configs``, default the reference ports')."""
    from pyspark.sql import functions as F

    grouped = (
        df.groupBy("pattern", "strategy", "release", "latency_fault")
        .agg(
            F.count("*").alias("scenarios"),
            F.sum("sends").alias("sends"),
            F.sum("first_to_degraded").alias("first_to_degraded"),
            F.sum("failed").alias("failed"),
            F.sum("attempts").alias("attempts"),
            F.sum("latency_ms").alias("latency_ms"),
            F.sum(F.col("sends") / F.col("brokers")).alias("uniform"),
            F.count("returned_after_ms").alias("returned"),
            F.percentile("returned_after_ms", list(PERCENTILES)).alias("percentiles"),
            F.max("returned_after_ms").alias("returned_max"),
            F.sum(F.col("lost_from_list").cast("int")).alias("lost_from_list"),
            F.sum(F.when(F.col("error") != "", 1).otherwise(0)).alias("errors"),
        )
        .collect()
    )
    errors = (
        df.where(F.col("error") != "")
        .orderBy("scenario", "strategy", "release", "latency_fault")
        .select("scenario", "strategy", "release", "latency_fault", "error")
        .limit(ERRORS_SHOWN)
        .collect()
    )
    configs = configurations() if configs is None else list(configs)
    order = {(c.strategy, c.release, c.latency_fault): i for i, c in enumerate(configs)}
    patterns = list(space.patterns)
    groups = sorted(
        (_group(row) for row in grouped),
        key=lambda g: (patterns.index(g["pattern"]), order[(g["strategy"], g["release"], g["latency_fault"])]),
    )
    return {
        "tool": f"pytest-rmq-conformance {__version__}",
        "mode": "producer",
        "space": space.describe(),
        "configurations": [c.as_dict() for c in configs],
        "master": master,
        "partitions": partitions,
        "elapsed_seconds": 0.0,
        "groups": groups,
        "isolation": isolation_tables(),
        "errors": [
            {"scenario": e["scenario"], "strategy": e["strategy"], "release": e["release"],
             "latency_fault": e["latency_fault"], "error": e["error"]}
            for e in errors
        ],
    }
