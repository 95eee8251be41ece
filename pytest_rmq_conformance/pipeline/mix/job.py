"""Internal: the mix sweep on Spark.

``sweep --mix`` on Spark: what sharing a group with Java clients costs a strategy.

The consumer side (:func:`run_mix_sweep`) maps scenario ids to result rows, one per scenario,
strategy and mix (:mod:`.allocation`); the producer side (:func:`run_mix_groups_sweep`) tallies
each partition's names per strategy and queue count (:mod:`.message_groups`). Spark sums them into
``summary.json``, whose ``verdicts`` say per strategy and family whether it is safe to mix with
Java, what breaks, how often, and the worst case with what replays it. The session, staging,
atomic publication and errors are :mod:`~pytest_rmq_conformance.pipeline.spark`'s.
"""

from __future__ import annotations

import shlex
import shutil
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pytest_rmq_conformance._version import __version__
from pytest_rmq_conformance.pipeline.allocation.job import entry_labels, evaluator_batches
from pytest_rmq_conformance.pipeline.allocation.space import SweepSpace
from pytest_rmq_conformance.pipeline.message_groups.space import GroupSpace
from pytest_rmq_conformance.pipeline.mix.allocation import MIX_FIELDS, MIXES, MixEvaluator
from pytest_rmq_conformance.pipeline.mix.message_groups import GROUP_FIELDS
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

__all__ = ["run_mix_sweep", "run_mix_groups_sweep", "validate_mix_summary", "merge_summaries", "empty_summary"]

def validate_mix_summary(summary: dict[str, Any]) -> None:
    from pytest_rmq_conformance.pipeline.checks import validate_summary

    validate_summary(summary, "sweep-mix-summary")


def empty_summary() -> dict[str, Any]:
    return {
        "tool": f"pytest-rmq-conformance {__version__}",
        "mode": "mix",
        "consumer": None,
        "groups": None,
        "verdicts": [],
    }


