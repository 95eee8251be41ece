"""The rebalance checks as a user runs them: churn per strategy, time, and simulation speed.

    python benchmarks/rebalance_run.py [--repeat 3] [--version 5.3.3] [SPEC ...]

For each spec, in a fresh temporary directory and a subprocess:
``pytest --rmq-strategy=SPEC --rmq-checks=rebalance`` (median wall time of
``--repeat`` runs) and the churn table it prints. Then the speed of a
simulation with messages flowing (simulated seconds per wall second, and
consumptions per second). Measures; asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time

DEFAULT_SPECS = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY", "CONFIG"]
ROW = re.compile(r"^(\S+q-\S+c-\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)$")


def run(spec: str, version: str, cwd: str):
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rmq-strategy={spec}",
         "--rmq-checks=rebalance", f"--rmq-reference-version={version}", "--rmq-seed=1"],
        cwd=cwd, capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{spec}: pytest exited {done.returncode}\n{done.stdout[-3000:]}")
    rows = [m.groups() for m in map(ROW.match, done.stdout.splitlines()) if m]
    return elapsed, rows


def flow_speed(version: str) -> str:
    from pytest_rmq_conformance.engine.kinds import reference_strategy
    from pytest_rmq_conformance.processqueue import GroupSimulation, MessageFlow

    sim = GroupSimulation(
        lambda: reference_strategy("AVG"), queues=24, clients=4, version=version,
        flow=MessageFlow(produce_interval=100, consume_time=20),
    )
    started = time.perf_counter()
    for step in range(6):
        sim.advance(20000)
        (sim.leave if step % 2 == 0 else sim.join)(sim.clients[1] if step % 2 == 0 else None)
    sim.advance(20000)
    wall = time.perf_counter() - started
    return (
        f"24 queues, 10 messages/s each, 4 clients, 3 leaves + 3 joins over {sim.now() / 1000:.0f} simulated s: "
        f"{wall:.2f} s wall, {sim.now() / 1000 / wall:.0f} simulated s per s, "
        f"{len(sim.consumed) / wall:,.0f} consumptions per s, {len(sim.duplicates())} messages consumed twice"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", default=DEFAULT_SPECS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--version", default="5.3.3")
    args = parser.parse_args()
    table = []
    print(f"| spec | --rmq-checks=rebalance (median of {args.repeat}) |")
    print("| --- | ---: |")
    for spec in args.specs:
        with tempfile.TemporaryDirectory() as empty:
            runs = [run(spec, args.version, empty) for _ in range(args.repeat)]
        print(f"| {spec} | {statistics.median(r[0] for r in runs):.1f} s |", flush=True)
        table += runs[0][1]
    print("\n| change | strategy | moved | lower bound | leaver's / joiner's own |")
    print("| --- | --- | ---: | ---: | ---: |")
    for case, strategy, moved, bound, own in sorted(table):
        print(f"| {case} | {strategy} | {moved} | {bound} | {own} |")
    print("\n" + flow_speed(args.version))


if __name__ == "__main__":
    main()
