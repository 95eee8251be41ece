"""How fast the sweep evaluates: each strategy's evaluator against the bare calls of its
reference port, Spark against one plain Python process, and how time grows.

    python benchmarks/sweep_speed.py [--scenarios 600] [--evaluator-scenarios 60] [--master local[2]] [--partitions 8]

1. Per reference strategy, over the first ``--evaluator-scenarios`` scenarios of the default
   space: ``Evaluator.evaluate`` (the calls and every check the sweep makes) against the bare
   calls of the port on the same configured groups (a port built per group, asked by every
   client, before and after the change), CPU seconds and their ratio. Scenarios go through the
   strategies as in the sweep's tasks; each scenario's preparation, shared by the strategies,
   is shown on its own line and counted in the total; each figure is the least of ``--repeat``
   passes.
2. The same scenarios (the default space: 1-1024 queues, 1-100 consumers, all events, the six
   reference strategies) evaluated in this process, one after the other, and by
   ``run_sweep`` on Spark (no report). Prints wall times, allocate calls per second and the
   ratio; the Spark time is given with and without the session's start-up.
3. Seconds per scenario for AVG and CONSISTENT_HASH at fixed queue and consumer counts.

Measures; asserts nothing. Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from pytest_rmq_conformance.engine.kinds import ports
from pytest_rmq_conformance.kinds.allocation.scenarios import java_ordered
from pytest_rmq_conformance.pipeline.allocation.evaluate import Evaluator, Prepared, prepare
from pytest_rmq_conformance.pipeline.allocation.space import SweepSpace

SPECS = sorted(ports("allocation"))


def _groups(evaluator: Evaluator, prepared: Prepared) -> list:
    """The two configured groups an evaluation asks every client of: before and after the change."""
    before = evaluator._configured(prepared.start)
    return [before, java_ordered(before, prepared.after_members)]


def _bare(evaluator: Evaluator, groups: list) -> float:
    """CPU seconds of the port's calls on ``groups``: built per group, asked by every client."""
    started = time.process_time()
    for group in groups:
        port = evaluator.subject.reference_for(group)
        for cid in group.clients:
            port.allocate(group.consumer_group, cid, group.mq_all, group.cid_all)
    return time.process_time() - started


def evaluator_against_bare(space: SweepSpace, count: int, repeat: int) -> None:
    """Per strategy: the evaluator's CPU time and the bare port calls' on the same groups.

    Scenarios are taken as the sweep's tasks take them: each one prepared once (the queue list in
    Java order, read for the checks), then evaluated by every strategy in turn. The preparation
    is its own line. Bare calls and evaluation take turns going first; each figure is the least
    of ``repeat`` passes (the one the machine disturbed least)."""
    plans = [space.plan(index) for index in range(count)]
    evaluators = [Evaluator(spec) for spec in SPECS]
    best: dict[str, list[float]] = {}
    for _ in range(repeat):
        totals = {spec: [0.0, 0.0] for spec in [*SPECS, "shared"]}
        for index, plan in enumerate(plans):
            started = time.process_time()
            prepared = prepare(plan)
            totals["shared"][0] += time.process_time() - started
            for evaluator in evaluators:
                groups = _groups(evaluator, prepared)
                if index % 2:
                    totals[evaluator.spec][1] += _bare(evaluator, groups)
                started = time.process_time()
                evaluator.evaluate(plan, index)
                totals[evaluator.spec][0] += time.process_time() - started
                if not index % 2:
                    totals[evaluator.spec][1] += _bare(evaluator, groups)
        for spec, (judged, bare) in totals.items():
            kept = best.setdefault(spec, [judged, bare])
            kept[:] = [min(kept[0], judged), min(kept[1], bare)]
    print(f"\n| strategy | evaluator | bare reference calls | ratio |  ({count} scenarios, CPU seconds, least of {repeat} passes)")
    print("| --- | ---: | ---: | ---: |")
    for spec in SPECS:
        judged, bare = best[spec]
        print(f"| {spec} | {judged:.3f} s | {bare:.3f} s | {judged / bare:.1f}x |")
    shared = best["shared"][0]
    judged, bare = sum(best[spec][0] for spec in SPECS) + shared, sum(best[spec][1] for spec in SPECS)
    print(f"| (each scenario prepared once for all) | {shared:.3f} s | | |")
    print(f"| all six, with the preparation | {judged:.3f} s | {bare:.3f} s | {judged / bare:.1f}x |", flush=True)


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
    from pytest_rmq_conformance.pipeline.allocation.job import run_sweep
    from pytest_rmq_conformance.pipeline.spark import spark_session

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
    parser.add_argument("--evaluator-scenarios", type=int, default=60, help="scenarios of the evaluator-against-bare-calls table")
    parser.add_argument("--repeat", type=int, default=5, help="runs of that table's two timings (the least is kept)")
    parser.add_argument("--skip-spark", action="store_true", help="only the evaluator table (and the growth table)")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--skip-growth", action="store_true")
    parser.add_argument("--growth-queues", default="16,128,1024", help="queue counts of the growth table")
    parser.add_argument("--growth-consumers", default="4,32,100", help="consumer counts of the growth table")
    parser.add_argument("--growth-repeat", type=int, default=5, help="scenarios per cell of the growth table")
    args = parser.parse_args()
    space = SweepSpace(seed=42, count=args.scenarios)
    evaluator_against_bare(space, args.evaluator_scenarios, args.repeat)
    if args.skip_spark:
        if not args.skip_growth:
            growth([int(q) for q in args.growth_queues.split(",")], [int(c) for c in args.growth_consumers.split(",")],
                   args.growth_repeat)
        return
    print(f"\n{args.scenarios} scenarios x {len(SPECS)} strategies, default space")
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
