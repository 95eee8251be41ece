"""Internal: the message-group sweep's ``summary.json``.

Per mapping and queue count ``K``, the aggregates of a message-group sweep, computed by Spark, as
``summary.json``.

Every figure is exact and independent of partitioning: groups per queue are sums, the skew is
the fullest queue's groups over the mean (``groups / K``), the chi-square tail says how likely a
uniform random spread is to look at least this uneven, and the moved shares are the groups that
changed queue from ``K`` to ``K + 1`` (and from ``K`` to ``K - 1``) over those answered at both.
The fewest a balanced mapping can move: ``1 / (K + 1)`` of the groups when a queue is added (the
new queue's share), ``1 / K`` when the last is removed (its share).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_rmq_conformance._version import __version__
from pytest_rmq_conformance.engine.generated.statistics import chi_square_tail
from pytest_rmq_conformance.pipeline.message_groups.mappers import FAMILY, JAVA
from pytest_rmq_conformance.pipeline.message_groups.space import GroupSpace

__all__ = ["summarize", "validate_summary"]


def validate_summary(summary: dict[str, Any]) -> None:
    from pytest_rmq_conformance.pipeline.checks import validate_summary as validate

    validate(summary, "sweep-groups-summary")


def _share(part: int, whole: int) -> float | None:
    return None if not whole else round(part / whole, 6)


def _row(k: int, sums: Any, spread: Any, below: Any, error: str | None) -> dict[str, Any]:
    groups = int(sums["groups"])
    mean = groups / k
    top, bottom, variance = (int(spread["max"]), int(spread["min"]), float(spread["var"])) if spread else (0, 0, 0.0)
    p_value = chi_square_tail(k * variance / mean, k - 1) if groups and k > 1 else None
    return {
        "queues": k,
        "groups": groups,
        "errors": int(sums["errors"]),
        "first_error": error,
        "max": top,
        "min": bottom,
        "mean": round(mean, 4),
        "skew": round(top / mean, 6) if groups else None,
        "chi_square_p": None if p_value is None else float(f"{p_value:.4g}"),
        "moved_up": int(sums["moved_up"]),
        "moved_up_share": _share(int(sums["moved_up"]), int(sums["compared_up"])),
        "fewest_up_share": round(1 / (k + 1), 6),
        "moved_down": None if below is None else int(below["moved_up"]),
        "moved_down_share": None if below is None else _share(int(below["moved_up"]), int(below["compared_up"])),
        "fewest_down_share": None if k == 1 else round(1 / k, 6),
        "seconds": round(float(sums["seconds"]), 3),
    }


def summarize(tallies, per_queue, *, space: GroupSpace, specs: Sequence[str], master: str, partitions: int) -> dict[str, Any]:
    """The summary of a sweep's tally rows and its groups per queue (both DataFrames)."""
    from pyspark.sql import functions as F

    sums = {
        (row["strategy"], row["queues"]): row
        for row in tallies.groupBy("strategy", "queues").agg(
            F.sum("groups").alias("groups"),
            F.sum("moved_up").alias("moved_up"),
            F.sum("compared_up").alias("compared_up"),
            F.sum("errors").alias("errors"),
            F.sum("seconds").alias("seconds"),
        ).collect()
    }
    first_errors = {  # the error met on the lowest group index: the same however the groups are partitioned
        (row["strategy"], row["queues"]): row["error"]
        for row in tallies.where(F.col("error").isNotNull()).groupBy("strategy", "queues").agg(
            F.min_by("error", "error_index").alias("error")
        ).collect()
    }
    spread = {
        (row["strategy"], row["queues"]): row
        for row in per_queue.groupBy("strategy", "queues").agg(
            F.max("groups").alias("max"), F.min("groups").alias("min"), F.var_pop("groups").alias("var")
        ).collect()
    }
    strategies = [{"label": JAVA, "spec": FAMILY}, *({"label": spec, "spec": spec} for spec in specs)]
    rows = [
        {"strategy": s["label"], **_row(k, sums[s["label"], k], spread.get((s["label"], k)), sums.get((s["label"], k - 1)),
                                     first_errors.get((s["label"], k)))}
        for s in strategies
        for k in space.measured()
    ]
    return {
        "tool": f"pytest-rmq-conformance {__version__}",
        "mode": "groups",
        "space": space.as_dict(),
        "strategies": strategies,
        "master": master,
        "partitions": partitions,
        "elapsed_seconds": 0.0,
        "rows": rows,
    }
