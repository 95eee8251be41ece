"""How long the generated checks take under a profile: one strategy, the whole suite.

    python benchmarks/generated_run.py [--repeat 3] [--profile quick] [--extra PYTEST_ARGS] [SPEC ...]

For each spec, in a fresh temporary directory and a subprocess (as a user
runs it): the whole suite (golden + generated), and the generated checks
alone (``--rmq-checks=invariants,one-answer,reference``). Prints median wall
times. Measures; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

DEFAULT_SPECS = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY", "CONFIG",
                 "pytest_rmq_conformance.ports.allocation:AllocateMessageQueueConsistentHash"]
GENERATED = "--rmq-checks=invariants,one-answer,reference"


def timed(spec: str, profile: str, extra: list, cwd: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rmq-strategy={spec}",
         f"--rmq-profile={profile}", "--rmq-seed=1", *extra],
        cwd=cwd, capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{spec}: pytest exited {done.returncode}\n{done.stdout[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", default=DEFAULT_SPECS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--extra", default="", help="more pytest arguments for every run, e.g. '--rmq-examples=5'")
    args = parser.parse_args()
    extra = args.extra.split()
    print(f"| spec | whole suite (median of {args.repeat}) | generated checks only |")
    print("| --- | ---: | ---: |")
    for spec in args.specs:
        with tempfile.TemporaryDirectory() as empty:
            whole = [timed(spec, args.profile, extra, empty) for _ in range(args.repeat)]
            generated = [timed(spec, args.profile, [GENERATED, *extra], empty) for _ in range(args.repeat)]
        print(f"| {spec} | {statistics.median(whole):.1f} s | {statistics.median(generated):.1f} s |", flush=True)


if __name__ == "__main__":
    main()
