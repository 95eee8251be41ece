"""How fast the sweep evaluates: Spark against one plain Python process, and how time grows.

    python benchmarks/sweep_speed.py [--scenarios 600] [--master local[2]] [--partitions 8]

1. The same scenarios (the default space: 1-1024 queues, 1-100 consumers, all events, the six
   reference strategies) evaluated in this process, one after the other, and by
   ``run_sweep`` on Spark (no report). Prints wall times, allocate calls per second and the
   ratio; the Spark time is given with and without the session's start-up.
2. Seconds per scenario for AVG and CONSISTENT_HASH at fixed queue and consumer counts.

Measures; asserts nothing. Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from pytest_rmq_conformance.engine.kinds import ports
from pytest_rmq_conformance.pipeline.evaluate import Evaluator
from pytest_rmq_conformance.pipeline.space import SweepSpace

SPECS = sorted(ports("allocation"))


def plain(space: SweepSpace) -> tuple:
    evaluators = [Evaluator(spec) for spec in SPECS]
    calls = 0
    started = time.perf_counter()
    for index in range(space.count):
        plan = space.plan(index)
        for evaluator in evaluators:
            calls += evaluator.evaluate(plan, index)["calls"]
    return time.perf_counter() - started, calls


def on_spark(space: SweepSpace, master: str, partitions: int) -> tuple:
    from pytest_rmq_conformance.pipeline.job import run_sweep, spark_session

    started = time.perf_counter()
    spark = spark_session(master)
    spark.range(4).count()  # the JVM and a Python worker are up
    ready = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        summary = run_sweep(SPECS, space, Path(out) / "sweep", master=master, partitions=partitions,
                            spark=spark, report=False, progress=False, say=lambda line: None)
    done = time.perf_counter()
    spark.stop()
    calls = sum(entry["calls"] for entry in summary["strategies"])
    return done - started, done - ready, calls


def growth(queue_counts: list[int], consumer_counts: list[int], repeat: int) -> None:
    print("\n| queues | consumers | AVG s/scenario | CONSISTENT_HASH s/scenario |")
    print("| ---: | ---: | ---: | ---: |")
    for queues in queue_counts:
        for consumers in consumer_counts:
            space = SweepSpace(queues=(queues, queues), consumers=(consumers, consumers), seed=1, layouts=False)
            cells = []
            for spec in ("AVG", "CONSISTENT_HASH"):
                evaluator = Evaluator(spec)
                started = time.perf_counter()
                for index in range(repeat):
                    evaluator.evaluate(space.plan(index), index)
                cells.append(f"{(time.perf_counter() - started) / repeat:.4f}")
            print(f"| {queues} | {consumers} | {cells[0]} | {cells[1]} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=600)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--skip-growth", action="store_true")
    parser.add_argument("--growth-queues", default="16,128,1024", help="queue counts of the growth table")
    parser.add_argument("--growth-consumers", default="4,32,100", help="consumer counts of the growth table")
    parser.add_argument("--growth-repeat", type=int, default=5, help="scenarios per cell of the growth table")
    args = parser.parse_args()
    space = SweepSpace(seed=42, count=args.scenarios)
    print(f"{args.scenarios} scenarios x {len(SPECS)} strategies, default space")
    single, calls = plain(space)
    print(f"plain Python, one process: {single:.1f} s, {calls:,} allocate calls, {calls / single:,.0f} calls/s", flush=True)
    total, job, spark_calls = on_spark(space, args.master, args.partitions)
    assert spark_calls == calls, (spark_calls, calls)
    print(f"Spark {args.master}: {total:.1f} s with start-up, {job:.1f} s for the job, {calls / job:,.0f} calls/s")
    print(f"speed-up: {single / job:.2f}x (job), {single / total:.2f}x (with start-up)")
    if not args.skip_growth:
        growth([int(q) for q in args.growth_queues.split(",")], [int(c) for c in args.growth_consumers.split(",")],
               args.growth_repeat)


if __name__ == "__main__":
    main()
