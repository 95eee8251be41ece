"""How often the default profile catches each deliberately wrong strategy of tests/breakers.py.

    python benchmarks/detection.py [--seeds 10] [--profile quick] [NAME ...]

Runs the one suite test that must reject each breaker, once per seed
(``--rmq-seed`` 1..N), in a subprocess, and prints the share of seeds that
caught it and the median time. Measures; asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))

from breakers import BREAKERS

KIND = {"test_invariant_of_a_group": "invariants", "test_invariant_across_a_change": "invariants",
        "test_one_answer": "one-answer", "test_matches_reference": "reference"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=sorted(BREAKERS))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--profile", default="quick")
    args = parser.parse_args()
    print("| breaker | check | caught | median time |")
    print("| --- | --- | ---: | ---: |")
    with tempfile.TemporaryDirectory() as work:
        shutil.copy(TESTS / "breakers.py", work)
        for name in args.names:
            test, extra = BREAKERS[name]
            caught, times = 0, []
            for seed in range(1, args.seeds + 1):
                started = time.perf_counter()
                done = subprocess.run(
                    [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf",
                     f"--rmq-strategy=breakers:{name}", f"--rmq-checks={KIND[test.split('[')[0]]}",
                     f"--rmq-profile={args.profile}", f"--rmq-seed={seed}", *extra],
                    cwd=work, capture_output=True, text=True,
                )
                times.append(time.perf_counter() - started)
                caught += f"::{test} - " in done.stdout
            print(f"| {name} | {test} | {caught}/{args.seeds} | {statistics.median(times):.1f} s |", flush=True)


if __name__ == "__main__":
    main()
