"""Internal: the message-group sweep on Spark.

The message-group sweep on Spark: group indexes as a DataFrame, each partition's groups mapped over
every queue count by Java's mapping and each ``--strategy`` (:mod:`.mappers`) in
``mapInArrow``, tallied per partition (:func:`tally`: groups per queue, groups that change queue
from ``K`` to ``K + 1``), summed by Spark per queue into ``results/`` (Parquet) and per queue
count into ``summary.json``, then the report and its plots.

A partition yields one row per mapping and queue count, whatever its number of groups, so the
driver's memory does not grow with ``--groups``. The session, the staging folder and the atomic
publication are the allocation sweep's (:mod:`~pytest_rmq_conformance.pipeline.spark`).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.pipeline.message_groups.space import GroupSpace
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

__all__ = ["tally", "run_group_sweep", "TALLY_FIELDS", "QUEUE_FIELDS"]

#: one row of a partition's tally: a mapping (its label) at one queue count
TALLY_FIELDS = (
    ("strategy", "string"),
    ("queues", "int32"),
    ("groups", "int64"),
    ("counts", "list<int64>"),
    ("moved_up", "int64"),
    ("compared_up", "int64"),
    ("errors", "int64"),
    ("error", "string"),
    ("error_index", "int64"),
    ("seconds", "float64"),
)
#: one row of ``results/``: how many groups a queue got
QUEUE_FIELDS = (("strategy", "string"), ("queues", "int32"), ("queue", "int32"), ("groups", "int64"))


class _Tally:
    __slots__ = ("compared_up", "counts", "error", "error_index", "errors", "groups", "moved_up", "seconds")

    def __init__(self, queues: int):
        import numpy as np

        self.counts = np.zeros(queues, np.int64)
        self.groups = self.moved_up = self.compared_up = self.errors = 0
        self.error: str | None = None
        self.error_index: int | None = None  # the group the first error was met on
        self.seconds = 0.0


def tally(space: GroupSpace, mappings: Sequence[Any], batches: Iterable[Sequence[int]]) -> list[dict[str, Any]]:
    """Map the groups of ``batches`` (lists of group indexes) with each mapping over every queue
    count of ``space``: one row per mapping and count (:data:`TALLY_FIELDS`). A group moves from
    ``K`` to ``K + 1`` when its queue ids differ; a group without an answer at either is not compared."""
    import numpy as np

    tallies = {(m.label, k): _Tally(k) for m in mappings for k in space.counts()}
    for batch in batches:
        groups = [space.group(i) for i in batch]
        for mapping in mappings:
            before = None
            for k in space.counts():
                started = time.perf_counter()
                found, error = mapping.positions(groups, k)
                entry = tallies[mapping.label, k]
                answered = found >= 0
                count = int(np.count_nonzero(answered))
                entry.counts += np.bincount(found[answered], minlength=k)
                entry.groups += count
                entry.errors += len(groups) - count
                if entry.error is None and error is not None:  # an error leaves a group unanswered: the first such
                    entry.error, entry.error_index = error, batch[int(np.argmax(~answered))] if count < len(groups) else batch[0]
                if before is not None:
                    both = answered & (before >= 0)
                    below = tallies[mapping.label, k - 1]
                    below.moved_up += int(np.count_nonzero(found[both] != before[both]))
                    below.compared_up += int(np.count_nonzero(both))
                before = found
                entry.seconds += time.perf_counter() - started
    return [
        {"strategy": label, "queues": k, "groups": t.groups, "counts": t.counts.tolist(), "moved_up": t.moved_up,
         "compared_up": t.compared_up, "errors": t.errors, "error": t.error, "error_index": t.error_index, "seconds": t.seconds}
        for (label, k), t in tallies.items()
    ]


def tally_batches(space: GroupSpace, specs: Sequence[str], timeout: float | None):
    """The ``mapInArrow`` function: batches of group indexes in, one batch of tally rows out per partition."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        from pytest_rmq_conformance.pipeline.message_groups.mappers import mappings

        chosen = mappings(specs, timeout)
        try:
            rows = tally(space, chosen, (batch.column(0).to_pylist() for batch in batches))
        finally:
            for mapping in chosen:
                mapping.close()
        yield pa.RecordBatch.from_pylist(rows, schema=arrow_schema(TALLY_FIELDS))

    return run


def run_group_sweep(
    space: GroupSpace,
    out: Path,
    *,
    strategies: Sequence[str] = (),
    master: str = "local[*]",
    partitions: int | None = None,
    timeout: float | None = 2.0,
    report: bool = True,
    progress: bool = True,
    say: Say = say_to_stderr,
    spark=None,
) -> dict[str, Any]:
    """Map ``space``'s groups with Java's mapping and each of ``strategies`` on Spark and write
    ``out/results/`` (Parquet: groups per queue), ``out/summary.json`` and, with ``report``,
    ``out/report.md``, ``out/report.html`` and the plots. Returns the summary."""
    from pyspark.sql import functions as F

    from pytest_rmq_conformance.pipeline.message_groups.summary import summarize, validate_summary

    started = time.perf_counter()
    out = Path(out)
    specs = list(dict.fromkeys(strategies))
    with staged(out, master, spark) as (staging, session):
        parts = partitions_for(session, partitions)
        counts = space.measured()
        say(f"rmq-conformance sweep --groups: {space.groups} groups over {counts.start}..{counts.stop - 1} queues x "
            f"{1 + len(specs)} mappings on {master}, {parts} partitions")
        ids = session.range(0, space.groups, numPartitions=parts)
        tallies = ids.mapInArrow(tally_batches(space, specs, timeout), spark_ddl(TALLY_FIELDS))
        with Progress(session, parts, progress, say):
            tallies.write.mode("overwrite").parquet(str(staging / "tallies"))
        stored = session.read.parquet(str(staging / "tallies"))
        per_queue = (
            stored.select("strategy", "queues", F.posexplode("counts").alias("queue", "n"))
            .groupBy("strategy", "queues", "queue")
            .agg(F.sum("n").alias("groups"))
            .select(F.col("strategy"), F.col("queues"), F.col("queue").cast("int"), F.col("groups"))
        )
        per_queue.write.mode("overwrite").parquet(str(staging / "results"))
        summary = summarize(
            stored, session.read.parquet(str(staging / "results")), space=space, specs=specs, master=master, partitions=parts
        )
        summary["elapsed_seconds"] = round(time.perf_counter() - started, 2)
        validate_summary(summary)
        write_json(staging / "summary.json", summary)
        shutil.rmtree(staging / "tallies", ignore_errors=True)
        if report:
            from pytest_rmq_conformance.pipeline.message_groups.report import write_group_report

            write_group_report(summary, staging)
        publish(staging, out)
    say(f"rmq-conformance sweep --groups: wrote {out} in {summary['elapsed_seconds']:.1f} s")
    return summary
