"""How long `pytest --rmq-strategy=SPEC` takes: the whole shipped suite, one strategy, one release.

    python benchmarks/plugin_run.py [--repeat 3] [--release 5.3.3] [SPEC ...]

Runs each spec in a fresh temporary directory (as a user would, in a
subprocess) and prints the median wall time over the repeats, the number of
golden cases and the allocate() calls behind them. Measures; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

from pytest_rmq_conformance.engine.golden.data import load_golden

DEFAULT_SPECS = [
    "AVG",
    "AVG_BY_CIRCLE",
    "CONSISTENT_HASH",
    "MACHINE_ROOM",
    "MACHINE_ROOM_NEARBY",
    "CONFIG",
    "pytest_rmq_conformance.ports.allocation:AllocateMessageQueueConsistentHash",
]


def calls(family: str, release: str) -> tuple:
    golden = load_golden(strategies=[family])
    cases = [case for case in golden.cases if release in case.runs]
    return len(cases), sum(len(case.results_for(release)) for case in cases)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", default=DEFAULT_SPECS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--release", default="5.3.3")
    parser.add_argument("--extra", default="", help="more pytest arguments, e.g. '-n 2'")
    args = parser.parse_args()
    print(f"| spec | golden cases | allocate calls | wall time (median of {args.repeat}) | calls/s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for spec in args.specs:
        family = spec if ":" not in spec else "CONSISTENT_HASH" if "ConsistentHash" in spec else spec
        times = []
        with tempfile.TemporaryDirectory() as empty:
            for _ in range(args.repeat):
                started = time.perf_counter()
                done = subprocess.run(
                    [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                     f"--rmq-strategy={spec}", f"--rmq-reference-version={args.release}", *args.extra.split()],
                    cwd=empty, capture_output=True, text=True,
                )
                times.append(time.perf_counter() - started)
                if done.returncode != 0:
                    sys.exit(f"{spec}: pytest exited {done.returncode}\n{done.stdout[-2000:]}")
        n_cases, n_calls = calls(family, args.release)
        median = statistics.median(times)
        print(f"| {spec} | {n_cases} | {n_calls} | {median:.2f} s | {n_calls / median:,.0f} |")


if __name__ == "__main__":
    main()
