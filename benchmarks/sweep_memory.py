"""The sweep driver's peak memory as the scenarios grow: the Python process that runs the sweep
and its JVM, each figure against the smallest run's (the sweep is meant to keep them flat).

    python benchmarks/sweep_memory.py [--scenarios 1000,4000,16000] [--queues 1:64] [--consumers 1:16]
                                      [--master local[2]] [--partitions 8] [--no-report]

Each count is swept in a fresh process (the six reference strategies, the report written), which
then says its own peak resident set (``ru_maxrss``) and its JVM's (``VmHWM`` in ``/proc``, Linux
only). The Python workers that evaluate the scenarios are other processes, not the driver.
Measures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from pytest_rmq_conformance.engine.kinds import ports
from pytest_rmq_conformance.pipeline.checks import parse_range
from pytest_rmq_conformance.pipeline.allocation.job import run_sweep
from pytest_rmq_conformance.pipeline.allocation.space import SweepSpace
from pytest_rmq_conformance.pipeline.spark import spark_session

count, queues, consumers, master, partitions, report, out = sys.argv[1:]
space = SweepSpace(queues=parse_range(queues, "--queues", 1, 10000), consumers=parse_range(consumers, "--consumers", 1, 2000),
                   seed=1, count=int(count))
spark = spark_session(master)
started = time.perf_counter()
run_sweep(sorted(ports("allocation")), space, Path(out), master=master, partitions=int(partitions), spark=spark,
          report=report == "report", progress=False, say=lambda line: None)
elapsed = time.perf_counter() - started
jvm = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
status = Path(f"/proc/{jvm}/status")
peak = [line.split()[1] for line in status.read_text().splitlines() if line.startswith("VmHWM:")] if status.exists() else []
spark.stop()
print(json.dumps({"python_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "jvm_kb": int(peak[0]) if peak else None,
                  "seconds": elapsed}))
"""


def measure(count: int, args: argparse.Namespace) -> dict:
    report = "no-report" if args.no_report else "report"
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run([sys.executable, "-c", CHILD, str(count), args.queues, args.consumers, args.master,
                               str(args.partitions), report, f"{scratch}/sweep"],
                              capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"the sweep of {count} scenarios failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", default="1000,4000,16000", help="the scenario counts, comma-separated")
    parser.add_argument("--queues", default="1:64")
    parser.add_argument("--consumers", default="1:16")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--no-report", action="store_true", help="skip the report (its plots)")
    args = parser.parse_args()
    counts = [int(text) for text in args.scenarios.split(",")]
    rows = [measure(count, args) for count in counts]
    first = rows[0]
    print(f"\n| scenarios | Python driver peak | its JVM's peak | sweep wall time |  (queues {args.queues}, consumers {args.consumers}, "
          f"{args.master}; peaks against the first run's)")
    print("| ---: | ---: | ---: | ---: |")
    for count, row in zip(counts, rows):
        python = f"{row['python_kb'] / 1024:.0f} MB ({row['python_kb'] / first['python_kb']:.2f}x)"
        jvm = "n/a" if row["jvm_kb"] is None else f"{row['jvm_kb'] / 1024:.0f} MB ({row['jvm_kb'] / first['jvm_kb']:.2f}x)"
        print(f"| {count} | {python} | {jvm} | {row['seconds']:.1f} s |", flush=True)


if __name__ == "__main__":
    main()
