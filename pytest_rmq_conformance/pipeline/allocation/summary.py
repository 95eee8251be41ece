"""Internal: the allocation sweep's ``summary.json``.

Per-strategy aggregates of a sweep's results, computed by Spark, as ``summary.json``.

Every figure is exact and independent of partitioning: sums and counts of integers, exact
percentiles, and examples chosen by the smallest scenario id. A kind of violation counts the
scenarios it was found in and its occurrences (each time the check failed: once per call for an
answer that differs from the reference port's or raises, once per group state for a gap); its
examples are its first scenarios, one detail each.

The one figure that depends on the machine and the run is ``cost``: the seconds a scenario took
(its calls and checks), median and mean, by the size of its group (queues × consumers, in bins
between powers of two), for an operator to see how cost grows before launching a large run.

Churn by group size is the *excess share*: ``(moved - lower_bound) / queues``, the queues a
strategy moved beyond the fewest a balanced group needs, as a share of all queues (negative where
it moved fewer because it does not balance). It is defined for every scenario, stays within
-1..1 whatever the queue count, and 0 means "as few moves as possible".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_rmq_conformance._version import __version__
from pytest_rmq_conformance.pipeline.allocation.space import SweepSpace

__all__ = ["summarize", "bins_of", "EXAMPLES_PER_KIND", "BINS", "QUARTILES"]

EXAMPLES_PER_KIND = 3
BINS = 8
QUARTILES = (0.25, 0.5, 0.75)


def _round(value: Any) -> Any:
    return None if value is None else round(float(value), 4)


def _bin_width(low: int, high: int) -> int:
    """Width of each of (at most) ``BINS`` bins covering ``low..high``."""
    return max(1, -(-(high - low + 1) // BINS))


def _bin(index: int, low: int, high: int, width: int) -> list[int]:
    """The inclusive range of bin ``index``."""
    return [low + index * width, min(high, low + (index + 1) * width - 1)]


def bins_of(low: int, high: int) -> list[tuple[int, int]]:
    """Every bin covering ``low..high``, as the summary's ``*_bin`` ranges name them.

    >>> bins_of(1, 5)
    [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]
    >>> bins_of(1, 100)[-2:]
    [(79, 91), (92, 100)]
    """
    width = _bin_width(low, high)
    return [(first, min(high, first + width - 1)) for first in range(low, high + 1, width)]


def summarize(df, *, specs: Sequence[str], space: SweepSpace, version: str, master: str, partitions: int,
              examples: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary of the results DataFrame ``df`` (one row per scenario and strategy)."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    totals = {
        row["strategy"]: row
        for row in df.groupBy("strategy")
        .agg(
            F.count("*").alias("scenarios"),
            F.sum("calls").alias("calls"),
            F.sum(F.when(F.col("violation_count") > 0, 1).otherwise(0)).alias("failing"),
            F.first("name").alias("name"),
            F.avg("moved").alias("moved_mean"),
            F.percentile("moved", F.lit(0.5)).alias("p50"),
            F.percentile("moved", F.lit(0.99)).alias("p99"),
            F.max("moved").alias("moved_max"),
            F.avg("lower_bound").alias("bound_mean"),
            F.avg(F.col("moved") - F.col("lower_bound")).alias("excess_mean"),
            F.avg("imbalance").alias("imbalance_mean"),
            F.max("imbalance").alias("imbalance_max"),
        )
        .collect()
    }
    exploded = df.where(F.col("violation_count") > 0).select(
        "strategy", "scenario", "group", F.explode(F.arrays_zip("violation_kinds", "violation_details")).alias("v")
    ).select("strategy", "scenario", "group", F.col("v.violation_kinds").alias("kind"), F.col("v.violation_details").alias("detail"))
    counts = exploded.groupBy("strategy", "kind").agg(
        F.count("*").alias("occurrences"), F.countDistinct("scenario").alias("scenarios")
    ).collect()
    first_in_scenario = Window.partitionBy("strategy", "kind", "scenario").orderBy("detail")
    first_scenarios = Window.partitionBy("strategy", "kind").orderBy("scenario")
    picked = (
        exploded.withColumn("nth", F.row_number().over(first_in_scenario)).where(F.col("nth") == 1)
        .withColumn("rank", F.row_number().over(first_scenarios)).where(F.col("rank") <= EXAMPLES_PER_KIND)
        .orderBy("strategy", "kind", "rank").collect()
    )
    by_event = df.groupBy("strategy", "event").agg(
        F.count("*").alias("scenarios"), F.avg("moved").alias("moved"), F.avg("lower_bound").alias("bound")
    ).orderBy("strategy", "event").collect()
    by_consumers = df.groupBy("strategy", "event", "consumers").agg(
        F.count("*").alias("scenarios"), F.avg("moved").alias("moved"), F.avg("lower_bound").alias("bound")
    ).orderBy("strategy", "event", "consumers").collect()
    q_step, c_step = _bin_width(*space.queues), _bin_width(*space.consumers)
    by_size = (
        df.where(F.col("calls") > 0)  # the strategy answered (no load error, no hang): churn was measured
        .withColumn("cbin", F.floor((F.col("consumers") - space.consumers[0]) / c_step))
        .withColumn("excess", (F.col("moved") - F.col("lower_bound")) / F.col("queues"))
        .groupBy("strategy", "event", "cbin")
        .agg(F.count("*").alias("scenarios"), F.percentile("excess", list(QUARTILES)).alias("quartiles"))
        .orderBy("strategy", "event", "cbin")
        .collect()
    )
    grid = (
        df.withColumn("qbin", F.floor((F.col("queues") - space.queues[0]) / q_step))
        .withColumn("cbin", F.floor((F.col("consumers") - space.consumers[0]) / c_step))
        .groupBy("strategy", "qbin", "cbin")
        .agg(F.count("*").alias("scenarios"), F.avg("imbalance").alias("imbalance"))
        .orderBy("strategy", "qbin", "cbin")
        .collect()
    )
    cost = (
        df.where(F.col("calls") > 0)
        .withColumn("sbin", F.floor(F.log2(F.col("queues") * F.col("consumers")) + 1e-9))  # exact at powers of two
        .groupBy("strategy", "sbin")
        .agg(F.count("*").alias("scenarios"), F.percentile("seconds", F.lit(0.5)).alias("p50"), F.avg("seconds").alias("mean"))
        .orderBy("strategy", "sbin")
        .collect()
    )
    strategies = []
    for spec in specs:
        total = totals.get(spec)
        if total is None:
            continue
        violations = []
        mine = (c for c in counts if c["strategy"] == spec)
        for count in sorted(mine, key=lambda c: (-c["scenarios"], -c["occurrences"], c["kind"])):
            shown = [
                {"scenario": p["scenario"], "detail": p["detail"], "group": p["group"]}
                for p in picked
                if p["strategy"] == spec and p["kind"] == count["kind"]
            ]
            violations.append(
                {"kind": count["kind"], "scenarios": count["scenarios"], "occurrences": count["occurrences"], "examples": shown}
            )
        strategies.append(
            {
                "spec": spec,
                "name": total["name"],
                "scenarios": total["scenarios"],
                "calls": int(total["calls"] or 0),
                "failing_scenarios": int(total["failing"] or 0),
                "violations": violations,
                "churn": {
                    "mean": _round(total["moved_mean"]),
                    "p50": _round(total["p50"]),
                    "p99": _round(total["p99"]),
                    "max": int(total["moved_max"]),
                    "lower_bound_mean": _round(total["bound_mean"]),
                    "excess_mean": _round(total["excess_mean"]),
                },
                "imbalance": {"mean": _round(total["imbalance_mean"]), "max": int(total["imbalance_max"])},
                "by_event": [
                    {"event": r["event"], "scenarios": r["scenarios"], "moved_mean": _round(r["moved"]), "lower_bound_mean": _round(r["bound"])}
                    for r in by_event
                    if r["strategy"] == spec
                ],
                "churn_by_consumers": [
                    {
                        "consumers": r["consumers"],
                        "event": r["event"],
                        "scenarios": r["scenarios"],
                        "moved_mean": _round(r["moved"]),
                        "lower_bound_mean": _round(r["bound"]),
                    }
                    for r in by_consumers
                    if r["strategy"] == spec
                ],
                "churn_by_group_size": [
                    {
                        "event": r["event"],
                        "consumers_bin": _bin(r["cbin"], *space.consumers, c_step),
                        "scenarios": r["scenarios"],
                        "excess_share": dict(zip(("p25", "p50", "p75"), map(_round, r["quartiles"]))),
                    }
                    for r in by_size
                    if r["strategy"] == spec
                ],
                "imbalance_grid": [
                    {
                        "queues_bin": _bin(r["qbin"], *space.queues, q_step),
                        "consumers_bin": _bin(r["cbin"], *space.consumers, c_step),
                        "scenarios": r["scenarios"],
                        "imbalance_mean": _round(r["imbalance"]),
                    }
                    for r in grid
                    if r["strategy"] == spec
                ],
            }
        )
    return {
        "tool": f"pytest-rmq-conformance {__version__}",
        "space": space.describe(),
        "reference_version": version,
        "master": master,
        "partitions": partitions,
        "elapsed_seconds": 0.0,
        "strategies": strategies,
        "examples": examples,
        "cost": {
            "by_size": [
                {
                    "spec": r["strategy"],
                    "size_bin": [2 ** int(r["sbin"]), 2 ** (int(r["sbin"]) + 1) - 1],
                    "scenarios": r["scenarios"],
                    "seconds_p50": round(float(r["p50"]), 6),
                    "seconds_mean": round(float(r["mean"]), 6),
                }
                for r in cost
            ],
        },
    }
