"""What the plugin costs: CPU time of whole processes, as ratios against yardsticks measured in
the same run (the machine is shared, so only ratios are reported).

1. A one-test project with the plugin installed and unused, against the same run with
   ``-p no:rmq_conformance`` (target: at most 1.05x).
2. ``pytest --rmq-strategy=AVG --rmq-checks=golden``, against a bare Python process that parses
   the same 5.3.3 cases from JSON and asks the same reference port for every caller (target:
   at most 4x). Also shown, to read that ratio by: ``pytest`` on the one-test project with the
   plugin blocked, against the same bare process (the floor no pytest run goes below).
3. The same golden run against pytest's own floor for as many tests: one trivial parametrized
   test with one parameter per golden case the run passed, plugin blocked (target: at most 1.5x).

Bytecode caches are warm, as in a user's repeated runs: each command runs once before it is
measured (``PYTHONDONTWRITEBYTECODE`` is dropped from the children's environment, else pytest
rewrites and compiles every plugin module, hypothesis's included, in every run).

    python benchmarks/startup.py [--repeat 7]
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
from pytest_rmq_conformance.engine.golden.data import read_cases
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.engine.kinds import reference_strategy
calls = 0
for case in read_cases(golden_dir() / "AVG.jsonl"):
    group = next((g for g in case["expect"] if "5.3.3" in g["runs"]), None)
    if group is None:
        continue
    mq_all = None if case["mqAll"] is None else [MessageQueue.from_json(t) for t in case["mqAll"]]
    for result in group["results"]:
        strategy = reference_strategy("AVG", case["params"], "5.3.3")
        try:
            strategy.allocate(case["consumerGroup"], result["currentCID"], None if mq_all is None else list(mq_all),
                              None if case["cidAll"] is None else list(case["cidAll"]))
        except Exception:
            pass
        calls += 1
print(calls)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as project:
        Path(project, "test_one.py").write_text("def test_one():\n    assert True\n")
        pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        used, bare = median_ratio(pytest, pytest + ["-p", "no:rmq_conformance"], args.repeat, project)
        print(f"unused plugin: {used:.3f} s CPU, without it {bare:.3f} s: {used / bare:.3f}x (target <= 1.05x)")
        golden, parse = median_ratio(
            pytest + ["--rmq-strategy=AVG", "--rmq-checks=golden"], [sys.executable, "-c", BARE], args.repeat, project
        )
        print(f"golden AVG 5.3.3: {golden:.3f} s CPU, bare parse + calls {parse:.3f} s: {golden / parse:.2f}x (target <= 4x)")
        floor, parse = median_ratio(pytest + ["-p", "no:rmq_conformance"], [sys.executable, "-c", BARE], args.repeat, project)
        print(f"the floor: pytest on one test, plugin blocked, {floor:.3f} s CPU: {floor / parse:.2f}x the bare process")
        cases = passed(pytest + ["--rmq-strategy=AVG", "--rmq-checks=golden"], project)
        Path(project, "test_one.py").unlink()
        Path(project, "test_cases.py").write_text(
            f"import pytest\n\n@pytest.mark.parametrize('case', range({cases}))\ndef test_case(case):\n    assert case >= 0\n"
        )
        golden, trivial = median_ratio(
            pytest + ["--rmq-strategy=AVG", "--rmq-checks=golden"], pytest + ["-p", "no:rmq_conformance"], args.repeat, project
        )
        print(
            f"golden AVG 5.3.3: {golden:.3f} s CPU, pytest on {cases} trivial tests {trivial:.3f} s: "
            f"{golden / trivial:.2f}x (target <= 1.5x)"
        )


def passed(command, cwd) -> int:
    """How many tests ``command`` passed (it must pass them all)."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    counts = done.stdout.strip().splitlines()[-1]
    if done.returncode != 0 or " passed" not in counts:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}")
    return int(counts.split(" passed")[0].split()[-1])


if __name__ == "__main__":
    main()
