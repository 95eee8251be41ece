"""What replaying the fault-strategy traces through the suite costs: CPU time of whole processes,
as ratios against yardsticks measured in the same run (the machine is shared).

1. ``pytest --rmq-strategy=FAULT_STRATEGY --rmq-checks=golden`` at one release, against pytest's
   own floor for as many tests: one trivial parametrized test per trace, plugin blocked
   (target: at most 1.5x).
2. The same run against a bare Python process that parses the same traces and drives the
   reference port through every step (no pytest, no comparison).

Bytecode caches are warm: each command runs once before it is measured.

    python benchmarks/producer_replay.py [--repeat 7] [--release 4.9.8]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from cpu import median_ratio

BARE = r"""
import json, sys
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.kinds.producer.trace import TraceClock, route_of
from pytest_rmq_conformance.ports.producer import MQFaultStrategy
release, steps = sys.argv[1], 0
for line in (golden_dir() / "producer" / "FAULT_STRATEGY.jsonl").read_text(encoding="utf-8").splitlines():
    case = json.loads(line)
    clock = TraceClock(case["initial"]["clockMs"])
    strategy = MQFaultStrategy(clock=clock, version=release)
    strategy.send_latency_fault_enable = case["params"]["sendLatencyFaultEnable"]
    if case["params"]["latencyMax"] is not None:
        strategy.latency_max = case["params"]["latencyMax"]
    if case["params"]["notAvailableDuration"] is not None:
        strategy.not_available_duration = case["params"]["notAvailableDuration"]
    strategy.which_item_worst.pin(case["initial"]["worstIndex"], case["initial"]["worstIndexSeed"])
    info = strategy.publish_info(case["topic"], route_of(case["route"]))
    info.send_which_queue.pin(case["initial"]["sendIndex"], case["initial"]["sendIndexSeed"])
    for step in case["steps"]:
        steps += 1
        op = step["op"]
        try:
            if op == "select":
                strategy.select_one_message_queue(info, step["lastBroker"], step["resetIndex"])
            elif op == "tp_select":
                info.select_one_message_queue(step["lastBroker"])
            elif op == "update":
                strategy.update_fault_item(step["broker"], step["latency"], step["isolation"], step["reachable"])
            elif op == "advance":
                clock.advance(step["ms"])
            elif op == "set_index":
                info.send_which_queue.stored = step["value"]
            elif op == "set_latency":
                strategy.send_latency_fault_enable = step["enable"]
            elif op == "route":
                info = strategy.publish_info(case["topic"], route_of(step["route"]))
                info.send_which_queue.pin(step["sendIndex"], step["sendIndexSeed"])
            elif op == "detect":
                strategy.detect_by_one_round(step["resolve"].get, lambda addr, timeout: addr in step["reachableAddrs"])
        except Exception:
            pass
print(steps)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--release", default="4.9.8")
    args = parser.parse_args()
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    golden = pytest + ["--rmq-strategy=FAULT_STRATEGY", f"--rmq-reference-version={args.release}", "--rmq-checks=golden"]
    with tempfile.TemporaryDirectory() as project:
        done = subprocess.run(golden, cwd=project, capture_output=True, text=True)
        counts = done.stdout.strip().splitlines()[-1]
        if done.returncode != 0 or " passed" not in counts:
            raise SystemExit(f"the golden run failed:\n{done.stdout[-2000:]}")
        traces = int(counts.split(" passed")[0].split()[-1])
        Path(project, "test_traces.py").write_text(
            f"import pytest\n\n@pytest.mark.parametrize('trace', range({traces}))\ndef test_trace(trace):\n    assert trace >= 0\n"
        )
        ours, floor = median_ratio(golden, pytest + ["-p", "no:rmq_conformance"], args.repeat, project)
        print(
            f"golden FAULT_STRATEGY {args.release}: {ours:.3f} s CPU, pytest on {traces} trivial tests {floor:.3f} s: "
            f"{ours / floor:.2f}x (target <= 1.5x)"
        )
        ours, bare = median_ratio(golden, [sys.executable, "-c", BARE, args.release], args.repeat, project)
        print(f"golden FAULT_STRATEGY {args.release}: {ours:.3f} s CPU, bare parse + port over every step {bare:.3f} s: {ours / bare:.2f}x")


if __name__ == "__main__":
    main()