def merge_summaries(summaries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One summary of several mix sweeps of the same space (a driver's runs, one per client and side)."""
    merged = empty_summary()
    for summary in summaries:
        for side in ("consumer", "groups"):
            part = summary[side]
            if part is None:
                continue
            if merged[side] is None:
                merged[side] = {**part, "rows": list(part["rows"])}
            else:
                merged[side]["rows"] += part["rows"]
                merged[side]["elapsed_seconds"] = (
                    None
                    if part["elapsed_seconds"] is None
                    else round((merged[side]["elapsed_seconds"] or 0) + part["elapsed_seconds"], 2)
                )
        merged["verdicts"] += summary["verdicts"]
    return merged


def _mix_batches(entries: Sequence[tuple[str, str | None]], space: SweepSpace, version: str, timeout: float | None):
    """The ``mapInArrow`` function of the consumer side: scenario ids in, a row per strategy and mix out."""
    return evaluator_batches(
        space,
        MIX_FIELDS,
        lambda: [MixEvaluator(spec, version, timeout, family) for spec, family in entries],
        lambda evaluator, plan, index: evaluator.rows(plan, index, space.seed),
    )


def replay_command(space: SweepSpace, spec: str, index: int, version: str) -> str:
    """The command that sweeps scenario ``index`` again (as the last of its space)."""
    low, high = space.queues
    clow, chigh = space.consumers
    argv = [
        "rmq-conformance",
        "sweep",
        "--mix",
        "--strategy",
        spec,
        "--seed",
        str(space.seed),
        "--queues",
        f"{low}:{high}",
        "--consumers",
        f"{clow}:{chigh}",
        "--events",
        ",".join(space.events),
        "--scenarios",
        str(index + 1),
    ]
    if version != DEFAULT_RELEASE:
        argv += ["--reference-version", version]
    return shlex.join(argv)


def _consumer_rows(stored) -> list[dict[str, Any]]:
    from pyspark.sql import functions as F

    bad = (F.col("double_before") + F.col("orphaned_before") + F.col("double_after") + F.col("orphaned_after")) > 0
    double = F.col("double_before") + F.col("double_after")
    orphaned = F.col("orphaned_before") + F.col("orphaned_after")
    rows = (
        stored.groupBy("strategy", "spec", "family", "mix")
        .agg(
            F.count("*").alias("mixes"),
            F.sum((bad | F.col("error").isNotNull()).cast("int")).alias("failing"),
            F.sum((double > 0).cast("int")).alias("with_double"),
            F.sum((orphaned > 0).cast("int")).alias("with_orphaned"),
            F.sum(double).alias("double"),
            F.sum(orphaned).alias("orphaned"),
            F.max(F.greatest(F.col("double_before"), F.col("double_after"))).alias("max_double"),
            F.max(F.greatest(F.col("orphaned_before"), F.col("orphaned_after"))).alias("max_orphaned"),
            F.sum(F.col("error").isNotNull().cast("int")).alias("errors"),
            F.sum((F.col("java_double") + F.col("java_orphaned") > 0).cast("int")).alias("java_own"),
            F.sum("seconds").alias("seconds"),
        )
        .collect()
    )
    order = {name: i for i, name in enumerate(MIXES)}
    found = [
        {
            "strategy": r["strategy"],
            "spec": r["spec"],
            "family": r["family"],
            "mix": r["mix"],
            "mixes": int(r["mixes"]),
            "failing": int(r["failing"]),
            "with_double": int(r["with_double"]),
            "with_orphaned": int(r["with_orphaned"]),
            "double": int(r["double"]),
            "orphaned": int(r["orphaned"]),
            "max_double": int(r["max_double"]),
            "max_orphaned": int(r["max_orphaned"]),
            "errors": int(r["errors"]),
            "java_own": int(r["java_own"]),
            "seconds": round(float(r["seconds"]), 3),
        }
        for r in rows
    ]
    return sorted(found, key=lambda r: (r["strategy"], order[r["mix"]]))


def _verdict(
    label: str,
    spec: str,
    family: str | None,
    side: str,
    *,
    n: int,
    scenarios: int,
    failing: int,
    failing_scenarios: int,
    double: int = 0,
    orphaned: int = 0,
    split: int = 0,
    errors: int,
) -> dict[str, Any]:
    """A strategy's verdict of either side, its keys in the summary's order; the caller adds
    ``worst``, ``replay`` and ``first_error`` where there are any, then ``safe``."""
    return {
        "strategy": label,
        "spec": spec,
        "family": family,
        "side": side,
        "n": n,
        "scenarios": scenarios,
        "failing": failing,
        "failing_scenarios": failing_scenarios,
        "double": double,
        "orphaned": orphaned,
        "split": split,
        "errors": errors,
        "worst": None,
        "replay": None,
        "first_error": None,
    }


def _consumer_verdicts(stored, labels: Sequence[str], space: SweepSpace, version: str) -> list[dict[str, Any]]:
    from pyspark.sql import functions as F

    total = F.col("double_before") + F.col("orphaned_before") + F.col("double_after") + F.col("orphaned_after")
    failing = (total > 0) | F.col("error").isNotNull()
    mix_order = F.when(F.col("mix") == MIXES[0], 0).when(F.col("mix") == MIXES[1], 1).otherwise(2)
    verdicts = []
    for label in labels:
        mine = stored.where(F.col("strategy") == label)
        counts = mine.agg(
            F.count("*").alias("n"),
            F.countDistinct("scenario").alias("scenarios"),
            F.sum(failing.cast("int")).alias("failing"),
            F.countDistinct(F.when(failing, F.col("scenario"))).alias("failing_scenarios"),
            F.sum(F.col("double_before") + F.col("double_after")).alias("double"),
            F.sum(F.col("orphaned_before") + F.col("orphaned_after")).alias("orphaned"),
            F.sum(F.col("error").isNotNull().cast("int")).alias("errors"),
            F.first("spec").alias("spec"),
            F.first("family").alias("family"),
        ).first()
        worst = mine.where(total > 0).orderBy(F.desc(total), F.asc("scenario"), mix_order).first()
        first_error = mine.where(F.col("error").isNotNull()).orderBy("scenario", mix_order).first()
        verdict = _verdict(
            label,
            counts["spec"],
            counts["family"],
            "consumer",
            n=int(counts["n"]),
            scenarios=int(counts["scenarios"]),
            failing=int(counts["failing"] or 0),
            failing_scenarios=int(counts["failing_scenarios"]),
            double=int(counts["double"] or 0),
            orphaned=int(counts["orphaned"] or 0),
            errors=int(counts["errors"] or 0),
        )
        if worst is not None:
            verdict["worst"] = (
                f"scenario {worst['scenario']} of seed {space.seed} ({worst['queues']} queues, {worst['consumers']} clients, "
                f"{worst['event']}), mix {worst['mix']} ({len(worst['x_clients'])} of {worst['pool']} clients run it): "
                f"{worst['double_before']} double-taken and {worst['orphaned_before']} orphaned queues before the {worst['event']}, "
                f"{worst['double_after']} and {worst['orphaned_after']} after"
            )
            verdict["replay"] = replay_command(space, counts["spec"], worst["scenario"], version)
            verdict["group"] = worst["group"]
        if first_error is not None:
            verdict["first_error"] = (
                f"scenario {first_error['scenario']}, mix {first_error['mix']}: {first_error['error']}"
            )
        verdict["safe"] = verdict["failing"] == 0
        verdicts.append(verdict)
    return verdicts


def run_mix_sweep(
    entries: Sequence[tuple[str, str | None]],
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
    """The consumer side: every strategy of ``entries`` (``(spec, family)``) mixed with Java on the
    scenarios of ``space``; writes ``out/results/`` (Parquet), ``out/summary.json`` and, with
    ``report``, the report and its plots. Returns the summary."""
    started = time.perf_counter()
    out = Path(out)
    labels = entry_labels(entries)
    with staged(out, master, spark) as (staging, session):
        parts = partitions_for(session, partitions)
        say(
            f"rmq-conformance sweep --mix: {space.count} scenarios x {len(labels)} strategies x up to {len(MIXES)} mixes "
            f"with Java on {master}, {parts} partitions"
        )
        batches = _mix_batches(entries, space, version, timeout)
        stored = run_batches(
            session, space.count, parts, batches, spark_ddl(MIX_FIELDS), staging / "results", progress, say
        )
        summary = empty_summary()
        summary["consumer"] = {
            "space": {**space.describe(), "reference_version": version},
            "master": master,
            "partitions": parts,
            "elapsed_seconds": 0.0,
            "rows": _consumer_rows(stored),
        }
        summary["verdicts"] = _consumer_verdicts(stored, labels, space, version)
        summary["consumer"]["elapsed_seconds"] = round(time.perf_counter() - started, 2)
        validate_mix_summary(summary)
        write_json(staging / "summary.json", summary)
        if report:
            from pytest_rmq_conformance.pipeline.mix.report import write_mix_report

            write_mix_report(summary, staging)
        publish(staging, out)
    say(f"rmq-conformance sweep --mix: wrote {out} in {summary['consumer']['elapsed_seconds']:.1f} s")
    return summary


def _group_batches(entries: Sequence[tuple[str, str]], space: GroupSpace, timeout: float | None):
    """The ``mapInArrow`` function of the producer side: name indexes in, one tally per partition out."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        from pytest_rmq_conformance.pipeline.mix.message_groups import mappers, mix_tally

        chosen = mappers(entries, space, timeout)
        try:
            rows = mix_tally(space, chosen, (batch.column(0).to_pylist() for batch in batches))
        finally:
            for entry in chosen:
                entry[4].close()
        yield pa.RecordBatch.from_pylist(rows, schema=arrow_schema(GROUP_FIELDS))

    return run


def _group_rows(stored) -> list[dict[str, Any]]:
    from pyspark.sql import functions as F

    rows = (
        stored.groupBy("strategy", "spec", "family", "queues")
        .agg(
            F.sum("names").alias("names"),
            F.sum("split").alias("split"),
            F.sum("errors").alias("errors"),
            F.min_by("first_split", F.when(F.col("first_split").isNotNull(), F.col("split_index"))).alias(
                "first_split"
            ),
            F.min_by("error", F.when(F.col("error").isNotNull(), F.col("error_index"))).alias("first_error"),
            F.sum("seconds").alias("seconds"),
        )
        .collect()
    )
    found = [
        {
            "strategy": r["strategy"],
            "spec": r["spec"],
            "family": r["family"],
            "queues": int(r["queues"]),
            "names": int(r["names"]),
            "split": int(r["split"]),
            "errors": int(r["errors"]),
            "split_share": None if not r["names"] else round(int(r["split"]) / int(r["names"]), 6),
            "first_split": r["first_split"],
            "first_error": r["first_error"],
            "seconds": round(float(r["seconds"]), 3),
        }
        for r in rows
    ]
    return sorted(found, key=lambda r: (r["strategy"], r["queues"]))


#: the columns of the producer side's ``results/``: a row per strategy and queue count
RESULT_GROUP_FIELDS = (
    *GROUP_FIELDS[:7],
    ("split_share", "float64"),
    ("first_split", "string"),
    ("first_error", "string"),
    ("seconds", "float64"),
)


def _write_rows(rows: Sequence[dict[str, Any]], folder: Path) -> None:
    """The summed rows as one Parquet file in ``folder`` (they are a few per strategy and queue count)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(
        pa.Table.from_pylist(list(rows), schema=arrow_schema(RESULT_GROUP_FIELDS)), folder / "part-00000.parquet"
    )


def _group_verdicts(rows: Sequence[dict[str, Any]], labels: Sequence[str], space: GroupSpace) -> list[dict[str, Any]]:
    verdicts = []
    for label in labels:
        mine = [r for r in rows if r["strategy"] == label]
        split = sum(r["split"] for r in mine)
        errors = sum(r["errors"] for r in mine)
        worst = max((r for r in mine if r["split"]), key=lambda r: (r["split_share"] or 0, -r["queues"]), default=None)
        first_error = next((r for r in mine if r["first_error"]), None)
        verdict = _verdict(
            label,
            mine[0]["spec"],
            mine[0]["family"],
            "producer",
            n=sum(r["names"] + r["errors"] for r in mine),
            scenarios=len(mine),
            failing=sum(r["split"] + r["errors"] for r in mine),
            failing_scenarios=sum(1 for r in mine if r["split"] or r["errors"]),
            split=split,
            errors=errors,
        )
        if worst is not None:
            verdict["worst"] = (
                f"K = {worst['queues']} queues: {worst['split']:,} of {worst['names']:,} names split "
                f"({100 * worst['split_share']:.1f} %), the first {worst['first_split']}"
            )
            verdict["replay"] = shlex.join(
                [
                    "rmq-conformance",
                    "sweep",
                    "--mix",
                    "--groups",
                    str(space.groups),
                    "--queues",
                    f"{worst['queues']}:{worst['queues']}",
                    "--group-format",
                    space.name_format,
                    "--strategy",
                    mine[0]["spec"],
                ]
            )
        if first_error is not None:
            verdict["first_error"] = f"at K = {first_error['queues']}: {first_error['first_error']}"
        verdict["safe"] = verdict["failing"] == 0
        verdicts.append(verdict)
    return verdicts


def run_mix_groups_sweep(
    entries: Sequence[tuple[str, str]],
    space: GroupSpace,
    out: Path,
    *,
    master: str = "local[*]",
    partitions: int | None = None,
    timeout: float | None = 2.0,
    report: bool = True,
    progress: bool = True,
    say: Say = say_to_stderr,
    spark=None,
) -> dict[str, Any]:
    """The producer side: each entry (``(spec, family)``, GROUP_HASH or SELECTOR_HASH) sending
    ``space``'s names beside a Java producer, at every queue count; writes ``out/results/``
    (Parquet: a row per strategy and queue count), ``out/summary.json`` and, with ``report``,
    the report and its plots. Returns the summary."""
    from pytest_rmq_conformance.pipeline.mix.message_groups import label

    started = time.perf_counter()
    out = Path(out)
    labels = [label(spec, family) for spec, family in entries]
    with staged(out, master, spark) as (staging, session):
        parts = partitions_for(session, partitions)
        counts = space.measured()
        say(
            f"rmq-conformance sweep --mix --groups: {space.groups} names over {counts.start}..{counts.stop - 1} queues x "
            f"{len(labels)} strategies beside Java on {master}, {parts} partitions"
        )
        batches = _group_batches(entries, space, timeout)
        tallies = run_batches(
            session, space.groups, parts, batches, spark_ddl(GROUP_FIELDS), staging / "tallies", progress, say
        )
        rows = _group_rows(tallies)
        _write_rows(rows, staging / "results")
        summary = empty_summary()
        summary["groups"] = {
            "space": space.as_dict(),
            "master": master,
            "partitions": parts,
            "elapsed_seconds": 0.0,
            "rows": rows,
        }
        summary["verdicts"] = _group_verdicts(rows, labels, space)
        summary["groups"]["elapsed_seconds"] = round(time.perf_counter() - started, 2)
        validate_mix_summary(summary)
        write_json(staging / "summary.json", summary)
        shutil.rmtree(staging / "tallies", ignore_errors=True)
        if report:
            from pytest_rmq_conformance.pipeline.mix.report import write_mix_report

            write_mix_report(summary, staging)
        publish(staging, out)
    say(f"rmq-conformance sweep --mix --groups: wrote {out} in {summary['groups']['elapsed_seconds']:.1f} s")
    return summary
